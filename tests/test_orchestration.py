"""The one orchestration (issue 22): every public function runs, estimates, warns, adds
intervals and labels through uncertainty/orchestration.py, with the bootstrap options
as one object (``Uncertainty``).

What is checked here is what the orchestration decides for every caller: which
options are refused (and that a bad one is never ignored), which interval method a
call gets, the reference filled into a coefficient's parameters (against kappa_x /
IRR_ref from the public functions, and against a naive bootstrap on the same draws),
warnings said once (a cell a dependency already warned about is not warned again),
the attrs and the result's shape. Numbers themselves are tested elsewhere.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.coefficients import lookup
from xrr_accessor.datasets import simulate
from xrr_accessor.engine import draws
from xrr_accessor.errors import DroppedDataWarning, InputError, UndefinedWarning
from xrr_accessor.kernels.resample import poisson_weights
from xrr_accessor.uncertainty import resample
from xrr_accessor.uncertainty.orchestration import (
    Uncertainty,
    evaluate,
    evaluate_run,
)
from xrr_accessor.uncertainty.resample import Target

from helpers import quietly


@pytest.fixture(scope="module")
def pools() -> pd.DataFrame:
    return simulate(n_items=60, labels=["joy", "awe"], pools=["A", "B"], raters_per_item=3,
                    seed=5)


@pytest.mark.parametrize("options, match", [
    ({"ci": 1.5}, r"ci=1\.5 is a confidence level"),
    ({"ci": True}, r"ci=True is a confidence level"),
    ({"n_boot": 1}, r"n_boot=1 is the number of bootstrap replicates"),
    ({"ci": 0.9, "interval": "student"}, r"interval='student'; choose 'bca'"),
    ({"method": "analytic"}, r"method='analytic' chooses how the interval is computed; "
                             r"ask for one with ci="),
])
def test_uncertainty_refuses_each_bad_option_by_name(options, match):
    with pytest.raises(InputError, match=match):
        Uncertainty(**options)


@pytest.mark.parametrize("call", [xrr.irr, xrr.cross_kappa, xrr.normalized, xrr.summary,
                                  xrr.compare])
def test_a_bad_bootstrap_option_is_refused_even_without_ci(pools, call):
    """The public functions build one Uncertainty at the entry: n_boot=1 is an error
    whether or not an interval is asked for (it was ignored by irr before)."""
    with pytest.raises(InputError, match="n_boot=1"):
        call(pools, n_boot=1)


def test_one_target_is_analytic_where_it_can_be_several_are_one_joint_bootstrap(pools):
    alpha, scott = Target("alpha", lookup("alpha")), Target("scott", lookup("scott"))
    ci = Uncertainty(0.9)
    assert ci.method_of([alpha]) == "analytic"
    assert ci.method_of([scott]) == "bootstrap"  # no analytic standard error
    assert ci.method_of([alpha, scott]) == "bootstrap"  # joint: the same draws
    with pytest.raises(InputError, match="metric='scott' has no analytic standard error"):
        Uncertainty(0.9, "analytic").method_of([alpha, scott])
    assert xrr.irr(pools, ci=0.9, replication="pool").attrs["method"] == "analytic"
    table = quietly(xrr.summary, pools, ci=0.9, n_boot=40, seed=1)[0]
    assert table.attrs["method"] == "bootstrap"  # alpha has one, but the table is joint


def test_normalized_by_reference_is_kappa_x_over_the_reference_irr(pools):
    """The reference replication's code is filled into the entry's parameters from the
    run: the values are kappa_x / IRR(B) of the public functions, with and without ci."""
    kx = xrr.cross_kappa(pools)[("A", "B")]
    want = kx / xrr.irr(pools)["B"]
    got = xrr.normalized(pools, reference="B")[("A", "B")]
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), rtol=1e-12)
    table = quietly(xrr.normalized, pools, reference="B", ci=0.9, n_boot=30, seed=2)[0]
    np.testing.assert_allclose(table["estimate"].to_numpy(), want.to_numpy(), rtol=1e-12)
    assert table.attrs["reference"] == "B" and table.attrs["irr"] == "alpha"


def test_reference_intervals_equal_a_naive_bootstrap_on_the_same_draws(pools):
    """Each replicate of normalized(reference="B") is kappa_x / IRR(B) of the frame
    with every item repeated as often as its weight in that replicate; the
    percentile limits and standard errors of the public function are those of the
    naive replicates."""
    n_boot, seed = 25, 11
    table = quietly(xrr.normalized, pools, reference="B", ci=0.8, n_boot=n_boot, seed=seed,
                    interval="percentile")[0]
    items = pd.Index(sorted(pools["item_id"].unique()))  # the encoder's item order
    run_items = evaluate(pools, [Target("kx", lookup("kappa_x", kind="cross"))]).run.ann.items
    assert set(run_items) == set(items)
    seeds, _ = resample.seeds(seed, n_boot)
    counts = poisson_weights(draws.item_keys(run_items), seeds, 1.0).T.astype(int)
    naive = []
    for b in range(n_boot):
        parts = [pools[pools["item_id"] == item].assign(item_id=f"copy {i}")
                 for i, item in enumerate(np.repeat(np.asarray(run_items, dtype=object),
                                                    counts[b]))]
        frame = pd.concat(parts, ignore_index=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            naive.append((xrr.cross_kappa(frame)[("A", "B")]
                          / xrr.irr(frame)["B"]).to_numpy())
    naive_arr = np.array(naive)  # (n_boot, labels)
    lower = np.quantile(naive_arr, 0.1, axis=0)
    upper = np.quantile(naive_arr, 0.9, axis=0)
    np.testing.assert_allclose(table["lower"].to_numpy(), lower, rtol=1e-10)
    np.testing.assert_allclose(table["upper"].to_numpy(), upper, rtol=1e-10)
    np.testing.assert_allclose(table["se"].to_numpy(), naive_arr.std(axis=0, ddof=1),
                               rtol=1e-10)


def _constant_label(pools: pd.DataFrame) -> pd.DataFrame:
    """``pools`` with a label no rater ever varies on: kappa_x is undefined there."""
    return pools.assign(flat=0)


@pytest.mark.parametrize("call", [
    lambda d: xrr.compare(d, n_boot=30, seed=3),
    lambda d: xrr.summary(d),
])
def test_a_cell_a_dependency_warned_about_is_not_warned_again(pools, call):
    """kappa_x is undefined on a constant label; normalized kappa_x, which divides it,
    is then undefined for the same reason: one warning, under kappa_x's name."""
    _, caught = quietly(call, _constant_label(pools))
    texts = [str(w.message) for w in caught if w.category is UndefinedWarning]
    kx = [t for t in texts if t.startswith("kappa_x is undefined (NaN)")]
    assert len(kx) == 1 and "'flat'" in kx[0]
    assert not any(t.startswith("normalized kappa_x is undefined (NaN)") for t in texts)


def test_a_normalized_cell_undefined_on_its_own_is_warned(pools):
    """Where only the normalization fails (an IRR at or below 0, kappa_x defined),
    normalized kappa_x warns under its own name, in every caller."""
    df = simulate(n_items=40, labels=["joy", "awe"], pools=["A", "B"], seed=3)  # IRRs < 0
    for call in (lambda: xrr.normalized(df), lambda: xrr.summary(df),
                 lambda: xrr.compare(df, n_boot=30, seed=1)):
        _, caught = quietly(call)
        texts = [str(w.message) for w in caught]
        assert ["normalized kappa_x is undefined (NaN) for 2 of 2 cell(s): label 'joy', "
                "A x B: IRR (alpha) of B is -0.0217, not > 0; label 'awe', A x B: IRR "
                "(alpha) of A is -0.114, B is -0.0444, not > 0"] == [
                    t for t in texts if t.startswith("normalized kappa_x is undefined (NaN)")]


def test_a_dependency_that_is_not_a_target_warns_of_its_dropped_items():
    """normalized(irr="iota") reads iota of each pool, which leaves out incomplete
    items: the caller hears it, naming iota."""
    df = pd.DataFrame({"item": np.repeat(np.arange(30), 6),
                       "pool": np.tile(["A"] * 3 + ["B"] * 3, 30),
                       "rater": np.tile(["a", "b", "c"], 60),
                       "joy": np.arange(180) % 3 == 0}).astype({"joy": int})
    df.loc[(df["item"] < 4) & (df["rater"] == "c"), "joy"] = np.nan  # 4 items lose rater c
    _, caught = quietly(xrr.normalized, df, irr="iota", replication="pool")
    dropped = [str(w.message) for w in caught if w.category is DroppedDataWarning]
    assert len(dropped) == 1 and dropped[0].startswith("iota needs every rater on every item")
    assert "(up to 4 items per label;" in dropped[0]


def test_evaluate_run_without_warnings_and_settings_match_the_replicates(pools):
    kx = [Target("kx", lookup("kappa_x", kind="cross"))]
    ev = quietly(evaluate, pools, kx, Uncertainty(0.9, n_boot=20, interval="percentile"),
                 replication="pool")[0]
    assert ev.replicates is not None
    seed = ev.settings["seed"]  # no seed given: the entropy drawn, which repeats the draws
    assert isinstance(seed, int)
    assert ev.settings == {"ci": 0.9, "method": "bootstrap", "interval": "percentile",
                           "n_boot": 20, "seed": seed}
    again = quietly(evaluate, pools, kx, Uncertainty(0.9, n_boot=20, seed=seed,
                                                     interval="percentile"),
                    replication="pool")[0]
    assert again.replicates is not None
    np.testing.assert_array_equal(again.replicates.boot["kx"], ev.replicates.boot["kx"])
    assert ev.replicates.boot["kx"].shape == (20, 2, 1)
    attrs = ev.attrs(name_is="kept")
    assert [attrs[k] for k in ("name", "metric", "level")] == ["kappa_x", "kappa_x", "nominal"]
    assert attrs["name_is"] == "kept" and attrs["n_boot"] == 20
    flat = _constant_label(pools)
    ev_flat, caught = quietly(evaluate, flat, [Target("kx", lookup("kappa_x", kind="cross"))])
    assert [w.category for w in caught] == [UndefinedWarning]  # the loud form warns
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing raised by the quiet form
        quiet = evaluate_run(ev_flat.run, ev_flat.targets, warn=False)
    assert np.isnan(quiet.estimates["kx"].value[-1]).all()


def test_cross_results_drop_the_pair_when_two_inputs_had_no_replications(pools):
    """Labelled in one place: two inputs without replications give one value per label
    (no pair dimension), with or without intervals; one input keeps the pair."""
    a = pools[pools["pool"] == "A"].drop(columns="pool")
    b = pools[pools["pool"] == "B"].drop(columns="pool")
    value = xrr.cross_kappa(a, b)
    assert isinstance(value, pd.Series) and value.index.name == "label"
    table = quietly(xrr.cross_kappa, a, b, ci=0.9, n_boot=20, seed=1)[0]
    assert list(table.index.names) == ["label"]
    np.testing.assert_allclose(table["estimate"].to_numpy(), value.to_numpy(), rtol=1e-12)
    kept = xrr.cross_kappa(pools)
    assert isinstance(kept, pd.DataFrame) and list(kept.columns.names) == [
        "replication", "replication_other"]
    np.testing.assert_allclose(kept[("A", "B")].to_numpy(), value.to_numpy(), rtol=1e-12)


def test_inputs_are_not_modified(pools):
    before = pools.copy()
    quietly(xrr.summary, pools, ci=0.9, n_boot=20, seed=1)
    quietly(xrr.compare, pools, n_boot=20, seed=1)
    quietly(xrr.agreement_table, pools[pools["pool"] == "A"], ci=0.9)
    pd.testing.assert_frame_equal(pools, before)


def test_agreement_table_intervals_are_analytic_or_nan(pools):
    """The agreement table asks each entry for its analytic interval only: the
    columns equal irr(method="analytic"), NaN for entries without one."""
    one = pools[pools["pool"] == "A"].drop(columns="pool")
    table = xrr.agreement_table(one, ci=0.9)
    for metric in ("fleiss", "gwet", "alpha"):
        want = xrr.irr(one, metric=metric, ci=0.9)
        got = table.xs(metric, level="metric")
        for col in ("estimate", "se", "lower", "upper", "p_value"):
            np.testing.assert_allclose(got[col].to_numpy(), want[col].to_numpy(),
                                       rtol=1e-12, err_msg=f"{metric} {col}")
    assert table.xs("scott", level="metric")[["se", "lower", "upper"]].isna().all().all()
