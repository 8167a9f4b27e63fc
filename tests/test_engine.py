"""The engine: additive statistics, item weights, the registry, one shape policy.

* Additivity: the statistics of two disjoint sets of items add up to those of
  the whole, and every registered coefficient finalized from the sum equals
  the whole-data result (1e-12), in every form (vector, matrix, moments).
* Weights: an integer item weight gives the statistics of the data with that
  item repeated that many times.
* The registry: every entry is reachable from the public functions, the CLI
  and the agreement table, and a fake entry shows up everywhere by itself.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.coefficients import REGISTRY, Coefficient, lookup, register
from xrr_accessor.coefficients import alpha as alpha_module
from xrr_accessor.coefficients.registry import finalize
from xrr_accessor.engine import statistics
from xrr_accessor.engine.additive import Stats, combine
from xrr_accessor.engine.pipeline import Codes, run
from xrr_accessor.engine.statistics import chunk, columns
from xrr_accessor.errors import DroppedDataWarning, UndefinedWarning

from helpers import annotation_frames

#: (level or weights, entries computed at it)
FORMS = [
    ("nominal", ["alpha", "iota", "kappa_x", "normalized_kappa_x"]),
    ("ordinal", ["alpha", "iota", "kappa_x", "normalized_kappa_x"]),
    ("interval", ["alpha", "iota", "icc", "kappa_x", "normalized_kappa_x"]),
    ("unweighted", ["percent", "scott", "fleiss", "conger", "bp", "gwet", "light", "cohen"]),
    ("linear", ["percent", "scott", "fleiss", "conger", "bp", "gwet", "light"]),
]


def _entries(names: list[str]) -> list[Coefficient]:
    return [lookup(n, kind=None) for n in names]


def _run(df: pd.DataFrame, level: str, names: list[str]):
    lvl = xa.engine.levels.resolve_weights(level) if level in ("unweighted", "linear") else level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return run(df, _entries(names), level=lvl, replication="pool")


class _Subset:
    """The rows of some items (same codes, same number of items)."""

    def __init__(self, codes: Codes, rows: np.ndarray) -> None:
        self.item, self.rater = codes.item[rows], codes.rater[rows]
        self.replication, self.codes = codes.replication[rows], codes.codes[:, rows]
        self.n_items = codes.n_items


def _finalized(result, stats: Stats, names: list[str]) -> dict[str, np.ndarray]:
    out = {}
    for name in names:
        entry = lookup(name, kind=None)
        params = {"irr": "alpha"} if name == "normalized_kappa_x" else {}
        raters = (result.stats["strata_rater"].sum(axis=(2, 4)) > 0).sum(-1)
        if name == "cohen" and raters.max() > 2:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = finalize(entry, stats, result.ctx, params).value
    return out


@settings(max_examples=40, deadline=None)
@given(df=annotation_frames(min_reps=2, max_raters=4), form=st.sampled_from(FORMS),
       cut=st.floats(0.0, 1.0))
def test_statistics_add_over_disjoint_item_sets(df, form, cut):
    level, names = form
    result = _run(df, level, names)
    codes = Codes(result.ann)
    first = codes.item < int(cut * codes.n_items)
    parts = [chunk(_Subset(codes, np.flatnonzero(m)), result.ctx.meta) for m in (first, ~first)]
    total = combine(parts)  # parts[0] + parts[1]
    for name, arr in result.stats.arrays.items():
        np.testing.assert_allclose(total[name], arr, rtol=1e-12, atol=1e-9, err_msg=name)
    whole = _finalized(result, result.stats, names)
    added = _finalized(result, total, names)
    for name in whole:
        np.testing.assert_allclose(added[name], whole[name], rtol=1e-12, atol=1e-12,
                                   equal_nan=True, err_msg=name)


class _Repeated:
    """The rows of item i written out weight[i] times, each copy a new item."""

    def __init__(self, codes: Codes, weight: np.ndarray) -> None:
        rows = np.flatnonzero(weight[codes.item] > 0)
        times = weight[codes.item[rows]]
        rows = np.repeat(rows, times)
        copy = np.concatenate([np.arange(t) for t in times]) if len(times) else rows
        self.item = codes.item[rows] * int(weight.max(initial=1)) + copy
        self.rater, self.replication = codes.rater[rows], codes.replication[rows]
        self.codes = codes.codes[:, rows]
        self.n_items = codes.n_items * int(weight.max(initial=1))


@settings(max_examples=40, deadline=None)
@given(df=annotation_frames(min_reps=2, max_raters=4), form=st.sampled_from(FORMS),
       seed=st.integers(0, 2**16))
def test_integer_weights_are_repeated_items(df, form, seed):
    level, names = form
    result = _run(df, level, names)
    codes = Codes(result.ann)
    weight = np.random.default_rng(seed).integers(0, 4, codes.n_items)
    weighted = chunk(codes, result.ctx.meta, weight=weight)
    repeated = chunk(_Repeated(codes, weight), result.ctx.meta)
    for name, arr in repeated.arrays.items():
        np.testing.assert_allclose(weighted[name], arr, rtol=1e-12, atol=1e-9, err_msg=name)
    assert any(v.any() for v in weighted.arrays.values()) == bool(weight.any())


def test_weights_change_the_estimate_like_resampling():
    """A bootstrap-style weight vector gives the coefficient of the resampled data."""
    df = xa.datasets.simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=4)
    result = run(df, [lookup("kappa_x", kind="cross")])
    ann = result.ann
    rng = np.random.default_rng(0)
    draw = rng.integers(0, len(ann.items), len(ann.items))
    weight = np.bincount(draw, minlength=len(ann.items))
    stats = chunk(Codes(ann), result.ctx.meta, weight=weight)
    got = finalize(lookup("kappa_x", kind="cross"), stats, result.ctx, {}).value[0, 0]
    resampled = pd.concat([df[df["item_id"] == ann.items[i]].assign(item_id=f"{k}")
                           for k, i in enumerate(draw)], ignore_index=True)
    assert got == pytest.approx(float(resampled.xrr.cross_kappa().iloc[0, 0]), abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(df=annotation_frames(min_reps=2, max_raters=4, max_items=30),
       form=st.sampled_from(FORMS), seed=st.integers(0, 2**16))
def test_item_blocks_in_threads_equal_one_pass(df, form, seed):
    """With fewer labels than cores a pass splits the items over threads and adds
    the blocks: the same statistics as one serial pass, one or C weight columns."""
    level, names = form
    result = _run(df, level, names)
    codes, meta = Codes(result.ann), result.ctx.meta
    assume(codes.n_items >= 3)
    rng = np.random.default_rng(seed)
    real = statistics._pass
    with pytest.MonkeyPatch.context() as mp:  # three 'cores', blocks from 3 annotations on
        blocks: list[int] = []
        mp.setattr(statistics, "cores", lambda: 3)
        mp.setattr(statistics, "PARALLEL_MIN_ROWS", 3)
        mp.setattr(statistics, "_pass", lambda r, *a: blocks.append(r.n_items) or real(r, *a))
        for weight in (None, rng.integers(0, 3, (codes.n_items, 4)).astype(float)):
            blocks.clear()
            split = columns(codes, meta, weight=weight, parallel=True)
            assert len(blocks) == 3 and sum(blocks) == codes.n_items  # split, whole
            serial = columns(codes, meta, weight=weight, parallel=False)
            for name, arr in serial.items():
                np.testing.assert_allclose(split[name], arr, rtol=1e-12, atol=1e-12,
                                           err_msg=name)


def test_stats_keep_no_reference_to_the_annotations():
    df = xa.datasets.simulate(n_items=50, labels=["joy"], pools=["A", "B"], seed=1)
    stats = run(df, list(REGISTRY.values()), reference=None).stats
    assert set(vars(stats)) == {"arrays"}
    assert all(isinstance(v, np.ndarray) for v in stats.arrays.values())


# ----------------------------------------------------------------------- the registry


def _frame() -> pd.DataFrame:
    """Two pools x two raters x 40 items that mostly agree with a per-item truth."""
    rng = np.random.default_rng(3)
    n = 40
    joy, awe = rng.integers(0, 3, n), rng.integers(0, 2, n)

    def noisy(truth: np.ndarray, k: int) -> np.ndarray:
        return np.where(rng.random(n) < 0.8, truth, rng.integers(0, k, n))

    rows = [pd.DataFrame({"item": np.arange(n), "rater": r, "pool": p,
                          "joy": noisy(joy, 3), "awe": noisy(awe, 2)})
            for p in ("X", "Y") for r in ("a", "b")]
    return pd.concat(rows, ignore_index=True)


def _cli_irr_choices(capsys) -> str:
    with pytest.raises(SystemExit):
        main(["irr", "--help"])
    return capsys.readouterr().out


def test_every_entry_is_reachable(capsys):
    df = _frame()
    help_text = _cli_irr_choices(capsys)
    table = df.xrr(replication="pool").agreement_table()
    for entry in REGISTRY.values():
        if entry.kind == "irr":
            level = "interval" if entry.weighting == "interval" else "nominal"
            out = xa.irr(df, metric=entry.name, level=level, replication="pool")
            assert out.attrs["metric"] == entry.name
            assert entry.name in help_text and entry.description[:30] in help_text
            if entry.in_table and entry.name != "cohen":
                assert entry.name in table.index.get_level_values("metric")
        elif entry.name == "kappa_x":
            assert xa.cross_kappa(df, replication="pool").attrs["metric"] == "kappa_x"
        else:
            assert xa.normalized(df, replication="pool").attrs["metric"] == entry.name
    normalizing = [e.name for e in REGISTRY.values() if e.normalizes]
    with pytest.raises(SystemExit):
        main(["summary", "--help"])
    summary_help = capsys.readouterr().out
    assert all(n in summary_help for n in normalizing)


def test_a_new_entry_appears_everywhere(monkeypatch, capsys):
    """Adding a coefficient is one register() call plus its finalize."""
    monkeypatch.setitem(REGISTRY, "halfalpha", None)  # restored by monkeypatch
    fake = register(Coefficient(
        "halfalpha", "irr",
        lambda stats, ctx: _halved(alpha_module.alpha(stats, ctx)),
        frozenset({"within"}), "level", ("nominal",), "nobody (2026)",
        "half of Krippendorff's alpha, for this test", aliases=("half",),
        normalizes=True, in_table=True))
    df = _frame()
    alpha = xa.irr(df, replication="pool")
    got = xa.irr(df, metric="Half", replication="pool")
    np.testing.assert_allclose(got.to_numpy(), alpha.to_numpy() / 2)
    assert fake.name in _cli_irr_choices(capsys)
    table = df.xrr(replication="pool").agreement_table(weights="unweighted")
    assert "halfalpha" in table.index.get_level_values("metric")
    assert xa.per_category(df, metric="halfalpha", replication="pool").notna().all().all()
    norm = xa.normalized(df, irr="halfalpha", replication="pool")
    np.testing.assert_allclose(norm.to_numpy(),
                               2 * xa.normalized(df, replication="pool").to_numpy())
    with pytest.raises(SystemExit):
        main(["summary", "--help"])
    assert "halfalpha" in capsys.readouterr().out


def _halved(est):
    est.value = est.value / 2
    return est


def test_metric_names_forgive_case_and_aliases():
    df = _frame()
    base = xa.irr(df, metric="fleiss", replication="pool")
    for name in ("Fleiss", "FLEISS", "fleiss_kappa", "Fleiss' kappa".replace("'", "")):
        pd.testing.assert_frame_equal(xa.irr(df, metric=name, replication="pool"), base)
    alpha = xa.irr(df, replication="pool")
    pd.testing.assert_frame_equal(xa.irr(df, metric="Krippendorff", replication="pool"), alpha)
    pd.testing.assert_frame_equal(xa.irr(df, metric="AC1", replication="pool"),
                                  xa.irr(df, metric="gwet", replication="pool"))
    with pytest.raises(xa.InputError, match="unknown metric 'kapa'; use one of"):
        xa.irr(df, metric="kapa")


# ------------------------------------------------------------------ warnings and shapes


def test_warnings_point_at_the_callers_line():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2, "joy": [1, 1, 1, 1]})
    with pytest.warns(UndefinedWarning) as record:
        df.xrr.irr()
    assert record[0].filename == __file__
    with pytest.warns(UndefinedWarning) as record:
        xa.irr(df)
    assert record[0].filename == __file__


def test_dropped_items_warning_names_the_right_labels():
    """Only label 'b' loses an item to listwise deletion: the warning says 'b', not 'a'."""
    df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3], "rater": list("xyz") * 3,
                       "a": [0, 1, 0, 1, 1, 1, 0, 0, 1],
                       "b": [0, 1, 0, 1, np.nan, 1, 0, 0, 1]})
    with pytest.warns(DroppedDataWarning, match=r"label 'b': 1") as record:
        out = df.xrr.irr(metric="iota")
    assert "label 'a'" not in str(record[0].message)
    assert out.attrs["n_dropped"] == {"a": 0, "b": 1}


def test_one_shape_policy_across_entry_points():
    df = _frame().rename(columns={"pool": "replication"})
    irr, kx, norm = df.xrr.irr(), df.xrr.cross_kappa(), df.xrr.normalized()
    summary = df.xrr.summary()
    assert list(irr.columns) == ["X", "Y"] and irr.columns.name == "replication"
    for out in (kx, norm, summary["kappa_x"], summary["normalized"]):
        assert list(out.columns) == [("X", "Y")]
        assert list(out.columns.names) == ["replication", "replication_other"]
    np.testing.assert_allclose(summary["kappa_x"].to_numpy(), kx.to_numpy())
    np.testing.assert_allclose(summary["irr"].to_numpy(), irr.to_numpy())
    ds = df.xrr.to_xarray()
    assert isinstance(ds.xrr.irr(), xr.DataArray)
    assert ds.xrr.irr().dims == ("label", "replication")
    assert ds.xrr.cross_kappa().dims == ("label", "pair")
    summary_x = ds.xrr.summary()
    assert isinstance(summary_x, xr.Dataset)
    unstacked = ds.xrr.cross_kappa().unstack("pair")
    assert summary_x["kappa_x"].dims == ("label", "replication", "replication_other")
    np.testing.assert_allclose(summary_x["kappa_x"].sel(replication="X", replication_other="Y"),
                               kx[("X", "Y")].to_numpy())
    xr.testing.assert_allclose(summary_x["kappa_x"].dropna("replication", how="all")
                               .dropna("replication_other", how="all"),
                               unstacked.reset_coords(drop=True))
    np.testing.assert_allclose(summary_x["irr"].values, irr.to_numpy())
    one = df[(df["replication"] == "X")][["item", "rater", "joy"]].rename(
        columns={"joy": "value"})  # one label, one replication: a single estimate
    single = one.xrr.irr(metric="fleiss", ci=0.95)
    assert isinstance(single, pd.Series)
    assert list(single.index) == ["estimate", "se", "lower", "upper", "p_value"]
    assert single.attrs["n_items"] == 40


def test_threads_raise_a_blocks_error_in_the_caller_after_every_block_stopped():
    """kernels.threads: an exception in a block run on another thread reaches the caller,
    and only once every block has stopped (none is left running); the first in the
    calls' order wins; without threads the calls run in order on the caller."""
    import threading
    import time

    from xrr_accessor.kernels.threads import concurrently, in_blocks

    done: list[str] = []

    def slow() -> None:
        time.sleep(0.05)
        done.append("slow")

    def fail() -> None:
        raise KeyError("block")

    with pytest.raises(KeyError, match="block"):
        concurrently([fail, slow])  # fails at once on the caller; slow runs on a thread
    assert done == ["slow"]  # the other thread had stopped before the error was raised
    with pytest.raises(ValueError):
        concurrently([lambda: (_ for _ in ()).throw(ValueError()), fail])  # first in order
    seen: list[str] = []
    assert concurrently([lambda: seen.append(threading.current_thread().name) or 1,
                         lambda: seen.append(threading.current_thread().name) or 2],
                        parallel=False) == [1, 2]
    assert seen == [threading.current_thread().name] * 2
    assert in_blocks(7, lambda lo, hi: (lo, hi), 1, threads=3) == [(0, 2), (2, 4), (4, 7)]
