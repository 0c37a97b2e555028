"""bench_exact_spca runs end to end on a small case (the hour itself is a benchmark; its plan,
``pixsel.spectral.exact_spca_path``, is tested in tests/spectral/exact/test_exact_spca_path.py)."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_exact_spca_quick(tmp_path, run_script):
    if not (Path(os.environ.get("PIXSEL_DATA", ROOT.parent / "shared" / "data")) / "extyaleb_32x32.npz").is_file():
        pytest.skip("the shared data sets are not available (PIXSEL_DATA)")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / "bench_exact_spca.py"), "--quick", "--parts", "1024,classic",
                      "--n-jobs", "1,2", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "SUMMARY" in proc.stdout and "from the neighbours' supports" in proc.stdout
    assert "pitprops |  13 |   13/13" in proc.stdout
    # the side by side of --n-jobs: a summary line for each value
    assert "n_jobs =  1:" in proc.stdout and "n_jobs =  2:" in proc.stdout
