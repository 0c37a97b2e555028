"""bench_exact_images: the regression twin and every installed peer against brute force on a small
instance, and the --quick smoke run (peers that are not installed are skipped with a message)."""

import itertools
import json
import os
from pathlib import Path

import numpy as np
import pytest

from pixsel.datasets import data_dir
from pixsel.spectral import objective_on_support

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PEER_MODULES = {"okridge": "okridge", "l0bnb": "l0bnb", "gurobi": "gurobipy", "scip": "pyscipopt"}


@pytest.fixture(scope="module")
def bench(load_benchmark):
    return load_benchmark("bench_exact_images")


@pytest.fixture(scope="module")
def small(bench):
    if not (data_dir() / "usps_3v5_split.npz").is_file():
        pytest.skip(f"usps_3v5_split.npz not found in {data_dir()} (set PIXSEL_DATA to pixsel's shared data folder)")
    X, y, _ = bench.image_data("usps", 10)
    a, B, rho = bench.lda_problem(X, y)
    twin = bench.RidgeTwin(X, y, rho)
    opt = {}
    for k in (1, 3, 5):
        supports = list(itertools.combinations(range(10), k))
        f = [objective_on_support(a, B, list(S)) for S in supports]
        r = [twin.reduction(list(S)) for S in supports]
        opt[k] = (supports, np.array(f), np.array(r))
    return bench, X, y, a, B, twin, opt


def test_the_ridge_twin_has_the_same_optima_by_brute_force(shared_data, small):
    """R(S) = n c^2 f(S) / (1 + c f(S)) on every support, so the best supports coincide; the inverse
    map returns f; the coefficient bound holds on every optimal support."""
    bench, X, y, a, B, twin, opt = small
    for k, (supports, f, r) in opt.items():
        np.testing.assert_allclose(r, [twin.r_of_f(v) for v in f], rtol=1e-10)
        assert np.argmax(f) == np.argmax(r)
        np.testing.assert_allclose(twin.f_of_r(twin.r_of_f(f.max())), f.max(), rtol=1e-10)
        best = list(supports[int(np.argmax(r))])
        assert np.max(np.abs(twin.coef(best))) <= twin.big_m(k)
    assert twin.f_of_r(twin.yy) == np.inf


@pytest.mark.parametrize("peer", sorted(PEER_MODULES))
def test_each_peer_finds_the_brute_force_optimum(shared_data, small, peer):
    """Each installed peer, on the ridge twin: the optimal support and objective of brute force at
    k = 1, 3, 5 (OKRidge and l0bnb: 1, 3), a support of size k, and a certified bound at or above
    the optimum."""
    pytest.importorskip(PEER_MODULES[peer], reason=f"{PEER_MODULES[peer]} is not installed: peer {peer} not checked")
    bench, X, y, a, B, twin, opt = small
    fbest = np.concatenate(([0.0], [opt[k][1].max() if k in opt else 0.0 for k in range(1, 11)]))
    if peer == "l0bnb":  # lambda_0 placement needs the whole optimal curve
        from pixsel.spectral import exact_path

        fbest = np.concatenate(([0.0], exact_path(a, B).objective))
    checked = 0
    for k, (supports, f, _) in opt.items():
        if k == 5 and peer in ("okridge", "l0bnb"):
            continue  # 10-15 s each there (first-order bounds on a tiny problem): k = 1, 3 suffice
        start = supports[int(np.argmin(f))]  # the worst support: the peer has to search
        if peer == "okridge":
            row = bench.run_okridge(twin, a, B, k, 60.0, 1e-6)
        elif peer == "l0bnb":
            row = bench.run_l0bnb(twin, a, B, k, 60.0, 1e-4, fbest, 10)  # (NumPy 2: the bench restores np.Inf)
            if row["status"] in ("not_reachable",) or row["status"].startswith("size_"):
                continue  # no lambda_0 makes k the penalized optimum, or it stopped at another size
        elif peer == "gurobi":
            row = bench.run_gurobi(twin, a, B, k, 60.0, 1e-6, start)
        else:
            row = bench.run_scip(twin, a, B, k, 60.0, 1e-6, start)
        assert len(row["support"]) == k
        assert row["upper_bound"] >= f.max() * (1 - 1e-6)
        if row["certified"]:
            assert tuple(row["support"]) == supports[int(np.argmax(f))]
            np.testing.assert_allclose(row["objective"], f.max(), rtol=1e-9)
            assert row["gap"] <= 1e-3
            checked += 1
    assert checked >= 1, f"{peer} certified none of its sizes in 60 s on 10 features"


def test_quick_run(shared_data, tmp_path, run_script):
    shared_data("usps_3v5_split.npz")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    out = tmp_path / "images"
    proc = run_script(str(ROOT / "benchmarks" / "bench_exact_images.py"), "--quick", "--out", str(out),
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "load average" in proc.stdout and "SUMMARY" in proc.stdout
    rec = json.loads((out / "exact_images.json").read_text())
    inst = rec["instances"]["quick"]
    assert inst["mapping_error"] < 1e-8
    px = inst["methods"]["pixsel"]["rows"]
    assert len(px) == 6 and all(r["certified"] for r in px)  # 24 pixels, k <= 6: certified in seconds
    for name, mod in PEER_MODULES.items():
        d = inst["methods"][name]
        if "skipped" in d:
            assert mod in d["skipped"] and f"{mod} is not installed" in proc.stdout
            continue
        for r, ref in zip(d["rows"], px):
            if r["certified"]:  # a certified peer agrees with pixsel's certified optimum
                assert r["objective"] == pytest.approx(ref["objective"], rel=1e-6)
            if "support" in r:
                assert len(r["support"]) == r["k"]
    assert (out / "exact_images.png").is_file()
    # --merge: the same numbers from the JSON, no solving
    merged = tmp_path / "merged"
    proc = run_script(str(ROOT / "benchmarks" / "bench_exact_images.py"), "--merge", str(out / "exact_images.json"),
                      "--out", str(merged), cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    again = json.loads((merged / "exact_images.json").read_text())
    assert again["summary"] == rec["summary"] and (merged / "exact_images.png").is_file()
