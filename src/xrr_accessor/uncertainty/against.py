"""Paired comparisons against a reference: is candidate A closer to it than B?

:func:`~.compare.compare` with ``reference=`` (a gold label, an expert, or the human
pool): for each label, from the same bootstrap draws of items,

* ``kappa_x(x, ref) - kappa_x(y, ref)`` for every two other replications x before y
  (model A against model B, or a model against the crowd, each scored on the reference);
* where the reference has two raters or more (so an IRR of its own):
  ``kappa_x(x, ref) - irr_ref`` (does x agree with the reference as much as the
  reference's raters agree with each other?) and ``kappa_x(x, ref) / irr_ref - 1``
  (normalized kappa_x with the reference's IRR, Section 6 of the paper, against 1).

A single-rater reference (gold) has no IRR: its rows are the kappa_x differences only,
and the attrs say why (``reference_raters``). Each row's p-value inverts its own
interval, as in :func:`~.compare.compare`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..coefficients.registry import normalizing
from ..engine.pipeline import annotations as canonical
from ..engine.replications import n_self, reference_code
from ..errors import InputError, UndefinedWarning, warn
from ..schema.tally import tally_of
from .intervals import limits, p_value, standard_error
from .orchestration import Uncertainty, evaluate
from .resample import Target

__all__ = ["AGAINST", "KAPPA", "against"]

#: The comparisons against a reference, in the order rows list them.
AGAINST = ("kappa_x(x, ref) - kappa_x(y, ref)", "kappa_x(x, ref) - irr_ref",
           "kappa_x(x, ref) / irr_ref - 1")

COLUMNS = ["label", "replication", "replication_other", "reference", "comparison",
           "estimate", "se", "lower", "upper", "p_value"]


#: The coefficient itself, against 0 (``against(..., with_kappa=True)``: the models page
#: reads kappa_x against a gold pool and the differences from one bootstrap).
KAPPA = "kappa_x(x, ref)"


def against(data: Any, other: Any, reference: Any, irr: str, level: Any,
            uncertainty: Uncertainty, roles: dict[str, Any],
            known: tuple[Any, Any] | None = None, with_kappa: bool = False) -> pd.DataFrame:
    """The rows of :func:`~.compare.compare` with ``reference=`` (module docstring);
    ``known``: the annotations and level, already read; ``with_kappa``: also each
    replication's kappa_x against the reference (:data:`KAPPA` rows, from the same
    draws)."""
    ann, lvl = known if known is not None else canonical(data, other, level=level, **roles)
    ref = reference_code(ann, reference, n_self(ann))
    n_raters = int(tally_of(ann).raters[ref])
    others = [r for r in range(len(ann.replications)) if r != ref]
    if not others:
        raise InputError(f"compare(reference={reference!r}) needs another replication to "
                         "score against the reference.")
    pairs = np.array([(min(r, ref), max(r, ref)) for r in others], dtype=np.int64)
    rel = normalizing(irr)
    targets = [Target("kappa_x", lookup("kappa_x", kind="cross"))]
    pooled = n_raters >= 2
    if pooled:
        targets += [Target("irr", rel), Target("normalized", lookup(
            "normalized_kappa_x", kind="cross"), {"irr": rel.name})]
    found = evaluate(data, targets, uncertainty, warn=False, intervals=False,
                     other=other, ann=ann, lvl=lvl, pairs=pairs, reference=reference,
                     **roles)
    reps = found.replicates
    level_, how = uncertainty.ci, uncertainty.interval
    assert reps is not None and level_ is not None
    names = ann.replications
    ref_name = names[ref]
    pairs_xy = [(a, b) for i, a in enumerate(others) for b in others[i + 1:]]
    cells = {AGAINST[0]: pairs_xy, AGAINST[1]: [(a, ref) for a in others],
             AGAINST[2]: [(a, ref) for a in others], KAPPA: [(a, ref) for a in others]}
    x = np.array([others.index(a) for a, _ in pairs_xy], dtype=np.int64)
    y = np.array([others.index(b) for _, b in pairs_xy], dtype=np.int64)

    def differences(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Each comparison from coefficient values (..., L, cells)."""
        kx = values["kappa_x"]
        out = {AGAINST[0]: kx[..., x] - kx[..., y]}
        if pooled:
            out[AGAINST[1]] = kx - values["irr"][..., [ref]]
            out[AGAINST[2]] = values["normalized"] - 1.0
        if with_kappa:
            out[KAPPA] = kx
        return out

    point = differences({k: e.value for k, e in found.estimates.items()})
    boot = differences(reps.boot)
    jack = None if reps.jack is None else differences(reps.jack)
    rows_of: list[tuple[str, int, int, np.ndarray, np.ndarray]] = []
    for name, est in point.items():
        j_ = None if jack is None else jack[name]
        lower, upper = limits(est, boot[name], level_, how, j_)
        se = standard_error(boot[name])
        p = p_value(boot[name], 0.0, how, est, j_)
        for arr in (lower, upper, se, p):
            arr[~np.isfinite(est)] = np.nan
        for c, (a, b) in enumerate(cells[name]):
            rows_of.append((name, a, b, est[:, c], np.stack([se[:, c], lower[:, c],
                                                              upper[:, c], p[:, c]])))
    out = []
    for j, label in enumerate(ann.labels):
        for name, a, b, est, rest in rows_of:
            out.append((label, names[a], names[b], ref_name, name, est[j], *rest[:, j]))
    frame = pd.DataFrame(out, columns=COLUMNS)
    _warn_undefined(frame, found, ann, others, ref)
    frame.attrs.update(irr=rel.name, reference=ref_name, reference_raters=n_raters,
                       **found.settings, n_items=reps.n_items)
    if not pooled:
        frame.attrs["note"] = (f"{ref_name!r} has one rater, so no IRR: the rows compare "
                               "kappa_x against it only")
    return frame


def _warn_undefined(frame: pd.DataFrame, found: Any, ann: Any, others: list[int],
                    ref: int) -> None:
    """One warning naming the undefined kappa_x (and IRR) cells and why."""
    said = []
    kx = found.estimates["kappa_x"]
    for j, c in np.argwhere(~np.isfinite(kx.value)):
        said.append(f"kappa_x({ann.replications[others[c]]}, {ann.replications[ref]}) on "
                    f"{ann.labels[j]!r}: {kx.reason[j, c] or 'undefined'}")
    if "irr" in found.estimates:
        irr = found.estimates["irr"]
        for j in np.flatnonzero(~np.isfinite(irr.value[:, ref])):
            said.append(f"the IRR of {ann.replications[ref]} on {ann.labels[j]!r}: "
                        f"{irr.reason[j, ref] or 'undefined'}")
    if said:
        warn(f"compare: {frame['estimate'].isna().sum()} of {len(frame)} row(s) are "
             f"undefined (NaN): " + "; ".join(said[:4])
             + (f"; and {len(said) - 4} more" if len(said) > 4 else "") + ".",
             UndefinedWarning)
