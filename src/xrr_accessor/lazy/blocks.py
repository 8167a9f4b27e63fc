"""One partition in memory: read and encoded as in memory, then surveyed (first
pass) or coded against the call's global indexes (second pass).

Both passes run in dask workers on an ordinary pandas DataFrame or xarray
object (one partition), so every check of the in-memory reader applies to it
unchanged. Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..engine.staged import Staged
from ..engine.statistics import Meta, Stats, chunk, rows
from ..errors import InputError, collecting
from ..kernels import accumulate
from ..schema import Annotations, Roles, encode, read
from ..schema.encode import is_ordered
from ..schema.tally import Tally, present, tally

__all__ = ["Survey", "merge", "partition_stats", "survey"]


def _encode(block: Any, roles: dict[str, Any]) -> tuple[Any, Annotations]:
    if isinstance(block, pd.DataFrame) and block.index.name is not None \
            and block.index.name not in block.columns:
        block = block.reset_index()  # an item index (dd.read_parquet(index="item"))
    table = read(block, Roles.from_kwargs(roles))
    return table, encode([table])


@dataclass
class Survey:
    """What the first pass learns from one partition (small: indexes and counts)."""

    labels: list[Hashable]
    source: dict[Hashable, str]
    has_label: bool
    has_replication: bool
    raters: pd.Index
    replications: pd.Index
    categories: list[pd.Index]
    declared: list[bool]
    ordered: list[bool]
    tally: Tally
    raters_of: list[pd.Index]  # per local replication, raters with a row
    rated_of: list[pd.Index]  # ... with a non-missing annotation
    n_items: int
    top: int
    item_keys: np.ndarray | None
    notes: dict[str, int] = field(default_factory=dict)
    messages: list[tuple[type[Warning], str]] = field(default_factory=list)


def survey(block: Any, roles: dict[str, Any], check_items: bool) -> Survey:
    """The first pass over one partition: its labels, ids, categories and counts.

    Warnings of the reader are recorded (and re-emitted in the client), not lost
    in a worker.
    """
    with collecting() as caught:  # thread-safe, unlike warnings.catch_warnings
        table, ann = _encode(block, roles)
    order = table.categories
    names = list(ann.labels)
    declared = [(order.get(n) if isinstance(order, dict) else order) is not None for n in names]
    ordered = [is_ordered(table.labels[n][1], ann.categories[j], declared[j])
               for j, n in enumerate(names)]
    rated = (ann.codes >= 0).any(axis=0) if len(names) else np.zeros(len(ann.item), bool)
    n_rep = len(ann.replications)
    top = int(accumulate.max_group_size(
        np.ascontiguousarray(ann.item, dtype=np.int64),
        np.ascontiguousarray(ann.replication, dtype=np.int64), len(ann.items), n_rep)
    ) if len(ann.item) else 0
    keys = None
    if check_items:
        keys = pd.util.hash_pandas_object(pd.Series(ann.items), index=False).to_numpy()
    return Survey(
        labels=names, source=dict(ann.source), has_label=ann.has_label,
        has_replication=ann.has_replication, raters=ann.raters,
        replications=ann.replications, categories=list(ann.categories),
        declared=declared, ordered=ordered, tally=tally(ann),
        raters_of=[ann.raters[row] for row in present(ann.rater, ann.replication, n_rep,
                                                      len(ann.raters))],
        rated_of=[ann.raters[row] for row in present(ann.rater[rated], ann.replication[rated],
                                                     n_rep, len(ann.raters))],
        n_items=len(ann.items), top=top, item_keys=keys, notes=dict(ann.notes),
        messages=list(caught),
    )


def _union(indexes: Sequence[pd.Index], sort: bool = True) -> pd.Index:
    """The union of ``indexes`` (first-seen order), sorted when it can be."""
    out = indexes[0]
    for ix in indexes[1:]:
        if not ix.equals(out):
            out = out.union(ix, sort=False)
    if sort and not all(ix.equals(out) for ix in indexes):
        try:
            out = out.sort_values()
        except TypeError:
            pass
    return out


def merge(surveys: Sequence[Survey], kind: str, item: Hashable = "item"
          ) -> tuple[Staged, list[tuple[type, str]]]:
    """The call's skeleton annotations from every partition's survey.

    Raises
    ------
    InputError
        When an item has annotations in more than one partition (the
        statistics of an item must come from one partition), or when the data
        have no annotations.
    """
    parts = [s for s in surveys if len(s.labels) or s.n_items]
    if not parts:
        raise InputError("the dask-backed data hold no annotations (every partition is empty).")
    keys = [s.item_keys for s in parts if s.item_keys is not None]
    if keys:
        every = np.concatenate(keys)
        n_split = len(every) - len(np.unique(every))
        if n_split:
            raise InputError(
                f"{n_split:,} item(s) have annotations in more than one partition; the "
                "statistics of an item come from one partition. Repartition by item "
                f"first: ddf.shuffle(on={item!r}), or for data sorted by item "
                f"dd.read_parquet(..., index={item!r}, calculate_divisions=True)."
            )
    labels: list[Hashable] = list(dict.fromkeys(n for s in parts for n in s.labels))
    source: dict[Hashable, str] = {}
    for s in parts:
        source.update(s.source)
    raters = _union([s.raters for s in parts])
    reps = _union([s.replications for s in parts])
    cats, ordered = [], []
    for name in labels:
        have = [(s, s.labels.index(name)) for s in parts if name in s.labels]
        per = [s.categories[j] for s, j in have]
        keep_order = any(s.declared[j] for s, j in have) or (
            all(ix.equals(per[0]) for ix in per[1:]))
        cats.append(per[0] if keep_order else _union(per))
        ordered.append(all(s.ordered[j] for s, j in have))
    n_rep, n_label = len(reps), len(labels)
    annotations = np.zeros((n_label, n_rep), dtype=np.int64)
    rows_, items = np.zeros(n_rep, dtype=np.int64), np.zeros(n_rep, dtype=np.int64)
    seen: list[list[pd.Index]] = [[] for _ in range(n_rep)]
    rated: list[list[pd.Index]] = [[] for _ in range(n_rep)]
    for s in parts:
        r = reps.get_indexer(s.replications)
        lab = [labels.index(n) for n in s.labels]
        annotations[np.ix_(lab, r)] += s.tally.annotations
        rows_[r] += s.tally.rows
        items[r] += s.tally.items
        for k, g in enumerate(r):
            seen[g].append(s.raters_of[k])
            rated[g].append(s.rated_of[k])
    count = np.array([len(_union(x, sort=False)) if x else 0 for x in seen], dtype=np.int64)
    n_rated = np.array([len(_union(x, sort=False)) if x else 0 for x in rated], dtype=np.int64)
    notes: dict[str, int] = {}
    for s in parts:
        for key, v in s.notes.items():
            notes[key] = notes.get(key, 0) + v
    first = parts[0]
    empty = np.zeros(0, dtype=np.int64)
    ann = Annotations(
        item=empty, rater=empty, replication=empty, codes=np.zeros((n_label, 0), np.int64),
        items=pd.RangeIndex(sum(s.n_items for s in parts), name="item"), raters=raters,
        replications=pd.Index(reps, name="replication"), labels=pd.Index(labels, name="label"),
        categories=tuple(cats), has_label=first.has_label,
        has_replication=any(s.has_replication for s in parts), source=source,
        inputs=((n_rep, any(s.has_replication for s in parts)),), notes=notes,
        tally=Tally(annotations, rows_, items, count, n_rated),
    )
    messages = list(dict.fromkeys(m for s in parts for m in s.messages))
    return Staged(ann, max([s.top for s in parts] + [2]), kind, tuple(ordered)), messages


class _Codes:
    def __init__(self, item: np.ndarray, rater: np.ndarray, replication: np.ndarray,
                 codes: np.ndarray, n_items: int) -> None:
        self.item, self.rater, self.replication = item, rater, replication
        self.codes, self.n_items = codes, n_items


def partition_stats(block: Any, roles: dict[str, Any], staged: Staged, meta: Meta) -> Stats:
    """The second pass over one partition: its codes in the call's global indexes,
    then the statistics of its items (one numba pass)."""
    with collecting():  # reported by the first pass already
        _, ann = _encode(block, roles)
    glob = staged.ann
    n = len(ann.item)
    codes = np.full((len(glob.labels), n), -1, dtype=np.int64)
    for j, name in enumerate(ann.labels):
        cmap = glob.categories[glob.labels.get_loc(name)].get_indexer(ann.categories[j])
        if not len(cmap):  # no value of this label in the partition: all missing
            continue
        local = ann.codes[j]
        codes[glob.labels.get_loc(name)] = np.where(local >= 0, cmap[np.maximum(local, 0)], -1)
    rater = glob.raters.get_indexer(ann.raters)[ann.rater]
    rep = glob.replications.get_indexer(ann.replications)[ann.replication]
    part = _Codes(np.ascontiguousarray(ann.item, dtype=np.int64),
                  np.ascontiguousarray(rater, dtype=np.int64),
                  np.ascontiguousarray(rep, dtype=np.int64), codes, len(ann.items))
    return chunk(rows(part, meta), meta, parallel=False)
