"""The alternative annotator test on dask-backed data: each partition's sums, added.

Every count the test reads is a sum over items: per label, candidate and rater, the
items compared and the wins of each side (and the alignment terms); the items kept and
dropped; which raters labelled the label; and, with ``ci=``, each rater's compared items
and the candidate's wins under every replicate's keyed weights and per jackknife group.
So each partition (whole items, in the call's global codes) runs the same kernel on its
own items (:func:`alt_job`, a :class:`~xrr_accessor.engine.staged.Job`), the sums add,
and the client decides from them exactly as in memory (:func:`unstack`). The ordinal
level is refused: its mid-ranks need every partition's values before any comparison.
"""

from __future__ import annotations

import numpy as np

from ..diagnostics._common import Read
from ..engine.additive import Stats
from ..engine.draws import item_keys
from ..engine.staged import Part
from .alignment import Outcomes, Scoring, by_item, outcomes, unit_of
from .cast import Cast
from .resample import records, sums_of

__all__ = ["ORDINAL_REFUSED", "alt_job", "unstack"]

#: Why the ordinal level is refused on dask-backed data, and the ways round.
ORDINAL_REFUSED = (
    "alt_test at the ordinal level ranks values by the humans' pairable values over all "
    "the data, which stay in the partitions of dask-backed data; call it on ddf.compute() "
    "(or a sample of the items), or use level='interval' on numeric ratings.")

#: The per-label sums a partition returns.
_SUMS = ("counts", "scores", "items", "labelled")


def alt_job(part: Part, reference: int, candidates: tuple[int, ...], score: Scoring,
            min_raters: int) -> Stats:
    """One partition's sums (every label, every candidate; with the call's draws, every
    rater's replicate and jackknife sums): a :class:`~xrr_accessor.engine.staged.Job`'s
    function."""
    ann = part.ann
    c = Cast(ann, score.level, reference, candidates)
    read_ = Read(ann, score.level, "pandas")
    grouped = by_item(ann)
    keys = item_keys(ann.items) if part.draws is not None else None
    out: dict[str, np.ndarray] = {}
    for j in range(len(ann.labels)):
        o = outcomes(c, read_, grouped, j, score, min_raters, part.draws is not None)
        for name in _SUMS:
            out[f"{j}:{name}"] = np.asarray(getattr(o, name), dtype=np.float64)
        if part.draws is None:
            continue
        assert keys is not None
        cells = [records(c, o, k) for k in range(len(candidates))]  # every rater: the
        for k, sums in enumerate(sums_of(cells, part.draws, keys, part.first)):  # call tests
            for name, v in sums.items():
                out[f"{j}:{k}:{name}"] = v
    return Stats(out)


def unstack(stats: Stats, c: Cast, read_: Read, score: Scoring
            ) -> tuple[list[Outcomes], dict[tuple[int, int], dict[str, np.ndarray]]]:
    """Each label's :class:`~.alignment.Outcomes` from the added sums (no records), and
    each (label, candidate)'s replicate sums over every rater."""
    arrays = stats.arrays
    found, sums = [], {}
    for j in range(len(c.ann.labels)):
        found.append(Outcomes(
            np.rint(arrays[f"{j}:counts"]).astype(np.int64), arrays[f"{j}:scores"],
            np.rint(arrays[f"{j}:items"]).astype(np.int64), np.zeros((0, 0), np.int8),
            unit_of(read_, j, score), arrays[f"{j}:labelled"] > 0))
        for k in range(len(c.candidates)):
            head = f"{j}:{k}:"
            got = {name[len(head):]: v for name, v in arrays.items() if name.startswith(head)}
            if got:
                sums[(j, k)] = got
    return found, sums
