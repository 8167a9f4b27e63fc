"""The xRR table of the paper (Table 5) from one pass: IRR, kappa_x, normalized kappa_x."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..coefficients import Estimates, lookup
from ..coefficients.registry import normalizing
from ..engine.pipeline import Run, kind_of
from ..engine.pipeline import annotations as canonical
from ..engine.results import label_result, pair_index
from ..engine.staged import COMMON_REFUSED
from ..errors import InputError, UndefinedWarning, per_call, warn
from ..lazy import deferrable
from ..schema import Annotations
from ..schema.tally import Tally, tally_of
from ..uncertainty.intervals import limits, standard_error
from ..uncertainty.orchestration import Uncertainty, evaluate
from ..uncertainty.resample import Target

__all__ = ["ITEMS", "QUANTITIES", "XrrTable", "check_items", "common_items", "compute",
           "pooled_frame", "summary", "warn_above_one"]

#: What ``items=`` accepts: every item each coefficient can use, or the common ones.
ITEMS = ("all", "common")

#: What each cell of an interval table holds.
QUANTITIES = ("estimate", "se", "lower", "upper")


@deferrable
def summary(
    data: Any, other: Any = None, irr: str = "alpha", level: Any = None,
    reference: Any = None, ci: float | None = None, n_boot: int = 1000, seed: int | None = None,
    interval: str = "bca", progress: bool | None = None, items: str = "all", **roles: Any,
) -> Any:
    """The xRR table of the paper (Table 5): IRR, kappa_x and normalized kappa_x.

    One row per label; columns grouped by statistic: the IRR of each
    replication, then kappa_x and normalized kappa_x of each replication
    pair, all from one pass over the data. NaN cells warn once, with reasons.

    Parameters
    ----------
    data, other : annotations
        As in :func:`cross_kappa`.
    irr : {"alpha", "cohen", "iota"}
        The IRR reported and used to normalize (Table 5 uses ``"cohen"``).
    level : str, matrix or callable, optional
        Level of measurement (default: inferred from the values, as in
        :func:`~xrr_accessor.irr`).
    reference : replication name, "self" or "other", optional
        Normalize kappa_x by this replication's IRR only (pairs that include
        it), as :func:`normalized` does.
    ci, n_boot, seed, interval, progress
        Bootstrap intervals of every cell, as in :func:`cross_kappa`, all
        from the same draws of items: each cell then holds its ``estimate``,
        ``se``, ``lower`` and ``upper`` (a last column level ``quantity``
        from pandas, a ``quantity`` dimension from xarray).
    items : {"all", "common"}
        ``"all"`` (default): each IRR on the items its replication rated at
        least twice, kappa_x on the items both replications rated, with a
        warning naming the item counts where normalized kappa_x exceeds 1 on
        such different item sets; ``"common"``: all three, per label, on the
        items every replication rated at least twice (:func:`common_items`).
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame or Dataset
        From pandas: index ``label``; columns a MultiIndex (statistic,
        replication, replication_other) with the statistics ``irr`` (whose
        ``replication_other`` is empty), ``kappa_x`` and ``normalized``, so
        that ``summary()["kappa_x"]`` is laid out as :func:`cross_kappa`.
        From xarray: a Dataset with the variables ``irr`` (label,
        replication), ``kappa_x`` and ``normalized`` (label, replication,
        replication_other): the pairs of :func:`cross_kappa` unstacked
        (``cross_kappa().unstack("pair")``), NaN where two replications are
        not a pair of the call.

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=500, labels=["joy", "awe"], pools=["A", "B"], seed=3)
    >>> summary(df).columns.get_level_values(0).unique().tolist()
    ['irr', 'kappa_x', 'normalized']
    """
    uncertainty = Uncertainty(ci, n_boot=n_boot, seed=seed, interval=interval,
                              progress=progress)
    table = compute(data, other, irr, level, reference, uncertainty, roles, items)
    result, values, attrs = table.result, table.values, table.attrs
    if kind_of(data) == "xarray":
        return _as_dataset(result, values, ci is not None, attrs)
    ann = result.ann
    pairs = pair_index(ann, result.pairs)
    irr_cols = pd.MultiIndex.from_arrays(
        [ann.replications, [""] * len(ann.replications)],
        names=["replication", "replication_other"])
    blocks = {k: _frame(v, ann.labels, irr_cols if k == "irr" else pairs)
              for k, v in values.items()}
    out = pd.concat(blocks, axis=1, names=["statistic"])
    out.attrs.update(attrs)
    out.attrs["n_unpairable"] = pd.DataFrame(
        table.estimates["kappa_x"].counts["n_unpairable"].astype(object), index=ann.labels,
        columns=[f"{a} x {b}" for a, b in pairs]).to_dict()
    return out


@dataclass
class XrrTable:
    """What :func:`summary` and :func:`~xrr_accessor.reporting.report` lay out:
    the run, the estimates of ``irr``, ``kappa_x`` and ``normalized``, their
    values ((L, cells) or, with intervals, (L, cells, 4): :data:`QUANTITIES`)
    and the call's attrs."""

    result: Run
    estimates: dict[str, Estimates]
    values: dict[str, np.ndarray]
    attrs: dict[str, Any]
    reference: int | None
    #: With intervals: per statistic, the mean over labels of each cell and its
    #: interval from the same replicates ((cells, 4): :data:`QUANTITIES`, NaN where
    #: a label's estimate is NaN), else None.
    pooled: dict[str, np.ndarray] | None = None
    #: The counts of ``result.ann`` once made (see :attr:`tally`).
    counted: Tally | None = field(default=None, repr=False)

    @property
    def tally(self) -> Tally:
        """The counts of ``result.ann`` (:func:`~xrr_accessor.schema.tally.tally_of`),
        made on first use and kept: the choice of IRR, the report's pools and its
        tidy frame read the same counts."""
        if self.counted is None:
            self.counted = tally_of(self.result.ann)
        return self.counted


@per_call
def common_items(ann: Annotations) -> Annotations:
    """``ann`` with, per label, only the items that every replication rated with at
    least two annotations (the others' annotations of that label set missing); a
    replication that never rates an item twice (one rater: a gold label, a model) has
    no IRR to compute and needs one annotation of the item.

    With two replications these are the items both IRRs and kappa_x can use, so
    normalized kappa_x compares like with like (``items="common"``). One O(N)
    pass per label (no loop over items); ``ann`` itself is not modified.
    """
    if ann.tally is not None:
        raise InputError(COMMON_REFUSED)
    n_item, n_rep = len(ann.items), len(ann.replications)
    key = ann.item * n_rep + ann.replication
    codes = ann.codes.copy()
    for j in range(codes.shape[0]):
        rated = codes[j] >= 0
        per = np.bincount(key[rated], minlength=n_item * n_rep).reshape(n_item, n_rep)
        need = np.where(per.max(axis=0, initial=0) >= 2, 2, 1)  # single raters: once
        keep = np.asarray((per >= need).all(axis=1), dtype=bool)
        codes[j, ~keep[ann.item]] = -1
    return replace(ann, codes=codes)


def warn_above_one(ann: Annotations, pairs: np.ndarray, est: dict[str, Any],
                    ref: int | None) -> None:
    """At items="all": say where normalized kappa_x exceeds 1 on different item sets."""
    norm = est["normalized"].value
    n_irr, n_kx = est["irr"].counts.get("n_items"), est["kappa_x"].counts.get("n_items")
    if n_irr is None or n_kx is None:
        return
    where = []
    for lab, c in np.argwhere(np.nan_to_num(norm, nan=0.0) > 1):
        a, b = pairs[c]
        sides = [a, b] if ref is None else [ref]
        n = [int(n_irr[lab, s]) for s in sides]
        if len(set(n)) > 1 or n[0] != int(n_kx[lab, c]):
            per = ", ".join(f"{ann.replications[s]} {k:,}" for s, k in zip(sides, n,
                                                                           strict=True))
            where.append(f"{ann.labels[lab]!r}, {ann.replications[a]} x "
                         f"{ann.replications[b]}: {norm[lab, c]:.2f} (IRR items: {per}; "
                         f"kappa_x items: {int(n_kx[lab, c]):,})")
    if where:
        more = f"; and {len(where) - 5} more" if len(where) > 5 else ""
        warn("normalized kappa_x exceeds 1 where the IRRs and kappa_x use different item "
             "sets: " + "; ".join(where[:5]) + more + ". Each IRR uses the items its pool "
             "rated at least twice, kappa_x the items both pools rated; items=\"common\" "
             "computes all three on the items both pools rated at least twice each"
             + (" (on the annotations in memory: ddf.compute() or a sample of the items)"
                if ann.tally is not None else "") + ".", UndefinedWarning)


def check_items(items: str) -> None:
    """Refuse an ``items=`` other than :data:`ITEMS`, saying what each means."""
    if items not in ITEMS:
        raise InputError(f"items={items!r}; use 'all' (each coefficient on the items it "
                         "can use) or 'common' (the items every replication rated at "
                         "least twice).")


def compute(data: Any, other: Any, irr: str | None, level: Any, reference: Any,
            uncertainty: Uncertainty, roles: dict[str, Any], items: str = "all",
            known: tuple[Annotations, Any] | None = None) -> XrrTable:
    """IRR, kappa_x and normalized kappa_x from one pass (and one set of bootstrap
    draws when ``uncertainty`` asks for intervals). ``irr=None``: Cohen's kappa where no
    replication has more than two raters (the paper's choice), else alpha.
    ``items="common"``: on :func:`common_items` only. ``known``: the annotations and
    level, already read (the models page reads them once for every part)."""
    check_items(items)
    ann, lvl = known if known is not None else canonical(data, other, level=level, **roles)
    if items == "common":
        ann = common_items(ann)
    counted = None  # the counts, when made here: kept for the report (XrrTable.tally)
    if irr is None:
        counted = tally_of(ann)
        irr = "cohen" if _most_raters(counted) <= 2 else "alpha"
    rel = normalizing(irr)
    kx = lookup("kappa_x", kind="cross")
    norm = lookup("normalized_kappa_x", kind="cross")
    one_pool = other is None and reference is None and len(ann.replications) == 1
    targets = [Target("irr", rel), Target("kappa_x", kx),
               Target("normalized", norm, {"irr": rel.name})]
    try:
        found = evaluate(data, targets, uncertainty, other=other, reference=reference,
                         ann=ann, lvl=lvl,
                         pairs=np.zeros((0, 2), dtype=np.int64) if one_pool else None)
    except InputError as exc:  # the coefficient is chosen with irr= here
        raise InputError(str(exc).replace("metric=", "irr=")) from None
    result, estimates, ref = found.run, found.estimates, found.run.reference
    if items == "all":
        warn_above_one(result.ann, result.pairs, estimates, ref)
    attrs: dict[str, Any] = {"irr": rel.name, "level": result.level.name, "items": items,
                             "level_inferred": bool(result.ann.said.get("level_inferred"))}
    if reference is not None:
        attrs["reference"] = reference
    attrs.update(found.settings)
    values = {k: e.value for k, e in estimates.items()}
    reps, pooled = found.replicates, None
    if reps is not None:
        values = {k: np.stack([found.intervals[k][q] for q in QUANTITIES], axis=-1)
                  for k in values}
        pooled = {k: _pooled(values[k][..., 0], reps.boot[k],
                             None if reps.jack is None else reps.jack[k], attrs["ci"],
                             uncertainty.interval) for k in values}
    return XrrTable(result, estimates, values, attrs, ref, pooled,
                    counted if result.ann is ann else None)


def _pooled(est: np.ndarray, boot: np.ndarray, jack: np.ndarray | None, level: float,
            interval: str) -> np.ndarray:
    """The mean over labels of each cell (est (L, C)), with its standard error and
    interval from the same replicates (boot (B, L, C)): (C, 4). NaN where any
    label's estimate is NaN (a mean over the defined labels would change meaning
    with the draw)."""
    mean = est.mean(axis=0)[None, :]  # NaN where a label is NaN
    b = boot.mean(axis=1)[:, None, :]  # a replicate with an undefined label: NaN, left out
    j = None if jack is None else jack.mean(axis=1)[:, None, :]
    lower, upper = limits(mean, b, level, interval, j)
    se = standard_error(b)
    out = np.stack([mean, se, lower, upper], axis=-1)[0]
    out[~np.isfinite(mean[0])] = np.nan
    return out


def _most_raters(counted: Tally) -> int:
    """The most raters with an annotation in one replication (any label)."""
    return int(counted.rated_raters.max(initial=0))


def _frame(value: np.ndarray, labels: pd.Index, cells: pd.MultiIndex) -> pd.DataFrame:
    """(L, cells) or (L, cells, quantity) as a frame, the quantity a last column level."""
    if value.ndim == 2:
        return pd.DataFrame(value, index=labels, columns=cells)
    cols = pd.MultiIndex.from_tuples([(*c, q) for c in cells for q in QUANTITIES],
                                     names=[*cells.names, "quantity"])
    return pd.DataFrame(value.reshape(len(labels), -1), index=labels, columns=cols)


def _as_dataset(result: Any, values: dict[str, np.ndarray], with_ci: bool,
                attrs: dict[str, Any]) -> xr.Dataset:
    out = {}
    for name, value in values.items():
        if name != "irr" and len(result.pairs) == 0:  # one pool: its IRR only
            continue
        cells = result.ann.replications if name == "irr" else pair_index(result.ann,
                                                                         result.pairs)
        parts = [value[..., j] for j in range(value.shape[-1])] if with_ci else [value]
        arrays = [label_result(Estimates(v), result.ann, cells, "xarray", {"name": name})
                  .reset_coords(drop=True) for v in parts]
        da = xr.concat(arrays, pd.Index(QUANTITIES, name="quantity", dtype=object)) \
            if with_ci else arrays[0]
        da = da if name == "irr" else da.unstack("pair")
        out[name] = da.transpose(..., "quantity") if with_ci else da
    return xr.Dataset(out, attrs=attrs)


def pooled_frame(pooled: dict[str, np.ndarray], names: list[Any], pairs: pd.MultiIndex,
                  n_labels: int) -> pd.DataFrame:
    """The mean over labels of each statistic and cell, one row each."""
    rows = []
    for stat in pooled:
        cells = ([(n, np.nan) for n in names] if stat == "irr" else list(pairs))
        for (a, b), q in zip(cells, pooled[stat], strict=True):
            rows.append({"statistic": stat, "replication": a, "replication_other": b,
                         **dict(zip(QUANTITIES, map(float, q), strict=True)),
                         "n_labels": n_labels})
    return pd.DataFrame(rows, columns=["statistic", "replication", "replication_other",
                                       *QUANTITIES, "n_labels"])
