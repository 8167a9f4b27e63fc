"""Per-item disagreement D_i and leave-one-rater-out agreement (SPEC section 6).

Three ways, as every coefficient: naive formulas written here (pairs of
annotations in plain Python; kappa_x and alpha from tests/naive.py, i.e. R
separate computations per pool), the published 1.26 of Du et al.'s poster,
and the library's own cross_kappa / irr on the split data. Plus a planted
random-answering rater that must come out worst.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.datasets import LabelSpec, simulate_replications
from xrr_accessor.errors import InputError, LevelError, UndefinedWarning

from helpers import annotation_frames, assert_close_or_both_nan, examples, quietly
from naive import alpha as naive_alpha
from naive import d_ordinal, distance
from naive import kappa_x as naive_kappa_x

LEVELS = ["nominal", "interval", "ordinal", "ratio"]


# ---- naive references, straight from the formulas ---------------------------------------

def naive_item_d(values: list, delta) -> float:
    """D_i = sqrt( C(n, 2)^-1 sum over annotator pairs of delta(x, y) )."""
    pairs = list(combinations(values, 2))
    if not pairs:
        return math.nan
    return math.sqrt(sum(delta(a, b) for a, b in pairs) / len(pairs))


def naive_items(df: pd.DataFrame, level: str) -> dict[tuple, dict]:
    """(pool, item) -> D, n, mode, mode_share, mean, spread, by plain loops."""
    out = {}
    for pool, sub in df.groupby("pool"):
        units = {i: list(g["value"]) for i, g in sub.groupby("item")}
        pairable = [v for vals in units.values() if len(vals) >= 2 for v in vals]
        delta = d_ordinal(pairable) if level == "ordinal" else distance(level, [])
        for item, vals in units.items():
            counts = Counter(vals)
            top = max(counts.values())
            out[(pool, item)] = {
                "d": naive_item_d(vals, delta), "n": len(vals),
                "mode": min(v for v, c in counts.items() if c == top),
                "mode_share": top / len(vals), "mean": sum(vals) / len(vals),
                "spread": max(vals) - min(vals),
            }
    return out


def naive_raters(df: pd.DataFrame, level: str) -> dict[tuple, dict]:
    """(pool, rater) -> kappa_x (rater vs the rest), alpha without, alpha, counts: the
    R separate computations the one-pass kernel replaces."""
    out = {}
    for pool, sub in df.groupby("pool"):
        everyone = {i: list(g["value"]) for i, g in sub.groupby("item")}
        for rater in sub["rater"].unique():
            mine = sub[sub["rater"] == rater]
            rest = sub[sub["rater"] != rater]
            x = {i: list(g["value"]) for i, g in mine.groupby("item")}
            y = {i: list(g["value"]) for i, g in rest.groupby("item")}
            shared = [i for i in x if i in y]
            out[(pool, rater)] = {
                "kappa_x": naive_kappa_x(x, y, level),
                "alpha_without": naive_alpha(y, level) if y else math.nan,
                "alpha": naive_alpha(everyone, level),
                "n_annotations": len(mine), "n_shared": len(shared),
                "n_other": sum(len(y[i]) for i in shared),
            }
    return out


# ---- item_disagreement -------------------------------------------------------------------

def test_published_poster_value():
    """Du et al.'s table: four positive and one negative rating (+1 / -1) give 1.26."""
    df = pd.DataFrame({"item": [7] * 5, "rater": list("abcde"),
                       "sentiment": [1, 1, 1, 1, -1]})
    out = xrr.item_disagreement(df, level="interval")
    d = float(out["disagreement"].iloc[0])
    assert d == pytest.approx(math.sqrt(16 / 10), abs=1e-15)
    assert round(d, 2) == 1.26
    assert out["n_annotations"].iloc[0] == 5 and out["mode"].iloc[0] == 1
    assert out["mode_share"].iloc[0] == pytest.approx(0.8)
    assert out["spread"].iloc[0] == 2


def _same_item_row(row: pd.Series, ref: dict) -> None:
    """One row of item_disagreement against the naive item's numbers."""
    assert_close_or_both_nan(row["disagreement"], ref["d"])
    assert row["n_annotations"] == ref["n"]
    assert row["mode"] == ref["mode"]
    assert row["mode_share"] == pytest.approx(ref["mode_share"], abs=1e-12)
    assert row["mean"] == pytest.approx(ref["mean"], abs=1e-12)
    assert row["spread"] == pytest.approx(ref["spread"], abs=1e-12)


@given(df=annotation_frames(max_items=10, max_raters=5), level=st.sampled_from(LEVELS))
def test_item_disagreement_equals_naive(df, level):
    got, _ = quietly(xrr.item_disagreement, df, level=level)
    want = naive_items(df, level)
    assert len(got) == len(want)
    for (pool, item), row in got.iterrows():
        _same_item_row(row, want[(pool, item)])


@pytest.mark.parametrize("n_cat", [1, 2, 8, 9, 12])
@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_item_counts_packed_and_in_a_table_equal_naive(n_cat, level):
    """The per-item kernel counts up to 8 categories in the bytes of one integer when
    an item has fewer than 256 rows, in a scratch table otherwise: items of 2 to 300
    annotations (one past 255), 1 to 12 categories, ties for the mode, a missing
    value first in an item, rows in random order; each against the naive loops."""
    rng = np.random.default_rng(n_cat)
    sizes = [2, 3, 5, 8, 255, 256, 300, 1]
    rows = []
    for i, size in enumerate(sizes * 3):
        values = rng.integers(0, n_cat, size)
        if i % 4 == 0:
            values[: size // 2] = 0  # a tie for the mode between 0 and the rest
            values[size // 2:] = n_cat - 1
        rows += [(i, f"r{k}", "P0", 0.5 * float(v) - 1.0) for k, v in enumerate(values)]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "value"])
    df = df.sample(frac=1.0, random_state=n_cat).reset_index(drop=True)
    first_missing = df.index[df["item"] == 1][0]
    df.loc[first_missing, "value"] = np.nan  # missing, first of its item after sorting
    df = df.sort_values(["item"], kind="stable").reset_index(drop=True)
    got, _ = quietly(xrr.item_disagreement, df, level=level, replication="pool")
    want = naive_items(df.dropna(subset=["value"]), level)
    assert len(got) == len(want)
    for (_, item), row in got.iterrows():
        _same_item_row(row, want[("P0", item)])


@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_item_records_per_count_pattern_equal_naive_past_a_full_table(level):
    """Up to 8 categories a group's record is computed once per distinct count
    pattern and kept in a table of 4,096 slots that starts again when half full:
    over 2,048 distinct patterns in one block (the table starts again), each
    pattern also in a second item with its rows in another order (a record read
    back from the table), rows not grouped by item, non-integer values; against
    the naive loops, and the two items of a pattern equal to the last bit."""
    rng = np.random.default_rng(11)
    n_first = 3000
    rows, twin = [], {}
    for i in range(n_first):
        values = rng.integers(0, 8, int(rng.integers(2, 13))) * 0.7 - 2.1
        rows += [(i, f"r{k}", v) for k, v in enumerate(values)]
        twin[i] = n_first + i
        rows += [(n_first + i, f"r{k}", v) for k, v in enumerate(rng.permutation(values))]
    df = pd.DataFrame(rows, columns=["item", "rater", "value"]).sample(
        frac=1.0, random_state=1)  # rows out of item order: read through the sort
    patterns = df[df["item"] < n_first].groupby("item")["value"].apply(
        lambda v: tuple(sorted(v)))
    assert patterns.nunique() > 2048  # more than half the table: it starts again
    got, _ = quietly(xrr.item_disagreement, df, level=level)
    want = naive_items(df.assign(pool="P0"), level)
    assert len(got) == len(want)
    for item, row in got.iterrows():
        _same_item_row(row, want[("P0", item)])
    for i, j in list(twin.items())[:: 7]:
        pd.testing.assert_series_equal(got.loc[i], got.loc[j], check_names=False,
                                       check_exact=True)


@pytest.mark.parametrize("kind", ["int64", "float", "str"])
def test_item_mode_is_the_category_not_its_code(kind):
    """The mode column holds the category (written by the row kernel for integer
    categories, taken from the categories otherwise), never its code: categories
    whose codes differ from their values, against the naive mode."""
    rng = np.random.default_rng(3)
    raw = rng.choice([30, -7, 12, 5], size=(400, 3))
    df = pd.DataFrame({"item": np.repeat(np.arange(400), 3), "rater": list("abc") * 400,
                       "v": raw.reshape(-1)})
    df["v"] = df["v"].astype(float) if kind == "float" else (
        "c" + df["v"].astype(str) if kind == "str" else df["v"])
    got, _ = quietly(xrr.item_disagreement, df, level="nominal")
    got = got.xs("v", level="label") if "label" in got.index.names else got
    for item, part in df.groupby("item"):
        counts = Counter(part["v"])
        top = max(counts.values())
        assert got.loc[item, "mode"] == min(v for v, c in counts.items() if c == top)
    assert got["mode"].dtype == df["v"].dtype


def test_item_table_from_blocks_equals_the_dataframe_constructor(monkeypatch):
    """The table's columns handed to pandas as blocks (pandas >= 3) are the frame the
    DataFrame constructor builds from the same columns (the path for older pandas):
    integer, float and string categories, labels and replications."""
    from xrr_accessor.diagnostics import _common

    rng = np.random.default_rng(8)
    df = pd.DataFrame({"item": rng.integers(0, 50, 600), "rater": rng.integers(0, 20, 600),
                       "pool": rng.choice(["A", "B"], 600),
                       "x": rng.integers(1, 6, 600), "y": rng.choice(["lo", "hi", "mid"], 600)})
    df = df.drop_duplicates(["item", "rater", "pool"])
    calls = [lambda: xrr.item_disagreement(df[["item", "rater", "x"]].drop_duplicates(
                 ["item", "rater"])),
             lambda: xrr.item_disagreement(df, level="nominal", labels=["x", "y"],
                                           replication="pool")]
    got = [quietly(call)[0] for call in calls]
    monkeypatch.setattr(_common, "_from_blocks", None)
    for frame, call in zip(got, calls, strict=True):
        pd.testing.assert_frame_equal(frame, quietly(call)[0], check_exact=True)


@pytest.mark.parametrize("level", ["interval", "nominal", "ordinal"])
@pytest.mark.parametrize("n_threads", [2, 3, 5])
def test_item_table_in_thread_blocks_equals_one_block(monkeypatch, level, n_threads):
    """The item sums and the table's rows are written by blocks of groups and rows in
    threads; the table equals the one-thread table to the last bit: ranks whose ties
    run across a block's edge, items with one annotation (NaN D, rank <NA>) at the
    edges, three replications (blocks of whole items), the ordinal level's two passes."""
    from xrr_accessor.diagnostics import items
    from xrr_accessor.kernels import threads

    rng = np.random.default_rng(n_threads)
    n_items = 400
    rows = [(i, f"r{k}", pool, int(rng.integers(1, 4)))
            for i in rng.permutation(n_items) for pool in ("A", "B", "C")
            for k in range(int(rng.integers(1, 4)))]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "value"])
    one, _ = quietly(xrr.item_disagreement, df, level=level, replication="pool")
    monkeypatch.setattr(items, "MIN_BLOCK", 7)
    monkeypatch.setattr(threads, "cores", lambda: n_threads)
    calls = []
    real = threads.threading.Thread

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(threads.threading, "Thread", counted)
    got, _ = quietly(xrr.item_disagreement, df, level=level, replication="pool")
    assert len(calls) >= n_threads - 1  # the blocks did run in threads
    assert got["rank"].isna().any() and got["rank"].duplicated().any()  # NaN and ties
    pd.testing.assert_frame_equal(got, one, check_exact=True)


@pytest.mark.parametrize("values", ["few", "many"])
def test_item_table_ranked_by_counting_and_by_radix_equal_pandas(values):
    """The table's rows are ordered by a counting sort when D takes at most 1024
    values and by a radix sort beyond: both against a pandas groupby and np.lexsort
    (two replications, items with one annotation, ties by the items' order in the
    data)."""
    rng = np.random.default_rng(5)
    n_items = 3000
    n = rng.integers(1, 5, size=(n_items, 2))
    rows = [(f"i{i}", f"r{k}", pool, float(rng.integers(1, 4)) if values == "few" else
             round(float(rng.normal()), 6))
            for i in rng.permutation(n_items) for p, pool in enumerate(("A", "B"))
            for k in range(n[i, p])]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "value"])
    got, _ = quietly(xrr.item_disagreement, df, replication="pool", level="interval")
    g = df.groupby(["pool", "item"], sort=False)["value"]
    c, s1, s2 = g.count(), g.sum(), (df["value"] ** 2).groupby([df["pool"], df["item"]],
                                                                sort=False).sum()
    d = np.sqrt((c * s2 - s1**2).clip(lower=0) / (c * (c - 1) / 2)).where(c >= 2)
    assert (d.nunique() > 1024) == (values == "many")
    mine = got["disagreement"].reindex(d.index)  # the order from our D (pandas' may
    np.testing.assert_allclose(mine, d, rtol=1e-9, atol=1e-12)  # differ by an ulp)
    first = pd.Index(pd.unique(df["item"]))  # ties: the items' order in the data
    pool = d.index.get_level_values(0).to_numpy()
    order = np.lexsort((first.get_indexer(d.index.get_level_values(1)),
                        np.where(np.isnan(mine), np.inf, -mine.to_numpy()), pool))
    want = mine.iloc[order]
    assert got.index.tolist() == want.index.tolist()
    for _, part in want.groupby(level=0, sort=False):
        defined = part.dropna().to_numpy()
        above = [int((defined > v).sum()) + 1 for v in defined]
        assert got.loc[part.index[:len(defined)], "rank"].tolist() == above
        assert got.loc[part.index[len(defined):], "rank"].isna().all()


@given(df=annotation_frames(max_items=10, max_raters=5, max_reps=2))
def test_items_ranked_most_disagreement_first(df):
    got, _ = quietly(xrr.item_disagreement, df.iloc[::-1], level="interval")
    for _, part in got.groupby(level="replication", sort=False):
        d = part["disagreement"].to_numpy()
        defined = d[~np.isnan(d)]
        assert (np.diff(defined) <= 0).all()
        assert np.isnan(d[len(defined):]).all()  # undefined items last
        above = [int((defined > v).sum()) + 1 for v in defined]  # ties share a rank
        assert part["rank"].iloc[:len(defined)].tolist() == above
        assert part["rank"].iloc[len(defined):].isna().all()


def test_one_annotation_items_are_nan_with_a_counted_warning():
    df = pd.DataFrame({"item": [1, 1, 2, 3], "rater": ["a", "b", "a", "b"],
                       "joy": [1, 3, 2, 5]})
    with pytest.warns(UndefinedWarning, match=r"2 of 3 row\(s\).*one annotation") as rec:
        out = xrr.item_disagreement(df, level="interval")
    assert "label 'joy': 2" in str(rec[0].message)
    assert out["disagreement"].isna().sum() == 2
    assert out.attrs["n_undefined"] == 2
    assert out.index.get_level_values("item")[0] == 1


def test_custom_matrix_and_nominal_levels():
    df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("abc") * 2,
                       "tag": ["x", "y", "z", "x", "x", "y"]})
    d = pd.DataFrame([[0, 1, 4], [1, 0, 1], [4, 1, 0]], index=list("xyz"), columns=list("xyz"))
    out = xrr.item_disagreement(df, level=d)
    assert out.loc[("tag", 1), "disagreement"] == pytest.approx(math.sqrt((1 + 4 + 1) / 3))
    assert out.loc[("tag", 2), "disagreement"] == pytest.approx(math.sqrt(2 / 3))
    nominal = xrr.item_disagreement(df, level="nominal")
    assert nominal.loc[("tag", 2), "disagreement"] == pytest.approx(math.sqrt(2 / 3))
    assert "mean" not in nominal.columns  # no numbers to average
    assert df.equals(pd.DataFrame({"item": [1, 1, 1, 2, 2, 2], "rater": list("abc") * 2,
                                   "tag": ["x", "y", "z", "x", "x", "y"]}))


def test_interval_needs_numbers_and_says_how():
    df = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "mood": ["low", "high"]})
    with pytest.raises(LevelError, match=r"column 'mood'.*level='interval'.*pd.to_numeric"):
        xrr.item_disagreement(df, level="interval")


def test_layouts_agree_long_wide_xarray_accessor():
    df = xrr.datasets.load_krippendorff2011()
    long = quietly(xrr.item_disagreement, df)[0]
    wide = df.pivot(index="item_id", columns="rater", values="value")
    from_wide = quietly(xrr.item_disagreement, wide, wide=True)[0]
    pd.testing.assert_series_equal(long["disagreement"], from_wide["disagreement"],
                                   check_names=False)
    ds = df.xrr.to_xarray()
    got = quietly(xrr.item_disagreement, ds)[0]
    assert set(got.dims) == {"label", "item"}  # a Dataset's variables are labels
    np.testing.assert_allclose(got["disagreement"].sel(label="value", item=long.index).values,
                               long["disagreement"].values)
    via = quietly(lambda: df.xrr(item="item_id").item_disagreement(level="ordinal"))[0]
    pd.testing.assert_frame_equal(via, quietly(xrr.item_disagreement, df,
                                               level="ordinal")[0])


def test_many_labels_and_pools():
    df = xrr.datasets.simulate(n_items=60, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    out = quietly(xrr.item_disagreement, df, level="nominal")[0]
    assert out.index.names == ["label", "replication", "item_id"]  # the data's own name
    sub = df[(df["pool"] == "B")]
    for item, g in list(sub.groupby("item_id"))[:10]:
        want = naive_item_d(list(g["awe"]), distance("nominal", []))
        assert out.loc[("awe", "B", item), "disagreement"] == pytest.approx(want)


@settings(max_examples=examples(20, 200), deadline=None)
@given(df=annotation_frames(max_items=8, max_raters=4, max_reps=2, min_reps=2),
       seed=st.integers(0, 2**16))
def test_missing_values_are_absent_annotations(df, seed):
    """A label's NaN cells (beside another label's values) count as no annotation, in
    every diagnostic: the same as dropping those rows."""
    rng = np.random.default_rng(seed)
    df = df.rename(columns={"value": "score"})
    holes = rng.random(len(df)) < 0.3
    two = df.assign(score=df["score"].mask(holes), other=rng.integers(0, 2, len(df)))
    kept = df[~holes]
    if kept.empty or kept["pool"].nunique() < 2:
        return
    for fn, kw in [(xrr.item_disagreement, {}), (xrr.rater_agreement, {"level": "ordinal"})]:
        got = quietly(fn, two, labels=["score", "other"], **kw)[0]
        want = quietly(fn, kept, labels=["score"], **kw)[0]
        pd.testing.assert_frame_equal(got.loc[["score"]].sort_index(), want.sort_index())
    sessions = {"session": "pool", "level": "interval"}
    got = quietly(xrr.intra, two.drop(columns="other"), **sessions)[0]
    want = quietly(xrr.intra, kept, **sessions)[0]
    for name in ("kappa", "pooled", "aad_intra", "aad_inter"):
        pd.testing.assert_frame_equal(getattr(got, name).sort_index(),
                                      getattr(want, name).sort_index())
    gold = pd.Series(rng.choice(np.unique(kept["score"]), kept["item"].nunique()),
                     index=np.unique(kept["item"]))
    got = quietly(xrr.validity, two, gold=pd.DataFrame({"score": gold, "other": 0}))[0]
    want = quietly(xrr.validity, kept, gold=gold)[0]
    pd.testing.assert_frame_equal(got.summary.loc[["score"]], want.summary)


# ---- rater_agreement ---------------------------------------------------------------------

@given(df=annotation_frames(max_items=9, max_raters=5, max_reps=2),
       level=st.sampled_from(LEVELS))
def test_rater_agreement_equals_r_separate_naive_computations(df, level):
    got, _ = quietly(xrr.rater_agreement, df, level=level)
    want = naive_raters(df, level)
    assert len(got) == len(want)
    index = got.index if got.index.nlevels == 2 else [("P0", r) for r in got.index]
    for key, (_, row) in zip(index, got.iterrows(), strict=True):
        ref = want[key]
        for col in ("kappa_x", "alpha_without", "alpha"):
            assert_close_or_both_nan(row[col], ref[col])
        assert_close_or_both_nan(row["delta_alpha"], ref["alpha_without"] - ref["alpha"])
        for col in ("n_annotations", "n_shared", "n_other"):
            assert row[col] == ref[col]


@pytest.mark.parametrize("level", LEVELS)
def test_rater_agreement_equals_the_library_on_split_data(level):
    """Each rater's row equals cross_kappa(rater vs rest) and irr(pool without rater)."""
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 4, 40)
    rows = [(i, f"r{b}", int(truth[i]) if rng.random() < 0.7 else int(rng.integers(0, 4)))
            for i in range(40) for b in range(5) if rng.random() < 0.75]
    df = pd.DataFrame(rows, columns=["item", "rater", "score"])
    got = xrr.rater_agreement(df, level=level)
    for (_, rater), row in got.iterrows():
        side = np.where(df["rater"] == rater, "one", "rest")
        kx = xrr.cross_kappa(df.assign(side=side), replication="side", level=level)
        assert row["kappa_x"] == pytest.approx(float(kx.iloc[0, 0]), abs=1e-10)
        alone = xrr.irr(df[df["rater"] != rater], level=level)
        assert row["alpha_without"] == pytest.approx(float(alone.iloc[0]), abs=1e-10)
        assert row["alpha"] == pytest.approx(float(xrr.irr(df, level=level).iloc[0]),
                                             abs=1e-10)


def _planted(level: str, seed: int = 11) -> tuple[pd.DataFrame, str]:
    """Six raters per item (simulated, known reliability); Rater 4 answers at random."""
    specs = {"sadness": LabelSpec(prevalence=0.3, concentration=0.5),  # alpha 1 / (k + 1)
             "awe": LabelSpec(prevalence=0.5, concentration=0.4)}
    df = simulate_replications(400, labels=specs, pools=["A"], raters_per_item=6, seed=seed)
    rng = np.random.default_rng(seed)
    bad = df["rater"] == "Rater 4"
    if level == "interval":  # a 1-5 scale: truth-driven raters, one uniform
        latent = rng.integers(1, 6, df["item_id"].nunique())
        codes = pd.factorize(df["item_id"])[0]
        noise = rng.integers(-1, 2, len(df)) * (rng.random(len(df)) < 0.3)
        df["sadness"] = np.clip(latent[codes] + noise, 1, 5)
        df["awe"] = np.clip(6 - latent[codes] + noise, 1, 5)
        draw = rng.integers(1, 6, (int(bad.sum()), 2))
    else:
        draw = rng.integers(0, 2, (int(bad.sum()), 2)).astype(np.int8)
    for k, label in enumerate(["sadness", "awe"]):
        df.loc[bad, label] = draw[:, k]
    return df, "Rater 4"


@pytest.mark.parametrize("level", ["nominal", "interval"])
@pytest.mark.parametrize("metric", ["kappa_x", "alpha"])
def test_planted_random_rater_comes_out_worst(level, metric):
    df, bad = _planted(level)
    out = xrr.rater_agreement(df, metric=metric, level=level, replication="pool")
    for label in ("sadness", "awe"):
        part = out.xs(label, level="label")
        assert part.index.get_level_values("rater")[0] == bad
        assert part["rank"].iloc[0] == 1
        worst = part.xs(bad, level="rater").iloc[0]
        others = part.drop(bad, level="rater")
        assert abs(worst["kappa_x"]) < 0.15  # chance level
        assert (others["kappa_x"] > worst["kappa_x"] + 0.2).all()
        assert worst["delta_alpha"] > 0 > others["delta_alpha"].max()


def test_rater_agreement_xarray_and_accessor():
    df, _ = _planted("nominal")
    flat = df.drop(columns="pool")
    frame = flat.xrr.rater_agreement()
    ds = flat.xrr.to_xarray().xrr.rater_agreement()
    assert set(ds.dims) == {"label", "rater"}
    np.testing.assert_allclose(ds["kappa_x"].sel(label="awe", rater="Rater 2"),
                               frame.loc[("awe", "Rater 2"), "kappa_x"])
    assert frame.attrs["ranked_by"] == "kappa_x"


def test_rater_agreement_bad_metric_and_undefined():
    df = pd.DataFrame({"item": [1, 1, 2, 3], "rater": ["a", "b", "a", "c"],
                       "joy": [1, 0, 1, 1]})
    with pytest.raises(InputError, match=r"metric='cohen'.*'kappa_x', 'alpha'"):
        xrr.rater_agreement(df, metric="cohen")
    with pytest.warns(UndefinedWarning, match=r"1 rater\(s\) who share no item"):
        out = xrr.rater_agreement(df)
    assert np.isnan(out.loc[("joy", "c"), "kappa_x"])
    assert out.loc[("joy", "c"), "n_shared"] == 0


def test_inputs_are_not_modified():
    df, _ = _planted("interval")
    df["round"] = np.arange(len(df)) % 2
    df["gold"] = df.groupby("item_id")["sadness"].transform("first")
    gold = df.groupby("item_id")["awe"].first()
    before, gold_before = df.copy(), gold.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xrr.rater_agreement(df.drop(columns=["round", "gold"]), level="interval")
        xrr.item_disagreement(df, labels=["sadness", "awe"])
        xrr.intra(df.drop(columns=["pool", "gold"]), session="round", level="interval")
        xrr.validity(df.drop(columns=["round", "awe"]), gold="gold")
        xrr.validity(df[["item_id", "rater", "awe"]], gold=gold)
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_series_equal(gold, gold_before)


@settings(max_examples=300, deadline=None)
@given(scores=st.lists(st.sampled_from([np.nan, 0.0, -0.0, 0.5, 1.0, 1.5, 2.0, 1e-300, 1e300,
                                        np.inf, 0.1 + 0.2, 0.3]), max_size=50),
       n_rep=st.integers(1, 3), seed=st.integers(0, 2**16),
       n_distinct=st.sampled_from([0, 0, 1100, 3000]))
def test_ranked_groups_equals_lexsort(scores, n_rep, seed, n_distinct):
    """item_disagreement's row order (replication, D from the largest, NaN last, ties by
    item) from the ranking kernel, against the np.lexsort it replaces: the groups with
    annotations, in that order; ties, signed zeros, infinities and numbers one ulp apart
    included; up to 1024 distinct scores (a counting sort by their rank) and more (the
    radix sort)."""
    from xrr_accessor.kernels.ranking import DISTINCT, ranked_groups

    rng = np.random.default_rng(seed)
    d = np.r_[np.array(scores, dtype=float), rng.normal(size=n_distinct),
              np.array(scores, dtype=float)]
    rng.shuffle(d)
    assert (len(np.unique(d)) > DISTINCT) == (n_distinct > 0)
    g = np.sort(rng.choice(10 * len(d) + 1, len(d), replace=False)).astype(np.int64)
    want = np.lexsort((g // n_rep, np.where(np.isnan(d), np.inf, -d), g % n_rep))
    n = np.zeros(10 * len(d) + 1, dtype=np.int64)
    n[g] = rng.integers(1, 4, len(g))
    score = np.full(len(n), -7.0)  # groups without annotations: any score, left out
    score[g] = d
    scratch = np.full((4, len(n)), -1, dtype=np.int64)
    np.testing.assert_array_equal(ranked_groups(n, score, n_rep, scratch), g[want])
