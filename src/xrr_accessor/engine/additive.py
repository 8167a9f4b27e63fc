"""Additive item statistics, the types: ``Meta`` (shapes) and ``Stats`` (``a + b``).

The middle of the flow input -> codes -> **statistics** -> finalize -> labeled
result. A :class:`Stats` holds named arrays, each a sum over items of the
item's contribution (times its weight). Statistics of disjoint sets of items
add (``a + b``, :func:`combine`), an integer item weight acts as that many
copies of the item, and nothing in a :class:`Stats` refers back to the
annotations, so a chunk can be computed anywhere (a dask worker, a bootstrap
replicate) and combined later. Every coefficient (:mod:`.coefficients`) is a
function of a :class:`Stats` and the call's :class:`Meta`. The passes that
compute them are in :mod:`.statistics`.

Three forms, chosen by the level of measurement:

* ``"vector"``: nominal disagreement (and unweighted agreement) needs only
  per-category marginals and same-category sums, never a K x K matrix, so it
  serves any number of categories (ids as categories: 20,000+ are tested).
  This replaces the old sparse path for many-category nominal labels: the
  same numbers, one code path, no n x K table at any K.
* ``"matrix"``: ordinal, ratio, custom distances and agreement weights keep
  K x K sums (D is applied in finalize, so the sums stay additive).
* ``"moments"``: interval data keep count, sum and sum of squares.
* ``"ranks"``: ordinal alpha keeps the pairable marginals and the observed
  disagreement on mid-ranks (:mod:`..kernels.midranks`), no K x K matrix. The
  mid-ranks come from the marginals of every item, so these sums add over
  chunks of items only under one set of mid-ranks: a pass over all the items
  finds them first (:func:`.statistics.chunk`; :attr:`Meta.ranks` for the
  bootstrap's chunks and for dask partitions, whose counts a stage of their own
  adds first: :func:`..lazy.parts.ranked_meta`).
* ``"ratio"``: ratio alpha keeps the pairable marginals and each item's observed
  disagreement (D depends on the two values only, so these sums add over any
  chunks); the expected disagreement is summed from the marginals in finalize
  (:mod:`..kernels.ratio`: O(K^2) time, O(K) memory). A :class:`Meta` of the
  ``"matrix"`` form with ``values`` (the ratio level) and alpha's statistics only
  takes it from :data:`RATIO_MIN_CATEGORIES` categories.

Groups of statistics are computed only when a requested coefficient needs
them (the registry says which): ``within`` (pairs inside a replication),
``chance`` (the agreement / chance terms of Gwet's family), ``raters`` (each
rater's categories), ``strata`` (everything split by m, the item's number of
annotations: iota, Cohen and the ICC use the items rated by every rater, and
how many raters that is is known only after the pass), ``joint`` (rater-pair
tables, Light's kappa) and ``cross`` (replication pairs, kappa_x).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import InputError

__all__ = ["GROUPS", "MAX_STAT_CELLS", "OPTIONAL_GROUPS", "RANK_GROUPS", "RANK_MIN_CATEGORIES",
           "RATIO_MIN_CATEGORIES", "Meta", "Stats", "as_labels", "check_size", "combine",
           "ranked"]

GROUPS = ("within", "chance", "raters", "strata", "joint", "cross")

#: Groups a call may leave out on purpose (interval numbers need no chance shares; Light's
#: kappa over too many raters is NaN with its reason); their finalizes handle the absence.
OPTIONAL_GROUPS = frozenset({"chance", "joint"})

#: The groups the ``"ranks"`` form computes (alpha's); a call needing others (iota and
#: Cohen's strata and raters, kappa_x's cross pairs) keeps the ``"matrix"`` form.
RANK_GROUPS = frozenset({"within"})


#: Above this many categories ordinal alpha takes the ``"ranks"`` form; up to it the
#: ``"matrix"`` form's small kernels are faster (equal numbers, to rounding).
RANK_MIN_CATEGORIES = 128


def ranked(form: str, ordinal: bool, groups: Iterable[str],
           n_category: int = RANK_MIN_CATEGORIES + 1) -> str:
    """The form of a call: ``"ranks"`` (no K x K sums) for an ordinal call whose
    statistics are alpha's only, over more than :data:`RANK_MIN_CATEGORIES`
    categories; otherwise ``form``. Dask-backed data take it too: their partitions'
    sums add when each is taken under the same mid-ranks, which the graph finds from
    every partition's counts first (:func:`..lazy.parts.ranked_meta`).

    Examples
    --------
    >>> ranked("matrix", True, {"within"}), ranked("matrix", True, {"within", "cross"})
    ('ranks', 'matrix')
    """
    return "ranks" if (form == "matrix" and ordinal
                       and n_category > RANK_MIN_CATEGORIES
                       and set(groups) <= RANK_GROUPS) else form


#: Above this many categories ratio alpha takes the ``"ratio"`` form (no K x K sums);
#: up to it the ``"matrix"`` form is faster (equal numbers, to rounding).
RATIO_MIN_CATEGORIES = 256


#: Largest statistics table built for one call (float64 cells: 2.4 GB).
MAX_STAT_CELLS = 300_000_000


@dataclass(frozen=True)
class Meta:
    """What a chunk pass and the finalize steps share: shapes, form, values.

    ``values`` (L, K) are the numbers the categories stand for (``"moments"``:
    centered per label on the midpoint of its range, which changes no
    coefficient and keeps sums of squares well conditioned; ``"matrix"``:
    raw, for ratio and weights; otherwise None). ``top`` is the largest
    stratum of m kept (larger m are clipped to it). ``n_categories`` holds
    each label's own K.
    """

    n_label: int
    n_rep: int
    n_rater: int
    n_category: int
    n_categories: tuple[int, ...]
    form: str
    groups: frozenset[str]
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    values: np.ndarray | None = None
    top: int = 2
    #: ``"ranks"``: the mid-ranks (L, R, K, C) of C weight columns, from every item's
    #: pairable values, when the pass reads only some items (the bootstrap's chunks).
    ranks: np.ndarray | None = None

    def __post_init__(self) -> None:
        # the ratio level's "matrix" meta (the one with raw values) becomes "ratio" when
        # only alpha's sums are asked for, over many categories: no K x K sums
        if (self.form == "matrix" and self.values is not None
                and self.n_category > RATIO_MIN_CATEGORIES and self.groups <= RANK_GROUPS):
            object.__setattr__(self, "form", "ratio")

    def tiled(self, n: int) -> Meta:
        """This meta for ``n`` copies of its labels, one after the other
        (finalizing the columns of :func:`columns` at once, see :func:`as_labels`)."""
        return replace(self, n_label=n * self.n_label, n_categories=self.n_categories * n,
                       values=None if self.values is None else np.tile(self.values, (n, 1)),
                       ranks=None)

    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every statistic of this call (zero-length when not needed): found
        once per layout (the metas of calls alike share it), each caller its own dict."""
        return dict(self._layout()[0])

    def n_cells(self) -> int:
        """The cells of all of :meth:`shapes` (Python integers: no numpy per shape)."""
        return self._layout()[1]

    def _layout(self) -> tuple[dict[str, tuple[int, ...]], int]:
        try:
            return _layout(self.form, self.groups, self.n_label, self.n_rep,
                           self.n_category, self.n_rater, len(self.pairs), self.top)
        except TypeError:  # groups given as a set, which is no key: computed each time
            shapes = self._shapes()
            return shapes, sum(math.prod(s) for s in shapes.values())

    def _shapes(self) -> dict[str, tuple[int, ...]]:
        """:meth:`shapes` computed afresh."""
        return _statistic_shapes(self.form, self.groups, self.n_label, self.n_rep,
                                 self.n_category, self.n_rater, len(self.pairs), self.top)


def _statistic_shapes(form: str, g: frozenset[str], L: int, R: int, K: int, B: int,
                      P: int, top: int) -> dict[str, tuple[int, ...]]:
    """:meth:`Meta.shapes`, computed."""
    S = top + 1

    def need(group: str, shape: tuple[int, ...]) -> tuple[int, ...]:
        return shape if group in g else (0,) * len(shape)

    if form == "moments":
        return {
            "m_hist": (L, R, S),
            "strata_mom": need("within", (L, R, S, 3)),
            "strata_ss": need("within", (L, R, S)),
            "strata_item_sq": need("within", (L, R, S)),
            "strata_rater": need("raters", (L, R, S, B, 3)),
            "cross_mom": need("cross", (L, P, 7)),
            "cross_used": need("cross", (L, P)),
            "cross_unpaired": need("cross", (L, P)),
        }
    if form in ("ranks", "ratio"):
        return {
            "m_hist": (L, R, S),
            "pairable": need("within", (L, R, S, K)),
            "rank_o" if form == "ranks" else "ratio_o": need("within", (L, R, S)),
        }
    matrix = form == "matrix"
    return {
        "m_hist": (L, R, S),
        "pairable": need("within", (L, R, S, K)),
        "pair_diag": need("within", (L, R, S, K)) if not matrix else (0, 0, 0, 0),
        "pair_o": need("within", (L, R, S, K, K)) if matrix else (0,) * 5,
        "pa_diag": need("chance", (L, R)) if not matrix else (0, 0),
        "pa_mat": need("chance", (L, R, K, K)) if matrix else (0,) * 4,
        "pa_inv": need("chance", (L, R)),
        "shares": need("chance", (L, R, K)),
        "strata_rater": need("raters", (L, R, S, B, K)),
        "joint": need("joint", (L, R, B, B, K, K)),
        "cross_agree": need("cross", (L, P)) if not matrix else (0, 0),
        "cross_o": need("cross", (L, P, K, K)) if matrix else (0,) * 4,
        "cross_total": need("cross", (L, P)),
        "cross_x": need("cross", (L, P, K)),
        "cross_y": need("cross", (L, P, K)),
        "cross_used": need("cross", (L, P)),
        "cross_unpaired": need("cross", (L, P)),
    }


@functools.lru_cache(maxsize=256)
def _layout(form: str, groups: frozenset[str], L: int, R: int, K: int, B: int, P: int,
            top: int) -> tuple[dict[str, tuple[int, ...]], int]:
    """The shapes of a call's statistics and their cells, by what they depend on (never
    modified: :meth:`Meta.shapes` hands out copies)."""
    shapes = _statistic_shapes(form, groups, L, R, K, B, P, top)
    return shapes, sum(math.prod(s) for s in shapes.values())


class Stats:
    """Named additive statistics (float64 arrays summed over items).

    ``a + b`` adds two chunks name by name; arrays whose strata axis differs
    (chunks with different largest m) are padded with zeros first.

    Examples
    --------
    >>> a = Stats({"m_hist": np.ones((1, 1, 3))})
    >>> b = Stats({"m_hist": np.ones((1, 1, 3))})
    >>> (a + b)["m_hist"].tolist()
    [[[2.0, 2.0, 2.0]]]
    >>> Stats({"shares": np.ones((1, 1, 2))}) + Stats({"shares": np.ones((1, 1, 3))})
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: statistics 'shares' of shapes (1, 1, 2) and (1, 1, 3) cannot be added: ...
    """

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.arrays = arrays

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def __contains__(self, name: object) -> bool:
        return name in self.arrays and self.arrays[name].size > 0

    def __add__(self, other: Stats) -> Stats:
        if set(self.arrays) != set(other.arrays):
            raise ValueError("statistics of different calls cannot be added")
        return Stats({k: _padded_sum(k, v, other.arrays[k]) for k, v in self.arrays.items()})

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}{tuple(v.shape)}" for k, v in self.arrays.items() if v.size)
        return f"Stats({shown})"

    def nbytes(self) -> int:
        return sum(v.nbytes for v in self.arrays.values())


#: Statistics whose axis 2 is the strata axis (the number of annotations m of an item,
#: 0..top): the one axis along which chunks of one call may differ in length.
STRATA_AXIS = 2


def _padded_sum(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b``, the shorter padded with zeros along the strata axis only; any other
    difference means chunks laid out differently (labels, categories, raters)."""
    if a.shape == b.shape:
        return a + b
    if a.size == 0 or b.size == 0:
        return (a if b.size == 0 else b).copy()
    other_axes = [i for i in range(a.ndim) if i != STRATA_AXIS]
    if (a.ndim != b.ndim or a.ndim <= STRATA_AXIS or not name.startswith(STRATA_NAMES)
            or any(a.shape[i] != b.shape[i] for i in other_axes)):
        raise ValueError(f"statistics {name!r} of shapes {a.shape} and {b.shape} cannot be "
                         "added: the chunks were encoded with different labels, categories, "
                         "raters or pairs")
    shape = tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True))
    out = np.zeros(shape)
    out[tuple(slice(0, s) for s in a.shape)] += a
    out[tuple(slice(0, s) for s in b.shape)] += b
    return out


#: Name prefixes of the statistics with a strata axis.
STRATA_NAMES = ("m_hist", "strata_", "pairable", "pair_diag", "pair_o", "rank_o",
                "ratio_o")


def combine(parts: Iterable[Stats]) -> Stats:
    """Sum of the statistics of disjoint chunks of items."""
    it = iter(parts)
    out = next(it)
    for part in it:
        out = out + part
    return out


def check_size(meta: Meta, where: Callable[[], str]) -> None:
    """Refuse, with the way out, statistics too large for memory."""
    cells = meta.n_cells()
    if cells <= MAX_STAT_CELLS:
        return
    k = meta.n_category
    raise InputError(
        f"the statistics would need {cells * 8 / 1e9:.1f} GB: {k:,} categories "
        f"({where()}) with level needing a {k:,} x {k:,} matrix, {meta.n_label} label(s), "
        f"{meta.n_rep} replication(s), {meta.n_rater:,} raters. For numeric values use "
        "level='interval' (three numbers per item), for labels level='nominal' (no "
        "matrix); otherwise merge rare categories or pass fewer labels at a time with "
        ".xrr(value=[...])."
    )


def as_labels(arrays: dict[str, np.ndarray]) -> Stats:
    """Columns (last axis C) as C blocks of labels: (L, ..., C) -> (C * L, ...).

    Column b's label l becomes label ``b * L + l``, so one finalize over a
    :meth:`Meta.tiled` meta computes every column's coefficients at once.
    """
    return Stats({k: np.ascontiguousarray(np.moveaxis(v, -1, 0)).reshape(
        (v.shape[-1] * v.shape[0], *v.shape[1:-1])) for k, v in arrays.items()})
