"""Sparse eigenfaces (Moghaddam, Weiss and Avidan (ICCV 2007), section 6, Figs. 2-5) on Extended Yale B 32 x 32.

1. Greedy sparse PCA (dual pass) on the covariance of the *training* identities: variance of
   the first sparse component vs k, forward and backward (Fig. 3), with the certified bound.
2. The sparse mask at the smallest k whose variance reaches 95% of the full first-PC variance
   (Fig. 2, right).
3. Verification with 100 basis functions (Figs. 4-5): eigenfaces of the full mask vs
   eigenfaces computed on the sparse mask only (the same mask for all higher-order components,
   as in the paper). Faces of held-out identities are encoded, pairs are scored by cosine
   similarity of the whitened coefficients; genuine pairs = same identity, impostor pairs = different identities; ROC and
   equal error rate (EER) for both.

Identities are split in two: even labels train (covariance, selection, eigenfaces), odd labels
test (verification). Pixels are scaled to [0, 1].

    python benchmarks/bench_sparse_eigenfaces.py            # p = 1024, full forward + backward paths
    python benchmarks/bench_sparse_eigenfaces.py --quick    # 16 x 16 images
"""

from __future__ import annotations

import time

import numpy as np
from _common import blas_threads, out_dir, parser, write_results

from pixsel.io import save_figure
from pixsel.datasets import load_shared
from pixsel.spectral import greedy_path


def roc_eer(genuine, impostor):
    """ROC (false accept rate, true accept rate) over all thresholds, and the equal error rate."""
    scores = np.concatenate([genuine, impostor])
    labels = np.concatenate([np.ones(len(genuine)), np.zeros(len(impostor))])
    order = np.argsort(-scores, kind="stable")
    lab = labels[order]
    tar = np.cumsum(lab) / len(genuine)
    far = np.cumsum(1 - lab) / len(impostor)
    frr = 1 - tar
    i = int(np.argmin(np.abs(far - frr)))
    return far, tar, float((far[i] + frr[i]) / 2)


def eigenbasis(Xtr, n_basis):
    mean = Xtr.mean(0)
    _, s, Vt = np.linalg.svd(Xtr - mean, full_matrices=False)
    return mean, Vt[:n_basis], s[:n_basis]


def verification(Xtr, Xte, yte, n_basis):
    mean, V, s = eigenbasis(Xtr, n_basis)
    Z = (Xte - mean) @ V.T / s  # whitened ("Mahalanobis cosine", the usual eigenface matcher)
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    S = Z @ Z.T
    iu = np.triu_indices(len(yte), 1)
    same = (yte[:, None] == yte[None, :])[iu]
    s = S[iu]
    far, tar, eer = roc_eer(s[same], s[~same])
    return far, tar, eer, int(same.sum()), int((~same).sum())


def main(argv=None):
    ap = parser("sparse_eigenfaces", __doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=0.95, help="variance fraction defining the mask")
    ap.add_argument("--n-basis", type=int, default=100)
    ap.add_argument("--no-backward", action="store_true", help="forward pass only")
    args = ap.parse_args(argv)

    d = load_shared("extyaleb_32x32.npz")
    X = d["X"].astype(np.float64) / 255.0
    y = d["y"]
    side = 32
    if args.quick:
        X = X.reshape(-1, 32, 32)[:, ::2, ::2].reshape(len(X), -1)
        side = 16
    train = y % 2 == 0
    Xtr, Xte, yte = X[train], X[~train], y[~train]
    n, p = Xtr.shape
    C = np.cov(Xtr, rowvar=False)
    full_var = float(np.linalg.eigvalsh(C)[-1])
    out = {"n_train": n, "n_test": int(len(Xte)), "n_features": p, "first_pc_variance": full_var}
    with blas_threads(args):
        t = time.perf_counter()
        fwd = greedy_path(C, form="full", direction="forward", certificate="inclusion")
        out["forward_s"] = time.perf_counter() - t
        bwd = None
        if not args.no_backward:
            t = time.perf_counter()
            bwd = greedy_path(C, form="full", direction="backward", certificate="inclusion")
            out["backward_s"] = time.perf_counter() - t
        best = fwd.objective if bwd is None else np.maximum(fwd.objective, bwd.objective)
        k95 = int(np.argmax(best >= args.fraction * full_var)) + 1
        use = fwd if bwd is None or fwd.objective[k95 - 1] >= bwd.objective[k95 - 1] else bwd
        mask = np.zeros(p, dtype=bool)
        mask[use.support(k95)] = True
        nb = min(args.n_basis, k95, n - 1)
        far_f, tar_f, eer_full, n_gen, n_imp = verification(Xtr, Xte, yte, min(args.n_basis, n - 1))
        far_s, tar_s, eer_sparse, _, _ = verification(Xtr[:, mask], Xte[:, mask], yte, nb)
    out.update(
        k_at_fraction=k95,
        fraction=args.fraction,
        mask_pass=use.direction,
        forward_variance_fraction=fwd.objective / full_var,
        backward_variance_fraction=None if bwd is None else bwd.objective / full_var,
        upper_bound_fraction=fwd.upper_bound / full_var,
        n_basis_full=min(args.n_basis, n - 1),
        n_basis_sparse=nb,
        eer_full=eer_full,
        eer_sparse=eer_sparse,
        n_genuine_pairs=n_gen,
        n_impostor_pairs=n_imp,
    )
    print(f"Extended Yale B {side}x{side}: {n} training faces (19 identities), {len(Xte)} test faces")
    print(f"  forward path (all k): {out['forward_s']:.1f} s" + (
        "" if bwd is None else f"; backward path (all k): {out['backward_s']:.1f} s"))
    for k in sorted({10, 50, 100, 200, k95, p // 2, p}):
        if k <= p:
            row = f"  k = {k:>4}: forward {fwd.objective[k - 1] / full_var:.4f}"
            if bwd is not None:
                row += f", backward {bwd.objective[k - 1] / full_var:.4f}"
            print(row + " of the first-PC variance")
    print(f"  {100 * args.fraction:.0f}% of the variance at k = {k95} of {p} pixels ({100 * k95 / p:.1f}%), "
          f"{use.direction} pass")
    print(f"  verification ({n_gen} genuine / {n_imp} impostor pairs, whitened cosine, {out['n_basis_full']} basis functions):")
    print(f"    EER full mask   ({p} px): {100 * eer_full:.2f}%")
    print(f"    EER sparse mask ({k95} px, {nb} basis functions): {100 * eer_sparse:.2f}%")

    res = out_dir(args)
    write_results(args, out)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    kk = np.arange(1, p + 1)
    axes[0].plot(kk, fwd.objective / full_var, label="forward")
    if bwd is not None:
        axes[0].plot(kk, bwd.objective / full_var, "--", label="backward")
    axes[0].plot(kk, np.minimum(fwd.upper_bound / full_var, 1.0), color="0.6", lw=1, label="certified upper bound")
    axes[0].axvline(k95, color="k", lw=0.8)
    axes[0].set_xlabel("k (pixels)")
    axes[0].set_ylabel("variance / first-PC variance")
    axes[0].legend()
    axes[0].set_title("sparse eigenface variance vs k")
    axes[1].imshow(Xtr.mean(0).reshape(side, side), cmap="gray")
    axes[1].imshow(np.ma.masked_where(~mask.reshape(side, side), mask.reshape(side, side)), cmap="autumn", alpha=0.6)
    axes[1].set_title(f"sparse mask, k = {k95}")
    axes[1].axis("off")
    axes[2].semilogx(far_f, tar_f, label=f"full mask, EER {100 * eer_full:.1f}%")
    axes[2].semilogx(far_s, tar_s, label=f"sparse mask, EER {100 * eer_sparse:.1f}%")
    axes[2].set_xlabel("false accept rate")
    axes[2].set_ylabel("true accept rate")
    axes[2].legend()
    axes[2].set_title("verification ROC")
    fig.tight_layout()
    save_figure(fig, res / "sparse_eigenfaces.png", dpi=110)
    print(f"wrote {res / 'sparse_eigenfaces.json'}, {res / 'sparse_eigenfaces.png'}")
    return out


if __name__ == "__main__":
    main()
