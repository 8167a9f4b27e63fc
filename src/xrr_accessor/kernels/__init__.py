"""numba kernels: integer codes in, sufficient statistics out.

This package imports numpy and numba only (never pandas or xarray). Every
kernel has one signature (int64 codes, float64 values), is compiled with
``cache=True`` and loops over annotations or items exactly once: O(N) in the
number of annotations, plus O(n K^2) for K categories where a K x K matrix is
accumulated (only over the categories an item actually has).
"""

from .stats import (
    cross_coincidence,
    cross_moments,
    grouped_counts,
    grouped_moments,
    within_coincidence,
    within_moments,
)

__all__ = [
    "cross_coincidence",
    "cross_moments",
    "grouped_counts",
    "grouped_moments",
    "within_coincidence",
    "within_moments",
]
