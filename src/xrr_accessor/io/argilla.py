"""Reader of Argilla's records with their responses (v2 and v1): :func:`read_argilla`.

Part of :mod:`xrr_accessor.io` (see :mod:`.platforms` for what the JSON readers share).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from typing import Any

import pandas as pd

from ..errors import InputError
from ._common import Collector, Duplicates, Multiple, names
from .source import PathOrBuffer, json_records, source_name

__all__ = ["read_argilla"]

_ARGILLA = "read_argilla"
_ARGILLA_FIX = ("Export with `dataset.records.to_json(path)` or pass "
                "`dataset.records.to_list(flatten=False)`.")
_ARGILLA_KEEP = ("submitted", None)


def read_argilla(
    path_or_buffer: PathOrBuffer | Sequence[dict[str, Any]],
    *,
    replication: Hashable | None = None,
    questions: Collection[str] | None = None,
    multiple: Multiple = None,
    duplicates: Duplicates = "error",
) -> pd.DataFrame:
    """Read Argilla records with their responses (v2 ``records.to_json``/``to_list``, or v1).

    Each record gives ``item`` = its ``"id"`` (v1: ``"external_id"``; else
    ``"_server_id"``). Responses come in either documented layout:

    * v2: ``"responses": {question: [{"value": ..., "user_id": ...}, ...]}``;
    * v1 (``FeedbackRecord``): ``"responses": [{"user_id": ..., "values": {question:
      {"value": ...}}, "status": ...}]``.

    ``rater`` is the response's ``user_id``, ``label`` the question name, ``value`` the
    response value: a label (``LabelQuestion``), a rating (``RatingQuestion``), a text
    (``TextQuestion``), or, for a ``MultiLabelQuestion``, a list of labels that becomes
    one binary label per label, ``f"{question}={label}"``, 1 if chosen else 0, for every
    label the question shows in the file (set-valued annotations will come later).
    Responses with status ``"discarded"`` or ``"draft"`` are left out and counted; a
    response without a status is taken as submitted.

    Parameters
    ----------
    path_or_buffer
        Path or open file of the JSON list of records, or that list itself (it is not
        modified).
    replication
        When given, a constant ``replication`` column is added.
    questions
        Keep only these question names (one string is one name).
    multiple
        ``True``/``False``/question names, or ``None``: a question is multi-label when a
        response selects more than one label.
    duplicates
        ``"error"``, ``"first"`` or ``"last"``.

    Returns
    -------
    pandas.DataFrame
        The canonical long frame; ``df.attrs["dropped"]`` counts discarded, draft and
        unsupported responses (``RankingQuestion`` and ``SpanQuestion`` values, which the
        frame cannot represent).

    Raises
    ------
    InputError
        Malformed JSON, a record without an id, a response without ``user_id``, a
        flattened export (``to_list(flatten=True)`` loses the users), or no response.

    Notes
    -----
    Format: https://docs.argilla.io/latest/how_to_guides/import_export and
    https://docs.argilla.io/latest/reference/argilla/records/responses (v2);
    https://docs.argilla.io/en/latest/practical_guides/create_update_dataset/suggestions_and_responses.html
    (v1). The v2 guide shows the export calls but not the on-disk layout of responses;
    the layout read here is the record dictionary (question -> list of user responses)
    that the reference describes.

    Examples
    --------
    >>> records = [
    ...     {"id": "r1", "fields": {"text": "hi"}, "responses": {
    ...         "label": [{"value": "positive", "user_id": "u1"},
    ...                   {"value": "negative", "user_id": "u2"}]}},
    ...     {"id": "r2", "fields": {"text": "yo"}, "responses": {
    ...         "label": [{"value": "positive", "user_id": "u1"}]}}]
    >>> read_argilla(records)
      item rater  label     value
    0   r1    u1  label  positive
    1   r1    u2  label  negative
    2   r2    u1  label  positive
    """
    records = json_records(path_or_buffer, _ARGILLA, _ARGILLA_FIX)
    out = Collector(_ARGILLA, multiple, source="" if isinstance(path_or_buffer, list | tuple)
                    else source_name(path_or_buffer))
    questions = names(questions, "questions", _ARGILLA)
    for r, record in enumerate(records):
        if not isinstance(record, dict):
            raise InputError(f"{_ARGILLA}: record {r} is not an object. {_ARGILLA_FIX}")
        if "responses" not in record and any(".responses" in str(k) for k in record):
            raise InputError(f"{_ARGILLA}: record {r} is flattened (keys like "
                             f"'<question>.responses'), which drops the user ids. {_ARGILLA_FIX}")
        item = next((record[k] for k in ("id", "external_id", "_server_id")
                     if record.get(k) is not None), None)
        if item is None:
            raise InputError(f"{_ARGILLA}: record {r} has no 'id' (nor 'external_id', "
                             f"'_server_id'). {_ARGILLA_FIX}")
        for question, response in _argilla_responses(record.get("responses"), r):
            if questions is not None and question not in questions:
                continue
            where = f"record {r}, question {question!r}"
            status = response.get("status")
            if status not in _ARGILLA_KEEP:
                out.drop(str(status))
                continue
            if response.get("user_id") is None:
                raise InputError(f"{_ARGILLA}: {where} has a response without 'user_id'. "
                                 f"{_ARGILLA_FIX}")
            ids = out.ids(item, response["user_id"], where,
                          (f"record {r}'s id", "a response's 'user_id'"))
            _argilla_value(out, *ids, question, response.get("value"), where)
    return out.frame(replication, duplicates, _ARGILLA_FIX)


def _argilla_responses(responses: Any, r: int) -> list[tuple[str, dict[str, Any]]]:
    if not responses:
        return []
    if isinstance(responses, dict):  # v2: question -> [response, ...], listed user by user
        pairs = []
        for q, listed in responses.items():
            for resp in _objects(listed or [], f"record {r}'s responses to {q!r}",
                                 "a list of {'value': ..., 'user_id': ...}"):
                pairs.append((q, dict(resp)))
        users: dict[str, int] = {}
        for _, resp in pairs:
            users.setdefault(str(resp.get("user_id")), len(users))
        return sorted(pairs, key=lambda pair: users[str(pair[1].get("user_id"))])
    if isinstance(responses, list):  # v1: [{user_id, values: {q: {value}}, status}, ...]
        out = []
        for resp in _objects(responses, f"record {r}'s responses",
                             "a list of {'user_id': ..., 'values': {...}}"):
            values = resp.get("values") or {}
            if not isinstance(values, dict):
                raise InputError(f"{_ARGILLA}: record {r} has a response whose 'values' is "
                                 f"{values!r}, not an object. {_ARGILLA_FIX}")
            for q, v in values.items():
                if not isinstance(v, dict | None):
                    raise InputError(f"{_ARGILLA}: record {r}'s response to {q!r} is {v!r}, "
                                     f"not {{'value': ...}}. {_ARGILLA_FIX}")
                out.append((q, {"value": (v or {}).get("value"), "user_id": resp.get("user_id"),
                                "status": resp.get("status")}))
        return out
    raise InputError(f"{_ARGILLA}: record {r} has 'responses' of type "
                     f"{type(responses).__name__}. {_ARGILLA_FIX}")


def _objects(listed: Any, what: str, shape: str) -> list[dict[str, Any]]:
    if not isinstance(listed, list) or not all(isinstance(x, dict) for x in listed):
        raise InputError(f"{_ARGILLA}: {what} are {listed!r}; Argilla writes {shape}. "
                         f"{_ARGILLA_FIX}")
    return listed


def _argilla_value(out: Collector, item: Any, user: Any, question: str, value: Any,
                   where: str) -> None:
    if isinstance(value, list) and all(isinstance(v, str | int) for v in value):
        out.add_choices(item, user, question, value, where)
    elif isinstance(value, list | dict):
        first = value[0] if isinstance(value, list) and isinstance(value[0], dict) else {}
        kind = "ranking" if "rank" in first else "span" if "start" in first else "unsupported"
        out.drop(f"{kind} responses")
    else:
        out.add(item, user, question, value, where)
