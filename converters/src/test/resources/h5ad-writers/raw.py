"""An anndata file whose X is stored unfiltered (anndata's default), which the converter reads
straight into its vectors: X/indices and X/data in chunks of 7 entries, so that rows and batches
start and end inside chunks, and row 3's entries in reverse order (not sorted). The first argument
is h5py's libver ('earliest': B-tree chunk index; 'latest': the v4 indexes), the second how X/data
is stored: 'chunked' (chunks 2 and 5 never written: HDF5 reads them as the fill value, 0),
'contiguous', or 'bigendian' (chunked '>f4', which jhdf reads instead). expected.json holds what
anndata reads back, each row sorted, and X/data's chunk count.
"""
import json
import sys

import anndata as ad
import h5py
import numpy as np
import pandas as pd
import scipy.sparse as sp

libver, layout = sys.argv[1], sys.argv[2]
n, g = 50, 20
X = sp.random(n, g, density=0.3, format="csr", random_state=5, dtype=np.float32)
X.data[:] = np.arange(1, X.nnz + 1, dtype=np.float32)
a = ad.AnnData(
    X,
    obs=pd.DataFrame(index=[f"c{i}" for i in range(n)]),
    var=pd.DataFrame(index=[f"g{i}" for i in range(g)]),
)
a.write_h5ad("raw.h5ad")

indices = X.indices.copy()
data = X.data.copy()
s, e = X.indptr[3], X.indptr[4]
indices[s:e] = indices[s:e][::-1].copy()
data[s:e] = data[s:e][::-1].copy()

with h5py.File("raw.h5ad", "r+", libver=libver) as f:
    for path, values in (("X/indices", indices), ("X/data", data)):
        attrs = dict(f[path].attrs)
        del f[path]
        if path == "X/data" and layout == "contiguous":
            d = f.create_dataset(path, data=values)
        else:
            dtype = ">f4" if path == "X/data" and layout == "bigendian" else values.dtype
            d = f.create_dataset(path, shape=values.shape, dtype=dtype, chunks=(7,))
            for k in range(0, len(values), 7):
                if not (path == "X/data" and layout == "chunked" and k // 7 in (2, 5)):
                    d[k : k + 7] = values[k : k + 7]
        d.attrs.update(attrs)
    x = f["X/data"]
    chunks = x.id.get_num_chunks() if x.chunks else 0
    filters = len(x._filters)

b = ad.read_h5ad("raw.h5ad")
x = sp.csr_matrix(b.X)
x.sort_indices()
json.dump(
    {
        "chunks": chunks,
        "filters": filters,
        "nnz": int(X.nnz),
        "indptr": x.indptr.tolist(),
        "indices": x.indices.tolist(),
        "data": [float(v) for v in x.data],
    },
    open("expected.json", "w"),
)
