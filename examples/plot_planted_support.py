"""
Recovering a planted support
============================

A synthetic problem where the answer is known. Two classes share a correlated covariance
``Sigma`` (neighbouring features are alike, as neighbouring pixels are), and the class means
differ by ``Sigma w`` where ``w`` is non-zero on 5 planted features only. The best linear
discriminant is then ``w`` itself: those 5 features carry *all* the separation. But the mean
difference ``Sigma w`` is spread over their neighbours too, so ranking features one at a time
(Fisher's score) is misled by the neighbours, while sparse LDA, which scores features
*together*, finds the planted ones.
"""

import matplotlib.pyplot as plt
import numpy as np

from pixsel import ScoreSelector, SparseLDASelector

p, n_per_class, k = 60, 300, 5
rho = 0.8  # correlation of neighbouring features


def make_problem(seed):
    """Two Gaussian classes whose optimal discriminant is supported on k planted features."""
    rng = np.random.default_rng(seed)
    lags = np.abs(np.subtract.outer(np.arange(p), np.arange(p)))
    sigma = rho**lags  # AR(1) covariance
    planted = np.sort(rng.choice(np.arange(2, p - 2), size=k, replace=False))
    w = np.zeros(p)
    w[planted] = rng.choice([-1.0, 1.0], size=k) * rng.uniform(0.5, 1.0, size=k)
    delta = sigma @ w  # the mean difference: dense, although w is sparse
    L = np.linalg.cholesky(sigma)
    X0 = rng.standard_normal((n_per_class, p)) @ L.T
    X1 = rng.standard_normal((n_per_class, p)) @ L.T + delta
    X = np.vstack([X0, X1])
    y = np.repeat([0, 1], n_per_class)
    return X, y, planted, delta


X, y, planted, delta = make_problem(seed=0)
sparse_lda = SparseLDASelector(n_features_to_select=k).fit(X, y)
fisher = ScoreSelector(k, criterion="fisher").fit(X, y)
print("planted features:         ", planted)
print("sparse LDA selects:       ", sparse_lda.get_support(indices=True))
print("Fisher score ranking picks:", fisher.get_support(indices=True))

# %%
# What each method sees
# ---------------------
#
# The bars are the mean difference between the classes: the planted features (grey bars)
# do not stand out from their neighbours. The markers show which features each method chose.

fig, ax = plt.subplots(figsize=(7.0, 3.6))
ax.bar(np.arange(p), np.abs(delta), color="0.8", label="|mean difference|")
ax.bar(planted, np.abs(delta[planted]), color="0.45", label="planted feature")
top = np.abs(delta).max()
ax.plot(sparse_lda.get_support(indices=True), np.full(k, 1.08 * top), "v", color="#0072B2", ms=9,
        label="chosen by sparse LDA")
ax.plot(fisher.get_support(indices=True), np.full(k, 1.20 * top), "o", color="#D55E00", ms=7,
        label="chosen by Fisher score")
ax.set_xlabel("feature index")
ax.set_ylabel("|mean difference|")
ax.set_ylim(0, 1.6 * top)
ax.set_title(f"One problem: {k} planted features among {p}")
ax.legend(loc="upper right", fontsize=8, ncol=2)
fig.tight_layout()

# %%
# Across twenty problems
# ----------------------
#
# The fraction of the planted features each method recovers, over twenty random problems.

seeds = range(20)
recovered = {"sparse LDA": [], "Fisher score": []}
for seed in seeds:
    X, y, planted, _ = make_problem(seed)
    for name, sel in (("sparse LDA", SparseLDASelector(n_features_to_select=k)),
                      ("Fisher score", ScoreSelector(k, criterion="fisher"))):
        chosen = sel.fit(X, y).get_support(indices=True)
        recovered[name].append(np.isin(planted, chosen).mean())

for name, values in recovered.items():
    print(f"{name:12s}: mean recovery {np.mean(values):.2f}, exact recovery in "
          f"{np.sum(np.asarray(values) == 1.0)} of {len(values)} problems")

fig, ax = plt.subplots(figsize=(5.0, 3.2))
ax.boxplot(list(recovered.values()), widths=0.5)
ax.set_xticks([1, 2], list(recovered))
ax.set_ylabel("fraction of planted features recovered")
ax.set_ylim(-0.05, 1.05)
ax.set_title(f"{len(seeds)} random problems, p = {p}, k = {k}")
ax.grid(alpha=0.3, axis="y")
fig.tight_layout()
