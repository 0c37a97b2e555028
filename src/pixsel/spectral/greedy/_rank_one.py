"""Blocked greedy paths for the binary sparse-LDA objective f(S) = a_S^T B_SS^{-1} a_S.

The two greedy searches of Moghaddam, Weiss and Avidan, 2007 (forward and backward, Appendix) are one algorithm: a
symmetric Gaussian elimination with a data-dependent pivot rule.

* **Forward** eliminates on ``B``. After adding the set ``S`` the Schur complement
  ``R = B - B_{:,S} B_SS^{-1} B_{S,:}`` and the residual ``r = a - B_{:,S} B_SS^{-1} a_S`` give
  ``f(S + i) = f(S) + r_i^2 / R_ii`` (the appendix's block-inverse formula with the intermediate
  terms cancelled). Adding ``j`` is one step of a pivoted Cholesky: with ``l = R[:, j] / sqrt(R_jj)``,
  ``R -= l l^T`` and ``r -= l r_j / sqrt(R_jj)``. The pivot is ``argmax_i r_i^2 / R_ii``.
* **Backward** eliminates on ``P = B^{-1}``. With ``w = P_SS a_S`` (``P_SS = B_SS^{-1}``),
  deleting ``i`` gives ``f(S - i) = f(S) - w_i^2 / P_ii`` and the shrunk inverse is the Schur
  complement ``P -= u u^T`` with ``u = P[:, i] / sqrt(P_ii)``, ``w -= u w_i / sqrt(P_ii)``. The
  pivot is ``argmin_i w_i^2 / P_ii``.

Both are therefore run by the same blocked elimination (:func:`_eliminate`), the idea of LAPACK's
blocked pivoted Cholesky (``dpstrf``): inside a panel of ``T`` steps only what the next choice
needs is kept current (the diagonal ``d``, the vector ``v`` (= ``r`` or ``w``) and the panel's
columns, each new column being the stored column minus the panel's contribution, one
matrix-vector product); at the end of the panel the working matrix receives the panel's rank-``T``
update with one ``dsyrk``. The whole path costs ``p^3 / 3`` flops per direction at
matrix-multiply speed (plus ``p^3`` for the initial inverse of the backward pass) and one
``p x p`` working matrix, stored as a lower triangle in a flat buffer that is compacted in place
as rows leave (so later panels touch only the live rows).

The panel's steps themselves (score, pick, fetch a column, update ``v`` and ``d``: ``O(m)``
each) run in one compiled call (:mod:`pixsel.spectral.greedy._rank_one_jit`, Numba), and so does the
compaction: in NumPy their call overhead dominated at small ``p``. The NumPy
loop is kept as the oracle (``compiled=False``) and for a Python without Numba.

Numerical care. Candidates whose Schur pivot is below ``p * eps * B_ii`` (forward) gain nothing
and are never divided by. At checkpoints the running objective is compared with a computation
from the original ``B``: forward, ``f`` from a fresh Cholesky solve on the current support
(checkpoints are spaced so that they cost at most a quarter of the pass); backward, the
refined value ``a_S^T w + w^T (a_S - B_SS w)`` (one product with ``B``; the residual measures
the drift of the downdated inverse, which is where rank-one *downdates* lose accuracy). When the
relative drift exceeds ``drift_tol`` the working matrix is rebuilt from ``B`` (a *refactor*).
Checkpoints and refactors are recorded in ``SparsePath.info``.

Extending to a matrix ``A`` (multiclass): only the score of a candidate changes
(a generalized eigenvalue of the bordered pair instead of ``v_i^2 / d_i``); the working matrix,
panel bookkeeping, compaction and checkpoints of :class:`_Working` / :func:`_eliminate` are
independent of ``A``.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg as sla
from scipy.linalg import blas, lapack

from ..._array_api import get_namespace, host_view
from ..._routes import choose, compiled_enabled, note_compiled, sized_kernels
from ..._validation import check_int, check_options, check_pair, check_real
from .._linalg import lower_cholesky, solve_lower
from .._path import SparsePath
from ._steps import pivot_tol

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Literal

    from numpy.typing import ArrayLike

__all__ = ["rank_one_greedy_path", "rank_one_path", "prefix_objectives"]

#: Gains within this relative distance of the best one are ties, resolved to the lowest index.
_TIE_RTOL = 1e-12
#: Forward checkpoints (a Cholesky of B_SS each) may cost at most this fraction of the pass.
_CHECK_BUDGET = 0.25
_EPS = np.finfo(np.float64).eps


def _default_block_size(p):
    """Panel width: wide enough for dsyrk to run at GEMM speed, narrow enough that the panel's
    matrix-vector products (O(p^2 T) in all) stay small next to the O(p^3) updates."""
    if p <= 256:
        return 16
    if p <= 1024:
        return 32
    return 64


# --------------------------------------------------------------------------------------------
# The one working matrix
# --------------------------------------------------------------------------------------------
class _Working:
    """A symmetric ``m x m`` matrix kept as its lower triangle, Fortran order, in a flat buffer.

    The buffer is allocated once (``p^2`` doubles); :meth:`compact` moves the live rows and
    columns to the front in place, so the matrix shrinks without a second copy.
    """

    def __init__(self, p):
        self.buf = np.empty(p * p)
        self._resize(0)

    def _resize(self, m):
        self.m = m
        self.mat = self.buf[: m * m].reshape((m, m), order="F")

    def load(self, M):
        """Copy the symmetric matrix ``M`` into the buffer (a plain memory copy when ``M`` is
        C- or F-contiguous: ``M`` is symmetric, so its C-order memory is its F-order memory up to
        which triangle is read)."""
        self._resize(M.shape[0])
        if M.flags.c_contiguous or M.flags.f_contiguous:
            self.buf[: self.m * self.m] = M.ravel(order="K")
        else:
            self.mat[...] = M

    def column(self, j):
        """Column ``j`` of the symmetric matrix (a new array) from its lower triangle."""
        M = self.mat
        col = np.empty(self.m)
        col[:j] = M[j, :j]
        col[j:] = M[j:, j]
        return col

    def diag(self):
        return self.mat.diagonal().copy()

    def syrk_update(self, L):
        """``M -= L L^T`` on the lower triangle, in place (one BLAS-3 call)."""
        if L.shape[1]:
            blas.dsyrk(-1.0, L, beta=1.0, c=self.mat, lower=1, overwrite_c=1)

    def syrk_update_t(self, X):
        """``M -= X^T X`` on the lower triangle, in place."""
        if X.shape[0]:
            blas.dsyrk(-1.0, X, beta=1.0, c=self.mat, trans=1, lower=1, overwrite_c=1)

    def invert(self):
        """Replace the (SPD) matrix by its inverse with ``dpotrf`` + ``dpotri``, in place.

        Returns ``min_i L_ii^2 / max_i M_ii`` (a cheap singularity measure) or ``0.0`` when the
        Cholesky factorization breaks down.
        """
        if self.m == 0:
            return 1.0
        M = self.mat
        dmax = float(np.max(np.abs(M.diagonal())))
        _, info = lapack.dpotrf(M, lower=1, clean=0, overwrite_a=1)
        if info != 0:
            return 0.0
        piv = float(np.min(M.diagonal()) ** 2)
        _, info = lapack.dpotri(M, lower=1, overwrite_c=1)
        if info != 0 or dmax <= 0:
            return 0.0
        return piv / dmax

    def symv(self, x):
        return blas.dsymv(1.0, self.mat, x, lower=1)

    def compact(self, keep, compiled=True):
        """Keep the rows/columns ``keep`` (sorted local indices), in place, in their order.

        Column chunk ``[c0, c1)`` of the result lands at flat offsets ``< c1 * m'``, which is at
        most the offset ``keep[c1] * m`` of the first old column still to be read, so reading a
        chunk into a small temporary before writing it never overwrites unread data.
        """
        keep = np.asarray(keep, dtype=np.intp)
        m_new = len(keep)
        jit = _compiled_compact() if compiled else None
        if jit is not None:
            jit(self.buf, self.m, keep)
            self._resize(m_new)
            return
        M = self.mat
        chunk = max(1, (1 << 17) // max(m_new, 1))  # temporaries of about 1 MB
        for c0 in range(0, m_new, chunk):
            c1 = min(m_new, c0 + chunk)
            # only the lower triangle is kept: rows c0.. of the new columns c0..c1-1
            block = M[:, keep[c0:c1]][keep[c0:]]
            dest = self.buf[c0 * m_new : c1 * m_new].reshape((m_new, c1 - c0), order="F")
            dest[c0:] = block
        self._resize(m_new)


# --------------------------------------------------------------------------------------------
# Pivot rules
# --------------------------------------------------------------------------------------------
def _first_within(scores, j, thr, below):
    """Lowest index ``i <= j`` whose score ties with ``scores[j]`` (``>= thr`` when maximizing,
    ``<= thr`` when minimizing). ``scores[j]`` is the extreme; ``argmax``/``argmin`` already
    return the first exact extreme, so only near-ties below ``j`` need a look."""
    if j == 0:
        return 0
    head = scores[:j]
    k = int(head.argmin() if below else head.argmax())
    if (head[k] <= thr) if below else (head[k] >= thr):
        return int(np.argmax(head <= thr if below else head >= thr))
    return j


def _select_max(v, d, live, tol):
    """Forward: ``argmax r_i^2 / d_i`` over live rows; a pivot ``d_i <= tol_i`` gains 0.

    Dead rows carry ``tol = inf`` and so gain 0 too; they can only tie when every live gain is
    0, and then the first live row is taken. (Written with few NumPy calls: this runs once per
    step and its call overhead, not its arithmetic, is what costs at small p.)
    """
    gains = np.zeros(v.shape[0])  # (np.zeros_like pays extra dispatch here)
    np.divide(v * v, d, out=gains, where=d > tol)
    j = int(gains.argmax())
    gmax = gains[j]
    if gmax > 0:
        return _first_within(gains, j, gmax * (1.0 - _TIE_RTOL), below=False)
    return int(np.argmax(live))


def _select_min(v, d, pen):
    """Backward: ``argmin w_i^2 / P_ii`` over live rows (``pen`` is 0 on live rows, inf on dead).

    ``P_ii > 0`` for an SPD ``B``; a live row whose downdated ``P_ii`` is not positive (a
    numerical breakdown) is not divided by, and is caught by the pivot check or at the end of
    the panel, which rebuilds the inverse.
    """
    loss = v * v
    np.divide(loss, d, out=loss, where=d > 0)
    loss += pen
    j = int(loss.argmin())
    lmin = loss[j]
    if not math.isfinite(lmin):
        return -1
    return _first_within(loss, j, lmin * (1.0 + _TIE_RTOL), below=True)


# --------------------------------------------------------------------------------------------
# The blocked elimination shared by both directions
# --------------------------------------------------------------------------------------------
class _State:
    """Everything the elimination carries besides the working matrix (local = compacted rows)."""

    def __init__(self, v, ids, d, tol):
        self.restart(v, ids, d, tol, 0.0)
        self.pivoted = np.zeros(len(ids), dtype=bool)  # ORIGINAL indices eliminated so far

    def restart(self, v, ids, d, tol, f):
        """Start again from fresh rows ``ids`` (every one live), as after a refactorization."""
        self.v = v  # residual r (forward) or weights w (backward), local
        self.ids = ids  # original index of each local row
        self.d = d  # current diagonal of the working matrix, local
        self.tol = tol  # forward pivot tolerance, local
        self.live = np.ones(len(ids), dtype=bool)
        self.pen = np.zeros(len(ids))  # backward: inf on dead rows
        self.f = f

    def compact(self, work, keep, compiled=True):
        work.compact(keep, compiled)
        self.v = self.v[keep]
        self.ids = self.ids[keep]
        self.d = self.d[keep]
        self.tol = self.tol[keep]
        self.live = self.live[keep]
        self.pen = self.pen[keep]


def _compiled(name):
    """A Numba kernel of :mod:`pixsel.spectral.greedy._rank_one_jit`.

    Imported on first use, so that importing pixsel (and the CLI's start) does not pay for
    Numba; Python's import system keeps the module afterwards.
    """
    if not compiled_enabled():  # the route chose the NumPy loop (a small problem)
        return None
    note_compiled()
    from . import _rank_one_jit
    return getattr(_rank_one_jit, name)


def _compiled_panel():
    return _compiled("panel_steps")


def _compiled_compact():
    return _compiled("compact_lower")


def _eliminate(work, st, *, p, forward, fixed_order, block_size, checkpoint, info, compiled=True, stop=None):
    """Run the greedy elimination to the end of the path (forward: to ``stop`` steps when given).

    ``checkpoint(k, st, flops_since)`` is called at panel ends; it may rebuild ``work`` and
    ``st`` (a refactor). Returns ``order`` and ``objective`` (float64, length ``p``).
    ``compiled=True`` runs each panel's steps in one Numba call (when Numba imports); ``False``
    keeps the NumPy loop (the oracle the compiled loop is tested against).
    """
    end = p if stop is None or not forward else int(stop)  # the forward pass may stop early
    order = np.empty(p, dtype=np.intp)
    objective = np.empty(p)
    step = 0
    flops_since = 0.0
    loc = np.full(p, -1, dtype=np.intp)
    jit = _compiled_panel() if compiled else None
    fixed = np.empty(0, dtype=np.intp) if fixed_order is None else np.asarray(fixed_order, dtype=np.intp)
    while step < end:
        m = work.m
        loc[st.ids] = np.arange(m)
        T = min(block_size, end - step)
        panel = np.empty((m, T), order="F")  # panel.T is C-ordered: the compiled loop fills its rows
        t = 0
        needs_refactor = False
        if jit is not None:
            t, step, st.f, needs_refactor, zp = jit(
                work.mat.T, panel.T, st.v, st.d, st.tol, st.live, st.pen, st.ids, st.pivoted, order, objective,
                loc, fixed, step, T, p, forward, float(st.f), _TIE_RTOL,
            )
            info["zero_pivots"] += zp
        for _ in range(T if jit is None else 0):
            if forward:
                j = loc[fixed_order[step]] if fixed_order is not None else _select_max(st.v, st.d, st.live, st.tol)
            else:
                size = p - step
                objective[size - 1] = st.f
                if size == 1:
                    order[step] = st.ids[int(np.flatnonzero(st.live)[0])]
                    step += 1
                    break
                j = _select_min(st.v, st.d, st.pen)
                if j < 0:
                    needs_refactor = True
                    break
            col = work.column(j)
            if t:
                col -= panel[:, :t] @ panel[j, :t]
            piv = col[j]
            if forward:
                eliminate = piv > st.tol[j]
            else:
                if not piv > 0:  # the downdated inverse lost definiteness: rebuild it
                    needs_refactor = True
                    break
                eliminate = True
            st.live[j] = False
            st.tol[j] = np.inf
            st.pen[j] = np.inf
            order[step] = st.ids[j]
            if eliminate:
                s = 1.0 / math.sqrt(piv)
                col *= s
                g = st.v[j] * s
                st.f = st.f + g * g if forward else st.f - g * g
                st.v -= g * col
                st.d -= col * col
                panel[:, t] = col
                t += 1
                st.pivoted[order[step]] = True
            else:
                info["zero_pivots"] += 1
            if forward:
                objective[step] = st.f
            step += 1
        if needs_refactor:
            checkpoint(p - step if not forward else step, st, flops_since, force=True)
            flops_since = 0.0
            continue
        if step >= end and end < p:  # stopped early: the trailing update is never read
            break
        work.syrk_update(panel[:, :t])
        flops_since += float(m) * m * t
        st.d = work.diag()
        if step >= p:
            break
        k = step if forward else p - step
        breakdown = not forward and bool(np.any(st.d[st.live] <= 0))
        if checkpoint(k, st, flops_since, force=breakdown):
            flops_since = 0.0
        n_live = int(st.live.sum())
        if work.m - n_live >= max(block_size, work.m // 8):
            st.compact(work, np.flatnonzero(st.live), compiled)
            info["compactions"] += 1
    return order[:end], objective[:end]


# --------------------------------------------------------------------------------------------
# Forward
# --------------------------------------------------------------------------------------------
def _greedy_forward(
    a, B, *, block_size, fixed_order=None, check_every=None, drift_tol=1e-10, force_refactor=False, compiled=True,
    max_k=None,
):
    """Unchecked forward kernel: ``a`` float64 (p,), ``B`` float64 symmetric (p, p); ``max_k``
    stops the pass after that many features (the path then has ``max_k`` entries).

    ``fixed_order`` (a permutation) replaces the greedy pivot rule by a prescribed order; the
    objective is then ``f`` of every prefix (used by the thresholding baselines). Returns
    ``order, objective, info``.
    """
    p = a.shape[0]
    info = _new_info(block_size)
    if fixed_order is None and check_every is None and not force_refactor and compiled and _short_pays(p, max_k):
        # the unblocked loop: fewer calls per step than the panels, and no p x p update; kept when
        # its objective agrees with a fresh solve on its support (else the checked pass below)
        stop = p if max_k is None else int(max_k)
        order, objective, zero_pivots = _forward_short(a, B, stop)
        drift = _short_drift(a, B, order, objective, zero_pivots)
        if drift <= drift_tol:
            info["zero_pivots"] = zero_pivots
            info["checkpoints"].append((stop, drift))
            return order, objective, info
    work = _Working(p)
    work.load(B)
    diag = np.diag(B).copy()
    st = _State(a.copy(), np.arange(p), diag.copy(), pivot_tol(diag, p))
    ctl = {"threshold": drift_tol, "last": 0}

    def checkpoint(k, st_, flops_since, force):
        """Compare the running f with a Cholesky solve on the current support, from ``B``."""
        if check_every is not None:
            due = k - ctl["last"] >= check_every
        else:  # spaced so that all the checks together cost at most _CHECK_BUDGET of the pass
            due = k**3 / 3.0 <= _CHECK_BUDGET * flops_since
        if not (due or force):
            return False
        ctl["last"] = k
        S = np.flatnonzero(st_.pivoted)
        if len(S) == 0:
            return True
        try:
            c = lower_cholesky(B[np.ix_(S, S)], check_finite=False)
        except np.linalg.LinAlgError:
            # pivots just above tolerance: B_SS is numerically singular and no fresh
            # factorization is more accurate than the running one; record and go on
            info["checkpoints"].append((int(k), float("nan")))
            return True
        y = solve_lower(c, a[S])
        f_check = float(y @ y)
        drift = abs(st_.f - f_check) / max(abs(f_check), np.finfo(np.float64).tiny)
        info["checkpoints"].append((int(k), drift))
        if force_refactor or drift > ctl["threshold"]:
            # Rebuild the trailing Schur complement B_TT - B_TS B_SS^{-1} B_ST from B.
            T_ids = st_.ids[st_.live]
            X = sla.solve_triangular(c, B[np.ix_(S, T_ids)], lower=True, check_finite=False)
            work.load(B[np.ix_(T_ids, T_ids)])
            work.syrk_update_t(X)
            st_.restart(a[T_ids] - X.T @ y, T_ids, work.diag(), pivot_tol(diag[T_ids], p), f_check)
            info["refactors"].append(int(k))
            # a fresh factorization cannot beat the conditioning: refactor again only if worse
            ctl["threshold"] = max(ctl["threshold"], drift)
        return True

    order, objective = _eliminate(
        work, st, p=p, forward=True, fixed_order=fixed_order, block_size=block_size, checkpoint=checkpoint, info=info,
        compiled=compiled, stop=max_k,
    )
    return order, objective, info


#: A forward pass of at most this many steps runs :func:`_forward_short` (see :func:`_short_pays`).
_SHORT_STEPS = 64


def _short_pays(p, max_k):
    """Whether :func:`_forward_short` runs a forward pass of ``max_k`` steps (None: all ``p``).

    Its step ``t`` costs ``O(p t)``, the blocked elimination's ``O(p^2)`` (the trailing
    updates): the unblocked loop wins up to a fraction of ``p``, measured on random SPD pairs
    (``p = 256``: 200 steps 5.5 ms against the NumPy panels' 9.6 ms; ``p = 1024``: 200 steps
    8.7 ms against the compiled panels' 19 ms, 512 steps 110 ms against 31 ms). On the NumPy
    route (small problems, or no Numba) it runs up to ``3 p / 4`` steps; on the compiled route a
    pass asked to stop at ``max_k <= p / 4`` (a whole path stays with the compiled panels).
    """
    stop = p if max_k is None else int(max_k)
    if stop <= _SHORT_STEPS and not compiled_enabled():
        return True
    if not compiled_enabled():
        return max_k is not None and 4 * stop <= 3 * p
    return max_k is not None and stop <= max(_SHORT_STEPS, p // 4)


def _forward_short(a, B, stop):
    """The first ``stop`` steps of the forward elimination, unblocked (NumPy): the same pivot rule
    and ties as :func:`_eliminate`, with each new Schur column ``B[:, j] - L L[j]^T`` read from the
    columns ``L`` taken so far (``O(p t)`` at step ``t``) and no working ``p x p`` matrix, no panel
    bookkeeping and no checkpoint (the running ``f`` is the sum of ``stop`` non-negative gains;
    the tests compare it with a fresh solve). Returns ``order, objective, zero_pivots``.
    """
    p = a.shape[0]
    v = a.copy()
    d = np.diag(B).copy()
    tol = pivot_tol(d, p)
    live = np.ones(p, dtype=bool)
    L = np.empty((stop, p))  # row t: the t-th eliminated column, scaled
    order = np.empty(stop, dtype=np.intp)
    objective = np.empty(stop)
    f, t, zero_pivots = 0.0, 0, 0
    for step in range(stop):
        j = _select_max(v, d, live, tol)
        # B is symmetric: row j is column j (a copy, or the difference: the same numbers)
        col = B[j] - L[:t, j] @ L[:t] if t else B[j].copy()
        piv = col[j]
        live[j] = False
        order[step] = j
        if piv > tol[j]:
            s = 1.0 / math.sqrt(piv)
            col *= s
            g = v[j] * s
            f += g * g
            v -= g * col
            d -= col * col
            L[t] = col
            t += 1
        else:
            zero_pivots += 1
        tol[j] = np.inf
        objective[step] = f
    return order, objective, zero_pivots


def _short_drift(a, B, order, objective, zero_pivots):
    """The relative gap between the short pass's last ``f`` and a fresh Cholesky solve on its
    support (``inf`` when a pivot was zero or the solve fails: the checked pass decides then)."""
    if zero_pivots:
        return np.inf
    S = order
    try:
        c = lower_cholesky(B[S][:, S], check_finite=False)  # the numbers of B[np.ix_(S, S)]
    except np.linalg.LinAlgError:
        return np.inf
    y = solve_lower(c, a[S])
    f_check = float(y @ y)
    return abs(float(objective[-1]) - f_check) / max(abs(f_check), np.finfo(np.float64).tiny)


# --------------------------------------------------------------------------------------------
# Backward
# --------------------------------------------------------------------------------------------
class SingularMatrixError(ValueError):
    """``B`` (or one of its principal submatrices) cannot be inverted."""


_SINGULAR_MSG = (
    "B is singular or numerically singular (Cholesky pivot ratio {ratio:.3g}), so the backward "
    "path, which starts from B^{{-1}}, is undefined. Regularize B first: regularization='auto' in "
    "SparseLDASelector, or pixsel.stats.regularize(B, 'auto'); the forward path works without it."
)


def _invert_into(work, M, p):
    """Load ``M`` and invert it in place; raise :class:`SingularMatrixError` when it is singular."""
    work.load(M)
    ratio = work.invert()
    if not ratio > p * _EPS:
        raise SingularMatrixError(_SINGULAR_MSG.format(ratio=ratio))


def _greedy_backward(a, B, *, block_size, check_every=None, drift_tol=1e-10, force_refactor=False, compiled=True):
    """Unchecked backward kernel: ``a`` float64 (p,), ``B`` float64 SPD (p, p).

    Returns ``order`` (removal order, last survivor last), ``objective`` and ``info``.
    """
    p = a.shape[0]
    info = _new_info(block_size)
    if check_every is None:
        check_every = max(block_size, -(-p // 16))  # about 16 checks, each one product with B
    work = _Working(p)
    _invert_into(work, B, p)
    st = _State(work.symv(a), np.arange(p), work.diag(), np.zeros(p))
    st.f = float(a @ st.v)

    def drift_now(st_):
        """Relative drift of the running f from its refined value a^T w + w^T (a - B w)."""
        S = st_.ids[st_.live]
        w = st_.v[st_.live]
        z = np.zeros(p)
        z[S] = w
        res = a[S] - (B @ z)[S]
        f_ref = float(a[S] @ w + w @ res)
        return abs(st_.f - f_ref) / max(abs(f_ref), np.finfo(np.float64).tiny)

    # the accuracy of a fresh inverse is the floor: only drift beyond it calls for a refactor
    ctl = {"threshold": max(drift_tol, 10.0 * drift_now(st)), "last": 0}

    def checkpoint(k, st_, flops_since, force):
        steps_done = p - k
        if not force and steps_done - ctl["last"] < check_every:
            return False
        ctl["last"] = steps_done
        drift = drift_now(st_)
        info["checkpoints"].append((int(k), drift))
        if force or force_refactor or drift > ctl["threshold"]:
            S = st_.ids[st_.live]
            _invert_into(work, B[np.ix_(S, S)], p)
            v = work.symv(a[S])
            st_.restart(v, S, work.diag(), np.zeros(len(S)), float(a[S] @ v))
            info["refactors"].append(int(k))
            ctl["threshold"] = max(ctl["threshold"], 10.0 * drift_now(st_))
        return True

    order, objective = _eliminate(
        work, st, p=p, forward=False, fixed_order=None, block_size=block_size, checkpoint=checkpoint, info=info,
        compiled=compiled,
    )
    return order, objective, info


def _new_info(block_size):
    return {"block_size": block_size, "checkpoints": [], "refactors": [], "compactions": 0, "zero_pivots": 0}


# --------------------------------------------------------------------------------------------
# Public, validated entry point
# --------------------------------------------------------------------------------------------
@sized_kernels  # small NumPy problems run the NumPy loop (pixsel._routes.compiled_pays)
def rank_one_greedy_path(
    a: ArrayLike,
    B: ArrayLike,
    *,
    direction: Literal["forward", "backward"] = "forward",
    block_size: int | None = None,
    check_every: int | None = None,
    drift_tol: float = 1e-10,
) -> SparsePath:
    """Greedy path of the binary sparse-LDA objective ``f(S) = a_S^T B_SS^{-1} a_S``, every k.

    Forward search adds, at each step, the feature with the largest gain
    ``r_i^2 / R_ii`` (``R`` the Schur complement of ``B_SS`` in ``B``, ``r`` the residual of
    ``a``); backward search starts from all features and removes the one with the smallest loss
    ``w_i^2 / P_ii`` (``P = B_SS^{-1}``, ``w = P a_S``). Moghaddam, Weiss and Avidan (2007), section 5 and Appendix.
    Both run as a blocked pivoted elimination at matrix-multiply speed: ``O(p^3)`` flops for
    the whole path and one ``p x p`` working matrix (see the module notes).

    Parameters
    ----------
    a : array-like of shape (n_features,)
        The between-class vector (difference of the two class means). float32 is accepted;
        the computation is in float64. Arrays of another library (PyTorch, CuPy,
        array-api-strict; ``a`` and ``B`` from the same one, on one device) run the same blocked
        elimination on their device (:mod:`pixsel.spectral.greedy._rank_one_xp`: no drift checkpoints,
        the update as a general matrix product); the path comes back as NumPy.
    B : array-like of shape (n_features, n_features)
        The symmetric (within-class) scatter. Positive definite for ``'backward'``; the forward
        path also accepts a singular ``B`` (a candidate with a zero Schur pivot gains nothing).
    direction : {'forward', 'backward'}, default='forward'
        Search direction.
    block_size : int or None, default=None
        Panel width ``T`` (steps between two rank-``T`` updates). ``None`` picks 16-64 from
        ``p``. Any value gives the same path; ``1`` is the unblocked algorithm.
    check_every : int or None, default=None
        Steps between drift checkpoints. ``None``: forward checks are spaced to cost at most a
        quarter of the pass, backward about 16 checks.
    drift_tol : float, default=1e-10
        Relative drift of the running objective (against a computation from ``B``) above which
        the working matrix is rebuilt from ``B``.

    Returns
    -------
    path : SparsePath
        ``order`` (forward: order added; backward: order removed, the last survivor last),
        ``objective`` (``objective[k - 1]`` = f of the size-k support), ``support(k)``,
        ``weights(k)``; ``info`` records ``block_size``, ``checkpoints`` (``(k, drift)``),
        ``refactors`` (k), ``compactions`` and ``zero_pivots``.

    Raises
    ------
    ValueError
        For malformed input, or a singular ``B`` with ``direction='backward'``.

    Notes
    -----
    Ties (gains equal within a relative ``1e-12``) go to the lowest feature index.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0, 2.0, 0.5])
    >>> B = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]])
    >>> path = rank_one_greedy_path(a, B, direction="forward")
    >>> path.order.tolist()
    [1, 2, 0]
    >>> path.support(2).tolist()
    [1, 2]
    >>> bool(np.isclose(path.objective[-1], a @ np.linalg.solve(B, a)))
    True
    >>> rank_one_greedy_path(a, B, direction="backward").order.tolist()
    [0, 2, 1]
    """
    owner = "rank_one_greedy_path"
    check_options(direction, "direction", ("forward", "backward"), owner=owner)
    xp, dev = get_namespace(a, B, names=["a", "B"])
    backend = choose("greedy", xp=xp, device=dev).backend
    if backend == "host":  # a CPU device: NumPy's kernel on views
        a, B = host_view(a), host_view(B)
    elif backend == "device":  # CUDA, CuPy (or forced): the same elimination on their device
        if check_every is not None:
            raise TypeError("check_every: the array-API kernel keeps no drift checkpoints; pass NumPy arrays.")
        from ._rank_one_xp import rank_one_greedy_path_xp

        return rank_one_greedy_path_xp(xp, dev, a, B, direction, block_size, owner=owner)
    a_arr, B_arr = check_pair(a, B, form="vector", owner=owner, identity_ok=False)
    return rank_one_path(a_arr, B_arr, direction, block_size, check_every, drift_tol, owner)


def rank_one_path(a, B, direction, block_size=None, check_every=None, drift_tol=1e-10, owner="greedy_path", max_k=None):
    """The kernel on checked input (``a`` float64 (p,), ``B`` float64 symmetric (p, p)); ``max_k``
    (forward only) stops the pass after that many features."""
    p = a.shape[0]
    block_size = _default_block_size(p) if block_size is None else check_int(block_size, "block_size", low=1, owner=owner)
    if check_every is not None:
        check_every = check_int(check_every, "check_every", low=1, owner=owner)
    drift_tol = check_real(drift_tol, "drift_tol", low=0.0, owner=owner)
    options = {} if max_k is None else {"max_k": max_k}
    kernel = _greedy_forward if direction == "forward" else _greedy_backward
    order, objective, info = kernel(a, B, block_size=block_size, check_every=check_every, drift_tol=drift_tol,
                                    **options)
    return SparsePath(order=order, objective=objective, direction=direction, A=a, B=B, info=info)


@sized_kernels  # small NumPy problems run the NumPy loop (pixsel._routes.compiled_pays)
def prefix_objectives(a, B, order):
    """``f`` of every prefix of a fixed ``order`` by the forward elimination (the thresholding
    paths' evaluation) on checked input (``a`` float64 (p,), ``B`` float64 symmetric (p, p)).

    Returns ``objective, info``.
    """
    _, objective, info = _greedy_forward(a, B, block_size=_default_block_size(a.shape[0]), fixed_order=order)
    return objective, info
