"""Every size and every input layout against the peers, with the spread of repeated runs.

    python benchmarks/bench_speed.py            # print the table
    python benchmarks/bench_speed.py --write    # and rewrite its BENCHMARKS.md section
    python benchmarks/bench_speed.py --quick    # tiny sizes, one run (the test's smoke run)

Each row names its data shape (annotations, raters, items, categories) and the layout our
call starts from: a long DataFrame (one row per annotation: the layout exports have), a
raters x items DataArray (the layout the array peers take), or a polars frame. The peer
always starts from its own natural input (a raters x items array for krippendorff, two
label vectors for scikit-learn, a count table for statsmodels, a long frame for pingouin,
triples for nltk), built outside the timing. Both sides are timed in the same process,
interleaved: ``runs`` times (3), each the best of ``repeat`` calls after a warm-up; the
table gives the median of the runs and their range, and the ratio of the medians. Every
row first checks both sides give the same number (1e-9).

The cold-start rows time fresh processes, before (the commit named by ``--before``, run
from a git worktree) and after (this checkout): ``import xrr_accessor`` with pandas already
imported; the first ``irr()`` with a warm numba cache and with an empty one; the first
``report(ci=0.95)`` with an empty cache.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

import xrr_accessor as xa

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: The last commit before issue 35's work: the "before" of the cold-start rows.
BEFORE = "af9d4a6"


def timings(ours: Callable[[], object], peer: Callable[[], object] | None, runs: int,
            repeat: int) -> tuple[list[float], list[float]]:
    """``runs`` timings of each side, interleaved, each the best of ``repeat`` calls."""
    ours()
    if peer is not None:
        peer()
    mine: list[float] = []
    theirs: list[float] = []
    for _ in range(runs):
        for fn, out in ((ours, mine), (peer, theirs)):
            if fn is None:
                continue
            best = np.inf
            for _ in range(repeat):
                t = time.perf_counter()
                fn()
                best = min(best, time.perf_counter() - t)
            out.append(best)
    return mine, theirs


def _same(a: Any, b: Any, what: str) -> None:
    """Both sides' numbers equal to 1e-9 (arrays elementwise), or an error naming the row."""
    gap = np.max(np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)))
    if not gap < 1e-9:
        raise AssertionError(f"{what}: ours {a} vs peer {b}")


def matrix(n_ann: int, n_raters: int, k: int, seed: int = 0) -> np.ndarray:
    """raters x items, complete, ratings in 0..k-1 that agree 60% of the time."""
    rng = np.random.default_rng(seed)
    n = n_ann // n_raters
    truth = rng.integers(0, k, n)
    return np.where(rng.random((n_raters, n)) < 0.6, truth, rng.integers(0, k, (n_raters, n)))


def long_of(mat: np.ndarray) -> pd.DataFrame:
    """The long frame of a raters x items matrix: item, rater, value."""
    n_r, n_i = mat.shape
    return pd.DataFrame({"item": np.tile(np.arange(n_i), n_r),
                         "rater": np.repeat(np.arange(n_r), n_i), "value": mat.reshape(-1)})


def layouts(mat: np.ndarray, which: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "long DataFrame" in which:
        out["long DataFrame"] = long_of(mat)
    if "DataArray" in which:
        out["DataArray"] = xr.DataArray(mat, dims=("rater", "item"))
    if "polars" in which:
        import polars as pl

        out["polars"] = pl.from_pandas(long_of(mat))
    return out


class Rows:
    """The table's rows, each timed and checked as it is added."""

    def __init__(self, runs: int, repeat: int) -> None:
        self.runs, self.repeat, self.rows = runs, repeat, []

    def add(self, name: str, shape: str, layout: str, ours: Callable[[], Any], peer_name: str,
            peer: Callable[[], Any] | None, value: Callable[[Any], float] | None = None,
            peer_value: Callable[[Any], float] | None = None, repeat: int | None = None,
            ) -> None:
        if peer is not None:  # every peer row is checked equal before it is timed
            if value is None or peer_value is None:
                raise ValueError(f"{name}: a row with a peer needs value= and peer_value=")
            _same(value(ours()), peer_value(peer()), name)
        mine, theirs = timings(ours, peer, self.runs, repeat or self.repeat)
        self.rows.append({"benchmark": name, "shape": shape, "layout": layout,
                          "ours": mine, "peer": peer_name, "theirs": theirs})
        print(_line(self.rows[-1]), flush=True)


def _quiet(fn: Callable[[], Any]) -> Callable[[], Any]:
    def call() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn()
    return call


def alpha_rows(rows: Rows, sizes: list[int], quick: bool) -> None:
    import krippendorff

    for level, k in (("nominal", 4), ("ordinal", 5), ("interval", 7)):
        for n in sizes:
            mat = matrix(n, 5, k)
            fl = mat.astype(float)
            shape = f"{mat.size:,} = 5 raters x {mat.shape[1]:,} items, {k} values"
            which = ("long DataFrame", "DataArray", "polars") if level == "nominal" else (
                "long DataFrame", "DataArray")
            for layout, data in layouts(mat, which).items():
                rows.add(f"alpha, {level}", shape, layout,
                         lambda d=data, lv=level: _irr(d, level=lv), "krippendorff",
                         lambda lv=level, m=fl: krippendorff.alpha(reliability_data=m,
                                                                   level_of_measurement=lv),
                         float, float)
    n, k = (2_000, 200) if quick else (1_000_000, 10_000)
    rng = np.random.default_rng(3)
    items = n // 5
    truth = rng.integers(0, k, items)
    mat = np.clip(truth + rng.integers(-50, 51, (5, items)), 0, k - 1)
    n_values = len(np.unique(mat))
    data = long_of(mat)
    for level in ("ordinal", "ratio"):
        rows.add(f"alpha, {level}, many distinct values", f"{mat.size:,} = 5 raters x "
                 f"{items:,} items, {n_values:,} distinct values", "long DataFrame",
                 lambda lv=level: _irr(data, level=lv), "(krippendorff cannot: a K x K matrix)",
                 None, repeat=3)


def _irr(data: Any, **kw: Any) -> float:
    got = data.xrr.irr(**kw)
    if type(got).__module__.startswith("polars"):  # a tidy polars frame: the value column
        return float(got.get_column(got.columns[-1])[0])
    return float(np.asarray(got).ravel()[0])


def cohen_rows(rows: Rows, sizes: list[int]) -> None:
    from sklearn.metrics import cohen_kappa_score

    for n in sizes:
        mat = matrix(n, 2, 4)
        shape = f"{mat.size:,} = 2 raters x {mat.shape[1]:,} items, 4 categories"
        a, b = mat
        for layout, data in layouts(mat, ("long DataFrame", "DataArray", "polars")).items():
            rows.add("Cohen's kappa", shape, layout,
                     lambda d=data: _irr(d, metric="cohen"), "scikit-learn",
                     lambda a=a, b=b: cohen_kappa_score(a, b), float, float)


def fleiss_rows(rows: Rows, sizes: list[int]) -> None:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    for n in sizes:
        mat = matrix(n, 5, 4)
        shape = f"{mat.size:,} = 5 raters x {mat.shape[1]:,} items, 4 categories"
        ratings = np.ascontiguousarray(mat.T)  # items x raters, as statsmodels takes them
        for layout, data in layouts(mat, ("long DataFrame", "DataArray")).items():
            rows.add("Fleiss' kappa", shape, layout, lambda d=data: _irr(d, metric="fleiss"),
                     "statsmodels (aggregate_raters + fleiss_kappa)",
                     lambda r=ratings: fleiss_kappa(aggregate_raters(r)[0]), float, float)


def icc_rows(rows: Rows, sizes: list[int]) -> None:
    import pingouin as pg

    for n in sizes:
        mat = matrix(n, 5, 5) + np.random.default_rng(1).normal(0, 0.5, (5, n // 5))
        shape = f"{mat.size:,} = 5 raters x {mat.shape[1]:,} items, continuous"
        long = long_of(mat)
        peer = _quiet(lambda lg=long: pg.intraclass_corr(lg, targets="item", raters="rater",
                                                         ratings="value"))
        for layout, data in layouts(mat, ("long DataFrame", "DataArray")).items():
            rows.add("ICC, all six forms", shape, layout,
                     _quiet(lambda d=data: d.xrr.irr(metric="icc", form="all")),
                     "pingouin (one call: six forms)", peer,
                     lambda got: np.asarray(got, dtype=float).ravel()[:6],  # the six forms
                     lambda got: got["ICC"].to_numpy(dtype=float))


def set_rows(rows: Rows, sizes: list[int]) -> None:
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import jaccard_distance, masi_distance

    rng = np.random.default_rng(5)
    labels = np.array(list("abcdef"))
    for n in sizes:
        items, raters = n // 3, 3
        # labels as Python str, as every reader gives them (numpy's str_ keeps its text
        # in a buffer of its own, a per-label cost no export carries)
        cells = [frozenset(labels[rng.random(6) < 0.35].tolist()) or frozenset("a")
                 for _ in range(items * raters)]
        long = pd.DataFrame({"item": np.repeat(np.arange(items), raters),
                             "rater": np.tile(np.arange(raters), items),
                             "tags": [sorted(c) for c in cells]})
        triples = [(str(r), str(i), c) for (i, r), c in
                   zip(long[["item", "rater"]].itertuples(index=False), cells, strict=True)]
        shape = f"{n:,} = 3 raters x {items:,} items, sets of 6 labels"
        for level, dist in (("masi", masi_distance), ("jaccard", jaccard_distance)):
            rows.add(f"alpha, {level} (label sets)", shape, "long DataFrame",
                     lambda lv=level, lg=long: _irr(lg, level=lv), "nltk",
                     lambda d=dist, t=triples: AnnotationTask(t, distance=d).alpha(), float,
                     float,
                     repeat=1)


def items_rows(rows: Rows, sizes: list[int]) -> None:
    for n in sizes:
        mat = matrix(n, 4, 7).astype(float)
        long = long_of(mat)
        shape = f"{mat.size:,} = 4 ratings x {mat.shape[1]:,} items"
        rows.add("item_disagreement (interval), whole table", shape, "long DataFrame",
                 lambda lg=long: xa.item_disagreement(lg, level="interval"),
                 "pandas groupby('item').var()",
                 lambda lg=long: lg.groupby("item")["value"].var(),
                 # D_i is the root mean squared difference of the item's pairs: sqrt(2 var)
                 lambda got: got["disagreement"].sort_index().to_numpy(),
                 lambda var: np.sqrt(2.0 * var.sort_index().to_numpy()))


COLD = {
    "import xrr_accessor, pandas and xarray already imported":
        "import pandas, xarray, time; t = time.perf_counter(); import xrr_accessor; "
        "print(time.perf_counter() - t)",
    "first irr() in a process (import included)":
        "import time; t = time.perf_counter(); import pandas as pd, xrr_accessor; "
        "df = pd.DataFrame({'item': [1, 1, 2, 2, 3, 3], 'rater': [1, 2] * 3, "
        "'v': [1, 1, 0, 0, 1, 0]}); df.xrr.irr(); print(time.perf_counter() - t)",
    "first report(ci=0.95) of the demo (import included)":
        "import time, warnings; warnings.simplefilter('ignore'); t = time.perf_counter(); "
        "import xrr_accessor as xa; from xrr_accessor.datasets import load_demo; "
        "xa.report(load_demo(), ci=0.95, seed=1, n_boot=200); "
        "print(time.perf_counter() - t)",
}


def _fresh(code: str, src: Path, cache: str | None) -> float:
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "HOME": tempfile.gettempdir()}
    if cache:
        env["NUMBA_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=900, cwd=tempfile.gettempdir(), check=True)
    return float(out.stdout.strip().splitlines()[-1])


def cold_rows(before: str, runs: int) -> list[dict]:
    """Fresh processes, before (a worktree at ``before``) and after (this checkout)."""
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree),
                        before], check=True, capture_output=True)
        try:
            for name, code in COLD.items():
                for cache in ("warm", "empty"):
                    if name.startswith("import") and cache == "empty":
                        continue
                    got = {}
                    for tag, src in (("before", tree / "src"), ("after", ROOT / "src")):
                        times = []
                        warm_dir = Path(tmp) / f"cache-{tag}"
                        for r in range(runs):
                            if cache == "warm":
                                _fresh(code, src, str(warm_dir))  # fills the cache
                                times.append(_fresh(code, src, str(warm_dir)))
                            else:
                                times.append(_fresh(code, src, str(Path(tmp) / f"e{tag}{r}")))
                        got[tag] = times
                    row = {"benchmark": name, "shape": f"numba cache {cache}",
                           "layout": "fresh process", "ours": got["after"],
                           "peer": f"this library at {before} (before)",
                           "theirs": got["before"]}
                    print(_line(row), flush=True)
                    out.append(row)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(tree)], capture_output=True)
    return out


def _fmt(seconds: list[float]) -> str:
    if not seconds:
        return ""
    med = statistics.median(seconds)
    unit, scale = ("s", 1.0) if med >= 1 else ("ms", 1e3)
    lo, hi = min(seconds) * scale, max(seconds) * scale
    digits = 2 if med * scale < 10 else 1
    return f"{med * scale:.{digits}f} {unit} ({lo:.{digits}f}-{hi:.{digits}f})"


def _ratio(row: dict) -> str:
    if not row["theirs"]:
        return ""
    r = statistics.median(row["theirs"]) / statistics.median(row["ours"])
    return f"**{r:.1f}x**" if r >= 1 else f"{r:.2f}x (slower)"


def _line(row: dict) -> str:
    return (f"| {row['benchmark']} | {row['shape']} | {row['layout']} | {_fmt(row['ours'])} | "
            f"{row['peer']} | {_fmt(row['theirs'])} | {_ratio(row)} |")


def table(rows: list[dict]) -> str:
    head = ("| benchmark | data | our input | xrr_accessor: median (range) | peer | "
            "peer: median (range) | speed-up (peer / ours, medians) |\n"
            "|---|---|---|---:|---|---:|---:|")
    return "\n".join([head, *map(_line, rows)])


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--before", default=BEFORE)
    args = p.parse_args(argv)
    runs, repeat = (1, 1) if args.quick else (3, 5)
    small = [1_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
    rows = Rows(runs, repeat)
    alpha_rows(rows, small, args.quick)
    cohen_rows(rows, small)
    fleiss_rows(rows, small)
    icc_rows(rows, [1_000] if args.quick else [10_000, 100_000, 1_000_000])
    set_rows(rows, [600] if args.quick else [6_000, 60_000])
    items_rows(rows, [1_000] if args.quick else [10_000, 100_000, 1_000_000])
    cold = [] if args.quick else cold_rows(args.before, 3)
    md = table(rows.rows) + ("\n\nCold start (fresh processes; before = this library at "
                             f"{args.before}, the peer column):\n\n" + table(cold)
                             if cold else "")
    if args.write:
        sys.path.insert(0, str(HERE))
        from sections import write_section

        write_section("speed", md, "Every size and layout against the peers (issue 35)")
    return md


if __name__ == "__main__":
    print(main())
