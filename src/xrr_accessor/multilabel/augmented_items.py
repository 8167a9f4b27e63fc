"""Rosenberg & Binkowski's per-item view of augmented kappa: which items gain or lose
agreement as the secondary label's weight p changes (:func:`augmented_items`), and
each annotation's label weights (:func:`augmented_matrix`). The pair sums come from
:mod:`.augmented`."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients.base import chance_defined, chance_kappa
from ..errors import InputError, UndefinedWarning, per_call, warn
from .augmented import CITATION, check_p, label_weights, sets_of, summed_pairs

__all__ = ["ITEM_CLASSES", "augmented_items", "augmented_matrix"]

#: The four classes of items of the paper's Section 6, in its order (1-4).
ITEM_CLASSES = ("constant high", "constant low", "better at p=1.0", "better at p=0.5")


@per_call
def augmented_items(
    data: Any, *, tol: float = 0.05, high: float = 0.6, rank: Hashable | None = None,
    layout: str = "auto", **roles: Any,
) -> pd.DataFrame:
    """Per-item agreement at p = 1.0 and p = 0.5 and the four item classes (Section 6).

    For each item and each pair of annotators who both annotated it, the
    item's agreement is ``sum_y M_A[x, y] M_B[x, y]`` (its row of the
    paper's Ag matrix) and its kappa' is ``(Ag[x] - p(E)) / (1 - p(E))`` with
    the pair's p(E); both are averaged over the item's annotator pairs (pairs
    with p(E) = 1 are left out of the kappa). Over the items of one pair the
    mean of the per-item kappa' is the pair's kappa'.

    Classes (the paper describes them but gives no thresholds; these are
    ours): let ``d = agreement at p=1.0 - agreement at p=0.5``.

    * ``"better at p=1.0"`` if d > ``tol``: agreement on the primary labels,
      inconsistent secondary labels (e.g. {ab, ac}, {ab, a}; also {ab, ab},
      whose agreement is 1 at p = 1 but p^2 + (1 - p)^2 = 0.5 at p = 0.5:
      the measure, like the paper's, rewards one shared single label most);
    * ``"better at p=0.5"`` if d < -``tol``: primary and secondary swapped
      (e.g. {ab, ba}, {ab, b});
    * otherwise nearly constant: ``"constant high"`` if the mean of the kappa'
      at the two p is at least ``high``, else ``"constant low"``.

    The change is read on the agreement scale, which moves only through the
    item's own secondary labels (a single-label item's agreement is the same
    at both p), not on the kappa scale, where p(E) shifts with p for every
    item. For two annotators with at most two labels the agreement of an
    item moves by 0 or at least 0.25 between p = 1 and p = 0.5, so the
    default ``tol = 0.05`` only absorbs the dilution of one pair's change
    among many pairs. ``high = 0.6`` is the paper's line for a usable label
    ("kappa' > 0.6").

    Parameters
    ----------
    data, rank, layout, **roles
        As in :func:`augmented_kappa`.
    tol : float
        How much the agreement must move between p = 1.0 and p = 0.5 for an
        item not to be "constant".
    high : float
        The kappa' from which a constant item is "constant high".

    Returns
    -------
    DataFrame
        One row per item annotated by at least two annotators (in order of
        first appearance): ``n_pairs``, ``agreement_1.0``, ``agreement_0.5``,
        ``kappa_1.0``, ``kappa_0.5`` and ``class`` (a categorical with the
        four classes in the paper's order). Items annotated once are left out
        and counted in ``attrs["n_items_unpaired"]``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["A", "B"] * 4,
    ...                    "labels": [["q", "a"], ["a", "q"], ["q", "s"], ["q"],
    ...                               ["s"], ["s"], ["a"], ["q"]]})
    >>> augmented_items(df)["class"].tolist()
    ['better at p=0.5', 'better at p=1.0', 'constant high', 'constant low']
    """
    what = "augmented kappa per item"
    for name, val in (("tol", tol), ("high", high)):
        if isinstance(val, bool) or not isinstance(val, int | float | np.number) \
                or not np.isfinite(val):
            raise InputError(f"{name}={val!r} is not a finite number; see the docstring of "
                             "augmented_items for what it sets.")
    if tol < 0:
        raise InputError(f"tol={tol!r} is negative; it is how much agreement must move "
                         "between p=1.0 and p=0.5, e.g. tol=0.05.")
    ps = [1.0, 0.5]
    sets = sets_of(data, rank, layout, roles, what)
    sums = summed_pairs(sets, ps)
    n_item = len(sets.items)
    counts = np.bincount(sums.entry_item, minlength=n_item)
    paired = counts > 0
    cols: dict[str, Any] = {"n_pairs": counts}
    for j, p in enumerate(ps):
        agree = np.bincount(sums.entry_item, weights=sums.entry[j], minlength=n_item)
        p_e = sums.p_e[j][sums.entry_pair]
        ok = chance_defined(p_e)
        k_entry = np.where(ok, chance_kappa(sums.entry[j], p_e), 0.0)
        k_sum = np.bincount(sums.entry_item, weights=k_entry, minlength=n_item)
        k_n = np.bincount(sums.entry_item, weights=ok.astype(float), minlength=n_item)
        cols[f"agreement_{p:.1f}"] = np.divide(agree, counts, out=np.full(n_item, np.nan),
                                               where=paired)
        cols[f"kappa_{p:.1f}"] = np.divide(k_sum, k_n, out=np.full(n_item, np.nan),
                                           where=k_n > 0)
    diff = cols["agreement_1.0"] - cols["agreement_0.5"]
    level = (cols["kappa_1.0"] + cols["kappa_0.5"]) / 2
    code = np.where(diff > tol, 2, np.where(diff < -tol, 3, np.where(level >= high, 0, 1)))
    code = np.where(np.isnan(level) & (np.abs(diff) <= tol), -1, code)
    cols["class"] = pd.Categorical.from_codes(code, categories=list(ITEM_CLASSES))
    out = pd.DataFrame(cols, index=pd.Index(sets.items, name="item"))[paired]
    n_undefined = int((code[paired] < 0).sum())
    if n_undefined:
        warn(f"{what}: the class of {n_undefined} item(s) is missing: every annotator pair "
             "on them has p(E) = 1, so their kappa' is undefined.", UndefinedWarning)
    out.attrs.update(metric="augmented_kappa", citation=CITATION, tol=tol, high=high,
                     n_items_unpaired=int((~paired).sum()))
    return out


@per_call
def augmented_matrix(
    data: Any, p: float, *, rank: Hashable | None = None, layout: str = "auto",
    **roles: Any,
) -> pd.DataFrame:
    """The annotation matrices M of every annotator (the paper's Table 2).

    Parameters
    ----------
    data, p, rank, layout, **roles
        As in :func:`augmented_kappa`.

    Returns
    -------
    DataFrame
        Index (``rater``, ``item``), one row per annotation; one column per
        category holding the label weights (1, p, 1 - p, or the geometric
        rank weights of longer annotations). Column sums over one rater's
        rows divided by its number of items are its Freq (Table 3).

    Examples
    --------
    Table 2 of the paper (p = 0.6):

    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 2, 3, 4, 5], "rater": "A",
    ...                    "labels": [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]})
    >>> m = augmented_matrix(df, p=0.6).loc["A"]
    >>> m
    labels    a    b    c
    item
    1       0.6  0.4  0.0
    2       0.4  0.6  0.0
    3       0.0  1.0  0.0
    4       0.0  0.0  1.0
    5       0.0  0.4  0.6
    >>> (m.sum() / len(m)).tolist()  # Table 3
    [0.2, 0.48, 0.32]
    """
    p = check_p(p)
    sets = sets_of(data, rank, layout, roles, "augmented_matrix")
    weights = label_weights(sets, [p])[0]
    dense = np.zeros((sets.n_annotations, len(sets.categories)), dtype=np.float64)
    dense[sets.annotation_of_member, sets.members] = weights
    index = pd.MultiIndex.from_arrays([sets.raters[sets.rater], sets.items[sets.item]],
                                      names=["rater", "item"])
    columns = pd.Index(sets.categories,
                       name=sets.column if sets.column is not None else "category")
    out = pd.DataFrame(dense, index=index, columns=columns)
    out.attrs.update(p=p, citation=CITATION)
    return out
