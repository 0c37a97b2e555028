import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pixsel.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_cli_evaluate_on_digits(tmp_path, capsys):
    from pixsel.datasets import load_digits_pair

    d = load_digits_pair(3, 5)
    path = tmp_path / "digits35.npz"
    np.savez(path, X=d.X, y=d.y, image_shape=np.array(d.image_shape))
    out = tmp_path / "ev"
    assert main(["evaluate", str(path), "--method", "gslda", "--classifier", "lda", "--k", "1,3", "--out", str(out),
                 "--quiet"]) == 0
    rep = json.loads((out / "evaluate.json").read_text())
    assert rep["ks"] == [1, 3] and rep["method"] == "gslda" and rep["classifier"] == "lda"
    assert rep["n_train"] + rep["n_test"] == len(d.y) and "stratified" in rep["split"]
    assert (out / "evaluate.png").stat().st_size > 0
    assert main(["evaluate", str(path), "--k", "1,x", "--out", str(out), "--quiet"]) == 2
    assert "comma-separated" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["usps35", "faces_gender"])
def test_benchmark_quick(tmp_path, name):
    from pixsel.datasets import data_dir

    needed = "usps_3v5_split.npz" if name == "usps35" else "cmupie_32x32.npz"
    if not (data_dir() / needed).is_file():
        pytest.skip(f"{needed} not found (set PIXSEL_DATA to pixsel's shared data folder)")
    env = dict(os.environ, PIXSEL_RESULTS=str(tmp_path), PYTHONPATH=str(ROOT / "src"), MPLBACKEND="Agg",
               PIXSEL_DATA=str(data_dir()))
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"bench_{name}.py"), "--quick"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads((tmp_path / name / "results.json").read_text())
    assert res["quick"] and res["claims"] and "Paper claims" in proc.stdout
    assert res["time_dual_path_s"] > 0 and len(res["objective"]["forward"]) == len(res["objective"]["fisher"])
    for fig in ("fig_paths.png", "fig_gp_vs_k.png", "fig_fisher_vs_gslda.png", "fig_maps.png"):
        assert (tmp_path / name / fig).stat().st_size > 0
