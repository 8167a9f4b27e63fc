"""dask at any partitioning, and bootstrap intervals through dask.

The data of ``bench_scaling.py`` (items x 2 pools x 2 raters x 5 binary labels,
Parquet files of whole items). Every point runs in a fresh process (peak
resident memory from ``ru_maxrss``; the second of two runs is timed) and
computes ``summary(irr="alpha")``:

* **in memory**: ``df.xrr.summary()``;
* **dask, item-partitioned**: ``dd.from_pandas(df.set_index("item"))``, known
  divisions: one survey pass and one statistics pass;
* **dask, whole items, divisions unknown**: ``read_annotations(dir, lazy=True)``
  (files of whole items): the survey finds no split item, and the statistics
  pass reads the same partitions;
* **dask, split items**: the rows in random order, ``dd.from_pandas(rows,
  npartitions=...)``: every item spans partitions, the survey finds it, and
  the library shuffles by item before both passes.

``--boot N [N ...]`` times 1,000 bootstrap replicates of kappa_x (BCa) through dask
from Parquet at N annotations, against the same call in memory (``--write``: 1e6 and
1e8).
``python benchmarks/bench_dask_split.py [--sizes 1e5 1e6 1e7] [--boot 1e6 1e8]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scaling import LABELS, write_parquet

PATHS = ("memory", "dask-by-item", "dask-whole", "dask-split")
SHOWN = {"memory": "in memory", "dask-by-item": "dask, item-partitioned",
         "dask-whole": "dask, whole items, divisions unknown",
         "dask-split": "dask, split items (shuffled by the library)"}


def one(path: str, where: Path, boot: bool) -> dict:
    import warnings

    warnings.simplefilter("ignore")
    import dask.dataframe as dd

    import xrr_accessor  # noqa: F401
    from xrr_accessor.io import read_annotations

    parts = None
    if boot:
        kw = dict(ci=0.95, n_boot=1000, seed=0, progress=False)
        if path == "memory":
            df = pd.read_parquet(where)
            run = lambda: df.xrr.cross_kappa(**kw)  # noqa: E731
        else:
            lazy = read_annotations(where, lazy=True)
            run = lambda: lazy.xrr.cross_kappa(**kw).compute()  # noqa: E731
    elif path == "dask-whole":
        lazy = read_annotations(where, lazy=True)
        run = lambda: lazy.xrr.summary(irr="alpha").compute()  # noqa: E731
    else:
        df = pd.read_parquet(where)
        parts = max(2, len(df) * len(LABELS) // 1_000_000)
        if path == "memory":
            run = lambda: df.xrr.summary(irr="alpha")  # noqa: E731
        elif path == "dask-by-item":
            ddf = dd.from_pandas(df.set_index("item"), npartitions=parts)
            run = lambda: ddf.xrr(item="item").summary(irr="alpha").compute()  # noqa: E731
        else:
            rows = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
            ddf = dd.from_pandas(rows, npartitions=parts, sort=False)
            run = lambda: ddf.xrr.summary(irr="alpha").compute()  # noqa: E731
    run()  # warm-up: numba's cache, dask's start-up
    t = time.perf_counter()
    result = run()
    seconds = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"seconds": seconds, "peak_bytes": peak,
            "values": np.asarray(result, dtype=float).ravel().tolist()}


def point(path: str, where: Path, boot: bool) -> dict:
    args = [sys.executable, __file__, "--one", path, str(where)] + (["--as-boot"] if boot
                                                                    else [])
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{path}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--one", nargs=2, metavar=("PATH", "DIR"))
    p.add_argument("--as-boot", action="store_true")
    p.add_argument("--sizes", type=float, nargs="*", default=[1e5, 1e6, 1e7])
    p.add_argument("--boot", type=float, nargs="*", default=None)
    p.add_argument("--write", action="store_true",
                   help="rewrite the 'dask_split' section of BENCHMARKS.md")
    args = p.parse_args()
    if args.write and args.boot is None:  # the section reports the bootstrap too
        args.boot = [1e6, 1e8]
    if args.one:
        print(json.dumps(one(args.one[0], Path(args.one[1]), args.as_boot)))
        return
    tmp = Path(tempfile.mkdtemp(prefix="xrr-split-"))
    lines = ["| annotations | path | time | peak memory | max difference from in memory |",
             "|---:|---|---:|---:|---:|"]

    def emit(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    try:
        for n in map(int, args.sizes):
            where = tmp / f"n{n}"
            write_parquet(n, where)
            ref = None
            for path in PATHS:
                pt = point(path, where, False)
                vals = np.asarray(pt.pop("values"))
                ref = vals if ref is None else ref
                diff = float(np.nanmax(np.abs(vals - ref)))
                emit(f"| {n:,} | {SHOWN[path]} | {pt['seconds']:.2f} s | "
                     f"{pt['peak_bytes'] / 2**30:.2f} GiB | {diff:.0e} |")
            shutil.rmtree(where)
        for n in map(int, args.boot or []):
            where = tmp / f"boot{n}"
            write_parquet(n, where)
            ref = None
            for path in ("memory", "dask-whole"):
                pt = point(path, where, True)
                vals = np.asarray(pt.pop("values"))
                ref = vals if ref is None else ref
                diff = float(np.nanmax(np.abs(vals - ref)))
                emit(f"| {n:,} | 1,000 replicates of kappa_x (BCa), {SHOWN[path]} | "
                     f"{pt['seconds']:.2f} s | {pt['peak_bytes'] / 2**30:.2f} GiB | "
                     f"{diff:.0e} |")
            shutil.rmtree(where)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.write:
        from sections import write_section

        note = ("Generated by `python benchmarks/bench_dask_split.py --write` "
                f"(sizes {', '.join(f'{s:.0e}' for s in args.sizes)}"
                + (f"; bootstrap at {', '.join(f'{b:.0e}' for b in args.boot)}"
                   if args.boot else "") + "): "
                "`summary(irr='alpha')` on the data of the scaling section, each point a "
                "fresh process, the second of two runs timed, peak resident memory from "
                "ru_maxrss; the last column compares every number with the in-memory "
                "result (intervals: the same seed).")
        write_section("dask_split", note + "\n\n" + "\n".join(lines),
                      "dask at any partitioning, and intervals through dask")


if __name__ == "__main__":
    main()
