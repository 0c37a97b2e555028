"""Claim: `pixsel select FOLDER --k auto` on the 2856 CMU PIE faces (68 people, 32x32 PNGs) takes
at most 10 s and picks k <= 100; `-k 20` at most 2 s.

Two measurements, each the median (and min-max spread) of 3 runs (`--repeat`), with the load average printed:

* the library, side by side in one run: the former `--k auto` procedure (PathSelectorCV with
  rule='best' scoring the whole 'auto' grid up to p, then the selector refitted at the smallest k
  within 0.01 of the best mean accuracy) against PathSelectorCV(rule='within', tol=0.01), whose
  'auto' grid stops where the curve has flattened; same folds (5, stratified, shuffled, seed 0),
  same selector (SparseLDASelector()), same data in memory. Both must pick a k within 0.01 of
  their best mean accuracy (asserted);
* the command a user types, in fresh processes: `pixsel select FOLDER -k 20` and `--k auto` on a
  folder of PNGs (one subfolder per person) written from the shared `cmupie_32x32.npz`
  (imports, reading the images, the fit, the figures), against the goals.

`--quick`: 10 people (420 images), the same steps.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import blas_threads, parser, write_results

TOL = 0.01
GOAL_AUTO, GOAL_K20, GOAL_K = 10.0, 2.0, 100


def _faces(quick):
    from pixsel.datasets import data_dir

    d = np.load(data_dir() / "cmupie_32x32.npz")
    X, y, shape = d["X"], d["y"], tuple(int(v) for v in d["image_shape"])
    if quick:
        keep = np.isin(y, np.unique(y)[:10])
        X, y = X[keep], y[keep]
    return X, y, shape


def _write_folder(root, X, y, shape):
    from PIL import Image

    for i, (x, c) in enumerate(zip(X, y)):
        folder = root / f"person{int(c):02d}"
        folder.mkdir(parents=True, exist_ok=True)
        Image.fromarray(x.reshape(shape)).save(folder / f"{i:05d}.png")


def _before(X, y, folds):
    """The former `--k auto`: rule='best' on the whole grid, then a refit at the 'within' k."""
    from sklearn.base import clone

    from pixsel.selection import PathSelectorCV, SparseLDASelector

    cv = PathSelectorCV(SparseLDASelector(), cv=folds, rule="best").fit(X, y)
    ks, mean = cv.cv_results_["n_features"], cv.cv_results_["mean_test_score"]
    k = int(ks[np.flatnonzero(mean >= mean.max() - TOL)[0]])
    clone(cv.selector_).set_params(n_features_to_select=k).fit(X, y)
    return k, mean[ks == k][0], mean.max(), int(ks[-1])


def _after(X, y, folds):
    from pixsel.selection import PathSelectorCV, SparseLDASelector

    cv = PathSelectorCV(SparseLDASelector(), cv=folds, rule="within", tol=TOL).fit(X, y)
    ks, mean = cv.cv_results_["n_features"], cv.cv_results_["mean_test_score"]
    k = cv.n_features_to_select_
    return k, mean[ks == k][0], mean.max(), int(ks[-1])


def _stats(times):
    return {"median": float(np.median(times)), "min": float(min(times)), "max": float(max(times)), "runs": times}


def _cli(args, threads):
    env = dict(os.environ)
    if threads:  # the same BLAS pinning as the library runs
        env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "pixsel", "select", *args], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"pixsel select {' '.join(args)} failed: {r.stderr}")
    return time.perf_counter() - t


def main():
    ap = parser("k_auto", __doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per figure (median and spread; default 3)")
    args = ap.parse_args()
    repeat = args.repeat
    from sklearn.model_selection import StratifiedKFold

    X, y, shape = _faces(args.quick)
    Xf = X.astype(np.float64)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    load = os.getloadavg()
    print(f"CMU PIE faces: {len(y)} images, {len(np.unique(y))} people, {shape[0]}x{shape[1]}; "
          f"BLAS threads {args.threads or 'unlimited'}; load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    lib = {"before": [], "after": []}
    picks = {}
    with blas_threads(args):
        for _ in range(repeat):  # interleaved, so a busy moment hits both alike
            for name, fn in (("before", _before), ("after", _after)):
                t = time.perf_counter()
                picks[name] = fn(Xf, y, folds)
                lib[name].append(time.perf_counter() - t)
    for name, (k, acc, best, _) in picks.items():
        assert acc >= best - TOL - 1e-12, (name, k, acc, best)  # the rule was applied
        assert 1 <= k <= Xf.shape[1]
    result = {"quick": args.quick, "n": int(len(y)), "classes": int(len(np.unique(y))), "repeat": repeat,
              "library": {name: {**_stats(t), "k": int(picks[name][0]), "mean_accuracy": float(picks[name][1]),
                                 "best_mean_accuracy": float(picks[name][2]), "largest_k_scored": picks[name][3]}
                          for name, t in lib.items()}}
    print(f"library, PathSelectorCV with SparseLDASelector, 5 shuffled folds (median [min-max] of {repeat}):")
    for name, label in (("before", "rule='best' on the whole grid + refit at the 'within' k"),
                        ("after", "rule='within', tol=0.01, grid scored by octave until flat")):
        s, (k, acc, best, kmax) = _stats(lib[name]), picks[name]
        print(f"  {label:58s} {s['median']:7.2f} s [{s['min']:.2f}-{s['max']:.2f}]  k = {k} "
              f"(mean accuracy {acc:.4f}; best {best:.4f}; k scored up to {kmax})")
    ratio = np.median(lib["before"]) / np.median(lib["after"])
    print(f"  speed-up of the median: {ratio:.1f}x")
    result["library"]["speedup"] = float(ratio)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "faces"
        _write_folder(root, X, y, shape)
        cli = {"k20": [], "auto": []}
        for r in range(repeat):
            for name, opts in (("k20", ["-k", "20"]), ("auto", ["--k", "auto"])):
                out = Path(tmp) / f"out-{name}-{r}"
                cli[name].append(_cli([str(root), *opts, "--out", str(out), "-q"], args.threads))
        report = json.loads((Path(tmp) / "out-auto-0" / "selection.json").read_text())
        assert len(report["indices"]) == report["k"]
        k20 = json.loads((Path(tmp) / "out-k20-0" / "selection.json").read_text())
        assert len(k20["indices"]) == 20
    load_after = os.getloadavg()
    result["cli"] = {"k20": _stats(cli["k20"]), "auto": {**_stats(cli["auto"]), "k": int(report["k"])}}
    print(f"pixsel select on the PNG folder, fresh processes (median [min-max] of {repeat}):")
    for name, goal, label in (("k20", GOAL_K20, "-k 20"), ("auto", GOAL_AUTO, "--k auto")):
        s = _stats(cli[name])
        extra = f", k = {report['k']} (goal <= {GOAL_K})" if name == "auto" else ""
        print(f"  {label:9s} {s['median']:6.2f} s [{s['min']:.2f}-{s['max']:.2f}] (goal <= {goal:g} s){extra}")
    print(f"load average after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    result["load"] = {"before": list(load), "after": list(load_after)}
    write_results(args, result)


if __name__ == "__main__":
    main()
