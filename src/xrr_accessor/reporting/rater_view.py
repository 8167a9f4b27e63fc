"""The one-pool report's rater table as a person reads it.

Only ranked raters are listed (:func:`ranked`): those below ``min_items`` are
counted in one sentence (:func:`unranked_sentence`), not ranked. With a gold
reference each rater's agreement with the gold sits beside the agreement with
the pool (:func:`with_gold`), and one sentence per label says how far the two
rankings agree (:func:`gold_sentences`: Spearman's rho over the ranked raters),
so a reader knows how much to trust a ranking made without gold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..diagnostics._common import unbind
from .cells import fixed

__all__ = ["COUNTS", "GOLD_POOLS", "RATER_BOOT", "RATER_CI", "RATER_CI_LABELS",
           "gold_agreement", "gold_sentences", "page_raters", "pool_alpha", "ranked", "split_gold",
           "unranked_sentence", "with_gold"]

#: The rater table's default interval in the report (no ``ci=``): a 95% percentile
#: bootstrap of 200 replicates of items: enough to tell a rater at 0 from the pool's
#: level, at a fifth of the 1000-replicate BCa's cost (docs/definitions.md).
RATER_CI, RATER_BOOT = 0.95, 200
#: Above this many labels the report's rater table has no default interval (``ci=`` asks).
RATER_CI_LABELS = 20


def ranked(raters: pd.DataFrame, top: int | None = None) -> pd.DataFrame:
    """The ranked rows of a :func:`~xrr_accessor.rater_agreement` table (those with
    ``attrs["min_items"]`` items or more, a NaN score among them, without a rank, kept),
    at most ``top`` per label and replication, worst first.

    Examples
    --------
    >>> t = pd.DataFrame({"kappa_x": [0.1, 0.5, 0.0], "n_annotations": [12, 30, 1]},
    ...                  index=pd.Index(list("abc"), name="r"))
    >>> t.attrs["min_items"] = 10
    >>> ranked(t).index.tolist()
    ['a', 'b']
    """
    shown = raters[raters["n_annotations"] >= raters.attrs.get("min_items", 1)]
    if top is None:
        return shown
    if shown.index.nlevels > 1:
        return shown.groupby(level=list(range(shown.index.nlevels - 1)), sort=False).head(top)
    return shown.head(top)


#: The page's one column for a rater's three counts: annotations (shared, others').
COUNTS = "annotations (shared, others')"
#: Labels whose pool alpha :func:`pool_alpha` names (the rest counted).
ALPHA_LABELS = 5
#: Most decimals the page gives a small delta_alpha (its three leading digits shown).
MAX_DECIMALS = 6


def _decimals(values: pd.Series, digits: int) -> int:
    """``digits``, or more where the column's largest magnitude would print as 0.000:
    enough for its first ``digits`` significant digits (at most :data:`MAX_DECIMALS`)."""
    v = np.abs(values.to_numpy(dtype=float))
    v = v[np.isfinite(v) & (v > 0)]
    if not len(v):
        return digits
    lead = int(np.floor(np.log10(v.max())))  # 0.0024 -> -3
    return int(min(MAX_DECIMALS, max(digits, digits - lead - 1)))


def page_raters(shown: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The rater table as the one-pool page prints it, narrow enough for a 1280 px
    screen: each value with an interval one cell "v [lo, hi]", the pool's ``alpha``
    (the same on every row of a label) left out, the three counts one cell
    (:data:`COUNTS`: "18 (18, 72)"), ``rank`` first; numbers as text, a column of
    small values (``delta_alpha``) with the decimals that show its leading digits.

    Examples
    --------
    >>> t = pd.DataFrame({"kappa_x": [0.1], "kappa_x_lower": [-0.2], "kappa_x_upper": [0.3],
    ...                   "alpha": [0.5], "rank": [1], "n_annotations": [18],
    ...                   "n_shared": [18], "n_other": [72]}, index=pd.Index(["a"], name="r"))
    >>> page_raters(t).iloc[0].tolist()
    ['1', '0.100 [-0.200, 0.300]', '18 (18, 72)']
    """
    bounded = {c[: -len("_lower")] for c in shown.columns
               if c.endswith("_lower") and c[: -len("_lower")] + "_upper" in shown.columns}
    counts = ("n_annotations", "n_shared", "n_other")
    skip = {"rank", "alpha", *counts, *(f"{c}_{s}" for c in bounded for s in ("lower", "upper"))}
    out = pd.DataFrame(index=shown.index)
    if "rank" in shown.columns:
        out["rank"] = [("" if pd.isna(r) else f"{int(r):,}") for r in shown["rank"]]
    for c in shown.columns:
        if c in skip:
            if c == "n_annotations" and all(k in shown.columns for k in counts):
                out[COUNTS] = [f"{int(a):,} ({int(b):,}, {int(o):,})" for a, b, o in
                               zip(*(shown[k] for k in counts), strict=True)]
            continue
        col = shown[c]
        if not pd.api.types.is_float_dtype(col):
            out[c] = [("" if pd.isna(v) else f"{v:,}" if isinstance(v, int | np.integer)
                       else str(v)) for v in col]
            continue
        parts = [col, shown[f"{c}_lower"], shown[f"{c}_upper"]] if c in bounded else [col]
        d = max(_decimals(p, digits) for p in parts) if c.startswith("delta") else digits
        if c in bounded:
            out[c] = [fixed(v, d) + (f" [{fixed(lo, d)}, {fixed(hi, d)}]"
                                     if np.isfinite(lo) and np.isfinite(hi) else "")
                      for v, lo, hi in zip(*parts, strict=True)]
        else:
            out[c] = [fixed(v, d) for v in col]
    return out


def pool_alpha(shown: pd.DataFrame, digits: int = 3) -> str:
    """The pool's alpha with every rater, the column :func:`page_raters` leaves out, in
    words ("" when the table has none), per label past one (the first
    :data:`ALPHA_LABELS` named, the rest in ``report.raters``).

    Examples
    --------
    >>> t = pd.DataFrame({"alpha": [0.3231, 0.3231]}, index=pd.Index(["a", "b"], name="r"))
    >>> pool_alpha(t)
    "The pool's alpha with every rater: 0.323."
    """
    if "alpha" not in shown.columns or not len(shown):
        return ""
    keys = (shown.index.get_level_values("label") if "label" in (shown.index.names or [])
            else np.zeros(len(shown), dtype=int))
    per = shown["alpha"].groupby(np.asarray(keys), sort=False).first()
    if len(per) == 1:
        return f"The pool's alpha with every rater: {fixed(float(per.iloc[0]), digits)}."
    more = len(per) - ALPHA_LABELS
    return ("The pool's alpha with every rater: "
            + ", ".join(f"{k} {fixed(float(v), digits)}" for k, v in
                        per.iloc[:ALPHA_LABELS].items())
            + (f", and {more} more labels (report.raters)" if more > 0 else "") + ".")


def unranked_sentence(raters: pd.DataFrame,
                      how: str = "they keep their row; min_items=1 ranks every rater") -> str:
    """"12 raters with fewer than 10 items are not ranked (``how``)." from the table's
    attrs ("" when every rater is ranked).

    Examples
    --------
    >>> t = pd.DataFrame({"label": ["joy"] * 3})
    >>> t.attrs = {"min_items": 10, "n_below_min_items": 2}
    >>> unranked_sentence(t)[:49]
    '2 raters with fewer than 10 items are not ranked '
    """
    n, cut = raters.attrs.get("n_below_min_items", 0), raters.attrs.get("min_items", 1)
    if not n:
        return ""
    labels = (raters.index.get_level_values("label").nunique()
              if "label" in (raters.index.names or []) else 1)
    return (f"{n} rater{'s' if n != 1 else ''}"
            + (f" (counted once per label of {labels})" if labels > 1 else "")
            + f" with fewer than {cut} items {'is' if n == 1 else 'are'} not ranked ({how}).")


#: Why a report refuses a gold column on data of several replications.
GOLD_POOLS = ("gold= as a column, Series or frame goes beside the rater table of one pool; "
              "these data hold several replications: name the gold's replication (the "
              "models page), or call validity(data, gold=...).")


def split_gold(data: Any, other: Any, gold: Any, roles: dict[str, Any]
               ) -> tuple[Any, dict[str, Any], tuple[Any, Any] | None]:
    """A report's ``gold=`` read for the one-pool rater table: (data without the gold
    column(s), roles, (the data with them, the gold)) when ``gold`` is a column (or a
    mapping label -> column) of ``data``, a Series or a DataFrame; else (data, roles,
    None): a replication name, for the models page.

    Examples
    --------
    >>> df = pd.DataFrame({"item": [1, 1], "rater": ["a", "b"], "joy": [1, 0], "gold": [1, 1]})
    >>> rest, _, (full, gold) = split_gold(df, None, "gold", {})
    >>> list(rest.columns), gold
    (['item', 'rater', 'joy'], 'gold')
    """
    if gold is None or other is not None:
        return data, roles, None
    data, roles = unbind(data, roles)
    if isinstance(gold, pd.Series | pd.DataFrame):
        return data, roles, (data, gold)
    cols = list(gold.values()) if isinstance(gold, Mapping) else [gold]
    try:
        if isinstance(data, pd.DataFrame) and all(c in data.columns for c in cols):
            return data.drop(columns=cols), roles, (data, gold)
        if isinstance(data, xr.Dataset) and all(c in data.data_vars for c in cols):
            return data.drop_vars(cols), roles, (data, gold)
    except TypeError:  # an unhashable name: not a column
        pass
    return data, roles, None


def with_gold(raters: pd.DataFrame, gold: pd.DataFrame) -> pd.DataFrame:
    """``raters`` with the gold columns of :func:`~.diagnostics.rater_gold.rater_gold`
    after ``n_annotations``, matched by label and rater; attrs kept, plus
    ``gold_spearman`` (:func:`gold_agreement` as records)."""
    names = list(raters.index.names)
    rater = raters.index.get_level_values(len(names) - 1)
    label = (raters.index.get_level_values("label") if "label" in names
             else np.repeat(gold.index.get_level_values("label")[:1], len(raters)))
    got = gold.reindex(pd.MultiIndex.from_arrays([label, rater]))
    out = raters.copy()
    at = list(out.columns).index("n_annotations") if "n_annotations" in out.columns else 0
    for k, col in enumerate(got.columns):
        out.insert(at + k, col, got[col].to_numpy())
    out.attrs = dict(raters.attrs)
    out.attrs["gold_spearman"] = gold_agreement(out).reset_index().to_dict("records")
    return out


def _score(raters: pd.DataFrame) -> pd.Series:
    """The score the table ranks on, higher = agrees more with the pool."""
    if raters.attrs.get("ranked_by", "kappa_x") == "alpha":
        return -raters["delta_alpha"]
    return raters["kappa_x"]


def gold_agreement(raters: pd.DataFrame) -> pd.DataFrame:
    """Per label, Spearman's rho between the pool-based score (``kappa_x``, or
    ``-delta_alpha`` when ranked by alpha) and ``gold_kappa_x`` over the ranked raters
    with both finite, and their number ``n`` (rho NaN below 3 raters or with a
    constant score): the ranks' Pearson correlation, ties at their mean rank."""
    shown = ranked(raters)
    keep = np.isfinite(_score(shown)) & np.isfinite(shown["gold_kappa_x"])
    both = pd.DataFrame({"pool": _score(shown)[keep], "gold": shown["gold_kappa_x"][keep]})
    labels = (both.index.get_level_values("label") if "label" in (both.index.names or [])
              else np.zeros(len(both), dtype=int))
    rows = []
    for lab in pd.unique(np.asarray(raters.index.get_level_values("label")
                                    if "label" in (raters.index.names or []) else [0])):
        part = both[np.asarray(labels) == lab]
        rho = np.nan
        if len(part) >= 3 and part["pool"].nunique() > 1 and part["gold"].nunique() > 1:
            rho = float(part["pool"].rank().corr(part["gold"].rank()))
        rows.append({"label": lab, "rho": rho, "n": len(part)})
    return pd.DataFrame(rows).set_index("label")


def reading_of(rho: float) -> str:
    """What Spearman's rho between the pool-based and the gold-based rankings says.

    Examples
    --------
    >>> reading_of(0.8).split(",")[0], reading_of(-0.5).split(":")[0]
    ('a close agreement', 'opposite rankings')
    """
    if rho >= 0.7:
        return "a close agreement, so the pool-based ranking can be trusted"
    if rho >= 0.4:
        return ("a moderate agreement, so trust the ends of the pool-based ranking more "
                "than its order")
    if rho >= 0:
        return ("a weak agreement, so the pool-based ranking says little about who matches "
                "the gold: rank by gold_kappa_x")
    return ("opposite rankings: the raters the pool ranks best tend to agree least with the "
            "gold, so rank by gold_kappa_x and check the pool for a shared error")


def gold_sentences(raters: pd.DataFrame, digits: int = 2) -> list[str]:
    """One sentence per label: how far the pool-based ranking agrees with the gold-based
    one (Spearman's rho and its n), and what that means for trusting it."""
    if "gold_kappa_x" not in raters.columns:
        return []
    what = ("kappa_x against the rest of the pool" if raters.attrs.get("ranked_by", "kappa_x")
            == "kappa_x" else "delta_alpha")
    several = "label" in (raters.index.names or [])
    out = []
    for lab, row in gold_agreement(raters).iterrows():
        where = f"On {lab}, t" if several else "T"
        rho, n = float(row["rho"]), int(row["n"])
        if not np.isfinite(rho):
            out.append(f"{where}he ranking by {what} cannot be checked against the gold: "
                       f"{n} ranked rater{'s' if n != 1 else ''} with gold (3 with different "
                       "scores needed).")
            continue
        rho = round(rho, digits)  # the reading follows the number printed
        reading = reading_of(rho)
        out.append(f"{where}he ranking by {what} and the ranking by agreement with the gold "
                   f"(gold_kappa_x) agree at Spearman's rho = {rho:.{digits}f} over {n} ranked "
                   f"raters: {reading}.")
    return out
