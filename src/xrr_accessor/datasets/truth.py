"""The known truth: population reliabilities of the simulator's model, in closed form.

:func:`true_reliability` gives, for label specifications (or a frame made by
:func:`~xrr_accessor.datasets.simulate_replications`), the values that alpha,
kappa_x and normalized kappa_x estimates converge to as the number of items
grows, in a :class:`Reliability` shaped like the library's estimates.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError
from .irep import IREP_POOLS
from .spec import ATTRS_KEY, LabelSpec, Params, resolve_labels, resolve_pools

__all__ = ["Reliability", "true_reliability"]


@dataclass(frozen=True)
class Reliability:
    """Population reliabilities, shaped like the library's estimates.

    Attributes
    ----------
    prevalence : DataFrame
        ``pi_X = E[p_X]``, index ``label``, columns ``replication``.
    alpha : DataFrame
        Krippendorff's alpha (nominal) of each pool; like ``xrr_accessor.irr(df)``.
    kappa_x : DataFrame
        Columns (``replication``, ``replication_other``); like
        ``xrr_accessor.cross_kappa(df)``.
    normalized : DataFrame
        ``kappa_x / sqrt(alpha_X alpha_Y)``; like ``xrr_accessor.normalized(df)``.
    correlation : DataFrame
        ``corr(p_X, p_Y)``: the correlation of the pools' true item means, i.e.
        what Spearman's correction for attenuation estimates.
    """

    prevalence: pd.DataFrame
    alpha: pd.DataFrame
    kappa_x: pd.DataFrame
    normalized: pd.DataFrame
    correlation: pd.DataFrame


def true_reliability(
    spec: Any = None,
    pools: Sequence[str] | None = None,
    *,
    preset: str | None = None,
) -> Reliability:
    """Population (infinitely many items) alpha, kappa_x and normalized kappa_x.

    Derivation. Let ``p_X(i)`` be the chance that a pool-X rater says 1 on
    item i, raters independent given the item. A pair of distinct annotations of
    one item disagrees with chance ``2 p_X (1 - p_X)``; a pair from two random
    items with chance ``2 pi_X (1 - pi_X)``, ``pi_X = E[p_X]``. As the number of
    items grows, alpha tends to ``1 - E[2 p_X (1 - p_X)] / (2 pi_X (1 - pi_X))``,
    and with ``E[p_X^2] = V_X + pi_X^2`` (``V_X = Var p_X``)::

        alpha_X = V_X / (pi_X (1 - pi_X))

    (the intraclass correlation of the ratings). Across pools, the observed
    disagreement is ``E[p_X (1 - p_Y) + p_Y (1 - p_X)] = pi_X + pi_Y - 2 E[p_X
    p_Y]`` and the expected one ``pi_X (1 - pi_Y) + pi_Y (1 - pi_X)``, so with
    ``C_XY = Cov(p_X, p_Y)``::

        kappa_x(X, Y) = 2 C_XY / (pi_X (1 - pi_Y) + pi_Y (1 - pi_X))

    Hence ``normalized = corr(p_X, p_Y) * 2 sqrt(pi_X (1 - pi_X) pi_Y (1 - pi_Y))
    / (pi_X (1 - pi_Y) + pi_Y (1 - pi_X))``: the true correlation of the item
    means (the paper's rho_xy, Section 3.4) times a factor <= 1 (by AM-GM) that
    is 1 exactly when the marginals agree. With exchangeable rater slots,
    Cohen's kappa, Scott's pi and Fleiss' kappa have the same limit as alpha.

    The moments of the :class:`LabelSpec` model, with ``sigma^2 = mu (1 - mu) /
    (k + 1)`` the variance of Beta(mu k, (1 - mu) k), ``h`` shift, ``e`` noise
    and ``g`` guess: ``q_X`` (the pool's propensity before noise) is shared with
    chance ``1 - h_X``, so ``Var q_X = sigma^2`` and ``Cov(q_X, q_Y) = (1 - h_X)
    (1 - h_Y) sigma^2`` (only when both pools use the shared draw are they
    correlated); ``p_X = (1 - e_X) q_X + e_X g_X``, so ``pi_X = (1 - e_X) mu +
    e_X g_X``, ``V_X = (1 - e_X)^2 sigma^2``, ``C_XY = (1 - e_X)(1 - e_Y)(1 -
    h_X)(1 - h_Y) sigma^2`` and ``corr(p_X, p_Y) = (1 - h_X)(1 - h_Y)``. All in
    closed form: no integration is needed, since the coefficients depend on the
    first two moments of the propensities only.

    Parameters
    ----------
    spec : mapping, sequence, str, DataFrame or None
        Label name -> :class:`LabelSpec` (or preset name), a list of preset
        names, one preset name, or a frame made by :func:`simulate_replications`
        (its ``attrs`` hold the parameters). Default: every preset.
    pools : sequence of str, optional
        The pools; by default the frame's, else IRep's three.
    preset : str, optional
        A single preset (instead of ``spec``).

    Returns
    -------
    Reliability
        Frames ``prevalence``, ``alpha``, ``kappa_x``, ``normalized`` and
        ``correlation``, labeled like the library's estimates.

    Examples
    --------
    >>> truth = true_reliability(preset="awe", pools=["MC", "Bud"])
    >>> truth.alpha.round(4)  # pools in the library's order (by name)
    replication     Bud      MC
    label
    awe          0.1191  0.1191
    >>> float(truth.kappa_x.iloc[0, 0].round(4)), float(truth.normalized.iloc[0, 0].round(4))
    (0.0819, 0.6872)
    """
    if isinstance(spec, pd.DataFrame):
        if preset is not None:
            raise InputError("give a simulated frame or preset=, not both.")
        params = spec.attrs.get(ATTRS_KEY)
        if not isinstance(params, Mapping):
            raise InputError(
                "this frame carries no simulation parameters (attrs['xrr_simulation']); "
                "pass the label specifications and pools instead."
            )
        specs = {name: LabelSpec(**kw) for name, kw in params["labels"].items()}
        pool_names = resolve_pools(params["pools"] if pools is None else pools)
    else:
        specs = resolve_labels(spec, preset)
        pool_names = resolve_pools(IREP_POOLS if pools is None else pools)
    par = Params.build(specs, pool_names)
    sigma2 = (par.mu * (1 - par.mu) / (par.kappa + 1))[:, None]  # (L, 1)
    keep = 1 - par.noise
    pi = keep * par.mu[:, None] + par.noise * par.guess
    # pi in (0, 1) and keep > 0 by validation, so nothing below divides by zero
    alpha = keep**2 * sigma2 / (pi * (1 - pi))
    # the library orders replications by name: so do the pools here (after Params
    # matched per-pool values to the pools in the order given)
    perm = sorted(range(len(pool_names)), key=lambda i: pool_names[i])
    pool_names = [pool_names[i] for i in perm]
    pi, alpha, keep, shift = pi[:, perm], alpha[:, perm], keep[:, perm], par.shift[:, perm]
    n_pool = len(pool_names)
    first, second = np.triu_indices(n_pool, k=1)
    corr = (1 - shift[:, first]) * (1 - shift[:, second])
    cov = keep[:, first] * keep[:, second] * corr * sigma2
    pa, pb = pi[:, first], pi[:, second]
    kappa_x = 2 * cov / (pa * (1 - pb) + pb * (1 - pa))
    normalized = kappa_x / np.sqrt(alpha[:, first] * alpha[:, second])

    index = pd.Index(par.labels, name="label")
    reps = pd.Index(pool_names, name="replication")
    pairs = pd.MultiIndex.from_arrays(
        [reps[first], reps[second]], names=["replication", "replication_other"]
    )

    def frame(values: np.ndarray, columns: pd.Index) -> pd.DataFrame:
        return pd.DataFrame(values, index=index.copy(), columns=columns.copy())

    return Reliability(
        prevalence=frame(pi, reps), alpha=frame(alpha, reps),
        kappa_x=frame(kappa_x, pairs), normalized=frame(normalized, pairs),
        correlation=frame(corr, pairs),
    )
