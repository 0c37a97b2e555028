"""Many classes at interactive speed: greedy sparse LDA on faces, digits and textures.

Goals (each measured against a reference in the same run, one BLAS thread):

* ``SparseLDASelector(50).fit`` at its defaults (``criterion='auto'``: the correlation criterion
  with more than two classes; ``direction='auto'``: the forward pass, then swaps at k)
  costs at most 3 x one ``LinearDiscriminantAnalysis(solver='eigen').fit`` on all pixels (one
  ``p x p`` generalized eigenproblem: the physical reference of multiclass LDA); so do, by
  name, ``criterion='max-eig'`` (forward) and the papers' settings (``criterion='max-eig'``,
  ``direction='dual'``: the defaults when the goal was set, and the costliest); the whole path
  (``path='full'``, every k of both passes, ``'max-eig'``) at most 10 x;
* ``PathSelectorCV(SparseLDASelector())`` no slower than ``RFECV(LinearDiscriminantAnalysis(),
  step=0.1, cv=5)`` on the same folds, test accuracy no worse; on two classes (USPS 3 vs 5) at
  least 100 x faster than ``RFECV(step=1)``; "before" is its previous scoring in the same run
  (:func:`_common.previous_path_cv`: every support scored on its own, the former grid of every k
  up to 256 then 64 log-spaced values);
* ``pixsel select`` on a folder of 64 x 64 images of 40 classes in at most 10 s, with progress
  lines;
* ``--rows fastcan``: ``SparseLDASelector(k).fit`` at its defaults at most 2 x FastCan's greedy
  fit (scikit-learn-contrib's ``FastCan(k)`` on the one-hot labels: the sum of squared canonical
  correlations, the same trace criterion) on the splits of the quality benchmark
  (``bench_quality.py``: its every set and k, ``--fastcan-data`` to choose sets), beside the
  default on the dense form (``algorithm='dense'``) in the same run; one warm-up fit of each,
  then the median and spread of at least ``--repeat`` fits of each (more, up to 200, until a
  second has gone by), taken in turns (one fit of each library per round), every library on
  ``--threads`` threads (BLAS and OpenMP); ``--beam W`` adds beams of width ``W``:
  ``SparseLDASelector(k, beam_width=W)`` (through ``X``, the algorithm ``'auto'`` takes), the same
  on the dense form and ``FastCan(k, beam_width=W)``, taking turns with the others.

Data: Extended Yale B (38 people, 32 x 32), CMU PIE (68 people, 32 x 32), USPS (10 digits,
16 x 16, the 7291 training images) and 50 Brodatz textures cut into 64 x 64 patches (100 per
texture, p = 4096). Times are the median of ``--repeat`` runs with their spread (min-max); the
load average is printed.

    python benchmarks/bench_multiclass.py            # all rows
    python benchmarks/bench_multiclass.py --quick    # small subsets, seconds
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import blas_threads, out_dir, parser, previous_path_cv, write_results

from pixsel import PathSelectorCV, SparseLDASelector
from pixsel.config import compiled_kernels
from pixsel.datasets import load_shared

K = 50


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


def timed(fn, repeat):
    """(median, min, max) of ``repeat`` wall times, and the last result."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return {"median": float(np.median(times)), "min": float(min(times)), "max": float(max(times)),
            "runs": len(times)}, out


def fmt(t):
    return f"{t['median']:.3g} s [{t['min']:.3g}-{t['max']:.3g}]"


def brodatz_patches(n_textures, per, size=64):
    d = load_shared("brodatz_112_640x640.npz")
    img = d["X"][:n_textures].reshape(n_textures, 640, 640)
    g = 640 // size
    P = img[:, : g * size, : g * size].reshape(n_textures, g, size, g, size).transpose(0, 1, 3, 2, 4)
    P = P.reshape(n_textures, g * g, size * size)[:, :per]
    return P.reshape(-1, size * size), np.repeat(np.arange(n_textures), per)


def datasets(quick, names):
    yb = load_shared("extyaleb_32x32.npz")
    pie = load_shared("cmupie_32x32.npz")
    usps = load_shared("usps_full_16x16.npz")
    out = {
        "Extended Yale B (38 people, 32x32)": (yb["X"], yb["y"]),
        "CMU PIE (68 people, 32x32)": (pie["X"], pie["y"]),
        "USPS (10 digits, 16x16)": (usps["X_train"], usps["y_train"]),
    }
    if quick:
        out = {name: (X[::4, ::4], y[::4]) for name, (X, y) in out.items()}
        out["Brodatz textures (10, 16x16 patches)"] = brodatz_patches(10, 100, size=16)
    elif "brodatz" in names:
        out["Brodatz textures (50, 64x64 patches)"] = brodatz_patches(50, 100)
    return {name: v for name, v in out.items() if quick or name.split()[0].lower() in names}


def selector_rows(args, data):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    rows = []
    k = 10 if args.quick else K
    for name, (X, y) in data.items():
        Xf = X.astype(np.float64)
        n, p = X.shape
        row = {"data": name, "n": int(n), "p": int(p), "classes": int(len(np.unique(y))), "k": k}
        row["lda_eigen"], _ = timed(lambda: LinearDiscriminantAnalysis(solver="eigen").fit(Xf, y), args.repeat)
        ref = row["lda_eigen"]["median"]
        row["default"], sel = timed(lambda: SparseLDASelector(k).fit(X, y), args.repeat)
        assert sel.get_support().sum() == k
        row["algorithm"], row["direction"], row["criterion"] = sel.algorithm_, sel.direction_, sel.criterion_
        row["beam_width"] = sel.beam_width_
        row["max_eig"], sel_m = timed(lambda: SparseLDASelector(k, criterion="max-eig", direction="forward").fit(X, y),
                                      args.repeat)
        assert sel_m.get_support().sum() == k
        papers = {"criterion": "max-eig", "direction": "dual"}
        row["papers"], sel_p = timed(lambda: SparseLDASelector(k, **papers).fit(X, y), args.repeat)
        assert sel_p.get_support().sum() == k
        row["full_path"], full = timed(lambda: SparseLDASelector(k, path="full", **papers).fit(X, y), args.repeat)
        assert len(full.objective_path_) == p
        row["same_support_papers_vs_full"] = bool(np.array_equal(full.get_support(), sel_p.get_support()))
        for key in ("default", "max_eig", "papers", "full_path"):
            row[f"ratio_{key}"] = row[key]["median"] / ref
        line = (f"{name}: n={n} p={p} C={row['classes']} k={k}: LDA(eigen) {fmt(row['lda_eigen'])}; "
                f"SparseLDASelector defaults ({sel.criterion_}, {sel.algorithm_}, {sel.direction_}, beam {sel.beam_width_}) "
                f"{fmt(row['default'])} = "
                f"{row['ratio_default']:.2f} x LDA (goal <= 3); max-eig ({sel_m.direction_}) "
                f"{fmt(row['max_eig'])} = {row['ratio_max_eig']:.2f} x; papers' settings (max-eig, dual) "
                f"{fmt(row['papers'])} = {row['ratio_papers']:.2f} x; whole path (max-eig, dual) "
                f"{fmt(row['full_path'])} = {row['ratio_full_path']:.2f} x (goal <= 10)")
        print(line, flush=True)
        rows.append(row)
    return rows


#: the quality benchmark's sets (``bench_quality.py``), with the labels printed
FASTCAN_SETS = {"yaleb5": "Extended Yale B, 5 per person", "pie5": "CMU PIE, 5 per person",
                "usps10": "USPS 10 digits, half / half", "digits": "digits 8x8, half / half",
                "yaleb": "Extended Yale B, 15 per person", "pie": "CMU PIE, 10 per person",
                "brodatz": "Brodatz 16x16 patches, 8 textures", "usps35": "USPS 3 vs 5",
                "sonar": "Sonar", "ionosphere": "Ionosphere", "colon": "colon (Alon et al.)"}


def fastcan_rows(args):
    """Default fit time / FastCan greedy fit time on the quality benchmark's splits (seed 0), every
    set and k of that benchmark; beside it the default's fit on the dense form (``algorithm='dense'``:
    what the default ran before it took the implicit form for a forward pass alone)."""
    from bench_quality import KS, load_dataset, split
    from fastcan import FastCan
    from threadpoolctl import threadpool_limits

    rows = []
    keys = args.fastcan_data.split(",") if args.fastcan_data else list(FASTCAN_SETS)
    for key in keys:
        label = FASTCAN_SETS[key]
        X, y, spec, _ = load_dataset(key, args.quick)
        X = np.asarray(X, dtype=np.float64)
        tr, _ = split(X, y, spec, 0)
        Xtr, ytr = X[tr], y[tr]
        if args.quick:
            Xtr, ytr = Xtr[:, ::4], ytr
        live = np.flatnonzero(np.ptp(Xtr, axis=0) > 0)  # FastCan's scaling divides by a constant pixel's 0
        Y = (ytr[:, None] == np.unique(ytr)[None, :]).astype(np.float64)
        ks = [k for k in ((5, 10) if args.quick else KS) if k < len(live)]
        for k in ks:
            fits = {
                "default": lambda: SparseLDASelector(k).fit(Xtr, ytr),
                "dense form": lambda: SparseLDASelector(k, algorithm="dense").fit(Xtr, ytr),
                "FastCan": lambda: FastCan(k, verbose=0).fit(Xtr[:, live], Y),
            }
            w = args.beam
            if w > 1:  # the beams: pixsel's through X (the default algorithm) and on the dense form, FastCan's
                fits.update({
                    "beam": lambda: SparseLDASelector(k, beam_width=w).fit(Xtr, ytr),
                    "beam dense form": lambda: SparseLDASelector(k, beam_width=w, algorithm="dense").fit(Xtr, ytr),
                    "FastCan beam": lambda: FastCan(k, beam_width=w, verbose=0).fit(Xtr[:, live], Y),
                })
            row = {"data": label, "n_train": int(len(ytr)), "p": int(Xtr.shape[1]), "n_classes": int(Y.shape[1]),
                   "k": k}
            # every library on the same threads: FastCan's loops are OpenMP, which the BLAS pin
            # leaves alone (on a busy 2-core machine its default threads cost it 4 x); the fits
            # take turns (one of each per round), so a burst of load falls on all of them alike
            with threadpool_limits(limits=args.threads or None):
                if "FastCan beam" in fits:
                    try:  # FastCan's beam refuses a k that leaves fewer than beam_width candidates
                        fits["FastCan beam"]()
                    except ValueError as exc:
                        print(f"    {label} k={k}: FastCan beam_width={w} refused: {str(exc)[:120]}", flush=True)
                        del fits["FastCan beam"]
                times = {name: [] for name in fits}
                for name, fit in fits.items():
                    sel = fit()  # warm-up
                    assert int(np.sum(sel.get_support())) == k  # the fit did the work asked
                    if name == "default":
                        row["algorithm"], row["default beam_width"] = sel.algorithm_, sel.beam_width_
                    elif name == "beam":
                        row["beam algorithm"] = sel.algorithm_
                # at least --repeat rounds, and more (up to 200) until a second has gone by: the
                # millisecond fits get enough rounds for a median that a burst of load cannot move
                start, rounds = time.perf_counter(), 0
                while rounds < args.repeat or (rounds < 200 and time.perf_counter() - start < 1.0):
                    for name, fit in fits.items():
                        t = time.perf_counter()
                        fit()
                        times[name].append(time.perf_counter() - t)
                    rounds += 1
            for name, ts in times.items():
                row[name] = {"median": float(np.median(ts)), "min": float(min(ts)), "max": float(max(ts)),
                             "runs": len(ts)}
            row["load_average"] = load_average()
            ref = row["FastCan"]["median"]
            row["ratio"] = row["default"]["median"] / ref
            print(f"{label} (n={len(ytr)}, p={Xtr.shape[1]}, {Y.shape[1]} classes) k={k}: default "
                  f"({row['algorithm']}, beam {row['default beam_width']}) {fmt(row['default'])} = {row['ratio']:.2f} x FastCan {fmt(row['FastCan'])} "
                  f"(goal <= 2); dense form {fmt(row['dense form'])} = {row['dense form']['median'] / ref:.2f} x; "
                  f"load {row['load_average']}", flush=True)
            if w > 1:
                row["beam_width"] = w
                beam = row["beam"]["median"]
                peer = (f"{beam / row['FastCan beam']['median']:.2f} x FastCan's beam {fmt(row['FastCan beam'])}"
                        if "FastCan beam" in row else "FastCan's beam refused this k")
                print(f"    beam_width={w}: pixsel {fmt(row['beam'])} = {beam / ref:.2f} x FastCan's greedy, {peer}; "
                      f"dense form {fmt(row['beam dense form'])} = {row['beam dense form']['median'] / beam:.2f} x "
                      "pixsel's beam", flush=True)
            rows.append(row)
    met = [r for r in rows if r["ratio"] <= 2]
    print(f"default <= 2 x FastCan's greedy fit: {len(met)} of {len(rows)} (set, k); the others: "
          + ", ".join(f"{r['data']} k={r['k']} {r['ratio']:.2f} x" for r in rows if r["ratio"] > 2), flush=True)
    return rows


def cv_rows(args):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.feature_selection import RFECV
    from sklearn.model_selection import StratifiedKFold

    rows = []
    yb = load_shared("extyaleb_32x32.npz")
    X, y = yb["X"].astype(np.float64), yb["y"]
    rng = np.random.default_rng(0)
    per = 4 if args.quick else 10
    train = np.concatenate([rng.choice(np.flatnonzero(y == c), per, replace=False) for c in np.unique(y)])
    test = np.setdiff1d(np.arange(len(y)), train)
    if args.quick:
        X = X.reshape(-1, 32, 32)[:, ::2, ::2].reshape(len(X), -1)
    u = load_shared("usps_3v5_split.npz")
    px = slice(None, None, 4 if args.quick else 1)
    cases = [
        (f"Extended Yale B, {per} images per person for training", X[train], y[train], X[test], y[test], 0.1),
        ("USPS 3 vs 5 (two classes)", u["X_train"][:, px].astype(np.float64), u["y_train"],
         u["X_test"][:, px].astype(np.float64), u["y_test"], 1),
    ]
    for name, Xtr, ytr, Xte, yte, step in cases:
        folds = list(StratifiedKFold(3 if args.quick else 5, shuffle=True, random_state=0).split(Xtr, ytr))
        row = {"data": name, "n_train": len(ytr), "p": Xtr.shape[1], "classes": int(len(np.unique(ytr))),
               "rfecv_step": step}
        row["pathselectorcv"], cvs = timed(lambda: PathSelectorCV(SparseLDASelector(), cv=folds).fit(Xtr, ytr),
                                           args.repeat)
        row["grid_size"] = len(cvs.cv_results_["n_features"])
        if args.cv_before_repeat:
            previous = previous_path_cv(Xtr.shape[1])
            row["pathselectorcv_before"], old = timed(
                lambda: PathSelectorCV(SparseLDASelector(), cv=folds, **previous).fit(Xtr, ytr), args.cv_before_repeat)
            row["grid_size_before"] = len(old.cv_results_["n_features"])
            row["k_before"] = int(old.n_features_to_select_)
            row["acc_before"] = float(np.mean(old.estimator_.predict(old.transform(Xte)) == yte))
        rfe_repeat = 1 if step == 1 else args.repeat
        row["rfecv"], rfe = timed(lambda: RFECV(LinearDiscriminantAnalysis(), step=step, cv=folds).fit(Xtr, ytr),
                                  rfe_repeat)
        row["k_pathselectorcv"], row["k_rfecv"] = int(cvs.n_features_to_select_), int(rfe.n_features_)
        row["acc_pathselectorcv"] = float(np.mean(cvs.estimator_.predict(cvs.transform(Xte)) == yte))
        row["acc_rfecv"] = float(np.mean(rfe.predict(Xte) == yte))
        row["speedup"] = row["rfecv"]["median"] / row["pathselectorcv"]["median"]
        goal = ">= 100 x" if step == 1 else ">= 1 x"
        line = (f"{name}: PathSelectorCV(SparseLDASelector()) {fmt(row['pathselectorcv'])} ({row['grid_size']} "
                f"k scored, chose k = {row['k_pathselectorcv']}, test accuracy {row['acc_pathselectorcv']:.3f}); "
                f"RFECV(LDA, step={step}) {fmt(row['rfecv'])} (k = {row['k_rfecv']}, test accuracy "
                f"{row['acc_rfecv']:.3f}); {row['speedup']:.1f} x faster (goal {goal})")
        if "pathselectorcv_before" in row:
            b = row["pathselectorcv_before"]
            line += (f"; before (previous scoring, {row['grid_size_before']} k) {fmt(b)} = "
                     f"{b['median'] / row['pathselectorcv']['median']:.1f} x slower (k = {row['k_before']}, "
                     f"test accuracy {row['acc_before']:.3f})")
        print(line, flush=True)
        rows.append(row)
    return rows


def cli_row(args, before="df1fe50"):
    """``pixsel select FOLDER -k 20 --progress`` in a fresh process, as a user runs it: the time
    from start to exit and the progress lines it printed (when each came), beside the command of
    commit ``before`` (its ``src`` read with ``git archive`` into a temporary folder; skipped
    outside a git checkout), runs interleaved so that both see the same load."""
    import json
    import threading

    from PIL import Image

    n_tex, per = (10, 5) if args.quick else (40, 10)
    X, y = brodatz_patches(n_tex, per)
    row = {"data": f"{n_tex} Brodatz textures, {per} images of 64x64 each", "n": len(y), "p": X.shape[1]}

    def run(src, out):
        """(seconds, stderr lines with the second each arrived)"""
        env = dict(os.environ, PIXSEL_PROGRESS_INTERVAL="1", MPLBACKEND="Agg")
        if src is not None:
            env["PYTHONPATH"] = str(src)
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "pixsel", "select", str(folder), "-k", "20", "--progress",
                                 "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env)
        stdout = []
        reader = threading.Thread(target=lambda: stdout.append(proc.stdout.read()), daemon=True)
        reader.start()
        lines = [(time.perf_counter() - t, ln.rstrip("\n")) for ln in proc.stderr if ln.strip()]
        proc.wait(timeout=1200)
        reader.join()
        seconds = time.perf_counter() - t
        assert proc.returncode == 0, "\n".join(ln for _, ln in lines[-20:])
        report = json.loads((out / "selection.json").read_text())
        assert len(report["indices"]) == 20, report["indices"]
        return seconds, lines, report["indices"]

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "images"
        for i, (x, c) in enumerate(zip(X, y)):
            (folder / f"texture{c:02d}").mkdir(parents=True, exist_ok=True)
            Image.fromarray(x.reshape(64, 64)).save(folder / f"texture{c:02d}" / f"{i:04d}.png")
        versions = {"now": None}
        repo = Path(__file__).resolve().parents[1]
        try:
            if not args.before_repeat:
                raise RuntimeError("--before-repeat 0")
            archive = subprocess.run(["git", "-C", str(repo), "archive", before, "src"], capture_output=True,
                                     check=True, timeout=120).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True, timeout=120)
            versions = {f"before ({before})": Path(tmp) / "src", "now": None}
        except (OSError, RuntimeError, subprocess.SubprocessError) as exc:
            print(f"pixsel select: no 'before' ({before}) measured: {exc}", flush=True)
        for name, src in versions.items() if not args.quick else ():  # untimed: each tree's Numba cache, the page cache
            run(src, Path(tmp) / f"warm-{len(name)}")
        runs = {name: [] for name in versions}
        for i in range(args.repeat):
            for j, (name, src) in enumerate(versions.items()):
                runs[name].append(run(src, Path(tmp) / f"out{i}-{j}"))
    row["load_average"] = load_average()
    row["versions"] = {}
    row["same_support"] = len({tuple(r[2]) for rs in runs.values() for r in rs}) == 1
    for name, rs in runs.items():
        times = [r[0] for r in rs]
        lines = rs[-1][1]
        gaps = np.diff([0.0] + [t for t, _ in lines] + [rs[-1][0]])
        v = {"select": {"median": float(np.median(times)), "min": min(times), "max": max(times), "runs": len(times)},
             "progress_lines": len(lines), "first_line_s": lines[0][0] if lines else None,
             "longest_silence_s": float(gaps.max()),
             "progress_sample": [[round(t, 3), ln] for t, ln in lines]}
        row["versions"][name] = v
        first = f", the first after {v['first_line_s']:.2f} s" if lines else ""
        print(f"pixsel select on a folder of {row['n']} images of 64x64 ({n_tex} classes), -k 20 --progress, "
              f"{name}: {fmt(v['select'])} (goal <= 10 s), {len(lines)} progress lines{first}, longest silence "
              f"{v['longest_silence_s']:.2f} s", flush=True)
    row["select"] = row["versions"]["now"]["select"]
    row["progress_lines"] = row["versions"]["now"]["progress_lines"]
    print(f"pixsel select: same 20 pixels in every run of every version: {row['same_support']}; load average "
          f"{row['load_average']}", flush=True)
    seconds, lines, _ = runs["now"][-1]
    for t, ln in lines:  # the last run's lines, with the second each arrived
        print(f"    [{t:5.2f} s] {ln}")
    print(f"    [{seconds:5.2f} s] (exit)", flush=True)
    return row


def figure(res, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = res["selector"]
    names = [r["data"].split(" (")[0] for r in rows]
    x = np.arange(len(rows))
    fig, ax = plt.subplots(figsize=(8, 4))
    bars = [("ratio_default", "defaults"), ("ratio_max_eig", "max-eig, forward"),
            ("ratio_papers", "papers' settings (max-eig, dual)"), ("ratio_full_path", "whole path (max-eig, dual)")]
    width = 0.2
    for j, (key, label) in enumerate(bars):
        ax.bar(x + (j - 1.5) * width, [r[key] for r in rows], width, label=label, color=f"C{j}")
    ax.axhline(3, color="0.3", ls="--", lw=1)
    ax.axhline(10, color="0.3", ls=":", lw=1)
    ax.set_xticks(x, names)
    ax.set_ylabel("time / LDA(solver='eigen').fit")
    ax.set_title(f"SparseLDASelector({rows[0]['k']}) on many classes (goals: 3 x dashed, whole path 10 x dotted)",
                 fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = parser("multiclass", __doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per figure (median and spread)")
    ap.add_argument("--before-repeat", type=int, default=1,
                    help="0 skips the command line row's 'before' version")
    ap.add_argument("--cv-before-repeat", type=int, default=1,
                    help="runs of PathSelectorCV's previous scoring (0 skips it)")
    ap.add_argument("--rows", default="selector,cv,cli", help="which rows: selector, cv, cli, fastcan")
    ap.add_argument("--beam", type=int, default=1,
                    help="--rows fastcan: also time beams of this width (pixsel's through X and on the dense "
                         "form, FastCan's); 1: none")
    ap.add_argument("--fastcan-data", default=None,
                    help=f"--rows fastcan: comma-separated sets among {','.join(FASTCAN_SETS)} (default: all)")
    ap.add_argument("--data", default="extended,cmu,usps,brodatz",
                    help="selector rows: extended (Yale B), cmu (PIE), usps, brodatz")
    args = ap.parse_args(argv)
    if args.quick:
        args.repeat = min(args.repeat, 2)
    which = set(args.rows.split(","))
    print(f"load average before: {load_average()}", flush=True)
    res = {"load_average_before": load_average(), "repeat": args.repeat}
    with blas_threads(args):
        # compile (or load from Numba's cache) the kernels once, outside the timings; forced, since
        # so small a problem takes the NumPy kernels otherwise. Then this process has loaded them,
        # and every fit below runs them, whatever its size (pixsel.config.compiled_kernels)
        Xw = np.random.default_rng(0).standard_normal((60, 30))
        with compiled_kernels(True):
            for criterion in ("trace", "max-eig"):
                for classes in (2, 4):
                    SparseLDASelector(3, criterion=criterion, direction="dual").fit(Xw, np.arange(60) % classes)
        if "selector" in which:
            res["selector"] = selector_rows(args, datasets(args.quick, args.data.split(",")))
        if "cv" in which:
            res["cv"] = cv_rows(args)
        if "fastcan" in which:
            res["fastcan"] = fastcan_rows(args)
    if "cli" in which:
        res["cli"] = cli_row(args)
    res["load_average_after"] = load_average()
    print(f"load average after: {res['load_average_after']}", flush=True)
    path = write_results(args, res)
    if "selector" in res:
        figure(res, out_dir(args) / "multiclass.png")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
