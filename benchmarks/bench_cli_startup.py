"""Claim: `pixsel --help` and `pixsel select --help` start in at most 1 s.

Measured side by side in one run against the floor, `python -c pass`, each the best of 3 fresh
processes (what a user waits for: interpreter start + pixsel's imports + argparse). The goal is
an absolute 1 s; the ratio to `python -c pass` says how much of it is pixsel's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from _common import parser, write_results

COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "pixsel --help": [sys.executable, "-m", "pixsel", "--help"],
    "pixsel select --help": [sys.executable, "-m", "pixsel", "select", "--help"],
    "pixsel evaluate --help": [sys.executable, "-m", "pixsel", "evaluate", "--help"],
}
GOAL = 1.0


def _wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    args = parser("cli_startup", __doc__.splitlines()[0]).parse_args()
    repeat = 3
    load_before = os.getloadavg()
    _wall(COMMANDS["pixsel --help"])  # warm the file cache once, as a second call by a user would
    times = {}
    for _ in range(repeat):  # interleaved, so a busy moment hits every command alike
        for name, cmd in COMMANDS.items():
            times.setdefault(name, []).append(_wall(cmd))
    load_after = os.getloadavg()
    best = {name: min(v) for name, v in times.items()}
    floor = best["python -c pass"]
    print(f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'command':<26}{'best of 3 (s)':>14}{'x python -c pass':>18}{'goal <= 1 s':>13}")
    for name, t in best.items():
        ok = "" if name == "python -c pass" else ("yes" if t <= GOAL else "NO")
        print(f"{name:<26}{t:>14.3f}{t / floor:>18.1f}{ok:>13}")
    write_results(args, {"load_before": load_before, "load_after": load_after, "best_seconds": best,
                         "all_seconds": times, "ratio_to_python": {
        n: t / floor for n, t in best.items()}, "goal_seconds": GOAL,
        "met": all(t <= GOAL for n, t in best.items() if n != "python -c pass")})


if __name__ == "__main__":
    main()
