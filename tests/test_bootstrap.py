"""Bootstrap intervals, paired comparisons and the planner (issue: intervals for xRR).

The kernel's replicates are checked against a naive bootstrap written here
(resample a DataFrame's items with pandas, rerun the point estimate) on the
same draws; BCa against its formula; determinism; bootstrap against analytic
standard errors; coverage of the known truth of simulated replications; and
the errors and warnings.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.coefficients import REGISTRY, lookup
from xrr_accessor.datasets import PRESETS, simulate, simulate_replications, true_reliability
from xrr_accessor.engine import draws, pipeline
from xrr_accessor.errors import InputError, UndefinedWarning
from xrr_accessor.kernels.resample import poisson_weights
from xrr_accessor.uncertainty import intervals, resample


def _small(n_items: int = 60, seed: int = 3) -> pd.DataFrame:
    return simulate(n_items=n_items, labels=["joy", "awe"], pools=["A", "B"], seed=seed)


def _naive_replicate(df: pd.DataFrame, counts: np.ndarray, items: pd.Index) -> pd.DataFrame:
    """The frame of one replicate: item i repeated counts[i] times, each copy a new item."""
    parts = []
    for copy_id, item in enumerate(np.repeat(np.asarray(items, dtype=object), counts)):
        part = df[df["item_id"] == item].copy()
        part["item_id"] = f"copy {copy_id}"
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _irr_params(entry):
    return {"form": "2,1"} if "form" in entry.params else {}


@pytest.mark.parametrize("metric", [e.name for e in REGISTRY.values()])
def test_replicates_equal_naive_bootstrap_on_the_same_draws(metric):
    """Every registered coefficient: the kernel's replicate b equals the point
    estimate of the frame where each item is repeated as often as its weight in
    replicate b (Poisson weights keyed by the item id)."""
    entry = REGISTRY[metric]
    df = _small(40)
    if metric == "cohen":  # exactly two raters per item
        df = df.groupby(["item_id", "pool"]).head(2)
    level = "interval" if metric == "icc" else "nominal"
    others = [lookup("alpha")] if entry.kind == "cross" else []
    params = {"irr": "alpha"} if entry.name == "normalized_kappa_x" else _irr_params(entry)
    lvl_entry = pipeline.entry_level(entry, level, None) if entry.kind == "irr" else level
    run = pipeline.run(df, [entry, *others], level=lvl_entry)
    reps = resample.replicate(run, [resample.Target("t", entry, params)], n_boot=3, seed=7)
    seeds, _ = resample.seeds(7, 3)
    counts = poisson_weights(draws.item_keys(run.ann.items), seeds, 1.0).T.astype(int)
    assert (counts != 1).any(axis=1).all()  # every replicate really reweights
    for b in range(3):
        frame = _naive_replicate(df, counts[b], run.ann.items)
        again = pipeline.run(frame, [entry, *others], level=lvl_entry)
        want = again.estimate(entry, **params).value
        np.testing.assert_allclose(reps.boot["t"][b], want, rtol=1e-10, atol=1e-12,
                                   equal_nan=True)


def test_poisson_weights_are_poisson_and_keyed_by_item():
    """Weights are Poisson(rate) (mean, variance, P(0), P(2)), independent across
    items and replicates, and a function of (seed, replicate, item key) only."""
    keys = draws.item_keys(pd.Index([f"item {i}" for i in range(200)]))
    w = poisson_weights(keys, resample.seeds(1, 2000)[0], 1.0)
    assert w.mean() == pytest.approx(1.0, rel=0.01)
    assert w.var() == pytest.approx(1.0, rel=0.02)
    assert (w == 0).mean() == pytest.approx(np.exp(-1), rel=0.02)
    assert (w == 2).mean() == pytest.approx(np.exp(-1) / 2, rel=0.03)
    assert abs(np.corrcoef(w[0], w[1])[0, 1]) < 0.1  # two items
    assert abs(np.corrcoef(w[:, 0], w[:, 1])[0, 1]) < 0.2  # two replicates
    # another rate: Poisson(3)
    w3 = poisson_weights(keys, resample.seeds(1, 500)[0], 3.0)
    assert w3.mean() == pytest.approx(3.0, rel=0.02)
    assert w3.var() == pytest.approx(3.0, rel=0.05)
    # keyed: a subset of the items, in another order, gets the same rows
    pick = np.array([150, 3, 77])
    again = poisson_weights(keys[pick], resample.seeds(1, 2000)[0], 1.0)
    np.testing.assert_array_equal(again, w[pick])


@pytest.mark.parametrize("ids, same", [
    (pd.Index(["a", "b", "é"], dtype=object), pd.Index(["a", "b", "é"], dtype="str")),
    (pd.Index(["a", "b", "é"], dtype=object),
     pd.Index(["a", "b", "é"], dtype="string[pyarrow]")),
    (pd.Index(["a", "b"], dtype=object), pd.Index(["a", "b"]).astype("category")),
    (pd.Index([1, 2, 3]), pd.Index([1.0, 2.0, 3.0])),
    (pd.Index([1, 2, 3], dtype="int32"), pd.Index([1, 2, 3], dtype=object)),
    (pd.Index([1, 2, 3]), pd.Index([1, 2, 3], dtype="Int64")),
    (pd.Index([1, "a"], dtype=object), pd.Index([np.int64(1), "a"], dtype=object)),
])
def test_item_keys_equal_for_equal_ids_whatever_the_dtype(ids, same):
    np.testing.assert_array_equal(draws.item_keys(ids), draws.item_keys(same))


def test_item_keys_differ_for_different_ids():
    ids = pd.Index([1, "1", 1.5, "1.5", "a", "b", "", " ", ("a", 1), "ab", "ba", 2**40],
                   dtype=object)
    keys = draws.item_keys(ids)
    assert len(np.unique(keys)) == len(ids)
    many = draws.item_keys(pd.Index([f"t{i}" for i in range(100_000)]))
    assert len(np.unique(many)) == 100_000


@pytest.mark.filterwarnings("ignore:bootstrap intervals of rare labels")  # joy: 8% of 80
@pytest.mark.filterwarnings("ignore:some bootstrap intervals rest on few items")
def test_same_seed_same_intervals_other_seed_other_draws():
    df = _small(80)
    a = xrr.cross_kappa(df, ci=0.95, seed=11, n_boot=200)
    b = xrr.cross_kappa(df, ci=0.95, seed=11, n_boot=200)
    c = xrr.cross_kappa(df, ci=0.95, seed=12, n_boot=200)
    pd.testing.assert_frame_equal(a, b)
    assert not np.allclose(a["se"], c["se"])
    assert a.attrs["seed"] == 11 and a.attrs["n_boot"] == 200
    assert a.attrs["interval"] == "bca" and a.attrs["method"] == "bootstrap"


def test_replicates_independent_of_threads_and_block_size(monkeypatch):
    df = _small(80)
    entry = lookup("kappa_x", kind="cross")
    run = pipeline.run(df, [entry])
    target = [resample.Target("k", entry)]
    one = resample.replicate(run, target, n_boot=50, seed=5, threads=1)
    two = resample.replicate(run, target, n_boot=50, seed=5, threads=2)
    monkeypatch.setattr(draws, "MAX_BLOCK", 3)
    small_blocks = resample.replicate(run, target, n_boot=50, seed=5, threads=2)
    np.testing.assert_array_equal(one.boot["k"], two.boot["k"])
    np.testing.assert_array_equal(one.boot["k"], small_blocks.boot["k"])


@pytest.mark.filterwarnings("ignore:bootstrap intervals of rare labels")  # joy: 8% of 80
@pytest.mark.filterwarnings("ignore:some bootstrap intervals rest on few items")
def test_seed_none_reports_a_seed_that_repeats_the_draws():
    df = _small(80)
    first = xrr.cross_kappa(df, ci=0.9, n_boot=100)
    again = xrr.cross_kappa(df, ci=0.9, n_boot=100, seed=first.attrs["seed"])
    pd.testing.assert_frame_equal(first, again)


@pytest.mark.parametrize("metric", ["fleiss", "gwet", "bp", "percent", "conger", "alpha"])
def test_bootstrap_se_agrees_with_analytic_on_large_data(metric):
    df = simulate(n_items=3000, labels=["joy"], pools=["A"], raters_per_item=3,
                  coverage=1.0, single_rate=0.0, seed=4)
    analytic = xrr.irr(df, metric=metric, ci=0.95)
    boot = xrr.irr(df, metric=metric, ci=0.95, method="bootstrap", n_boot=400, seed=1)
    assert boot["estimate"].iloc[0] == pytest.approx(analytic["estimate"].iloc[0])
    assert boot["se"].iloc[0] == pytest.approx(analytic["se"].iloc[0], rel=0.10)


def _bca_by_formula(est, boot, jack, level):
    nd = NormalDist()
    z0 = nd.inv_cdf((np.sum(boot < est) + 0.5 * np.sum(boot == est)) / boot.size)
    d = jack.mean() - jack
    a = (d**3).sum() / (6 * ((d**2).sum()) ** 1.5)
    out = []
    for z in (nd.inv_cdf((1 - level) / 2), nd.inv_cdf((1 + level) / 2)):
        out.append(np.quantile(boot, nd.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))))
    return out


def test_bca_limits_follow_the_formula():
    rng = np.random.default_rng(0)
    boot = rng.gamma(2.0, 1.0, size=(999, 2, 3))
    jack = rng.gamma(2.0, 1.0, size=(40, 2, 3))
    est = np.full((2, 3), 1.7)
    lower, upper = intervals.limits(est, boot, 0.9, "bca", jack)
    for idx in np.ndindex(est.shape):
        want = _bca_by_formula(est[idx], boot[(slice(None), *idx)],
                               jack[(slice(None), *idx)], 0.9)
        assert lower[idx] == pytest.approx(want[0])
        assert upper[idx] == pytest.approx(want[1])
    p_lo, p_hi = intervals.limits(est, boot, 0.9, "percentile")
    np.testing.assert_allclose(p_lo, np.quantile(boot, 0.05, axis=0))
    np.testing.assert_allclose(p_hi, np.quantile(boot, 0.95, axis=0))


def test_jackknife_leaves_one_item_out_when_few():
    df = _small(30)
    entry = lookup("kappa_x", kind="cross")
    run = pipeline.run(df, [entry])
    reps = resample.replicate(run, [resample.Target("k", entry)], n_boot=2, seed=0,
                              jackknife=True)
    n = run.rows.n_items
    assert reps.jack["k"].shape[0] == n
    for i in (0, n // 2, n - 1):  # leave item i out, naively
        kept = df[df["item_id"] != run.ann.items[i]]
        want = xrr.cross_kappa(kept).to_numpy().reshape(-1)
        np.testing.assert_allclose(reps.jack["k"][i].reshape(-1), want, rtol=1e-10)


def test_coverage_of_simulated_truth_percentile_and_bca():
    """A small coverage study (the fuller one: benchmarks/interval_coverage.py): 95%
    intervals of kappa_x and normalized kappa_x over 40 simulated replications
    of 300 items with known truth cover it at close to the nominal rate."""
    truth = true_reliability(["sadness"], pools=["A", "B"])
    true_kx = float(truth.kappa_x.iloc[0, 0])
    true_norm = float(truth.normalized.iloc[0, 0])
    hits = {("kx", "bca"): 0, ("kx", "percentile"): 0, ("norm", "bca"): 0,
            ("norm", "percentile"): 0}
    runs = 40
    for s in range(runs):
        df = simulate_replications(n_items=300, labels=["sadness"], pools=["A", "B"],
                                   raters_per_item=3, seed=100 + s)
        for how in ("bca", "percentile"):
            kx = xrr.cross_kappa(df, ci=0.95, n_boot=300, seed=s, interval=how)
            nm = xrr.normalized(df, ci=0.95, n_boot=300, seed=s, interval=how)
            hits["kx", how] += bool(kx["lower"].iloc[0] <= true_kx <= kx["upper"].iloc[0])
            hits["norm", how] += bool(nm["lower"].iloc[0] <= true_norm <= nm["upper"].iloc[0])
    for key, hit in hits.items():
        # 95% nominal; 40 runs: a binomial sd of 3.4 points; fail below 80%
        assert hit / runs >= 0.80, (key, hit)


@pytest.mark.parametrize(("call", "match"), [
    (lambda df: xrr.cross_kappa(df, ci=1.5), "between 0 and 1"),
    (lambda df: xrr.cross_kappa(df, ci=0.95, n_boot=1), "n_boot"),
    (lambda df: xrr.cross_kappa(df, ci=0.95, interval="student"), "interval="),
    (lambda df: xrr.cross_kappa(df[df["item_id"].isin(df["item_id"].unique()[:8])],
                                ci=0.95), "needs at least 10 items"),
    (lambda df: xrr.compare(df[df["pool"] == "A"]), "two replications"),
    (lambda df: xrr.irr(df, ci=0.95, method="bootstrap", population=1000), "population="),
    (lambda df: xrr.irr(df, method="bootstrap"), "ci="),
    (lambda df: xrr.cross_kappa(df, ci=0.95, seed=-1), "seed="),
    (lambda df: xrr.plan(df, width=0), "width="),
])
def test_bad_bootstrap_input_is_a_clear_error(call, match):
    with pytest.raises(InputError, match=match):
        call(_small(60))


def test_few_items_and_undefined_replicates_warn():
    with pytest.warns(UndefinedWarning) as record:
        xrr.cross_kappa(_small(30), ci=0.95, n_boot=100, seed=0)
    assert any("items are unstable" in str(w.message) for w in record)
    with pytest.warns(UndefinedWarning) as record:
        xrr.normalized(_small(60), ci=0.95, n_boot=200, seed=0)
    text = " ".join(str(w.message) for w in record)
    assert "normalized kappa_x is undefined in some bootstrap replicates" in text
    assert "of 200 for label" in text


def test_summary_with_intervals_keeps_the_estimates():
    df = _small(100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        plain = xrr.summary(df)
        table = xrr.summary(df, ci=0.9, n_boot=100, seed=2)
        ds = xrr.summary(df.xrr.to_xarray(), ci=0.9, n_boot=100, seed=2)
    assert table.columns.names == ["statistic", "replication", "replication_other",
                                   "quantity"]
    est = table.xs("estimate", axis=1, level="quantity")
    pd.testing.assert_frame_equal(est, plain, check_names=False)
    lower = table.xs("lower", axis=1, level="quantity")
    upper = table.xs("upper", axis=1, level="quantity")
    assert ((lower <= upper) | lower.isna()).all().all()
    assert lower.notna().to_numpy().sum() >= lower.size - 1
    assert ds["kappa_x"].dims[-1] == "quantity"
    np.testing.assert_allclose(ds["irr"].sel(quantity="se").values,
                               table["irr"].xs("se", axis=1, level="quantity").to_numpy())


@pytest.mark.filterwarnings("ignore:normalized kappa_x exceeds 1")  # on other item sets
def test_compare_differences_and_p_values():
    df = simulate(n_items=400, labels=["joy", "awe"], pools=["A", "B", "C"], seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        out = xrr.compare(df, n_boot=300, seed=1, interval="percentile")
    irr, kx, nm = xrr.irr(df), xrr.cross_kappa(df), xrr.normalized(df)
    row = out.set_index(["label", "replication", "replication_other", "comparison"])
    for (lab, a, b, name), r in row.iterrows():
        want = {"irr_x - irr_y": irr.loc[lab, a] - irr.loc[lab, b],
                "kappa_x - irr_x": kx.loc[lab, (a, b)] - irr.loc[lab, a],
                "kappa_x - irr_y": kx.loc[lab, (a, b)] - irr.loc[lab, b],
                "normalized - 1": nm.loc[lab, (a, b)] - 1}[name]
        assert r["estimate"] == pytest.approx(want)
        # the p-value inverts the percentile interval: 0 outside the 95% interval
        # exactly when p < 0.05 (up to the +1 in the p-value's counts)
        if r["p_value"] < 0.04:
            assert not (r["lower"] <= 0 <= r["upper"])
        if not (r["lower"] <= 0 <= r["upper"]):
            assert r["p_value"] <= 0.06
    assert len(out) == 2 * 3 * 4
    assert set(out.columns) >= {"estimate", "se", "lower", "upper", "p_value"}


def test_plan_half_width_shrinks_like_one_over_root_n():
    pilot = simulate(n_items=300, labels=["sadness"], pools=["A", "B"], seed=2)
    table = xrr.plan(pilot, width=0.1, sizes=[400, 1600, 6400], n_boot=200, seed=0)
    half = table["half_width"].to_numpy()
    assert half[0] > half[1] > half[2]
    assert half[0] / half[2] == pytest.approx(4.0, rel=0.3)  # sqrt(6400 / 400)
    needed = table.attrs["needed"]["sadness: A x B"]
    enough = table.loc[table["enough"], "n_items"]
    assert needed == (enough.min() if len(enough) else None)
    assert (table["enough"] == (table["half_width"] <= 0.1)).all()


@pytest.mark.filterwarnings("ignore:bootstrap intervals of rare labels")  # joy: 8% of 80
@pytest.mark.filterwarnings("ignore:some bootstrap intervals rest on few items")
def test_progress_bar_on_request_and_off_with_false(capsys):
    df = _small(80)
    xrr.cross_kappa(df, ci=0.95, n_boot=200, seed=0, progress=True)
    assert "bootstrap" in capsys.readouterr().err  # tqdm writes to stderr
    xrr.cross_kappa(df, ci=0.95, n_boot=200, seed=0, progress=False)
    assert capsys.readouterr().err == ""


def test_plan_warns_where_normalized_has_no_interval():
    pilot = simulate(n_items=200, labels=["joy"], pools=["A", "B"], seed=2)
    pilot.loc[pilot["pool"] == "B", "joy"] = 1  # B agrees perfectly on one value: IRR undefined
    with pytest.warns(UndefinedWarning, match="no interval"):
        table = xrr.plan(pilot, sizes=[100, 200], n_boot=50, seed=0)
    assert table["half_width"].isna().all()


def test_rare_labels_warn_that_their_intervals_under_cover():
    """Extreme prevalence: benchmarks/interval_coverage.py measured coverage falling with
    the items' worth of minority annotations; below RARE_ITEMS the call says so."""
    rare = {"rare": replace(PRESETS["sadness"], prevalence=0.01)}
    df = simulate_replications(n_items=300, labels=rare, pools=["A", "B"], seed=4)
    with pytest.warns(UndefinedWarning, match=r"rare labels under-cover: .*'rare' \(") as rec:
        xrr.cross_kappa(df, ci=0.95, n_boot=100, seed=0)
    assert len([w for w in rec if "rare labels" in str(w.message)]) == 1
    # the same label at the sadness preset's prevalence: no warning (XRRWarnings are errors)
    common = simulate_replications(n_items=300, labels=["sadness"], pools=["A", "B"],
                                   raters_per_item=3, seed=4)
    xrr.cross_kappa(common, ci=0.95, n_boot=100, seed=0)


def test_a_small_pool_warns_though_the_file_has_many_items():
    # 400 items in all, but pool C annotated only 30 of them: its IRR and the pairs
    # with C rest on few items, which the call must say (not only the total count)
    df = simulate(n_items=400, labels=["joy"], pools=["A", "B"], coverage=1.0, seed=1)
    small = simulate(n_items=30, labels=["joy"], pools=["C"], coverage=1.0, seed=2)
    both = pd.concat([df, small], ignore_index=True)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        xrr.report(both, ci=0.95, n_boot=100, seed=0, irr="alpha")
    few = [str(w.message) for w in rec if "rest on few items" in str(w.message)]
    assert len(few) == 1
    assert "label 'joy', C (30 items)" in few[0] and "A x C" in few[0]
    assert "A x B" not in few[0]
