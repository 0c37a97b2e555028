"""Face recognition on Extended Yale B with score-selected pixels (Musco and Musco, section 4).

Protocol: the 2414 cropped 32x32 images (38 subjects; only this resolution is available, the
paper used 192x168 and dropped the darkest images, leaving 1978), each image brightness-normalised
(zero mean, unit standard deviation over its pixels). Several random stratified splits, 20%
train / 80% test; scores fitted on the training images only; 1-nearest-neighbour classification.
Baselines: eigenfaces (projection on the top k eigenfaces of the centred training set) and all
pixels. Scores: uniform, variance, Laplacian (5-NN heat-kernel graph), supervised Laplacian,
Fisher, subspace scores m = 10 and m = 40 (gamma balanced, section 4.5); pixels sampled with
probability proportional to score and rescaled (Fig. 9) or the top scores (Fig. 10).

    python benchmarks/bench_scores_faces.py            # 5 splits
    python benchmarks/bench_scores_faces.py --quick    # smoke size
"""

from __future__ import annotations

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.io import save_figure
from pixsel.datasets import load_shared
from pixsel.selection import ScoreSelector, SubspaceScoreSelector

SCORES = ["uniform", "variance", "laplacian", "supervised_laplacian", "fisher", "subspace_m10",
          "subspace_m40"]


def selector(name, c, mode, seed):
    if name.startswith("subspace_m"):
        return SubspaceScoreSelector(c, rank=int(name[len("subspace_m"):]), gamma="balanced",
                                     mode=mode, random_state=seed)
    return ScoreSelector(c, criterion=name, mode=mode, random_state=seed)


def one_nn(Ztr, ytr, Zte, yte):
    from sklearn.neighbors import KNeighborsClassifier

    return float(np.mean(KNeighborsClassifier(1).fit(Ztr, ytr).predict(Zte) == yte))


def main(argv=None):
    ap = parser("scores_faces", __doc__.splitlines()[0], threads=0)
    ap.add_argument("--splits", type=int, default=5)
    ap.add_argument("--pixels", default="10,25,50,100,200,400")
    ap.add_argument("--eigenfaces", default="5,10,20,50,100,200,400")
    args = ap.parse_args(argv)
    with blas_threads(args):
        return run(args)


def run(args):
    from sklearn.model_selection import train_test_split

    d = load_shared("extyaleb_32x32.npz")
    X = d["X"].astype(np.float64)
    X = (X - X.mean(1, keepdims=True)) / np.maximum(X.std(1, keepdims=True), 1e-12)
    y = d["y"]
    pixels = [int(v) for v in args.pixels.split(",")]
    eig = [int(v) for v in args.eigenfaces.split(",")]
    scores = SCORES
    if args.quick:
        args.splits, pixels, eig, scores = 1, [25], [10], ["variance", "fisher", "subspace_m10"]
    acc = {"all_pixels": [], "eigenfaces": {k: [] for k in eig}}
    for mode in ("sample", "top"):
        for s in scores:
            acc[f"{s}/{mode}"] = {c: [] for c in pixels}
    distinct = {s: {c: [] for c in pixels} for s in scores}
    for split in range(args.splits):
        Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=0.2, stratify=y, random_state=split)
        acc["all_pixels"].append(one_nn(Xtr, ytr, Xte, yte))
        mu = Xtr.mean(0)
        _, _, Vt = np.linalg.svd(Xtr - mu, full_matrices=False)
        for k in eig:
            V = Vt[:k].T
            acc["eigenfaces"][k].append(one_nn((Xtr - mu) @ V, ytr, (Xte - mu) @ V, yte))
        for s in scores:
            for mode in ("sample", "top"):
                for c in pixels:
                    sel = selector(s, c, mode, split)
                    sel.fit(Xtr, ytr)
                    acc[f"{s}/{mode}"][c].append(one_nn(sel.transform(Xtr), ytr,
                                                        sel.transform(Xte), yte))
                    if mode == "sample":
                        distinct[s][c].append(int(sel.support_.sum()))
        print(f"split {split}: all pixels {acc['all_pixels'][-1]:.3f}", flush=True)

    def fmt(v):
        return f"{np.mean(v):.3f}±{np.std(v):.3f}"

    n_tr = int(round(0.2 * len(X)))
    print(f"\nExtended Yale B 32x32: {len(X)} images, 38 subjects, {args.splits} stratified splits "
          f"20% train (~{n_tr}) / 80% test, 1-NN; classification rate mean±std over splits")
    print(f"all pixels (1024): {fmt(acc['all_pixels'])}")
    print("eigenfaces: " + "  ".join(f"k={k}: {fmt(v)}" for k, v in acc["eigenfaces"].items()))
    for mode in ("sample", "top"):
        print(f"\npixels {'sampled prop. to score, rescaled (Fig. 9)' if mode == 'sample' else 'top scores (Fig. 10)'}")
        print(f"{'score':>22} " + " ".join(f"{c:>12}" for c in pixels))
        for s in scores:
            print(f"{s:>22} " + " ".join(f"{fmt(acc[f'{s}/{mode}'][c]):>12}" for c in pixels))
    print("\ndistinct pixels among c draws (sample mode, mean): " + "; ".join(
        f"{s}: " + ",".join(f"{np.mean(distinct[s][c]):.0f}" for c in pixels) for s in scores))

    out = out_dir(args)
    summary = {"protocol": {"splits": args.splits, "train_fraction": 0.2, "classifier": "1-NN",
                            "normalisation": "per-image zero mean, unit std",
                            "subspace_gamma": "balanced", "pixels": pixels, "eigenfaces": eig},
               "all_pixels": acc["all_pixels"],
               "eigenfaces": {str(k): v for k, v in acc["eigenfaces"].items()},
               "scores": {key: {str(c): v for c, v in val.items()} for key, val in acc.items()
                          if "/" in key},
               "distinct_pixels_sampled": {s: {str(c): v for c, v in val.items()}
                                           for s, val in distinct.items()}}
    write_results(args, summary, name="faces")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    ks = list(acc["eigenfaces"])
    axes[0].plot(ks, [np.mean(acc["eigenfaces"][k]) for k in ks], "o-", label="eigenfaces")
    axes[0].axhline(np.mean(acc["all_pixels"]), color="k", ls=":", label="all pixels")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("number of eigenfaces")
    axes[0].set_title("eigenfaces (Fig. 7)")
    axes[0].legend(fontsize=7)
    for ax, mode in zip(axes[1:], ("sample", "top")):
        for s in scores:
            ax.plot(pixels, [np.mean(acc[f"{s}/{mode}"][c]) for c in pixels], "o-", ms=3, label=s)
        ax.axhline(np.mean(acc["all_pixels"]), color="k", ls=":")
        ax.set_xscale("log")
        ax.set_xlabel("pixels (draws c in sample mode)")
        ax.set_title(f"{mode} (Fig. {9 if mode == 'sample' else 10})")
    axes[1].legend(fontsize=7)
    for ax in axes:
        ax.set_ylabel("classification rate")
    fig.tight_layout()
    save_figure(fig, out / "faces.png", dpi=120)
    print(f"\nwrote {out / 'faces.json'}, {out / 'faces.png'}")


if __name__ == "__main__":
    main()
