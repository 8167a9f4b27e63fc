"""What the ``xrr`` command prints: one schema of records, written in four formats.

Every statistic command (``irr``, ``cross-kappa``, ``agreement``, ``report``'s
csv and json) prints one record per label x statistic x replication (or
pair): :data:`KEYS` name the cell, then the estimate and, with ``--ci``, its
interval (:data:`INTERVAL`, ``method`` saying how it was computed), then
the counts the API gives (``n_items`` first). The diagnostics (``raters``,
``items``) print one record per label x replication x rater (or item).
Each format has one writer (:func:`write_table`, :func:`write_markdown`,
:func:`write_csv`, :func:`write_json`); table and markdown show the same
rounded text (:func:`cell_text`). ``report`` and ``demo`` in table, markdown and json
print the sections of the report's page (:mod:`.report_text`). Names from the
data go through :mod:`~xrr_accessor.textsafe`: csv by ``csv_safe``, markdown by
``markdown_cell``, the table with its control characters as visible escapes (no
terminal escape sequence or carriage return is printed), json by ``json.dumps``
(which escapes every control character).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd

from ..textsafe import csv_safe, escape_controls, json_value, markdown_cell

__all__ = ["COUNTS", "FORMATS", "INTERVAL", "KEYS", "SCREEN", "cell_text", "records", "render",
           "schema", "write_csv", "write_json", "write_markdown", "write_table"]

FORMATS = ("table", "csv", "json", "markdown", "html")

#: Rows of each label and replication that ``xrr raters`` and ``xrr items`` show on a
#: terminal in table or markdown format, unless ``--top`` says otherwise.
SCREEN = 20

#: Columns naming a record's cell.
KEYS = ("label", "statistic", "replication", "replication_other")
#: The estimate and, with ``--ci``, its interval and how it was computed.
INTERVAL = ("estimate", "se", "lower", "upper", "p_value", "method")
#: Counts, in this order when present (others follow as the API gives them).
COUNTS = ("n_items", "n_unpairable", "n_dropped", "n_values", "n_annotations")

#: p-values below this print as ``<0.001`` in table and markdown (json keeps the number).
P_FLOOR = 0.001


def _stack(obj: pd.Series | pd.DataFrame) -> pd.Series:
    if isinstance(obj, pd.DataFrame):
        return obj.stack(list(range(obj.columns.nlevels)), future_stack=True)
    return obj


def _by_form(result: Any) -> bool:
    """Whether ``result`` has an axis of ICC forms (``form="all"``): a column per form
    (a row per cell), or one cell's Series over the forms."""
    axis = result.columns if isinstance(result, pd.DataFrame) else result.index
    return result.attrs.get("form") == "all" and axis.name == "form"


def _form_counts(result: Any, value: Any) -> pd.Series:
    """A count of ``form="all"``, kept per cell as the result of one form keeps it (a
    number for one cell; by label, or a {replication: {label: n}} dict), one value per
    (cell, form) of the stacked result: every form of a cell has the same count.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame([[0.5, 0.75]], columns=pd.Index(["ICC1", "ICC1k"], name="form"),
    ...                  index=pd.MultiIndex.from_tuples([("joy", "A")],
    ...                                                  names=["label", "replication"]))
    >>> r.attrs = {"form": "all", "n_items": {"A": {"joy": 12}}}
    >>> _form_counts(r, r.attrs["n_items"]).tolist()
    [12, 12]
    """
    stacked = _stack(result)
    if not isinstance(value, dict):  # one cell: the Series over the forms
        return pd.Series(value, index=stacked.index)
    nested = any(isinstance(v, dict) for v in value.values())
    per_cell = _stack(pd.DataFrame(value)) if nested else pd.Series(value)
    cells = stacked.index.droplevel("form")
    return pd.Series(per_cell.reindex(cells).to_numpy(), index=stacked.index)


def _counts(result: Any) -> dict[str, pd.Series]:
    """The counts an unlabeled-table result keeps in ``attrs`` (dicts shaped like it;
    with ``form="all"``, shaped like its cells: :func:`_form_counts`)."""
    out = {}
    forms = _by_form(result)
    for key, value in result.attrs.items():
        if not key.startswith("n_"):
            continue
        one_cell = isinstance(result, pd.Series) and isinstance(value, int | np.integer)
        if forms and (isinstance(value, dict) or one_cell):
            out[key] = _form_counts(result, value)
            continue
        if not isinstance(value, dict):
            continue
        if isinstance(result, pd.DataFrame):
            shaped = pd.DataFrame(value).reindex(index=result.index, columns=result.columns)
        else:
            shaped = pd.Series(value).reindex(result.index)
        out[key] = _stack(shaped)
    return out


def records(result: Any, statistic: str, label: str, cell: str = "replication") -> pd.DataFrame:
    """A result of :func:`~xrr_accessor.irr` or :func:`~xrr_accessor.cross_kappa`
    (a number, a Series, a label x cell table, or a table with intervals) as one
    record per label and cell, in the command's schema.

    ``label`` names the label when the result has none (one label);
    ``cell`` the index level of a Series without labels.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"A": [0.5], "B": [0.25]}, index=pd.Index(["joy"], name="label"))
    >>> r.columns.name = "replication"
    >>> r.attrs["n_items"] = {"A": {"joy": 10}, "B": {"joy": 12}}
    >>> records(r, "alpha", "joy")[["label", "replication", "estimate", "n_items"]]
      label replication  estimate  n_items
    0   joy           A      0.50       10
    1   joy           B      0.25       12
    """
    if isinstance(result, float | int | np.floating):
        frame = pd.DataFrame({"estimate": [float(result)]})
    elif isinstance(result, pd.Series) and "estimate" in result.index:  # one cell, with ci
        frame = result.to_frame().T.reset_index(drop=True)
        for key, value in result.attrs.items():
            if key.startswith("n_") and isinstance(value, int | np.integer):
                frame[key] = value
    elif isinstance(result, pd.DataFrame) and "estimate" in result.columns:
        frame = result.reset_index()
        if result.index.name == "form" and result.attrs.get("form") == "all":
            for key, value in result.attrs.items():  # one cell's forms: counts in attrs
                if key.startswith("n_") and isinstance(value, int | np.integer):
                    frame[key] = value
    else:
        stacked = _stack(result)
        frame = stacked.rename("estimate").to_frame()
        for key, values in _counts(result).items():
            frame[key] = values
        if frame.index.nlevels == 1 and frame.index.name is None:
            frame = frame.rename_axis("label" if isinstance(result, pd.DataFrame)
                                      or cell == "label" else cell)
        frame = frame.reset_index()
    frame = frame.rename(columns={"metric": "statistic"})
    if "index" in frame.columns:
        frame = frame.drop(columns="index")
    if "label" not in frame.columns:
        frame.insert(0, "label", label)
    if "statistic" not in frame.columns:
        frame["statistic"] = statistic
    return frame


def schema(frame: pd.DataFrame, method: str | None) -> pd.DataFrame:
    """``frame``'s columns in the command's order: :data:`KEYS`, :data:`INTERVAL`
    (``se`` to ``method`` only when ``method`` is given: an interval was asked
    for; ``p_value`` only where the method gives one, not the bootstrap),
    :data:`COUNTS`, then the rest. Absent keys are empty (None).

    Examples
    --------
    >>> import pandas as pd
    >>> f = schema(pd.DataFrame({"label": ["joy"], "statistic": ["alpha"],
    ...                          "estimate": [0.5], "n_items": [10]}), None)
    >>> f.columns.tolist()
    ['label', 'statistic', 'replication', 'replication_other', 'estimate', 'n_items']
    """
    out = frame.copy()
    for key in KEYS:
        if key not in out.columns:
            out[key] = None
    interval = ["estimate"]
    if method is not None:
        for col in INTERVAL[1:-1]:
            if col not in out.columns:
                out[col] = np.nan
        out["method"] = np.where(out["se"].notna() | out["lower"].notna(),
                                 np.array(method, dtype=object), np.array(None, dtype=object))
        interval = list(INTERVAL)
        if method.startswith("bootstrap") and out["p_value"].isna().all():
            interval.remove("p_value")  # the bootstrap gives none: no column of blanks
            out = out.drop(columns="p_value")
    counts = [c for c in COUNTS if c in out.columns]
    head = [*KEYS, *interval, *counts]
    rest = [c for c in out.columns if c not in head]
    for col in rest:  # an empty text (no reason) is no value, as a CSV reader sees it
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col].dtype):
            out[col] = out[col].astype(object).where(out[col].ne("").fillna(True), None)
    for col in counts:
        if out[col].notna().all():
            out[col] = out[col].astype("int64")
    return out[head + rest].reset_index(drop=True)


def cell_text(value: Any, decimals: int, column: str = "") -> str:
    """One cell as table and markdown show it: ``decimals`` places for numbers,
    whole numbers as they are, p-values below 0.001 as ``<0.001``, NaN as
    ``NaN`` and a missing name as empty.

    Examples
    --------
    >>> cell_text(0.12345, 3), cell_text(2.5e-76, 3, "p_value"), cell_text(None, 3)
    ('0.123', '<0.001', '')
    >>> cell_text(-2.2e-16, 3), cell_text(-0.0004, 3), cell_text(-0.0005, 3)
    ('0.000', '0.000', '-0.001')
    """
    if value is None or (isinstance(value, float) and math.isnan(value) and column in KEYS):
        return ""
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        if not np.isfinite(value):
            return "NaN" if np.isnan(value) else str(float(value))
        if column == "p_value" and value < P_FLOOR:
            return f"<{P_FLOOR:g}"
        text = f"{value:.{decimals}f}"  # a tiny negative shows as 0, not -0.000
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    if value is pd.NA or value is pd.NaT:
        return ""
    return str(value)


def _missing(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float | np.floating) and math.isnan(v))


def _texts(frame: pd.DataFrame, decimals: int) -> pd.DataFrame:
    """Every cell as text; a missing value in a text column (no band) is empty."""
    out = {}
    for c in frame.columns:
        numeric = pd.api.types.is_numeric_dtype(frame[c])
        out[c] = [cell_text(v, decimals, str(c)) if numeric or not _missing(v) else ""
                  for v in frame[c].tolist()]
    return pd.DataFrame(out, columns=frame.columns)


def write_table(frame: pd.DataFrame, decimals: int, right: tuple[str, ...] = ()) -> str:
    """Aligned plain text: numbers (and the text columns named in ``right``: numbers
    already printed) right-aligned, the same text as markdown.

    Examples
    --------
    >>> import pandas as pd
    >>> f = schema(pd.DataFrame({"label": ["joy"], "statistic": ["alpha"],
    ...                          "estimate": [0.5], "n_items": [10]}), None)
    >>> print(write_table(f, 2))
    label  statistic  replication  replication_other  estimate  n_items
    joy    alpha                                          0.50       10
    <BLANKLINE>
    """
    shown = _texts(frame, decimals).map(escape_controls)  # no escape sequence, no CR
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) or c in right for c in frame.columns]
    widths = [max([len(escape_controls(str(c))), *map(len, shown[c])]) for c in frame.columns]

    def line(cells: list[str]) -> str:
        return "  ".join(s.rjust(w) if n else s.ljust(w)
                         for s, w, n in zip(cells, widths, numeric, strict=True)).rstrip()

    lines = [line([escape_controls(str(c)) for c in frame.columns])]
    lines += [line(list(row)) for row in shown.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def write_markdown(frame: pd.DataFrame, decimals: int, right: tuple[str, ...] = ()) -> str:
    """A Markdown table (no dependency on tabulate), the same text as the table; names
    (text columns and column names) go through
    :func:`~xrr_accessor.textsafe.markdown_cell` (``|`` escaped, line breaks as spaces,
    HTML as text), numbers are shown as the table shows them (``<0.001``).

    Examples
    --------
    >>> import pandas as pd
    >>> f = schema(pd.DataFrame({"label": ["joy"], "statistic": ["alpha"],
    ...                          "estimate": [0.5], "n_items": [10]}), None)
    >>> print(write_markdown(f, 2))
    | label | statistic | replication | replication_other | estimate | n_items |
    |---|---|---|---|---:|---:|
    | joy | alpha |  |  | 0.50 | 10 |
    <BLANKLINE>
    """
    shown = _texts(frame, decimals)
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    aligned = [n or c in right for n, c in zip(numeric, frame.columns, strict=True)]

    lines = ["| " + " | ".join(markdown_cell(c) for c in frame.columns) + " |",
             "|" + "|".join("---:" if n else "---" for n in aligned) + "|"]
    lines += ["| " + " | ".join(v if n else markdown_cell(v)
                                for v, n in zip(row, numeric, strict=True)) + " |"
              for row in shown.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def write_csv(frame: pd.DataFrame, raw: bool = False) -> str:
    """CSV with full precision, one record per line.

    A name a spreadsheet would run as a formula (its first visible character is ``=``,
    ``+``, ``-`` or ``@``) gets a leading ``'``, and a control character in a name (a
    carriage return, a tab) is written as a visible escape such as ``\\r``
    (:func:`~xrr_accessor.textsafe.csv_safe`); ``raw=True`` (``--raw``) writes every
    name exactly as in the data.

    Examples
    --------
    >>> import pandas as pd
    >>> f = schema(pd.DataFrame({"label": ["joy"], "statistic": ["alpha"],
    ...                          "estimate": [0.5], "n_items": [10]}), None)
    >>> print(write_csv(f))
    label,statistic,replication,replication_other,estimate,n_items
    joy,alpha,,,0.5,10
    <BLANKLINE>
    """
    return (frame if raw else csv_safe(frame)).to_csv(index=False)


def write_json(frame: pd.DataFrame, attrs: dict[str, Any], notes: list[str],
               sections: dict[str, Any] | None = None) -> str:
    """``{"attrs": {...}, "notes": [...], "records": [...]}``: numbers at full
    precision, NaN as null, ``notes`` a list of strings; ``sections`` (a report's
    reading, classic family, raters and items) follow as keys of their own.

    Examples
    --------
    >>> import pandas as pd
    >>> f = schema(pd.DataFrame({"label": ["joy"], "statistic": ["alpha"],
    ...                          "estimate": [0.5], "n_items": [10]}), None)
    >>> import json
    >>> doc = json.loads(write_json(f, {"command": "irr"}, ["a note"]))
    >>> doc["notes"], doc["records"][0]["estimate"], doc["records"][0]["replication"]
    (['a note'], 0.5, None)
    """
    rows = [{str(k): json_value(v) for k, v in zip(frame.columns, row, strict=True)}
            for row in frame.itertuples(index=False)]
    doc = {"attrs": json_value(attrs), "notes": [str(n) for n in notes], "records": rows,
           **{k: json_value(v) for k, v in (sections or {}).items()}}
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


def render(frame: pd.DataFrame, fmt: str, decimals: int, attrs: dict[str, Any],
           notes: list[str], raw: bool = False, sections: dict[str, Any] | None = None,
           right: tuple[str, ...] = ()) -> str:
    """``frame`` in ``fmt``: table, csv, json or markdown (one writer each); ``right``
    names text columns holding numbers, right-aligned in table and markdown.

    Examples
    --------
    >>> import pandas as pd
    >>> f = schema(pd.DataFrame({"label": ["joy"], "statistic": ["alpha"],
    ...                          "estimate": [0.5], "n_items": [10]}), None)
    >>> render(f, "csv", 3, {}, []) == write_csv(f)
    True
    """
    if fmt == "csv":
        return write_csv(frame, raw)
    if fmt == "json":
        return write_json(frame, attrs, notes, sections)
    frame, band_right = banded(frame, decimals)
    right = (*right, *band_right)
    if fmt == "markdown":
        return write_markdown(frame, decimals, right)
    return write_table(frame, decimals, right)


def banded(frame: pd.DataFrame, decimals: int) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """Records with a ``band`` beside the estimate (``xrr agreement``): the estimate and
    its limits as text by the page's rule (:func:`~xrr_accessor.reporting.cells.shown`:
    the decimals that keep each in the band printed beside it), and those columns to
    right-align; other records as they are.

    Examples
    --------
    >>> f = pd.DataFrame({"estimate": [0.6049, 0.2], "band": ["substantial", None]})
    >>> banded(f, 2)[0]["estimate"].tolist()
    ['0.6049', '0.20']
    """
    if not {"estimate", "band"} <= set(frame.columns):
        return frame, ()
    from ..reporting.cells import digits_of

    cols = [c for c in ("estimate", "lower", "upper") if c in frame.columns]
    nan = pd.Series(np.nan, index=frame.index)
    values = [frame.get(c, nan).astype(float) for c in ("estimate", "lower", "upper")]
    texts: dict[str, list[str]] = {c: [] for c in cols}
    for e, lo, hi, band in zip(*values, frame["band"], strict=True):
        d = digits_of(e, lo, hi, decimals, scale="band" if isinstance(band, str) else None)
        for c, v in zip(("estimate", "lower", "upper"), (e, lo, hi), strict=True):
            if c in texts:
                texts[c].append(cell_text(v, d, c))
    return frame.assign(**texts), tuple(cols)
