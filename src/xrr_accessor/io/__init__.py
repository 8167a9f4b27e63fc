"""Readers of labeling-platform exports into the canonical long frame.

Each ``read_<platform>(path_or_buffer, ...)`` returns a :class:`pandas.DataFrame` with
columns ``item``, ``rater``, ``label`` (the question), ``value`` (the answer) and, when
``replication=`` is given, a constant ``replication`` column, one row per
(item, rater, label), ready for ``df.xrr(label="label", value="value").irr()``. Records
left out (cancelled, rejected, ignored, discarded, empty) are counted in
``df.attrs["dropped"]`` and reported in a
:class:`~xrr_accessor.errors.DroppedDataWarning`; bad input raises
:class:`~xrr_accessor.errors.InputError`.

:func:`from_counts` expands an item x category table of counts (Fleiss's input, no
rater ids) into one row per rating, the raters anonymous. :func:`read_annotations`
reads annotation tables (CSV/TSV, Parquet, JSON Lines; one file, a directory or a
glob) and :func:`from_duckdb` a DuckDB query; Parquet and DuckDB need the ``io``
extra (``pip install 'xrr_accessor[io]'``).

Importing this package needs only pandas and the standard library.
"""

from __future__ import annotations

from .collect import read_annotations
from .counts import from_counts
from .platforms import (
    read_argilla,
    read_doccano,
    read_label_studio,
    read_mturk,
    read_prodigy,
    read_toloka,
)
from .sql import from_duckdb
from .tables import read_file

__all__ = [
    "from_counts",
    "from_duckdb",
    "read_annotations",
    "read_argilla",
    "read_doccano",
    "read_file",
    "read_label_studio",
    "read_mturk",
    "read_prodigy",
    "read_toloka",
]
