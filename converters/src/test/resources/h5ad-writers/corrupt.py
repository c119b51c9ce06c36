"""A 200 x 50 X written by anndata (argv[1]: csr or csc), then one value changed with h5py as
argv[2] says, the way a buggy writer or a bit flip would: a pointer that runs past X/data, one
that decreases, a first pointer that is not 0, an index beyond n_vars (or n_obs for CSC), a
negative index."""
import sys

import anndata as ad
import h5py
import numpy as np
import pandas as pd
import scipy.sparse as sp

enc, how = sys.argv[1], sys.argv[2]
X = sp.random(200, 50, density=0.1, format=enc, random_state=1, dtype=np.float32)
a = ad.AnnData(X, obs=pd.DataFrame(index=[f"c{i}" for i in range(200)]), dtype=np.float32)
a.var["kind"] = pd.Categorical(["a"] * 50)
a.write_h5ad("bad.h5ad")
with h5py.File("bad.h5ad", "r+") as f:
    if how == "indptr-past":
        f["X/indptr"][30] = 10**9
    elif how == "indptr-decreasing":
        p = f["X/indptr"]
        p[20] = p[19] - 1 if p[19] > 0 else 5
        p[21] = p[20] - 1
    elif how == "indptr-start":
        f["X/indptr"][0] = 3
    elif how == "indices-high":
        f["X/indices"][5] = 1000000
    elif how == "indices-negative":
        f["X/indices"][6] = -3
