"""Random annotation tables and conversions to the naive reference's plain data."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st

from xrr_accessor.errors import UndefinedWarning, XRRWarning

#: Set (e.g. ``XRR_THOROUGH=1``): the costliest property tests draw many more examples. The
#: README's test command runs the quick counts; .ci/run runs those tests again with it set,
#: in a step of its own after the suite (outside the suite's five minutes).
THOROUGH = bool(os.environ.get("XRR_THOROUGH"))


#: A costly test (a whole benchmark script, figures at 300 labels): in .ci/run's thorough
#: step, skipped by the README's quick command.
thorough_only = pytest.mark.skipif(
    not THOROUGH, reason="costly: .ci/run's thorough step runs it (XRR_THOROUGH=1)")


def examples(quick: int, thorough: int) -> int:
    """``max_examples`` of a costly property test: ``thorough`` under XRR_THOROUGH."""
    return thorough if THOROUGH else quick


#: category values used for numeric levels: unevenly spaced, including 0
NUMERIC_CATEGORIES = np.array([0.0, 1.0, 2.5, 3.0, 7.0, 10.0])


@st.composite
def annotation_frames(
    draw: Any, max_items: int = 12, max_raters: int = 4, max_reps: int = 3,
    max_categories: int = 5, min_reps: int = 1,
) -> pd.DataFrame:
    """A long frame ``item, rater, pool, value`` with missing cells.

    Items may be missing from whole replications (unpairable), replications
    may have one rater, and values may all be one category.
    """
    n_items = draw(st.integers(1, max_items))
    n_raters = draw(st.integers(1, max_raters))
    n_reps = draw(st.integers(min_reps, max_reps))
    n_cat = draw(st.integers(1, max_categories))
    p_missing = draw(st.sampled_from([0.0, 0.2, 0.5, 0.8]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    item, rater, rep = np.meshgrid(np.arange(n_items), np.arange(n_raters),
                                   np.arange(n_reps), indexing="ij")
    keep = rng.random(item.shape) >= p_missing
    keep[0, 0, :] = True  # every replication keeps at least one annotation
    vals = NUMERIC_CATEGORIES[rng.integers(0, n_cat, size=item.shape)]
    return pd.DataFrame({
        "item": item[keep] + 100,
        "rater": [f"r{g}" for g in rater[keep]],
        "pool": [f"P{r}" for r in rep[keep]],
        "value": vals[keep],
    })


def units(df: pd.DataFrame, pool: str) -> dict[Any, list]:
    """item -> list of values of one replication (naive alpha / kappa_x input)."""
    sub = df[df["pool"] == pool]
    return {i: list(g["value"]) for i, g in sub.groupby("item")}


def complete_rows(df: pd.DataFrame, pool: str) -> list[list]:
    """Rows of items rated by every rater present in ``pool`` (naive iota input)."""
    sub = df[df["pool"] == pool]
    wide = sub.pivot(index="item", columns="rater", values="value").dropna()
    return wide.to_numpy().tolist()


def quietly(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list]:
    """Call ``fn`` and return (result, our warnings), without raising them."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", XRRWarning)
        out = fn(*args, **kwargs)
    return out, [w for w in caught if issubclass(w.category, XRRWarning)]


def assert_close_or_both_nan(got: float, want: float, tol: float = 1e-10) -> None:
    """Equal to ``tol`` (relative and absolute), or both NaN."""
    if np.isnan(want):
        assert np.isnan(got), f"expected NaN, got {got}"
    else:
        assert not np.isnan(got), f"expected {want}, got NaN"
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def undefined_warned(caught: list) -> bool:
    return any(issubclass(w.category, UndefinedWarning) for w in caught)
