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

`--quick`: 10 people (420 images) at 16x16 (means of 2x2 pixels), the same steps. `--cli-only`: the
command alone (the library's comparison takes minutes). `--baseline SRC`: also time the command of
another pixsel source tree (a folder holding the `pixsel` package, e.g. a checkout's `src` of the
commit before a change), run by the same interpreter and alternated with this one, so that both see
the same load; the ratio of the medians is printed. `--python PY`: the same, for the command under
another environment's interpreter (the one `make demo` makes, with the runtime dependencies only: no
Numba, none of the test extras such as pandas, which scikit-learn imports where it is installed).
Each command's CPU time (user + system, all its
threads) is printed beside its wall time: on a machine shared with other work, the wall time
measures the load too. Each command first runs once untimed, writing the bytecode of the modules it
imports as a user's first run does (the commands run without PYTHONDONTWRITEBYTECODE): the timed
runs are what a user sees from the second run on, not Python compiling pixsel's sources
(`--quick` skips that run).
"""

from __future__ import annotations

import json
import os
import resource
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
    if quick:  # 10 people at 16x16 (means of 2x2 pixels): the same steps on a quarter of the pixels
        keep = np.isin(y, np.unique(y)[:10])
        X, y = X[keep], y[keep]
        h, w = shape[0] // 2, shape[1] // 2
        X = X.reshape(len(X), h, 2, w, 2).mean(axis=(2, 4)).round().astype(np.uint8).reshape(len(X), h * w)
        shape = (h, w)
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


def _cli(args, threads, src=None, python=None):
    """Wall and CPU seconds (user + system, the child's threads included) of one fresh
    `python -m pixsel select ARGS`; with ``src``, the pixsel package found first in that folder; with
    ``python``, that interpreter (another environment's) instead of this one."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's run: the first one writes the bytecode
    if threads:  # the same BLAS pinning as the library runs
        env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(Path(src).resolve()), *filter(None, [env.get("PYTHONPATH")])])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run([python or sys.executable, "-m", "pixsel", "select", *args], capture_output=True, text=True,
                       env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"pixsel select {' '.join(args)} failed: {r.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _check_baseline(src):
    """``--baseline`` names a folder that holds a pixsel package (else the current one would be timed twice)."""
    if src is not None and not (Path(src) / "pixsel" / "__init__.py").is_file():
        raise SystemExit(f"--baseline {src}: no pixsel package there; give the folder that holds pixsel/ "
                         "(a checkout's src folder).")


def main():
    ap = parser("k_auto", __doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per figure (median and spread; default 3)")
    ap.add_argument("--cli-only", action="store_true", help="time the command only, not the library's comparison")
    ap.add_argument("--baseline", metavar="SRC", default=None,
                    help="also time the command of the pixsel package in SRC, alternated with this one")
    ap.add_argument("--skip-auto", action="store_true", help="time -k 20 only, not --k auto")
    ap.add_argument("--python", metavar="PY", default=None,
                    help="also time the command under the interpreter PY (another environment with pixsel installed, "
                         "e.g. .venv/bin/python of a clone after `make demo`: no Numba, no test extras), alternated "
                         "with this one")
    args = ap.parse_args()
    _check_baseline(args.baseline)
    repeat = args.repeat
    from sklearn.model_selection import StratifiedKFold

    X, y, shape = _faces(args.quick)
    Xf = X.astype(np.float64)
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    load = os.getloadavg()
    print(f"CMU PIE faces: {len(y)} images, {len(np.unique(y))} people, {shape[0]}x{shape[1]}; "
          f"BLAS threads {args.threads or 'unlimited'}; load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    result = {"quick": args.quick, "n": int(len(y)), "classes": int(len(np.unique(y))), "repeat": repeat}
    if not args.cli_only:
        result["library"] = _library(Xf, y, folds, repeat, args)
    result["cli"] = _command(X, y, shape, repeat, args)
    load_after = os.getloadavg()
    print(f"load average after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    result["load"] = {"before": list(load), "after": list(load_after)}
    write_results(args, result)


def _library(Xf, y, folds, repeat, args):
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
    result = {name: {**_stats(t), "k": int(picks[name][0]), "mean_accuracy": float(picks[name][1]),
                     "best_mean_accuracy": float(picks[name][2]), "largest_k_scored": picks[name][3]}
              for name, t in lib.items()}
    print(f"library, PathSelectorCV with SparseLDASelector, 5 shuffled folds (median [min-max] of {repeat}):")
    for name, label in (("before", "rule='best' on the whole grid + refit at the 'within' k"),
                        ("after", "rule='within', tol=0.01, grid scored by octave until flat")):
        st, (k, acc, best, kmax) = _stats(lib[name]), picks[name]
        print(f"  {label:58s} {st['median']:7.2f} s [{st['min']:.2f}-{st['max']:.2f}]  k = {k} "
              f"(mean accuracy {acc:.4f}; best {best:.4f}; k scored up to {kmax})")
    ratio = np.median(lib["before"]) / np.median(lib["after"])
    print(f"  speed-up of the median: {ratio:.1f}x")
    result["speedup"] = float(ratio)
    return result


def _command(X, y, shape, repeat, args):
    """`pixsel select` on the PNG folder in fresh processes: this pixsel, and with --baseline the
    other, alternated run by run; wall and CPU seconds, median [min-max]."""
    trees = {"this": (None, None)}
    if args.baseline is not None:
        trees["baseline"] = (args.baseline, None)
    if getattr(args, "python", None) is not None:
        trees["other env"] = (None, args.python)
    figures = {"k20": ["-k", "20"]} if args.skip_auto else {"k20": ["-k", "20"], "auto": ["--k", "auto"]}
    runs = {(tree, name): {"wall": [], "cpu": []} for tree in trees for name in figures}
    reports = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "faces"
        _write_folder(root, X, y, shape)
        for tree, (src, py) in trees.items() if not args.quick else ():  # untimed: each first run writes its bytecode
            _cli([str(root), "-k", "20", "--out", str(Path(tmp) / f"out-{tree}-first"), "-q"], args.threads, src, py)
        for r in range(repeat):
            for name, opts in figures.items():  # interleaved, so a busy moment hits every command alike
                for tree, (src, py) in trees.items():
                    out = Path(tmp) / f"out-{tree}-{name}-{r}"
                    wall, cpu = _cli([str(root), *opts, "--out", str(out), "-q"], args.threads, src, py)
                    runs[tree, name]["wall"].append(wall)
                    runs[tree, name]["cpu"].append(cpu)
                    reports[tree, name] = json.loads((out / "selection.json").read_text())
    for (tree, name), report in reports.items():
        assert len(report["indices"]) == report["k"] == (20 if name == "k20" else report["k"]), (tree, name)
        assert report["indices"] == reports["this", name]["indices"], f"{tree} selected other pixels ({name})"
    result = {}
    print(f"pixsel select on the PNG folder, fresh processes (median [min-max] of {repeat}; CPU = user + system):")
    for name in figures:
        goal, label = (GOAL_K20, "-k 20") if name == "k20" else (GOAL_AUTO, "--k auto")
        for tree in trees:
            w, c = _stats(runs[tree, name]["wall"]), _stats(runs[tree, name]["cpu"])
            result.setdefault(tree, {})[name] = {**w, "cpu": c, **({"k": int(reports[tree, name]["k"])}
                                                                   if name == "auto" else {})}
            extra = f", k = {reports[tree, name]['k']} (goal <= {GOAL_K})" if name == "auto" else ""
            who = "" if len(trees) == 1 else f" [{tree}]"
            print(f"  {label:9s}{who:11s} {w['median']:6.2f} s [{w['min']:.2f}-{w['max']:.2f}], CPU {c['median']:5.2f} s "
                  f"[{c['min']:.2f}-{c['max']:.2f}] (goal <= {goal:g} s){extra}")
        for tree in trees:
            if tree == "this":
                continue
            ratio = {m: np.median(runs[tree, name][m]) / np.median(runs["this", name][m]) for m in ("wall", "cpu")}
            key = "ratio_baseline_to_this" if tree == "baseline" else "ratio_other_env_to_this"
            result.setdefault(key, {})[name] = ratio
            print(f"  {label:9s} {tree} / this: wall {ratio['wall']:.2f}x, CPU {ratio['cpu']:.2f}x")
    return result


if __name__ == "__main__":
    main()
