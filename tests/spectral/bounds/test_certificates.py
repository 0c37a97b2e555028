import numpy as np
import pytest

from pixsel.spectral.bounds._certificates import _SLACK, _rayleigh_exceeds, certify, dual_certificate, inclusion_bounds
from pixsel.spectral import greedy_path
from pixsel.spectral.thresholding._renormalize import renormalize, simple_thresholding


def _problems(rng, oracle, p=9):
    X = rng.standard_normal((40, p)) @ (np.eye(p) + 0.5 * rng.standard_normal((p, p)))
    C = np.cov(X, rowvar=False)
    B = oracle.spd(rng, p)
    M = rng.standard_normal((p, 3))
    a = rng.standard_normal(p)
    Mdef = rng.standard_normal((p, 1)) @ rng.standard_normal((1, 3))  # rank-deficient factor
    return [(C, None), (C, B), (M, B), (a, B), (Mdef, None), (M @ M.T, B)]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("criterion", ["max-eig", "trace"])
def test_bounds_never_below_brute_force(oracle, seed, criterion):
    rng = np.random.default_rng(seed)
    p = 9
    for A, B in _problems(rng, oracle, p):
        best = [oracle.best(A, B, k, criterion) for k in range(1, p + 1)]
        ub = inclusion_bounds(A, B, criterion=criterion)
        assert np.all(ub >= np.array(best) * (1 - 1e-12) - 1e-12), (A.shape, criterion)
        for d in ("forward", "backward"):
            path = certify(greedy_path(A, B, direction=d, criterion=criterion))
            assert np.all(path.upper_bound >= np.array(best) - 1e-12 * np.abs(best).max())
            assert np.all(path.gap >= -1e-12 * np.abs(best).max())
            assert path.upper_bound[-1] == pytest.approx(path.objective[-1], rel=1e-8)


def test_dual_certificate_sound_and_useful(oracle):
    """Whenever a support is proved optimal, it is optimal (brute force); and it does fire."""
    fired = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        p = 10
        u = np.zeros(p)
        u[:4] = rng.standard_normal(4)
        X = rng.standard_normal((60, p)) * 0.5 + rng.standard_normal((60, 1)) * u * (1 + seed % 3)
        A = np.cov(X, rowvar=False)
        path = certify(greedy_path(A), dual=True)
        proved = path.info["proved_optimal"]
        for k in range(1, p + 1):
            best = oracle.best(A, None, k)
            assert path.upper_bound[k - 1] >= best * (1 - 1e-12)
            if proved[k - 1]:
                fired += 1
                assert path.objective[k - 1] == pytest.approx(best, rel=1e-9)
    assert fired > 4 * 3


def test_dual_feasibility_of_Y():
    """The certificate's matrices satisfy Y_i >= B_i and Y_i >= 0 (the dual constraints)."""
    rng = np.random.default_rng(3)
    m, p = 6, 5
    F = rng.standard_normal((m, p))
    x = rng.standard_normal(m)
    x /= np.linalg.norm(x)
    g = F.T @ x
    rho = 0.5 * float(np.median(g * g))
    for i in range(p):
        a = F[:, i]
        Bi = np.outer(a, a) - rho * np.eye(m)
        if g[i] ** 2 > rho:
            Y = Bi @ np.outer(x, x) @ Bi / (x @ Bi @ x)
        else:
            P = np.eye(m) - np.outer(x, x)
            mu = max(0.0, rho * (a @ a - rho) / (rho - g[i] ** 2))
            Y = mu * P @ np.outer(a, a) @ P / (a @ P @ a)
        assert np.linalg.eigvalsh(Y - Bi)[0] >= -1e-9
        assert np.linalg.eigvalsh(Y)[0] >= -1e-9


def _textbook_certificate(A, support, n_rho=3):
    """The certificate as first written: a full eigendecomposition, every Gram matrix formed and
    factorized (no screening); the oracle of the fast one's answers."""
    p = A.shape[0]
    I = np.sort(np.asarray(support))
    t = len(I)
    theta, V = np.linalg.eigh(A[np.ix_(I, I)])
    lam, v = theta[-1], V[:, -1]
    if t == p:
        return lam * (1 + _SLACK), True
    g = A[:, I] @ v / np.sqrt(lam)
    c = g * g
    inI = np.zeros(p, dtype=bool)
    inI[I] = True
    lo, hi = c[~inI].max(), c[inI].min()
    if not lo < hi:
        return np.inf, False
    dA = np.diag(A)
    for f in np.linspace(0, 1, n_rho + 2)[1:-1]:
        rho = lo + f * (hi - lo)
        alpha, beta = np.zeros(p), np.zeros(p)
        sq = np.sqrt(c[inI] - rho)
        alpha[inI], beta[inI] = g[inI] / sq, -rho / sq
        out = ~inI & (dA > rho)
        resid = dA[out] - c[out]
        with np.errstate(divide="ignore", invalid="ignore"):
            mu = rho * (dA[out] - rho) / (rho - c[out])
            al = np.where(resid > 0, np.sqrt(mu / resid), 0.0)
        alpha[out], beta[out] = al, -al * g[out]
        keep = (alpha != 0) | (beta != 0)
        al, be, ag = alpha[keep], beta[keep], alpha[keep] * g[keep]
        G = al[:, None] * A[np.ix_(keep, keep)] * al[None, :] + np.outer(ag, be) + np.outer(be, ag) + np.outer(be, be)
        sigma = lam - rho * t
        if sigma <= 0:
            continue
        try:
            np.linalg.cholesky(sigma * (1 + _SLACK) * np.eye(len(al)) - G)
        except np.linalg.LinAlgError:
            continue
        return lam + _SLACK * sigma + _SLACK * abs(lam), True
    return np.inf, False


@pytest.mark.parametrize("kind", ["planted", "brownian", "random"])
def test_dual_certificate_screens_change_no_answer(kind):
    """The leading eigenpair alone and the two screens before each factorization (the diagonal, a
    few power steps) give the textbook certificate's answer on every support of both greedy paths."""
    rng = np.random.default_rng(11)
    p = 40
    if kind == "planted":  # a strong sparse component: many sizes proved
        u = np.zeros(p)
        u[:8] = rng.standard_normal(8)
        X = rng.standard_normal((200, p)) * 0.5 + rng.standard_normal((200, 1)) * u * 2
    elif kind == "brownian":  # neighbouring pixels move together
        X = np.cumsum(rng.standard_normal((200, p)), axis=1)
    else:
        X = rng.standard_normal((200, p)) @ (np.eye(p) + 0.3 * rng.standard_normal((p, p)))
    A = np.cov(X, rowvar=False)
    proved = 0
    for d in ("forward", "backward"):
        path = greedy_path(A, direction=d)
        for k in range(1, p + 1):
            fast, ref = dual_certificate(A, path.support(k)), _textbook_certificate(A, path.support(k))
            assert fast[1] == ref[1], (kind, d, k)
            if ref[1]:
                proved += 1
                assert fast[0] == pytest.approx(ref[0], rel=1e-12)
    assert proved >= 2  # the full support at least, on both paths


def test_rayleigh_screen_is_sound():
    """A True from the power steps means the Gram matrix's largest eigenvalue exceeds the shift
    (checked by forming it); a matrix below the shift is never screened out."""
    rng = np.random.default_rng(5)
    said = {True: 0, False: 0}
    for _ in range(200):
        p = int(rng.integers(3, 30))
        F = rng.standard_normal((p + 5, p))
        A = F.T @ F / p
        keep = rng.random(p) < 0.7
        keep[0] = True
        m = int(keep.sum())
        al, ag, be = rng.standard_normal(m), rng.standard_normal(m), rng.standard_normal(m) * 0.3
        G = al[:, None] * A[np.ix_(keep, keep)] * al[None, :] + np.outer(ag, be) + np.outer(be, ag) + np.outer(be, be)
        top = np.linalg.eigvalsh(G)[-1]
        shift = top * rng.uniform(0.5, 1.5)
        answer = _rayleigh_exceeds(A, keep, al, ag, be, shift)
        said[answer] += 1
        if answer:
            assert top > shift
    assert said[True] > 20 and said[False] > 20


def test_dual_certificate_full_support():
    A = np.cov(np.random.default_rng(0).standard_normal((20, 4)), rowvar=False)
    bound, ok = dual_certificate(A, range(4))
    assert ok and bound == pytest.approx(np.linalg.eigvalsh(A)[-1])


def test_renormalize_proposition_2(oracle):
    rng = np.random.default_rng(4)
    p = 8
    for A, B in _problems(rng, oracle, p):
        x = rng.standard_normal(p) * (rng.random(p) < 0.5)
        x[0] = 1.0
        z, value = renormalize(x, A, B)
        Bd = np.eye(p) if B is None else B
        Afull = np.outer(A, A) if A.ndim == 1 else (A @ A.T if A.shape[1] != p else A)
        assert value == pytest.approx(oracle.value(A, B, np.flatnonzero(x)), rel=1e-10)
        assert value >= (x @ Afull @ x) / (x @ Bd @ x) - 1e-10
        assert z @ Bd @ z == pytest.approx(1.0)
        assert z @ Afull @ z == pytest.approx(value, rel=1e-9)
        assert set(np.flatnonzero(z)) <= set(np.flatnonzero(x))


def test_simple_thresholding(oracle):
    rng = np.random.default_rng(6)
    p = 8
    for A, B in _problems(rng, oracle, p):
        path = simple_thresholding(A, B)
        for k in (1, 3, p):
            assert path.objective[k - 1] == pytest.approx(oracle.value(A, B, path.support(k)), rel=1e-9)
        assert path.objective[-1] == pytest.approx(oracle.value(A, B, range(p)), rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_inclusion_bounds_from_a_given_spectrum_are_the_same_and_certify_decomposes_once(seed, monkeypatch):
    """A full ``A``'s spectrum given to ``inclusion_bounds`` (as ``certify`` now passes it) gives the
    bounds computed from ``A`` (to rounding, both never below the brute-force optimum), for a
    positive semidefinite ``A`` and an indefinite one; ``certify`` on a sparse PCA path
    decomposes ``A`` once."""
    from itertools import combinations

    rng = np.random.default_rng(300 + seed)
    p = 7
    Z = rng.standard_normal((12, p))
    for A in (Z.T @ Z / 12, Z.T @ Z / 12 - 0.5 * np.eye(p)):
        own = inclusion_bounds(A)
        given = inclusion_bounds(A, spectrum=np.linalg.eigvalsh(A)[::-1])  # any order
        np.testing.assert_allclose(given, own, rtol=1e-12, atol=1e-12)
        best = [max(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1] for S in combinations(range(p), k)) for k in range(1, p + 1)]
        assert np.all(given >= np.array(best) - 1e-12)
    calls = []
    original = np.linalg.eigvalsh

    def counting(M, *args, **kwargs):
        if np.shape(M) == (p, p):
            calls.append(1)
        return original(M, *args, **kwargs)

    path = greedy_path(Z.T @ Z / 12, max_k=4, certificate=None)
    monkeypatch.setattr(np.linalg, "eigvalsh", counting)
    certify(path, dual=False, relaxation=False)
    assert len(calls) == 1
    assert np.all(path.upper_bound >= path.objective - 1e-12)
