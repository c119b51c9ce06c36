"""Files that real users have and the first fixtures did not: argv[1] names the case. Each writes
x.h5ad (with anndata where anndata 0.8 can write it, else by h5py as newer anndata does) and
expected.json, what anndata reads back (big integers as strings).
  bool-dense, bool-csr: X of numpy bool.
  unsigned: obs columns uint8..uint64 at the top of their ranges, and pandas UInt64 with a NA.
  slash: an obs column named "a/b", which h5py stores as the dataset b in a group a.
  nullable-string: an obs column of pandas' string dtype, as anndata >= 0.11 writes it
    (nullable-string-array: values and a mask).
  short-column: an obs column with 3 values fewer than the index.
  uns: uns entries anndata writes and reads back: uint64 scalars and arrays, an empty array.
  no-x: no X at all, 5 genes in var.
  categories-bool: a categorical of booleans (with a NaN), whose categories h5py stores as an
    HDF5 enum; expected.json holds str() of each value, as pandas shows it.
  obsm-frame: an obsm DataFrame, which Riffle does not convert (and must say so)."""
import json
import sys

import anndata as ad
import h5py
import numpy as np
import pandas as pd
import scipy.sparse as sp

case = sys.argv[1]
n, g = 12, 5
obs = pd.DataFrame(index=[f"c{i}" for i in range(n)])
var = pd.DataFrame(index=[f"g{i}" for i in range(g)])
ones = sp.csr_matrix(np.ones((n, g), dtype=np.float32))
expected = {}
if case.startswith("bool"):
    dense = (np.arange(n * g).reshape(n, g) % 3) == 1
    X = dense if case == "bool-dense" else sp.csr_matrix(dense)
    ad.AnnData(X, obs=obs, var=var, dtype=bool).write_h5ad("x.h5ad")
    b = ad.read_h5ad("x.h5ad")
    assert b.X.dtype == bool, b.X.dtype
    expected["rows"] = [np.flatnonzero(r).tolist() for r in np.asarray(sp.csr_matrix(b.X).todense())]
elif case == "unsigned":
    for dt in ["uint8", "uint16", "uint32", "uint64"]:
        top = np.iinfo(dt).max
        obs[dt] = np.array([top - (i % 3) for i in range(n)], dtype=dt)
    obs["UInt64"] = pd.array([None if i % 4 == 0 else 2**64 - 1 - i for i in range(n)], dtype="UInt64")
    ad.AnnData(ones, obs=obs, var=var).write_h5ad("x.h5ad")
    b = ad.read_h5ad("x.h5ad")
    for c in b.obs.columns:
        expected[c] = {"dtype": str(b.obs[c].dtype),
                       "values": [None if v is pd.NA else str(v) for v in b.obs[c].astype(object)]}
elif case == "slash":
    obs["a/b"] = np.arange(n, dtype=np.float64) / 4
    ad.AnnData(ones, obs=obs, var=var).write_h5ad("x.h5ad")
    b = ad.read_h5ad("x.h5ad")
    expected["a/b"] = b.obs["a/b"].tolist()
elif case in ("nullable-string", "short-column"):
    ad.AnnData(ones, obs=obs, var=var).write_h5ad("x.h5ad")
    with h5py.File("x.h5ad", "r+") as f:
        o = f["obs"]
        if case == "nullable-string":
            values = ["x", "", "zé"] * (n // 3)
            mask = [i % 3 == 1 for i in range(n)]
            c = o.create_group("s")
            c.attrs["encoding-type"] = "nullable-string-array"
            c.attrs["encoding-version"] = "0.1.0"
            c.create_dataset("values", data=np.array(values, dtype=object), dtype=h5py.string_dtype())
            c.create_dataset("mask", data=np.array(mask))
            expected["s"] = [None if m else v for v, m in zip(values, mask)]
            name = "s"
        else:
            o.create_dataset("v", data=np.arange(n - 3))
            name = "v"
        o.attrs["column-order"] = np.array([name], dtype=h5py.string_dtype())
elif case == "uns":
    a = ad.AnnData(ones, obs=obs, var=var)
    a.uns["big"] = np.uint64(2**64 - 1)
    a.uns["bigs"] = np.array([2**63, 1], dtype=np.uint64)
    a.uns["empty"] = np.zeros((0,))
    a.uns["nested"] = {"half": np.uint64(2**63 + 5), "s": "text"}
    a.write_h5ad("x.h5ad")
    b = ad.read_h5ad("x.h5ad")
    expected = {"big": str(b.uns["big"]), "bigs": [str(v) for v in b.uns["bigs"]],
                "empty": b.uns["empty"].tolist(), "nested": {"half": str(b.uns["nested"]["half"]), "s": "text"}}
elif case == "no-x":
    obs["a"] = np.arange(n)
    ad.AnnData(obs=obs, var=var).write_h5ad("x.h5ad")
    b = ad.read_h5ad("x.h5ad")
    assert b.X is None
    expected["shape"] = list(b.shape)
elif case == "categories-bool":
    obs["b"] = pd.Categorical([True, False, None] * (n // 3))
    ad.AnnData(ones, obs=obs, var=var).write_h5ad("x.h5ad")
    b = ad.read_h5ad("x.h5ad")
    expected["b"] = [None if pd.isna(v) else str(v) for v in b.obs["b"]]
elif case == "obsm-frame":
    a = ad.AnnData(ones, obs=obs, var=var)
    a.obsm["df"] = pd.DataFrame({"p": np.arange(n, dtype=float)}, index=a.obs_names)
    a.write_h5ad("x.h5ad")
else:
    raise SystemExit("unknown case " + case)
with open("expected.json", "w") as f:
    json.dump(expected, f)
