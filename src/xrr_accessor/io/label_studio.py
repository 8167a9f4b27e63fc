"""Reader of Label Studio's JSON export: :func:`read_label_studio`.

Part of :mod:`xrr_accessor.io` (see :mod:`.platforms` for what the JSON readers share).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from ..errors import InputError
from ._common import Collector, Duplicates, Multiple, names
from .source import PathOrBuffer, json_records

__all__ = ["read_label_studio"]

_LS = "read_label_studio"
_LS_FIX = "Export the project from Label Studio as 'JSON' (the list of tasks with annotations)."
# result type -> key of its answer inside result["value"]
_LS_SCALAR = {"rating": "rating", "number": "number", "textarea": "text"}


def read_label_studio(
    path_or_buffer: PathOrBuffer | Sequence[dict[str, Any]],
    *,
    replication: Hashable | None = None,
    questions: Collection[str] | None = None,
    multiple: Multiple = None,
    duplicates: Duplicates = "error",
) -> pd.DataFrame:
    """Read a Label Studio JSON export (a list of tasks with their annotations).

    Each task gives ``item = task["id"]``; each of its ``annotations`` gives
    ``rater = annotation["completed_by"]`` (a user id; when an export holds a user
    object there, its ``"id"``); each entry of the annotation's ``result`` gives
    ``label = result["from_name"]`` (the control tag's name) and a value by ``type``:
    ``choices`` -> ``value["choices"]``, ``rating`` -> ``value["rating"]``,
    ``number`` -> ``value["number"]``, ``textarea`` -> ``value["text"]`` (several texts
    joined by newlines). A single string where the choices list belongs
    (``{"choices": "Pos"}``) is one choice, never split into letters. Model
    ``predictions`` are not raters and are ignored.

    Parameters
    ----------
    path_or_buffer
        Path or open file of the JSON export, or the list of task dicts itself
        (it is not modified).
    replication
        When given, a constant ``replication`` column with this value is added, so two
        exports can be concatenated as two replications.
    questions
        Keep only these ``from_name`` values (default: every supported one); one string
        is one name.
    multiple
        Which ``choices`` questions are multi-choice: ``True``, ``False``, a collection
        of ``from_name`` values, or ``None`` (those where some annotation selects more than
        one choice). The export holds no labeling config, so a multi-choice question
        whose annotators all picked one choice reads as single-choice unless named here.
        An answer to a multi-choice question is one row whose value is the set of its
        choices.
    duplicates
        ``"error"`` (default) when one rater answered one question twice on one task,
        else ``"first"`` or ``"last"`` to keep one answer (the others are counted).

    Returns
    -------
    pandas.DataFrame
        Columns ``item``, ``rater``, ``label``, ``value`` (and ``replication``): one row
        per answer. The answer to a multi-choice question is a label set: its ``value``
        is the ``frozenset`` of the choices selected (read with ``level="masi"`` or
        ``level="jaccard"`` for partial credit, ``"nominal"`` for identical sets only;
        ``df["value"].map(lambda s: "x" in s)`` on that label's rows is choice ``"x"``
        as 0/1), so the frame has as many rows as answers, whatever the number of
        choices; a multi-choice answer that selects nothing is counted as empty.
        ``df.attrs["dropped"]`` counts what was left out: cancelled annotations
        (``was_cancelled``), empty ones, and results of other types (regions such as
        ``labels``/``rectanglelabels``, ``taxonomy``, per-region choices), which the
        frame cannot represent.

    Raises
    ------
    InputError
        Malformed JSON (line and column), a task without ``"id"`` or with a null, empty
        or non-scalar one, an annotation without ``"completed_by"`` (or a user object
        without ``"id"`` or ``"email"``; task and annotation index), null choices
        (``"choices": null`` or ``[null]``), a ``JSON_MIN`` or ``CSV`` flavour
        (their documented form carries no task id or annotator), or no completed
        annotation at all.

    Notes
    -----
    Format: https://labelstud.io/guide/task_format and https://labelstud.io/guide/export.
    The ``JSON_MIN`` flavour is not read: its documented example has neither task id nor
    annotator, so items and raters cannot be told apart from data fields.

    Examples
    --------
    >>> import io
    >>> export = '''[{"id": 7, "data": {"text": "hi"}, "annotations": [
    ...   {"completed_by": 1, "was_cancelled": false, "result": [
    ...     {"from_name": "sentiment", "to_name": "text", "type": "choices",
    ...      "value": {"choices": ["Positive"]}}]},
    ...   {"completed_by": 2, "was_cancelled": false, "result": [
    ...     {"from_name": "sentiment", "to_name": "text", "type": "choices",
    ...      "value": {"choices": ["Negative"]}}]}]}]'''
    >>> read_label_studio(io.StringIO(export))
      item rater      label     value
    0    7     1  sentiment  Positive
    1    7     2  sentiment  Negative

    A multi-choice answer is one row, its choices a set:

    >>> topics = [{"id": 7, "annotations": [{"completed_by": 1, "result": [
    ...     {"from_name": "topics", "type": "choices",
    ...      "value": {"choices": ["Sports", "Arts"]}}]}]}]
    >>> df = read_label_studio(topics)
    >>> len(df), sorted(df["value"][0])
    (1, ['Arts', 'Sports'])
    """
    tasks = json_records(path_or_buffer, _LS, _LS_FIX)
    out = _Sets(_LS, multiple)
    questions = names(questions, "questions", _LS)
    for t, task in enumerate(tasks):
        if not isinstance(task, dict):
            raise InputError(f"{_LS}: task {t} is a {type(task).__name__}, not an object. "
                             f"{_LS_FIX}")
        if "annotations" not in task:
            raise InputError(
                f"{_LS}: task {t} has no 'annotations' field (keys: {sorted(task)[:8]}); "
                f"this looks like the JSON_MIN or CSV flavour, which carries no annotator. "
                f"{_LS_FIX}"
            )
        if "id" not in task:
            raise InputError(f"{_LS}: task {t} has no 'id' field. {_LS_FIX}")
        annotations = task["annotations"] or []
        if not isinstance(annotations, list):
            raise InputError(f"{_LS}: task {t} has 'annotations' of type "
                             f"{type(annotations).__name__}, not a list. {_LS_FIX}")
        for a, annotation in enumerate(annotations):
            where = f"task {t}, annotation {a}"
            if not isinstance(annotation, dict):
                raise InputError(f"{_LS}: {where} is not an object. {_LS_FIX}")
            if annotation.get("was_cancelled"):
                out.drop("cancelled")
                continue
            if annotation.get("completed_by") is None:
                raise InputError(f"{_LS}: {where} has no 'completed_by' field (the annotator). "
                                 f"{_LS_FIX}")
            rater = annotation["completed_by"]
            if isinstance(rater, dict):  # a user object: its id (else its e-mail)
                rater = rater.get("id") if rater.get("id") is not None else rater.get("email")
            ids = out.ids(task["id"], rater, where,
                          (f"task {t}'s 'id'", f"the user ('completed_by') of {where}"))
            result = annotation.get("result") or []
            if not isinstance(result, list):
                raise InputError(f"{_LS}: {where} has 'result' of type "
                                 f"{type(result).__name__}, not a list. {_LS_FIX}")
            if not result:
                out.drop("empty")
            for r, entry in enumerate(result):
                if not isinstance(entry, dict):
                    raise InputError(f"{_LS}: result {r} of {where} is {entry!r}, not an "
                                     f"object. {_LS_FIX}")
                _ls_result(out, *ids, entry, questions, f"{where}, result {r}")
    return out.frame(replication, duplicates, _LS_FIX)


class _Sets(Collector):
    """The answers of an export, a multi-choice answer one row whose value is the
    ``frozenset`` of its choices (a label-set cell, :mod:`..schema.setcells`): O(answers)
    rows, where one 0/1 row per choice seen made answers x choices."""

    def frame(self, replication: Hashable | None, duplicates: str, fix: str,
              stacklevel: int = 3) -> pd.DataFrame:
        widest: dict[str, int] = {}
        for answer in self.answers:
            if answer.chosen is not None:
                widest[answer.question] = max(widest.get(answer.question, 0),
                                              len(answer.chosen))
        kept = []
        for answer in self.answers:
            if answer.chosen is not None and self._is_multiple(answer.question, widest):
                if not answer.chosen:  # no label set is empty: as a single-choice answer
                    self.drop("empty")
                    continue
                answer = replace(answer, value=frozenset(answer.chosen), chosen=None)
            kept.append(answer)
        self.answers = kept
        return super().frame(replication, duplicates, fix, stacklevel + 1)


def _ls_result(
    out: Collector, item: Any, rater: Any, entry: dict[str, Any],
    questions: Collection[str] | None, where: str,
) -> None:
    kind, question = entry.get("type"), entry.get("from_name")
    if not isinstance(question, str) or not question:
        raise InputError(f"{_LS}: {where} has no 'from_name' (the question's name; found "
                         f"{question!r}). {_LS_FIX}")
    if not isinstance(kind, str):
        raise InputError(f"{_LS}: {where} has 'type' {kind!r}, not the name of a result type "
                         f"(choices, rating, ...). {_LS_FIX}")
    if questions is not None and question not in questions:
        return
    value = entry.get("value") or {}
    if not isinstance(value, dict):
        raise InputError(f"{_LS}: {where} has 'value' {value!r}, not an object. {_LS_FIX}")
    if kind == "choices" and set(value) == {"choices"}:
        out.add_choices(item, rater, question, value["choices"], where,
                        field="value['choices']")
    elif kind in _LS_SCALAR and _LS_SCALAR[kind] in value:
        answer = value[_LS_SCALAR[kind]]
        if kind == "textarea":
            answer = "\n".join(map(str, answer)) if isinstance(answer, list) else answer
        out.add(item, rater, question, answer, where)
    elif kind == "choices":
        out.drop("per-region choices")
    else:
        out.drop(f"{kind} results")
