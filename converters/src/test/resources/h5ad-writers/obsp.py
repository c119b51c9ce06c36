"""A neighbourhood graph in obsp, as scanpy leaves it: connectivities (CSR float32) and distances
(here CSC float64, which anndata writes as it is), a gene x gene varp matrix (CSR int64) and a
dense obsp matrix, which stays skipped. expected.json holds each sparse one in coordinate form in
the file's order (by row for CSR, by column for CSC), as h5py reads the stored arrays."""
import json

import anndata as ad
import h5py
import numpy as np
import pandas as pd
import scipy.sparse as sp

n, g = 60, 8
rng = np.random.default_rng(3)
a = ad.AnnData(
    sp.random(n, g, density=0.3, format="csr", dtype=np.float32, random_state=4),
    obs=pd.DataFrame(index=[f"c{i}" for i in range(n)]),
    var=pd.DataFrame(index=[f"g{i}" for i in range(g)]),
    dtype=np.float32,
)
conn = sp.random(n, n, density=0.15, format="csr", dtype=np.float32, random_state=5)
conn[7, :] = 0  # a cell without neighbours
conn.eliminate_zeros()
a.obsp["connectivities"] = conn
a.obsp["distances"] = sp.random(n, n, density=0.1, format="csc", dtype=np.float64, random_state=6)
a.obsp["dense"] = rng.standard_normal((n, n))
a.varp["co"] = sp.csr_matrix(rng.integers(0, 2**40, (g, g)) * (rng.random((g, g)) < 0.5))
a.write_h5ad("graph.h5ad")

out = {}
with h5py.File("graph.h5ad") as f:
    for path in ["obsp/connectivities", "obsp/distances", "varp/co"]:
        m = f[path]
        enc = m.attrs["encoding-type"]
        ptr, idx, data = m["indptr"][:], m["indices"][:], m["data"][:]
        lines = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        row, col = (lines, idx) if enc == "csr_matrix" else (idx, lines)
        out[path.replace("/", "_")] = {
            "row": row.tolist(),
            "col": col.tolist(),
            "value": [repr(v.item()) for v in data],
        }
json.dump(out, open("expected.json", "w"))
