"""Simulated replications, drawn from the model of :class:`~.spec.LabelSpec`.

:func:`simulate_replications` draws binary multi-label annotations by several
rater pools, and :func:`draw_propensities` the per-item propensities behind
them (the same ones, from an independent random stream). Their population
reliabilities are :func:`~xrr_accessor.datasets.true_reliability`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from .irep import IREP_POOLS
from .spec import ATTRS_KEY, LabelSpec, Params, is_number, resolve_labels, resolve_pools

__all__ = ["draw_propensities", "simulate_replications"]


def _generators(seed: int | None) -> tuple[np.random.Generator, np.random.Generator]:
    """Independent streams for the propensities and for the ratings."""
    if seed is not None and (not isinstance(seed, int | np.integer) or isinstance(seed, bool)):
        raise InputError(f"seed= is {seed!r}; give a non-negative integer (or None).")
    if seed is not None and seed < 0:
        raise InputError(f"seed= is {seed}; give a non-negative integer (or None).")
    props, ratings = np.random.SeedSequence(seed).spawn(2)
    return np.random.default_rng(props), np.random.default_rng(ratings)


def _check_count(value: Any, what: str, minimum: int) -> int:
    if not isinstance(value, int | np.integer) or isinstance(value, bool) or value < minimum:
        raise InputError(f"{what} is {value!r}; give an integer >= {minimum}.")
    return int(value)


def _propensities(rng: np.random.Generator, n_items: int, par: Params) -> np.ndarray:
    """``p[l, x, i]``: chance that a rater of pool x says 1 on item i for label l."""
    n_lab, n_pool = len(par.labels), len(par.pools)
    a = (par.mu * par.kappa)[:, None]
    b = ((1 - par.mu) * par.kappa)[:, None]
    shared = rng.beta(a, b, size=(n_lab, n_items))
    own = rng.beta(a[:, :, None], b[:, :, None], size=(n_lab, n_pool, n_items))
    switch = rng.random((n_lab, n_pool, n_items)) < par.shift[:, :, None]
    q = np.where(switch, own, shared[:, None, :])
    keep = (1 - par.noise)[:, :, None]
    return keep * q + (par.noise * par.guess)[:, :, None]


def draw_propensities(
    n_items: int = 2000,
    labels: Mapping[str, LabelSpec | str] | Sequence[str] | None = None,
    pools: Sequence[str] = IREP_POOLS,
    seed: int | None = 0,
    *,
    preset: str | None = None,
) -> pd.DataFrame:
    """The per-item propensities behind :func:`simulate_replications`.

    ``p_X(i)``, the chance that a rater of pool X says 1 on item i, is the
    item's true mean score in pool X. With the same arguments and seed, these are
    exactly the propensities the ratings of :func:`simulate_replications` are
    drawn from (the two use independent random streams), so the true correlation
    of two pools' item means, and any population quantity, can be checked by
    averaging over items.

    Parameters
    ----------
    n_items, labels, pools, seed, preset
        As in :func:`simulate_replications`.

    Returns
    -------
    DataFrame
        Index ``item_id``; columns (``label``, ``pool``); float64 in [0, 1].

    Examples
    --------
    >>> p = draw_propensities(100_000, preset="contentment", pools=["A", "B"], seed=1)
    >>> p.shape
    (100000, 2)
    >>> round(float(p[("contentment", "A")].corr(p[("contentment", "B")])), 1)
    0.0
    """
    n_items = _check_count(n_items, "n_items", 1)
    par = Params.build(resolve_labels(labels, preset), resolve_pools(pools))
    rng, _ = _generators(seed)
    p = _propensities(rng, n_items, par)
    columns = pd.MultiIndex.from_product([par.labels, par.pools], names=["label", "pool"])
    return pd.DataFrame(
        p.reshape(-1, n_items).T, columns=columns, index=pd.Index(_item_ids(n_items),
                                                                  name="item_id"),
    )


def _item_ids(n_items: int) -> np.ndarray:
    return np.char.add("item_", np.arange(1, n_items + 1).astype(str))


def simulate_replications(
    n_items: int = 2000,
    labels: Mapping[str, LabelSpec | str] | Sequence[str] | None = None,
    pools: Sequence[str] = IREP_POOLS,
    raters_per_item: int = 2,
    seed: int | None = 0,
    *,
    preset: str | None = None,
    coverage: float = 1.0,
    single_rate: float = 0.0,
) -> pd.DataFrame:
    """Binary multi-label annotations by several rater pools, with known truth.

    Each label follows the model of :class:`LabelSpec`: a latent per-item
    propensity shared by every pool; each pool reads a share ``shift`` of the
    items its own way (an independent propensity from the same distribution);
    each rater answers at random with chance ``noise``; given the item, raters
    are independent. The population alpha of each pool, kappa_x and normalized
    kappa_x of each pair are :func:`true_reliability` (``true_reliability(df)``
    reads the parameters from ``df.attrs``).

    Why a switch rather than a blend ``(1 - shift) s_i + shift o_Xi``: the
    switch leaves the distribution of each pool's propensities, hence its IRR,
    untouched, so ``shift`` moves only replication similarity (normalized
    kappa_x is ``(1 - shift_X)(1 - shift_Y)`` when the marginals agree) and
    ``concentration`` / ``noise`` move only the IRR. A blend would lower the
    IRR along with the similarity. Either way the truth is exact, because every
    coefficient depends on the first two moments of the propensities only.

    Parameters
    ----------
    n_items : int
        Items in the corpus (``item_1`` ... ``item_<n>``).
    labels : mapping or sequence, optional
        Label name -> :class:`LabelSpec` (or the name of a preset), or a list of
        preset names (each label named after its preset). Default: one label per
        preset in :data:`PRESETS`.
    pools : sequence of str
        The replications (rater pools); IRep's three by default.
    raters_per_item : int
        Annotations of an item in each pool (rater slots ``Rater 1`` ...).
    seed : int or None
        Seed of the random streams (None: fresh entropy).
    preset : str, optional
        A single label following this preset (instead of ``labels``).
    coverage : float
        Chance that a pool annotates a given item, in (0, 1]. Items missing from a
        pool are unpairable there; the population values do not change.
    single_rate : float
        Chance that an annotated item gets one annotation only, in [0, 1].

    Returns
    -------
    DataFrame
        Columns ``item_id``, ``pool``, ``rater`` and one int8 column (0/1) per
        label; one row per annotation, pool by pool. ``attrs["xrr_simulation"]``
        holds the parameters as plain values.

    Examples
    --------
    >>> import xrr_accessor
    >>> from xrr_accessor.datasets import true_reliability
    >>> df = simulate_replications(20_000, preset="sadness", pools=["A", "B"], seed=2)
    >>> list(df.columns), len(df)
    (['item_id', 'pool', 'rater', 'sadness'], 80000)
    >>> truth = true_reliability(df)
    >>> round(float(truth.normalized.iloc[0, 0]), 3)
    0.912
    >>> est = xrr_accessor.normalized(df)
    >>> bool(abs(est.iloc[0, 0] - truth.normalized.iloc[0, 0]) < 0.05)
    True
    """
    n_items = _check_count(n_items, "n_items", 1)
    raters_per_item = _check_count(raters_per_item, "raters_per_item", 1)
    pool_names = resolve_pools(pools)
    specs = resolve_labels(labels, preset)
    par = Params.build(specs, pool_names)
    if not (is_number(coverage) and 0 < coverage <= 1):
        raise InputError(f"coverage is {coverage!r}; use a number in (0, 1].")
    if not (is_number(single_rate) and 0 <= single_rate <= 1):
        raise InputError(f"single_rate is {single_rate!r}; use a number in [0, 1].")
    rng_p, rng_r = _generators(seed)
    p = _propensities(rng_p, n_items, par)  # (L, P, n)

    items, slots, pool_codes, values = [], [], [], []
    for x in range(len(pool_names)):
        covered = np.flatnonzero(rng_r.random(n_items) < coverage)
        k = np.full(len(covered), raters_per_item, dtype=np.int64)
        k[rng_r.random(len(covered)) < single_rate] = 1
        item_of = np.repeat(covered, k)
        slot = np.arange(len(item_of)) - np.repeat(np.cumsum(k) - k, k)
        draws = rng_r.random((len(item_of), len(par.labels))) < p[:, x, item_of].T
        items.append(item_of)
        slots.append(slot)
        pool_codes.append(np.full(len(item_of), x, dtype=np.int64))
        values.append(draws.astype(np.int8))
    item_all = np.concatenate(items)
    slot_all = np.concatenate(slots)
    rater_names = np.char.add("Rater ", np.arange(1, raters_per_item + 1).astype(str))
    frame = pd.DataFrame({
        "item_id": pd.Series(_item_ids(n_items)[item_all], dtype="str"),
        "pool": pd.Series(np.asarray(pool_names, dtype=object)[np.concatenate(pool_codes)],
                          dtype="str"),
        "rater": pd.Series(rater_names[slot_all], dtype="str"),
    })
    label_values = np.concatenate(values, axis=0)
    for j, name in enumerate(par.labels):
        frame[name] = label_values[:, j]
    frame.attrs[ATTRS_KEY] = {
        "labels": {name: spec.to_dict() for name, spec in specs.items()},
        "pools": list(pool_names),
        "n_items": n_items,
        "raters_per_item": raters_per_item,
        "seed": None if seed is None else int(seed),
        "coverage": float(coverage),
        "single_rate": float(single_rate),
    }
    return frame
