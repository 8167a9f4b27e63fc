"""The ordinal disagreement kernel (no K x K matrix per cell) against the matrices
written out: Krippendorff's ordinal D from each cell's marginals, summed over a joint
table and over the two sides' marginals, for random sparse tables."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from xrr_accessor.coefficients.sums import ordinal_disagreement


def _d(n: np.ndarray) -> np.ndarray:
    """D(a, b) = (sum_{g=a..b} n_g - (n_a + n_b) / 2)^2, term by term."""
    k = len(n)
    out = np.zeros((k, k))
    for a in range(k):
        for b in range(k):
            lo, hi = min(a, b), max(a, b)
            out[a, b] = (n[lo:hi + 1].sum() - (n[a] + n[b]) / 2.0) ** 2
    return out


@given(seed=st.integers(0, 2**16), rows=st.integers(1, 6), k=st.integers(1, 9),
       pooled=st.booleans())
def test_ordinal_disagreement_equals_the_matrices_written_out(seed, rows, k, pooled):
    rng = np.random.default_rng(seed)
    joint = np.zeros((rows, k, k))
    for r in range(rows):  # pairs of an x value and a y value, a few categories each
        used_x = rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False)
        used_y = rng.choice(k, size=int(rng.integers(1, k + 1)), replace=False)
        for _ in range(int(rng.integers(1, 12))):
            joint[r, rng.choice(used_x), rng.choice(used_y)] += rng.integers(1, 4)
    x, y = joint.sum(axis=2), joint.sum(axis=1)
    marginals = x + y if pooled else x + y + rng.integers(0, 3, (rows, k))
    observed, expected = ordinal_disagreement(joint, x, y, marginals)
    for r in range(rows):
        d = _d(marginals[r])
        assert np.isclose(observed[r], (joint[r] * d).sum(), rtol=1e-12, atol=1e-12)
        assert np.isclose(expected[r], x[r] @ d @ y[r], rtol=1e-12, atol=1e-12)
