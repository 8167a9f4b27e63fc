"""Reader of doccano's text-classification export (per-user zip or JSONL): :func:`read_doccano`.

Part of :mod:`xrr_accessor.io` (see :mod:`.platforms` for what the JSON readers share).
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Hashable
from pathlib import PurePosixPath

import pandas as pd

from ..errors import InputError
from ._common import Collector, Duplicates, Multiple
from .source import PathOrBuffer, decode, parse_jsonl, read_bytes, source_name

__all__ = ["read_doccano"]

_DOCCANO = "read_doccano"
_DOCCANO_FIX = ("Export the project as JSONL with 'collaborative annotation' off: doccano "
                "then writes a zip with one <username>.jsonl per annotator.")


def read_doccano(
    path_or_buffer: PathOrBuffer,
    *,
    replication: Hashable | None = None,
    rater: str | None = None,
    question: str = "label",
    multiple: Multiple = None,
    duplicates: Duplicates = "error",
) -> pd.DataFrame:
    """Read a doccano text-classification export: a zip of per-user JSONL files, or one JSONL.

    Every JSONL line is one example with its ``"label"`` list (``{"id": 1, "text":
    "...", "label": ["positive"]}``). ``item`` is the example's ``"id"`` (older exports:
    ``"doc_id"``). The annotator is the file's name inside the zip (doccano writes
    ``<username>.jsonl`` per project member when collaborative annotation is off); for a
    single JSONL it is the ``rater=`` argument when given, else the line's ``"username"``
    or ``"user"`` field (older exports). An example the annotator did
    not label (``"label": []``) is counted as empty.

    Parameters
    ----------
    path_or_buffer
        Path or open file (text or binary) of the ``.zip`` or the ``.jsonl``.
    replication
        When given, a constant ``replication`` column is added.
    rater
        The annotator of a single-user JSONL without a user field.
    question
        The field holding the labels (default ``"label"``), also used as the label name.
    multiple
        ``True``/``False`` or ``None``: multi-label when some example has more than one
        label; a multi-label project gives one binary label per category,
        ``f"{question}={category}"``, 1 if chosen else 0, for every category used in the
        file (set-valued annotations will come later).
    duplicates
        ``"error"``, ``"first"`` or ``"last"``.

    Returns
    -------
    pandas.DataFrame
        The canonical long frame; ``df.attrs["dropped"]`` counts empty examples.

    Raises
    ------
    InputError
        Malformed JSON (file and line), a line without ``"id"``, no annotator, span labels
        (sequence labeling, ``[start, end, label]``), or nothing annotated.

    Notes
    -----
    Format: https://doccano.github.io/doccano/tutorial/ (export, older ``"username"``
    field) and the export format examples shown by doccano for text classification. The
    docs do not describe the per-user zip in prose; reading it by file name follows what
    doccano writes. A collaborative export (``all.jsonl``) merges the annotators' labels
    and cannot give agreement.

    Examples
    --------
    >>> import io
    >>> ann = '{"id": 1, "text": "Great price.", "label": ["positive"]}\\n'
    >>> read_doccano(io.StringIO(ann), rater="ann")
      item rater  label     value
    0    1   ann  label  positive
    """
    data = read_bytes(path_or_buffer, _DOCCANO, unzip=False)
    name = source_name(path_or_buffer)
    out = Collector(_DOCCANO, multiple)
    if data[:2] == b"PK":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [m for m in archive.namelist()
                           if m.endswith((".jsonl", ".json")) and not m.endswith("/")]
                texts = [(m, archive.read(m)) for m in members]
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError,
                zlib.error) as exc:
            raise InputError(f"{_DOCCANO}: {name} is a zip file that cannot be read "
                             f"(truncated or corrupt: {exc}). {_DOCCANO_FIX}") from exc
        if not texts:
            raise InputError(f"{_DOCCANO}: {name} holds no .jsonl file. {_DOCCANO_FIX}")
        for member, raw in texts:
            _doccano_lines(out, decode(raw, member, _DOCCANO), f"{name}/{member}",
                           PurePosixPath(member).stem, question)
    else:
        _doccano_lines(out, decode(data, name, _DOCCANO), name, rater, question)
    return out.frame(replication, duplicates, _DOCCANO_FIX)


def _doccano_lines(out: Collector, text: str, name: str, rater: str | None,
                   question: str) -> None:
    for line, record in parse_jsonl(text, name, _DOCCANO):
        where = f"{name} line {line}"
        if not isinstance(record, dict):
            raise InputError(f"{_DOCCANO}: {where} is not a JSON object. {_DOCCANO_FIX}")
        item = record.get("id", record.get("doc_id"))
        if item is None:
            raise InputError(f"{_DOCCANO}: {where} has no 'id' field. {_DOCCANO_FIX}")
        who = rater if rater is not None else record.get("username", record.get("user"))
        if who is None:
            raise InputError(f"{_DOCCANO}: {where} names no annotator; pass rater= for a "
                             f"single annotator's file, or read the zip. {_DOCCANO_FIX}")
        labels = record.get(question)
        if labels is None or labels == []:
            out.drop("empty")
            continue
        if isinstance(labels, list) and any(isinstance(x, list | dict) for x in labels):
            raise InputError(f"{_DOCCANO}: {where} has span labels in {question!r} (sequence "
                             "labeling); only text classification exports are supported.")
        out.add_choices(*out.ids(item, who, where, ("'id'", "the annotator")), question,
                        labels, where, field=repr(question))
