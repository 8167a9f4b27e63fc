"""The sums behind :func:`~.raters.rater_agreement`: additive over items, so over partitions.

Leaving one rater out needs, per (replication, rater), sums over the (item,
replication) groups (:mod:`xrr_accessor.kernels.diagnostics`). Sums of
disjoint sets of items add, so the same function gives them for all the
annotations in memory and for each partition of dask-backed data (a
:class:`~xrr_accessor.engine.staged.Job`), added in dask's tree; the
estimate, every bootstrap replicate and every jackknife group are finalized
from sums alike (:mod:`.raters`).

A bootstrap replicate weights item i by its keyed Poisson(1) draw (a
function of the seed and the item's id alone), so a partition sums its own
items' share of each replicate; a jackknife group's sums are those of its
items, and "all items but group g" is the total minus them.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..engine.additive import Stats
from ..engine.draws import MAX_BLOCK, Draws, item_keys
from ..engine.levels import Level
from ..engine.staged import Part
from ..kernels.diagnostics import rater_categorical, rater_moments
from ._common import Read, centered

__all__ = ["KEYS", "Sums", "label_sums", "rater_job", "regroup", "replicates", "resampled",
           "unstack"]

#: The (offsets, order) of the (item, replication) groups a pass reads.
Groups = tuple[np.ndarray, np.ndarray]

#: One label's sums, by name.
Sums = dict[str, np.ndarray]

#: The names of the kernels' outputs, per form.
KEYS = {
    "moments": ("n_ann", "per", "tot", "drop"),
    "categorical": ("n_ann", "shared", "other", "obs", "x", "y", "w", "tot_n", "tot_t",
                    "tot_diag", "tot_o", "dn", "dt", "ddiag", "do"),
}


def label_sums(read_: Read, label: int, groups: Groups) -> Sums:
    """One label's leave-one-rater-out sums over ``groups`` (one kernel pass; an empty
    ``order``: the rows are already grouped)."""
    offsets, order = groups
    ann = read_.ann
    rater = np.ascontiguousarray(ann.rater, dtype=np.int64)
    n_rep, n_rater = len(ann.replications), len(ann.raters)
    if read_.level.uses_moments:
        values = read_.values(label)
        assert values is not None  # the interval level checked the values on reading
        out = rater_moments(offsets, order, read_.codes(label), rater, centered(values),
                            n_rep, n_rater)
        return dict(zip(KEYS["moments"], out, strict=True))
    out = rater_categorical(offsets, order, read_.codes(label), rater, n_rep, n_rater,
                            read_.n_cat(label), read_.level.name != "nominal")
    return dict(zip(KEYS["categorical"], out, strict=True))


def regroup(offsets: np.ndarray, order: np.ndarray, n_rep: int, items: np.ndarray) -> Groups:
    """The groups of ``items`` (item numbers, repeats allowed), each item's block of
    ``n_rep`` groups in turn: one pass over them adds each listed item's
    contributions once per listing (vectorized, O(their annotations)).

    Examples
    --------
    >>> offsets, order = np.array([0, 2, 3, 5]), np.array([4, 0, 1, 2, 3])
    >>> regroup(offsets, order, 1, np.array([0, 0, 2]))
    (array([0, 2, 4, 6]), array([4, 0, 4, 0, 2, 3]))
    """
    items = np.asarray(items, dtype=np.int64)
    g = (items[:, None] * n_rep + np.arange(n_rep, dtype=np.int64)).reshape(-1)
    sizes = np.diff(offsets)[g]
    new = np.zeros(len(g) + 1, dtype=np.int64)
    np.cumsum(sizes, out=new[1:])
    at = np.repeat(offsets[g] - new[:-1], sizes) + np.arange(new[-1], dtype=np.int64)
    return new, np.ascontiguousarray(order[at])


def resampled(offsets: np.ndarray, order: np.ndarray, n_rep: int,
              weights: np.ndarray) -> Groups:
    """The groups of a replicate: item i's block repeated ``weights[i]`` times (0: left
    out), in item order (:func:`regroup`).

    Examples
    --------
    >>> offsets, order = np.array([0, 2, 3, 5]), np.array([4, 0, 1, 2, 3])
    >>> resampled(offsets, order, 1, np.array([2, 0, 1]))
    (array([0, 2, 4, 6]), array([4, 0, 4, 0, 2, 3]))
    """
    n_item = (len(offsets) - 1) // n_rep
    return regroup(offsets, order, n_rep, np.repeat(np.arange(n_item, dtype=np.int64),
                                                    np.asarray(weights, dtype=np.int64)))


def replicates(read_: Read, draws: Draws, first: int = 0, labels: list[int] | None = None
               ) -> Iterator[tuple[str, int, list[Sums]]]:
    """Every label's sums under each bootstrap replicate (``("boot", b, sums)``), then
    over each jackknife group's items (``("group", g, sums)``), one pass per
    replicate or group; ``first`` numbers the items for a leave-one-out jackknife."""
    ann = read_.ann
    offsets, order, _ = read_.groups()
    n_rep = len(ann.replications)
    keys = item_keys(ann.items)
    labels = list(range(len(ann.labels))) if labels is None else labels
    n_boot = len(draws.seeds)
    for lo in range(0, n_boot, MAX_BLOCK):
        block = draws.weights(keys, lo, min(lo + MAX_BLOCK, n_boot))
        for col in range(block.shape[1]):
            groups = resampled(offsets, order, n_rep, block[:, col])
            yield "boot", lo + col, [label_sums(read_, j, groups) for j in labels]
    if not draws.groups:
        return
    member = draws.members(keys, first)
    by_group = np.argsort(member, kind="stable")
    bounds = np.searchsorted(member[by_group], np.arange(draws.groups + 1))
    for g in range(draws.groups):
        groups = regroup(offsets, order, n_rep, by_group[bounds[g]:bounds[g + 1]])
        yield "group", g, [label_sums(read_, j, groups) for j in labels]


def rater_job(part: Part, level: Level) -> Stats:
    """A partition's sums (every label; with the call's draws, every replicate's and
    jackknife group's too, stacked on a first axis): a
    :class:`~xrr_accessor.engine.staged.Job`'s function."""
    read_ = Read(part.ann, level, "pandas")
    out: dict[str, np.ndarray] = {}
    for j in range(len(part.ann.labels)):
        for k, v in label_sums(read_, j, read_.grouped()).items():
            out[f"{j}:{k}"] = v
    if part.draws is None:
        return Stats(out)
    stacked: dict[str, list[np.ndarray]] = {}
    for kind, _, sums in replicates(read_, part.draws, part.first):
        for j, s in enumerate(sums):
            for k, v in s.items():
                stacked.setdefault(f"{kind}:{j}:{k}", []).append(v)
    out.update({k: np.stack(v) for k, v in stacked.items()})
    return Stats(out)


def unstack(stats: Stats, n_labels: int
            ) -> tuple[list[Sums], Iterator[tuple[str, int, list[Sums]]]]:
    """Added :func:`rater_job` sums: each label's point sums, and the replicates and
    jackknife groups as :func:`replicates` yields them."""
    point: list[Sums] = [{} for _ in range(n_labels)]
    stacks: dict[str, list[Sums]] = {"boot": [{} for _ in range(n_labels)],
                                     "group": [{} for _ in range(n_labels)]}
    for name, v in stats.arrays.items():
        head, _, rest = name.partition(":")
        if head in stacks:
            j, _, k = rest.partition(":")
            stacks[head][int(j)][k] = v
        else:
            point[int(head)][rest] = v

    def walk() -> Iterator[tuple[str, int, list[Sums]]]:
        for kind, per_label in stacks.items():
            count = len(next(iter(per_label[0].values()))) if per_label[0] else 0
            for i in range(count):
                yield kind, i, [{k: v[i] for k, v in s.items()} for s in per_label]

    return point, walk()
