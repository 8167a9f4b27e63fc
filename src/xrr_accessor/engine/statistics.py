"""The statistics passes: codes -> ``Rows`` -> ``chunk`` / ``columns`` -> ``Stats``.

:func:`chunk` makes one numba pass over integer codes grouped by item and
returns a :class:`~.additive.Stats` laid out by the call's :class:`~.additive.Meta`
(the types, their forms and groups are in :mod:`.additive`); :func:`columns`
makes the same pass under C sets of item weights at once (the bootstrap).
:func:`rows` sorts the annotations by item once for every pass of a call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import InputError
from ..kernels import accumulate, cross_pass, midranks, pairs, ratio, within
from ..kernels.threads import cores, in_blocks
from ..schema import Annotations
from .additive import Meta, Stats

__all__ = [
    "PARALLEL_MIN_CELLS",
    "PARALLEL_MIN_LABELS",
    "PARALLEL_MIN_ROWS",
    "Codes",
    "Rows",
    "chunk",
    "columns",
    "rank_pairable",
    "rows",
]

#: Labels at or above which a pass runs in parallel threads over blocks of labels,
#: given :data:`PARALLEL_MIN_CELLS` (labels x annotations) to share.
PARALLEL_MIN_LABELS = 4

#: Labels x annotations from which blocks of labels run in threads (31 labels of 1,283
#: annotations: 3.0 ms in two threads, 2.6 on one; of 12,895: 5.1 against 5.4).
PARALLEL_MIN_CELLS = 200_000

#: Annotations (rows) at or above which a pass with fewer labels than cores runs in
#: parallel threads over blocks of items: below, a thread and the GIL's hand-overs cost
#: more than the half pass they save (nominal alpha at 1e5 rows: 1.3 ms on one thread,
#: 1.8 in two; at 1e6, 26.5 against 23.8 at the interval level, equal at the nominal).
PARALLEL_MIN_ROWS = 500_000


@dataclass(frozen=True)
class Rows:
    """Annotations in item order, as the kernels read them; built once, read by
    every pass of a call (the statistics, bootstrap blocks, jackknife groups)."""

    offsets: np.ndarray
    order: np.ndarray
    rep: np.ndarray
    rater: np.ndarray
    mult: np.ndarray
    codes: np.ndarray
    n_items: int

    def items(self, lo: int, hi: int) -> Rows:
        """The rows of items ``lo`` to ``hi`` - 1 (a view: the offsets are absolute)."""
        return replace(self, offsets=self.offsets[lo:hi + 1], n_items=hi - lo)


#: The empty per-row array of :class:`Rows` (a pass reads nothing from it: shared).
_zeros_int = np.zeros(0, dtype=np.int64)

def _reads_rep(meta: Meta) -> bool:
    return meta.n_rep > 1


def _reads_rater(meta: Meta) -> bool:
    return meta.n_rater == 2 or bool(meta.groups & {"raters", "joint"})  # 2: the pair table


def rows(codes: Any, meta: Meta | None = None) -> Rows:
    """:class:`Rows` of ``codes`` (see :func:`chunk`): a counting sort by item.

    With ``meta``, per-row arrays its pass does not read are left empty (one
    replication: no replication codes; no per-rater group: no rater codes).
    """
    if isinstance(codes, Rows):
        return codes
    n_item = int(codes.n_items)
    offsets, order = accumulate.item_order(codes.item, n_item)
    mult = getattr(codes, "mult", None)
    empty = _zeros_int
    mult = empty if mult is None else np.asarray(mult, dtype=np.int64)
    rep, rater = codes.replication, codes.rater
    if meta is not None and not _reads_rep(meta):
        rep = empty
    if meta is not None and not _reads_rater(meta):
        rater = empty
    if order.size:  # rows in item order for the per-row arrays (codes are read via order)
        rep, rater = (a[order] if a.size else a for a in (rep, rater))
        mult = mult[order] if mult.size else mult
    return Rows(offsets, order, rep, rater, mult, codes.codes, n_item)


def chunk(
    codes: Any, meta: Meta, weight: np.ndarray | None = None, parallel: bool | None = None,
) -> Stats:
    """Statistics of a set of items, in one pass over their annotations.

    Parameters
    ----------
    codes : Annotations, Rows or any object with ``item``, ``rater``,
        ``replication`` (int64, N), ``codes`` (int64, L x N; -1 missing),
        ``n_items`` and optionally ``mult`` (int64 multiplicity per row).
    meta : Meta
        Shapes, form, values and the groups to compute.
    weight : ndarray of shape (n_items,), optional
        Weight of each item (an integer weight is that many copies).
    parallel : bool, optional
        Run blocks of labels, or with fewer labels than cores and from
        :data:`PARALLEL_MIN_ROWS` annotations blocks of items, in parallel threads
        (default: from :data:`PARALLEL_MIN_LABELS` labels with
        :data:`PARALLEL_MIN_CELLS` labels x annotations, or from
        :data:`PARALLEL_MIN_ROWS` annotations). Pass False inside dask workers or
        other thread pools. Threads add the items' sums in another order: interval
        and ratio sums can differ in their last bits.

    Returns
    -------
    Stats
    """
    r = rows(codes, meta)
    w = None
    if weight is not None:
        w = np.ascontiguousarray(weight, dtype=np.float64)
        if w.shape != (r.n_items,):
            raise InputError(f"weight has shape {w.shape}; it needs one weight per item "
                             f"({r.n_items}).")
    return Stats(_accumulate(r, meta, np.ones(r.n_items) if w is None else w, parallel))


def columns(
    codes: Any, meta: Meta, weight: np.ndarray | None = None, parallel: bool | None = None,
) -> dict[str, np.ndarray]:
    """Statistics under C sets of item weights at once, in one pass.

    ``weight`` (n_items, C): each array of :meth:`Meta.shapes` comes back with
    a last axis of C columns, column b the statistics with item weights
    ``weight[:, b]`` (C bootstrap replicates: the annotations are read once).
    ``weight`` (n_items,) or None (weight 1): one column.
    """
    r = rows(codes, meta)
    w = (np.ones(r.n_items) if weight is None
         else np.ascontiguousarray(weight, dtype=np.float64))
    out = _accumulate(r, meta, w, parallel)
    return out if w.ndim == 2 else {k: v[..., None] for k, v in out.items()}


def _accumulate(r: Rows, meta: Meta, w: np.ndarray, parallel: bool | None
                ) -> dict[str, np.ndarray]:
    """The kernel pass: ``w`` (n,) gives outputs of :meth:`Meta.shapes`, ``w``
    (n, C) the same with a last axis of C (the kernels' two compiled forms).

    In parallel, labels are split over the cores; with fewer labels than
    cores (one label: Cohen's kappa on a matrix) the items are, and the
    blocks' statistics added (they are sums over items).
    """
    n_rows = r.codes.shape[1]
    if n_rows and ((_reads_rep(meta) and r.rep.size == 0)
                   or (_reads_rater(meta) and r.rater.size == 0)):
        raise ValueError("these Rows were built for another Meta (without the replication "
                         "or rater codes this pass reads); use rows(codes, meta).")
    if meta.form in ("ranks", "ratio"):
        return _ranks(r, meta, w, parallel)
    n_cores = cores()
    if parallel is None:
        parallel = _parallel(r, meta)
    if not parallel or n_cores == 1:
        return _pass(r, meta, w, 1)
    if meta.n_label >= n_cores or r.codes.shape[1] < PARALLEL_MIN_ROWS:
        return _pass(r, meta, w, n_cores)
    parts = in_blocks(r.n_items, lambda lo, hi: _pass(r.items(lo, hi), meta, w[lo:hi], 1), 1,
                      threads=n_cores)
    return {k: sum((p[k] for p in parts[1:]), parts[0][k]) for k in parts[0]}


def _ranks(r: Rows, meta: Meta, w: np.ndarray, parallel: bool | None
           ) -> dict[str, np.ndarray]:
    """The ``"ranks"`` form (ordinal alpha): the pairable marginals, the mid-ranks
    from them (or :attr:`Meta.ranks`, found over every item, when ``r`` holds some),
    then the observed disagreement on the mid-ranks; two O(N) passes per label. The
    ``"ratio"`` form: the same marginals, then each item's observed disagreement on
    the values (:func:`~..kernels.ratio.ratio_observed`)."""
    w2 = np.ascontiguousarray(w if w.ndim == 2 else w[:, None], dtype=np.float64)
    n_col = w2.shape[1]
    shapes = meta.shapes()
    if meta.form == "ratio":
        return _shaped(_ratio(r, meta, w2, parallel), shapes, w.ndim)
    m_hist, pairable = rank_pairable(r, meta, w2, parallel)
    mid = meta.ranks
    if mid is None:
        mid = midranks.mid_ranks(pairable[:, :, 2:].sum(axis=2))
    if mid.shape != (meta.n_label, meta.n_rep, meta.n_category, n_col):
        raise ValueError(f"Meta.ranks has shape {mid.shape}; this pass needs mid-ranks of "
                         f"{n_col} weight column(s) (L, R, K, C).")
    rank_o = np.zeros((*m_hist.shape[:3], n_col))
    mid = np.ascontiguousarray(mid, dtype=np.float64)
    _by_labels(meta.n_label, _threads(r, meta, parallel), lambda lo, hi: midranks.rank_observed(
        r.offsets, r.order, r.rep, r.codes[lo:hi], w2, mid[lo:hi], meta.top, rank_o[lo:hi]))
    return _shaped({"m_hist": m_hist, "pairable": pairable, "rank_o": rank_o}, shapes,
                   w.ndim)


def _shaped(out: dict[str, np.ndarray], shapes: dict[str, tuple[int, ...]], ndim: int
            ) -> dict[str, np.ndarray]:
    """The pass's arrays as :meth:`Meta.shapes` says (a group not asked for: empty),
    without the column axis for one weight vector (``ndim`` 1)."""
    n_col = out["m_hist"].shape[-1]
    out = {k: v if int(np.prod(shapes[k])) else np.zeros((*shapes[k], n_col))
           for k, v in out.items()}
    return out if ndim == 2 else {k: v[..., 0] for k, v in out.items()}


def _ratio(r: Rows, meta: Meta, w2: np.ndarray, parallel: bool | None
           ) -> dict[str, np.ndarray]:
    """The ``"ratio"`` form's one pass: sums over items under any weights, so blocks
    of labels or, with fewer labels than cores, of items run in threads and add."""
    assert meta.values is not None
    x = np.ascontiguousarray(np.nan_to_num(meta.values, nan=0.0), dtype=np.float64)
    n_cores = cores()
    if parallel is None:
        parallel = _parallel(r, meta)

    def run(part: Rows, w: np.ndarray, lo: int, hi: int) -> dict[str, np.ndarray]:
        m_hist = np.zeros((hi - lo, meta.n_rep, meta.top + 1, w.shape[1]))
        pairable = np.zeros((*m_hist.shape[:3], meta.n_category, w.shape[1]))
        ratio_o = np.zeros(m_hist.shape)
        ratio.ratio_observed(part.offsets, part.order, part.rep, part.codes[lo:hi], w,
                             x[lo:hi], m_hist, pairable, ratio_o)
        return {"m_hist": m_hist, "pairable": pairable, "ratio_o": ratio_o}

    big = r.codes.shape[1] >= PARALLEL_MIN_ROWS
    if parallel and n_cores > 1 and meta.n_label < n_cores and big:
        parts = in_blocks(r.n_items, lambda a, b: run(
            r.items(a, b), np.ascontiguousarray(w2[a:b]), 0, meta.n_label), 1, n_cores)
        return {k: sum((p[k] for p in parts[1:]), parts[0][k]) for k in parts[0]}
    blocks = _by_labels(meta.n_label, n_cores if parallel else 1,
                        lambda lo, hi: run(r, w2, lo, hi))
    return {k: np.concatenate([p[k] for p in blocks]) for k in blocks[0]}


def _parallel(r: Rows, meta: Meta) -> bool:
    """Whether a pass runs in threads when the caller does not say: from
    :data:`PARALLEL_MIN_LABELS` labels with :data:`PARALLEL_MIN_CELLS` labels x
    annotations, or from :data:`PARALLEL_MIN_ROWS` annotations."""
    n_rows = r.codes.shape[1]
    return n_rows >= PARALLEL_MIN_ROWS or (
        meta.n_label >= PARALLEL_MIN_LABELS and meta.n_label * n_rows >= PARALLEL_MIN_CELLS)


def _threads(r: Rows, meta: Meta, parallel: bool | None) -> int:
    if parallel is None:
        parallel = _parallel(r, meta)
    return cores() if parallel else 1


def rank_pairable(r: Rows, meta: Meta, w2: np.ndarray, parallel: bool | None = False
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``m_hist`` (L, R, S, C) and ``pairable`` (L, R, S, K, C) of the ``"ranks"`` form
    under the weight columns ``w2`` (n, C): the counts the mid-ranks are made of (sum
    ``pairable`` over the strata from 2 and add over chunks of items: see
    :func:`~..kernels.midranks.mid_ranks`)."""
    n_col = w2.shape[1]
    m_hist = np.zeros((meta.n_label, meta.n_rep, meta.top + 1, n_col))
    pairable = np.zeros((*m_hist.shape[:3], meta.n_category, n_col))
    _by_labels(meta.n_label, _threads(r, meta, parallel), lambda lo, hi: midranks.rank_marginals(
        r.offsets, r.order, r.rep, r.codes[lo:hi], w2, m_hist[lo:hi], pairable[lo:hi]))
    return m_hist, pairable


def _pass(r: Rows, meta: Meta, w: np.ndarray, threads: int) -> dict[str, np.ndarray]:
    """One kernel pass over ``r``, labels split over ``threads`` threads."""
    if (meta.n_rater == 2 and meta.form != "moments" and "cross" not in meta.groups
            and meta.n_category <= pairs.MAX_CATEGORIES and w.ndim == 1
            and r.mult.size == 0):  # two raters: one table per label
        parts = _by_labels(meta.n_label, threads, lambda lo, hi: pairs.pair_table(
            r.offsets, r.order, r.rep, r.rater, r.codes[lo:hi], w, meta.n_rep,
            meta.n_category))
        if all(ok for _, ok in parts):
            return pairs.expand(np.concatenate([t for t, _ in parts]), meta.shapes())
    tail = () if w.ndim == 1 else (w.shape[1],)
    out = {k: _zeros((*s, *tail)) for k, s in meta.shapes().items()}
    pair_codes = np.ascontiguousarray(meta.pairs, dtype=np.int64).reshape(-1, 2)
    if _small_pass(r, meta, w, threads, pair_codes, out):
        return out
    moments = meta.form == "moments"
    kernel = accumulate.moments if moments else accumulate.categorical
    values = np.zeros((0, 0)) if meta.values is None else meta.values
    names = list(out)

    def block(lo: int, hi: int) -> None:
        form_arg = values[lo:hi] if moments else meta.n_category  # zero-size stays zero-size
        kernel(r.offsets, r.order, r.rep, r.rater, r.codes[lo:hi], r.mult, w, pair_codes,
               form_arg, *(out[k][lo:hi] for k in names))

    _by_labels(meta.n_label, threads, block)
    if not moments:
        within.fold_symmetric(out)
    return out


#: Zero-size statistics (the groups a call does not compute), one array per shape: an
#: array without elements holds nothing to write or read, so calls share it.
_NOTHING: dict[tuple[int, ...], np.ndarray] = {}


def _zeros(shape: tuple[int, ...]) -> np.ndarray:
    """``np.zeros(shape)``; a zero-size one shared (see :data:`_NOTHING`)."""
    if all(shape):
        return np.zeros(shape)
    found = _NOTHING.get(shape)
    if found is None:
        if len(_NOTHING) >= 1024:
            _NOTHING.clear()
        found = _NOTHING[shape] = np.zeros(shape)
    return found


def _small_pass(r: Rows, meta: Meta, w: np.ndarray, threads: int, pair_codes: np.ndarray,
                out: dict[str, np.ndarray]) -> bool:
    """The commonest passes through the small kernels, which compute the same numbers
    with less to run and to compile: alpha's within-replication sums
    (:mod:`..kernels.within`: to rounding, summed per count pattern), kappa_x's and
    Table 5's (:mod:`..kernels.cross_pass`: to the last bit). False when the call
    needs the general kernel."""
    g = meta.groups
    if w.ndim != 1 or r.mult.size:
        return False
    if ("within" in g and g <= {"within", "strata"} and meta.n_rep == 1 and (
            meta.form == "matrix" or (meta.form == "vector"
                                      and meta.n_category <= within.MAX_CATEGORIES))):
        vector = meta.form == "vector"
        small = within.within_vector if vector else within.within_matrix
        names = ("m_hist", "pairable", "pair_diag" if vector else "pair_o")
        _by_labels(meta.n_label, threads, lambda lo, hi: small(
            r.offsets, r.order, r.codes[lo:hi], w, meta.n_category,
            *(out[k][lo:hi] for k in names)))
        within.fold_symmetric(out)
        return True
    if ("cross" in g and g <= {"cross", "within", "raters", "strata"}
            and meta.form == "vector" and meta.n_category <= cross_pass.MAX_CATEGORIES):
        cross = ("m_hist", "pairable", "pair_diag", "strata_rater", "cross_agree",
                 "cross_total", "cross_x", "cross_y", "cross_used", "cross_unpaired")
        _by_labels(meta.n_label, threads, lambda lo, hi: cross_pass.cross_vector(
            r.offsets, r.order, r.rep, r.rater, r.codes[lo:hi], w, pair_codes,
            meta.n_category, *(out[k][lo:hi] for k in cross)))
        return True
    return False


def _by_labels(n_label: int, threads: int, fn: Callable[[int, int], Any]) -> list[Any]:
    """``fn(lo, hi)`` over blocks of labels, one per thread (the kernels release
    the GIL); the results in label order."""
    return in_blocks(n_label, fn, 1, threads=max(1, min(threads, n_label)))


class Codes:
    """The arrays a statistics pass reads, contiguous (one compiled signature): an
    annotation's item, rater and replication codes and its (L, N) category codes.
    ``Codes(ann)`` takes them from annotations; :meth:`of` from arrays (a dask
    partition's, recoded into the call's global indexes)."""

    def __init__(self, ann: Annotations) -> None:
        self._set(ann.item, ann.rater, ann.replication, ann.codes, len(ann.items))

    @classmethod
    def of(cls, item: np.ndarray, rater: np.ndarray, replication: np.ndarray,
           codes: np.ndarray, n_items: int) -> Codes:
        out = cls.__new__(cls)
        out._set(item, rater, replication, codes, n_items)
        return out

    def _set(self, item: np.ndarray, rater: np.ndarray, replication: np.ndarray,
             codes: np.ndarray, n_items: int) -> None:
        self.item = np.ascontiguousarray(item, dtype=np.int64)
        self.rater = np.ascontiguousarray(rater, dtype=np.int64)
        self.replication = np.ascontiguousarray(replication, dtype=np.int64)
        self.codes = np.ascontiguousarray(codes, dtype=np.int64)
        self.n_items = int(n_items)
