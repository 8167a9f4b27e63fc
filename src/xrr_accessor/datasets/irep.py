"""IRep: its labels and rater pools, and a reader of its CSV.

The International Replication (IRep) data set of Wong, Paritosh & Aroyo (2021):
videos of facial expressions, each labeled by raters of three pools (Budapest,
Kuala Lumpur, Mexico City) with the 30 emotion labels of Cowen & Keltner (2017)
plus ``unsure``. :func:`read_irep` reads it, or any CSV in its schema, into the
library's canonical frame; :data:`EMOTIONS` and :data:`IREP_POOLS` (also
:data:`~xrr_accessor.datasets.POOLS`) name its labels and pools, and are the
defaults of the simulators.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import IO, Any

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["EMOTIONS", "IREP_POOLS", "IREP_ROLES", "POOLS", "read_irep"]

#: The 30 facial-expression labels of Cowen & Keltner (2017) used by IRep, plus "unsure".
EMOTIONS = (
    "amusement", "anger", "awe", "boredom", "calmness", "concentration", "confusion",
    "contemplation", "contempt", "contentment", "desire", "disappointment", "disgust",
    "distress", "doubt", "elation", "embarrassment", "fear", "interest", "love", "pain",
    "pride", "realization", "relief", "sadness", "shame", "surprise", "sympathy",
    "triumph", "wonder", "unsure",
)

#: The three rater pools (replications) of IRep.
IREP_POOLS: tuple[str, ...] = ("Budapest", "Kuala Lumpur", "Mexico City")

#: The same tuple under the name the demo data has always used.
POOLS = IREP_POOLS


def norm_key(name: Any) -> str:
    """A header name compared loosely: lower case, without ``_``, ``-``, ``.`` and spaces."""
    out = str(name).lower()
    for ch in "_- .":
        out = out.replace(ch, "")
    return out


#: Header spellings accepted for IRep's three role columns, compared after
#: lower-casing and removing ``_``, ``-``, ``.`` and spaces. IRep's own header is
#: ``Item_ID, Annotator_pool, Rater`` (Wong et al. 2021, Table 3).
IREP_ROLES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "item_id": ("itemid", "item", "items", "itemids", "unit", "unitid", "video", "videoid"),
    "pool": ("annotatorpool", "pool", "raterpool", "workerpool", "poolid", "replication",
             "city"),
    "rater": ("rater", "raterslot", "slot", "raterid", "annotator", "annotatorid", "worker",
              "workerid", "coder"),
})

_TRUE_FALSE = {"0": 0, "1": 1, "0.0": 0, "1.0": 1, "false": 0, "true": 1}


def _find_role(columns: list[Any], role: str, given: Any) -> Any:
    if given is not None:
        if given not in columns:
            raise InputError(
                f"column {given!r} given as {role}= is not in the file; its columns are "
                f"{columns}."
            )
        return given
    hits = [c for c in columns if norm_key(c) in IREP_ROLES[role]]
    if len(hits) > 1:
        raise InputError(
            f"several columns could be the {role} column: {hits}; say which with "
            f"read_irep(..., {role.split('_')[0]}={hits[0]!r})."
        )
    if not hits:
        what = {"item_id": "item id", "pool": "rater pool", "rater": "rater slot"}[role]
        raise InputError(
            f"no {what} column: looked for {', '.join(IREP_ROLES[role])} (case, '_' and "
            f"spaces ignored) among {columns}. Rename that column in the header, or name it "
            f"with read_irep(..., {role.split('_')[0]}='<column>')."
        )
    return hits[0]


def _binary_column(col: pd.Series, name: Any) -> pd.Series:
    """A label column as int8 (or nullable Int8 when it has missing cells)."""
    missing = col.isna().to_numpy()
    if pd.api.types.is_bool_dtype(col.dtype) and not missing.any():
        return col.astype(np.int8)
    present = col[~missing]
    if pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype):
        vals = present.to_numpy(dtype=float)
        bad = ~np.isin(vals, (0.0, 1.0))
        codes = vals
    else:
        tokens = present.astype(str).str.strip().str.lower()
        mapped = tokens.map(_TRUE_FALSE)
        bad = mapped.isna().to_numpy()
        codes = mapped.to_numpy(dtype=float, na_value=np.nan)
    if bad.any():
        rows = np.flatnonzero(~missing)[bad]
        shown = ", ".join(
            repr(v.item() if isinstance(v, np.generic) else v) for v in pd.unique(present[bad])[:3]
        )
        lines = ", ".join(str(int(r) + 2) for r in rows[:3])  # header is line 1
        raise InputError(
            f"column {name!r} holds {shown} ({int(bad.sum())} cell(s), e.g. on line(s) "
            f"{lines}); an IRep label column holds 0 or 1, or nothing when missing. "
            "Fix those cells, or map the values to 0/1 before reading."
            + (" An unnamed column is often a saved row index: read the file with "
               "pd.read_csv(..., index_col=0) and pass the frame to read_irep."
               if str(name).startswith("Unnamed:") else "")
        )
    if not missing.any():
        return pd.Series(codes.astype(np.int8), index=col.index, name=name)
    out = pd.array(np.zeros(len(col), dtype=np.int8), dtype="Int8")
    out[~missing] = codes.astype(np.int8)
    out[missing] = pd.NA
    return pd.Series(out, index=col.index, name=name)


def read_irep(
    path_or_buffer: str | os.PathLike[str] | IO[str] | IO[bytes] | pd.DataFrame,
    *,
    item: str | None = None,
    pool: str | None = None,
    rater: str | None = None,
) -> pd.DataFrame:
    """Read IRep's CSV (Wong, Paritosh & Aroyo 2021, Appendix A) as a canonical frame.

    The schema (the paper's Table 3): one line per annotation; an item id
    (``Item_ID``), the rater pool (``Annotator_pool``: Budapest, Kuala Lumpur,
    Mexico City), the rater slot (``Rater``: Rater 1, Rater 2), then one 0/1
    column per emotion label plus ``unsure``. The three role columns are found by
    name (see :data:`IREP_ROLES`; case, ``_`` and spaces ignored) wherever they
    are; every other column is a label, kept in the file's order.

    Parameters
    ----------
    path_or_buffer : path, file-like or DataFrame
        The CSV (``.gz`` and other compressions are inferred from a path), or a
        frame already read (it is not modified).
    item, pool, rater : str, optional
        Column names of the roles, when the header spells them otherwise.

    Returns
    -------
    DataFrame
        Columns ``item_id``, ``pool``, ``rater``, then one int8 column per label
        (nullable ``Int8`` if the label has missing cells). Role columns keep
        their values as read.

    Raises
    ------
    InputError
        When the file is empty or has no annotations, a role column is missing,
        ambiguous or has missing ids, there are no label columns, or a label
        column holds anything but 0, 1 (also ``true``/``false``) or nothing.

    Examples
    --------
    >>> import io
    >>> csv = io.StringIO(
    ...     "Item_ID,Annotator_pool,Rater,awe,sadness,unsure\\n"
    ...     "item_1,Budapest,Rater 1,0,1,0\\n"
    ...     "item_1,Budapest,Rater 2,0,1,0\\n"
    ...     "item_1,Mexico City,Rater 1,1,0,0\\n")
    >>> df = read_irep(csv)
    >>> df
      item_id         pool    rater  awe  sadness  unsure
    0  item_1     Budapest  Rater 1    0        1       0
    1  item_1     Budapest  Rater 2    0        1       0
    2  item_1  Mexico City  Rater 1    1        0       0
    >>> str(df["awe"].dtype)
    'int8'
    >>> read_irep(io.StringIO("Item_ID,Rater,awe\\nitem_1,Rater 1,0\\n"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: no rater pool column: ...
    """
    roles = {"item_id": item, "pool": pool, "rater": rater}
    if isinstance(path_or_buffer, pd.DataFrame):
        raw = path_or_buffer
        source = "the frame"
    else:
        source = "the file"
        try:
            raw = pd.read_csv(path_or_buffer, skipinitialspace=True)
        except pd.errors.EmptyDataError as exc:
            raise InputError(
                "the file is empty (no header, no annotations); an IRep CSV starts with "
                "the header Item_ID,Annotator_pool,Rater,<label>,... and has one line "
                "per annotation."
            ) from exc
    columns = list(raw.columns)
    if len(set(columns)) != len(columns):
        raise InputError(f"{source} repeats a column name among {columns}; rename one.")
    found = {role: _find_role(columns, role, roles[role]) for role in roles}
    labels = [c for c in columns if c not in found.values()]
    if not labels:
        raise InputError(
            f"{source} has no label columns, only {columns}; IRep has one 0/1 column per "
            "emotion label after the item, pool and rater columns."
        )
    if len(raw) == 0:
        raise InputError(
            f"{source} has a header but no annotations; add one line per annotation."
        )
    out = {}
    for role, col in found.items():
        values = raw[col]
        n_missing = int(values.isna().sum())
        if n_missing:
            first = int(np.flatnonzero(values.isna().to_numpy())[0]) + 2
            raise InputError(
                f"column {col!r} ({role}) has {n_missing} empty cell(s), first on line "
                f"{first}; every annotation needs an item id, a pool and a rater. Fill or "
                "drop those lines."
            )
        out[role] = values.reset_index(drop=True)
    for name in labels:
        out[name] = _binary_column(raw[name].reset_index(drop=True), name)
    return pd.DataFrame(out)
