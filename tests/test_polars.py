"""The ``.xrr`` namespace on polars DataFrames and LazyFrames.

Every public method on a polars frame against the pandas path on the same
data: each number of the polars result is looked up in the pandas result by
its label / cell names (and the other way round), so a row lost, added or
mislabelled fails as well as a wrong number. The namespace is registered
when polars is imported before or after xrr_accessor, and importing
xrr_accessor never imports polars.
"""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings

pl = pytest.importorskip("polars")

import xrr_accessor as xrr  # noqa: E402
from xrr_accessor.datasets import simulate  # noqa: E402
from xrr_accessor.polars_accessor import PolarsXRR, from_polars  # noqa: E402

from helpers import annotation_frames, thorough_only  # noqa: E402


def _pairs(pd_out, keys: list[str]) -> dict[tuple, object]:
    """{(key names and values, column): value} of a pandas result, read by its names."""
    if isinstance(pd_out, pd.Series):
        pd_out = pd_out.to_frame(pd_out.name if pd_out.name is not None else "value")
    if all(n is not None for n in pd_out.columns.names) and pd_out.columns.names[0]:
        pd_out = pd_out.stack(list(range(pd_out.columns.nlevels)), future_stack=True
                              ).to_frame(pd_out.attrs.get("metric", "value"))
    if any(n is not None for n in pd_out.index.names):
        pd_out = pd_out.reset_index()
    return _rows(pd_out.to_dict("records"), keys)


def _rows(records, keys: list[str]) -> dict[tuple, object]:
    out = {}
    for row in records:
        key = tuple((k, str(row[k])) for k in keys if k in row)
        for col, v in row.items():
            col = col if not isinstance(col, tuple) else "_".join(str(c) for c in col if c)
            if col not in keys:
                out[(key, str(col))] = v
    return out


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def assert_same(pl_out, pd_out, keys: list[str]) -> None:
    """Every value of ``pl_out`` (a polars frame) equals ``pd_out``'s at the same names,
    and every defined value of ``pd_out`` is in ``pl_out``."""
    assert isinstance(pl_out, pl.DataFrame), type(pl_out)
    want = _pairs(pd_out, keys)
    got = _rows(pl_out.iter_rows(named=True), keys)
    seen = 0
    for k, v in got.items():
        if k in want:
            seen += 1
            w = want[k]
            if _missing(w):
                assert _missing(v), (k, v, w)
            elif isinstance(w, float | np.floating):
                assert v == pytest.approx(float(w), rel=1e-12, abs=1e-14), (k, v, w)
            else:
                assert str(v) == str(w), (k, v, w)
    for k, w in want.items():
        if not _missing(w) and not (isinstance(w, str) and w == ""):
            assert k in got, f"{k} = {w} of the pandas result is not in the polars one"
    assert seen, "nothing compared"


@pytest.fixture(scope="module")
def data():
    df = simulate(n_items=120, labels=["joy", "anger"], pools=["A", "B", "C"], seed=4)
    return df, pl.from_pandas(df)


def _both(method, pd_df, pl_df, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(pd_df.xrr, method)(*args, **kwargs)
        got = getattr(pl_df.xrr, method)(*args, **kwargs)
    return got, want


KEYS = ["label", "replication", "replication_other", "statistic", "metric", "rater",
        "item", "comparison", "n_items_per_replication", "size"]

CALLS = [
    ("irr", {}), ("irr", {"metric": "fleiss", "ci": 0.9}),
    ("irr", {"metric": "scott", "ci": 0.9, "n_boot": 50, "seed": 1}),
    ("cross_kappa", {}), ("cross_kappa", {"ci": 0.9, "n_boot": 50, "seed": 2}),
    ("normalized", {}), ("normalized", {"ci": 0.9, "n_boot": 50, "seed": 3}),
    ("compare", {"n_boot": 50, "seed": 4}),  # summary: test_summary_is_tidy_like_report_frame
    ("plan", {"n_boot": 20, "seed": 5, "sizes": [50, 100]}),
    ("agreement_table", {}), ("per_category", {}), ("item_disagreement", {}),
    ("rater_agreement", {}), ("pairwise", {}),
    ("disattenuated_correlation", {"n_splits": 5, "seed": 1}),
    ("to_frame", {}),
]


@pytest.mark.parametrize(("method", "kwargs"), CALLS,
                         ids=[f"{m}-{i}" for i, (m, _) in enumerate(CALLS)])
def test_every_table_method_equals_the_pandas_path(data, method, kwargs):
    pd_df, pl_df = data
    got, want = _both(method, pd_df, pl_df, **kwargs)
    assert_same(got, want, KEYS)


def test_lazyframe_equals_dataframe_and_is_collected_once(data, monkeypatch):
    pd_df, pl_df = data
    calls = []
    collect = pl.LazyFrame.collect

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("engine"))
        return collect(self, *args, **kwargs)

    monkeypatch.setattr(pl.LazyFrame, "collect", counting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl_df.lazy().xrr.normalized(ci=0.9, n_boot=30, seed=1)
        want = pd_df.xrr.normalized(ci=0.9, n_boot=30, seed=1)
    assert calls == ["streaming"]
    assert_same(got, want, KEYS)


def test_counts_of_the_cells_come_with_the_rows(data):
    pd_df, pl_df = data
    got, want = _both("irr", pd_df, pl_df)
    for row in got.iter_rows(named=True):
        for count in ("n_items", "n_unpairable", "n_values"):
            assert row[count] == want.attrs[count][row["replication"]][row["label"]]
    got, want = _both("cross_kappa", pd_df, pl_df)
    for row in got.iter_rows(named=True):
        pair = (row["replication"], row["replication_other"])
        assert row["n_items"] == want.attrs["n_items"][pair][row["label"]]


def test_report_and_objects_equal_the_pandas_ones(data):
    pd_df, pl_df = data
    got, want = _both("report", pd_df, pl_df, ci=0.9, n_boot=30, seed=1)
    pd.testing.assert_frame_equal(got.frame, want.frame)
    assert got.to_markdown() == want.to_markdown()
    got, want = _both("to_xarray", pd_df, pl_df)
    assert got.identical(want)


def test_roles_bound_and_other_given_as_polars(data):
    pd_df, pl_df = data
    renamed = pl_df.rename({"rater": "who"})
    a, b = renamed.filter(pl.col("pool") == "A"), renamed.filter(pl.col("pool") == "B")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = a.xrr(rater="who").cross_kappa(b.lazy())
        want = pd_df[pd_df.pool == "A"].xrr.cross_kappa(pd_df[pd_df.pool == "B"])
    assert_same(got, want, KEYS)
    assert got["n_items"].to_list() == [want.attrs["n_items"][("A", "B")][lab]
                                        for lab in got["label"]]


def test_intra_validity_and_set_methods(data):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"item": np.repeat(np.arange(40), 4), "rater": np.tile([0, 1], 80),
                       "round": np.tile([1, 1, 2, 2], 40),
                       "value": rng.integers(0, 3, 160)})
    got, want = _both("intra", df, pl.from_pandas(df), session="round")
    pd.testing.assert_frame_equal(got.kappa, want.kappa)
    gold = pd.Series(rng.integers(0, 3, 40), index=np.arange(40))
    one = df[df["round"] == 1].drop(columns="round")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl.from_pandas(one).xrr.validity(gold=gold)
        want = one.xrr.validity(gold=gold)
        # found by a new-user trial: a gold frame from polars (no index, an item
        # column) crashed inside pandas; it is read as the Series indexed by item
        as_polars = pl.DataFrame({"item": np.arange(40), "value": gold.to_numpy()})
        from_pl = pl.from_pandas(one).xrr.validity(gold=as_polars)
        unindexed = one.xrr.validity(gold=as_polars.to_pandas())
    pd.testing.assert_frame_equal(got.summary, want.summary)
    pd.testing.assert_frame_equal(from_pl.summary, want.summary)
    pd.testing.assert_frame_equal(unindexed.summary, want.summary)
    sets = [["a"], ["a", "b"], ["b"], ["a", "c"], ["c"], ["a", "b"]]
    rows = [(i, r, sets[(i * 3 + r * (i % 4)) % 6]) for i in range(30) for r in range(3)]
    sdf = pd.DataFrame(rows, columns=["item", "rater", "labels"])
    pl_sets = pl.DataFrame({"item": sdf["item"], "rater": sdf["rater"],
                            "labels": [list(v) for v in sdf["labels"]]})
    got, want = _both("augmented", sdf, pl_sets, p=0.6)
    assert got == pytest.approx(want, abs=1e-14)
    got, want = _both("augmented_sweep", sdf, pl_sets)
    assert_same(got, want, ["p"])
    got, want = _both("augmented_items", sdf, pl_sets)
    assert_same(got, want, ["item"])
    got, want = _both("sharpen", sdf, pl_sets)
    pd.testing.assert_frame_equal(got.raters, want.raters)
    pd.testing.assert_frame_equal(got.items, want.items)


@settings(max_examples=25, deadline=None)
@given(df=annotation_frames(max_items=10, max_raters=4, max_reps=3))
def test_random_frames_equal_the_pandas_path(df):
    pl_df = pl.from_pandas(df)
    for method in ("irr", "cross_kappa"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = getattr(df.xrr, method)()
            except (xrr.InputError, xrr.LevelError) as exc:
                with pytest.raises(type(exc)):
                    getattr(pl_df.xrr, method)()
                continue
            got = getattr(pl_df.xrr, method)()
        if isinstance(want, float):
            assert got == pytest.approx(want, nan_ok=True, rel=1e-12)
        else:
            assert_same(got, want, KEYS)


def test_columns_are_read_without_a_pandas_copy(monkeypatch):
    df = pl.DataFrame({"item": np.arange(1000) // 2, "rater": ["a", "b"] * 500,
                       "joy": np.tile([0.0, 1.0, 1.0, 1.0], 250),
                       "mood": pl.Series(["up", "down"] * 500, dtype=pl.Categorical)})

    def refused(*args, **kwargs):
        raise AssertionError("DataFrame.to_pandas was called")

    monkeypatch.setattr(pl.DataFrame, "to_pandas", refused)
    view = from_polars(df)
    assert np.shares_memory(view["joy"].to_numpy(), df["joy"].to_numpy())
    assert np.shares_memory(view["item"].to_numpy(), df["item"].to_numpy())
    assert str(view["rater"].dtype) == "str"
    assert list(view["mood"].cat.categories) == ["up", "down"]
    assert view["mood"].tolist() == df["mood"].to_list()
    got = df.xrr(labels=["joy", "mood"]).irr()
    want = df.to_arrow().to_pandas().xrr(labels=["joy", "mood"]).irr()
    assert got["alpha"].to_list() == pytest.approx(want.to_list(), rel=1e-14)


def test_nulls_read_as_missing_annotations():
    df = pl.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
                       "joy": [1, 1, 0, None, 1, 0, 0, 0],
                       "tag": ["x", "x", None, "y", "y", "y", "x", ""]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = df.xrr.irr()
        want = df.to_pandas().xrr.irr()
    assert_same(got, want, KEYS)


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip()


def test_importing_xrr_accessor_does_not_import_polars():
    assert _run("import sys, xrr_accessor; print('polars' in sys.modules)") == "False"


@pytest.mark.parametrize("order", ["polars first", "polars after"])
def test_registered_whichever_is_imported_first(order):
    imports = ("import polars as pl; import xrr_accessor" if order == "polars first"
               else "import xrr_accessor; import polars as pl")
    code = (f"{imports}\n"
            "df = pl.DataFrame({'item': [1, 1, 2, 2, 3, 3], 'rater': ['a', 'b'] * 3,"
            " 'joy': [1, 1, 0, 0, 1, 0]})\n"
            "print(type(df.xrr).__name__, type(df.lazy().xrr).__name__,"
            " df.xrr.irr(metric='cohen')['cohen'][0])")
    assert _run(code) == "PolarsXRR PolarsXRR 0.4"


def test_namespace_class_is_the_registered_one(data):
    _, pl_df = data
    assert isinstance(pl_df.xrr, PolarsXRR)
    assert isinstance(pl_df.lazy().xrr, PolarsXRR)


@thorough_only
def test_benchmark_script_runs_and_checks_its_numbers():
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import bench_polars
    finally:
        sys.path.pop(0)
    rows = bench_polars.run(4_000, 1)  # asserts polars == pandas numbers before timing
    cases = [r["case"] for r in rows]
    assert "kappa_x: polars LazyFrame" in cases and "reading only: from_polars" in cases
    assert all(r["seconds"] > 0 for r in rows)
    reading = [r for r in rows if r["case"].startswith("reading")]
    assert all(math.isfinite(r["reading MiB"]) for r in reading)


def test_functions_given_a_polars_frame_point_to_the_namespace(data):
    _, pl_df = data
    with pytest.raises(TypeError, match=r"from DataFrame; .* for a polars frame, call its "
                       r"method instead: df\.xrr\.irr\(\)"):
        xrr.irr(pl_df)


@pytest.mark.parametrize("ci", [None, 0.9])
def test_summary_is_tidy_like_report_frame(data, ci):
    """Found by a new-user trial: summary() came back with a column named 'value' (and a
    'quantity' column with ci=), and "" for the second replication of an IRR row."""
    pd_df, pl_df = data
    kwargs = {} if ci is None else {"ci": ci, "n_boot": 30, "seed": 6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pl_df.xrr.summary(**kwargs)
        want = pd_df.xrr.summary(**kwargs)
    quantities = ["estimate"] if ci is None else ["estimate", "se", "lower", "upper"]
    assert got.columns == ["label", "statistic", "replication", "replication_other",
                           *quantities]
    irr_rows = got.filter(pl.col("statistic") == "irr")
    assert irr_rows["replication_other"].null_count() == len(irr_rows) > 0
    assert got.filter(pl.col("statistic") != "irr")["replication_other"].null_count() == 0
    for row in got.iter_rows(named=True):
        cell = (row["statistic"], row["replication"], row["replication_other"] or "")
        for q in quantities:
            w = want.loc[row["label"], cell if ci is None else (*cell, q)]
            assert row[q] == pytest.approx(w, abs=1e-12, nan_ok=True), (row, q)
    assert len(got) == want.shape[1] // len(quantities) * len(want)  # every cell, once
