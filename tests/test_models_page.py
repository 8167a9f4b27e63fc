"""The models page: report(reference=..., candidates=/epsilon=/gold=...).

Its table holds the numbers of the calls it stands for (alt_test, the report's own
kappa_x and normalized kappa_x, kappa_x against the gold by the naive Eq 9-11, the gold
differences of compare(reference=gold), each candidate's IRR across its prompts, the
label shares); every branch of its paragraphs is rendered whole; on LLMFAO the sentences
quote the table's numbers; the HTML page and the command line show the same."""

from __future__ import annotations

import re
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.reporting.models_reading import model_readings

import naive

DATA = Path(__file__).parent / "data"
ROLES = {"item": "pair", "rater": "worker", "replication": "source"}


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def llmfao() -> pd.DataFrame:
    """LLMFAO with a made-up gold on 400 pairs: the crowd's majority where it has one
    (the gold's origin does not matter to the arithmetic checked here)."""
    df = pd.read_csv(DATA / "llmfao.csv.gz")
    crowd = df[df["source"] == "crowd"]
    mode = crowd.groupby("pair")["winner"].agg(lambda s: s.mode().sort_values().iloc[0])
    gold = mode.iloc[:400].rename("winner").reset_index().assign(source="experts",
                                                                 worker="expert")
    return pd.concat([df, gold], ignore_index=True)


@pytest.fixture(scope="module")
def page(llmfao):
    return quiet(xa.report, llmfao, reference="crowd", gold="experts", epsilon=0.2,
                 ci=0.95, n_boot=100, seed=3, **ROLES)


def test_the_table_holds_the_numbers_of_the_calls_it_stands_for(page, llmfao):
    t = page.models.set_index(["label", "replication"])
    alt = quiet(xa.alt_test, llmfao, reference="crowd", candidates=["gpt35", "gpt4"],
                epsilon=0.2, ci=0.95, n_boot=100, seed=3, **ROLES).summary
    for cand in ("gpt35", "gpt4"):
        for col in ("winning_rate", "advantage_probability", "n_humans", "n_won",
                    "advantage_lower", "advantage_upper"):
            assert t.loc[("winner", cand), col] == alt.loc[("winner", cand), col]
        for stat in ("normalized", "kappa_x"):
            row = page.frame[(page.frame["statistic"] == stat)
                             & (page.frame["replication_other"] == cand)].iloc[0]
            assert (t.loc[("winner", cand), stat], t.loc[("winner", cand), f"{stat}_lower"]
                    ) == (row.estimate, row.lower)
    gold = {i: [v] for i, v in llmfao[llmfao["source"] == "experts"].set_index(
        "pair")["winner"].items()}
    for name in ("crowd", "gpt35", "gpt4"):
        units = llmfao[llmfao["source"] == name].groupby("pair")["winner"].apply(list)
        assert t.loc[("winner", name), "kappa_x_gold"] == pytest.approx(
            naive.kappa_x(units.to_dict(), gold), abs=1e-12)
    cmp = quiet(xa.compare, llmfao, reference="experts", n_boot=100, seed=3, **ROLES)
    row = cmp[(cmp["replication"] == "crowd") & (cmp["replication_other"] == "gpt4")].iloc[0]
    g = t.loc[("winner", "gpt4")]
    assert g.gold_difference == pytest.approx(-row.estimate, abs=1e-15)
    assert (g.gold_difference_lower, g.gold_difference_upper) == pytest.approx(
        (-row.upper, -row.lower), abs=1e-15)
    gold_of = llmfao[llmfao["source"] == "experts"].set_index("pair")["winner"]
    for name in ("crowd", "gpt35", "gpt4"):  # the share of annotations equal to the gold
        mine = llmfao[(llmfao["source"] == name) & llmfao["pair"].isin(gold_of.index)]
        want = float((mine["winner"].to_numpy() == gold_of[mine["pair"]].to_numpy()).mean())
        assert t.loc[("winner", name), "accuracy_gold"] == pytest.approx(want, abs=1e-15)
    assert np.isnan(g.stability) and g.n_raters == 1  # one rater: no stability
    crowd_irr = page.frame[(page.frame["statistic"] == "irr")
                           & (page.frame["replication"] == "crowd")].iloc[0]
    assert t.loc[("winner", "crowd"), "stability"] == crowd_irr.estimate
    shares = page.distribution.set_index(["replication", "category"])["share"]
    for name in ("crowd", "gpt4", "experts"):
        want = llmfao.loc[llmfao["source"] == name, "winner"].value_counts(normalize=True)
        for cat, v in want.items():
            assert shares[(name, cat)] == pytest.approx(v, abs=1e-15)


def test_stability_is_the_irr_across_a_models_prompts():
    """HANNA: each model under four prompts; its stability is its own alpha (interval)."""
    hanna = pd.read_csv(DATA / "hanna_llm.csv.gz")
    rep = quiet(xa.report, hanna, reference="human", epsilon=0.15, level="interval",
                item="story", replication="pool", labels=["engagement"])
    irr = quiet(xa.irr, hanna, level="interval", item="story", replication="pool",
                labels=["engagement"])
    t = rep.models.set_index("replication")
    for model in ("ChatGPT", "Llama-13B"):
        assert t.loc[model, "stability"] == pytest.approx(irr.loc["engagement", model],
                                                          abs=1e-12)
        assert t.loc[model, "n_raters"] == 4
    text = rep.readings().set_index("replication").loc["ChatGPT", "text"]
    assert "Its 4 raters (prompts, runs) agree with each other at Krippendorff's alpha" in text
    assert "Its mean label is" in text


def _row(**kw):
    base = {"label": "joy", "replication": "gpt", "role": "candidate", "n_raters": 1,
            "winning_rate": 0.25, "passed": False, "n_won": 1, "n_humans": 4,
            "advantage_probability": 0.7, "advantage_lower": 0.6, "advantage_upper": 0.8,
            "normalized": 0.5, "normalized_lower": 0.3, "normalized_upper": 0.7,
            "kappa_x": 0.2, "stability": np.nan}
    return {**base, **kw}


def _page(rows, gold=None, epsilon=0.2, not_tested=None, dist=None, level="nominal",
          n_boot=None):
    human = _row(replication="crowd", role="reference", n_raters=5, winning_rate=np.nan,
                 passed=pd.NA, n_won=0, n_humans=0, normalized=np.nan, stability=0.4,
                 kappa_x_gold=0.30, kappa_x_gold_lower=0.20, kappa_x_gold_upper=0.40)
    models = pd.DataFrame([human, *rows])
    attrs = {"models": {"reference": "crowd", "gold": gold, "epsilon": epsilon,
                        "not_tested": not_tested, "min_items": 30},
             "irr": "alpha", "level": level, "n_boot": n_boot}
    return types.SimpleNamespace(models=models, attrs=attrs, distribution=dist)


ANSWER_FAILS = ("gpt cannot replace crowd on joy by the alternative annotator test (epsilon "
                "0.2): it wins against 1 of the 4 annotators tested (winning rate 0.25; 0.50 "
                "passes). Its advantage probability is 0.70 [0.60, 0.80]: averaged over "
                "those annotators, gpt aligns with the others at least as well as the one "
                "left out on 70% of the items.")
IN_PART = (" gpt replicates crowd only in part on joy: normalized kappa_x 0.50 [0.30, 0.70]; "
           "the interval lies between 0 and 1, so gpt agrees with crowd at 30%-70% of what "
           "the agreement within crowd allows.")

BRANCHES = [
    ("fails", _page([_row()]), "does not replace", ANSWER_FAILS + IN_PART),
    ("passes", _page([_row(winning_rate=0.75, passed=True, n_won=3)]), "replaces",
     ANSWER_FAILS.replace("cannot", "can").replace("wins against 1", "wins against 3")
     .replace("winning rate 0.25", "winning rate 0.75") + IN_PART),
    ("no epsilon", _page([_row(winning_rate=np.nan, passed=pd.NA, n_humans=0)],
                         epsilon=None, not_tested="no epsilon"), "not tested",
     "gpt against crowd on joy: the alternative annotator test needs epsilon= (the "
     "cost-benefit margin: 0.1 to 0.2 in the paper), so this page does not say whether gpt "
     "can replace crowd." + IN_PART),
    ("one human", _page([_row(winning_rate=np.nan, passed=pd.NA, n_humans=0)],
                        not_tested="one human rater"), "not tested",
     "gpt against crowd on joy: crowd has one rater, and the alternative annotator test "
     "leaves one annotator out to compare with the others, so it needs two or more."
     + IN_PART),
    ("nobody tested", _page([_row(winning_rate=np.nan, passed=pd.NA, n_humans=0)]),
     "not tested", "gpt against crowd on joy: no annotator of crowd has 30 items compared "
     "with gpt (min_items), so the alternative annotator test is not run." + IN_PART),
    ("no interval", _page([_row(advantage_lower=np.nan, advantage_upper=np.nan,
                                normalized_lower=np.nan, normalized_upper=np.nan)]),
     "does not replace",
     ANSWER_FAILS.replace(" [0.60, 0.80]", "") + " gpt against crowd on joy: normalized "
     "kappa_x 0.50, so gpt agrees with crowd at 50% of what the agreement within crowd "
     "allows (no interval: ci=0.95, or --ci 0.95 in the shell, says whether a perfect "
     "replication is ruled out)."),
]

GOLD = {"kappa_x_gold": 0.55, "kappa_x_gold_lower": 0.45, "kappa_x_gold_upper": 0.65}


def _accuracy_page():
    rep = _page([_row(**GOLD, accuracy_gold=0.62)], gold="experts")
    rep.models.loc[0, "accuracy_gold"] = 0.71  # the humans' row
    return rep
GOLD_HEAD = (" Against experts: kappa_x 0.55 [0.45, 0.65], moderate on Landis and Koch's "
             "scale; the interval spans moderate to substantial. crowd against experts: "
             "kappa_x 0.30 [0.20, 0.40].")
BRANCHES += [
    ("gold, more", _page([_row(**GOLD, gold_difference=0.25, gold_difference_lower=0.1,
                               gold_difference_upper=0.4, gold_difference_p_value=0.0004)],
                         gold="experts"), "does not replace",
     ANSWER_FAILS + IN_PART + GOLD_HEAD + " gpt agrees with experts more than crowd does: "
     "the difference, 0.25 [0.10, 0.40], lies above 0, p < 0.001."),
    ("gold, p beyond every replicate", _page(
        [_row(**GOLD, gold_difference=0.25, gold_difference_lower=0.1,
              gold_difference_upper=0.4, gold_difference_p_value=0.0)], gold="experts",
        n_boot=500), "does not replace",
     ANSWER_FAILS + IN_PART + GOLD_HEAD + " gpt agrees with experts more than crowd does: "
     "the difference, 0.25 [0.10, 0.40], lies above 0, p < 0.002 (0 lies beyond all 500 "
     "replicates)."),
    ("gold, less", _page([_row(**GOLD, gold_difference=-0.25, gold_difference_lower=-0.4,
                               gold_difference_upper=-0.1, gold_difference_p_value=0.012)],
                         gold="experts"), "does not replace",
     ANSWER_FAILS + IN_PART + GOLD_HEAD + " gpt agrees with experts less than crowd does: "
     "the difference, -0.25 [-0.40, -0.10], lies below 0, p = 0.012."),
    ("gold, no difference", _page([_row(**GOLD, gold_difference=0.05,
                                        gold_difference_lower=-0.1, gold_difference_upper=0.2,
                                        gold_difference_p_value=0.5)], gold="experts"),
     "does not replace", ANSWER_FAILS + IN_PART + GOLD_HEAD + " The difference from crowd, "
     "0.05 [-0.10, 0.20], contains 0: neither agrees with experts more, as far as these "
     "items show, p = 0.500."),
    ("gold, no interval", _page([_row(kappa_x_gold=0.55, gold_difference=0.25)],
                                gold="experts"), "does not replace",
     ANSWER_FAILS + IN_PART + " Against experts: kappa_x 0.55, moderate on Landis and Koch's "
     "scale (no interval: ci=0.95, or --ci 0.95 in the shell, says how far it can move). "
     "crowd against experts: kappa_x 0.30 [0.20, 0.40]. The difference, 0.25, has no "
     "interval (ci=0.95 says whether it is more than chance)."),
    ("gold with accuracy", _accuracy_page(), "does not replace",
     ANSWER_FAILS + IN_PART + GOLD_HEAD + " 62% of gpt's annotations equal the gold label "
     "(crowd's: 71%)."),
    ("gold undefined", _page([_row(kappa_x_gold=np.nan)], gold="experts"),
     "does not replace", ANSWER_FAILS + IN_PART
     + " Against experts, kappa_x is undefined (see the report's notes)."),
    ("stable prompts", _page([_row(n_raters=4, stability=0.82, stability_lower=0.78,
                                   stability_upper=0.86)]), "does not replace",
     ANSWER_FAILS + IN_PART + " Its 4 raters (prompts, runs) agree with each other at "
     "Krippendorff's alpha 0.82 [0.78, 0.86], almost perfect on Landis and Koch's scale; "
     "the interval spans substantial to almost perfect."),
    ("prompts undefined", _page([_row(n_raters=4, stability=np.nan)]), "does not replace",
     ANSWER_FAILS + IN_PART + " Its 4 raters' agreement with each other is undefined."),
]

_DIST = pd.DataFrame({"label": "joy", "replication": ["crowd"] * 3 + ["gpt"] * 3,
                      "role": ["reference"] * 3 + ["candidate"] * 3,
                      "category": ["left", "tie", "right"] * 2,
                      "n": [30, 40, 30, 45, 3, 52], "share": [0.3, 0.4, 0.3, 0.45, 0.03, 0.52]})
BRANCHES += [
    ("labels", _page([_row()], dist=_DIST), "does not replace", ANSWER_FAILS + IN_PART
     + " The label it gives most differently: tie on 3% of its annotations, 40% of "
     "crowd's."),
    ("labels alike", _page([_row()], dist=_DIST.assign(share=[0.3, 0.4, 0.3, 0.32, 0.38,
                                                             0.30])),
     "does not replace", ANSWER_FAILS + IN_PART),
    ("numbers", _page([_row()], dist=pd.DataFrame({
        "label": "joy", "replication": ["crowd"] * 2 + ["gpt"] * 2, "role": "x",
        "category": [1.0, 5.0] * 2, "n": [3, 1, 1, 1], "share": [0.75, 0.25, 0.5, 0.5]}),
        level="interval"), "does not replace", ANSWER_FAILS + IN_PART
     + " Its mean label is 3.00, crowd's 2.00."),
]


@pytest.mark.parametrize("name, rep, verdict, text", BRANCHES, ids=[b[0] for b in BRANCHES])
def test_every_branch_of_the_paragraph_rendered_whole(name, rep, verdict, text):
    out = model_readings(rep)
    assert out.loc[0, "verdict"] == verdict
    assert out.loc[0, "text"] == text


def test_llmfao_sentences_quote_the_tables_numbers(page):
    """GPT-4 and GPT-3.5 against the crowd: the winning counts, advantage probability and
    intervals, normalized kappa_x, kappa_x against the gold and the difference from the
    crowd's are the table's, and every claim about a difference follows its interval."""
    t = page.models.set_index("replication")
    for r in page.readings().itertuples():
        row = t.loc[r.replication]
        assert r.verdict == ("replaces" if row.passed else "does not replace")
        assert f"wins against {row.n_won} of the {row.n_humans} annotators" in r.text
        assert (f"advantage probability is {row.advantage_probability:.2f} "
                f"[{row.advantage_lower:.2f}, {row.advantage_upper:.2f}]") in r.text
        assert (f"normalized kappa_x {row.normalized:.2f} [{row.normalized_lower:.2f}, "
                f"{row.normalized_upper:.2f}]") in r.text
        d = re.search(r"the difference, (\S+) \[(\S+), (\S+)\], lies (above|below) 0", r.text)
        if row.gold_difference_lower > 0 or row.gold_difference_upper < 0:
            assert d is not None
            assert float(d.group(1)) == pytest.approx(row.gold_difference, abs=0.005)
            assert d.group(4) == ("above" if row.gold_difference_lower > 0 else "below")
        else:
            assert d is None and "contains 0" in r.text
    gpt4 = page.readings().set_index("replication").loc["gpt4", "text"]
    assert "tie on 3% of its annotations, 39% of crowd's" in gpt4  # the judge's rare ties


def test_the_page_leads_with_the_answer(page, tmp_path):
    html = page.to_html(tmp_path / "page.html") or (tmp_path / "page.html").read_text()
    assert "<title>Can these models replace the annotators?</title>" in html
    assert html.index('id="models"') < html.index('id="data"')
    assert html.count("<tr><td class=\"label\">winner</td>") == 3  # crowd, gpt35, gpt4
    assert html.count('alt="Labels given by each source, winner"') == 1
    from markupsafe import escape

    for r in page.readings().itertuples():
        assert str(escape(r.text)) in html


def test_the_page_needs_a_reference_and_a_known_gold(llmfao):
    with pytest.raises(xa.InputError, match="name their pool with reference="):
        xa.report(llmfao, epsilon=0.2, **ROLES)
    with pytest.raises(xa.InputError, match="gold='gold' names the replication"):
        xa.report(llmfao, reference="crowd", gold="gold", **ROLES)
    with pytest.raises(xa.InputError, match="also among candidates"):
        xa.report(llmfao, reference="crowd", gold="experts", candidates=["experts"], **ROLES)


def test_at_31_labels_each_candidate_gets_one_counted_line_and_folded_paragraphs():
    """The demo's 31 labels, Budapest as the humans: one summary line per candidate
    whose counts are the paragraphs' verdicts; paragraphs folded past eight labels."""
    from xrr_accessor.datasets import load_demo
    from xrr_accessor.reporting.models_html import NAMED_LABELS, models_section

    rep = quiet(xa.report, load_demo(), reference="Budapest", epsilon=0.2, min_items=20)
    section = models_section(rep, 3, None)
    read = rep.readings()
    assert len(section["summary"]) == 2
    for line, (cand, part) in zip(section["summary"], read.groupby("replication", sort=False),
                                  strict=True):
        assert line.startswith(f"{cand} against Budapest: ")
        for verdict, n in part["verdict"].value_counts().items():
            assert f"{verdict} on {n} of 31 labels" in line
            named = part.loc[part["verdict"] == verdict, "label"].tolist()
            assert ", ".join(named[:NAMED_LABELS]) in line
    assert all(not g["open"] and len(g["paragraphs"]) == 31 for g in section["groups"])


def test_an_interval_above_1_is_read_with_why_a_candidate_can_exceed_the_humans():
    from xrr_accessor.reporting.models_reading import ABOVE_ONE

    rep = _page([_row(normalized=1.6, normalized_lower=1.2, normalized_upper=2.0)])
    text = model_readings(rep).loc[0, "text"]
    assert "normalized kappa_x 1.60 [1.20, 2.00]; the interval lies above 1" in text
    assert f"likely because {ABOVE_ONE}." in text


@pytest.mark.parametrize(("lo", "hi", "claim"), [
    (0.0004, 0.3, "lies above 0"), (-0.3, -0.0004, "lies below 0"),
    (-0.0004, 0.3, "contains 0"), (0.1, 0.3, "lies above 0")])
def test_numbers_print_on_the_side_of_the_threshold_the_sentence_reads(lo, hi, claim):
    """Issue 37's rule on the models page: a winning rate of 0.4996 fails and so is not
    printed "0.50" beside "0.50 passes"; a difference's limit of 0.0004 lies above 0 and
    so is not printed "0.00" beside "lies above 0"."""
    rep = _page([_row(**GOLD, winning_rate=0.4996, gold_difference=(lo + hi) / 2,
                      gold_difference_lower=lo, gold_difference_upper=hi)], gold="experts")
    text = model_readings(rep).loc[0, "text"]
    rate = re.search(r"winning rate (\S+); 0\.50 passes\)", text)[1]
    assert float(rate) < 0.5 and "cannot replace" in text
    shown = re.search(r"difference(?: from crowd)?, (\S+) \[(\S+), (\S+)\], ([a-z ]+0)", text)
    a, b = float(shown[2]), float(shown[3])
    assert shown[4] == claim
    assert {"lies above 0": a > 0, "lies below 0": b < 0,
            "contains 0": a <= 0 <= b}[claim], text
    places = {len(v.partition(".")[2]) for v in shown.groups()[:3]}
    assert len(places) == 1, text  # one precision: 2, or 4 where 2 would cross 0
    assert places == {2 if claim == "contains 0" or lo == 0.1 else 4}
    assert (a, b) == pytest.approx((lo, hi), abs=0.5 * 10.0 ** -places.pop())
