"""The Table-5 report: same numbers as summary(), counts checked against pandas, layouts
and exports, and the paper's printed Table 5 (Eq 13 rebuilt to its precision)."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.coefficients.normalized import normalize

DATA = Path(__file__).parent / "data"

#: The default items="all" warns where normalized kappa_x exceeds 1 on different
#: item sets (tests/test_common_items.py); these tests read other things.
EXCEEDS_1 = "ignore:normalized kappa_x exceeds 1:xrr_accessor.errors.UndefinedWarning"


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return xa.datasets.simulate(n_items=300, labels=["joy", "awe", "fear"],
                                pools=["A", "B", "C"], coverage=0.8, seed=5)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.filterwarnings(EXCEEDS_1)  # item sets differ: the default warns
def test_numbers_are_summarys(frame):
    rep = frame.xrr.report(irr="alpha")
    s = frame.xrr.summary(irr="alpha")
    wide = rep.wide()
    assert wide.shape == s.shape
    np.testing.assert_array_equal(wide.to_numpy(), s.to_numpy())
    ci = frame.xrr.report(ci=0.9, n_boot=60, seed=2, progress=False)
    sci = frame.xrr.summary(irr="cohen", ci=0.9, n_boot=60, seed=2, progress=False)
    for q in ("estimate", "se", "lower", "upper"):
        np.testing.assert_array_equal(ci.wide(q).to_numpy(),
                                      sci.xs(q, axis=1, level="quantity").to_numpy())
    assert ci.attrs["ci"] == 0.9 and ci.attrs["n_boot"] == 60


@pytest.mark.filterwarnings(EXCEEDS_1)  # item sets differ: the default warns
def test_counts_match_pandas(frame):
    rep = frame.xrr.report()
    f = rep.frame
    long = frame.melt(id_vars=["item_id", "pool", "rater"], var_name="label").dropna(
        subset=["value"])
    per = long.groupby(["label", "pool"]).size()
    irr = f[f["statistic"] == "irr"].set_index(["label", "replication"])
    for (label, pool), n in per.items():
        assert irr.loc[(label, pool), "n_annotations"] == n
    # Cohen: items with both raters; unpairable: one annotation
    by_item = long.groupby(["label", "pool", "item_id"]).size()
    both = (by_item == 2).groupby(["label", "pool"]).sum()
    single = (by_item == 1).groupby(["label", "pool"]).sum()
    for key in both.index:
        assert irr.loc[key, "n_items"] == both[key]
        assert irr.loc[key, "n_unpairable"] == single[key]
    # kappa_x: items in both replications; annotations of both
    kx = f[f["statistic"] == "kappa_x"].set_index(["label", "replication",
                                                   "replication_other"])
    items = long.groupby(["label", "pool"])["item_id"].apply(set)
    for (label, a, b), row in kx.iterrows():
        shared, either = items[(label, a)] & items[(label, b)], items[(label, a)] | items[
            (label, b)]
        assert row["n_items"] == len(shared)
        assert row["n_unpairable"] == len(either - shared)
        assert row["n_annotations"] == per[(label, a)] + per[(label, b)]


@pytest.mark.filterwarnings(EXCEEDS_1)  # item sets differ: the default warns
def test_bands_reference_and_sorting(frame):
    rep = frame.xrr.report(sort_by="normalized")
    f = rep.frame
    est = f[f["statistic"] != "normalized"]
    assert (est["band"] == xa.interpret(est["estimate"])).all()
    assert f.loc[f["statistic"] == "normalized", "band"].isna().all()
    assert (f.loc[f["statistic"] == "normalized", "reference"] == "both").all()
    means = f[f["statistic"] == "normalized"].groupby("label")["estimate"].mean()
    assert list(pd.unique(f["label"])) == list(means.sort_values(ascending=False).index)
    by_ref = _quiet(frame.xrr.report, reference="B")
    norm = by_ref.frame[by_ref.frame["statistic"] == "normalized"]
    assert (norm["reference"] == "B").all() and len(norm) == 2 * 3  # pairs with B
    direct = _quiet(frame.xrr.normalized, irr="cohen", reference="B")
    got = norm.set_index(["label", "replication", "replication_other"])["estimate"]
    for (label, a, b), value in got.items():
        np.testing.assert_allclose(value, direct.loc[label, (a, b)], rtol=1e-12)
    with pytest.raises(xa.InputError, match="sort_by"):
        frame.xrr.report(sort_by="kappa")


def test_exports_round_trip(frame, tmp_path):
    rep = _quiet(frame.xrr.report, ci=0.9, n_boot=40, seed=1, progress=False)
    back = pd.read_csv(io.StringIO(rep.to_csv()))
    pd.testing.assert_frame_equal(back[["estimate", "lower", "n_items"]],
                                  rep.frame[["estimate", "lower", "n_items"]])
    rep.to_json(tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["attrs"]["irr"] == "cohen" and len(doc["rows"]) == len(rep.frame)
    md = rep.to_markdown(digits=2)
    table_lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    assert len(table_lines) == 2 + 3  # header, rule, one per label
    assert "[" in table_lines[2]  # intervals shown
    html = rep._repr_html_()
    assert "<table" in html and "bootstrap" in html and "normalized kappa_x" in html
    with pytest.raises(xa.InputError, match="quantity"):
        rep.wide("median")


@pytest.mark.filterwarnings(EXCEEDS_1)  # item sets differ: the default warns
def test_xarray_input_gives_the_same_report(frame):
    ds = frame.xrr.to_xarray()
    a, b = frame.xrr.report().frame, ds.xrr.report().frame
    np.testing.assert_allclose(a["estimate"], b["estimate"], rtol=1e-12, equal_nan=True)
    assert (a["n_items"] == b["n_items"]).all()


def test_paper_table5_normalized_columns():
    """Wong et al. (2021) Table 5: each normalized cell is Eq 13 of its row's IRR and
    kappa_x cells, within what rounding the printed inputs allows."""
    t = pd.read_csv(DATA / "wong2021_table5.tsv", sep="\t")
    assert len(t) == 31
    irr = t[["irr_MC", "irr_KL", "irr_Bud"]].to_numpy()
    kx = t[["kx_MC_Bud", "kx_KL_Bud", "kx_MC_KL"]].to_numpy()
    printed = t[["norm_MC_Bud", "norm_KL_Bud", "norm_MC_KL"]].to_numpy()
    pairs = np.array([[0, 2], [1, 2], [0, 1]])
    value, bad = normalize(kx, irr, pairs)
    assert not bad.any()
    # printed to 4 decimals (trailing zeros dropped): half a unit on each input
    half = 5e-5
    ra, rb = irr[:, pairs[:, 0]], irr[:, pairs[:, 1]]
    slack = np.abs(value) * (half / np.maximum(np.abs(kx), half) + half / (2 * ra)
                             + half / (2 * rb)) + half
    assert (np.abs(value - printed) <= slack).all(), np.abs(value - printed).max()
    shame = t.index[t["label"] == "shame"][0]
    assert value[shame, 0] == pytest.approx(2.154, abs=5e-4)


@pytest.mark.filterwarnings(EXCEEDS_1)  # item sets differ: the default warns
def test_default_irr_is_cohen_for_two_raters_else_alpha(frame):
    assert frame.xrr.report().attrs["irr"] == "cohen"  # two raters per pool
    rng = np.random.default_rng(0)
    three = pd.DataFrame({"item": np.repeat(np.arange(40), 6),
                          "pool": np.tile(np.repeat(["A", "B"], 3), 40),
                          "rater": np.tile(["r1", "r2", "r3", "r4", "r5", "r6"], 40),
                          "joy": rng.integers(0, 2, 240)})
    rep = _quiet(three.xrr.report)
    assert rep.attrs["irr"] == "alpha" and "IRR: alpha" in rep.caption()
    alpha = _quiet(three.xrr.irr)
    irr_rows = rep.frame[rep.frame["statistic"] == "irr"]
    np.testing.assert_allclose(irr_rows["estimate"], alpha.loc["joy"], rtol=1e-12)
    with pytest.raises(xa.InputError, match="irr='iota'"):  # the flag of this call
        three.xrr.report(irr="cohen")
