"""Spearman's correction for attenuation (Wong et al. 2021, Eq 12).

rho_xy = r_xy / sqrt(rel_x rel_y): r_xy is the Pearson correlation of the
item mean scores of two replications over the items both annotated; rel_x is
the reliability of replication X's item means, its split-half correlation
stepped up by Spearman-Brown (2 r / (1 + r)) and averaged over seeded random
splits of each item's annotations (items with at least two annotations in X
among the shared items). The paper compares rho_xy with normalized kappa_x
across labels (r = 0.99 on IRep).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..coefficients import Estimates
from ..coefficients.base import defined
from ..engine.pipeline import Codes, default_pairs
from ..engine.pipeline import annotations as canonical
from ..engine.results import pair_index, warn_undefined
from ..engine.statistics import rows
from ..errors import InputError, per_call
from ..kernels.accumulate import max_group_size
from ..kernels.split_half import split_half_moments
from ..uncertainty.resample import seeds as replicate_seeds

__all__ = ["disattenuated_correlation"]


@per_call
def disattenuated_correlation(
    data: Any, other: Any = None, n_splits: int = 100, seed: int | None = 0, **roles: Any,
) -> pd.DataFrame:
    """Spearman-corrected correlation of item means between replications (Eq 12).

    Parameters
    ----------
    data, other : annotations
        As in :func:`~xrr_accessor.cross_kappa`; labels with numeric values
        (0/1 labels, rating scales).
    n_splits : int
        Random split halves averaged for each replication's reliability.
    seed : int or None
        Seed of the splits (None: fresh entropy, reported in ``attrs``).
    **roles
        Column or dimension names.

    Returns
    -------
    DataFrame
        One row per label and replication pair: ``rho`` (r_xy / sqrt(rel_x
        rel_y); NaN with a warning when a reliability is not above 0),
        ``r_xy``, ``rel_x``, ``rel_y`` (Spearman-Brown split-half
        reliabilities, mean over splits) and ``n_items`` (items in both).

    Examples
    --------
    >>> from xrr_accessor.datasets import simulate
    >>> df = simulate(n_items=2000, labels=["joy"], pools=["A", "B"], similarity=1.0, seed=1)
    >>> out = disattenuated_correlation(df, n_splits=20)
    >>> out.columns.tolist()
    ['label', 'replication', 'replication_other', 'rho', 'r_xy', 'rel_x', 'rel_y', 'n_items']
    >>> bool(0.8 < out["rho"].iloc[0] < 1.2)
    True
    """
    if int(n_splits) < 1:
        raise InputError(f"n_splits={n_splits!r}; at least one split is needed.")
    ann, _ = canonical(data, other, level="nominal", **roles)
    pairs = default_pairs(ann)
    values = _numeric_values(ann)
    split_seeds, entropy = replicate_seeds(seed, int(n_splits))
    codes = Codes(ann)
    r = rows(codes)
    top = int(max_group_size(codes.item, codes.replication, codes.n_items,
                             len(ann.replications))) if len(ann.item) else 1
    means, halves = split_half_moments(
        r.offsets, r.order, r.rep, r.rater, r.codes, values, pairs,
        split_seeds.astype(np.uint64), _ranks(ann.items), _ranks(ann.raters),
        len(ann.replications), top)
    r_xy = _pearson(means)  # (L, P)
    r_half = _pearson(halves)  # (L, P, 2, S)
    with np.errstate(invalid="ignore", divide="ignore"):
        rel = (2.0 * r_half / (1.0 + r_half)).mean(axis=-1)  # (L, P, 2)
    est = Estimates(np.full(r_xy.shape, np.nan))
    est.undefined(~np.isfinite(r_xy), "no variation in the item means (or fewer than 3 "
                  "shared items): r_xy is undefined")
    est.undefined(~np.isfinite(rel).all(axis=-1), "a replication has too few items with two "
                  "annotations, or no variation within them: its split-half reliability "
                  "is undefined")
    est.undefined(~(rel > 0).all(axis=-1), "a split-half reliability is not above 0")
    ok = est.reason == ""
    est.value[ok] = r_xy[ok] / np.sqrt(rel[..., 0][ok] * rel[..., 1][ok])
    index = pair_index(ann, pairs)
    warn_undefined(est, ann, index, "Spearman's rho_xy")
    n_lab, n_pair = r_xy.shape
    out = pd.DataFrame({
        "label": np.repeat(np.asarray(ann.labels, dtype=object), n_pair),
        "replication": np.tile(index.get_level_values(0), n_lab),
        "replication_other": np.tile(index.get_level_values(1), n_lab),
        "rho": est.value.reshape(-1), "r_xy": r_xy.reshape(-1),
        "rel_x": rel[..., 0].reshape(-1), "rel_y": rel[..., 1].reshape(-1),
        "n_items": means[..., 0].reshape(-1).astype(np.int64),
    })
    out.attrs.update(n_splits=int(n_splits), seed=entropy)
    return out


def _numeric_values(ann: Any) -> np.ndarray:
    """(L, K) the number each category stands for, centred per label."""
    out = np.zeros((len(ann.labels), max(ann.n_category, 1)))
    for j, cats in enumerate(ann.categories):
        try:
            nums = np.asarray(cats, dtype=np.float64)
        except (TypeError, ValueError):
            nums = None
        if nums is None or not np.isfinite(nums).all():
            where = ann.source.get(ann.labels[j], repr(ann.labels[j]))
            raise InputError(
                f"Spearman's correction averages ratings, but {where} holds "
                f"non-numeric values ({', '.join(map(repr, list(cats)[:3]))}); map them to "
                "numbers first (e.g. df[col].map({'no': 0, 'yes': 1})).")
        if len(nums):
            out[j, :len(nums)] = nums - (nums.min() + nums.max()) / 2.0
    return out


def _ranks(ids: pd.Index) -> np.ndarray:
    """Each id's rank among the sorted ids (its position when ids do not sort)."""
    try:
        order = np.argsort(np.asarray(ids), kind="stable")
    except TypeError:
        order = np.arange(len(ids))
    out = np.empty(len(ids), dtype=np.int64)
    out[order] = np.arange(len(ids))
    return out


def _pearson(m: np.ndarray) -> np.ndarray:
    """Pearson r from moments (..., 6): n, su, sv, suu, svv, suv; NaN when undefined."""
    n, su, sv, suu, svv, suv = (m[..., k] for k in range(6))
    cov = n * suv - su * sv
    var_u, var_v = n * suu - su * su, n * svv - sv * sv
    scale = np.maximum(np.abs(n * suu) + np.abs(n * svv), 1e-300)
    ok = (n >= 3) & defined(var_u, scale) & defined(var_v, scale)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = cov / np.sqrt(np.where(ok, var_u * var_v, 1.0))
    return np.where(ok, np.clip(r, -1.0, 1.0), np.nan)
