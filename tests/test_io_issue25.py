"""Issue 25, the platform readers: every reproducer of the issue, as it was filed.

Ids scalar and non-null, strings never split into characters, number-like answers kept
exact, repeated columns refused, every raw error replaced by an InputError naming the
field and the record (index / line), and plain strings given to ``questions=``,
``answers=``, ``outputs=``, ``multiple=`` read as one name.
"""

from __future__ import annotations

import io
import json
import warnings
from typing import Any

import pandas as pd
import pytest

from xrr_accessor.errors import InputError
from xrr_accessor.io import (
    read_argilla,
    read_doccano,
    read_label_studio,
    read_mturk,
    read_prodigy,
    read_toloka,
)


def ls_task(tid: Any, rater: Any, choices: Any, name: str = "q") -> dict[str, Any]:
    return {"id": tid, "annotations": [{"completed_by": rater, "result": [
        {"from_name": name, "to_name": "text", "type": "choices",
         "value": {"choices": choices}}]}]}


def jsonl(*records: dict[str, Any]) -> io.StringIO:
    return io.StringIO("".join(json.dumps(r) + "\n" for r in records))


def quiet(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# ---- ids must be scalars and non-null ---------------------------------------------------

def test_label_studio_null_task_ids_are_refused_not_one_item_none() -> None:
    tasks = [ls_task(None, 1, ["A"]), ls_task(None, 1, ["B"])]
    with pytest.raises(InputError, match=r"task 0's 'id' is None in task 0, annotation 0"):
        read_label_studio(tasks)


def test_label_studio_list_id_is_refused() -> None:
    with pytest.raises(InputError, match=r"task 0's 'id' is \[1, 2\]"):
        read_label_studio([ls_task([1, 2], 1, ["A"])])


def test_label_studio_user_without_id_names_the_annotation() -> None:
    tasks = [ls_task(1, {"first_name": "x"}, ["A"]), ls_task(1, {"first_name": "y"}, ["B"])]
    with pytest.raises(InputError, match=r"the user \('completed_by'\) of task 0, "
                                         r"annotation 0 is None") as err:
        read_label_studio(tasks)
    assert "more than once" not in str(err.value)
    by_email = read_label_studio([ls_task(1, {"email": "a@x"}, ["A"])])
    assert by_email["rater"].tolist() == ["a@x"]


def test_prodigy_nan_input_hash_is_refused_with_its_line() -> None:
    lines = io.StringIO('{"_input_hash": 1, "_annotator_id": "a", "answer": "accept", '
                        '"label": "X"}\n{"_input_hash": NaN, "_annotator_id": "a", '
                        '"answer": "accept", "label": "X"}\n')
    with pytest.raises(InputError, match=r"the item \('_input_hash'\) is nan in line 2"):
        read_prodigy(lines)


def test_doccano_and_argilla_null_or_list_ids() -> None:
    with pytest.raises(InputError, match=r"'id' is \[1\] in <StringIO> line 1"):
        read_doccano(jsonl({"id": [1], "label": ["a"]}), rater="ann")
    with pytest.raises(InputError, match=r"a response's 'user_id' is \{\} in record 0"):
        read_argilla([{"id": "r", "responses": {"q": [{"value": "a", "user_id": {}}]}}])


def test_null_choice_is_refused_not_category_none() -> None:
    with pytest.raises(InputError, match=r"value\['choices'\] is None in task 0, "
                                         r"annotation 0, result 0"):
        read_label_studio([ls_task(1, 1, [None])])
    with pytest.raises(InputError, match=r"value\['choices'\] is None"):
        read_label_studio([ls_task(1, 1, None)])  # {"choices": null}: was a TypeError


# ---- strings are never iterated as lists ------------------------------------------------

def test_label_studio_choices_string_is_one_choice() -> None:
    df = read_label_studio([ls_task(1, 1, "Pos"), ls_task(1, 2, ["Neg"])])
    assert df["value"].tolist() == ["Pos", "Neg"]  # not P, o, s


def test_prodigy_accept_string_is_one_choice() -> None:
    task = {"_input_hash": 1, "_annotator_id": "a", "answer": "accept",
            "options": [{"id": "AB"}, {"id": "C"}], "accept": "AB"}
    df = read_prodigy(jsonl(task, {**task, "_annotator_id": "b", "accept": ["C"]}))
    assert df["value"].tolist() == ["AB", "C"]  # not A, B


# ---- number-like answers stay exact -----------------------------------------------------

def test_mturk_big_integers_stay_distinct() -> None:
    csv = ("HITId,WorkerId,Answer.n\nH1,W1,12345678901234567891\n"
           "H1,W2,12345678901234567892\n")
    df = read_mturk(io.StringIO(csv))
    assert df["value"].tolist() == ["12345678901234567891", "12345678901234567892"]


def test_toloka_underscore_is_not_a_digit_separator() -> None:
    tsv = "INPUT:x\tOUTPUT:n\tASSIGNMENT:worker_id\na\t1_0\tw1\na\t10\tw2\n"
    assert read_toloka(io.StringIO(tsv))["value"].tolist() == ["1_0", "10"]


def test_numbers_still_read_as_numbers_when_nothing_is_lost() -> None:
    ints = read_mturk(io.StringIO("HITId,WorkerId,Answer.n\nH1,W1,3\nH1,W2,4.0\n"))
    assert ints["value"].tolist() == [3, 4] and ints["value"].dtype == "int64"
    floats = read_mturk(io.StringIO("HITId,WorkerId,Answer.r\nH1,W1,0.5\nH1,W2,2\n"))
    assert floats["value"].tolist() == [0.5, 2.0] and floats["value"].dtype == "float64"


# ---- repeated columns -------------------------------------------------------------------

def test_mturk_two_answer_columns_of_one_name() -> None:
    csv = "HITId,WorkerId,Answer.x,Answer.x\nH1,W1,a,b\n"
    with pytest.raises(InputError, match=r"column 'Answer.x' appears twice in <StringIO>"):
        read_mturk(io.StringIO(csv))
    frame = pd.DataFrame([["H1", "W1", "a", "b"]],
                         columns=["HITId", "WorkerId", "Answer.x", "Answer.x"])
    with pytest.raises(InputError, match=r"column 'Answer.x' appears twice in the frame"):
        read_mturk(frame)  # was an AttributeError


# ---- the raw errors of the issue --------------------------------------------------------

def test_label_studio_result_none() -> None:
    with pytest.raises(InputError, match=r"result 0 of task 0, annotation 0 is None"):
        read_label_studio([{"id": 1, "annotations": [{"completed_by": 1, "result": [None]}]}])


def test_argilla_responses_of_strings() -> None:
    with pytest.raises(InputError, match=r"record 0's responses to 'q' are \['pos'\]"):
        read_argilla([{"id": "r1", "responses": {"q": ["pos"]}}])


def test_prodigy_options_null() -> None:
    task = {"_input_hash": 1, "_annotator_id": "a", "answer": "accept", "options": None}
    with pytest.raises(InputError, match=r"line 1 has 'options' None, not a list"):
        read_prodigy(jsonl(task))


@pytest.mark.parametrize("reader", [read_label_studio, read_argilla])
def test_json_integer_over_the_digit_limit(reader: Any) -> None:
    text = '[\n{"id": 1,\n "x": ' + "9" * 5000 + "}]"
    with pytest.raises(InputError, match=r"in <StringIO> on line 3: .*4300"):
        reader(io.StringIO(text))


def test_jsonl_integer_over_the_digit_limit_names_the_line() -> None:
    text = '{"id": 1}\n{"id": ' + "9" * 5000 + "}\n"
    with pytest.raises(InputError, match=r"cannot parse line 2 of <StringIO>"):
        read_doccano(io.StringIO(text), rater="a")


@pytest.mark.parametrize("reader", [read_label_studio, read_prodigy])
def test_json_nested_100000_deep(reader: Any) -> None:
    text = "\n" + "[" * 100_000 + "]" * 100_000
    with pytest.raises(InputError, match=r"line 2.*nested more than 900 deep"):
        reader(io.StringIO(text))


def test_jsonl_line_with_a_line_separator_inside_a_string() -> None:
    line = json.dumps({"id": 1, "text": "a\u2028b", "label": ["x"]}, ensure_ascii=False)
    assert "\u2028" in line  # the raw character, legal inside a JSON string
    df = read_doccano(io.StringIO(line + "\n"), rater="r")
    assert df["value"].tolist() == ["x"]


@pytest.mark.parametrize("sep", ["", 0])
def test_mturk_empty_separator(sep: Any) -> None:
    with pytest.raises(InputError, match=rf"sep={sep!r} is not a separator"):
        read_mturk(io.StringIO("HITId,WorkerId,Answer.x\nH,W,a\n"), sep=sep)
    tabbed = read_mturk(io.StringIO("HITId\tWorkerId\tAnswer.x\nH\tW\ta\n"), sep=None)
    assert tabbed["value"].tolist() == ["a"]  # None: detected, as before


def test_toloka_empty_separator() -> None:
    with pytest.raises(InputError, match=r"sep='' is not a separator"):
        read_toloka(io.StringIO("task,worker,label\n1,w,a\n"), sep="")


def test_mturk_empty_multi_sep() -> None:
    with pytest.raises(InputError, match=r"multi_sep='' cannot split a cell"):
        read_mturk(io.StringIO("HITId,WorkerId,Answer.x\nH,W,a\n"), multi_sep="")


# ---- one string is one name -------------------------------------------------------------

def test_plain_string_questions_is_one_name_not_a_substring() -> None:
    tasks = [{"id": 1, "annotations": [{"completed_by": 1, "result": [
        {"from_name": n, "type": "choices", "value": {"choices": ["A"]}}
        for n in ("sentiment", "s")]}]}]
    assert read_label_studio(tasks, questions="sentiment")["label"].tolist() == ["sentiment"]
    records = [{"id": "r", "responses": {q: [{"value": "a", "user_id": "u"}]
                                         for q in ("label", "l")}}]
    assert read_argilla(records, questions="label")["label"].tolist() == ["label"]


def test_plain_string_answers_and_outputs() -> None:
    csv = "HITId,WorkerId,Answer.sentiment,Answer.s\nH1,W1,a,b\n"
    assert read_mturk(io.StringIO(csv), answers="sentiment")["label"].tolist() == ["sentiment"]
    tsv = "INPUT:x\tOUTPUT:result\tOUTPUT:r\tASSIGNMENT:worker_id\na\tcat\tdog\tw1\n"
    assert read_toloka(io.StringIO(tsv), outputs="result")["label"].tolist() == ["result"]


def test_plain_string_multiple_is_one_name() -> None:
    tasks = [{"id": 1, "annotations": [{"completed_by": 1, "result": [
        {"from_name": n, "type": "choices", "value": {"choices": ["A"]}}
        for n in ("topic", "t")]}]}]
    df = quiet(lambda: read_label_studio(tasks, multiple="topic"))
    assert df["label"].tolist() == ["topic", "t"]
    # "t" is not in "topic" as a name: only "topic" is multi-choice, its answer a label set
    assert df["value"].tolist() == [frozenset({"A"}), "A"]
