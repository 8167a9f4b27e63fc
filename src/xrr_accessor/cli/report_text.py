"""``xrr report`` and ``xrr demo`` in table, markdown and json: the sections of the HTML
page, in its order. The reading (:meth:`~xrr_accessor.reporting.report.Report.readings`),
the IRR table (and with replications kappa_x and normalized kappa_x: the paper's Table
5), and for one pool the classic family, the raters against the rest (or the line why
there are none) and the items most disagreed on, ties collapsed to one row. Table and
markdown print each section under its title; json holds one key per section
(:func:`json_sections`). A cell with an interval prints by the page's rule
(:func:`~xrr_accessor.reporting.cells.shown`), the table's columns aligned
(:func:`aligned`)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from ..reporting.bands import IRR_NAMES
from ..reporting.cells import SCALES, cell_names, shown
from ..reporting.pool_html import (
    collapse_reasons,
    family_long,
    family_title,
    family_wide,
    item_groups,
    no_rater_table,
    tie_line,
)
from ..reporting.rater_view import gold_sentences, ranked, unranked_sentence
from ..reporting.report_html import TOP_ROWS
from ..reporting.tidy import STATISTICS
from ..textsafe import escape_controls, markdown_cell
from .output import write_markdown, write_table
from .phrases import in_cli
from .reading_text import interval_line, reading_groups

__all__ = ["TITLES", "aligned", "collapsed_items", "irr_choice", "json_sections",
           "pool_sections", "report_text"]

#: The titles of the report's IRR table blocks.
TITLES = {
    "irr": "IRR of each replication ({irr}, {level})",
    "kappa_x": "kappa_x: agreement between replications (Eq 9-11)",
    "normalized": "normalized kappa_x: replication similarity ({how}; near 1 = replicates as "
                  "well as it agrees internally)",
}


def irr_choice(rep: Any, given: str | None) -> str:
    """Which IRR the report uses and why: the one ``--irr`` gave, or :func:`report`'s
    default (Cohen's kappa where no pool has more than two raters, else alpha).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> rep = SimpleNamespace(attrs={"irr": "cohen", "replications": {"A": {"raters": 2}}})
    >>> print(irr_choice(rep, None))  # doctest: +NORMALIZE_WHITESPACE
    IRR: Cohen's kappa, the default where no pool has more than two raters (the paper's
    Table 5); --irr alpha gives Krippendorff's alpha.
    """
    irr = str(rep.attrs.get("irr"))
    name = IRR_NAMES.get(irr, irr)
    if given is not None:
        return f"IRR: {name} (--irr {given})."
    most = max((r.get("raters", 0) for r in rep.attrs.get("replications", {}).values()),
               default=0)
    if most <= 2:
        return (f"IRR: {name}, the default where no pool has more than two raters (the "
                "paper's Table 5); --irr alpha gives Krippendorff's alpha.")
    return (f"IRR: {name}, the default where a pool has more than two raters (Cohen's "
            "kappa compares two); --irr names another.")


def _cells(rep: Any, stat: str, decimals: int) -> tuple[list[Any], list[str],
                                                         list[list[tuple[str, str]]]]:
    """One block's labels, cell names and (estimate, interval) texts, by the page's rule."""
    f = rep.frame[rep.frame["statistic"] == stat]
    f = f.assign(cell=cell_names(f))
    labels = list(pd.unique(f["label"]))
    cells = list(pd.unique(f["cell"]))
    by = {(r.label, r.cell): r for r in f.itertuples(index=False)}
    rows = []
    for label in labels:
        row = []
        for cell in cells:
            r = by.get((label, cell))
            if r is None:
                row.append(("", ""))
                continue
            lo, hi = float(getattr(r, "lower", np.nan)), float(getattr(r, "upper", np.nan))
            row.append(shown(float(r.estimate), lo, hi, decimals, scale=SCALES[stat]))
        rows.append(row)
    return labels, cells, rows


def aligned(head: str, names: list[str], labels: list[Any],
            rows: list[list[tuple[str, str]]]) -> str:
    """A block as plain text: the labels left-aligned, each cell's estimate right-aligned
    and its interval in brackets with each limit right-aligned, so that every column
    starts (and ends) at the same place on every line.

    Examples
    --------
    >>> print(aligned("label", ["A"], ["joy", "awe"],
    ...               [[("0.50", "[0.42, 0.58]")], [("0.05", "[-0.03, 0.12]")]]))
    label                  A
    joy    0.50 [ 0.42, 0.58]
    awe    0.05 [-0.03, 0.12]
    <BLANKLINE>
    """
    first = [escape_controls(str(x)) for x in labels]
    columns = [first]
    for j in range(len(names)):
        est = [r[j][0] for r in rows]
        parts = [r[j][1][1:-1].split(", ") if r[j][1] else ["", ""] for r in rows]
        we, wl, wh = (max(map(len, x), default=0) for x in
                      (est, [p[0] for p in parts], [p[1] for p in parts]))
        text = [e.rjust(we) + (f" [{lo.rjust(wl)}, {hi.rjust(wh)}]" if lo else
                               " " * (wl + wh + 5) if wl else "")
                for e, (lo, hi) in zip(est, parts, strict=True)]
        columns.append(text)
    header = [head, *(escape_controls(str(n)) for n in names)]
    widths = [max([len(h), *map(len, c)]) for h, c in zip(header, columns, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if k == 0 else c.rjust(w)
                         for k, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    lines = [line(header)] + [line([c[i] for c in columns]) for i in range(len(first))]
    return "\n".join(lines) + "\n"


def _block_title(rep: Any, stat: str) -> str:
    ref = rep.attrs.get("reference")
    how = (f"Section 6: kappa_x / IRR of {ref}" if ref is not None
           else "Eq 13: kappa_x / sqrt(IRR_X IRR_Y)")
    return TITLES[stat].format(irr=rep.attrs.get("irr"), level=rep.attrs.get("level"),
                               how=how)


def _unpaired(rep: Any) -> str:
    counts = rep.frame[rep.frame["statistic"] == "kappa_x"]
    unpaired = counts.groupby(["replication", "replication_other"], sort=False)[
        "n_unpairable"].max()
    if not len(unpaired):
        return ""
    return ("Items annotated by only one replication of a pair (left out of that pair): "
            + ", ".join(f"{escape_controls(str(a))} x {escape_controls(str(b))}: {n:,}"
                        for (a, b), n in unpaired.items()))


def pool_sections(rep: Any, decimals: int) -> dict[str, tuple[pd.DataFrame | None,
                                                               list[str]]]:
    """The one-pool report's other sections, each as (its rows, at full precision, and
    the lines said under them), as the page says them (:mod:`~xrr_accessor.reporting.
    pool_html`): ``agreement`` (the classic family; each reason once, with the metrics
    and labels it applies to), ``raters`` (the ranked raters, worst first, up to
    :data:`TOP_ROWS` per label; None and the line why when there is no rater table) and
    ``items`` (:func:`collapsed_items`)."""
    out: dict[str, tuple[pd.DataFrame | None, list[str]]] = {}
    table = rep.agreement
    if isinstance(table, pd.DataFrame):
        out["agreement"] = (table.drop(columns=["reason"], errors="ignore").reset_index()
                            .rename(columns={"metric": "statistic"}),
                            [in_cli(x) for x in collapse_reasons(table)])
    raters = rep.raters
    if isinstance(raters, pd.DataFrame):
        keep = [c for c in ("kappa_x", "kappa_x_lower", "kappa_x_upper", "rank",
                            "gold_kappa_x", "gold_accuracy", "n_gold", "n_annotations")
                if c in raters.columns]
        words = [interval_line(raters, "ci" in rep.attrs),
                 unranked_sentence(raters, "not listed; --min-items N changes the cut"),
                 *gold_sentences(raters, min(decimals, 2))]
        out["raters"] = (ranked(raters, TOP_ROWS)[keep].reset_index(),
                         [in_cli(w) for w in words if w])
    else:
        most = max((r.get("raters", 0) for r in rep.attrs.get("replications", {}).values()),
                   default=0)
        out["raters"] = (None, [in_cli(rep.attrs.get("no_raters")
                                       or no_rater_table(most, False))])
    items = rep.items
    if isinstance(items, pd.DataFrame):
        out["items"] = collapsed_items(items, TOP_ROWS)
    return out


def collapsed_items(items: pd.DataFrame, top: int) -> tuple[pd.DataFrame, list[str]]:
    """The page's item rows (:func:`~xrr_accessor.reporting.pool_html.item_groups`) as
    one table: per label and replication the first ``top`` items, most disagreed first,
    and a tie that runs past them as one row (``item`` empty, ``n_items`` the items tied
    at that D), with the page's line for each tie.

    Examples
    --------
    >>> from xrr_accessor import item_disagreement
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
    ...                    "joy": [0, 1, 1, 0, 0, 1, 1, 1]})
    >>> rows, said = collapsed_items(item_disagreement(df, level="nominal"), 2)
    >>> rows[["item", "disagreement", "n_items"]].values.tolist()
    [[None, 1.0, 3]]
    >>> said
    ["On joy: 3 items tied at D = 1.000 (the first in the data's order: 1, 2, 3)."]
    """
    keys = [str(n) for n in items.index.names[:-1]]
    item = str(items.index.names[-1] or "item")
    parts, said = [], []
    for g in item_groups(items, top):
        rows = g.rows.rename_axis(item).reset_index().astype({item: object})
        rows.insert(0, "n_items", 1)
        if g.n_tied:
            rows = pd.concat([rows, pd.DataFrame({"n_items": [g.n_tied], item: [None],
                                                  "disagreement": [g.tied_value]})])
            where = " / ".join(map(str, g.key)) if keys else "the pool"
            said.append(f"On {where}: {tie_line(g)}.")
        parts.append(rows.assign(**dict(zip(keys, g.key, strict=True))))
    cols = [*keys, item, "disagreement", *(c for c in items.columns if c != "disagreement"),
            "n_items"]
    if not parts:
        return pd.DataFrame(columns=cols), said
    out = pd.concat(parts, ignore_index=True)[cols]
    out[item] = out[item].astype(object).where(out[item].notna(), None)
    for col in items.columns:  # whole numbers stay whole, blank on a tie's row
        if pd.api.types.is_integer_dtype(items[col].dtype):
            out[col] = out[col].astype("Int64")
    return out, said


def _report_blocks(rep: Any, decimals: int, markdown: bool) -> list[tuple[str, str]]:
    """(title, text) of each IRR-table block."""
    out = []
    present = set(rep.frame["statistic"])
    for stat in (s for s in STATISTICS if s in present):  # one pool: its IRR only
        labels, cells, rows = _cells(rep, stat, decimals)
        head = "replication" if stat == "irr" else "pair"
        if markdown:
            frame = pd.DataFrame([[lab, *(" ".join(x for x in c if x) for c in row)]
                                  for lab, row in zip(labels, rows, strict=True)],
                                 columns=["label", *map(str, cells)])
            text = write_markdown(frame, decimals, right=tuple(map(str, cells)))
        else:
            text = aligned(f"label / {head}", cells, labels, rows)
        out.append((_block_title(rep, stat), text))
    return out


def _family_text(table: pd.DataFrame, decimals: int, markdown: bool) -> str:
    """The classic family as the page prints it: one label a row per coefficient
    (:func:`~xrr_accessor.reporting.pool_html.family_long`), several labels a row per
    label and a column per coefficient (:func:`~xrr_accessor.reporting.pool_html.
    family_wide`), each estimate and interval by the one printing rule."""
    table = table.drop(columns=["reason"], errors="ignore")
    if "replication" in table.index.names:  # one pool: named in the sections above
        table = table.droplevel("replication")
    names = table.index.names
    if "label" in names and table.index.get_level_values("label").nunique() > 1:
        wide = family_wide(table, decimals)
        if markdown:
            frame = wide.reset_index()
            return write_markdown(frame, decimals, right=tuple(map(str, wide.columns)))
        rows = [[(c.split(" [")[0], "[" + c.split(" [")[1]) if " [" in c else (c, "")
                 for c in row] for row in wide.itertuples(index=False)]
        return aligned("label", list(map(str, wide.columns)), list(wide.index), rows)
    frame = family_long(table, decimals).reset_index().rename(columns={"metric": "statistic"})
    right = tuple(c for c in ("estimate", "lower", "upper") if c in frame.columns)
    if markdown:
        return write_markdown(frame, decimals, right)
    return write_table(frame, decimals, right)


def _frame_text(frame: pd.DataFrame, decimals: int, markdown: bool, key: str) -> str:
    """A section's rows as text; the item table's tie rows blank where they hold no
    value (one row for many items)."""
    right: tuple[str, ...] = ()
    if key == "items":
        right = tuple(c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]))
        frame = frame.astype(object).where(frame.notna(), None)
    if markdown:
        return write_markdown(frame, decimals, right)
    return write_table(frame, decimals, right)


def report_text(rep: Any, fmt: str, decimals: int, title: str, given_irr: str | None,
                head: str = "") -> str:
    """The report in ``fmt`` (table or markdown): its title, the IRR choice, the reading,
    the IRR table, and for one pool the classic family, the raters and the items; each
    section under its title (a Markdown heading), sections apart by a blank line."""
    md = fmt == "markdown"
    gap = [""] if md else []  # Markdown: a blank line after a heading, between blocks

    def heading(text: str, level: int = 2) -> list[str]:
        return [f"{'#' * level} {markdown_cell(text)}" if md else escape_controls(text), *gap]

    def said(lines: list[str]) -> list[str]:  # names from the data: no control character
        return [f"- {markdown_cell(x)}" if md else escape_controls(x) for x in lines if x]

    out = [*heading(title, 1), *said([head.strip(), irr_choice(rep, given_irr)]), "",
           *heading("Reading")]
    groups, advice = reading_groups(rep, decimals)
    for summary, sentences in groups:
        out += [f"**{markdown_cell(summary)}**", ""] if md else said([summary])
        out += said(sentences) if md else [f"  {x}" for x in said(sentences)]
        out += gap
    out += said([advice])
    for k, (name, text) in enumerate(_report_blocks(rep, decimals, md)):
        caption = said([rep.caption()]) + gap if k == 0 else []  # what the table holds
        out += ["", *heading(name), *caption, text.rstrip("\n")]
    closing = said([_unpaired(rep)])
    out += ["", *closing] if closing else []
    if rep.one_pool:
        family = rep.agreement if isinstance(rep.agreement, pd.DataFrame) else None
        titles = {"agreement": ("The classic family" if family is None else
                                family_title(family)) + ": every coefficient side by side",
                  "raters": "Raters against the rest of the pool (kappa_x; ranked, worst "
                            f"first, up to {TOP_ROWS} per label)",
                  "items": f"Items most disagreed on (up to {TOP_ROWS} per label, ties "
                           "past the cut as one row)"}
        for key, (frame, lines) in pool_sections(rep, decimals).items():
            out += ["", *heading(titles[key] if frame is not None or key == "agreement"
                                 else titles[key].split(" (")[0])]
            if key == "agreement":
                out += [_family_text(rep.agreement, decimals, md).rstrip("\n"), *gap]
            elif frame is not None:
                out += [_frame_text(frame, decimals, md, key).rstrip("\n"), *gap]
            out += said(lines)
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


def json_sections(rep: Any, decimals: int, given_irr: str | None) -> dict[str, Any]:
    """The report's sections beside its records in json: ``irr_choice`` (the line),
    ``readings`` (one record per sentence) and, for one pool, ``agreement``, ``raters``
    and ``items`` (the rows the table shows), with ``said``: the lines under each."""
    read = rep.readings(min(decimals, 2))
    read = read.assign(text=[in_cli(str(t)) for t in read["text"]])
    out: dict[str, Any] = {"irr_choice": irr_choice(rep, given_irr),
                           "readings": read.to_dict("records")}
    if rep.one_pool:
        lines = {}
        for key, (frame, said) in pool_sections(rep, decimals).items():
            out[key] = [] if frame is None else frame.to_dict("records")
            lines[key] = said
        out["said"] = lines
        if isinstance(rep.agreement, pd.DataFrame):  # its weights, named
            out["agreement_title"] = family_title(rep.agreement)
    return out


def with_readings(records: pd.DataFrame, rep: Any, decimals: int) -> pd.DataFrame:
    """csv: the report's records with each reading (``verdict``, ``reading``) on the row
    it reads (normalized kappa_x of a pair; the IRR of one pool), empty elsewhere."""
    read = rep.readings(min(decimals, 2))
    role = "irr" if rep.one_pool else "normalized"
    keys = ["label", "replication", "replication_other"]
    def joined(f: pd.DataFrame) -> pd.Series:
        keyed = f[keys].astype(object)
        return keyed.where(keyed.notna(), "").astype(str).agg("\x1f".join, axis=1)

    by = dict(zip(joined(read), zip(read["verdict"], read["text"], strict=True),
                  strict=True))
    mine = joined(records)
    hit = [by.get(c) if r == role else None for c, r in zip(mine, records["role"],
                                                            strict=True)]
    return records.assign(verdict=[h[0] if h else None for h in hit],
                          reading=[in_cli(str(h[1])) if h else None for h in hit])
