"""
A subspace-score map of the digits
==================================

Without labels, which pixels keep the structure of the images? Subspace scores (Musco and
Musco) rate each pixel by its **leverage**, how much it contributes to the dominant
``m``-dimensional principal subspace of the centred data, plus ``gamma`` times its
**residual**, the part of its squared norm outside that subspace.
:class:`~pixsel.selection.SubspaceScoreSelector` computes both with a block Krylov SVD and
draws distinct pixels in proportion to their scores (its default ``mode='distinct'``;
``mode='top'`` takes the highest scores, which on images are clumps of neighbouring pixels).
The data are all ten classes of scikit-learn's bundled 8x8 digits.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Rectangle
from sklearn.datasets import load_digits

from pixsel import SubspaceScoreSelector

digits = load_digits()
X = digits.data  # 1797 images, 64 pixels, values 0..16
shape = (8, 8)

selector = SubspaceScoreSelector(n_features_to_select=12, rank=10, random_state=0).fit(X)
print(f"gamma = {selector.gamma_:.3g} (leverage and residual weigh the same in total)")
print("the 12 selected pixels:", selector.get_support(indices=True))

# %%
# Leverage, residual and their sum as images
# ------------------------------------------
#
# The border pixels are almost always blank: they vary little, so both parts are near zero.
# Leverage marks the strokes that the top ten principal directions use; the residual marks
# pixels whose variation those directions leave out.

maps = {
    "leverage (rank 10)": selector.leverage_,
    "residual": selector.residual_,
    "subspace score": selector.scores_,
}
fig, axes = plt.subplots(1, 3, figsize=(10.0, 3.4))
for ax, (title, values) in zip(axes, maps.items()):
    im = ax.imshow(values.reshape(shape), cmap="viridis")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
fig.suptitle("Per-pixel scores of the 8x8 digits (brighter = more important)")
fig.tight_layout()

# %%
# The selected pixels
# -------------------
#
# Twelve distinct pixels drawn in proportion to their subspace scores, over the mean digit.

rows, cols = np.unravel_index(selector.get_support(indices=True), shape)
outline = dict(fill=False, edgecolor="#D55E00", linewidth=2.2)  # vermillion: colour-blind safe
fig, ax = plt.subplots(figsize=(4.0, 4.3))
ax.imshow(X.mean(axis=0).reshape(shape), cmap="gray_r")
for r, c in zip(rows, cols):
    ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, **outline))
ax.set_xticks([])
ax.set_yticks([])
ax.set_title("12 pixels drawn by subspace score,\nover the mean digit (dark = ink)")
ax.legend(handles=[Rectangle((0, 0), 1, 1, label="selected pixel", **outline)], loc="upper center",
          bbox_to_anchor=(0.5, -0.01), frameon=False)
fig.tight_layout()
