"""One undefined rule (coefficients.base.defined) behind every family: the registry's
coefficients (the alpha/kappa_x family and the chance family), the rater diagnostics,
intra-rater kappa_x, Spearman's disattenuated correlation and the multi-label kappas
(augmented kappa, sharpen) all decide "undefined"
through it, so moving its one threshold moves them all.

With ROUNDING set to 1, no expected disagreement that is a difference of sums (or
1 - p_e of proportions) is large enough: every such value turns NaN, in every family.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.coefficients import base
from xrr_accessor.datasets import simulate


def _quiet(fn: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()  # type: ignore[operator]


def _values(out: object) -> np.ndarray:
    if isinstance(out, pd.DataFrame):
        return out.select_dtypes("number").to_numpy(float)
    if hasattr(out, "raters"):  # sharpen
        return out.raters["kappa"].to_numpy(float)  # type: ignore[attr-defined]
    return np.atleast_1d(np.asarray(out, dtype=float))


def _calls() -> dict[str, object]:
    df = simulate(n_items=300, labels=["joy"], pools=["A", "B"], seed=2)
    rng = np.random.default_rng(0)
    rows = [(i, r, [str(v) for v in rng.choice(list("abc"), size=int(rng.integers(1, 3)),
                                                 replace=False)])
            for i in range(40) for r in ("p", "q", "s")]
    sets = pd.DataFrame(rows, columns=["item", "rater", "labels"])
    crowd = df.assign(rater=df["rater"] + df["pool"]).drop(columns="pool")
    return {
        "kappa_x interval": lambda: xrr.cross_kappa(df, level="interval"),
        "alpha interval": lambda: xrr.irr(df, level="interval"),
        "rater_agreement interval": lambda: xrr.rater_agreement(
            crowd, level="interval")[["kappa_x", "alpha"]],
        "disattenuated_correlation": lambda: xrr.disattenuated_correlation(
            df, n_splits=5)[["rho"]],
        "fleiss": lambda: xrr.irr(df, metric="fleiss"),
        "gwet quadratic": lambda: xrr.irr(df, metric="gwet", weights="quadratic"),
        "intra interval": lambda: xrr.intra(df, session="pool", level="interval").kappa[
            ["kappa_x"]],
        "augmented_kappa": lambda: xrr.augmented_kappa(sets, p=0.8),
        "sharpen": lambda: xrr.sharpen(sets),
    }


@pytest.mark.parametrize("name", list(_calls()))
def test_every_family_reads_the_one_rule(name: str, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    call = _calls()[name]
    before = _values(_quiet(call))
    assert np.isfinite(before).any(), name  # defined under the package's threshold
    monkeypatch.setattr(base, "ROUNDING", 1.0)
    after = _values(_quiet(call))
    assert not np.isfinite(after).any(), (name, after)


def test_flat_numbers_are_undefined_alike_in_the_registry_and_the_diagnostics() -> None:
    """Every value 0.1 (not exact in binary): the sums of squares leave rounding, not
    disagreement. kappa_x and alpha of the registry and the rater diagnostics all say
    undefined, rather than a number made of rounding."""
    rows = [(i, r, p, 0.1 * 3) for i in range(30) for r in ("a", "b", "c") for p in "AB"]
    df = pd.DataFrame(rows, columns=["item", "rater", "pool", "score"])
    with pytest.warns(xrr.errors.UndefinedWarning):
        kx = xrr.cross_kappa(df, level="interval")
    with pytest.warns(xrr.errors.UndefinedWarning):
        alpha = xrr.irr(df, level="interval")
    with pytest.warns(xrr.errors.UndefinedWarning):
        raters = xrr.rater_agreement(df, level="interval")
    assert np.isnan(_values(kx)).all() and np.isnan(_values(alpha)).all()
    assert raters[["kappa_x", "alpha"]].isna().all().all()
