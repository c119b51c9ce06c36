#!/usr/bin/env python3
"""Writes the normalised form of a counts .h5ad: X = log1p(counts / library size * 1e4), float32.

What most published atlases store as X (scanpy's normalize_total + log1p), and what a user of
them converts: not integer-valued, but each row holds only as many distinct values as it has
distinct counts. Usage (Debian's python3-anndata; run with /usr/bin/python3):

  normalize_h5ad.py COUNTS.h5ad OUT.h5ad [--rows N]
"""
import argparse

import anndata
import numpy as np
import scipy.sparse as sp

p = argparse.ArgumentParser()
p.add_argument("counts")
p.add_argument("out")
p.add_argument("--rows", type=int, default=None, help="only the first N rows")
a = p.parse_args()
backed = anndata.read_h5ad(a.counts, backed="r")
sub = (backed[: a.rows] if a.rows else backed).to_memory()
x = sub.X.tocsr().astype(np.float32)
library = np.asarray(x.sum(axis=1)).ravel()
x = sp.diags((1e4 / np.maximum(library, 1)).astype(np.float32)) @ x
x.data = np.log1p(x.data).astype(np.float32)
sub.X = x.astype(np.float32)
sub.write_h5ad(a.out)
print("wrote %s: %d x %d, %d stored values" % (a.out, sub.n_obs, sub.n_vars, x.nnz))
