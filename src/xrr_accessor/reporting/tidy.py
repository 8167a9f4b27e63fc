"""The report's tidy frame: one row per label, statistic and cell (:func:`tidy`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..engine.results import pair_index
from ..schema.tally import tally_of
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
    n_ann = tally_of(ann).annotations  # (L, R)
    a, b = table.result.pairs[:, 0], table.result.pairs[:, 1]
    ref_name = "both" if table.reference is None else str(ann.replications[table.reference])
    blocks = []
    for stat in STATISTICS:
        est = table.estimates[stat if stat != "normalized" else "kappa_x"]
        cells = (list(zip(names, [np.nan] * len(names), strict=True))
                 if stat == "irr" else list(pairs))
        n_cell = n_ann if stat == "irr" else n_ann[:, a] + n_ann[:, b]
        value = table.values[stat]
        L, C = value.shape[:2]
        block = pd.DataFrame({
            "label": np.repeat(np.asarray(ann.labels, dtype=object), C),
            "statistic": stat,
            "replication": [c[0] for c in cells] * L,
            "replication_other": pd.Series([c[1] for c in cells] * L, dtype=object),
        })
        if value.ndim == 3:
            for j, q in enumerate(QUANTITIES):
                block[q] = value[..., j].reshape(-1)
        else:
            block["estimate"] = value.reshape(-1)
        block["n_items"] = est.counts["n_items"].reshape(-1)
        block["n_annotations"] = n_cell.reshape(-1)
        block["n_unpairable"] = est.counts["n_unpairable"].reshape(-1)
        block["band"] = (interpret(block["estimate"]) if stat != "normalized"
                         else np.nan)
        block["reference"] = ref_name if stat == "normalized" else np.nan
        blocks.append(block)
    frame = pd.concat(blocks, ignore_index=True)
    order = {s: k for k, s in enumerate(STATISTICS)}
    labels = list(ann.labels)
    if sort_by is not None:
        means = frame[frame["statistic"] == sort_by].groupby("label", sort=False)[
            "estimate"].mean()
        labels = list(means.sort_values(ascending=False, na_position="last").index)
    rank = {lab: k for k, lab in enumerate(labels)}
    frame = frame.sort_values(["label", "statistic"], key=lambda s: s.map(
        rank if s.name == "label" else order), kind="stable", ignore_index=True)
    for col in ("n_items", "n_annotations", "n_unpairable"):
        frame[col] = frame[col].astype("int64")
    return frame
