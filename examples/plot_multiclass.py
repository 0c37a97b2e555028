"""
Ten classes at once: three criteria, one path
=============================================

With more than two classes the between-class scatter has rank ``C - 1``, and "how well do
these pixels separate the classes" has several readings: the best single discriminant direction
(``criterion='max-eig'``, the largest generalized eigenvalue), all of them together
(``criterion='trace'``, the sum of the ``C - 1`` eigenvalues), or all of them with each one
capped (``criterion='correlation'``, the sum of the squared canonical correlations between the
pixels and the classes: an eigenvalue ``lambda`` counts as ``lambda / (1 + lambda)``). The
default, ``criterion='auto'``, is ``'correlation'`` with more than two classes. This example
selects pixels of all ten digits with each and compares what a classifier makes of them.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from pixsel import SparseLDASelector

X, y = load_digits(return_X_y=True)
print(f"{len(X)} digits, {len(np.unique(y))} classes, {X.shape[1]} pixels")

ks = [2, 4, 8, 16, 32]
scores = {}
for criterion in ("max-eig", "trace", "correlation"):
    scores[criterion] = []
    for k in ks:
        pipe = make_pipeline(SparseLDASelector(k, criterion=criterion),
                             LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto"))
        scores[criterion].append(cross_val_score(pipe, X, y, cv=3).mean())
    print(criterion, " ".join(f"k={k}: {s:.3f}" for k, s in zip(ks, scores[criterion])))

# %%
# Accuracy against the number of pixels
# -------------------------------------
#
# The trace criterion rewards pixels that help any pair of classes, the largest eigenvalue
# those that help the single best direction: with ten classes the sum of all directions is
# what a classifier needs, and it shows for small k. The correlation criterion also sums all
# directions but lets no single well-separated direction count for more than 1.

fig, ax = plt.subplots(figsize=(6.4, 3.6))
for criterion, style in (("max-eig", "o-"), ("trace", "s--"), ("correlation", "^:")):
    ax.plot(ks, scores[criterion], style, label=f"criterion='{criterion}'")
ax.set_xlabel("k (selected pixels)")
ax.set_ylabel("3-fold CV accuracy (LDA)")
ax.set_title("ten digits: accuracy on the selected pixels")
ax.grid(alpha=0.3)
ax.legend()
fig.tight_layout()

# %%
# Where the pixels are
# --------------------
#
# Twelve pixels of each criterion over the mean digit.

mean_digit = X.mean(axis=0).reshape(8, 8) / X.max()
fig, axes = plt.subplots(1, 3, figsize=(8.4, 3.3))
for ax, criterion in zip(axes, ("max-eig", "trace", "correlation")):
    mask = SparseLDASelector(12, criterion=criterion).fit(X, y).get_support().reshape(8, 8)
    overlay = np.repeat(mean_digit[..., None], 3, axis=2)
    overlay[mask] = (0.84, 0.37, 0.0)  # the selected pixels in orange
    ax.imshow(overlay)
    ax.set_title(f"criterion='{criterion}': 12 pixels", fontsize=10)
    ax.set_axis_off()
fig.tight_layout()
