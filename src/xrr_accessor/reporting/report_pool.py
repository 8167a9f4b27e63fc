"""The one-pool report: :func:`~xrr_accessor.report` on data with one replication.

The most common reliability question has one pool of raters and no
replication: how well do they agree? :func:`~xrr_accessor.report` answers it
with the same :class:`~xrr_accessor.report.Report`: per-label IRR (with
intervals when ``ci=`` is given) in ``frame``, and beside it the classic
family side by side (:func:`~xrr_accessor.agreement_table`), the raters
against the rest of the pool (:func:`~xrr_accessor.rater_agreement`) and
the items most disagreed on (:func:`~xrr_accessor.item_disagreement`).
:func:`irr_readings` reads each label's IRR in words.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..diagnostics import item_disagreement, rater_agreement
from ..engine import pipeline
from ..engine.infer import WEIGHTS_OF_LEVEL, level_weights
from ..engine.levels import resolve_level
from ..engine.staged import Staged
from ..errors import DroppedDataWarning, UndefinedWarning, warn
from ..schema.roles import is_slot
from ..schema.tally import Tally
from ..uncertainty.orchestration import Uncertainty
from .agreement import agreement_table
from .bands import IRR_NAMES, band_digits, banded, shown_in_band
from .item_scale import largest_d
from .pool_html import no_rater_table
from .rater_view import RATER_BOOT, RATER_CI, RATER_CI_LABELS, with_gold

__all__ = ["WEIGHTS_OF_LEVEL", "band_digits", "irr_readings", "pool_caption", "pool_counts",
           "pool_parts", "shown_in_band"]


def pool_parts(data: Any, level: Any, uncertainty: Uncertainty, min_items: int | None,
               roles: dict[str, Any], table: Any,
               gold: tuple[Any, Any] | None = None) -> dict[str, Any]:
    """The agreement table, rater and item diagnostics of one pool (``table``: its
    :func:`.summary.compute`; warnings pass
    through to the caller, who keeps them as the report's notes). With two
    raters or fewer there is no rater table: each rater against the rest is
    the IRR itself, and the pool without one rater has no agreement left.
    With ``uncertainty.ci``, the agreement table has analytic intervals (none on
    dask-backed data, said in a DroppedDataWarning; Scott's pi and Light's kappa
    none anywhere, said in their ``reason``) and the rater table bootstrap ones
    (the call's n_boot, seed and interval, so the same draws as the IRR's); without
    it, up to :data:`~.rater_view.RATER_CI_LABELS` labels, the rater table has a 95%
    percentile bootstrap of :data:`~.rater_view.RATER_BOOT` replicates (seed 0 unless
    given). ``min_items`` None: :data:`~xrr_accessor.diagnostics.raters.MIN_RATER_ITEMS`.
    ``gold``: (the data with the gold, the gold as :func:`~xrr_accessor.validity` takes
    it): each rater's agreement with it beside (:func:`~.rater_view.with_gold`).
    ``no_raters``: why there is no rater table, in one line (:func:`.pool_html.no_rater_table`;
    "" when there is one)."""
    ci = uncertainty.ci
    n_raters = int(table.tally.rated_raters.max(initial=0))
    n_labels = len(table.result.ann.labels)
    # the level the IRR read (inferred when level= is None: each part infers the same)
    lvl = table.result.level if level is None else resolve_level(level)
    name = lvl.name
    wide = table.result.ann.n_category
    weights, too_many = level_weights(name, wide, pipeline.MAX_MATRIX_CATEGORIES)
    if too_many:
        warn(f"the classic family is unweighted (exact matches): {WEIGHTS_OF_LEVEL[name]} "
             f"weights over {wide:,} distinct values need a {wide:,} x {wide:,} matrix; "
             "alpha reads them as numbers at the interval level, metric='icc' too.",
             UndefinedWarning)
    if weights is None:  # said, not silently missing
        fits = ("agreement_table(data) counts exact set matches" if lvl.sets else
                "agreement_table(data, weights='quadratic') weighs ratios as interval "
                "numbers" if name == "ratio" else
                "agreement_table(data, weights=W) takes a K x K matrix of agreement weights")
        warn(f"no agreement table (the classic family) at level={name!r}: its weights "
             "are unweighted (nominal), linear (ordinal) or quadratic (interval); "
             f"{fits}.", UndefinedWarning)
    slots = is_slot(table.result.ann.role_names.get("rater"))
    if slots and n_raters > 2:  # a count table: ratings numbered within items
        warn("the raters are anonymous slots within each item (a count table): no rater "
             "table, and the classic family without the coefficients that follow a rater "
             "across items.", UndefinedWarning)
    lazy = isinstance(data, Staged)
    if lazy:  # dask-backed: the same calls on the data, computed together now
        data, more, _ = data.origin
        roles = {**more, **roles}
        if ci is not None and weights is not None:
            warn("on dask-backed data the one-pool report's agreement table has no "
                 "intervals (its analytic intervals read every annotation); call "
                 "agreement_table(data, ci=...) on the data in memory for them.",
                 DroppedDataWarning)
    calls = {
        "agreement": (agreement_table(data, weights=weights, ci=None if lazy else ci,
                                      **roles) if weights is not None else None),
        "raters": (rater_agreement(data, level=level, min_items=min_items,
                                   **_rater_boot(uncertainty, n_labels), **roles)
                   if n_raters > 2 and not slots else None),
        "items": item_disagreement(data, level=level, **roles) if n_raters else None,
    }
    if not n_raters:  # 0 rows: every estimate NaN (with its warning), no tables to rank
        warn("the data hold no annotations: the report has no item or rater table.",
             UndefinedWarning)
    if lazy:
        from ..lazy.graph import compute_all

        names = [k for k, v in calls.items() if v is not None]
        lazies: list[Any] = [calls[k] for k in names]
        calls.update(zip(names, compute_all(*lazies), strict=True))
    items = calls["items"]
    if not lazy and isinstance(items, pd.DataFrame):  # what D means: its largest value
        items.attrs["largest_d"] = largest_d(data, level, roles).reset_index().to_dict(
            "records")  # records, not a frame: attrs are compared when frames combine
    if gold is not None:
        calls["raters"] = _gold_beside(calls["raters"], gold, lvl, roles)
    why = no_rater_table(n_raters, slots) if calls["raters"] is None else (
        "" if isinstance(calls["raters"], pd.DataFrame) else no_rater_table(3, False, True))
    return {**calls, "no_raters": why}


def pool_caption(attrs: dict[str, Any]) -> str:
    """The one-pool report's caption (:meth:`Report.caption`): its IRR, level, intervals."""
    parts = [f"IRR: {attrs.get('irr')}", f"level: {attrs.get('level')}"
             + (" (inferred from the values)" if attrs.get("level_inferred") else ""),
             "one replication: the IRR report (kappa_x needs two)"]
    if "ci" in attrs:
        parts.append(f"{attrs['ci']:.0%} {attrs.get('interval', '')} intervals from "
                     f"{attrs.get('n_boot')} bootstrap replicates of items")
    return "; ".join(parts)


def _rater_boot(uncertainty: Uncertainty, n_labels: int) -> dict[str, Any]:
    """The rater table's interval: the call's bootstrap, or the report's default one."""
    if uncertainty.ci is not None:
        return {"ci": uncertainty.ci, "n_boot": uncertainty.n_boot, "seed": uncertainty.seed,
                "interval": uncertainty.interval}
    if n_labels > RATER_CI_LABELS:
        return {}
    return {"ci": RATER_CI, "n_boot": RATER_BOOT, "interval": "percentile",
            "seed": 0 if uncertainty.seed is None else uncertainty.seed}


def _gold_beside(raters: Any, gold: tuple[Any, Any], level: Any, roles: dict[str, Any]
                 ) -> Any:
    """The rater table with each rater's agreement with the gold beside (said when there
    is no table to put it in)."""
    if not isinstance(raters, pd.DataFrame):
        warn("gold= is not shown: the report has no rater table (two raters or fewer, or "
             "xarray data); validity(data, gold=...) compares the raters with the gold.",
             UndefinedWarning)
        return raters
    from ..diagnostics.rater_gold import rater_gold

    return with_gold(raters, rater_gold(gold[0], gold[1], level=level, **roles))


def pool_counts(t: Tally, names: list[Any]) -> dict[str, dict[str, int]]:
    """Items, raters and annotation rows of each replication (any label), from its counts."""
    return {str(name): {"items": int(t.items[r]), "raters": int(t.raters[r]),
                        "rows": int(t.rows[r])} for r, name in enumerate(names)}


def irr_readings(report: Any, digits: int = 2) -> pd.DataFrame:
    """One sentence per label reading the IRR of a one-pool report.

    The band is Landis and Koch's (1977); with an interval, the bands of its
    two limits say how far the reading can move ("the interval spans fair
    to moderate").

    Returns
    -------
    DataFrame
        Columns ``label``, ``replication``, ``replication_other`` (NaN),
        ``pair`` (the pool), ``verdict`` (the estimate's band, or
        ``"undefined"``), ``estimate``, ``lower``, ``upper`` and ``text``.

    Examples
    --------
    >>> import warnings
    >>> from xrr_accessor import report
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=300, labels=["joy"], pools=["A"], seed=5)
    >>> with warnings.catch_warnings():  # items with one annotation: left out, said
    ...     warnings.simplefilter("ignore")
    ...     rep = report(df)
    >>> print(irr_readings(rep).loc[0, "text"])  # doctest: +ELLIPSIS
    On joy, the raters of A agree at Cohen's kappa 0.08, slight on Landis and Koch's scale ...
    """
    frame = report.frame[report.frame["statistic"] == "irr"]
    what = IRR_NAMES.get(str(report.attrs.get("irr")), str(report.attrs.get("irr")))
    named = report.attrs.get("pool")  # None: the data have no replication column
    rows = []
    for r in frame.itertuples(index=False):
        x = float(r.estimate)
        lo, hi = float(getattr(r, "lower", np.nan)), float(getattr(r, "upper", np.nan))
        pool = r.replication
        raters = "the raters" if named is None else f"the raters of {pool}"
        if not np.isfinite(x):
            band = "undefined"
            text = (f"On {r.label}, {what} of {raters} is undefined (no item with two "
                    "annotations, or a single value throughout: see the report's notes).")
        else:
            band, phrase = banded(x, lo, hi, digits)
            text = f"On {r.label}, {raters} agree at {what} {phrase}"
            if x <= 0:
                text += " At or below 0, the raters agree no more than chance would."
        rows.append({"label": r.label, "replication": pool, "replication_other": np.nan,
                     "pair": "all raters" if named is None else str(pool),
                     "verdict": band, "estimate": x, "lower": lo, "upper": hi, "text": text})
    return pd.DataFrame(rows, columns=["label", "replication", "replication_other", "pair",
                                       "verdict", "estimate", "lower", "upper", "text"])
