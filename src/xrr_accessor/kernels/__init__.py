"""numba kernels: integer codes in, sufficient statistics out.

This package imports numpy and numba only (never pandas or xarray). Every
kernel is compiled with ``cache=True`` and one signature (int64 codes,
float64 sums), and loops over annotations exactly once: O(N) in the number of
annotations, plus O(K^2) per item for the categories an item actually has
where a K x K matrix is accumulated.
"""

from . import accumulate
from .stats import grouped_counts

__all__ = ["accumulate", "grouped_counts"]
