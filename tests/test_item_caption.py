"""The one-pool page's "Items most disagreed on" caption says what D_i means at the
level the table was computed at: its unit and its largest value, checked against the
table's own numbers and a naive computation of each metric written here.

Found by a new-user trial: at level="ordinal" the table held D = 845.6 (a 0-2 scale)
and 4371.5 (an item rated 1 and 5 on 1-5), Krippendorff's rank-count units, under a
caption explaining D with a nominal example ("1.0 at n = 2, 0.775 for a 3-2 split")."""

from __future__ import annotations

import html
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.reporting.item_scale import largest_d
from xrr_accessor.reporting.report_html import _items_note

CUSTOM = np.abs(np.subtract.outer(np.arange(5), np.arange(5))) ** 1.5  # 1..5, K x K


def _data() -> pd.DataFrame:
    """One pool, 1-5, three raters; item 0 rated only twice, at 2 and 5 (so not the
    scale's ends: 1 is rated elsewhere), so D's largest value is reached by another
    pattern than item 0's. Item 1: two annotations at 1 and 5 (the largest)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, 80)
    rows = [(i, f"r{b}", int(np.clip(truth[i] + rng.integers(-1, 2), 1, 5)))
            for i in range(2, 80) for b in range(3)]
    rows += [(0, "r0", 2), (0, "r1", 5), (1, "r0", 1), (1, "r2", 5), (80, "r1", 4)]
    return pd.DataFrame(rows, columns=["item", "rater", "score"])


def _naive_largest(df: pd.DataFrame, level) -> float:
    """The largest pair disagreement among pairable values, from the metric's formula."""
    n = df.groupby("item")["score"].transform("size")
    vals = np.sort(df.loc[n >= 2, "score"].unique())
    counts = df.loc[n >= 2, "score"].value_counts()
    best = 0.0
    for a in vals:
        for b in vals:
            if level == "nominal":
                d = float(a != b)
            elif level == "ordinal":  # Krippendorff: ranks over the pairable values
                lo, hi = min(a, b), max(a, b)
                d = (counts[(counts.index >= lo) & (counts.index <= hi)].sum()
                     - (counts[lo] + counts[hi]) / 2) ** 2
            elif level == "interval":
                d = (a - b) ** 2
            elif level == "ratio":
                d = ((a - b) / (a + b)) ** 2
            else:
                d = CUSTOM[a - 1, b - 1]
            best = max(best, d)
    return float(np.sqrt(best))


LEVELS = {"nominal": "nominal", "ordinal": "ordinal", "interval": "interval",
          "ratio": "ratio", "custom": CUSTOM}
UNITS = {"nominal": "share of the item's annotation pairs that differ",
         "ordinal": "Krippendorff's rank units, a count of annotations",
         "interval": "in the ratings' own unit", "ratio": "has no unit",
         "custom": "the custom disagreement"}


@pytest.mark.parametrize("name", list(LEVELS))
def test_item_caption_gives_the_unit_and_largest_value_at_every_level(name):
    df = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # item 80 has one annotation; no agreement table
        rep = xa.report(df, level=LEVELS[name])
    items = rep.items
    d = items["disagreement"].to_numpy(dtype=float)
    note = _items_note(items)
    assert UNITS[name] in note, note
    # nominal only, at the three annotations most items have (issue 37: not 3-2 of 5)
    assert ("0.816 for a 2-1 split of 3" in note) == (name == "nominal")
    assert "3-2 split of 5" not in note
    want = _naive_largest(df, name)
    assert np.nanmax(d) <= want + 1e-9  # no D above the stated largest
    one_five = items.xs(1, level="item")["disagreement"].iloc[0]
    assert one_five == pytest.approx(want, rel=1e-12)  # and the item rated 1 and 5 reaches it
    if name == "nominal":
        assert "at most 1 (two annotations that differ" in note and want == 1.0
    else:
        m = re.search(r"on these data at most ([\d,]+\.\d{3}) \(an item rated (\d)\.?0? and "
                      r"(\d)\.?0?(, of ([\d,]+) pairable annotations)?\)", note)
        assert m, note
        assert float(m[1].replace(",", "")) == pytest.approx(want, abs=5e-4)
        assert {m[2], m[3]} == {"1", "5"}
        pairable = int((df.groupby("item")["score"].transform("size") >= 2).sum())
        assert (m[5] is not None) == (name == "ordinal")  # counted only where D counts
        if name == "ordinal":
            assert int(m[5].replace(",", "")) == pairable
    # the page prints the caption beside its table
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = html.unescape(rep.to_html())
    assert _items_note(items) in page


def test_largest_d_per_label_and_without_a_pair():
    """Two labels, each its own largest value (the ordinal metric ranks within a label);
    a label with one value pairable has D at most 0, one with none NaN."""
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
                       "x": [0, 2, 1, 1, 1, 1], "y": [1, 1, 1, 1, 1, 1]})
    out = largest_d(df, "ordinal", {})
    assert out.loc[("x", "all"), "largest"] == 6 - (1 + 1) / 2  # 0 and 2 among 6 values
    assert out.loc[("y", "all"), "largest"] == 0.0
    assert out.loc[("x", "all"), "n_pairable"] == 6
    single = largest_d(pd.DataFrame({"item": [1, 2], "rater": ["a", "b"], "x": [1, 2]}),
                       "interval", {})
    assert np.isnan(single["largest"].iloc[0])


def test_largest_d_is_each_replications_own():
    """Per pool, from that pool's pairable values only (pandas counts them here): pool A
    rates 1-5, pool B 2-3; an item B rated once is not pairable in B."""
    rows = [(1, "a", "A", 1), (1, "b", "A", 5), (2, "a", "A", 3), (2, "b", "A", 3),
            (1, "c", "B", 2), (1, "d", "B", 3), (2, "c", "B", 3), (3, "c", "B", 9)]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "score"])
    out = largest_d(df, "interval", {"replication": "pool"})
    sizes = df.groupby(["pool", "item"])["score"].transform("size")
    for pool, part in df[sizes >= 2].groupby("pool"):
        assert out.loc[("score", pool), "largest"] == part["score"].max() - part["score"].min()
        assert out.loc[("score", pool), "n_pairable"] == len(part)
