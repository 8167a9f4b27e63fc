"""dask-backed annotations: same numbers as in memory, lazy until compute, on a cluster.

The in-memory path is the reference here: it is itself tested against naive
formulas, published values and peers elsewhere. What these tests add is that
splitting the items into partitions, surveying them, coding each partition
against the merged indexes and adding the statistics changes nothing.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import xrr_accessor as xrr
from xrr_accessor.errors import DroppedDataWarning, InputError, LevelError, UndefinedWarning
from xrr_accessor.lazy.graph import compute_all

from helpers import examples

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

TOL = 1e-10


def _frame(seed: int, n_items: int = 120, reps: int = 3, raters: int = 4, k: int = 3,
           missing: float = 0.2) -> pd.DataFrame:
    """Random long annotations: items x replications x raters, two labels, missing cells."""
    rng = np.random.default_rng(seed)
    idx = pd.MultiIndex.from_product(
        [[f"i{i:03d}" for i in range(n_items)], [f"pool{r}" for r in range(reps)],
         [f"w{j}" for j in range(raters)]], names=["item", "pool", "rater"])
    df = idx.to_frame(index=False)
    truth = rng.integers(0, k, n_items)
    for name in ("joy", "anger"):
        noisy = rng.random(len(df)) < 0.4
        vals = np.where(noisy, rng.integers(0, k, len(df)), np.repeat(truth, reps * raters))
        df[name] = np.where(rng.random(len(df)) < missing, np.nan, vals)
    keep = rng.random(len(df)) > missing / 2  # some rows missing altogether
    return df[keep].reset_index(drop=True)


def _partitioned(df: pd.DataFrame, n: int) -> object:
    """Items in up to n partitions, each item whole in one."""
    codes = pd.factorize(df["item"], sort=True)[0]
    keyed = df.set_index(pd.Index(codes, name="_k")).sort_index(kind="stable")
    return dd.from_pandas(keyed, npartitions=n).reset_index(drop=True)


def _close(a: object, b: object) -> None:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert x.shape == y.shape
    np.testing.assert_allclose(x, y, rtol=0, atol=TOL, equal_nan=True)


def _quiet(fn: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()  # type: ignore[operator]


CALLS = {
    "alpha": lambda d: d.xrr.irr(),
    "alpha ordinal": lambda d: d.xrr.irr(level="ordinal"),
    "alpha interval": lambda d: d.xrr.irr(level="interval"),
    "fleiss": lambda d: d.xrr.irr(metric="fleiss"),
    "gwet quadratic": lambda d: d.xrr.irr(metric="gwet", weights="quadratic"),
    "iota": lambda d: d.xrr.irr(metric="iota"),
    "kappa_x": lambda d: d.xrr.cross_kappa(),
    "kappa_x interval": lambda d: d.xrr.cross_kappa(level="interval"),
    "normalized": lambda d: d.xrr.normalized(),
    "normalized reference": lambda d: d.xrr.normalized(reference="pool0"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_dask_frame_equals_memory(name: str) -> None:
    df = _frame(0)
    call = CALLS[name]
    lazy = call(_partitioned(df, 4))
    assert isinstance(lazy, xrr.Lazy)
    _close(_quiet(lazy.compute), _quiet(lambda: call(df)))


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000), parts=st.integers(1, 7), reps=st.integers(2, 3),
       raters=st.integers(2, 9), k=st.integers(2, 5),
       missing=st.floats(0.0, 0.6))
def test_dask_random_partitions_equal_memory(seed: int, parts: int, reps: int, raters: int,
                                            k: int, missing: float) -> None:
    """Random shapes and partitionings (a partition may lack categories, raters or a
    replication entirely): the summary (IRR, kappa_x, normalized) is the in-memory one."""
    df = _frame(seed, n_items=40, reps=reps, raters=raters, k=k, missing=missing)
    mem = _quiet(lambda: df.xrr.summary(irr="alpha"))
    lazy = _quiet(lambda: _partitioned(df, parts).xrr.summary(irr="alpha").compute())
    assert lazy.columns.tolist() == mem.columns.tolist()  # dask may store text as pyarrow
    assert lazy.index.tolist() == mem.index.tolist()
    _close(lazy, mem)


def test_partition_missing_a_category_and_a_label() -> None:
    """Categories and labels are merged over partitions: a label/value long frame
    whose first partition has neither label 'anger' nor category 'c'."""
    first = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                          "label": "joy", "value": ["x", "x", "y", "x"]})
    second = pd.DataFrame({"item": [3, 3, 4, 4, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
                           "label": ["joy"] * 4 + ["anger"] * 4,
                           "value": ["c", "c", "y", "y", "x", "y", "y", "y"]})
    df = pd.concat([first, second], ignore_index=True)
    ddf = dd.concat([dd.from_pandas(first, npartitions=1), dd.from_pandas(second, npartitions=1)])
    assert ddf.npartitions == 2 and len(ddf.partitions[0].compute()) == 4
    got = _quiet(lambda: ddf.xrr.irr().compute())
    want = _quiet(lambda: df.xrr.irr())
    assert got.index.tolist() == want.index.tolist()
    _close(got, want)


def test_partition_without_any_value_of_a_label() -> None:
    """A label with no value at all in one partition (its annotations all missing
    there) is missing there, not an error."""
    df = _frame(13)
    df.loc[df["item"] < "i040", "anger"] = np.nan  # the first partition has no anger
    ddf = _partitioned(df, 3)
    assert ddf.partitions[0].compute()["anger"].isna().all()
    _close(_quiet(ddf.xrr.normalized().compute), _quiet(df.xrr.normalized))


def test_report_and_summary_counts() -> None:
    df = _frame(3)
    ddf = _partitioned(df, 5)
    mem, lazy = _quiet(df.xrr.report), _quiet(lambda: ddf.xrr.report().compute())
    pd.testing.assert_frame_equal(lazy.frame, mem.frame, atol=TOL, rtol=0,
                                  check_index_type=False, check_dtype=False)
    assert lazy.attrs["replications"] == mem.attrs["replications"]


def test_chunked_dataset_and_dataarray_equal_memory() -> None:
    ds = _quiet(lambda: _frame(4).xrr(replication="pool").to_xarray())
    for data in (ds, ds.to_dataarray("label")):
        chunked = data.chunk(item=23)
        for call in (CALLS["alpha"], CALLS["kappa_x"], CALLS["normalized"]):
            got = _quiet(call(chunked).compute)
            want = _quiet(lambda c=call, d=data: c(d))
            assert isinstance(got, xr.DataArray)
            xr.testing.assert_allclose(got, want, atol=TOL, rtol=0)
    got = _quiet(ds.chunk(item=50).xrr.summary().compute)
    assert isinstance(got, xr.Dataset)
    xr.testing.assert_allclose(got, _quiet(ds.xrr.summary), atol=TOL, rtol=0)


def _forbid(*args: object, **kwargs: object) -> object:
    raise AssertionError("computed before .compute()")


def test_nothing_computes_before_compute() -> None:
    """Building the lazy result runs no task (a scheduler that raises is in force);
    compute runs it."""
    df = _frame(5)
    ddf = _partitioned(df, 3)
    ds = df.xrr(replication="pool").to_xarray().chunk(item=40)
    with dask.config.set(scheduler=_forbid):
        lazies = [ddf.xrr.irr(), ddf.xrr.cross_kappa(), ddf.xrr.normalized(),
                  ddf.xrr.summary(), ddf.xrr.report(), ds.xrr.irr(), ds.xrr.summary()]
        with pytest.raises(AssertionError, match="computed before"):
            lazies[0].compute()
    assert all(isinstance(x, xrr.Lazy) for x in lazies)
    _close(_quiet(lazies[1].compute), _quiet(df.xrr.cross_kappa))


def test_dask_compute_shares_the_passes() -> None:
    """Two calls on the same data computed together read each partition's survey once."""
    df = _frame(6)
    ddf = _partitioned(df, 4)
    a, b = ddf.xrr.irr(), ddf.xrr.cross_kappa()
    graph = dict(a.__dask_graph__()) | dict(b.__dask_graph__())
    surveys = [k for k in graph if str(k[0] if isinstance(k, tuple) else k).startswith("survey")]
    assert len(surveys) == ddf.npartitions
    x, y = _quiet(lambda: compute_all(a, b))
    _close(_quiet(lambda: dask.compute(a)[0]), x)  # a dask collection too
    _close(x, _quiet(df.xrr.irr))
    _close(y, _quiet(df.xrr.cross_kappa))


def test_items_split_across_partitions_are_computed_exactly() -> None:
    """dd.from_pandas(df, npartitions=...) splits items across partitions: the library
    shuffles by item itself (no "repartition first"), and the rows keep their input
    order (duplicates='first' keeps the first annotation, as in memory)."""
    df = _frame(7)
    ddf = dd.from_pandas(df.sort_values("pool"), npartitions=3, sort=False)
    _close(_quiet(ddf.xrr.irr().compute), _quiet(df.xrr.irr))
    twice = pd.concat([df, df.assign(joy=(df["joy"] + 1) % 3)], ignore_index=True)
    twice = twice.sample(frac=1.0, random_state=0)
    split = dd.from_pandas(twice, npartitions=5, sort=False)
    for policy in ("first", "last", "mean"):
        want = _quiet(lambda p=policy: twice.xrr(duplicates=p).irr())
        _close(_quiet(split.xrr(duplicates=policy).irr().compute), want)
    with pytest.raises(InputError, match="duplicate"):
        split.xrr.irr().compute()


def _ran(fn) -> list[str]:
    """The names of the tasks a call runs (dask's local schedulers)."""
    from dask.callbacks import Callback

    keys: list[str] = []

    class Record(Callback):
        def _pretask(self, key, dsk, state):
            keys.append(str(key[0] if isinstance(key, tuple) else key))

    with Record():
        _quiet(fn)
    return keys


def test_shuffle_only_when_an_item_is_split() -> None:
    """Partitions of whole items without known divisions: surveyed, found whole, and
    their statistics computed from the same partitions (no shuffle); split items:
    shuffled by item (the survey tells which)."""
    df = _frame(13)
    whole = _partitioned(df, 3)
    assert not whole.known_divisions
    ran = _ran(whole.xrr.irr().compute)
    assert not any("shuffle" in k for k in ran)
    assert sum(k.startswith("survey") for k in ran) == 3
    split = dd.from_pandas(df.sample(frac=1.0, random_state=1), npartitions=3, sort=False)
    ran = _ran(split.xrr.irr().compute)
    assert any("shuffle" in k for k in ran)


def _metric_call(name: str):
    """The public call of registry entry ``name`` on frames like :func:`_frame`'s."""
    from xrr_accessor.coefficients import REGISTRY

    entry = REGISTRY[name]
    if entry.kind == "cross":
        if name == "normalized_kappa_x":
            return lambda d: d.xrr.normalized()
        return lambda d: d.xrr.cross_kappa()
    kw: dict = {"metric": name}
    if name == "icc":
        kw["form"] = "2,1"
    return lambda d: d.xrr.irr(**kw)


def _split_partitions(df: pd.DataFrame, seed: int, parts: int) -> object:
    """Rows in a random order cut into ``parts`` partitions: items split across them."""
    rows = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return dd.from_pandas(rows, npartitions=parts, sort=False)


def _outcome(fn):
    """A call's value, or the type and text of the error it raised."""
    try:
        return _quiet(fn)
    except (InputError, LevelError) as exc:
        return (type(exc), str(exc))


@settings(max_examples=examples(2, 12), deadline=None,
          phases=[Phase.explicit, Phase.generate])
@given(seed=st.integers(0, 10_000), parts=st.integers(2, 6), raters=st.integers(2, 5),
       missing=st.floats(0.0, 0.4))
def test_split_items_equal_memory_for_every_registry_entry(seed: int, parts: int,
                                                          raters: int,
                                                          missing: float) -> None:
    """Random partitionings that split items, for every coefficient in the registry
    (iterated, not hand-picked): the dask result is the in-memory one."""
    from xrr_accessor.coefficients import REGISTRY

    df = _frame(seed, n_items=30, reps=2, raters=raters, missing=missing)
    ddf = _split_partitions(df, seed, parts)
    df = ddf.compute()  # the same rows in the same order in memory (first-seen orders)
    codes = pd.factorize(df["item"])[0]
    assert parts == 1 or ddf.map_partitions(lambda p: p["item"].drop_duplicates()).compute(
    ).duplicated().any() or len(set(codes)) < 2  # some item really is split
    checked = 0
    for name in REGISTRY:
        want = _outcome(lambda n=name: _metric_call(n)(df))
        got = _outcome(lambda n=name: _metric_call(n)(ddf).compute())
        if isinstance(want, tuple):  # e.g. iota or ICC refusing this design: same error
            assert got == want
        else:
            _close(got, want)
            checked += 1
    assert checked >= len(REGISTRY) - 3


def test_item_index_with_divisions_needs_no_check() -> None:
    df = _frame(8)
    ddf = dd.from_pandas(df.set_index("item").sort_index(), npartitions=4)
    assert ddf.known_divisions
    lazy = ddf.xrr(item="item").irr()
    graph = dict(lazy.__dask_graph__())
    surveys = [v for k, v in graph.items() if str(k).find("survey") >= 0]
    assert surveys
    _close(_quiet(lazy.compute), _quiet(df.xrr.irr))


def test_refusals_name_the_way_out() -> None:
    ddf = _partitioned(_frame(9), 2)
    with pytest.raises(InputError, match=r"analytic interval of gwet.*method='bootstrap'"):
        ddf.xrr.irr(metric="gwet", ci=0.95).compute()
    with pytest.raises(InputError, match="other= with dask-backed data"):
        ddf.xrr.cross_kappa(ddf)
    words = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                          "joy": ["lo", "hi", "hi", "hi"]})
    lazy = dd.from_pandas(words, npartitions=2, sort=False).xrr.irr(level="ordinal")
    with pytest.raises(LevelError, match="column 'joy' holds unordered categories"):
        lazy.compute()
    with pytest.raises(LevelError, match="non-numeric"):
        dd.from_pandas(words, npartitions=2, sort=False).xrr.irr(level="interval").compute()


def test_functions_without_a_lazy_path_say_so() -> None:
    ddf = _partitioned(_frame(14), 2)
    for call in (lambda: xrr.per_category(ddf), lambda: xrr.compare(ddf)):
        with pytest.raises(TypeError, match=r"does not take dask-backed data.*rater_agreement, "
                           r"item_disagreement and validity do, lazily.*ddf.compute\(\)"):
            call()


def test_warnings_of_partitions_reach_the_caller() -> None:
    """A worker's warnings (blank strings read as missing) and the finalize warnings
    (undefined cells) are raised in the client by compute, at the caller's line."""
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "joy": ["x", " ", "x", "x", "y", "y"], "awe": "same"})
    lazy = dd.from_pandas(df, npartitions=3, sort=False).xrr.irr()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lazy.compute()
    kinds = {w.category for w in caught}
    assert DroppedDataWarning in kinds and UndefinedWarning in kinds
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, UserWarning))


def test_read_annotations_lazy_matches_eager(tmp_path: object) -> None:
    from xrr_accessor.io import read_annotations

    pytest.importorskip("pyarrow")
    df = _frame(10)
    df["shard"] = df["item"].str[-1]
    for shard, part in df.groupby("shard"):
        part.drop(columns="shard").to_parquet(tmp_path / f"p-{shard}.parquet")  # type: ignore[operator]
        part.drop(columns="shard").to_csv(tmp_path / f"p-{shard}.csv", index=False)  # type: ignore[operator]
    for pattern in ("*.parquet", "*.csv"):
        lazy = read_annotations(tmp_path / pattern, lazy=True, rater="rater")  # type: ignore[operator]
        assert type(lazy).__module__.startswith("dask")
        eager = read_annotations(tmp_path / pattern, rater="rater")  # type: ignore[operator]
        _close(_quiet(lazy.xrr.normalized().compute), _quiet(eager.xrr.normalized))
    with pytest.raises(InputError, match="'judge'"):
        read_annotations(tmp_path / "*.parquet", lazy=True, rater="judge")  # type: ignore[operator]


def test_local_cluster_runs_kernels_in_worker_processes() -> None:
    """On a dask.distributed LocalCluster (2 worker processes) the partitions' passes
    (numba kernels included) are pickled, run in the workers, and give the same numbers."""
    distributed = pytest.importorskip("distributed")
    df = _frame(11, n_items=200)
    ddf = _partitioned(df, 4)
    boot = dict(ci=0.9, n_boot=120, seed=5, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        with distributed.get_task_stream(client) as stream:
            got = _quiet(ddf.xrr.normalized().compute)
            got_ci = _quiet(ddf.xrr.cross_kappa(**boot).compute)
            raters, items = _quiet(lambda: compute_all(  # a Job's sums, per-item pieces
                ddf.xrr.rater_agreement(ci=0.9, n_boot=60, seed=5),
                ddf.xrr.item_disagreement(level="nominal")))
        workers = set(client.scheduler_info()["workers"])
    ran = {t["worker"] for t in stream.data if "partition_stats" in str(t["key"])}
    assert ran and ran <= workers
    _close(got, _quiet(df.xrr.normalized))
    want_ci = _quiet(lambda: df.xrr.cross_kappa(**boot))
    _close(got_ci.loc[want_ci.index, want_ci.columns], want_ci)
    mem = ddf.compute()  # the rows in the partitions' order (ties among items keep it)
    pd.testing.assert_frame_equal(
        raters, _quiet(lambda: mem.xrr.rater_agreement(ci=0.9, n_boot=60, seed=5)),
        rtol=1e-12, check_index_type=False)
    pd.testing.assert_frame_equal(items, _quiet(lambda: mem.xrr.item_disagreement(
        level="nominal")), rtol=1e-12, check_index_type=False)


def test_in_memory_path_never_imports_dask() -> None:
    code = ("import sys, pandas as pd, xrr_accessor\n"
            "df = pd.DataFrame({'item': [1, 1, 2, 2] * 2, 'rater': list('abab') * 2,\n"
            "                   'pool': list('xxxxyyyy'), 'j': [1, 1, 0, 1, 1, 0, 0, 1]})\n"
            "df.xrr.summary(); df.xrr.report()\n"
            "assert 'dask' not in sys.modules, 'dask imported'\n"
            "import dask.dataframe as dd\n"
            "assert hasattr(dd.from_pandas(df, npartitions=1), 'xrr')\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_second_pass_reads_partitions_again_rather_than_holding_them() -> None:
    """The statistics pass depends on clones of the partitions, not on the survey's:
    with shared keys dask would hold every partition until the last survey finished
    (the whole data set in memory)."""
    from dask.core import get_dependencies

    lazy = _partitioned(_frame(12), 4).xrr.irr()
    graph = dict(lazy.__dask_graph__())

    def inputs(prefix: str) -> set:
        keys = [k for k in graph if str(k).startswith(prefix)
                or (isinstance(k, tuple) and str(k[0]).startswith(prefix))]
        return set().union(*(get_dependencies(graph, k) for k in keys))

    survey_in = {k for k in inputs("survey") if "merged" not in str(k)}
    stats_in = inputs("partition_stats")
    assert len(survey_in) == 4 and len(stats_in & survey_in) == 0


def test_value_types_mixed_across_files_are_refused_as_in_memory(tmp_path) -> None:
    """Issue 25: one CSV of 0/1 and one whose '?' makes its column text. Each file
    alone passes the reader; together they mix ints and text, which the eager read
    refuses, so the lazy read must too (it returned a wrong alpha, 0/1 counted twice)."""
    from xrr_accessor.io import read_annotations

    rng = np.random.default_rng(0)
    df = pd.DataFrame([(f"i{i:02d}", r, int(rng.integers(0, 2))) for i in range(40)
                       for r in "abc"], columns=["item", "rater", "joy"])
    df.iloc[:60].to_csv(tmp_path / "one.csv", index=False)
    two = df.iloc[60:].astype({"joy": object})
    two.iloc[0, 2] = "?"
    two.to_csv(tmp_path / "two.csv", index=False)
    with pytest.raises(LevelError, match="column 'joy' mixes value types"):
        _quiet(read_annotations(tmp_path).xrr.irr)
    lazy = read_annotations(tmp_path, lazy=True).xrr.irr()
    with pytest.raises(LevelError, match=r"column 'joy' mixes value types \(int, str\)"):
        _quiet(lazy.compute)  # the shuffle by item may bring both files into a partition
    # partitioned by item with known divisions, one file per partition: each partition
    # alone passes the reader, the partitions together do not
    files = [pd.read_csv(tmp_path / f).set_index("item") for f in ("one.csv", "two.csv")]
    from dask import delayed

    by_item = dd.from_delayed([delayed(f) for f in files], meta=files[1].iloc[:0],
                              divisions=["i00", "i20", "i39"], verify_meta=False)
    assert by_item.known_divisions
    with pytest.raises(LevelError, match=r"column 'joy' mixes value types \(int, str\) across"):
        _quiet(by_item.xrr(item="item").irr().compute)
    # without the '?', both paths agree
    two.iloc[0, 2] = 1
    two.to_csv(tmp_path / "two.csv", index=False)
    _close(_quiet(read_annotations(tmp_path, lazy=True).xrr.irr().compute),
           _quiet(read_annotations(tmp_path).xrr.irr))
