"""Which columns are labels, when the user did not say: metadata and free text left out."""

from __future__ import annotations

from collections.abc import Hashable

import pandas as pd

from ..errors import DroppedDataWarning, RoleError, warn
from .evidence import ID_SPAN, Column, IdCodes, evidence, is_number_column, merge_evidence
from .roles import looks_gold

__all__ = ["FREE_TEXT_LENGTH", "check_kept", "decide", "decide_parts", "gold_entry",
           "infer_labels", "inferred_message", "unused_message"]


#: String columns whose values average longer than this are free text, not labels.
FREE_TEXT_LENGTH = 40


def _describes_item(ev: Column) -> bool:
    return ev.by_item is not None and ev.by_item.describes()


def _describes_rater(ev: Column) -> bool:
    return ev.by_rater is not None and ev.by_rater.describes()


def decide(ev: dict[Hashable, Column]) -> tuple[list[Hashable], list[str]]:
    """The label columns among the candidates (in their order), and what was left out
    and why: the rule of :func:`infer_labels`."""
    kept: list[Hashable] = []
    left: list[str] = []
    suspects: list[tuple[Hashable, str]] = []
    for col, c in ev.items():
        if looks_gold(col):  # a reference to compare with, not the raters' labels
            left.append(gold_entry(col))
        elif c.kind == "number":
            wide = c.whole and c.hi - c.lo > ID_SPAN
            if wide and _describes_item(c):
                suspects.append((col, "one number per item: an id?"))
            else:
                kept.append(col)
        elif c.kind not in ("string", "categorical"):  # mixed kinds, lists: encode explains
            kept.append(col)
        elif c.kind == "string" and c.n_text and c.n_chars / c.n_text > FREE_TEXT_LENGTH:
            left.append(f"{col!r} (free text)")
        elif len(c.distinct) > 1 and _describes_item(c):
            suspects.append((col, "one value per item: item metadata?"))
        elif len(c.distinct) > 1 and _describes_rater(c):
            suspects.append((col, "one value per rater: rater metadata or a replication?"))
        else:
            kept.append(col)
    # a text column constant within every item (or rater) is metadata only next to
    # labels that do vary; alone, it may be a label everyone agreed on
    if suspects and any(not _describes_item(ev[c]) for c in kept):
        left += [f"{col!r} ({why})" for col, why in suspects]
    else:
        kept = [c for c in ev if c in kept or c in dict(suspects)]
    return kept, left


def inferred_message(kept: list[Hashable], left: list[str]) -> str:
    """The warning of labels inferred with ``left`` left out."""
    return (f"labels inferred from the columns; left out {', '.join(left)}. Choose the "
            f"labels with .xrr(labels=[...]) (kept: {', '.join(map(repr, kept[:6]))}"
            f"{', ...' if len(kept) > 6 else ''}); a replication column with "
            ".xrr(replication='<column>').")


def gold_entry(col: Hashable) -> str:
    """How a gold-looking column left out is named, with the call that uses it."""
    return (f"{col!r} (named like a gold reference: compare the annotations with it by "
            f"validity(data, gold={col!r}) or report(data, gold={col!r}))")


def unused_message(value: Hashable, left: list[Hashable], how: str) -> str:
    """The warning of a long frame read with one value column, naming the other
    columns once (a gold-looking one with the call that uses it)."""
    gold = [c for c in left if looks_gold(c)]
    shown = ", ".join(map(repr, left[:6])) + (" ..." if len(left) > 6 else "")
    return (f"column {value!r} is read as the annotations (the value role, {how}); "
            f"column(s) {shown} are not used"
            + (f" ({gold[0]!r} is named like a gold reference: compare the annotations "
               f"with it by validity(data, gold={gold[0]!r}) or report(data, "
               f"gold={gold[0]!r}))" if gold else "")
            + ". If they are labels too, name every label column with .xrr(labels=[...]); "
            "to silence this, drop the columns you do not need.")


def decide_parts(parts: list[dict[Hashable, Column]]) -> tuple[list[Hashable], list[str]]:
    """:func:`decide` over the evidence of dask partitions merged (the same decision as
    over the whole frame in memory); no label left is refused (:func:`check_kept`)."""
    kept, left = decide(merge_evidence(parts))
    check_kept(kept, left)
    return kept, left


def check_kept(kept: list[Hashable], left: list[str]) -> None:
    """No label left: refuse, naming what looked like metadata."""
    if left and not kept:  # free text or gold alone: nothing to analyse
        raise RoleError(
            "no label columns: every column that plays no role looks like metadata "
            f"({', '.join(left)}). Name the labels with .xrr(labels=[...]).")


def _lone(values: pd.Series, col: Hashable) -> tuple[list[Hashable], list[str]]:
    """:func:`decide` for a single candidate, without grouping by item (the costly
    part): metadata is left out only next to labels that vary, so a lone column is
    kept unless it is free text or named like gold (then none is left: refused)."""
    if looks_gold(col):
        return [], [gold_entry(col)]
    if (not is_number_column(values) and _may_be_text(values)
            and pd.api.types.infer_dtype(values, skipna=True) == "string"):
        text = values.dropna()
        if len(text) and int(text.str.len().sum()) / len(text) > FREE_TEXT_LENGTH:
            return [], [f"{col!r} (free text)"]
    return [col], []


def _may_be_text(values: pd.Series) -> bool:
    """False when an object column cannot be all text: its first value is neither
    text nor missing (a list of labels, a number), which ``infer_dtype`` would only
    say after reading every cell."""
    if values.dtype != object or not len(values):
        return True
    head = values.iat[0]
    return isinstance(head, str) or (pd.api.types.is_scalar(head) and bool(pd.isna(head)))


def infer_labels(df: pd.DataFrame, candidates: list[Hashable], item: Hashable,
                 rater: Hashable, ids: IdCodes | None = None) -> list[Hashable]:
    """The label columns among ``candidates``: metadata-looking text columns left out.

    A text column is left out when it is free text (long strings), or holds
    one value within every item (item metadata, e.g. a split or domain) or
    within every rater (rater metadata, e.g. a group). A numeric column is a
    label unless its integers span more than :data:`.evidence.ID_SPAN` (an id or a
    number like it) and it holds one value within every item. Metadata is
    only left out next to labels that do vary within items (alone, it may be
    a label everyone agreed on). The warning names what was left out and how
    to choose.
    """
    if len(candidates) == 1:  # alone, a column is the label unless it is free text
        kept, left = _lone(df[candidates[0]], candidates[0])
    else:
        kept, left = decide(evidence(df, candidates, item, rater, ids))
    check_kept(kept, left)
    if left:
        warn(inferred_message(kept, left), DroppedDataWarning)
    return kept
