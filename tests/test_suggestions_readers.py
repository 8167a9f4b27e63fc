"""Every suggestion in a reader's message works (issue 34): the exports of labeling
platforms, delimited files and count tables, read wrongly, and each suggestion of the
message followed on the same input (see tests/test_suggestions_work.py)."""

from __future__ import annotations

import io

import pandas as pd
import pytest
import suggestion_data as sd
from suggestion_runner import Case, check

from xrr_accessor import io as xio
from xrr_accessor.errors import DroppedDataWarning, InputError
from xrr_accessor.io.counts import from_counts

CASES: list[Case] = [
    Case("prodigy-without-annotator", xio.read_prodigy, lambda: io.StringIO(
        '{"text": "t", "label": "SPORTS", "answer": "accept", "_input_hash": 1}\n'), {},
         InputError, "the annotator", fill={"rater": "text"},
         skip={"session=name": "a Prodigy server option, not this call's"}),
    Case("doccano-without-annotator", xio.read_doccano, lambda: io.StringIO(
        '{"id": 1, "text": "t", "label": ["pos"]}\n'), {}, InputError, "names no annotator",
         fill={"rater": "ann"}),
    Case("mturk-without-hit-id", xio.read_mturk, lambda: pd.DataFrame(
        {"Task": ["t1", "t1"], "WorkerId": ["a", "b"], "Answer.x": [1, 2]}), {}, InputError,
         "is missing", fill={"item": "Task", "rater": "WorkerId"}),
    Case("file-without-item-column", xio.read_annotations, lambda: sd.csv_file(
        "stimulus,rater,joy\n1,a,2\n1,b,3\n"), {}, InputError, "no item column",
         fill={"item": "stimulus"}),
    Case("prodigy-without-item", xio.read_prodigy, lambda: io.StringIO(
        '{"text": "t", "label": "SPORTS", "answer": "accept", "_annotator_id": "a"}\n'),
         {"item": "_task_hash"}, InputError, "the item id"),
    Case("counts-written-as-text", from_counts, lambda: pd.DataFrame(
        {"item": [1, 2], "yes": ["3", "1"], "no": ["0", "2"]}), {}, InputError,
         "no numeric columns", fill={"categories": ["yes", "no"]}),
    Case("counts-beside-a-note", from_counts, lambda: pd.DataFrame(
        {"item": [1, 2], "yes": [3, 1], "no": [0, 2], "note": ["a", "b"]}), {},
         DroppedDataWarning, "not counts", fill={"categories": ["yes", "no"]}),
    Case("mturk-answer-twice", xio.read_mturk, lambda: pd.DataFrame(
        {"HITId": ["h", "h"], "WorkerId": ["a", "a"], "Answer.x": [1, 2]}), {}, InputError,
         "more than once"),
    Case("toloka-without-task-id", xio.read_toloka, lambda: pd.DataFrame(
        {"ASSIGNMENT:worker_id": ["a", "b"], "INPUT:text": ["t", "u"], "INPUT:url": ["x", "y"],
         "OUTPUT:result": [1, 2]}), {}, InputError, "cannot tell the item",
         fill={"item": "INPUT:text"}),
    Case("csv-read-as-one-column", xio.read_annotations, lambda: sd.csv_file(
        "item;rater;joy\n1;a;2\n1;b;3\n"), {"sep": ","}, InputError, "read as one column",
         skip={"sep='\\t'": "the other example; this file is separated by ';'"}),
    Case("sep-not-a-pattern", xio.read_annotations, lambda: sd.csv_file(
        "item;rater;joy\n1;a;2\n1;b;3\n"), {"sep": "ab("}, InputError, "regular expression",
         skip={"sep='ab\\\\('": "escapes the text given; this file is separated by ';'"}),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_every_suggestion_of_a_readers_message_runs_without_an_error_or_the_same_warning(
        case: Case) -> None:
    check(case)
