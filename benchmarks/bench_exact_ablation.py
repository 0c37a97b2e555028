"""Which parts of the exact solver matter (issue 4: "whatever you choose, measure it").

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

Run: ``python benchmarks/bench_exact_ablation.py`` (``--quick``: n = 20, 2 instances).
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
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.instances, args.limit = 20, 2, 10.0
    k = args.n // 2
    variants = list(VARIANTS)
    rng = np.random.default_rng(args.seed)
    rows = {v: [] for v in variants}
    with blas_threads(args):
        for i in range(args.instances):
            a, B = lda_instance(args.n, rng)
            for v in variants:
                rows[v].append(run_variant(v, a, B, k, args.limit))
            objs = [rows[v][-1]["objective"] for v in variants if rows[v][-1]["status"] == "optimal"]
            assert np.allclose(objs, objs[0], rtol=1e-9), "variants disagree on a certified optimum"
            print(f"instance {i}: " + "; ".join(
                f"{v} {rows[v][-1]['time_s']:.2f} s/{rows[v][-1]['nodes']}" for v in variants), flush=True)
    print(f"n = {args.n}, k = {k}, {args.instances} instances, limit {args.limit} s")
    print(f"{'variant':>22s} | median s | median nodes | certified | time / default")
    summary = {}
    t_default = np.median([r["time_s"] for r in rows["default"]])
    for v in variants:
        t = np.median([r["time_s"] for r in rows[v]])
        nd = np.median([r["nodes"] for r in rows[v]])
        ok = sum(r["status"] == "optimal" for r in rows[v])
        summary[v] = {"median_time_s": t, "median_nodes": nd, "certified": ok, "time_over_default": t / t_default}
        print(f"{v:>22s} | {t:8.2f} | {nd:12.0f} | {ok:>6}/{args.instances} | {t / t_default:8.2f}")
    options = {"n": args.n, "instances": args.instances, "limit": args.limit, "seed": args.seed}
    write_results(args, {"args": options, "rows": rows, "summary": summary}, name="ablation")


if __name__ == "__main__":
    main()
