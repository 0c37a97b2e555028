"""Moghaddam, Weiss and Avidan (ICCV 2007), section 6.1.2 (FERET gender, not available) replaced by a face task on CMU PIE.

The task. FERET's gender labels are not available, and none of the shared face sets carries
gender, so the binary face task is *identity-group membership* on CMU PIE (68 people x 42
frontal images under varying illumination, 32x32): class 0 = the first 41 identities, class 1 =
the other 27 (60% / 40%, the paper's 1044 M / 711 F mix, so chance error is ~40% as in the
paper). 1755 images (the paper's count) are drawn with a fixed seed and split in half, 878 train
/ 877 test, stratified by person, so every test face's person was seen in training under other
lighting. Like gender, the class is a property of the face that no single pixel reveals and the
class means are nearly identical; unlike gender it is tied to identities, so it is a different
(not a harder-or-easier calibrated) task: compare shapes of curves, not numbers.

Thumbnails. The paper used 21 x 12 (rows x columns) FERET thumbnails (252 pixels). PIE crops
are square, so the central 32 x 18 columns are kept (the 21:12 aspect ratio) and resized to
21 x 12 with anti-aliasing (scikit-image), pixel values scaled to [0, 1].

    python benchmarks/bench_faces_gender.py            # the full size
    python benchmarks/bench_faces_gender.py --quick    # smoke size (seconds)
"""

from __future__ import annotations

import numpy as np
from _gp_paper import parse_args, run_task

from pixsel.datasets import load_shared

SHAPE = (21, 12)
N_IMAGES = 1755
N_GROUP0 = 41


def thumbnails(X, image_shape):
    from skimage.transform import resize

    imgs = X.reshape(-1, *image_shape).astype(np.float64) / 255.0
    c0 = (image_shape[1] - 18) // 2
    crop = imgs[:, :, c0:c0 + 18]
    return np.stack([resize(im, SHAPE, anti_aliasing=True) for im in crop]).reshape(len(X), -1)


def make_task(n_images=N_IMAGES, seed=0):
    d = load_shared("cmupie_32x32.npz")
    X, person = d["X"], d["y"]
    shape = tuple(int(v) for v in d["image_shape"])
    rng = np.random.default_rng(seed)
    pick = np.sort(rng.choice(len(person), n_images, replace=False))
    Xt = thumbnails(X[pick], shape)
    person = person[pick]
    y = (person >= N_GROUP0).astype(np.int64)
    # half of each person's images to train, half to test (stratified by person)
    train = np.zeros(len(y), dtype=bool)
    for pid in np.unique(person):
        idx = rng.permutation(np.flatnonzero(person == pid))
        train[idx[: (len(idx) + 1) // 2]] = True
    return Xt[train], y[train], Xt[~train], y[~train]


def main(argv=None):
    args = parse_args("faces_gender", __doc__.splitlines()[0], argv)
    n = 200 if args.quick else N_IMAGES
    Xa, ya, Xb, yb = make_task(n)
    note = (f"CMU PIE identity groups (first {N_GROUP0} vs last {68 - N_GROUP0} people), {n} images, "
            f"{SHAPE[0]}x{SHAPE[1]} thumbnails in [0, 1], split by person half/half")
    run_task("faces_gender", "CMU PIE identity groups", Xa, ya, Xb, yb, SHAPE,
             [f"group A ({N_GROUP0} ids)", f"group B ({68 - N_GROUP0} ids)"], args, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
