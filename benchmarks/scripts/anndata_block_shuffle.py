#!/usr/bin/env python3
"""AnnData backed-mode block shuffle: the peer of `riffle load --sampler block` (issue #14).

What a user would otherwise run: anndata opens the .h5ad backed (X stays on disk), and the
scDataset-style block shuffle reads each fetch of F = m*f rows as F/b random blocks of b contiguous
rows (sorted, so h5py reads runs), shuffles the fetched rows in memory and cuts them into f batches
of m (X rows as a scipy CSR matrix, and the label column's codes). Every row is read once per epoch.

Reports one JSON line: samples, seconds, samples/s, and the process's user+system CPU seconds per
sample, in the shape `riffle load --json` reports. Usage:

  python3 anndata_block_shuffle.py FILE.h5ad [--block 16] [--fetch 256] [--batch 64]
      [--label plate] [--seed 1] [--sequential] [--limit ROWS]

--sequential reads batches of m consecutive rows in order (the streaming rate). Needs Debian's
python3-anndata (anndata 0.8, h5py, scipy, numpy); run it with /usr/bin/python3.
"""
import argparse
import json
import os
import resource
import sys
import time

import anndata
import numpy as np


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("file")
    p.add_argument("--block", type=int, default=16)
    p.add_argument("--fetch", type=int, default=256)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--label", default="plate")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sequential", action="store_true")
    p.add_argument("--limit", type=int, default=0, help="stop after this many rows (0: all)")
    a = p.parse_args()

    t0 = time.perf_counter()
    c0 = cpu_seconds()
    adata = anndata.read_h5ad(a.file, backed="r")
    n = adata.n_obs
    labels = adata.obs[a.label].cat.codes.to_numpy() if a.label else None
    rng = np.random.default_rng(a.seed)
    m, b, f = a.batch, a.block, a.fetch
    samples = 0
    batches = 0
    stored = 0
    checksum = 0
    limit = a.limit or n

    def emit(x, y):
        nonlocal samples, batches, stored, checksum
        samples += x.shape[0]
        batches += 1
        stored += x.nnz
        # Touch the values, as a training step would.
        checksum += int(x.indices[:1].sum()) + (int(y[:1].sum()) if y is not None else 0)

    if a.sequential:
        for start in range(0, min(n, limit), m):
            end = min(start + m, n)
            x = adata.X[start:end]
            emit(x, labels[start:end] if labels is not None else None)
    else:
        starts = np.arange(0, n, b)
        rng.shuffle(starts)
        per_fetch = max(1, (m * f) // b)
        for i in range(0, len(starts), per_fetch):
            if samples >= limit:
                break
            chosen = np.sort(starts[i : i + per_fetch])
            rows = np.concatenate([np.arange(s, min(s + b, n)) for s in chosen])
            x = adata.X[rows]
            y = labels[rows] if labels is not None else None
            order = rng.permutation(len(rows))
            for j in range(0, len(order), m):
                sel = order[j : j + m]
                emit(x[sel], y[sel] if y is not None else None)
    seconds = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    print(
        json.dumps(
            {
                "tool": "anndata " + anndata.__version__ + " backed",
                "sampler": "sequential" if a.sequential else "block",
                "block": b,
                "fetch": f,
                "batch": m,
                "samples": samples,
                "batches": batches,
                "storedValues": stored,
                "seconds": round(seconds, 3),
                "samplesPerSecond": round(samples / seconds, 1),
                "cpuMicrosPerSample": round(cpu * 1e6 / max(samples, 1), 2),
                "checksum": checksum,
            }
        )
    )


if __name__ == "__main__":
    sys.exit(main())
