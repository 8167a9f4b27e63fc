"""Each rater against a gold reference: the gold column of the one-pool report's rater table.

The data and the gold are read and encoded together as :func:`.validity` reads
them (:func:`.gold.gold_table`); then each rater's annotations become a
replication of their own and the gold one more, so each rater's ``gold_kappa_x``
is the library's kappa_x (Eq 9-11) of the two, from one statistics pass over
every (rater, gold) pair, and ``gold_accuracy`` the share of the rater's
annotations equal to their item's gold (categories only).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..engine.levels import resolve_level
from ..engine.pipeline import run
from ..errors import InputError
from ..schema import encode
from ._common import multi_index, unbind
from .gold import gold_table

__all__ = ["GOLD_COLUMNS", "rater_gold"]

#: The columns :func:`rater_gold` adds beside a rater's pool score.
GOLD_COLUMNS = ("gold_kappa_x", "gold_accuracy", "n_gold")


def rater_gold(data: Any, gold: Any, level: Any = "nominal", **roles: Any) -> pd.DataFrame:
    """Each rater's agreement with the gold, per label (and replication).

    Parameters
    ----------
    data : annotations
        One pool, in any layout :func:`~xrr_accessor.irr` reads (without the gold).
    gold : column name, mapping, Series or DataFrame
        As in :func:`~xrr_accessor.validity`: a column of ``data`` holding each
        item's gold, a mapping label -> column, a Series item -> gold or a
        DataFrame item x label.
    level : str
        Level of measurement of the kappa_x against the gold.
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame
        Indexed by (label, rater), one row per rater with an annotation of the
        label: ``gold_kappa_x`` (kappa_x of the rater's annotations
        against the gold, on the items with both: Cohen's kappa at the nominal level),
        ``gold_accuracy`` (share of those annotations equal to the gold; NaN at the
        interval and ratio levels, where exact matches mean little) and ``n_gold``
        (those items). NaN where the rater has no item with gold.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
    ...                    "joy": [1, 1, 0, 1, 1, 0, 0, 0],
    ...                    "truth": [1, 1, 0, 0, 1, 1, 0, 0]})
    >>> out = rater_gold(df, "truth")
    >>> out["gold_accuracy"].tolist(), out["n_gold"].tolist()
    ([1.0, 0.5], [4, 4])
    """
    lvl = resolve_level(level)
    data, roles = unbind(data, roles)
    table_data, table_gold, _ = gold_table(data, gold, roles)
    ann = encode([table_data, table_gold], ordinal=lvl.ordered)
    gold_rep = ann.inputs[0][0]
    is_gold = ann.replication == gold_rep
    pools = np.unique(ann.replication[~is_gold])
    if len(pools) > 1:
        raise InputError(f"gold beside the rater table needs one pool; the data hold "
                         f"{len(pools)} replications: call it on one replication, or use "
                         "validity(data, gold=...) per replication.")
    n_rater = len(ann.raters)
    # each rater a replication of its own, the gold the last one
    per = replace(ann, replication=np.where(is_gold, n_rater, ann.rater).astype(np.int64),
                  replications=pd.RangeIndex(n_rater + 1))
    if lvl.numeric:
        per.values(lvl.name)
    pairs = np.column_stack([np.arange(n_rater), np.full(n_rater, n_rater)]).astype(np.int64)
    kx = lookup("kappa_x", kind="cross")
    kappa = run(None, [kx], pairs=pairs, ann=per, lvl=lvl).estimate(kx).value  # (L, R)
    gold_code = np.full((len(ann.labels), len(ann.items)), -1, dtype=np.int64)
    g_rows = np.flatnonzero(is_gold)
    gold_code[:, ann.item[g_rows]] = ann.codes[:, g_rows]
    mine = ~is_gold
    item, rater = ann.item[mine], ann.rater[mine]
    codes, truth = ann.codes[:, mine], gold_code[:, item]
    both = (codes >= 0) & (truth >= 0)
    label = np.broadcast_to(np.arange(len(ann.labels))[:, None], codes.shape)
    cell = (label * n_rater + rater[None, :])
    size = len(ann.labels) * n_rater
    n_gold = np.bincount(cell[both], minlength=size).reshape(-1, n_rater)
    right = np.bincount(cell[both & (codes == truth)], minlength=size).reshape(-1, n_rater)
    n_ann = np.bincount(cell[codes >= 0], minlength=size).reshape(-1, n_rater)
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = np.where(n_gold > 0, right / n_gold, np.nan)
    if lvl.numeric:
        accuracy = np.full(accuracy.shape, np.nan)
    lab, b = np.nonzero(n_ann > 0)
    return pd.DataFrame({"gold_kappa_x": np.where(n_gold[lab, b] > 0, kappa[lab, b], np.nan),
                         "gold_accuracy": accuracy[lab, b],
                         "n_gold": n_gold[lab, b].astype(np.int64)},
                        index=multi_index([("label", ann.labels, lab),
                                           ("rater", ann.raters, b)]))
