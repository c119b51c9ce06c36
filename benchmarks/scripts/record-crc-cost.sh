#!/usr/bin/env bash
# What verifying every record costs (issue #15 item 1, format 1.4): warm random takes and loader
# block shuffles of the same rows written and read by a build before record CRCs (OLD, format 1.0)
# and by this one (NEW, 1.4), alternating, in one run window, page cache warm. Usage:
#   record-crc-cost.sh OLD.jar NEW.jar [DIR] [ROUNDS]
# take: best of 200 warm 256-row random takes after 200 warm-up takes, rows/s (TakeBench.java);
# load: riffle load, block shuffle b=16 f=256 m=64, samples/s. Kinds: vectors (768 float32 in
# ZIP_FIXED slots: the record CRC is the only change) and sparse (1,500 sorted ids + random floats
# in packed records: 1.4 also adds a form byte to the float list).
set -uo pipefail
OLD=${1:?old riffle.jar}; NEW=${2:?new riffle.jar}; D=${3:-/tmp/crc-cost}; ROUNDS=${4:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
JO="java --add-opens=java.base/java.nio=ALL-UNNAMED"
for v in old new; do
  jar=$OLD; [[ $v == new ]] && jar=$NEW
  mkdir -p "$D/$v"
  for k in vectors sparse; do
    [[ -f $D/$v/$k.riffle ]] || $JO -jar "$jar" generate $k "$D/$v/$k.riffle" --rows 100000 --seed 2 > /dev/null
    [[ -d $D/$v/$k-ds ]] || $JO -jar "$jar" generate $k "$D/$v/$k-ds" --rows 100000 --files 2 --seed 3 > /dev/null
  done
done
for v in old new; do for k in vectors sparse; do echo "$v $k.riffle $(stat -c %s "$D/$v/$k.riffle") bytes"; done; done
cat "$D"/*/*.riffle "$D"/*/*-ds/data/* > /dev/null
cd "$HERE"
for round in $(seq 1 "$ROUNDS"); do
  for v in old new; do
    jar=$OLD; [[ $v == new ]] && jar=$NEW
    line="round $round $v"
    for k in vectors sparse; do
      t=$($JO -cp "$jar" TakeBench.java "$D/$v/$k.riffle" 256 200 2>&1 | tail -1)
      l=$($JO -Xmx4g -jar "$jar" load "$D/$v/$k-ds" --sampler block --block 16 --fetch 256 --batch 64 --seed $round --json 2>/dev/null | python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["samplesPerSecond"])')
      line="$line take-$k $t load-$k $l"
    done
    echo "$line load-avg $(cut -d' ' -f1 /proc/loadavg)"
  done
done
