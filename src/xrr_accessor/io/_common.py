"""Shared machinery of the platform readers: reading input, collecting answers, the frame.

Every reader turns its platform's records into *answers* (item, rater, question, value)
through :class:`Collector`, which also counts what it had to leave out and builds the
canonical long frame (``item``, ``rater``, ``label``, ``value`` and, when asked for,
``replication``). Nothing here knows about a particular platform.
"""

from __future__ import annotations

import io
import math
import warnings
from collections import Counter
from collections.abc import Collection, Hashable, Iterable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

import pandas as pd

from ..errors import DroppedDataWarning, InputError
from ..schema.text import FILE_FIX, FIX, first_lone_surrogate, text_error
from .delimited import check_sep, engine_options
from .source import PathOrBuffer, first_repeat, read_text, source_name

Duplicates = Literal["error", "first", "last"]
Multiple = bool | Collection[str] | None

_DUPLICATES = ("error", "first", "last")


def read_table(src: PathOrBuffer | pd.DataFrame, platform: str, sep: str | None) -> pd.DataFrame:
    """A CSV/TSV export as strings (empty cells stay ""), or a copy of a given frame.

    ``sep=None`` takes a tab when the header line has one, else a comma. A column name
    given twice is an InputError (pandas would rename the second one silently).
    """
    check_sep(sep, platform)
    if isinstance(src, pd.DataFrame):
        _no_repeated_columns([str(c) for c in src.columns], "the frame", platform)
        return src.copy()
    text = read_text(src, platform)
    if sep is None:
        header = text.split("\n", 1)[0]
        sep = "\t" if "\t" in header else ","
    options: dict[str, Any] = {"sep": sep, "dtype": str, "keep_default_na": False,
                               "na_values": [], "skip_blank_lines": True,
                               **engine_options(sep)}
    try:
        header = pd.read_csv(io.StringIO(text), header=None, nrows=1, **options)
        _no_repeated_columns(header.iloc[0].tolist() if len(header) else [],
                             source_name(src), platform)
        return pd.read_csv(io.StringIO(text), **options)
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        if isinstance(err, InputError):
            raise
        raise InputError(
            f"{platform}: cannot read {source_name(src)} as a table separated by {sep!r}: {err}. "
            "Pass sep= if the file uses another separator."
        ) from err


def _no_repeated_columns(names: list[Any], where: str, platform: str) -> None:
    name = first_repeat(names)
    if name is not None:
        raise InputError(f"{platform}: column {name!r} appears twice in {where}; every "
                         "column needs its own name: rename or remove one of them.")


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


_INT64 = 2**63


def numbers_or_strings(values: list[str]) -> list[Any]:
    """Cells of one answer column: numbers when every cell is one, else the strings.

    Numbers only when nothing is lost: whole numbers within int64 as ints; otherwise
    floats when distinct cells stay distinct floats; a cell with ``_`` (Python would read
    ``1_0`` as 10), ``nan``/``inf``, or digits beyond what a number keeps leave the
    column as text.

    Examples
    --------
    >>> numbers_or_strings(["1", "2.0"]), numbers_or_strings(["0.5", "2"])
    ([1, 2], [0.5, 2.0])
    >>> numbers_or_strings(["12345678901234567891", "12345678901234567892"])
    ['12345678901234567891', '12345678901234567892']
    >>> numbers_or_strings(["1_0", "2"])
    ['1_0', '2']
    """
    try:
        if any("_" in v for v in values):
            return list(values)
        exact = [Decimal(v) for v in values]
    except (InvalidOperation, TypeError):
        return list(values)
    if not all(d.is_finite() for d in exact):  # "nan", "inf" are words here
        return list(values)
    if all(d == d.to_integral_value() for d in exact):
        if all(-_INT64 <= d < _INT64 for d in exact):
            return [int(d) for d in exact]
        return list(values)
    numbers = [float(v) for v in values]
    if not all(math.isfinite(n) for n in numbers) or len(set(numbers)) != len(set(exact)):
        return list(values)
    return numbers


def ident(value: Any, field: str = "id", where: str = "", platform: str = "") -> str:
    """A platform id (task, worker, user) as a string; 10 and 10.0 both give "10".

    An id must be one non-empty value: None, NaN, an empty string, a list or an object
    raise an InputError naming ``field`` and ``where`` (two records with a null id would
    otherwise become one item "None").

    Examples
    --------
    >>> ident(10.0), ident("w1")
    ('10', 'w1')
    """
    if isinstance(value, str):
        if value.strip():
            return value
    elif isinstance(value, bool | int):
        return str(value)
    elif isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else str(value)
    at = f" in {where}" if where else ""
    raise InputError(f"{platform + ': ' if platform else ''}{field} is {value!r}{at}; an id "
                     "must be one non-empty string or number. Fill it in, or remove that "
                     "record.")


def names(arg: Any, param: str, platform: str) -> frozenset[Any] | None:
    """The names given to ``questions=``/``answers=``/``multiple=``/``outputs=``: one
    string is one name (never matched as a substring), else a collection of names."""
    if arg is None:
        return None
    if isinstance(arg, str):
        return frozenset([arg])
    try:
        return frozenset(arg)
    except TypeError:
        raise InputError(f"{platform}: {param}={arg!r} is not a name or a collection of "
                         "names.") from None


def choice_list(value: Any, field: str, where: str, platform: str) -> list[Any]:
    """The choices of one answer: a list as is, one string or number as a list of one
    (never split into characters); null, objects and null choices raise an InputError."""
    if isinstance(value, str | int | float):
        value = [value]
    if not isinstance(value, list | tuple):
        raise InputError(f"{platform}: {field} is {value!r} in {where}; it should be a list "
                         "of choices. Fix or remove that record.")
    return list(value)


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
    #: The file read (for messages), when the reader knows it.
    source: str = ""
    answers: list[_Answer] = field(default_factory=list)
    offered: dict[str, dict[str, None]] = field(default_factory=dict)  # ordered sets
    dropped: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        if not isinstance(self.multiple, bool | None):
            self.multiple = names(self.multiple, "multiple", self.platform)

    def ids(self, item: Any, rater: Any, where: str,
            fields: tuple[str, str] = ("the item id", "the rater id")) -> tuple[str, str]:
        """The item and rater ids as strings, checked (see :func:`ident`)."""
        return (ident(item, fields[0], where, self.platform),
                ident(rater, fields[1], where, self.platform))

    def add(self, item: Any, rater: Any, question: str, value: Any, where: str) -> None:
        """One answer with a single value (a category, a rating, a number, a text)."""
        item, rater = self.ids(item, rater, where)
        question = ident(question, "the question name", where, self.platform)
        if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
            self.drop("empty")
            return
        if not isinstance(value, str | int | float):
            raise InputError(f"{self.platform}: the answer to {question!r} in {where} is "
                             f"{value!r}; an answer is one string or number. Fix or remove "
                             "that record.")
        self.answers.append(_Answer(item, rater, question, where, value=value))

    def add_choices(
        self, item: Any, rater: Any, question: str, chosen: Any, where: str,
        offered: Iterable[Any] = (), field: str = "the choices",
    ) -> None:
        """One answer to a choice question: the choices selected (a list; one string is
        one choice), and those on offer."""
        item, rater = self.ids(item, rater, where)
        question = ident(question, "the question name", where, self.platform)
        known = self.offered.setdefault(question, {})
        picked = [ident(c, field, where, self.platform)
                  for c in choice_list(chosen, field, where, self.platform)]
        for choice in offered:
            known.setdefault(ident(choice, "an offered choice", where, self.platform))
        for choice in picked:
            known.setdefault(choice)
        self.answers.append(_Answer(item, rater, question, where, chosen=picked))

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
                chosen = set(answer.chosen)
                for choice in self.offered[answer.question]:
                    rows.append((answer.item, answer.rater, f"{answer.question}={choice}",
                                 int(choice in chosen), answer.where))
            elif len(answer.chosen) == 1:
                rows.append((answer.item, answer.rater, answer.question, answer.chosen[0],
                             answer.where))
            else:  # a single-choice question answered with no choice
                self.drop("empty")
        rows = self._dedupe(rows, duplicates)
        self._valid_text(rows)
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

    def _valid_text(self, rows: list[tuple[str, str, str, Any, str]]) -> None:
        """An InputError naming the record and field of the first string that is not
        valid Unicode text (a lone surrogate, from a JSON escape such as "\\ud800"):
        pandas cannot hold it (:mod:`..schema.text`). One join per column."""
        fields = ("the item id", "the rater id", "the question (label)", "the answer")
        for k, field_name in enumerate(fields):
            found = first_lone_surrogate([row[k] for row in rows])
            if found is not None:
                at = rows[found[0]][4] + (f" of {self.source}" if self.source else "")
                raise text_error(f"{self.platform}: {field_name}", at, found[1],
                                 f"{FILE_FIX}; in a DataFrame, {FIX}")

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
