"""numba kernels: integer codes in, sufficient statistics out.

This package imports numpy and numba only (never pandas or xarray). Every
kernel is compiled with ``cache=True`` and one signature (int64 codes,
float64 sums), and loops over annotations exactly once: O(N) in the number of
annotations, plus O(K^2) per item for the categories an item actually has
where a K x K matrix is accumulated. The cache goes where numba puts it, or
to a temporary directory where that is not writable (:mod:`.cachedir`).
"""

from .cachedir import ensure_cache_dir

ensure_cache_dir()  # before numba is imported by the kernels below

from . import accumulate  # noqa: E402
from .stats import grouped_counts  # noqa: E402

__all__ = ["accumulate", "grouped_counts"]
