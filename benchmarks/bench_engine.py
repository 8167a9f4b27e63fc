"""Engine benchmarks: the targets of the engine rewrite, measured in the same run as the rest.

* the whole IRep-shaped Table 5 from a DataFrame, ``summary(df, irr="cohen")``;
* kappa_x from integer codes (statistics pass + finalize) against the
  hand-written single-pass kernel in ``floor.py``, on the same codes;
* Cohen's kappa and alpha at 1e6 annotations against scikit-learn and
  krippendorff (rows of ``bench_classic.py`` and ``bench_core.py``);
* the first call in a fresh process, with a warm numba cache and cold;
* the size of every module under ``src/xrr_accessor``.

:func:`bench_codes` and :func:`bench_table5` return rows for the main table
(``bench_core.py`` calls them on its IRep-shaped frame); :func:`first_call`,
:func:`line_counts` and :func:`targets` the rest. No
function here asserts a wall time: the targets are reported, met or not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from floor import kappa_x_floor

import xrr_accessor as xa
from xrr_accessor.coefficients import lookup
from xrr_accessor.engine.pipeline import Codes, annotations, make_meta, run
from xrr_accessor.engine.statistics import chunk
from xrr_accessor.errors import UndefinedWarning

ROOT = Path(__file__).resolve().parents[1]

#: ``summary(df, irr="cohen")`` on the IRep-shaped data at the previous version (the issue).
PREVIOUS_TABLE5_S = 0.231

#: What one fresh process runs: import, load the demo data, the Table 5 summary.
FIRST_CALL = ("import time; t=time.perf_counter(); import xrr_accessor as xa; "
              "from xrr_accessor.datasets import load_demo; df=load_demo(); xa.summary(df); "
              "print(time.perf_counter()-t)")

MODULE_LIMIT = 400


def _row(name: str, n_ann: int, ours: float, peer: str = "", theirs: float = np.nan,
         **extra: object) -> dict:
    return {"benchmark": name, "annotations": n_ann, "xrr_accessor_s": ours, "peer": peer,
            "peer_s": theirs, **extra}


def bench_table5(df, n_ann: int, best: Callable, repeat: int) -> list[dict]:
    """IRR (Cohen) + kappa_x + normalized kappa_x, every label and pool, one call."""
    with warnings.catch_warnings():  # rare labels' IRR <= 0: normalized is undefined there
        warnings.simplefilter("ignore", UndefinedWarning)
        seconds = best(lambda: xa.summary(df, irr="cohen"), repeat)
        report_s = best(lambda: xa.report(df), repeat)
    n_labels = df.shape[1] - 3
    n_pools = df["pool"].nunique()
    return [_row(f"Table 5 (Cohen IRR + kappa_x + normalized), {n_labels} labels x {n_pools} "
                 "pools, from a DataFrame: summary(df, irr='cohen')", n_ann, seconds,
                 key="table5"),
            _row("The same as a Report (tidy frame with counts and bands): report(df)",
                 n_ann, report_s, key="report")]


def bench_codes(df, n_ann: int, best: Callable, repeat: int) -> list[dict]:
    """kappa_x from integer codes: the library's pass + finalize against the floor kernel."""
    ann, lvl = annotations(df)
    kx = lookup("kappa_x", kind="cross")
    first = run(df, [kx], ann=ann, lvl=lvl)
    pairs = np.ascontiguousarray(first.pairs, dtype=np.int64)
    codes = Codes(ann)
    n_rep = len(ann.replications)

    def library() -> np.ndarray:
        return run(df, [kx], ann=ann, lvl=lvl).estimate(kx).value

    def floor() -> np.ndarray:
        return kappa_x_floor(codes.item, codes.replication, codes.codes, codes.n_items, n_rep,
                             ann.n_category, pairs)

    ours = library()
    np.testing.assert_allclose(ours, floor(), rtol=0, atol=1e-10)
    assert np.isfinite(ours).all()
    meta = make_meta(ann, lvl, set(kx.needs), pairs)
    lib_s = best(library, repeat)
    floor_s = best(floor, repeat)
    pass_s = best(lambda: chunk(Codes(ann), meta), repeat)
    shape = f"{ours.shape[0]} labels x {ours.shape[1]} pool pairs"
    return [
        _row(f"kappa_x, {shape}, from codes (statistics pass + finalize)", n_ann, lib_s,
             "hand-written floor kernel (benchmarks/floor.py)", floor_s, key="codes"),
        _row(f"kappa_x, {shape}, from codes, statistics pass alone (chunk)", n_ann, pass_s,
             key="pass"),
    ]


def _timed(env: dict[str, str] | None = None) -> float:
    out = subprocess.run([sys.executable, "-c", FIRST_CALL], capture_output=True, text=True,
                         check=True, env=env, timeout=600, cwd=tempfile.gettempdir())
    return float(out.stdout.strip().splitlines()[-1])


def first_call(runs: int = 3, cold_runs: int = 2) -> dict[str, Any]:
    """Seconds from ``import xrr_accessor`` to a Table 5 of the demo data, fresh processes.

    ``warm``: best of ``runs`` processes after one that fills the numba cache;
    ``cold``: best of ``cold_runs`` processes, each with ``NUMBA_CACHE_DIR`` a
    fresh empty directory (every kernel it calls compiles).
    """
    _timed()  # warm the cache
    warm = [_timed() for _ in range(runs)]
    cold = []
    for _ in range(cold_runs):
        with tempfile.TemporaryDirectory() as tmp:
            cold.append(_timed({**os.environ, "NUMBA_CACHE_DIR": tmp}))
    return {"warm": min(warm), "warm_all": warm, "cold": min(cold), "cold_all": cold}


def line_counts() -> list[tuple[str, int]]:
    """(module, lines) for every module under src/xrr_accessor, largest first."""
    base = ROOT / "src" / "xrr_accessor"
    counts = [(p.relative_to(base).as_posix(), len(p.read_text().splitlines()))
              for p in base.rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(counts, key=lambda t: (-t[1], t[0]))


def lines_table(counts: list[tuple[str, int]], columns: int = 3) -> str:
    """The module sizes, ``columns`` modules per row, those over the limit in bold."""
    cells = [(f"**{m}**", f"**{n}**") if n > MODULE_LIMIT else (m, str(n)) for m, n in counts]
    rows = -(-len(cells) // columns)
    out = ["| " + " | ".join(["module", "lines"] * columns) + " |",
           "|" + "---|---:|" * columns]
    for r in range(rows):
        line = []
        for c in range(columns):
            i = c * rows + r
            line += list(cells[i]) if i < len(cells) else ["", ""]
        out.append("| " + " | ".join(line) + " |")
    total = sum(n for _, n in counts)
    over = [m for m, n in counts if n > MODULE_LIMIT]
    out.append("")
    out.append(f"{len(counts)} modules, {total:,} lines; over {MODULE_LIMIT} lines (bold): "
               + (", ".join(over) if over else "none") + ".")
    return "\n".join(out)


def _find(rows: list[dict], test: Callable[[dict], bool]) -> dict | None:
    return next((r for r in rows if test(r)), None)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f} ms"


def _met(ok: bool | None) -> str:
    return "—" if ok is None else ("**met**" if ok else "**not met**")


def targets(rows: list[dict], first: dict[str, Any] | None,
            counts: list[tuple[str, int]], quick: bool = False) -> str:
    """The targets of the issue, each with its measured number and met / not met."""
    out = ["| target | goal | measured | met |", "|---|---|---|---|"]

    def add(what: str, goal: str, measured: str, ok: bool | None) -> None:
        out.append(f"| {what} | {goal} | {measured} | {_met(ok)} |")

    t5 = _find(rows, lambda r: r.get("key") == "table5")
    if t5:
        s = t5["xrr_accessor_s"]
        add(f"Table 5 from a DataFrame, `summary(df, irr='cohen')` "
            f"({t5['annotations']:,} annotations; issue 22)", "<= 50 ms",
            f"{_ms(s)} (previous version {_ms(PREVIOUS_TABLE5_S)}, from the issue: "
            + (f"{PREVIOUS_TABLE5_S / s:.1f}x faster)" if s <= PREVIOUS_TABLE5_S
               else f"{s / PREVIOUS_TABLE5_S:.1f}x slower)"), s <= 0.050)
    rep = _find(rows, lambda r: r.get("key") == "report")
    if rep:
        s = rep["xrr_accessor_s"]
        add("The IRep-scale report (IRR, kappa_x, normalized, counts, no intervals), "
            "`report(df)` (issue 10)", "< 300 ms", _ms(s), s < 0.300)
    codes = _find(rows, lambda r: r.get("key") == "codes")
    if codes:
        ratio = codes["xrr_accessor_s"] / codes["peer_s"]
        add("kappa_x from integer codes, library (pass + finalize) / floor kernel",
            "<= 2x the floor", f"{ratio:.2f}x ({_ms(codes['xrr_accessor_s'])} vs "
            f"{_ms(codes['peer_s'])}; equal to 1e-10)", ratio <= 2.0)

    def peer_target(label: str, prefix: str, goal: float) -> None:
        r = _find(rows, lambda r: r["benchmark"].startswith(prefix)
                  and r["annotations"] >= 900_000 and r["peer_s"] == r["peer_s"])
        if r is None:
            add(label, f">= {goal:g}x", "not measured (--quick sizes)", None)
            return
        ratio = r["peer_s"] / r["xrr_accessor_s"]
        add(label, f">= {goal:g}x", f"{ratio:.1f}x ({_ms(r['xrr_accessor_s'])} vs "
            f"{_ms(r['peer_s'])})", ratio >= goal)

    peer_target("Cohen's kappa, 1e6 annotations, vs scikit-learn (DataArray)",
                "Cohen's kappa, 2 raters", 2)
    peer_target("Cohen's kappa, 1e6 annotations, vs scikit-learn (Dataset variable)",
                "Cohen's kappa, 2 raters (Dataset", 2)
    for level, goal in (("nominal", 5), ("ordinal", 5), ("interval", 4)):  # issue 22: 5x
        peer_target(f"alpha ({level}), 1e6 annotations, vs krippendorff",
                    f"alpha, {level}, ", goal)
    if first is None:
        for what, goal in (("First call in a fresh process, warm numba cache (import + "
                            "load_demo + summary)", "<= 1 s"),
                           ("... cold: NUMBA_CACHE_DIR a fresh empty directory (every kernel "
                            "compiles)", "<= 3 s")):
            add(what, goal, "not measured (--quick)", None)
    else:
        warm = first["warm"]
        runs = ", ".join(f"{t:.2f}" for t in first["warm_all"])
        add("First call in a fresh process, warm numba cache (import + load_demo + summary)",
            "<= 1 s", f"{warm:.2f} s (best of {len(first['warm_all'])}: {runs} s)",
            warm <= 1.0)
        colds = first.get("cold_all", [first["cold"]])
        add("... cold: NUMBA_CACHE_DIR a fresh empty directory (every kernel compiles)",
            "<= 3 s", f"{first['cold']:.2f} s (best of {len(colds)}: "
            + ", ".join(f"{t:.2f}" for t in colds) + " s)", first["cold"] <= 3.0)
    if counts:
        module, n = counts[0]
        over = sum(1 for _, k in counts if k > MODULE_LIMIT)
        add("Largest module under src/xrr_accessor",
            f"<= about {MODULE_LIMIT} lines (read as <= {MODULE_LIMIT * 21 // 20})",
            f"{module}: {n} lines ({over} module(s) over {MODULE_LIMIT})",
            n <= MODULE_LIMIT * 21 // 20)
    if quick:
        out.append("")
        out.append("(--quick: tiny sizes, the met / not met column says nothing.)")
    return "\n".join(out)

