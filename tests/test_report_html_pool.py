"""The one-pool page leads with its answer (issue 37): its title, the order of its
sections, the classic family's reasons said once, the raters or one line why not, the
items with ties as one row, and figures only where they say something.

Every line the page adds is checked against the numbers it describes: tie counts and
values against a naive sort of D_i written here, the labels and metrics named in a
collapsed reason against the table's rows, the rater line's claim against
rater_agreement and Cohen's kappa."""

from __future__ import annotations

import re
import warnings
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.datasets import simulate
from xrr_accessor.reporting import report_html
from xrr_accessor.reporting.bands import band_of
from xrr_accessor.reporting.figure_layout import MAX_NAMES
from xrr_accessor.reporting.pool_html import (
    collapse_reasons,
    family_long,
    family_wide,
    item_groups,
    no_rater_table,
)
from xrr_accessor.reporting.report_html import TOP_ROWS

html5lib = pytest.importorskip("html5lib")
pytest.importorskip("jinja2")

NS = "{http://www.w3.org/1999/xhtml}"


def _quiet(f: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def parse(page: str) -> ET.Element:
    return html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(page)


def text(e: ET.Element) -> str:
    return " ".join("".join(e.itertext()).split())


def by_id(tree: ET.Element, ident: str) -> ET.Element:
    found = [e for e in tree.iter() if e.get("id") == ident]
    assert len(found) == 1, ident
    return found[0]


def sections(tree: ET.Element) -> list[str]:
    return [e.get("id", "") for e in tree.iter(f"{NS}section")]


def _pairs(n_items: int, labels: int, seed: int, raters: int = 2) -> pd.DataFrame:
    """``raters`` raters on every item, binary labels, some annotations missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, (n_items, labels))
    rows = []
    for i in range(n_items):
        for r in range(raters):
            noisy = np.where(rng.random(labels) < 0.25, 1 - truth[i], truth[i]).astype(float)
            noisy[rng.random(labels) < 0.05] = np.nan
            rows.append([f"t{i}", f"r{r}", *noisy])
    return pd.DataFrame(rows, columns=["item", "rater", *(f"l{j}" for j in range(labels))])


@pytest.fixture(scope="module")
def two_raters() -> tuple[pd.DataFrame, Any]:
    df = _pairs(80, 3, seed=1)
    return df, _quiet(xa.report, df, ci=0.9, n_boot=30, seed=2)


# --- title and order ---------------------------------------------------------------


def test_title_by_what_it_is_and_a_given_title_wins(two_raters):
    _, rep = two_raters
    assert rep.title == "IRR report"
    tree = parse(rep.to_html(figures=False))
    assert text(next(tree.iter(f"{NS}title"))) == text(next(tree.iter(f"{NS}h1"))) == \
        "IRR report"
    assert "<b>IRR report</b>" in rep._repr_html_()
    two = _quiet(xa.report, simulate(n_items=120, labels=["joy"], pools=["A", "B"], seed=3))
    assert two.title == "xRR report" and "<title>xRR report</title>" in two.to_html(
        figures=False)
    assert "<h1>mine</h1>" in rep.to_html(figures=False, title="mine")


def test_the_reading_comes_first_then_the_tables(two_raters):
    _, rep = two_raters
    tree = parse(rep.to_html(figures=False))
    assert sections(tree) == ["readings", "table", "agreement", "raters-none", "items",
                              "data", "notes", "bands"]
    reading = text(by_id(tree, "readings"))
    for sentence in rep.readings()["text"]:
        assert " ".join(sentence.split()) in reading
    three = _quiet(xa.report, _pairs(40, 1, seed=4, raters=3), ci=0.9, n_boot=20, seed=1)
    order = sections(parse(three.to_html(figures=False)))
    assert order[:5] == ["readings", "table", "agreement", "raters", "items"]
    pools = _quiet(xa.report, simulate(n_items=120, labels=["joy"], pools=["A", "B"], seed=3))
    assert sections(parse(pools.to_html(figures=False)))[:2] == ["readings", "table"]


# --- raters, or one line why not ---------------------------------------------------


def test_two_raters_say_why_there_is_no_rater_table_and_the_claim_holds(two_raters):
    df, rep = two_raters
    assert rep.raters is None
    line = text(by_id(parse(rep.to_html(figures=False)), "raters-none"))
    assert line == "Raters " + no_rater_table(2, slots=False)
    assert "the pool has 2 raters" in line and "needs three or more" in line
    # what it claims: both raters get the same kappa_x, Cohen's kappa at the nominal
    # level, and alpha without either is undefined
    ra = _quiet(xa.rater_agreement, df, level="nominal")
    cohen = _quiet(xa.irr, df, metric="cohen", level="nominal")
    for label in ("l0", "l1", "l2"):
        part = ra.xs(label, level="label")
        assert len(part) == 2 and part["alpha_without"].isna().all()
        np.testing.assert_allclose(part["kappa_x"], float(cohen[label]), rtol=1e-12)
    assert rep.attrs["no_raters"] == no_rater_table(2, slots=False)


def test_three_raters_get_the_table_and_no_line():
    rep = _quiet(xa.report, _pairs(40, 1, seed=4, raters=3), ci=0.9, n_boot=20, seed=1)
    assert isinstance(rep.raters, pd.DataFrame) and rep.attrs["no_raters"] == ""
    page = rep.to_html(figures=False)
    assert 'id="raters"' in page and 'id="raters-none"' not in page
    assert no_rater_table(3, slots=False) == ""


# --- the classic family: reasons once ----------------------------------------------


def _naive_reasons(table: pd.DataFrame) -> dict[str, tuple[set[str], set[str]]]:
    """Per reason with its metric's name blanked: the metrics and labels it is given."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for (label, metric), why in table["reason"].items():
        if isinstance(why, str) and why:
            key = why.replace(f"'{metric}'", "'?'").replace(f" {metric};", " ?;")
            out.setdefault(key, (set(), set()))[0].add(metric)
            out[key][1].add(label)
    return out


def test_reasons_said_once_with_the_metrics_and_labels_they_apply_to(two_raters):
    _, rep = two_raters
    table = rep.agreement
    naive = _naive_reasons(table)
    said = collapse_reasons(table)
    assert len(said) == len(naive) >= 1
    n_labels = table.index.get_level_values("label").nunique()
    for line in said:
        m = re.match(r"no analytic interval for ([\w, ]+) \((\d+) labels\); "
                     r"irr\(data, metric=('[\w]+'(?: or '[\w]+')*), ", line)
        assert m is not None, line
        metrics = m[1].split(", ")
        assert metrics == [q.strip("'") for q in m[3].split(" or ")]
        match = [labels for ms, labels in naive.values() if ms == set(metrics)]
        assert len(match) == 1 and int(m[2]) == len(match[0]) == n_labels
    page = rep.to_html(figures=False)
    section = text(by_id(parse(page), "agreement"))
    for line in said:
        assert section.count(line) == 1
    assert section.count("no analytic interval") == len(said)  # not once per row


def test_a_reason_of_some_labels_names_them():
    idx = pd.MultiIndex.from_product([[f"x{k}" for k in range(8)], ["fleiss", "light"]],
                                     names=["label", "metric"])
    reason = ["", ""] * 8
    for k in (1, 2, 4, 5, 6, 7):
        reason[2 * k + 1] = "more than 100 raters: Light's kappa averages every pair"
    reason[0] = "no analytic interval for fleiss; irr(data, metric='fleiss') gives one"
    table = pd.DataFrame({"estimate": 0.5, "reason": reason}, index=idx)
    assert collapse_reasons(table) == [
        "no analytic interval for fleiss (1 of 8 labels: x0); irr(data, metric='fleiss') "
        "gives one",
        "light (6 of 8 labels: x1, x2, x4, x5, x6 and 1 more): more than 100 raters: "
        "Light's kappa averages every pair"]
    one = table.xs("x0", level="label", drop_level=False).iloc[[0]]
    assert collapse_reasons(one) == [reason[0]]  # a single reason is itself


def _reads_back(cell: str, est: float, lo: float, hi: float, band: Any) -> None:
    """The numbers of a printed cell: each within half a unit of its last digit of the
    number it prints, one number of decimals, and in the band printed beside it."""
    found = re.findall(r"-?\d+\.(\d+)", cell)
    values = [float(v) for v in re.findall(r"-?\d+\.\d+", cell)]
    assert len(set(map(len, found))) == 1, cell  # the same decimals
    d = len(found[0])
    want = [est] + ([lo, hi] if np.isfinite(lo) and np.isfinite(hi) else [])
    assert len(values) == len(want), cell
    for v, w in zip(values, want, strict=True):
        assert abs(v - w) <= 0.5 * 10.0 ** -d + 1e-12, (cell, w)
        if isinstance(band, str):
            assert band_of(v) == band_of(w), (cell, w)  # reads back to its own band
    if isinstance(band, str):
        assert band_of(values[0]) == band


@pytest.mark.parametrize("digits", [1, 2, 3])
def test_the_classic_family_prints_numbers_that_read_back(two_raters, digits):
    _, rep = two_raters
    table = rep.agreement
    wide = family_wide(table, digits)
    assert list(wide.index) == list(pd.unique(table.index.get_level_values("label")))
    long = family_long(table, digits)
    for (label, metric), row in table.iterrows():
        cell = wide.loc[label, metric]
        if not np.isfinite(row.estimate):
            assert cell == "" and long.loc[(label, metric), "estimate"] == ""
            continue
        _reads_back(cell, row.estimate, row.lower, row.upper, row.band)
        printed = " ".join(str(long.loc[(label, metric), c]) for c in
                           ("estimate", "lower", "upper"))
        _reads_back(printed, row.estimate, row.lower, row.upper, row.band)
    edge = pd.DataFrame({"estimate": [0.6049, 0.2001], "lower": [0.58, 0.1999],
                         "upper": [0.63, 0.25], "band": ["substantial", "fair"]},
                        index=pd.Index(["cohen", "fleiss"], name="metric"))
    out = family_long(edge, 2)
    assert out["estimate"].tolist() == ["0.605", "0.2001"]  # not "0.60" (moderate), "0.20"
    for metric, row in edge.iterrows():
        _reads_back(" ".join(out.loc[metric, ["estimate", "lower", "upper"]]), row.estimate,
                    row.lower, row.upper, row.band)


def test_table_cells_on_the_page_read_back(two_raters):
    _, rep = two_raters
    tree = parse(rep.to_html(figures=False, digits=2))
    body = by_id(tree, "xrr-report").find(f"{NS}tbody")
    rows = rep.frame.set_index("label")
    for tr in body.iter(f"{NS}tr"):
        label = text(tr.find(f"{NS}th"))
        (td,) = tr.findall(f"{NS}td")
        r = rows.loc[label]
        cell = text(td).replace(r.band, "", 1)
        _reads_back(cell, r.estimate, r.lower, r.upper, r.band)
    # at a band's edge the cell prints more digits, interval and all (one rule)
    row = pd.Series({"estimate": 0.6049, "lower": 0.5, "upper": 0.7, "band": "substantial",
                     "statistic": "irr", "n_items": 50, "n_annotations": 100,
                     "n_unpairable": 0})
    cell = report_html._cell(next(row.to_frame().T.itertuples()), 2)
    assert (cell["value"], cell["interval"]) == ("0.605", "[0.500, 0.700]")
    _reads_back(f"{cell['value']} {cell['interval']}", 0.6049, 0.5, 0.7, "substantial")


# --- items: ties as one row ----------------------------------------------------------


def _naive_groups(d: pd.Series, top: int) -> tuple[list[Any], int, float]:
    """Rows shown one by one, items in the tie past them and its value (0, NaN: none)."""
    d = d.dropna().sort_values(ascending=False, kind="stable")
    last = d.iloc[min(top, len(d)) - 1]
    at = int((d == last).sum())
    shown_at = int((d.iloc[:top] == last).sum())
    if at > shown_at:
        return list(d.index[d > last]), at, float(last)
    return list(d.index[:top]), 0, np.nan


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.2, 0.5, 0.5, 1.0, np.nan]), min_size=1,
                max_size=40), st.integers(1, 12))
def test_item_groups_match_a_naive_sort(values, top):
    d = pd.Series(values, index=pd.Index([f"i{k}" for k in range(len(values))], name="item"))
    groups = item_groups(d.to_frame("disagreement"), top)
    if d.notna().sum() == 0:
        assert groups == []
        return
    (g,) = groups
    rows, n_tied, value = _naive_groups(d, top)
    assert list(g.rows.index) == rows and g.n_tied == n_tied
    if n_tied:
        assert g.tied_value == value and len(g.rows) < top
        tied = d[d == value].index
        assert g.first == list(tied[:3])  # the first in the data's order


def test_the_page_says_each_tie_with_its_count(two_raters):
    df, rep = two_raters
    tree = parse(rep.to_html(figures=False))
    table = by_id(tree, "xrr-items")
    lines = {text(tr.find(f"{NS}th")): text(tr.find(f"{NS}td")) for tr in table.iter(f"{NS}tr")
             if tr.get("class") == "tie"}
    for label in ("l0", "l1", "l2"):
        d = rep.items.xs(label, level="label")["disagreement"]
        rows, n_tied, value = _naive_groups(d, TOP_ROWS)
        if n_tied:
            m = re.search(r"([\d,]+) items tied at D = ([\d.]+)", lines[label])
            assert m is not None and int(m[1].replace(",", "")) == n_tied
            assert float(m[2]) == pytest.approx(value, abs=5e-4)
        else:
            assert label not in lines
        shown = [text(tr.findall(f"{NS}th")[1]) for tr in table.iter(f"{NS}tr")
                 if tr.get("class") != "tie" and len(tr.findall(f"{NS}th")) == 2
                 and text(tr.find(f"{NS}th")) == label]
        assert shown == [str(i) for i in rows]
    # two raters: D is 0 or 1, so every label's top is one tie, one row each
    assert set(lines) == {"l0", "l1", "l2"}
    naive_ones = {lab: int((rep.items.xs(lab, level="label")["disagreement"] == 1).sum())
                  for lab in ("l0", "l1", "l2")}
    for label, n in naive_ones.items():
        n_missing = df.groupby("item")[label].apply(lambda s: s.notna().sum() == 2)
        pairs_differ = df.groupby("item")[label].agg(lambda s: s.notna().sum() == 2
                                                     and s.nunique() == 2)
        assert n == int(pairs_differ[n_missing].sum())
        assert f"{n:,} items tied at D = 1.000" in lines[label]


# --- figures only where they say something ----------------------------------------


@pytest.fixture
def no_drawing(monkeypatch):
    """Figures decided, not drawn: each plotting call returns None, _png its words."""
    from xrr_accessor.diagnostics import plots
    from xrr_accessor.reporting.plotting import ReportPlots

    for name in ("heatmap", "irr_vs_kappa", "irr_hist"):
        monkeypatch.setattr(ReportPlots, name, lambda self, *a, **k: None)
    for name in ("items", "raters"):
        monkeypatch.setattr(plots, name, lambda *a, **k: None)
    monkeypatch.setattr(report_html, "_png", lambda ax, alt, caption: {"alt": alt,
                                                                       "caption": caption})


def test_no_items_figure_of_equal_bars(no_drawing):
    pytest.importorskip("matplotlib")
    fast = {"ci": 0.9, "n_boot": 20, "seed": 1}  # the rater table's bootstrap: short
    tied = _quiet(xa.report, _pairs(60, 1, seed=4, raters=4), **fast)
    shown = tied.items["disagreement"].sort_values(ascending=False).head(TOP_ROWS)
    assert shown.nunique() == 1  # four raters: more than ten 2-2 splits, equal bars
    assert [f["alt"] for f in _quiet(report_html._pool_figures, tied)] == [
        "Raters against the rest of the pool, l0"]
    df = _pairs(60, 1, seed=4, raters=4)
    two = df["item"].isin(["t3", "t8"])  # two annotations that differ: D = 1, the most
    df.loc[two & df["rater"].isin(["r2", "r3"]), "l0"] = np.nan
    df.loc[two & (df["rater"] == "r1"), "l0"] = 1 - df.loc[two & (df["rater"] == "r0"),
                                                           "l0"].to_numpy()
    varied = _quiet(xa.report, df, **fast)
    shown = varied.items["disagreement"].sort_values(ascending=False).head(TOP_ROWS)
    assert shown.nunique() > 1
    assert "The items most disagreed on, l0" in [
        f["alt"] for f in _quiet(report_html._pool_figures, varied)]


def test_no_histogram_of_one_value(no_drawing):
    pytest.importorskip("matplotlib")
    df = _pairs(30, 1, seed=4)
    labels = report_html.MIN_HIST_LABELS
    same = _quiet(xa.report, df.assign(**{f"c{k}": df["l0"] for k in range(labels)}))
    assert same.frame["estimate"].nunique() == 1 and same.frame["label"].nunique() > labels
    figs, _ = _quiet(report_html._figures, same)
    assert not any(f["alt"].startswith("Histogram") for f in figs)
    other = df.assign(**{f"c{k}": _pairs(30, 1, seed=k)["l0"] for k in range(labels)})
    varied = _quiet(xa.report, other)
    assert varied.frame["estimate"].nunique() > 1
    figs, _ = _quiet(report_html._figures, varied)
    assert [f["alt"] for f in figs if f["alt"].startswith("Histogram")] == [
        "Histogram of the IRR of each label by replication"]


def test_captions_count_the_labels_drawn_past_max_names(no_drawing):
    pytest.importorskip("matplotlib")
    n = MAX_NAMES + 5
    rng = np.random.default_rng(0)
    rows = [(f"t{i}", p, f"{p}{r}", *rng.integers(0, 2, n)) for i in range(30)
            for p in "AB" for r in range(2)]
    df = pd.DataFrame(rows, columns=["item", "pool", "rater", *(f"x{k}" for k in range(n))])
    rep = _quiet(xa.report, df)
    figs, _ = _quiet(report_html._figures, rep)
    caps = {f["alt"]: f["caption"] for f in figs}
    assert f"the first {MAX_NAMES} of the {n} labels" in caps[
        "Heatmap of normalized kappa_x, labels by pair"]
    assert "every label" not in " ".join(caps.values())
    assert f"the {MAX_NAMES} labels of largest kappa_x of {n}" in caps[
        "IRR of A and B beside kappa_x"]


def test_the_legend_is_the_classifier_s(two_raters):
    from xrr_accessor.reporting.bands import LEGEND, LEGEND_NOTE

    tree = parse(two_raters[1].to_html(figures=False))
    rows = by_id(tree, "xrr-bands").find(f"{NS}tbody").findall(f"{NS}tr")
    assert [tuple(text(td) for td in tr.findall(f"{NS}td")) for tr in rows] == list(LEGEND)
    assert " ".join(LEGEND_NOTE.split()) in text(by_id(tree, "bands"))
    for name, span in LEGEND:  # each row's words, read naively, give the band it names
        for x in (-0.3, 0.0, 0.1, 0.2, 0.2001, 0.4, 0.55, 0.6, 0.61, 0.8, 0.81, 1.0):
            lo = re.search(r"([\d.]+) <(=?) x", span)
            hi = re.search(r"x (<=?|>) ([\d.-]+)", span)
            inside = True
            if lo:
                inside &= x >= float(lo[1]) if lo[2] else x > float(lo[1])
            if hi:
                op, v = hi[1], float(hi[2])
                inside &= x <= v if op == "<=" else x < v if op == "<" else x > v
            assert inside == (band_of(x) == name), (name, span, x)


def test_the_classic_family_is_a_row_per_label_past_wide_family_labels(two_raters):
    few = parse(two_raters[1].to_html(figures=False))
    table = two_raters[1].agreement
    assert len(by_id(few, "xrr-agreement").find(f"{NS}tbody").findall(f"{NS}tr")) == len(table)
    n = report_html.WIDE_FAMILY_LABELS + 1
    df = _pairs(30, n, seed=6)
    rep = _quiet(xa.report, df)
    tree = parse(rep.to_html(figures=False))
    rows = by_id(tree, "xrr-agreement").find(f"{NS}tbody").findall(f"{NS}tr")
    assert [text(tr.find(f"{NS}th")) for tr in rows] == [f"l{j}" for j in range(n)]
    metrics = list(pd.unique(rep.agreement.index.get_level_values("metric")))
    head = [text(th) for th in by_id(tree, "xrr-agreement").find(f"{NS}thead").iter(f"{NS}th")]
    assert head == ["label", *metrics]
    for tr in rows:  # each cell the table's estimate (no ci: no interval)
        label = text(tr.find(f"{NS}th"))
        for metric, td in zip(metrics, tr.findall(f"{NS}td"), strict=True):
            est = rep.agreement.loc[(label, metric), "estimate"]
            assert text(td) == ("" if not np.isfinite(est) else f"{est:.3f}")


def test_an_all_tied_item_table_has_no_empty_value_columns(two_raters):
    tree = parse(two_raters[1].to_html(figures=False))
    table = by_id(tree, "xrr-items")
    assert [text(th) for th in table.find(f"{NS}thead").iter(f"{NS}th")] == ["label", "item"]
    rows = table.find(f"{NS}tbody").findall(f"{NS}tr")
    assert [tr.get("class") for tr in rows] == ["tie"] * 3
    three = _quiet(xa.report, _pairs(40, 1, seed=4, raters=3), ci=0.9, n_boot=20, seed=1)
    head = [text(th) for th in by_id(parse(three.to_html(figures=False)), "xrr-items").find(
        f"{NS}thead").iter(f"{NS}th")]
    assert any(len(g.rows) for g in item_groups(three.items, TOP_ROWS))  # rows above a tie
    assert head == [*map(str, three.items.index.names), *three.items.columns]
