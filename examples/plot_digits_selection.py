"""
Pixels that tell a 3 from a 5, for every k at once
==================================================

Which pixels of an 8x8 handwritten digit separate the 3s from the 5s best? Sparse LDA answers
for every number of pixels ``k`` in one fit: the greedy paths add (forward) or remove
(backward) one pixel at a time, and :class:`~pixsel.selection.SparseLDASelector` with
``direction='dual'`` keeps, for each ``k``, the better of the two. The data are scikit-learn's bundled digits; nothing is
downloaded.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from pixsel import SparseLDASelector
from pixsel.datasets import load_digits_pair

data = load_digits_pair(3, 5)  # label 0 = digit 3, label 1 = digit 5
X, y = data.X, data.y
print(f"{X.shape[0]} images of {data.image_shape[0]}x{data.image_shape[1]} pixels; "
      f"{np.sum(y == 0)} threes, {np.sum(y == 1)} fives")

selector = SparseLDASelector(n_features_to_select=8, direction="dual").fit(X, y)
print("the 8 selected pixels:", selector.get_support(indices=True))

# %%
# One fit, the whole path
# -----------------------
#
# ``objective_path_[k - 1]`` is the class separation (Fisher's criterion) reached with the
# best ``k`` pixels found. It rises steeply over the first pixels and then flattens: a
# quarter of the pixels, well chosen, carry most of what all 64 can do together.

objective = selector.objective_path_
k = np.arange(1, len(objective) + 1)
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.plot(k, objective, color="#0072B2", lw=2, label="greedy sparse LDA (best of forward and backward)")
ax.axhline(objective[-1], color="0.5", ls="--", lw=1, label="all 64 pixels")
ax.set_xlabel("k, number of selected pixels")
ax.set_ylabel("class separation f(S)")
ax.set_title("Separability of 3 vs 5 for every number of pixels")
ax.grid(alpha=0.3)
ax.legend(loc="lower right")
fig.tight_layout()

for kk in (1, 2, 4, 8, 16):
    print(f"k = {kk:2d}: f = {objective[kk - 1]:7.3f} ({objective[kk - 1] / objective[-1]:.0%} of all pixels)")

# %%
# Where the pixels are
# --------------------
#
# ``get_support_at(k)`` returns the selection for any other ``k`` without refitting. The
# selected pixels are drawn over the mean image of each class.

means = {"mean of the 3s": X[y == 0].mean(axis=0), "mean of the 5s": X[y == 1].mean(axis=0)}
ks = (1, 2, 4, 8, 16)
outline = dict(fill=False, edgecolor="#D55E00", linewidth=2.2)  # vermillion: colour-blind safe
fig, axes = plt.subplots(2, len(ks), figsize=(2.0 * len(ks), 4.6))
for col, kk in enumerate(ks):
    rows, cols = np.unravel_index(selector.get_support_at(kk, indices=True), data.image_shape)
    for row, (label, mean) in enumerate(means.items()):
        ax = axes[row, col]
        ax.imshow(mean.reshape(data.image_shape), cmap="gray_r")
        for r, c in zip(rows, cols):
            ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, **outline))
        ax.set_xticks([])
        ax.set_yticks([])
        if row == 0:
            ax.set_title(f"k = {kk}")
        if col == 0:
            ax.set_ylabel(label)
fig.legend(handles=[Rectangle((0, 0), 1, 1, label="selected pixel", **outline)], loc="lower center",
           frameon=False)
fig.suptitle("Selected pixels over the class means (dark = ink)")
fig.tight_layout(rect=(0, 0.06, 1, 1))
# sphinx_gallery_thumbnail_number = 2

# %%
# Does the separation carry over to new images?
# ---------------------------------------------
#
# The selector is a scikit-learn transformer: in a pipeline with a classifier, five-fold
# cross-validation selects the pixels on each training fold only.

for kk in (1, 2, 4, 8, 64):
    model = make_pipeline(SparseLDASelector(n_features_to_select=kk), LinearDiscriminantAnalysis())
    accuracy = cross_val_score(model, X, y, cv=5)
    print(f"k = {kk:2d} pixels: cross-validated accuracy {accuracy.mean():.3f}")
