"""Sensor placement: pixsel's PixelReconstructor beside PySensors' optimizers and random pixels.

Goal: held-out reconstruction error below PySensors' best optimizer at every k on every set,
with and without constraints, and selection time at most PySensors ``QR``'s.

On Extended Yale B (32x32), CMU PIE (32x32), USPS (16x16) and Brodatz patches (64x64) each
placement is scored by the same reconstruction (``PixelReconstructor`` with the placement
given as installed sensors: the Gaussian conditional mean of every pixel given the chosen ones,
under the training covariance, the noise level cross-validated on the training images), so
the rows compare placements; PySensors ``QR`` with its
own ``SSPOR.predict`` (square solve in its SVD basis of ``k`` modes) is printed beside it. Rows:

* ``pixsel``: ``PixelReconstructor(k)``, the default (fit time: placement and reconstruction
  model): ``shrinkage='auto'`` and ``refine='auto'``, so the covariance shrunk where its
  Ledoit-Wolf intensity is at least 0.05 (the textures) and the swaps with more images than
  pixels (faces, digits); ``pixsel greedy``: ``refine=False, shrinkage=None`` (the greedy on the
  sample covariance, the default before); ``pixsel refine``: ``refine=True, shrinkage=None``
  (the greedy's ``k`` sensors then improved by swaps); every pixsel row is run with each
  constraint;
* ``QR r=k`` / ``QR r=100``: ``SSPOR(SVD(r), QR())`` on the centred data (PySensors' examples
  use ``r = k`` and a fixed ``r``); ``TPGR r=k`` where it runs (16x16 and 32x32);
* constrained: ``GQR`` (``constraint_option='max_n'``, seeded with QR's ranking) with at most
  ``k // 5`` sensors in the central square beside ``pixsel`` with the same region maximum, and ``CCQR`` with costs rising to the right beside ``pixsel``
  with the budget set to what CCQR's sensors cost;
* ``random``: uniformly drawn pixels (3 draws);
* ``pixsel shrink``: ``PixelReconstructor(k, shrinkage='auto', refine=False)`` (the covariance
  shrunk towards its diagonal in the 2-D DCT basis, Ledoit-Wolf intensity, for the placement and
  the reconstruction, where the intensity is at least 0.05), with the centre maximum and the
  budget as well; every PySensors placement is also scored by the default reconstruction
  (``shrinkage='auto'``: rows ``..., default model``), the one the ``pixsel`` row uses.

Times and errors are medians of 3 runs with the spread (max - min), after one untimed run of
every row on each data set (its times, the first calls in the process, are printed); ratios are
pixsel over the peer in the same run; the load average is printed. A PySensors fit's time includes the centring
of the images that its SVD basis asks of the caller (pixsel's fit centres them itself). ``--quick``: USPS only, small k.
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel import PixelReconstructor
from pixsel.datasets import load_shared

K_FULL = (5, 10, 20, 50, 100, 150)
K_QUICK = (5, 10, 20)
REPEAT = 3
#: The pixsel row each peer is compared with (same constraint).
PAIRED = {"GQR": "pixsel (centre <= k/5)", "CCQR": "pixsel (budget = CCQR's cost)"}
#: The name of a pixsel row with ``refine=True``.
REFINED = "pixsel refine"
#: The name of a pixsel row with ``shrinkage='auto'``, and the suffix of a peer scored under that model.
SHRUNK, SHRUNK_MODEL = "pixsel shrink", ", default model"
#: The name of the pixsel row on the sample covariance without swaps (the default before).
GREEDY = "pixsel greedy"


def variant(name, row):
    """The pixsel variant ``name`` (``GREEDY``, ``REFINED``, ``SHRUNK``) of the pixsel row ``'pixsel ...'``."""
    return name + row[len("pixsel"):]


def _split(X, rng, frac=0.8):
    i = rng.permutation(len(X))
    c = int(frac * len(X))
    return X[i[:c]], X[i[c:]]


def load(name, quick):
    """Training and held-out images (float64, flattened) and the image shape."""
    rng = np.random.default_rng(0)
    if name == "usps":
        z = load_shared("usps_full_16x16.npz")
        ntr, nte = (500, 300) if quick else (2000, 1000)
        return z["X_train"][:ntr].astype(float), z["X_test"][:nte].astype(float), (16, 16)
    if name in ("yaleb", "cmupie"):
        z = load_shared("extyaleb_32x32.npz" if name == "yaleb" else "cmupie_32x32.npz")
        Xtr, Xte = _split(z["X"].astype(float), rng)
        return Xtr, Xte, (32, 32)
    if name == "brodatz":
        z = load_shared("brodatz_112_640x640.npz")
        imgs = z["X"].reshape(-1, 640, 640)
        tex = rng.choice(len(imgs), 10, replace=False)
        patches = []
        for t in tex:  # 50 patches of 64x64 from each of 10 textures
            r, c = rng.integers(0, 640 - 64, (2, 50))
            patches += [imgs[t, a:a + 64, b:b + 64].ravel() for a, b in zip(r, c)]
        X = np.asarray(patches, dtype=float)
        Xtr, Xte = _split(X, rng)
        return Xtr, Xte, (64, 64)
    raise ValueError(name)


def rel_error(Xtr, Xte, S, shape=None, shrinkage=None):
    """Held-out relative error of ``PixelReconstructor``'s reconstruction from the given pixels ``S``."""
    est = PixelReconstructor(len(S), always_select=np.asarray(S), image_shape=shape, shrinkage=shrinkage).fit(Xtr)
    assert sorted(est.order_.tolist()) == sorted(np.asarray(S).tolist())
    return 1.0 - est.score(Xte)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def pysensors_rows(Xtr, Xte, k, shape, centre, costs):
    """PySensors' optimizers: {row: (seconds, sensors, extra)}; a row that fails is left out with its reason."""
    import pysensors as ps

    # PySensors' SVD basis assumes centred data: the centring is a step of every PySensors fit
    # (pixsel's fit centres the images itself), so its time is added to each row's
    t_centre, A = timed(lambda: Xtr - Xtr.mean(0))
    out, failed = {}, {}

    def sspor(r, opt, **kw):
        model = ps.SSPOR(basis=ps.basis.SVD(n_basis_modes=r), optimizer=opt, n_sensors=k)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(A, quiet=True, seed=0, **kw)
        sensors = np.asarray(model.get_selected_sensors())
        assert sensors.size == k and np.unique(sensors).size == k, "PySensors did not place k sensors"
        return model, sensors

    def run(name, fn):
        try:
            t, (model, s) = timed(fn)
            out[name] = (t + t_centre, s, model)
        except Exception as err:  # a peer that cannot run at this size is reported, not hidden
            failed[name] = f"{type(err).__name__}: {str(err)[:120]}"

    r = min(k, len(A) - 1)
    run("QR r=k", lambda: sspor(r, ps.optimizers.QR()))
    ranking = out["QR r=k"][2].get_all_sensors() if "QR r=k" in out else np.arange(A.shape[1])
    run("QR r=100", lambda: sspor(min(100, len(A) - 1), ps.optimizers.QR()))
    if np.prod(shape) <= 1024:
        run("TPGR r=k", lambda: sspor(r, ps.optimizers.TPGR(n_sensors=k, noise=1.0)))
    n_const = max(1, k // 5)
    run("GQR r=k (centre <= k/5)", lambda: sspor(
        r, ps.optimizers.GQR(), idx_constrained=centre, n_sensors=k, n_const_sensors=n_const,
        all_sensors=ranking, constraint_option="max_n"))
    run("CCQR r=k (costs)", lambda: sspor(r, ps.optimizers.CCQR(sensor_costs=costs)))
    return out, failed


def own_qr_error(model, Xtr, Xte, k):
    """PySensors' own reconstruction (``SSPOR.predict`` at its defaults) of the held-out images."""
    mu = Xtr.mean(0)
    s = model.get_selected_sensors()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = model.predict((Xte - mu)[:, s]) + mu
    return float(np.linalg.norm(Xte - rec) / np.linalg.norm(Xte - mu))


def one_run(Xtr, Xte, shape, k, rep):
    h, w = shape
    rows, cols = np.divmod(np.arange(h * w), w)
    centre_mask = (abs(rows - h / 2 + 0.5) < h / 4) & (abs(cols - w / 2 + 0.5) < w / 4)
    centre = np.flatnonzero(centre_mask)
    costs = 1.0 + cols / (w - 1)
    res = {}
    variants = {"pixsel": {}, GREEDY: {"refine": False, "shrinkage": None},
                REFINED: {"refine": True, "shrinkage": None}, SHRUNK: {"refine": False, "shrinkage": "auto"}}
    for label, kw in variants.items():
        t, est = timed(lambda: PixelReconstructor(k, image_shape=shape, **kw).fit(Xtr))
        res[label] = dict(time=t, error=1 - est.score(Xte))
    peers, failed = pysensors_rows(Xtr, Xte, k, shape, centre, costs)
    for name, (t, s, model) in peers.items():
        res[name] = dict(time=t, error=rel_error(Xtr, Xte, s))
        res[name + SHRUNK_MODEL] = dict(time=t, error=rel_error(Xtr, Xte, s, shape, "auto"))
        if name == "QR r=k":
            res["QR r=k, own predict"] = dict(time=t, error=own_qr_error(model, Xtr, Xte, k))
    n_const = max(1, k // 5)
    regions = centre_mask.astype(int)
    for label, kw in variants.items():
        t, est = timed(lambda: PixelReconstructor(k, regions=regions, max_per_region={1: n_const},
                                                  image_shape=shape, **kw).fit(Xtr))
        assert np.sum(centre_mask[est.sensors_]) <= n_const
        res[label + " (centre <= k/5)"] = dict(time=t, error=1 - est.score(Xte))
        if "CCQR r=k (costs)" in peers:
            budget = float(costs[peers["CCQR r=k (costs)"][1]].sum())
            t, est = timed(lambda: PixelReconstructor(k, costs=costs, budget=budget, image_shape=shape,
                                                      **kw).fit(Xtr))
            assert costs[est.sensors_].sum() <= budget * (1 + 1e-9)
            res[label + " (budget = CCQR's cost)"] = dict(time=t, error=1 - est.score(Xte))
    rng = np.random.default_rng(rep)
    S = rng.choice(h * w, k, replace=False)
    res["random"] = dict(time=0.0, error=rel_error(Xtr, Xte, S))
    res["random" + SHRUNK_MODEL] = dict(time=0.0, error=rel_error(Xtr, Xte, S, shape, "auto"))
    return res, failed


def summarize(runs):
    out = {}
    for name in runs[0]:
        vals = [r[name] for r in runs if name in r]
        out[name] = {m: dict(median=float(np.median([v[m] for v in vals])),
                             spread=float(np.ptp([v[m] for v in vals]))) for m in ("time", "error")}
    return out


def main(argv=None):
    p = parser("bench_sensors", __doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=None, help="usps yaleb cmupie brodatz")
    p.add_argument("--k", nargs="+", type=int, default=None)
    args = p.parse_args(argv)
    datasets = args.datasets or (["usps"] if args.quick else ["usps", "yaleb", "cmupie", "brodatz"])
    ks = args.k or (K_QUICK if args.quick else K_FULL)
    print(f"load average at start: {os.getloadavg()}")
    record = {"datasets": {}, "k": list(ks), "repeat": REPEAT}
    with blas_threads(args):
        for name in datasets:
            Xtr, Xte, shape = load(name, args.quick)
            print(f"\n== {name}: {len(Xtr)} training / {len(Xte)} held-out images of {shape[0]}x{shape[1]}")
            per_k = {}
            # one untimed run of every row first (a warm-up, then the median of 3, as the other
            # benchmarks beside a peer do): the process's first calls (scikit-learn's first validation looks up the
            # installed dataframe plugins, about 8 ms; caches, first allocations) fall in no row's
            # time. The first data set's warm-up times are the first call in a fresh process.
            warm, _ = one_run(Xtr, Xte, shape, ks[0], 0)
            first = {row: warm[row]["time"] for row in ("pixsel", "QR r=k") if row in warm}
            if not record["datasets"]:
                record["first_call"] = dict(dataset=name, k=ks[0], **first)
            print(f"warm-up at k = {ks[0]} (untimed; pixsel's rows run first): "
                  + ", ".join(f"{row} {t:.3f} s" for row, t in first.items()))
            for k in ks:
                if k >= len(Xtr):
                    continue
                runs, failed = [], {}
                for rep in range(REPEAT):
                    res, failed = one_run(Xtr, Xte, shape, k, rep)
                    runs.append(res)
                summ = summarize(runs)
                per_k[k] = dict(rows=summ, failed=failed, load=os.getloadavg())
                print(f"k = {k}  (load {os.getloadavg()[0]:.2f})")
                for row, v in summ.items():
                    e, t = v["error"], v["time"]
                    mine = PAIRED.get(row.split(" r=")[0], "pixsel")
                    ours_all = ((mine, variant(SHRUNK, mine)) if row.endswith(SHRUNK_MODEL)
                                else (variant(GREEDY, mine), variant(REFINED, mine)))
                    ratio = "".join(
                        f"  {ours}/row: error {summ[ours]['error']['median'] / e['median']:.3f}, time "
                        f"{summ[ours]['time']['median'] / t['median']:.2f}"
                        for ours in ours_all
                        if not row.startswith("pixsel") and ours in summ and t["median"] > 0)
                    print(f"  {row:32s} error {e['median']:.4f} (spread {e['spread']:.4f})  time {t['median']:.3f} s "
                          f"(spread {t['spread']:.3f}){ratio}")
                for row, why in failed.items():
                    print(f"  {row:32s} did not run: {why}")
            record["datasets"][name] = {str(k): v for k, v in per_k.items()}
    record["load_end"] = os.getloadavg()
    path = write_results(args, record)
    fig = plot(record, out_dir(args) / "bench_sensors.png")
    print(f"\nload average at end: {os.getloadavg()}\nwrote {path} and {fig}")
    return record


#: One colour and style per row, the same in every panel; pixsel solid, PySensors dashed.
STYLES = {
    "QR r=k": ("#d62728", "--"), "QR r=100": ("#ff9896", "--"),
    "TPGR r=k": ("#9467bd", "--"), "QR r=k, own predict": ("#8c564b", ":"), "random": ("#7f7f7f", ":"),
    "GQR r=k (centre <= k/5)": ("#d62728", "--"), "CCQR r=k (costs)": ("#98df8a", "--"),
    **{name + suffix: style for suffix, styles in (
        ("", (("pixsel", ("#1f5fa8", "-o")), (GREEDY, ("#6baed6", "-s")), (REFINED, ("#17becf", "-^")),
              (SHRUNK, ("#e377c2", "-D")))),
        (" (centre <= k/5)", (("pixsel", ("#1f5fa8", "-o")), (GREEDY, ("#6baed6", "-s")),
                              (REFINED, ("#17becf", "-^")))),
        (" (budget = CCQR's cost)", (("pixsel", ("#2ca02c", "-o")), (GREEDY, ("#98df8a", "-s")),
                                     (REFINED, ("#bcbd22", "-v")))))
       for name, style in styles},
    **{peer + SHRUNK_MODEL: style for peer, style in (
        ("QR r=k", ("#d62728", "--")), ("QR r=100", ("#ff9896", "--")), ("TPGR r=k", ("#9467bd", "--")),
        ("random", ("#7f7f7f", ":")), ("GQR r=k (centre <= k/5)", ("#d62728", "--")),
        ("CCQR r=k (costs)", ("#98df8a", "--")))},
}
PANELS = (("default model", ("pixsel", "QR r=k" + SHRUNK_MODEL, "QR r=100" + SHRUNK_MODEL, "TPGR r=k" + SHRUNK_MODEL,
                             "random" + SHRUNK_MODEL)),
          ("default model, constrained", ("pixsel (centre <= k/5)", "GQR r=k (centre <= k/5)" + SHRUNK_MODEL,
                                          "pixsel (budget = CCQR's cost)", "CCQR r=k (costs)" + SHRUNK_MODEL)),
          ("sample covariance", (GREEDY, REFINED, "QR r=k", "QR r=100", "TPGR r=k", "QR r=k, own predict", "random")),
          ("sample covariance, constrained", (variant(GREEDY, "pixsel (centre <= k/5)"),
                                              variant(REFINED, "pixsel (centre <= k/5)"), "GQR r=k (centre <= k/5)",
                                              variant(GREEDY, "pixsel (budget = CCQR's cost)"),
                                              variant(REFINED, "pixsel (budget = CCQR's cost)"), "CCQR r=k (costs)")))


def plot(record, path):
    """Error vs k: one column per data set; rows: the default's model (the covariance shrunk where
    its intensity asks for it) without and with constraints, then the sample covariance."""
    from matplotlib.figure import Figure

    names = list(record["datasets"])
    fig = Figure(figsize=(4.0 * len(names), 3.4 * len(PANELS)))
    axes = fig.subplots(len(PANELS), len(names), squeeze=False)
    for col, name in enumerate(names):
        data = record["datasets"][name]
        ks = sorted(int(k) for k in data)
        for row, (what, rows) in enumerate(PANELS):
            ax = axes[row, col]
            for r in rows:
                pts = [(k, data[str(k)]["rows"][r]["error"]["median"]) for k in ks if r in data[str(k)]["rows"]]
                if pts:
                    colour, style = STYLES[r]
                    ax.plot(*zip(*pts), style, color=colour, label=r, ms=3, lw=1.8 if r.startswith("pixsel") else 1.1)
            ax.set_xscale("log")
            ax.set_title(f"{name}: {what}", fontsize=9)
            ax.set_xlabel("k (sensors)", fontsize=8)
            ax.set_ylabel("held-out relative error", fontsize=8)
            ax.grid(alpha=0.3)
            if col == 0:  # the first set has every row (TPGR does not run on 64x64 images)
                ax.legend(fontsize=6, loc="upper right")
    fig.suptitle("Reconstruction from k pixels: pixsel beside PySensors (median of 3; the same reconstruction for "
                 "every placement in a panel but 'own predict'; top: the default's model, bottom: the sample "
                 "covariance)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


if __name__ == "__main__":
    main()
