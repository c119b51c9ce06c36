#!/usr/bin/env bash
# Throughput of two builds of riffle.jar, alternating, in one run window, page cache warm: for a
# change that should not move it (a refactoring). Usage: before-after.sh OLD.jar NEW.jar [DIR].
# Each jar reads data it wrote itself from the same seeds into DIR/old and DIR/new (written on the
# first run).
# take: best of 200 warm 256-row random takes after 200 warm-up takes, rows/s (TakeBench.java);
# load: riffle load, block shuffle b=16 f=256 m=64, samples/s.
set -uo pipefail
OLD=${1:?old riffle.jar}; NEW=${2:?new riffle.jar}; D=${3:-/tmp/bench}
HERE=$(cd "$(dirname "$0")" && pwd)
JO="java --add-opens=java.base/java.nio=ALL-UNNAMED"
for v in old new; do
  jar=$OLD; [[ $v == new ]] && jar=$NEW
  mkdir -p $D/$v
  [[ -f $D/$v/scalars.riffle ]] || $JO -jar $jar generate scalars $D/$v/scalars.riffle --rows 2000000 --seed 1 > /dev/null
  [[ -f $D/$v/sparse.riffle ]] || $JO -jar $jar generate sparse $D/$v/sparse.riffle --rows 100000 --seed 2 > /dev/null
  [[ -d $D/$v/ds ]] || $JO -jar $jar generate sparse $D/$v/ds --rows 200000 --files 4 --seed 3 > /dev/null
done
cat $D/old/*.riffle $D/new/*.riffle $D/*/ds/data/* > /dev/null
cd "$HERE"
for round in 1 2 3 4 5; do
  for v in old new; do
    jar=$OLD; [[ $v == new ]] && jar=$NEW
    s=$($JO -cp $jar TakeBench.java $D/$v/sparse.riffle 256 200 2>&1 | tail -1)
    c=$($JO -cp $jar TakeBench.java $D/$v/scalars.riffle 256 400 2>&1 | tail -1)
    l=$($JO -Xmx4g -jar $jar load $D/$v/ds --sampler block --block 16 --fetch 256 --batch 64 --label plate --seed $round --json 2>/dev/null | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["samplesPerSecond"])')
    echo "round $round $v take-sparse-rows/s $s take-scalars-rows/s $c load-block-samples/s $l  load-avg $(cut -d' ' -f1 /proc/loadavg)"
  done
done
