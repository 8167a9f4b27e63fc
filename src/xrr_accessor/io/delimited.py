"""Delimited text tables (CSV, TSV), plain or compressed, for :func:`.tables.read_file`."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError
from ..schema.roles import ROLE_ALIASES, norm
from .source import compression_of, decompress, first_repeat

__all__ = ["DELIMITERS", "check_sep", "engine_options", "read_delimited"]

#: The delimiters tried when sniffing.
DELIMITERS = ",\t;|"


def check_sep(sep: Any, who: str = "") -> None:
    """Refuse a delimiter pandas would fail on, before anything is read.

    As in pandas, ``sep`` of one character is that character, ``"\\s+"`` any
    whitespace, and a longer one a regular expression (read by pandas' python
    engine): one that does not compile is an InputError naming it, the regex error and
    the fix. ``None`` (sniff the delimiter) passes.

    Examples
    --------
    >>> check_sep(";"), check_sep("::"), check_sep(None)
    (None, None, None)
    >>> check_sep("((")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: sep='((' is longer than one character, so it is read ...
    """
    at = f"{who}: " if who else ""
    if sep is None:
        return
    if not isinstance(sep, str) or sep == "":
        raise InputError(f"{at}sep={sep!r} is not a separator; pass the character between "
                         "fields (e.g. sep=',' or sep='\\t'), or None to detect it.")
    if len(sep) == 1 or sep == r"\s+":
        return
    try:
        re.compile(sep)
    except re.error as exc:
        raise InputError(
            f"{at}sep={sep!r} is longer than one character, so it is read as a regular "
            f"expression (as pandas does), and it is not one: {exc}. Pass the one character "
            f"between fields (e.g. sep=';'), or escape the text: sep={re.escape(sep)!r} "
            "(re.escape)."
        ) from None


def engine_options(sep: str) -> dict[str, Any]:
    """pandas' python engine for a regular-expression delimiter (the C engine reads one
    character, or whitespace), named so that pandas does not warn it falls back to it.

    Examples
    --------
    >>> engine_options(","), engine_options("::"), engine_options(r"\\s+")
    ({}, {'engine': 'python'}, {})
    """
    return {"engine": "python"} if len(sep) > 1 and sep != r"\s+" else {}


def _sniff(head: str) -> str:
    """The delimiter of a text table, from its first lines (``,`` if unsure)."""
    try:
        return csv.Sniffer().sniff(head, delimiters=DELIMITERS).delimiter
    except csv.Error:
        return ","


def _raw(path: Path) -> Path | io.BytesIO:
    """The path itself when the file is plain, else its decompressed bytes."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(16)
        if compression_of(head, path.name) is None:
            return path
        return io.BytesIO(decompress(path.read_bytes(), path.name, "read_annotations"))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc}") from exc


def _head(src: Path | io.BytesIO, lines: int = 20) -> str:
    if isinstance(src, io.BytesIO):
        text = src.getvalue()[:1 << 16].decode("utf-8", errors="replace")
        return "".join(text.splitlines(keepends=True)[:lines])
    with open(src, encoding="utf-8", errors="replace", newline="") as fh:
        return "".join(line for _, line in zip(range(lines), fh, strict=False))


def _rewound(src: Path | io.BytesIO) -> Path | io.BytesIO:
    if isinstance(src, io.BytesIO):
        src.seek(0)
    return src


def _header(src: Path | io.BytesIO, sep: str) -> list[str]:
    """The header's names as written (pandas would rename a repeated one ``joy.1``)."""
    first = pd.read_csv(_rewound(src), sep=sep, header=None, nrows=1, dtype=str,
                        keep_default_na=False, **engine_options(sep))
    return [str(c) for c in first.iloc[0].tolist()] if len(first) else []


def read_delimited(path: Path, fmt: str, sep: str | None, ids: list[str]) -> pd.DataFrame:
    """A CSV (``fmt="csv"``, delimiter ``sep`` or sniffed) or TSV file, decompressed when
    compressed, the columns of ``ids`` (names, or the roles ``"item"``, ``"rater"``,
    ``"replication"`` for columns called so) as text; a repeated header name is an
    InputError naming it and the file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("item;rater;joy\\n007;a;1\\n")
    >>> read_delimited(p, "csv", None, ["item"])["item"].tolist()
    ['007']
    """
    check_sep(sep)
    src = _raw(path)
    if sep is None:
        sep = "\t" if fmt == "tsv" else _sniff(_head(src))
    try:
        header = _header(src, sep)
        column = first_repeat(header)
        if column is not None:
            raise InputError(f"{path}: column {column!r} appears twice in the header; "
                             "every column needs its own name: rename or remove one")
        roles = {r for r in ids if r in ("item", "rater", "replication")}
        text = {c: str for c in header
                if c in ids or any(norm(c) in ROLE_ALIASES[r] for r in roles)}
        df = pd.read_csv(_rewound(src), sep=sep, dtype=text or None, **engine_options(sep))
    except pd.errors.EmptyDataError:
        raise InputError(f"{path} is empty: no header line and no annotations") from None
    except InputError:
        raise
    except (ValueError, OSError, UnicodeError, pd.errors.ParserError) as exc:
        raise InputError(f"cannot read {path} as a table with sep={sep!r}: {exc}") from exc
    if df.shape[1] == 1 and any(d in str(df.columns[0]) for d in DELIMITERS if d != sep):
        raise InputError(f"{path} was read as one column ({str(df.columns[0])[:40]!r}); "
                         "give its delimiter with sep= (e.g. sep=';' or sep='\\t')")
    return df
