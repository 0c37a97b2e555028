"""Certified sensor placement: the column-subset optimum of every k <= 20 on 10x10 texture patches.

Goal: a certified optimal placement (or one within 0.1 % of the optimum) for every ``k <= 20``
of a 10x10 patch set, in at most 10 minutes in all.

Data: 10x10 patches cut at seeded random places from eight Brodatz textures (D1, D4, D5, D8,
D12, D17, D84, D92; 250 patches each), centred. The objective is the column-subset kept mass
``||P_S A||_F^2 / ||A||_F^2``: the fraction of the patches' variance that the ``k`` chosen
pixels explain by least squares (the placement criterion of ``PixelReconstructor``).

Rows, per ``k``:

* ``exact``: ``ColumnSubsetSelector(k, solver='exact', time_limit=t_k)``, the sizes in increasing
  order, each given ``--floor`` seconds (5) and half of what is left of the 10-minute budget
  beyond ``--floor`` seconds for it and each larger size (``--plan halves``, the default; ``--plan equal``: an equal share of what
  is left, ``t_k = left / (sizes left)``; either way a size certified early leaves its time to
  the larger ones): its status, kept mass, certified upper bound, certified relative gap, time
  limit and fit time;
* ``greedy``: ``ColumnSubsetSelector(k)`` (the default), ``pixsel qr``: ``method='qr'``;
* ``PySensors QR``: ``SSPOR(SVD(k), QR())`` on the centred patches (median of 3 seeds of its
  randomized SVD), scored by the same kept mass;
* ``PCA``: the kept mass of the ``k`` leading principal components, an upper bound on every
  placement (the one the exact search caps its bound with).

The exact search runs once (its objective is deterministic and the 10-minute budget is the
claim); the greedy and QR times are medians of 3 runs. ``--quick``: 6x6 patches, ``k <= 6``,
a 20-second budget. The load average is printed.

With ``--installed I,J,...`` (installed sensors), ``--exclude-border`` and ``--min-distance D``
the exact and greedy rows place under those constraints (``always_select``, ``never_select``,
``min_distance``; every placement contains the installed pixels, none of the border, and no two
pixels closer than ``D``), from ``k`` = installed + 1; the two QR rows, which take no
constraints, are left out, and the principal components' mass is then a looser bound.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from sklearn.exceptions import ConvergenceWarning

from pixsel import ColumnSubsetSelector
from pixsel.datasets import load_shared

TEXTURES = ("D1", "D4", "D5", "D8", "D12", "D17", "D84", "D92")
REPEAT = 3
GOAL_GAP = 1e-3


def patches(side, per, seed=0):
    """``per`` patches of ``side x side`` from each texture, flattened and centred (float64)."""
    d = load_shared("brodatz_112_640x640.npz")
    ids = [str(t) for t in d["texture_ids"]]
    rng = np.random.default_rng(seed)
    out = []
    for tid in TEXTURES:
        img = d["X"][ids.index(tid)].reshape(640, 640).astype(np.float64)
        r, c = rng.integers(0, 640 - side, (2, per))
        out.append(np.stack([img[a:a + side, b:b + side].ravel() for a, b in zip(r, c)]))
    X = np.vstack(out)
    return X - X.mean(axis=0)


def kept_mass(A, S):
    """``||P_S A||_F^2 / ||A||_F^2`` by a least-squares fit of every column on the columns ``S``."""
    S = np.asarray(S, dtype=np.intp)
    coef, *_ = np.linalg.lstsq(A[:, S], A, rcond=None)
    R = A - A[:, S] @ coef
    return 1.0 - float(np.sum(R * R)) / float(np.sum(A * A))


def median_time(fn):
    times, out = [], None
    for _ in range(REPEAT):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def pysensors_qr(A, k):
    """Kept mass of ``SSPOR(SVD(k), QR())``'s sensors (median over 3 seeds) and its median time."""
    import pysensors as ps

    vals, times = [], []
    for seed in range(REPEAT):
        model = ps.SSPOR(basis=ps.basis.SVD(n_basis_modes=k), optimizer=ps.optimizers.QR(), n_sensors=k)
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(A, quiet=True, seed=seed)
        times.append(time.perf_counter() - t)
        s = np.asarray(model.get_selected_sensors())
        assert s.size == k and np.unique(s).size == k, "PySensors did not place k sensors"
        vals.append(kept_mass(A, s))
    return float(np.median(vals)), float(np.median(times))


def plan_limit(left, n_after, plan, floor):
    """Seconds for the next size when ``left`` seconds remain and ``n_after`` larger sizes follow.

    ``'equal'``: ``left / (n_after + 1)``. ``'halves'``: ``floor`` seconds and half of what is
    left beyond ``floor`` for this size and each larger one (the last size all of it; an equal
    share when less than that is left): the enumeration that certifies a size
    grows several times from one size to the next while the bound of the larger sizes stays the
    principal components' (a gap of 6-18 %), so the smallest open size is the one time can
    certify; a larger size still gets at least ``floor`` seconds for its starting placements and
    their exchanges, and a size certified early leaves its time to the next."""
    if plan == "equal" or n_after == 0 or left <= floor * (n_after + 1):
        return left / (n_after + 1)
    return floor + (left - floor * (n_after + 1)) / 2


def main(argv=None):
    p = parser("bench_sensors_exact", __doc__.splitlines()[0])
    p.add_argument("--budget", type=float, default=None, help="seconds for all the exact fits (default 600)")
    p.add_argument("--max-k", type=int, default=None)
    p.add_argument("--plan", choices=("halves", "equal"), default="halves",
                   help="how the budget is shared between the sizes, taken in increasing order: 'halves' (the "
                        "default) gives each size --floor seconds and half of what is left beyond --floor seconds "
                        "for it and each larger size; 'equal' an equal share of what is left")
    p.add_argument("--floor", type=float, default=5.0, help="seconds kept for each larger size with --plan halves")
    p.add_argument("--installed", default=None, metavar="I,J,...",
                   help="installed sensors (flattened pixel indices): every placement contains them")
    p.add_argument("--exclude-border", action="store_true", help="no placement uses a pixel of the patch border")
    p.add_argument("--min-distance", type=float, default=None, metavar="D",
                   help="no two pixels of a placement closer than D (Euclidean, in pixels)")
    args = p.parse_args(argv)
    side, per = (6, 100) if args.quick else (10, 250)
    max_k = args.max_k or (6 if args.quick else 20)
    budget = args.budget or (20.0 if args.quick else 600.0)
    print(f"load average at start: {os.getloadavg()}")
    A = patches(side, per)
    n, p_ = A.shape
    installed = [int(v) for v in args.installed.split(",") if v.strip()] if args.installed else []
    rr, cc = np.divmod(np.arange(p_), side)
    border = np.flatnonzero((rr == 0) | (rr == side - 1) | (cc == 0) | (cc == side - 1)) if args.exclude_border else []
    cons = dict(always_select=installed or None, never_select=list(border) or None, min_distance=args.min_distance,
                image_shape=(side, side))
    constrained = bool(installed) or bool(len(border)) or args.min_distance is not None
    pca = np.cumsum(np.sort(np.linalg.eigvalsh(A.T @ A))[::-1]) / float(np.sum(A * A))
    print(f"\n{n} Brodatz patches of {side}x{side} ({len(TEXTURES)} textures), k = {len(installed) + 1}..{max_k}, "
          f"exact budget {budget:.0f} s in all" + (f"; installed {installed}, {len(border)} border pixels excluded, "
                                                   f"minimum distance {args.min_distance} (the QR rows, which take "
                                                   "no constraints, left out)" if constrained else ""))
    head = (f"{'k':>3} {'status':>11} {'exact':>8} {'bound':>8} {'gap %':>7} {'time s':>7} {'greedy':>8} "
            f"{'exact/greedy':>12} {'pixsel qr':>9} {'PySensors QR':>12} {'PCA':>8}")
    print(head)
    rows = []
    t_all = time.perf_counter()
    with blas_threads(args):
        for k in range(len(installed) + 1, max_k + 1):
            left = max(budget - (time.perf_counter() - t_all), 0.0)
            limit = plan_limit(left, max_k - k, args.plan, args.floor)
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # a stopped search is reported below
                ex = ColumnSubsetSelector(k, solver="exact", time_limit=limit, **cons).fit(A)
            t_exact = time.perf_counter() - t
            assert ex.get_support().sum() == k
            assert set(installed) <= set(ex.order_.tolist()) and not set(border) & set(ex.order_.tolist())
            if args.min_distance:  # every two pixels of the certified placement far enough apart
                rc = np.array(np.divmod(ex.order_, side)).T
                d = np.sqrt(((rc[:, None] - rc[None]) ** 2).sum(-1)) + np.eye(len(rc)) * side
                assert d.min() >= args.min_distance * (1 - 1e-12)
            obj = kept_mass(A, ex.get_support(indices=True))
            assert abs(obj - ex.objective_path_[-1]) < 1e-8, "the selector's kept mass is not its support's"
            assert ex.upper_bound_ <= pca[k - 1] * (1 + 1e-8), "the certified bound is above the PCA bound"
            t_g, g = median_time(lambda: ColumnSubsetSelector(k, **cons).fit(A))
            if constrained:  # neither QR takes the constraints: no row to compare
                q_mass, t_q, ps_qr, t_ps = (float("nan"),) * 4
            else:
                t_q, q = median_time(lambda: ColumnSubsetSelector(k, method="qr").fit(A))
                q_mass = kept_mass(A, q.get_support(indices=True))
                ps_qr, t_ps = pysensors_qr(A, k)
            row = dict(k=k, status=ex.status_, exact=obj, bound=ex.upper_bound_, gap=ex.gap_, time=t_exact,
                       time_limit=limit, nodes=ex.n_nodes_, greedy=kept_mass(A, g.get_support(indices=True)),
                       greedy_time=t_g, pixsel_qr=q_mass, pixsel_qr_time=t_q,
                       pysensors_qr=ps_qr, pysensors_qr_time=t_ps, pca=float(pca[k - 1]), load=os.getloadavg()[0])
            rows.append(row)
            qr_cells = ("-", "-") if constrained else (f"{row['pixsel_qr']:.5f}", f"{ps_qr:.5f}")
            print(f"{k:>3} {row['status']:>11} {obj:8.5f} {row['bound']:8.5f} {100 * row['gap']:7.3f} "
                  f"{t_exact:7.1f} {row['greedy']:8.5f} {obj / row['greedy']:12.5f} {qr_cells[0]:>9} "
                  f"{qr_cells[1]:>12} {row['pca']:8.5f}   (load {row['load']:.2f})", flush=True)
    total = time.perf_counter() - t_all
    within = [r for r in rows if r["gap"] <= GOAL_GAP]
    worst = max(rows, key=lambda r: r["gap"])
    met = len(within) == len(rows) and total <= budget * 1.05
    print(f"\nexact fits: {total:.0f} s in all; certified optimal: {sum(r['status'] == 'optimal' for r in rows)} of "
          f"{len(rows)} sizes; within {100 * GOAL_GAP:.1f} %: {len(within)} of {len(rows)}; largest gap "
          f"{100 * worst['gap']:.2f} % at k = {worst['k']}")
    print(f"goal (every k <= {max_k} certified within {100 * GOAL_GAP:.1f} % in {budget:.0f} s"
          f"{', under the constraints' if constrained else ''}): "
          f"{'met' if met else 'not met'}")
    print(f"load average at end: {os.getloadavg()}")
    path = write_results(args, {"side": side, "n_patches": n, "budget_s": budget, "total_s": total, "rows": rows,
                                "goal_met": met, "installed": installed, "excluded": [int(b) for b in border],
                                "min_distance": args.min_distance,
                                "load_end": os.getloadavg()})
    fig = plot(rows, side, out_dir(args) / "bench_sensors_exact.png",
               note=f"; {len(installed)} installed, {len(border)} excluded, min. distance {args.min_distance}"
               if constrained else "")
    print(f"wrote {path} and {fig}")
    return rows


def plot(rows, side, path, note=""):
    """Kept mass against k (left) and the certified gap (right); ``note`` ends the title."""
    from matplotlib.figure import Figure

    k = [r["k"] for r in rows]
    fig = Figure(figsize=(10, 3.8))
    ax, bx = fig.subplots(1, 2)
    ax.plot(k, [r["pca"] for r in rows], ":", color="#7f7f7f", label="PCA (upper bound)")
    ax.plot(k, [r["bound"] for r in rows], "--", color="#1f5fa8", label="certified bound")
    ax.plot(k, [r["exact"] for r in rows], "-o", color="#1f5fa8", ms=3, lw=1.8, label="exact search (best found)")
    ax.plot(k, [r["greedy"] for r in rows], "-", color="#2ca02c", lw=1.1, label="greedy (default)")
    if all(isinstance(r["pysensors_qr"], float) and np.isfinite(r["pysensors_qr"]) for r in rows):  # (none constrained)
        ax.plot(k, [r["pysensors_qr"] for r in rows], "--", color="#d62728", lw=1.1, label="PySensors QR")
    ax.set_xlabel("k (pixels)")
    ax.set_ylabel("kept mass (fraction of the variance)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    bx.semilogy(k, [max(100 * r["gap"], 1e-4) for r in rows], "-o", color="#1f5fa8", ms=3)
    bx.axhline(100 * GOAL_GAP, color="#d62728", lw=1, ls="--", label="0.1 % goal")
    bx.set_xlabel("k (pixels)")
    bx.set_ylabel("certified gap (%; 1e-4 = optimal)")
    bx.grid(alpha=0.3)
    bx.legend(fontsize=7)
    fig.suptitle(f"Column-subset placement on {side}x{side} Brodatz patches{note}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


if __name__ == "__main__":
    main()
