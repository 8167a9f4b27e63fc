"""Canonical form: roles, validation and integer codes.

Every input (long or wide DataFrame, Dataset, DataArray) is read once into a
:class:`Table` (raw ids and raw values per label), then one or more tables are
encoded together into :class:`Annotations`: integer codes for item, rater,
replication and, per label, category (``-1`` = missing). Kernels see only
those codes. Nothing here modifies its input.
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .errors import DroppedDataWarning, InputError, LevelError, RoleError
from .kernels.encode import small_integer_codes

__all__ = ["ROLE_ALIASES", "Annotations", "Roles", "Table", "encode", "read"]

ROLES = ("item", "rater", "replication", "label", "value")

#: Column (or dimension) names recognised for each role, compared after
#: lower-casing and removing ``_``, ``-``, ``.`` and spaces.
ROLE_ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("item", "itemid", "items", "unit", "unitid"),
    "rater": (
        "rater", "raterid", "annotator", "annotatorid", "worker", "workerid", "coder",
        "coderid",
    ),
    "replication": (
        "replication", "replicationid", "pool", "annotatorpool", "raterpool", "workerpool",
    ),
    "label": ("label", "labelname"),
    "value": ("value", "rating", "annotation", "response"),
}


def _norm(name: Hashable) -> str:
    out = str(name).lower()
    for ch in "_- .":
        out = out.replace(ch, "")
    return out


@dataclass(frozen=True)
class Roles:
    """How to read an input: which column or dimension plays which role.

    ``None`` means "find it by name" (see :data:`ROLE_ALIASES`). ``value`` may
    be a list of columns: several value columns are several labels.
    ``categories`` gives the order of categories (a list for every label, or a
    mapping label -> list); ``wide=True`` reads a DataFrame whose rows are
    items and whose columns are raters; ``duplicates`` says what to do with
    repeated annotations of one (item, rater, replication): ``"error"``
    (default), keep the ``"first"`` or ``"last"``, or ``"mean"`` of numbers.
    """

    item: Hashable | None = None
    rater: Hashable | None = None
    replication: Hashable | None = None
    label: Hashable | None = None
    value: Hashable | Sequence[Hashable] | None = None
    wide: bool = False
    categories: Sequence[Any] | Mapping[Hashable, Sequence[Any]] | None = None
    duplicates: str = "error"

    def __post_init__(self) -> None:
        if self.duplicates not in DUPLICATES:
            raise InputError(
                f"duplicates={self.duplicates!r} is not a policy; use one of "
                f"{', '.join(map(repr, DUPLICATES))}."
            )

    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, Any]) -> Roles:
        """Build from keyword arguments, rejecting unknown names with a hint."""
        valid = (*ROLES, "wide", "categories", "duplicates")
        for key in kwargs:
            if key not in valid:
                hint = ""
                for role, aliases in ROLE_ALIASES.items():
                    if _norm(key) in aliases:
                        hint = f" Did you mean {role}={kwargs[key]!r}?"
                if not hint:
                    close = difflib.get_close_matches(key, valid, n=1)
                    hint = f" Did you mean {close[0]}=?" if close else ""
                raise RoleError(
                    f"unknown role {key!r}; the roles are {', '.join(valid)}.{hint}"
                )
        return cls(**kwargs)


@dataclass(frozen=True)
class Ids:
    """Factorized ids of one role: ``uniques[codes[row]]`` is the id of ``row``."""

    codes: np.ndarray
    uniques: pd.Index

    @classmethod
    def factorize(cls, values: Any, where: str, column: Hashable | None = None) -> Ids:
        """Factorize once; missing or unhashable ids are an error naming ``where``."""
        try:
            codes, uniques = pd.factorize(values)
        except TypeError as exc:
            raise InputError(
                f"{where} holds values that cannot be ids ({exc}); ids must be hashable "
                "scalars such as strings or integers."
            ) from exc
        n_missing = int((codes < 0).sum())
        if n_missing:
            raise InputError(
                f"{where} has {n_missing} missing id(s); every annotation needs one. "
                "Drop or fill those rows first"
                + (f" (e.g. df.dropna(subset=[{column!r}]))." if column is not None else ".")
            )
        return cls(np.asarray(codes, dtype=np.int64), pd.Index(uniques))

    def __len__(self) -> int:
        return len(self.codes)

    def take(self, rows: np.ndarray) -> Ids:
        return Ids(self.codes[rows], self.uniques)

    def show(self, row: int) -> str:
        return _show(self.uniques[self.codes[row]])


@dataclass
class Table:
    """One input read into raw ids and raw values, not yet encoded.

    ``labels`` maps each label to ``(rows, values)``: the row numbers (into
    ``item``/``rater``/``replication``) that carry a value for that label, and
    the values themselves. ``source`` names, per label, where it came from,
    for error messages.
    """

    item: Ids
    rater: Ids
    replication: Ids | None
    labels: dict[Hashable, tuple[np.ndarray, pd.Series]]
    source: dict[Hashable, str]
    has_label: bool
    categories: Any = None


@dataclass(frozen=True)
class Annotations:
    """The canonical form: one row per (item, rater, replication) annotation.

    Attributes
    ----------
    item, rater, replication : ndarray of int64, shape (N,)
        Codes into ``items``, ``raters``, ``replications``.
    codes : ndarray of int64, shape (L, N)
        Category code of each annotation for each label; ``-1`` = missing.
    items, raters, replications, labels : pandas.Index
        What the codes stand for.
    categories : tuple of pandas.Index
        Per label, its categories in order (code ``k`` is ``categories[l][k]``).
    has_label, has_replication : bool
        Whether the input had those dimensions (for shaping results).
    """

    item: np.ndarray
    rater: np.ndarray
    replication: np.ndarray
    codes: np.ndarray
    items: pd.Index
    raters: pd.Index
    replications: pd.Index
    labels: pd.Index
    categories: tuple[pd.Index, ...]
    has_label: bool
    has_replication: bool
    source: dict[Hashable, str] = field(default_factory=dict)
    #: Replications contributed by each input (one entry per input read), and
    #: whether that input had a replication column or dimension.
    inputs: tuple[tuple[int, bool], ...] = ()

    def where(self, label: int, replication: int | None = None) -> str:
        """Names a label (and replication) in messages: "column 'joy' in replication 'X'"."""
        out = self.source.get(self.labels[label], repr(self.labels[label]))
        if replication is not None and self.has_replication:
            out += f" in replication {self.replications[replication]!r}"
        return out

    def grid(self, label: int, replication: int) -> np.ndarray:
        """Codes of one label in one replication as items x raters present (-1 = none).

        Columns follow the rater codes of the raters with at least one annotation.
        """
        sel = (self.codes[label] >= 0) & (self.replication == replication)
        raters = np.unique(self.rater[sel])
        out = np.full((len(self.items), len(raters)), -1, dtype=np.int64)
        out[self.item[sel], np.searchsorted(raters, self.rater[sel])] = self.codes[label][sel]
        return out

    @property
    def n_category(self) -> int:
        """Largest number of categories of any label (at least 1)."""
        return max([1, *(len(c) for c in self.categories)])

    def values(self, level_name: str) -> np.ndarray:
        """Numeric value of each category, shape (L, K), NaN-padded.

        Raises :class:`LevelError` naming the column if a label's categories are
        not numbers (interval and ratio levels need numbers).
        """
        out = np.full((len(self.labels), self.n_category), np.nan)
        for j, (label, cats) in enumerate(zip(self.labels, self.categories, strict=True)):
            out[j, : len(cats)] = numeric_categories(
                cats, self.source.get(label, repr(label)), level_name
            )
        return out


def numeric_categories(cats: pd.Index, where: str, level_name: str) -> np.ndarray:
    """The categories as float64, or a :class:`LevelError` naming ``where``."""
    if cats.dtype == bool or pd.api.types.is_bool_dtype(cats.dtype):
        return cats.to_numpy(dtype=float)
    if pd.api.types.is_numeric_dtype(cats.dtype):
        vals = cats.to_numpy(dtype=float)
    else:
        try:
            vals = np.array([float(c) if isinstance(c, (int, float, np.number, bool))
                             else np.nan for c in cats], dtype=float)
        except (TypeError, ValueError):  # pragma: no cover - defensive
            vals = np.full(len(cats), np.nan)
        if np.isnan(vals).any():
            bad = [c for c, v in zip(cats, vals, strict=True) if np.isnan(v)][:3]
            raise LevelError(
                f"{where} holds non-numeric values ({', '.join(map(repr, bad))}); "
                f"level={level_name!r} needs numbers. Convert the column with "
                f"pd.to_numeric, or use level='nominal' (or 'ordinal' with categories=)."
            )
    if not np.isfinite(vals).all():
        raise LevelError(
            f"{where} holds infinite values; level={level_name!r} needs finite numbers. "
            "Replace them (e.g. with NaN for missing) first."
        )
    return vals


# --------------------------------------------------------------------------- reading


def _find(columns: Sequence[Hashable], role: str) -> Hashable | None:
    hits = [c for c in columns if _norm(c) in ROLE_ALIASES[role]]
    if len(hits) > 1:
        raise RoleError(
            f"several columns could be the {role}: {hits}. Say which with "
            f".xrr({role}={hits[0]!r})."
        )
    return hits[0] if hits else None


def _check_given(columns: Sequence[Hashable], role: str, name: Hashable, what: str) -> None:
    if name not in columns:
        close = difflib.get_close_matches(str(name), [str(c) for c in columns], n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise RoleError(
            f"{what} {name!r} given as {role} is not in the data; it has "
            f"{list(columns)}.{hint}"
        )


def _missing_role(role: str, columns: Sequence[Hashable], what: str) -> RoleError:
    names = ", ".join(ROLE_ALIASES[role])
    extra = ""
    if what == "column" and role in ("item", "rater"):
        extra = (
            " If rows are items and columns are raters, read it as a wide table "
            "with .xrr(wide=True)."
        )
    return RoleError(
        f"no {what} for the {role} role: looked for {names} (case, '_' and spaces "
        f"ignored) among {list(columns)}. Name it with .xrr({role}='<{what}>').{extra}"
    )


def _resolve_roles(
    names: Sequence[Hashable], roles: Roles, what: str
) -> dict[str, Hashable | None]:
    """Which column (or dimension) plays each role: given, or found by name.

    Item and rater are required; replication and label are optional.
    """
    found: dict[str, Hashable | None] = {}
    for role in ("item", "rater", "replication", "label"):
        given = getattr(roles, role)
        if given is not None:
            _check_given(names, role, given, what)
            found[role] = given
        else:
            found[role] = _find(names, role)
    for role in ("item", "rater"):
        if found[role] is None:
            raise _missing_role(role, names, what)
    return found


def read(data: Any, roles: Roles | None = None) -> Table:
    """Read a DataFrame, Dataset or DataArray into a :class:`Table`."""
    roles = roles or Roles()
    if isinstance(data, pd.DataFrame):
        return _read_wide(data, roles) if roles.wide else _read_long(data, roles)
    if isinstance(data, xr.Dataset | xr.DataArray):
        return _read_xarray(data, roles)
    raise TypeError(
        f"cannot read annotations from {type(data).__name__}; pass a pandas DataFrame "
        "or an xarray Dataset/DataArray."
    )


def _read_long(df: pd.DataFrame, roles: Roles) -> Table:
    cols = list(df.columns)
    if df.columns.has_duplicates:
        rep = df.columns[df.columns.duplicated()].unique().tolist()
        raise InputError(
            f"column name(s) {rep} appear more than once; give every column its own name "
            "(e.g. df.columns = [...]) before reading annotations."
        )
    if isinstance(df.columns, pd.MultiIndex):
        raise InputError(
            "the frame has MultiIndex columns; a long frame needs flat column names "
            "(flatten with df.columns = ['_'.join(map(str, c)) for c in df.columns]), "
            "and a wide frame is read with .xrr(wide=True)."
        )
    found = _resolve_roles(cols, roles, "column")
    value = roles.value
    value_cols: list[Hashable]
    if value is None:
        v = _find(cols, "value")
        value_cols = [v] if v is not None else []
    elif isinstance(value, str) or not isinstance(value, Sequence):
        value_cols = [value]
    else:
        value_cols = list(value)
    for v in value_cols:
        _check_given(cols, "value", v, "column")
    used = {found["item"], found["rater"], found["replication"]}
    label_col = found["label"] if value_cols else None
    if label_col is not None and len(value_cols) != 1:
        raise RoleError(
            f"a label column ({label_col!r}) goes with exactly one value column; got "
            f"{value_cols}. Pass value='<column>'."
        )
    if not value_cols:
        value_cols = [c for c in cols if c not in used]
        has_label = True
        if not value_cols:
            raise RoleError(
                f"no value columns: every column of {cols} plays a role. Add the "
                "annotations, or name them with .xrr(value=[...])."
            )
    else:
        has_label = label_col is not None or (roles.value is not None and not (
            len(value_cols) == 1 and _norm(value_cols[0]) in ROLE_ALIASES["value"]
        ))
    dup_roles = [c for c in value_cols if c in used or c == label_col]
    if dup_roles:
        raise RoleError(f"column {dup_roles[0]!r} cannot be both a role and a value column.")
    item = Ids.factorize(df[found["item"]], f"column {found['item']!r}", found["item"])
    rater = Ids.factorize(df[found["rater"]], f"column {found['rater']!r}", found["rater"])
    rep = None
    if found["replication"] is not None:
        rep = Ids.factorize(df[found["replication"]], f"column {found['replication']!r}",
                            found["replication"])
    lab = None
    if label_col is not None:
        lab = Ids.factorize(df[label_col], f"column {label_col!r}", label_col)
    key_names = [found["item"], found["rater"]]
    keys = [item, rater]
    for ids, name in ((rep, found["replication"]), (lab, label_col)):
        if ids is not None:
            keys.append(ids)
            key_names.append(name)

    def describe(i: int) -> str:
        parts = [f"item={item.show(i)}", f"rater={rater.show(i)}"]
        parts += [f"replication={rep.show(i)}"] if rep is not None else []
        parts += [f"label={lab.show(i)}"] if lab is not None else []
        return "(" + ", ".join(parts) + ")"

    values = {c: df[c].reset_index(drop=True) for c in value_cols}
    keep, values = _dedupe(_key_codes(keys), roles.duplicates, describe,
                           "columns " + ", ".join(map(repr, key_names)), key_names, values)
    if keep is not None:
        item, rater = item.take(keep), rater.take(keep)
        rep = None if rep is None else rep.take(keep)
        lab = None if lab is None else lab.take(keep)
    table = Table(
        item=item, rater=rater, replication=rep, labels={}, source={}, has_label=has_label,
        categories=roles.categories,
    )
    if lab is None:
        rows = np.arange(len(item), dtype=np.int64)
        for c in value_cols:
            table.labels[c] = (rows, values[c])
            table.source[c] = f"column {c!r}"
        return table
    # one label column + one value column: pivot to one row per (item, rater, replication)
    value_col = value_cols[0]
    label_order = np.arange(len(lab.uniques))  # first appearance, or the Categorical's order
    if isinstance(df[label_col].dtype, pd.CategoricalDtype):
        cats = df[label_col].dtype.categories
        label_order = np.argsort(cats.get_indexer(lab.uniques), kind="stable")
    row_of, first = pd.factorize(_key_codes([item, rater] + ([rep] if rep is not None else [])))
    row_of = np.asarray(row_of, dtype=np.int64)
    first_pos = _first_positions(row_of, len(first))
    table.item = item.take(first_pos)
    table.rater = rater.take(first_pos)
    table.replication = None if rep is None else rep.take(first_pos)
    by_label = np.argsort(lab.codes, kind="stable")
    bounds = np.searchsorted(lab.codes[by_label], np.arange(len(lab.uniques) + 1))
    for j in label_order:
        pos = by_label[bounds[j]:bounds[j + 1]]
        name = lab.uniques[j]
        table.labels[name] = (row_of[pos], values[value_col].iloc[pos])
        table.source[name] = f"column {value_col!r} (label {name!r})"
    return table


def _read_wide(df: pd.DataFrame, roles: Roles) -> Table:
    cols = df.columns
    if isinstance(cols, pd.MultiIndex):
        if cols.nlevels != 2:
            raise InputError(
                f"a wide frame's columns are raters, or (replication, rater) pairs; got "
                f"a MultiIndex with {cols.nlevels} levels."
            )
        reps = cols.get_level_values(0)
        raters = cols.get_level_values(1)
    else:
        reps, raters = None, cols
    n, b = df.shape
    name = roles.value if isinstance(roles.value, str) else "value"
    dtypes = df.dtypes.unique()
    if len(dtypes) == 1 and isinstance(dtypes[0], pd.CategoricalDtype):
        flat = pd.Series(pd.Categorical.from_codes(
            np.column_stack([df[c].cat.codes for c in df.columns]).reshape(-1),
            dtype=dtypes[0]), copy=False)
    else:
        flat = pd.Series(df.to_numpy().reshape(-1), copy=False)
    rows = Ids.factorize(df.index, "the index (items)")
    item = Ids(np.repeat(rows.codes, b), rows.uniques)
    rcodes, runiq = pd.factorize(np.asarray(raters, dtype=object))
    rater = Ids(np.tile(np.asarray(rcodes, dtype=np.int64), n), pd.Index(runiq))
    rep = None
    if reps is not None:
        pc, pu = pd.factorize(np.asarray(reps, dtype=object))
        rep = Ids(np.tile(np.asarray(pc, dtype=np.int64), n), pd.Index(pu))
    keep, values = _dedupe(
        _key_codes([item, rater] + ([rep] if rep is not None else [])),
        roles.duplicates,
        lambda i: f"(item={item.show(i)}, rater={rater.show(i)})",
        "the index and columns of the wide frame", None, {name: flat},
    )
    rows = np.arange(n * b, dtype=np.int64)
    if keep is not None:
        item, rater, flat = item.take(keep), rater.take(keep), values[name]
        rep = None if rep is None else rep.take(keep)
        rows = np.arange(len(keep), dtype=np.int64)
    return Table(
        item=item, rater=rater, replication=rep,
        labels={name: (rows, flat)},
        source={name: "the wide frame's cells"}, has_label=False,
        categories=roles.categories,
    )


def _read_xarray(data: xr.Dataset | xr.DataArray, roles: Roles) -> Table:
    dims = list(data.dims)
    dim_of = _resolve_roles(dims, roles, "dimension")
    if isinstance(data, xr.Dataset):
        if dim_of["label"] is not None:
            raise RoleError(
                f"a Dataset holds one data variable per label; it also has a label "
                f"dimension {dim_of['label']!r}. Use ds.to_dataarray() or pick one."
            )
        if not data.data_vars:
            raise InputError("the Dataset has no data variables (one per label expected).")
        ds = data
        has_label = True
    else:
        name = data.name if data.name is not None else "value"
        if dim_of["label"] is not None:
            if data.sizes[dim_of["label"]] == 0:
                raise InputError(f"the label dimension {dim_of['label']!r} is empty; there "
                                 "is nothing to compute.")
            ds = data.to_dataset(dim=dim_of["label"])
            has_label = True
        else:
            ds = data.to_dataset(name=name)
            has_label = False
    core = [dim_of["item"], dim_of["rater"]] + (
        [dim_of["replication"]] if dim_of["replication"] is not None else []
    )
    extra = [d for d in ds.dims if d not in core]
    if extra:
        raise InputError(
            f"unexpected dimension(s) {extra}; annotations have dims item, rater and "
            "optionally replication and label. Select or stack the others first, or "
            "name the roles with .xrr(item=..., rater=..., replication=...)."
        )
    index = [ds.indexes[d] if d in ds.indexes else pd.RangeIndex(ds.sizes[d]) for d in core]
    for d, idx in zip(core, index, strict=True):
        if idx.has_duplicates:
            raise InputError(
                f"dimension {d!r} has repeated coordinate values (e.g. "
                f"{idx[idx.duplicated()][0]!r}); each item/rater/replication must appear "
                "once along its dimension."
            )
    if index[0].hasnans:
        raise InputError(f"dimension {dim_of['item']!r} has missing item ids; drop them first.")
    # aligned on its dimensions already: codes are positions, nothing to factorize. Keep
    # the first variable's dimension order, so that flattening it copies nothing.
    first = next(iter(ds.data_vars.values()))
    order = list(first.dims) if set(first.dims) == set(core) else core
    shape = [ds.sizes[d] for d in order]
    total = int(np.prod(shape))

    def positions(dim: Hashable) -> np.ndarray:
        p = order.index(dim)
        inner, outer = int(np.prod(shape[p + 1:])), int(np.prod(shape[:p]))
        grid = np.arange(shape[p], dtype=np.int64)[None, :, None]
        return np.broadcast_to(grid, (outer, shape[p], inner)).reshape(-1)

    item = Ids(positions(core[0]), index[0])
    rater = Ids(positions(core[1]), index[1])
    rep = Ids(positions(core[2]), index[2]) if len(core) == 3 else None
    rows = np.arange(total, dtype=np.int64)
    labels: dict[Hashable, tuple[np.ndarray, pd.Series]] = {}
    source: dict[Hashable, str] = {}
    template = xr.DataArray(np.empty(shape, dtype=np.int8), dims=order)
    for name, var in ds.data_vars.items():
        vals = var.broadcast_like(template).transpose(*order)
        labels[name] = (rows, pd.Series(vals.values.reshape(-1), copy=False))
        source[name] = f"variable {name!r}"
    return Table(
        item=item, rater=rater, replication=rep, labels=labels, source=source,
        has_label=has_label, categories=roles.categories,
    )


def _show(value: Any) -> str:
    """repr of a value as a user typed it (no ``np.int64(...)`` wrappers)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def _key_codes(parts: list[Ids]) -> np.ndarray:
    """One int64 key per row combining several factorized ids."""
    key = np.zeros(len(parts[0]), dtype=np.int64)
    for ids in parts:
        key = key * max(len(ids.uniques), 1) + ids.codes
    return key


#: What to do with repeated annotations of one (item, rater, replication[, label]).
DUPLICATES = ("error", "first", "last", "mean")


def _first_positions(codes: np.ndarray, n: int) -> np.ndarray:
    """Row of the first occurrence of each code 0..n-1."""
    _, first = np.unique(codes, return_index=True)
    assert len(first) == n
    return first.astype(np.int64)


def _dedupe(
    key: np.ndarray,
    policy: str,
    describe: Any,
    where: str,
    columns: list[Hashable] | None,
    values: dict[Hashable, pd.Series],
) -> tuple[np.ndarray | None, dict[Hashable, pd.Series]]:
    """Apply the ``duplicates=`` policy to rows sharing ``key``.

    Returns the rows kept (None when there are no duplicates) and the values
    of those rows: the first or last annotation, or the mean of numeric
    values. Anything but ``"error"`` warns with the count.
    """
    index = pd.Index(key)
    dup = index.duplicated()
    if not dup.any():
        return None, values
    n = int(dup.sum())
    if policy == "error":
        i = int(np.flatnonzero(dup)[0])
        fix = (f"df.drop_duplicates(subset={list(columns)!r})" if columns
               else "dropping the repeated index labels")
        raise InputError(
            f"{n} duplicate annotation(s) in {where}: {describe(i)} appears more than "
            f"once in one replication. Keep one annotation each, e.g. with {fix}, or "
            "choose a policy: .xrr(duplicates='first'), 'last' or 'mean'."
        )
    if policy in ("first", "last"):
        keep = np.flatnonzero(~index.duplicated(keep=policy))
        out = {k: v.iloc[keep].reset_index(drop=True) for k, v in values.items()}
        what = f"kept the {policy} of each"
    else:
        group, uniq = pd.factorize(key)
        keep = _first_positions(np.asarray(group, dtype=np.int64), len(uniq))
        out = {}
        for k, v in values.items():
            if not (pd.api.types.is_numeric_dtype(v.dtype) or pd.api.types.is_bool_dtype(v.dtype)):
                raise LevelError(
                    f"duplicates='mean' averages numbers, but column {k!r} holds "
                    f"{v.dtype} values; use duplicates='first' or 'last'."
                )
            out[k] = v.astype(float).groupby(group).mean().reset_index(drop=True)
        what = "averaged each"
    warnings.warn(
        f"{where}: {n} repeated annotation(s); {what} (item, rater, replication) "
        f"(duplicates={policy!r}).",
        DroppedDataWarning,
        stacklevel=5,
    )
    return keep, out


# --------------------------------------------------------------------------- encoding


def _clean_values(values: pd.Series, where: str) -> pd.Series:
    """Apply the value policy: one kind of value per column, blank strings missing.

    Returns ``values`` itself or a new Series (never modifies it).
    """
    dtype = values.dtype
    is_object = pd.api.types.is_object_dtype(dtype)
    if is_object:
        kind = pd.api.types.infer_dtype(values, skipna=True)
        if kind in ("mixed", "mixed-integer"):
            sample = values.dropna().iloc[:100_000]
            kinds = sorted({type(v).__name__ for v in sample})
            unhashable = [k for k in kinds if k in ("list", "dict", "set", "ndarray")]
            if unhashable:
                raise LevelError(
                    f"{where} holds {unhashable[0]} values; an annotation is one value. "
                    "Explode multi-label cells into one row or column per label first."
                )
            raise LevelError(
                f"{where} mixes value types ({', '.join(kinds)}), so equal-looking values "
                "(1 and '1', True and 1) would be different or merged categories. Make the "
                "column one type, e.g. pd.to_numeric(df[col]) or df[col].astype(str)."
            )
    if is_object or pd.api.types.is_string_dtype(dtype):
        if pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty"):
            blank = values.str.strip().eq("").fillna(False).to_numpy(dtype=bool)
            if blank.any():
                warnings.warn(
                    f"{where}: {int(blank.sum())} empty or blank string(s) read as missing "
                    "annotations.",
                    DroppedDataWarning,
                    stacklevel=5,
                )
                return values.mask(blank)
    return values


def _numeric_strings_hint(cats: pd.Index) -> str:
    if pd.api.types.is_object_dtype(cats.dtype) or pd.api.types.is_string_dtype(cats.dtype):
        if len(cats) and pd.to_numeric(pd.Series(cats), errors="coerce").notna().all():
            return " The values look like numbers written as text: pd.to_numeric(df[col])."
    return ""


def _label_categories(
    values: pd.Series, where: str, order: Sequence[Any] | None
) -> tuple[np.ndarray, pd.Index]:
    """Codes (-1 = missing) and ordered categories of one label's values."""
    values = _clean_values(values, where)
    if order is not None:
        cats = pd.Index(list(order))
        if cats.has_duplicates:
            raise InputError(f"categories= for {where} lists a category twice: {list(order)}")
        codes = np.asarray(cats.get_indexer(values), dtype=np.int64)
        unknown = (codes < 0) & values.notna().to_numpy()
        if unknown.any():
            bad = ", ".join(_show(v) for v in pd.unique(values[unknown])[:3])
            raise InputError(
                f"{where} holds [{bad}] not among categories={list(order)}; add them "
                "to categories= or clean the column."
            )
        return codes, cats
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(values.cat.codes, dtype=np.int64)
        return codes, pd.Index(dtype.categories)
    small = _small_integers(values)
    if small is not None:
        return small
    try:
        codes, cats = pd.factorize(values, sort=True)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in values.dropna()})
        raise LevelError(
            f"{where} mixes value types ({', '.join(kinds)}) that cannot be ordered. "
            "Make the column one type (e.g. .astype(str) or pd.to_numeric)."
        ) from exc
    return np.asarray(codes, dtype=np.int64), pd.Index(cats)


def _small_integers(values: pd.Series) -> tuple[np.ndarray, pd.Index] | None:
    """Fast codes for numpy integer or boolean ratings spanning a small range.

    A lookup table over [min, max] replaces hashing: the common case of
    Likert scales and 0/1 labels. None when it does not apply.
    """
    arr = values.to_numpy() if isinstance(values.dtype, np.dtype) else None
    if arr is None or arr.size == 0 or arr.dtype.kind not in "iub":
        return None
    if arr.dtype.kind == "u" and arr.dtype.itemsize == 8:  # may not fit in int64
        return None
    arr = arr.astype(np.int64, copy=False)
    codes, cats = small_integer_codes(arr, max(1024, 4 * arr.size))
    if not codes.size:
        return None
    if values.dtype.kind == "b":
        return codes, pd.Index(cats.astype(bool))
    return codes, pd.Index(cats.astype(values.dtype))


def _is_ordered(values: pd.Series, cats: pd.Index, explicit: bool) -> bool:
    if explicit:
        return True
    if isinstance(values.dtype, pd.CategoricalDtype) and values.dtype.ordered:
        return True
    if pd.api.types.is_bool_dtype(cats.dtype) or pd.api.types.is_numeric_dtype(cats.dtype):
        return True
    return all(isinstance(c, (bool, int, float, np.number)) for c in cats)


def encode(tables: Sequence[Table], ordinal: bool = False) -> Annotations:
    """Encode one or more tables together into :class:`Annotations`.

    Items, raters and replications are factorized jointly, so the same item id
    in two tables is the same item. Categories of a label are the union over
    tables. With ``ordinal=True`` every label must have an order (numbers,
    an ordered Categorical, or ``categories=``).
    """
    first = tables[0]
    names = list(first.labels)
    for t in tables[1:]:
        if list(t.labels) != names and set(t.labels) != set(names):
            raise InputError(
                f"the two inputs have different labels: {sorted(map(str, names))} vs "
                f"{sorted(map(str, t.labels))}. Select the common labels first "
                "(or rename them to match)."
            )
    offsets = np.cumsum([0] + [len(t.item) for t in tables])
    item_codes, items = _joint([t.item for t in tables])
    rater_codes, raters = _joint([t.rater for t in tables])
    has_rep = any(t.replication is not None for t in tables)
    if len(tables) > 1:
        rep_codes, reps = _joint_replications(tables)
    elif first.replication is not None:
        rep_codes, reps = _sorted(first.replication)
    else:
        rep_codes, reps = np.zeros(len(first.item), dtype=np.int64), pd.Index([0])
    n_rows = int(offsets[-1])
    codes = np.full((len(names), n_rows), -1, dtype=np.int64)
    cats_all: list[pd.Index] = []
    source = dict(first.source)
    for j, name in enumerate(names):
        if len(tables) == 1:
            rows, vals = first.labels[name]
        else:
            rows = np.concatenate([t.labels[name][0] + off
                                   for t, off in zip(tables, offsets, strict=False)])
            vals = pd.concat([t.labels[name][1] for t in tables], ignore_index=True)
        order = first.categories
        if isinstance(order, Mapping):
            order = order.get(name)
        where = source.get(name, repr(name))
        c, cats = _label_categories(vals, where, order)
        if ordinal and not _is_ordered(vals, cats, order is not None):
            raise LevelError(
                f"{where} holds unordered categories ({', '.join(map(repr, cats[:4]))}"
                f"{', ...' if len(cats) > 4 else ''}); the ordinal level and linear or "
                "quadratic weights need their order. "
                "Pass categories=[lowest, ..., highest] to .xrr(...), or make the column "
                "an ordered pd.Categorical." + _numeric_strings_hint(cats)
            )
        codes[j, rows] = c
        cats_all.append(cats)
    return Annotations(
        item=item_codes,
        rater=rater_codes,
        replication=rep_codes,
        codes=codes,
        items=items,
        raters=raters,
        replications=pd.Index(reps, name="replication"),
        labels=pd.Index(names, name="label"),
        categories=tuple(cats_all),
        has_label=first.has_label,
        has_replication=has_rep or len(tables) > 1,
        source=source,
        inputs=tuple(
            (1 if t.replication is None else len(t.replication.uniques),
             t.replication is not None)
            for t in tables
        ),
    )


def _joint(ids: list[Ids]) -> tuple[np.ndarray, pd.Index]:
    """Codes over the union of several inputs' ids (the same id is the same code)."""
    if len(ids) == 1:
        return ids[0].codes, ids[0].uniques
    codes, uniques = pd.factorize(pd.concat([pd.Series(i.uniques) for i in ids],
                                            ignore_index=True))
    starts = np.cumsum([0] + [len(i.uniques) for i in ids])
    joint = [np.asarray(codes, dtype=np.int64)[start + i.codes]
             for start, i in zip(starts, ids, strict=False)]
    return np.concatenate(joint), pd.Index(uniques)


def _sorted(ids: Ids) -> tuple[np.ndarray, pd.Index]:
    """Codes renumbered so that the uniques are sorted (when they can be)."""
    try:
        order = np.argsort(np.asarray(ids.uniques), kind="stable")
    except TypeError:
        return ids.codes, ids.uniques
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return rank[ids.codes], ids.uniques[order]


def _joint_replications(tables: Sequence[Table]) -> tuple[np.ndarray, pd.Index]:
    """Replication codes when comparing separate inputs (``self`` vs ``other``)."""
    defaults = ("self", "other")
    names: list[Hashable] = []
    out: list[np.ndarray] = []
    per = [[defaults[k] if k < 2 else f"input{k}"] if t.replication is None
           else list(t.replication.uniques) for k, t in enumerate(tables)]
    seen = [n for names_k in per for n in names_k]
    clash = {n for n in seen if seen.count(n) > 1}
    for k, (t, names_k) in enumerate(zip(tables, per, strict=True)):
        tag = defaults[k] if k < 2 else f"input{k}"
        codes = (np.zeros(len(t.item), dtype=np.int64) if t.replication is None
                 else t.replication.codes)
        out.append(codes + len(names))
        names.extend(f"{n} ({tag})" if n in clash else n for n in names_k)
    return np.concatenate(out), pd.Index(names, name="replication")
