"""Face recognition with LGBP features and selected subsets (section 4.2 / Fig. 1 of Zhang et al.).

Pipeline (the paper's, on the data available here):

* **Descriptors**: LGBP (``pixsel.features.lgbp``): 40 Gabor magnitudes (5 scales x 8
  orientations), ``LBP_8^u2`` codes (59 bins), 4 x 4 blocks of 8 x 8 pixels, block histograms
  L2-normalized: 40 * 16 * 59 = 37,760 features per 32 x 32 face. The paper used 7 x 7 blocks of
  about 20 x 22 pixels on 140 x 154 faces; at 32 x 32, 7 x 7 blocks would hold about 20 pixels
  for 59 bins (almost empty histograms), 4 x 4 keeps 64 pixels per histogram while still
  separating eyes, nose and mouth, and gives a descriptor as redundant as the paper's.
* **Gallery / probes**: CMU PIE (68 people x 42 images): per person ``--gallery`` images (default
  3) drawn with a seeded generator are the gallery, the other 39 are probes (2,652 queries).
* **Classifier**: one linear classifier per person, trained on that person's gallery images
  (positives, weighted to balance) against a fixed negative set of other people's faces (all
  2,414 Extended Yale B images by default; ``--negatives N`` takes a seeded subset): ridge
  regression to +1 / -1 in its dual form (linear kernel + 1 for the bias, ridge
  ``0.1 * mean diag``, fixed, not tuned on probes); a query goes to the person with the highest
  score.
* **Feature selection** is trained on a separate database, Extended Yale B (all 2,414 images,
  38 people, one-hot class targets), in two stages as in the paper: variance screening to
  ``--screen`` features, then each selector to the target length ``d``. Methods: naive variance,
  ANOVA F (``sklearn.feature_selection.f_classif``), SPLS-eta (eta bisected to ~d), cardinal SPLS;
  plus all features and the screened set.

    python benchmarks/bench_face_lgbp.py            # full size
    python benchmarks/bench_face_lgbp.py --quick    # 10 people, small grids (smoke)
"""

from __future__ import annotations

import time

import _common
import numpy as np
import scipy.linalg as sla
from _spls_common import _quiet_fit
from sklearn.feature_selection import f_classif

from pixsel import CardinalSPLSSelector, SPLSSelector
from pixsel.io import atomic_path, save_figure, write_json
from pixsel.datasets import load_shared
from pixsel.features import lgbp


def lgbp_cached(X, name, out_dir, grid):
    path = out_dir / f"lgbp_{name}_{grid[0]}x{grid[1]}.npy"
    if path.is_file():
        F = np.load(path)
        if len(F) == len(X):
            return F, 0.0
    t = time.perf_counter()
    F = lgbp(X, image_shape=(32, 32), grid=grid)
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as fh:
            np.save(fh, F)
    return F, time.perf_counter() - t


class DualRidgeBank:
    """One ridge classifier per person (gallery positives vs shared negatives), solved together.

    With ``Kinv = (K_NN + lam I)^-1`` factored once, person p needs only a g x g Schur complement.
    """

    def __init__(self, F_neg, F_gal, gal_labels, lam_rel=0.1):
        Fn = F_neg.astype(np.float32)
        Fg = F_gal.astype(np.float32)
        K_NN = (Fn @ Fn.T).astype(np.float64) + 1.0
        self.K_NG = (Fn @ Fg.T).astype(np.float64) + 1.0
        self.K_GG = (Fg @ Fg.T).astype(np.float64) + 1.0
        lam = lam_rel * float(np.mean(np.diag(K_NN)))
        self.cho = sla.cho_factor(K_NN + lam * np.eye(len(K_NN)))
        self.u = sla.cho_solve(self.cho, -np.ones(len(K_NN)))
        self.H = sla.cho_solve(self.cho, self.K_NG)
        self.Fn, self.Fg = Fn, Fg
        self.people = np.unique(gal_labels)
        self.groups = [np.flatnonzero(gal_labels == p) for p in self.people]
        g = np.mean([len(G) for G in self.groups])
        self.lam_g = lam * g / len(K_NN)  # positives weighted n_neg / g: the two sides balance
        self.alpha = []
        for G in self.groups:
            C = self.K_NG[:, G]
            S = self.K_GG[np.ix_(G, G)] + self.lam_g * np.eye(len(G)) - C.T @ self.H[:, G]
            self.alpha.append(np.linalg.solve(S, np.ones(len(G)) - C.T @ self.u))

    def predict(self, F_q):
        Fq = F_q.astype(np.float32)
        K_QN = (Fq @ self.Fn.T).astype(np.float64) + 1.0
        K_QG = (Fq @ self.Fg.T).astype(np.float64) + 1.0
        base = K_QN @ self.u
        KH = K_QN @ self.H
        scores = np.empty((len(Fq), len(self.groups)))
        for j, (G, a) in enumerate(zip(self.groups, self.alpha)):
            scores[:, j] = base + (K_QG[:, G] - KH[:, G]) @ a
        return self.people[np.argmax(scores, axis=1)]


def spls_eta_for(X, y, d, n_components, max_fits, hi=1.0):
    """Bisect eta in (0, hi) for about d features (sizes ascend, so the last eta bounds the next)."""
    lo, best = 0.0, None
    for fits in range(1, max_fits + 1):  # noqa: B007 - the count is read after the loop
        eta = 0.5 * (lo + hi)
        sel = _quiet_fit(SPLSSelector(eta, n_components=n_components), X, y)
        n = sel.n_features_selected_
        if best is None or abs(n - d) < abs(best[1] - d):
            best = (eta, n, sel.get_support(indices=True))
        if abs(n - d) <= 0.05 * d:
            break
        if n > d:
            lo = eta
        else:
            hi = eta
    return best[2], best[0], fits


def main(argv=None):
    ap = _common.parser("face_lgbp", __doc__.splitlines()[0])
    ap.add_argument("--gallery", type=int, default=3, help="gallery images per CMU PIE person")
    ap.add_argument("--negatives", type=int, default=2414, help="Extended Yale B images in the negative set")
    ap.add_argument("--screen", type=int, default=10000, help="length after variance screening")
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 250, 500, 1000, 2000, 4000])
    ap.add_argument("--n-components", type=int, default=5)
    ap.add_argument("--extra-components", type=int, nargs="*", default=[10],
                    help="also run cardinal SPLS with these K (reported as extra curves, K = --n-components is primary)")
    ap.add_argument("--eta-fits", type=int, default=8, help="bisection fits to tune SPLS-eta per size")
    ap.add_argument("--grid", type=int, nargs=2, default=[4, 4])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    with _common.blas_threads(args):
        run(args)


def run(args):
    out_dir = _common.out_dir(args)
    pie = load_shared("cmupie_32x32.npz")
    yale = load_shared("extyaleb_32x32.npz")
    Xp, yp, Xy, yy = pie["X"], pie["y"], yale["X"], yale["y"]
    if args.quick:
        keep = yp < 10
        Xp, yp = Xp[keep], yp[keep]
        rs = np.random.default_rng(args.seed).choice(len(Xy), 400, replace=False)
        Xy, yy = Xy[np.sort(rs)], yy[np.sort(rs)]
        args.negatives, args.screen, args.sizes, args.eta_fits = 200, 3000, [100, 500], 6
    grid = tuple(args.grid)
    tag = "quick" if args.quick else "full"
    lgbp_tag = tag
    if not args.quick and args.negatives != 2414:
        tag = f"full_neg{args.negatives}"
    t0 = time.perf_counter()
    Fp, tp = lgbp_cached(Xp, f"cmupie_{lgbp_tag}", out_dir, grid)
    Fy, ty = lgbp_cached(Xy, f"extyaleb_{lgbp_tag}", out_dir, grid)
    print(f"LGBP: {Fp.shape[1]} features; computed in {tp + ty:.0f} s (0 = cached)", flush=True)

    rng = np.random.default_rng(args.seed)
    gal = np.zeros(len(yp), dtype=bool)
    for person in np.unique(yp):
        idx = np.flatnonzero(yp == person)
        gal[rng.choice(idx, args.gallery, replace=False)] = True
    neg = np.sort(rng.choice(len(Fy), min(args.negatives, len(Fy)), replace=False))
    F_gal, y_gal, F_prb, y_prb, F_neg = Fp[gal], yp[gal], Fp[~gal], yp[~gal], Fy[neg]
    print(f"gallery {gal.sum()} images ({args.gallery}/person), probes {len(y_prb)}, negatives {len(neg)}, "
          f"selection training {len(Fy)} Extended Yale B images", flush=True)

    def rate(cols):
        bank = DualRidgeBank(F_neg[:, cols], F_gal[:, cols], y_gal)
        return float(np.mean(bank.predict(F_prb[:, cols]) == y_prb))

    # stage 1: variance screening on the selection training set
    var_order = np.argsort(-Fy.var(axis=0), kind="stable")
    screened = np.sort(var_order[: args.screen])
    Xs = Fy[:, screened]
    F_scores = f_classif(Xs, yy)[0]
    F_scores = np.nan_to_num(F_scores, nan=-np.inf)
    results = {"all features": {"d": Fp.shape[1], "rate": rate(np.arange(Fp.shape[1]))},
               f"variance screening ({args.screen})": {"d": args.screen, "rate": rate(screened)}}
    print(f"all {Fp.shape[1]} features: {results['all features']['rate']:.3f}; screened {args.screen}: "
          f"{results[f'variance screening ({args.screen})']['rate']:.3f}", flush=True)
    curves = {m: [] for m in ("naive variance", "ANOVA F", "SPLS-eta", "cardinal SPLS")}
    for K in args.extra_components:
        curves[f"cardinal SPLS K={K}"] = []
    eta_hi = 1.0
    for d in sorted(args.sizes):
        t = time.perf_counter()
        sel = {"naive variance": np.sort(var_order[:d]),
               "ANOVA F": screened[np.sort(np.argsort(-F_scores, kind="stable")[:d])]}
        t1 = time.perf_counter()
        S, eta, fits = spls_eta_for(Xs, yy, d, args.n_components, args.eta_fits, hi=eta_hi)
        eta_hi = min(1.0, 1.5 * eta)
        t_eta = time.perf_counter() - t1
        sel["SPLS-eta"] = screened[S]
        t1 = time.perf_counter()
        card = _quiet_fit(CardinalSPLSSelector(d, n_components=args.n_components), Xs, yy)
        t_card = time.perf_counter() - t1
        sel["cardinal SPLS"] = screened[card.get_support(indices=True)]
        for K in args.extra_components:
            extra = _quiet_fit(CardinalSPLSSelector(d, n_components=K), Xs, yy)
            sel[f"cardinal SPLS K={K}"] = screened[extra.get_support(indices=True)]
        for m, cols in sel.items():
            entry = {"d": int(len(cols)), "rate": rate(cols)}
            if m == "SPLS-eta":
                entry.update(eta=eta, tuning_fits=fits, tuning_seconds=t_eta)
            if m == "cardinal SPLS":
                entry.update(seconds=t_card)
            curves[m].append(entry)
        print(f"d={d}: " + ", ".join(f"{m} {curves[m][-1]['rate']:.3f} (d={curves[m][-1]['d']})" for m in curves)
              + f"  [{time.perf_counter() - t:.0f} s; cardinal SPLS fit {t_card:.1f} s, SPLS-eta {fits} fits "
              f"{t_eta:.1f} s]", flush=True)
    elapsed = time.perf_counter() - t0

    lines = [f"\nFace recognition rate on {len(y_prb)} CMU PIE probes ({args.gallery} gallery images/person, "
             f"{len(neg)} Extended Yale B negatives; selection trained on Extended Yale B, screening to "
             f"{args.screen}; K = {args.n_components})"]
    lines.append(f"{'d':>6s}" + "".join(f"{m:>20s}" for m in curves))
    for i, d in enumerate(sorted(args.sizes)):
        lines.append(f"{d:>6d}" + "".join(
            f"{curves[m][i]['rate']:>13.3f}" + (f" ({curves[m][i]['d']:>4d})" if m == "SPLS-eta" else " " * 7)
            for m in curves))
    for m, r in results.items():
        lines.append(f"{m}: {r['rate']:.3f} with {r['d']} features")
    lines.append(f"total {elapsed:.0f} s (LGBP {tp + ty:.0f} s)")
    text = "\n".join(lines)
    print(text)
    write_json(out_dir / f"face_{tag}.json", {"args": {**vars(args), "out": str(args.out)}, "curves": curves, "reference": results,
                                             "n_probes": int(len(y_prb)), "text": text, "seconds": elapsed})

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for m, c in curves.items():
        ax.semilogx([e["d"] for e in c], [e["rate"] for e in c], "o-", label=m)
    for (m, r), ls in zip(results.items(), (":", "--")):
        ax.axhline(r["rate"], color="gray", ls=ls, label=m if "(" in m else f"{m} ({r['d']})")
    ax.set(xlabel="number of features", ylabel="recognition rate",
           title="CMU PIE probes, LGBP, selection trained on Extended Yale B")
    ax.legend(fontsize=7)
    save_figure(fig, out_dir / f"face_{tag}.png", dpi=110)
    print(f"wrote {out_dir / f'face_{tag}.json'} and face_{tag}.png")


if __name__ == "__main__":
    main()
