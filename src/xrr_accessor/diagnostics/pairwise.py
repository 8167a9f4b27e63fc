"""Rater x rater agreement: :func:`pairwise`, every pair of raters in one pass.

Each rater is read as a replication of one annotation per item, and the
engine's kappa_x statistics are computed for every pair of raters of the
same replication in one pass over the annotations (no loop over items or
over pairs in Python). With one annotation per item and rater, kappa_x of two
raters is Cohen's (1960) kappa on the items both rated (docs/definitions.md,
kappa_x), with the level's disagreement (weighted kappa at the interval
level, Krippendorff-style ordinal distances at the ordinal level); without
``level=``, with the agreement weights of the level inferred, as
``irr(metric="cohen")`` takes them (linear for ordinal ratings).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import lookup
from ..engine.infer import WEIGHTS_INFERRED
from ..engine.pipeline import annotations as canonical
from ..engine.pipeline import run
from ..errors import InputError, per_call
from ..kernels.sharing import shared_pairs
from ..schema.roles import need_rater_ids

__all__ = ["MAX_PAIRS", "METRICS", "pairwise"]

#: The coefficients of a pair (the same number: see the module's note).
METRICS = ("cohen", "kappa_x")

#: More rater pairs than this in one call is an error (the matrix would not be read).
MAX_PAIRS = 200_000


@per_call
def pairwise(data: Any, metric: str = "cohen", level: Any = None,
             both_orders: bool = True, **roles: Any) -> pd.DataFrame:
    """Agreement of every pair of raters, with the items they share.

    Parameters
    ----------
    data : annotations
        In any layout :func:`~xrr_accessor.irr` reads; raters are paired
        within each replication.
    metric : {"cohen", "kappa_x"}
        Cohen's kappa of the pair on the items both rated, which is kappa_x
        of the two raters (one annotation per item each): the same number,
        under the name you look for.
    level : str, matrix or callable, optional
        Level of measurement, as in :func:`~xrr_accessor.irr`; without it, the
        agreement weights of the level inferred (attrs ``weights``), so each pair's
        value is ``irr(metric="cohen")`` of the two raters.
    both_orders : bool
        List every pair as (a, b) and (b, a), so that ``unstack()`` gives the
        square matrix (the default, which :func:`~xrr_accessor.reporting.plotting.pairwise_heatmap`
        draws); False lists each unordered pair once, the rater met first in
        the data first (a list to read, ``xrr pairwise --unordered``).
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame
        One row per label, replication (when the data have one) and ordered
        pair of raters (both orders, so ``unstack()`` gives the square
        matrix): index levels ``label``, ``replication``, then the rater
        column's own name and that name + ``"_other"``; columns ``estimate``
        (NaN where its shared items hold one value, or share none in that
        label) and ``n_items`` (items both rated). Pairs of raters who rated no
        item in common are left out (on a sparse crowd most pairs are; ``unstack()``
        shows them as NaN), counted in ``attrs["n_pairs_without_items"]``; the
        diagonal is left out. With ``both_orders=False``, half the rows: each
        unordered pair once.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...                    "coder": ["a", "b", "c"] * 4,
    ...                    "joy": [1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1]})
    >>> out = pairwise(df, rater="coder")
    >>> out["estimate"].unstack().round(2)
    coder_other    a    b    c
    label coder
    joy   a      NaN  1.0 -0.5
          b      1.0  NaN -0.5
          c     -0.5 -0.5  NaN
    >>> pairwise(df, rater="coder", both_orders=False)["estimate"].tolist()
    [1.0, -0.5, -0.5]
    """
    key = str(metric).lower().replace("-", "_")
    if key not in METRICS:
        raise InputError(f"metric={metric!r}; pairwise compares raters with one of "
                         f"{', '.join(map(repr, METRICS))}.")
    # Cohen's kappa of each pair: without level=, the weights of the inferred level, as
    # irr(metric="cohen") takes them
    ann, lvl = canonical(data, level=WEIGHTS_INFERRED if level is None else level, **roles)
    need_rater_ids(ann.role_names.get("rater"), "pairwise")  # a count table's slots
    if ann.tally is not None:
        raise InputError("pairwise needs the annotations in memory; call .compute() on "
                         "the dask-backed data first.")
    n_rater, n_rep = len(ann.raters), len(ann.replications)
    # each (replication, rater) is a replication of its own; pairs within a replication
    cell = ann.replication * n_rater + ann.rater
    used = np.zeros(n_rep * n_rater, dtype=bool)
    used[cell] = True
    codes = np.flatnonzero(used)
    new_code = np.full(n_rep * n_rater, -1, dtype=np.int64)
    new_code[codes] = np.arange(len(codes))
    rep_of, rater_of = codes // n_rater, codes % n_rater
    same_rep = np.bincount(rep_of, minlength=n_rep)
    n_possible = int((same_rep * (same_rep - 1) // 2).sum())
    a, b = _sharing(ann.item, new_code[cell], np.asarray((ann.codes >= 0).any(axis=0)),
                    rep_of, n_possible)
    names = pd.Index([f"{r}\x1f{k}" for r, k in zip(rep_of, rater_of, strict=True)])
    split = replace(ann, replication=new_code[cell], rater=np.zeros_like(ann.rater),
                    replications=names, raters=pd.Index(["_"]), has_replication=True,
                    inputs=(), tally=None)
    kx = lookup("kappa_x", kind="cross")
    pairs = np.stack([a, b], axis=1).astype(np.int64)
    result = run(data, [kx], ann=split, lvl=lvl, pairs=pairs)
    est = result.estimate(kx)
    value, n_items = est.value, est.counts["n_items"]  # (L, P)
    rater_name = ann.role_name("rater")
    copies = 2 if both_orders else 1  # a < b: the rater met first in the data first
    first, second = np.concatenate([a, b][:copies]), np.concatenate([b, a][:copies])
    n_label, n_pair = value.shape
    lab = np.repeat(np.arange(n_label), copies * n_pair)
    rep = np.tile(rep_of[first], n_label)
    r1, r2 = np.tile(rater_of[first], n_label), np.tile(rater_of[second], n_label)
    order = np.lexsort((r2, r1, rep, lab))  # the data's order of labels and raters
    parts = [("label", ann.labels, lab), ("replication", ann.replications, rep),
             (rater_name, ann.raters, r1), (f"{rater_name}_other", ann.raters, r2)]
    parts = [p for p in parts if p[0] not in ("label", "replication")
             or (ann.has_label if p[0] == "label" else ann.has_replication)]
    index = pd.MultiIndex.from_arrays([idx[codes_[order]] for _, idx, codes_ in parts],
                                      names=[name for name, _, _ in parts])
    frame = pd.DataFrame({
        "estimate": np.concatenate([value] * copies, axis=1).reshape(-1)[order],
        "n_items": np.concatenate([n_items] * copies, axis=1).reshape(-1).astype(
            np.int64)[order],
    }, index=index)
    said = ({"weights": lvl.custom if isinstance(lvl.custom, str) else "custom"}
            if lvl.name == "weights" else {"level": lvl.name})
    frame.attrs.update({"metric": key, **ann.said, **said, "n_pairs": int(n_pair),
                        "both_orders": both_orders,
                        "n_pairs_without_items": n_possible - int(n_pair)})
    return frame


def _sharing(item: np.ndarray, cell: np.ndarray, rated: np.ndarray, rep_of: np.ndarray,
             n_possible: int) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (a < b) of cells (a rater in a replication) of one replication that
    rated an item in common, sorted, from the annotations' item and cell codes.

    Refused (:class:`InputError`) past :data:`MAX_PAIRS` pairs before any O(raters^2)
    work: at once when one item's raters make more pairs than that, else when the
    bounded pass of :func:`~..kernels.sharing.shared_pairs` finds more (it holds at most
    ``MAX_PAIRS + 1`` pairs). O(N log N) to sort, then one probe per pair of an item's
    raters, sum of m (m - 1) / 2 over the items.
    """
    it, ce = item[rated], cell[rated]
    order = np.lexsort((ce, it))  # by item, then cell: a replication's cells together
    it, ce = it[order], ce[order]
    keep = np.ones(len(it), dtype=bool)
    keep[1:] = (it[1:] != it[:-1]) | (ce[1:] != ce[:-1])  # one row per (item, cell)
    it, ce = it[keep], ce[keep]
    rep = rep_of[ce]
    start = np.flatnonzero(np.r_[True, (it[1:] != it[:-1]) | (rep[1:] != rep[:-1])])
    offsets = np.r_[start, len(it)].astype(np.int64)
    m = np.diff(offsets)  # raters of each item in each replication
    pairs_of = m * (m - 1) // 2
    most, bound = int(pairs_of.max(initial=0)), min(int(pairs_of.sum()), n_possible)
    if most <= MAX_PAIRS:
        keys, found, complete = shared_pairs(offsets, ce.astype(np.int64), len(rep_of),
                                             MAX_PAIRS)
        if complete:
            keys = np.sort(keys[keys >= 0])
            return keys // len(rep_of), keys % len(rep_of)
        most = max(most, found)
    shown = f"{most:,}" if most == bound else f"at least {most:,} (at most {bound:,})"
    raise InputError(f"{shown} rater pairs share an item, more than pairwise computes in "
                     f"one call ({MAX_PAIRS:,}); select raters (e.g. those with the most "
                     "items) first.")
