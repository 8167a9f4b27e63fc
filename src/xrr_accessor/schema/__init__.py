"""Canonical form: roles, validation and integer codes.

Every input (long or wide DataFrame, Dataset, DataArray) is read once into a
:class:`Table` (raw ids and raw values per label), then one or more tables are
encoded together into :class:`Annotations`: integer codes for item, rater,
replication and, per label, category (``-1`` = missing). Kernels see only
those codes. Nothing here modifies its input.
"""

from __future__ import annotations

from . import params as _params  # noqa: F401 (sets the parameters' check at the door)
from .encode import encode, label_categories
from .read import read
from .roles import DUPLICATES, ROLE_ALIASES, ROLES, Roles
from .tables import Annotations, Ids, Table, numeric_categories

__all__ = [
    "DUPLICATES",
    "ROLES",
    "ROLE_ALIASES",
    "Annotations",
    "Ids",
    "Roles",
    "Table",
    "encode",
    "label_categories",
    "numeric_categories",
    "read",
]
