"""Why some kernels keep a NumPy twin beside their array-API implementation: each pair timed on NumPy input.

Where the array API suffices, pixsel writes a kernel once (NumPy 2 is itself an array-API
namespace). A kernel keeps a separate NumPy (or Numba) implementation beside its ``*_xp.py``
twin only where this benchmark measures the pair: the twin of :data:`TWINS` that runs on a
device, called with NumPy as its namespace, against the NumPy kernel (for the greedy paths the
public :func:`pixsel.spectral.greedy_path` on NumPy input below the compiled size, where it runs
the NumPy loops that the compiled kernels are tested against, or the array-API kernel itself where
that is the faster: a backward full-rank path of the largest eigenvalue), on the same NumPy input,
side by side in one run. Printed: the median of 3
runs and their range for each, the ratio ``array API / NumPy`` (above 1: the NumPy kernel is
faster), and that both gave the same answer (the same order and objectives for the paths, the
same columns for the Gram operator). ``benchmarks/bench_structure.py`` counts a ``*_xp.py``
module as justified when it is a key of :data:`TWINS` and its module docstring names this
benchmark.

Usage::

    python benchmarks/bench_xp_twins.py            # p = 64 and 128, N = 2000 x p = 4096 images
    python benchmarks/bench_xp_twins.py --quick    # p = 32, N = 200 x p = 512 (seconds)
"""

from __future__ import annotations

import os
import time

import numpy as np

from _common import blas_threads, parser, write_results

from pixsel.spectral import criterion_named, greedy_path
# the array-API twins timed here are private kernels (the NumPy side is the public door)
from pixsel.spectral.greedy._fullrank_xp import fullrank_path_xp
from pixsel.spectral.greedy._multiclass_xp import multiclass_path_xp
from pixsel.spectral.greedy._rank_one_xp import rank_one_greedy_path_xp
from pixsel.stats import CenteredGramOperator, DeviceGramOperator

#: The twins this benchmark measures (module path under ``src/``: the array-API callable timed,
#: and what the NumPy side is). ``bench_structure.py`` reads this mapping from the source.
TWINS = {
    "pixsel/spectral/greedy/_rank_one_xp.py": "rank_one_greedy_path_xp",
    "pixsel/spectral/greedy/_multiclass_xp.py": "multiclass_path_xp",
    "pixsel/spectral/greedy/_fullrank_xp.py": "fullrank_path_xp",
    "pixsel/stats/_gram_xp.py": "DeviceGramOperator",
}

REPEAT = 3


def timed(fn, repeat=REPEAT):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return {"median": float(np.median(times)), "min": float(min(times)), "max": float(max(times))}, out


def _pair(p, seed):
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((2 * p, p))
    B = Z.T @ Z / (2 * p) + 0.1 * np.eye(p)
    Zf = rng.standard_normal((2 * p, p)) * np.linspace(0.3, 2.0, p)
    return rng.standard_normal(p), rng.standard_normal((p, 4)), Zf.T @ Zf / (2 * p), B


def path_cases(p, seed=0):
    """``(kernel, direction, door, twin, numpy_fn, xp_fn)``; each fn returns ``(order, objective)``. The
    NumPy side is :func:`pixsel.spectral.greedy_path` on NumPy input below the compiled size
    (``p < 512`` features, a factor of at most 16 columns); ``door`` says what it runs there: the
    NumPy loops, or, for a backward full-rank path of the largest eigenvalue, the array-API kernel
    with NumPy as its namespace (the NumPy loops it replaced are timed by the trace row's kernel
    and by ``tests``' oracles; the compiled kernels serve the sizes above)."""
    a, M, A, B = _pair(p, seed)
    loops, xp_kernel = "NumPy loops", "array-API kernel"
    cases = []
    for d in ("forward", "backward"):
        cases += [
            ("rank-one (binary LDA)", d, loops, "_rank_one_xp",
             lambda d=d: _path(greedy_path(a, B, direction=d)),
             lambda d=d: _path(rank_one_greedy_path_xp(np, None, a, B, d))),
            ("multiclass (factor, r = 4)", d, loops, "_multiclass_xp",
             lambda d=d: _path(greedy_path(M, B, direction=d, form="factor")),
             lambda d=d: multiclass_path_xp(np, M, B, direction=d, criterion=criterion_named("max-eig"))[:2]),
        ]
        for crit in ("max-eig", "trace"):
            door = xp_kernel if (d, crit) == ("backward", "max-eig") else loops
            cases.append((f"full-rank (B = I, {crit})", d, door, "_fullrank_xp",
                          lambda d=d, crit=crit: _path(greedy_path(A, direction=d, form="full", criterion=crit)),
                          lambda d=d, crit=crit: fullrank_path_xp(np, A, None, direction=d,
                                                                  criterion=criterion_named(crit))[:2]))
    return cases


def _path(path):
    return path.order, path.objective


def gram_case(n, p, dtype, seed=0):
    """The implicit path's passes (the diagonal and a block of 32 columns) through each operator."""
    rng = np.random.default_rng(seed)
    X = (rng.random((n, p)) * 255).astype(dtype)
    y = rng.integers(0, 10, n)
    idx = np.linspace(0, p - 1, 32).astype(np.intp)

    def passes(G):
        return np.concatenate([G.diag(), G.columns(idx).ravel()])

    return (lambda: passes(CenteredGramOperator(X, y, alpha=0.1))), (lambda: passes(DeviceGramOperator(X, y, alpha=0.1)))


def fmt(t):
    return f"{t['median']:8.4f} s [{t['min']:.4f}-{t['max']:.4f}]"


def main():
    args = parser("bench_xp_twins", __doc__.splitlines()[0]).parse_args()
    ps = (32,) if args.quick else (64, 128)
    n, pg = (200, 512) if args.quick else (2000, 4096)
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; median of {REPEAT} runs [range]; "
          f"ratio = array API / NumPy on NumPy input (above 1: the NumPy kernel is faster)")
    rows = []
    with blas_threads(args):
        print(f"\n{'greedy path':28s} {'dir':8s} {'p':>4s}  {'greedy_path (NumPy input)':>26s}  "
              f"{'array-API kernel':>26s}  ratio  greedy_path runs")
        for p in ps:
            for kernel, direction, door, twin, np_fn, xp_fn in path_cases(p):
                t_np, (o_np, f_np) = timed(np_fn)
                t_xp, (o_xp, f_xp) = timed(xp_fn)
                same = bool(np.array_equal(o_np, o_xp) and np.allclose(f_np, f_xp, rtol=1e-8, atol=0))
                assert same, f"{kernel} {direction} p={p}: the two kernels disagree"
                ratio = t_xp["median"] / t_np["median"]
                rows.append({"pair": kernel, "direction": direction, "p": p, "numpy": t_np, "array_api": t_xp,
                             "ratio": ratio, "same_path": same, "door_runs": door,
                             "twin": f"pixsel/spectral/greedy/{twin}.py"})
                print(f"{kernel:28s} {direction:8s} {p:4d}  {fmt(t_np)}  {fmt(t_xp)}  {ratio:5.2f}  {door}",
                      flush=True)
        print(f"\n{'Gram operator passes':28s} {'dtype':8s} {'N x p':>10s}  {'CenteredGramOperator':>26s}  "
              f"{'DeviceGramOperator':>26s}  ratio")
        for dtype in (np.float64, np.float32, np.uint8):
            np_fn, xp_fn = gram_case(n, pg, dtype)
            t_np, g_np = timed(np_fn)
            t_xp, g_xp = timed(xp_fn)
            same = bool(np.allclose(g_np, g_xp, rtol=1e-10, atol=1e-10 * np.max(np.abs(g_np))))
            assert same, f"Gram operator {np.dtype(dtype).name}: the two operators disagree"
            ratio = t_xp["median"] / t_np["median"]
            rows.append({"pair": "Gram operator", "dtype": np.dtype(dtype).name, "n": n, "p": pg, "numpy": t_np,
                         "array_api": t_xp, "ratio": ratio, "same_columns": same, "twin": "pixsel/stats/_gram_xp.py"})
            print(f"{'diag + 32 columns':28s} {np.dtype(dtype).name:8s} {f'{n}x{pg}':>10s}  {fmt(t_np)}  "
                  f"{fmt(t_xp)}  {ratio:5.2f}", flush=True)
    write_results(args, {"load_average": list(load), "repeat": REPEAT, "rows": rows, "twins": TWINS})


if __name__ == "__main__":
    main()
