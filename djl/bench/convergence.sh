#!/usr/bin/env bash
# Convergence parity (#17): held-out accuracy and wall time per epoch for sequential, true random
# and block shuffle (b=16, f=256) on cells sorted by cell type. Usage: djl/bench/convergence.sh OUT_DIR
# [ROWS] [EPOCHS] [SEEDS...] (GENES=2000 by default). Writes OUT_DIR/cells and OUT_DIR/epochs.jsonl.
set -euo pipefail
here="$(cd -P "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$1"; rows="${2:-24000}"; epochs="${3:-4}"; shift 3 || true
seeds=("$@"); [[ ${#seeds[@]} -gt 0 ]] || seeds=(1 2)
mkdir -p "$out"
# One intra-op thread: on a 2-core machine shared with other work, OpenMP's spinning threads cost
# more than they give (DJL's documented property).
export RIFFLE_JAVA_OPTS="${RIFFLE_JAVA_OPTS:--Dai.djl.pytorch.num_threads=1}"
if [[ ! -d "$out/cells" ]]; then
  "$here/../train" --data "$out/cells" --generate "$rows" --genes "${GENES:-2000}" --order cell_type \
    --epochs 1 --seed 1 >"$out/generate.log"
fi
for seed in "${seeds[@]}"; do
  for sampler in sequential random block; do
    "$here/../train" --data "$out/cells" --sampler "$sampler" --block 16 --fetch 256 \
      --batch 256 --epochs "$epochs" --seed "$seed" --json "$out/epochs.jsonl" \
      | tee -a "$out/train.log"
  done
done
