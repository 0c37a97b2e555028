"""Smoke runs (``--quick``) of the cheaper benchmark scripts that no other test runs: each still
runs on the current code and writes its results (no figure or timing asserted). A script whose
printed figures the docs quote must keep running: ``bench_gspca --quick`` stopped with a KeyError
once its backward path took the NumPy route, unnoticed because nothing ran it."""

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

#: (script, shared data files it reads, optional modules it needs)
SCRIPTS = [
    ("bench_exact_colon", ("alon_colon.npz",), ()),
    ("bench_exact_montecarlo", (), ()),
    ("bench_exact_uci", (), ()),
    ("bench_gslda_scaling", (), ()),
    ("bench_gslda_vs_naive", (), ()),
    ("bench_gslda_vs_sklearn", ("usps_3v5_split.npz",), ()),
    ("bench_gspca", ("extyaleb_32x32.npz",), ("abess",)),
    ("bench_scores_faces", ("extyaleb_32x32.npz",), ()),
    ("bench_scores_kmeans", ("extyaleb_32x32.npz", "usps_full_16x16.npz"), ("skimage",)),
    ("bench_scores_speed", ("brodatz_112_640x640.npz",), ("dask",)),
    ("bench_slm_faces", ("cmupie_32x32.npz",), ()),
    ("bench_slm_sweeps", ("usps_3v5_split.npz",), ()),
    ("bench_sparse_eigenfaces", ("extyaleb_32x32.npz",), ()),
    ("bench_spls_recall_gspca", (), ()),
    ("bench_spls_timing", (), ()),
    ("bench_stats_dask", (), ("dask",)),
]


@pytest.mark.parametrize("script, files, modules", SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_quick_run(script, files, modules, shared_data, tmp_path, run_script):
    for name in files:
        shared_data.path(name)  # skips with the reason when the file is absent
    for name in modules:
        pytest.importorskip(name)
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), MPLBACKEND="Agg")
    proc = run_script(str(ROOT / "benchmarks" / f"{script}.py"), "--quick", cwd=tmp_path, env=env)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    assert proc.stdout.strip(), "the script printed nothing"
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size > 0]
    assert written, "the script wrote no result under PIXSEL_RESULTS"
