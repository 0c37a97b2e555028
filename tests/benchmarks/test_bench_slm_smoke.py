"""Smoke runs (``--quick``) of the texture and clustering benchmarks of issue 7 (were in tests/projection)."""

import json

import pytest


@pytest.mark.parametrize(
    "name,data,key",
    [("bench_slm_textures", "brodatz_112_640x640.npz", "accuracy"),
     ("bench_slm_clustering", "usps_full_16x16.npz", "table")],
)
def test_quick_benchmark_writes_results(name, data, key, shared_data, tmp_path, monkeypatch, capsys, load_benchmark):
    shared_data.path(data)  # skips when the file is absent
    monkeypatch.setenv("PIXSEL_RESULTS", str(tmp_path))
    assert load_benchmark(name).main(["--quick"]) == 0
    out = json.loads(next(tmp_path.glob("*/*.json")).read_text())
    assert any(k.startswith("ker.dict") for k in out[key]) and "KPCA" in out[key] and "KLPP" in out[key]
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("name,key", [("bench_slm_speed", "kernel"), ("bench_slm_stability", "summary")])
def test_quick_slm_speed_and_stability(name, key, shared_data, tmp_path, monkeypatch, capsys, load_benchmark):
    for data in ("usps_3v5_split.npz", "extyaleb_32x32.npz", "usps_full_16x16.npz", "cmupie_32x32.npz"):
        shared_data.path(data)  # skips when a file is absent
    monkeypatch.setenv("PIXSEL_RESULTS", str(tmp_path))
    assert load_benchmark(name).main(["--quick"]) == 0
    out = json.loads(next(tmp_path.glob("*/*.json")).read_text())
    assert key in out and "goal" in capsys.readouterr().out
    if name == "bench_slm_stability":
        assert out["summary"]["tau_max_over_min"] >= 1.0 and len(out["draws"]) == 3
    else:
        assert all(r["ratio"] > 0 for r in out["linear"]) and out["kernel"][0]["n_iter"] >= 1


def test_quick_scores_top(shared_data, tmp_path, monkeypatch, capsys, load_benchmark):
    shared_data.path("extyaleb_32x32.npz")
    monkeypatch.setenv("PIXSEL_RESULTS", str(tmp_path))
    assert load_benchmark("bench_scores_top").main(["--quick"]) == 0
    out = json.loads(next(tmp_path.glob("*/*.json")).read_text())
    assert set(out["rate"]) >= {"uniform random", "subspace m=10 top", "subspace m=10 sampled"}
    assert 0.0 <= out["clump"]["subspace m=10 top"]["50"][0] <= 1.0
