"""Text written for other programs, made safe to open: CSV for spreadsheets, Markdown cells.

Names in the data (labels, replications, raters) end up in exported tables.

CSV. A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as
a formula (CSV injection: ``=HYPERLINK(...)`` in a label), also when blanks,
controls or invisible format characters (a zero-width space, U+200B) come
first, as some spreadsheets strip them; and it starts a new row (or cell) at
a raw carriage return, line feed or tab, even where pandas left the field
unquoted (its ``to_csv`` quotes only fields holding its line terminator, so
``"x\\r=cmd()"`` is written bare and the spreadsheet's next row starts with the
formula). :func:`csv_cell` therefore (1) writes every control character (C0
and C1, DEL, U+2028, U+2029) as a visible escape, ``\\r``, ``\\n``, ``\\t`` or
``\\xNN`` / ``\\uNNNN``: escaping rather than quoting, as a quoted NUL or
carriage return still breaks some spreadsheets and readers; and (2) puts
``'`` in front of text whose first visible character is a formula character
(the OWASP rule), so the spreadsheet shows it as text. Numbers are left as
they are (a negative estimate stays a number, and so does text that is only
a number, such as ``"-1"``). The safe text is for people: a name holding a
literal backslash-r reads the same as one holding a carriage return, and a
name that starts with ``'`` the same as a neutralised one; machine readers
ask for the exact names (``Report.to_csv(raw=True)``, ``xrr ... --raw``).

Markdown. A table cell ends at ``|`` and at a line break, and Markdown
renders raw HTML: :func:`markdown_cell` escapes ``|`` and ``\\``, writes
``&``, ``<`` and ``>`` as entities, escapes backticks (no code span) and
``](`` (no link or image), turns line breaks into spaces and other control
characters into visible escapes. Figures: matplotlib reads text between two
``$`` as mathtext (a garbled label, or an error for ``$$``): :func:`figure_text`
escapes every ``$`` of a name drawn in a figure. A terminal table shows names
through :func:`escape_controls` (no escape sequence or carriage return reaches
the terminal); JSON is safe by construction (``json.dumps`` escapes every
control character, and with ``ensure_ascii`` U+2028 and U+2029 too).

These are used by every export of the package (:meth:`.Report.to_csv`,
:meth:`.Report.to_markdown`, the command line); :func:`writing` (and
:func:`export_text`) turn a path that cannot be written into an
:class:`~xrr_accessor.errors.InputError` naming the path and the fix.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pandas as pd

from .errors import InputError

__all__ = ["FORMULA_START", "csv_cell", "csv_safe", "escape_controls", "export_text",
           "figure_text", "json_value", "markdown_cell", "writing"]

#: First visible characters that make a spreadsheet read a cell as a formula (OWASP);
#: compared after NFKC, so the full-width forms count too.
FORMULA_START = ("=", "+", "-", "@")

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
#: Control characters (C0, DEL, C1) and the Unicode line and paragraph separators.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
_MD_BREAK = re.compile("\r\n|[\r\n\u2028\u2029\x0b\x0c\x1c-\x1e\x85]")
_MD = str.maketrans({"\\": "\\\\", "|": "\\|", "`": "\\`", "&": "&amp;", "<": "&lt;",
                     ">": "&gt;"})


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def escape_controls(value: Any) -> Any:
    """Text with every control character written as a visible escape; anything else as is.

    C0 and C1 controls, DEL, U+2028 and U+2029 become ``\\t``, ``\\n``, ``\\r``,
    ``\\xNN`` or ``\\uNNNN``, so the text holds no line break, tab, NUL or
    terminal escape sequence.

    Examples
    --------
    >>> escape_controls("a\\r=b\\x00\\u2028c"), escape_controls(1.5)
    ('a\\\\r=b\\\\x00\\\\u2028c', 1.5)
    """
    if isinstance(value, str) and _CONTROL.search(value):
        return _CONTROL.sub(_escape, value)
    return value


def _formula(text: str) -> bool:
    """Whether a spreadsheet would run ``text``: its first character that is not blank,
    a control or a format character (categories Z* and C*) is a formula character."""
    for c in text:
        if unicodedata.category(c)[0] not in "ZC":
            return unicodedata.normalize("NFKC", c)[:1] in FORMULA_START
    return False


def csv_cell(value: Any) -> Any:
    """``value`` as a spreadsheet can open it: text with no raw control character and, when
    a spreadsheet would run it, ``'`` in front; anything else as is.

    Control characters become visible escapes (:func:`escape_controls`); text whose
    first visible character (past blanks, controls and zero-width or other format
    characters) is ``=``, ``+``, ``-`` or ``@`` gets a leading ``'``, unless the text
    is a plain number.

    Examples
    --------
    >>> csv_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> csv_cell("x\\r=cmd|' /C calc'!A0")
    "x\\\\r=cmd|' /C calc'!A0"
    >>> csv_cell(" =1+2"), csv_cell("\\u200b@A1"), csv_cell("\\t-x")
    ("' =1+2", "'\\u200b@A1", "'\\\\t-x")
    >>> csv_cell("-1.5"), csv_cell(-1.5), csv_cell("joy")
    ('-1.5', -1.5, 'joy')
    """
    if not isinstance(value, str):
        return value
    if _formula(value) and not _NUMBER.fullmatch(value):
        return "'" + escape_controls(value)
    return escape_controls(value)


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells, column names and index are safe in a spreadsheet.

    Every text cell, column name, index entry and index name goes through
    :func:`csv_cell`: control characters become visible escapes, and text whose first
    visible character is ``=``, ``+``, ``-`` or ``@`` gets a leading ``'`` (unless it
    is a plain number); numeric columns are not touched. ``frame`` itself is not
    modified.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"label": ["=1+2", "a\\nb", "@SUM(A1)"], "estimate": [-0.2, 0.5, 1.0]})
    >>> csv_safe(df)
           label  estimate
    0     '=1+2      -0.2
    1       a\\nb       0.5
    2  '@SUM(A1)       1.0
    """
    out = frame.copy()
    for j in range(out.shape[1]):
        col = out.iloc[:, j]
        if col.dtype == object or pd.api.types.is_string_dtype(col.dtype) or isinstance(
                col.dtype, pd.CategoricalDtype):
            cells = [csv_cell(v) for v in col]
            if any(a is not b for a, b in zip(cells, col, strict=True)):  # else dtype kept
                out.isetitem(j, pd.Series(cells, index=col.index, dtype=object))
    out.columns = _safe_index(out.columns)
    out.index = _safe_index(out.index)
    return out


def _safe_index(index: pd.Index) -> pd.Index:
    """``index`` with its entries and names (a CSV header cell each) through :func:`csv_cell`."""
    names = [csv_cell(n) for n in index.names]
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(csv_cell(v) for v in t) for t in index],
                                         names=names)
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return pd.Index([csv_cell(v) for v in index], dtype=object, name=names[0])
    return index.rename(names[0])


def markdown_cell(text: Any) -> str:
    """``text`` as one Markdown table cell that renders as written, and never as HTML.

    ``|``, ``\\`` and backticks are escaped with ``\\`` (no extra cell, no code
    span), ``&``, ``<`` and ``>`` written as entities (no tag, comment or
    autolink), ``](`` as ``\\](`` (no link or image), line breaks as spaces and
    other control characters as visible escapes (:func:`escape_controls`).
    Emphasis characters (``*``, ``_``, ``~``) are left as they are: at worst
    they change a name's style.

    Examples
    --------
    >>> markdown_cell("a|b\\nc")
    'a\\\\|b c'
    >>> markdown_cell("<img src=x onerror=alert(1)> & `x` [y](z)")
    '&lt;img src=x onerror=alert(1)&gt; &amp; \\\\`x\\\\` [y\\\\](z)'
    """
    return escape_controls(_MD_BREAK.sub(" ", str(text).translate(_MD)).replace("](", "\\]("))


def figure_text(text: Any) -> str:
    """``text`` for a matplotlib label: every ``$`` escaped, so it is never read as mathtext,
    and control characters other than a line break written as visible escapes
    (:func:`escape_controls`: a CR or NUL has no glyph, and matplotlib warns).

    Matplotlib draws ``\\$`` as a literal ``$`` (with its default
    ``text.parse_math=True``), so the name is shown as written.

    Examples
    --------
    >>> figure_text("cost in $ and $$")
    'cost in \\\\$ and \\\\$\\\\$'
    >>> figure_text("a\\rb\\nc")
    'a\\\\rb\\nc'
    """
    lines = str(text).replace("$", "\\$").split("\n")
    return "\n".join(escape_controls(line) for line in lines)


@contextmanager
def writing(path: Any, example: str = "report.txt") -> Iterator[None]:
    """Write ``path`` inside this block: an ``OSError`` becomes an
    :class:`~xrr_accessor.errors.InputError` naming the path and the fix (the OSError
    chained), and a file the block created is removed (no half-written file).

    ``example`` is the file name suggested when ``path`` is a folder. A buffer (not a
    path) is written as is.

    Examples
    --------
    >>> import tempfile
    >>> from xrr_accessor.errors import InputError
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     try:
    ...         with writing(folder, "report.csv"):
    ...             _ = Path(folder).write_text("x")
    ...     except InputError as exc:
    ...         print(str(exc).replace(folder, "FOLDER"), type(exc.__cause__).__name__)
    cannot write FOLDER: it is a folder; give the path of a file in it, such as FOLDER/report.csv IsADirectoryError
    """  # noqa: E501
    if not isinstance(path, str | os.PathLike):
        yield
        return
    target = os.path.expanduser(os.fspath(path))  # as pandas' writers read it
    existed = os.path.lexists(target)
    try:
        yield
    except OSError as exc:
        if not existed and os.path.isfile(target):  # this block's file, half-written
            with suppress(OSError):
                os.remove(target)
        raise InputError(f"cannot write {target}: {_fix(target, exc, example)}") from exc


def export_text(path: str | os.PathLike[str] | None, text: str,
                example: str = "report.txt") -> str | None:
    """``text`` itself when ``path`` is None (as pandas' writers do); else ``text`` written
    to ``path`` (UTF-8; ``~`` is the home folder, as for pandas) through :func:`writing`,
    and None.

    A path that cannot be written raises :class:`~xrr_accessor.errors.InputError`
    naming it and the fix. The text is complete before the file is opened, so a
    failure leaves an existing file as it was (unless the disk fills while writing)
    and creates none.

    Examples
    --------
    >>> export_text(None, "a,b\\n")
    'a,b\\n'
    """
    if path is None:
        return text
    with writing(path, example):
        Path(path).expanduser().write_text(text, encoding="utf-8")
    return None

def _fix(target: str, exc: OSError, example: str) -> str:
    """Why ``target`` cannot be written, and what to do."""
    parent = os.path.dirname(os.path.abspath(target))
    if os.path.isdir(target):
        return (f"it is a folder; give the path of a file in it, such as "
                f"{os.path.join(target, example)}")
    if not os.path.isdir(parent):
        return (f"its folder {parent} does not exist (or is not a folder); create it first "
                f"(os.makedirs, mkdir -p) or give another path")
    if isinstance(exc, PermissionError):
        return (f"permission denied ({exc.strerror}); give a path in a folder you can write "
                f"to, or change the permissions of {target} or its folder")
    return f"{exc.strerror or exc}; give another path (or free space on its disk)"


def json_value(value: Any) -> Any:
    """``value`` as JSON holds it: numpy scalars as Python numbers, NaN and infinities
    (and ``pd.NA``) as null, mappings and sequences element by element, anything
    else as its text.

    Examples
    --------
    >>> import numpy as np
    >>> json_value({"n": np.int64(3), "x": float("nan"), 1: [np.float64(0.5), None]})
    {'n': 3, 'x': None, '1': [0.5, None]}
    """
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if value is pd.NA:
        return None
    return str(value)
