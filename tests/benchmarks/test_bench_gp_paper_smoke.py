"""Smoke runs (--quick) of paper 000 section 6.1 (bench_usps35, bench_faces_gender): JSON, figures, claims."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name,needed", [("usps35", "usps_3v5_split.npz"), ("faces_gender", "cmupie_32x32.npz")])
def test_benchmark_quick(tmp_path, name, needed, shared_data, run_script):
    from pixsel.datasets import data_dir

    shared_data.path(needed)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg", PIXSEL_DATA=str(data_dir()))
    out = tmp_path / name
    proc = run_script(str(ROOT / "benchmarks" / f"bench_{name}.py"), "--quick", "--out", str(out),
                      cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((out / f"{name}.json").read_text())
    assert res["benchmark"] == name and res["quick"] and res["threads"] == 1
    assert res["claims"] and "Paper claims" in proc.stdout
    obj = res["objective"]
    p = len(obj["forward"])
    assert p == len(obj["backward"]) == len(obj["fisher"]) == int(np.prod(res["image_shape"]))
    # every path ends at the full set, where all three objectives agree
    assert obj["forward"][-1] == pytest.approx(obj["backward"][-1], rel=1e-8)
    assert obj["fisher"][-1] == pytest.approx(obj["forward"][-1], rel=1e-8)
    lap = res["gp_laplace"]
    assert lap["ks"] == [1, 5] and all(0 <= e <= 1 for e in lap["error"])
    assert all(len(lap["supports"][str(k)]) == k for k in lap["ks"])
    assert 0 <= res["optimal_pixel"]["index"] < p
    for fig in ("fig_paths.png", "fig_gp_vs_k.png", "fig_fisher_vs_gslda.png", "fig_maps.png"):
        assert (out / fig).stat().st_size > 0
