"""Text written for other programs, made safe to open: CSV for spreadsheets, Markdown cells.

Names in the data (labels, replications, raters) end up in exported tables.
A spreadsheet runs a CSV cell that starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return as a formula (CSV injection: ``=HYPERLINK(...)``
in a label); :func:`csv_safe` prefixes such text cells with ``'`` (the OWASP
rule), so the spreadsheet shows them as text. Numbers are left as they are
(a negative estimate stays a number, and so does text that is only a
number, such as ``"-1"``). A Markdown table cell ends at ``|`` and at a line
break, so a name could add columns or rows: :func:`markdown_cell` escapes
``|`` (and ``\\``) and turns line breaks into spaces. Matplotlib reads text
between two ``$`` as mathtext (a garbled label, or an error for ``$$``):
:func:`figure_text` escapes every ``$`` of a name drawn in a figure.

Both are used by every export of the package (:meth:`.Report.to_csv`,
:meth:`.Report.to_markdown`, the command line); machine readers that want
the raw text ask for it (``Report.to_csv(raw=True)``).
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

__all__ = ["FORMULA_START", "csv_cell", "csv_safe", "figure_text", "json_value", "markdown_cell"]

#: First characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def csv_cell(value: Any) -> Any:
    """``value`` with ``'`` in front when a spreadsheet would run it; anything else as is.

    Examples
    --------
    >>> csv_cell("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> csv_cell("-1.5"), csv_cell(-1.5), csv_cell("joy")
    ('-1.5', -1.5, 'joy')
    """
    if (isinstance(value, str) and value.startswith(FORMULA_START)
            and not _NUMBER.fullmatch(value)):
        return "'" + value
    return value


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells, column names and index are safe in a spreadsheet.

    Text that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return gets a leading ``'`` (unless it is a plain number); numeric columns
    are not touched. ``frame`` itself is not modified.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"label": ["=1+2", "joy", "@SUM(A1)"], "estimate": [-0.2, 0.5, 1.0]})
    >>> csv_safe(df)
           label  estimate
    0     '=1+2      -0.2
    1        joy       0.5
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
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples([tuple(csv_cell(v) for v in t) for t in index],
                                         names=index.names)
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return pd.Index([csv_cell(v) for v in index], dtype=object, name=index.name)
    return index


def markdown_cell(text: Any) -> str:
    """``text`` as one Markdown table cell: ``|`` and ``\\`` escaped, line breaks as spaces.

    Examples
    --------
    >>> markdown_cell("a|b\\nc")
    'a\\\\|b c'
    """
    s = str(text).replace("\\", "\\\\").replace("|", "\\|")
    return re.sub(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]", " ", s)


def figure_text(text: Any) -> str:
    """``text`` for a matplotlib label: every ``$`` escaped, so it is never read as mathtext.

    Matplotlib draws ``\\$`` as a literal ``$`` (with its default
    ``text.parse_math=True``), so the name is shown as written.

    Examples
    --------
    >>> figure_text("cost in $ and $$")
    'cost in \\\\$ and \\\\$\\\\$'
    """
    return str(text).replace("$", "\\$")


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
