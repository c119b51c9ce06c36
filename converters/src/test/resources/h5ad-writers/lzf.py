"""An anndata file written with compression='lzf', whose chunks include ones LZF cannot shrink.

h5py stores such a chunk unfiltered and says so in the chunk's filter mask: the 16-byte chunk of
var/feature_types/categories (one string), random values. obsm/X_pca and X/data are rewritten
with small chunks, some all-zero (LZF shrinks them) and some random (it cannot), with h5py's
libver given as the first argument ('earliest': B-tree chunk index; 'latest': the v4 indexes).
expected.json holds what anndata reads back, and how many chunks of each kind there are.
"""
import json
import sys

import anndata as ad
import h5py
import numpy as np
import pandas as pd
import scipy.sparse as sp

libver = sys.argv[1]
rng = np.random.default_rng(7)
n, g = 50, 20
X = sp.random(n, g, density=0.3, format="csr", random_state=3, dtype=np.float32)
X.data[:40] = 1.0
obs = pd.DataFrame(
    {"ct": pd.Categorical(rng.choice(["t", "b"], n), categories=["t", "b", "nk"])},
    index=[f"cell{i}" for i in range(n)],
)
var = pd.DataFrame(
    {"feature_types": pd.Categorical(["Gene Expression"] * g)},
    index=[f"g{i}" for i in range(g)],
)
a = ad.AnnData(X, obs=obs, var=var, dtype=np.float32)
pca = rng.standard_normal((n, 6))
pca[:21] = 0
a.obsm["X_pca"] = pca
a.write_h5ad("lzf.h5ad", compression="lzf")


def rewrite(f, path, data, chunks):
    attrs = dict(f[path].attrs)
    del f[path]
    d = f.create_dataset(path, data=data, chunks=chunks, compression="lzf")
    d.attrs.update(attrs)


def masks(d):
    info = [d.id.get_chunk_info(i) for i in range(d.id.get_num_chunks())]
    return [sum(1 for c in info if c.filter_mask == 0), sum(1 for c in info if c.filter_mask != 0)]


with h5py.File("lzf.h5ad", "r+", libver=libver) as f:
    rewrite(f, "obsm/X_pca", pca, (7, 4))
    rewrite(f, "X/data", X.data, (16,))
    counts = {
        p: masks(f[p])
        for p in ["obsm/X_pca", "X/data", "var/feature_types/categories"]
    }

b = ad.read_h5ad("lzf.h5ad")
x = b.X.tocsr()
json.dump(
    {
        "chunks": counts,
        "obs_names": list(b.obs_names),
        "ct": [str(v) for v in b.obs["ct"]],
        "feature_types": [str(v) for v in b.var["feature_types"]],
        "indptr": x.indptr.tolist(),
        "indices": x.indices.tolist(),
        "data": [float(v) for v in x.data],
        "X_pca": np.asarray(b.obsm["X_pca"]).tolist(),
    },
    open("expected.json", "w"),
)
