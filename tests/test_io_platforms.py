"""Platform export readers: round trips against hand-typed frames, coefficients, bad input.

Every fixture is written by the test itself into ``tmp_path``, typed from the format's
public documentation (the page is cited above each fixture).
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import xrr_accessor
from xrr_accessor.errors import DroppedDataWarning, InputError
from xrr_accessor.io import (
    read_argilla,
    read_doccano,
    read_label_studio,
    read_mturk,
    read_prodigy,
    read_toloka,
)


def frame(rows: list[tuple[Any, ...]], replication: Any = None) -> pd.DataFrame:
    """The canonical long frame typed by hand: (item, rater, label, value) rows."""
    data: dict[str, list[Any]] = {
        "item": [r[0] for r in rows],
        "rater": [r[1] for r in rows],
        "label": [r[2] for r in rows],
        "value": [r[3] for r in rows],
    }
    if replication is not None:
        data["replication"] = [replication] * len(rows)
    return pd.DataFrame(data)


def same_frame(got: pd.DataFrame, rows: list[tuple[Any, ...]]) -> None:
    """The frame read equals the hand-typed one, and gives the same coefficients."""
    expected = frame(rows)
    pd.testing.assert_frame_equal(got, expected)
    by_accessor = got.xrr(label="label", value="value").irr()
    by_hand = xrr_accessor.irr(expected, label="label", value="value")
    pd.testing.assert_series_equal(by_accessor, by_hand)


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# ---------------------------------------------------------------- Label Studio
# https://labelstud.io/guide/task_format : tasks with "id", "data", "annotations" (each with
# "result" entries: from_name, to_name, type, value; "was_cancelled"; "completed_by") and
# "predictions". Control tag values: https://labelstud.io/tags/choices (value.choices),
# rating (value.rating), textarea (value.text).

def ls_result(from_name: str, kind: str, value: dict[str, Any]) -> dict[str, Any]:
    return {"from_name": from_name, "id": f"r-{from_name}", "to_name": "text",
            "type": kind, "origin": "manual", "value": value}


def ls_annotation(user: int, results: list[dict[str, Any]], task: int,
                  cancelled: bool = False) -> dict[str, Any]:
    return {"id": 1000 + 10 * task + user, "result": results, "was_cancelled": cancelled,
            "ground_truth": False, "created_at": "2021-03-09T22:16:08.728353Z",
            "updated_at": "2021-03-09T22:16:08.728378Z", "lead_time": 4.288,
            "result_count": 0, "task": task, "completed_by": user}


def ls_task(task: int, annotations: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": task, "created_at": "2021-03-09T21:52:49.513742Z",
            "updated_at": "2021-03-09T22:16:08.746926Z", "project": 83,
            "data": {"text": f"review {task}"}, "annotations": annotations,
            "predictions": [{"model_version": "model 1", "result": [
                ls_result("sentiment", "choices", {"choices": ["Neutral"]})]}]}


def ls_answer(task: int, user: int, sentiment: str, quality: int) -> dict[str, Any]:
    return ls_annotation(user, [
        ls_result("sentiment", "choices", {"choices": [sentiment]}),
        ls_result("quality", "rating", {"rating": quality}),
    ], task)


LS_TASKS = [
    ls_task(1, [ls_answer(1, 10, "Positive", 5), ls_answer(1, 11, "Positive", 4)]),
    ls_task(2, [ls_answer(2, 10, "Negative", 2), ls_answer(2, 11, "Negative", 2)]),
    ls_task(3, [ls_answer(3, 10, "Positive", 4), ls_answer(3, 11, "Negative", 1),
                ls_annotation(12, [], 3, cancelled=True)]),
    ls_task(4, []),
]

LS_ROWS = [
    ("1", "10", "sentiment", "Positive"), ("1", "10", "quality", 5),
    ("1", "11", "sentiment", "Positive"), ("1", "11", "quality", 4),
    ("2", "10", "sentiment", "Negative"), ("2", "10", "quality", 2),
    ("2", "11", "sentiment", "Negative"), ("2", "11", "quality", 2),
    ("3", "10", "sentiment", "Positive"), ("3", "10", "quality", 4),
    ("3", "11", "sentiment", "Negative"), ("3", "11", "quality", 1),
]


def test_label_studio_round_trip(tmp_path: Path) -> None:
    # https://labelstud.io/guide/task_format
    path = write_json(tmp_path / "project-1.json", LS_TASKS)
    with pytest.warns(DroppedDataWarning, match="1 cancelled"):
        df = read_label_studio(path)
    same_frame(df, LS_ROWS)
    assert df.attrs["dropped"] == {"cancelled": 1}


def test_label_studio_multi_choice_is_one_label_set_per_answer(tmp_path: Path) -> None:
    # https://labelstud.io/tags/choices : choice="multiple" stores every selection in
    # value.choices; https://labelstud.io/tags/textarea stores value.text.
    # Issue 36: one row per answer, its choices a frozenset (was one 0/1 row per choice
    # seen in the file: answers x choices rows).
    def answer(task: int, user: int, topics: list[str], note: str) -> dict[str, Any]:
        return ls_annotation(user, [
            ls_result("topics", "choices", {"choices": topics}),
            ls_result("note", "textarea", {"text": [note]}),
        ], task)

    tasks = [ls_task(1, [answer(1, 10, ["Sports", "Politics"], "ok"),
                         answer(1, 11, ["Sports"], "ok")]),
             ls_task(2, [answer(2, 10, ["Arts"], "meh"), answer(2, 11, ["Arts"], "bad")])]
    df = read_label_studio(write_json(tmp_path / "export.json", tasks))
    rows = [("1", "10", "topics", frozenset({"Sports", "Politics"})), ("1", "10", "note", "ok"),
            ("1", "11", "topics", frozenset({"Sports"})), ("1", "11", "note", "ok"),
            ("2", "10", "topics", frozenset({"Arts"})), ("2", "10", "note", "meh"),
            ("2", "11", "topics", frozenset({"Arts"})), ("2", "11", "note", "bad")]
    same_frame(df, rows)
    # the same information as the 0/1 label per choice: each choice is "in the set"
    topics = df[df["label"] == "topics"]
    binary = {c: topics["value"].map(lambda s, c=c: int(c in s)).tolist()
              for c in ("Sports", "Politics", "Arts")}
    assert binary == {"Sports": [1, 1, 0, 0], "Politics": [1, 0, 0, 0], "Arts": [0, 0, 1, 1]}
    # set levels read the label sets: MASI gives item 1's nested sets D = 1 - (1/2)(2/3);
    # D_o = (2 x 2/3) / 4 = 1/3, D_e = (2 x 2/3 + 8 x 1) / 12 = 7/9: alpha = 1 - 3/7
    masi = xrr_accessor.irr(topics, level="masi")
    assert masi["topics"] == pytest.approx(4 / 7, abs=1e-12)
    # a multi-choice answer that selects nothing is empty (no label set is empty)
    tasks[1]["annotations"][1] = answer(2, 11, [], "bad")
    with pytest.warns(DroppedDataWarning, match="1 empty"):
        df = read_label_studio(tasks, multiple="topics")
    assert len(df) == 7 and df.attrs["dropped"] == {"empty": 1}


def test_label_studio_regions_are_counted_not_read(tmp_path: Path) -> None:
    # https://labelstud.io/guide/task_format : a rectanglelabels result (a region)
    region = {"from_name": "tag", "id": "Dx_aB91ISN", "source": "$image", "to_name": "img",
              "type": "rectanglelabels",
              "value": {"height": 10.4, "rectanglelabels": ["Moonwalker"], "rotation": 0,
                        "width": 12.4, "x": 50.8, "y": 5.8}}
    tasks = copy.deepcopy(LS_TASKS)
    tasks[0]["annotations"][0]["result"].append(region)
    with pytest.warns(DroppedDataWarning, match="rectanglelabels"):
        df = read_label_studio(write_json(tmp_path / "export.json", tasks))
    assert df.attrs["dropped"] == {"rectanglelabels results": 1, "cancelled": 1}
    pd.testing.assert_frame_equal(df, frame(LS_ROWS))


def test_label_studio_input_is_not_modified() -> None:
    # https://labelstud.io/guide/task_format
    tasks = copy.deepcopy(LS_TASKS)
    with pytest.warns(DroppedDataWarning):
        df = read_label_studio(tasks, replication="crowd")
    assert tasks == LS_TASKS
    pd.testing.assert_frame_equal(df, frame(LS_ROWS, replication="crowd"))


def test_two_exports_concatenate_as_replications(tmp_path: Path) -> None:
    # https://labelstud.io/guide/task_format
    path = write_json(tmp_path / "a.json", LS_TASKS)
    with pytest.warns(DroppedDataWarning):
        crowd = read_label_studio(path, replication="crowd", questions=["sentiment"])
    with pytest.warns(DroppedDataWarning):
        experts = read_label_studio(path, replication="experts", questions=["sentiment"])
    both = pd.concat([crowd, experts], ignore_index=True)
    assert list(both.columns) == ["item", "rater", "label", "value", "replication"]
    kappa_x = both.xrr(label="label", value="value", replication="replication").cross_kappa()
    assert kappa_x.notna().all().all()


def test_label_studio_without_completed_annotations(tmp_path: Path) -> None:
    # https://labelstud.io/guide/task_format : "was_cancelled": true annotations only
    tasks = [ls_task(1, [ls_annotation(10, [], 1, cancelled=True)]), ls_task(2, [])]
    with pytest.raises(InputError, match=r"no completed annotations.*1 cancelled"):
        read_label_studio(write_json(tmp_path / "export.json", tasks))


def test_label_studio_bad_input(tmp_path: Path) -> None:
    # https://labelstud.io/guide/task_format (and https://labelstud.io/guide/export for
    # the JSON_MIN flavour, whose documented records have no "annotations")
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": 1,\n "annotations": [}]', encoding="utf-8")
    with pytest.raises(InputError, match=r"malformed JSON.*line 2"):
        read_label_studio(broken)
    no_id = copy.deepcopy(LS_TASKS[:1])
    del no_id[0]["id"]
    with pytest.raises(InputError, match="task 0 has no 'id'"):
        read_label_studio(no_id)
    no_user = copy.deepcopy(LS_TASKS[:1])
    del no_user[0]["annotations"][1]["completed_by"]
    with pytest.raises(InputError, match="task 0, annotation 1 has no 'completed_by'"):
        read_label_studio(no_user)
    json_min = [{"image": "https://example.com/1.jpg", "tag": [{"rectanglelabels": ["M"]}]}]
    with pytest.raises(InputError, match="JSON_MIN"):
        read_label_studio(json_min)
    twice = copy.deepcopy(LS_TASKS[:1])
    twice[0]["annotations"].append(ls_answer(1, 10, "Negative", 1))
    with pytest.raises(InputError, match="rater '10' answered 'sentiment' on item '1' more"):
        read_label_studio(twice)
    with pytest.warns(DroppedDataWarning, match="2 duplicate"):
        last = read_label_studio(twice, duplicates="last")
    assert last.loc[(last.rater == "10") & (last.label == "sentiment"), "value"].item() == \
        "Negative"


# ---------------------------------------------------------------- Prodigy
# https://prodi.gy/docs/api-interfaces : annotated tasks carry "answer" (accept, reject,
# ignore); the choice interface has "options" ({"id", "text"}) and the selected ids in
# "accept"; the classification interface has a "label". https://prodi.gy/docs/api-web-app :
# named multi-user sessions ("_session_id"); db-out writes "_annotator_id" next to it.

def prodigy_choice(text_hash: int, annotator: str, accept: list[str],
                   answer: str = "accept") -> dict[str, Any]:
    return {"text": f"text {text_hash}",
            "options": [{"id": "SPORTS", "text": "Sports"},
                        {"id": "POLITICS", "text": "Politics"},
                        {"id": "ARTS", "text": "Arts"}],
            "_input_hash": text_hash, "_task_hash": text_hash * 7, "_view_id": "choice",
            "config": {"choice_style": "multiple"}, "accept": accept, "answer": answer,
            "_timestamp": 1707211049, "_annotator_id": f"news-{annotator}",
            "_session_id": f"news-{annotator}"}


def test_prodigy_choice_round_trip(tmp_path: Path) -> None:
    # https://prodi.gy/docs/api-interfaces (choice, "accept" holds the selected option ids)
    tasks = [prodigy_choice(101, "ann", ["SPORTS", "POLITICS"]),
             prodigy_choice(101, "bob", ["SPORTS"]),
             prodigy_choice(102, "ann", ["ARTS"]),
             prodigy_choice(102, "bob", []),
             prodigy_choice(103, "ann", [], answer="ignore"),
             prodigy_choice(103, "bob", ["ARTS"], answer="reject")]
    path = write_jsonl(tmp_path / "news.jsonl", tasks)
    with pytest.warns(DroppedDataWarning, match="1 ignore, 1 reject"):
        df = read_prodigy(path)
    assert df.attrs["dropped"] == {"ignore": 1, "reject": 1}

    def binary(item: str, rater: str, chosen: list[str]) -> list[tuple[Any, ...]]:
        return [(item, f"news-{rater}", f"accept={o}", int(o in chosen))
                for o in ("SPORTS", "POLITICS", "ARTS")]

    same_frame(df, [*binary("101", "ann", ["SPORTS", "POLITICS"]),
                    *binary("101", "bob", ["SPORTS"]),
                    *binary("102", "ann", ["ARTS"]),
                    *binary("102", "bob", [])])


def test_prodigy_single_choice_and_binary_textcat(tmp_path: Path) -> None:
    # https://prodi.gy/docs/api-interfaces (classification: accept/reject a "label";
    # choice with one selected option)
    def binary(text_hash: int, annotator: str, answer: str) -> dict[str, Any]:
        return {"text": f"text {text_hash}", "label": "SPORTS", "answer": answer,
                "_input_hash": text_hash, "_task_hash": text_hash + 1,
                "_view_id": "classification", "_session_id": f"news-{annotator}",
                "_annotator_id": f"news-{annotator}"}

    lines = [binary(1, "ann", "accept"), binary(1, "bob", "accept"),
             binary(2, "ann", "reject"), binary(2, "bob", "accept"),
             binary(3, "ann", "reject"), binary(3, "bob", "reject")]
    df = read_prodigy(write_jsonl(tmp_path / "teach.jsonl", lines))
    same_frame(df, [("1", "news-ann", "SPORTS", 1), ("1", "news-bob", "SPORTS", 1),
                    ("2", "news-ann", "SPORTS", 0), ("2", "news-bob", "SPORTS", 1),
                    ("3", "news-ann", "SPORTS", 0), ("3", "news-bob", "SPORTS", 0)])
    single = [prodigy_choice(1, "ann", ["SPORTS"]), prodigy_choice(1, "bob", ["ARTS"]),
              prodigy_choice(2, "ann", ["ARTS"]), prodigy_choice(2, "bob", ["ARTS"])]
    df = read_prodigy(write_jsonl(tmp_path / "manual.jsonl", single), question="topic")
    same_frame(df, [("1", "news-ann", "topic", "SPORTS"), ("1", "news-bob", "topic", "ARTS"),
                    ("2", "news-ann", "topic", "ARTS"), ("2", "news-bob", "topic", "ARTS")])


def test_prodigy_bad_input(tmp_path: Path) -> None:
    # https://prodi.gy/docs/api-interfaces ("answer" is on every annotated task)
    good = json.dumps(prodigy_choice(1, "ann", ["ARTS"]))
    unanswered = prodigy_choice(1, "bob", ["ARTS"])
    del unanswered["answer"]
    path = tmp_path / "bad.jsonl"
    path.write_text(good + "\n" + json.dumps(unanswered) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"line 2 of bad.jsonl has no 'answer'"):
        read_prodigy(path)
    path.write_text(good + "\n\n" + good[:-5] + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="malformed JSON on line 3"):
        read_prodigy(path)
    anonymous = prodigy_choice(1, "ann", ["ARTS"])
    del anonymous["_annotator_id"], anonymous["_session_id"]
    with pytest.raises(InputError, match="line 1 has no '_annotator_id' or '_session_id'"):
        read_prodigy(io.StringIO(json.dumps(anonymous)))
    spans = {"text": "a b", "spans": [], "answer": "accept", "_input_hash": 1,
             "_annotator_id": "x"}
    with pytest.raises(InputError, match=r"neither 'options'.*nor 'label'"):
        read_prodigy(io.StringIO(json.dumps(spans)))
    odd = dict(prodigy_choice(1, "ann", ["ARTS"]), answer="maybe")
    with pytest.raises(InputError, match="answer 'maybe'"):
        read_prodigy(io.StringIO(json.dumps(odd)))


# ---------------------------------------------------------------- MTurk
# https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/ReviewingResultsOutsideoftheRUI.html
# (Download CSV of batch results; Approve/Reject columns) and
# https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/RetrievingResults.html
# (HITId, WorkerId, AssignmentStatus Submitted/Approved/Rejected).

MTURK_HEADER = ('"HITId","HITTypeId","Title","AssignmentId","WorkerId","AssignmentStatus",'
                '"AcceptTime","SubmitTime","Input.text","Answer.sentiment","Answer.confidence",'
                '"Approve","Reject"')


def mturk_row(hit: str, worker: str, status: str, sentiment: str, confidence: str) -> str:
    return (f'"{hit}","3XTYPE","Rate the tweet","A{hit}{worker}","{worker}","{status}",'
            f'"Sun Dec 01 12:00:00 PST 2019","Sun Dec 01 13:04:59 PST 2019","tweet {hit}",'
            f'"{sentiment}","{confidence}","",""')


def test_mturk_round_trip(tmp_path: Path) -> None:
    # https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/ReviewingResultsOutsideoftheRUI.html
    rows = [mturk_row("H1", "W1", "Approved", "positive", "3"),
            mturk_row("H1", "W2", "Submitted", "positive", "2"),
            mturk_row("H2", "W1", "Approved", "negative", "3"),
            mturk_row("H2", "W2", "Approved", "positive", ""),
            mturk_row("H2", "W3", "Rejected", "negative", "1"),
            mturk_row("H3", "W1", "Submitted", "negative", "1"),
            mturk_row("H3", "W2", "Submitted", "negative", "2")]
    path = tmp_path / "Batch_123_batch_results.csv"
    path.write_text("\n".join([MTURK_HEADER, *rows]) + "\n", encoding="utf-8")
    with pytest.warns(DroppedDataWarning, match="1 rejected, 1 empty"):
        df = read_mturk(path)
    assert df.attrs["dropped"] == {"rejected": 1, "empty": 1}
    same_frame(df, [("H1", "W1", "sentiment", "positive"), ("H1", "W1", "confidence", 3),
                    ("H1", "W2", "sentiment", "positive"), ("H1", "W2", "confidence", 2),
                    ("H2", "W1", "sentiment", "negative"), ("H2", "W1", "confidence", 3),
                    ("H2", "W2", "sentiment", "positive"),
                    ("H3", "W1", "sentiment", "negative"), ("H3", "W1", "confidence", 1),
                    ("H3", "W2", "sentiment", "negative"), ("H3", "W2", "confidence", 2)])


def test_mturk_item_column_and_multi_choice(tmp_path: Path) -> None:
    # https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/ReviewingResultsOutsideoftheRUI.html
    csv = ("HITId,WorkerId,Input.id,Answer.topics\n"
           'H1,W1,t1,"sports|politics"\n'
           "H1,W2,t1,sports\n"
           "H2,W1,t2,arts\n"
           "H2,W2,t2,arts\n")
    df = read_mturk(io.StringIO(csv), item="Input.id", multi_sep="|")

    def binary(item: str, rater: str, chosen: list[str]) -> list[tuple[Any, ...]]:
        return [(item, rater, f"topics={c}", int(c in chosen))
                for c in ("sports", "politics", "arts")]

    same_frame(df, [*binary("t1", "W1", ["sports", "politics"]),
                    *binary("t1", "W2", ["sports"]),
                    *binary("t2", "W1", ["arts"]), *binary("t2", "W2", ["arts"])])


def test_mturk_missing_column() -> None:
    # https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/RetrievingResults.html
    csv = "HITId,AssignmentId,Answer.sentiment\nH1,A1,positive\n"
    with pytest.raises(InputError, match="required column 'WorkerId' is missing"):
        read_mturk(io.StringIO(csv))
    csv = "HITId,WorkerId,Input.text\nH1,W1,hello\n"
    with pytest.raises(InputError, match=r"no 'Answer.<name>' column"):
        read_mturk(io.StringIO(csv))


# ---------------------------------------------------------------- Toloka and crowd-kit
# https://toloka.ai/docs/guide/result-of-eval : INPUT:<field>, OUTPUT:<field>,
# GOLDEN:<field>, HINT:text, ASSIGNMENT:link, ASSIGNMENT:assignment_id,
# ASSIGNMENT:worker_id, ASSIGNMENT:started, ASSIGNMENT:status (SUBMITTED, APPROVED,
# REJECTED). https://github.com/Toloka/crowd-kit : a frame with columns task, worker, label.

TOLOKA_HEADER = ["INPUT:image", "OUTPUT:result", "GOLDEN:result", "HINT:text",
                 "ASSIGNMENT:link", "ASSIGNMENT:assignment_id", "ASSIGNMENT:worker_id",
                 "ASSIGNMENT:status", "ASSIGNMENT:started"]


def toloka_row(image: str, result: str, worker: str, status: str, golden: str = "") -> str:
    return "\t".join([f"https://example.com/{image}.png", result, golden, "",
                      "https://platform.toloka.ai/task/1/abc", f"0001-{image}-{worker}",
                      worker, status, "2023-01-01T10:00:00"])


def test_toloka_round_trip(tmp_path: Path) -> None:
    # https://toloka.ai/docs/guide/result-of-eval
    rows = [toloka_row("cat1", "cat", "w1", "APPROVED"),
            toloka_row("cat1", "cat", "w2", "SUBMITTED"),
            toloka_row("dog1", "dog", "w1", "APPROVED", golden="dog"),
            toloka_row("dog1", "cat", "w2", "APPROVED", golden="dog"),
            toloka_row("dog1", "dog", "w3", "REJECTED", golden="dog"),
            toloka_row("dog2", "dog", "w1", "SUBMITTED"),
            toloka_row("dog2", "dog", "w2", "SUBMITTED")]
    path = tmp_path / "assignments_from_pool_1.tsv"
    path.write_text("\t".join(TOLOKA_HEADER) + "\n" + "\n".join(rows) + "\n",
                    encoding="utf-8")
    with pytest.warns(DroppedDataWarning, match="1 rejected"):
        df = read_toloka(path)
    assert df.attrs["dropped"] == {"rejected": 1}
    url = "https://example.com/{}.png".format
    same_frame(df, [(url("cat1"), "w1", "result", "cat"), (url("cat1"), "w2", "result", "cat"),
                    (url("dog1"), "w1", "result", "dog"), (url("dog1"), "w2", "result", "cat"),
                    (url("dog2"), "w1", "result", "dog"), (url("dog2"), "w2", "result", "dog")])


def test_crowd_kit_layout(tmp_path: Path) -> None:
    # https://github.com/Toloka/crowd-kit : "read your annotations into Pandas DataFrame
    # with columns task, worker, label"
    path = tmp_path / "results.csv"
    path.write_text("task,worker,label\nt1,w1,1\nt1,w2,1\nt2,w1,0\nt2,w2,1\nt3,w1,0\n"
                    "t3,w2,0\n", encoding="utf-8")
    rows = [("t1", "w1", "relevant", 1), ("t1", "w2", "relevant", 1),
            ("t2", "w1", "relevant", 0), ("t2", "w2", "relevant", 1),
            ("t3", "w1", "relevant", 0), ("t3", "w2", "relevant", 0)]
    same_frame(read_toloka(path, question="relevant"), rows)
    given = pd.DataFrame({"task": ["t1", "t1", "t2", "t2", "t3", "t3"],
                          "worker": ["w1", "w2"] * 3, "label": [1, 1, 0, 1, 0, 0]})
    before = given.copy()
    same_frame(read_toloka(given, question="relevant"), rows)
    pd.testing.assert_frame_equal(given, before)


def test_toloka_bad_input() -> None:
    # https://toloka.ai/docs/guide/result-of-eval
    header = "INPUT:image\tOUTPUT:result\tASSIGNMENT:status\n"
    with pytest.raises(InputError, match="required column 'ASSIGNMENT:worker_id' is missing"):
        read_toloka(io.StringIO(header + "a.png\tcat\tAPPROVED\n"))
    header = "INPUT:image\tINPUT:text\tOUTPUT:result\tASSIGNMENT:worker_id\n"
    with pytest.raises(InputError, match=r"cannot tell the item.*Pass item="):
        read_toloka(io.StringIO(header + "a.png\thi\tcat\tw1\n"))
    with pytest.raises(InputError, match="neither Toloka 'OUTPUT:' columns nor crowd-kit"):
        read_toloka(io.StringIO("task,annotator,answer\nt1,w1,1\n"))


# ---------------------------------------------------------------- Argilla
# v2: https://docs.argilla.io/latest/how_to_guides/import_export (records.to_json /
# to_list(flatten=False)) and https://docs.argilla.io/latest/reference/argilla/records/responses
# (responses per question, each with value and user_id; status draft/submitted/discarded).
# v1: https://docs.argilla.io/en/latest/practical_guides/create_update_dataset/suggestions_and_responses.html
# (FeedbackRecord responses: {"user_id", "values": {question: {"value"}}, "status"}).

U1, U2 = "2d5a4a1e-0000-4000-8000-000000000001", "2d5a4a1e-0000-4000-8000-000000000002"


def argilla_record(rid: str, responses: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {"id": rid, "fields": {"text": f"text {rid}"}, "metadata": {},
            "suggestions": {"label": {"value": "positive", "score": 0.9, "agent": "model"}},
            "responses": responses, "vectors": {}, "status": "completed",
            "_server_id": f"server-{rid}"}


def test_argilla_v2_round_trip(tmp_path: Path) -> None:
    # https://docs.argilla.io/latest/reference/argilla/records/responses
    def said(label: str, topics: list[str], rating: int, user: str,
             status: str = "submitted") -> dict[str, list[dict[str, Any]]]:
        return {"label": [{"value": label, "user_id": user, "status": status}],
                "topics": [{"value": topics, "user_id": user, "status": status}],
                "rating": [{"value": rating, "user_id": user, "status": status}]}

    def both(a: dict[str, Any], b: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        return {q: a[q] + b[q] for q in a}

    records = [
        argilla_record("r1", both(said("positive", ["food", "price"], 5, U1),
                                  said("positive", ["food"], 4, U2))),
        argilla_record("r2", both(said("negative", ["service"], 1, U1),
                                  said("negative", ["service"], 2, U2))),
        argilla_record("r3", both(said("negative", ["price"], 2, U1),
                                  said("positive", ["price"], 3, U2, status="discarded"))),
        argilla_record("r4", {}),
    ]
    path = write_json(tmp_path / "records.json", records)
    with pytest.warns(DroppedDataWarning, match="3 discarded"):
        df = read_argilla(path)
    assert df.attrs["dropped"] == {"discarded": 3}
    topics = ("food", "price", "service")

    def rows(item: str, user: str, label: str, chosen: list[str],
             rating: int) -> list[tuple[Any, ...]]:
        return [(item, user, "label", label),
                *[(item, user, f"topics={t}", int(t in chosen)) for t in topics],
                (item, user, "rating", rating)]

    same_frame(df, [*rows("r1", U1, "positive", ["food", "price"], 5),
                    *rows("r1", U2, "positive", ["food"], 4),
                    *rows("r2", U1, "negative", ["service"], 1),
                    *rows("r2", U2, "negative", ["service"], 2),
                    *rows("r3", U1, "negative", ["price"], 2)])


def test_argilla_v1_round_trip() -> None:
    # https://docs.argilla.io/en/latest/practical_guides/create_update_dataset/suggestions_and_responses.html
    def record(external_id: str, a: str, b: str) -> dict[str, Any]:
        return {"fields": {"text": external_id}, "external_id": external_id, "metadata": {},
                "responses": [
                    {"user_id": U1, "values": {"relevant": {"value": a}}, "status": "submitted"},
                    {"user_id": U2, "values": {"relevant": {"value": b}}, "status": "submitted"},
                ], "suggestions": []}

    records = [record("e1", "yes", "yes"), record("e2", "no", "yes"), record("e3", "no", "no")]
    before = copy.deepcopy(records)
    df = read_argilla(io.StringIO(json.dumps(records)), replication="v1")
    assert records == before
    expected = frame([("e1", U1, "relevant", "yes"), ("e1", U2, "relevant", "yes"),
                      ("e2", U1, "relevant", "no"), ("e2", U2, "relevant", "yes"),
                      ("e3", U1, "relevant", "no"), ("e3", U2, "relevant", "no")],
                     replication="v1")
    pd.testing.assert_frame_equal(df, expected)
    pd.testing.assert_frame_equal(
        df.xrr(label="label", value="value").irr(),
        xrr_accessor.irr(expected, label="label", value="value"),
    )


def test_argilla_bad_input() -> None:
    # https://docs.argilla.io/latest/reference/argilla/records/responses (user_id)
    anonymous = [argilla_record("r1", {"label": [{"value": "positive"}]})]
    with pytest.raises(InputError, match="record 0, question 'label' has a response without"):
        read_argilla(anonymous)
    no_id = [{"fields": {"text": "x"}, "responses": {}}]
    with pytest.raises(InputError, match="record 0 has no 'id'"):
        read_argilla(no_id)
    flat = [{"text": "x", "label.responses": ["positive"]}]
    with pytest.raises(InputError, match="flattened"):
        read_argilla(flat)
    with pytest.raises(InputError, match=r"malformed JSON.*line 1"):
        read_argilla(io.StringIO('[{"id": "r1", "responses": {]'))


# ---------------------------------------------------------------- doccano
# https://doccano.github.io/doccano/tutorial/ (Export Data: JSONL, older records carry
# "username") and doccano's text classification export example
# {"text": "Terrible customer service.", "label": ["negative"]}; the per-user export is a zip
# of <username>.jsonl files, each line with the example "id".

def doccano_zip(path: Path, users: dict[str, list[dict[str, Any]]]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for user, records in users.items():
            archive.writestr(f"{user}.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    return path


def doc(i: int, labels: list[str]) -> dict[str, Any]:
    return {"id": i, "text": f"review {i}", "Comments": [], "label": labels}


def test_doccano_zip_round_trip(tmp_path: Path) -> None:
    # https://doccano.github.io/doccano/tutorial/
    path = doccano_zip(tmp_path / "project.zip", {
        "alice": [doc(1, ["positive"]), doc(2, ["negative"]), doc(3, ["negative"]),
                  doc(4, [])],
        "bob": [doc(1, ["positive"]), doc(2, ["positive"]), doc(3, ["negative"]),
                doc(4, [])],
    })
    with pytest.warns(DroppedDataWarning, match="2 empty"):
        df = read_doccano(path)
    same_frame(df, [("1", "alice", "label", "positive"), ("2", "alice", "label", "negative"),
                    ("3", "alice", "label", "negative"), ("1", "bob", "label", "positive"),
                    ("2", "bob", "label", "positive"), ("3", "bob", "label", "negative")])
    with path.open("rb") as handle:  # an open binary file works too
        with pytest.warns(DroppedDataWarning):
            pd.testing.assert_frame_equal(read_doccano(handle), df)


def test_doccano_multi_label_and_username_field(tmp_path: Path) -> None:
    # https://doccano.github.io/doccano/tutorial/ ("username" on each exported record)
    lines = [dict(doc(1, ["food", "price"]), username="alice"),
             dict(doc(1, ["food"]), username="bob"),
             dict(doc(2, ["price"]), username="alice"),
             dict(doc(2, ["price"]), username="bob")]
    df = read_doccano(write_jsonl(tmp_path / "all.jsonl", lines))

    def binary(item: str, rater: str, chosen: list[str]) -> list[tuple[Any, ...]]:
        return [(item, rater, f"label={c}", int(c in chosen)) for c in ("food", "price")]

    same_frame(df, [*binary("1", "alice", ["food", "price"]), *binary("1", "bob", ["food"]),
                    *binary("2", "alice", ["price"]), *binary("2", "bob", ["price"])])


def test_doccano_bad_input(tmp_path: Path) -> None:
    # https://doccano.github.io/doccano/tutorial/
    path = write_jsonl(tmp_path / "admin.jsonl", [doc(1, ["positive"])])
    with pytest.raises(InputError, match="line 1 names no annotator; pass rater="):
        read_doccano(path)
    spans = write_jsonl(tmp_path / "ner.jsonl", [{"id": 1, "text": "EU rejects",
                                                  "label": [[0, 2, "ORG"]]}])
    with pytest.raises(InputError, match="span labels"):
        read_doccano(spans, rater="admin")
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(doc(1, ["x"])) + "\n{\"id\": 2,\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"malformed JSON on line 2 of broken.jsonl"):
        read_doccano(broken, rater="admin")
    with pytest.raises(InputError, match="no file at"):
        read_doccano(tmp_path / "missing.zip")
