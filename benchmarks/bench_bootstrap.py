"""Bootstrap timings: 1,000 replicates of the IRep-scale table, and the cost of
1,000 replicates against one point estimate at 1e6 annotations.

Run ``python benchmarks/bench_bootstrap.py`` (``--write`` replaces the
bootstrap section of BENCHMARKS.md between its markers). Times are after a
warm-up call (numba compiled), the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

import numpy as np
import xarray as xr
from bench_core import best  # benchmarks/ is on the path when run as a script

import xrr_accessor as xa
from xrr_accessor.datasets import simulate

ROOT = Path(__file__).resolve().parent.parent


def run(repeat: int) -> str:
    warnings.simplefilter("ignore")  # undefined replicates of rare labels are expected
    df = simulate(n_items=37_649, coverage=0.72, seed=0)  # as bench_core's IRep scale
    n_ann = int(df.iloc[:, 3:].notna().to_numpy().sum())
    point5 = best(lambda: xa.summary(df, irr="cohen"), repeat)
    boot5 = best(lambda: xa.summary(df, irr="cohen", ci=0.95, n_boot=1000, seed=0,
                                     progress=False), repeat)
    rng = np.random.default_rng(2)
    data = rng.integers(0, 5, size=(5, 250_000)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    da = xr.DataArray(data, dims=("rater", "item"))
    n_big = int((~np.isnan(data)).sum())
    point = best(lambda: da.xrr.irr(), repeat)
    boot = best(lambda: da.xrr.irr(ci=0.95, method="bootstrap", n_boot=1000, seed=0,
                                   progress=False), repeat)
    rows = [
        ("1,000 replicates of Table 5 (Cohen IRR + kappa_x + normalized, 31 labels x 3 "
         f"pools, {df['item_id'].nunique():,} items), BCa, from a DataFrame", n_ann,
         boot5, "< 10 s", boot5 < 10, f"point estimate {point5 * 1e3:.0f} ms"),
        ("1,000 replicates of alpha (nominal, 5 raters x 250,000 items), BCa, against one "
         "point estimate", n_big, boot, "< 100x the point estimate", boot / point < 100,
         f"point estimate {point * 1e3:.0f} ms: {boot / point:.0f}x"),
    ]
    lines = [f"Measured on {os.cpu_count()} cores; BCa includes its jackknife (up to 200 "
             "leave-one-out or leave-one-group-out passes).", "",
             "| benchmark | annotations | time | target | met | note |",
             "|---|---:|---:|---|---|---|"]
    for name, n, t, goal, ok, note in rows:
        lines.append(f"| {name} | {n:,} | {t:.2f} s | {goal} | "
                     f"{'**met**' if ok else '**not met**'} | {note} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    table = run(args.repeat)
    print(table)
    if args.write:
        from sections import write_section

        write_section("bootstrap", table, "Bootstrap")


if __name__ == "__main__":
    main()
