"""Validity on numbers (interval and ratio levels): error and concordance with the gold.

Every annotation x of an item with gold y is a unit; so is each item's mean
annotation (per replication) against its gold. A unit is reduced to the sums
``1, |x - y|, (x - y)^2, x, y, x^2, y^2, x y`` (x and y shifted by one constant
per label, the midpoint of its values, which changes no statistic and keeps the
moments' cancellation small), added per group: per (replication, rater) for the
raters, per replication for the item means; a replication's pool over
annotations is the sum of its raters'. From the sums, with moments of divisor n
as Lin (1989) defines them::

    mae = sum|x - y| / n            rmse = sqrt(sum (x - y)^2 / n)
    s_xy = sum x y / n - mean_x mean_y,  s_x^2 = sum x^2 / n - mean_x^2 (same for y)
    pearson = s_xy / (s_x s_y)      ccc = 2 s_xy / (s_x^2 + s_y^2 + (mean_x - mean_y)^2)

The sums add over items, so a bootstrap replicate (items weighted by the keyed
Poisson draws of :mod:`xrr_accessor.engine.draws`, all of an item's annotations
with it) is one more weighted pass (:func:`~xrr_accessor.kernels.unit_sums.
weighted_group_sums`), and BCa's "all items but jackknife group g" is the total
minus group g's sums.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..engine.draws import BLOCK_BYTES, MAX_BLOCK, Draws, item_keys
from ..errors import UndefinedWarning, warn
from ..kernels.unit_sums import weighted_group_sums
from ..uncertainty.intervals import Bootstrap, limits
from ._common import Read, multi_index

__all__ = ["STATS", "label_units", "numbers", "point_sums"]

#: The statistics of every row, in column order (the pool's also over item means).
STATS = ("mae", "rmse", "pearson", "ccc")

#: Sums per unit: count, |e|, e^2, x, y, x^2, y^2, x y.
N_SUMS = 8

#: A variance below this share of the mean square (of the shifted values) is zero:
#: a constant side, up to rounding.
FLAT = 1e-12


#: Per view (``raters``, ``pool``, ``mean``), the statistics' arrays.
Views = dict[str, dict[str, np.ndarray]]


@dataclass(frozen=True)
class Units:
    """One label's units: their group, item and sums (units, :data:`N_SUMS`)."""

    group: np.ndarray
    item: np.ndarray
    f: np.ndarray
    n_groups: int


def label_units(read_: Read, j: int, gold_rep: int) -> Units:
    """Label ``j``'s units: each annotation of a replication other than ``gold_rep``
    whose item has gold (group ``rep * n_rater + rater``), then each (item,
    replication)'s mean of them (group ``n_rep * n_rater + rep``)."""
    ann = read_.ann
    n_rep, n_rater, n_items = len(ann.replications), len(ann.raters), len(ann.items)
    vals = read_.values(j)
    vals = np.zeros(0) if vals is None else vals
    if len(vals):
        vals = vals - (vals.min() + vals.max()) / 2.0
    codes, rep, item = ann.codes[j], ann.replication, ann.item
    is_gold = (rep == gold_rep) & (codes >= 0)
    gold = np.full(n_items, np.nan)
    gold[item[is_gold]] = vals[codes[is_gold]]
    use = np.flatnonzero((rep != gold_rep) & (codes >= 0))
    use = use[np.isfinite(gold[item[use]])]
    x, it, r = vals[codes[use]], item[use], rep[use]
    key = it * n_rep + r
    count = np.bincount(key, minlength=n_items * n_rep)
    cells = np.flatnonzero(count)
    mean = np.bincount(key, weights=x, minlength=n_items * n_rep)[cells] / count[cells]
    xs = np.concatenate([x, mean])
    items = np.concatenate([it, cells // n_rep]).astype(np.int64)
    ys = gold[items]
    e = xs - ys
    f = np.column_stack([np.ones(len(xs)), np.abs(e), e * e, xs, ys, xs * xs, ys * ys,
                         xs * ys])
    group = np.concatenate([r * n_rater + ann.rater[use], n_rep * n_rater + cells % n_rep])
    return Units(group.astype(np.int64), items, np.ascontiguousarray(f),
                 (n_rater + 1) * n_rep)


def point_sums(u: Units) -> np.ndarray:
    """The sums (groups, :data:`N_SUMS`) of every unit (weight 1)."""
    return np.stack([np.bincount(u.group, weights=u.f[:, s], minlength=u.n_groups)
                     for s in range(N_SUMS)], axis=-1)


def _views(sums: np.ndarray, n_rep: int, n_rater: int) -> dict[str, np.ndarray]:
    """(..., groups, S) sums as the raters' (..., n_rep, n_rater, S), the pools' over
    annotations (..., n_rep, S, the raters' added) and over item means."""
    raters = sums[..., :n_rep * n_rater, :].reshape(*sums.shape[:-2], n_rep, n_rater,
                                                     sums.shape[-1])
    return {"raters": raters, "pool": raters.sum(axis=-2),
            "mean": sums[..., n_rep * n_rater:, :]}


def finalize(s: np.ndarray) -> dict[str, np.ndarray]:
    """Statistics from sums (..., :data:`N_SUMS`); ``flat_x``/``flat_y`` mark a
    constant side (no variance). Pearson and ccc need n >= 2; pearson a
    variance on both sides; ccc a positive denominator."""
    n = s[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        m = s / n[..., None]
        mx, my = m[..., 3], m[..., 4]
        vx, vy = m[..., 5] - mx * mx, m[..., 6] - my * my
        flat_x = vx <= FLAT * m[..., 5]
        flat_y = vy <= FLAT * m[..., 6]
        vx, vy = np.where(flat_x, 0.0, vx), np.where(flat_y, 0.0, vy)
        cxy = np.where(flat_x | flat_y, 0.0, m[..., 7] - mx * my)
        two = n >= 2
        pearson = np.where(two & ~flat_x & ~flat_y, cxy / np.sqrt(vx * vy), np.nan)
        den = vx + vy + (mx - my) ** 2
        ccc = np.where(two & (den > 0), 2.0 * cxy / den, np.nan)
        return {"mae": np.where(n > 0, m[..., 1], np.nan),
                "rmse": np.where(n > 0, np.sqrt(m[..., 2]), np.nan),
                "pearson": np.clip(pearson, -1.0, 1.0), "ccc": np.clip(ccc, -1.0, 1.0),
                "n": n, "flat_x": flat_x & (n >= 2), "flat_y": flat_y & (n >= 2)}


def _replicates(every: list[Units], keys: np.ndarray, draws: Draws
                ) -> Iterator[list[np.ndarray]]:
    """Each block of replicates' sums (C, groups, S) per label: one weighted pass over
    the units (``item``: positions in ``keys``, the items with a unit)."""
    n_boot = len(draws.seeds)
    size = int(max(1, min(MAX_BLOCK, BLOCK_BYTES // max(8 * len(keys), 1))))
    for lo in range(0, n_boot, size):
        w = draws.weights(keys, lo, min(lo + size, n_boot))
        yield [weighted_group_sums(u.group, u.item, u.f, w, u.n_groups) for u in every]


def _jackknife(u: Units, keys: np.ndarray, draws: Draws, total: np.ndarray) -> np.ndarray:
    """Sums (groups_j, groups, S) of all items but each jackknife group's."""
    flat = draws.members(keys)[u.item] * u.n_groups + u.group
    size = draws.groups * u.n_groups
    part = np.stack([np.bincount(flat, weights=u.f[:, s], minlength=size)
                     for s in range(N_SUMS)], axis=-1).reshape(draws.groups, u.n_groups, N_SUMS)
    return total[None] - part


def numbers(read_: Read, sums: list[np.ndarray], units: list[Units] | None,
            level: float | None, opts: Bootstrap) -> tuple[list[Views], int | None]:
    """Per label, per view (``raters``, ``pool``, ``mean``) the statistics and, with
    ``level``, their ``<stat>_lower`` / ``<stat>_upper`` from the item bootstrap over
    the items with a unit (``units``: each label's, for the replicates); and the
    bootstrap's seed (its entropy when ``opts.seed`` is None)."""
    ann = read_.ann
    n_rep, n_rater = len(ann.replications), len(ann.raters)
    out = [{k: finalize(v) for k, v in _views(s, n_rep, n_rater).items()} for s in sums]
    if level is None or units is None:
        return out, None
    used = np.zeros(len(ann.items), dtype=bool)
    for u in units:
        used[u.item] = True
    where = np.flatnonzero(used)
    opts.check_items(len(where))
    local = np.full(len(ann.items), -1, dtype=np.int64)
    local[where] = np.arange(len(where))
    units = [Units(u.group, local[u.item], u.f, u.n_groups) for u in units]
    keys = item_keys(ann.items[where])
    draws = Draws.plan(len(where), opts.n_boot, opts.seed, jackknife=opts.interval == "bca")
    boot: list[dict[str, dict[str, list[np.ndarray]]]] = [
        {v: {k: [] for k in STATS} for v in o} for o in out]
    for block in _replicates(units, keys, draws):
        for j, s in enumerate(block):
            for v, got in _views(s, n_rep, n_rater).items():
                stats = finalize(got)
                for k in STATS:
                    boot[j][v][k].append(stats[k])
    for j, o in enumerate(out):
        jack = (_views(_jackknife(units[j], keys, draws, sums[j]), n_rep, n_rater)
                if opts.interval == "bca" else None)
        for v, est in o.items():
            jv = finalize(jack[v]) if jack is not None else None
            for k in STATS:
                reps = np.concatenate(boot[j][v][k], axis=0)
                lo, hi = limits(est[k], reps, level, opts.interval,
                                None if jv is None else jv[k])
                est[f"{k}_lower"], est[f"{k}_upper"] = lo, hi
    return out, opts.seed if opts.seed is not None else draws.entropy


def columns(got: dict[str, np.ndarray], with_ci: bool, suffix: str = "") -> dict[str, Any]:
    """The table's columns of one view: each statistic, then its interval."""
    cols: dict[str, Any] = {}
    for k in STATS:
        cols[k + suffix] = got[k]
        if with_ci:
            cols[f"{k}{suffix}_lower"] = got[f"{k}_lower"]
            cols[f"{k}{suffix}_upper"] = got[f"{k}_upper"]
    return cols


def raters_table(read_: Read, every: list[Views],
                 mine: np.ndarray, shown: np.ndarray, with_ci: bool) -> pd.DataFrame:
    """One row per (label, replication, rater) with an annotation against gold, the
    replications in ``mine[shown]`` order, the raters in the data's order."""
    ann = read_.ann
    parts = []
    for j, o in enumerate(every):
        got = o["raters"]
        reps = mine[shown]
        r, b = np.nonzero(got["n"][reps] > 0)
        cols = {k: v[reps][r, b] for k, v in columns(got, with_ci).items()}
        n = np.rint(got["n"][reps][r, b]).astype(np.int64)
        cols.update(n_annotations=n, n_items=n)
        parts.append(pd.DataFrame(cols, index=multi_index([
            ("label", ann.labels, np.full(len(r), j)),
            ("replication", ann.replications, reps[r]), ("rater", ann.raters, b)])))
    return pd.concat(parts)


def warn_numbers(every: list[Views], mine: np.ndarray) -> None:
    """One :class:`UndefinedWarning` saying why statistics are NaN, per kind of row."""
    notes = []
    for what, view in (("rater row(s)", "raters"), ("pool row(s)", "pool"),
                       ("pool row(s) over item means", "mean")):
        def count(key: str, test: Any, view: str = view) -> int:
            return sum(int(test(o[view][key][mine]).sum()) for o in every)

        none = count("n", lambda n: n == 0) if view != "raters" else 0
        few = count("n", lambda n: n == 1)
        flat_x, flat_y = count("flat_x", lambda a: a), count("flat_y", lambda a: a)
        if none and view == "pool":
            notes.append(f"every statistic for {none} {what} with no annotation of an "
                         "item with gold")
        if few:
            notes.append(f"pearson and ccc for {few} {what} of one annotation (one item: "
                         "a correlation needs two)")
        if flat_x or flat_y:
            notes.append(f"pearson for {what} whose annotations ({flat_x}) or gold "
                         f"values ({flat_y}) are one value (no "
                         "variance; ccc is 0 there, NaN if both sides are one equal value)")
    if notes:
        warn("validity is undefined (NaN) for " + "; ".join(notes) + ".", UndefinedWarning)
