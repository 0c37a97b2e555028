"""The backward pass of multiclass LDA in the n-dimensional form against the current kernel.

Claim: with fewer images than pixels, ``B = lam I + U U^T`` (``U`` the ``n`` class-centred images)
lets the backward pass keep an ``n x n`` inverse instead of the ``p x p`` one
(:func:`pixsel.spectral.lowrank_backward_path`), in less time and memory, with the same order.

Data: Extended Yale B at 32x32 (1024 pixels), 5 images per person (190 images, 38 people),
statistics with the default ``'rda'`` ridge (``lam = trace(S_w) / p``), both criteria (the trace
and the largest eigenvalue). Side by side in one run, 3 repetitions each, alternating (median and
spread): the current backward pass
(``greedy_path(M, B, direction='backward')`` on the formed ``B``, as the dense estimator calls
it) and the n-form (``lowrank_backward_path(M, U, lam)``); the order of removal
is checked equal. Then the estimator: ``SparseLDASelector(10, direction='backward').fit`` on the
same images, which takes the n-form by itself, against the same fit with the dense backward pass
(``pixsel.config.lowrank_backward(False)``), 3 runs each, alternating, the supports checked equal.
``--quick``: 10 people (50 images) at 16x16 (2 x 2 means, 256 pixels).
"""

from __future__ import annotations

import os
import statistics
import time

import numpy as np
from _common import blas_threads, parser, write_results

from pixsel import SparseLDASelector
from pixsel.config import lowrank_backward
from pixsel.datasets import load_shared
from pixsel.spectral import greedy_path, lowrank_backward_path
from pixsel.stats import class_statistics


def _problem(people, per_person=5, seed=0, side=32):
    d = load_shared("extyaleb_32x32.npz")
    X, y = d["X"].astype(np.float64), d["y"]
    if side != 32:  # block means
        f = 32 // side
        X = X.reshape(len(X), side, f, side, f).mean(axis=(2, 4)).reshape(len(X), -1)
    rng = np.random.default_rng(seed)
    take = np.concatenate([rng.permutation(np.flatnonzero(y == c))[:per_person] for c in np.unique(y)[:people]])
    X, y = X[take], y[take]
    st = class_statistics(X, y)
    U = (X - st.means[np.searchsorted(st.classes, y)]).T / np.sqrt(len(X))
    lam = float(np.trace(st.within)) / X.shape[1]
    B = st.within.copy()
    B[np.diag_indices_from(B)] += lam
    return st.between_factor, U, lam, B, X, y


def _times(fn, repeat):
    out, runs = None, []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        runs.append(time.perf_counter() - t)
    return runs, out


def _compare(M, U, lam, B, criterion, repeat):
    """Both passes ``repeat`` times each, alternating; the same order asserted."""
    rows = {"dense": [], "nform": []}
    fns = {"dense": lambda: greedy_path(M, B, direction="backward", criterion=criterion),
           "nform": lambda: lowrank_backward_path(M, U, lam, criterion=criterion)}
    orders = {}
    for _ in range(repeat):
        for name, fn in fns.items():
            runs, path = _times(fn, 1)
            rows[name] += runs
            orders[name] = path.order
    same = bool(np.array_equal(orders["dense"], orders["nform"]))
    assert same, f"the n-form removed the pixels in another order than the current kernel ({criterion})"
    out = {name: {"runs": runs, "median": statistics.median(runs), "min": min(runs), "max": max(runs)}
           for name, runs in rows.items()}
    out["same_order"] = same
    out["speedup_median"] = out["dense"]["median"] / out["nform"]["median"]
    return out


def _compare_fit(X, y, repeat, k=10):
    """``SparseLDASelector(k, direction='backward').fit`` with the dense and the n-form backward pass."""
    rows = {"dense": [], "nform": []}
    supports, forms = {}, {}
    for _ in range(repeat):
        for name in rows:
            with lowrank_backward(name == "nform"):
                t = time.perf_counter()
                sel = SparseLDASelector(k, direction="backward").fit(X, y)
                rows[name].append(time.perf_counter() - t)
            supports[name], forms[name] = sel.support_, sel.backward_path_.info.get("B")
    assert forms["nform"] == "lowrank" and forms["dense"] != "lowrank", forms
    assert int(supports["nform"].sum()) == k == int(supports["dense"].sum())
    same = bool(np.array_equal(supports["dense"], supports["nform"]))
    assert same, "the fit with the n-form selected another support than with the dense backward pass"
    out = {name: {"runs": runs, "median": statistics.median(runs), "min": min(runs), "max": max(runs)}
           for name, runs in rows.items()}
    out["same_support"] = same
    out["speedup_median"] = out["dense"]["median"] / out["nform"]["median"]
    return out


def main():
    args = parser("lowrank_backward", __doc__.splitlines()[0]).parse_args()
    people = 10 if args.quick else 38
    repeat = 3
    M, U, lam, B, X, y = _problem(people, side=16 if args.quick else 32)
    p, n = U.shape
    load = os.getloadavg()
    results = {}
    with blas_threads(args):
        for criterion in ("trace", "max-eig"):  # one untimed run each: the compiled kernels loaded (or compiled)
            greedy_path(M, B, direction="backward", criterion=criterion)
            lowrank_backward_path(M, U, lam, criterion=criterion)
        for criterion in ("trace", "max-eig"):
            results[criterion] = _compare(M, U, lam, B, criterion, repeat)
        _compare_fit(X, y, 1)  # untimed: the estimator's first fit
        results["fit"] = _compare_fit(X, y, repeat)
    load_after = os.getloadavg()
    side = int(round(np.sqrt(p)))
    print(f"Extended Yale B {side}x{side}, {people} people x 5 images: p = {p} pixels, n = {n} images, "
          f"r = {M.shape[1]}, 'rda' ridge {lam:.4g}; BLAS threads {args.threads}; {repeat} runs each, alternating")
    for criterion, res in results.items():
        if criterion == "fit":
            continue
        print(f"  criterion {criterion!r}:")
        for name, label in (("dense", "current backward pass (p x p inverse)"), ("nform", "n-form (n x n inverse)")):
            r = res[name]
            print(f"    {label:40s} median {r['median']:.3f} s  (min {r['min']:.3f}, max {r['max']:.3f})")
        print(f"    speed-up of the median: {res['speedup_median']:.2f}x; same order of removal: {res['same_order']}")
    res = results["fit"]
    print("  SparseLDASelector(10, direction='backward').fit (default criterion and 'rda'):")
    for name, label in (("dense", "dense backward pass"), ("nform", "n-form backward pass (default)")):
        r = res[name]
        print(f"    {label:40s} median {r['median']:.3f} s  (min {r['min']:.3f}, max {r['max']:.3f})")
    print(f"    speed-up of the median: {res['speedup_median']:.2f}x; same support: {res['same_support']}")
    print(f"  load average before {load[0]:.2f}, after {load_after[0]:.2f}")
    write_results(args, {"p": p, "n": n, "r": int(M.shape[1]), "lam": lam, "repeat": repeat,
                         "load_before": load[0], "load_after": load_after[0], **results})


if __name__ == "__main__":
    main()
