"""One partition in memory: read and encoded as in memory, then surveyed (first
pass) or coded against the call's global indexes (second pass).

Both passes run in dask workers on an ordinary pandas DataFrame or xarray
object (one partition), so every check of the in-memory reader applies to it
unchanged. Nothing here imports dask.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from ..engine.additive import Meta, Stats
from ..engine.draws import Draws, Sampled, draw_columns, item_keys
from ..engine.pipeline import Codes
from ..engine.staged import Job, Part, Staged
from ..engine.statistics import chunk, rank_pairable, rows
from ..errors import DroppedDataWarning, InputError, LevelError, collecting
from ..kernels import accumulate
from ..schema import Annotations, Roles, encode, read
from ..schema.encode import is_ordered
from ..schema.evidence import evidence
from ..schema.labels import decide_parts, inferred_message
from ..schema.read import inference_candidates
from ..schema.roles import resolve_roles
from ..schema.tables import distinct_text
from ..schema.tally import Tally, present, tally
from .ids import check_across, check_items_across, item_probe

__all__ = ["BOOT", "GROUP", "ORDER", "Merged", "Survey", "merge", "partition_marginals",
           "partition_stats", "sampled", "survey"]


#: A column :func:`.graph.by_item` adds before its shuffle: each row's place in
#: the input (partition, row), so that a partition is read in the input's order
#: afterwards (``duplicates="first"`` keeps the first in the input, as in memory).
ORDER = "__xrr_order__"


#: How the reader's warning of inferred labels begins (decided over all partitions).
INFERRED = "labels inferred from the columns"

#: Reads one partition into the tables encoded together (the default: one, by
#: :func:`~xrr_accessor.schema.read`); a diagnostic may read more (validity: the
#: data and their gold). A module-level function or partial: it is pickled to workers.
Reader = Callable[[Any, dict[str, Any]], list[Any]]


def read_one(block: Any, roles: dict[str, Any]) -> list[Any]:
    """The default :data:`Reader`: the partition as one table."""
    return [read(block, Roles.from_kwargs(roles))]


def _encoded(block: Any, roles: dict[str, Any], reader: Reader | None = None
             ) -> tuple[Any, Annotations, np.ndarray | None, Any]:
    """The partition read (its first table) and encoded, (shuffled partitions) each
    item's first position in the input (None otherwise), and the partition as read."""
    firsts = None
    if isinstance(block, pd.DataFrame) and ORDER in block.columns:
        block = block.sort_values(ORDER, kind="stable")
        firsts = _item_first(block, roles)
        block = block.drop(columns=ORDER)
    if isinstance(block, pd.DataFrame) and block.index.name is not None \
            and block.index.name not in block.columns:
        block = block.reset_index()  # an item index (dd.read_parquet(index="item"))
    tables = (reader or read_one)(block, roles)
    ann = encode(tables)
    table = tables[0]
    place = None
    if firsts is not None:
        place = firsts.reindex(ann.items).to_numpy(dtype=float, na_value=np.inf)
    return table, ann, place, block


def _item_first(block: pd.DataFrame, roles: dict[str, Any]) -> pd.Series | None:
    """Each item's smallest input position (:data:`ORDER`) in a shuffled partition."""
    names = [c for c in block.columns if c != ORDER]
    item = resolve_roles(names, Roles.from_kwargs(roles), "column").get("item")
    if item is None or item not in block.columns:
        return None
    return block.groupby(item, sort=False, observed=True)[ORDER].min()


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
    #: Each rater's first row in the input (shuffled partitions only), so that the
    #: merged raters are in first-seen order, as the in-memory encoder has them.
    rater_first: pd.Series | None
    keys: np.ndarray | None  # its items' keys (draws.item_keys), when items may be split
    #: Its item ids' kind and, unless all text, the ids (lazy.ids.check_items_across).
    item_kind: str = "empty"
    item_ids: pd.Index | None = None
    notes: dict[str, int] = field(default_factory=dict)
    messages: list[tuple[type[Warning], str]] = field(default_factory=list)
    #: Labels inferred from the columns: what the decision needs (schema.evidence).
    evidence: dict[Hashable, Any] | None = None


def survey(block: Any, roles: dict[str, Any], check_items: bool = False,
           reader: Reader | None = None) -> Survey:
    """The first pass over one partition: its labels, ids, categories and counts.

    Warnings of the reader are recorded (and re-emitted in the client), not lost
    in a worker.
    """
    with collecting() as caught:  # thread-safe, unlike warnings.catch_warnings
        table, ann, _, read_block = _encoded(block, roles, reader)
    found = None if reader is not None else inference_candidates(
        read_block, Roles.from_kwargs(roles))
    if found is not None:  # labels inferred: decided over all partitions (merge)
        caught = [(c, m) for c, m in caught if not m.startswith(INFERRED)]
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
    keys = item_keys(ann.items) if check_items else None
    item_kind, item_ids = item_probe(ann.items)
    return Survey(rater_first=_rater_first(block, roles), item_kind=item_kind,
        item_ids=item_ids,
        labels=names, source=dict(ann.source), has_label=ann.has_label,
        has_replication=ann.has_replication, raters=ann.raters,
        replications=ann.replications, categories=list(ann.categories),
        declared=declared, ordered=ordered, tally=tally(ann),
        raters_of=[ann.raters[row] for row in present(ann.rater, ann.replication, n_rep,
                                                      len(ann.raters))],
        rated_of=[ann.raters[row] for row in present(ann.rater[rated], ann.replication[rated],
                                                     n_rep, len(ann.raters))],
        n_items=len(ann.items), top=top, keys=keys, notes=dict(ann.notes),
        messages=list(caught),
        evidence=None if found is None else evidence(read_block, *found),
    )


def _rater_first(block: Any, roles: dict[str, Any]) -> pd.Series | None:
    """Each rater's smallest input position in a partition shuffled by item."""
    if not (isinstance(block, pd.DataFrame) and ORDER in block.columns):
        return None
    names = [c for c in block.columns if c != ORDER]
    rater = resolve_roles(names, Roles.from_kwargs(roles), "column").get("rater")
    if rater is None or rater not in block.columns:
        return None
    return block.groupby(rater, sort=False, observed=True)[ORDER].min()


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


@dataclass
class Merged:
    """The call's skeleton, the partitions' warnings, how many items span several
    partitions (then the partitions are shuffled by item and surveyed again), and
    the number of each partition's first item (a leave-one-out jackknife's groups)."""

    staged: Staged
    messages: list[tuple[type, str]]
    n_split: int
    offsets: list[int]
    #: Labels inferred per partition that differ from the decision over all of them:
    #: the labels to read instead (the passes run again with labels=), and its warning.
    relabel: list[Hashable] | None = None
    note: tuple[type, str] | None = None
    #: The labels decided over all partitions (labels inferred), else None.
    decided: list[Hashable] | None = None


def merge(surveys: Sequence[Survey], kind: str) -> Merged:
    """The call's skeleton annotations from every partition's survey.

    Raises
    ------
    InputError
        When the data have no annotations.
    LevelError
        When a label's values mix types across partitions.
    """
    parts = [s for s in surveys if len(s.labels) or s.n_items]
    if not parts:
        raise InputError("the dask-backed data hold no annotations (every partition is empty).")
    labels: list[Hashable] = list(dict.fromkeys(n for s in parts for n in s.labels))
    source: dict[Hashable, str] = {}
    for s in parts:
        source.update(s.source)
    raters = _union([s.raters for s in parts], sort=False)  # first seen, as in memory
    firsts = [s.rater_first for s in parts if s.rater_first is not None]
    if firsts:  # shuffled partitions: order by the first row in the input
        first = pd.concat(firsts).groupby(level=0, sort=False).min()
        at = first.reindex(raters).to_numpy(dtype=float, na_value=np.inf)
        raters = raters[np.argsort(at, kind="stable")]
    check_across([s.raters for s in parts],
                 "the rater ids of the dask-backed data (across partitions)")
    check_across([s.replications for s in parts],
                 "the replication ids of the dask-backed data (across partitions)")
    check_items_across([s.item_kind for s in parts], [s.item_ids for s in parts],
                       [s.keys for s in parts],
                       "the item ids of the dask-backed data (across partitions)")
    reps = _union([s.replications for s in parts])
    distinct_text(raters, "the rater ids of the dask-backed data (across partitions)")
    distinct_text(reps, "the replication ids of the dask-backed data (across partitions)")
    cats, ordered = [], []
    for name in labels:
        have = [(s, s.labels.index(name)) for s in parts if name in s.labels]
        per = [s.categories[j] for s, j in have]
        declared = any(s.declared[j] for s, j in have)
        if not declared:
            _check_kinds(per, source.get(name, repr(name)))
        keep_order = declared or (
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
    decided, note = _labels_over_all(surveys)
    relabel = None if decided is None or set(decided) == set(labels) else decided
    if note is not None and relabel is None:
        messages.append(note)
    keys = [s.keys for s in surveys if s.keys is not None]
    n_split = 0
    if keys:
        every = np.concatenate(keys)
        n_split = len(every) - len(np.unique(every))
    offsets = [0, *np.cumsum([s.n_items for s in surveys]).tolist()][:-1]
    return Merged(Staged(ann, max([s.top for s in parts] + [2]), kind, tuple(ordered)),
                  messages, int(n_split), offsets, relabel, note, decided)


def _labels_over_all(surveys: Sequence[Survey]
                     ) -> tuple[list[Hashable] | None, tuple[type, str] | None]:
    """Inferred labels decided over every partition's evidence, as in memory (None
    when the labels were named), and the warning of what was left out."""
    evs = [s.evidence for s in surveys if s.evidence is not None]
    if not evs:
        return None, None
    kept, left = decide_parts(evs)
    return kept, ((DroppedDataWarning, inferred_message(kept, left)) if left else None)


def _check_kinds(per: Sequence[pd.Index], where: str) -> None:
    """The in-memory reader's value-type check, over every partition's values: a
    column of numbers in one file and text in another mixes types, as it would in
    one frame (each partition alone passes the reader's check)."""
    if len(per) < 2 or all(ix.dtype == per[0].dtype for ix in per[1:]):
        return
    values = pd.Series(np.concatenate([np.asarray(ix, dtype=object) for ix in per]),
                       dtype=object)
    if pd.api.types.infer_dtype(values, skipna=True) in ("mixed", "mixed-integer"):
        kinds = sorted({type(v).__name__ for v in values})
        raise LevelError(
            f"{where} mixes value types ({', '.join(kinds)}) across partitions (files), so "
            "equal-looking values (1 and '1', True and 1) would be different or merged "
            "categories. Make the column one type in every file, e.g. "
            "ddf[col].astype(str), or fix the stray value that made one file's column "
            "text (a '?' among numbers: make it missing).")


def _global(block: Any, roles: dict[str, Any], staged: Staged, reader: Reader | None = None
            ) -> tuple[Annotations, np.ndarray | None]:
    """A partition's annotations in the call's global label, category, rater and
    replication indexes (its own items; ``inputs`` its own), and its items' input
    positions."""
    with collecting():  # reported by the first pass already
        _, ann, place, _ = _encoded(block, roles, reader)
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
    return replace(glob, item=ann.item, rater=rater, replication=rep, codes=codes,
                   items=ann.items, tally=ann.tally, inputs=ann.inputs), place


def partition_stats(block: Any, roles: dict[str, Any], staged: Staged, meta: Meta | Job,
                    draws: Draws | None = None, first: int = 0,
                    reader: Reader | None = None) -> Any:
    """The second pass over one partition: its codes in the call's global indexes,
    then the statistics of its items (one numba pass), or a diagnostic's :class:`Job`.

    With ``draws`` (``ci=``), also its items' share of every bootstrap replicate
    (``boot:<name>``, a last axis of n_boot) and of every jackknife group
    (``group:<name>``): the weights are keyed by item id, so a partition draws
    its own items exactly as the in-memory call would. ``first`` numbers its
    items for a leave-one-out jackknife (the items of the partitions before it).
    ``reader`` reads the partition (:data:`Reader`; the default reads one table).
    """
    if isinstance(meta, Meta) and meta.form == "ranks" and meta.ranks is None:
        raise RuntimeError("the ranks form reached a partition without the call's mid-ranks "
                           "(lazy.parts.ranked_meta)")  # pragma: no cover - a graph bug
    ann, place = _global(block, roles, staged, reader)
    if isinstance(meta, Job):
        if place is None:  # whole items in input order: partitions, then first seen
            place = first + np.arange(len(ann.items), dtype=float)
        return meta.fn(Part(ann, draws, first, place), *meta.args)
    part = Codes.of(ann.item, ann.rater, ann.replication, ann.codes, len(ann.items))
    r = rows(part, meta)
    stats = chunk(r, meta, parallel=False)
    if draws is None:
        return stats
    boot, groups = draw_columns(r, item_keys(ann.items), meta, draws, first)
    arrays = dict(stats.arrays)
    arrays.update({f"{BOOT}{k}": v for k, v in boot.items()})
    arrays.update({f"{GROUP}{k}": v for k, v in (groups or {}).items()})
    return Stats(arrays)


def partition_marginals(block: Any, roles: dict[str, Any], staged: Staged, meta: Meta | Job,
                        boot: bool, reader: Reader | None = None) -> np.ndarray | None:
    """The pairable values' counts (L, R, K, 1) of one partition's items, for the mid-ranks
    of the ``"ranks"`` form (ordinal alpha; :func:`.parts.with_ranks`); None for other calls."""
    if not isinstance(meta, Meta) or meta.form != "ranks" or boot:
        return None
    ann, _ = _global(block, roles, staged, reader)
    r = rows(Codes.of(ann.item, ann.rater, ann.replication, ann.codes, len(ann.items)), meta)
    return rank_pairable(r, meta, np.ones((r.n_items, 1)))[1][:, :, 2:].sum(axis=2)


#: Prefixes of the replicate and jackknife-group statistics in a partition's sums.
BOOT, GROUP = "boot:", "group:"


def sampled(stats: Stats, draws: Draws, n_items: int) -> tuple[Stats, Sampled]:
    """The point statistics and the replicates' (:class:`~..draws.Sampled`) of
    statistics summed from :func:`partition_stats` with ``draws``."""
    point = {k: v for k, v in stats.arrays.items() if not k.startswith((BOOT, GROUP))}
    boot = {k[len(BOOT):]: v for k, v in stats.arrays.items() if k.startswith(BOOT)}
    groups = {k[len(GROUP):]: v for k, v in stats.arrays.items() if k.startswith(GROUP)}
    return Stats(point), Sampled(n_items, draws, boot, groups or None)
