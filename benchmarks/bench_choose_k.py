"""Choosing k by cross-validation, pixsel's path (one selector fit per fold) vs RFECV and SFS.

On USPS 3 vs 5 (usps_3v5_split.npz, its train/test split) and an Extended Yale B two-group task
(extyaleb_32x32.npz: subjects 0-4 vs 5-9, 2 x 2 mean-pooled to 16 x 16 = 256 pixels, a seeded
stratified half/half split), every method chooses k on the training set with the SAME five
stratified folds and the same downstream model, shrinkage LDA
(``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')``):

* pixsel: ``PathSelectorCV(SparseLDASelector())``, every k from 1 to p, best mean accuracy
  (and the one-standard-error rule, reported beside it);
* ``RFECV(LDA, step=1)``: ranks by ``|coef_|`` and refits at every eliminated step of every fold;
* ``SequentialFeatureSelector(LDA, n_features_to_select='auto', tol=TOL, direction='forward')``:
  stops when adding a feature improves the CV accuracy by less than ``TOL``. That tolerance is
  its only stopping rule (scikit-learn offers no maximum k with 'auto'), so it is what caps its
  run time. The other cap is its candidate set: at full size SFS chooses among the 2 x 2
  mean-pooled pixels (64 candidates instead of 256; one forward step costs
  ``candidates x folds`` LDA fits: from the timings at 64 candidates, a run on all 256 pixels is
  estimated at well over an hour on the shared 2-core machine); at ``--quick`` every method sees
  16 pixels.

Reported per task: seconds (pixsel: median of 3 with their range; peers once: they take
minutes), the speed-up over
each peer, the chosen k, and the held-out test error of the refitted model at that k. Two more
lines time pixsel's previous scoring in the same run ("before": every support's shrinkage LDA
formed and solved on its own, through the public ``scoring='accuracy'``, median of 3; see
``_common.previous_path_cv``) and pixsel without ``reuse_statistics`` (LDA refitted at every k),
to say what each optimisation is worth.

Writes results/choose_k/choose_k.json and fig_cv_path_<task>.png (pixsel's CV score vs k with
its band and the objective path; RFECV's CV curve on the same folds drawn over it).

Why 16 x 16 for Yale: at 32 x 32 (p = 1024) one LDA fit on all pixels takes seconds, and RFECV
with step=1 refits ~1024 times per fold, which is hours on the 2-core machine this ran on.

    python benchmarks/bench_choose_k.py            # the full size (tens of minutes: the peers)
    python benchmarks/bench_choose_k.py --quick    # smoke size (4 x 4 pixels, 120 training images)
"""

from __future__ import annotations

import os
import time

import numpy as np
from _common import best_time, blas_threads, out_dir, parser, previous_path_cv, write_results
from sklearn.base import clone
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.feature_selection import RFECV, SequentialFeatureSelector
from sklearn.model_selection import StratifiedKFold, train_test_split

from pixsel import PathSelectorCV, SparseLDASelector
from pixsel.datasets import load_shared
from pixsel.io import save_figure
from pixsel.viz import plot_cv_path

TOL = 0.005  # SFS: stop when the CV accuracy gains less than half a percent (its only stopping rule)


def _lda():
    return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")


def _pool(X, shape, f):
    """f x f mean pooling of flattened images."""
    h, w = shape
    return X.reshape(len(X), h // f, f, w // f, f).mean(axis=(2, 4)).reshape(len(X), -1)


def tasks(quick):
    """(name, X_train, y_train, X_test, y_test, image shape) per task."""
    d = load_shared("usps_3v5_split.npz")
    Xa, ya, Xb, yb = (d["X_train"].astype(np.float64), d["y_train"], d["X_test"].astype(np.float64), d["y_test"])
    shape = (16, 16)
    if quick:  # 4 x 4 pixels, 120 training images
        Xa, Xb, shape = _pool(Xa, shape, 4), _pool(Xb, shape, 4), (4, 4)
        ia = np.random.default_rng(0).choice(len(ya), 120, replace=False)
        Xa, ya = Xa[ia], ya[ia]
    out = [(f"USPS 3 vs 5 ({shape[0]}x{shape[1]})", Xa, ya, Xb, yb, shape)]
    e = load_shared("extyaleb_32x32.npz")
    keep = e["y"] < 10
    f = 8 if quick else 2
    shape = (32 // f, 32 // f)
    X = _pool(e["X"][keep].astype(np.float64) / 255.0, (32, 32), f)
    y = (e["y"][keep] >= 5).astype(int)
    Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    if quick:
        Xa, ya = Xa[:120], ya[:120]
    out.append((f"Yale B subj. 0-4 vs 5-9 ({shape[0]}x{shape[1]})", Xa, ya, Xb, yb, shape))
    return out


def run_pixsel(Xa, ya, cv, rule="best", reuse=True, scoring=None):
    return PathSelectorCV(SparseLDASelector(), k_grid=np.arange(1, Xa.shape[1] + 1), cv=cv, rule=rule,
                          reuse_statistics=reuse, scoring=scoring).fit(Xa, ya)


def median_time(fn, repeat=3):
    """(median, min, max) of ``repeat`` wall times, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return (float(np.median(times)), min(times), max(times)), out


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


def test_error(model, support, Xa, ya, Xb, yb):
    S = np.flatnonzero(support)
    return float(np.mean(clone(model).fit(Xa[:, S], ya).predict(Xb[:, S]) != yb))


def one_task(name, Xa, ya, Xb, yb, shape, args):
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    p = Xa.shape[1]
    slug = name.split(" (")[0].lower().replace(" ", "_").replace(".", "")
    row = {"task": name, "n_train": len(ya), "n_test": len(yb), "p": p}
    (t_px, lo, hi), px = median_time(lambda: run_pixsel(Xa, ya, cv))
    row["pixsel"] = {"seconds": t_px, "range": [lo, hi], "k": px.n_features_to_select_,
                     "test_error": test_error(_lda(), px.get_support(), Xa, ya, Xb, yb),
                     "cv_accuracy": float(px.cv_results_["mean_test_score"][px.n_features_to_select_ - 1])}
    fig = plot_cv_path(px.cv_results_, px.n_features_to_select_, objective=px.selector_.objective_path_, rule="best",
                       score_name="CV accuracy (5 folds)", title=f"{name}: k chosen by PathSelectorCV")
    se = run_pixsel(Xa, ya, cv, rule="one-se")
    row["pixsel_one_se"] = {"k": se.n_features_to_select_, "test_error": test_error(_lda(), se.get_support(), Xa, ya, Xb, yb)}
    previous = previous_path_cv()  # every k scored already: the scoring alone differs
    (t_before, lo, hi), before = median_time(lambda: run_pixsel(Xa, ya, cv, scoring=previous["scoring"]))
    assert before.n_features_to_select_ == px.n_features_to_select_  # the same scores, read another way
    row["pixsel_before"] = {"seconds": t_before, "range": [lo, hi], "ratio_vs_now": t_before / t_px}
    t_nr, _ = best_time(lambda: run_pixsel(Xa, ya, cv, reuse=False), repeat=1)
    row["pixsel_refit_lda_per_k"] = {"seconds": t_nr, "ratio_vs_reuse": t_nr / t_px}

    t = time.perf_counter()
    rfe = RFECV(_lda(), step=1, cv=cv).fit(Xa, ya)
    t_rfe = time.perf_counter() - t
    # RFECV's own CV curve on the same folds, drawn on pixsel's panel for comparison
    ax = fig.axes[0]
    ax.plot(rfe.cv_results_["n_features"], rfe.cv_results_["mean_test_score"], color="C1", lw=1,
            label=f"RFECV(LDA) mean, chose k = {rfe.n_features_}")
    ax.legend(fontsize=8, loc="lower right")
    save_figure(fig, out_dir(args) / f"fig_cv_path_{slug}.png", dpi=120)
    row["rfecv_lda"] = {"seconds": t_rfe, "k": int(rfe.n_features_),
                        "test_error": test_error(_lda(), rfe.support_, Xa, ya, Xb, yb),
                        "speedup_pixsel": t_rfe / t_px}

    t = time.perf_counter()
    # SFS's candidates: 2 x 2 pooled pixels at full size (see the module docstring)
    f = 1 if args.quick else 2
    Pa, Pb = _pool(Xa, shape, f), _pool(Xb, shape, f)
    sfs = SequentialFeatureSelector(_lda(), n_features_to_select="auto", tol=TOL, cv=cv).fit(Pa, ya)
    t_sfs = time.perf_counter() - t
    k_sfs = int(sfs.get_support().sum())
    row["sfs_lda"] = {"seconds": t_sfs, "k": k_sfs, "test_error": test_error(_lda(), sfs.get_support(), Pa, ya, Pb, yb),
                      "candidates": Pa.shape[1],
                      "speedup_pixsel": t_sfs / t_px, "tol": TOL}
    return row


def main():
    args = parser("choose_k", __doc__.splitlines()[0]).parse_args()
    rows = []
    load_before = load_average()
    print(f"load average before: {load_before}", flush=True)
    with blas_threads(args):
        for name, Xa, ya, Xb, yb, shape in tasks(args.quick):
            rows.append(one_task(name, Xa, ya, Xb, yb, shape, args))
    print(f"{'task':38s} {'method':24s} {'seconds':>9s} {'k':>5s} {'test err':>9s} {'pixsel x faster':>16s}")
    for r in rows:
        px = r["pixsel"]
        print(f"{r['task']:38s} {'pixsel PathSelectorCV':24s} {px['seconds']:9.2f} {px['k']:5d} {px['test_error']:9.4f} "
              f"{'':>16s} (median of 3, range {px['range'][0]:.2f}-{px['range'][1]:.2f} s)")
        print(f"{'':38s} {'  same, one-SE rule':24s} {'':>9s} {r['pixsel_one_se']['k']:5d} "
              f"{r['pixsel_one_se']['test_error']:9.4f}")
        for key, label in (("rfecv_lda", "RFECV(LDA, step=1)"), ("sfs_lda", f"SFS(LDA, tol={TOL})*")):
            m = r[key]
            print(f"{'':38s} {label:24s} {m['seconds']:9.2f} {m['k']:5d} {m['test_error']:9.4f} "
                  f"{m['speedup_pixsel']:15.1f}x")
        bf = r["pixsel_before"]
        print(f"{'':38s} {'pixsel, before':24s} {bf['seconds']:9.2f}   (previous scoring, median of 3, range "
              f"{bf['range'][0]:.2f}-{bf['range'][1]:.2f} s: {bf['ratio_vs_now']:.1f}x slower)")
        nr = r["pixsel_refit_lda_per_k"]
        print(f"{'':38s} {'pixsel, LDA refit per k':24s} {nr['seconds']:9.2f}   reuse_statistics is "
              f"{nr['ratio_vs_reuse']:.1f}x faster")
    print(f"* SFS chooses among {rows[0]['sfs_lda']['candidates']} candidate features "
          "(2 x 2 pooled pixels at full size; all pixels would take over an hour here).")
    for r in rows:
        ok_speed = r["rfecv_lda"]["speedup_pixsel"] >= 100
        ok_err = r["pixsel"]["test_error"] <= min(r["rfecv_lda"]["test_error"], r["sfs_lda"]["test_error"])
        print(f"{r['task']}: >= 100x faster than RFECV: {'met' if ok_speed else 'not met'}; "
              f"test error no worse than either peer: {'met' if ok_err else 'not met'}")
    print(f"load average after: {load_average()}")
    path = write_results(args, {"tol": TOL, "tasks": rows, "load_average_before": load_before,
                                "load_average_after": load_average()})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
