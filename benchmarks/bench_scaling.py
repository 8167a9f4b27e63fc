"""Scaling: time and peak memory against the number of annotations, in memory and
through dask, from 1e4 to 1e8 binary annotations.

The data have the shape of the issue's target: items x 2 pools x 2 raters x 5
binary labels (20 annotations per item), written to Parquet in files of whole
items (at most 250,000 items each). Every point runs in a fresh process (its
peak resident memory is that process's ``ru_maxrss``) and computes the whole
xRR table, ``summary(irr="alpha")``: alpha per pool, kappa_x and normalized
kappa_x per pool pair, for every label. Three paths:

* **in memory**: ``pd.read_parquet`` (not timed), then ``df.xrr.summary()``;
* **dask, in-memory partitions**: the same frame as a dask DataFrame indexed
  by item (``dd.from_pandas(df.set_index("item"))``, partitions of about
  1e6 annotations): the dask overhead;
* **dask from Parquet**: ``io.read_annotations(dir, lazy=True)`` then
  ``.xrr.summary().compute()``, reading included: the out-of-memory path.

Run ``python benchmarks/bench_scaling.py --write`` (rewrites the scaling
section of BENCHMARKS.md and benchmarks/scaling.png); ``--quick`` stops at 1e6.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
PER_ITEM = 20  # 2 pools x 2 raters x 5 labels
LABELS = [f"label{j}" for j in range(5)]
ITEMS_PER_FILE = 250_000
PATHS = ("memory", "dask-memory", "dask-parquet")
SHOWN = {"memory": "in memory", "dask-memory": "dask, in-memory partitions",
         "dask-parquet": "dask from Parquet"}


def write_parquet(n_ann: int, where: Path, seed: int = 0) -> None:
    """``n_ann`` binary annotations as Parquet files of whole items, made file by file."""
    n_items = n_ann // PER_ITEM
    rng = np.random.default_rng(seed)
    where.mkdir(parents=True, exist_ok=True)
    for k, lo in enumerate(range(0, n_items, ITEMS_PER_FILE)):
        hi = min(lo + ITEMS_PER_FILE, n_items)
        items = np.repeat(np.arange(lo, hi, dtype=np.int64), 4)
        n = len(items)
        frame = {"item": items,
                 "pool": np.tile(np.array(["A", "A", "B", "B"], dtype=object), hi - lo),
                 "rater": np.tile(np.array(["r1", "r2", "r1", "r2"], dtype=object), hi - lo)}
        for j, name in enumerate(LABELS):
            p = rng.beta(0.5 + j * 0.2, 2.0, hi - lo)  # per-item propensity
            frame[name] = (rng.random(n) < np.repeat(p, 4)).astype(np.int8)
        pd.DataFrame(frame).to_parquet(where / f"part-{k:04d}.parquet", index=False)


def one(path: str, where: Path, repeat: int) -> dict:
    """One point, in this process: seconds (best of ``repeat``), peak RSS, the table."""
    import warnings

    warnings.simplefilter("ignore")
    import xrr_accessor  # noqa: F401
    from xrr_accessor.io import read_annotations

    if path == "dask-parquet":
        run = lambda: read_annotations(where, lazy=True).xrr.summary(irr="alpha").compute()  # noqa: E731
    else:
        df = pd.read_parquet(where)
        if path == "memory":
            run = lambda: df.xrr.summary(irr="alpha")  # noqa: E731
        else:
            import dask.dataframe as dd

            parts = max(1, len(df) * len(LABELS) // 1_000_000)
            ddf = dd.from_pandas(df.set_index("item"), npartitions=parts)
            run = lambda: ddf.xrr(item="item").summary(irr="alpha").compute()  # noqa: E731
    result = run()  # warm-up: numba cache, dask start-up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    return {"seconds": min(times), "peak_bytes": peak,
            "values": np.asarray(result, dtype=float).ravel().tolist()}


def measure(sizes: list[int], repeat: int) -> list[dict]:
    rows = []
    tmp = Path(tempfile.mkdtemp(prefix="xrr-scaling-"))
    try:
        for n in sizes:
            where = tmp / f"n{n}"
            write_parquet(n, where)
            ref = None
            for path in PATHS:
                reps = repeat if n <= 10_000_000 else 1  # one run of seconds at 1e8
                out = subprocess.run([sys.executable, __file__, "--one", path, str(where),
                                      "--repeat", str(reps)], capture_output=True, text=True)
                if out.returncode:
                    raise RuntimeError(f"{path} at {n:,}: {out.stderr[-2000:]}")
                point = json.loads(out.stdout.strip().splitlines()[-1])
                vals = np.asarray(point.pop("values"))
                if ref is None:
                    ref = vals
                point["max_diff"] = float(np.nanmax(np.abs(vals - ref))) if len(vals) else 0.0
                rows.append({"n": n, "path": path, **point})
                print(f"{n:>12,} {path:>13}: {point['seconds']:8.3f} s, "
                      f"{point['peak_bytes'] / 2**30:5.2f} GiB, diff {point['max_diff']:.1e}",
                      flush=True)
            shutil.rmtree(where)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return rows


def slope(rows: list[dict], path: str, lo: float = 1e5) -> float:
    pts = [(r["n"], r["seconds"]) for r in rows if r["path"] == path and r["n"] >= lo]
    if len(pts) < 2:
        return float("nan")
    x, y = np.log10([p[0] for p in pts]), np.log10([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def report(rows: list[dict]) -> str:
    sizes = sorted({r["n"] for r in rows})
    at = {(r["n"], r["path"]): r for r in rows}
    lines = ["| annotations | " + " | ".join(f"{SHOWN[p]}: time" for p in PATHS)
             + " | " + " | ".join(f"{SHOWN[p]}: peak memory" for p in PATHS)
             + " | dask / in memory | same numbers |",
             "|---:|" + "---:|" * (2 * len(PATHS) + 1) + "---|"]
    for n in sizes:
        cells = [f"{at[(n, p)]['seconds']:.3f} s" for p in PATHS]
        mem = [f"{at[(n, p)]['peak_bytes'] / 2**30:.2f} GiB" for p in PATHS]
        ratio = at[(n, "dask-memory")]["seconds"] / at[(n, "memory")]["seconds"]
        same = max(at[(n, p)]["max_diff"] for p in PATHS)
        lines.append(f"| {n:,} | " + " | ".join(cells + mem) + f" | {ratio:.2f}x | "
                     f"{'yes' if same <= 1e-10 else 'NO'} (max diff {same:.0e}) |")
    big = max(sizes)
    ten = 10_000_000 if 10_000_000 in sizes else None
    goals = ["", "| target | goal | measured | met |", "|---|---|---|---|"]
    for p in PATHS:
        s = slope(rows, p)
        goals.append(f"| log-log slope of time against N, {SHOWN[p]}, 1e5 to {big:.0e} | "
                     f"<= 1.1 | {s:.2f} | {'**met**' if s <= 1.1 else '**not met**'} |")
    peak = at[(big, "dask-parquet")]["peak_bytes"] / 2**30
    goals.append(f"| peak resident memory, {big:,} annotations, dask from Parquet | < 2 GiB "
                 f"(at 1e8) | {peak:.2f} GiB | "
                 f"{('**met**' if peak < 2 else '**not met**') if big >= 1e8 else '(not run)'} |")
    if ten:
        r = at[(ten, "dask-memory")]["seconds"] / at[(ten, "memory")]["seconds"]
        goals.append(f"| dask overhead at 1e7 (in-memory partitions / in memory) | <= 2x | "
                     f"{r:.2f}x | {'**met**' if r <= 2 else '**not met**'} |")
    return "\n".join(lines + goals)


def plot(rows: list[dict], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4.2))
    for p in PATHS:
        pts = sorted((r["n"], r["seconds"], r["peak_bytes"]) for r in rows if r["path"] == p)
        n = [x[0] for x in pts]
        a.loglog(n, [x[1] for x in pts], "o-", label=f"{SHOWN[p]} (slope {slope(rows, p):.2f})")
        b.loglog(n, [x[2] / 2**30 for x in pts], "o-", label=SHOWN[p])
    lo, hi = min(r["n"] for r in rows), max(r["n"] for r in rows)
    ref = min(r["seconds"] for r in rows if r["n"] == lo)
    a.loglog([lo, hi], [ref, ref * hi / lo], ":", color="grey", label="slope 1")
    b.axhline(2, color="grey", ls=":", label="2 GiB")
    a.set(xlabel="annotations", ylabel="seconds (xRR table: IRR, kappa_x, normalized)",
          title="Time")
    b.set(xlabel="annotations", ylabel="peak resident memory (GiB)", title="Memory")
    for ax in (a, b):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--one", nargs=2, metavar=("PATH", "DIR"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--write", action="store_true")
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(args.one[0], Path(args.one[1]), args.repeat)))
        return
    sizes = [10**k for k in range(4, 7 if args.quick else 9)]
    rows = measure(sizes, args.repeat)
    text = report(rows)
    print(text)
    if args.write:
        plot(rows, ROOT / "benchmarks" / "scaling.png")
        body = (f"{os.cpu_count()} cores; every point a fresh process, best of "
                f"{args.repeat} runs up to 1e7 annotations, one run at 1e8. "
                "![scaling](benchmarks/scaling.png)\n\n" + text)
        from sections import write_section

        write_section("scaling", body, "Scaling: in memory and through dask")


if __name__ == "__main__":
    main()
