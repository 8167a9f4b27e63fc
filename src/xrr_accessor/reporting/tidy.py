"""The report's tidy frame: one row per label, statistic and cell (:func:`tidy`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..engine.results import pair_index
from .agreement import interpret
from .summary import QUANTITIES, XrrTable

__all__ = ["STATISTICS", "tidy"]

#: The statistics of a report, in the order of the paper's table.
STATISTICS = ("irr", "kappa_x", "normalized")


def tidy(table: XrrTable, sort_by: str | None = None) -> pd.DataFrame:
    """One row per label, statistic (:data:`STATISTICS`) and cell (replication, or
    pair), with the counts behind each number, its band and the normalizing reference;
    labels in the data's order, or by the mean of ``sort_by`` (highest first)."""
    ann = table.result.ann
    names = list(ann.replications) if ann.has_replication else ["all"]
    pairs = pair_index(ann, table.result.pairs)
    n_ann = table.tally.annotations  # (L, R)
    a, b = table.result.pairs[:, 0], table.result.pairs[:, 1]
    ref_name = "both" if table.reference is None else str(ann.replications[table.reference])
    blocks, positions = [], []  # the frame's blocks; the label (position) of each row
    for stat in STATISTICS:
        est = table.estimates[stat if stat != "normalized" else "kappa_x"]
        cells = (list(zip(names, [np.nan] * len(names), strict=True))
                 if stat == "irr" else list(pairs))
        n_cell = n_ann if stat == "irr" else n_ann[:, a] + n_ann[:, b]
        value = table.values[stat]
        L, C = value.shape[:2]
        columns: dict[str, Any] = {
            "label": np.repeat(np.asarray(ann.labels, dtype=object), C),
            "statistic": stat,
            "replication": [c[0] for c in cells] * L,
            "replication_other": pd.Series([c[1] for c in cells] * L, dtype=object),
        }
        if value.ndim == 3:
            columns.update((q, value[..., j].reshape(-1)) for j, q in enumerate(QUANTITIES))
        else:
            columns["estimate"] = value.reshape(-1)
        columns.update(n_items=est.counts["n_items"].reshape(-1),
                       n_annotations=n_cell.reshape(-1),
                       n_unpairable=est.counts["n_unpairable"].reshape(-1))
        block = pd.DataFrame(columns)  # one construction: no column added one by one
        block["band"] = (interpret(block["estimate"]) if stat != "normalized"
                         else np.nan)
        block["reference"] = ref_name if stat == "normalized" else np.nan
        blocks.append(block)
        positions.append(np.repeat(np.arange(L), C))
    frame = pd.concat(blocks, ignore_index=True)
    rank = np.arange(len(ann.labels))  # of each label (by position): the data's order
    if sort_by is not None:
        means = frame[frame["statistic"] == sort_by].groupby("label", sort=False)[
            "estimate"].mean()
        ranked = means.sort_values(ascending=False, na_position="last").index
        rank += len(ranked)  # a label without a row of sort_by (no pair): last, in order
        rank[pd.Index(ann.labels).get_indexer(ranked)] = np.arange(len(ranked))
    # labels by rank, then statistics in STATISTICS' order, cells as computed: the
    # blocks are in that order already, so a stable sort by label rank is enough
    order = np.argsort(rank[np.concatenate(positions)], kind="stable")
    frame = frame.take(order).reset_index(drop=True)
    return frame.astype({col: "int64" for col in ("n_items", "n_annotations",
                                                  "n_unpairable")})
