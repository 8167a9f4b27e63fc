"""Published values of SPEC.md, with their data typed in from the source."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import xrr_accessor  # noqa: F401  (registers .xrr)

import naive

# Seed 004 (blog "Unraveling the Mysteries of Inter-Rater Reliability"): 50
# papers, two reviewers. Both accept 15, both reject 20, A accepts and B
# rejects 11, A rejects and B accepts 4. Exact values from these counts:
# chance 0.4952, kappa 0.405705; after moving 10 both-accept to both-reject:
# chance 0.6152, kappa 0.220374 (SPEC.md section 4).


def paper_reviews(both_accept: int, both_reject: int, a_only: int, b_only: int) -> pd.DataFrame:
    a = ["accept"] * both_accept + ["reject"] * both_reject + ["accept"] * a_only + [
        "reject"] * b_only
    b = ["accept"] * both_accept + ["reject"] * both_reject + ["reject"] * a_only + [
        "accept"] * b_only
    n = len(a)
    return pd.DataFrame({"paper": np.tile(np.arange(n), 2), "reviewer": ["A"] * n + ["B"] * n,
                         "decision": a + b})


@pytest.mark.parametrize(("counts", "kappa"), [((15, 20, 11, 4), 0.405705),
                                                ((5, 30, 11, 4), 0.220374)])
def test_seed004_cohen_kappa(counts, kappa):
    df = paper_reviews(*counts)
    roles = {"item": "paper", "rater": "reviewer"}
    assert df.xrr(**roles).irr(metric="cohen")["decision"] == pytest.approx(kappa, abs=5e-7)
    # iota with b = 2 is Cohen's kappa (Eq 1-5)
    assert df.xrr(**roles).irr(metric="iota")["decision"] == pytest.approx(kappa, abs=5e-7)
    # kappa_x with one annotation per item per replication is Cohen's kappa
    x = df[df.reviewer == "A"]
    y = df[df.reviewer == "B"]
    assert x.xrr(**roles).cross_kappa(y)["decision"] == pytest.approx(kappa, abs=5e-7)
    # and the naive definition agrees
    a, b = x["decision"].tolist(), y["decision"].tolist()
    assert naive.cohen(a, b) == pytest.approx(kappa, abs=5e-7)


def test_seed004_chance_agreement():
    """p_e = 1 - d_e for nominal data: 0.4952 before and 0.6152 after the shift."""
    for counts, chance in [((15, 20, 11, 4), 0.4952), ((5, 30, 11, 4), 0.6152)]:
        df = paper_reviews(*counts)
        kappa = df.xrr(item="paper", rater="reviewer").irr(metric="cohen")["decision"]
        # kappa = (p_o - p_e) / (1 - p_e) with p_o = 0.70
        assert (0.70 - kappa) / (1 - kappa) == pytest.approx(chance, abs=1e-12)


# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section
# C: 4 observers x 12 units, with missing values. Published alphas: nominal
# 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
K2011 = np.array([
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
])
K2011_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}


@pytest.mark.parametrize(("level", "published"), K2011_ALPHA.items())
def test_krippendorff_2011_alphas(level, published):
    wide = pd.DataFrame(K2011.T, columns=["A", "B", "C", "D"])
    assert round(wide.xrr(wide=True).irr(level=level), 3) == published
    da = xr.DataArray(K2011, dims=("rater", "item"))
    assert round(float(da.xrr.irr(level=level)), 3) == published
    units = {u: [v for v in K2011[:, u] if not np.isnan(v)] for u in range(12)}
    assert round(naive.alpha(units, level), 3) == published


def test_krippendorff_2011_unit_with_one_value_is_unpairable():
    """Unit 12 has one value: left out, and counted."""
    wide = pd.DataFrame(K2011.T, columns=["A", "B", "C", "D"])
    da = xr.DataArray(K2011, dims=("rater", "item"))
    out = da.xrr.irr()
    assert int(out["n_unpairable"]) == 1
    assert int(out["n_items"]) == 11
    assert int(out["n_values"]) == 40
    assert wide.xrr(wide=True).irr() == pytest.approx(float(out))


def test_identity_kappa_x_of_exact_copy_and_alpha():
    """SPEC section 3: 1 - kappa_x(X, X) = ((m-1)/m) (M/(M-1)) (1 - alpha_X)."""
    rng = np.random.default_rng(11)
    for m in (2, 3, 5):
        n = 40
        vals = rng.integers(0, 4, size=(n, m))
        x = pd.DataFrame({"item": np.repeat(np.arange(n), m), "rater": np.tile(np.arange(m), n),
                          "v": vals.reshape(-1)})
        alpha = x.xrr.irr()["v"]
        kx = x.xrr.cross_kappa(x.copy())["v"]
        big_m = n * m
        assert 1 - kx == pytest.approx((m - 1) / m * big_m / (big_m - 1) * (1 - alpha), abs=1e-12)


# Gwet, *Handbook of Inter-Rater Reliability* (4th ed., 2014): worked examples, with the
# data as shipped in Gwet's R package irrCAC (datasets cac.raw4raters and cac.ben.gerry).
# cac.raw4raters is Krippendorff's 2011 table with raters as columns, except that unit
# 12's single rating sits with Rater3 (Krippendorff: observer B); only the
# rater-specific Conger's kappa notices. The values
# are irrCAC's for these data (recomputed with its Python port in
# tests/data/irrcac_reference.json, which the peer tests check to 1e-9); here, typed in
# at the 5 decimals the package prints.
RAW4RATERS = [  # units x Rater1..Rater4, typed from irrCAC's cac.raw4raters
    [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2],
    [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5],
    [None, None, 1, 1], [None, None, 3, None],
]
GWET_RAW4RATERS = {  # (estimate, standard error)
    ("gwet", "unweighted"): (0.77544, 0.14295),   # AC1
    ("gwet", "quadratic"): (0.91400, 0.10396),    # AC2
    ("gwet", "linear"): (0.85874, 0.11733),
    ("fleiss", "unweighted"): (0.76117, 0.15302),
    ("conger", "unweighted"): (0.76282, 0.14917),
    ("bp", "unweighted"): (0.77273, 0.14472),
}
BEN_GERRY = [("a", "b"), ("a", "a"), ("b", "b"), ("b", "b"), ("d", "b"), ("c", "c"),
             ("c", "c"), ("c", "c"), ("e", "e"), ("d", None), ("d", "d"), ("a", "d")]
GWET_BEN_GERRY = {"gwet": (0.66144, 0.18396), "fleiss": (0.64935, 0.19130),
                  "conger": (0.65714, 0.17943), "bp": (0.65909, 0.18527)}


@pytest.mark.parametrize(("key", "published"), GWET_RAW4RATERS.items())
def test_gwet_handbook_raw4raters(key, published):
    metric, weights = key
    wide = pd.DataFrame(RAW4RATERS, columns=["Rater1", "Rater2", "Rater3", "Rater4"],
                        dtype=float)
    out = wide.xrr(wide=True).irr(metric=metric, weights=weights, ci=0.95)
    assert round(out["estimate"], 5) == published[0]
    assert round(out["se"], 5) == published[1]


@pytest.mark.parametrize(("metric", "published"), GWET_BEN_GERRY.items())
def test_gwet_handbook_ben_gerry(metric, published):
    wide = pd.DataFrame(BEN_GERRY, columns=["Ben", "Gerry"])
    out = wide.xrr(wide=True).irr(metric=metric, ci=0.95)
    assert round(out["estimate"], 5) == published[0]
    assert round(out["se"], 5) == published[1]


def test_raw4raters_is_krippendorff_2011_but_for_one_rater():
    """Only the rater of unit 12's single rating differs; rater-free coefficients agree."""
    gwet = pd.DataFrame(RAW4RATERS, dtype=float).xrr(wide=True)
    kripp = pd.DataFrame(K2011.T).xrr(wide=True)
    for metric in ("alpha", "fleiss", "gwet", "bp"):
        assert gwet.irr(metric=metric) == pytest.approx(kripp.irr(metric=metric), abs=1e-12)
    assert abs(gwet.irr(metric="conger") - kripp.irr(metric="conger")) > 1e-4
