"""Readers for the table exports: Amazon Mechanical Turk batch results and Toloka results.

Each reader returns the canonical long frame: columns ``item``, ``rater``, ``label``
(the question), ``value`` (the answer) and, when ``replication=`` is given, a constant
``replication`` column, one row per (item, rater, label), platform ids kept as strings.
Every cell is read as text; an answer column whose every non-empty cell is a number is
read as numbers when nothing is lost (see :func:`._common.numbers_or_strings`: ``1_0``
and integers beyond int64 stay text). Rejected assignments and empty answers are counted in
``df.attrs["dropped"]`` and reported in one :class:`~xrr_accessor.errors.DroppedDataWarning`.
A missing required column raises :class:`~xrr_accessor.errors.InputError` naming it.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable

import pandas as pd

from ..errors import InputError
from ._common import (
    Collector,
    Duplicates,
    Multiple,
    names,
    numbers_or_strings,
    read_table,
    require_columns,
)
from .source import PathOrBuffer

__all__ = ["read_mturk", "read_toloka"]

_MTURK = "read_mturk"
_MTURK_FIX = ("Download the batch results from the requester site (Manage > Results > "
              "Download CSV) and pass that file.")


def read_mturk(
    path_or_buffer: PathOrBuffer | pd.DataFrame,
    *,
    replication: Hashable | None = None,
    item: str = "HITId",
    rater: str = "WorkerId",
    answers: Collection[str] | None = None,
    sep: str = ",",
    multi_sep: str | None = None,
    multiple: Multiple = None,
    duplicates: Duplicates = "error",
) -> pd.DataFrame:
    """Read an Amazon Mechanical Turk batch results CSV (one row per assignment).

    ``item`` is the ``HITId`` (or another column, e.g. an ``Input.<name>`` id column),
    ``rater`` the ``WorkerId``, and every ``Answer.<name>`` column is a question:
    ``label`` is ``<name>`` (the text after ``Answer.``, verbatim), ``value`` the cell.
    Assignments whose ``AssignmentStatus`` is ``Rejected`` are left out and counted;
    ``Submitted`` and ``Approved`` ones are kept. Empty answer cells are counted as
    empty. ``Input.*`` columns are the HIT's data and are not read as answers.

    Parameters
    ----------
    path_or_buffer
        Path or open file of the CSV, or a DataFrame read from it (not modified).
    replication
        When given, a constant ``replication`` column is added.
    item, rater
        The columns naming the item (default ``"HITId"``) and the worker (``"WorkerId"``).
    answers
        Keep only these question names (the part after ``Answer.``); one string is one
        name.
    sep
        The field separator (a comma in the downloaded file).
    multi_sep
        When given, cells are split on it and each answer column is a choice question
        (for checkbox groups whose selections share one cell). The separator MTurk uses
        is not documented in the pages found, so nothing is split by default.
    multiple
        With ``multi_sep``: ``True``/``False``/question names, or ``None`` (multi-choice
        when some cell holds more than one selection). A multi-choice question gives one
        binary label per choice, ``f"{name}={choice}"``, 1 if selected else 0, for every
        choice seen in the column (set-valued annotations will come later).
    duplicates
        ``"error"``, ``"first"`` or ``"last"`` when a worker answered one HIT twice.

    Returns
    -------
    pandas.DataFrame
        The canonical long frame; ``df.attrs["dropped"]`` counts rejected assignments and
        empty answers.

    Raises
    ------
    InputError
        The item or worker column is missing, there is no ``Answer.*`` column, or no
        answer is left.

    Notes
    -----
    Format: https://docs.aws.amazon.com/AWSMechTurk/latest/RequesterUI/ReviewingResultsOutsideoftheRUI.html
    (the downloaded results CSV) and
    https://docs.aws.amazon.com/AWSMechTurk/latest/AWSMechanicalTurkRequester/RetrievingResults.html
    (``HITId``, ``WorkerId``, ``AssignmentStatus``). The ``Input.``/``Answer.`` column
    prefixes are what the download holds; the pages found do not spell them out. Answers
    stored as one JSON cell (``Answer.taskAnswers`` of crowd HTML elements) are read as
    that text, not expanded; ``crowd-classifier`` columns keep their suffix
    (``Answer.sentiment.label`` gives the label ``sentiment.label``).

    Examples
    --------
    >>> import io
    >>> csv = ('HITId,WorkerId,AssignmentStatus,Input.text,Answer.sentiment\\n'
    ...        'H1,W1,Approved,great,positive\\n'
    ...        'H1,W2,Submitted,great,negative\\n')
    >>> read_mturk(io.StringIO(csv))
      item rater      label     value
    0   H1    W1  sentiment  positive
    1   H1    W2  sentiment  negative
    """
    if multi_sep is not None and (not isinstance(multi_sep, str) or not multi_sep.strip()):
        raise InputError(f"{_MTURK}: multi_sep={multi_sep!r} cannot split a cell; pass the "
                         "character between selections (e.g. multi_sep='|'), or None.")
    answers = names(answers, "answers", _MTURK)
    df = read_table(path_or_buffer, _MTURK, sep)
    require_columns(df, [item, rater], _MTURK, f"Pass item=/rater= naming the columns. "
                    f"{_MTURK_FIX}")
    columns = [str(c) for c in df.columns if str(c).startswith("Answer.")
               and (answers is None or str(c)[len("Answer."):] in answers)]
    if not columns:
        raise InputError(f"{_MTURK}: no 'Answer.<name>' column{' selected' if answers else ''} "
                         f"in the results. {_MTURK_FIX}")
    out = Collector(_MTURK, multiple)
    keep = [True] * len(df)
    if "AssignmentStatus" in df.columns:
        rejected = (df["AssignmentStatus"].astype(str).str.strip() == "Rejected").tolist()
        out.drop("rejected", sum(rejected))
        keep = [not r for r in rejected]
    pairs = [(c, c[len("Answer."):]) for c in columns]
    _answer_columns(out, df, keep, item, rater, pairs, multi_sep)
    return out.frame(replication, duplicates, _MTURK_FIX)


def _answer_columns(
    out: Collector, df: pd.DataFrame, keep: list[bool], item: str, rater: str,
    columns: list[tuple[str, str]], multi_sep: str | None,
) -> None:
    """Add every non-empty cell of ``columns`` (column, question) in the kept rows to ``out``.

    Messages name data rows counted from 1 (the header is not counted).
    """
    rows = [r for r in range(len(df)) if keep[r]]
    names = [column for column, _ in columns]
    text = {}
    for c in {item, rater, *names}:
        cells = df[c].tolist()
        text[c] = [_cell(cells[r], c, r) for r in rows]
    values = {}
    for column in names:
        present = [v for v in text[column] if v != ""]
        converted = iter(numbers_or_strings(present) if multi_sep is None else present)
        values[column] = [next(converted) if v != "" else None for v in text[column]]
    for k, r in enumerate(rows):
        if all(text[c][k] == "" for c in text):
            continue  # a blank separator row
        if text[item][k] == "" or text[rater][k] == "":
            out.drop("no item or rater id")
            continue
        where = f"data row {r + 1}"
        for column, question in columns:
            value = values[column][k]
            if value is None:
                out.drop("empty")
            elif multi_sep is not None:
                chosen = [c.strip() for c in str(value).split(multi_sep) if c.strip()]
                out.add_choices(text[item][k], text[rater][k], question, chosen, where)
            else:
                out.add(text[item][k], text[rater][k], question, value, where)


def _cell(value: object, column: str, row: int) -> str:
    """A cell as stripped text; missing cells are ""; 3.0 gives "3"."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list | tuple | dict | set) or not pd.api.types.is_scalar(value):
        raise InputError(f"column {column!r} holds {value!r} on data row {row + 1}; a cell is "
                         "one string or number.")
    if value is None or pd.isna(value):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


_TOLOKA = "read_toloka"
_TOLOKA_FIX = ("Download the results from the pool page (Download results) and pass the TSV, "
               "or pass a crowd-kit frame with columns task, worker, label.")
_TOLOKA_DROP = {"REJECTED": "rejected", "SKIPPED": "skipped", "EXPIRED": "expired"}


def read_toloka(
    path_or_buffer: PathOrBuffer | pd.DataFrame,
    *,
    replication: Hashable | None = None,
    item: str | None = None,
    rater: str | None = None,
    outputs: Collection[str] | None = None,
    question: str = "label",
    sep: str | None = None,
    duplicates: Duplicates = "error",
) -> pd.DataFrame:
    """Read Toloka results (the pool's TSV download) or a crowd-kit ``task, worker, label`` table.

    Toloka layout: every ``OUTPUT:<name>`` column is a question (``label = <name>``,
    ``value`` the Toloker's response); ``rater`` is ``ASSIGNMENT:worker_id``; ``item`` is
    ``ASSIGNMENT:task_id`` when the file has it, else the single ``INPUT:<name>`` column
    (the task's input data), else the column named by ``item=``. Assignments whose
    ``ASSIGNMENT:status`` is ``REJECTED`` (or ``SKIPPED``, ``EXPIRED``) are left out and
    counted; ``SUBMITTED`` and ``APPROVED`` ones are kept. Control tasks (``GOLDEN:``
    filled) are Tolokers' responses like any other and are kept.

    crowd-kit layout (columns ``task``, ``worker``, ``label``; older crowd-kit:
    ``performer``): ``item = task``, ``rater = worker``, ``value = label``, and the
    label column of the result is ``question`` (default ``"label"``).

    Parameters
    ----------
    path_or_buffer
        Path or open file of the TSV (or CSV), or a DataFrame (not modified).
    replication
        When given, a constant ``replication`` column is added.
    item, rater
        Override the item and rater columns.
    outputs
        Toloka layout: keep only these output names (the part after ``OUTPUT:``); one
        string is one name.
    question
        crowd-kit layout: the label name of its single question.
    sep
        The separator; by default a tab when the header line has one, else a comma.
    duplicates
        ``"error"``, ``"first"`` or ``"last"``.

    Returns
    -------
    pandas.DataFrame
        The canonical long frame; ``df.attrs["dropped"]`` counts rejected assignments and
        empty responses.

    Raises
    ------
    InputError
        Neither layout's columns are there, the worker or item column is missing, the
        item is ambiguous (several ``INPUT:`` columns and no ``ASSIGNMENT:task_id``), or
        no response is left.

    Notes
    -----
    Format: https://toloka.ai/docs/guide/result-of-eval (the results file: ``INPUT:``,
    ``OUTPUT:``, ``GOLDEN:``, ``HINT:``, ``ASSIGNMENT:worker_id``, ``ASSIGNMENT:status``);
    https://github.com/Toloka/crowd-kit (``task``, ``worker``, ``label``). That page does
    not list ``ASSIGNMENT:task_id``; Toloka-Kit's assignment tables have it, and it is
    used when present. Structured outputs (JSON in a cell, e.g. checkbox groups) are
    read as that text.

    Examples
    --------
    >>> import io
    >>> tsv = ('INPUT:image\\tOUTPUT:result\\tASSIGNMENT:worker_id\\tASSIGNMENT:status\\n'
    ...        'a.png\\tcat\\tw1\\tAPPROVED\\n'
    ...        'a.png\\tdog\\tw2\\tSUBMITTED\\n')
    >>> read_toloka(io.StringIO(tsv))
        item rater   label value
    0  a.png    w1  result   cat
    1  a.png    w2  result   dog
    """
    outputs = names(outputs, "outputs", _TOLOKA)
    df = read_table(path_or_buffer, _TOLOKA, sep)
    columns = [str(c) for c in df.columns]
    out_columns = [c for c in columns if c.startswith("OUTPUT:")
                   and (outputs is None or c[len("OUTPUT:"):] in outputs)]
    if any(c.startswith("OUTPUT:") for c in columns):
        if not out_columns:
            raise InputError(f"{_TOLOKA}: no OUTPUT: column selected by outputs={outputs!r}.")
        rater = rater or "ASSIGNMENT:worker_id"
        item = item or _toloka_item(columns)
        require_columns(df, [rater, item], _TOLOKA, _TOLOKA_FIX)
        out = Collector(_TOLOKA)
        keep = [True] * len(df)
        if "ASSIGNMENT:status" in df.columns:
            status = df["ASSIGNMENT:status"].astype(str).str.strip().str.upper().tolist()
            for code, reason in _TOLOKA_DROP.items():
                out.drop(reason, status.count(code))
            keep = [s not in _TOLOKA_DROP for s in status]
        pairs = [(c, c[len("OUTPUT:"):]) for c in out_columns]
        _answer_columns(out, df, keep, item, rater, pairs, None)
        return out.frame(replication, duplicates, _TOLOKA_FIX)
    worker = "worker" if "worker" in columns or "performer" not in columns else "performer"
    if "task" not in columns or "label" not in columns or worker not in columns:
        raise InputError(f"{_TOLOKA}: found neither Toloka 'OUTPUT:' columns nor crowd-kit "
                         f"columns task, worker, label (columns: {columns[:12]}). {_TOLOKA_FIX}")
    item, rater = item or "task", rater or worker
    require_columns(df, [item, rater], _TOLOKA, _TOLOKA_FIX)
    out = Collector(_TOLOKA)
    _answer_columns(out, df, [True] * len(df), item, rater, [("label", question)], None)
    return out.frame(replication, duplicates, _TOLOKA_FIX)


def _toloka_item(columns: list[str]) -> str:
    if "ASSIGNMENT:task_id" in columns:
        return "ASSIGNMENT:task_id"
    inputs = [c for c in columns if c.startswith("INPUT:")]
    if len(inputs) == 1:
        return inputs[0]
    raise InputError(
        f"{_TOLOKA}: cannot tell the item: no 'ASSIGNMENT:task_id' column and "
        f"{len(inputs)} INPUT: columns ({inputs[:6]}). Pass item= naming the column that "
        "identifies a task."
    )
