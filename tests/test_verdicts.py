"""The one decision rule from (estimate, lower, upper) to words: verdicts.judge.

Every sentence of readings() and of the HTML page comes from judge(); these tests
check that no sentence says more than its interval (a property over all intervals),
that every branch reads as English (each template rendered whole), and the issue's
reproducers (the demo's Budapest x Mexico City, intervals entirely above 1).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.reporting.report import Report
from xrr_accessor.reporting.verdicts import VERDICTS, WIDE, Wording, judge, verdict_of

SYM = Wording.symmetric("A", "B")
REF = Wording.against("crowd", "experts")


def _rule(est: float, lo: float, hi: float, width: float) -> str:
    """The rule of docs/definitions.md, written again from the words there."""
    if np.isnan(est):
        return "undefined"
    if np.isnan(lo) or np.isnan(hi):
        return "estimate only"
    contains_1 = lo <= 1 <= hi
    if lo > 1:
        return "exceeds"
    if hi < 1 and lo > 0:
        return "in part"
    if hi < 1:
        return "does not replicate"
    assert contains_1
    return "replicates" if (hi - lo <= width and lo > 0) else "inconclusive"


finite = st.floats(-3.0, 4.0, allow_nan=False)


@settings(max_examples=600, deadline=None)
@given(est=finite, a=finite, b=finite, width=st.floats(0.05, 0.95),
       ref=st.booleans())
def test_no_sentence_contradicts_its_interval(est, a, b, width, ref):
    lo, hi = min(a, b), max(a, b)
    v = judge(est, lo, hi, "joy", REF if ref else SYM, width=width, digits=3)
    assert v.verdict == _rule(est, lo, hi, width) == verdict_of(est, lo, hi, width)
    t = v.text
    assert f"{est:.3f} [{lo:.3f}, {hi:.3f}]" in t  # the numbers read are quoted
    # each claim about the interval appears only when the interval makes it true
    claims = {"the interval contains 1": lo <= 1 <= hi,
              "the interval lies above 1": lo > 1,
              "the interval lies between 0 and 1": 0 < lo and hi < 1,
              "the interval contains 0": lo <= 0 <= hi,
              "the interval lies below 0": hi < 0,
              f"is wider than {width}": hi - lo > width,
              f"at most {width} wide": hi - lo <= width}
    for phrase, true in claims.items():
        if phrase in t:
            assert true, (phrase, lo, hi, t)
    # the positive claim "A and B replicate each other on" only with "replicates"
    positive = "crowd replicates experts on joy" if ref else "A and B replicate each other on joy"
    assert (positive in t) == (v.verdict == "replicates")
    # a perfect replication is never claimed against an interval that excludes 1
    if lo > 1 or hi < 1:
        assert "as much as" not in t


@settings(max_examples=200, deadline=None)
@given(est=finite, lo=st.one_of(st.just(np.nan), finite), hi=st.just(np.nan))
def test_without_an_interval_only_the_estimate_is_read(est, lo, hi):
    v = judge(est, lo, hi, "joy", SYM)
    assert v.verdict == "estimate only"
    assert "[" not in v.text and f"{est:.2f}" in v.text
    assert ("more than" in v.text) == (est > 1)


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


# --- the reproducers ----------------------------------------------------------


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
        assert f"{n.estimate:.2f} [{n.lower:.2f}, {n.upper:.2f}]" in r.text
        if n.upper < 1 or n.lower > 1:
            assert "contains 1" not in r.text and "too wide" not in r.text
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
