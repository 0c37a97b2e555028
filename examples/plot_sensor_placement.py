"""
Placing sensors and reconstructing whole images
===============================================

:class:`pixsel.PixelReconstructor` chooses the ``k`` pixels of a set of images from which whole
images are best recovered (the greedy column subset of Farahat, Ghodsi and Kamel, "An
efficient greedy method for unsupervised feature selection", ICDM 2011, improved by swaps),
and learns the reconstruction: the mean of every pixel given the ``k`` readings under the
training images' covariance, with a noise level chosen by cross-validation.
It also says how uncertain each pixel stays. Here: scikit-learn's 8 x 8 digits, 8 sensors.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from pixsel import PixelReconstructor

images = load_digits().images  # (1797, 8, 8)
train, test = train_test_split(images, test_size=0.25, random_state=0)
rec = PixelReconstructor(8).fit(train)
print("sensors (row, column):", [divmod(int(i), 8) for i in rec.sensors_])
# the defaults' decisions: more images than pixels and a small shrinkage intensity, so the
# sample covariance is kept and the greedy's sensors are improved by swaps
print(f"shrinkage used: {rec.shrinkage_}; swaps after the greedy: {rec.n_swaps_}")
print(f"held-out relative error with 8 sensors: {1 - rec.score(test):.3f}")

# %%
# The sensors, the uncertainty they leave, and a few held-out digits
# -------------------------------------------------------------------
#
# ``std_`` is the posterior standard deviation of every pixel given the readings: where it
# stays high the sensors say little about that pixel. ``predict`` takes the sensors' readings
# (``transform``) and returns whole images.

fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.0))
axes[0].imshow(train.mean(axis=0), cmap="gray")
rows, cols = np.divmod(rec.sensors_, 8)
axes[0].plot(cols, rows, "o", color="#D55E00", ms=8, mfc="none", mew=2)
axes[0].set_title("8 sensors over the mean digit")
im = axes[1].imshow(rec.std_, cmap="magma")
axes[1].set_title("posterior std. of each pixel")
fig.colorbar(im, ax=axes[1], shrink=0.8)
for ax in axes:
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()

shown = test[:6]
rebuilt = rec.predict(rec.transform(shown))
fig, axes = plt.subplots(2, 6, figsize=(7.2, 2.7))
for j in range(6):
    axes[0, j].imshow(shown[j], cmap="gray")
    axes[1, j].imshow(rebuilt[j], cmap="gray")
    axes[1, j].plot(cols, rows, ".", color="#D55E00", ms=4)
axes[0, 0].set_ylabel("held out")
axes[1, 0].set_ylabel("from 8 pixels")
for ax in axes.ravel():
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()

# %%
# Error against the number of sensors, beside random pixels
# ---------------------------------------------------------
#
# The greedy path gives every ``k`` up to the fitted one without refitting
# (``predict(..., k=k)`` reads the first ``k`` sensors of the path). Random pixels are
# reconstructed by the same model, passed as installed sensors (``always_select``), so the two
# curves compare placements only.

path = PixelReconstructor(20).fit(train)
ks = np.arange(1, 21)


def error(model, k):
    """Held-out relative error of ``model``'s reconstruction from its first ``k`` sensors."""
    Y = model.predict(test.reshape(len(test), -1)[:, model.get_support_at(k)], k=k)
    return np.linalg.norm(test - Y) / np.linalg.norm(test - path.mean_.reshape(8, 8))


chosen = [error(path, k) for k in ks]
rng = np.random.default_rng(0)
varying = np.flatnonzero(train.reshape(len(train), -1).std(axis=0) > 0)
draws = [[error(PixelReconstructor(int(k), always_select=rng.choice(varying, int(k), replace=False))
                .fit(train), int(k)) for k in ks[::3]] for _ in range(3)]
fig, ax = plt.subplots(figsize=(5.6, 3.4))
ax.plot(ks, chosen, "-o", ms=3, color="#0072B2", label="PixelReconstructor (its path)")
ax.plot(ks[::3], np.mean(draws, axis=0), "--s", ms=3, color="0.5", label="random pixels (mean of 3 draws)")
ax.set_xticks([1, 5, 10, 15, 20])
ax.set_xlabel("sensors k")
ax.set_ylabel("held-out relative error")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
plt.show()
