"""Landis and Koch's bands: the legend says where each boundary falls exactly as the
classifier applies it, in every place it is printed (issue 37: the legend said "fair
0.21-0.40" while 0.205 was classified fair and printed beside "fair").

The property that every printed number reads back to its band and verdict is
tests/test_verdicts.py::test_no_sentence_or_cell_contradicts_its_numbers_as_printed.
"""

from __future__ import annotations

import operator
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from xrr_accessor.reporting.agreement import interpret
from xrr_accessor.reporting.bands import LEGEND, band_of
from xrr_accessor.reporting.reading import LOW_IRR, _above_one
from xrr_accessor.reporting.report import Report

DOCS = Path(__file__).resolve().parents[1] / "docs" / "definitions.md"
OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt}


def _holds(condition: str, x: float) -> bool:
    """A legend's condition ("0.20 < x <= 0.40", "x < 0", "x > 0.80") read naively
    from its words."""
    parts = condition.split()
    if parts[0] == "x":  # x op bound
        return OPS[parts[1]](x, float(parts[2]))
    low, op1, _, op2, high = parts  # low op x op high
    return OPS[op1](float(low), x) and OPS[op2](x, float(high))


GRID = sorted({*np.round(np.linspace(-0.5, 1.0, 301), 10), *(
    e + o for e in (0.0, 0.2, 0.4, 0.6, 0.8) for o in (-1e-3, -1e-9, 0.0, 1e-9, 1e-3))})


def test_the_legend_says_where_each_boundary_falls_as_the_classifier_applies_it():
    for x in GRID:  # every x in exactly one band: the one band_of and interpret give
        holding = [name for name, condition in LEGEND if _holds(condition, x)]
        assert holding == [band_of(x)] == [interpret(x)], (x, holding)


def test_the_issues_numbers_read_as_the_legend_says():
    # 0.205 is fair by the legend ("0.20 < x <= 0.40"), 0.605 substantial, 0.2 slight
    assert [interpret(x) for x in (0.205, 0.605, 0.2, 0.4, 0.402)] == [
        "fair", "substantial", "slight", "fair", "moderate"]
    assert dict(LEGEND)["fair"] == "0.20 < x <= 0.40"


def test_the_legend_is_the_one_in_the_docstring_and_the_definitions():
    doc = " ".join(interpret.__doc__.split())
    for name, condition in LEGEND:
        assert f"{name} ({condition})" in doc
    defs = DOCS.read_text()
    rows = re.findall(r"^\| (poor|slight|fair|moderate|substantial|almost perfect) \| "
                      r"(.+?) \|$", defs, flags=re.M)
    assert tuple(rows) == LEGEND
    assert not re.search(r"0\.21|0\.41|0\.61|0\.81", doc + defs.split("Reading them")[1][:900])


def _report(irr: dict[str, float], norm: tuple[float, float, float]) -> Report:
    rows = [{"label": "joy", "statistic": "irr", "replication": r, "replication_other": np.nan,
             "estimate": v, "lower": np.nan, "upper": np.nan, "n_items": 100}
            for r, v in irr.items()]
    rows.append({"label": "joy", "statistic": "kappa_x", "replication": "A",
                 "replication_other": "B", "estimate": 0.03, "lower": np.nan,
                 "upper": np.nan, "n_items": 100})
    rows.append({"label": "joy", "statistic": "normalized", "replication": "A",
                 "replication_other": "B", "estimate": norm[0], "lower": norm[1],
                 "upper": norm[2], "n_items": 100, "reference": "both"})
    return Report(pd.DataFrame(rows), {})


@pytest.mark.parametrize("irr", [0.1996, 0.19, 0.15, 0.05])
def test_an_irr_called_low_prints_below_the_threshold(irr):
    """An IRR of 0.1996 is below LOW_IRR (0.20): printed "0.20" it would not be low."""
    text = _report({"A": irr, "B": 0.1}, (0.3, 0.1, 0.5)).readings().loc[0, "text"]
    m = re.search(r"Both IRRs are low \((\S+), (\S+)\), so this compares noisy pools: "
                  r"kappa_x itself is (\S+)\.", text)
    assert m, text
    assert all(float(v) < LOW_IRR for v in m.groups()[:2]), text
    assert len({len(v.partition(".")[2]) for v in m.groups()}) == 1, text  # one precision
    assert float(m[1]) == pytest.approx(irr, abs=0.5e-3)
    # the reason an interval lies above 1 names the same number the same way
    why = _above_one([("A", irr, 100), ("B", 0.5, 100)], 100, True, 2)
    assert why == f"an IRR near 0 (A {m[1]}) makes the ratio unstable"


def test_a_cell_on_an_unknown_scale_is_refused_naming_the_scales():
    from xrr_accessor.errors import InputError
    from xrr_accessor.reporting.cells import shown

    with pytest.raises(InputError, match=r"'band' .*'verdict' .*None"):
        shown(0.5, 0.4, 0.6, scale="bands")
