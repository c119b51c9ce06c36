"""Writes an AnnData .h5ad from the arrays riffle's H5adWriter leaves in a folder.

    python3 write_h5ad.py SRC OUT

SRC holds meta.json (n_obs, n_vars, nnz, and the obs columns with their categories) and raw
little-endian arrays: indptr.i64 (n_obs + 1 int64), indices.i32 (nnz int32) and data.f32 (nnz
float32), a CSR matrix of cells by genes, and obs_K.i32 (n_obs int32 codes of obs column K). The
matrix arrays are memory-mapped rather than read, so that it need not fit in memory.

OUT gets X as that CSR matrix (float32), obs with the columns as categoricals and obs_names cell0,
cell1, ..., and var_names gene0, gene1, .... A failure is one line on stderr, which riffle shows.
Needs numpy, pandas, scipy and anndata (Debian: python3-anndata).
"""
import json
import os
import sys


def array(src, name, dtype, count):
    import numpy as np

    if count == 0:
        # np.memmap cannot map an empty file.
        return np.zeros(0, dtype=dtype)
    return np.memmap(os.path.join(src, name), dtype=dtype, mode="r", shape=(count,))


def write(src, out):
    import anndata as ad
    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    with open(os.path.join(src, "meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    n_obs, n_vars, nnz = meta["n_obs"], meta["n_vars"], meta["nnz"]
    indptr = array(src, "indptr.i64", "<i8", n_obs + 1)
    if nnz < 2**31:
        # scipy gives indices and indptr one type; int64 offsets would widen (copy) the indices.
        indptr = np.asarray(indptr, dtype=np.int32)
    indices = array(src, "indices.i32", "<i4", nnz)
    data = array(src, "data.f32", "<f4", nnz)
    x = sp.csr_matrix((data, indices, indptr), shape=(n_obs, n_vars))

    obs = pd.DataFrame(index=pd.Index(["cell%d" % i for i in range(n_obs)]))
    for k, column in enumerate(meta["obs"]):
        codes = np.fromfile(os.path.join(src, "obs_%d.i32" % k), dtype="<i4", count=n_obs)
        obs[column["name"]] = pd.Categorical.from_codes(codes, categories=column["categories"])
    var = pd.DataFrame(index=pd.Index(["gene%d" % j for j in range(n_vars)]))
    ad.AnnData(X=x, obs=obs, var=var).write_h5ad(out)


def main(argv):
    if len(argv) != 3:
        print("usage: write_h5ad.py SRC OUT", file=sys.stderr)
        return 2
    try:
        write(argv[1], argv[2])
    except Exception as e:  # one line for riffle's message, whatever failed
        print("%s: %s" % (type(e).__name__, " ".join(str(e).split())), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
