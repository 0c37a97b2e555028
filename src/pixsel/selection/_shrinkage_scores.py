"""Shrinkage LDA scored on many column subsets from statistics formed once.

:class:`_ShrinkageLDAStatistics` gives ``LinearDiscriminantAnalysis(solver='lsqr',
shrinkage='auto')`` on any column subset, and along nested supports every size from running
sums; :func:`_nested_order` tells whether supports are nested. Used by
:class:`~pixsel.selection.PathSelectorCV` (choosing k) and by
:class:`~pixsel.selection.SparseLDASelector` (choosing the pass of each k).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

#: The default scorer forms its k x k covariances from the samples (not from a p x p matrix per
#: class) when there are at most this many samples per class on average.
_BY_SAMPLES = 16
#: The ordered scorer keeps the classes' k x k matrices in path order up to this many numbers in
#: all (256 MB); larger k are formed at each k.
_Q_ORDERED_MAX = 2**25


def _spd_solve(A, B):
    """``A^-1 B`` by a Cholesky factor of ``A`` (its lower triangle), or None when ``A`` is not
    positive definite (LAPACK ``potrf`` / ``potrs`` called directly: the checks of the SciPy
    wrappers cost more than the factor of a small ``A``). ``A`` is left as it was."""
    potrf, potrs = linalg.get_lapack_funcs(("potrf", "potrs"), (A,))
    L, info = potrf(A, lower=True, overwrite_a=False, clean=False)
    if info != 0:
        return None
    X, info = potrs(L, B, lower=True)
    return X


def _standard_scale(X, mean):
    """``StandardScaler().fit(X).scale_``: the standard deviations, 1 where a column is constant
    by scikit-learn's test (its variance within the rounding bound of the two-pass formula)."""
    n = X.shape[0]
    var = np.mean((X - mean) ** 2, axis=0)
    eps = np.finfo(np.float64).eps
    scale = np.sqrt(var)
    scale[var <= n * eps * var + (n * mean * eps) ** 2] = 1.0
    return scale


def _ledoit_wolf(trace, delta_, beta_, k, nc):
    """The Ledoit-Wolf intensity ``h`` and target ``mu`` of scikit-learn's ``ledoit_wolf`` on the
    ``k`` standardized columns ``S`` of a class of ``nc`` samples ``z_i``, from ``trace`` (of
    ``T_SS / nc``), ``delta_`` (``sum((T_SS / nc)^2)``) and ``beta_`` (``sum_i ||z_i,S||^4``);
    elementwise over arrays (classes, sizes). ``h`` is 0 where the numerator is."""
    mu = trace / k
    beta = 1.0 / (k * nc) * (beta_ / nc - delta_)
    delta = (delta_ - 2.0 * mu * trace + k * mu**2) / k
    beta = np.minimum(beta, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(beta == 0, 0.0, beta / delta), mu


class _ShrinkageLDAStatistics:
    """``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')`` on any column subset, from
    per-class ``p x p`` statistics formed once.

    scikit-learn's Ledoit-Wolf shrinkage of a class standardizes each column, then needs the
    sums over the ``k x k`` block of ``Z^T Z``, ``(Z^T Z)^2`` and ``(Z^2)^T Z^2`` (``Z`` the
    standardized, centred class samples). Standardization is per column, so ``Z^T Z`` is a block
    of a ``p x p`` matrix computed once per training fold, ``(Z^T Z)^2`` summed over the block is
    read from that block and ``(Z^2)^T Z^2`` summed over it is ``|Z_S^2 1|^2`` (``n_c k``); a
    subset of ``k`` columns then costs a ``k x k`` extraction per class and one Cholesky solve
    instead of a pass over the samples. The
    returned estimator is a fitted ``LinearDiscriminantAnalysis`` (``coef_``, ``intercept_``,
    ``means_``, ``priors_``, ``covariance_``), equal to a direct fit up to rounding (tested).
    Supports nested along an order are scored faster still (:meth:`path_decisions`).

    ``by_samples`` chooses where the ``k x k`` covariances come from: the samples (few per
    class, as faces) or one ``p x p`` matrix per class; None decides by the mean class size.
    """

    def __init__(self, X, y, by_samples=None):
        X = np.asarray(X, dtype=np.float64)
        self.classes, yi = np.unique(y, return_inverse=True)
        n = len(y)
        C = len(self.classes)
        self.nc = np.bincount(yi, minlength=C).astype(np.float64)
        self.priors = self.nc / float(n)
        self.means = np.empty((C, X.shape[1]))
        # few samples per class (faces: ~10 per person): the k x k blocks are formed from the
        # samples (n k^2 by BLAS per k, no p x p matrix per class); many: from each class's
        # p x p matrix (C k^2 per k)
        self.by_samples = n <= _BY_SAMPLES * C if by_samples is None else bool(by_samples)
        self.per_class = []
        Zs, Ds, self.scales = [], [], np.empty((C, X.shape[1]))
        for c in range(C):
            Xc = X[yi == c]
            self.means[c] = Xc.mean(axis=0)
            scale = _standard_scale(Xc, self.means[c])
            self.scales[c] = scale
            Z = (Xc - self.means[c]) / scale
            Z -= Z.mean(axis=0)  # ledoit_wolf centres again
            if self.by_samples:
                Zs.append(Z)
                Ds.append(Z * scale)
            else:
                # the Ledoit-Wolf sums over a block S x S: sum(T_SS^2) from the block itself
                # and sum((Z^2)^T Z^2)_SS = |Z_S^2 1|^2 from the class's samples
                self.per_class.append((len(Xc), scale, Z.T @ Z, Z * Z))
        if self.by_samples:
            self.Z, self.D = np.vstack(Zs), np.vstack(Ds)  # rows sorted by class
            self.starts = np.concatenate([[0], np.cumsum(self.nc[:-1])]).astype(np.intp)
            # the classes' samples zero-padded to one (C, n_max, p) stack: the Ledoit-Wolf sums
            # need only each class's own n_c x n_c block of Z_S Z_S^T (batched, not n x n)
            self.Zp = np.zeros((C, int(self.nc.max()), X.shape[1]))
            for c, Z in enumerate(Zs):
                self.Zp[c, : len(Z)] = Z

    def _shrunk(self, S, nc, scale, T, Z2):
        """scikit-learn's ``_cov(X[:, S], 'auto')`` of one class (``ledoit_wolf`` on standardized
        columns, rescaled)."""
        k = len(S)
        TS = T[np.ix_(S, S)] / nc  # empirical covariance of the standardized columns
        trace = float(np.trace(TS))
        if k == 1:
            shrink, mu = 0.0, trace
        else:
            delta_ = float(np.einsum("ij,ij->", TS, TS))  # sum(T_SS^2) / nc^2
            row = Z2[:, S].sum(axis=1)
            shrink, mu = _ledoit_wolf(trace, delta_, float(row @ row), k, nc)
        s = (1.0 - shrink) * TS
        s.flat[:: k + 1] += shrink * mu
        sc = scale[S]
        return sc[:, None] * s * sc[None, :]

    def _pooled_from_samples(self, S):
        """The prior-weighted sum of the classes' ``_shrunk`` covariances, all classes at once:
        ``sum_c p_c diag(s_c) ((1 - h_c) Z_c^T Z_c / n_c + h_c mu_c I) diag(s_c)`` is
        ``D_S^T diag(w) D_S`` plus a diagonal (``D`` the rescaled samples, ``w`` per row), and
        the Ledoit-Wolf sums of every class come from ``Z_S Z_S^T`` (``n x n``) and ``Z_S^2``."""
        k, nc, st = len(S), self.nc, self.starts
        ZS = self.Z[:, S]
        sq = np.einsum("ij,ij->i", ZS, ZS)
        trace = np.add.reduceat(sq, st) / nc
        if k == 1:
            shrink, mu = np.zeros_like(nc), trace
        else:
            ZpS = self.Zp[:, :, S]
            G = ZpS @ ZpS.transpose(0, 2, 1)  # each class's block of Z_S Z_S^T
            delta_ = np.einsum("cij,cij->c", G, G) / nc**2
            shrink, mu = _ledoit_wolf(trace, delta_, np.add.reduceat(sq * sq, st), k, nc)
        w = np.repeat(self.priors * (1.0 - shrink) / nc, self.nc.astype(np.intp))
        DS = self.D[:, S]
        cov = DS.T @ (DS * w[:, None])
        cov.flat[:: k + 1] += (self.priors * shrink * mu) @ (self.scales[:, S] ** 2)
        return (cov + cov.T) / 2

    def _solve(self, S):
        S = np.asarray(S)
        if self.by_samples:
            cov = self._pooled_from_samples(S)
        else:
            cov = sum(pr * self._shrunk(S, *stats) for pr, stats in zip(self.priors, self.per_class))
        means = self.means[:, S]
        try:
            coef = linalg.cho_solve(linalg.cho_factor(cov, lower=True), means.T).T
        except linalg.LinAlgError:  # singular (no shrinkage, k > n): what lstsq would return
            coef = linalg.lstsq(cov, means.T)[0].T
        intercept = -0.5 * np.einsum("ij,ij->i", means, coef) + np.log(self.priors)
        if len(self.classes) == 2:
            coef, intercept = (coef[1] - coef[0])[None, :], np.array([intercept[1] - intercept[0]])
        return coef, intercept, cov, means

    def estimator(self, S):
        """The fitted LDA on the columns ``S`` (sorted indices)."""
        coef, intercept, cov, means = self._solve(S)
        est = LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")
        est.classes_, est.priors_, est.means_, est.covariance_ = self.classes, self.priors, means, cov
        est.coef_, est.intercept_ = coef, intercept
        est.n_features_in_ = len(S)
        est._max_components = min(len(self.classes) - 1, len(S))
        est._n_features_out = est._max_components
        return est

    def _ordered_shrinkage(self, order, grid):
        """Ledoit-Wolf intensities ``h`` and targets ``mu`` of every class at every ``k`` of
        ``grid``, for the nested supports ``order[:k]``: arrays of shape ``(C, len(grid))``.

        The sums of :meth:`_shrunk` grow column by column along ``order``: the trace and the
        row sums of ``Z_S^2`` are running sums, ``sum(T_SS^2)`` a two-dimensional running sum of
        the class's ``T`` in path order (or, from the samples, the class's ``Z_S Z_S^T`` grown
        by the columns between two sizes of the grid)."""
        m, ks = int(grid[-1]), np.asarray(grid, dtype=np.intp)
        o = order[:m]
        C, G = len(self.classes), len(ks)
        nc = self.nc[:, None]
        trace, beta_, delta_ = np.empty((C, G)), np.empty((C, G)), np.empty((C, G))
        if self.by_samples:
            Zp = self.Zp[:, :, o]  # (C, n_max, m), zero rows add nothing
            sq = Zp * Zp
            trace[:] = np.cumsum(sq.sum(axis=1), axis=1)[:, ks - 1]
            rows = np.cumsum(sq, axis=2)[:, :, ks - 1]  # (C, n_max, G): |Z_i,S|^2 of each sample
            beta_[:] = np.einsum("cig,cig->cg", rows, rows)
            gram = np.zeros((C, Zp.shape[1], Zp.shape[1]))
            start = 0
            for i, k in enumerate(ks):
                seg = Zp[:, :, start:k]
                gram += seg @ seg.transpose(0, 2, 1)
                delta_[:, i] = np.einsum("cij,cij->c", gram, gram)
                start = k
        else:
            for c, (_, _, T, Z2) in enumerate(self.per_class):
                To = T[np.ix_(o, o)]
                trace[c] = np.cumsum(np.diagonal(To))[ks - 1]
                P = np.cumsum(np.cumsum(To * To, axis=0), axis=1)
                delta_[c] = P[ks - 1, ks - 1]
                rows = np.cumsum(Z2[:, o], axis=1)[:, ks - 1]
                beta_[c] = np.einsum("ig,ig->g", rows, rows)
        trace /= nc
        delta_ /= nc**2
        shrink, mu = _ledoit_wolf(trace, delta_, beta_, ks[None, :].astype(np.float64), nc)
        one = ks == 1  # a single column: no shrinkage, the target is its variance
        shrink[:, one], mu[:, one] = 0.0, trace[:, one]
        return shrink, mu

    def path_accuracies(self, order, grid, X, y, callback=None):
        """``accuracy(np.sort(order[:k]), X, y)`` for every ``k`` of ``grid`` (increasing), the
        supports nested along ``order`` (see :meth:`path_decisions`); ``callback(done, total)``
        after each ``k``."""
        out = np.empty(len(grid))
        for i, right in enumerate(self.path_correct(order, grid, X, y)):
            out[i] = np.mean(right)
            if callback is not None:
                callback(i + 1, len(grid))
        return out

    def path_correct(self, order, grid, X, y):
        """Which samples of ``X`` the LDA on ``np.sort(order[:k])`` classifies as ``y`` says, for
        every ``k`` of ``grid``: a generator of boolean arrays of shape ``(n_samples,)``."""
        for scores in self.path_decisions(order, grid, X):
            idx = (scores > 0).astype(int) if scores.ndim == 1 else scores.argmax(axis=1)
            yield self.classes[idx] == y

    def path_decisions(self, order, grid, X):
        """The LDA's ``decision_function(X[:, np.sort(order[:k])])`` for every ``k`` of ``grid``
        (increasing), the supports nested along ``order``: a generator of arrays of shape
        ``(n_samples,)`` (two classes) or ``(n_samples, n_classes)``.

        The shrinkage of every ``k`` comes from running sums (:meth:`_ordered_shrinkage`) and
        the columns are put in path order once, so that each ``k`` reads leading blocks. The
        pooled covariance is ``D_S^T diag(w) D_S + diag(lam)`` (samples) or ``sum_c w_c Q_c +
        diag(lam)`` (per-class matrices); with fewer samples than columns it is solved through
        the ``n x n`` matrix of the Woodbury identity instead of a ``k x k`` Cholesky factor."""
        m = int(grid[-1])
        o = np.asarray(order[:m], dtype=np.intp)
        shrink, mu = self._ordered_shrinkage(o, grid)
        means = self.means[:, o]
        scales2 = self.scales[:, o] ** 2
        Xo = np.asarray(X, dtype=np.float64)[:, o]
        log_priors = np.log(self.priors)
        two = len(self.classes) == 2
        ks = np.asarray(grid, dtype=np.intp)
        # every class's scaled k x k matrix D_c^T D_c / n_c in path order, up to the sizes that
        # are solved by a k x k factor (C k^2 per k instead of n k^2) and fit _Q_ORDERED_MAX
        C = len(self.classes)
        direct = ks[ks <= self.nc.sum()] if self.by_samples else ks  # k <= n: a k x k factor
        kq = int(direct[-1]) if len(direct) else 0
        kq = min(kq, int(np.sqrt(_Q_ORDERED_MAX / C)))
        if self.by_samples:
            Do = self.D[:, o]
            counts = self.nc.astype(np.intp)
            n = Do.shape[0]
            Q = np.empty((kq, kq, C))  # classes last: the weighted sum is one matrix-vector product
            for c, (a, b) in enumerate(zip(self.starts, self.starts + counts)):
                Dc = Do[a:b, :kq]
                Q[:, :, c] = Dc.T @ Dc / self.nc[c]
        else:
            Q = np.empty((kq, kq, C))
            for c, (nc_, sc, T, _) in enumerate(self.per_class):
                q = sc[o[:kq]]
                Q[:, :, c] = q[:, None] * T[np.ix_(o[:kq], o[:kq])] * q[None, :] / nc_
        for i, k in enumerate(ks):
            h, mu_k = shrink[:, i], mu[:, i]
            lam = (self.priors * h * mu_k) @ scales2[:, :k]
            Mk = means[:, :k]
            coef = None
            if k <= kq:
                cov = Q[:k, :k] @ (self.priors * (1.0 - h))
            elif self.by_samples:
                w = np.repeat(self.priors * (1.0 - h) / self.nc, counts)
                Dk = Do[:, :k]
                if k > n and np.all(lam > 0):
                    coef = self._woodbury(Dk, w, lam, Mk)
                else:
                    cov = Dk.T @ (Dk * w[:, None])
            else:
                S = o[:k]
                cov = sum(pr * (1.0 - hc) * (sc[S][:, None] * T[np.ix_(S, S)] * sc[S][None, :]) / nc_
                          for pr, hc, (nc_, sc, T, _) in zip(self.priors, h, self.per_class))
            if coef is None:
                cov.flat[:: k + 1] += lam
                coef = _spd_solve(cov, Mk.T)
                if coef is None:  # singular (no shrinkage, k > n): what lstsq would return
                    coef = linalg.lstsq(cov, Mk.T)[0]
                coef = coef.T
            intercept = -0.5 * np.einsum("ij,ij->i", Mk, coef) + log_priors
            if two:
                coef, intercept = (coef[1] - coef[0])[None, :], intercept[1:] - intercept[:1]
            scores = Xo[:, :k] @ coef.T + intercept
            yield scores[:, 0] if two else scores

    @staticmethod
    def _woodbury(D, w, lam, M):
        """``M (D^T diag(w) D + diag(lam))^-1`` through the ``n x n`` form (``w >= 0``, ``lam > 0``):
        with ``E = diag(sqrt w) D diag(lam)^-1/2``, the inverse is
        ``diag(lam)^-1/2 (I - E^T (I + E E^T)^-1 E) diag(lam)^-1/2``."""
        r = 1.0 / np.sqrt(lam)
        E = (D * np.sqrt(w)[:, None]) * r[None, :]
        K = E @ E.T
        K.flat[:: K.shape[0] + 1] += 1.0
        R = M.T * r[:, None]
        R -= E.T @ _spd_solve(K, E @ R)  # I + E E^T: positive definite
        return (R * r[:, None]).T

    def accuracy(self, S, X, y):
        """``estimator(S).score(X[:, S], y)`` without building the estimator (the default scoring)."""
        coef, intercept, _, _ = self._solve(S)
        scores = X[:, S] @ coef.T + intercept
        idx = (scores[:, 0] > 0).astype(int) if scores.shape[1] == 1 else scores.argmax(axis=1)
        return float(np.mean(self.classes[idx] == y))


def _nested_order(supports):
    """An order of the features whose leading ``len(S)`` entries are ``S`` for every support
    (supports of increasing size), or None when the supports are not nested."""
    if not supports:
        return np.zeros(0, dtype=np.intp)
    seen = np.zeros(int(max(np.max(S, initial=-1) for S in supports)) + 1, dtype=bool)
    order, size = [], 0
    for S in supports:
        S = np.asarray(S, dtype=np.intp)
        old = seen[S]
        if int(old.sum()) != size:  # a feature of an earlier support is missing
            return None
        new = S[~old]
        seen[new] = True
        order.append(new)
        size += len(new)
    return np.concatenate(order)
