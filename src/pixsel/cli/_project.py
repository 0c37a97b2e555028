"""``pixsel project``: reduce DATA to M dimensions; write projection.npz, projection.json, scatter.png."""

from __future__ import annotations

from pathlib import Path


from ._common import (
    add_data_argument,
    add_output_arguments,
    add_param_argument,
    add_seed_argument,
    check_param_keys,
    data_report,
    load_labelled,
    parse_params,
    progress,
    provenance,
    show_progress,
)


def _build(method, M, params, image_shape):
    cls = _classes()[method]
    check_param_keys(params, cls)
    if method == "smooth-lpp" and image_shape and "image_shape" not in params:
        params = dict(params, image_shape=tuple(image_shape))
    return cls(n_components=M, **params)


def _classes():
    from sklearn.decomposition import PCA

    from ..decomposition import (
        KernelLPP,
        LocalityPreservingProjection,
        NeighborhoodPreservingEmbedding,
        SparseLinearModelProjection,
        SpatiallySmoothLPP,
        SpectralRegressionLPP,
    )

    return {
        "slm": SparseLinearModelProjection,
        "lpp": LocalityPreservingProjection,
        "npe": NeighborhoodPreservingEmbedding,
        "sr-lpp": SpectralRegressionLPP,
        "smooth-lpp": SpatiallySmoothLPP,
        "klpp": KernelLPP,
        "pca": PCA,
    }


METHODS = {
    "slm": "sparse-linear-model projection (Gkioulekas and Zickler 2011); --param kernel=rbf for the kernel version",
    "lpp": "locality preserving projections",
    "npe": "neighborhood preserving embedding",
    "sr-lpp": "spectral-regression LPP",
    "smooth-lpp": "spatially smooth LPP (uses the image shape of DATA)",
    "klpp": "kernel LPP",
    "pca": "principal component analysis (scikit-learn)",
}

#: the methods in a few words, for the picture's title (the help text above is too long for one)
TITLES = {
    "slm": "sparse-linear-model projection",
    "lpp": "locality preserving projections",
    "npe": "neighborhood preserving embedding",
    "sr-lpp": "spectral-regression LPP",
    "smooth-lpp": "spatially smooth LPP",
    "klpp": "kernel LPP",
    "pca": "PCA",
}

_REPORTED = ("sigma_", "tau_", "eigenvalues_", "rank_", "n_iter_")


def add_parser(sub):
    p = sub.add_parser(
        "project",
        help="reduce the data to M dimensions and write projection.npz (and scatter.png for M = 2)",
        description=(
            "Fit METHOD on DATA and write DIR/projection.npz (Y: the projected samples, y: labels if "
            "any, components: the projection matrix for linear methods), DIR/projection.json (method, "
            "parameters, fitted scales and eigenvalues) and, for M = 2, DIR/scatter.png."
        ),
    )
    add_data_argument(p)
    p.add_argument("-n", "--n-components", dest="M", metavar="M", type=int, required=True,
                   help="target dimension M")
    p.add_argument("--method", "-m", default="slm", choices=sorted(METHODS),
                   help="; ".join(f"{k}: {v}" for k, v in METHODS.items()))
    p.add_argument("--normalize", action="store_true",
                   help="scale every sample to unit Euclidean length first (as Gkioulekas and Zickler do for faces)")
    add_seed_argument(p, "methods that have a random_state")
    add_param_argument(p, "--param n_atoms=256 --param alpha=0.05 (passed to the estimator)")
    add_output_arguments(p, "pixsel-project")
    p.set_defaults(func=run)


def run(args):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    import numpy as np

    from ..io import save_figure, write_json, write_npz
    data = load_labelled(args, need_labels=False)
    X = np.asarray(data.X, dtype=np.float64)
    if args.normalize:
        norms = np.linalg.norm(X, axis=1, keepdims=True)
        X = X / np.where(norms > 0, norms, 1.0)
    params = parse_params(args.param)
    est = _build(args.method, args.M, params, data.image_shape)
    if "random_state" in est.get_params() and "random_state" not in params:
        est.set_params(random_state=args.seed)
    if "progress" in est.get_params() and "progress" not in params:
        # the estimator reports its own steps (SLM: dictionary-learning epochs)
        est.set_params(progress=show_progress(args))
        Y = est.fit_transform(X)
    else:
        with progress(1, f"{args.method} fit", args) as bar:
            Y = est.fit_transform(X)
            bar.update(1)
    out = Path(args.out)
    arrays = {"Y": Y}
    if data.y is not None:
        arrays["y"] = np.asarray(data.y)
    if hasattr(est, "components_") and est.components_.shape[0] == args.M:
        arrays["components"] = est.components_
    write_npz(out / "projection.npz", **arrays)
    report = provenance(
        args, method=args.method, n_components=int(args.M), **data_report(data), normalized=bool(args.normalize),
        parameters={k: repr(v) if not isinstance(v, (int, float, str, bool, type(None))) else v
                    for k, v in est.get_params(deep=False).items() if k != "dictionary"},
    )
    for name in _REPORTED:
        if hasattr(est, name):
            report[name.rstrip("_")] = getattr(est, name)
    write_json(out / "projection.json", report)
    written = [out / "projection.npz", out / "projection.json"]
    if args.M == 2:
        from ..viz import plot_scatter

        fig = plot_scatter(Y, data.y, title=f"{TITLES[args.method]}: {Path(args.data).name}",
                           class_names=data.class_names)
        written.append(save_figure(fig, out / "scatter.png", dpi=120))
    if not args.quiet:
        print(f"projected {X.shape[0]} samples from {X.shape[1]} to {args.M} dimensions with {args.method}")
        print("wrote " + ", ".join(str(w) for w in written))
    return 0
