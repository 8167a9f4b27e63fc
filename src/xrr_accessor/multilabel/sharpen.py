"""Sharpening (experimental): weight raters by agreement and items by consensus, iterated.

Rosenberg & Binkowski (2004, Section 8, Future Work) propose ranking
annotators by how well they agree with the group (using kappa) and messages
by how well the group agrees on their label (variance or -sum p ln p), using
each ranking to weight the other, "repeating this alternation until the
weights show minimal change". The paper gives no algorithm beyond that
sentence; :func:`sharpen` is our reading of it.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..coefficients.base import chance_kappa
from ..errors import InputError, UndefinedWarning, XRRWarning, per_call, warn
from ..kernels.augmented import consensus, rater_agreement
from ..schema.sets import LabelSets
from .augmented import CITATION, check_p, label_weights, sets_of

__all__ = ["Sharpened", "sharpen"]


@dataclass(frozen=True)
class Sharpened:
    """What :func:`sharpen` found.

    Attributes
    ----------
    raters : DataFrame
        One row per rater: ``weight`` (in [0, 1]), ``kappa`` (agreement with
        the others' weighted consensus, chance-corrected; NaN where
        undefined) and ``n_items`` (items shared with another rater).
    items : DataFrame
        One row per item: ``weight`` (consensus strength in [0, 1]),
        ``consensus`` (the label of largest weighted share, a categorical over
        the labels; missing when no rater of positive weight annotated the
        item), ``share`` (that
        label's weighted share) and ``n_annotations``.
    n_iter : int
        Rater-weight updates made.
    converged : bool
        Whether the weights moved less than ``tol`` before ``max_iter``.
    """

    raters: pd.DataFrame
    items: pd.DataFrame
    n_iter: int
    converged: bool
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def rater_weights(self) -> pd.Series:
        """The weight of each rater (Series indexed by rater)."""
        return self.raters["weight"]

    @property
    def item_weights(self) -> pd.Series:
        """The weight of each item (Series indexed by item)."""
        return self.items["weight"]

    @property
    def consensus(self) -> pd.Series:
        """The consensus label of each item (Series indexed by item)."""
        return self.items["consensus"]

    def __repr__(self) -> str:
        state = "converged" if self.converged else "did not converge"
        return (f"Sharpened({len(self.raters)} raters, {len(self.items)} items, "
                f"{state} after {self.n_iter} iteration(s))")


#: Rater weights below this are rounding noise of a kappa of 0, and count as 0.
ROUNDING = 1e-12

def _shares(mass: np.ndarray, total: np.ndarray) -> np.ndarray:
    return np.divide(mass, total[:, None], out=np.zeros_like(mass),
                     where=total[:, None] > 0)


def _item_weights(shares: np.ndarray, count: np.ndarray, n_cat: int) -> np.ndarray:
    """1 - entropy / ln K of the weighted shares; 0 for items with < 2 weighted raters."""
    if n_cat < 2:
        return (count >= 2).astype(np.float64)
    logs = np.log(shares, out=np.zeros_like(shares), where=shares > 0)
    entropy = -(shares * logs).sum(axis=1)
    return np.where(count >= 2, np.clip(1.0 - entropy / np.log(n_cat), 0.0, 1.0), 0.0)


def _rater_kappa(agree: np.ndarray, seen: np.ndarray, own: np.ndarray,
                 other: np.ndarray) -> np.ndarray:
    """Augmented kappa of each rater against the consensus it was compared with."""
    kappa = np.full(len(agree), np.nan)
    ok = seen > 0
    p_a = agree[ok] / seen[ok]
    p_e = (own[ok] * other[ok]).sum(axis=1) / seen[ok] ** 2
    kappa[ok] = chance_kappa(p_a, p_e)
    return kappa


@per_call
def sharpen(
    data: Any, *, p: float = 1.0, tol: float = 1e-6, max_iter: int = 100,
    rank: Hashable | None = None, layout: str = "auto", **roles: Any,
) -> Sharpened:
    """Weight raters by agreement with the weighted consensus, items by its strength.

    **Experimental.** Rosenberg & Binkowski (2004), Section 8 (Future Work),
    propose this "sharpening" without specifying it; this is our reading:

    1. Start with every rater weight w_r = 1.
    2. Consensus: each item's label shares are the rater-weighted mean of
       its annotations' M rows (one label: 1; primary / secondary: p and
       1 - p, as in :func:`~xrr_accessor.augmented_kappa`). Its consensus
       label is the label of largest share (ties: the first category).
    3. Item weight v_x = 1 - H(shares) / ln K (H the entropy -sum s ln s, K
       the number of categories): 1 when the weighted raters agree, 0 when
       their labels are spread evenly; 0 for an item with fewer than two
       raters of positive weight (no agreement to measure).
    4. Rater weight: rater r's augmented kappa against the weighted
       consensus of the *other* raters (leave-one-out, so a rater does not
       agree with itself), each item counted with weight v_x: p(A) = sum_x
       v_x M_r[x] . s_x^(-r) / sum_x v_x, p(E) from the v-weighted label
       totals of r and of that consensus. w_r = max(kappa_r, 0): raters who
       agree no better than chance get weight 0; an undefined kappa (no
       shared item, or p(E) = 1) also gives 0, and so does a kappa below
       ``ROUNDING`` (1e-12), the rounding noise of a kappa of exactly 0: the
       consensus is unchanged by scaling every weight, so noise alone would
       otherwise count as a full vote.
    5. Repeat 2-4 until no rater weight and no item weight moves by more
       than ``tol`` (converged), or ``max_iter`` updates (a warning).

    Each step is one pass over the annotations (numba), O(N K).

    Parameters
    ----------
    data, rank, layout, **roles
        Set-valued or single-label annotations, as in
        :func:`~xrr_accessor.augmented_kappa`.
    p : float
        Weight of a primary label when a secondary is given (default 1.0:
        primary labels only), in [0.5, 1].
    tol : float
        Largest change of any weight between two iterations that counts as
        converged.
    max_iter : int
        Most iterations.

    Returns
    -------
    Sharpened
        ``raters`` and ``items`` tables (``rater_weights``, ``item_weights``
        and ``consensus`` as Series), ``n_iter`` and ``converged``.

    Examples
    --------
    Three raters who agree and one who does not:

    >>> import pandas as pd
    >>> labels = {"A": "xxyyzxyz", "B": "xxyyzxyz", "C": "xxyyzxyy", "D": "zyxzxzxx"}
    >>> df = pd.DataFrame([(i, r, lab[i]) for r, lab in labels.items() for i in range(8)],
    ...                   columns=["item", "rater", "label"])
    >>> out = sharpen(df)
    >>> out.rater_weights.round(2).tolist()
    [0.96, 0.96, 0.91, 0.0]
    >>> "".join(out.consensus)
    'xxyyzxyz'
    >>> out.converged
    True
    """
    p = check_p(p)
    if isinstance(max_iter, bool) or not isinstance(max_iter, int | np.integer) \
            or max_iter < 1:
        raise InputError(f"max_iter={max_iter!r} must be a positive integer (e.g. 100).")
    if isinstance(tol, bool) or not isinstance(tol, int | float | np.number) \
            or not tol > 0 or not np.isfinite(tol):
        raise InputError(f"tol={tol!r} must be a positive number (e.g. 1e-6): the largest "
                         "change of a weight that counts as converged.")
    sets: LabelSets = sets_of(data, rank, layout, roles, "sharpen")
    weights = label_weights(sets, [p])[0]
    n_item, n_rater = len(sets.items), len(sets.raters)
    n_cat = max(len(sets.categories), 1)
    args = (sets.item, sets.rater, sets.offsets, sets.members, weights)
    w = np.ones(n_rater)
    v = np.zeros(n_item)
    kappa = np.full(n_rater, np.nan)
    seen = np.zeros(n_rater)
    converged = False
    n_iter = 0
    mass, total, count = consensus(*args, w, n_item, n_cat)
    v = _item_weights(_shares(mass, total), count, n_cat)
    while n_iter < max_iter:
        agree, seen, own, other = rater_agreement(*args, w, v, mass, total, n_rater)
        kappa = _rater_kappa(agree, seen, own, other)
        w_new = np.clip(np.nan_to_num(kappa, nan=0.0), 0.0, 1.0)
        w_new[w_new < ROUNDING] = 0.0  # a kappa of 0 up to rounding: no vote
        mass, total, count = consensus(*args, w_new, n_item, n_cat)
        v_new = _item_weights(_shares(mass, total), count, n_cat)
        n_iter += 1
        moved = max(float(np.abs(w_new - w).max(initial=0.0)),
                    float(np.abs(v_new - v).max(initial=0.0)))
        w, v = w_new, v_new
        if moved < tol:
            converged = True
            break
    if not converged:
        warn(f"sharpen did not converge in max_iter={max_iter} iterations (tol={tol:g}); the "
             "weights are those of the last one. Raise max_iter or tol.", XRRWarning)
    if not (w > 0).any():
        warn("sharpen: every rater weight is 0 (no rater agrees with the others beyond "
             "chance), so there is no consensus: item weights are 0 and consensus labels "
             "missing.", UndefinedWarning)
    shares = _shares(mass, total)
    top = shares.argmax(axis=1) if n_item else np.zeros(0, dtype=np.int64)
    has = total > 0
    labels = pd.Categorical.from_codes(np.where(has, top, -1), categories=sets.categories)
    raters = pd.DataFrame({
        "weight": w, "kappa": kappa,
        "n_items": np.rint(np.bincount(sets.rater[_shared(sets)], minlength=n_rater))
        .astype(np.int64),
    }, index=pd.Index(sets.raters, name="rater"))
    items = pd.DataFrame({
        "weight": v, "consensus": labels,
        "share": np.where(has, shares[np.arange(n_item), top] if n_item else 0.0, np.nan),
        "n_annotations": np.bincount(sets.item, minlength=n_item),
    }, index=pd.Index(sets.items, name="item"))
    return Sharpened(raters, items, n_iter, converged,
                     attrs={"p": p, "tol": tol, "max_iter": max_iter,
                            "citation": CITATION + ", Section 8 (our reading)"})


def _shared(sets: LabelSets) -> np.ndarray:
    """Annotations of items that another rater annotated too."""
    per_item = np.bincount(sets.item, minlength=len(sets.items))
    return per_item[sets.item] >= 2
