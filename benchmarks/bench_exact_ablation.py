"""Which parts of the exact solver matter ("whatever you choose, measure it").

Binary LDA instances (``bench_exact_speed.lda_instance``, Brownian-type classes) at n = 30,
k = 15, all variants on the same instances in the same run, each through the public API:

* ``default`` - ``exact_support``: best-first + dives, cardinality bounds and variable fixing,
  branching on the variable whose exclusion lowers the inclusion bound most (include child
  first, ``branch_rule='important-include'``);
* ``rule=gain-include`` / ``rule=backward-exclude`` - ``exact_support(branch_rule=...)``, the other
  two branching rules;
* ``inclusion-only`` - ``exact_support(bounds='inclusion')``: the same search with the inclusion
  bound only (no cardinality bounds, no fixing), still incremental;
* ``plain`` - ``plain_search``: the paper's ESLDA (depth-first, a fresh factorization per node).

Second table: sparse PCA (``B = I``, full ``A``) on spiked sample covariances
(``spca_instance``: a global positive factor plus two planted supports of 8 features on
``--spca-p`` features, ``k = --spca-k``), each bound set of ``exact_support(bounds=...)`` on the same instances:
``inclusion``, ``cardinality`` (+ row bounds: Gershgorin / Frobenius / trace from the ``k``
largest entries), ``sdp`` (+ the dual point of the semidefinite relaxation minimized once at the
root and reused at every node), ``sdp-node`` (that dual point improved at every node); the
``cardinality`` and ``sdp`` rows also without variable fixing (``exact_support(fixing=False)``).

Run: ``python benchmarks/bench_exact_ablation.py`` (``--quick``: n = 20, 2 instances; sparse PCA
p = 30).
"""

from __future__ import annotations

import time

import numpy as np
from _common import blas_threads, parser, write_results
from bench_exact_speed import lda_instance

from pixsel.spectral import exact_support, plain_search

VARIANTS = {
    "default": lambda a, B, k, limit: exact_support(a, B, k, time_limit=limit),
    "rule=gain-include": lambda a, B, k, limit: exact_support(a, B, k, time_limit=limit, branch_rule="gain-include"),
    "rule=backward-exclude": lambda a, B, k, limit: exact_support(
        a, B, k, time_limit=limit, branch_rule="backward-exclude"
    ),
    "inclusion-only": lambda a, B, k, limit: exact_support(a, B, k, time_limit=limit, bounds="inclusion"),
    "plain": lambda a, B, k, limit: plain_search(a, B, k, time_limit=limit),
}


#: name -> exact_support keywords; "no fixing" rows turn off the variable fixing of the full-matrix
#: search (exact_support(fixing=False)) to measure it on the same instances
SPCA_VARIANTS = {
    "inclusion": {"bounds": "inclusion"},
    "cardinality, no fixing": {"bounds": "cardinality", "fixing": False},
    "cardinality": {"bounds": "cardinality"},
    "sdp, no fixing": {"bounds": "sdp", "fixing": False},
    "sdp": {"bounds": "sdp"},
    "sdp-node": {"bounds": "sdp-node"},
}
SPCA_BOUNDS = tuple(SPCA_VARIANTS)


def spca_instance(p, rng, n_samples=None):
    """Sample covariance (``2p`` samples) of a global positive factor (pixel-like: every feature
    loads on it, so ``lambda_max`` of any large set is far above the sparse optimum) plus two
    planted components on 8 features each, plus noise."""
    n_samples = 2 * p if n_samples is None else n_samples
    L = np.zeros((p, 3))
    L[:, 0] = rng.uniform(0.5, 1.5, p)
    for j in (1, 2):
        L[rng.choice(p, 8, replace=False), j] = rng.uniform(1.0, 2.0, 8) * rng.choice([-1, 1], 8)
    X = rng.standard_normal((n_samples, 3)) @ L.T + rng.standard_normal((n_samples, p))
    return X.T @ X / n_samples


def run_spca(bounds, A, k, limit):
    t = time.perf_counter()
    res = exact_support(A, None, k, time_limit=limit, **SPCA_VARIANTS[bounds])
    return {"status": res.status, "time_s": time.perf_counter() - t, "nodes": res.n_nodes,
            "objective": res.objective, "gap_pct": 100 * res.relative_gap}


def run_variant(name, a, B, k, limit):
    t = time.perf_counter()
    res = VARIANTS[name](a, B, k, limit)
    return {"status": res.status, "time_s": time.perf_counter() - t, "nodes": res.n_nodes, "objective": res.objective}


def main(argv=None):
    ap = parser("exact_ablation", __doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--instances", type=int, default=5)
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spca-p", type=int, default=60)
    ap.add_argument("--spca-k", type=int, default=15)
    ap.add_argument("--skip-lda", action="store_true", help="only the sparse PCA table")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.instances, args.limit, args.spca_p, args.spca_k = 20, 2, 10.0, 30, 8
    k = args.n // 2
    variants = list(VARIANTS)
    rng = np.random.default_rng(args.seed)
    rows = {v: [] for v in variants}
    with blas_threads(args):
        for i in range(0 if args.skip_lda else args.instances):
            a, B = lda_instance(args.n, rng)
            for v in variants:
                rows[v].append(run_variant(v, a, B, k, args.limit))
            objs = [rows[v][-1]["objective"] for v in variants if rows[v][-1]["status"] == "optimal"]
            assert np.allclose(objs, objs[0], rtol=1e-9), "variants disagree on a certified optimum"
            print(f"instance {i}: " + "; ".join(
                f"{v} {rows[v][-1]['time_s']:.2f} s/{rows[v][-1]['nodes']}" for v in variants), flush=True)
    summary = {}
    if not args.skip_lda:
        print(f"n = {args.n}, k = {k}, {args.instances} instances, limit {args.limit} s")
        print(f"{'variant':>22s} | median s | median nodes | certified | time / default")
        t_default = np.median([r["time_s"] for r in rows["default"]])
        for v in variants:
            t = np.median([r["time_s"] for r in rows[v]])
            nd = np.median([r["nodes"] for r in rows[v]])
            ok = sum(r["status"] == "optimal" for r in rows[v])
            summary[v] = {"median_time_s": t, "median_nodes": nd, "certified": ok, "time_over_default": t / t_default}
            print(f"{v:>22s} | {t:8.2f} | {nd:12.0f} | {ok:>6}/{args.instances} | {t / t_default:8.2f}")
    spca_rows = {b: [] for b in SPCA_BOUNDS}
    rng = np.random.default_rng(args.seed + 1000)
    with blas_threads(args):
        for i in range(args.instances):
            A = spca_instance(args.spca_p, rng)
            for b in SPCA_BOUNDS:
                spca_rows[b].append(run_spca(b, A, args.spca_k, args.limit))
            objs = [spca_rows[b][-1]["objective"] for b in SPCA_BOUNDS if spca_rows[b][-1]["status"] == "optimal"]
            assert not objs or np.allclose(objs, objs[0], rtol=1e-9), "bound sets disagree on a certified optimum"
            print(f"spca instance {i}: " + "; ".join(
                f"{b} {spca_rows[b][-1]['time_s']:.2f} s/{spca_rows[b][-1]['nodes']}" for b in SPCA_BOUNDS), flush=True)
    print(f"\nsparse PCA, p = {args.spca_p}, k = {args.spca_k}, {args.instances} instances, limit {args.limit} s")
    print(f"{'bounds':>22s} | median s | median nodes | certified | median gap % | time / cardinality")
    spca_summary = {}
    t_card = np.median([r["time_s"] for r in spca_rows["cardinality"]])
    for b in SPCA_BOUNDS:
        t = np.median([r["time_s"] for r in spca_rows[b]])
        nd = np.median([r["nodes"] for r in spca_rows[b]])
        ok = sum(r["status"] == "optimal" for r in spca_rows[b])
        gp = np.median([r["gap_pct"] for r in spca_rows[b]])
        spca_summary[b] = {"median_time_s": t, "median_nodes": nd, "certified": ok, "median_gap_pct": gp,
                           "time_over_cardinality": t / t_card}
        print(f"{b:>22s} | {t:8.2f} | {nd:12.0f} | {ok:>6}/{args.instances} | {gp:12.3g} | {t / t_card:8.2f}")
    options = {"n": args.n, "instances": args.instances, "limit": args.limit, "seed": args.seed,
               "spca_p": args.spca_p, "spca_k": args.spca_k}
    write_results(args, {"args": options, "rows": rows, "summary": summary, "spca_rows": spca_rows,
                         "spca_summary": spca_summary}, name="ablation")


if __name__ == "__main__":
    main()
