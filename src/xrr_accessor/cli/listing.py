"""The diagnostic commands, ``xrr raters``, ``xrr items`` and ``xrr pairwise``: one record
per label x replication x rater (item, pair), worst first; raters and items show at most
``--top N`` rows of each label and replication (default a screenful on a terminal, every
row in csv, json or a file), and say how many they leave out."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import pandas as pd

from ..diagnostics import item_disagreement, rater_agreement
from ..diagnostics.pairwise import pairwise
from ..diagnostics.raters import warn_undefined as undefined_warning
from ..errors import DroppedDataWarning, InputError, collecting, warn
from ..reporting.rater_view import ranked, unranked_sentence
from ..schema.tally import tally_of
from .files import stem
from .inputs import Output, bootstrap, no_page, one_pool, read
from .output import SCREEN
from .reading_text import interval_line
from .report_text import collapsed_items

__all__ = ["MIN_POOL_RATERS", "SCREEN", "cut", "few_raters", "few_raters_sentence", "run_items",
           "run_pairwise", "run_raters", "tie_notes", "top_of", "undefined_notes"]

def _terminal() -> bool:
    """Whether the output goes to a terminal (a person reads it, a screenful at a time)."""
    return sys.stdout.isatty()


def top_of(args: argparse.Namespace) -> int:
    """The rows of each label and replication to show, 0 for every row: ``--top N`` when
    given, else :data:`SCREEN` when a table or markdown goes to a terminal, else all
    (csv, json and ``--output`` files hold every row).

    Examples
    --------
    >>> top_of(argparse.Namespace(top=5, format="csv", output=None))
    5
    >>> top_of(argparse.Namespace(top=None, format="json", output=None))
    0
    """
    if args.top is not None:
        return int(args.top)
    if args.output is None and args.format in ("table", "markdown") and _terminal():
        return SCREEN
    return 0


def cut(frame: pd.DataFrame, top: int, what: str, asked: bool = False
        ) -> tuple[pd.DataFrame, list[str]]:
    """The first ``top`` rows of each label and replication of ``frame`` (ranked worst
    first), and a note saying how many rows are left out and how to see them (none when
    nothing is); ``asked``: ``--top`` was given (else the terminal's default cut).

    Examples
    --------
    >>> f = pd.DataFrame({"label": ["a"] * 3 + ["b"], "replication": "r", "D": range(4)})
    >>> shown, notes = cut(f, 2, "items")
    >>> shown["D"].tolist(), notes
    ([0, 1, 3], ['1 of 4 rows not shown (the 2 most disagreed items of each label and \
replication): --top 0 shows every row, as --format csv or json and --output do'])
    """
    if top == 0:
        return frame, []
    keys = [c for c in ("label", "replication") if c in frame.columns]
    shown = frame.groupby(keys, sort=False, dropna=False).head(top) if keys else frame.head(top)
    left = len(frame) - len(shown)
    if not left:
        return frame, []
    which = "most disagreed items" if what == "items" else "worst-ranked raters"
    how = "" if asked else ", as --format csv or json and --output do"
    return shown, [f"{left:,} of {len(frame):,} rows not shown (the {top:,} {which} of each "
                   f"label and replication): --top 0 shows every row{how}"]


def _diagnostic(frame: pd.DataFrame, label: str, first: list[str]) -> pd.DataFrame:
    frame = frame.reset_index(drop=isinstance(frame.index, pd.RangeIndex))
    if "label" not in frame.columns:
        frame.insert(0, "label", label)
    head = [c for c in first if c in frame.columns]
    return frame[head + [c for c in frame.columns if c not in head]]


#: The fewest raters a pool needs for a rater table: with two, each rater against the rest
#: is the pool's IRR itself and the pool without one rater has no alpha (the report's rule).
MIN_POOL_RATERS = 3


def few_raters(ann: Any) -> dict[str, int]:
    """The replications of ``ann`` with fewer than :data:`MIN_POOL_RATERS` raters (with an
    annotation of any label), and how many raters each has.

    Examples
    --------
    >>> from xrr_accessor import api
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 1, 1, 1], "rater": list("abababc"),
    ...                    "pool": list("AAAABBB"), "joy": [0, 1, 1, 1, 0, 1, 1]})
    >>> few_raters(api.annotations(df, replication="pool")[0])
    {'A': 2}
    """
    counts = tally_of(ann).rated_raters
    return {str(name): int(n) for name, n in zip(ann.replications, counts, strict=True)
            if n < MIN_POOL_RATERS}


def few_raters_sentence(few: dict[str, int], n_labels: int) -> str:
    """The one line saying which pools have no rater table, why, and how many rows
    (a rater of a label) are not listed for it.

    Examples
    --------
    >>> print(few_raters_sentence({"A": 2}, 3))  # doctest: +NORMALIZE_WHITESPACE
    rater agreement needs at least 3 raters in a pool: A has 2 (each rater against the
    rest is then the pool's IRR itself, and the pool without one rater has no alpha): 6 rows
    (rater x label) not listed
    """
    pools = ", ".join(f"{name} has {n}" for name, n in few.items())
    rows = sum(few.values()) * n_labels
    return (f"rater agreement needs at least {MIN_POOL_RATERS} raters in a pool: {pools} "
            "(each rater against the rest is then the pool's IRR itself, and the pool "
            f"without one rater has no alpha): {rows:,} rows (rater x label) not listed")


def run_raters(args: argparse.Namespace) -> Output:
    no_page(args)
    data, _, roles = read(args)
    level = args.level
    data, roles, ann = one_pool(data, roles, stem(args.path), level)
    few = few_raters(ann)
    column = roles.get("replication", ann.role_names.get("replication"))
    notes = [few_raters_sentence(few, len(ann.labels))] if few else []
    if few and (roles.get("wide") or not isinstance(column, str)):
        raise InputError(notes[0] + "; with --wide, give each pool of 3 raters or more its "
                         "own file")  # pragma: no cover - wide files with a replication
    if few:  # only the pools with a rater table: no NaN rows, no warning about them
        data = data[~data[column].astype(str).isin(list(few))]
    if len(few) == len(ann.replications):
        frame = pd.DataFrame(columns=["label", "replication", "rater"])
        return Output(frame, {"command": "raters", "metric": args.metric,
                              "pools_without_raters": few}, notes)
    boot = bootstrap(args, len(ann.labels) * len(ann.replications) * len(ann.raters))
    boot.pop("progress", None)  # one pass per replicate: no bar
    with collecting() as said:  # its notes, said once the rows shown are known
        result = rater_agreement(data, metric=args.metric, level=level,
                                 min_items=args.min_items, **boot, **roles)
    frame = _diagnostic(ranked(result), str(ann.labels[0]), ["label", "replication"])
    settings = {"command": "raters", "metric": args.metric,
                "level": result.attrs.get("level", level),
                "min_items": result.attrs.get("min_items"),
                "n_below_min_items": result.attrs.get("n_below_min_items")}
    if args.ci is not None:
        settings.update({k: result.attrs[k] for k in ("ci", "method", "interval", "n_boot",
                                                      "seed")})
        notes.append(interval_line(result, report_ci=True))  # what the limits are
    if few:
        settings["pools_without_raters"] = few
    top = top_of(args)
    keys = ["label", "replication"]
    frame, cut_notes = cut(frame, top, "raters", args.top is not None)
    for category, message in said:  # notes only about the rows printed
        for text in undefined_notes(message, _diagnostic(result, str(ann.labels[0]), keys),
                                    frame, int(result.attrs.get("min_items") or 1)):
            warn(text, category)
    if result.attrs.get("n_below_min_items"):  # counted, not ranked, not listed
        warn(unranked_sentence(result, "not listed; --min-items N changes the cut, "
                               "--min-items 1 ranks every rater"), DroppedDataWarning)
    if cut_notes:
        settings.update(top=top, rows_not_shown=len(ranked(result)) - len(frame))
    return Output(frame, settings, notes + cut_notes)


def _undefined(rows: pd.DataFrame) -> str:
    """rater_agreement's note about ``rows`` (:func:`~xrr_accessor.diagnostics.raters.
    _warn`, the library's own words and counts), "" when none is undefined."""
    with collecting() as got:
        undefined_warning(rows)
    return got[0][1] if got else ""


def undefined_notes(message: str, rows: pd.DataFrame, shown: pd.DataFrame,
                    min_items: int) -> list[str]:
    """``message`` (a note of :func:`~xrr_accessor.rater_agreement`) as the notes of what
    ``xrr raters`` prints: its note of undefined (NaN) values said of the ``shown`` rows,
    and on a line of its own, which says so, of the ``rows`` not shown (cut by ``--top``,
    or with fewer than ``min_items`` items: not ranked); any other note as it is.

    Examples
    --------
    >>> t = pd.DataFrame({"label": "joy", "replication": "A", "rater": ["a", "b"],
    ...                   "kappa_x": [0.1, float("nan")], "alpha_without": 0.5, "alpha": 0.5,
    ...                   "n_shared": 9, "n_annotations": 12})
    >>> note = "rater_agreement is undefined (NaN) for kappa_x for 1 rater(s) ..."
    >>> print(*undefined_notes(note, t, t.head(1), 10))  # doctest: +NORMALIZE_WHITESPACE
    Of the rows not shown (--top 0 shows them): rater_agreement is undefined (NaN) for
    kappa_x for 1 rater(s) whose shared items hold one value on both sides (no expected
    disagreement).
    """
    if not message.startswith("rater_agreement is undefined (NaN) for "):
        return [message]
    keys = [c for c in ("label", "replication", "rater") if c in rows.columns]
    seen = pd.MultiIndex.from_frame(shown[keys].astype(object))
    hidden = rows[~pd.MultiIndex.from_frame(rows[keys].astype(object)).isin(seen)]
    out = [_undefined(shown)]
    theirs = _undefined(hidden)
    if theirs:
        nan = hidden[["kappa_x", "alpha_without", "alpha"]].isna().any(axis=1)
        few = hidden["n_annotations"] < min_items
        how = [h for h, hit in (("--top 0 shows them", (nan & ~few).any()),
                                ("--min-items 1 ranks the raters with fewer items",
                                 (nan & few).any())) if hit]
        out.append(f"Of the rows not shown ({'; '.join(how)}): {theirs}")
    return [x for x in out if x]


def run_pairwise(args: argparse.Namespace) -> Output:
    no_page(args)
    data, _, roles = read(args)
    level = args.level
    data, roles, ann = one_pool(data, roles, stem(args.path), level)
    result = pairwise(data, metric=args.metric, level=level, both_orders=not args.unordered,
                      **roles)
    frame = _diagnostic(result, str(ann.labels[0]), ["label", "replication"])
    frame.insert(frame.columns.get_loc("estimate"), "statistic", result.attrs["metric"])
    said = {k: result.attrs[k] for k in ("level", "weights") if k in result.attrs}
    return Output(frame, {"command": "pairwise", "metric": result.attrs["metric"], **said,
                          "pairs": "each once" if args.unordered else "both orders"})


def run_items(args: argparse.Namespace) -> Output:
    no_page(args)
    data, _, roles = read(args)
    level = args.level
    data, roles, ann = one_pool(data, roles, stem(args.path), level)
    result = item_disagreement(data, level=level, **roles)
    settings = {"command": "items", "level": result.attrs.get("level", level)}
    top = top_of(args)
    item = str(result.index.names[-1] or "item")
    frame = result
    notes: list[str] = []
    if top:  # as xrr report: a tie reaching past the rows shown is one row
        frame, ties = collapsed_items(result, top)
        tie = frame[item].isna()
        notes = tie_notes(len(result), int((~tie).sum()), int(frame["n_items"][tie].sum()),
                          top, args.top is not None, ties)
    frame = _diagnostic(frame, str(ann.labels[0]), ["label", "replication"])
    if "mode" in frame.columns:  # a label's mode may be a number or a set: text
        frame["mode"] = frame["mode"].map(lambda v: v if isinstance(v, int | float | str)
                                          or v is None else str(v))
    frame, right = _blank_ties(frame, item)
    listed = len(result) if not top else int(frame[item].notna().sum())
    if listed < len(result):
        settings.update(top=top, rows_not_shown=len(result) - listed)
    return Output(frame, settings, notes, right=right)


def _blank_ties(frame: pd.DataFrame, item: str) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The item table with a tie's row (no item: one row for ``n_items`` items) blank
    but for its label, replication, D and count, and the columns holding numbers (to
    right-align once they hold blanks too).

    Examples
    --------
    >>> f = pd.DataFrame({"item": ["a", None], "disagreement": [1.0, 0.5],
    ...                   "mean": [0.5, float("nan")], "n_items": [1, 40]})
    >>> shown, right = _blank_ties(f, "item")
    >>> shown["mean"].tolist(), shown["n_items"].tolist(), right
    ([0.5, None], [1, 40], ('disagreement', 'mean', 'n_items'))
    """
    tie = frame[item].isna() if item in frame.columns else pd.Series(False, frame.index)
    if not tie.any():
        return frame, ()
    right = tuple(str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]))
    out = frame.astype(object)
    blank = [c for c in out.columns if c not in ("label", "replication", item,
                                                 "disagreement", "n_items")]
    out.loc[tie, blank] = None
    return out, right


def tie_notes(total: int, listed: int, tied: int, top: int, asked: bool,
              ties: list[str]) -> list[str]:
    """``xrr items``' notes when it cuts: how many items are not listed one by one (a tie
    reaching past the ``top`` rows shown is one row, ``n_items`` counting its ``tied``
    items), then each tie's line (:func:`~xrr_accessor.reporting.pool_html.tie_line`).

    Examples
    --------
    >>> print(*tie_notes(50, 0, 40, 20, False, ["On joy / A: 40 items tied at D = 1.000."]),
    ...       sep="\\n")  # doctest: +NORMALIZE_WHITESPACE
    50 of 50 items not listed one by one, 40 of them in tie rows (the 20 most disagreed
    items of each label and replication, a tie reaching past them as one row whose
    n_items counts its items): --top 0 lists every item, as --format csv or json and
    --output do
    On joy / A: 40 items tied at D = 1.000.
    """
    if listed == total:
        return []
    how = "" if asked else ", as --format csv or json and --output do"
    where = f", {tied:,} of them in tie rows" if tied else ""
    return [f"{total - listed:,} of {total:,} items not listed one by one{where} (the "
            f"{top:,} most disagreed items of each label and replication, a tie reaching "
            "past them as one row whose n_items counts its items): --top 0 lists every "
            f"item{how}", *ties]
