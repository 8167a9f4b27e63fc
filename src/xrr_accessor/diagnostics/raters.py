"""Each rater against the rest of the pool: leave one rater out, in one pass.

For rater b of a replication: kappa_x (Eq 9-11 of the paper) between b's
annotations as one replication and the other raters' as the other, over the
items both cover; and Krippendorff's alpha of the pool without b next to the
pool's alpha. The kernels (:mod:`xrr_accessor.kernels.diagnostics`) add, per
rater, what b contributes to each sum (what leaving b out removes), so all
raters come from one pass over the annotations of a label, not one per rater.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients.alpha import alpha_of
from ..coefficients.cross import kappa_x_of
from ..coefficients.sums import (
    CrossSums,
    WithinSums,
    cross_counts,
    cross_moments,
    within_counts,
    within_moments,
)
from ..engine.draws import Draws
from ..engine.staged import Job, Planned, Staged
from ..errors import InputError, UndefinedWarning, warn
from ..lazy import deferrable
from ..uncertainty.intervals import Bootstrap, confidence, limits
from ._common import Read, check_cells, dist_for, finish, multi_index, ranks, read
from .rater_sums import Sums, label_sums, rater_job, replicates, unstack

__all__ = ["METRICS", "MIN_RATER_ITEMS", "rater_agreement"]

#: How :func:`rater_agreement` ranks raters.
METRICS = ("kappa_x", "alpha")

#: The fewest items a rater needs to be ranked when ``min_items=None`` (the default):
#: below 10, one item changes a rater's kappa_x by 0.1 or more and its 95% interval spans
#: most of the scale, so the ranking would be drawn by chance (docs/definitions.md).
MIN_RATER_ITEMS = 10

#: Decimals of the score raters are ranked on: values equal to rounding are ties.
RANK_DECIMALS = 12


def _kappa(sums: CrossSums) -> np.ndarray:
    return kappa_x_of(sums).value


def _alpha(sums: WithinSums) -> np.ndarray:
    return alpha_of(sums).value


def _moments(s: Sums) -> dict[str, np.ndarray]:
    """Numbers: b against the rest as a replication pair, the pool with and without b."""
    n_ann, per, tot, drop = s["n_ann"], s["per"], s["tot"], s["drop"]
    shared = per[..., 0]
    # per: shared, other, observed, sx, sxx, sy, syy; cross_moments reads observed first
    kappa = _kappa(cross_moments(per[..., [2, 0, 1, 3, 4, 5, 6]], shared, 0 * shared))
    alpha = _alpha(within_moments(tot[:, 3], tot[:, 0], tot[:, 1], tot[:, 2]))
    wo = tot[:, None, :] - drop
    alpha_wo = _alpha(within_moments(wo[..., 3], wo[..., 0], wo[..., 1], wo[..., 2]))
    return {"kappa_x": kappa, "alpha_without": alpha_wo,
            "alpha": np.broadcast_to(alpha[:, None], kappa.shape),
            "n_annotations": n_ann, "n_shared": shared, "n_other": per[..., 1]}


def _cells(read_: Read) -> int:
    """The sums of one pass over every label (refusing a per-rater table too large)."""
    ann = read_.ann
    n_rep, n_rater = len(ann.replications), len(ann.raters)
    total = 0
    for j in range(len(ann.labels)):
        if read_.level.uses_moments:
            total += n_rep * (n_rater * 12 + 4)
            continue
        k = read_.n_cat(j)
        kk = k * k if read_.level.name != "nominal" else 0
        check_cells(n_rep * n_rater * max(kk, k), "rater_agreement",
                    "use level='nominal' or 'interval' (no K x K table per rater), or pass "
                    "fewer raters or replications at a time.")
        total += n_rep * (n_rater * (6 + 3 * k + 2 * kk) + 2 + k + kk)
    return total


def _categorical(read_: Read, label: int, s: Sums,
                 keep: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Categories: b against the rest as a replication pair (b's values and the others'
    on b's items), the pool with and without b."""
    n_ann, shared, other = s["n_ann"], s["shared"], s["other"]
    if read_.level.name != "nominal":
        kappa, alpha, alpha_wo = _matrix(read_, label, s, keep)
    else:
        kappa = _kappa(cross_counts(s["x"], s["y"], shared, 0 * shared, observed=s["obs"]))
        alpha = _alpha(within_counts(s["tot_t"], s["tot_n"] - s["tot_diag"]))
        alpha_wo = _alpha(within_counts(
            s["tot_t"][:, None, :] - s["dt"],
            s["tot_n"][:, None] - s["dn"] - (s["tot_diag"][:, None] - s["ddiag"])))
    return {"kappa_x": kappa, "alpha_without": alpha_wo,
            "alpha": np.broadcast_to(alpha[:, None], kappa.shape),
            "n_annotations": n_ann, "n_shared": shared, "n_other": other}


def _matrix(read_: Read, label: int, s: Sums, keep: np.ndarray | None = None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """kappa_x, alpha and alpha without each rater through K x K disagreements.

    The ordinal metric depends on the marginals it ranks over: kappa_x's on
    the rater's and the others' values on their shared items (as kappa_x of
    two replications uses both sides' paired values), alpha's on the pairable
    values with or without the rater; so it is built per rater.
    """
    ordinal = read_.level.name == "ordinal"
    n_ann, tot_t, tot_o = s["n_ann"], s["tot_t"], s["tot_o"]
    n_rep, n_rater = n_ann.shape
    kappa = np.full((n_rep, n_rater), np.nan)
    alpha_wo = np.full((n_rep, n_rater), np.nan)
    alpha = np.full(n_rep, np.nan)
    fixed = None if ordinal else dist_for(read_, label, None)
    for r in range(n_rep):
        d = fixed if fixed is not None else dist_for(read_, label, tot_t[r])
        alpha[r] = _alpha(within_counts(tot_t[r], None, tot_o[r], d))
        raters = np.flatnonzero((n_ann[r] > 0) & (True if keep is None else keep[r]))
        x, y = s["x"][r, raters], s["y"][r, raters]
        t2, o2 = tot_t[r] - s["dt"][r, raters], tot_o[r] - s["do"][r, raters]
        # ordinal: D from each rater's own marginals (no K x K matrix formed per rater)
        kappa[r, raters] = _kappa(cross_counts(
            x, y, s["shared"][r, raters], 0 * x[..., 0], joint=s["w"][r, raters], d=fixed,
            ordinal=fixed is None))
        alpha_wo[r, raters] = _alpha(within_counts(t2, None, o2, fixed, ordinal=fixed is None))
    return kappa, alpha, alpha_wo


@deferrable
def rater_agreement(data: Any, metric: str = "kappa_x", level: Any = None,
                    min_items: int | None = None, ci: float | None = None, n_boot: int = 1000,
                    seed: Any = None, interval: str = "bca", **roles: Any) -> Any:
    """Each rater against the rest of the pool (leave one rater out), to find spammers.

    For every rater b, per label and replication:

    * ``kappa_x``: kappa_x (Wong, Paritosh & Aroyo 2021, Eq 9-11) between b's
      annotations as one replication and the other raters' annotations as
      the other, on the items both cover (b's items with no other annotation
      are unpairable): how well b agrees with the pool, chance-corrected;
    * ``alpha_without``: Krippendorff's alpha of the pool without b, beside
      ``alpha`` (everyone) and ``delta_alpha = alpha_without - alpha``:
      positive when the pool agrees more without b.

    One O(N) pass over the annotations of each label accumulates, per rater,
    b's part of every sum (and what leaving b out removes), so the R raters'
    values come from one pass, not R computations.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        Annotations, in any layout :func:`~xrr_accessor.irr` reads.
    metric : {"kappa_x", "alpha"}
        How raters are ranked: ``"kappa_x"`` lowest first, ``"alpha"``
        largest ``delta_alpha`` first. Both are always computed.
    level : str, matrix or callable
        Level of measurement (default: inferred from the values), as in
        :func:`~xrr_accessor.irr`.
    min_items : int, optional
        The fewest annotations (items) a rater needs in a label and
        replication to be ranked (default None: :data:`MIN_RATER_ITEMS`, 10):
        on sparse crowds raters with a handful of items otherwise top the
        ranking by chance (a one-item rater's kappa_x is 0 by construction).
        Raters below it keep their row, with every value, after the ranked
        ones and with ``rank`` <NA>: counted, not ranked. How many is in
        ``attrs["n_below_min_items"]``; ``min_items=1`` ranks every rater.
    ci : float, optional
        With a level (e.g. 0.95), intervals for ``kappa_x`` and
        ``delta_alpha`` from an item bootstrap: items drawn with all their
        annotations, by the same keyed draws as every other call with this
        ``seed``; one pass over the annotations per replicate, and for BCa
        one over each jackknife group's items (all groups together: one more
        pass), so it costs about ``n_boot`` + 1 times the estimate. On
        dask-backed data each partition sums its own items' share of every
        replicate, and the intervals equal the in-memory ones.
    n_boot, seed, interval
        Replicates, seed and interval (``"bca"`` or ``"percentile"``) of the
        bootstrap, as in :func:`~xrr_accessor.irr`.
    **roles
        Column or dimension names, see :func:`~xrr_accessor.annotations`.

    Returns
    -------
    DataFrame or Dataset
        One row per (label, replication, rater) with an annotation, worst
        first within each label and replication (the unranked raters last):
        ``kappa_x``, ``alpha_without``, ``alpha``, ``delta_alpha``, ``rank``
        (1 = worst by ``metric``; <NA> below ``min_items``), ``n_annotations``
        (b's annotations, which is also b's items: one annotation per item and
        rater), ``n_shared`` (b's items another rater annotated too: kappa_x's
        items) and ``n_other`` (the
        others' annotations on those items). With ``ci``: ``kappa_x_lower``,
        ``kappa_x_upper``, ``delta_alpha_lower`` and ``delta_alpha_upper``
        after the value they bound. NaN with an
        :class:`~xrr_accessor.errors.UndefinedWarning` where undefined.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
    ...                    "rater": ["a", "b", "c"] * 4,
    ...                    "joy": [1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1]})
    >>> out = rater_agreement(df, min_items=4)
    >>> out.index.get_level_values("rater").tolist()
    ['c', 'a', 'b']
    >>> rater_agreement(df)[["rank", "n_annotations"]].astype(object).values.tolist()
    [[<NA>, 4], [<NA>, 4], [<NA>, 4]]
    >>> out.loc[("joy", "c"), ["kappa_x", "delta_alpha"]].round(3).tolist()
    [-0.5, 0.943]
    """
    key = str(metric).lower().replace("-", "_")
    if key not in METRICS:
        raise InputError(f"metric={metric!r} is not a ranking of rater_agreement; use one of "
                         f"{', '.join(map(repr, METRICS))}.")
    if min_items is None:
        min_items = MIN_RATER_ITEMS
    if isinstance(min_items, bool) or not isinstance(min_items, int | np.integer) or \
            min_items < 1:
        raise InputError(f"min_items={min_items!r} is the fewest items a rater needs to be "
                         "ranked, an integer >= 1 (e.g. min_items=20), or None for "
                         f"{MIN_RATER_ITEMS}.")
    level_ci = None if ci is None else confidence(ci)
    opts = Bootstrap(n_boot, seed, interval)
    read_ = read(data, level, roles, "rater_agreement")
    ann = read_.ann
    cells = _cells(read_)
    draws = None
    if level_ci is not None:
        opts.check_items(len(ann.items))
        draws = Draws.plan(len(ann.items), opts.n_boot, opts.seed,
                           jackknife=opts.interval == "bca")
    if isinstance(data, Staged):  # dask-backed: the partitions' sums, added
        if data.stats is None:
            raise Planned(Job(rater_job, (read_.level,), cells))
        point, reps = unstack(data.stats, len(ann.labels))
    else:
        groups = read_.grouped()  # rows read in place when they come by item
        point = [label_sums(read_, j, groups) for j in range(len(ann.labels))]
        reps = replicates(read_, draws) if draws is not None else iter(())
    every = _every(read_, point)
    bounds = ({} if level_ci is None else
              _intervals(read_, every, point, reps, level_ci, opts))
    frame, below = _table(read_, every, bounds, key, int(min_items))
    warn_undefined(frame)
    attrs = {"metric": "rater_agreement", "ranked_by": key, "level": read_.level.name,
             "min_items": int(min_items), "n_below_min_items": below}
    if draws is not None:
        head = ["kappa_x", "kappa_x_lower", "kappa_x_upper", "alpha_without", "alpha",
                "delta_alpha", "delta_alpha_lower", "delta_alpha_upper"]
        frame = frame[head + [c for c in frame.columns if c not in head]]
        attrs.update(ci=level_ci, method="bootstrap", interval=opts.interval,
                     n_boot=opts.n_boot, seed=seed if seed is not None else draws.entropy)
    return finish(frame, read_, attrs)


def _table(read_: Read, every: list[dict[str, np.ndarray]],
           bounds: dict[str, list[tuple[np.ndarray, np.ndarray]]], key: str,
           min_items: int) -> tuple[pd.DataFrame, int]:
    """Every label's rows in one table (the labels' (R, B) arrays stacked, one sort and
    one constructor, not a frame per label), ranked worst first within each label and
    replication, the rows below ``min_items`` after them unranked; and how many."""
    ann = read_.ann

    def stacked(get: Any) -> np.ndarray:
        shape = (len(ann.labels), len(ann.replications), len(ann.raters))
        return np.stack([get(s) for s in every]) if every else np.zeros(shape)

    n_ann = stacked(lambda s: s["n_annotations"])
    below = int(((n_ann > 0) & (n_ann < min_items)).sum())
    lab, r, b = np.nonzero(n_ann > 0)
    unranked = n_ann[lab, r, b] < min_items
    cols = {k: stacked(lambda s, k=k: s[k])[lab, r, b]
            for k in ("kappa_x", "alpha_without", "alpha")}
    cols["delta_alpha"] = cols["alpha_without"] - cols["alpha"]
    # ranked on 12 decimals: a tie in exact arithmetic stays a tie whatever the order
    # the sums were added in (memory, or dask's partitions)
    score = np.round(cols["kappa_x"] if key == "kappa_x" else -cols["delta_alpha"],
                     RANK_DECIMALS)
    order = np.lexsort((b, np.where(np.isnan(score), np.inf, score), unranked, r, lab))
    lab, r, b = lab[order], r[order], b[order]
    cols = {k: v[order] for k, v in cols.items()}
    # the unranked rows come last in their group: the ranked rows' ranks are theirs alone
    cols["rank"] = ranks(lab * len(ann.replications) + r,
                         np.where(unranked[order], np.nan, score[order]))
    for k in bounds:  # each interval after the value it bounds
        for side, name in enumerate(("lower", "upper")):
            cols[f"{k}_{name}"] = np.stack([pair[side] for pair in bounds[k]])[lab, r, b]
    for name in ("n_annotations", "n_shared", "n_other"):
        cols[name] = np.rint(stacked(lambda s, name=name: s[name])[lab, r, b]).astype(
            np.int64)
    index = multi_index([("label", ann.labels, lab), ("replication", ann.replications, r),
                         ("rater", ann.raters, b)])
    return pd.DataFrame(cols, index=index), below


def warn_undefined(frame: pd.DataFrame) -> None:
    """Warn once, naming how many raters of ``frame`` (a rater table) have an undefined
    kappa_x or alpha without them, and why (no shared item, one value, ...)."""
    notes = []
    no_pair = frame["n_shared"].eq(0)
    if no_pair.any():
        notes.append(f"kappa_x for {int(no_pair.sum())} rater(s) who share no item with "
                     "another rater")
    flat = frame["kappa_x"].isna() & ~no_pair
    if flat.any():
        notes.append(f"kappa_x for {int(flat.sum())} rater(s) whose shared items hold one "
                     "value on both sides (no expected disagreement)")
    wo = frame["alpha_without"].isna() & frame["alpha"].notna()
    if wo.any():
        notes.append(f"alpha_without for {int(wo.sum())} rater(s): without them no item "
                     "has two annotations, or every pairable value is the same")
    pool = frame["alpha"].isna()
    if pool.any():
        notes.append(f"alpha (and alpha_without) for {int(pool.sum())} row(s) of pools "
                     "with no item of two annotations or a single value")
    if notes:
        warn("rater_agreement is undefined (NaN) for " + "; ".join(notes) + ".",
             UndefinedWarning)


def _stats(read_: Read, label: int, s: Sums, keep: np.ndarray | None = None
           ) -> dict[str, np.ndarray]:
    """One label's values from its sums (``keep`` (R, B): only those raters' kappa_x
    and alpha without them are needed, which saves the per-rater work of the
    ordinal level)."""
    if read_.level.uses_moments:
        return _moments(s)
    return _categorical(read_, label, s, keep)


def _every(read_: Read, point: list[Sums]) -> list[dict[str, np.ndarray]]:
    """Each label's values from its sums: the labels of the same number of categories
    (all of them with numbers) in one call of :func:`_stats`, their (R, ...) sums
    joined along the replications (the statistics are per row: the same values);
    the ordinal level and matrices, whose D is a label's own, label by label."""
    ann = read_.ann
    if not (read_.level.uses_moments or read_.level.name == "nominal"):
        return [_stats(read_, j, point[j]) for j in range(len(point))]
    n_rep = len(ann.replications)
    groups: dict[int, list[int]] = {}
    for j in range(len(point)):
        groups.setdefault(0 if read_.level.uses_moments else read_.n_cat(j), []).append(j)
    every: list[dict[str, np.ndarray]] = [{} for _ in point]
    for labels in groups.values():
        joined = {k: np.concatenate([point[j][k] for j in labels]) for k in point[labels[0]]}
        got = _stats(read_, labels[0], joined)
        for g, j in enumerate(labels):
            every[j] = {k: v[g * n_rep:(g + 1) * n_rep] for k, v in got.items()}
    return every


#: The columns that get an interval, from the statistics of a pass.
_SCORES = {"kappa_x": lambda s: s["kappa_x"],
           "delta_alpha": lambda s: s["alpha_without"] - s["alpha"]}


def _intervals(read_: Read, est: list[dict[str, np.ndarray]], point: list[Sums],
               reps: Iterator[tuple[str, int, list[Sums]]], level: float, opts: Bootstrap
               ) -> dict[str, list[tuple[np.ndarray, np.ndarray]]]:
    """Per label, the (lower, upper) (R, B) of kappa_x and delta_alpha from an item
    bootstrap: ``reps`` are the sums of each replicate (item i weighted by the same
    keyed Poisson(1) draw as every other call with this seed) and of each jackknife
    group's items (BCa leaves one group out: the total minus them): every rater with an
    annotation, ranked or not. ``est``/``point``: each label's values and sums of the estimate."""
    labels = range(len(read_.ann.labels))
    keep = [e["n_annotations"] > 0 for e in est]
    live = [j for j in labels if keep[j].any()]  # a label with no rater shown: no interval
    got: dict[str, dict[int, dict[str, list[np.ndarray]]]] = {
        kind: {j: {k: [] for k in _SCORES} for j in live} for kind in ("boot", "group")}
    for kind, _, sums in reps:
        for j in live:
            s = sums[j] if kind == "boot" else {k: point[j][k] - v for k, v in sums[j].items()}
            values = _stats(read_, j, s, keep[j])
            for k, fn in _SCORES.items():
                got[kind][j][k].append(fn(values))
    out: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {k: [] for k in _SCORES}
    for j in labels:
        for k, fn in _SCORES.items():
            if j not in got["boot"]:
                none = np.full(keep[j].shape, np.nan)
                out[k].append((none, none))
                continue
            jack = got["group"][j][k]
            with np.errstate(invalid="ignore"):
                out[k].append(limits(fn(est[j]), np.stack(got["boot"][j][k]), level,
                                     opts.interval, np.stack(jack) if jack else None))
    return out
