"""The one decision rule from (estimate, lower, upper) to words: verdicts.judge.

Every sentence of readings() and of the HTML page comes from judge(); these tests
check that no sentence says more than its interval (a property over all intervals),
that every branch reads as English (each template rendered whole), and the issue's
reproducers (the demo's Budapest x Mexico City, intervals entirely above 1).
"""

from __future__ import annotations

import math
import re
import warnings
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.reporting.bands import LEGEND, band_of, banded
from xrr_accessor.reporting.cells import SCALES, shown
from xrr_accessor.reporting.report import Report
from xrr_accessor.reporting.verdicts import VERDICTS, WIDE, Wording, judge, verdict_of

SYM = Wording.symmetric("A", "B")
REF = Wording.against("crowd", "experts")


def _rule(est, lo, hi, width):
    """The rule of docs/definitions.md, written again from the words there (floats, or
    Decimals: the numbers as a reader takes them from the page); within 1e-12 of 0, 1
    or ``width`` a number is on it."""
    if math.isnan(est):
        return "undefined"
    if math.isnan(lo) or math.isnan(hi):
        return "estimate only"
    tol = type(width)(repr(1e-12)) if isinstance(width, Decimal) else 1e-12
    contains_1 = lo <= 1 + tol and hi >= 1 - tol
    if lo > 1 + tol:
        return "exceeds"
    if hi < 1 - tol and lo > tol:
        return "in part"
    if hi < 1 - tol:
        return "does not replicate"
    assert contains_1
    return "replicates" if (hi - lo <= width + tol and lo > tol) else "inconclusive"


finite = st.floats(-3.0, 4.0, allow_nan=False)
#: Numbers at and around every edge a sentence or a cell reads: 0, 1 and the band edges,
#: by a little (rounding at 2-3 decimals), by a hair (1e-9) and within EDGE.
EDGES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
near = st.builds(lambda e, o: e + o, st.sampled_from(EDGES), st.one_of(
    st.floats(-0.006, 0.006), st.sampled_from([-1e-9, 1e-9, -4e-13, 4e-13, 0.0])))
numbers = st.one_of(finite, near)
NUM = r"(-?\d+\.\d+)"
BANDS = "|".join(name for name, _ in LEGEND)


def _claims(e, lo, hi, width):
    """Each claim a sentence can make about its numbers, and whether the numbers (true
    or printed) make it true (within 1e-12 of 0, 1 or ``width``: on it)."""
    tol = Decimal(repr(1e-12)) if isinstance(width, Decimal) else 1e-12
    return {"the interval contains 1": lo <= 1 + tol and hi >= 1 - tol,
            "the interval lies above 1": lo > 1 + tol,
            "the interval lies between 0 and 1": tol < lo and hi < 1 - tol,
            "the interval contains 0": lo <= tol and hi >= -tol,
            "also contains 0": lo <= tol,
            "the interval lies below 0": hi < -tol,
            f"is wider than {width}": hi - lo > width + tol,
            f"at most {width} wide": hi - lo <= width + tol,
            "as much as": (lo <= 1 + tol and hi >= 1 - tol) or 1 - tol <= e <= 1 + tol,
            "more than": lo > 1 + tol or e > 1 + tol}


def _said(t, e, lo, hi, width):
    """The claims ``t`` makes, each with whether ``(e, lo, hi)`` make it true."""
    return {c: ok for c, ok in _claims(e, lo, hi, width).items() if c in t}


def _printed(values, d):
    return [Decimal(f"{v:.{d}f}") for v in values]


@settings(max_examples=250, deadline=None)
@given(est=numbers, a=numbers, b=numbers, width=st.floats(0.05, 0.95),
       ref=st.booleans(), digits=st.integers(1, 3))
@example(est=0.12, a=0.0041, b=0.27, width=WIDE, ref=False, digits=2)  # issue 37
@example(est=0.9, a=0.6, b=1.1004, width=WIDE, ref=False, digits=2)  # "1.10 - 0.60"
@example(est=0.605, a=0.205, b=0.4, width=WIDE, ref=True, digits=2)  # issue 37's bands
@example(est=0.0, a=0.5, b=0.005, width=WIDE, ref=False, digits=1)  # "0.01": 0.5%, not 0%
def test_no_sentence_or_cell_contradicts_its_numbers_as_printed(est, a, b, width, ref, digits):
    """Every number a replication sentence (judge) or a table cell (cells.shown) prints,
    parsed back, gives the verdict, the claims and the band printed beside it; all with
    one precision, ``digits`` or the fewest more that do (issue 37: "0.12 [0.00, 0.27]
    ... lies between 0 and 1 ... 0%-27%" for a lower limit of 0.0041)."""
    lo, hi = min(a, b), max(a, b)
    v = judge(est, lo, hi, "joy", REF if ref else SYM, width=width, digits=digits)
    assert v.verdict == _rule(est, lo, hi, width) == verdict_of(est, lo, hi, width)
    t = v.text
    # each claim about the interval appears only when the interval makes it true
    assert all(_said(t, est, lo, hi, width).values()), (lo, hi, t)
    # the positive claim "A and B replicate each other on" only with "replicates"
    positive = "crowd replicates experts on joy" if ref else "A and B replicate each other on joy"
    assert (positive in t) == (v.verdict == "replicates")
    # a perfect replication is never claimed against an interval that excludes 1
    if lo > 1 + 1e-12 or hi < 1 - 1e-12:
        assert "as much as" not in t
    # the numbers read are quoted, with one precision, within rounding of the numbers
    m = re.search(rf"normalized kappa_x {NUM} \[{NUM}, {NUM}\]", t)
    assert m, t
    places = {len(x.partition(".")[2]) for x in m.groups()}
    assert len(places) == 1, t
    d = places.pop()
    assert d >= digits
    assert list(m.groups()) == [f"{x:.{d}f}" for x in (est, lo, hi)]
    # read back, they give the verdict and the claims the sentence gives them
    w = Decimal(repr(width))
    back = [Decimal(x) for x in m.groups()]
    assert _rule(*back, w) == v.verdict, t
    assert all(_said(t, *back, w).values()), t
    shares = re.search(r"at (\d+(?:\.\d+)?)%-(\d+(?:\.\d+)?)% of", t)
    if shares:  # in part: each share printed strictly between 0% and 100%, with the
        # numbers' precision (0.27 at two decimals: 27%) or the fewest more that do
        assert all(0 < Decimal(s) < 100 for s in shares.groups()), t
        places = {len(s.partition(".")[2]) for s in shares.groups()}
        assert len(places) == 1, t
        p = places.pop()
        assert p >= max(d - 2, 0), t
        if p > max(d - 2, 0):
            assert not all(0 < Decimal(f"{x:.{p - 1}%}"[:-1]) < 100 for x in (lo, hi)), t
    # the fewest decimals that do: one fewer would contradict the verdict or a claim
    if d > digits:
        fewer = _printed((est, lo, hi), d - 1)
        assert (_rule(*fewer, w) != v.verdict
                or not all(_said(t, *fewer, w).values())), t
    # a table cell of this normalized kappa_x prints the same numbers
    assert shown(est, lo, hi, digits, scale=SCALES["normalized"], width=width) == (
        m[1], f"[{m[2]}, {m[3]}]")
    # a cell of an IRR or kappa_x: each number, read back, in its own band
    cell_est, cell_interval = shown(est, lo, hi, digits, scale=SCALES["irr"])
    cell = [cell_est, *re.fullmatch(rf"\[{NUM}, {NUM}\]", cell_interval).groups()]
    places = {len(x.partition(".")[2]) for x in cell}
    assert len(places) == 1
    d = places.pop()
    assert d >= digits
    assert [band_of(float(x)) for x in cell] == [band_of(x) for x in (est, lo, hi)]
    if d > digits:
        assert [band_of(float(x)) for x in _printed((est, lo, hi), d - 1)] != [
            band_of(x) for x in (est, lo, hi)]
    # the same numbers in a sentence on Landis and Koch's scale (one pool, kappa_x only,
    # the models page): the bands named are those of the numbers as printed
    band, phrase = banded(est, lo, hi, digits)
    m = re.fullmatch(rf"{NUM} \[{NUM}, {NUM}\], ({BANDS}) on Landis and Koch's scale; the "
                     rf"interval (?:lies within ({BANDS})|spans ({BANDS}) to ({BANDS}))\.",
                     phrase)
    assert m, phrase
    first, last = (m[5], m[5]) if m[5] else (m[6], m[7])
    assert [band_of(float(m[i])) for i in (1, 2, 3)] == [band, first, last] == [
        band_of(x) for x in (est, lo, hi)]
    assert [m[i] for i in (1, 2, 3)] == cell  # sentence and cell: one rule


@settings(max_examples=100, deadline=None)
@given(est=numbers, lo=st.one_of(st.just(np.nan), finite), hi=st.just(np.nan),
       digits=st.integers(1, 3))
@example(est=0.9996, lo=np.nan, hi=np.nan, digits=2)  # "1.00 ... at 100% of what"
@example(est=0.0041, lo=np.nan, hi=np.nan, digits=2)  # "0.00 ... at 0% of what"
def test_without_an_interval_only_the_estimate_is_read(est, lo, hi, digits):
    v = judge(est, lo, hi, "joy", SYM, digits=digits)
    assert v.verdict == "estimate only"
    assert "[" not in v.text
    m = re.search(rf"normalized kappa_x {NUM}, so", v.text)
    printed = float(m[1])
    assert m[1] == shown(est, lo, hi, digits, scale="verdict")[0]
    # as printed, the estimate reaches, passes or falls short of 1 as the words say
    tol = 1e-12  # within it of 1: on it
    assert ("more than" in v.text) == (est > 1 + tol) == (printed > 1 + tol)
    assert ("as much as" in v.text) == (1 - tol <= est <= 1 + tol) == (
        1 - tol <= printed <= 1 + tol)
    share = re.search(r"at (\d+(?:\.\d+)?)% of what", v.text)
    if tol < est < 1 - tol:  # its share, strictly between 0% and 100%
        assert 0 < Decimal(share[1]) < 100 and 0 < printed < 1, v.text


def test_every_verdict_is_reachable_and_listed():
    seen = {verdict_of(*x) for x in [(np.nan, 0, 1), (0.5, np.nan, np.nan), (1.3, 1.1, 1.5),
                                     (0.5, 0.3, 0.7), (0.1, -0.1, 0.3), (0.9, 0.3, 1.6),
                                     (0.95, 0.85, 1.05)]}
    assert seen == set(VERDICTS)


# Every branch of every template, rendered whole: the sentences a person reads.
SENTENCES = [
    ((0.97, 0.90, 1.04), SYM, "replicates",
     "A and B replicate each other on joy: normalized kappa_x 0.97 [0.90, 1.04]; the "
     "interval contains 1 and is at most 0.5 wide, so the pools agree with each other as "
     "much as their own agreement allows, within the interval's precision."),
    ((0.97, 0.90, 1.04), REF, "replicates",
     "crowd replicates experts on joy: normalized kappa_x 0.97 [0.90, 1.04]; the interval "
     "contains 1 and is at most 0.5 wide, so crowd agrees with experts as much as the "
     "agreement within experts allows, within the interval's precision."),
    ((0.35, 0.12, 0.63), SYM, "in part",
     "A and B replicate each other only in part on joy: normalized kappa_x 0.35 [0.12, "
     "0.63]; the interval lies between 0 and 1, so the pools agree with each other at "
     "12%-63% of what their own agreement allows."),
    ((0.35, 0.12, 0.63), REF, "in part",
     "crowd replicates experts only in part on joy: normalized kappa_x 0.35 [0.12, 0.63]; "
     "the interval lies between 0 and 1, so crowd agrees with experts at 12%-63% of what "
     "the agreement within experts allows."),
    ((0.08, -0.02, 0.18), SYM, "does not replicate",
     "A and B do not replicate each other on joy: normalized kappa_x 0.08 [-0.02, 0.18]; "
     "the interval contains 0, so agreement beyond chance between them is not shown."),
    ((-0.3, -0.5, -0.1), REF, "does not replicate",
     "crowd does not replicate experts on joy: normalized kappa_x -0.30 [-0.50, -0.10]; "
     "the interval lies below 0, so agreement beyond chance between them is not shown."),
    ((0.89, 0.32, 2.90), SYM, "inconclusive",
     "A and B on joy: normalized kappa_x 0.89 [0.32, 2.90]; the interval contains 1 but is "
     "wider than 0.5, too wide to say whether A and B replicate each other: more items "
     "would tell."),
    ((0.89, 0.32, 2.90), REF, "inconclusive",
     "crowd against experts on joy: normalized kappa_x 0.89 [0.32, 2.90]; the interval "
     "contains 1 but is wider than 0.5, too wide to say whether crowd replicates experts: "
     "more items would tell."),
    ((1.32, 1.11, 1.57), SYM, "exceeds",
     "A and B on joy: normalized kappa_x 1.32 [1.11, 1.57]; the interval lies above 1, so "
     "the pools agree with each other more than their own agreement allows, which a "
     "replication of the same items cannot do: read the IRRs and kappa_x behind it before "
     "calling this a replication."),
    ((0.73, np.nan, np.nan), SYM, "estimate only",
     "A and B on joy: normalized kappa_x 0.73, so the pools agree with each other at 73% of "
     "what their own agreement allows (no interval: ci=0.95, or --ci 0.95 in the shell, says "
     "whether a perfect replication is ruled out)."),
    ((1.10, np.nan, np.nan), REF, "estimate only",
     "crowd against experts on joy: normalized kappa_x 1.10, so crowd agrees with experts "
     "more than the agreement within experts allows (no interval: ci=0.95, or --ci 0.95 in the "
     "shell, says whether a perfect replication is ruled out)."),
    ((np.nan, np.nan, np.nan), SYM, "undefined",
     "A and B cannot be compared on joy: normalized kappa_x is undefined."),
]


@pytest.mark.parametrize(("numbers", "words", "verdict", "sentence"), SENTENCES)
def test_every_template_reads_as_a_sentence(numbers, words, verdict, sentence):
    v = judge(*numbers, "joy", words)
    assert (v.verdict, v.text) == (verdict, sentence)
    # the garbled sentence of issue 21 and its kin: a clause joined to a verb phrase
    assert "may be as high as" not in v.text
    assert not re.search(r"\s{2,}|\s[.,;:]|\.\.", v.text)
    assert v.text.endswith(".") and v.text[0].isalnum()


def test_reasons_are_quoted():
    v = judge(1.32, 1.11, 1.57, "joy", SYM, why="the IRRs use different item sets")
    assert v.text.endswith("cannot do: likely because the IRRs use different item sets.")
    u = judge(np.nan, np.nan, np.nan, "joy", SYM, why="the IRR of B is undefined")
    assert u.text.endswith("undefined (the IRR of B is undefined).")


def test_a_wider_width_moves_only_intervals_containing_1():
    assert verdict_of(0.35, 0.12, 0.63, width=0.1) == "in part"  # excludes 1: never wide
    assert verdict_of(0.95, 0.7, 1.2, width=0.4) == "inconclusive"
    assert verdict_of(0.95, 0.7, 1.2, width=0.5) == "replicates"
    assert verdict_of(0.5, -0.1, 1.1, width=5.0) == "inconclusive"  # contains 0 and 1


# --- the issue's reproducers ----------------------------------------------------------


@pytest.fixture(scope="module")
def demo_readings():
    df = xa.datasets.load_demo()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = df.xrr.report(ci=0.95, seed=0)
    return rep, rep.readings()


def test_demo_budapest_mexico_city_is_read_from_its_interval(demo_readings):
    _, out = demo_readings
    row = out[(out["label"] == "concentration") & (out["replication"] == "Budapest")
              & (out["replication_other"] == "Mexico City")].iloc[0]
    assert f"{row.estimate:.2f} [{row.lower:.2f}, {row.upper:.2f}]" == "0.35 [0.12, 0.63]"
    assert row.verdict == "in part"
    assert "too wide" not in row.text and "inconclusive" not in row.text
    assert "the pools agree with each other at 12%-63% of what" in row.text


def test_demo_readings_all_follow_the_rule(demo_readings):
    rep, out = demo_readings
    norm = rep.frame[rep.frame["statistic"] == "normalized"].reset_index(drop=True)
    assert len(out) == len(norm) == 93
    for r, n in zip(out.itertuples(), norm.itertuples(), strict=True):
        assert r.verdict == _rule(n.estimate, n.lower, n.upper, WIDE)
        assert " ".join(shown(n.estimate, n.lower, n.upper, scale="verdict")) in r.text
        if n.upper < 1 or n.lower > 1:
            assert "contains 1" not in r.text and "too wide" not in r.text
    # issue 37: "0.12 [0.00, 0.27] ... between 0 and 1 ... 0%-27%" for a lower limit of
    # 0.0041; printed so that it reads back above 0, the sentence and the cell agree
    issue = out[(out["label"] == "distress") & (out["replication"] == "Budapest")
                & (out["replication_other"] == "Mexico City")].iloc[0]
    assert 0 < issue.lower < 0.005 and issue.verdict == "in part"
    assert ("normalized kappa_x 0.119 [0.004, 0.266]; the interval lies between 0 and 1, so "
            "the pools agree with each other at 0.4%-26.6% of what") in issue.text
    # the page says the same sentences
    page = rep.to_html(figures=False)
    for t in out["text"]:
        assert t.replace("'", "&#39;") in page


def _report(irr: dict[str, tuple[float, int]], kx: tuple[float, int],
            norm: tuple[float, float, float], attrs: dict | None = None) -> Report:
    rows = [{"label": "joy", "statistic": "irr", "replication": r, "replication_other": np.nan,
             "estimate": v, "lower": v - 0.05, "upper": v + 0.05, "n_items": n}
            for r, (v, n) in irr.items()]
    rows.append({"label": "joy", "statistic": "kappa_x", "replication": "A",
                 "replication_other": "B", "estimate": kx[0], "lower": kx[0] - 0.05,
                 "upper": kx[0] + 0.05, "n_items": kx[1]})
    rows.append({"label": "joy", "statistic": "normalized", "replication": "A",
                 "replication_other": "B", "estimate": norm[0], "lower": norm[1],
                 "upper": norm[2], "n_items": kx[1], "reference": "both"})
    return Report(pd.DataFrame(rows), attrs or {})


def test_interval_above_1_says_exceeds_and_why():
    # MultiPICo Italian as issue 21 saw it: 1.32 [1.11, 1.57], IRRs on 243 / 309 items
    rep = _report({"A": (0.30, 243), "B": (0.35, 309)}, (0.43, 320), (1.32, 1.11, 1.57))
    row = rep.readings().iloc[0]
    assert row.verdict == "exceeds"
    assert "reaches 1" not in row.text and "replicate each other on" not in row.text
    assert ("likely because the IRRs and kappa_x use different item sets (IRR of A on 243 "
            "items, B on 309 items; kappa_x on 320): items=\"common\" compares them on the "
            "items both pools rated.") in row.text
    # the same items everywhere and an IRR near 0: the other reason
    low = _report({"A": (0.05, 100), "B": (0.35, 100)}, (0.2, 100), (1.5, 1.2, 1.9))
    assert "likely because an IRR near 0 (A 0.05) makes the ratio unstable." in \
        low.readings().iloc[0].text
    # on common items the item-set reason is not given
    common = _report({"A": (0.30, 243), "B": (0.35, 309)}, (0.43, 320), (1.32, 1.11, 1.57),
                     {"items": "common"})
    assert "different item sets" not in common.readings().iloc[0].text


def test_a_pair_without_a_ceiling_reads_kappa_x_against_its_interval():
    """A single-rater pool (gold) has no IRR, so no normalized kappa_x: the reading is
    kappa_x itself, its numbers the report's kappa_x and interval, the bands it names
    those of the printed numbers, and why normalized kappa_x is missing."""
    from xrr_accessor.datasets import simulate
    from xrr_accessor.reporting.agreement import interpret

    crowd = simulate(n_items=400, labels=["joy"], pools=["crowd"], raters_per_item=3,
                     coverage=1.0, single_rate=0.0, seed=9)
    gold = (crowd.groupby("item_id")["joy"].mean() > 0.5).astype(int).rename("joy")
    gold = gold.reset_index().assign(pool="gold", rater="expert")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = xa.report(pd.concat([crowd, gold]), reference="gold", ci=0.95, n_boot=200,
                        seed=1)
    r = rep.readings().iloc[0]
    kx = rep.frame[rep.frame["statistic"] == "kappa_x"].iloc[0]
    assert r.verdict == "kappa_x only"
    assert (r.estimate, r.lower, r.upper) == (kx.estimate, kx.lower, kx.upper)
    shown = re.search(r"kappa_x (\S+) \[(\S+), (\S+)\], (.+?) on Landis", r.text)
    x, lo, hi = (float(v) for v in shown.groups()[:3])
    assert (x, lo, hi) == pytest.approx((kx.estimate, kx.lower, kx.upper), abs=0.005)
    assert shown.group(4) == interpret(x)
    bands = {interpret(lo), interpret(hi)}
    said = (f"lies within {interpret(lo)}." if len(bands) == 1
            else f"spans {interpret(lo)} to {interpret(hi)}.")
    assert said in r.text
    assert r.text.startswith("crowd against gold on joy: kappa_x ")
    assert r.text.endswith("Normalized kappa_x is undefined: gold has one rater, so no "
                           "IRR to normalize by.")
