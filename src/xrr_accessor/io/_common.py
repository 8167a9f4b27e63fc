"""Shared machinery of the platform readers: reading input, collecting answers, the frame.

Every reader turns its platform's records into *answers* (item, rater, question, value)
through :class:`Collector`, which also counts what it had to leave out and builds the
canonical long frame (``item``, ``rater``, ``label``, ``value`` and, when asked for,
``replication``). Nothing here knows about a particular platform.
"""

from __future__ import annotations

import io
import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal, cast

import pandas as pd

from ..errors import DroppedDataWarning, InputError

PathOrBuffer = str | os.PathLike[str] | IO[str] | IO[bytes]
Duplicates = Literal["error", "first", "last"]
Multiple = bool | Collection[str] | None

_DUPLICATES = ("error", "first", "last")


def source_name(src: Any) -> str:
    """A short name for messages: the file name, or the kind of object given."""
    if isinstance(src, str | os.PathLike):
        return Path(src).name
    name = getattr(src, "name", None)
    return Path(name).name if isinstance(name, str) else f"<{type(src).__name__}>"


def read_bytes(src: PathOrBuffer, platform: str) -> bytes:
    """Read a path or an open file (text or binary) without closing the caller's buffer."""
    if isinstance(src, str | os.PathLike):
        path = Path(src)
        if not path.is_file():
            raise InputError(
                f"{platform}: no file at {str(path)!r}; pass the path of the exported file "
                "or an open file object."
            )
        return path.read_bytes()
    read = getattr(src, "read", None)
    if read is None:
        raise InputError(
            f"{platform}: cannot read an object of type {type(src).__name__}; pass a path "
            "(str or pathlib.Path) or an open file object."
        )
    data = read()
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def decode(data: bytes, name: str, platform: str) -> str:
    """UTF-8 text (a leading byte-order mark is dropped), or an InputError naming the file."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(
            f"{platform}: {name} is not UTF-8 text (byte {err.start}); export it again as "
            "UTF-8 or pass an open text file with the right encoding."
        ) from err


def read_text(src: PathOrBuffer, platform: str) -> str:
    """The whole input as text."""
    return decode(read_bytes(src, platform), source_name(src), platform)


def parse_json(text: str, name: str, platform: str, fix: str) -> Any:
    """One JSON document; malformed JSON names the line and column."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"{platform}: malformed JSON in {name} on line {err.lineno}, column {err.colno}: "
            f"{err.msg}. {fix}"
        ) from err


def json_records(src: PathOrBuffer | Sequence[Any], platform: str, fix: str) -> list[Any]:
    """The records of a JSON export: a list given as is, else the parsed document as a list."""
    if isinstance(src, list | tuple):
        return list(src)
    path = cast(PathOrBuffer, src)  # a list or tuple of records returned above
    data = parse_json(read_text(path, platform), source_name(path), platform, fix)
    return data if isinstance(data, list) else [data]


def parse_jsonl(text: str, name: str, platform: str) -> Iterator[tuple[int, Any]]:
    """(line number, object) for every non-blank line of a JSON Lines text."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(
                f"{platform}: malformed JSON on line {number} of {name} (column {err.colno}): "
                f"{err.msg}. Each line of a JSONL export must be one JSON object; fix or "
                "remove that line."
            ) from err


def read_table(src: PathOrBuffer | pd.DataFrame, platform: str, sep: str | None) -> pd.DataFrame:
    """A CSV/TSV export as strings (empty cells stay ""), or a copy of a given frame.

    ``sep=None`` takes a tab when the header line has one, else a comma.
    """
    if isinstance(src, pd.DataFrame):
        return src.copy()
    text = read_text(src, platform)
    if sep is None:
        header = text.split("\n", 1)[0]
        sep = "\t" if "\t" in header else ","
    try:
        return pd.read_csv(
            io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, na_values=[],
            skip_blank_lines=True,
        )
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise InputError(
            f"{platform}: cannot read {source_name(src)} as a table separated by {sep!r}: {err}. "
            "Pass sep= if the file uses another separator."
        ) from err


def require_columns(df: pd.DataFrame, columns: Iterable[str], platform: str, fix: str) -> None:
    """An InputError naming the first missing column and the columns there are."""
    for column in columns:
        if column not in df.columns:
            shown = ", ".join(repr(c) for c in list(df.columns)[:12])
            more = ", ..." if len(df.columns) > 12 else ""
            raise InputError(
                f"{platform}: required column {column!r} is missing (columns: {shown}{more}). "
                f"{fix}"
            )


def numbers_or_strings(values: list[str]) -> list[Any]:
    """Cells of one answer column: numbers when every cell is one, else the strings."""
    try:
        numbers = [float(v) for v in values]
    except ValueError:
        return list(values)
    if not all(math.isfinite(n) for n in numbers):  # "nan", "inf" are words here
        return list(values)
    if all(n.is_integer() for n in numbers):
        return [int(n) for n in numbers]
    return numbers


def ident(value: Any) -> str:
    """A platform id (task, worker, user) as a string; 10 and 10.0 both give "10"."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def check_duplicates_option(duplicates: str) -> None:
    if duplicates not in _DUPLICATES:
        raise InputError(
            f"duplicates={duplicates!r} is not one of {', '.join(map(repr, _DUPLICATES))}."
        )


@dataclass
class _Answer:
    item: str
    rater: str
    question: str
    where: str
    value: Any = None
    chosen: list[str] | None = None  # a choice question: the choices selected


@dataclass
class Collector:
    """Answers of one export, what was left out of it, and the frame they make.

    Parameters
    ----------
    platform
        The reader's name, used in messages (``"read_prodigy"``).
    multiple
        Which choice questions are multi-choice: ``True`` all, ``False`` none, a
        collection of question names, or ``None`` (those where some answer in the
        file selects more than one choice).
    """

    platform: str
    multiple: Multiple = None
    answers: list[_Answer] = field(default_factory=list)
    offered: dict[str, list[str]] = field(default_factory=dict)
    dropped: Counter[str] = field(default_factory=Counter)

    def add(self, item: Any, rater: Any, question: str, value: Any, where: str) -> None:
        """One answer with a single value (a category, a rating, a number, a text)."""
        if value is None or (isinstance(value, str) and value == ""):
            self.drop("empty")
            return
        self.answers.append(_Answer(ident(item), ident(rater), question, where, value=value))

    def add_choices(
        self, item: Any, rater: Any, question: str, chosen: Iterable[Any], where: str,
        offered: Iterable[Any] = (),
    ) -> None:
        """One answer to a choice question: the choices selected, and those on offer."""
        known = self.offered.setdefault(question, [])
        picked = [ident(c) for c in chosen]
        for choice in [*(ident(c) for c in offered), *picked]:
            if choice not in known:
                known.append(choice)
        self.answers.append(_Answer(ident(item), ident(rater), question, where, chosen=picked))

    def drop(self, reason: str, n: int = 1) -> None:
        """Count ``n`` records left out for ``reason`` (nothing when ``n`` is 0)."""
        if n > 0:
            self.dropped[reason] += n

    def _is_multiple(self, question: str, widest: dict[str, int]) -> bool:
        if self.multiple is None:
            return widest.get(question, 0) > 1
        if isinstance(self.multiple, bool):
            return self.multiple
        return question in self.multiple

    def frame(
        self, replication: Hashable | None, duplicates: str, fix: str, stacklevel: int = 3,
    ) -> pd.DataFrame:
        """The canonical long frame; warns once about everything that was left out."""
        check_duplicates_option(duplicates)
        widest: dict[str, int] = {}
        for answer in self.answers:
            if answer.chosen is not None:
                widest[answer.question] = max(widest.get(answer.question, 0), len(answer.chosen))
        rows: list[tuple[str, str, str, Any, str]] = []
        for answer in self.answers:
            if answer.chosen is None:
                rows.append((answer.item, answer.rater, answer.question, answer.value,
                             answer.where))
            elif self._is_multiple(answer.question, widest):
                for choice in self.offered[answer.question]:
                    rows.append((answer.item, answer.rater, f"{answer.question}={choice}",
                                 int(choice in answer.chosen), answer.where))
            elif len(answer.chosen) == 1:
                rows.append((answer.item, answer.rater, answer.question, answer.chosen[0],
                             answer.where))
            else:  # a single-choice question answered with no choice
                self.drop("empty")
        rows = self._dedupe(rows, duplicates)
        if not rows:
            left = _describe(self.dropped)
            raise InputError(
                f"{self.platform}: no completed annotations found"
                + (f" ({left} left out)" if left else "")
                + f". {fix}"
            )
        data: dict[str, list[Any]] = {
            "item": [r[0] for r in rows],
            "rater": [r[1] for r in rows],
            "label": [r[2] for r in rows],
            "value": [r[3] for r in rows],
        }
        if replication is not None:
            data["replication"] = [replication] * len(rows)
        df = pd.DataFrame(data)
        df.attrs["dropped"] = dict(self.dropped)
        df.attrs["platform"] = self.platform
        if self.dropped:
            warnings.warn(
                DroppedDataWarning(
                    f"{self.platform}: left out {_describe(self.dropped)}; the counts are in "
                    "df.attrs['dropped']."
                ),
                stacklevel=stacklevel,
            )
        return df

    def _dedupe(
        self, rows: list[tuple[str, str, str, Any, str]], duplicates: str,
    ) -> list[tuple[str, str, str, Any, str]]:
        seen: dict[tuple[str, str, str], int] = {}
        keep: list[tuple[str, str, str, Any, str] | None] = []
        for row in rows:
            key = (row[0], row[1], row[2])
            if key not in seen:
                seen[key] = len(keep)
                keep.append(row)
                continue
            first = keep[seen[key]]
            if duplicates == "error":
                assert first is not None
                raise InputError(
                    f"{self.platform}: rater {row[1]!r} answered {row[2]!r} on item {row[0]!r} "
                    f"more than once ({first[4]} and {row[4]}). Pass duplicates='first' or "
                    "duplicates='last' to keep one of them, or remove the extra annotation "
                    "from the export."
                )
            self.drop("duplicate")
            if duplicates == "last":
                keep[seen[key]] = None
                seen[key] = len(keep)
                keep.append(row)
        return [row for row in keep if row is not None]


def _describe(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in counts.items() if n)
