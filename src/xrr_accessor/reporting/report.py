"""The paper's Table 5 for any data, as an object: :func:`report` -> :class:`Report`.

One row per label of the paper's table: the IRR of each replication, kappa_x and normalized
kappa_x of each replication pair, with the items and annotations behind each number,
Landis-Koch bands, and interval columns when ``ci=`` is given. The numbers come from
:func:`.summary.compute`, the same computation as :func:`~xrr_accessor.summary`.

:class:`Report` wraps a tidy DataFrame (one row per label x statistic x replication or pair)
rather than subclassing DataFrame: pandas subclasses must carry their metadata through every
operation (``_metadata``, ``_constructor``) and lose it silently in many of them, while a
wrapper keeps the tidy frame a plain DataFrame (``report.frame``) for any further pandas
work, and the paper's wide layout one call away (:meth:`Report.wide`).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np
import pandas as pd

from ..diagnostics._common import unbind
from ..engine.pipeline import kind_of
from ..engine.results import pair_index
from ..errors import InputError, XRRWarning, collecting, warn
from ..lazy import deferrable
from ..textsafe import csv_safe, export_text, json_value, markdown_cell, writing
from ..uncertainty.orchestration import Uncertainty
from .cells import TITLES, cell_names, number
from .rater_view import GOLD_POOLS, split_gold
from .report_pool import pool_caption, pool_counts, pool_parts
from .summary import compute, pooled_frame
from .tidy import STATISTICS, tidy

__all__ = ["STATISTICS", "TITLES", "Report", "cell_names", "number", "report"]


@dataclass
class Report:
    """The xRR table of a data set: tidy underneath, the paper's layout on show.

    Attributes
    ----------
    frame : DataFrame
        One row per label, statistic (``irr``, ``kappa_x``, ``normalized``)
        and cell: ``replication`` (and ``replication_other`` for a pair);
        ``estimate`` (and ``se``, ``lower``, ``upper`` with intervals);
        ``n_items`` (items the estimate uses: rated at least twice in the
        replication for an IRR, rated in both replications for a pair),
        ``n_annotations`` (annotations of the label in the replication, or in
        both), ``n_unpairable`` (items left out: a single annotation for an
        IRR, only one of the two replications for a pair), ``band`` (Landis &
        Koch, for IRR and kappa_x) and ``reference`` (for normalized kappa_x:
        the replication whose IRR normalizes it, or ``"both"`` for Eq 13's
        geometric mean).
    attrs : dict
        The call: ``irr``, ``level``, ``reference``, ``ci`` and the bootstrap
        settings; ``replications``: per replication, its ``items``, ``raters``
        and ``rows`` (annotated (item, rater) pairs, any label); ``notes``:
        the messages of the warnings raised while computing it (undefined
        cells, left-out data, intervals to read as rough), each once; one pool:
        ``no_raters``, why there is no rater table ("" when there is one).
    """

    frame: pd.DataFrame
    attrs: dict[str, Any] = field(default_factory=dict)
    #: One pool only (no replication pair): the classic family side by side
    #: (:func:`~xrr_accessor.agreement_table`; None at a level it has no weights for),
    #: the raters against the rest (:func:`~xrr_accessor.rater_agreement`) and the
    #: items by disagreement (:func:`~xrr_accessor.item_disagreement`).
    agreement: pd.DataFrame | None = None
    raters: pd.DataFrame | None = None
    items: pd.DataFrame | None = None
    #: With intervals and two labels or more: per statistic and cell, the mean
    #: over labels with its interval from the same bootstrap replicates
    #: (``statistic``, ``replication``, ``replication_other``, ``estimate``,
    #: ``se``, ``lower``, ``upper``, ``n_labels``); NaN where a label is NaN.
    pooled: pd.DataFrame | None = None
    #: The models page (``candidates=``, ``epsilon=`` or ``gold=``): per label, a row per
    #: candidate and one for the humans (:data:`~.models_table.MODEL_COLUMNS`), the
    #: label distribution of every source, and the alternative annotator test.
    models: pd.DataFrame | None = None
    distribution: pd.DataFrame | None = None
    alt: Any = None

    @property
    def one_pool(self) -> bool:
        """True for the IRR report of one replication (no kappa_x)."""
        return not (self.frame["statistic"] != "irr").any()

    def wide(self, quantity: str = "estimate") -> pd.DataFrame:
        """The paper's layout: one row per label, columns (statistic, cell); ``quantity``
        picks ``estimate`` (default), ``se``, ``lower``, ``upper`` or any column of
        :attr:`frame`."""
        keys = ("label", "statistic", "replication", "replication_other")
        shown = [c for c in self.frame.columns if c not in keys]  # estimate first
        if quantity not in shown:
            raise InputError(f"quantity={quantity!r} is not a column of the report; use one "
                             f"of {shown}.")
        f = self.frame.assign(cell=cell_names(self.frame))
        out = f.pivot(index="label", columns=["statistic", "cell"], values=quantity)
        columns = pd.MultiIndex.from_frame(f[["statistic", "cell"]].drop_duplicates())
        return out.reindex(index=pd.unique(f["label"]), columns=columns)

    def _display(self, digits: int = 3) -> pd.DataFrame:
        """Estimates as text, with their intervals when there are any."""
        est = self.wide("estimate")
        if "lower" not in self.frame.columns:
            return est.map(lambda v: number(v, digits))
        lo, hi = self.wide("lower"), self.wide("upper")
        cells = {c: [f"{number(e, digits)} [{number(a, digits)}, {number(b, digits)}]"
                     if np.isfinite(e) else "NaN" for e, a, b in zip(est[c], lo[c], hi[c],
                                                                    strict=True)]
                 for c in est.columns}
        return pd.DataFrame(cells, index=est.index, columns=est.columns)

    @property
    def title(self) -> str:
        """The page's default title: "IRR report" (one pool), "xRR report", or the models'."""
        if self.models is not None:
            from .models_html import TITLE

            return TITLE
        return "IRR report" if self.one_pool else "xRR report"

    def caption(self) -> str:
        """One line saying what the table holds."""
        a = self.attrs
        if self.one_pool:
            return pool_caption(a)
        parts = [f"IRR: {a.get('irr')}", f"level: {a.get('level')}"
                 + (" (inferred from the values)" if a.get("level_inferred") else "")]
        ref = a.get("reference")
        parts.append("normalized by " + (f"the IRR of {ref!s}" if ref is not None
                                         else "sqrt(IRR_X IRR_Y) (Eq 13)"))
        if a.get("items") == "common":
            parts.append("items: those every replication rated at least twice, or once where "
                         "it has one rater (common)")
        elif "items" in a:
            parts.append("items: each IRR on its replication's items rated at least "
                         "twice, kappa_x on the items both replications rated")
        if "ci" in a:
            parts.append(f"{a['ci']:.0%} {a.get('interval', '')} intervals from "
                         f"{a.get('n_boot')} bootstrap replicates of items")
        return "; ".join(parts)

    @overload
    def to_markdown(self, digits: int = ..., *, path: None = ...) -> str: ...
    @overload
    def to_markdown(self, digits: int = ..., *, path: str | Path) -> None: ...

    def to_markdown(self, digits: int = 3, *, path: str | Path | None = None) -> str | None:
        """The paper's layout as a Markdown table (a string when ``path`` is None), names
        escaped by :func:`~xrr_accessor.textsafe.markdown_cell`: a ``|`` or line break in a
        label or replication name stays in its cell, HTML in it shows as text."""
        shown = self._display(digits)
        head = ["label", *(f"{TITLES[s]} {c}" for s, c in shown.columns)]
        rows = [head, *([label, *row] for label, row in shown.iterrows())]
        lines = ["| " + " | ".join(map(markdown_cell, r)) + " |" for r in rows]
        lines.insert(1, "|---" + "|---:" * (len(head) - 1) + "|")
        text = "\n".join(lines) + f"\n\n{markdown_cell(self.caption())}\n"
        return export_text(path, text, "report.md")

    def _repr_html_(self) -> str:
        shown = self._display()
        shown.columns = pd.MultiIndex.from_tuples(
            [(TITLES[s], c) for s, c in shown.columns])
        shown = shown.rename_axis(index=None)
        return (f"<div><p><b>{self.title}</b> ({html.escape(self.caption())})</p>"
                f"{shown.to_html(na_rep='NaN', justify='center')}</div>")

    def __repr__(self) -> str:
        return f"{self.caption()}\n{self._display().to_string()}"

    def to_csv(self, path: str | Path | None = None, raw: bool = False,
               **kwargs: Any) -> str | None:
        """The tidy frame as CSV (``DataFrame.to_csv``; a string when ``path`` is None).

        Safe in a spreadsheet (:func:`~xrr_accessor.textsafe.csv_safe`): a control character
        in a name (carriage return, tab) is written as a visible escape (``\\r``), a name
        whose first visible character is ``=``, ``+``, ``-`` or ``@`` gets a leading ``'``;
        numbers stay numbers. ``raw=True`` writes the names exactly, for machine readers.
        A ``path`` that cannot be written raises InputError."""
        frame = self.frame if raw else csv_safe(self.frame)
        with writing(path, "report.csv"):  # no path: pandas returns the text
            return frame.to_csv(path, index=False, **kwargs)

    def to_json(self, path: str | Path | None = None, **kwargs: Any) -> str | None:
        """The tidy frame as JSON records, with the call's settings under ``attrs``:
        ``{"attrs": {...}, "rows": [...]}`` (a string when ``path`` is None)."""
        rows = json.loads(self.frame.to_json(orient="records", **kwargs))
        text = json.dumps({"attrs": json_value(self.attrs), "rows": rows}, indent=1)
        return export_text(path, text, "report.json")

    def readings(self, digits: int = 2) -> pd.DataFrame:
        """A plain-language sentence per label and pair reading normalized kappa_x
        (:func:`~xrr_accessor.reporting.reading.readings`); for one pool, per label reading
        its IRR (:func:`~xrr_accessor.reporting.report_pool.irr_readings`); on the models
        page, per label and candidate whether it can replace the annotators
        (:func:`~xrr_accessor.reporting.models_reading.model_readings`)."""
        if self.models is not None:
            from .models_reading import model_readings

            return model_readings(self, digits)
        if self.one_pool:
            from .report_pool import irr_readings

            return irr_readings(self, digits)
        from .reading import readings

        return readings(self, digits)

    def to_html(self, path: str | Path | None = None, title: str | None = None,
                figures: bool = True, digits: int = 3) -> str | None:
        """The report as one self-contained HTML page (no network, no script): it leads
        with its answer, the reading of every pair or label (:meth:`readings`), then the
        table with intervals and Landis-Koch bands (one pool: the classic family, the
        raters or why none, the items most disagreed on with ties in one line), the
        figures that say something (inline PNG), the data and the warnings. Needs jinja2
        (the ``io`` extra), for figures matplotlib (``plot``).

        Parameters
        ----------
        path : str or Path, optional
            Where to write the page (UTF-8); None returns it as a string. A path that
            cannot be written raises InputError (it names the path and the fix).
        title : str, optional
            The page's heading (default :attr:`title`: "IRR report" for one pool).
        figures : bool
            Draw the figures (False: the page needs no matplotlib).
        digits : int
            Decimals in the table.

        Returns
        -------
        str or None

        Examples
        --------
        >>> from xrr_accessor import report
        >>> from xrr_accessor.datasets import simulate
        >>> rep = report(simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=5))
        >>> page = rep.to_html(figures=False)
        >>> page.startswith("<!DOCTYPE html>"), "A and B on joy" in page
        (True, True)
        """
        from .report_html import to_html

        page = str(to_html(self, None, title=title, figures=figures, digits=digits))
        return export_text(path, page, "report.html")

    @property
    def plot(self) -> Any:
        """The paper's figures of this report (the ``plot`` extra: matplotlib)."""
        from .plotting import ReportPlots

        return ReportPlots(self)


@deferrable
def report(
    data: Any, other: Any = None, irr: str | None = None, level: Any = None,
    reference: Any = None, ci: float | None = None, n_boot: int = 1000,
    seed: int | None = None, interval: str = "bca", progress: bool | None = None,
    sort_by: str | None = None, items: str = "all", min_items: int | None = None,
    candidates: Any = None, gold: Any = None, epsilon: float | None = None, q: float = 0.05,
    **roles: Any,
) -> Report:
    """The paper's Table 5 for ``data``: IRR, kappa_x and normalized kappa_x per label.

    On data with one replication (or no replication column) and no ``other``,
    the IRR report of that pool: per-label IRR (with intervals when ``ci=``
    is given), and in :attr:`Report.agreement`, :attr:`Report.raters` and
    :attr:`Report.items` the classic family side by side, each rater against
    the rest of the pool, and the items most disagreed on; ``readings()``,
    ``to_html()`` and the CLI's ``xrr report FILE`` show them.

    Parameters
    ----------
    data, other : annotations
        As in :func:`~xrr_accessor.cross_kappa`: two or more replications in
        ``data``, or one set in each; or one pool (see above).
    irr : {"cohen", "alpha", "iota"}, optional
        The IRR reported and used to normalize. Default: Cohen's kappa (the
        paper's Table 5) where no replication has more than two raters, else
        Krippendorff's alpha; ``report.attrs["irr"]`` says which.
    level : str, matrix or callable, optional
        Level of measurement (default: inferred from the values, as in
        :func:`~xrr_accessor.irr`).
    reference : replication name, "self" or "other", optional
        Normalize by this replication's IRR only (Section 6: crowd against
        experts); the ``reference`` column says which was used.
    ci, n_boot, seed, interval, progress
        Bootstrap intervals of every number, all from the same draws of items
        (see :func:`~xrr_accessor.cross_kappa`).
    sort_by : {"irr", "kappa_x", "normalized"}, optional
        Order labels by the mean of this statistic over its cells, highest
        first (default: the data's order).
    items : {"all", "common"}
        The items behind the numbers, as in :func:`~xrr_accessor.summary`:
        ``"common"`` computes the IRRs and kappa_x on the items every
        replication rated at least twice; the caption says which.
    min_items : int, optional
        One pool: raters with fewer items are counted, not ranked, in :attr:`Report.raters`
        (:func:`~xrr_accessor.rater_agreement`; default 10; intervals even without ``ci=``:
        :mod:`.rater_view`). The models page: humans with fewer compared items are not
        tested (default 30, the paper's).
    candidates : name or list of names, optional
        The models page ("Can these models replace the annotators?", with
        ``reference=`` naming the human pool): the replications tested against the
        humans (default: every other one but ``gold``). Given, or ``epsilon=`` or
        ``gold=`` given, :attr:`Report.models`, :attr:`Report.distribution` and
        :attr:`Report.alt` hold the page (docs/definitions.md, "Models as annotators"),
        ``readings()`` reads it candidate by candidate and ``to_html()`` leads with it.
    gold : replication name, column name, Series or DataFrame, optional
        The models page: a replication holding gold labels (typically one rater):
        kappa_x of the humans and of each candidate against it, and each candidate's
        difference from the humans' (``compare(reference=gold)``). One pool: a column of
        ``data`` (not a label), or a gold as :func:`~xrr_accessor.validity` takes it: each
        rater's agreement with it in :attr:`Report.raters` (:mod:`.rater_view`).
    epsilon : float, optional
        The models page: the alternative annotator test's cost-benefit margin
        (:func:`~xrr_accessor.alt_test`); without it the test is not run and the page
        says so.
    q : float
        The models page: the test's false discovery rate (default 0.05).
    **roles
        Column or dimension names.

    Returns
    -------
    Report

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=400, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    >>> rep = report(df)
    >>> rep.frame[["label", "statistic", "replication", "replication_other"]].head(3)
      label statistic replication replication_other
    0   joy       irr           A               NaN
    1   joy       irr           B               NaN
    2   joy   kappa_x           A                 B
    >>> rep.wide().columns.get_level_values(0).unique().tolist()
    ['irr', 'kappa_x', 'normalized']
    """
    if sort_by is not None and sort_by not in STATISTICS:
        raise InputError(f"sort_by={sort_by!r}; use one of {list(STATISTICS)} (or None).")
    data, roles, pool_gold = split_gold(data, other, gold, roles)
    models = any(v is not None for v in (candidates, epsilon, None if pool_gold else gold))
    with collecting() as caught:  # this call's own warnings, thread-safe: kept as notes
        uncertainty = Uncertainty(ci, n_boot=n_boot, seed=seed, interval=interval,
                                  progress=progress)
        parts: dict[str, Any] = {}
        if models:  # can these models replace the annotators?
            from .models_table import cast_models, models_parts

            setup = cast_models(data, other, reference, candidates, gold, epsilon, q,
                                min_items, level, uncertainty, roles)
            uncertainty = setup.uncertainty
            table = compute(data, None, irr, level, setup.cast.reference_name, uncertainty,
                            roles, items, known=(setup.cast.ann, setup.cast.level))
            frame = tidy(table, sort_by)
            found = models_parts(data, setup, frame, kind_of(unbind(data, {})[0]), roles)
            parts.update(models=found.table, distribution=found.distribution,
                         alt=found.alt)
        else:
            table = compute(data, other, irr, level, reference, uncertainty, roles, items)
            frame = tidy(table, sort_by)
        if len(table.result.pairs) == 0:  # one pool: the IRR report
            parts = pool_parts(data, level, uncertainty, min_items, roles, table, pool_gold)
        elif pool_gold is not None:
            raise InputError(GOLD_POOLS)
    if models:  # a model with one rater has no IRR: the page says so, no warning
        from .models_table import expected_notes

        caught[:] = expected_notes(caught, table)
    for category, message in caught:  # then raised to the caller (once each)
        warn(message, category)
    notes = list(dict.fromkeys(message for category, message in caught
                               if issubclass(category, XRRWarning)))
    ann = table.result.ann
    names = list(ann.replications) if ann.has_replication else ["all"]
    pairs = pair_index(ann, table.result.pairs)
    attrs = {**table.attrs, "reference": table.attrs.get("reference"),
             "replications": pool_counts(table.tally, names), "notes": notes}
    if table.pooled is not None and len(ann.labels) >= 2:
        parts["pooled"] = pooled_frame(table.pooled, names, pairs, len(ann.labels))
    if "agreement" in parts:
        attrs.pop("items", None)
        attrs["pool"] = str(names[0]) if ann.has_replication else None
        attrs["no_raters"] = parts.pop("no_raters")  # why no rater table ("": there is one)
    if models:
        attrs["models"] = found.attrs
    return Report(frame, attrs, **parts)

