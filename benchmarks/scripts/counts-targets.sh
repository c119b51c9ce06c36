#!/usr/bin/env bash
# Issue #14's targets on realistic single-cell counts, in one run window, page cache dropped before
# each run (needs root for /proc/sys/vm/drop_caches). Usage:
#   counts-targets.sh NEW.jar [OLD.jar] [DIR] [ROUNDS]
# NEW.jar: this build's cli/target/riffle.jar; OLD.jar (optional): a build before format 1.4, whose
# zstd-record files are the "today" of the issue. DIR (default /tmp/counts) receives:
#   cells.h5ad        200,000 cells x 20,000 genes, written by anndata (riffle generate cells)
#   cells/            the .h5ad converted by NEW (riffle convert h5ad); cells-old/ by OLD
#   sparse/           riffle generate sparse (random floats), 200,000 rows, next to cells
# Per round and configuration, one line: samples/s and CPU microseconds per sample (user + system
# of the process over the samples; for Java over the load loop, for Python over the whole run; for
# Java also the part of it spent by the JIT compiler threads, a fixed cost of a fresh JVM).
# Peers: benchmarks/scripts/anndata_block_shuffle.py (anndata 0.8 backed mode, same b, f, m).
set -uo pipefail
NEW=${1:?new riffle.jar}; OLD=${2:-}; D=${3:-/tmp/counts}; ROUNDS=${4:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
R="java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx4g -jar"
mkdir -p "$D"
[[ -f $D/cells.h5ad ]] || $R "$NEW" generate cells "$D/cells.h5ad" --rows 200000 --genes 20000 --seed 7
[[ -d $D/cells ]] || $R "$NEW" convert h5ad "$D/cells.h5ad" "$D/cells"
[[ -n $OLD && ! -d $D/cells-old ]] && $R "$OLD" convert h5ad "$D/cells.h5ad" "$D/cells-old"
[[ -d $D/sparse ]] || $R "$NEW" generate sparse "$D/sparse" --rows 200000 --files 1 --seed 3 > /dev/null

nnz=$($PY -c "import h5py,sys; print(h5py.File(sys.argv[1])['X/data'].shape[0])" "$D/cells.h5ad")
echo "stored values: $nnz"
for v in cells cells-old sparse; do
  [[ -d $D/$v ]] || continue
  b=$(du -sb "$D/$v/data" | cut -f1)
  echo "size $v: $b bytes, $(python3 -c "print(round($b/$nnz, 3))") bytes per stored value (cells' count)"
done
echo "h5ad: $(stat -c %s "$D/cells.h5ad") bytes"

drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
riffle_load() { # jar dataset sampler
  drop
  $R "$1" load "$2" --sampler "$3" --block 16 --fetch 256 --batch 64 --label plate --seed 1 --json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("%8.0f samples/s  %6.1f us CPU/sample (JIT compiler threads %.1f)" % (j["samplesPerSecond"], j.get("cpuMicrosPerSample", -1), j.get("jitCpuMicrosPerSample", -1)))'
}
anndata_load() { # extra args
  drop
  $PY "$HERE/anndata_block_shuffle.py" "$D/cells.h5ad" --block 16 --fetch 256 --batch 64 --label plate "$@" |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("%8.0f samples/s  %6.1f us CPU/sample" % (j["samplesPerSecond"], j["cpuMicrosPerSample"]))'
}
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round riffle cells block      $(riffle_load "$NEW" "$D/cells" block)"
  echo "round $round riffle cells sequential $(riffle_load "$NEW" "$D/cells" sequential)"
  echo "round $round anndata cells block     $(anndata_load)"
  echo "round $round anndata cells sequential $(anndata_load --sequential)"
  echo "round $round riffle sparse block     $(riffle_load "$NEW" "$D/sparse" block)"
  [[ -d $D/cells-old ]] && echo "round $round old-riffle cells block  $(riffle_load "$OLD" "$D/cells-old" block)"
done
# Random takes of single rows: reads and sectors per row (counters, not timings).
rows=$(python3 -c "import random; r=random.Random(5); print(','.join(str(r.randrange(200000)) for _ in range(500)))")
for v in cells sparse; do
  echo "take $v 500 random rows: $($R "$NEW" take "$D/$v" --rows "$rows" --columns indices,values --stats --quiet 2>&1 >/dev/null | tail -1)"
done
