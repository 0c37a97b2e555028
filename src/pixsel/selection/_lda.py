"""SparseLDASelector: the best k pixels for a linear discriminant, for every k at once."""

from __future__ import annotations

import math
import numbers
import warnings
from types import SimpleNamespace
from numbers import Integral, Real

import numpy as np
from scipy.stats import rankdata
from sklearn.base import clone

from .._array_api import to_numpy
from .._routes import follow, lowrank_backward_pays, record_compiled
from .._backend import any_nonzero, codes_on_route, fit_route, positive_definite, store_on_route, support_weights, validate_fit
from .._validation import (
    MAX_SWAP_SWEEPS, Interval, StrOptions, check_classification_labels, check_excluded, check_forced, check_int, check_options, check_params,
    check_search,
)
from ..spectral import DIRECTIONS, criterion_named, greedy_path, lowrank_backward_path
from ..spectral import swap_refine, weights_on_support
from ..stats import (
    ShrunkGramOperator, class_statistics, gram_operator, is_shrinkage, ledoit_wolf_from_rows, regularize,
    regularized_factor, ridge_regularization, shrinkage_regularization,
)
from ._base import PATH_CONSTRAINTS, PATHS, _PathSelector, forward_length, path_progress
from ._groups import exact_group_fit, fit_groups, group_paths, search_groups_at_k, store_groups
from ._shrinkage_scores import _nested_order, _ShrinkageLDAStatistics

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Literal, Self

    from numpy.typing import ArrayLike

__all__ = ["SparseLDASelector", "cv_sizes"]

CRITERIA = ("trace", "max-eig", "correlation")
#: ``direction='cv'`` takes the backward pass at a size where its held-out samples classified
#: right exceed the forward pass's by more than this many standard deviations of the paired
#: difference (the forward pass is the default; small folds make small differences noise)
_DIRECTION_Z = 2.0
#: ``criterion='cv'`` chooses among these
CV_CRITERIA = ("trace", "max-eig")
#: The beam of ``beam_width='auto'`` with more than two classes and fewer than
#: ``AUTO_BEAM_PER_CLASS`` training images a class on average: chosen on the quality benchmark's
#: held-out accuracy beside FastCan's searches (with 5 images per person it gained on both face sets;
#: from 10 per person on it won and lost cells alike, and with 30 it lost; width 5 gave no more than 3).
AUTO_BEAM_WIDTH, AUTO_BEAM_PER_CLASS = 3, 10


def criterion_for(name: str, n_classes: int) -> str:
    """The criterion a name runs with ``n_classes`` classes: ``'auto'`` is ``'correlation'`` with
    more than two classes and ``'trace'`` (the papers' Rayleigh quotient, which orders the supports
    as ``'correlation'`` does) with two; any other name is itself.

    Examples
    --------
    >>> criterion_for("auto", 10), criterion_for("auto", 2), criterion_for("max-eig", 10)
    ('correlation', 'trace', 'max-eig')
    """
    if name == "auto":
        return "correlation" if n_classes > 2 else "trace"
    return name


def cv_sizes(k: int) -> list[int]:
    """The support sizes scored when the criterion or the regularization is cross-validated.

    ``ceil(k / 4)``, ``ceil(k / 2)`` and ``k`` (duplicates dropped): the candidate is judged on its
    path up to ``k``, not at one size alone, which steadies the choice on small folds and covers
    the sizes :meth:`SparseLDASelector.get_support_at` reads from the fitted path.

    Examples
    --------
    >>> cv_sizes(100), cv_sizes(10), cv_sizes(1)
    ([25, 50, 100], [3, 5, 10], [1])
    """
    return sorted({max(1, math.ceil(k / 4)), max(1, math.ceil(k / 2)), int(k)})


class SparseLDASelector(_PathSelector):
    """Greedy sparse LDA (GSLDA): select the k features of largest class separability.

    The criterion is the generalized Rayleigh quotient of the pair (``A``, ``B``) restricted to a
    support ``S`` of exactly ``k`` features, with ``B`` the (regularized) pooled within-class
    covariance. With two classes ``A = a a^T``, ``a`` the difference of the class means, and
    ``f(S) = a_S^T B_SS^{-1} a_S`` (Moghaddam, Weiss and Avidan, ICCV 2007); with more classes
    ``A = M M^T`` is the between-class covariance and ``criterion`` says which function of the
    generalized eigenvalues of ``(A_SS, B_SS)`` is maximized ("Generalized Spectral Bounds for
    Sparse LDA", Moghaddam, Weiss and Avidan, ICML 2006). One fit computes the forward and/or
    backward greedy path for *all* k; any k can then be read with :meth:`get_support_at` without
    refitting.

    Parameters
    ----------
    n_features_to_select : int or float, default=10
        ``k``: an int in ``[1, n_features]``, or a float in ``(0, 1]`` for a fraction of the
        features.
    direction : {'auto', 'forward', 'backward', 'dual', 'cv'}, default='auto'
        Which greedy passes to run. ``'forward'`` adds one pixel at a time, ``'backward'``
        removes one at a time from all of them; ``'dual'`` runs both and keeps, for every k, the
        support of higher objective on the training images (ties go to the backward pass).
        ``'cv'`` runs both and keeps, for every k up to ``n_features_to_select``, the forward
        pass's support unless the backward pass's classifies clearly more held-out samples
        right (``direction_by_k_``, ``direction_scores_``): shrinkage LDA is trained on both
        passes' supports of every size in each training fold of ``cv`` and scored on its test
        fold, and the backward pass is taken where the samples only it classifies right,
        ``b``, outnumber those only the forward pass classifies right, ``f``, by more than two
        standard deviations of that paired count (``b - f > 2 sqrt(b + f)``, McNemar's
        statistic); larger k are read as with ``'dual'``. It costs one fit with both passes per
        fold and the scoring: on faces of 32 x 32 pixels and 38-68 people, 1-2 times one
        ``LinearDiscriminantAnalysis(solver='eigen')`` fit on all pixels, 10-30 times the
        forward pass alone.

        ``'auto'`` runs the forward pass, whose support at ``n_features_to_select`` ``refine``
        then improves by swaps; ``direction_`` says what ran. Where the implicit algorithm runs,
        every direction but ``'backward'`` runs the forward pass only.

        Why ``'auto'``: on the held-out benchmark of the documentation's quality page (Extended
        Yale B and CMU PIE faces with 5 training images per person, USPS digits, 8 x 8 digits) the
        forward pass followed by swaps was at or above the forward pass and the
        cross-validated pass (``'cv'``) in every (data set, k) averaged over four classifiers,
        and ahead by 2 points on USPS at k = 10, at the cost of one forward pass and a few swap
        sweeps, where ``'cv'`` costs one fit with both passes per fold (10-60 times the forward
        pass on faces).

        .. versionchanged:: 0.1
           The default was ``'dual'``, then ``'forward'``, then ``'cv'`` with more than two
           classes; pass ``direction='cv'`` for the cross-validated choice of pass.
    regularization : 'ledoit-wolf-floor', 'ledoit-wolf', 'rda', 'auto', 'none', None, float or list, \
default='ledoit-wolf-floor'
        How the within-class covariance ``B`` is regularized (see
        :func:`pixsel.stats.regularize`); what was done is recorded in ``regularization_``.
        ``'ledoit-wolf'`` shrinks ``B`` towards ``mu I`` (``mu = trace(B) / p``, the mean
        variance) by the intensity of Ledoit and Wolf ("A well-conditioned estimator for
        large-dimensional covariance matrices", 2004), computed from the training images in one
        pass (through ``X`` without the ``p x p`` matrix in the implicit form): a ridge chosen by
        the data, 0.1-4 % of ``mu`` on the quality page's image sets. ``'ledoit-wolf-floor'`` takes
        the same intensity but at least 2 % (``pixsel.stats.SHRINKAGE_FLOOR``). ``'rda'`` adds
        ``mu`` to the diagonal: ``B`` shrunk halfway towards ``mu I``, as in Friedman's
        regularized discriminant analysis ("Regularized discriminant analysis", JASA 1989) with
        ``gamma = 1/2``. ``'auto'`` adds ``1e-3 mu``, only enough to keep ``B`` invertible: the
        objective of the papers on the training images, nearly unregularized. A list of these
        values: the one of best held-out accuracy is chosen by cross-validation (see ``cv``).

        Why Ledoit-Wolf: on the held-out benchmark of the documentation's quality page (faces
        with 5 training images per person and with 10-15, USPS digits, 8 x 8 digits, Brodatz
        textures; shrinkage LDA, logistic regression, 1-NN and a linear SVM on the selected
        pixels) its intensity reached FastCan's beam search (width 5) within half a point in 97
        of 112 cells, where ``'rda'`` did in 65 and ``'auto'`` in 91; on the two-class sets it is
        level with ``'rda'``. It costs one more pass over the training images. Why the floor: the
        intensity tends to 0 as the images per class grow (0.14 % with 30 faces per person), and
        the search then prefers pixels of tiny within-class variance that do not hold on new
        images: with 10 and 30 CMU PIE faces per person at 5 pixels, the held-out accuracy was
        15-25 points below the floored intensity's. The floor leaves the sets whose intensity is
        above 2 % unchanged (see the quality page).

        .. versionchanged:: 0.1
           The default was ``'auto'``, then ``'rda'``, then ``'ledoit-wolf'``; pass
           ``regularization='auto'`` for the papers' objective, ``'ledoit-wolf'`` for the
           intensity as estimated.
    criterion : {'auto', 'correlation', 'trace', 'max-eig', 'cv'} or list of them, default='auto'
        With more than two classes, ``A = M M^T`` is the between-class covariance (rank
        ``C - 1``) and the criterion of a support is the sum of the generalized eigenvalues of
        ``(A_SS, B_SS)`` (``'trace'``) or the largest one (``'max-eig'``, the objective of
        "Generalized Spectral Bounds for Sparse LDA", sections 2 and 4). ``'trace'`` rewards
        pixels that separate any pair of classes. ``'correlation'``: the trace with ``B`` the
        (regularized) *total* covariance ``B + A``, so each eigenvalue ``lambda`` counts as
        ``lambda / (1 + lambda)``, a squared canonical correlation between the pixels and the
        class indicators (FastCan's criterion: Zhang and Lang, "Orthogonal least squares based
        fast feature selection for linear classification", Pattern Recognition 2022); one large
        eigenvalue then counts for at most 1, so no single pair of well-separated classes
        dominates the choice. With two classes every criterion orders the supports alike.

        ``'auto'`` is ``'correlation'`` with more than two classes and ``'trace'`` (the papers'
        Rayleigh quotient ``a_S^T B_SS^{-1} a_S``, the same supports) with two; ``criterion_``
        says which ran.

        Why ``'auto'``: on the held-out benchmark of the documentation's quality page (faces
        with 5 training images per person, USPS 10 digits, 8 x 8 digits, Brodatz textures and
        four two-class sets, beside FastCan's greedy and beam searches) ``'correlation'`` was
        never more than 1.3 points behind ``'trace'`` in any (data set, k, classifier) cell and
        ahead on the ten-class digit sets by up to 4.9 points, at the same fit time.

        ``'cv'`` (the same as ``['trace', 'max-eig']``) or a list: the criterion is chosen by
        cross-validation (see ``cv``); ``criterion_`` says which was used.

        .. versionchanged:: 0.1
           The default was ``'max-eig'``, then ``'trace'``; pass ``criterion='max-eig'`` for the
           papers' objective, ``criterion='trace'`` for the eigenvalue sum.
    algorithm : {'auto', 'dense', 'implicit'}, default='auto'
        ``'dense'`` forms the ``p x p`` within-class covariance; ``'implicit'`` runs the forward
        pass through ``X`` without any ``p x p`` matrix (image scale: memory ``O(N p + p k)``,
        path computed up to ``n_features_to_select`` only, forward only, a ridge or Ledoit-Wolf;
        see :func:`pixsel.spectral.implicit_greedy_path`); ``'auto'`` picks ``'implicit'``
        with fewer samples than features when there are more than 4096 features, when the
        dense fit would cost over ``1e10`` operations and the passes over ``X`` for ``k``
        features at least 4 times less (``pixsel._routes.path_costs``: the scatter ``n p^2``
        and the inverse and backward pass ``~p^3`` against ``2 n p k``), or when the fit runs
        the forward pass alone, or its beam (the default search; not with another direction, groups,
        ``always_select``, ``never_select``, ``stability``, the exact solver,
        ``path='full'``, no ridge, or the swaps of ``'max-eig'``) and its passes over ``X``
        cost at least 4 times less than forming the matrix (``n p^2``, plus ``p^3`` with two
        classes; the ``n x n`` products of the rows that ``'ledoit-wolf'`` needs, ``n^2 p``,
        added to the passes): the same pixels, objectives and discriminant, without the work on
        the ``p x p`` matrix that such a fit never reads. On a Dask
        array chunked by rows the implicit pass runs chunk by chunk where the chunks live (the
        workers of a ``dask.distributed`` cluster); under ``array_api_dispatch`` an array on a
        GPU runs the passes on its device; only
        ``p``-vectors and ``p x b`` panels come back to the host in both cases.
    solver : {'greedy', 'exact'}, default='greedy'
        ``'exact'``: after the greedy path(s), the support at ``n_features_to_select`` is replaced
        by the certified optimum of :func:`pixsel.spectral.exact_support` (branch and bound
        started from the greedy support); ``status_``, ``gap_``, ``upper_bound_`` and ``n_nodes_``
        report it. Supports read at other k with :meth:`get_support_at` stay greedy.
    time_limit : float or None, default=None
        Seconds allowed to the exact search; when it stops before proving optimality, the best
        support found is kept with its certified gap and a ``ConvergenceWarning`` is raised.
    node_limit : int or None, default=None
        Search-tree nodes allowed to the exact search (stops like ``time_limit``).
    gap_tol : float, default=0.0
        Relative gap at which the exact search may stop (status ``'gap_reached'``): the support
        returned is then within ``gap_tol`` (as a fraction) of the optimum.
    path : {'auto', 'full'}, default='auto'
        How much of the forward path to compute. ``'full'``: every ``k`` up to ``n_features``.
        ``'auto'``: the forward pass stops at ``min(n_features, max(2 k, k + 10))`` steps,
        where ``k = n_features_to_select`` (a forward step costs ``O(p k)``, so a fit asked for
        ``k`` costs ``O(p k^2)`` rather than ``O(p^3)``), which leaves :meth:`get_support_at`
        the sizes around ``k``; through ``X`` (the implicit algorithm, each step a pass over
        ``X``) and with a beam (``beam_width``, the default with more than two classes) it stops
        at ``k``. With two classes and a direction that runs the backward pass
        (``'backward'``, ``'dual'``, ``'cv'``) the forward path is whole, so both passes meet at
        every ``k``. ``'full'`` keeps the ``p x p`` form where ``algorithm='auto'`` would take
        the implicit one for a forward pass alone. The backward pass always starts from all
        features, so with ``direction='backward'`` or ``'dual'`` every ``k`` stays available.

        .. versionchanged:: 0.1
           With two classes and the forward pass alone, ``'auto'`` used to compute the whole
           path; it now stops where it stops with more classes (pass ``path='full'`` for every
           ``k``).
    progress : bool or callable, default=False
        Report the path steps (step ``i`` of ``n`` per pass, with the time left) and the exact
        search (nodes, best objective, certified bound, relative gap): a bar on a terminal,
        plain lines elsewhere. Library code is quiet by default. A callable receives the path
        steps instead, as ``progress(done, total, what)`` after each step (``what`` names the
        pass: ``'forward path'``, ``'backward path'``, ``'forward path (implicit)'``; with a
        beam, ``'forward path, then beam of 3'`` and the like, whose steps count the pass's
        steps, then the beam's sizes) and draws them itself; the exact search is then reported
        as with True.
    groups : array-like of shape (n_features,), 'channels' or None, default=None
        Select whole *groups* of features: one group id per feature. A group enters or leaves
        the support as a block and the criterion is that of the union of the chosen groups;
        ``n_features_to_select`` then counts groups. None: the pixels of a colour stack ``X``
        of shape ``(n, h, w, c)`` (its ``c`` channels together), single features otherwise.
        ``'channels'``: every feature alone, also for a colour stack.
    patch_size : (int, int) or None, default=None
        Select non-overlapping ``a x b`` patches of an image stack ``X`` of shape ``(n, h, w)``
        or ``(n, h, w, c)`` (one group per patch, all its channels); the sides must divide the
        image's.
    stability : int or None, default=None
        Stability selection ("Stability selection", Meinshausen and Buehlmann, JRSS-B, 2010):
        an int ``>= 2`` fits that many paths, each on a random half of every class, records in
        ``selection_frequencies_`` how often each feature is in the support of size
        ``n_features_to_select``, and selects the ``n_features_to_select`` most frequent
        features (ties to the earlier entry in the full-data path). Costs that many fits on half
        the samples; NumPy input, ``solver='greedy'`` and the dense algorithm only.
    stability_correlation : float in (0, 1] or None, default=None
        Only with ``stability``: cluster stability selection ("Cluster stability selection",
        Faletto and Bien, 2022). Features whose absolute correlations on ``X`` are all at least
        this value form a cluster (complete linkage), and a cluster counts as selected by a
        resampled path when any of its members is: nearly interchangeable features (neighbouring
        pixels) then share one count instead of splitting it. The support is the
        ``n_features_to_select`` most frequent clusters, each by its most frequently selected
        member (ties to the earlier entry in the full-data path); with fewer clusters than
        features, their second members follow. ``0.9`` pools features that explain at least
        81 % of each other's variance; ``1.0`` only exact duplicates (up to sign and scale).
        ``None``: plain stability selection, each feature counted alone. The support spreads
        over more distinct regions; on face images it does not make the chosen pixels steadier
        across draws of the training images (the documentation's quality page, *Stability*).
    random_state : int, RandomState instance or None, default=None
        Draws the half-samples of ``stability`` (unused otherwise).
    always_select : array-like of int or None, default=None
        Features every support contains (abess's ``always_select``, mlxtend's
        ``fixed_features``); ``n_features_to_select`` and the ``k`` of :meth:`get_support_at`
        count them, so both must be at least their number. The greedy passes choose the other
        features given these: with the trace criterion (the default) or two classes, the
        criterion splits as ``f(F + T) = f(F) + f'(T)``, ``f'`` the same criterion on the
        within-class covariance and class-mean differences conditioned on the forced features
        ``F`` (their Schur complement), so the forward and backward passes are those of the
        conditioned problem and never drop ``F``. With ``criterion='max-eig'`` and more than
        two classes the largest eigenvalue does not split: the forward pass from ``F`` then
        evaluates every candidate exactly (``O(p k^3)`` per step, for modest ``p`` and ``k``),
        and ``direction`` must be ``'forward'``. ``objective_path_`` is NaN below ``|F|``.
        Dense algorithm, without groups or ``stability``. With ``solver='exact'`` the certified
        support is the best that contains ``F`` (:func:`pixsel.spectral.exact_support`'s
        ``always_select``: the search on the conditioned problem where the criterion splits,
        ``F`` fixed in at the root of the search for the largest eigenvalue).
    refine : 'auto', bool or int, default='auto'
        Improve the support at ``n_features_to_select`` by swaps: exchange one selected feature
        for one unselected while the objective rises, each exchange valued from the current
        support's factorization (closed form for two classes and the trace criterion; a
        Rayleigh-Ritz lower bound, then exact values of the most promising swaps, for
        ``'max-eig'``); never below the greedy support (see
        :func:`pixsel.spectral.swap_refine`). The supports read at other ``k``
        with :meth:`get_support_at` stay greedy; ``n_swaps_`` counts the swaps taken. True:
        up to 100 swaps; an int: at most that many (0 is False). With the implicit algorithm the
        closed-form swaps (two classes, ``'trace'``, ``'correlation'``) read the columns of the
        covariance on the support through ``X`` (one pass over ``X`` for each new column, no
        ``p x p`` matrix). With groups (a colour stack, ``patch_size`` or ``groups``) the swaps
        exchange one whole group for another (:func:`pixsel.spectral.group_swap_refine`; with
        the trace criterion, ``'correlation'`` or two classes every exchange is valued from one
        Cholesky factor of the union without the group that leaves). ``'auto'``: True where it
        can run on single features (``solver='greedy'``, without ``stability``; with the implicit
        algorithm, not with ``'max-eig'`` and more than two classes), False elsewhere and with
        groups (on the groups benchmark's colour patches and face parts the swaps raised the
        median held-out accuracy in no cell, 0 to 1.2 points below the greedy union, at 1.3-3.4
        times the fit's time);
        True refuses ``solver='exact'`` and ``stability``.
    never_select : array-like of int or None, default=None
        Features no support contains (FastCan's ``indices_exclude``): the greedy passes, the
        swaps and the exact search (``solver='exact'``: its certificate bounds every support
        without them) run on the other features, so a backward path has
        ``n_features - len(never_select)`` entries. Disjoint from ``always_select``; at least
        ``n_features_to_select`` features must be left. Dense algorithm only, without groups.
    beam_width : 'auto' or int, default='auto'
        Beam search over the forward pass: the ``beam_width`` best distinct supports of every
        size are kept and each is extended by every feature (one rank-one update per extension;
        see :func:`pixsel.spectral.greedy_path`); every size reads the better of the beam's best
        support and the forward pass's, so the objective is never below the forward pass's. 1
        is the forward pass. A width above 1 runs with the trace criterion (or
        ``'correlation'``) or two classes and ``solver='greedy'``. The beam and
        its forward pass stop at ``n_features_to_select`` (unless ``path='full'``), so
        :meth:`get_support_at` reads the sizes up to it; with the implicit algorithm each step
        reads the columns of its ``beam_width`` new features in one pass over ``X``. With
        groups the beam keeps the best unions of whole groups
        (:func:`pixsel.spectral.group_beam_search`, each extension valued from one Cholesky
        factor of its union) and its union at ``n_features_to_select`` replaces the greedy one
        when better; the other sizes read the greedy group path.
        ``'auto'`` runs a beam of width 3 with more than two classes and fewer than 10 training
        images a class on average, where it can run on the fit's forward pass
        (``solver='greedy'``, ``direction`` ``'auto'`` or ``'forward'``, an additive criterion,
        single features, no ``stability``, not ``path='full'``) and ``X`` is a NumPy array (a
        Dask or device array keeps the forward pass, which reads the columns it needs 32 at a
        time in one pass over ``X``); else 1. The rule is the quality benchmark's: with 5
        images per person (Extended Yale B, CMU PIE) the beam reached FastCan's beam search
        within half a point in 27 of 32 cells where the forward pass did in 22, and raised the
        mean held-out accuracy by 0.4 points, within the time of FastCan's greedy search; with
        10 images a class and more it won and lost cells alike (with 30 per person on CMU PIE
        at 5 pixels it lost 2-6 points), and with two classes it changed no cell but by single
        test samples. ``beam_width_`` says what ran.
    cv : int or cross-validation splitter, default=3
        Used only with ``direction='cv'`` or when ``criterion`` or ``regularization`` lists
        several values (with two classes the criteria coincide and only the regularizations are
        compared; the criterion and the regularization are chosen first, on forward paths,
        then the direction). For the criterion and the regularization: every
        candidate is fitted once per training fold (a path: one fit gives every size), shrinkage
        LDA (``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')``) is trained on the
        fold's supports of sizes ``ceil(k / 4)``, ``ceil(k / 2)`` and ``k`` (:func:`cv_sizes`)
        and scored on the test fold; the candidate of largest mean accuracy is refitted on all
        the samples (``cv_results_``). An int is the number of ``StratifiedKFold`` folds (no
        shuffling, as scikit-learn's ``GridSearchCV``); every class needs that many samples.
        Costs ``folds x candidates`` extra fits; NumPy input of single features only.

    Attributes
    ----------
    support_ : ndarray of shape (n_features,) of bool
        Mask of the selected features.
    n_features_to_select_ : int
    objective_path_ : ndarray of shape (n_path,)
        ``objective_path_[k - 1]`` is, per k, the best objective of the computed directions
        (with ``direction='cv'``, that of the pass chosen at k; at ``n_features_to_select_``,
        that of ``support_``). ``n_path`` is ``n_features`` when a backward pass ran or the
        forward path is whole (``path='full'``); with only a forward pass it is where the
        forward pass stopped (see ``path``), and
        ``n_features_to_select_`` with the implicit algorithm or a beam (``beam_width_ > 1``).
        Fit with ``path='full'`` (or ``beam_width=1``) for the sizes past it.
    forward_path_, backward_path_ : SparsePath or None
        The greedy paths (order and objective per k). They carry no per-k certificate: call
        ``pixsel.spectral.certify(path)`` for one, or use ``pixsel.lda_paths``.
    ranking_ : ndarray of shape (n_features,) of int
        The step at which each feature enters the greedy path that gives the support at
        ``n_features_to_select_`` (1 = first; a backward path read from its end); features a
        forward pass did not reach share the last rank. Without ``stability``, ``solver='exact'`` or
        swaps by ``refine`` the support is the features of rank ``<= n_features_to_select_``.
    selection_frequencies_ : ndarray of shape (n_features,)
        Only with ``stability``: the fraction of the resampled paths whose support contains
        each feature. Low frequencies mean that other draws of the same kind of data would
        have given other pixels: the selection is then one of many near-equivalent ones, not
        *the* discriminative pixels.
    scores_ : ndarray of shape (n_features,)
        Only with ``stability``: ``selection_frequencies_`` (larger is better, as the
        ``scores_`` of scikit-learn's ``SelectKBest``).
    stability_clusters_ : ndarray of shape (n_features,) of int
        Only with ``stability_correlation``: the cluster of each feature (``0 ..
        n_clusters - 1``, numbered by their first feature).
    cluster_frequencies_ : ndarray of shape (n_clusters,)
        Only with ``stability_correlation``: the fraction of the resampled paths whose support
        holds at least one member of each cluster.
    coef_ : ndarray of shape (n_features_to_select_,)
        The discriminant ``z = B_SS^{-1} a_S`` on the selected features (in index order); with
        more than two classes the principal generalized eigenvector of ``(A_SS, B_SS)``.
    classes_ : ndarray of shape (n_classes,)
    criterion_ : str
        The criterion of the fitted paths: what ``'auto'`` ran, or the cross-validated choice with
        ``criterion='cv'``.
    cv_results_ : dict or None
        When the criterion or the regularization was cross-validated: ``params`` (one dict per
        candidate), ``mean_test_score``, ``std_test_score``, ``rank_test_score`` and
        ``split{i}_test_score`` (held-out accuracy averaged over the sizes of :func:`cv_sizes`),
        as scikit-learn's ``GridSearchCV``; None otherwise.
    best_params_ : dict
        Only when ``cv_results_`` is set: the chosen ``criterion`` and ``regularization``.
    direction_by_k_ : tuple of str of length n_scored
        Only when the direction was cross-validated (``direction_ == 'cv'``): ``'forward'`` or
        ``'backward'``, the pass whose support :meth:`get_support_at` returns at each ``k`` up
        to ``n_scored = n_features_to_select_`` (larger k are read as with ``'dual'``).
    direction_scores_ : ndarray of shape (2, n_scored)
        Only when the direction was cross-validated: the held-out accuracy, pooled over the
        test folds, of the forward (row 0) and backward (row 1) supports at each size (NaN
        below the number of ``always_select`` features).
    regularization_ : dict
        The regularization applied to ``B`` (method, alpha, shrinkage, mu).
    algorithm_, direction_ : str
        The algorithm ('dense' or 'implicit') and the direction(s) actually run (``'cv'``:
        both passes, the pass of each k cross-validated).
    route_, route_reason_ : str
        Which kernels ran the greedy path and why, in one sentence: ``'compiled'`` (Numba, on
        a large problem or once this process has loaded them), ``'numpy'`` (a small problem:
        the NumPy kernels answer before the compiled ones would load; or a search with no
        compiled kernel, such as the forward pass of the trace and correlation criteria, whose
        steps are BLAS products on any route), ``'implicit'`` (no
        ``p x p`` matrix), ``'array_api'`` (another library's arrays on their device),
        ``'host'`` (another library's arrays on a CPU) or ``'dask'``. The selection is the same
        on every route (up to rounding).
    status_, upper_bound_, n_nodes_ : str, float, int
        Only with ``solver='exact'``: the search status (``'optimal'``, ``'gap_reached'``,
        ``'time_limit'``, ``'node_limit'`` or ``'interrupted'``: the words of
        :func:`pixsel.spectral.exact_support`, defined in the documentation's exact-search page,
        "Status and certified gap"), the certified upper bound on the objective of every support of
        size ``n_features_to_select_``, and the nodes searched.
    gap_ : float
        Only with ``solver='exact'``: the *relative* gap ``(upper_bound_ - objective) /
        |objective|`` of the returned support (0 when certified optimal), the certified gap of
        the documentation's exact-search page.
    absolute_gap_ : float
        Only with ``solver='exact'``: ``upper_bound_ - objective``, in the objective's units.
    always_select_ : ndarray of int
        The forced features, sorted (empty without ``always_select``).
    never_select_ : ndarray of int
        The excluded features, sorted (empty without ``never_select``).
    beam_width_ : int
        The beam width that ran (1: the forward pass).
    n_swaps_ : int
        Only when ``refine`` ran: the swaps taken from the greedy support at ``n_features_to_select_``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` has string feature names.
    n_features_selected_ : int
        The number of features of the selection (``k`` times the group size for equal groups).
    groups_ : ndarray of shape (n_features_in_,) or None
        The group id of every feature (the pixel or patch number for an image stack); None
        when single features were selected.
    n_groups_ : int
    group_support_ : ndarray of shape (n_groups_,) of bool
        The selected groups (in the order of the sorted group ids).
    image_shape_ : tuple or None
        ``(h, w)`` or ``(h, w, c)`` when ``X`` was an image stack (it is flattened in C order:
        ``transform`` takes the stack or the flattened rows).
    image_support_ : ndarray of shape (h, w) of bool or None
        The selected pixels (a pixel counts when any of its channels is selected).

    Notes
    -----
    Array API: under ``sklearn.set_config(array_api_dispatch=True)`` a PyTorch, CuPy or
    array-api-strict ``X`` (``y`` of the same library, or a list/NumPy labels) is fitted on its
    device: the class statistics, the regularization, the greedy paths and ``coef_`` are
    computed there, in X's float dtype for the statistics (float32 stays float32) and float64
    in the binary path where the device has it; every fitted array is on X's device (``classes_``
    excepted, NumPy labels) and ``get_support`` returns NumPy booleans. ``solver='exact'`` brings
    the ``p x p`` statistics to the host once (the branch and bound is branchy host work).

    References
    ----------
    * B. Moghaddam, Y. Weiss and S. Avidan, "Fast pixel/part selection with sparse eigenvectors",
      IEEE International Conference on Computer Vision (ICCV), 2007.
    * B. Moghaddam, Y. Weiss and S. Avidan, "Generalized spectral bounds for sparse LDA",
      International Conference on Machine Learning (ICML), 2006. doi:10.1145/1143844.1143925

    Examples
    --------
    >>> from pixsel import SparseLDASelector
    >>> from pixsel.datasets import load_digits_pair
    >>> d = load_digits_pair(3, 5)
    >>> sel = SparseLDASelector(n_features_to_select=5).fit(d.X, d.y)
    >>> sel.transform(d.X).shape
    (365, 5)
    >>> int(sel.get_support_at(2, indices=True).size)
    2
    """

    _parameter_constraints: dict = {
        **PATH_CONSTRAINTS,
        "direction": [StrOptions((*DIRECTIONS, "cv", "auto"))],
        "regularization": [StrOptions(("rda", "auto", "none", "ledoit-wolf", "ledoit-wolf-floor")), Interval(Real, 0, None, closed="left"),
                           None, list, tuple],
        "criterion": [StrOptions((*CRITERIA, "auto", "cv")), list, tuple],
        "path": [StrOptions(PATHS)],
        "cv": ["cv_object"],
        "refine": [StrOptions(("auto",)), "boolean", Interval(Integral, 0, None, closed="left")],
        "never_select": ["array-like", None],
        "beam_width": [StrOptions(("auto",)), Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_features_to_select: int | float = 10,
        *,
        direction: Literal["forward", "backward", "dual", "cv", "auto"] = "auto",
        regularization: str | float | list | None = "ledoit-wolf-floor",
        criterion: Literal["auto", "correlation", "max-eig", "trace", "cv"] | list[str] = "auto",
        algorithm: Literal["auto", "dense", "implicit"] = "auto",
        solver: Literal["greedy", "exact"] = "greedy",
        time_limit: float | None = None,
        node_limit: int | None = None,
        gap_tol: float = 0.0,
        path: Literal["auto", "full"] = "auto",
        progress: bool | Callable[[int, int, str], object] = False,
        groups: ArrayLike | str | None = None,
        patch_size: tuple[int, int] | None = None,
        stability: int | None = None,
        stability_correlation: float | None = None,
        random_state: int | np.random.RandomState | None = None,
        always_select: ArrayLike | None = None,
        cv: int | object = 3,
        refine: Literal["auto"] | bool | int = "auto",
        never_select: ArrayLike | None = None,
        beam_width: Literal["auto"] | int = "auto",
    ) -> None:
        self.n_features_to_select = n_features_to_select
        self.direction = direction
        self.regularization = regularization
        self.criterion = criterion
        self.algorithm = algorithm
        self.solver = solver
        self.time_limit = time_limit
        self.node_limit = node_limit
        self.gap_tol = gap_tol
        self.path = path
        self.progress = progress
        self.groups = groups
        self.patch_size = patch_size
        self.stability = stability
        self.stability_correlation = stability_correlation
        self.random_state = random_state
        self.always_select = always_select
        self.cv = cv
        self.refine = refine
        self.never_select = never_select
        self.beam_width = beam_width

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Compute the statistics and the greedy path(s), then select ``n_features_to_select``.

        Parameters
        ----------
        X : array-like or dask array of shape (n_samples, n_features), (n, h, w) or (n, h, w, c)
            uint8, integer, float32 or float64 samples: images flattened, or an image stack
            (a colour stack selects whole pixels, see ``groups``). Never modified.
        y : array-like of shape (n_samples,)
            Class labels (two or more classes).

        Returns
        -------
        self
        """
        owner = check_params(self)  # the parameters, then the options that cannot run together
        X, y, plan = self._plan(X, y, owner)
        if plan.route.implicit:  # the passes over X where X lives (NumPy, Dask chunks, a device)
            self._fit_implicit(X, y, plan.classes, plan.k, owner, plan.criterion, plan.regularization,
                               sweeps=plan.sweeps, F=plan.F)
            store_groups(self, None, plan.image_shape)
            store_on_route(self, plan.route)
            return self
        with record_compiled() as ran:  # whether the search had a compiled kernel to run
            a, B, kernel_criterion = self._statistics(X, y, plan)
            fwd, bwd = self._search(a, B, kernel_criterion, plan)
            self._store(X, y, a, B, kernel_criterion, fwd, bwd, plan, owner)
        self._settle_route(ran)
        return self

    def _plan(self, X, y, owner):
        """Validate the data and every option against it, before any statistics: the classes, ``k``,
        the groups, the search options, the criterion and regularization (cross-validated when
        several are given), the route, the forced features and the direction."""
        X, image_shape = self._flatten_images(X)
        route = fit_route("greedy", X, y)
        X, y = validate_fit(self, route, X, y)
        check_classification_labels(y)
        classes = np.unique(y)
        criteria, regularizations = self._candidates(owner)
        n_resamples = self._check_stability(owner)
        if len(classes) < 2:
            raise ValueError(f"{owner} needs at least 2 classes; y has {len(classes)}.")
        criteria = list(dict.fromkeys(criterion_for(c, len(classes)) for c in criteria))
        if len(classes) == 2:  # one criterion: the trace and the largest eigenvalue coincide
            criteria = criteria[:1]
        p = int(X.shape[1])
        grouping = fit_groups(self, p, image_shape)  # k counts groups when features are grouped
        if n_resamples and grouping is not None:
            raise ValueError(f"{owner}: stability counts single features; use it without groups, "
                             "patch_size or a colour image stack (flatten X to (n_samples, n_features)).")
        k = self._resolve_k(p) if grouping is None else grouping.k
        few = X.shape[0] < AUTO_BEAM_PER_CLASS * len(classes)  # few images a class: beam_width='auto' widens
        sweeps = self._check_search(owner, grouping, n_resamples, p, k, len(classes),
                                    wide=few and route.backend == "numpy")
        self.cv_results_ = None
        for name in ("best_params_", "direction_by_k_", "direction_scores_", "n_swaps_"):
            self.__dict__.pop(name, None)  # a refit without a choice keeps none from before
        if len(criteria) * len(regularizations) > 1:
            self._check_resamplable(grouping is None and isinstance(X, np.ndarray), owner,
                                    "the criterion or the regularization", "pass one criterion and one regularization")
            criterion, regularization = self._cross_validate(X, y, k, criteria, regularizations, owner)
        else:
            criterion, regularization = criteria[0], regularizations[0]
        self.criterion_ = criterion
        steps = self._forward_steps(p, k, len(classes), grouping, n_resamples, sweeps, criterion, regularization)
        lw = is_shrinkage(regularization)  # its intensity through X: the n x n products
        route = self._sized_route(route, X, n_classes=len(classes), k=k, forward_steps=steps, row_products=lw,
                                  **({} if grouping is None else {"algorithm": "dense", "groups": True}))
        self.algorithm_ = route.algorithm
        self.route_, self.route_reason_ = route.name, route.reason
        F = self._resolve_forced(p, k, owner, grouping=grouping, n_resamples=n_resamples, implicit=route.implicit)
        # a criterion that does not split over the forced features (the largest eigenvalue) runs forward only
        forward_only = bool(len(F)) and len(classes) > 2 and not criterion_named(criterion).additive
        if forward_only and self.direction not in ("forward", "auto"):
            raise ValueError(f"{owner}: with always_select, criterion={criterion!r} and more than two classes run "
                             "forward only (the largest eigenvalue does not split over the forced features); use "
                             "direction='forward' or criterion='trace'.")
        direction = self._run_direction(X, y, grouping, route, forward_only or len(classes) == 2, owner)
        additive = self._additive(owner, len(classes))
        if route.implicit and isinstance(self.refine, str) and not additive:
            sweeps = 0  # refine='auto': the largest eigenvalue's swaps read the p x p matrix, not formed here
        if route.implicit and ((sweeps and not additive) or len(self.never_select_)):
            raise ValueError(f"{owner}: never_select and the swaps of criterion='max-eig' need "
                             "algorithm='dense' (they read the p x p within-class covariance); pass "
                             "algorithm='dense', or refine=False and never_select=None.")
        if route.implicit and n_resamples:
            raise ValueError(f"{owner}: stability needs algorithm='dense' (the resampled paths are "
                             "dense fits); pass algorithm='dense' or stability=None.")
        plan = SimpleNamespace(image_shape=image_shape, route=route, classes=classes, p=p, grouping=grouping, k=k,
                               sweeps=sweeps, n_resamples=n_resamples, criterion=criterion,
                               regularization=regularization, F=F, direction=direction)
        return X, y, plan

    def _forward_steps(self, p, k, n_classes, grouping, n_resamples, sweeps, criterion, regularization):
        """The length of the forward pass when this fit runs that pass alone and reads nothing else
        of the ``p x p`` matrix (then ``algorithm='auto'`` may take the implicit form); None when
        it needs the matrix: another pass, groups, forced or excluded features, stability,
        the exact search, the whole path, no ridge, or the swaps of the largest eigenvalue."""
        crit = criterion_named(criterion)
        needs_matrix = (
            self.direction not in ("auto", "forward") or grouping is not None or n_resamples
            or self.solver != "greedy" or self.path == "full"
            or len(self.never_select_) or len(check_forced(self.always_select, p, owner=type(self).__name__))
            or regularization is None or (isinstance(regularization, str) and regularization == "none")
            or (not isinstance(regularization, str) and regularization == 0)
            or (crit.needs_dense_pair and crit.implicit_on_total is None)
            or (sweeps and not self._additive("", n_classes))
        )
        return None if needs_matrix else k  # the implicit form's pass stops at k

    def _statistics(self, X, y, plan):
        """The pair of the search: ``a`` (``m1 - m0``, or the factor of the between covariance) and
        the regularized within-class covariance ``B``; ``regularization_`` kept. Returns the pair
        the criterion searches (``Criterion.pair``: ``'correlation'`` searches the trace of
        ``(A, B + A)``) and the criterion object the kernels run."""
        p, classes = plan.p, plan.classes
        y, classes_fit = codes_on_route(plan.route, y, classes)  # another library: codes on X's device
        stats = class_statistics(X, y, classes=classes_fit, route=plan.route)
        B, reg = regularize(
            stats.within, plan.regularization, X=X, y=y, means=stats.means, classes=stats.classes
        )
        if reg.method == "none" and not positive_definite(plan.route, B):
            raise ValueError(
                "The within-class covariance B is singular (constant pixels, duplicated pixels or "
                f"more features ({p}) than samples ({stats.n_samples})), so f(S) = a_S^T B_SS^-1 a_S "
                "is undefined with regularization='none'. Use regularization='auto' or a ridge > 0."
            )
        # two classes: a = m1 - m0 (A = a a^T); more: the factor M of the between covariance
        a = stats.between if len(classes) == 2 else stats.between_factor
        if a.ndim == 2 and a.shape[1] >= a.shape[0]:
            # a square (or wide) factor would read as a full symmetric A: pass A = M M^T itself
            a = a @ a.T
        if not any_nonzero(plan.route, a):
            raise ValueError(
                "The class means are identical on every feature, so no feature separates the "
                "classes; check that y matches X."
            )
        self.regularization_ = reg.to_dict()
        crit = criterion_named(plan.criterion)
        plan.lowrank = None  # (U, lam): B = lam I + U U^T, for the backward pass in the n-dimensional form
        if plan.grouping is None and plan.direction in ("backward", "dual", "cv") and (a.ndim == 1 or a.shape[1] < p):
            # a criterion searched on B + A: B + A = lam I + [U M] [U M]^T, M the factor (or vector) of A
            extra = 0 if crit.implicit_on_total is None else (1 if a.ndim == 1 else a.shape[1])
            pays, _ = lowrank_backward_pays(plan.route, stats.n_samples + extra, p,
                                            ridge=reg.shrinkage * reg.mu + reg.alpha, criterion=crit,
                                            n_forced=len(plan.F), n_excluded=len(self.never_select_))
            if pays:
                U, lam = regularized_factor(X, y, stats.means, stats.classes, reg)
                plan.lowrank = (U if not extra else np.hstack([U, a.reshape(p, -1)]), lam)
        a, B, _ = crit.pair(a, B)  # the form stays the kernels' to read from a
        return a, B, crit

    def _search(self, a, B, criterion, plan):
        """The greedy path(s) the direction asks for: forward (or the beam), backward, or whole
        groups. No per-k certificate here: nothing in the fit reads it, and its ``lambda_min(B)``
        costs about one inverse of ``B`` per direction (``certify(path)`` or ``lda_paths`` give it)."""
        grouping, direction, p = plan.grouping, plan.direction, plan.p
        E = self.never_select_ if len(self.never_select_) else None
        max_k = forward_length(p - len(self.never_select_) if grouping is None else grouping.n_groups, plan.k,
                               len(plan.classes), self.path, direction)
        if self.beam_width_ > 1 and self.path != "full":  # the beam stops at k (each size past it is w passes)
            max_k = plan.k
        fwd = bwd = None
        with path_progress(self) as progress:
            if grouping is not None:  # whole groups enter and leave (host statistics)
                fwd, bwd = group_paths(grouping, a, B, direction, criterion=criterion, max_k=max_k,
                                       progress=progress)
            elif direction in ("forward", "dual", "cv"):
                # check_input=False: the pair is this fit's own statistics (a two-class pass on the
                # NumPy route then skips the checks of the pair; every other call is checked)
                fwd = greedy_path(a, B, direction="forward", criterion=criterion, max_k=max_k,
                                  callback=progress(self._forward_label("forward path")), always_select=plan.F,
                                  never_select=E,
                                  beam_width=self.beam_width_, route=plan.route, check_input=False)
            if grouping is None and direction in ("backward", "dual", "cv") and getattr(plan, "lowrank", None) is not None:
                U, lam = plan.lowrank  # n < p: removals update an n x n system, never a p x p inverse
                with follow(plan.route, a):  # compiled or NumPy loops, as the route chose for the dense kernels
                    bwd = lowrank_backward_path(a, U, lam, criterion=criterion, callback=progress("backward path"))
                bwd.B = B
                bwd.info["form"] = "vector" if a.ndim == 1 else "factor"
            elif grouping is None and direction in ("backward", "dual", "cv"):
                bwd = greedy_path(a, B, direction="backward", criterion=criterion,
                                  callback=progress("backward path"), always_select=plan.F, never_select=E,
                                  route=plan.route)
        return fwd, bwd

    def _store(self, X, y, a, B, criterion, fwd, bwd, plan, owner):
        """The support at ``k`` and the paths, then what improves or replaces it (the direction's
        cross-validation, the swaps, stability, the exact search), and the fitted attributes."""
        k, grouping, direction = plan.k, plan.grouping, plan.direction
        self.classes_ = plan.classes
        by_cv = direction == "cv"
        if by_cv:  # before the support at k is read: it follows the choice
            self._cross_validate_direction(X, y, k, len(plan.F), plan.criterion, plan.regularization,
                                           len(fwd.objective), owner)
        self._set_paths(fwd, bwd, k, direction)
        if by_cv:  # the objective of the support read at each k
            chosen = np.array(self.direction_by_k_) == "backward"
            K = len(chosen)
            self.objective_path_[:K] = np.where(chosen, bwd.objective[:K], fwd.objective[:K])
        if grouping is not None and (plan.sweeps or self.beam_width_ > 1):  # whole groups in and out, at k
            search_groups_at_k(self, grouping, a, B, k, criterion=criterion, beam_width=self.beam_width_,
                               sweeps=plan.sweeps)
        elif plan.sweeps:
            self._refine_support(a, B, k, plan.F, criterion, plan.sweeps)
        self._stabilize(X, y, k, plan.n_resamples, plan.route)
        if self.solver == "exact" and grouping is not None:
            self.support_ = exact_group_fit(self, grouping, a, B, k, criterion=criterion)
        elif self.solver == "exact":
            self._solve_exact(a, B, k, criterion=criterion, route=plan.route)  # device statistics: one host copy
        S = np.flatnonzero(self.support_)
        store_groups(self, grouping, plan.image_shape)
        store_on_route(self, plan.route)
        self.coef_ = support_weights(plan.route, a, B, S)

    def _check_conflicts(self):
        super()._check_conflicts()
        owner = type(self).__name__
        grouped = (self.groups is not None and not isinstance(self.groups, str)) or self.patch_size is not None
        several = isinstance(self.regularization, (list, tuple)) and len(self.regularization) > 1
        if grouped and (self.direction == "cv" or several):
            what = "the direction" if self.direction == "cv" else "the criterion or the regularization"
            instead = ("pass direction='forward' or 'dual'" if self.direction == "cv"
                       else "pass one criterion and one regularization")
            self._check_resamplable(False, owner, what, instead)

    def _check_implicit(self, owner):
        """See the base; every regularization runs through ``X``."""
        super()._check_implicit(owner)
        if self.direction == "backward":
            raise ValueError(
                f"{owner}: algorithm='implicit' runs forward selection only; use direction='forward' "
                "(or 'dual', which then runs forward only) or algorithm='dense'."
            )
        if self.solver == "exact":
            raise ValueError(f"{owner}: solver='exact' needs algorithm='dense' (the p x p within-class covariance).")

    def _forward_label(self, label):
        """The progress label of the forward pass: with a beam, its sizes follow the pass's steps."""
        return label if self.beam_width_ == 1 else f"{label}, then beam of {self.beam_width_}"

    def _check_beam(self, owner, n_classes):
        """Refuse a beam search where it cannot run, before any work."""
        if self.solver == "exact":
            raise ValueError(f"{owner}: beam_width widens the greedy search; solver='exact' already returns the "
                             "certified optimum. Use beam_width=1 with solver='exact'.")
        if self.direction == "backward":
            raise ValueError(f"{owner}: beam_width widens the forward pass; use direction='auto', 'forward', 'dual' "
                             "or 'cv', or beam_width=1.")
        if not self._additive(owner, n_classes):
            raise ValueError(f"{owner}: the beam search runs with criterion='trace' (or two classes): the gains of "
                             "the largest eigenvalue are not additive. Use criterion='trace' or beam_width=1.")

    def _check_search(self, owner, grouping, n_resamples, p, k, n_classes, wide=True):
        """The swap sweeps ``refine`` allows (0: none) and ``never_select_``, refused before any
        work where they cannot run."""
        E = check_excluded(self.never_select, p, always_select=check_forced(self.always_select, p, owner=owner),
                           k=k, owner=owner)
        if len(E) and grouping is not None:
            raise ValueError(f"{owner}: never_select excludes single features; use it without groups, patch_size "
                             "or a colour image stack (flatten X to (n_samples, n_features)).")
        if len(E) and self.algorithm == "implicit":
            raise ValueError(f"{owner}: never_select needs algorithm='dense'; pass algorithm='dense'.")
        self.never_select_ = E
        if isinstance(self.beam_width, str):
            check_options(self.beam_width, "beam_width", ("auto",), owner=owner)
            # 'auto': a beam where it runs on one fit's forward pass to k, with more than two classes and
            # few images a class, on a NumPy X (``wide``; a Dask or device X runs the forward pass, which
            # reads 32 columns per pass over X)
            wide = (wide and n_classes > 2 and self.solver == "greedy" and grouping is None and not n_resamples
                    and self.direction in ("auto", "forward") and self.path != "full"
                    and self._additive(owner, n_classes))
            width = AUTO_BEAM_WIDTH if wide else 1
        else:
            width = check_search(self.beam_width, False, owner=owner)[0]
            if width > 1:
                self._check_beam(owner, n_classes)
        self.beam_width_ = width
        refine = self.refine
        if isinstance(refine, str):
            check_options(refine, "refine", ("auto",), owner=owner)
            # 'auto': swap where it can run (the implicit algorithm with the largest eigenvalue is excluded once
            # the route is known)
            plain = self.solver == "greedy" and grouping is None and not n_resamples
            return MAX_SWAP_SWEEPS if plain else 0
        if isinstance(refine, bool) or refine is None:
            sweeps = MAX_SWAP_SWEEPS if refine else 0
        else:
            sweeps = check_int(refine, "refine", low=0, owner=owner)
        if sweeps and self.solver == "exact":
            raise ValueError(f"{owner}: refine improves a greedy support; solver='exact' already returns the "
                             "certified optimum. Use refine=False with solver='exact'.")
        if sweeps and n_resamples:
            raise ValueError(f"{owner}: refine improves the support of one fit, and stability replaces it by the "
                             "most frequent features; use refine=False with stability.")
        if sweeps and self.algorithm == "implicit" and not self._additive(owner, n_classes):
            raise ValueError(f"{owner}: refine with algorithm='implicit' needs an additive criterion ('trace', "
                             "'correlation' or two classes: the swaps of the largest eigenvalue are valued from the "
                             "p x p within-class covariance); pass algorithm='dense' or refine=False.")
        return sweeps

    def _additive(self, owner, n_classes):
        """Whether every candidate criterion is additive with ``n_classes`` classes (two classes: one criterion)."""
        return n_classes == 2 or all(criterion_named(criterion_for(c, n_classes)).additive
                                     for c in self._candidates(owner)[0])

    def _refine_support(self, a, B, k, F, criterion, sweeps):
        """Swap refinement of ``support_`` at ``k`` (:func:`pixsel.spectral.swap_refine`);
        ``objective_path_[k - 1]`` follows it, the paths stay as computed."""
        a = to_numpy(a, np.float64)
        B = B if hasattr(B, "columns") else to_numpy(B, np.float64)  # a Gram operator: the implicit route's
        start = np.flatnonzero(to_numpy(self.support_))
        res = swap_refine(a, B, start, criterion=criterion, max_sweeps=sweeps, always_select=F,
                          never_select=self.never_select_)
        self.n_swaps_ = res.n_swaps
        if not res.n_swaps:  # the greedy support is a local optimum: kept as it is, with its objective
            return
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[res.support] = True
        self.support_ = mask
        self.objective_path_[k - 1] = res.objective

    def _candidates(self, owner):
        """The criteria and the regularizations to fit: one of each, or the lists to choose from."""
        crit = self.criterion
        if isinstance(crit, str) and crit == "cv":
            crit = list(CV_CRITERIA)
        if isinstance(crit, (list, tuple)):
            if not crit:
                raise ValueError(f"The 'criterion' parameter of {owner} must be 'trace', 'max-eig', 'cv' or a "
                                 "non-empty list of 'trace' and 'max-eig'. Got an empty list instead.")
            criteria = [check_options(c, "criterion", CRITERIA, owner=owner) for c in crit]
        else:
            criteria = [check_options(crit, "criterion", (*CRITERIA, "auto", "cv"), owner=owner)]
        reg = self.regularization
        if isinstance(reg, (list, tuple)):
            if not reg:
                raise ValueError(f"The 'regularization' parameter of {owner} must be one regularization or a "
                                 "non-empty list of them. Got an empty list instead.")
            regularizations = list(reg)
        else:
            regularizations = [reg]
        return list(dict.fromkeys(criteria)), regularizations

    def _cross_validate(self, X, y, k, criteria, regularizations, owner):
        """Choose the criterion and the regularization of best held-out accuracy (``cv_results_``).

        Each candidate is fitted once per training fold (a path); shrinkage LDA trained on the
        fold's supports at the sizes :func:`cv_sizes` of ``k`` is scored on the test fold; the
        candidate of largest mean accuracy over folds and sizes wins (ties to the earlier one).
        """
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        y = np.asarray(y)
        splits = self._cv_splits(X, y, owner, "the criterion or the regularization",
                                 "pass one criterion and one regularization")
        sizes = cv_sizes(k)
        params = [{"criterion": c, "regularization": r} for c in criteria for r in regularizations]
        scores = np.empty((len(splits), len(params)))
        lda = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
        for i, (train, test) in enumerate(splits):
            for j, par in enumerate(params):
                sub = clone(self).set_params(**par, n_features_to_select=k, stability=None, solver="greedy",
                                             progress=False, direction=self._plain_direction())
                sub.fit(X[train], y[train])
                acc = []
                for size in sizes:
                    S = sub.get_support_at(size, indices=True)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", UserWarning)  # collinear pixels in a fold
                        model = clone(lda).fit(X[np.ix_(train, S)], y[train])
                    acc.append(np.mean(model.predict(X[np.ix_(test, S)]) == y[test]))
                scores[i, j] = float(np.mean(acc))
        mean = scores.mean(axis=0)
        best = int(np.argmax(mean))
        self.cv_results_ = {
            "params": params,
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=0),
            "rank_test_score": rankdata(-mean, method="min").astype(np.int32),
            **{f"split{i}_test_score": scores[i] for i in range(len(splits))},
        }
        self.best_params_ = params[best]
        return params[best]["criterion"], params[best]["regularization"]

    def _plain_direction(self):
        """The direction of fits inside a cross-validation of something else: ``'cv'`` and
        ``'auto'`` run forward."""
        return "forward" if self.direction in ("cv", "auto") else self.direction

    def _run_direction(self, X, y, grouping, route, forward_first, owner):
        """The passes this fit runs: ``direction``, with ``'auto'`` resolved (the forward pass, which
        ``refine`` then improves) and ``'cv'`` run forward only by the implicit algorithm."""
        if self.direction == "auto":
            return "forward"
        if self.direction != "cv":
            return self.direction
        if route.implicit:
            return "forward"
        # an array-API array: the folds are drawn from a host copy
        self._check_resamplable(grouping is None and route.backend != "dask", owner, "the direction",
                                "pass direction='forward' or 'dual'")
        return "cv"

    @staticmethod
    def _check_resamplable(resamplable, owner, what, instead):
        if not resamplable:
            raise ValueError(f"{owner}: choosing {what} by cross-validation resamples the rows of a NumPy array "
                             f"of single features; {instead}, or pass X as an (n_samples, n_features) NumPy "
                             "array without groups or patch_size.")

    def _cv_splits(self, X, y, owner, what, instead):
        """The (train, test) folds of ``cv``; an int needs that many samples of every class."""
        from sklearn.model_selection import check_cv

        _, counts = np.unique(y, return_counts=True)
        if isinstance(self.cv, numbers.Integral):
            check_int(self.cv, "cv", low=2, owner=owner)
            if counts.min() < self.cv:
                raise ValueError(f"{owner}: cross-validating {what} with cv={self.cv} folds needs at least "
                                 f"{self.cv} samples of every class; the smallest class has {counts.min()}. Use "
                                 f"cv={max(2, counts.min())} or {instead}.")
        return list(check_cv(self.cv, y, classifier=True).split(X, y))

    def _cross_validate_direction(self, X, y, k, n_forced, criterion, regularization, n_path, owner):
        """``direction_by_k_``: for every size up to ``k``, the forward pass unless the backward
        pass classifies clearly more test-fold samples right (``direction_scores_``).

        Each training fold gets one fit with both passes; shrinkage LDA is scored at every size
        of both paths from running sums along each (the supports of a pass are nested), so a
        fold costs its two paths and about ``K^4 / 12`` operations of scoring, ``K`` the largest
        size.
        """
        X, y = to_numpy(X), to_numpy(y)  # array-API data: the folds on a host copy
        splits = self._cv_splits(X, y, owner, "the direction", "pass direction='forward' or 'dual'")
        K = min(n_path, k)  # scoring a size costs about its square: the sizes above k cost 3 x those below
        first = max(1, n_forced)
        grid = np.arange(first, K + 1)
        # per size: the held-out samples each pass classifies right, pooled over the folds
        right = np.zeros((2, K, len(y)), dtype=bool)
        scored = np.zeros((2, K), dtype=bool)
        sub = clone(self).set_params(direction="dual", criterion=criterion, regularization=regularization,
                                     n_features_to_select=k, stability=None, solver="greedy", progress=False,
                                     algorithm="dense", refine=False)
        with path_progress(self) as progress:
            report = progress("direction cross-validation, folds")
            for i, (train, test) in enumerate(splits):
                self._score_fold_passes(sub.fit(X[train], y[train]), X, y, train, test, grid, right, scored)
                if report is not None:
                    report(i + 1, len(splits))
        # the backward pass only where it wins clearly: more held-out samples right than the
        # forward pass by over _DIRECTION_Z standard deviations of the paired count (McNemar)
        only_bwd = np.sum(right[1] & ~right[0], axis=1)
        only_fwd = np.sum(right[0] & ~right[1], axis=1)
        backward = (only_bwd - only_fwd > _DIRECTION_Z * np.sqrt(only_bwd + only_fwd)) & scored[1]
        backward |= ~scored[0]
        backward[: first - 1] = False
        scores = np.where(scored, right.mean(axis=2), np.nan)
        scores[:, : first - 1] = np.nan
        self.direction_scores_ = scores
        self.direction_by_k_ = tuple("backward" if b else "forward" for b in backward)

    @staticmethod
    def _score_fold_passes(fold, X, y, train, test, grid, right, scored):
        """Mark in ``right[d, k - 1, test]`` the test samples that shrinkage LDA on the support of
        size ``k`` of the fold's pass ``d`` (0 forward, 1 backward) classifies right."""
        passes = []
        for d, path in enumerate((fold.forward_path_, fold.backward_path_)):
            sizes = grid[grid <= len(path.objective)]
            passes.append((d, sizes, _nested_order([path.support(int(j)) for j in sizes])))
        # only the pixels of the supports scored: the statistics of a column subset are those
        # of its columns (per-column scaling, shrinkage from the block's sums)
        cols = np.unique(np.concatenate([order for _, _, order in passes]))
        stats = _ShrinkageLDAStatistics(X[np.ix_(train, cols)], y[train])
        for d, sizes, order in passes:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # collinear pixels in a fold
                correct = stats.path_correct(np.searchsorted(cols, order), sizes, X[np.ix_(test, cols)], y[test])
                for j, ok in zip(sizes, correct):
                    right[d, j - 1, test] = ok
            scored[d, sizes - 1] = True

    def _best_path(self, k):
        chosen = self.__dict__.get("direction_by_k_")
        if chosen is not None and k <= len(chosen):
            return self.backward_path_ if chosen[k - 1] == "backward" else self.forward_path_
        return super()._best_path(k)

    def _resample_params(self):
        """The resampled paths of ``stability`` reuse the cross-validated choices (no CV per resample)."""
        params = dict(self.best_params_) if getattr(self, "cv_results_", None) is not None else {}
        chosen = self.__dict__.get("direction_by_k_")
        if chosen is not None:
            k = self.n_features_to_select_
            params["direction"] = str(chosen[k - 1]) if k <= len(chosen) else "dual"
        elif self.direction in ("cv", "auto"):
            params["direction"] = self.direction_
        if isinstance(self.refine, str):  # 'auto': the resamples' greedy supports, as before refine
            params["refine"] = False
        if isinstance(self.beam_width, str):  # 'auto': no beam in the resamples either (their forward passes)
            params["beam_width"] = 1
        return params

    def _fit_implicit(self, X, y, classes, k, owner, criterion, regularization, sweeps=0, F=()):
        """Forward path to ``k`` through ``X`` (no ``p x p`` matrix), then ``sweeps`` swap moves at
        ``k`` read through the same operator's columns; see ``algorithm`` and ``refine``."""
        self._check_implicit(owner)  # chosen by algorithm='auto' on the data
        crit = criterion_named(criterion)
        total = crit.implicit_on_total  # searched on (A, B + A), X's covariance about its mean
        if crit.needs_dense_pair and total is None:
            raise ValueError(f"{owner}: criterion={criterion!r} needs algorithm='dense' (it searches p x p matrices "
                             "formed from the statistics); pass algorithm='dense' or criterion='trace'.")
        reg = regularization
        B = gram_operator(X, y, classes=classes)  # CenteredGramOperator, or X's device's
        T = B if total is None else gram_operator(X)  # within + between: the covariance about the overall mean
        with T.cached():  # a Dask X on a cluster: its chunks stay on the workers for all the passes
            a = B.class_means.between if len(classes) == 2 else B.class_means.between_factor
            if is_shrinkage(reg):
                # (1 - s) B + s mu I, and for a criterion on the total (1 - s) T + s M M^T + s mu I (T = B + M M^T)
                cm = B.class_means
                info = shrinkage_regularization(reg, ledoit_wolf_from_rows(X, y, cm.means, cm.classes),
                                                B.mean_variance())
                s = info.shrinkage
                M = None if total is None else np.sqrt(s) * cm.between_factor
                G = ShrunkGramOperator(T, 1.0 - s, s * info.mu, M)
            else:
                info = ridge_regularization(reg, B.mean_variance())  # the ridge from the within-class variance
                G = T.with_alpha(info.alpha)
            with path_progress(self) as progress:  # to k only: each step is a pass over X
                path = greedy_path(a, G, max_k=k, criterion=total or criterion, beam_width=self.beam_width_,
                                   callback=progress(self._forward_label("forward path (implicit)")))
            self.classes_ = classes
            self.regularization_ = info.to_dict()
            self._set_paths(path, None, k, "forward")
            if sweeps:  # the swaps read G's columns on the support: one pass over X for each new column
                self._refine_support(a, G, k, F, total or criterion, sweeps)
            S = np.flatnonzero(self.support_)
            # the discriminant on S from its k x k block, as the dense form's (B_SS^-1 a_S with two classes)
            aS = a[S] if a.ndim == 1 else a[S] @ a[S].T  # A_SS in full form (a k x r factor may be wide)
            self.coef_ = weights_on_support(aS, G.submatrix(S), np.arange(len(S)))
        return self
