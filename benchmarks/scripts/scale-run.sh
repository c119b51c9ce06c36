#!/usr/bin/env bash
# How Riffle's takes and loader scale past this project's 2-core machine: the same runners
# (Compare, LoadCompare) on one larger machine, each loader run twice — pinned to 2 cores with
# taskset and on all cores — so the ratio comes from one machine and one data set.
#
#   JAVA=java CP='benchmarks/target/benchmarks.jar:cli/target/riffle.jar' \
#     benchmarks/scripts/scale-run.sh DATA_DIR OUT_DIR [SPARSE_ROWS] [NARROW_ROWS]
#
# Writes OUT_DIR/machine.txt, loader-*.md/json, compare-*.md/json and a log; every step has its own
# time limit so that one slow step cannot take the rest down with it.
set -uo pipefail
DATA=${1:?data dir}
OUT=${2:?out dir}
SPARSE_ROWS=${3:-250000}
NARROW_ROWS=${4:-4000000}
JAVA=${JAVA:-java}
CP=${CP:-benchmarks/target/benchmarks.jar:cli/target/riffle.jar}
CORES=$(nproc)
JVM=(-Xmx24g --add-opens=java.base/java.nio=ALL-UNNAMED -cp "$CP")
mkdir -p "$DATA" "$OUT"

{
  date -u
  echo "cores $CORES"
  grep -m1 'model name' /proc/cpuinfo
  free -g | head -2
  df -h "$DATA" | tail -1
  findmnt -T "$DATA" -o SOURCE,FSTYPE,OPTIONS | tail -1
  uname -r
  "$JAVA" -version 2>&1 | head -1
} >"$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

step() { # name seconds command...
  local name=$1 secs=$2
  shift 2
  echo "== $name ($(date -u +%T), load $(cut -d' ' -f1-3 /proc/loadavg))"
  local t0=$SECONDS
  timeout "$secs" "$@"
  echo "== $name: rc $? in $((SECONDS - t0)) s"
}

# Sequential-read limit of the disk, as dd sees it (fio may not be installed).
step dd 30 bash -c "dd if=/dev/zero of='$DATA/dd.bin' bs=1M count=4096 oflag=direct status=none &&
  sync && echo 3 >/proc/sys/vm/drop_caches;
  dd if='$DATA/dd.bin' of=/dev/null bs=1M iflag=direct 2>&1 | tail -1; rm -f '$DATA/dd.bin'"
DIRECT=--direct
dd if=/dev/zero of="$DATA/probe" bs=4096 count=1 oflag=direct status=none 2>/dev/null || DIRECT=
rm -f "$DATA/probe"
echo "O_DIRECT: ${DIRECT:-not supported here}"

step generate 150 "$JAVA" "${JVM[@]}" dev.riffle.cli.Main generate sparse "$DATA/sparse/" \
  --rows "$SPARSE_ROWS" --seed 1 --files 16

for pin in 2 "$CORES"; do
  threads=$((pin > 8 ? pin : 8))
  step "loader-$pin" 100 taskset -c "0-$((pin - 1))" "$JAVA" "${JVM[@]}" dev.riffle.bench.LoadCompare \
    --data "$DATA/sparse" --parquet "$DATA/unused.parquet" --out "$OUT" --name "loader-$pin-cores" \
    --rounds 1 --baseline-rounds 0 --cold $DIRECT --threads "$threads" --memory-mb 2048 \
    --grid 16:512,32:1024 --sequential 512
done

step compare 330 "$JAVA" "${JVM[@]}" dev.riffle.bench.Compare --dir "$DATA/compare" --out "$OUT" \
  --name compare-scale --types u64,str16,list_u64,list_str,vec768,list_vec,bin20k,list_bin --narrow-rows "$NARROW_ROWS" \
  --wide-mib 256 --formats riffle,parquet-tuned,arrow-ipc --concurrency 1,16,64 \
  --cache cold,warm --seconds 1.5 --no-fio
