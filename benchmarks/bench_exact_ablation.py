"""Which parts of the exact solver matter (issue 4: "whatever you choose, measure it").

Binary LDA instances (``bench_exact_speed.lda_instance``, Brownian-type classes) at n = 30,
k = 15, all variants on the same instances in the same run:

* ``default`` - best-first + dives, cardinality bounds and variable fixing, branching on the
  variable whose exclusion lowers the inclusion bound most (include child first);
* ``rule=gain-include`` / ``rule=backward-exclude`` - the other two branching rules tried;
* ``inclusion-only`` - the same search with the inclusion bound only (no cardinality bounds,
  no fixing), still incremental;
* ``plain`` - the paper's ESLDA (``strategy='plain'``).

This script switches private internals (``_BRANCH_RULE``, ``use_bounds``) to measure them: it
is a measurement of the implementation, not a use of the public API.

Run: ``python benchmarks/bench_exact_ablation.py`` (``--quick``: n = 20, 2 instances).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_exact_speed import lda_instance  # noqa: E402

import pixsel.spectral._exact as ex  # noqa: E402
from pixsel.io import write_json  # noqa: E402
from pixsel.spectral import exact_support  # noqa: E402


def run_variant(name, a, B, k, limit):
    rule0 = ex._BRANCH_RULE
    init0 = ex._FactorBnB.__init__.__defaults__
    try:
        if name.startswith("rule="):
            ex._BRANCH_RULE = name.split("=", 1)[1]
        if name == "inclusion-only":
            ex._FactorBnB.__init__.__defaults__ = (False,)
        t = time.perf_counter()
        res = exact_support(a, B, k, time_limit=limit, strategy="plain" if name == "plain" else "best-first")
        return {"status": res.status, "time_s": time.perf_counter() - t, "nodes": res.n_nodes, "objective": res.objective}
    finally:
        ex._BRANCH_RULE = rule0
        ex._FactorBnB.__init__.__defaults__ = init0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=30)
    ap.add_argument("--instances", type=int, default=5)
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="results/exact_ablation")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.instances, args.limit = 20, 2, 10.0
    k = args.n // 2
    variants = ["default", "rule=gain-include", "rule=backward-exclude", "inclusion-only", "plain"]
    rng = np.random.default_rng(args.seed)
    rows = {v: [] for v in variants}
    for i in range(args.instances):
        a, B = lda_instance(args.n, rng)
        for v in variants:
            rows[v].append(run_variant(v, a, B, k, args.limit))
        objs = [rows[v][-1]["objective"] for v in variants if rows[v][-1]["status"] == "optimal"]
        assert np.allclose(objs, objs[0], rtol=1e-9), "variants disagree on a certified optimum"
        print(f"instance {i}: " + "; ".join(f"{v} {rows[v][-1]['time_s']:.2f} s/{rows[v][-1]['nodes']}" for v in variants), flush=True)
    print(f"n = {args.n}, k = {k}, {args.instances} instances, limit {args.limit} s")
    print(f"{'variant':>22s} | median s | median nodes | certified")
    summary = {}
    for v in variants:
        t = np.median([r["time_s"] for r in rows[v]])
        nd = np.median([r["nodes"] for r in rows[v]])
        ok = sum(r["status"] == "optimal" for r in rows[v])
        summary[v] = {"median_time_s": t, "median_nodes": nd, "certified": ok}
        print(f"{v:>22s} | {t:8.2f} | {nd:12.0f} | {ok}/{args.instances}")
    write_json(Path(args.out) / "ablation.json", {"args": vars(args), "rows": rows, "summary": summary})


if __name__ == "__main__":
    main()
