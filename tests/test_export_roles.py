"""Roles found in real exports (issue 34): id names of platforms and data sets for the
item and the rater, found as before (the names of today first, two candidates refused);
a column named like gold is never analysed as a label, and what was left out (gold, free
text, metadata) is said once, in one message with the call that uses the gold."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.errors import DroppedDataWarning, RoleError
from xrr_accessor.schema.roles import find_role, looks_gold, named_like


def _caught(fn, *args, **kwargs):
    """The result and the messages of the XRR warnings it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [str(w.message) for w in caught if issubclass(w.category, DroppedDataWarning)]


def _popquorn() -> pd.DataFrame:
    """Six rows of /work/shared/data/real/popquorn_offensiveness/raw/offensiveness_raw_data.csv
    (POPQUORN, Pei & Jurgens 2023; users 0 and 35 on instances 194, 816, 966; text cut to
    60 characters)."""
    return pd.DataFrame({
        "instance_id": [194, 194, 816, 816, 966, 966], "user_id": [0, 35, 0, 35, 0, 35],
        "text": ["Fair for y U, but if some users can’t, is that not a problem"] * 2
        + ["Can you restate that. I think you are saying the opposite of"] * 2
        + ["Zionazis shoot innocent people all the time. It's pathetic"] * 2,
        "offensiveness": [1.0, 3.0, 1.0, 1.0, 1.0, 3.0],
        "gender": ["Man", "Woman"] * 3, "race": ["White", "Asian"] * 3,
        "age": ["35-39", "25-29"] * 3, "occupation": ["Unemployed", "Student"] * 3,
        "education": ["High school diploma or equivalent", "Graduate degree"] * 3})


def _snow_rte() -> pd.DataFrame:
    """Twelve rows of /work/shared/data/real/snow2008_amt/raw/rte.standardized.tsv (Snow
    et al. 2008, the RTE task as released: annotation ids, worker ids, item, response,
    gold)."""
    return pd.DataFrame({
        "!amt_annotation_ids": [f"89KZPYXSTGTJ0CZY2Y1Z{i:02d}" for i in range(12)],
        "!amt_worker_ids": ["A19IBSKBTABMR3", "AEX5NCH03LWSG", "A17RPF5ZMO75GW",
                            "A15L6WGIK3VU7N", "A3U7T47F498T1P", "AXBQF8RALCIGV"] * 2,
        "orig_id": [266] * 6 + [934] * 6,
        "response": [1, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1],
        "gold": [1] * 6 + [0] * 6})


def test_popquorn_export_ids_found_text_and_rater_metadata_said_once():
    df = _popquorn()
    (ann, _), said = _caught(xa.annotations, df, level="interval")
    assert list(ann.labels) == ["offensiveness"]
    assert ann.role_names == {"item": "instance_id", "rater": "user_id"}
    assert len(said) == 1
    for col in ("'text' (free text)", "'gender'", "'race'", "'age'", "'occupation'",
                "'education'"):
        assert col in said[0]
    got = xa.irr(df, labels=["offensiveness"], level="interval")
    wide = df.pivot(index="user_id", columns="instance_id", values="offensiveness")
    want = krippendorff.alpha(reliability_data=wide.to_numpy(), level_of_measurement="interval")
    assert got.loc["offensiveness"] == pytest.approx(want, abs=1e-12)


def test_snow_release_ids_found_by_their_words_and_gold_named_once_with_its_call():
    df = _snow_rte()
    got, said = _caught(xa.irr, df, level="nominal")
    explicit = xa.irr(df[["orig_id", "!amt_worker_ids", "response"]], item="orig_id",
                      rater="!amt_worker_ids", level="nominal")
    assert got == explicit  # response, the one value column; gold not analysed
    assert len(said) == 1
    assert "'!amt_annotation_ids', 'gold' are not used" in said[0]
    assert "validity(data, gold='gold') or report(data, gold='gold')" in said[0]
    # the call the message names works on the same frame
    val = xa.validity(df.drop(columns="!amt_annotation_ids"), gold="gold", level="nominal")
    assert val.summary["accuracy"].iloc[0] == pytest.approx(
        (df["response"] == df["gold"]).mean())


def _with_gold(gold_name: str) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    n = 30
    truth = rng.integers(0, 3, n)
    return pd.DataFrame({
        "question": np.repeat(np.arange(n), 3), "annotator": np.tile(["a", "b", "c"], n),
        "sentiment": np.where(rng.random(3 * n) < 0.7, np.repeat(truth, 3),
                              rng.integers(0, 3, 3 * n)),
        "tweet": np.repeat([f"tweet number {i} says something long enough to be free text"
                            for i in range(n)], 3),
        gold_name: np.repeat(truth, 3)})


@pytest.mark.parametrize("gold", ["truth", "gold_label", "label_gold", "Ground Truth",
                                  "expert", "true_label", "reference", "GOLD"])
def test_a_gold_column_is_not_a_label_and_is_said_with_text_in_one_message(gold):
    df = _with_gold(gold)
    got, said = _caught(xa.irr, df, level="nominal")
    assert got.index.tolist() == ["sentiment"]
    assert got.loc["sentiment"] == xa.irr(df, labels=["sentiment"], level="nominal").iloc[0]
    assert len(said) == 1
    assert f"validity(data, gold={gold!r}) or report(data, gold={gold!r})" in said[0]
    assert "'tweet' (free text)" in said[0]
    # the calls the message names work: the gold beside each rater
    val, _ = _caught(xa.validity, df, gold=gold, level="nominal")
    assert val.summary["accuracy"].iloc[0] == pytest.approx((df["sentiment"] == df[gold]).mean())
    rep, _ = _caught(xa.report, df, gold=gold, level="nominal")
    hit = (df["sentiment"] == df[gold]).groupby(df["annotator"]).mean()
    raters = rep.raters.index.get_level_values("annotator")
    assert rep.raters["gold_accuracy"].tolist() == pytest.approx(hit[raters].tolist())
    # named, it is a label: the user's word wins
    named = xa.irr(df, labels=["sentiment", gold], level="nominal")
    assert named.loc[gold] == 1.0


def test_a_gold_column_alone_is_refused_naming_it():
    df = _with_gold("truth")[["question", "annotator", "truth"]]
    with pytest.raises(RoleError, match=r"no label columns.*'truth' \(named like a gold"):
        xa.irr(df, level="nominal")
    assert xa.irr(df, labels=["truth"], level="nominal").loc["truth"] == 1.0


def test_gold_names_and_not_gold_names():
    for name in ("gold", "Gold_Label", "label-gold", "truth", "ground_truth", "true label",
                 "expert", "expert_label", "reference", "is_golden", "sentiment_gold"):
        assert looks_gold(name), name
    for name in ("goldfish", "target", "label", "truthful", "answer", "experts_count",
                 "S100_truth_level", "S6_truth_level"):  # Roitero et al.'s ratings
        assert not looks_gold(name), name


@pytest.mark.parametrize(("columns", "item"), [
    (["question", "worker_id", "joy"], "question"),
    (["question_id", "annotator", "joy"], "question_id"),
    (["text_id", "annotator", "joy"], "text_id"),
    (["doc_id", "judge", "joy"], "doc_id"),
    (["document", "coder", "joy"], "document"),
    (["tweet_id", "rater", "joy"], "tweet_id"),
    (["sentence_id", "rater", "joy"], "sentence_id"),
    (["HITId", "WorkerId", "AssignmentId", "Answer.joy"], "HITId"),
    (["id_tweets", "rater", "joy"], "id_tweets"),
    (["orig_id", "!amt_worker_ids", "response"], "orig_id"),
    (["id", "prompt", "worker", "winner"], "id"),  # llmfao crowd-comparisons.csv
    (["item", "question", "rater", "joy"], "item"),  # today's name first
    (["question", "orig_id", "rater", "joy"], "question"),  # a named export id first
    (["sample", "rater", "joy"], "sample"),
    (["unit", "rater", "joy"], "unit"),
])
def test_item_names_of_exports(columns, item):
    assert find_role(columns, "item") == item
    assert named_like(item, "item") and not named_like(columns[-1], "item")


@pytest.mark.parametrize(("columns", "rater"), [
    (["item", "annotator_id", "joy"], "annotator_id"),
    (["item", "!amt_worker_ids", "joy"], "!amt_worker_ids"),
    (["item", "WorkerId", "joy"], "WorkerId"),
    (["item", "assessor", "joy"], "assessor"),
    (["item", "annotator_name", "joy"], "annotator_name"),
    (["item", "rater", "rater_group", "joy"], "rater"),  # hs_brexit: the group is no rater
    (["item", "rater_group", "joy"], None),
])
def test_rater_names_of_exports(columns, rater):
    assert find_role(columns, "rater") == rater
    assert [c for c in columns if named_like(c, "rater")][:1] == ([rater] if rater else [])


@pytest.mark.parametrize("columns", [
    ["question_id", "text_id", "rater", "joy"],
    ["orig_id", "conv_id", "rater", "joy"],
])
def test_two_candidates_are_refused_naming_both(columns):
    with pytest.raises(RoleError, match=rf"several columns could be the item: \['{columns[0]}'"
                                        rf", '{columns[1]}'\]"):
        find_role(columns, "item")


def test_ids_of_other_records_are_not_items():
    assert find_role(["assignment_id", "annotation_id", "batch_id", "model_id", "rater",
                      "joy"], "item") is None
    df = pd.DataFrame({"assignment_id": [1, 2], "rater": ["a", "b"], "joy": [0, 1]})
    with pytest.raises(RoleError, match=r"no column for the item role.*\*_id, id_\*"):
        xa.irr(df, level="nominal")


def test_a_column_given_one_role_is_not_found_for_another():
    """Roitero et al.'s workers are in 'unit_id' (named like an item id): given as the
    rater, it is not also taken as the item (which read every row as a duplicate)."""
    df = pd.DataFrame({"name_unique": [1, 1, 2, 2], "unit_id": ["a", "b", "a", "b"],
                       "S100_truth_level": [10, 20, 30, 40]})
    with pytest.raises(RoleError, match="no column for the item role"):
        xa.irr(df.xrr(rater="unit_id"))
    out = xa.irr(df.xrr(rater="unit_id", item="name_unique"), level="interval")
    assert out.index.tolist() == ["S100_truth_level"]
