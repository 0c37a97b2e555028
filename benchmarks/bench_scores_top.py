"""Top-score vs sampled subspace-score pixel selection on faces (Musco and Musco, Fig. 9-10).

Checks whether pixsel's ``mode='top'`` does what section 4.5 describes ("pixels are chosen in order
of decreasing feature score") and why it loses to uniformly random pixels at 32 x 32. Protocol
as ``bench_scores_faces``: Extended Yale B 32 x 32, each image brightness-normalized (zero mean,
unit standard deviation), stratified 20 % train / 80 % test splits, 1-NN on the selected pixels.
Variants of the subspace score (m = 10 and 40, gamma balanced): top k (the paper's rule, scores of
the column-centred training images), top k of uncentred data, top k of leverage only (gamma = 0)
and of residual only, sampled (rescaled) pixels, k distinct pixels drawn without replacement
(``mode='distinct'``, pixsel's default); next to k uniformly random pixels and k eigenfaces.
``clump`` is the fraction of selected pixels with a selected 4-neighbour (uniform pixels: about
1 - (1 - k/1024)^4).

Run: ``python benchmarks/bench_scores_top.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import os

import numpy as np
import _common

from pixsel.datasets import load_shared
from pixsel.selection import SubspaceScoreSelector


def _one_nn(Ztr, ytr, Zte, yte):
    from sklearn.neighbors import KNeighborsClassifier

    return float(KNeighborsClassifier(1).fit(Ztr, ytr).score(Zte, yte))


def _clump(support, shape=(32, 32)):
    m = support.reshape(shape)
    nb = np.zeros_like(m)
    nb[1:] |= m[:-1]
    nb[:-1] |= m[1:]
    nb[:, 1:] |= m[:, :-1]
    nb[:, :-1] |= m[:, 1:]
    return float((m & nb).sum() / max(m.sum(), 1))


def main(argv=None):
    p = _common.parser("scores_top", __doc__.splitlines()[0], threads=0)
    p.add_argument("--splits", type=int, default=3)
    p.add_argument("--pixels", default="50,100,200")
    args = p.parse_args(argv)
    with _common.blas_threads(args):
        return _run(args)


def _run(args):
    from sklearn.model_selection import train_test_split

    d = load_shared("extyaleb_32x32.npz")
    X = d["X"].astype(np.float64)
    X = (X - X.mean(1, keepdims=True)) / np.maximum(X.std(1, keepdims=True), 1e-12)
    y = d["y"]
    ks = [int(v) for v in args.pixels.split(",")]
    if args.quick:
        args.splits, ks = 1, [50]
    variants = {}
    for m in ((10,) if args.quick else (10, 40)):
        variants[f"subspace m={m} top"] = dict(rank=m, mode="top")
        variants[f"subspace m={m} top, uncentred"] = dict(rank=m, mode="top", center=False)
        variants[f"leverage m={m} top (gamma=0)"] = dict(rank=m, mode="top", gamma=0.0)
        variants[f"residual m={m} top (gamma=1e6)"] = dict(rank=m, mode="top", gamma=1e6)
        variants[f"subspace m={m} sampled"] = dict(rank=m, mode="sample")
        variants[f"subspace m={m} distinct"] = dict(rank=m, mode="distinct")
    res = {name: {k: [] for k in ks} for name in ["uniform random", "eigenfaces", *variants]}
    clump = {name: {k: [] for k in ks} for name in ["uniform random", *variants]}
    full = []
    for s in range(args.splits):
        Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=0.2, stratify=y, random_state=s)
        full.append(_one_nn(Xtr, ytr, Xte, yte))
        mu = Xtr.mean(0)
        _, _, Vt = np.linalg.svd(Xtr - mu, full_matrices=False)
        rng = np.random.default_rng(s)
        for k in ks:
            V = Vt[:k].T
            res["eigenfaces"][k].append(_one_nn((Xtr - mu) @ V, ytr, (Xte - mu) @ V, yte))
            u = np.zeros(X.shape[1], dtype=bool)
            u[rng.choice(X.shape[1], k, replace=False)] = True
            res["uniform random"][k].append(_one_nn(Xtr[:, u], ytr, Xte[:, u], yte))
            clump["uniform random"][k].append(_clump(u))
            for name, kw in variants.items():
                sel = SubspaceScoreSelector(k, random_state=s, **kw).fit(Xtr)
                res[name][k].append(_one_nn(sel.transform(Xtr), ytr, sel.transform(Xte), yte))
                clump[name][k].append(_clump(sel.support_))
        print(f"split {s} done (all 1024 pixels: {full[-1]:.3f})", flush=True)
    print(f"\nExtended Yale B 32x32, {args.splits} splits, 1-NN rate (mean) and clump fraction; all pixels "
          f"{np.mean(full):.3f}; load average {os.getloadavg()}")
    print(f"{'selection':34s} " + " ".join(f"{'k=' + str(k):>14s}" for k in ks))
    for name in res:
        cells = []
        for k in ks:
            c = f" ({np.mean(clump[name][k]):.2f})" if name in clump else ""
            cells.append(f"{np.mean(res[name][k]):.3f}{c}")
        print(f"{name:34s} " + " ".join(f"{c:>14s}" for c in cells))
    path = _common.write_results(args, {
        "all_pixels": full,
        "rate": {n: {str(k): v for k, v in r.items()} for n, r in res.items()},
        "clump": {n: {str(k): v for k, v in r.items()} for n, r in clump.items()}})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
