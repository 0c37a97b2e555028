"""Selecting whole colour pixels and image parts: accuracy at k groups, and the cost of a group path.

Two tasks, each on three seeded stratified half/half splits (median and range printed):

* **colour patches**: 16 x 16 x 3 patches cut from six colour photographs shipped inside
  scikit-learn (``load_sample_images``: china, flower) and scikit-image (``skimage.data``:
  astronaut, coffee, chelsea, rocket), one class per photograph (``--quick``: three photographs,
  8 x 8 x 3 patches). Features are the ``p = 768`` channel values, grouped into 256 pixels.
* **face parts**: Extended Yale B 32 x 32 faces (``extyaleb_32x32.npz``, 38 subjects), grouped
  into 4 x 4 patches (64 parts of 16 pixels; ``--quick``: 10 subjects at 16 x 16, 16 parts).

At ``k`` groups, the methods select features on the training half and a shrinkage LDA
(``LinearDiscriminantAnalysis(solver='lsqr', shrinkage='auto')``) is refitted on them; the
held-out accuracy is reported:

* ``groups``: ``SparseLDASelector(k)`` on the image stack (whole pixels of a colour stack,
  ``patch_size=(4, 4)`` for the faces): ``g k`` values;
* ``single``: ``SparseLDASelector(g k, groups='channels')``, the same number of single values
  (``3 k`` channels; ``16 k`` pixels for the faces);
* ``grey``: colour patches converted to grey first (``skimage.color.rgb2gray``), then
  ``SparseLDASelector(3 k)`` on the grey pixels: the same number of stored values;
* ``+ swaps`` and ``beam of 3``: the same selector with ``refine=True`` (exchanges of one group
  for another while the objective rises) and with ``beam_width=3``, against the greedy union
  (accuracy and fit time);
* ``abess``: abess's group best subset (``MultinomialRegression(support_size=k, group=...)``,
  "abess: A Fast Best-Subset Selection Library in Python and R", Zhu et al., 2022), when abess
  is importable; its support is checked to hold ``k`` groups. mlxtend's ``feature_groups`` is a
  wrapper (one model fit per candidate group per step) and is not run.

Timing (colour patches, all six photographs, ``p = 768``): the greedy path over the 256
pixel-groups against the single-feature path over the 768 channels, on the same statistics:
binary LDA (china vs flower; whole forward and backward paths), multiclass LDA (forward to
``3 k`` values) and sparse PCA (forward to ``3 k`` values). Median and range of 3 runs.
Goal: a group path <= 2 x the single-feature path. A last row certifies a small instance with
the exact group search (4 x 4 x 3 patches, 16 pixel-groups, k = 4).

Writes results/groups/groups.json and fig_groups_accuracy.png.

    python benchmarks/bench_groups.py           # with abess (installed by the bench extra)
    python benchmarks/bench_groups.py --quick   # smoke size (seconds)
"""

from __future__ import annotations

import os
import time
import warnings

import numpy as np
from _common import blas_threads, out_dir, parser, write_results
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.model_selection import train_test_split

from pixsel import SparseLDASelector, SparsePCASelector
from pixsel.datasets import load_shared
from pixsel.io import save_figure
from pixsel.spectral import exact_group_support, greedy_path, group_beam_search, group_greedy_path, group_swap_refine
from pixsel.selection import patch_groups, pixel_groups

PHOTOS = ("china", "flower", "astronaut", "coffee", "chelsea", "rocket")


def _photos(names):
    from skimage import data
    from skimage.util import img_as_float
    from sklearn.datasets import load_sample_images

    shipped = load_sample_images()
    by_name = {os.path.splitext(os.path.basename(f))[0]: im for f, im in zip(shipped.filenames, shipped.images)}
    return [img_as_float(by_name[n] if n in by_name else getattr(data, n)()) for n in names]


def colour_patches(quick, per_class, seed=0):
    """Non-overlapping ``s x s x 3`` patches, ``per_class`` drawn from each photograph."""
    size = 8 if quick else 16
    names = PHOTOS[:3] if quick else PHOTOS
    rng = np.random.default_rng(seed)
    X, y = [], []
    for c, im in enumerate(_photos(names)):
        h, w = (im.shape[0] // size) * size, (im.shape[1] // size) * size
        blocks = im[:h, :w, :3].reshape(h // size, size, w // size, size, 3).swapaxes(1, 2).reshape(-1, size, size, 3)
        take = rng.choice(len(blocks), size=min(per_class, len(blocks)), replace=False)
        X.append(blocks[take])
        y.append(np.full(len(take), c))
    return np.concatenate(X), np.concatenate(y), list(names)


def face_parts(quick):
    d = load_shared("extyaleb_32x32.npz")
    X = d["X"].reshape(-1, 32, 32).astype(np.float64) / 255.0
    y = d["y"]
    if quick:
        keep = y < 10
        X, y = X[keep], y[keep]
        X = X.reshape(-1, 16, 2, 16, 2).mean(axis=(2, 4))
    return X, y


def _lda():
    return LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")


def _accuracy(mask, Xtr, ytr, Xte, yte):
    Ftr, Fte = Xtr.reshape(len(Xtr), -1)[:, mask], Xte.reshape(len(Xte), -1)[:, mask]
    return float(_lda().fit(Ftr, ytr).score(Fte, yte))


def _abess_mask(Xtr, ytr, groups, k):
    try:
        from abess.linear import MultinomialRegression
    except ImportError:
        return None
    # abess wants the features of a group adjacent, groups numbered 0, 1, ... in that order
    order = np.argsort(groups, kind="stable")
    F = Xtr.reshape(len(Xtr), -1)[:, order]
    model = MultinomialRegression(support_size=[k], group=groups[order])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(F, ytr)
    coef = np.asarray(model.coef_)
    coef = coef if coef.shape[0] == F.shape[1] else coef.T
    mask = np.any(np.abs(coef.reshape(F.shape[1], -1)) > 0, axis=1)
    chosen = np.unique(groups[order][mask])
    assert len(chosen) == k, f"abess returned {len(chosen)} groups for k = {k}"
    return np.isin(groups, chosen)


def run_task(name, X, y, ks, *, group_kw, g, grey=None, seeds=(0, 1, 2)):
    """Held-out accuracy per method and k over the seeded splits."""
    groups = pixel_groups(X.shape[1:]) if X.ndim == 4 else None
    if groups is None:
        groups = patch_groups(X.shape[1:], group_kw["patch_size"])
    rows = []
    for k in ks:
        acc = {m: [] for m in ("groups", "swaps", "beam", "single", "grey", "abess")}
        secs = {m: [] for m in ("groups", "swaps", "beam")}
        for seed in seeds:
            tr, te = train_test_split(np.arange(len(y)), test_size=0.5, stratify=y, random_state=seed)
            for m, extra in (("groups", {}), ("swaps", {"refine": True}), ("beam", {"beam_width": 3})):
                t = time.perf_counter()
                sel = SparseLDASelector(k, **group_kw, **extra).fit(X[tr], y[tr])
                secs[m].append(time.perf_counter() - t)
                assert sel.group_support_.sum() == k and sel.n_features_selected_ == g * k
                acc[m].append(_accuracy(sel.get_support(), X[tr], y[tr], X[te], y[te]))
            one = SparseLDASelector(g * k, groups="channels").fit(X[tr].reshape(len(tr), -1), y[tr])
            assert one.n_features_selected_ == g * k
            acc["single"].append(_accuracy(one.get_support(), X[tr], y[tr], X[te], y[te]))
            if grey is not None:
                gs = SparseLDASelector(g * k).fit(grey[tr], y[tr])
                acc["grey"].append(_accuracy(gs.get_support(), grey[tr], y[tr], grey[te], y[te]))
            am = _abess_mask(X[tr], y[tr], groups, k)
            if am is not None:
                acc["abess"].append(_accuracy(am, X[tr], y[tr], X[te], y[te]))
        rows.append({"task": name, "k": k, "values": g * k,
                     **{m: v for m, v in acc.items() if v}, "seconds": secs})
    return rows


def _stat(v):
    return f"{np.median(v):.3f} [{min(v):.3f}-{max(v):.3f}]"


def _median3(fn, repeat=3):
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def timing(X, y, k, swaps):
    """Group path vs single-feature path on the same statistics (median and range of 3); appends
    the multiclass swaps' and beam's times (stacked oracle, block gains) to ``swaps``."""
    p = X[0].size
    groups = pixel_groups(X.shape[1:])
    flat = X.reshape(len(X), -1)
    two = np.isin(y, [0, 1])
    rows = []
    binary = SparseLDASelector(1, direction="forward", groups="channels").fit(flat[two], y[two]).forward_path_
    a, B = binary.A, binary.B
    for direction in ("forward", "backward"):
        ts, _ = _median3(lambda: greedy_path(a, B, direction=direction))
        tg, gp = _median3(lambda: group_greedy_path(a, B, groups, direction=direction))
        assert len(gp.order) == p // 3
        rows.append((f"binary LDA {direction}, whole path", ts, tg))
    multi = SparseLDASelector(1, direction="forward", groups="channels").fit(flat, y).forward_path_
    M, Bm = multi.A, multi.B
    ts, _ = _median3(lambda: greedy_path(M, Bm, direction="forward", max_k=3 * k))
    tg, _ = _median3(lambda: group_greedy_path(M, Bm, groups, direction="forward", max_k=k))
    rows.append((f"multiclass LDA forward to {3 * k} values", ts, tg))
    # the swaps and the beam over groups of an additive criterion: block gains from one Cholesky
    # factor per union against the stacked eigenproblem of every candidate union (their oracle)
    start = group_greedy_path(M, Bm, groups, criterion="trace", max_k=k).groups_at(k)
    tf, fast = _median3(lambda: group_swap_refine(M, Bm, groups, start, criterion="trace"))
    tsl, slow = _median3(lambda: group_swap_refine(M, Bm, groups, start, criterion="trace", _fast=False))
    assert np.array_equal(fast.groups, slow.groups) and fast.n_swaps == slow.n_swaps
    swaps.append((f"swaps over groups at k = {k} ({fast.n_swaps} moves)", tsl, tf))
    tf, fast = _median3(lambda: group_beam_search(M, Bm, groups, k, width=3, criterion="trace"))
    tsl, slow = _median3(lambda: group_beam_search(M, Bm, groups, k, width=3, criterion="trace", _fast=False))
    assert np.array_equal(fast.groups, slow.groups)
    swaps.append((f"beam of 3 over groups to k = {k}", tsl, tf))
    C = SparsePCASelector(1, refine=False).fit(flat).forward_path_.A
    ts, _ = _median3(lambda: greedy_path(C, direction="forward", max_k=3 * k))
    tg, _ = _median3(lambda: group_greedy_path(C, None, groups, direction="forward", max_k=k))
    rows.append((f"sparse PCA forward to {3 * k} values", ts, tg))
    return rows


def exact_row(quick):
    X, y, _ = colour_patches(True, 80 if quick else 150, seed=3)
    X = X[:, :4, :4]
    two = np.isin(y, [0, 1])
    path = SparseLDASelector(1, direction="forward", groups="channels").fit(
        X[two].reshape(two.sum(), -1), y[two]).forward_path_
    t = time.perf_counter()
    res = exact_group_support(path.A, path.B, pixel_groups((4, 4, 3)), 4)
    return {"status": res.status, "n_nodes": res.n_nodes, "seconds": time.perf_counter() - t,
            "objective": res.objective, "upper_bound": res.upper_bound}


def figure(rows, path):
    from matplotlib.figure import Figure

    tasks = sorted({r["task"] for r in rows}, key=[r["task"] for r in rows].index)
    fig = Figure(figsize=(5 * len(tasks), 3.6), layout="constrained")
    labels = {"groups": "whole groups (k)", "single": "single values (g k)", "grey": "grey first (3 k pixels)",
              "abess": "abess group best subset (k)"}
    for ax, task in zip(fig.subplots(1, len(tasks), squeeze=False)[0], tasks):
        sub = [r for r in rows if r["task"] == task]
        for m, style, colour in zip(labels, ("o-", "s--", "^:", "d-."), ("C0", "C1", "C2", "C3")):
            if m in sub[0]:
                ks = [r["k"] for r in sub]
                med = [np.median(r[m]) for r in sub]
                lo = [min(r[m]) for r in sub]
                hi = [max(r[m]) for r in sub]
                ax.errorbar(ks, med, yerr=[np.subtract(med, lo), np.subtract(hi, med)], fmt=style, capsize=3,
                            color=colour, label=labels[m])
        ax.set_xlabel("k (groups selected)")
        ax.set_ylabel("held-out accuracy")
        ax.set_title(task)
        ax.legend(fontsize=8)
    save_figure(fig, path)


def main():
    args = parser("groups", __doc__.splitlines()[0]).parse_args()
    quick = args.quick
    print(f"uptime: {os.popen('uptime').read().strip()}")
    with blas_threads(args):
        X, y, names = colour_patches(quick, 60 if quick else 150)
        from skimage.color import rgb2gray

        grey = rgb2gray(X)
        ks = (2, 4) if quick else (4, 8, 16)
        rows = run_task("colour patches", X, y, ks, group_kw={}, g=3, grey=grey)
        F, yf = face_parts(quick)
        rows += run_task("face parts (4 x 4)", F, yf, (1, 2) if quick else (2, 4, 8), group_kw={"patch_size": (4, 4)},
                         g=16)
        Xt, yt, _ = colour_patches(quick, 60 if quick else 150, seed=1)
        srows = []
        trows = timing(Xt, yt, 4 if quick else 10, srows)
        ex = exact_row(quick)
    print(f"\nheld-out accuracy, median [min-max] of 3 splits (photographs: {', '.join(names)})")
    head = f"{'task':<20} {'k':>3} {'values':>6}  {'groups':<21} {'single':<21} {'grey first':<21} {'abess group':<21}"
    print(head)
    for r in rows:
        cells = [_stat(r[m]) if m in r else "-" for m in ("groups", "single", "grey", "abess")]
        print(f"{r['task']:<20} {r['k']:>3} {r['values']:>6}  " + " ".join(f"{c:<21}" for c in cells))
    print("\nwhole groups, searched further at k: the greedy union (default), then 1-swaps over groups "
          "(refine=True), and a beam of 3 unions (beam_width=3); held-out accuracy and fit seconds, "
          "median [min-max] of the 3 splits")
    print(f"{'task':<20} {'k':>3}  {'greedy':<21} {'+ swaps':<21} {'beam of 3':<21} {'s greedy':>8} {'s swaps':>8} "
          f"{'s beam':>8}")
    for r in rows:
        cells = " ".join(f"{_stat(r[m]):<21}" for m in ("groups", "swaps", "beam"))
        times = " ".join(f"{np.median(r['seconds'][m]):8.3f}" for m in ("groups", "swaps", "beam"))
        print(f"{r['task']:<20} {r['k']:>3}  {cells} {times}")
    print(f"\ngroup path vs single-feature path, same statistics (p = {Xt[0].size}, {Xt[0].size // 3} pixel-groups); "
          "seconds, median [min-max] of 3")
    print(f"{'path':<40} {'single':<22} {'groups':<22} {'ratio':>6}  goal <= 2")
    out_t = []
    for label, ts, tg in trows:
        ratio = np.median(tg) / np.median(ts)
        print(f"{label:<40} {_stat(ts):<22} {_stat(tg):<22} {ratio:6.2f}  {'met' if ratio <= 2 else 'NOT met'}")
        out_t.append({"path": label, "single_s": ts, "groups_s": tg, "ratio": ratio})
    print("\nmulticlass LDA, trace criterion, the same statistics: every candidate union valued by its own "
          "stacked eigenproblem (the oracle) against the block gains of one Cholesky factor per union; "
          "seconds, median [min-max] of 3")
    print(f"{'search':<40} {'stacked':<22} {'block gains':<22} {'speed-up':>8}")
    out_s = []
    for label, tsl, tf in srows:
        ratio = np.median(tsl) / np.median(tf)
        print(f"{label:<40} {_stat(tsl):<22} {_stat(tf):<22} {ratio:8.1f}")
        out_s.append({"search": label, "stacked_s": tsl, "block_gains_s": tf, "speed_up": ratio})
    print(f"\nexact group search, 4 x 4 x 3 patches (16 pixel-groups), k = 4: {ex['status']}, {ex['n_nodes']} nodes, "
          f"{ex['seconds']:.2f} s, objective {ex['objective']:.6g}, bound {ex['upper_bound']:.6g}")
    print(f"uptime: {os.popen('uptime').read().strip()}")
    write_results(args, {"accuracy": rows, "timing": out_t, "swaps": out_s, "exact": ex, "photographs": names})
    figure(rows, out_dir(args) / "fig_groups_accuracy.png")


if __name__ == "__main__":
    main()
