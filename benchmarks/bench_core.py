"""Core benchmarks: kappa_x at IRep scale vs the naive O(n^2) definition and the floor
kernel, the Table 5 summary, alpha vs krippendorff, the classic family
(``bench_classic.py``) and the engine targets (``bench_engine.py``).

Every ratio is measured in one run on one machine. Run:

    python benchmarks/bench_core.py            # full sizes, prints a Markdown table
    python benchmarks/bench_core.py --write    # ... and rewrites BENCHMARKS.md
    python benchmarks/bench_core.py --quick    # tiny sizes (smoke test, used by the tests)

Timings are the best of ``repeat`` runs after one warm-up call (numba
compiles, or loads its cache, on the first call).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_engine  # noqa: E402

import xrr_accessor  # noqa: E402, F401  (registers .xrr)
from xrr_accessor.datasets import simulate  # noqa: E402

import naive  # noqa: E402

#: The naive Eq 9-11 kappa_x (tests/naive.py's registry of slow references).
NAIVE_KAPPA_X = naive.REFERENCES["kappa_x"][0].fn


def best(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up: compile or load the numba cache
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def bench_kappa_x(n_items: int, repeat: int) -> list[dict]:
    """The whole 31-label x 3-pool kappa_x table, IRep-shaped data: from a DataFrame, from
    integer codes against the floor kernel, and the Table 5 summary (bench_engine.py)."""
    df = simulate(n_items=n_items, coverage=0.72, seed=0)
    n_ann = int(df.iloc[:, 3:].notna().to_numpy().sum())
    full = best(lambda: df.xrr.cross_kappa(), repeat)
    return [
        {"benchmark": "kappa_x, 31 labels x 3 pool pairs, from a DataFrame",
         "annotations": n_ann, "n_items": df["item_id"].nunique(), "xrr_accessor_s": full,
         "peer": "", "peer_s": np.nan},
        *bench_engine.bench_codes(df, n_ann, best, repeat),
        *bench_engine.bench_table5(df, n_ann, best, repeat),
    ]


def bench_naive(sizes: list[int], repeat: int) -> list[dict]:
    """One label, one pair: naive Eq 9-11 (O(n^2)) against xrr_accessor on the same data."""
    rows = []
    for n in sizes:
        df = simulate(n_items=n, labels=["joy"], pools=["A", "B"], coverage=1.0, seed=1)
        x = {i: list(g["joy"]) for i, g in df[df.pool == "A"].groupby("item_id")}
        y = {i: list(g["joy"]) for i, g in df[df.pool == "B"].groupby("item_id")}
        ours = best(lambda df=df: df.xrr.cross_kappa(), repeat)
        t = time.perf_counter()
        slow = NAIVE_KAPPA_X(x, y)
        naive_s = time.perf_counter() - t
        fast = float(df.xrr.cross_kappa().iloc[0, 0])
        assert abs(slow - fast) < 1e-10, (slow, fast)
        rows.append({"benchmark": f"kappa_x, 1 label x 1 pair, {n:,} items",
                     "annotations": len(df), "xrr_accessor_s": ours,
                     "peer": "naive O(n^2) Eq 9-11 (tests/naive.py)", "peer_s": naive_s})
    return rows


def bench_alpha(n_items: int, n_raters: int, repeat: int) -> list[dict]:
    """Alpha against the krippendorff package, same raters x items matrix, 20% missing."""
    import krippendorff

    rows = []
    rng = np.random.default_rng(2)
    for level, k in [("nominal", 5), ("ordinal", 5), ("interval", 7)]:
        data = rng.integers(0, k, size=(n_raters, n_items)).astype(float)
        data[rng.random(data.shape) < 0.2] = np.nan
        n_ann = int((~np.isnan(data)).sum())
        da = xr.DataArray(data, dims=("rater", "item"))
        ours = best(lambda da=da, level=level: da.xrr.irr(level=level), repeat)
        theirs = best(lambda data=data, level=level: krippendorff.alpha(
            reliability_data=data, level_of_measurement=level), repeat)
        a = float(da.xrr.irr(level=level))
        b = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert abs(a - b) < 1e-9, (level, a, b)
        name = f"alpha, {level}, {n_raters} raters x {n_items:,} items"
        rows.append({"benchmark": name,
                     "annotations": n_ann, "xrr_accessor_s": ours,
                     "peer": f"krippendorff {version('krippendorff')}",
                     "peer_s": theirs})
    return rows


def table(rows: list[dict]) -> str:
    out = ["| benchmark | annotations | xrr_accessor | peer | peer time "
           "| speed-up (peer time / ours) |",
           "|---|---:|---:|---|---:|---:|"]
    for r in rows:
        ratio = r["peer_s"] / r["xrr_accessor_s"] if r["peer_s"] == r["peer_s"] else np.nan
        peer_t = f"{r['peer_s'] * 1e3:,.1f} ms" if r["peer_s"] == r["peer_s"] else ""
        ratio_s = (f"**{ratio:,.1f}x**" if ratio >= 1 else f"{ratio:,.2f}x (slower)"
                   ) if ratio == ratio else ""
        out.append(f"| {r['benchmark']} | {r['annotations']:,} | "
                   f"{r['xrr_accessor_s'] * 1e3:,.1f} ms | {r['peer']} | {peer_t} | {ratio_s} |")
    return "\n".join(out)


def extrapolate(rows: list[dict]) -> str:
    """What the naive definition would cost on the IRep-scale table, from its n^2 growth."""
    naive_rows = [r for r in rows if r["peer"].startswith("naive")]
    irep = rows[0]
    if not naive_rows:
        return ""
    big = naive_rows[-1]
    n_big = int(big["benchmark"].split(", ")[-1].split(" ")[0].replace(",", ""))
    n_irep = int(irep["n_items"])
    cells = 31 * 3
    seconds = big["peer_s"] * (n_irep / n_big) ** 2 * cells
    return (f"Extrapolated from its {n_big:,}-item time by the n^2 growth, the naive "
            f"definition would need about {seconds / 3600:,.0f} hours for the IRep-scale "
            f"table ({n_irep:,} items, {cells} label x pair cells); xrr_accessor took "
            f"{irep['xrr_accessor_s']:.2f} s, a ratio of about "
            f"{seconds / irep['xrr_accessor_s']:,.0f}x.")


def keep_sections(text: str, old: str) -> str:
    r"""``text`` (the filled template) with the sections other scripts write kept from
    ``old`` (the current BENCHMARKS.md): those the template marks are put in their
    places, those it lacks are appended with their heading, in their order in ``old``.

    >>> old = "## A\n<!-- a:start -->\nA1\n<!-- a:end -->\n## B\n<!-- b:start -->B1<!-- b:end -->\n"
    >>> print(keep_sections("top\n<!-- a:start -->\n<!-- a:end -->\n", old))
    top
    <!-- a:start -->
    A1
    <!-- a:end -->
    <BLANKLINE>
    ## B
    <!-- b:start -->B1<!-- b:end -->
    <BLANKLINE>
    """
    for name in re.findall(r"<!-- (\w+):start -->", old):
        start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
        if end not in old:
            continue
        if start in text and end in text:  # the template's place for it
            kept = old[old.index(start):old.index(end)]
            text = text[:text.index(start)] + kept + text[text.index(end):]
            continue
        head = old.rfind("\n## ", 0, old.index(start)) + 1  # its heading, if any
        text = text.rstrip("\n") + "\n\n" + old[head:old.index(end) + len(end)] + "\n"
    return text


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    p.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md")
    args = p.parse_args(argv)
    if args.quick:
        rows = bench_kappa_x(300, 1) + bench_naive([30], 1) + bench_alpha(200, 3, 1)
    else:
        rows = (bench_kappa_x(38_499, 7) + bench_naive([100, 200, 400, 800], 3)
                + bench_alpha(20_000, 5, 10) + bench_alpha(250_000, 5, 10))
    md = table(rows) + "\n\n" + extrapolate(rows)
    print(md)
    from bench_classic import main as classic

    classic_rows = classic(["--quick"] if args.quick else [])
    classic_md = table(classic_rows)
    print(classic_md)
    # the smoke run (--quick) starts no fresh process: the full run measures the first call
    first = None if args.quick else bench_engine.first_call(runs=3, cold_runs=2)
    counts = bench_engine.line_counts()
    targets_md = bench_engine.targets(rows + classic_rows, first, counts, quick=args.quick)
    lines_md = bench_engine.lines_table(counts)
    print(targets_md)
    print(lines_md)
    if args.write and not args.quick:
        env = (f"Python {platform.python_version()}, numpy {np.__version__}, pandas "
               f"{pd.__version__}, xarray {xr.__version__}, numba {version('numba')}, "
               f"krippendorff {version('krippendorff')}; {platform.machine()} "
               f"{platform.system()}, {os.cpu_count()} cores")
        text = (ROOT / "benchmarks" / "BENCHMARKS.template.md").read_text()
        irrcac = ("irrCAC rows timed through IRRCAC_PYTHON" if os.environ.get("IRRCAC_PYTHON")
                  else "irrCAC not timed (IRRCAC_PYTHON not set), so no irrCAC rows")
        for key, value in [("{{TABLE}}", md), ("{{CLASSIC}}", classic_md),
                           ("{{TARGETS}}", targets_md), ("{{LINES}}", lines_md),
                           ("{{ENV}}", f"{env}; {irrcac}")]:
            text = text.replace(key, value)
        old = (ROOT / "BENCHMARKS.md").read_text()
        (ROOT / "BENCHMARKS.md").write_text(keep_sections(text, old))
    return md + "\n\n" + targets_md + "\n\n" + lines_md


if __name__ == "__main__":
    main()
