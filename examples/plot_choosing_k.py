"""
Choosing k by cross-validation over the path
============================================

How many pixels are enough? :class:`~pixsel.PathSelectorCV` fits the selector once per fold
and scores every k of the path on the held-out part (a shrinkage LDA on the selected pixels),
so one call scores all 64 sizes. ``rule='best'`` keeps the k of the best mean accuracy;
``rule='one-se'`` the smallest k within one standard error of it: fewer pixels, the same
accuracy within the noise of the folds.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from pixsel import PathSelectorCV, SparseLDASelector

X, y = load_digits(return_X_y=True)
best = PathSelectorCV(SparseLDASelector(1), cv=5, rule="best").fit(X, y)
one_se = PathSelectorCV(SparseLDASelector(1), cv=5, rule="one-se").fit(X, y)
res = best.cv_results_
i_best = list(res["n_features"]).index(best.n_features_to_select_)
i_one = list(res["n_features"]).index(one_se.n_features_to_select_)
print(f"rule 'best':   k = {best.n_features_to_select_}, mean CV accuracy {res['mean_test_score'][i_best]:.3f}")
print(f"rule 'one-se': k = {one_se.n_features_to_select_}, mean CV accuracy {res['mean_test_score'][i_one]:.3f}")

# %%
# The cross-validated accuracy of every k
# ---------------------------------------
#
# The curve rises steeply and flattens long before all 64 pixels; the one-standard-error rule
# stops where the flat part begins.

k = np.asarray(res["n_features"])
mean, std = np.asarray(res["mean_test_score"]), np.asarray(res["std_test_score"])
fig, ax = plt.subplots(figsize=(6.4, 3.6))
ax.plot(k, mean, "-", color="#0072B2", label="mean CV accuracy (5 folds)")
ax.fill_between(k, mean - std, mean + std, color="#0072B2", alpha=0.2, lw=0, label="one standard deviation")
ax.axvline(best.n_features_to_select_, color="0.3", ls=":", label=f"rule 'best': k = {best.n_features_to_select_}")
ax.axvline(one_se.n_features_to_select_, color="#D55E00", ls="--", label=f"rule 'one-se': k = {one_se.n_features_to_select_}")
ax.set_xlabel("k (selected pixels)")
ax.set_ylabel("accuracy (shrinkage LDA)")
ax.set_title("ten digits: k chosen by cross-validation")
ax.grid(alpha=0.3)
ax.legend(fontsize=8, loc="lower right")
fig.tight_layout()

# %%
# The chosen pixels
# -----------------
#
# The fitted ``selector_`` is the selector refitted on all the data at the chosen k.

mask = one_se.selector_.get_support().reshape(8, 8)
fig, ax = plt.subplots(figsize=(3.2, 3.2))
ax.imshow(np.where(mask, 1.0, 0.25) * X.mean(axis=0).reshape(8, 8), cmap="magma")
ax.set_title(f"{one_se.n_features_to_select_} pixels (one-se rule)", fontsize=10)
ax.set_axis_off()
fig.tight_layout()
