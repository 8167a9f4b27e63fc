"""polars input against pandas input, and against polar-llama where it installs.

The same annotations (string item, rater and pool ids, two 4-category labels,
2 pools x 5 raters per item) as a pandas DataFrame, a polars DataFrame and a
polars LazyFrame; ``irr`` (alpha) and ``cross_kappa`` timed on each, and the
reading step alone: ``from_polars`` (the namespace's reader: numbers shared
with polars, text as Arrow-backed ``str``) against ``to_pandas()`` (what a
user did before). Memory of the reading step: how much the resident memory
of a fresh interpreter grows while it holds the pandas frame (polars copies
its text columns from its string views to Arrow ``large_string`` in both).

polar-llama's ``cohens_kappa`` / ``krippendorffs_alpha`` are not timed: its
releases with them (0.9.1) are source-only on PyPI and build with Rust from
crates.io, and its only wheel (0.1.5) predates the metrics. The script says
whether ``polar_llama`` is importable; timing it is left for a machine where
it builds.

    python benchmarks/bench_polars.py            # 1e6 and 1e7 annotations
    python benchmarks/bench_polars.py --quick    # 1e4 (smoke test)
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

import xrr_accessor  # noqa: F401  (registers .xrr, on polars too)
from xrr_accessor.polars_accessor import from_polars

RATERS_PER_POOL = 5
LABELS = ("joy", "anger")


def frame(n_annotations: int, seed: int = 0) -> pd.DataFrame:
    """Long annotations: n_annotations / (2 pools x 5 raters x 2 labels) items."""
    n_items = max(2, n_annotations // (2 * RATERS_PER_POOL * len(LABELS)))
    rng = np.random.default_rng(seed)
    n_rows = n_items * 2 * RATERS_PER_POOL
    item = np.repeat(np.arange(n_items), 2 * RATERS_PER_POOL)
    pool = np.tile(np.repeat(np.array(["A", "B"]), RATERS_PER_POOL), n_items)
    rater = rng.integers(0, 60, n_rows)
    truth = rng.integers(0, 4, (n_items, len(LABELS)))
    data = {"item": pd.Series(np.char.add("item_", item.astype(str)), dtype="str"),
            "rater": pd.Series(np.char.add("r", rater.astype(str)), dtype="str"),
            "pool": pd.Series(pool, dtype="str")}
    for j, lab in enumerate(LABELS):
        noise = rng.random(n_rows) < 0.4
        data[lab] = np.where(noise, rng.integers(0, 4, n_rows), truth[item, j]).astype(np.int8)
    df = pd.DataFrame(data)
    # one rater per (item, pool, rater) at most: ids made unique within an item's pool
    df["rater"] = df["rater"] + "_" + pd.Series(np.tile(np.arange(RATERS_PER_POOL), 2 * n_items)
                                                .astype(str), dtype="str")
    return df


def best(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up (numba cache, polars' first plan)
    times = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def _rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def reading_memory(how: str, n_annotations: int) -> float:
    """MiB the process grows by while holding ``how``'s pandas frame of the polars data,
    measured in a fresh interpreter (resident memory, so polars', Arrow's and numpy's
    allocations all count)."""
    here = str(Path(__file__).parent)
    code = (f"import sys; sys.path.insert(0, {here!r}); import bench_polars as b; "
            f"print(b._grow({how!r}, {n_annotations}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(out.stdout.split()[-1])


def _settle() -> None:
    """Give freed memory back to the system, so that resident memory measures what is held."""
    import ctypes

    import pyarrow as pa

    gc.collect()
    pa.default_memory_pool().release_unused()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:  # not glibc
        pass


def _grow(how: str, n_annotations: int) -> float:
    plf = pl.from_pandas(frame(n_annotations))
    _settle()
    before = _rss()
    view = from_polars(plf) if how == "from_polars" else plf.to_pandas()
    grown = (_rss() - before) / 2**20
    del view
    return grown


def run(n_annotations: int, repeat: int) -> list[dict]:
    pdf = frame(n_annotations)
    pdf_a = pdf[pdf["pool"] == "A"].drop(columns="pool")
    plf, plf_a = pl.from_pandas(pdf), pl.from_pandas(pdf_a)
    lazy = plf.lazy()
    n_ann = int(pdf[list(LABELS)].notna().to_numpy().sum())
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same = {  # the numbers first: polars and pandas input agree
            "alpha": (pdf_a.xrr.irr().to_numpy(), plf_a.xrr.irr()["alpha"].to_numpy()),
            "kappa_x": (pdf.xrr.cross_kappa().to_numpy().ravel(),
                        plf.xrr.cross_kappa()["kappa_x"].to_numpy()),
        }
        for name, (want, got) in same.items():
            assert np.allclose(np.sort(want), np.sort(got), rtol=1e-12), (name, want, got)
        cases = [
            ("alpha: pandas input", lambda: pdf_a.xrr.irr()),
            ("alpha: polars DataFrame", lambda: plf_a.xrr.irr()),
            ("alpha: polars, to_pandas() first", lambda: plf_a.to_pandas().xrr.irr()),
            ("kappa_x: pandas input", lambda: pdf.xrr.cross_kappa()),
            ("kappa_x: polars DataFrame", lambda: plf.xrr.cross_kappa()),
            ("kappa_x: polars LazyFrame", lambda: lazy.xrr.cross_kappa()),
            ("kappa_x: polars, to_pandas() first", lambda: plf.to_pandas().xrr.cross_kappa()),
            ("reading only: from_polars", lambda: from_polars(plf)),
            ("reading only: to_pandas()", lambda: plf.to_pandas()),
        ]
        for name, fn in cases:
            mib = (reading_memory(name.split(": ")[1].rstrip("()"), n_annotations)
                   if name.startswith("reading") else float("nan"))
            out.append({"annotations": n_ann, "case": name, "seconds": best(fn, repeat),
                        "reading MiB": mib})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1e4 annotations (smoke)")
    parser.add_argument("--write", action="store_true", help="rewrite BENCHMARKS.md's section")
    args = parser.parse_args()
    sizes, repeat = ([10_000], 1) if args.quick else ([10**6, 10**7], 3)
    rows = [r for n in sizes for r in run(n, repeat if n < 10**7 else 2)]
    table = pd.DataFrame(rows).to_markdown(index=False, floatfmt=".3f")
    try:
        import polar_llama  # noqa: F401
        have = "importable, but its metrics are not timed here"
    except ImportError:
        have = ("not installable here (0.9.1 is source-only and builds with Rust from "
                "crates.io; the 0.1.5 wheel predates its cohens_kappa / krippendorffs_alpha)")
    body = (f"{table}\n\nSeconds: best of {repeat} (2 at 1e7) after a warm-up. Reading MiB: "
            "growth of a fresh interpreter's resident memory while it holds the pandas "
            "view (from_polars) or copy (to_pandas()) of the polars frame. polar-llama: "
            f"{have}. polars {pl.__version__}, pandas {pd.__version__}.")
    print(body)
    if args.write and not args.quick:
        from sections import write_section

        write_section("polars", body, "polars input against pandas input")


if __name__ == "__main__":
    main()
