"""Textures (Gkioulekas and Zickler 2011, Fig. 2 third panel): kernel method vs KPCA and KLPP.

12 x 12 patches of Brodatz D4, D5, D8, D12, D17, D84, D92 (``brodatz_112_640x640.npz``): training
patches are cut at random positions in the left half of each 640 x 640 image, test patches in the
right half (separate image regions). Patches are normalized to unit length and compared with the
Gaussian kernel ``exp(-gamma ||x - y||^2)``, ``gamma = 8`` as in the paper.

* ``ker.dict``: :class:`pixsel.decomposition.SparseLinearModelProjection` with ``kernel='rbf'``,
  a kernel dictionary of ``--n-atoms`` atoms (paper: 512) learned in the representer form on the
  training patches with ``lambda = alpha = 0.30`` (paper: pre-image atoms learned with kernel
  derivatives, which we do not implement);
* ``KPCA``: scikit-learn ``KernelPCA``; ``KLPP``: :class:`pixsel.decomposition.KernelLPP`;
* ``ker.dict pre-image``: the learned atoms replaced by Gaussian-kernel pre-images
  (:func:`pixsel.projection.rbf_preimages`, Mika et al.'s fixed point), then the kernel method with
  these fixed pre-image atoms, so a projection needs ``K`` kernel evaluations and the ``K x K``
  Gram matrix only (the paper's section 3.3 setting; its fit time excludes the representer fit).

Every method is fitted once at ``max(--M)`` and read at each ``M`` by its leading components; a
one-vs-all linear SVM (scikit-learn ``LinearSVC``) on standardized projections gives the test
accuracy. Fit time and peak memory (resident-set increase) of each method are reported: the paper's
section 3.3 point is that KPCA/KLPP need the ``S x S`` training kernel (S = 20000 there) where the
proposed method needs ``K x K`` at projection time. The default uses ``--per-class 500``
(3500 training patches, not 20000) so that every method fits in minutes on a shared 2-core machine.

Run: ``python benchmarks/bench_slm_textures.py`` (``--quick`` for a smoke run).
"""

from __future__ import annotations

import time

import numpy as np
import _common
from _common import PeakRSS

from pixsel.io import save_figure, write_json
from pixsel.datasets import load_shared
from pixsel.decomposition import KernelLPP, SparseLinearModelProjection

TEXTURES = ("D4", "D5", "D8", "D12", "D17", "D84", "D92")


def _patches(img, n, rng, cols, size=12):
    h = img.shape[0]
    r = rng.integers(0, h - size + 1, size=n)
    c = rng.integers(cols[0], cols[1] - size + 1, size=n)
    out = np.stack([img[i:i + size, j:j + size].ravel() for i, j in zip(r, c)]).astype(np.float64)
    return out


class _PreimageSLM:
    """Pre-image atoms of a fitted representer-form ker.dict, then the kernel method on them."""

    def __init__(self, rep, M, args):
        self.rep, self.M, self.args = rep, M, args

    def fit(self, X):
        from pixsel.projection import rbf_preimages

        Z = rbf_preimages(self.rep.basis_, self.rep.dictionary_coef_, self.args.gamma)
        self.est = SparseLinearModelProjection(self.M, kernel="rbf", gamma=self.args.gamma, alpha=self.args.alpha,
                                               dictionary=Z).fit(X)
        return self

    def transform(self, X):
        return self.est.transform(X)


def _svm_accuracy(Ytr, ytr, Yte, yte, Ms):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import LinearSVC

    acc = []
    for M in Ms:
        clf = make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=5000, dual="auto"))
        clf.fit(Ytr[:, :M], ytr)
        acc.append(float(np.mean(clf.predict(Yte[:, :M]) == yte)))
    return acc


def main(argv=None):
    p = _common.parser("slm_textures", __doc__.splitlines()[0])
    p.add_argument("--per-class", type=int, default=500, help="training patches per texture")
    p.add_argument("--test-per-class", type=int, default=300)
    p.add_argument("--n-atoms", type=int, default=512)
    p.add_argument("--alpha", type=float, default=0.30)
    p.add_argument("--gamma", type=float, default=8.0)
    p.add_argument("--max-iter", type=int, default=6, help="kernel dictionary-learning iterations")
    p.add_argument("--M", default="5,10,20,40,60,80,100")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    with _common.blas_threads(args):
        return _run(args)


def _run(args):
    if args.quick:
        args.per_class, args.test_per_class, args.n_atoms, args.max_iter, args.M = 40, 40, 64, 3, "5,10,20"
    Ms = [int(m) for m in args.M.split(",")]
    Mmax = max(Ms)
    out_dir = _common.out_dir(args)

    d = load_shared("brodatz_112_640x640.npz")
    ids = list(d["texture_ids"])
    shape = tuple(int(v) for v in d["image_shape"])
    rng = np.random.default_rng(args.seed)
    Xtr, ytr, Xte, yte = [], [], [], []
    for label, tid in enumerate(TEXTURES):
        img = d["X"][ids.index(tid)].reshape(shape)
        Xtr.append(_patches(img, args.per_class, rng, (0, shape[1] // 2)))
        Xte.append(_patches(img, args.test_per_class, rng, (shape[1] // 2, shape[1])))
        ytr += [label] * args.per_class
        yte += [label] * args.test_per_class
    Xtr, Xte = np.vstack(Xtr), np.vstack(Xte)
    ytr, yte = np.array(ytr), np.array(yte)
    Xtr /= np.linalg.norm(Xtr, axis=1, keepdims=True)
    Xte /= np.linalg.norm(Xte, axis=1, keepdims=True)
    print(f"Brodatz {', '.join(TEXTURES)}: {len(Xtr)} training / {len(Xte)} test 12x12 patches "
          f"(paper: 20000 training); gamma = {args.gamma}; K = {args.n_atoms}, alpha = {args.alpha}", flush=True)

    from sklearn.decomposition import KernelPCA

    methods = {
        "ker.dict (ours)": lambda: SparseLinearModelProjection(
            Mmax, n_atoms=args.n_atoms, alpha=args.alpha, kernel="rbf", gamma=args.gamma,
            max_iter=args.max_iter, random_state=args.seed),
        "KPCA": lambda: KernelPCA(Mmax, kernel="rbf", gamma=args.gamma, eigen_solver="dense"),
        "KLPP": lambda: KernelLPP(Mmax, kernel="rbf", gamma=args.gamma, n_neighbors=5),
        # pre-images of the learned atoms (Mika et al. fixed point), then the kernel method with
        # these fixed pre-image atoms: K kernel evaluations per projected sample, K x K storage
        "ker.dict pre-image": lambda: _PreimageSLM(fitted["ker.dict (ours)"], Mmax, args),
    }
    fitted = {}
    acc, fit_time, proj_time, mem = {}, {}, {}, {}
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    t0 = time.perf_counter()
    for name, make in methods.items():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            with PeakRSS() as pk:
                t = time.perf_counter()
                est = make().fit(Xtr)
                fitted[name] = est
                fit_time[name] = time.perf_counter() - t
                Ytr = est.transform(Xtr)
                t = time.perf_counter()
                Yte = est.transform(Xte)
                proj_time[name] = time.perf_counter() - t
        mem[name] = pk.delta / 2**20
        acc[name] = _svm_accuracy(Ytr, ytr, Yte, yte, Ms)
        nw = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
        extra = f", {nw} ConvergenceWarning(s)" if nw else ""
        print(f"  {name:19s} fit {fit_time[name]:7.1f}s, project {len(Xte)} test patches {proj_time[name]:5.2f}s, "
              f"peak RSS +{mem[name]:.0f} MB{extra}", flush=True)
    print("\none-vs-all linear SVM test accuracy vs M")
    print(f"{'M':>5s} " + " ".join(f"{k:>19s}" for k in methods))
    for i, M in enumerate(Ms):
        print(f"{M:5d} " + " ".join(f"{acc[k][i]:19.3f}" for k in methods))
    for ours in ("ker.dict (ours)", "ker.dict pre-image"):
        for base in ("KPCA", "KLPP"):
            r = [acc[ours][i] / acc[base][i] for i in range(len(Ms))]
            print(f"{ours} / {base} accuracy ratio per M: " + ", ".join(f"{v:.3f}" for v in r))
    n_tr = len(Xtr)
    print(f"training kernel storage: KPCA/KLPP {n_tr}x{n_tr} = {n_tr * n_tr * 8 / 2**20:.0f} MB; ker.dict learning "
          f"the same {n_tr}x{n_tr}, projection K_DD {args.n_atoms}x{args.n_atoms} = "
          f"{args.n_atoms**2 * 8 / 2**20:.1f} MB plus {n_tr} kernel evaluations per sample (representer form), "
          f"{args.n_atoms} per sample with pre-image atoms (whose fit time above excludes the representer fit)")
    total = time.perf_counter() - t0

    from pixsel.viz import plot_curves

    fig = plot_curves(Ms, acc, xlabel="number of projections M", ylabel="linear SVM accuracy",
                      title=f"Brodatz 12x12 patches, {n_tr} training")
    save_figure(fig, out_dir / "accuracy_vs_M.png", dpi=120)
    write_json(out_dir / "slm_textures.json", {
        "protocol": {**vars(args), "out": str(args.out)}, "textures": TEXTURES, "n_train": n_tr, "n_test": len(Xte), "M": Ms,
        "accuracy": acc, "fit_time_s": fit_time, "project_time_s": proj_time, "peak_rss_increase_mb": mem,
        "total_time_s": total,
    })
    print(f"total {total:.0f}s; wrote {out_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
