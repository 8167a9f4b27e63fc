"""Synthetic replication data in the shape of IRep, and the bundled demo set.

:func:`simulate` draws annotations from a simple generative model, vectorized
over items: each item has, per label, a latent propensity shared by every
pool (Beta-distributed, so labels differ in prevalence and ambiguity); each
pool mixes that shared propensity with a pool-specific one in proportion
``similarity``; each rater says 1 with the pool's propensity. ``similarity=1``
gives perfect replications (normalized kappa_x near 1); lower values give
pools that agree internally but not with each other. Its population
reliabilities have no closed form; for data with a known truth, use
:func:`~xrr_accessor.datasets.simulate_replications`.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources

import numpy as np
import pandas as pd

from .irep import EMOTIONS, POOLS

__all__ = ["DEMO_SEED", "load_demo", "simulate"]

DEMO_SEED = 2021


def simulate(
    n_items: int = 3000,
    labels: Sequence[str] = EMOTIONS,
    pools: Sequence[str] = POOLS,
    raters_per_item: int = 2,
    coverage: float = 0.7,
    single_rate: float = 0.02,
    similarity: float | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Simulated binary multi-label annotations by several rater pools.

    Parameters
    ----------
    n_items : int
        Items in the corpus.
    labels : sequence of str
        Label names (one 0/1 column each).
    pools : sequence of str
        Replications (rater pools).
    raters_per_item : int
        Annotations per item in each pool (rater slots ``Rater 1``, ...).
    coverage : float
        Chance that a pool annotates a given item (the rest are unpairable
        for that pool).
    single_rate : float
        Chance that an annotated item gets only one annotation in a pool.
    similarity : float, optional
        Weight of the shared propensity in every pool, in [0, 1]. By default
        drawn per label and pool from U(0.2, 1).
    seed : int
        Seed of the random generator.

    Returns
    -------
    DataFrame
        Columns ``item_id``, ``pool``, ``rater`` and one int8 column per label.

    Examples
    --------
    >>> df = simulate(n_items=10, labels=["joy"], pools=["A"], seed=0)
    >>> list(df.columns)
    ['item_id', 'pool', 'rater', 'joy']
    """
    rng = np.random.default_rng(seed)
    n_label = len(labels)
    prevalence = rng.uniform(0.03, 0.35, n_label)
    concentration = rng.uniform(0.3, 3.0, n_label)
    a, b = prevalence * concentration, (1 - prevalence) * concentration
    shared = rng.beta(a, b, size=(n_items, n_label))
    if similarity is None:
        sim = rng.uniform(0.2, 1.0, size=(len(pools), n_label))
    else:
        sim = np.full((len(pools), n_label), float(similarity))
    frames = []
    for p, pool in enumerate(pools):
        items = np.flatnonzero(rng.random(n_items) < coverage)
        k = np.full(len(items), raters_per_item)
        k[rng.random(len(items)) < single_rate] = 1
        item_of = np.repeat(items, k)
        slot = np.arange(len(item_of)) - np.repeat(np.cumsum(k) - k, k)
        own = rng.beta(a, b, size=(len(items), n_label))
        prop = sim[p] * shared[items] + (1 - sim[p]) * own
        draws = rng.random((len(item_of), n_label)) < np.repeat(prop, k, axis=0)
        frame = pd.DataFrame(draws.astype(np.int8), columns=list(labels))
        frame.insert(0, "rater", pd.Series(slot + 1).map("Rater {}".format))
        frame.insert(0, "pool", pool)
        frame.insert(0, "item_id", pd.Series(item_of).map("item_{}".format))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def load_demo() -> pd.DataFrame:
    """The bundled demo data: simulated, ``simulate(seed=2021)``, IRep's labels and pools.

    Not real annotations: drawn from :func:`simulate`'s model in IRep's shape.
    A corpus of 3,000 items, 3 pools, 31 binary labels, 2 ratings per item per
    pool (some items 1), each pool covering about 70% of the corpus, so 2,904
    items are annotated by at least one pool (12,270 rows). Shipped as a file
    so that its numbers never depend on the random generator's version.

    Examples
    --------
    >>> df = load_demo()
    >>> df.shape, df["item_id"].nunique(), sorted(df["pool"].unique())
    ((12270, 34), 2904, ['Budapest', 'Kuala Lumpur', 'Mexico City'])
    """
    path = resources.files("xrr_accessor") / "data" / "irep_like.csv.gz"
    with resources.as_file(path) as p:
        return pd.read_csv(p, dtype={"item_id": str, "pool": str, "rater": str})
