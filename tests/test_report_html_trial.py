"""What the new-user trial found on the one-pool report and its page (issue 37).

* a one-pool page past 8 labels printed a blank classic-family table (its index has a
  replication level): every wide cell is checked against the long table's estimate;
* two "alpha"s on one page (the IRR's ordinal alpha and the family's alpha with linear
  weights): the family names its weights, its alpha is "alpha (linear weights)", and
  both numbers are checked against krippendorff with the two distances;
* ``df.xrr.agreement_table()`` and ``xa.agreement_table(df)`` take the same default
  weights; ``level=`` is refused with an InputError naming ``weights=``;
* the rater figure's caption counts the raters it draws, against the table;
* the rater table fits a 1280 px screen (headless Chromium), its merged cells read back;
* the items note's example split fits the data (the most common number of annotations).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import load_demo
from xrr_accessor.errors import InputError
from xrr_accessor.reporting import report_html
from xrr_accessor.reporting.pool_html import (
    WEIGHTED_ALPHA,
    family_long,
    family_title,
    family_wide,
)
from xrr_accessor.reporting.rater_view import COUNTS, page_raters, ranked

html5lib = pytest.importorskip("html5lib")
pytest.importorskip("jinja2")
NS = "{http://www.w3.org/1999/xhtml}"


def _quiet(f: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def _section(page: str, ident: str) -> ET.Element:
    tree = html5lib.HTMLParser(strict=True, namespaceHTMLElements=True).parse(page)
    (found,) = [e for e in tree.iter() if e.get("id") == ident]
    return found


def _text(e: ET.Element) -> str:
    return " ".join("".join(e.itertext()).split())


def _rows(table: ET.Element) -> list[list[str]]:
    body = table.find(f"{NS}tbody")
    assert body is not None
    return [[_text(c) for c in tr] for tr in body.iter(f"{NS}tr")]


# --- 1. the classic family of a one-pool report past 8 labels -----------------------

@pytest.fixture(scope="module")
def budapest():
    """The demo's Budapest pool (31 labels, two raters), its first 120 items."""
    df = load_demo()
    df = df[df["pool"] == "Budapest"]
    df = df[df["item_id"].isin(pd.unique(df["item_id"])[:120])]
    return _quiet(xa.report, df, seed=0)


def test_wide_family_of_a_one_pool_report_holds_every_estimate(budapest):
    table = budapest.agreement
    assert "replication" in table.index.names  # the index the page's table came from
    assert table.index.get_level_values("label").nunique() > report_html.WIDE_FAMILY_LABELS
    wide = family_wide(table, 3)
    long = family_long(table.droplevel("replication"), 3)
    estimates = table.droplevel("replication")["estimate"]
    assert wide.shape == (31, estimates.index.get_level_values("metric").nunique())
    filled = 0
    for (label, metric), est in estimates.items():
        cell = wide.loc[label, metric]
        assert cell.split(" [")[0] == long.loc[(label, metric), "estimate"], (label, metric)
        if np.isfinite(est):
            assert float(cell) == pytest.approx(est, abs=5e-4 + 1e-12)
            filled += 1
        else:
            assert cell == ""
    assert filled == np.isfinite(estimates).sum() > 250
    # and the page prints the same cells
    page = _quiet(budapest.to_html, figures=False)
    agreement = _section(page, "xrr-agreement")
    rows = _rows(agreement)
    assert [r[0] for r in rows] == list(wide.index)
    assert [r[1:] for r in rows] == wide.to_numpy().tolist()


# --- 2. and 3. the family's weights, named; one default; no level= ------------------

@pytest.fixture(scope="module")
def ordinal():
    """Four raters on 1-5 (every value used), 40 items: the ordinal level, linear weights."""
    rng = np.random.default_rng(5)
    truth = rng.integers(1, 6, 40)
    rows = [(i, f"r{b}", int(np.clip(truth[i] + rng.integers(-2, 3), 1, 5)))
            for i in range(40) for b in range(4)]
    df = pd.DataFrame(rows, columns=["item", "rater", "score"])
    return df, _quiet(xa.report, df, seed=0)


def _kripp(df: pd.DataFrame, distance: Any) -> float:
    krippendorff = pytest.importorskip("krippendorff")
    matrix = df.pivot(index="rater", columns="item", values="score").to_numpy(dtype=float)
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement=distance,
                                    value_domain=[1, 2, 3, 4, 5]))


def test_the_family_names_its_weights_and_its_alpha_apart_from_the_irr(ordinal):
    df, rep = ordinal
    table = rep.agreement
    assert rep.attrs["irr"] == "alpha" and rep.attrs["level"] == "ordinal"
    assert table.attrs["weights"] == "linear"
    name = WEIGHTED_ALPHA.format("linear")
    assert name == "alpha (linear weights)"
    long = family_long(table, 3)
    assert long.attrs["title"] == family_title(table) == "Classic family, linear weights"
    metrics = list(long.index.get_level_values("metric"))
    assert name in metrics and "alpha" not in metrics
    # the two alphas are two numbers, each the peer's with its own distance
    family = float(table.xs("alpha", level="metric")["estimate"].iloc[0])
    irr = float(rep.frame.loc[rep.frame["statistic"] == "irr", "estimate"].iloc[0])
    linear = _kripp(df, lambda v1, v2, i1, i2, n_v, dtype=float: np.abs(v1 - v2).astype(dtype))
    assert family == pytest.approx(linear, abs=1e-9)
    assert irr == pytest.approx(_kripp(df, "ordinal"), abs=1e-9)
    assert abs(family - irr) > 0.01
    page = _quiet(rep.to_html, figures=False)
    section = _section(page, "agreement")
    assert _text(section.find(f"{NS}h2")) == "Classic family, linear weights, side by side"
    rows = _rows(_section(page, "xrr-agreement"))
    (alpha_row,) = [r for r in rows if "alpha" in " ".join(r)]
    assert alpha_row[0] == name and float(alpha_row[1]) == pytest.approx(family, abs=5e-4)
    note = _text(section)
    assert "alpha (linear weights) is not the IRR above" in note
    # several labels: the wide table's column
    two = df.assign(other=df["score"].map({1: 1, 2: 1, 3: 3, 4: 5, 5: 5}))
    t2 = _quiet(xa.agreement_table, two, item="item", rater="rater", labels=["score", "other"])
    wide = family_wide(t2, 3)
    assert name in wide.columns and "alpha" not in wide.columns
    assert wide.attrs["title"] == "Classic family, linear weights"
    unweighted = _quiet(xa.agreement_table, df, weights="unweighted")
    assert family_title(unweighted) == "Classic family, unweighted"
    assert "alpha" in family_long(unweighted).index.get_level_values("metric")  # no weights


def test_accessor_and_function_take_the_same_default_weights(ordinal):
    df, _ = ordinal
    by_function = _quiet(xa.agreement_table, df)
    by_accessor = _quiet(df.xrr(item="item", rater="rater").agreement_table)
    pd.testing.assert_frame_equal(by_accessor, by_function)
    assert by_accessor.attrs["weights"] == "linear"


def test_agreement_table_refuses_level_naming_weights(ordinal):
    df, _ = ordinal
    with pytest.raises(InputError, match=r"not level='ordinal'.*weights='linear'"):
        xa.agreement_table(df, item="item", rater="rater", labels=["score"], level="ordinal")


# --- 4. and 5. the rater figure's caption, the rater table's width ------------------

@pytest.fixture(scope="module")
def crowd():
    """40 raters, 120 items of five annotations each, some raters on few items."""
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 2, 120)
    weights = np.r_[np.full(30, 1.0), np.full(10, 0.1)]
    rows = []
    for i in range(120):
        for r in rng.choice(40, 5, replace=False, p=weights / weights.sum()):
            flip = rng.random() < (0.1 if r % 7 else 0.45)
            rows.append((f"item_{i}", f"Annotator{r:03d}", int(truth[i] ^ flip)))
    df = pd.DataFrame(rows, columns=["item", "rater", "offensive"])
    return df, _quiet(xa.report, df, seed=0)


def test_rater_figure_caption_counts_the_ranked_raters(crowd):
    _, rep = crowd
    table = rep.raters
    n_ranked = len(ranked(table))
    assert 0 < n_ranked < len(table)  # some raters below min_items: not drawn
    page = html.unescape(_quiet(rep.to_html))
    (caption,) = [c for c in re.findall(r"<figcaption>([^<]*)</figcaption>", page)
                  if "kappa_x against the other raters" in c]
    m = re.search(r"the ([\d,]+) ranked raters \(at least ([\d,]+) items\)", caption)
    assert m, caption
    assert int(m[1].replace(",", "")) == n_ranked
    assert int(m[2]) == table.attrs["min_items"]
    assert "each rater's kappa_x" not in caption


def test_rater_table_cells_read_back(crowd):
    _, rep = crowd
    shown = ranked(rep.raters, report_html.TOP_ROWS)
    page = page_raters(shown, 3)
    assert list(page.columns) == ["rank", "kappa_x", "alpha_without", "delta_alpha", COUNTS]
    number = r"(-?\d+\.\d+)"
    for (_, row), (_, cells) in zip(shown.iterrows(), page.iterrows(), strict=True):
        assert cells["rank"] == str(int(row["rank"]))
        for col in ("kappa_x", "delta_alpha"):
            m = re.fullmatch(rf"{number} \[{number}, {number}\]", cells[col])
            assert m, cells[col]
            d = len(m[1].split(".")[1])
            for got, want in zip(m.groups(), row[[col, f"{col}_lower", f"{col}_upper"]],
                                 strict=True):
                assert float(got) == pytest.approx(want, abs=0.5 * 10.0 ** -d + 1e-12)
        assert cells[COUNTS] == (f"{row['n_annotations']:,} ({row['n_shared']:,}, "
                                 f"{row['n_other']:,})")
    # a crowd's small delta_alpha (819 raters: 0.000 for everyone) keeps its leading digits
    tiny = shown.assign(delta_alpha=shown["delta_alpha"] / 1000,
                        delta_alpha_lower=shown["delta_alpha_lower"] / 1000,
                        delta_alpha_upper=shown["delta_alpha_upper"] / 1000)
    top = float(np.abs(tiny["delta_alpha"]).max())
    printed = max(abs(float(c.split(" ")[0])) for c in page_raters(tiny, 3)["delta_alpha"])
    assert printed == pytest.approx(top, rel=0.01)
    note = _text(_section(_quiet(rep.to_html, figures=False), "raters"))
    alpha = float(shown["alpha"].iloc[0])
    assert f"The pool's alpha with every rater: {alpha:.3f}." in note


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PROBE = """<script>
window.addEventListener("load", () => {
  const t = document.getElementById("xrr-raters");
  const heads = Array.from(t.querySelectorAll("thead th"));
  document.body.setAttribute("data-probe", JSON.stringify({
    right: t.getBoundingClientRect().right, view: document.documentElement.clientWidth,
    scroll: t.parentElement.scrollWidth, box: t.parentElement.clientWidth,
    cut: heads.filter(h => h.scrollWidth > h.clientWidth + 1).length,
  }));
});
</script>"""


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None and not os.environ.get("XRR_REQUIRE_BROWSER"),
                    reason="no chromium on this machine (.ci/run installs Debian's)")
def test_rater_table_fits_1280_px_in_headless_chromium(crowd, tmp_path: Path):
    assert CHROMIUM is not None, "XRR_REQUIRE_BROWSER is set but chromium is missing"
    _, rep = crowd
    assert "kappa_x_lower" in rep.raters.columns  # the widest table: with intervals
    page = _quiet(rep.to_html, figures=False)
    probed = tmp_path / "probed.html"
    probed.write_text(page.replace("</body>", PROBE + "\n</body>"), encoding="utf-8")
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'p'}",
             "--window-size=1280,900", "--virtual-time-budget=5000", "--dump-dom"]
    dom = subprocess.run([CHROMIUM, *flags, probed.as_uri()], capture_output=True,
                         text=True, timeout=120, check=True).stdout
    probe = re.search(r'data-probe="([^"]*)"', dom)
    assert probe is not None, dom[:500]
    got = json.loads(probe.group(1).replace("&quot;", '"'))
    assert got["view"] <= 1280
    assert got["right"] <= got["view"], got  # no column off-screen
    assert got["scroll"] <= got["box"], got  # nothing to scroll to
    assert got["cut"] == 0, got  # no header cut


# --- 6. the items note's example -----------------------------------------------------

@pytest.mark.parametrize("n_raters", [2, 3, 4, 5])
def test_items_note_example_fits_the_number_of_annotations(n_raters):
    rng = np.random.default_rng(n_raters)
    rows = [(i, f"r{b}", int(rng.integers(0, 2))) for i in range(30) for b in range(n_raters)]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    items = _quiet(xa.item_disagreement, df, level="nominal")
    note = report_html._items_note(items)
    assert "0.775 for a 3-2 split of 5" not in note or n_raters == 5
    m = re.search(r"; (\d\.\d{3}) for a (\d)-(\d) split of (\d), the number of annotations "
                  r"most items have here\)", note)
    if n_raters == 2:  # two annotations: the largest, 1, is the only split; no example
        assert m is None and "at most 1 (two annotations that differ)" in note
        return
    assert m, note
    a, b, n = int(m[2]), int(m[3]), int(m[4])
    assert n == n_raters and a + b == n and a - b in (0, 1)
    # the value is D of an item with that split, as item_disagreement computes it
    counts = df.groupby("item")["joy"].sum()
    split = counts[(counts == a) | (counts == b)].index
    assert len(split)
    assert float(m[1]) == pytest.approx(items.loc[("joy", split[0]), "disagreement"], abs=5e-4)
    naive = np.sqrt(sum(x != y for i, x in enumerate([1] * a + [0] * b)
                        for y in ([1] * a + [0] * b)[i + 1:]) / (n * (n - 1) / 2))
    assert float(m[1]) == pytest.approx(naive, abs=5e-4)
