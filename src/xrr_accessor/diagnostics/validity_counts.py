"""The additive sums of :func:`~xrr_accessor.diagnostics.validity`: per label, counts
against the gold (accuracy, majority vote, per class) and at the interval and ratio
levels the error and moment sums of :mod:`.validity_numbers`; over items, so over
dask partitions (:func:`validity_job`, added, then :func:`unstack`).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..engine.additive import Stats
from ..engine.pipeline import Codes
from ..engine.staged import Part
from ..engine.statistics import chunk, rows
from ..kernels.diagnostics import NOMINAL, item_summary
from ._common import Read
from .gold import given
from .validity_numbers import label_units, point_sums

__all__ = ["label_sums", "unseen", "unstack", "validity_job"]


def unseen(gold: Any, labels: list[Hashable], sums: list[dict[str, np.ndarray]],
            item: Hashable) -> int:
    """Gold (item, label) values of a gold Series or frame whose item is in no partition
    (``item``: the data's item column, which a gold frame may hold)."""
    if not isinstance(gold, pd.DataFrame | pd.Series):
        return 0  # a column of the data: its items are the data's
    wide, _ = given(gold, labels, item)
    return int(len(wide) - sum(float(s["n_gold"][0]) for s in sums))


def label_sums(read_: Read, j: int, gold_rep: int, numeric: bool = False
               ) -> dict[str, np.ndarray]:
    """Label ``j``'s counts over its items (per replication, and per replication and
    class), against the gold of replication ``gold_rep``: sums over items, so over
    partitions; ``numeric``: also the error and moment sums ``num``
    (:func:`.validity_numbers.point_sums`)."""
    ann = read_.ann
    codes = ann.codes[j]
    rep, item = ann.replication, ann.item
    n_rep, k = len(ann.replications), read_.n_cat(j)
    is_gold = (rep == gold_rep) & (codes >= 0)
    gold = np.full(len(ann.items), -1, dtype=np.int64)
    gold[item[is_gold]] = codes[is_gold]
    data = (rep != gold_rep) & (codes >= 0)
    g = gold[item]
    valid = data & (g >= 0)
    right = valid & (codes == g)
    offsets, order, key = read_.groups()
    n, _, _, top, ties, *_ = item_summary(offsets, order, np.ascontiguousarray(codes),
                                          np.zeros(0), np.zeros((0, 0, 0)), k, n_rep, NOMINAL)
    hits = np.bincount(key[right], minlength=len(n))
    at = np.arange(len(n))
    groups = np.flatnonzero((n > 0) & (at % n_rep != gold_rep) & (gold[at // n_rep] >= 0))
    g_rep = groups % n_rep
    credit = np.where(hits[groups] == top[groups], 1.0 / np.maximum(ties[groups], 1), 0.0)
    cells = n_rep * k
    used = np.zeros(len(ann.items), dtype=bool)
    used[item[data]] = True
    no_gold = data & (g < 0)

    def per(rows: np.ndarray, size: int = n_rep, weights: np.ndarray | None = None
            ) -> np.ndarray:
        return np.bincount(rows, weights=weights, minlength=size)[:size].astype(float)

    return {
        **({"num": point_sums(label_units(read_, j, gold_rep))} if numeric else {}),
        "n_ann": per(rep[valid]), "correct": per(rep[right]), "n_items": per(g_rep),
        "credit": per(g_rep, weights=credit), "n_tied": per(g_rep[ties[groups] > 1]),
        "no_gold": per(rep[no_gold]),
        "support": per(rep[valid] * k + g[valid], cells),
        "given": per(rep[valid] * k + codes[valid], cells),
        "tp": per(rep[right] * k + codes[right], cells),
        "no_gold_items": np.array([float(len(np.unique(item[no_gold])))]),
        "unused": np.array([float(((gold >= 0) & ~used).sum())]),
        "n_gold": np.array([float((gold >= 0).sum())]),
    }


def validity_job(part: Part, meta: Any, level: Any, gold_rep: int) -> Stats:
    """A partition's kappa_x statistics (``kx:``) and every label's counts: a
    :class:`~xrr_accessor.engine.staged.Job`'s function."""
    ann = part.ann
    codes = Codes.of(ann.item, ann.rater, ann.replication, ann.codes, len(ann.items))
    out = {f"kx:{k}": v for k, v in chunk(rows(codes, meta), meta, parallel=False).arrays.items()}
    read_ = Read(ann, level, "pandas")
    for j in range(len(ann.labels)):
        out.update({f"{j}:{k}": v for k, v in label_sums(read_, j, gold_rep,
                                                          level.numeric).items()})
    out["0:had_rep"] = np.array([float(ann.inputs[0][1])])
    return Stats(out)


def unstack(stats: Stats, n_labels: int) -> tuple[Stats, list[dict[str, np.ndarray]]]:
    kx = Stats({k[3:]: v for k, v in stats.arrays.items() if k.startswith("kx:")})
    sums: list[dict[str, np.ndarray]] = [{} for _ in range(n_labels)]
    for name, v in stats.arrays.items():
        if not name.startswith("kx:"):
            j, _, k = name.partition(":")
            sums[int(j)][k] = v
    return kx, sums


