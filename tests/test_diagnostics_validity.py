"""Validity against gold labels, the diagnostics' figures and their benchmark.

Peers: scikit-learn's accuracy_score and precision_recall_fscore_support on
the flattened annotations (each annotation against its item's gold), the
naive Eq 9-11 kappa_x (tests/naive.py) with the gold as a one-rater
replication, and a majority vote counted by hand. Real data: Snow et al.
(2008) RTE, ten workers and an expert per item.
"""

from __future__ import annotations

import runpy
import warnings
from collections import Counter
from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from sklearn.metrics import accuracy_score, precision_recall_fscore_support

import xrr_accessor as xrr
from xrr_accessor.datasets import load_snow2008
from xrr_accessor.diagnostics import plots
from xrr_accessor.errors import DroppedDataWarning, InputError, UndefinedWarning

from helpers import annotation_frames, assert_close_or_both_nan, quietly
from naive import kappa_x as naive_kappa_x

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def _with_gold(df: pd.DataFrame, seed: int) -> tuple[pd.DataFrame, pd.Series]:
    """Gold for most items (some without), plus gold items the data never saw."""
    rng = np.random.default_rng(seed)
    items = np.unique(df["item"])
    cats = np.unique(df["value"])
    gold = pd.Series(rng.choice(cats, len(items)), index=items)
    keep = rng.random(len(items)) < 0.8
    keep[0] = True  # something to evaluate (no overlap at all is an error, tested below)
    gold = gold[keep]
    return df, pd.concat([gold, pd.Series([cats[0]], index=[10_000])])


def naive_majority(votes: list, gold: object) -> float:
    counts = Counter(votes)
    top = max(counts.values())
    tied = [v for v, c in counts.items() if c == top]
    return (gold in tied) / len(tied)


@given(df=annotation_frames(max_items=12, max_raters=4, max_reps=2, max_categories=4))
def test_validity_equals_sklearn_and_naive(df):
    df, gold = _with_gold(df, int(df["item"].sum()))
    out, _ = quietly(xrr.validity, df, gold=gold, level="nominal")  # classes: exact values
    for pool, sub in df.groupby("pool"):
        sub = sub[sub["item"].isin(gold.index)]
        row = out.summary.loc[pool]
        assert row["n_annotations"] == len(sub)
        if sub.empty:
            assert np.isnan(row["accuracy"])
            continue
        code = {v: k for k, v in enumerate(sorted(set(df["value"]) | set(gold)))}
        y_true = [code[v] for v in gold.loc[sub["item"]]]  # sklearn wants class labels,
        y_pred = [code[v] for v in sub["value"]]  # not floats
        assert row["accuracy"] == pytest.approx(accuracy_score(y_true, y_pred), abs=1e-12)
        classes = out.classes.xs(pool, level="replication")
        p, r, f, s = precision_recall_fscore_support(
            y_true, y_pred, labels=[code[c] for c in classes.index], zero_division=np.nan)
        np.testing.assert_allclose(classes["precision"], p, atol=1e-12)
        np.testing.assert_allclose(classes["recall"], r, atol=1e-12)
        np.testing.assert_allclose(classes["support"], s)
        defined = ~np.isnan(p) & ~np.isnan(r)
        np.testing.assert_allclose(classes["f1"][defined], f[defined], atol=1e-12)
        units = {i: list(g["value"]) for i, g in sub.groupby("item")}
        kx = naive_kappa_x(units, {i: [v] for i, v in gold.items()})
        assert_close_or_both_nan(row["kappa_x"], kx)
        credit = [naive_majority(v, gold[i]) for i, v in units.items()]
        assert row["majority_accuracy"] == pytest.approx(np.mean(credit), abs=1e-12)
        assert row["n_items"] == len(units)


def test_snow2008_rte_crowd_against_the_expert():
    df = load_snow2008("rte")
    crowd = df[df["pool"] == "crowd"].drop(columns="pool")
    expert = df[df["pool"] == "expert"].set_index("item_id")["response"]
    out = xrr.validity(crowd, gold=expert)
    row = out.summary.iloc[0]
    gold_of = expert.loc[crowd["item_id"]].to_numpy()
    assert row["accuracy"] == pytest.approx(accuracy_score(gold_of, crowd["response"]))
    votes = crowd.groupby("item_id")["response"].apply(list)
    assert row["majority_accuracy"] == pytest.approx(np.mean(
        [naive_majority(v, expert[i]) for i, v in votes.items()]))
    both = pd.concat([crowd.assign(pool="crowd"), df[df["pool"] == "expert"]])
    kx = quietly(xrr.cross_kappa, both)[0]
    assert row["kappa_x"] == pytest.approx(float(np.asarray(kx).ravel()[0]), abs=1e-12)
    assert row["majority_accuracy"] > row["accuracy"]  # voting helps: the paper's point


def test_gold_forms_agree():
    rng = np.random.default_rng(4)
    items = np.arange(30)
    truth = rng.integers(0, 3, 30)
    rows = [(i, r, int(truth[i]) if rng.random() < 0.7 else int(rng.integers(0, 3)),
             int(rng.integers(0, 2))) for i in items for r in ("a", "b", "c")]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy", "awe"])
    gold = pd.DataFrame({"joy": truth, "awe": (truth > 1).astype(int)}, index=items)
    want = xrr.validity(df, gold=gold).summary
    columns = df.assign(joy_gold=truth[df["item"]], awe_gold=(truth[df["item"]] > 1) * 1)
    by_map = xrr.validity(columns, gold={"joy": "joy_gold", "awe": "awe_gold"}).summary
    pd.testing.assert_frame_equal(by_map, want)
    long = df.melt(id_vars=["item", "rater"], var_name="label", value_name="value")
    long["gold"] = np.where(long["label"] == "joy", truth[long["item"]],
                            truth[long["item"]] > 1)
    from_long = xrr.validity(long, gold="gold").summary
    pd.testing.assert_frame_equal(from_long.sort_index(), want.sort_index(),
                                  check_index_type=False)
    one = df[["item", "rater", "joy"]].assign(expert=truth[df["item"]])
    single = xrr.validity(one, gold="expert").summary
    assert single.loc["joy", "accuracy"] == want.loc["joy", "accuracy"]
    wide = one.pivot(index="item", columns="rater", values="joy").assign(gold=truth)
    from_wide = xrr.validity(wide, gold="gold", wide=True).summary
    assert from_wide["accuracy"].iloc[0] == pytest.approx(want.loc["joy", "accuracy"])
    ds = df.xrr.to_xarray().assign(gold=("item", truth))[["joy", "gold"]]
    from_ds = df.xrr.to_xarray()[["joy"]].xrr.validity(gold=gold[["joy"]])
    assert float(from_ds.summary["accuracy"].sel(label="joy")) == pytest.approx(
        want.loc["joy", "accuracy"])
    assert float(xrr.validity(ds, gold="gold").summary["kappa_x"].sel(
        label="joy")) == pytest.approx(want.loc["joy", "kappa_x"])


def test_gold_errors_and_reports():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "joy": [1, 1, 0, 1, 0, 0], "gold": [1, 0, 0, 0, 1, 1]})
    with pytest.raises(InputError, match=r"gold column 'gold' takes different values within "
                                         r"1 item\(s\) \(1: 1, 0\).*Fix those rows"):
        xrr.validity(df, gold="gold")
    with pytest.raises(InputError, match=r"gold='expert' is not a column.*'gold'"):
        xrr.validity(df, gold="expert")
    two = df.drop(columns="gold").assign(awe=1)
    with pytest.raises(InputError, match=r"Series but the data have 2 labels"):
        xrr.validity(two, gold=pd.Series({1: 1}))
    with pytest.raises(InputError, match=r"no gold for \['awe'\]"):
        xrr.validity(two, gold=pd.DataFrame({"joy": [1]}, index=[1]))
    with pytest.raises(InputError, match=r"ids \(e.g. \[1\]\) and the gold's \(e.g. \['1'\]\)"):
        xrr.validity(df.drop(columns="gold"), gold=pd.Series({"1": 1, "2": 0}))
    gold = pd.Series({1: 1, 2: 0, 99: 1, 98: 0})
    with pytest.warns(DroppedDataWarning) as rec:
        out = xrr.validity(df.drop(columns="gold"), gold=gold)
    text = " ".join(str(w.message) for w in rec)
    assert "2 annotation(s) of 1 item(s) have no gold" in text
    assert "gold for 2 item(s) x label(s) with no annotation" in text
    assert out.attrs["n_gold_unused"] == 2
    assert out.summary["n_no_gold"].iloc[0] == 2 and out.summary["n_items"].iloc[0] == 2


def test_undefined_precision_is_counted():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2, "joy": [0, 0, 0, 0]})
    with pytest.warns(UndefinedWarning, match=r"precision for 1 class\(es\) never given"):
        out = xrr.validity(df, gold=pd.Series({1: 0, 2: 1}))
    row = out.classes.loc[("joy", 1)]
    assert np.isnan(row["precision"]) and row["recall"] == 0 and row["support"] == 2


# ---- figures ----------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def test_plots_draw_the_numbers():
    rng = np.random.default_rng(2)
    df = pd.DataFrame([(i, r, s, int(rng.integers(1, 4))) for i in range(20)
                       for r in ("a", "b", "c") for s in (1, 2)],
                      columns=["item", "rater", "round", "valence"])
    first = df[df["round"] == 1].drop(columns="round")
    items = xrr.item_disagreement(first)
    ax = plots.items(items, top=5)
    assert [p.get_width() for p in ax.patches] == pytest.approx(
        items["disagreement"].head(5).tolist())
    assert plots.items(items, kind="hist").get_xlabel() == "D_i"
    raters = xrr.rater_agreement(first, level="interval")
    ax = plots.raters(raters, annotate=1)
    assert [t.get_text() for t in ax.texts] == [raters.index[0][-1]]
    out = xrr.intra(df, session="round", level="interval")
    ax = out.plot("inter")
    assert len(ax.get_yticklabels()) == 6  # 3 rater pairs x 2 sessions
    assert sum(p.get_width() for p in ax.patches) == pytest.approx(6.0)
    assert len(out.plot("intra").get_yticklabels()) == 3
    val = xrr.validity(first, gold=pd.Series(rng.integers(1, 4, 20)))
    ax = val.plot()
    assert [p.get_height() for p in ax.patches[:3]] == pytest.approx(
        val.classes["recall"].tolist())
    with pytest.raises(InputError, match="label 'nope'"):
        plots.items(items, label="nope")


# ---- benchmark ---------------------------------------------------------------------------

def test_benchmark_runs_and_checks_its_numbers():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_diagnostics.py"
    module = runpy.run_path(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = module["run"](n_annotations=20_000, repeat=1)
    assert {r["benchmark"].split(",")[0] for r in rows} >= {"item_disagreement",
                                                              "rater_agreement"}
    assert all(r["equal"] for r in rows)
    assert set(rows[0]) == {"benchmark", "annotations", "ours_s", "peer", "peer_s", "equal"}


def test_snow2008_spammers_found_without_the_gold():
    """rater_agreement ranks RTE's workers from the crowd alone; the expert's gold then
    finds the worst at chance accuracy, and the two orders agree."""
    df = load_snow2008("rte")
    crowd = df[df["pool"] == "crowd"].drop(columns="pool")
    gold = df[df["pool"] == "expert"].set_index("item_id")["response"]
    raters = xrr.rater_agreement(crowd)
    right = crowd["response"].to_numpy() == gold.loc[crowd["item_id"]].to_numpy()
    accuracy = pd.Series(right).groupby(crowd["rater"].to_numpy()).agg(["mean", "size"])
    joined = raters.join(accuracy, on="rater")
    busy = joined[joined["size"] >= 100]
    assert (busy["mean"].head(3) < 0.55).all()  # the three worst busy workers: coin flips
    assert busy["kappa_x"].corr(busy["mean"], method="spearman") > 0.6


def test_benchmark_writes_only_its_section(tmp_path):
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_diagnostics.py"
    module = runpy.run_path(str(path))
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text("# B\n\n<!-- diagnostics:start -->\nold\n<!-- diagnostics:end -->\nkeep\n")
    module["write"]("| new |", doc)
    assert doc.read_text() == ("# B\n\n<!-- diagnostics:start -->\n| new |\n"
                               "<!-- diagnostics:end -->\nkeep\n")
