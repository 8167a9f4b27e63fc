"""Reader of Prodigy's JSONL export (``prodigy db-out``): :func:`read_prodigy`.

Part of :mod:`xrr_accessor.io` (see :mod:`.platforms` for what the JSON readers share).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import pandas as pd

from ..errors import InputError
from ._common import Collector, Duplicates, Multiple, ident
from .source import PathOrBuffer, parse_jsonl, read_text, source_name

__all__ = ["read_prodigy"]

_PRODIGY = "read_prodigy"
_PRODIGY_FIX = "Export the dataset with `prodigy db-out <dataset>` (one JSON task per line)."
_ANSWERS = ("accept", "reject", "ignore")


def read_prodigy(
    path_or_buffer: PathOrBuffer,
    *,
    replication: Hashable | None = None,
    question: str = "accept",
    multiple: Multiple = None,
    item: str = "_input_hash",
    rater: str | None = None,
    duplicates: Duplicates = "error",
) -> pd.DataFrame:
    """Read a Prodigy JSONL export (``prodigy db-out``) of choice or text-classification tasks.

    Every line is one annotated task with an ``"answer"`` of ``"accept"``, ``"reject"``
    or ``"ignore"``. ``item`` is the task's ``"_input_hash"`` (the same input seen by
    several annotators), ``rater`` its ``"_annotator_id"`` (else ``"_session_id"``).

    * Choice tasks (``"options"`` with ``"id"`` s, the selected ids in ``"accept"``,
      as written by the ``choice`` interface and ``textcat.manual``; a single id
      instead of the list, ``"accept": "AB"``, is one choice, never split): only
      ``answer == "accept"`` tasks are kept; ``reject`` and ``ignore`` are counted and
      reported. The label is ``question`` (default ``"accept"``, the field's name) and
      the value the selected option id. A multi-choice task (``choice_style`` multiple)
      gives one binary label per option, ``f"{question}={option id}"``, 1 if selected else
      0, for every option the file's tasks offer; an accepted task with nothing
      selected is then all zeros (on a single-choice task it is counted as empty).
    * Binary classification tasks (a ``"label"`` and no ``"options"``, as in
      ``textcat.teach``): the label is the task's ``"label"`` and the value 1 for
      ``accept``, 0 for ``reject`` (the annotator's answer that the label does not
      apply); ``ignore`` is counted and reported.

    Parameters
    ----------
    path_or_buffer
        Path or open file of the JSONL export.
    replication
        When given, a constant ``replication`` column is added.
    question
        The label given to choice tasks, which carry no question name.
    multiple
        ``True``/``False``, or ``None``: multi-choice when some accepted task selects more
        than one option (a multi-choice task where every annotator picked one option
        reads as single-choice unless ``multiple=True``).
    item, rater
        The fields naming the item (default ``"_input_hash"``) and the annotator
        (default ``"_annotator_id"``, falling back to ``"_session_id"``).
    duplicates
        ``"error"``, ``"first"`` or ``"last"``: what to do when one annotator answered
        one question on one input twice.

    Returns
    -------
    pandas.DataFrame
        The canonical long frame; ``df.attrs["dropped"]`` counts rejected and ignored
        tasks (also reported in a DroppedDataWarning).

    Raises
    ------
    InputError
        Malformed JSON or a line without ``"answer"`` (line number), an unknown answer,
        a task with neither ``"options"`` nor ``"label"`` (e.g. spans), ``"options"``
        that is not a list, or a missing, null (``NaN``), empty or non-scalar item or
        annotator field.

    Notes
    -----
    Format: https://prodi.gy/docs/api-interfaces (the ``"answer"`` key, the ``choice``
    and ``classification`` interfaces) and https://prodi.gy/docs/api-web-app
    (named multi-user sessions). The docs found do not spell out ``"_annotator_id"``;
    it is what ``db-out`` writes next to ``"_session_id"`` in multi-user setups.

    Examples
    --------
    >>> import io, warnings
    >>> lines = (
    ...     '{"text": "a", "label": "SPORTS", "answer": "accept", "_input_hash": 11,'
    ...     ' "_annotator_id": "news-ann"}\\n'
    ...     '{"text": "a", "label": "SPORTS", "answer": "reject", "_input_hash": 11,'
    ...     ' "_annotator_id": "news-bob"}\\n'
    ...     '{"text": "b", "label": "SPORTS", "answer": "ignore", "_input_hash": 12,'
    ...     ' "_annotator_id": "news-bob"}\\n')
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     df = read_prodigy(io.StringIO(lines))
    >>> df
      item     rater   label  value
    0   11  news-ann  SPORTS      1
    1   11  news-bob  SPORTS      0
    >>> df.attrs["dropped"]
    {'ignore': 1}
    """
    text = read_text(path_or_buffer, _PRODIGY)
    name = source_name(path_or_buffer)
    out = Collector(_PRODIGY, multiple, source=name)
    for line, task in parse_jsonl(text, name, _PRODIGY):
        where = f"line {line}"
        if not isinstance(task, dict):
            raise InputError(f"{_PRODIGY}: {where} of {name} is not a JSON object. "
                             f"{_PRODIGY_FIX}")
        if "answer" not in task:
            raise InputError(
                f"{_PRODIGY}: {where} of {name} has no 'answer' field, so it was never "
                f"annotated. Export annotated tasks only: {_PRODIGY_FIX}"
            )
        answer = task["answer"]
        if answer not in _ANSWERS:
            raise InputError(f"{_PRODIGY}: {where} has answer {answer!r}; Prodigy writes one "
                             f"of {', '.join(_ANSWERS)}. {_PRODIGY_FIX}")
        binary = "options" not in task
        if answer == "ignore" or (answer == "reject" and not binary):
            out.drop(answer)
            continue
        who = _prodigy_rater(task, rater, where)
        if item not in task:
            raise InputError(f"{_PRODIGY}: {where} has no {item!r} field (the item id); pass "
                             f"item= naming another field, e.g. item='text'. {_PRODIGY_FIX}")
        fields = (f"the item ({item!r})", "the annotator")
        if not binary:
            options = task["options"]
            if not isinstance(options, list):
                raise InputError(f"{_PRODIGY}: {where} has 'options' {options!r}, not a list "
                                 f"of {{'id': ..., 'text': ...}}. {_PRODIGY_FIX}")
            ids = [option.get("id") if isinstance(option, dict) else None for option in options]
            if None in ids:
                raise InputError(f"{_PRODIGY}: {where} has an option without 'id'; choice "
                                 f"options are {{'id': ..., 'text': ...}}. {_PRODIGY_FIX}")
            chosen = task.get("accept")
            out.add_choices(*out.ids(task[item], who, where, fields), question,
                            [] if chosen is None else chosen, where, ids, field="'accept'")
        elif "label" in task:
            label = ident(task["label"], "'label'", where, _PRODIGY)
            out.add(*out.ids(task[item], who, where, fields), label,
                    int(answer == "accept"), where)
        else:
            raise InputError(
                f"{_PRODIGY}: {where} has neither 'options' (a choice task) nor 'label' (a "
                "binary classification task); other task types (spans, relations, text "
                "input) are not supported."
            )
    return out.frame(replication, duplicates, _PRODIGY_FIX)


def _prodigy_rater(task: dict[str, Any], rater: str | None, where: str) -> Any:
    fields = [rater] if rater is not None else ["_annotator_id", "_session_id"]
    for name in fields:
        if task.get(name) is not None:
            return task[name]
    raise InputError(
        f"{_PRODIGY}: {where} has no {' or '.join(map(repr, fields))} field (the annotator); "
        "annotate with named sessions (?session=name) or pass rater= naming the field."
    )
