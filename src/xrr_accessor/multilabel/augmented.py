"""Rosenberg & Binkowski's (2004) augmented kappa for primary / secondary labels.

An annotator gives each item one label (weight 1) or a primary and a
secondary label (weights p and 1 - p, 0.5 <= p <= 1). Each annotator's
items x categories matrix M holds those weights; for two annotators A and B
over the N items both annotated

    p(A) = sum_xy M_A[x, y] M_B[x, y] / N,
    Freq_A[y] = sum_x M_A[x, y] / N,
    p(E) = sum_y Freq_A[y] Freq_B[y],
    kappa' = (p(A) - p(E)) / (1 - p(E)).

With one label per annotation this is Cohen's kappa, whatever p. At p = 1
secondary labels are ignored; at p = 0.5 they weigh as much as the primary.

Decisions beyond the paper (which has two annotators and at most two labels):

* **More than two annotators**: kappa' is computed for every pair of
  annotators over the items both annotated (its own N, Freq and p(E)), and
  the result is the plain mean over the pairs that share at least one item
  and whose kappa' is defined (p(E) < 1). Each pair counts once, whatever
  the number of items it shares; the per-pair table (``pairs=True``) shows
  them all. The paper's Section 6 reports such an average ("the average
  kappa statistic across the three annotators").
* **More than two labels in one annotation**: geometric rank weights. The
  label of rank r (0 = primary) weighs q^r / sum_j q^j with q = (1 - p) / p,
  so the weights of one annotation sum to 1. For two labels this is exactly
  (p, 1 - p); p = 1 keeps only the primary label and p = 0.5 weighs every
  label equally, the two meanings the paper gives its endpoints. (Giving the
  primary p and splitting 1 - p among the rest would make p = 0.5 favour the
  primary of a three-label annotation; refusing would leave such data out.)
* **Unordered sets** (a set / frozenset cell, or a long frame without a rank
  column) have no primary label; with two or more labels they are refused
  with an error saying how to give the order.

All sums are accumulated by :mod:`..kernels.augmented` in one pass over the
pairs of annotations that share an item (O(N m) for m annotators per item).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients.base import chance_kappa
from ..errors import DroppedDataWarning, InputError, UndefinedWarning, per_call, warn
from ..kernels.augmented import annotation_pairs, pair_sums
from ..schema.readsets import read_sets, set_roles
from ..schema.sets import LabelSets

__all__ = [
    "CITATION", "PairSums", "augmented_kappa", "augmented_sweep", "check_p",
    "label_weights", "sets_of", "summed_pairs",
]

CITATION = ("Rosenberg & Binkowski (2004), Augmenting the kappa statistic to determine "
            "interannotator reliability for multiply labeled data points, HLT-NAACL")

#: The p values of :func:`augmented_sweep` when none are given.
DEFAULT_PS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: p(E) this close to 1 is 1 (kappa' undefined).


def check_p(p: Any, name: str = "p") -> float:
    """``p`` as a float in [0.5, 1], or an :class:`InputError` naming ``name``."""
    fix = (f"{name} is the weight of the primary label (the secondary gets 1 - {name}): "
           "0.5 weighs both equally, 1.0 ignores secondary labels. Pass a number in "
           "[0.5, 1]")
    if isinstance(p, bool) or not isinstance(p, int | float | np.integer | np.floating):
        raise InputError(f"{name}={p!r} is not a number; {fix}.")
    value = float(p)
    if not 0.5 <= value <= 1.0:  # NaN fails too
        raise InputError(f"{name}={p!r} is outside [0.5, 1]; {fix}.")
    return value


def sets_of(data: Any, rank: Hashable | None, layout: str, roles: dict[str, Any],
            what: str) -> LabelSets:
    """Read ``data`` (a DataFrame, or :class:`LabelSets` already read) as label sets."""
    if isinstance(data, LabelSets):
        if rank is not None or any(v is not None for v in roles.values()):
            raise InputError(f"{what}: data are label sets already read; roles and rank= "
                             "apply to a DataFrame only.")
        return data
    return read_sets(data, rank=rank, layout=layout, **set_roles(roles, what))


def label_weights(sets: LabelSets, ps: Sequence[float]) -> np.ndarray:
    """The weight of every label under each p: (len(ps), M).

    1 for a single label; p and 1 - p for a primary and a secondary; for
    k > 2 labels the geometric rank weights q^r / sum_j q^j, q = (1 - p) / p.
    Refuses unordered annotations of two or more labels.
    """
    sizes = sets.sizes
    ann = sets.annotation_of_member
    rank = sets.rank_of_member
    loose = (sizes > 1) & ~sets.ordered
    if loose.any():
        a = int(np.flatnonzero(loose)[0])
        raise InputError(
            f"{sets.source}: {int(loose.sum())} annotation(s) hold two or more labels with "
            f"no order (e.g. {sets.describe(a)}, a set or an unranked long frame), but "
            "augmented kappa weighs the primary label p and the secondary 1 - p. Give the "
            "order: a list or tuple per annotation (primary first), or a rank column "
            "(rank=) in a long frame. Unordered sets have their own chance-corrected "
            "agreement: irr(..., level=\"masi\") (or level=\"jaccard\").")
    k = sizes[ann]
    out = np.empty((len(ps), len(sets.members)), dtype=np.float64)
    for j, p in enumerate(ps):
        w = np.where(k == 1, 1.0, np.where(rank == 0, p, 1.0 - p))
        many = k > 2
        if many.any():
            q = (1.0 - p) / p
            power = q ** rank[many].astype(np.float64)
            norm = np.bincount(ann[many], weights=power, minlength=sets.n_annotations)
            w[many] = power / norm[ann[many]]
        out[j] = w
    return out


@dataclass(frozen=True)
class PairSums:
    """Sums of every annotator pair (P pairs, W values of p, E annotation pairs)."""

    raters: np.ndarray  # (P, 2) rater codes, first < second
    n: np.ndarray  # (P,) shared items
    p_a: np.ndarray  # (W, P)
    p_e: np.ndarray  # (W, P)
    freq: np.ndarray  # (W, P, 2, K): Freq of the pair's first and second rater
    kappa: np.ndarray  # (W, P), NaN where p(E) = 1
    entry: np.ndarray  # (W, E) agreement of each annotation pair
    entry_pair: np.ndarray  # (E,) pair of each annotation pair
    entry_item: np.ndarray  # (E,) item of each annotation pair


def summed_pairs(sets: LabelSets, ps: Sequence[float]) -> PairSums:
    weights = label_weights(sets, ps)
    first, second, of_item = annotation_pairs(sets.item, sets.rater, len(sets.items))
    n_rater = max(len(sets.raters), 1)
    key = sets.rater[first] * n_rater + sets.rater[second]
    uniq, pair_of = np.unique(key, return_inverse=True)
    pair_of = np.asarray(pair_of, dtype=np.int64).reshape(-1)
    n, agree, freq, entry = pair_sums(first, second, pair_of, len(uniq), sets.offsets,
                                      sets.members, weights, max(len(sets.categories), 1))
    p_a = agree / n
    freq = freq / n[None, :, None, None]
    p_e = (freq[:, :, 0, :] * freq[:, :, 1, :]).sum(axis=-1)
    kappa = chance_kappa(p_a, p_e)
    return PairSums(np.column_stack([uniq // n_rater, uniq % n_rater]), n, p_a, p_e, freq,
                     kappa, entry, pair_of, of_item)


def _mean_over_pairs(sums: PairSums, ps: Sequence[float], what: str) -> np.ndarray:
    """kappa' averaged over the defined pairs, per p; warns about what was left out."""
    kappa = sums.kappa
    ok = np.isfinite(kappa)
    n_ok = ok.sum(axis=1)
    mean = np.full(len(ps), np.nan)
    has = n_ok > 0
    mean[has] = np.where(ok, kappa, 0.0).sum(axis=1)[has] / n_ok[has]
    if kappa.shape[1] == 0:
        warn(f"{what} is undefined (NaN): no two annotators annotated the same item.",
             UndefinedWarning)
        return mean
    at = ", ".join(f"p={ps[j]:g}" for j in np.flatnonzero(~has)[:4])
    if not has.all():
        warn(f"{what} is undefined (NaN) at {at}: p(E) = 1 for every annotator pair (each "
             "pair put all its weight on one and the same label on the items it shares).",
             UndefinedWarning)
    partial = has & (n_ok < kappa.shape[1])
    if partial.any():
        n_left = int((~ok[partial]).sum(axis=-1).max())
        warn(f"{what}: {n_left} of {kappa.shape[1]} annotator pair(s) have p(E) = 1 (all "
             "their weight on one and the same label on their shared items), so kappa' is "
             "undefined for them and they are left out of the mean over pairs; pairs=True "
             "shows each pair.",
             DroppedDataWarning)
    return mean


def _pair_table(sums: PairSums, sets: LabelSets, ps: Sequence[float],
                what: str) -> pd.DataFrame:
    n_pair = len(sums.n)
    index = pd.MultiIndex.from_arrays(
        [np.repeat(np.asarray(ps, dtype=float), n_pair),
         np.tile(sets.raters[sums.raters[:, 0]], len(ps)),
         np.tile(sets.raters[sums.raters[:, 1]], len(ps))],
        names=["p", "rater", "rater_other"])
    out = pd.DataFrame({
        "n_items": np.tile(sums.n, len(ps)),
        "p_a": sums.p_a.reshape(-1), "p_e": sums.p_e.reshape(-1),
        "kappa": sums.kappa.reshape(-1),
    }, index=index)
    bad = ~np.isfinite(sums.kappa)
    if n_pair == 0:
        warn(f"{what}: no two annotators annotated the same item; the table is empty.",
             UndefinedWarning)
    elif bad.any():
        named = [f"{sets.raters[sums.raters[q, 0]]!s} x {sets.raters[sums.raters[q, 1]]!s} "
                 f"(p={ps[j]:g})" for j, q in np.argwhere(bad)[:3]]
        more = f" and {int(bad.sum()) - 3} more" if bad.sum() > 3 else ""
        warn(f"{what} is undefined (NaN) for {', '.join(named)}{more}: p(E) = 1 (both "
             "annotators put all their weight on one and the same label on their shared "
             "items).",
             UndefinedWarning)
    out.attrs.update(metric="augmented_kappa", citation=CITATION)
    return out


@per_call
def augmented_kappa(
    data: Any, p: float, *, rank: Hashable | None = None, layout: str = "auto",
    pairs: bool = False, **roles: Any,
) -> float | pd.DataFrame:
    """Rosenberg & Binkowski's (2004) augmented kappa kappa' at primary weight ``p``.

    Each annotation is one label (weight 1) or a primary and a secondary label
    (weights ``p`` and ``1 - p``); with ``M`` the items x categories weight
    matrix of an annotator, ``p(A) = sum(M_A * M_B) / N``, ``Freq = column
    sums / N``, ``p(E) = sum_y Freq_A[y] Freq_B[y]`` and
    ``kappa' = (p(A) - p(E)) / (1 - p(E))``, over the N items both annotated.

    With more than two annotators the result is the **mean of the pairwise
    kappa'** over the annotator pairs that share at least one item (each pair
    with its own N, Freq and p(E), each pair weighing the same); pairs whose
    p(E) = 1 are left out of the mean (with a
    :class:`~xrr_accessor.errors.DroppedDataWarning`). An annotation with
    k > 2 ranked labels gets geometric rank weights ``q^r / sum_j q^j``,
    ``q = (1 - p) / p``, which is (p, 1 - p) for k = 2, the primary only at
    p = 1 and equal weights at p = 0.5. Unordered label sets of two or more
    labels are refused (no primary). With one label per annotation kappa' is
    Cohen's kappa (the mean of pairwise Cohen's kappas, i.e. Light's kappa,
    for more than two annotators), whatever ``p``. See
    :mod:`xrr_accessor.multilabel.augmented` for why.

    Parameters
    ----------
    data : DataFrame
        Set-valued annotations, read by :func:`~xrr_accessor.schema.readsets.read_sets`:
        one row per (item, rater) with a list or tuple of labels (primary
        first), or one row per (item, rater, label) with a ``rank`` column
        (1 = primary). Single labels (a column of scalars) are fine.
    p : float
        Weight of the primary label, 0.5 <= p <= 1.
    rank : column name, optional
        The rank column of a long frame (found by name ``rank`` otherwise).
    layout : {"auto", "sets", "long"}
        See :func:`~xrr_accessor.schema.readsets.read_sets`.
    pairs : bool
        Return the per-pair table (index ``p``, ``rater``, ``rater_other``;
        columns ``n_items``, ``p_a``, ``p_e``, ``kappa``) instead of the mean.
    **roles
        ``item=``, ``rater=`` and ``value=`` (the column of labels; also
        ``labels=``), found by name when not given.

    Returns
    -------
    float or DataFrame
        kappa' (the mean over annotator pairs); NaN with an
        :class:`~xrr_accessor.errors.UndefinedWarning` when no pair shares an
        item or every pair has p(E) = 1.

    Raises
    ------
    InputError
        ``p`` outside [0.5, 1], or bad label sets (see ``read_sets``).

    Examples
    --------
    Annotator A of the paper's Table 1 and an annotator B who agrees on the
    primary labels but not always on the secondary:

    >>> import pandas as pd
    >>> a = [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]
    >>> b = [["a"], ["b", "c"], ["b"], ["c"], ["c", "a"]]
    >>> df = pd.DataFrame({"item": list(range(5)) * 2, "rater": ["A"] * 5 + ["B"] * 5,
    ...                    "labels": a + b})
    >>> round(augmented_kappa(df, p=1.0), 4)
    1.0
    >>> round(augmented_kappa(df, p=0.6), 4)
    0.4928
    """
    what = "augmented kappa"
    p = check_p(p)
    sets = sets_of(data, rank, layout, roles, what)
    sums = summed_pairs(sets, [p])
    if pairs:
        return _pair_table(sums, sets, [p], what).droplevel("p")
    return float(_mean_over_pairs(sums, [p], what)[0])


@per_call
def augmented_sweep(
    data: Any, ps: Sequence[float] = DEFAULT_PS, *, rank: Hashable | None = None,
    layout: str = "auto", pairs: bool = False, **roles: Any,
) -> pd.DataFrame:
    """Augmented kappa over a range of primary weights p (the paper's Section 5).

    The annotations are read once and the sums for every p come from one pass.

    Parameters
    ----------
    data, rank, layout, **roles
        As in :func:`augmented_kappa`.
    ps : sequence of float
        The values of p, each in [0.5, 1] (default 0.5, 0.6, ..., 1.0).
    pairs : bool
        Return one row per (p, rater, rater_other) with ``n_items``, ``p_a``,
        ``p_e`` and ``kappa`` instead.

    Returns
    -------
    DataFrame
        Indexed by ``p``: ``kappa`` (mean of pairwise kappa' over the defined
        pairs), ``n_pairs`` (pairs averaged) and ``n_pairs_undefined``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["A", "B"] * 4,
    ...                    "labels": [["q", "a"], ["a", "q"], ["q"], ["q"],
    ...                               ["s"], ["s", "q"], ["a"], ["a"]]})
    >>> augmented_sweep(df, ps=[0.5, 1.0])["kappa"].round(4)
    p
    0.5    0.6098
    1.0    0.6364
    Name: kappa, dtype: float64
    """
    what = "augmented kappa"
    if isinstance(ps, str) or not isinstance(ps, Sequence | np.ndarray | pd.Index):
        ps = [ps]
    if len(ps) == 0:
        raise InputError("ps= is empty; give the values of p to sweep, e.g. "
                         "ps=[0.5, 0.6, 0.7, 0.8, 0.9, 1.0].")
    values = [check_p(v, "p") for v in ps]
    sets = sets_of(data, rank, layout, roles, what)
    sums = summed_pairs(sets, values)
    if pairs:
        return _pair_table(sums, sets, values, what)
    mean = _mean_over_pairs(sums, values, what)
    ok = np.isfinite(sums.kappa)
    out = pd.DataFrame({"kappa": mean, "n_pairs": ok.sum(axis=1),
                        "n_pairs_undefined": (~ok).sum(axis=1)},
                       index=pd.Index(values, name="p"))
    out.attrs.update(metric="augmented_kappa", citation=CITATION)
    return out
