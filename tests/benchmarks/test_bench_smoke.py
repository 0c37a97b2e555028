"""Smoke test of the cheapest issue-3 benchmark (``--quick``); the others run in minutes."""

from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]


def test_image_scale_quick(shared_data, tmp_path, run_script):
    shared_data.path("brodatz_112_640x640.npz")  # skips when absent
    import os

    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path))
    r = run_script(str(ROOT / "benchmarks" / "bench_image_scale.py"), "--quick", env=env)
    assert r.returncode == 0, r.stderr
    assert "(goal <= 3): met" in r.stdout and (tmp_path / "image_scale" / "image_scale.json").is_file()
