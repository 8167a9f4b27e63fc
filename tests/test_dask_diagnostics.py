"""The diagnostics on dask-backed data: rater_agreement, item_disagreement, validity and
agreement_table from partition sums (or per-item pieces), equal to in memory.

The in-memory diagnostics are tested against naive definitions and peers in
test_diagnostics*.py and test_rater_intervals.py; here the reference is the
in-memory call on the same rows in the same order (``ddf.compute()``), on
partitionings that split items (the library shuffles by item itself), so
each result must match value for value and row for row (ties included).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.errors import InputError, UndefinedWarning

from helpers import examples

dd = pytest.importorskip("dask.dataframe")


def _frame(seed: int, n_items: int = 40, raters: int = 6, pools: int = 2, k: int = 4,
           missing: float = 0.2) -> pd.DataFrame:
    """Sparse crowd annotations: each item gets 1-4 raters of a pool, two labels
    (``joy`` 0..k-1, ``score`` numbers), a gold column constant within an item
    (missing for some items), rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        truth = int(rng.integers(0, k))
        gold = np.nan if rng.random() < 0.1 else float(truth)
        for r in rng.choice(raters, size=int(rng.integers(1, min(raters, 4) + 1)), replace=False):
            joy = truth if rng.random() < 0.6 else int(rng.integers(0, k))
            joy = np.nan if rng.random() < missing else joy
            rows.append((f"t{i:03d}", f"w{r}", f"P{i % pools}", joy,
                         float(rng.integers(1, 6)), gold))
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "joy", "score", "gold"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _split(df: pd.DataFrame, parts: int) -> tuple[object, pd.DataFrame]:
    """``df`` cut into ``parts`` partitions as its rows come (items split across them),
    and the same rows in memory in the partitions' order."""
    ddf = dd.from_pandas(df, npartitions=parts, sort=False)
    return ddf, ddf.compute()


def _quiet(fn: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()  # type: ignore[operator]


def _same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    """Equal values, rows in the same order, the same attrs (index dtypes aside: ids
    from dask come as pyarrow strings)."""
    pd.testing.assert_frame_equal(got, want, rtol=1e-12, atol=1e-12, check_index_type=False)
    assert got.attrs == want.attrs


@settings(max_examples=examples(1, 20), deadline=None, phases=[Phase.explicit, Phase.generate])
@given(seed=st.integers(0, 10_000), parts=st.integers(1, 6), raters=st.integers(3, 8),
       missing=st.floats(0.0, 0.4))
@example(seed=82, parts=4, raters=7, missing=0.07932226271508942)  # Light's kappa 0.6:
# on a band's edge, one summation order read "substantial", the other "moderate"
def test_split_partitions_equal_memory(seed: int, parts: int, raters: int,
                                       missing: float) -> None:
    """Random partitionings that split items: every diagnostic at every level it takes
    is the in-memory result, row for row."""
    df = _frame(seed, raters=raters, missing=missing)
    ddf, mem = _split(df, parts)
    calls = {
        "raters nominal": lambda d: xrr.rater_agreement(d.drop(columns="gold")),
        "raters ordinal": lambda d: xrr.rater_agreement(d.drop(columns="gold"),
                                                        level="ordinal", min_items=2),
        "raters interval": lambda d: xrr.rater_agreement(d.drop(columns="gold"),
                                                         level="interval", metric="alpha"),
        "items interval": lambda d: xrr.item_disagreement(d.drop(columns="gold")),
        "items nominal": lambda d: xrr.item_disagreement(d.drop(columns="gold"),
                                                         level="nominal"),
        "items ordinal": lambda d: xrr.item_disagreement(d.drop(columns="gold"),
                                                         level="ordinal"),
        "agreement": lambda d: xrr.agreement_table(d.drop(columns=["gold", "score"])),
    }
    for name, call in calls.items():
        want = _quiet(lambda c=call: c(mem))
        got = _quiet(lambda c=call: c(ddf).compute())
        try:
            _same(got, want)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc
    kw = {"gold": "gold"}
    want = _quiet(lambda: xrr.validity(mem.drop(columns="score"), **kw))
    got = _quiet(lambda: xrr.validity(ddf.drop(columns="score"), **kw).compute())
    _same(got.summary, want.summary)
    _same(got.classes, want.classes)


@pytest.mark.parametrize("interval", ["bca", "percentile"])
@pytest.mark.parametrize("parts", [1, 4])
def test_rater_intervals_equal_memory(interval: str, parts: int) -> None:
    """Each partition sums its own items' share of every replicate (keyed draws) and of
    every jackknife group; the intervals are the in-memory ones for the same seed."""
    df = _frame(5, n_items=260).drop(columns="gold")
    ddf, mem = _split(df, parts)
    for level in ("nominal", "ordinal", "interval"):
        kw = dict(ci=0.9, n_boot=60, seed=11, interval=interval, level=level)
        _same(_quiet(lambda k=kw: xrr.rater_agreement(ddf, **k).compute()),
              _quiet(lambda k=kw: xrr.rater_agreement(mem, **k)))


def test_rater_intervals_leave_one_out_jackknife_and_fresh_seed() -> None:
    """Up to 200 items BCa leaves one item out at a time (the partitions number theirs
    after the items before them); seed=None draws a fresh seed, reported in attrs and
    giving the in-memory intervals when passed back."""
    df = _frame(8, n_items=60).drop(columns="gold")
    ddf, mem = _split(df, 3)
    kw = dict(ci=0.9, n_boot=50, seed=2)
    _same(_quiet(lambda: xrr.rater_agreement(ddf, **kw).compute()),
          _quiet(lambda: xrr.rater_agreement(mem, **kw)))
    fresh = _quiet(lambda: xrr.rater_agreement(ddf, ci=0.9, n_boot=50).compute())
    seed = fresh.attrs["seed"]
    assert isinstance(seed, int)
    again = _quiet(lambda: xrr.rater_agreement(mem, ci=0.9, n_boot=50, seed=seed))
    np.testing.assert_allclose(fresh["kappa_x_lower"], again["kappa_x_lower"], rtol=1e-12)


def test_validity_gold_series_and_mapping_equal_memory() -> None:
    """A gold Series goes to each partition restricted to its items; gold for items in
    no partition is counted as unused, as in memory; a mapping label -> column reads
    two labels' gold columns; the warnings are the in-memory ones."""
    df = _frame(3, n_items=90)
    gold = df.groupby("item")["gold"].first()
    gold = pd.concat([gold, pd.Series([1.0, 2.0], index=["nowhere1", "nowhere2"])])
    data = df.drop(columns=["gold", "score"])
    ddf, mem = _split(data, 4)

    def caught(fn: object) -> tuple[object, list[tuple[type, str]]]:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = fn()  # type: ignore[operator]
        return out, sorted((w.category.__name__, str(w.message)) for w in seen)

    got, got_w = caught(lambda: xrr.validity(ddf, gold=gold).compute())
    want, want_w = caught(lambda: xrr.validity(mem, gold=gold))
    _same(got.summary, want.summary)
    _same(got.classes, want.classes)
    assert got.attrs == want.attrs and want.attrs["n_gold_unused"] >= 2
    assert got_w == want_w and any("no annotation in the data" in m for _, m in want_w)
    two = df.assign(gold2=df["gold"]).drop(columns="score")
    two["joy2"] = two["joy"]
    ddf2, mem2 = _split(two, 3)
    mapping = {"joy": "gold", "joy2": "gold2"}
    got = _quiet(lambda: xrr.validity(ddf2, gold=mapping).compute())
    want = _quiet(lambda: xrr.validity(mem2, gold=mapping))
    _same(got.summary, want.summary)


def test_validity_on_dask_refuses_a_replication_named_like_the_gold() -> None:
    df = _frame(2).drop(columns="score")
    df["pool"] = df["pool"].replace({"P0": "other"})
    with pytest.raises(InputError, match=r"named 'other'.*rename it"):
        xrr.validity(dd.from_pandas(df, npartitions=2), gold="gold").compute()


def test_chunked_xarray_equals_memory() -> None:
    """A Dataset chunked along items: each chunk holds whole items, in the Dataset's
    item order."""
    rng = np.random.default_rng(6)
    joy = rng.integers(0, 3, (70, 2, 5)).astype(float)
    joy[rng.random(joy.shape) < 0.3] = np.nan
    ds = xr.Dataset({"joy": (("item", "pool", "rater"), joy)},
                    coords={"item": [f"t{i}" for i in range(70)], "pool": ["A", "B"],
                            "rater": [f"w{r}" for r in range(5)]})
    chunked = ds.chunk(item=17)
    for call in (lambda d: xrr.rater_agreement(d, replication="pool"),
                 lambda d: xrr.item_disagreement(d, level="nominal", replication="pool")):
        got = _quiet(lambda c=call: c(chunked).compute())
        want = _quiet(lambda c=call: c(ds))
        assert got.equals(want) or _close_ds(got, want)


def _close_ds(a: object, b: object) -> bool:
    for name in b.data_vars:  # type: ignore[attr-defined]
        np.testing.assert_allclose(np.asarray(a[name], float),  # type: ignore[index]
                                   np.asarray(b[name], float), rtol=1e-12,  # type: ignore[index]
                                   equal_nan=True)
    return True


def test_warnings_reach_the_caller() -> None:
    """The UndefinedWarnings of the finalize are raised by compute, in the caller, as
    in memory; the raters below min_items (counted, not ranked: no warning) come back
    in attrs, as in memory."""
    df = _frame(9).drop(columns=["gold", "score"])
    ddf, _ = _split(df, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xrr.rater_agreement(ddf, level="nominal", min_items=10).compute()
    want = _quiet(lambda: xrr.rater_agreement(df, level="nominal", min_items=10))
    assert got.attrs["n_below_min_items"] == want.attrs["n_below_min_items"] > 0
    assert int(got["rank"].isna().sum()) == want.attrs["n_below_min_items"]
    with pytest.warns(UndefinedWarning, match="items with one annotation"):
        xrr.item_disagreement(ddf, level="nominal").compute()


def test_bootstrap_too_large_for_a_partition_is_refused() -> None:
    """The replicate sums of a rater bootstrap are held per partition: too many raters
    x replicates is refused with the ways round, before any partition computes."""
    rng = np.random.default_rng(0)
    n = 3000
    df = pd.DataFrame({"item": np.repeat(np.arange(n // 2), 2), "rater": np.arange(n),
                       **{f"l{j}": rng.integers(0, 6, n) for j in range(8)}})
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(InputError, match=r"GiB per partition.*interval='percentile'"):
        xrr.rater_agreement(ddf, level="ordinal", ci=0.9, n_boot=1000, seed=1).compute()


def test_what_dask_cannot_do_is_refused_when_the_call_is_made() -> None:
    """items='common' and analytic intervals that read every annotation used to fail
    only at compute(), in a worker, after the survey; now the call itself says why and
    the way round (the ICC's F interval, from sums, still works lazily)."""
    df = _frame(4).drop(columns=["gold"])
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(InputError, match=r"items='common' needs the annotations in memory"):
        ddf.xrr.report(items="common")
    with pytest.raises(InputError, match=r"items='common' needs"):
        xrr.summary(ddf, items="common")
    with pytest.raises(InputError, match=r"analytic interval of gwet.*method='bootstrap'"):
        ddf.xrr.irr(metric="gwet", ci=0.9)
    lazy = ddf.xrr.irr(metric="gwet", ci=0.9, method="bootstrap", n_boot=30, seed=1)
    assert type(lazy).__name__ == "Lazy"
    from xrr_accessor.datasets import simulate

    dense = simulate(n_items=80, labels=["joy"], pools=["A", "B"], seed=1)
    kw = dict(metric="icc", form="2,1", ci=0.9)
    got = _quiet(lambda: dd.from_pandas(dense, npartitions=3).xrr.irr(**kw).compute())
    want = _quiet(lambda: xrr.irr(dense, **kw))
    np.testing.assert_allclose(got[["lower", "upper"]].to_numpy(float),
                               want[["lower", "upper"]].to_numpy(float), rtol=1e-10)


def _with_metadata(seed: int) -> pd.DataFrame:
    """Labels beside metadata the reader leaves out: a domain per item (text), a long
    text per item (free text), a numeric id per item, and a rater group per rater."""
    df = _frame(seed, n_items=60).drop(columns=["gold", "pool"])
    codes = pd.factorize(df["item"], sort=True)[0]
    df["domain"] = np.where(codes % 3 == 0, "news", np.where(codes % 3 == 1, "blog", "chat"))
    df["text"] = "a fairly long piece of text that annotators read, number " + df["item"]
    df["doc_id"] = 100_000 + codes * 7
    df["group"] = df["rater"].map(lambda r: "g1" if r in ("w0", "w1", "w2") else "g2")
    return df


@settings(max_examples=6, deadline=None, phases=[Phase.explicit, Phase.generate])
@given(seed=st.integers(0, 1000), parts=st.integers(1, 5), by_domain=st.booleans())
def test_labels_are_inferred_over_all_partitions_as_in_memory(seed: int, parts: int,
                                                              by_domain: bool) -> None:
    """However the rows are cut (sorted by domain, each partition may hold one domain
    only and would keep it as a label), the lazy call leaves out what the eager reader
    leaves out, with the same warning, and computes the same numbers."""
    df = _with_metadata(seed)
    if by_domain:
        df = df.sort_values("domain", kind="stable").reset_index(drop=True)
    ddf, mem = _split(df, parts)

    def run(call: object) -> tuple[object, list[str]]:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = call()  # type: ignore[operator]
        return out, sorted(str(w.message) for w in seen if "labels inferred" in str(w.message))

    want, want_w = run(lambda: xrr.irr(mem))
    got, got_w = run(lambda: xrr.irr(ddf).compute())
    pd.testing.assert_series_equal(got, want, check_index_type=False)
    assert got_w == want_w and want_w and "'domain'" in want_w[0]
    raters, _ = run(lambda: xrr.rater_agreement(ddf).compute())
    _same(raters, _quiet(lambda: xrr.rater_agreement(mem)))


def test_labels_inferred_on_item_indexed_partitions() -> None:
    """Partitions of whole items with known divisions run in one graph; when each holds
    one domain (item ids that sort by domain), each partition keeps the domain as a
    label and the graph stops; compute() then reads them again with the labels decided
    over all of them, and warns as in memory."""
    df = _with_metadata(3)
    df["item"] = df["domain"] + "-" + df["item"]
    ddf = dd.concat([dd.from_pandas(g.set_index("item").sort_index(), npartitions=1)
                     for _, g in df.groupby("domain")])
    assert ddf.known_divisions and ddf.npartitions == 3
    assert ddf.map_partitions(lambda p: pd.Series([p["domain"].nunique()])).compute(
    ).eq(1).all()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        got = ddf.xrr(item="item").irr().compute()
    with warnings.catch_warnings(record=True) as seen_mem:
        warnings.simplefilter("always")
        want = xrr.irr(ddf.compute().reset_index())
    pd.testing.assert_series_equal(got, want, check_index_type=False)
    said = [str(w.message) for w in seen if "labels inferred" in str(w.message)]
    assert said and said == [str(w.message) for w in seen_mem
                             if "labels inferred" in str(w.message)]


@pytest.mark.parametrize("seed", [19, 57, 60, 68])
def test_bca_ties_with_the_estimate_are_ties_whatever_the_summation_order(seed: int) -> None:
    """Found by a helper: raters with few items have replicates equal to the estimate;
    summed over partitions they differ from it by rounding, and BCa's z0 counted them
    on one side (dask) or as ties (memory), so the limits jumped. A replicate within
    1e-12 of the estimate is now a tie on both paths."""
    df = _frame(8, n_items=60).drop(columns="gold")
    ddf, mem = _split(df, 3)
    kw = dict(ci=0.9, n_boot=50, seed=seed)
    _same(_quiet(lambda: xrr.rater_agreement(ddf, **kw).compute()),
          _quiet(lambda: xrr.rater_agreement(mem, **kw)))


def test_item_sums_in_a_dask_partition_take_one_thread(monkeypatch) -> None:
    """item_disagreement's item sums run in blocks on threads in memory, but on one
    thread in a dask partition (dask runs partitions in threads of its own): the
    blocks' thread count asked for, with blocks of 7 groups."""
    from xrr_accessor.diagnostics import items

    asked: list[object] = []
    real = items.in_blocks
    monkeypatch.setattr(items, "MIN_BLOCK", 7)
    monkeypatch.setattr(items, "in_blocks", lambda n, fn, m, threads=None: asked.append(
        threads) or real(n, fn, m, threads=threads))
    df = _frame(3, n_items=60)
    ddf, mem = _split(df, 2)
    lazy = _quiet(lambda: xrr.item_disagreement(ddf, replication="pool").compute())
    assert 1 in asked  # the partitions' sums
    asked.clear()
    eager = _quiet(lambda: xrr.item_disagreement(mem, replication="pool"))
    assert asked and 1 not in asked  # in memory: as many threads as cores
    _same(lazy, eager)
