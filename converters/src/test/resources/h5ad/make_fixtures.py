#!/usr/bin/python3
"""Writes the .h5ad fixtures of H5adConverterTest with anndata itself, and expected.json.

Run with Debian's python3 (python3-anndata 0.8, python3-h5py 3.7, HDF5 1.10), from this folder:

    /usr/bin/python3 make_fixtures.py

Every file holds the same data (seed 7), so one expected.json checks them all:
  csr.h5ad     X CSR float32; layers/counts CSR int32; raw (X CSR, 30 genes); obsm; varm; uns
  csc.h5ad     X and layers/counts stored CSC
  dense.h5ad   X and layers/counts dense
  gzip.h5ad    csr.h5ad written with compression="gzip"
  lzf.h5ad     csr.h5ad written with compression="lzf" (strings too: jhdf 0.13 cannot read those)
  legacy.h5ad  csr.h5ad's obs and var rewritten in anndata 0.7's categorical encoding (codes with a
               "categories" reference to __categories/<name>), checked by reading it back here
"""
import json
import os

import anndata as ad
import h5py
import numpy as np
import pandas as pd
import scipy.sparse as sp

N_OBS, N_VARS, N_RAW = 40, 25, 30


def build():
    rng = np.random.default_rng(7)
    raw_counts = sp.random(
        N_OBS, N_RAW, density=0.2, random_state=7, format="csr",
        data_rvs=lambda k: rng.integers(1, 60, k)).astype(np.int32)
    raw_counts[5, :] = 0  # a cell with no counts: an empty sparse row
    raw_counts.eliminate_zeros()
    counts = raw_counts[:, :N_VARS].tocsr()
    x = counts.astype(np.float32)
    x.data = np.log1p(x.data).astype(np.float32)

    obs = pd.DataFrame(index=[f"cell{i:03d}" for i in range(N_OBS)])
    kinds = np.array(["B", "NK", "T"], dtype=object)[rng.integers(0, 3, N_OBS)]
    kinds[[2, 11, 30]] = None  # missing categories: code -1
    obs["cell_type"] = pd.Categorical(kinds, categories=["B", "NK", "T"])
    obs["batch"] = pd.Categorical(["b%d" % (i % 4) for i in range(N_OBS)])
    n_genes = pd.array(rng.integers(0, 500, N_OBS), dtype="Int64")
    n_genes[[1, 17]] = pd.NA
    obs["n_genes"] = n_genes
    obs["is_doublet"] = rng.random(N_OBS) < 0.2
    obs["donor"] = np.array([f"donor-{i % 3}" for i in range(N_OBS)], dtype=object)  # categorical
    obs["barcode"] = np.array([f"AC{i:03d}-é" for i in range(N_OBS)], dtype=object)  # unique: strings
    qc = pd.array(rng.random(N_OBS) < 0.5, dtype="boolean")
    qc[[0, 9]] = pd.NA
    obs["qc_pass"] = qc
    obs["total"] = rng.random(N_OBS) * 1000
    obs["plain_int"] = rng.integers(-5, 5, N_OBS).astype(np.int32)

    var = pd.DataFrame(index=[f"GENE{j:02d}" for j in range(N_RAW)])
    var["gene_id"] = np.array([f"ENSG{j:05d}" for j in range(N_RAW)], dtype=object)
    var["chrom"] = pd.Categorical(["chr%d" % (1 + j % 3) for j in range(N_RAW)])
    var["highly_variable"] = np.arange(N_RAW) % 2 == 0

    raw = ad.AnnData(X=raw_counts.astype(np.float32), obs=obs.copy(), var=var.copy())
    a = ad.AnnData(X=x, obs=obs, var=var.iloc[:N_VARS].copy())
    a.raw = raw
    a.layers["counts"] = counts
    a.obsm["X_pca"] = rng.standard_normal((N_OBS, 5)).astype(np.float32)
    a.obsm["X_umap"] = rng.standard_normal((N_OBS, 2))
    a.varm["PCs"] = rng.standard_normal((N_VARS, 5)).astype(np.float32)
    a.uns["title"] = "riffle fixture"
    a.uns["n_pcs"] = 5
    a.uns["params"] = {"alpha": 0.5, "method": "wilcoxon", "flag": True}
    a.uns["ints"] = np.arange(4, dtype=np.int64)
    a.uns["names"] = np.array(["a", "b", "c"], dtype=object)
    return a


def csr(m):
    m = sp.csr_matrix(m)
    m.sort_indices()
    return {"indptr": m.indptr.tolist(), "indices": m.indices.tolist(),
            "data": [v.item() for v in m.data]}


def column(s):
    if isinstance(s.dtype, pd.CategoricalDtype):
        return [None if pd.isna(v) else str(v) for v in s]
    if isinstance(s.dtype, (pd.Int64Dtype, pd.BooleanDtype)):
        return [None if pd.isna(v) else v.item() if hasattr(v, "item") else v for v in s]
    return [v.item() if hasattr(v, "item") else v for v in s]


def frame(df):
    return {"index": list(df.index), "columns": {c: column(df[c]) for c in df.columns}}


def expected(a):
    return {
        "n_obs": a.n_obs, "n_vars": a.n_vars,
        "X": csr(a.X), "obs": frame(a.obs), "var": frame(a.var),
        "obsm": {k: [[v.item() for v in row] for row in a.obsm[k]] for k in a.obsm},
        "varm": {k: [[v.item() for v in row] for row in a.varm[k]] for k in a.varm},
        "layers": {k: csr(a.layers[k]) for k in a.layers},
        "raw": {"X": csr(a.raw.X), "var": frame(a.raw.var)},
        "uns": {"title": "riffle fixture", "n_pcs": 5,
                "params": {"alpha": 0.5, "method": "wilcoxon", "flag": True},
                "ints": [0, 1, 2, 3], "names": ["a", "b", "c"]},
    }


def legacy(path):
    """Rewrites categoricals the way anndata 0.7 stored them: int codes whose "categories"
    attribute references a dataset in the frame's __categories group."""
    with h5py.File(path, "r+") as f:
        for frame_name in ("obs", "var"):
            g = f[frame_name]
            for name in list(g.keys()):
                node = g[name]
                if not isinstance(node, h5py.Group) or node.attrs.get("encoding-type") != "categorical":
                    continue
                codes = node["codes"][...]
                cats = node["categories"][...]
                del g[name]
                cg = g.require_group("__categories")
                cg.create_dataset(name, data=cats, dtype=h5py.string_dtype())
                d = g.create_dataset(name, data=codes)
                d.attrs["categories"] = cg[name].ref
            g.attrs["encoding-version"] = "0.1.0"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    os.chdir(here)
    a = build()
    a.write_h5ad("csr.h5ad")
    a.write_h5ad("gzip.h5ad", compression="gzip")
    a.write_h5ad("lzf.h5ad", compression="lzf")
    c = a.copy()
    c.X = sp.csc_matrix(a.X)
    c.layers["counts"] = sp.csc_matrix(a.layers["counts"])
    c.write_h5ad("csc.h5ad")
    d = a.copy()
    d.X = a.X.toarray()
    d.layers["counts"] = a.layers["counts"].toarray()
    d.write_h5ad("dense.h5ad")
    a.write_h5ad("legacy.h5ad")
    legacy("legacy.h5ad")
    exp = expected(a)
    for name in ("csr", "csc", "dense", "gzip", "lzf", "legacy"):
        back = ad.read_h5ad(name + ".h5ad")
        assert back.obs.equals(a.obs), name
        assert back.var.equals(a.var), name
        assert json.dumps(expected(back)) == json.dumps(exp), name
    with open("expected.json", "w") as out:
        json.dump(exp, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
