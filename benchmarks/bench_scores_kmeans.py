"""k-means after feature reduction (Musco and Musco, section 3, Figs. 3-5).

For each data set and reduced dimension d: run scikit-learn KMeans (k-means++, 5 inits, 300
iterations) on the reduced data, and report the k-means cost *on the original data* of the
clustering found, divided by the cost of the clustering found on all features (same KMeans
seed), plus the adjusted Rand index against the true labels. Methods: PCA projection,
subspace-score sampling (gamma='theory', m = 2k, the provable setting) and top-score selection,
uniform sampling, top variance, top Laplacian score.

    python benchmarks/bench_scores_kmeans.py           # USPS pixels, USPS HOG, Yale B
    python benchmarks/bench_scores_kmeans.py --quick   # smoke size
"""

from __future__ import annotations

import time

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.io import save_figure
from pixsel.datasets import load_shared
from pixsel.scores import block_krylov_svd
from pixsel.selection import ScoreSelector, SubspaceScoreSelector


def usps_hog(X):
    """HOG of each 16x16 digit: 2x2-pixel cells, 2x2-cell blocks, 9 orientations = 1764 features."""
    from skimage.feature import hog

    return np.vstack([hog(x.reshape(16, 16), orientations=9, pixels_per_cell=(2, 2),
                          cells_per_block=(2, 2), feature_vector=True) for x in X])


def kmeans_cost(X, labels, k):
    cost = 0.0
    for c in range(k):
        Xc = X[labels == c]
        if len(Xc):
            cost += float(np.sum((Xc - Xc.mean(0)) ** 2))
    return cost


def reduce(method, X, d, k, seed, cache):
    """Reduced data (n, <= d) for one method; ``cache`` keeps the fitted scores per data set."""
    m = min(2 * k, min(X.shape) - 1)
    if method == "pca":
        if "svd" not in cache:
            cache["svd"] = block_krylov_svd(X, min(200, min(X.shape) - 1), n_iter=4, random_state=0)
        V = cache["svd"].components[:d]
        return (X - cache["svd"].mean) @ V.T
    if method == "subspace_sample":
        sel = SubspaceScoreSelector(d, rank=m, gamma="theory", mode="sample", random_state=seed)
    elif method == "subspace_top":
        sel = SubspaceScoreSelector(d, rank=m, gamma="theory", mode="top", random_state=0)
    elif method == "uniform_sample":
        sel = ScoreSelector(d, criterion="uniform", mode="sample", random_state=seed)
    elif method == "variance_top":
        sel = ScoreSelector(d, criterion="variance")
    elif method == "laplacian_top":
        if "laplacian" not in cache:
            cache["laplacian"] = ScoreSelector(1, criterion="laplacian").fit(X)
        imp = cache["laplacian"].importances_
        idx = np.sort(np.argsort(-imp, kind="stable")[:d])
        return X[:, idx]
    else:
        raise ValueError(method)
    return sel.fit(X).transform(X)


RANDOM = {"subspace_sample", "uniform_sample"}


def run_dataset(name, X, y, k, dims, methods, repeats, seed=0):
    from sklearn.cluster import KMeans
    from sklearn.metrics import adjusted_rand_score

    def km(Z):
        return KMeans(k, init="k-means++", n_init=5, max_iter=300, random_state=seed).fit(Z).labels_

    t0 = time.perf_counter()
    full = km(X)
    base = kmeans_cost(X, full, k)
    rows = {"full": {"cost": base, "ari": adjusted_rand_score(y, full),
                     "time_s": time.perf_counter() - t0}}
    print(f"\n== {name}: n = {X.shape[0]}, p = {X.shape[1]}, k = {k}; all features: cost "
          f"{base:.5g}, ARI {rows['full']['ari']:.3f} ({rows['full']['time_s']:.1f} s)")
    print(f"{'method':>16} " + " ".join(f"{'d=' + str(d):>13}" for d in dims)
          + "   (cost ratio / ARI)")
    cache = {}
    for method in methods:
        res = []
        for d in dims:
            if d > X.shape[1]:
                res.append(None)
                continue
            ratios, aris, distinct = [], [], []
            for r in range(repeats if method in RANDOM else 1):
                Z = reduce(method, X, d, k, seed + r, cache)
                lab = km(Z)
                ratios.append(kmeans_cost(X, lab, k) / base)
                aris.append(adjusted_rand_score(y, lab))
                distinct.append(Z.shape[1])
            res.append({"d": d, "ratio": float(np.mean(ratios)), "ratio_std": float(np.std(ratios)),
                        "ari": float(np.mean(aris)), "distinct_features": float(np.mean(distinct)),
                        "repeats": len(ratios)})
        rows[method] = res
        print(f"{method:>16} " + " ".join(
            f"{'-':>13}" if e is None else f"{e['ratio']:6.3f}/{e['ari']:.2f} " for e in res))
    return rows


def main(argv=None):
    ap = parser("scores_kmeans", __doc__.splitlines()[0], threads=0)  # --quick: 500 USPS images, pixels only, d = 20
    ap.add_argument("--dims", default="5,10,20,50,100,200")
    ap.add_argument("--repeats", type=int, default=2, help="draws per sampled point (default 2)")
    ap.add_argument("--datasets", default="usps,hog,yaleb")
    args = ap.parse_args(argv)
    with blas_threads(args):
        return run(args)


def run(args):
    dims = [int(v) for v in args.dims.split(",")]
    methods = ["pca", "subspace_sample", "subspace_top", "uniform_sample", "variance_top",
               "laplacian_top"]
    sets = args.datasets.split(",")
    usps = load_shared("usps_full_16x16.npz")
    Xu, yu = usps["X"].astype(np.float64), usps["y"]
    if args.quick:
        Xu, yu, sets, dims, args.repeats = Xu[:500], yu[:500], ["usps"], [20], 1
    results = {"protocol": {"kmeans": "sklearn KMeans, k-means++, n_init=5, max_iter=300, "
                                      "random_state=0", "dims": dims, "repeats": args.repeats,
                            "subspace": "gamma='theory', rank m = 2k"}}
    if "usps" in sets:
        results["usps_pixels"] = run_dataset("USPS pixels", Xu, yu, 10, dims, methods, args.repeats)
    if "hog" in sets:
        t0 = time.perf_counter()
        H = usps_hog(Xu)
        print(f"\nHOG descriptors: {H.shape[1]} features per image ({time.perf_counter() - t0:.1f} s)")
        results["usps_hog"] = run_dataset("USPS HOG", H, yu, 10, dims, methods, args.repeats)
    if "yaleb" in sets:
        yb = load_shared("extyaleb_32x32.npz")
        results["yaleb"] = run_dataset("Extended Yale B 32x32", yb["X"].astype(np.float64),
                                       yb["y"], 38, dims, methods, args.repeats)
    out = out_dir(args)
    write_results(args, results, name="kmeans")
    import matplotlib.pyplot as plt

    keys = [k for k in ("usps_pixels", "usps_hog", "yaleb") if k in results]
    fig, axes = plt.subplots(1, len(keys), figsize=(5 * len(keys), 3.8), squeeze=False)
    for ax, key in zip(axes[0], keys):
        for method in methods:
            pts = [e for e in results[key][method] if e is not None]
            ax.plot([e["d"] for e in pts], [e["ratio"] for e in pts], "o-", label=method, ms=3)
        ax.axhline(1.05, color="gray", ls=":", lw=1)
        ax.set_xscale("log")
        ax.set_xlabel("reduced dimension d")
        ax.set_ylabel("k-means cost / all-feature cost")
        ax.set_title(key)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, out / "kmeans.png", dpi=120)
    print(f"\nwrote {out / 'kmeans.json'}, {out / 'kmeans.png'}")


if __name__ == "__main__":
    main()
