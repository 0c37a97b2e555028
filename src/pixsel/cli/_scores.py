"""``pixsel scores``: every feature score of DATA, as score maps.

The maps of C. Musco and C. Musco, "Subspace scores for feature selection in computer vision",
Fig. 8.

Writes ``DIR/scores.json`` (each score per feature, its direction, gamma, the parameters) and, for
image data, ``DIR/score_maps.png`` (all maps side by side) and one ``DIR/<score>.png`` per score,
lighter = more important (for the Laplacian scores, where lower is better, the map shows the
importance ``1 - L``).
"""

from __future__ import annotations

from pathlib import Path


from ._cluster import add_cluster_arguments, cluster, wants_cluster
from ._common import (
    add_data_argument,
    add_output_arguments,
    add_param_argument,
    add_seed_argument,
    parse_params,
    data_report,
    load_labelled,
    progress,
    provenance,
    show_progress,
)

_SCORE_TITLES = {
    "variance": "variance",
    "laplacian": "Laplacian score (shown as 1 - L)",
    "supervised_laplacian": "supervised Laplacian score (1 - L)",
    "fisher": "Fisher score",
}
_UNSUPERVISED = ("variance", "laplacian")
_SUPERVISED = ("supervised_laplacian", "fisher")


def add_parser(sub):
    p = sub.add_parser(
        "scores",
        help="compute subspace and baseline feature scores and write them as score maps",
        description=(
            "Score every feature of DATA by subspace scores (one map per --rank) and by the "
            "baselines (variance, Laplacian score; with labels also supervised Laplacian and "
            "Fisher scores). Writes DIR/scores.json and, when the image shape is known, "
            "DIR/score_maps.png and DIR/<score>.png (brighter = more important, with a colorbar)."
        ),
    )
    add_data_argument(p)
    p.add_argument("--rank", type=int, action="append", default=None, metavar="M",
                   help="rank m of the subspace scores (repeatable; default: 10 and 40, capped "
                        "below min(n_samples, n_features))")
    p.add_argument("--gamma", default="balanced",
                   help="subspace-score gamma: balanced, theory or a number (default: balanced)")
    p.add_argument("--n-neighbors", type=int, default=5,
                   help="neighbours of the Laplacian-score kNN graph (default: 5)")
    p.add_argument("--no-baselines", action="store_true", help="subspace scores only")
    p.add_argument("--channels", action="store_true",
                   help="colour images: one map per channel value (red, green, blue) instead of one map per "
                        "pixel (its channels' scores summed)")
    add_param_argument(p, "--param n_iter=8 (Krylov iterations of the subspace scores; center, heat_width)")
    add_seed_argument(p, "the Krylov SVD")
    add_cluster_arguments(p)
    add_output_arguments(p, "pixsel-scores")
    p.set_defaults(func=run)


#: ``--param`` keys: those of the subspace scores and of the baselines that no flag sets
_SUBSPACE_PARAMS, _BASELINE_PARAMS = ("center", "n_iter"), ("heat_width",)


def _split_params(params):
    """``--param`` pairs for SubspaceScoreSelector and for ScoreSelector; any other key is refused."""
    from ._errors import UsageError

    unknown = sorted(set(params) - set(_SUBSPACE_PARAMS) - set(_BASELINE_PARAMS))
    if unknown:
        raise UsageError(f"unknown --param {', '.join(unknown)} for pixsel scores; the valid keys are: "
                         f"{', '.join(_SUBSPACE_PARAMS + _BASELINE_PARAMS)} (rank, gamma, n_neighbors and the "
                         "seed have flags: --rank, --gamma, --n-neighbors, --seed).")
    return ({k: v for k, v in params.items() if k in _SUBSPACE_PARAMS},
            {k: v for k, v in params.items() if k in _BASELINE_PARAMS})


def _gamma(value):
    try:
        return float(value)
    except ValueError:
        return value


def run(args):
    # imported here, not at the top: `pixsel --help` must not pay for NumPy
    import numpy as np

    from ..io import save_figure, write_json
    from ..scores import importance
    from ..selection import ScoreSelector, SubspaceScoreSelector

    from .._validation import is_dask_array

    params = parse_params(args.param)
    sub_params, base_params = _split_params(params)
    data = load_labelled(args, need_labels=False, lazy=True)
    if args.channels and not (data.image_shape and len(data.image_shape) == 3):
        from ._errors import UsageError

        raise UsageError(f"--channels draws one map per colour channel; {args.data} holds grey images (or no "
                         "image shape): drop --channels.")
    X, y = data.X, data.y
    n, p = X.shape
    cap = min(n, p) - 1
    ranks = args.rank or [r for r in (10, 40) if r <= cap] or [max(1, cap)]
    criteria = [] if args.no_baselines else list(_UNSUPERVISED)
    if y is not None and not args.no_baselines:
        criteria += list(_SUPERVISED)
    if is_dask_array(X) and "laplacian" in criteria:  # its kNN graph needs every sample at once
        criteria.remove("laplacian")
        data.notes.append("the Laplacian score was skipped: its neighbour graph needs all samples in memory "
                          "(a store is read chunk by chunk); the supervised Laplacian score runs")
        if not args.quiet:
            print(f"note: {data.notes[-1]}")
    results = {}
    with cluster(args, progress=show_progress(args)), \
            progress(len(ranks) + len(criteria), "scores", args, enabled=not wants_cluster(args)) as bar:
        for m in ranks:
            sel = SubspaceScoreSelector(1, rank=m, gamma=_gamma(args.gamma),
                                        random_state=args.seed, **sub_params).fit(X)
            results[f"subspace_m{m}"] = dict(
                scores=sel.scores_, importance=sel.scores_, higher_is_better=True,
                gamma=sel.gamma_, rank=m, leverage=sel.leverage_, residual=sel.residual_,
                singular_values=sel.singular_values_,
                title=f"subspace score, rank {m}")
            bar.update(1)
        for name in criteria:
            sel = ScoreSelector(1, criterion=name, n_neighbors=args.n_neighbors, **base_params)
            sel.fit(X, y) if name in _SUPERVISED else sel.fit(X)
            results[name] = dict(scores=sel.scores_, importance=importance(name, sel.scores_),
                                 higher_is_better=sel.higher_is_better_,
                                 title=_SCORE_TITLES[name])
            bar.update(1)
    out = Path(args.out)
    report = provenance(args, **data_report(data),
                        scores={k: {kk: vv for kk, vv in v.items() if kk != "title"}
                                for k, v in results.items()})
    written = [write_json(out / "scores.json", report)]
    if data.image_shape and int(np.prod(data.image_shape)) == p:
        from ..viz import plot_score_maps

        channels = "each" if args.channels else "sum"

        where = Path(args.data).name
        for name, r in results.items():
            fig = plot_score_maps({name: r["importance"]}, data.image_shape, titles={name: f"{r['title']}\n{where}"},
                                  channels=channels)
            written.append(save_figure(fig, out / f"{name}.png", dpi=120))
        fig = plot_score_maps({n: r["importance"] for n, r in results.items()}, data.image_shape,
                              titles={n: r["title"] for n, r in results.items()},
                              suptitle=f"{where}: feature scores (brighter = more important)", channels=channels)
        written.append(save_figure(fig, out / "score_maps.png", dpi=120))
    if not args.quiet:
        print(f"scored {p} features of {n} samples: {', '.join(results)}")
        print("wrote " + ", ".join(str(w) for w in written))
    return 0
