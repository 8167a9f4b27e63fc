"""What the ``xrr`` command prints: results in five formats, messages as flags."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["FORMATS", "as_flags", "markdown", "render", "tidy"]

FORMATS = ("table", "csv", "json", "markdown", "html")

#: Keyword arguments of the Python API and the flag that sets them.
_FLAGS = {
    "item": "--item", "rater": "--rater", "replication": "--replication", "label": "--label",
    "value": "--value", "labels": "--labels", "wide": "--wide", "duplicates": "--duplicates",
    "categories": "--categories", "metric": "--metric", "irr": "--irr", "level": "--level",
    "reference": "--reference", "ci": "--ci", "n_boot": "--n-boot", "seed": "--seed",
    "interval": "--interval", "form": "--form", "sort_by": "--sort-by", "sep": "--sep",
    "file_column": "--file-column",
}
_VALUE = r"""('[^']*'|"[^"]*"|\[[^\]]*\]|[\w.<>-]+)"""
_KWARG = re.compile(r"\b(" + "|".join(_FLAGS) + r")=" + _VALUE)
_CALL = re.compile(r"\.xrr\(([^()]*)\)")


def _flag(match: re.Match[str]) -> str:
    name, value = match.group(1), match.group(2).strip("'\"")
    if value == "True":
        return _FLAGS[name]
    if value.startswith("["):
        value = ",".join(v.strip(" '\"") for v in value[1:-1].split(","))
    return f"{_FLAGS[name]} {value}"


def as_flags(message: str) -> str:
    """A library message with its Python syntax (``.xrr(replication='<column>')``,
    ``metric='iota'``) written as the command's flags, on one line.

    Examples
    --------
    >>> as_flags("Name it with .xrr(replication='<column>').")
    'Name it with --replication <column>.'
    >>> as_flags("use metric='alpha' for missing data")
    'use --metric alpha for missing data'
    >>> as_flags("choose labels with .xrr(labels=[...]) or pass other=")
    'choose labels with --labels ... or pass a second FILE'
    """
    text = re.sub(r"\s+(?:to|with) \.xrr\(\.\.\.\)", "", message)
    text = _CALL.sub(lambda m: _KWARG.sub(_flag, m.group(1)).replace(", ", " "), text)
    text = _KWARG.sub(_flag, text)
    text = re.sub(r"\bpass other=", "pass a second FILE", text)
    text = text.replace("(labels=)", "(--labels)")
    return " ".join(text.split())


def tidy(result: Any) -> pd.DataFrame:
    """A result of :func:`~xrr_accessor.irr` or :func:`~xrr_accessor.cross_kappa`
    (a number, a Series, a label x cell table, or a table with intervals) as
    one row per cell (and label, when the result has several)."""
    if isinstance(result, float | int | np.floating):
        return pd.DataFrame({"estimate": [float(result)]})
    if isinstance(result, pd.Series):
        frame = result.rename("estimate").to_frame()
    elif "estimate" not in result.columns:
        levels = list(range(result.columns.nlevels))
        frame = result.stack(levels, future_stack=True).rename("estimate").to_frame()
    else:
        frame = result
    if frame.index.nlevels == 1 and frame.index.name is None:
        frame = frame.rename_axis("label")
    return frame.reset_index()


def markdown(frame: pd.DataFrame, digits: int) -> str:
    """A frame as a Markdown table (no dependency on tabulate)."""
    def cell(v: Any) -> str:
        if isinstance(v, float | np.floating):
            return "NaN" if not np.isfinite(v) else f"{v:.{digits}f}"
        return str(v)

    head = [str(c) for c in frame.columns]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def render(frame: pd.DataFrame, fmt: str, digits: int, attrs: dict[str, Any]) -> str:
    """``frame`` (tidy rows) in ``fmt``: csv, json ({attrs, rows}) or markdown."""
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "json":
        rows = json.loads(frame.to_json(orient="records"))
        return json.dumps({"attrs": attrs, "rows": rows}, indent=1) + "\n"
    if fmt == "markdown":
        return markdown(frame, digits)
    with pd.option_context("display.width", 200, "display.max_columns", 50,
                           "display.max_rows", 10_000):
        return frame.round(digits).to_string(index=False, na_rep="NaN") + "\n"
