"""Moghaddam, Weiss and Avidan (ICCV 2007), section 6.1.1, on USPS 3 vs 5 (usps_3v5_split.npz: 767 train / 773 test).

Figures 7-11 and the "what users would pick instead" table; see benchmarks/_gp_paper.py for
what runs. Writes results/usps35/usps35.json and fig_*.png (or into --out DIR).

    python benchmarks/bench_usps35.py            # the full size (~15-25 min on a busy 2-core machine)
    python benchmarks/bench_usps35.py --quick    # smoke size (a subsample, seconds)
"""

from __future__ import annotations

import numpy as np
from _gp_paper import parse_args, run_task

from pixsel.datasets import load_shared


def main(argv=None):
    args = parse_args("usps35", __doc__.splitlines()[0], argv)
    d = load_shared("usps_3v5_split.npz")
    Xa, ya, Xb, yb = (d["X_train"].astype(np.float64), d["y_train"], d["X_test"].astype(np.float64), d["y_test"])
    shape = tuple(int(v) for v in d["image_shape"])
    note = "USPS digits 3 vs 5, pixel values in [-1, 1] as stored; seeded split with GPML's class counts"
    if args.quick:
        rng = np.random.default_rng(0)
        ia = np.sort(rng.choice(len(ya), 80, replace=False))
        ib = np.sort(rng.choice(len(yb), 80, replace=False))
        Xa, ya, Xb, yb = Xa[ia], ya[ia], Xb[ib], yb[ib]
        note += " (quick: 80 train / 80 test subsample)"
    run_task("usps35", "USPS 3 vs 5", Xa, ya, Xb, yb, shape, ["3", "5"], args, note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
