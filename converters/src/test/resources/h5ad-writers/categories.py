"""Categoricals whose category lists are neither sorted nor in first-seen order, with unused
categories, ordered and unordered, written by anndata with argv[1] cells (0 too). expected.json
holds each column's categories, in order, and its ordered flag, as anndata reads them back."""
import json
import sys

import anndata as ad
import numpy as np
import pandas as pd
import scipy.sparse as sp

n = int(sys.argv[1])
rng = np.random.default_rng(11)
obs = pd.DataFrame(
    {
        "stage": pd.Categorical(
            rng.choice(["early", "late"], n), categories=["late", "mid", "early", "never"], ordered=True
        ),
        "tissue": pd.Categorical(
            rng.choice(["gut", "lung"], n), categories=["lung", "skin", "gut"], ordered=False
        ),
        "batch": pd.Categorical(rng.choice([3, 1], n), categories=[3, 2, 1]),
    },
    index=[f"c{i}" for i in range(n)],
)
var = pd.DataFrame(
    {"kind": pd.Categorical(["b", "a"] * 2, categories=["b", "z", "a"], ordered=True)},
    index=[f"g{i}" for i in range(4)],
)
a = ad.AnnData(sp.random(n, 4, density=0.5, format="csr", dtype=np.float32), obs=obs, var=var)
a.write_h5ad("cats.h5ad")
b = ad.read_h5ad("cats.h5ad")
out = {}
for frame, df in (("obs", b.obs), ("var", b.var)):
    for c in df.columns:
        out[frame + "/" + c] = {
            "categories": [str(v) for v in df[c].cat.categories],
            "ordered": bool(df[c].cat.ordered),
            "values": [str(v) for v in df[c]],
        }
json.dump(out, open("expected.json", "w"))
