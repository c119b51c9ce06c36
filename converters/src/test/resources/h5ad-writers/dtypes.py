"""X in the dtype and encoding given (argv[1], argv[2]: csr, csc or dense), written by anndata
with dtype=X.dtype so that it keeps it. Values use the dtype's whole range: float64 values that
float32 cannot hold, int64 beyond 2**53, uint16 above 32767. expected.json holds X as CSR."""
import json
import sys

import anndata as ad
import numpy as np
import pandas as pd
import scipy.sparse as sp

dtype, enc = np.dtype(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(5)
n, g = 23, 9
mask = rng.random((n, g)) < 0.4
if dtype.kind == "f":
    vals = rng.standard_normal((n, g)) * 1e-3 + 1 / 3
elif dtype == np.int64:
    vals = rng.integers(2**53, 2**62, (n, g))
else:
    info = np.iinfo(dtype)
    vals = rng.integers(max(info.min, -(2**31)), min(info.max, 2**31 - 1), (n, g), endpoint=True)
dense = np.where(mask, vals, 0).astype(dtype)
X = dense if enc == "dense" else (sp.csr_matrix(dense) if enc == "csr" else sp.csc_matrix(dense))
obs = pd.DataFrame(index=[f"c{i}" for i in range(n)])
a = ad.AnnData(X, obs=obs, dtype=dtype)
a.write_h5ad("x.h5ad")
b = ad.read_h5ad("x.h5ad")
assert b.X.dtype == dtype, b.X.dtype
x = sp.csr_matrix(b.X)
x.sort_indices()
json.dump(
    {
        "dtype": str(b.X.dtype),
        "indptr": x.indptr.tolist(),
        "indices": x.indices.tolist(),
        "data": [repr(v.item()) for v in x.data],
    },
    open("expected.json", "w"),
)
