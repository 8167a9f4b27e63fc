"""Per-item disagreement D^i (Du et al., *Beyond Kappa and Alpha*; definitions: diagnostics).

D_i = sqrt( C(n_i, 2)^-1 sum over the item's annotator pairs of delta(x, y) ),
delta the disagreement of the level of measurement (docs/definitions.md, Data model). One pass
per label over the annotations grouped by (item, replication): count, sum and
sum of squares at the interval level (sum over pairs of (x - y)^2 =
n S2 - S1^2), the item's category counts otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ..engine.levels import Level
from ..engine.staged import Job, Part, Pieces, Planned, Staged
from ..kernels.item_sums import (
    MATRIX,
    NOMINAL,
    bag_records_into,
    item_summary_into,
)
from ..kernels.placing import ranked_rows
from ..kernels.ranking import item_rows, ranked_groups, root_mean
from ..kernels.threads import in_blocks
from ..lazy import deferrable
from ..schema.tables import array_index
from ._common import (
    Read,
    blocks,
    dist_for,
    finish,
    frame_of,
    multi_index,
    read,
    warn_undefined_rows,
    where_counts,
)
from .item_patterns import (
    by_pattern,
    category_bits,
    count_patterns,
    form_of,
    item_ids,
    modes,
    pattern_rows,
    records,
    scaled,
    table_rows,
    with_replication,
)
from .item_ties import tie_sentence, ties, top_items

__all__ = ["item_disagreement", "tie_sentence", "ties", "top_items"]

CITATION = ("Du, Labat, Demeester & Hoste (2024), Beyond Kappa and Alpha: a simple but "
            "effective method for annotation agreement measurement and prediction (poster)")

#: Fewest groups (or rows) a thread takes (below, starting and joining it costs more).
MIN_BLOCK = 100_000


def summarize(read_: Read, label: int, counts: bool = False) -> dict[str, np.ndarray]:
    """Per (item, replication) group of one label: the kernel's arrays and D.

    With ``counts`` at the ordinal level (a dask partition, whose own marginals
    are not the replication's), D is left out and each group's category counts
    ``counts`` (G, K) are returned instead, for :func:`ordinal_d` once the
    marginals of every partition are known (one thread: dask runs partitions in
    its own). The arrays are rows of one huge-page-aligned block (:func:`.item_patterns.records`);
    ``scratch`` (G,): the count patterns' memory, free now (:func:`_rows` uses it).
    In memory, by count pattern: the records of the distinct patterns, ``pid`` (G,)
    each group's column among them and ``m`` (:func:`.item_patterns.by_pattern`).
    """
    codes = read_.codes(label)
    k = read_.n_cat(label)
    n_rep = len(read_.ann.replications)
    values = read_.values(label)
    vals = np.zeros(0) if values is None else np.ascontiguousarray(values)
    form = form_of(read_)
    later = counts and read_.level.name == "ordinal"
    dist = np.zeros((0, 0, 0))
    n_group = len(read_.ann.items) * n_rep
    bags = count_patterns(read_, codes, k, n_group) if form != MATRIX or later else None
    pid, scratch, m = None, bags, 0  # in memory: the distinct patterns' records only
    if bags is not None and not counts:
        pid, bags, m = by_pattern(bags)
        n_group = len(bags)
    ints, floats = records(n_group)

    def sums(v: np.ndarray, dist: np.ndarray, form: int, scale: float, root: bool) -> None:
        threads = 1 if counts else None
        if bags is not None:  # each group's record from its count pattern
            in_blocks(n_group, lambda lo, hi: bag_records_into(
                bags, v, k, form, ints, floats, scale, root, lo, hi), MIN_BLOCK, threads)
            return
        offsets, order = read_.grouped()
        in_blocks(n_group, lambda lo, hi: item_summary_into(  # groups in threads
            offsets, order, codes, v, dist, k, n_rep, form, ints, floats, scale, root, lo,
            hi), MIN_BLOCK, threads)

    if form == MATRIX and later:
        form = NOMINAL  # D once the marginals are known; the rest needs no D
    elif form == MATRIX:
        sums(vals, dist, NOMINAL, 1.0, False)
        marginals = _marginals(ints[0], _key(read_), codes, n_rep, k)
        dist = np.stack([dist_for(read_, label, marginals[r]) for r in range(n_rep)])
    vals, scale = scaled(vals, form)  # interval: exact powers of two, scaled back
    sums(vals, dist, form, scale, not later)  # D from pair sums unless counts
    n, pair_sum, (lo, hi, mean) = ints[0], floats[0], floats[1:]
    out = {"n": n, "mode": ints[1], "mode_count": ints[2], "lo": lo, "hi": hi, "mean": mean,
           "ints": ints, "floats": floats}
    if scratch is not None:  # read: memory the placing of the rows may reuse
        out["scratch"] = scratch.view(np.int64)
    if pid is not None:  # group g's record: column pid[g]
        out.update(pid=pid, m=m)
    if later:
        key, sel = _key(read_), codes >= 0
        out["counts"] = np.bincount(key[sel] * k + codes[sel], minlength=len(n) * k
                                    ).reshape(len(n), k)
    else:
        out["d"] = pair_sum
    return out


def _key(read_: Read) -> np.ndarray:
    """Each annotation's group, ``item * n_rep + replication`` (the item itself with
    one replication: no new array)."""
    return read_.ann.item if len(read_.ann.replications) == 1 else read_.groups()[2]


def _marginals(n: np.ndarray, key: np.ndarray, codes: np.ndarray, n_rep: int,
               k: int) -> np.ndarray:
    """(R, K) category counts of the pairable values (items with >= 2 annotations) of
    each replication: the ordinal metric ranks over them, as alpha does."""
    sel = (codes >= 0) & (n[key] >= 2)
    return np.bincount((key[sel] % n_rep) * k + codes[sel], minlength=n_rep * k).reshape(
        n_rep, k).astype(float)


def ordinal_d(read_: Read, label: int, n: np.ndarray, counts: np.ndarray,
              out: np.ndarray) -> None:
    """D at the ordinal level from each group's category counts (G, K), into ``out``:
    the metric ranks over each replication's pairable values (groups of n >= 2), as
    alpha does."""
    n_rep = len(read_.ann.replications)
    rep = np.arange(len(n)) % n_rep
    for r in range(n_rep):
        mine = rep == r
        c = counts[mine].astype(float)
        dist = dist_for(read_, label, c[n[mine] >= 2].sum(axis=0))
        out[mine] = ((c @ dist) * c).sum(axis=1) / 2.0
    root_mean(n, out, 1.0)


def item_job(part: Part, level: Level) -> Pieces:
    """A partition's per-item summaries (every label) with its item ids and input
    positions: a :class:`~xrr_accessor.engine.staged.Job`'s function."""
    read_ = Read(part.ann, level, "pandas")
    sums = [{k: v for k, v in summarize(read_, j, counts=True).items()
             if k not in ("ints", "floats", "scratch")} for j in range(len(part.ann.labels))]
    return Pieces([(part.ann.items, np.asarray(part.place, dtype=float), sums)])


def _assemble(read_: Read, pieces: Pieces) -> list[dict[str, np.ndarray]]:
    """The partitions' summaries as one, items in input order (``read_.ann.items`` set
    to their ids); D at the ordinal level from the whole replication's marginals."""
    ann = read_.ann
    n_rep = len(ann.replications)
    parts = [p for p in pieces.parts if len(p[0])]
    ids = parts[0][0].append([p[0] for p in parts[1:]]) if parts else ann.items[:0]
    place = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0)
    by = np.argsort(place, kind="stable")
    groups = (by[:, None] * n_rep + np.arange(n_rep)).reshape(-1)
    read_.ann = replace(ann, items=ids[by])
    out = []
    for j in range(len(ann.labels)):
        got = {k: np.concatenate([p[2][j][k] for p in parts])[groups]
               for k in parts[0][2][j]} if parts else {}
        ints, floats = records(len(groups))  # the in-memory records, as summarize's
        s = dict(zip(("n", "mode", "mode_count"), ints[:3], strict=True))
        s.update(zip(("d", "lo", "hi", "mean"), floats, strict=True))
        for k, v in s.items():
            if k in got:
                v[:] = got[k]
        s.update(ints=ints, floats=floats)
        if "counts" in got:
            ordinal_d(read_, j, s["n"], got["counts"], s["d"])
        out.append(s)
    return out


#: The columns of item_disagreement's table, in order.
COLUMNS = ("disagreement", "rank", "n_annotations", "mode", "mode_share", "mean", "spread")


def _rows(read_: Read, label: int, s: dict[str, np.ndarray], numeric: bool
          ) -> dict[str, Any]:
    """One label's rows, ranked (:func:`~xrr_accessor.kernels.placing.ranked_rows`, or
    :func:`~xrr_accessor.kernels.ranking.item_rows` after a sort, writes them into two
    blocks): ``floats`` (D, mode share, mean, spread), ``ints`` (n, mode, rank, item id
    or code, replication), ``undefined`` (D is NaN) and ``mode`` (the modes' values:
    None when the categories are int64 (``ints`` holds them), a float64 view of
    ``ints``' mode row when they are float64 (the kernel wrote their bits), else
    taken from the categories). One block holds them all, the mask in its last row."""
    ann = read_.ann
    n_rep = len(ann.replications)
    ints, floats, pid = s["ints"], s["floats"], s.get("pid")  # records, or a table's
    m = int(s["m"]) if pid is not None else int(np.count_nonzero(ints[0]))  # n >= 0
    with_rep = with_replication(read_)
    out_floats, out_ints, undefined = table_rows(numeric, with_rep, m)
    ids = item_ids(read_, with_rep)
    cats = ann.categories[label]
    bits, values = category_bits(cats)
    # (replication, D descending, item): rows placed when D takes few values, else sorted
    if not ranked_rows(ints, floats, n_rep, ids, values, out_floats, out_ints, undefined,
                       MIN_BLOCK, s["scratch"] if "scratch" in s else blocks(1, len(ints[0]))[0],
                       pid):
        if pid is not None:  # each group's record, to sort
            ints, floats = ints[:, pid], floats[:, pid]
        order = ranked_groups(ints[0], floats[0], n_rep, blocks(4, len(ints[0])))
        in_blocks(m, lambda lo, hi: item_rows(order, ints, floats, n_rep, ids, values,
                                              out_floats, out_ints, undefined, lo, hi),
                  MIN_BLOCK)
    return {"floats": out_floats, "ints": out_ints, "undefined": undefined,
            "mode": modes(cats, bits, out_ints), "label": label}


def _labels(rows: dict[str, Any]) -> np.ndarray:
    """Each row's label code: ``rows["label"]`` (an int: one label's rows; an array:
    rows joined by :func:`_joined`) as an array, built only where it is needed."""
    lab = rows["label"]
    return lab if isinstance(lab, np.ndarray) else np.full(len(rows["undefined"]), lab)


def _table(read_: Read, rows: dict[str, Any], numeric: bool) -> pd.DataFrame:
    """The table of ``rows`` (:func:`_rows`, of one label or of all of them joined),
    their blocks its columns without a copy, with the index levels the input has."""
    ann = read_.ann
    with_rep = with_replication(read_)
    out_floats, out_ints, mode = rows["floats"], rows["ints"], rows["mode"]
    names = list(COLUMNS if numeric else COLUMNS[:5])
    columns: list[tuple[Any, list[str]]] = [
        (out_floats, ["disagreement", "mode_share", "mean", "spread"][:len(out_floats)]),
        # the rank, NA where D is: int64 and bool rows of one block, as IntegerArray
        # checks them (its checks cost as much as the rest of the column in a call)
        (pd.arrays.IntegerArray._simple_new(out_ints[2], rows["undefined"]), ["rank"])]
    if mode is None:  # the mode's values (item_rows wrote them), beside n
        columns.append((out_ints[:2], ["n_annotations", "mode"]))
    else:
        columns += [(out_ints[:1], ["n_annotations"]), (mode, ["mode"])]
    item = out_ints[3]  # the items' ids or codes
    levels = [("label", ann.labels, lambda: _labels(rows), ann.has_label),
              ("replication", ann.replications, lambda: out_ints[4], with_rep),
              ("item", ann.items, lambda: item, True)]
    kept = [(name, lev, codes()) for name, lev, codes, had in levels if had]
    if len(kept) > 1:
        index = multi_index(kept)
    elif len(item_ids(read_, with_rep)):
        index = array_index(item, name="item")
    else:
        index = ann.items.take(item).rename("item")
    return frame_of(columns, names, index)


def _joined(read_: Read, parts: list[dict[str, Any]], numeric: bool) -> pd.DataFrame:
    """One table of every label's rows: their blocks joined once, one constructor (as
    ``pd.concat`` of a frame per label, which costs a frame per label); the modes of
    categories of different dtypes joined by ``pd.concat``'s rules."""
    if len(parts) == 1:
        return _table(read_, parts[0], numeric)
    modes = [p["mode"] for p in parts]
    if all(v is None for v in modes):
        mode = None
    elif all(v is not None for v in modes) and len({v.dtype for v in modes}) == 1:
        mode = (np.concatenate(modes) if isinstance(modes[0], np.ndarray)  # the dtype
                else type(modes[0])._concat_same_type(modes))  # kept, as concat keeps it
    else:  # int64 categories beside others, or dtypes that differ: concat's rules
        return pd.concat([_table(read_, p, numeric) for p in parts])
    rows: dict[str, Any] = {k: np.concatenate([p[k] for p in parts], axis=-1)
                            for k in ("floats", "ints", "undefined")}
    rows["label"] = np.concatenate([_labels(p) for p in parts])
    rows["mode"] = mode
    return _table(read_, rows, numeric)


@deferrable
def item_disagreement(data: Any, level: Any = None, **roles: Any) -> Any:
    """Per-item disagreement D_i, items ranked from the most disagreed on.

    For each item (in each label and replication) with n >= 2 annotations,
    ``D_i = sqrt( C(n, 2)^-1 sum over its annotator pairs of delta(x, y) )``
    (Du et al., *Beyond Kappa and Alpha*): the root mean disagreement of its
    annotator pairs, with delta from the level of measurement: interval
    (x - y)^2 (the paper's choice and the default: D_i is then sqrt(2) times
    the item's standard deviation with divisor n), nominal 0 / 1 (D_i^2 is
    the share of pairs that differ), ordinal, ratio or a custom matrix as in
    :func:`~xrr_accessor.irr` (the ordinal metric ranks over the pairable
    values of the replication, as alpha does). O(N): count, sum and sum of
    squares per item at the interval level, category counts otherwise.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        Annotations, in any layout :func:`~xrr_accessor.irr` reads.
    level : {"interval", "nominal", "ordinal", "ratio"}, matrix or callable
        Level of measurement (default: inferred from the values, as in
        :func:`~xrr_accessor.irr`).
    **roles
        Column or dimension names (``item=``, ``rater=``, ``replication=``,
        ``labels=``, ``wide=``, ...), see :func:`~xrr_accessor.annotations`.

    Returns
    -------
    DataFrame or Dataset
        One row per (label, replication, item) with an annotation, sorted
        within each label and replication from the largest D to the smallest
        (undefined last); index levels the input did not have are dropped.
        Columns: ``disagreement`` (D_i), ``rank`` (1 = most disagreement),
        ``n_annotations``, ``mode`` (the most frequent value; the smallest on
        ties), ``mode_share`` (its share of the item's annotations), and for
        numbers ``mean`` and ``spread`` (max - min). Items with one
        annotation have D = NaN (nothing to pair), counted in an
        :class:`~xrr_accessor.errors.UndefinedWarning`. From xarray: a Dataset
        with dims ``label``, ``replication``, ``item`` (as present) and the
        columns as variables (``rank`` keeps the order).

    Examples
    --------
    The poster's example (five ratings, negative = -1, positive = +1, four
    positive and one negative): D = sqrt(16 / 10) = 1.26.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": ["a"] * 5 + ["b"] * 5, "rater": list("pqrst") * 2,
    ...                    "valence": [1, 1, 1, 1, -1] + [1, 1, 1, 1, 1]})
    >>> out = item_disagreement(df, level="interval")
    >>> out["disagreement"].round(2).tolist()
    [1.26, 0.0]
    >>> out.index.get_level_values("item").tolist()
    ['a', 'b']
    """
    read_ = read(data, level, roles, "item_disagreement")
    labels = range(len(read_.ann.labels))
    numeric = any(read_.values(j) is not None for j in labels)
    if isinstance(data, Staged):  # dask-backed: the partitions' per-item summaries
        if data.stats is None:
            raise Planned(Job(item_job, (read_.level,)))
        every = _assemble(read_, data.stats)
        parts = [_rows(read_, j, every[j], numeric) for j in labels]
    else:  # a small table in one compiled call, else the steps one at a time
        parts = [pattern_rows(read_, j, numeric, MIN_BLOCK)
                 or _rows(read_, j, summarize(read_, j), numeric) for j in labels]
    frame = _joined(read_, parts, numeric)
    n_bad = sum(int(np.count_nonzero(p["undefined"])) for p in parts)
    if n_bad:  # where they are, for the message
        bad = np.concatenate([p["undefined"] for p in parts])
        bad_lab = np.concatenate([_labels(p) for p in parts])[bad]
        with_rep = with_replication(read_)
        bad_rep = (np.concatenate([p["ints"][4] for p in parts])[bad] if with_rep
                   else np.zeros(len(bad_lab), np.int64))
        warn_undefined_rows(
            "item_disagreement", n_bad, len(frame),
            "items with one annotation have no pair to compare",
            where_counts(read_, bad_lab, bad_rep))
    attrs = {"metric": "item_disagreement", "level": read_.level.name, "citation": CITATION,
             "n_undefined": n_bad}
    return finish(frame, read_, attrs)
