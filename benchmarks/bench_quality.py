"""Held-out quality of the selected pixels: pixsel against the selectors users already use.

What a user judges pixels by: the accuracy they buy on new images at a given ``k``, how stable
the choice is, how long it takes. For every data set, on ``--splits`` seeded stratified
train/test splits and every ``k`` in ``--ks`` (capped at the non-constant features), each selector
is fitted on the training part and four classifiers are trained on the selected pixels and
scored on the test part: shrinkage LDA, logistic regression, 1-NN and a linear SVM (the last
two on standardized pixels). Unsupervised rows are scored by k-means on the test part (as many
clusters as classes): accuracy after the Hungarian matching of clusters to classes, and NMI.

Supervised selectors: ``SparseLDASelector`` at its defaults and with the documented options
(the criteria, directions and ridges it offers; the stability option as a user asks for it,
the defaults with ``stability=20``, the same with cluster stability selection,
``stability_correlation=0.9``, and with the papers' settings), ``CardinalSPLSSelector``
and ``ScoreSelector(criterion='fisher')`` at their defaults; peers ``SelectKBest(f_classif)``,
``SelectKBest(mutual_info_classif)``, L1-logistic (``SelectFromModel(max_features=k,
threshold=-inf)`` on standardized pixels, ``C`` chosen by 3-fold ``LogisticRegressionCV``),
ExtraTrees importances (``SelectFromModel``, 100 trees), mRMR (``mrmr-selection``: F-statistic
relevance, correlation redundancy), FastCan (scikit-learn-contrib's sum of squared canonical
correlations with the one-hot labels, greedy and with ``beam_width=5``), random pixels (mean
over 5 draws) and all pixels. ``yaleb5`` and ``pie5`` are the few-images-per-class protocol:
Extended Yale B and CMU PIE with 5 training images per person drawn at random, the rest for
testing; ``yaleb30`` and ``pie30`` (run when named) the same with 30 per person.
Unsupervised: highest-variance pixels, random pixels, PCA with ``k`` components,
``SparsePCASelector``, ``SubspaceScoreSelector`` (``mode='top'``, ``'sample'`` and ``'distinct'``) and
``ColumnSubsetSelector`` (greedy and pivoted QR). A peer that raises on a data set is reported
as failed, with its message, never dropped.

Per selector and data set the script also reports the median fit time over the splits and the
mean pairwise Jaccard index of the supports at ``k = 25`` (capped likewise) over 5 bootstrap
resamples of the first split's training part.

Goals (issue "Pixels that win on held-out accuracy"): the default supervised selector best or
within 1 point of the best peer in every (data set, k, classifier) cell and never below random
pixels, its fit time <= 10 x L1-logistic's; with the stability option, Jaccard at k = 25 >=
L1-logistic's; the default unsupervised selector >= 3 points of k-means accuracy above random
and highest-variance pixels and within 3 points of PCA.

    python benchmarks/bench_quality.py --datasets digits sonar --splits 3 --budget 3600
    python benchmarks/bench_quality.py --quick        # seconds: Sonar, 2 splits, k in {5, 10}
    python benchmarks/bench_quality.py --stability-figure usps35   # the docs' selection frequencies

The reserved evaluation sets of the shared data folder are never read here.
"""

from __future__ import annotations

import time
import traceback
import warnings

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from scipy.optimize import linear_sum_assignment
from sklearn.base import clone
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectFromModel, f_classif, mutual_info_classif
from sklearn.linear_model import LogisticRegression, LogisticRegressionCV
from sklearn.metrics import normalized_mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

import pixsel
from pixsel.datasets import load_shared
from pixsel.io import save_figure

ALL_DATASETS = ("usps10", "usps35", "yaleb", "pie", "yaleb5", "pie5", "brodatz", "digits", "sonar", "ionosphere",
                "colon")
#: the images-per-class protocol: Extended Yale B and CMU PIE with 5 training images per person
#: (in the default run) or 30 (``yaleb30``, ``pie30``: asked by name), drawn at random, the rest for testing
FEW_PER_PERSON = {"yaleb5": ("yaleb", 5), "pie5": ("pie", 5), "yaleb30": ("yaleb", 30), "pie30": ("pie", 30)}
#: data sets run only when named in ``--datasets``
NAMED_ONLY = ("yaleb30", "pie30")
KS = (5, 10, 25, 50, 100)
CLASSIFIERS = ("lda", "logistic", "1nn", "svm")
RANDOM_DRAWS = 5
JACCARD_K = 25
BOOTSTRAPS = 5
#: Brodatz textures cut into patches (the sparse-linear-model texture experiment's seven, plus D1)
BRODATZ = ("D1", "D4", "D5", "D8", "D12", "D17", "D84", "D92")


# -- data ----------------------------------------------------------------------------------------
def load_dataset(name, quick):
    """``(X float64, y, train_spec, image_shape)``; ``train_spec`` an int per class or a fraction."""
    if name in FEW_PER_PERSON:  # so many training images per person drawn at random, the rest for testing
        base, per = FEW_PER_PERSON[name]
        X, y, _, shape = load_dataset(base, quick)
        return X, y, per, shape
    if name == "usps10":
        d = load_shared("usps_full_16x16.npz")
        X, y = d["X"], d["y"]
        n = 600 if quick else 4000  # 2000 train / 2000 test
        idx = np.random.default_rng(0).permutation(len(y))[:n]
        return X[idx], y[idx], 0.5, (16, 16)
    if name == "usps35":
        d = load_shared("usps_3v5_split.npz")
        X = np.vstack([d["X_train"], d["X_test"]])
        y = np.concatenate([d["y_train"], d["y_test"]])
        return X, y, 0.5, (16, 16)
    if name in ("yaleb", "pie"):
        d = load_shared("extyaleb_32x32.npz" if name == "yaleb" else "cmupie_32x32.npz")
        return d["X"], d["y"], 15 if name == "yaleb" else 10, (32, 32)
    if name == "brodatz":
        d = load_shared("brodatz_112_640x640.npz")
        ids = [str(t) for t in d["texture_ids"]]
        rng = np.random.default_rng(0)
        side, per = 16, 30 if quick else 100
        Xs, ys = [], []
        for c, tid in enumerate(BRODATZ):
            img = d["X"][ids.index(tid)].reshape(640, 640).astype(np.float64)
            r, s = rng.integers(0, 640 - side, per), rng.integers(0, 640 - side, per)
            Xs.append(np.stack([img[a:a + side, b:b + side].ravel() for a, b in zip(r, s)]))
            ys.append(np.full(per, c))
        return np.vstack(Xs), np.concatenate(ys), 0.5, (side, side)
    if name == "digits":
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        return X, y, 0.5, (8, 8)
    files = {"sonar": "uci_sonar.npz", "ionosphere": "uci_ionosphere.npz", "colon": "alon_colon.npz"}
    d = load_shared(files[name])
    X = d["X"].astype(np.float64)
    if name == "colon":
        X = np.log2(np.maximum(X, 1.0))  # microarray intensities: the usual log scale
    return X, d["y"], 0.5, None


def split(X, y, spec, seed):
    """A stratified split: ``spec`` training samples per class (int) or a training fraction."""
    if isinstance(spec, int):
        rng = np.random.default_rng(seed)
        tr = np.concatenate([rng.permutation(np.flatnonzero(y == c))[:spec] for c in np.unique(y)])
        te = np.setdiff1d(np.arange(len(y)), tr)
        return tr, te
    idx = np.arange(len(y))
    return train_test_split(idx, train_size=spec, stratify=y, random_state=seed)


# -- selectors: each returns {k: indices} for the requested ks ------------------------------------
def _top(scores, ks):
    order = np.argsort(-np.nan_to_num(np.asarray(scores, dtype=float), nan=-np.inf), kind="stable")
    return {k: np.sort(order[:k]) for k in ks}


def _path(est, ks):
    def fit(X, y, seed):
        sel = clone(est).set_params(n_features_to_select=max(ks)).fit(X, y)
        return {k: sel.get_support_at(k, indices=True) for k in ks}

    return fit


def _per_k(est):
    def fit(X, y, seed):
        return {k: clone(est).set_params(n_features_to_select=k).fit(X, y).get_support(indices=True) for k in KS_RUN}

    return fit


def _f_classif(X, y, seed):
    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant pixels
        return _top(f_classif(X, y)[0], KS_RUN)


def _mutual_info(X, y, seed):
    return _top(mutual_info_classif(X, y, random_state=seed), KS_RUN)


def _from_model(model, X, y):
    """``SelectFromModel(max_features=k, threshold=-inf)`` for every k from one fitted model."""
    fitted = model.fit(X, y)
    out = {}
    for k in KS_RUN:
        sfm = SelectFromModel(fitted, prefit=True, max_features=k, threshold=-np.inf)
        out[k] = sfm.get_support(indices=True)
        assert out[k].size == k, (out[k].size, k)  # the peer did the work asked of it
    return out


def _l1_logistic(X, y, seed):
    Xs = StandardScaler().fit_transform(X)
    binary = len(np.unique(y)) == 2
    model = LogisticRegressionCV(Cs=5, cv=3, l1_ratios=(1.0,), solver="liblinear" if binary else "saga",
                                 scoring="accuracy", max_iter=200 if binary else 100, tol=1e-3,
                                 use_legacy_attributes=False, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return _from_model(model, Xs, y)


def _extra_trees(X, y, seed):
    return _from_model(ExtraTreesClassifier(n_estimators=100, random_state=seed, n_jobs=1), X, y)


def _mrmr_relevance(X, y):
    """mrmr-selection's ``relevance='f'`` (the F-statistic per column, NaN as 0), in one call."""
    import pandas as pd

    with np.errstate(divide="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant pixels
        f = f_classif(X.to_numpy(), y.to_numpy())[0]
    return pd.Series(np.nan_to_num(f, nan=0.0), index=X.columns)


def _mrmr_redundancy(X, target_column, features):
    """mrmr-selection's ``redundancy='c'`` (Pearson correlation with the last chosen column, NaN
    as 0), as one matrix-vector product instead of pandas' column loop."""
    import pandas as pd

    A, t = X[features].to_numpy(), X[target_column].to_numpy()
    A, t = A - A.mean(axis=0), t - t.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (A.T @ t) / np.sqrt((A * A).sum(axis=0) * (t @ t))
    return pd.Series(np.nan_to_num(r, nan=0.0), index=features)


def _mrmr(X, y, seed):
    """``mrmr_classif`` of mrmr-selection with its default F-statistic relevance and correlation
    redundancy, both passed as vectorized callables: the same selection in the same order
    (checked on Sonar and colon), 7 x faster on colon's 2000 genes than the package's per-column
    pandas loops (45 s a fit there)."""
    import pandas as pd
    from mrmr import mrmr_classif

    cols = [f"f{i}" for i in range(X.shape[1])]
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        chosen = mrmr_classif(pd.DataFrame(X, columns=cols), pd.Series(y), K=max(KS_RUN), relevance=_mrmr_relevance,
                              redundancy=_mrmr_redundancy, n_jobs=1, show_progress=False)
    order = np.array([cols.index(c) for c in chosen])
    out = {k: np.sort(order[:k]) for k in KS_RUN}
    for k in KS_RUN:
        assert out[k].size == k, (out[k].size, k)
    return out


def _variance(X, y, seed):
    return _top(np.var(X, axis=0), KS_RUN)


def _lda(**kw):
    """A path row: one fit at the largest k, every k read from the path. With the criterion
    chosen by cross-validation, or with swaps at k (``refine``, on by default), the support
    depends on k, so the selector is fitted at every k (what ``SparseLDASelector(k, ...)`` gives
    a user)."""
    est = pixsel.SparseLDASelector(**kw)
    per_k = kw.get("criterion") == "cv" or est.get_params()["refine"] is not False
    return _per_k(est) if per_k else _path(est, KS_RUN)


def _fastcan(beam_width):
    """FastCan (scikit-learn-contrib) on the one-hot labels: the sum of squared canonical
    correlations, the multiclass LDA trace criterion. Its greedy search is nested (one fit at the
    largest k, ``indices_`` read in order); a beam search is fitted at every k."""

    def fit(X, y, seed):
        from fastcan import FastCan

        Y = (y[:, None] == np.unique(y)[None, :]).astype(np.float64)
        # a constant pixel has no correlation with anything: FastCan's scaling divides by 0 on it
        live = np.flatnonzero(np.ptp(X, axis=0) > 0)
        out = {}
        if beam_width == 1:
            sel = FastCan(max(KS_RUN), verbose=0).fit(X[:, live], Y)
            order = live[np.asarray(sel.indices_)]
            out = {k: np.sort(order[:k]) for k in KS_RUN}
        else:
            for k in KS_RUN:
                sel = FastCan(k, beam_width=beam_width, verbose=0).fit(X[:, live], Y)
                out[k] = np.sort(live[sel.get_support(indices=True)])
        for k in KS_RUN:
            assert out[k].size == k, (out[k].size, k)  # the peer did the work asked of it
        return out

    return fit


#: The SparseLDASelector options compared; the row whose options are the installed default is
#: also reported as "pixsel LDA (default)" (same fit, not run twice).
LDA_ROWS = {
    "pixsel LDA max-eig dual (papers)": {"criterion": "max-eig", "direction": "dual", "regularization": "auto",
                                         "refine": False},
    "pixsel LDA trace dual": {"criterion": "trace", "direction": "dual", "regularization": "auto", "refine": False},
    "pixsel LDA trace forward": {"criterion": "trace", "direction": "forward", "regularization": "auto",
                                 "refine": False},
    "pixsel LDA cv forward": {"criterion": "cv", "direction": "forward", "regularization": "auto", "refine": False},
    "pixsel LDA trace auto": {"criterion": "trace", "direction": "auto", "regularization": "auto", "refine": "auto"},
    # the searches the default was chosen among, at the default regularization
    "pixsel LDA trace forward rda": {"criterion": "trace", "direction": "forward", "regularization": "rda",
                                     "refine": False},
    "pixsel LDA trace dual rda": {"criterion": "trace", "direction": "dual", "regularization": "rda", "refine": False},
    "pixsel LDA trace cv rda": {"criterion": "trace", "direction": "cv", "regularization": "rda", "refine": False},
    "pixsel LDA trace auto rda": {"criterion": "trace", "direction": "auto", "regularization": "rda",
                                  "refine": "auto"},
    # FastCan's criterion (the trace with the total covariance) with the default search
    "pixsel LDA correlation auto rda": {"criterion": "correlation", "direction": "auto", "regularization": "rda",
                                        "refine": "auto"},
    "pixsel LDA correlation auto auto": {"criterion": "correlation", "direction": "auto", "regularization": "auto",
                                         "refine": "auto"},
    # the ridge chosen from the data in one pass (Ledoit and Wolf's shrinkage of the within-class covariance)
    "pixsel LDA correlation auto ledoit-wolf": {"criterion": "correlation", "direction": "auto",
                                                "regularization": "ledoit-wolf", "refine": "auto"},
    # criterion='auto': 'correlation' with more than two classes, 'trace' with two (the same supports)
    "pixsel LDA auto auto rda": {"criterion": "auto", "direction": "auto", "regularization": "rda", "refine": "auto"},
    "pixsel LDA auto auto ledoit-wolf": {"criterion": "auto", "direction": "auto", "regularization": "ledoit-wolf",
                                         "refine": "auto"},
    # the same intensity, at least 2 % (it tends to 0 with many images per class)
    "pixsel LDA auto auto ledoit-wolf-floor": {"criterion": "auto", "direction": "auto",
                                               "regularization": "ledoit-wolf-floor", "refine": "auto",
                                               "beam_width": 1},
    # the same with a beam of width 3 over the forward pass (then the swaps)
    "pixsel LDA beam3": {"criterion": "auto", "direction": "auto", "regularization": "ledoit-wolf-floor",
                         "refine": "auto", "beam_width": 3},
    # beam_width='auto' (the default): the beam of width 3 with more than two classes and fewer than 10
    # images a class, the forward pass otherwise
    "pixsel LDA beam auto": {"criterion": "auto", "direction": "auto", "regularization": "ledoit-wolf-floor",
                             "refine": "auto", "beam_width": "auto"},
}
DEFAULT = "pixsel LDA (default)"
#: The stability option as a user asks for it: the defaults with ``stability=20``.
STABLE = "pixsel LDA stability"
#: The same with cluster stability selection: features correlated at least 0.9 pool their counts.
CLUSTER_STABLE = "pixsel LDA cluster stability"


def default_lda_row():
    """The name of the LDA row that the installed ``SparseLDASelector()`` runs."""
    params = pixsel.SparseLDASelector().get_params()
    for name, opts in LDA_ROWS.items():
        if all(params[k] == v for k, v in opts.items()):
            return name
    return None


def supervised_selectors():
    rows = {name: (lambda o: lambda X, y, s: _lda(**o)(X, y, s))(opts) for name, opts in LDA_ROWS.items()}
    if default_lda_row() is None:  # a default outside the rows: fitted as it is
        rows[DEFAULT] = lambda X, y, s: _lda()(X, y, s)
    return {
        **rows,
        STABLE: lambda X, y, s: _per_k(pixsel.SparseLDASelector(stability=20, random_state=s))(X, y, s),
        CLUSTER_STABLE: lambda X, y, s: _per_k(pixsel.SparseLDASelector(
            stability=20, stability_correlation=0.9, random_state=s))(X, y, s),
        "pixsel LDA trace stability": lambda X, y, s: _per_k(pixsel.SparseLDASelector(
            criterion="trace", direction="forward", regularization="auto", stability=20, random_state=s))(X, y, s),
        "pixsel CardinalSPLS": lambda X, y, s: _per_k(pixsel.CardinalSPLSSelector())(X, y, s),
        "pixsel Fisher score": lambda X, y, s: _per_k(pixsel.ScoreSelector(criterion="fisher"))(X, y, s),
        "f_classif": _f_classif,
        "mutual_info": _mutual_info,
        "L1-logistic (CV)": _l1_logistic,
        "ExtraTrees": _extra_trees,
        "mRMR": _mrmr,
        "FastCan": _fastcan(1),
        "FastCan beam=5": _fastcan(5),
    }


def unsupervised_selectors():
    return {
        "variance": _variance,
        "pixsel SparsePCA": lambda X, y, s: _path(pixsel.SparsePCASelector(), KS_RUN)(X, None, s),
        "pixsel SubspaceScore top": lambda X, y, s: _per_k(pixsel.SubspaceScoreSelector(
            mode="top", random_state=s))(X, None, s),
        "pixsel SubspaceScore sample": lambda X, y, s: _per_k(pixsel.SubspaceScoreSelector(
            mode="sample", random_state=s))(X, None, s),
        "pixsel SubspaceScore distinct": lambda X, y, s: _per_k(pixsel.SubspaceScoreSelector(
            mode="distinct", random_state=s))(X, None, s),
        "pixsel ColumnSubset greedy": lambda X, y, s: _path_css(X, "greedy"),
        "pixsel ColumnSubset qr": lambda X, y, s: _path_css(X, "qr"),
    }


def _path_css(X, method):
    """The column-subset selection is nested (greedy order / pivot order): one fit at max k."""
    sel = pixsel.ColumnSubsetSelector(max(KS_RUN), method=method).fit(X)
    return {k: np.sort(sel.order_[:k]) for k in KS_RUN}


# -- evaluation --------------------------------------------------------------------------------
def classifiers():
    return {
        "lda": LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"),
        "logistic": make_pipeline(StandardScaler(), LogisticRegression(max_iter=300)),
        "1nn": make_pipeline(StandardScaler(), KNeighborsClassifier(1)),
        "svm": make_pipeline(StandardScaler(), LinearSVC(C=1.0, max_iter=2000)),
    }


def score_supervised(Xtr, ytr, Xte, yte):
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # collinear / constant pixels in LDA
        for name, clf in classifiers().items():
            out[name] = float(np.mean(clf.fit(Xtr, ytr).predict(Xte) == yte))
    return out


def hungarian_accuracy(y, labels):
    classes, yi = np.unique(y, return_inverse=True)
    C = np.zeros((labels.max() + 1, len(classes)))
    np.add.at(C, (labels, yi), 1)
    r, c = linear_sum_assignment(-C)
    return float(C[r, c].sum() / len(y))


def score_clusters(Z, y, seed):
    labels = KMeans(len(np.unique(y)), n_init=3, random_state=seed).fit_predict(Z)
    return {"kmeans_acc": hungarian_accuracy(y, labels), "nmi": float(normalized_mutual_info_score(y, labels))}


def jaccard(supports):
    vals = []
    for i in range(len(supports)):
        for j in range(i + 1, len(supports)):
            a, b = set(supports[i].tolist()), set(supports[j].tolist())
            vals.append(len(a & b) / len(a | b))
    return float(np.mean(vals))


def run_dataset(name, args, log):
    global KS_RUN
    X, y, spec, shape = load_dataset(name, args.quick)
    X = np.asarray(X, dtype=np.float64)
    p = X.shape[1]
    # k is capped at the non-constant pixels: a constant pixel carries nothing, and several
    # selectors (rightly) refuse to select it
    p_live = int(np.sum(np.ptp(X, axis=0) > 0))
    KS_RUN = tuple(sorted({min(k, p_live) for k in args.ks}))
    load = _uptime()
    log(f"\n== {name}: {X.shape[0]} samples x {p} features, {len(np.unique(y))} classes; "
        f"ks {list(KS_RUN)}, {args.splits} splits; {load}")
    sup, uns = supervised_selectors(), unsupervised_selectors()
    if args.only:
        sup = {k: v for k, v in sup.items() if k in args.only or k in (DEFAULT, default_lda_row())}
        uns = {k: v for k, v in uns.items() if k in args.only}
    acc = {}  # selector -> classifier -> k -> list over splits
    clus = {}  # selector -> metric -> k -> list
    times, failed = {}, {}
    done = 0
    for seed in range(args.splits):
        if seed and args.budget is not None and time.perf_counter() - T0 > args.budget:
            log(f"  splits {seed}-{args.splits - 1} not started: time budget of {args.budget:.0f} s spent")
            break
        done += 1
        tr, te = split(X, y, spec, seed)
        Xtr, Xte, ytr, yte = X[tr], X[te], y[tr], y[te]
        for sname, fit in sup.items():
            if sname in failed:
                continue
            t = time.perf_counter()
            try:
                supports = fit(Xtr, ytr, seed)
            except Exception as exc:  # a peer that fails is reported, never dropped
                failed[sname] = f"{type(exc).__name__}: {str(exc)[:300]}"
                log(f"  {sname} FAILED: {failed[sname]}")
                continue
            times.setdefault(sname, []).append(time.perf_counter() - t)
            for k, S in supports.items():
                for c, a in score_supervised(Xtr[:, S], ytr, Xte[:, S], yte).items():
                    acc.setdefault(sname, {}).setdefault(c, {}).setdefault(k, []).append(a)
        rng = np.random.default_rng(1000 + seed)
        for k in KS_RUN:  # random pixels: the mean over RANDOM_DRAWS draws is one split's value
            draws = [rng.choice(p, k, replace=False) for _ in range(RANDOM_DRAWS)]
            res = [score_supervised(Xtr[:, S], ytr, Xte[:, S], yte) for S in draws]
            for c in CLASSIFIERS:
                acc.setdefault("random", {}).setdefault(c, {}).setdefault(k, []).append(
                    float(np.mean([r[c] for r in res])))
            if args.supervised_only:
                continue
            cres = [score_clusters(Xte[:, S], yte, seed) for S in draws]
            for m in ("kmeans_acc", "nmi"):
                clus.setdefault("random", {}).setdefault(m, {}).setdefault(k, []).append(
                    float(np.mean([r[m] for r in cres])))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                Z = PCA(k, random_state=0).fit(Xtr).transform(Xte) if k < min(Xtr.shape) else Xte
            for m, v in score_clusters(Z, yte, seed).items():
                clus.setdefault("PCA", {}).setdefault(m, {}).setdefault(k, []).append(v)
        for c, a in score_supervised(Xtr, ytr, Xte, yte).items():
            acc.setdefault("all pixels", {}).setdefault(c, {}).setdefault(p, []).append(a)
        for m, v in ({} if args.supervised_only else score_clusters(Xte, yte, seed)).items():
            clus.setdefault("all pixels", {}).setdefault(m, {}).setdefault(p, []).append(v)
        for sname, fit in ({} if args.supervised_only else uns).items():
            if sname in failed:
                continue
            t = time.perf_counter()
            try:
                supports = fit(Xtr, ytr, seed)
            except Exception as exc:
                failed[sname] = f"{type(exc).__name__}: {str(exc)[:300]}"
                log(f"  {sname} FAILED: {failed[sname]}")
                continue
            times.setdefault(sname, []).append(time.perf_counter() - t)
            for k, S in supports.items():
                for m, v in score_clusters(Xte[:, S], yte, seed).items():
                    clus.setdefault(sname, {}).setdefault(m, {}).setdefault(k, []).append(v)
        log(f"  split {seed} done ({time.perf_counter() - T0:.0f} s since start; {_uptime()})")

    # stability: supports at k = 25 over bootstrap resamples of the first split's training part
    kj = min(JACCARD_K, p_live)
    tr, _ = split(X, y, spec, 0)
    jac = {}
    saved = KS_RUN
    KS_RUN = (kj,)
    for sname, fit in {**sup, **uns}.items():
        if sname in failed or args.no_jaccard or (args.jaccard_rows and sname not in args.jaccard_rows
                                                   and sname != default_lda_row()):
            continue
        supports = []
        try:
            for b in range(BOOTSTRAPS):
                idx = np.random.default_rng(500 + b).choice(tr, len(tr), replace=True)
                supports.append(fit(X[idx], y[idx], b)[kj])
            jac[sname] = jaccard(supports)
        except Exception as exc:
            jac[sname] = None
            log(f"  {sname} jaccard FAILED: {type(exc).__name__}: {str(exc)[:200]}")
    KS_RUN = saved
    alias = default_lda_row()
    if alias is not None:
        for table in (acc, times, jac):
            if alias in table:
                table[DEFAULT] = table[alias]
        if alias in failed:
            failed[DEFAULT] = failed[alias]
    summ = lambda v: {"mean": float(np.mean(v)), "std": float(np.std(v)), "min": float(np.min(v)),  # noqa: E731
                      "max": float(np.max(v)), "n": len(v)}
    return {
        "n_samples": int(X.shape[0]), "n_features": p, "n_classes": int(len(np.unique(y))),
        "ks": list(KS_RUN), "splits": done,
        "accuracy": {s: {c: {str(k): summ(v) for k, v in d.items()} for c, d in cs.items()} for s, cs in acc.items()},
        "clustering": {s: {m: {str(k): summ(v) for k, v in d.items()} for m, d in ms.items()} for s, ms in clus.items()},
        "fit_time_median_s": {s: float(np.median(v)) for s, v in times.items()},
        "jaccard_k": kj, "jaccard": jac, "failed": failed, "uptime_start": load, "uptime_end": _uptime(),
    }


def _uptime():
    """The load average line of ``uptime`` (every timing is printed with it: the machine is shared)."""
    import subprocess

    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


# -- summary and figures ----------------------------------------------------------------------
PEERS = ("f_classif", "mutual_info", "L1-logistic (CV)", "ExtraTrees", "mRMR", "FastCan", "FastCan beam=5")


def cell_gaps(res, sel):
    """Per (classifier, k) cell: the gap to the best peer and the margin over random pixels
    (points of accuracy; positive means ``sel`` is ahead)."""
    acc = res["accuracy"]
    peers = [s for s in PEERS if s in acc]
    gaps, over_random = [], []
    for c in CLASSIFIERS:
        for k in map(str, res["ks"]):
            if k not in acc[sel][c]:  # a row merged from a run of other ks
                continue
            best = max((acc[s][c][k]["mean"] for s in peers if k in acc[s][c]), default=np.nan)
            mine = acc[sel][c][k]["mean"]
            gaps.append(mine - best)
            over_random.append(mine - acc["random"][c][k]["mean"])
    return np.array(gaps) * 100, np.array(over_random) * 100


def default_summary(results, sel):
    """One line per data set for ``sel`` (and one over all of them): cells within 1 point of the
    best peer, worst and median gap, cells below random (and by how much at worst), fit time and
    its ratio to L1-logistic's, Jaccard at k = 25 of ``sel``, of the stability option and of
    L1-logistic."""
    lines, all_gaps, all_rand = [], [], []
    for name, res in results.items():
        if sel not in res["accuracy"]:
            continue
        gaps, rand = cell_gaps(res, sel)
        all_gaps.append(gaps)
        all_rand.append(rand)
        t = res["fit_time_median_s"]
        l1 = res.get("l1_time", {}).get(sel, t.get("L1-logistic (CV)", np.nan))
        below = rand < -1e-7
        jac = res["jaccard"]
        lines.append(f"| {name} | {res['splits']} | {int(np.sum(gaps >= -1.0))}/{gaps.size} | {np.min(gaps):+.1f} | "
                     f"{np.median(gaps):+.1f} | {int(below.sum())}{f' (to {np.min(rand):+.1f})' if below.any() else ''}"
                     f" | {t.get(sel, np.nan):.2f} | {t.get(sel, np.nan) / l1:.2f} | {_fmt(jac.get(sel))} / "
                     f"{_fmt(jac.get(STABLE))} / {_fmt(jac.get('L1-logistic (CV)'))} |")
    if all_gaps:
        g, r = np.concatenate(all_gaps), np.concatenate(all_rand)
        lines.append(f"| **all** | | **{int(np.sum(g >= -1.0))}/{g.size}** | {np.min(g):+.1f} | {np.median(g):+.1f} | "
                     f"{int(np.sum(r < -1e-7))} | | | |")
    return lines


def paired_lines(results, a, b):
    """``a`` against ``b`` cell by cell (same splits, classifiers and k): mean and extreme
    differences, cells where ``a`` is ahead or behind by more than 1 point, and fit times."""
    lines = []
    for name, res in results.items():
        acc = res["accuracy"]
        if a not in acc or b not in acc:
            continue
        d = np.array([acc[a][c][k]["mean"] - acc[b][c][k]["mean"] for c in CLASSIFIERS
                      for k in map(str, res["ks"]) if k in acc[a][c] and k in acc[b][c]]) * 100
        t = res["fit_time_median_s"]
        lines.append(f"| {name} | {d.size} | {d.mean():+.2f} | {d.min():+.1f} / {d.max():+.1f} | {int(np.sum(d > 1))} | "
                     f"{int(np.sum(d < -1))} | {t.get(a, np.nan):.2f} / {t.get(b, np.nan):.2f} |")
    return lines


def against_lines(results, selectors, ref="FastCan beam=5", base="FastCan", margin=0.5):
    """Each selector against ``ref`` cell by cell (same splits, classifiers and k): the cells where
    it is at least ``ref``'s accuracy minus ``margin`` points, the mean difference, the worst
    cell, its fit time and the ratio to ``base``'s fit time in the same run; one line per data
    set and selector, then one per selector over every data set."""
    lines, total = [], {}
    for name, res in results.items():
        acc, t = res["accuracy"], res["fit_time_median_s"]
        if ref not in acc:
            continue
        for sel in selectors:
            if sel not in acc:
                continue
            cells = [(acc[sel][c][k]["mean"] - acc[ref][c][k]["mean"], c, k) for c in CLASSIFIERS
                     for k in map(str, res["ks"]) if k in acc[sel][c] and k in acc[ref][c]]
            d = np.array([x[0] for x in cells]) * 100
            worst = cells[int(np.argmin(d))]
            ok = int(np.sum(d >= -margin))
            tot = total.setdefault(sel, [0, [], []])
            tot[0] += ok
            tot[1].append(d)
            tot[2].append(t.get(sel, np.nan) / t.get(base, np.nan))
            lines.append(f"| {name} | {sel} | {ok}/{d.size} | {d.mean():+.2f} | {d.min():+.1f} ({worst[1]}, k={worst[2]}) "
                         f"| {_fmt(t.get(sel))} | {_fmt(t.get(sel, np.nan) / t.get(base, np.nan))} |")
    for sel, (ok, ds, ratios) in total.items():
        d = np.concatenate(ds)
        span = "n/a" if np.all(np.isnan(ratios)) else f"{np.nanmin(ratios):.2f} to {np.nanmax(ratios):.2f}"
        lines.append(f"| **all** | {sel} | **{ok}/{d.size}** | {d.mean():+.2f} | {d.min():+.1f} | | {span} |")
    return lines


def summary_lines(name, res, *selectors):
    acc, lines = res["accuracy"], []
    for sel in selectors:
        if sel not in acc:
            continue
        gaps, over_random = cell_gaps(res, sel)
        cells, within = gaps.size, int(np.sum(gaps >= -1.0))
        below_random = int(np.sum(over_random < -1e-7))  # k = p: the same pixels
        t = res["fit_time_median_s"]
        ratio = t.get(sel, np.nan) / res.get("l1_time", {}).get(sel, t.get("L1-logistic (CV)", np.nan))
        lines.append(f"| {name} | {sel} | {within}/{cells} | {np.min(gaps):+.1f} | {np.median(gaps):+.1f} | "
                     f"{below_random} | {t.get(sel, np.nan):.2f} | {ratio:.2f} | "
                     f"{_fmt(res['jaccard'].get(sel))} | {_fmt(res['jaccard'].get('L1-logistic (CV)'))} |")
    return lines


def unsup_lines(name, res, default):
    cl, lines = res["clustering"], []
    if default not in cl:
        return lines
    for k in map(str, res["ks"]):
        g = lambda s: cl[s]["kmeans_acc"][k]["mean"] * 100 if s in cl and k in cl[s]["kmeans_acc"] else np.nan  # noqa: E731
        lines.append(f"| {name} | {k} | {g(default):.1f} | {g(default) - g('random'):+.1f} | "
                     f"{g(default) - g('variance'):+.1f} | {g(default) - g('PCA'):+.1f} |")
    return lines


def _fmt(v):
    return "n/a" if v is None or np.isnan(v) else f"{v:.2f}"


def figure(name, res, path):
    """Accuracy against k, one panel per classifier and one for k-means, one line per selector
    (pixsel solid, peers dashed), the band the min-max over the splits."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator, ScalarFormatter

    panels = list(CLASSIFIERS) + ["kmeans"]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    axes = axes.ravel()
    names = sorted(s for s in set(res["accuracy"]) | set(res["clustering"]) if s != DEFAULT)
    cmap = plt.get_cmap("tab20")
    colour = {s: cmap(i % 20) for i, s in enumerate(names)}
    for ax, panel in zip(axes, panels):
        table = res["clustering"] if panel == "kmeans" else res["accuracy"]
        for s in names:
            d = table.get(s)
            dd = None if d is None else (d["kmeans_acc"] if panel == "kmeans" else d.get(panel))
            if not dd:
                continue
            ks = sorted(int(k) for k in dd)
            m = np.array([dd[str(k)]["mean"] for k in ks])
            if s == "all pixels":
                ax.axhline(m[0], color="k", ls=":", lw=1, label=s)
                continue
            lo = np.array([dd[str(k)]["min"] for k in ks])
            hi = np.array([dd[str(k)]["max"] for k in ks])
            style = "-" if s.startswith("pixsel") else "--"
            lw = 2.4 if s in (default_lda_row(), "pixsel ColumnSubset greedy") else 1.2
            ax.plot(ks, m, style, marker="o", ms=3, lw=lw, color=colour[s], label=s)
            ax.fill_between(ks, lo, hi, color=colour[s], alpha=0.08)
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(FixedLocator(res["ks"]))
        ax.xaxis.set_major_formatter(ScalarFormatter())
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("k (pixels selected)")
        ax.set_ylabel("k-means accuracy (Hungarian)" if panel == "kmeans" else "held-out accuracy")
        ax.set_title(("unsupervised: k-means on the test images" if res["clustering"] else "k-means: not run")
                     if panel == "kmeans" else f"{panel} classifier")
        ax.grid(alpha=0.3)
    axes[-1].axis("off")
    handles, labels = {}, []
    for ax in axes[:-1]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    axes[-1].legend([handles[lab] for lab in labels], labels, loc="center", fontsize=8, frameon=False, ncol=2,
                    title="solid: pixsel; dashed: peers; thick: the defaults")
    fig.suptitle(f"{name}: {res['n_samples']} samples x {res['n_features']} features, {res['n_classes']} classes; "
                 f"mean over {res['splits']} stratified splits, band = min-max")
    fig.tight_layout()
    save_figure(fig, path, dpi=80)


def merge_runs(records):
    """One result per data set from several runs of this script (fit nothing).

    The first run that has a data set gives its result; a later run on the same splits (same
    count, same ks: the splits are seeded) adds the selectors the first lacks (supervised or
    unsupervised rows, and the failures it reports; a row that failed in the first run is taken
    from a later one that fitted it, its failure still reported). A bootstrap
    Jaccard that a row of the first lacks is taken from any later run with the same ``jaccard_k``, whatever its
    splits (it is read on the first split's training part alone). Each selector's
    fit-time ratio stays against the L1-logistic of the run that fitted it (``l1_time``), and
    ``runs`` records which run gave which selectors, with its load average.
    """
    merged = {}
    for i, rec in enumerate(records):
        for name, res in rec["datasets"].items():
            if "error" in res:
                continue
            l1 = res["fit_time_median_s"].get("L1-logistic (CV)")
            own = {s: l1 for s in res["fit_time_median_s"] if l1 is not None}
            load = res.get("uptime_start", rec.get("uptime_start"))
            if name not in merged:
                merged[name] = dict(res, l1_time=own, runs=[{"run": i, "uptime_start": load,
                                                             "selectors": sorted(res["accuracy"])}])
                continue
            base = merged[name]
            if res.get("jaccard_k") == base.get("jaccard_k"):  # read on the first split alone
                filled = [s for s, v in res.get("jaccard", {}).items()
                          if v is not None and base["jaccard"].get(s) is None and s != DEFAULT
                          and s in base["accuracy"]]  # a row new to the merge brings its own below
                for s in filled:
                    base["jaccard"][s] = res["jaccard"][s]
                if filled:
                    base["runs"].append({"run": i, "uptime_start": load, "selectors": [f"Jaccard of {s}" for s in filled]})
            common = [k for k in base["ks"] if k in res["ks"]]
            if res["splits"] != base["splits"] or not common:
                print(f"{name}: run {i} has {res['splits']} splits, ks {res['ks']}; the first had "
                      f"{base['splits']}, {base['ks']}: not merged")
                continue
            if res["ks"] != base["ks"]:  # k capped at another count of non-constant pixels
                print(f"{name}: run {i} has ks {res['ks']}, the first {base['ks']}: its rows are scored on "
                      f"the cells of both ({common})")
            # a row that failed in the first run (e.g. a peer that cannot reach its largest k)
            # is taken from a later run that fitted it, on that run's ks; its failure stays reported
            known = set(base["accuracy"]) | set(base.get("clustering", {}))
            new = sorted(s for s in res["accuracy"] if s not in known)
            new_unsup = sorted(s for s in res.get("clustering", {}) if s not in known)
            known |= set(base["failed"])
            for s in new_unsup:  # an unsupervised row: its k-means scores
                base.setdefault("clustering", {})[s] = res["clustering"][s]
            new_failed = sorted(s for s in res["failed"] if s not in known and s not in new + new_unsup)
            for s in new + new_unsup + new_failed:
                if s in res["accuracy"]:
                    base["accuracy"][s] = res["accuracy"][s]
                for key in ("fit_time_median_s", "jaccard", "l1_time"):
                    src = own if key == "l1_time" else res.get(key, {})
                    if s in src:
                        base.setdefault(key, {})[s] = src[s]
                if s in res["failed"]:
                    base["failed"][s] = res["failed"][s]
            base["runs"].append({"run": i, "uptime_start": load, "selectors": new + new_unsup + new_failed})
    return merged


def _rows(names):
    return ", ".join(names) if len(names) < 5 else f"{len(names)} rows"


def replot(json_paths, args):
    """Redraw the figures and reprint the tables of results JSONs (no fitting; several are merged
    with :func:`merge_runs`). ``pixsel LDA (default)`` is re-read as the installed default's row."""
    import json

    out = out_dir(args)
    records = [json.loads(open(p).read()) for p in json_paths]
    results = merge_runs(records)
    alias = default_lda_row()
    for name, res in results.items():
        if alias is not None:
            for key in ("accuracy", "fit_time_median_s", "jaccard", "l1_time"):
                table = res.get(key, {})
                if alias in table:
                    table[DEFAULT] = table[alias]
                else:
                    table.pop(DEFAULT, None)
        figure(name, res, out / f"quality_{name}.png")
        loads = "; ".join(f"run {r['run']} ({_rows(r['selectors'])}): {r['uptime_start']}" for r in res["runs"])
        print(f"{name}: {res['splits']} split(s), ks {res['ks']}; load at start of {loads}")
    write_results(args, {"datasets": results, "merged_from": [str(p) for p in json_paths]})
    print_tables(results, [r for rec in records for r in rec.get("skipped", []) if r not in results])


def print_tables(results, skipped):
    default = DEFAULT
    ok = {n: r for n, r in results.items() if "error" not in r}
    for sel in dict.fromkeys((default, "pixsel LDA cv forward")):
        print(f"\nSummary of {sel}{f' ({default_lda_row()})' if sel == default else ''} against the best peer "
              "(gap = selector - best peer, points of accuracy, over classifiers x k)")
        print("| data | splits | cells within 1 pt | worst gap | median gap | cells below random | fit s | fit / L1 "
              "| Jaccard k=25 (this / stability option / L1) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for line in default_summary(ok, sel):
            print(line)
    ref = "FastCan beam=5"
    if any(ref in r["accuracy"] for r in ok.values()):
        sels = [default] + [s for s in (*LDA_ROWS, "FastCan", ref, "f_classif", "random")
                            if s != default_lda_row()]
        print(f"\nAgainst {ref}, cell by cell (points of accuracy; {default} is {default_lda_row()}): cells at "
              f"least {ref}'s accuracy minus 0.5 point, mean difference, worst cell, median fit time and its "
              "ratio to FastCan's greedy search in the same run")
        print(f"| data | selector | cells >= {ref} - 0.5 pt | mean difference | worst cell | fit s | fit / FastCan |")
        print("|---|---|---|---|---|---|---|")
        for line in against_lines(ok, sels, ref):
            print(line)
    if any(CLUSTER_STABLE in r["accuracy"] and STABLE in r["accuracy"] for r in ok.values()):
        print(f"\n{CLUSTER_STABLE} against {STABLE}, cell by cell (points of accuracy), and the Jaccard at k = 25 "
              "(cluster / plain / L1-logistic)")
        print("| data | cells | mean difference | min / max | cells ahead > 1 pt | cells behind > 1 pt "
              "| fit s (this / plain) | Jaccard k=25 |")
        print("|---|---|---|---|---|---|---|---|")
        for name, line in zip([n for n, r in ok.items() if CLUSTER_STABLE in r["accuracy"] and STABLE in r["accuracy"]],
                              paired_lines(ok, CLUSTER_STABLE, STABLE)):
            jac = ok[name]["jaccard"]
            print(f"{line} {_fmt(jac.get(CLUSTER_STABLE))} / {_fmt(jac.get(STABLE))} / "
                  f"{_fmt(jac.get('L1-logistic (CV)'))} |")
    for a in ("pixsel LDA cv forward", "pixsel LDA trace forward", "pixsel LDA trace auto", "pixsel LDA trace auto rda",
              "pixsel LDA correlation auto rda", "pixsel LDA correlation auto auto"):
        if a == default_lda_row():
            continue
        print(f"\n{a} against {default} ({default_lda_row()}), cell by cell (points of accuracy)")
        print("| data | cells | mean difference | min / max | cells ahead > 1 pt | cells behind > 1 pt "
              "| fit s (this / default) |")
        print("|---|---|---|---|---|---|---|")
        for line in paired_lines(ok, a, default):
            print(line)
    print("\nSupervised: pixsel's LDA rows against the best peer "
          "(gap = selector - best peer, points of accuracy, over classifiers x k)")
    print("| data | selector | cells within 1 pt | worst gap | median gap | cells below random | fit s "
          "| fit / L1 | Jaccard k=25 | L1 Jaccard |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, r in ok.items():
        for line in summary_lines(n, r, default, *LDA_ROWS, STABLE, CLUSTER_STABLE, "pixsel LDA trace stability"):
            print(line)
    print("\nUnsupervised: k-means accuracy (%) of the column-subset default, and its margin over "
          "random pixels, highest-variance pixels and PCA with k components")
    print("| data | k | greedy CSS | vs random | vs variance | vs PCA |")
    print("|---|---|---|---|---|---|")
    for n, r in ok.items():
        for line in unsup_lines(n, r, "pixsel ColumnSubset greedy"):
            print(line)
    for n, r in ok.items():
        if r["failed"]:
            print(f"failed on {n}: " + "; ".join(f"{s}: {m}" for s, m in r["failed"].items()))
    print(f"not started: {skipped or 'none'}")


def stability_figure(name, args):
    """The picture of the stability option on the first split's training part of ``name``:
    ``SparseLDASelector(25, stability=50, random_state=0)`` (the defaults otherwise), with the
    counts the documentation quotes."""
    from pixsel.viz import plot_selection_frequencies

    X, y, spec, shape = load_dataset(name, args.quick)
    tr, _ = split(X, y, spec, 0)
    k, n = min(JACCARD_K, X.shape[1]), 50
    t = time.perf_counter()
    sel = pixsel.SparseLDASelector(k, stability=n, random_state=0).fit(np.asarray(X[tr], dtype=np.float64), y[tr])
    t = time.perf_counter() - t
    freq = sel.selection_frequencies_
    top = np.sort(freq[sel.get_support()])
    print(f"{name}: {sel!r} on {len(tr)} training images, {t:.1f} s ({_uptime()})")
    print(f"  pixels chosen by >= 90 % of the {n} half-sample paths: {int(np.sum(freq >= 0.9))}; "
          f"the {k} most frequent: from {top[0]:.2f} (median {np.median(top):.2f}); "
          f"chosen at least once: {int(np.sum(freq > 0))} of {freq.size}")
    if shape is not None:
        fig = plot_selection_frequencies(freq, shape, support=sel.get_support(),
                                         title=f"{name}, k = {k}: {n} half-sample fits")
        path = out_dir(args) / f"quality_stability_{name}.png"
        fig.savefig(path, dpi=110)
        print(f"  figure: {path}")


def main():
    global T0
    p = parser("quality", __doc__.splitlines()[0])
    p.add_argument("--datasets", nargs="+", default=None, choices=ALL_DATASETS + NAMED_ONLY,
                   help="default: all but " + ", ".join(NAMED_ONLY) + " (many training images per person)")
    p.add_argument("--ks", nargs="+", type=int, default=None)
    p.add_argument("--splits", type=int, default=None)
    p.add_argument("--only", nargs="+", default=None, help="run only these selectors (names as printed)")
    p.add_argument("--budget", type=float, default=None, help="seconds: start no new data set, and no new split of a data set, after this (the "
                        "first split of a started data set always runs; the results say how many ran)")
    p.add_argument("--no-jaccard", action="store_true", help="skip the bootstrap stability column")
    p.add_argument("--supervised-only", action="store_true",
                   help="skip the unsupervised rows and the k-means scoring (many classes: k-means is the cost)")
    p.add_argument("--jaccard-rows", nargs="+", default=None,
                   help="the bootstrap stability column for these selectors only (and the default's)")
    p.add_argument("--replot", nargs="+", default=None,
                   help="results JSONs: redraw the figures and tables, fit nothing (several runs are merged: "
                        "a later run adds the selectors an earlier one lacks on the same splits)")
    p.add_argument("--stability-figure", default=None, choices=ALL_DATASETS, metavar="DATASET",
                   help="draw the selection frequencies of the stability option on this data set, fit nothing else")
    args = p.parse_args()
    if args.stability_figure:
        with blas_threads(args):
            stability_figure(args.stability_figure, args)
        return
    if args.replot:
        replot(args.replot, args)
        return
    if args.quick:
        args.datasets = args.datasets or ["sonar"]
        args.ks = args.ks or [5, 10]
        args.splits = args.splits or 2
    args.datasets = args.datasets or list(ALL_DATASETS)
    args.ks = args.ks or list(KS)
    args.splits = args.splits or 5
    out = out_dir(args)
    T0 = time.perf_counter()
    load = _uptime()
    print(f"uptime at start: {load}")
    log = lambda s: print(s, flush=True)  # noqa: E731
    results, skipped = {}, []
    with blas_threads(args):
        for name in args.datasets:
            if args.budget is not None and time.perf_counter() - T0 > args.budget:
                skipped.append(name)
                log(f"\n== {name}: not started, time budget of {args.budget:.0f} s spent")
                continue
            try:
                results[name] = run_dataset(name, args, log)
            except Exception:
                results[name] = {"error": traceback.format_exc(limit=3)}
                log(f"  {name} FAILED:\n{results[name]['error']}")
                continue
            figure(name, results[name], out / f"quality_{name}.png")
            write_results(args, {"datasets": results, "skipped": skipped, "ks": args.ks, "splits": args.splits,
                                 "uptime_start": load})
    end = _uptime()
    print(f"{DEFAULT} is {default_lda_row() or 'outside the compared rows'}: {pixsel.SparseLDASelector()!r}")
    print_tables(results, skipped)
    print(f"\nuptime at end: {end}; {time.perf_counter() - T0:.0f} s")
    write_results(args, {"datasets": results, "skipped": skipped, "ks": args.ks, "splits": args.splits,
                         "uptime_start": load, "uptime_end": end})


KS_RUN = KS
T0 = 0.0

if __name__ == "__main__":
    main()
