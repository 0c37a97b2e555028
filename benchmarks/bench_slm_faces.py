"""Faces (Gkioulekas and Zickler 2011, section 4, Figs. 1-2 left): 4-NN recognition on CMU PIE.

Protocol, scaled to the data we have (``cmupie_32x32.npz``: 68 people x 42 frontal images under
varying light; the paper had 170 images per person with pose and expression changes and used 100
of them for training):

* images normalized to unit length;
* per split and person, ``--train-per-person`` images (default 25 of 42, about the paper's
  100 of 170, i.e. 1700 training and 1156 test images) are drawn at random for training, the rest
  is the test set; ``--splits`` random splits (default 3, not 20, to stay within ~10 minutes);
* the dictionary of the proposed method is learned on the training images with scikit-learn's
  MiniBatchDictionaryLearning, K = ``--n-atoms`` = 1024 atoms and ``lambda = alpha = 0.05`` as in
  the paper, ``--epochs`` passes over the data (default 2; the paper used the batch algorithm of
  Lee et al. to convergence);
* every method is fitted once per split at ``M = max(--M)`` and read at each ``M`` by taking the
  leading components (all methods here give nested projections);
* 4-nearest-neighbour classification of the test images (Euclidean, scikit-learn);
* rate vs training images per person for the method and the best baseline at ``--size-M``
  (``--size-splits`` splits per point, default 1);
* Fig. 1: all 2856 images projected to M = 2 by the method and by LPP.

Run: ``python benchmarks/bench_slm_faces.py`` (``--quick`` for a smoke run). Writes
``results/slm_faces/slm_faces.json`` and PNG figures.
"""

from __future__ import annotations

import time

import numpy as np
import _common
from _common import PeakRSS

from pixsel.io import save_figure, write_json
from pixsel.datasets import load_shared
from pixsel.decomposition import (
    LocalityPreservingProjection,
    NeighborhoodPreservingEmbedding,
    SparseLinearModelProjection,
    SpatiallySmoothLPP,
    SpectralRegressionLPP,
)


def _methods(args, M):
    from sklearn.decomposition import PCA
    from sklearn.random_projection import GaussianRandomProjection

    return {
        "SLM (ours)": lambda seed: SparseLinearModelProjection(
            M, n_atoms=args.n_atoms, alpha=args.alpha, max_iter=args.epochs, random_state=seed
        ),
        "PCA": lambda seed: PCA(M, random_state=seed),
        "LPP": lambda seed: LocalityPreservingProjection(M, n_neighbors=5),
        "NPE": lambda seed: NeighborhoodPreservingEmbedding(M, n_neighbors=5),
        "SR-LPP": lambda seed: SpectralRegressionLPP(M, n_neighbors=5, alpha=0.01),
        "SmoothLPP": lambda seed: SpatiallySmoothLPP(M, image_shape=(32, 32), n_neighbors=5, alpha=0.1),
        "Random": lambda seed: GaussianRandomProjection(M, random_state=seed),
    }


def _split(y, per_person, rng):
    train = []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        train.extend(rng.choice(idx, size=per_person, replace=False))
    train = np.sort(np.array(train))
    test = np.setdiff1d(np.arange(len(y)), train)
    return train, test


def _knn_rates(Ytr, ytr, Yte, yte, Ms):
    from sklearn.neighbors import KNeighborsClassifier

    out = []
    for M in Ms:
        clf = KNeighborsClassifier(n_neighbors=4).fit(Ytr[:, :M], ytr)
        out.append(float(np.mean(clf.predict(Yte[:, :M]) == yte)))
    return out


def _fit_transform(make, seed, Xtr, Xte):
    t = time.perf_counter()
    est = make(seed).fit(Xtr)
    return est.transform(Xtr), est.transform(Xte), time.perf_counter() - t


def main(argv=None):
    p = _common.parser("slm_faces", __doc__.splitlines()[0])
    p.add_argument("--splits", type=int, default=3)
    p.add_argument("--train-per-person", type=int, default=25)
    p.add_argument("--n-atoms", type=int, default=1024)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--M", default="10,20,30,50,75,100,150")
    p.add_argument("--sizes", default="10,20,30", help="training images per person for the size curve")
    p.add_argument("--size-M", type=int, default=100)
    p.add_argument("--size-splits", type=int, default=1, help="splits per point of the size curve")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    with _common.blas_threads(args):
        return _run(args)


def _run(args):
    people = None
    if args.quick:
        args.splits, args.n_atoms, args.epochs = 1, 64, 1
        args.M, args.sizes, args.size_M, args.train_per_person = "5,10,20", "10,20", 20, 20
        people = 10
    Ms = [int(m) for m in args.M.split(",")]
    sizes = [int(s) for s in args.sizes.split(",")]
    out_dir = _common.out_dir(args)

    d = load_shared("cmupie_32x32.npz")
    X, y = d["X"].astype(np.float64), d["y"]
    if people is not None:
        keep = y < people
        X, y = X[keep], y[keep]
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    print(f"CMU PIE: {X.shape[0]} images, {len(np.unique(y))} people, {X.shape[1]} pixels; "
          f"{args.train_per_person} train / {42 - args.train_per_person} test per person, {args.splits} splits, "
          f"K = {args.n_atoms} atoms, alpha = {args.alpha}, {args.epochs} epoch(s)", flush=True)

    Mmax = max(Ms)
    methods = _methods(args, Mmax)
    rates = {name: [] for name in methods}
    times = {name: [] for name in methods}
    mem = {}
    t0 = time.perf_counter()
    for s in range(args.splits):
        rng = np.random.default_rng(args.seed + s)
        tr, te = _split(y, args.train_per_person, rng)
        for name, make in methods.items():
            with PeakRSS() as pk:
                Ytr, Yte, dt = _fit_transform(make, args.seed + s, X[tr], X[te])
            mem[name] = max(mem.get(name, 0), pk.delta)
            rates[name].append(_knn_rates(Ytr, y[tr], Yte, y[te], Ms))
            times[name].append(dt)
            print(f"  split {s}: {name:11s} fit {dt:6.1f}s  4-NN rate at M={Ms[-1]}: {rates[name][-1][-1]:.3f}",
                  flush=True)
    mean = {k: np.mean(v, axis=0) for k, v in rates.items()}
    std = {k: np.std(v, axis=0) for k, v in rates.items()}
    print("\n4-NN recognition rate (mean over splits) vs M")
    print(f"{'M':>5s} " + " ".join(f"{k:>11s}" for k in methods))
    for i, M in enumerate(Ms):
        print(f"{M:5d} " + " ".join(f"{mean[k][i]:11.3f}" for k in methods))
    best_base = max((k for k in methods if k != "SLM (ours)"), key=lambda k: float(np.max(mean[k])))
    ratio = [float(mean["SLM (ours)"][i] / mean[best_base][i]) for i in range(len(Ms))]
    print(f"best baseline: {best_base}; SLM / {best_base} rate ratio per M: " + ", ".join(f"{r:.3f}" for r in ratio))
    print("mean fit time (s): " + ", ".join(f"{k} {np.mean(v):.1f}" for k, v in times.items()))
    print("peak RSS increase during fit+transform (MB): " + ", ".join(f"{k} {v / 2**20:.0f}" for k, v in mem.items()))

    # rate vs training images per person (the method and the best baseline)
    size_rates = {"SLM (ours)": [], best_base: []}
    Mi = args.size_M
    for n_per in sizes:
        row = {k: [] for k in size_rates}
        for s in range(args.size_splits):
            rng = np.random.default_rng(args.seed + s)
            tr, te = _split(y, n_per, rng)
            for name in size_rates:
                Ytr, Yte, _ = _fit_transform(_methods(args, Mi)[name], args.seed + s, X[tr], X[te])
                row[name].append(_knn_rates(Ytr, y[tr], Yte, y[te], [Mi])[0])
        for name in size_rates:
            size_rates[name].append(float(np.mean(row[name])))
        print(f"  {n_per} train/person, M={Mi}: " + ", ".join(f"{k} {size_rates[k][-1]:.3f}" for k in size_rates),
              flush=True)

    # Fig. 1: two-dimensional projection of the whole data set, method vs LPP
    fig1 = {}
    for name in ("SLM (ours)", "LPP"):
        fig1[name] = _methods(args, 2)[name](args.seed).fit_transform(X)
    total = time.perf_counter() - t0

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for k in methods:
        ax.errorbar(Ms, mean[k], yerr=std[k], marker="o", ms=3, capsize=2, label=k)
    ax.set_xlabel("number of projections M")
    ax.set_ylabel("4-NN recognition rate")
    ax.set_title(f"CMU PIE 32x32, {args.train_per_person} train/person, {args.splits} splits")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, out_dir / "rate_vs_M.png", dpi=120)
    fig, ax = plt.subplots(figsize=(5, 4))
    for k, v in size_rates.items():
        ax.plot(sizes, v, "o-", label=k)
    ax.set_xlabel("training images per person")
    ax.set_ylabel(f"4-NN recognition rate (M = {Mi})")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    save_figure(fig, out_dir / "rate_vs_train_size.png", dpi=120)
    fig, axes = plt.subplots(1, 2, figsize=(11, 5))
    for ax, (name, Y) in zip(axes, fig1.items()):
        ax.scatter(Y[:, 0], Y[:, 1], c=y, cmap="nipy_spectral", s=3)
        ax.set_title(f"{name}, M = 2 (colour = identity)")
    fig.tight_layout()
    save_figure(fig, out_dir / "projection_2d.png", dpi=110)

    write_json(out_dir / "slm_faces.json", {
        "protocol": {**vars(args), "out": str(args.out)},
        "M": Ms, "rate_mean": mean, "rate_std": std, "rates_per_split": rates,
        "best_baseline": best_base, "ratio_slm_over_best_baseline": ratio,
        "fit_time_s": {k: float(np.mean(v)) for k, v in times.items()},
        "peak_rss_increase_mb": {k: v / 2**20 for k, v in mem.items()},
        "train_sizes": sizes, "size_M": Mi, "rate_vs_train_size": size_rates,
        "total_time_s": total,
    })
    print(f"total {total:.0f}s; wrote {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
