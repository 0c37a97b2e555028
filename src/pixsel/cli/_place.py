"""``pixsel place``: place k sensors (pixels) on images and reconstruct the images from them.

Writes ``DIR/place.json`` (the sensors in the order chosen, after the swaps of ``--refine`` when
they ran, the greedy's order, the shrinkage used, the kept-mass path, the held-out
relative error at every k of the path, the parameters) and, for image data,
``DIR/sensors.png`` (the sensors over the mean training image), ``DIR/reconstructions.png``
(a few held-out images above their reconstructions), ``DIR/uncertainty.png`` (the posterior
standard deviation of every pixel given the sensors) and ``DIR/error_vs_k.png``. With
``--exact SECONDS`` the sensors are the certified best ``K`` pixels for the kept mass
(``ColumnSubsetSelector(solver='exact')``; under ``--always-select``, ``--never-select`` and
``--min-distance``, the best placement that satisfies them), and ``place.json`` adds the search's
status and gap.
"""

from __future__ import annotations

from pathlib import Path

from ._common import add_data_argument, add_output_arguments, add_seed_argument, data_report, load_labelled, provenance


def _indices(text):
    return [int(v) for v in text.split(",") if v.strip()] if text else None


def _alpha(text):
    return text if text == "auto" else float(text)


def _shrinkage(text):
    import argparse

    if text in ("auto", "none"):
        return text
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not 0 <= value <= 1:  # argparse prints this message and exits 2
        raise argparse.ArgumentTypeError(f"must be auto, none or an intensity in [0, 1]; got {text!r}")
    return value


#: --refine's words and PixelReconstructor's values
_REFINE = {"auto": "auto", "yes": True, "no": False}


def add_parser(sub):
    p = sub.add_parser(
        "place",
        help="place k sensors (pixels) and reconstruct whole images from their readings",
        description=(
            "Choose K pixels of the images in DATA from which the whole images are best reconstructed "
            "(greedy column subset; reconstruction by ridge least squares under the training covariance), "
            "holding out --holdout of the images to measure the error. Writes DIR/place.json and, when the "
            "image shape is known, DIR/sensors.png, DIR/reconstructions.png, DIR/uncertainty.png and "
            "DIR/error_vs_k.png."
        ),
    )
    add_data_argument(p, split=False)
    p.add_argument("-k", "--k", type=int, required=True, metavar="K", help="sensors to place")
    p.add_argument("--alpha", type=_alpha, default="auto",
                   help="noise variance of a reading, as a fraction of the mean pixel variance, or auto: chosen by "
                        "cross-validation on the training images (default: auto)")
    p.add_argument("--min-distance", type=float, default=None, metavar="D",
                   help="every two sensors at least D pixels apart")
    p.add_argument("--always-select", default=None, metavar="I,J,...",
                   help="installed sensors (flattened pixel indices, row-major), chosen first")
    p.add_argument("--never-select", default=None, metavar="I,J,...", help="pixels never chosen")
    p.add_argument("--exact", type=float, default=None, metavar="SECONDS",
                   help="certified placement: the best K pixels for the kept mass, searched for at most SECONDS "
                        "(ColumnSubsetSelector(solver='exact')); place.json reports the status and the certified "
                        "gap; under --always-select, --never-select and --min-distance, the best K placements "
                        "that satisfy them. Grey images only; needs Numba: pip install 'pixsel[numba]'")
    p.add_argument("--refine", nargs="?", const="yes", default="auto", choices=tuple(_REFINE),
                   help="improve the K greedy sensors by swaps that raise the kept mass, under the same constraints "
                        "(PixelReconstructor(refine=...)): yes (also --refine alone), no, or auto: swaps with more "
                        "training images than pixels when the covariance is not shrunk, where they lower the "
                        "held-out error (default: auto); grey images only")
    p.add_argument("--shrinkage", type=_shrinkage, default="auto",
                   help="shrink the pixel covariance towards a stationary one (PixelReconstructor(shrinkage=...)): "
                        "auto (the Ledoit-Wolf intensity, applied when it is at least 0.05: few images of many "
                        "pixels), none (the sample covariance), or an intensity in [0, 1]; grey images of known "
                        "shape (default: auto; none with --exact, whose certificate is on the sample covariance)")
    p.add_argument("--holdout", type=float, default=0.2,
                   help="fraction of the images held out to measure the reconstruction (default: 0.2)")
    add_seed_argument(p, "the held-out split")
    add_output_arguments(p, "pixsel-place")
    p.set_defaults(func=run)


def run(args):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    import numpy as np

    from ..io import save_figure, write_json
    from ..selection import ColumnSubsetSelector, PixelReconstructor

    if not 0 < args.holdout < 1:
        raise ValueError(f"--holdout must be in (0, 1); got {args.holdout}.")
    if args.exact is not None:
        if args.exact < 0:
            raise ValueError(f"--exact must be a number of seconds >= 0; got {args.exact}.")
        if args.refine == "yes":
            raise ValueError("--exact places the certified best K pixels already; drop --refine (the swaps of the "
                             "greedy placement) or --exact.")
        if args.shrinkage not in ("auto", "none"):
            raise ValueError("--exact certifies the kept mass of the sample covariance, and the sensors are "
                             "reconstructed under it: drop --shrinkage or --exact.")
        from .._routes import require_compiled

        require_compiled("--exact")  # before the data are read: the exact search needs the extra `numba`
    data = load_labelled(args, need_labels=False)
    X = np.asarray(data.X)
    n, p = X.shape
    rng = np.random.default_rng(args.seed)
    perm = rng.permutation(n)
    n_test = max(1, int(round(args.holdout * n)))
    if n - n_test < 2:
        raise ValueError(f"{args.data} has {n} images: too few to hold out {n_test} and fit on the rest; lower "
                         "--holdout or add images.")
    test, train = perm[:n_test], perm[n_test:]
    shape = tuple(data.image_shape) if data.image_shape and int(np.prod(data.image_shape)) == p else None
    always, exact = _indices(args.always_select), None
    if args.exact is not None:
        if shape is not None and len(shape) == 3:
            raise ValueError("--exact places pixels of grey images; these images have colour channels. Drop --exact "
                             "for the greedy placement, which measures every channel of a pixel.")
        exact = ColumnSubsetSelector(args.k, solver="exact", time_limit=args.exact, progress=not args.quiet,
                                     always_select=always, never_select=_indices(args.never_select),
                                     min_distance=args.min_distance,
                                     image_shape=None if shape is None else shape[:2]).fit(X[train])
        always = exact.order_.tolist()
    rec = PixelReconstructor(args.k, alpha=args.alpha, min_distance=args.min_distance,
                             always_select=always, never_select=_indices(args.never_select),
                             image_shape=None if shape is None else shape[:2] if len(shape) == 2 else None,
                             refine=_REFINE[args.refine],
                             shrinkage=None if args.shrinkage == "none" or exact is not None else args.shrinkage)
    if shape is not None and len(shape) == 3:
        rec.fit(X[train].reshape((-1, *shape)))
    else:
        rec.fit(X[train])
    k = rec.n_features_to_select_
    Xte = X[test]
    mean = rec.mean_

    def error(kk):
        Y = rec.predict(Xte[:, rec.get_support_at(kk)], k=kk).reshape(Xte.shape)
        return float(np.linalg.norm(Xte - Y) / max(np.linalg.norm(Xte - mean), np.finfo(float).tiny))

    errors = [error(kk) for kk in range(1, k + 1)]
    out = Path(args.out)
    report = provenance(args, **data_report(data), k=k, alpha=args.alpha, alpha_used=rec.alpha_, min_distance=args.min_distance,
                        always_select=_indices(args.always_select), never_select=_indices(args.never_select),
                        n_train=int(train.size), n_test=int(test.size), seed=args.seed,
                        refine=_REFINE[args.refine], shrinkage=args.shrinkage, shrinkage_used=rec.shrinkage_,
                        sensors=rec.sensors_.tolist(), greedy_order=rec.order_.tolist(),
                        kept_mass_fraction=rec.objective_path_.tolist(), kept_mass_fraction_at_k=float(rec.objective_),
                        heldout_relative_error=errors)
    if hasattr(rec, "n_swaps_"):  # the swaps ran (asked for, or refine=auto took them)
        report["n_swaps"] = int(rec.n_swaps_)
    if exact is not None:
        report["exact"] = {"time_limit_s": args.exact, "status": exact.status_, "kept_mass_fraction":
                           float(exact.objective_path_[-1]), "upper_bound": exact.upper_bound_, "gap": exact.gap_,
                           "n_nodes": exact.n_nodes_}
    written = [write_json(out / "place.json", report)]
    if shape is not None:
        written += _pictures(rec, X[train], Xte, shape, errors, out, Path(args.data).name, save_figure)
    if not args.quiet:
        print(f"placed {k} sensors on {p // (shape[2] if shape and len(shape) == 3 else 1)} pixels "
              f"({train.size} training images); held-out relative error {errors[-1]:.4f} "
              f"(1 sensor: {errors[0]:.4f})")
        if rec.shrinkage_ > 0 or hasattr(rec, "n_swaps_"):  # what the defaults (or the options) did
            done = ([f"covariance shrunk by {rec.shrinkage_:.3g}"] if rec.shrinkage_ > 0 else []) + (
                [f"{rec.n_swaps_} swap(s) after the greedy"] if hasattr(rec, "n_swaps_") else [])
            print("; ".join(done))
        if exact is not None:
            print(f"exact placement: {exact.status_}, kept mass {exact.objective_path_[-1]:.4f}, certified gap "
                  f"{100 * exact.gap_:.3g} % ({exact.n_nodes_} nodes)")
        print("wrote " + ", ".join(str(w) for w in written))
    return 0


def _pictures(rec, Xtr, Xte, shape, errors, out, where, save_figure):
    import numpy as np
    from matplotlib.figure import Figure

    def show(ax, img, title, cmap="gray"):
        img = img.reshape(shape)
        if img.ndim == 3:
            lo, hi = float(img.min()), float(img.max())
            img = (img - lo) / (hi - lo) if hi > lo else np.zeros_like(img)
            ax.imshow(img)
        else:
            ax.imshow(img, cmap=cmap)
        ax.set_title(title, fontsize=8)
        ax.set_axis_off()

    rows, cols = np.divmod(rec.sensors_, shape[1])  # the fitted sensors (the greedy's, or after its swaps)
    written = []
    fig = Figure(figsize=(4.2, 4.2))
    ax = fig.add_subplot()
    show(ax, Xtr.mean(axis=0), f"{where}: {rec.order_.size} sensors over the mean image")
    ax.scatter(cols, rows, s=28, facecolors="none", edgecolors="#e8362d", linewidths=1.4)
    written.append(save_figure(fig, out / "sensors.png", dpi=120))

    m = min(6, len(Xte))
    rebuilt = rec.predict(Xte[:m, rec.get_support()]).reshape(m, -1)
    fig = Figure(figsize=(1.6 * m, 3.6))
    for i in range(m):
        show(fig.add_subplot(2, m, i + 1), Xte[i], "held out" if i == 0 else "")
        show(fig.add_subplot(2, m, m + i + 1), rebuilt[i], f"from {rec.order_.size} pixels" if i == 0 else "")
    fig.suptitle(f"held-out images (top) and their reconstructions (bottom); relative error {errors[-1]:.3f}",
                 fontsize=9)
    written.append(save_figure(fig, out / "reconstructions.png", dpi=120))

    fig = Figure(figsize=(4.6, 4.0))
    ax = fig.add_subplot()
    std = np.asarray(rec.std_).reshape(shape)
    im = ax.imshow(std if std.ndim == 2 else std.mean(axis=2), cmap="magma")
    ax.scatter(cols, rows, s=14, c="#39d0ff", marker="x", linewidths=1)
    ax.set_title("posterior std of each pixel given the sensors (x)", fontsize=8)
    ax.set_axis_off()
    fig.colorbar(im, ax=ax, shrink=0.8)
    written.append(save_figure(fig, out / "uncertainty.png", dpi=120))

    fig = Figure(figsize=(4.6, 3.4))
    ax = fig.add_subplot()
    ax.plot(np.arange(1, len(errors) + 1), errors, "-", color="#1f5fa8")
    ax.set_xlabel("sensors k")
    ax.set_ylabel("held-out relative error")
    ax.set_ylim(0, max(1.0, max(errors)))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    written.append(save_figure(fig, out / "error_vs_k.png", dpi=120))
    return written
