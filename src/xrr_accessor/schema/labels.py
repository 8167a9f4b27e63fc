"""Which columns are labels, when the user did not say: metadata and free text left out."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd

from ..errors import DroppedDataWarning, RoleError, warn

__all__ = ["FREE_TEXT_LENGTH", "ID_SPAN", "infer_labels"]


#: String columns whose values average longer than this are free text, not labels.
FREE_TEXT_LENGTH = 40


def _describes(df: pd.DataFrame, col: Hashable, by: Hashable) -> bool:
    """Whether ``col`` has one value within every group of ``by`` that has several rows."""
    try:
        sizes = df.groupby(by, sort=False, observed=True)[col].transform("size")
        several = (sizes > 1).to_numpy()
        if not several.any():
            return False
        sub = df.loc[several, [by, col]]
        return bool((sub.groupby(by, sort=False, observed=True)[col].nunique(dropna=False)
                     <= 1).all())
    except TypeError:  # unhashable ids or values: reading them fails with a clear error
        return False


#: Integer columns spanning more than this many values may be ids, not ratings.
ID_SPAN = 1000


def _wide_integers(values: pd.Series) -> bool:
    """Integers (or whole floats) whose range is wider than any rating scale."""
    arr = values.to_numpy() if isinstance(values.dtype, np.dtype) else None
    if arr is None or arr.size == 0 or arr.dtype.kind not in "iuf":
        return False
    if arr.dtype.kind == "f":
        if np.isnan(arr).all():
            return False
        lo, hi = np.nanmin(arr), np.nanmax(arr)
    else:
        lo, hi = arr.min(), arr.max()
    if not float(hi) - float(lo) > ID_SPAN:  # cheap: most label columns stop here
        return False
    known = arr[~np.isnan(arr)] if arr.dtype.kind == "f" else arr
    return bool((known == np.floor(known)).all())


def infer_labels(df: pd.DataFrame, candidates: list[Hashable], item: Hashable,
                  rater: Hashable) -> list[Hashable]:
    """The label columns among ``candidates``: metadata-looking text columns left out.

    A text column is left out when it is free text (long strings), or holds
    one value within every item (item metadata, e.g. a split or domain) or
    within every rater (rater metadata, e.g. a group). A numeric column is a
    label unless its integers span more than :data:`ID_SPAN` (an id or a
    number like it) and it holds one value within every item. Metadata is
    only left out next to labels that do vary within items (alone, it may be
    a label everyone agreed on). The warning names what was left out and how
    to choose.
    """
    kept: list[Hashable] = []
    left: list[str] = []
    suspects: list[tuple[Hashable, str]] = []
    for col in candidates:
        values = df[col]
        dtype = values.dtype
        if pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            if _wide_integers(values) and _describes(df, col, item):
                suspects.append((col, "one number per item: an id?"))
            else:
                kept.append(col)
            continue
        text = values.dropna()
        kind = pd.api.types.infer_dtype(text, skipna=True) if len(text) else "empty"
        if kind not in ("string", "categorical"):  # mixed kinds, lists: encode explains
            kept.append(col)
        elif kind == "string" and text.str.len().mean() > FREE_TEXT_LENGTH:
            left.append(f"{col!r} (free text)")
        elif len(text) and text.nunique() > 1 and _describes(df, col, item):
            suspects.append((col, "one value per item: item metadata?"))
        elif len(text) and text.nunique() > 1 and _describes(df, col, rater):
            suspects.append((col, "one value per rater: rater metadata or a replication?"))
        else:
            kept.append(col)
    # a text column constant within every item (or rater) is metadata only next to
    # labels that do vary; alone, it may be a label everyone agreed on
    if suspects and any(not _describes(df, c, item) for c in kept):
        left += [f"{col!r} ({why})" for col, why in suspects]
    else:
        kept = [c for c in candidates if c in kept or c in dict(suspects)]
    if left:
        if not kept:  # pragma: no cover - free text alone: nothing to analyse
            raise RoleError(
                "no label columns: every column that plays no role looks like metadata "
                f"({', '.join(left)}). Name the labels with .xrr(labels=[...]).")
        warn(
            f"labels inferred from the columns; left out {', '.join(left)}. Choose the "
            f"labels with .xrr(labels=[...]) (kept: {', '.join(map(repr, kept[:6]))}"
            f"{', ...' if len(kept) > 6 else ''}); a replication column with "
            ".xrr(replication='<column>').",
            DroppedDataWarning)
    return kept
