#!/usr/bin/env bash
# Normalised counts (the X of most published atlases): `riffle load` block shuffle of the converted
# .h5ad against anndata's backed block shuffle of the same file, and an OLD build's conversion (zstd
# records) against NEW's (packed float lists in form DICTIONARY), alternating round by round, page
# cache dropped before each run (root). Usage:
#   normalized-counts.sh NEW.jar OLD.jar [DIR=/tmp/norm] [ROUNDS=3] [EPOCHS=1]
# DIR receives norm200.h5ad (normalize_h5ad.py of the 200,000-cell counts file that
# counts-targets.sh writes to /tmp/counts/cells.h5ad) and its conversions ds-new/ and ds-old/.
set -uo pipefail
NEW=${1:?new riffle.jar}; OLD=${2:?old riffle.jar}; D=${3:-/tmp/norm}; ROUNDS=${4:-3}; EPOCHS=${5:-1}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
R="java --add-opens=java.base/java.nio=ALL-UNNAMED -Xmx4g -jar"
mkdir -p "$D"
[[ -f $D/norm200.h5ad ]] || $PY "$HERE/normalize_h5ad.py" /tmp/counts/cells.h5ad "$D/norm200.h5ad"
for v in new old; do
  jar=$NEW; [[ $v == old ]] && jar=$OLD
  if [[ ! -d $D/ds-$v ]]; then
    sync; echo 3 > /proc/sys/vm/drop_caches
    $R "$jar" convert h5ad "$D/norm200.h5ad" "$D/ds-$v" 2>&1 | grep converted
  fi
done
nnz=$($PY -c "import h5py,sys; print(h5py.File(sys.argv[1])['X/data'].shape[0])" "$D/norm200.h5ad")
for v in new old; do
  b=$(du -sb "$D/ds-$v/data" | cut -f1)
  echo "size $v: $b bytes, $(python3 -c "print(round($b/$nnz, 3))") bytes per stored value"
done
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
rl() { # jar dataset sampler
  drop
  $R "$1" load "$2" --sampler "$3" --block 16 --fetch 256 --batch 64 --label plate --seed 1 --epochs "$EPOCHS" --json 2>/dev/null |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("%8.0f samples/s  %6.1f us CPU/sample (JIT %.1f)" % (j["samplesPerSecond"], j["cpuMicrosPerSample"], j["jitCpuMicrosPerSample"]))'
}
ad() {
  drop
  $PY "$HERE/anndata_block_shuffle.py" "$D/norm200.h5ad" --block 16 --fetch 256 --batch 64 --label plate "$@" |
    python3 -c 'import json,sys; j=json.load(sys.stdin); print("%8.0f samples/s  %6.1f us CPU/sample" % (j["samplesPerSecond"], j["cpuMicrosPerSample"]))'
}
stamp() { echo "$(date -u +%H:%M:%S) load=$(cut -d' ' -f1 /proc/loadavg)"; }
for r in $(seq 1 "$ROUNDS"); do
  echo "$(stamp) round $r new block       $(rl "$NEW" "$D/ds-new" block)"
  echo "$(stamp) round $r old block       $(rl "$OLD" "$D/ds-old" block)"
  echo "$(stamp) round $r new sequential  $(rl "$NEW" "$D/ds-new" sequential)"
  [[ $EPOCHS == 1 ]] && echo "$(stamp) round $r anndata block   $(ad)"
done
