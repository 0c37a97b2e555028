"""
The pixels that tell ten people apart
=====================================

Extended Yale B holds 64 photographs of each of 38 people under every lighting (Georghiades,
Belhumeur and Kriegman, "From few to many: illumination cone models for face recognition
under variable lighting and pose", 2001). Which 40 of the 1024 pixels of a 32x32 face separate
ten of these people best? :class:`~pixsel.SparseLDASelector` takes the image stack
``(n, 32, 32)`` as it is and returns the pixels as an image.

The faces are one of pixsel's data files, read from its data folder
(:func:`pixsel.datasets.data_dir`: the environment variable ``PIXSEL_DATA``, by default
``../shared/data`` beside the checkout); where the file is absent this example says so and stops.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from pixsel import SparseLDASelector
from pixsel.datasets import data_dir

path = data_dir() / "extyaleb_32x32.npz"
faces = np.load(path) if path.is_file() else None
if faces is None:
    print(f"{path.name} is not in {path.parent}: set PIXSEL_DATA to the folder that holds it to run this example.")
else:
    keep = faces["y"] < 10  # the first ten people
    images = faces["X"][keep].reshape(-1, 32, 32)  # uint8, converted explicitly to float64 inside
    people = faces["y"][keep]
    print(f"{len(images)} images of {len(np.unique(people))} people, 32x32 pixels")

# %%
# Select 40 pixels
# ----------------
#
# With ten classes the default criterion (``'correlation'`` with more than two classes) sums
# the squared canonical correlations of all discriminant directions; the default search grows
# the selection one pixel at a time up to 40, then exchanges a selected pixel for another while
# the criterion rises.

if faces is not None:
    X_train, X_test, y_train, y_test = train_test_split(images, people, test_size=0.5, stratify=people,
                                                        random_state=0)
    selector = SparseLDASelector(40).fit(X_train, y_train)
    print("image shape kept:", selector.image_shape_)
    mask = selector.get_support_image()  # a 32x32 boolean image

    fig, axes = plt.subplots(1, 2, figsize=(6.4, 3.4))
    mean_face = X_train.mean(axis=0)
    axes[0].imshow(mean_face, cmap="gray")
    axes[0].set_title("mean face (training half)", fontsize=10)
    overlay = np.repeat((mean_face / mean_face.max())[..., None], 3, axis=2)
    overlay[mask] = (0.84, 0.37, 0.0)
    axes[1].imshow(overlay)
    axes[1].set_title("the 40 selected pixels (orange)", fontsize=10)
    for ax in axes:
        ax.set_axis_off()
    fig.tight_layout()

# %%
# How much do 40 pixels know?
# ---------------------------
#
# A nearest-neighbour classifier on the 40 selected pixels, on 40 pixels drawn at random, and
# on all 1024, each measured on the held-out half.

if faces is not None:
    def accuracy(columns):
        flat_train, flat_test = X_train.reshape(len(X_train), -1), X_test.reshape(len(X_test), -1)
        knn = KNeighborsClassifier(1).fit(flat_train[:, columns], y_train)
        return knn.score(flat_test[:, columns], y_test)

    rng = np.random.default_rng(0)
    random_pixels = np.mean([accuracy(rng.choice(1024, 40, replace=False)) for _ in range(5)])
    print(f"1-NN accuracy: 40 selected pixels {accuracy(selector.get_support()):.3f}, "
          f"40 random pixels {random_pixels:.3f} (mean of 5 draws), all 1024 pixels {accuracy(slice(None)):.3f}")
