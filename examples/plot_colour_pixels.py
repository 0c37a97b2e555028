"""
Whole colour pixels: which pixels tell two photographs apart
============================================================

A pixel of a colour image is three numbers (red, green, blue). Selecting the three channels of
a pixel separately picks the red of one pixel and the blue of another, which is not a pixel
anyone can point at. Given an ``(n, h, w, 3)`` stack of colour images,
:class:`~pixsel.selection.SparseLDASelector` selects whole pixels instead: a pixel enters the
selection with its three channels, ``k`` counts pixels, and the criterion is that of all the
chosen channels together ("Fast Pixel/Part Selection with Sparse Eigenvectors", Moghaddam, Weiss
and Avidan, 2007, selects mesh vertices the same way, three coordinates at a time).

The images are 12 x 12 patches of the two colour photographs bundled with scikit-learn (a
Chinese temple and a flower); the task is to tell which photograph a patch comes from.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle
from sklearn.datasets import load_sample_images
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from pixsel import SparseLDASelector

size = 12
rng = np.random.default_rng(0)
patches, labels = [], []
for label, image in enumerate(load_sample_images().images):
    h, w = (image.shape[0] // size) * size, (image.shape[1] // size) * size
    blocks = image[:h, :w].reshape(h // size, size, w // size, size, 3).swapaxes(1, 2).reshape(-1, size, size, 3)
    take = rng.choice(len(blocks), 200, replace=False)
    patches.append(blocks[take] / 255.0)
    labels.append(np.full(200, label))
X, y = np.concatenate(patches), np.concatenate(labels)
print(f"X: {X.shape} (patches, rows, columns, channels)")

selector = SparseLDASelector(n_features_to_select=6).fit(X, y)
print(f"{selector.group_support_.sum()} pixels selected = {selector.n_features_selected_} channel values")
print("selected pixels (row, column):", [tuple(map(int, ij)) for ij in np.argwhere(selector.image_support_)])

# %%
# The chosen pixels on the mean colour patch of each photograph
# -------------------------------------------------------------
#
# ``image_support_`` is the selection as an ``(h, w)`` mask; ``get_support()`` is the same
# selection over the 432 channel values, three per selected pixel.

names = ("temple", "flower")
pictures = {
    f"mean {names[0]} patch": X[y == 0].mean(axis=0), f"mean {names[1]} patch": X[y == 1].mean(axis=0),
    f"a {names[0]} patch": X[y == 0][0], f"a {names[1]} patch": X[y == 1][0],
}
fig, axes = plt.subplots(2, 2, figsize=(5.6, 5.8))
for ax, (title, picture) in zip(axes.ravel(), pictures.items()):
    ax.imshow(np.clip(picture, 0, 1))
    for r, c in np.argwhere(selector.image_support_):
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="white", linewidth=2.2))
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=0.8))
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
fig.suptitle("The 6 selected whole pixels (outlined)")
fig.tight_layout()

# %%
# Whole pixels against single channels at the same number of values
# -------------------------------------------------------------------
#
# ``groups='channels'`` selects single channel values. At the same number of stored values
# (three per pixel), 3-fold cross-validated accuracy of a linear discriminant on the selection:

for k in (2, 6):
    pixels = make_pipeline(SparseLDASelector(k), LinearDiscriminantAnalysis())
    channels = make_pipeline(SparseLDASelector(3 * k, groups="channels"), LinearDiscriminantAnalysis())
    print(f"{k} pixels: {cross_val_score(pixels, X, y, cv=3).mean():.3f}   "
          f"{3 * k} single channels: {cross_val_score(channels, X, y, cv=3).mean():.3f}")
