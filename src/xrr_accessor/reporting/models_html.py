"""The models page's first section in HTML: the answer per candidate, its paragraph,
and the label distributions (:func:`models_section`, read by :mod:`.report_html`)."""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from .cells import number
from .models_reading import MODEL_VERDICTS, model_readings

__all__ = ["MAX_DISTRIBUTION_FIGURES", "NAMED_LABELS", "OPEN_LABELS", "TITLE",
           "models_section"]

#: The models page's title.
TITLE = "Can these models replace the annotators?"

#: Labels whose distribution figure the page draws (the rest: report.distribution).
MAX_DISTRIBUTION_FIGURES = 4

#: A candidate's paragraphs are shown open up to this many labels (more: folded).
OPEN_LABELS = 8


def _with_interval(row: Any, stem: str, digits: int, column: str | None = None) -> str:
    x = float(row.get(column or stem, np.nan))
    if not np.isfinite(x):
        return ""
    lo, hi = float(row.get(f"{stem}_lower", np.nan)), float(row.get(f"{stem}_upper", np.nan))
    text = number(x, digits)
    if np.isfinite(lo) and np.isfinite(hi):
        text += f'<br><span class="ci">[{number(lo, digits)}, {number(hi, digits)}]</span>'
    return text


def _test_cell(row: Any, digits: int) -> str:
    if row["role"] != "candidate" or pd.isna(row["passed"]):
        return "" if row["role"] != "candidate" else "not tested"
    m = int(row["n_humans"])
    won = int(row["n_won"])
    word = "passes" if bool(row["passed"]) else "fails"
    return (f'<span class="verdict verdict-{"replaces" if row["passed"] else "fails"}">'
            f"{word}</span>: {won} of {m} ({number(float(row['winning_rate']), digits)})")


def _table(report: Any, digits: int) -> str:
    """One row per label and source: the columns a reader compares across candidates
    (kappa_x itself is in ``report.models``; normalized kappa_x reads it against the
    humans' own agreement)."""
    attrs = report.attrs["models"]
    ref, gold = html.escape(str(attrs["reference"])), attrs.get("gold")
    heads = ["label", "source (raters)", "alternative annotator test: humans won",
             "advantage probability", f"normalized kappa_x vs {ref}"]
    accuracy = gold is not None and np.isfinite(
        report.models.get("accuracy_gold", pd.Series(dtype=float)).astype(float)).any()
    if gold is not None:
        g = html.escape(str(gold))
        heads += [f"kappa_x vs {g}", f"minus {ref}'s kappa_x vs {g}"]
        if accuracy:  # exact matches: categories only
            heads.append(f"accuracy vs {g}")
    heads.append("stability: IRR of its raters")
    body = []
    for _, row in report.models.iterrows():
        cells = [html.escape(str(row["label"])),
                 f"{html.escape(str(row['replication']))} "
                 f"<span class=\"note\">({row['role']}, {int(row['n_raters']):,})</span>",
                 _test_cell(row, digits),
                 _with_interval(row, "advantage", digits, "advantage_probability"),
                 _with_interval(row, "normalized", digits)]
        if gold is not None:
            cells += [_with_interval(row, "kappa_x_gold", digits),
                      _with_interval(row, "gold_difference", digits)]
        if accuracy:
            acc = float(row.get("accuracy_gold", np.nan))
            cells.append(f"{acc:.1%}" if np.isfinite(acc) else "")
        cells.append(_with_interval(row, "stability", digits))
        body.append("<tr>" + "".join(
            f'<td class="{"label" if k < 2 else "num"}">{c}</td>'
            for k, c in enumerate(cells)) + "</tr>")
    head = "".join(f"<th scope=\"col\">{h}</th>" for h in heads)
    return (f'<table id="xrr-models"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


#: Labels named one by one in a candidate's summary line (more: counted).
NAMED_LABELS = 6


def _summary(read: pd.DataFrame, ref: str) -> list[str]:
    """One line per candidate: its answer on each label, counted, the labels named
    where few."""
    n_labels = read["label"].nunique()
    lines = []
    for cand, part in read.groupby("replication", sort=False):
        if n_labels == 1:
            lines.append(f"{cand} against {ref} on {part['label'].iloc[0]}: "
                         f"{part['verdict'].iloc[0]}.")
            continue
        said = []
        for v in MODEL_VERDICTS:
            labels = [str(x) for x in part.loc[part["verdict"] == v, "label"]]
            if labels:
                named = ", ".join(labels[:NAMED_LABELS]) + (
                    f" and {len(labels) - NAMED_LABELS} more" if len(labels) > NAMED_LABELS
                    else "")
                said.append(f"{v} on {len(labels)} of {n_labels} labels ({named})")
        lines.append(f"{cand} against {ref}: " + "; ".join(said) + ".")
    return lines


def models_section(report: Any, digits: int, png: Any | None) -> dict[str, Any]:
    """The answer table, the paragraphs and (with ``png``, which turns an Axes into
    a figure dict) the label distribution figures of a models page."""
    read = model_readings(report, min(digits, 2))
    labels = list(pd.unique(report.models["label"]))
    groups = []
    for cand, part in read.groupby("replication", sort=False):
        groups.append({"candidate": str(cand), "open": len(labels) <= OPEN_LABELS,
                       "paragraphs": [{"label": str(r.label), "verdict": r.verdict,
                                       "css": r.verdict.replace(" ", "-"), "text": r.text}
                                      for r in part.itertuples()]})
    figures = []
    if png is not None:
        from .models_plots import label_distribution

        for label in labels[:MAX_DISTRIBUTION_FIGURES]:
            figures.append(png(label_distribution(report, label),
                               f"Labels given by each source, {label}",
                               f"{label}: the share of each source's annotations in each "
                               "category, side by side: a model that avoids a category, or "
                               "favours one, shows here."))
    left = len(labels) - MAX_DISTRIBUTION_FIGURES
    attrs = report.attrs["models"]
    note = (f"Epsilon {attrs['epsilon']:g}, false discovery rate q {attrs.get('q')}, "
            f"annotators tested with at least {attrs.get('min_items')} compared items; "
            f"alignment: {attrs.get('alignment')}." if attrs.get("epsilon") is not None
            else "No alternative annotator test: it needs epsilon=.")
    return {"table": _table(report, digits),
            "summary": _summary(read, str(attrs["reference"])),
            "groups": groups, "figures": figures, "note": note,
            "left_out": (f"{left} more label{'s' if left > 1 else ''} not drawn: "
                         "report.plot.label_distribution(label) draws one; the numbers are "
                         "in report.distribution.") if left > 0 else ""}
