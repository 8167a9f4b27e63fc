"""Intra-rater reliability across repeated sessions, and the AAD distributions.

A rater's session s against their session t is a replication of one rater
(definitions: diagnostics): kappa_x of the two, on the items the rater annotated in
both, with one annotation per item on each side (Eq 9-11 reduce to the
rater's own agreement with chance from the two sessions' marginals). The
absolute annotation difference (AAD, Du et al., *Beyond Kappa and Alpha*) is
counted per value: intra (a rater's sessions) and inter (rater pairs on the
items they share within a session).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..coefficients.cross import kappa_x_of
from ..coefficients.sums import cross_counts, cross_moments
from ..errors import InputError, RoleError, per_call
from ..kernels.accumulate import item_order
from ..kernels.diagnostics import group_pairs, same_rater_pairs
from ..schema.roles import ROLE_ALIASES, norm
from ..schema.tables import show
from ._common import (
    MAX_CELLS,
    Read,
    check_cells,
    dist_for,
    finish,
    multi_index,
    read,
    unbind,
    warn_undefined_rows,
    where_counts,
)
from .items import CITATION

__all__ = ["Intra", "intra"]


@dataclass(frozen=True)
class Intra:
    """What :func:`intra` found: four tables (DataFrames, or Datasets from xarray).

    Attributes
    ----------
    kappa : DataFrame
        Per (label, rater, session, session_other): ``kappa_x`` of the rater's
        two sessions, ``n_items`` (items the rater annotated in both),
        ``n_unpairable`` (in one of the two only), ``agreement`` (share of
        those items given the same value) and ``aad_mean``.
    pooled : DataFrame
        The same per (label, session, session_other) over every rater: each
        (item, rater) a unit, the raters' sessions pooled.
    aad_intra : DataFrame
        Per (label, rater, session, session_other, aad): ``n`` items with that
        absolute difference between the rater's two sessions, ``share``.
    aad_inter : DataFrame
        Per (label, session, rater, rater_other, aad): ``n`` items the two
        raters (rater before rater_other in sorted order) annotated in that session with that
        absolute difference, ``share``.
    """

    kappa: Any
    pooled: Any
    aad_intra: Any
    aad_inter: Any
    attrs: dict[str, Any] = field(default_factory=dict)

    def plot(self, which: str = "intra", label: Any = None, ax: Any = None) -> Any:
        """The AAD distributions as stacked bars (``which="intra"`` or ``"inter"``);
        see :func:`xrr_accessor.diagnostics.plots.aad`."""
        from .plots import aad

        return aad(self, which=which, label=label, ax=ax)

    def __repr__(self) -> str:
        return (f"Intra(kappa: {len(self.kappa)} rows, pooled: {len(self.pooled)}, "
                f"aad_intra: {len(self.aad_intra)}, aad_inter: {len(self.aad_inter)})")


def _check_session(data: Any, session: Hashable, roles: dict[str, Any]) -> None:
    if (rep := roles.get("replication")) is not None:
        raise RoleError("intra takes session= for the repeated sessions, not replication=; "
                        "run it on one replication at a time, without the column, e.g. "
                        f"df[df[{rep!r}] == ...].drop(columns={rep!r})"
                        f".xrr.intra(session={session!r}).")
    if roles.get("wide"):
        raise InputError("intra reads a long frame (item, rater, session and label "
                         "columns) or xarray, not wide=True: stack the frame first, e.g. "
                         "df.melt(id_vars=[...]).")
    if isinstance(data, pd.DataFrame):
        names, what = list(data.columns), "column"
    elif isinstance(data, xr.Dataset | xr.DataArray):
        names, what = list(data.dims) + [c for c in data.coords if c not in data.dims], \
            "dimension or coordinate"
    else:
        return  # read() names what it can read
    if session not in names:
        raise RoleError(f"session={session!r} is not a {what} of the data; it has "
                        f"{names[:12]}. Name the {what} that numbers each rater's repeated "
                        "sessions (e.g. session='round').")
    other = [n for n in names if n != session and norm(n) in ROLE_ALIASES["replication"]]
    if other:
        raise RoleError(f"the data have a replication {what} {other[0]!r} beside "
                        f"session={session!r}; intra compares a rater's sessions within one "
                        "replication: select one and drop the column first, e.g. "
                        f"df[df[{other[0]!r}] == ...].drop(columns={other[0]!r}).")


def _aad(read_: Read, label: int, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """|x - y| of code pairs: numbers (interval, ratio), category steps (ordinal),
    0/1 (nominal), the disagreement matrix (custom)."""
    name = read_.level.name
    if name == "nominal":
        return (x != y).astype(float)
    if name == "ordinal":
        return np.abs(x - y).astype(float)
    if name in ("interval", "ratio"):
        v = read_.values(label)
        assert v is not None
        return np.abs(v[x] - v[y])
    return dist_for(read_, label, None)[x, y]


def _kappa(read_: Read, label: int, cell: np.ndarray, n_cell: int, x: np.ndarray,
           y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """kappa_x per cell of one-to-one paired annotations (x, y), and the pair counts:
    each cell's two sessions as a replication pair, finalized as every kappa_x is
    (:func:`~xrr_accessor.coefficients.cross.kappa_x_of`). With one annotation per item
    on each side, an item's pair weighs (1 + 1) / (1 x 1) = 2 in the observed sum."""
    n = np.bincount(cell, minlength=n_cell).astype(float)
    name = read_.level.name
    if name == "interval":
        v = read_.values(label)
        assert v is not None
        v = v - (v.min() + v.max()) / 2.0
        obs, sx, sxx, sy, syy = (np.bincount(cell, weights=w, minlength=n_cell) for w in (
            (v[x] - v[y]) ** 2, v[x], v[x] ** 2, v[y], v[y] ** 2))
        moments = np.stack([2.0 * obs, n, n, sx, sxx, sy, syy], axis=-1)
        return kappa_x_of(cross_moments(moments, n, 0 * n)).value, n
    k = read_.n_cat(label)
    check_cells(n_cell * k * (k if name == "ordinal" else 1), "intra",
                "use level='nominal' or 'interval', or fewer raters or sessions at a time.")
    xs = np.bincount(cell * k + x, minlength=n_cell * k).reshape(n_cell, k).astype(float)
    ys = np.bincount(cell * k + y, minlength=n_cell * k).reshape(n_cell, k).astype(float)
    if name == "nominal":
        sums = cross_counts(xs, ys, n, 0 * n, observed=2.0 * np.bincount(
            cell, weights=(x != y), minlength=n_cell))
    elif name != "ordinal":
        d = dist_for(read_, label, None)
        sums = cross_counts(xs, ys, n, 0 * n, d=d, observed=2.0 * np.bincount(
            cell, weights=d[x, y], minlength=n_cell))
    else:  # D ranks over each cell's own paired values, as kappa_x of two replications
        joint = np.bincount((cell * k + x) * k + y, minlength=n_cell * k * k).reshape(
            n_cell, k, k)
        sums = cross_counts(xs, ys, n, 0 * n, joint=2.0 * joint, ordinal=True)
    return kappa_x_of(sums).value, n


#: Up to this many categories AAD is looked up in a K x K table of codes (no sort).
AAD_TABLE_CATEGORIES = 2048


def _aad_codes(read_: Read, label: int, x: np.ndarray, y: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Per pair, the code of its AAD among the sorted distinct ``values`` returned."""
    k = read_.n_cat(label)
    if k <= AAD_TABLE_CATEGORIES:  # a K x K table of codes, then a lookup per pair
        grid = np.indices((k, k))
        values, inverse = np.unique(_aad(read_, label, grid[0], grid[1]),
                                    return_inverse=True)
        return inverse.reshape(k, k)[x, y], values
    values, inverse = np.unique(_aad(read_, label, x, y), return_inverse=True)
    return inverse.reshape(-1), values


def _counts(keys: np.ndarray, n_keys: int, code: np.ndarray, values: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key, aad value, n) for each distinct (key, aad) of the pairs: a bincount over
    keys x values when that table is small, a sort otherwise."""
    v = max(len(values), 1)
    if n_keys * v <= MAX_CELLS:
        counts = np.bincount(keys * v + code, minlength=n_keys * v)
        uniq = np.flatnonzero(counts)
        n = counts[uniq]
    else:
        uniq, n = np.unique(keys * v + code, return_counts=True)
    return uniq // v, values[uniq % v], n


@per_call
def intra(data: Any, session: Hashable, level: Any = None, **roles: Any) -> Intra:
    """Intra-rater reliability across a rater's repeated sessions, and AAD distributions.

    Each rater's session s against their session t is a replication of one
    rater: kappa_x (Eq 9-11) of the two, over the items the rater
    annotated in both (items in one of them only are unpairable, counted).
    ``pooled`` does the same over every rater at once, each (item, rater) a
    unit. The absolute annotation difference (AAD; Du et al., *Beyond Kappa
    and Alpha*) of each pair is counted per value: within a rater across
    sessions (``aad_intra``) and between raters within a session
    (``aad_inter``). AAD follows ``level``: |x - y| for interval and ratio,
    category steps apart for ordinal, 0 (same) / 1 (different) for nominal,
    D(x, y) for a custom matrix.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        Long annotations with an item, a rater and a session column (or
        dimension), one or more labels; one replication.
    session : hashable
        The column (or dimension / coordinate) numbering each rater's
        sessions; read as the replication role.
    level : str, matrix or callable
        Level of measurement, as in :func:`~xrr_accessor.irr`.
    **roles
        Other column names (``item=``, ``rater=``, ``labels=``, ...).

    Returns
    -------
    Intra
        ``kappa``, ``pooled``, ``aad_intra`` and ``aad_inter`` tables; NaN
        with an :class:`~xrr_accessor.errors.UndefinedWarning` where kappa_x
        is undefined.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 2, 3, 4] * 4, "rater": ["a"] * 8 + ["b"] * 8,
    ...                    "round": ([1] * 4 + [2] * 4) * 2,
    ...                    "valence": [1, 2, 3, 3, 1, 2, 3, 2, 1, 1, 3, 2, 2, 1, 3, 3]})
    >>> out = intra(df, session="round", level="interval")
    >>> out.kappa["kappa_x"].round(3).tolist()
    [0.8, 0.692]
    >>> out.aad_intra.loc[("valence", "b", 1, 2), "n"].tolist()
    [2, 2]
    """
    data, roles = unbind(data, roles)
    _check_session(data, session, roles)
    read_ = read(data, level, {**roles, "replication": session}, "intra")
    ann = read_.ann
    if len(ann.replications) < 2:
        raise InputError(f"session={session!r} has one value ({show(ann.replications[0])}); "
                         "intra-rater agreement compares two or more sessions of a rater.")
    offsets, order = item_order(np.ascontiguousarray(ann.item, dtype=np.int64), len(ann.items))
    if order.size == 0:
        order = np.arange(len(ann.item), dtype=np.int64)
    tables: dict[str, list[pd.DataFrame]] = {"kappa": [], "pooled": [], "aad_intra": [],
                                             "aad_inter": []}
    for j in range(len(ann.labels)):
        codes = np.ascontiguousarray(ann.codes[j], dtype=np.int64)
        pairs = _Pairs.of(read_, j, codes, offsets, order)
        tables["kappa"].append(_per_rater(read_, j, codes, pairs))
        tables["pooled"].append(_pooled(read_, j, pairs))
        tables["aad_intra"].append(_distribution(
            j, *_counts(pairs.cell, pairs.n_b * pairs.n_s**2, pairs.code, pairs.values),
            (pairs.n_s, pairs.n_s), ann.raters,
            _sessions(ann), ("rater", "session", "session_other"), ann.labels))
        tables["aad_inter"].append(_inter(read_, j, codes))
    kappa = pd.concat(tables["kappa"])
    bad = kappa["kappa_x"].isna().to_numpy()
    warn_undefined_rows("intra kappa_x", int(bad.sum()), len(kappa),
                        "the rater shares no item between the two sessions, or gave one "
                        "value throughout them",
                        where_counts(read_, np.asarray(kappa.index.codes[0])[bad], None))
    attrs = {"metric": "intra", "level": read_.level.name, "session": session,
             "citation": CITATION}
    return Intra(*(finish(pd.concat(parts), read_, dict(attrs))  # type: ignore[misc]
                   for parts in tables.values()), attrs=attrs)  # (mypy: star-args vs attrs)


def _sessions(ann: Any) -> pd.Index:
    return ann.replications.rename("session")


@dataclass(frozen=True)
class _Pairs:
    """A label's pairs of one rater's annotations of an item in sessions s < t."""

    x: np.ndarray  # codes in session s
    y: np.ndarray  # codes in session t
    s: np.ndarray
    t: np.ndarray
    cell: np.ndarray  # (rater * S + s) * S + t
    aad: np.ndarray
    code: np.ndarray  # of aad among values
    values: np.ndarray  # distinct AAD values, sorted
    n_s: int
    n_b: int

    @classmethod
    def of(cls, read_: Read, label: int, codes: np.ndarray, offsets: np.ndarray,
           order: np.ndarray) -> _Pairs:
        ann = read_.ann
        n_s, n_b = len(ann.replications), len(ann.raters)
        rater = np.ascontiguousarray(ann.rater, dtype=np.int64)
        first, second = same_rater_pairs(offsets, order, rater, codes, n_b)
        s, t = ann.replication[first], ann.replication[second]
        swap = s > t  # rows may come in any order: orient each pair by session
        first, second = np.where(swap, second, first), np.where(swap, first, second)
        s, t = np.minimum(s, t), np.maximum(s, t)
        x, y = codes[first], codes[second]
        cell = (rater[first] * n_s + s) * n_s + t
        code, values = _aad_codes(read_, label, x, y)
        return cls(x, y, s, t, cell, values[code], code, values, n_s, n_b)


def _per_rater(read_: Read, label: int, codes: np.ndarray, p: _Pairs) -> pd.DataFrame:
    """kappa_x, counts, agreement and mean AAD of every rater with two sessions."""
    ann = read_.ann
    n_s, cells = p.n_s, p.n_b * p.n_s * p.n_s
    kx, n = _kappa(read_, label, p.cell, cells, p.x, p.y)
    has = codes >= 0
    per = np.bincount(ann.rater[has] * n_s + ann.replication[has],
                      minlength=p.n_b * n_s).reshape(p.n_b, n_s)  # annotations per session
    b, s, t = np.nonzero((per[:, :, None] > 0) & (per[:, None, :] > 0)
                         & (np.arange(n_s)[:, None] < np.arange(n_s))[None])
    c = (b * n_s + s) * n_s + t
    agree = np.bincount(p.cell, weights=p.aad == 0, minlength=cells)
    total = np.bincount(p.cell, weights=p.aad, minlength=cells)
    with np.errstate(divide="ignore", invalid="ignore"):
        return pd.DataFrame({
            "kappa_x": kx[c], "n_items": n[c].astype(np.int64),
            "n_unpairable": (per[b, s] + per[b, t] - 2 * n[c]).astype(np.int64),
            "agreement": agree[c] / n[c], "aad_mean": total[c] / n[c],
        }, index=multi_index([("label", ann.labels, np.full(len(c), label)),
                              ("rater", ann.raters, b), ("session", _sessions(ann), s),
                              ("session_other", _sessions(ann), t)]))


def _pooled(read_: Read, label: int, p: _Pairs) -> pd.DataFrame:
    """The same over every rater: each (item, rater) one unit of two sessions."""
    n_s = p.n_s
    pair = p.s * n_s + p.t
    kx, n = _kappa(read_, label, pair, n_s * n_s, p.x, p.y)
    s, t = np.nonzero(n.reshape(n_s, n_s) > 0)
    c = s * n_s + t
    sessions = _sessions(read_.ann)
    return pd.DataFrame({
        "kappa_x": kx[c], "n_items": n[c].astype(np.int64),
        "agreement": np.bincount(pair, weights=p.aad == 0, minlength=n_s * n_s)[c] / n[c],
        "aad_mean": np.bincount(pair, weights=p.aad, minlength=n_s * n_s)[c] / n[c],
    }, index=multi_index([("label", read_.ann.labels, np.full(len(c), label)),
                          ("session", sessions, s), ("session_other", sessions, t)]))


def _distribution(label: int, key: np.ndarray, aad: np.ndarray, n: np.ndarray,
                  inner: tuple[int, int], outer: pd.Index, mid: pd.Index,
                  names: tuple[str, str, str], labels: pd.Index) -> pd.DataFrame:
    """Counts per (label, outer, mid, mid_other, aad) with each cell's share."""
    o, rest = np.divmod(key, inner[0] * inner[1])
    m1, m2 = np.divmod(rest, inner[1])
    total = pd.Series(n).groupby(key).transform("sum").to_numpy()
    index = multi_index([("label", labels, np.full(len(key), label)), (names[0], outer, o),
                         (names[1], mid, m1), (names[2], mid, m2)])
    frame = pd.DataFrame({"n": n.astype(np.int64), "share": n / np.maximum(total, 1)},
                         index=index)
    frame["aad"] = aad
    return frame.set_index("aad", append=True)


def _inter(read_: Read, label: int, codes: np.ndarray) -> pd.DataFrame:
    """AAD counts of rater pairs within each session (groups (item, session))."""
    ann = read_.ann
    offsets, order, key = read_.groups()
    m = np.bincount(key[codes >= 0], minlength=len(offsets) - 1)
    check_cells(int((m * (m - 1) // 2).sum()), "intra's inter-rater AAD (one entry per pair "
                "of annotations of an item)", "items have many annotations; select the "
                "raters to compare first.")
    first, second = group_pairs(offsets, order, codes)
    n_b = len(ann.raters)
    try:  # each pair named in sorted order of the raters' ids, whatever the rows' order
        place = np.empty(n_b, dtype=np.int64)
        place[np.argsort(np.asarray(ann.raters), kind="stable")] = np.arange(n_b)
    except TypeError:
        place = np.arange(n_b)
    a, b = ann.rater[first], ann.rater[second]
    ahead = place[a] <= place[b]
    lo, hi = np.where(ahead, a, b), np.where(ahead, b, a)
    x = np.where(ahead, codes[first], codes[second])
    y = np.where(ahead, codes[second], codes[first])
    cell = (ann.replication[first] * n_b + lo) * n_b + hi
    code, values = _aad_codes(read_, label, x, y)
    n_keys = len(ann.replications) * n_b * n_b
    out = _distribution(label, *_counts(cell, n_keys, code, values), (n_b, n_b),
                        ann.replications.rename("session"), ann.raters,
                        ("session", "rater", "rater_other"), ann.labels)
    return out
