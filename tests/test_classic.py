"""The chance-corrected family (issue 3): naive formulas, published values, peers."""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nltk.metrics.agreement import AnnotationTask
from statsmodels.stats.inter_rater import fleiss_kappa

import xrr_accessor as xa
from xrr_accessor.errors import InputError, LevelError

import naive
from helpers import assert_close_or_both_nan, quietly

DATA = Path(__file__).parent / "data"
METRICS = ["percent", "scott", "fleiss", "conger", "bp", "gwet", "light"]


# ----------------------------------------------------------------- naive formulas
# tests/naive.py: chance_corrected(rows, metric, kind), from Gwet (2014), ch. 2-5.


@st.composite
def rating_tables(draw):
    n = draw(st.integers(1, 25))
    b = draw(st.integers(2, 5))
    q = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vals = rng.choice([1.0, 2.0, 4.0, 5.0][:q], size=(n, b))
    agree = rng.random(n) < draw(st.floats(0, 1))
    vals[agree] = vals[agree, :1]
    vals[rng.random(vals.shape) < draw(st.sampled_from([0.0, 0.2, 0.5]))] = np.nan
    return vals


@pytest.mark.parametrize("metric", METRICS)
@given(vals=rating_tables(), kind=st.sampled_from(["unweighted", "linear", "quadratic"]))
def test_equals_naive_formula(vals, metric, kind):
    rows = [[None if np.isnan(v) else float(v) for v in row] for row in vals]
    cats = {v for row in rows for v in row if v is not None}
    if kind != "unweighted" and len(cats) < 2:
        kind = "unweighted"
    want = naive.chance_corrected(rows, metric, kind)
    got, _ = quietly(lambda: pd.DataFrame(vals).xrr(wide=True).irr(metric=metric,
                                                                    weights=kind))
    assert_close_or_both_nan(got, want)


# --------------------------------------------------------------- published values


def reviews(both_accept, both_reject, a_only, b_only):
    a = ["acc"] * both_accept + ["rej"] * both_reject + ["acc"] * a_only + ["rej"] * b_only
    b = ["acc"] * both_accept + ["rej"] * both_reject + ["rej"] * a_only + ["acc"] * b_only
    return pd.DataFrame({"A": a, "B": b}).xrr(wide=True)


def test_seed004_percent_bp_and_ac1_resist_the_paradox():
    """Seed 004: percent 0.70 in both tables; kappa falls 0.405705 -> 0.220374
    while Brennan-Prediger stays at 0.4 and Gwet's AC1 rises (0.4059 -> 0.52)."""
    before, after = reviews(15, 20, 11, 4), reviews(5, 30, 11, 4)
    for acc in (before, after):
        assert acc.irr(metric="percent") == pytest.approx(0.70, abs=1e-12)
        assert acc.irr(metric="bp") == pytest.approx(0.40, abs=1e-12)
    assert before.irr(metric="cohen") == pytest.approx(0.405705, abs=5e-7)
    assert after.irr(metric="cohen") == pytest.approx(0.220374, abs=5e-7)
    # AC1 chance = 2 pi (1 - pi): pi(accept) = 45/100 before, 25/100 after
    assert before.irr(metric="gwet") == pytest.approx((0.7 - 0.495) / 0.505, abs=1e-12)
    assert after.irr(metric="gwet") == pytest.approx((0.7 - 0.375) / 0.625, abs=1e-12)
    assert after.irr(metric="gwet") > after.irr(metric="cohen") + 0.25


def test_fleiss_1971():
    """Fleiss (1971): 30 patients x 6 psychiatrists x 5 diagnoses, kappa 0.430."""
    df = pd.read_csv(DATA / "fleiss1971_diagnoses.csv")
    assert round(df.xrr.irr(metric="fleiss"), 3) == 0.430
    table = pd.crosstab(df["item"], df["value"]).to_numpy()
    assert df.xrr.irr(metric="fleiss") == pytest.approx(fleiss_kappa(table), abs=1e-12)


# -------------------------------------------------------------------------- peers

IRRCAC = json.loads((DATA / "irrcac_reference.json").read_text())
CASES = [(name, weights) for name, entry in IRRCAC["tables"].items()
         for weights in entry["results"]]
OURS = {"fleiss": "fleiss", "gwet": "gwet", "bp": "bp", "conger": "conger"}


def _has_blank_cells(ratings: pd.DataFrame) -> bool:
    return bool(ratings.apply(lambda c: c.astype(str).str.strip().eq("") & c.notna())
                .to_numpy().any())


@pytest.mark.parametrize(("name", "weights"), CASES)
def test_irrcac_fixture_values(name, weights):
    """irrCAC 0.4.4 values (tests/fixtures/make_irrcac.py), to 1e-9.

    Documented difference: irrCAC keeps whitespace-only cells as categories
    (Gwet's g1g2 file marks missing ratings with "  "); we read them as
    missing. On such a table the values differ, and on the same table with
    blanks as missing they agree.
    """
    entry = IRRCAC["tables"][name]
    ratings = pd.DataFrame(entry["ratings"]["data"], columns=entry["ratings"]["columns"])
    acc = ratings.xrr(wide=True)
    w = "unweighted" if weights == "identity" else weights
    blanks = _has_blank_cells(ratings)
    for method, ours in OURS.items():
        want = entry["results"][weights][method]["coefficient_value"]
        got, _ = quietly(lambda ours=ours: acc.irr(metric=ours, weights=w))
        if blanks:
            assert abs(got - want) > 1e-3, method
            cleaned = IRRCAC["tables"][f"{name}:blanks-as-missing"]["results"][weights]
            assert got == pytest.approx(cleaned[method]["coefficient_value"], abs=1e-9)
        else:
            assert got == pytest.approx(want, abs=1e-9), method
    if blanks:
        return
    pa, _ = quietly(lambda: acc.irr(metric="percent", weights=w))
    assert pa == pytest.approx(entry["results"][weights]["fleiss"]["pa"], abs=1e-9)
    # irrCAC's alpha: identity = nominal, quadratic = interval, linear = |a - b|
    level = {"identity": "nominal", "quadratic": "interval",
             "linear": lambda a, b: abs(a - b)}[weights]
    got, _ = quietly(lambda: acc.irr(metric="alpha", level=level))
    assert got == pytest.approx(entry["results"][weights]["krippendorff"]["coefficient_value"],
                                abs=1e-9)


@st.composite
def complete_tables(draw):
    n, b, q = draw(st.integers(2, 30)), draw(st.integers(2, 5)), draw(st.integers(2, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    vals = rng.integers(0, q, size=(n, b))
    agree = rng.random(n) < 0.5
    vals[agree] = vals[agree, :1]
    return vals


@given(vals=complete_tables())
def test_nltk_and_statsmodels_on_complete_data(vals):
    task = AnnotationTask([(f"c{g}", str(i), str(v)) for i, row in enumerate(vals)
                           for g, v in enumerate(row)])
    acc = pd.DataFrame(vals).xrr(wide=True)
    observed = np.unique(vals)
    table = np.stack([np.bincount(np.searchsorted(observed, row), minlength=len(observed))
                      for row in vals])
    pairs = [("conger", task.multi_kappa), ("fleiss", task.pi),
             ("scott", task.pi), ("bp", task.S), ("alpha", task.alpha),
             ("fleiss", lambda: fleiss_kappa(table, method="fleiss")),
             ("bp", lambda: fleiss_kappa(table, method="randolph"))]
    for ours, theirs in pairs:
        with np.errstate(all="ignore"):
            try:
                want = theirs()
            except ZeroDivisionError:
                want = math.nan
        got, _ = quietly(lambda ours=ours: acc.irr(metric=ours, level="nominal"))
        if np.isfinite(want) and np.isfinite(got):
            assert got == pytest.approx(want, abs=1e-9), ours
    # Light = nltk's kappa (mean pairwise Cohen) when every pair's kappa is defined
    defined = all(len(set(vals[:, g]) | set(vals[:, h])) > 1
                  for g, h in combinations(range(vals.shape[1]), 2))
    if defined:
        got, _ = quietly(lambda: acc.irr(metric="light", level="nominal"))
        assert got == pytest.approx(task.kappa(), abs=1e-9)


def test_light_leaves_out_undefined_pairs_nltk_counts_them_as_one():
    """Documented difference: a rater pair using one category only has no
    Cohen's kappa (p_e = 1). We leave it out (counted in n_pairs_left_out);
    nltk's kappa scores it 1."""
    vals = np.array([[0, 1, 1], [1, 1, 1], [1, 1, 1]])
    task = AnnotationTask([(f"c{g}", str(i), str(v)) for i, row in enumerate(vals)
                           for g, v in enumerate(row)])
    da = xa.to_xarray(pd.DataFrame(vals).xrr(wide=True))["value"]
    got = da.xrr.irr(metric="light", level="nominal")
    pairwise = [0.0, 0.0]  # (0, 1) and (0, 2): p_o = p_e = 2/3; (1, 2) is undefined
    assert float(got) == pytest.approx(np.mean(pairwise))
    assert int(got["n_pairs_left_out"]) == 1
    assert task.kappa() == pytest.approx(np.mean([*pairwise, 1.0]))


def test_q_is_the_declared_categories():
    """Brennan-Prediger and AC1 depend on q: observed categories by default, the
    declared ones with categories= (statsmodels' randolph uses its table's columns)."""
    vals = np.array([[0, 0], [0, 2], [2, 2], [0, 0]])
    table = np.stack([np.bincount(row, minlength=3) for row in vals])  # category 1 unused
    declared = pd.DataFrame(vals).xrr(wide=True, categories=[0, 1, 2])
    assert declared.irr(metric="bp", level="nominal") == pytest.approx(
        fleiss_kappa(table, method="randolph"))
    observed = pd.DataFrame(vals).xrr(wide=True).irr(metric="bp", level="nominal")
    assert observed == pytest.approx((0.75 - 0.5) / 0.5)


def test_fleiss_with_varying_raters_differs_from_pooled_scott():
    """Documented difference: with 2-4 ratings per item, Fleiss (Gwet's form,
    mean per-item shares) is not Scott's pooled pi (equal for complete data)."""
    rows = [["a", "a", "b", None], ["a", "b", None, None], ["b", "b", "b", "b"],
            ["a", "a", None, None], ["b", "a", "a", "a"], ["a", "b", "b", None]]
    df = pd.DataFrame(rows)
    fleiss = df.xrr(wide=True).irr(metric="fleiss", level="nominal")
    scott = df.xrr(wide=True).irr(metric="scott", level="nominal")
    assert abs(fleiss - scott) > 1e-3
    assert fleiss == pytest.approx(naive.chance_corrected(rows, "fleiss"), abs=1e-12)
    assert scott == pytest.approx(naive.chance_corrected(rows, "scott"), abs=1e-12)


# ---------------------------------------------------------------------- bad input


def test_weights_errors():
    strs = pd.DataFrame({"A": ["x", "y", "z"], "B": ["x", "z", "z"]}).xrr(wide=True)
    with pytest.raises(LevelError, match="linear or quadratic weights need their order"):
        strs.irr(metric="cohen", weights="linear")
    nums = pd.DataFrame({"A": [1, 2, 3], "B": [1, 3, 3]}).xrr(wide=True)
    with pytest.raises(InputError, match=r"2 x 2 but .* has 3 categories"):
        nums.irr(metric="fleiss", weights=np.eye(2))
    with pytest.raises(InputError, match="symmetric"):
        nums.irr(metric="gwet", weights=np.array([[1, .5, 0], [0, 1, 0], [0, 0, 1.0]]))
    with pytest.raises(InputError, match="not with level="):
        nums.irr(metric="fleiss", level="interval")
    with pytest.raises(InputError, match="alpha is weighted through level="):
        nums.irr(metric="alpha", weights="linear")
    with pytest.raises(InputError, match="unknown weights"):
        nums.irr(metric="bp", weights="cubic")
    ordered = strs._obj.xrr(wide=True, categories=["x", "y", "z"])
    assert ordered.irr(metric="cohen", weights="linear") == pytest.approx(
        nums.irr(metric="cohen", weights="linear"))


# ------------------------------------------------------ standard errors, intervals

SE_METHODS = {"fleiss": "fleiss", "gwet": "gwet", "bp": "bp", "conger": "conger",
              "krippendorff": "alpha"}


@pytest.mark.parametrize(("name", "weights"), [c for c in CASES if c[0] != "cac.raw.g1g2"])
def test_standard_errors_and_intervals_equal_irrcac(name, weights):
    """Gwet's variance formulas: se, 95% interval and p-value as irrCAC, to 1e-9."""
    entry = IRRCAC["tables"][name]
    ratings = pd.DataFrame(entry["ratings"]["data"], columns=entry["ratings"]["columns"])
    acc = ratings.xrr(wide=True)
    w = "unweighted" if weights == "identity" else weights
    for method, ours in SE_METHODS.items():
        want = entry["results"][weights][method]
        if ours == "alpha":
            level = {"identity": "nominal", "quadratic": "interval",
                     "linear": lambda a, b: abs(a - b)}[weights]
            got, _ = quietly(lambda level=level: acc.irr(metric="alpha", level=level, ci=0.95))
        else:
            got, _ = quietly(lambda ours=ours: acc.irr(metric=ours, weights=w, ci=0.95))
        assert got["se"] == pytest.approx(want["se"], abs=1e-9), method
        lower, upper = want["confidence_interval"]
        assert got["lower"] == pytest.approx(lower, abs=1e-9), method
        assert got["upper"] == pytest.approx(upper, abs=1e-9), method
        # documented difference: irrCAC's Brennan-Prediger p-value alone is one-sided
        # (1 - F_t); ours is two-sided for every coefficient
        factor = 2.0 if method == "bp" else 1.0
        assert got["p_value"] == pytest.approx(factor * want["p_value"], abs=1e-9), method


def naive_conger_se(grid: np.ndarray, k: int, w: np.ndarray) -> tuple[float, float]:
    """Conger's kappa and Gwet's standard error, term by term with loops over items,
    raters and categories (Gwet 2014, ch. 5: kappa*_i = kappa_i - 2 (1 - kappa)
    (p_e|i - p_e) / (1 - p_e), p_e|i from u_igl = n / n_g (delta_igl - (eps_ig - n_g / n)
    p_gl)); ``grid`` items x raters of codes, -1 where a rater did not rate."""
    grid = grid[(grid >= 0).any(axis=1)][:, (grid >= 0).any(axis=0)]  # raters present
    n, b = grid.shape
    n_g = [(grid[:, g] >= 0).sum() for g in range(b)]
    p = [[(grid[:, g] == c).sum() / n_g[g] for c in range(k)] for g in range(b)]
    s = [sum(p[g][c] for g in range(b)) for c in range(k)]
    pe = sum(w[c, d] * (s[c] * s[d] - sum(p[g][c] * p[g][d] for g in range(b)))
             for c in range(k) for d in range(k)) / (b * (b - 1))
    r_i, pa_i = [], []
    for i in range(n):
        cnt = [(grid[i] == c).sum() for c in range(k)]
        r = sum(cnt)
        r_i.append(r)
        pa_i.append(sum(cnt[c] * (sum(w[c, d] * cnt[d] for d in range(k)) - 1)
                        for c in range(k)) / (r * (r - 1)) if r >= 2 else 0.0)
    n2 = sum(r >= 2 for r in r_i)
    if b < 2 or n2 == 0 or 1 - pe <= 1e-11:  # undefined, as the one rule says
        return math.nan, math.nan
    kappa = (sum(pa_i) / n2 - pe) / (1 - pe)
    star = []
    for i in range(n):
        pe_i = 0.0
        for g in range(b):
            eps = float(grid[i, g] >= 0)
            for d in range(k):
                u = n / n_g[g] * (float(grid[i, g] == d) - (eps - n_g[g] / n) * p[g][d])
                pe_i += u * sum(w[c, d] * (s[c] - p[g][c]) for c in range(k))
        pe_i /= b * (b - 1)
        k_i = n / n2 * (pa_i[i] - pe * (r_i[i] >= 2)) / (1 - pe)
        star.append(k_i - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe))
    return kappa, math.sqrt(sum((x - kappa) ** 2 for x in star) / (n * (n - 1)))


@given(seed=st.integers(0, 2**16), n_items=st.integers(4, 25), b=st.integers(2, 6),
       k=st.integers(2, 4), weights=st.sampled_from(["unweighted", "quadratic"]))
def test_conger_se_equals_gwets_formula_term_by_term(seed, n_items, b, k, weights):
    """The O(N) pseudo-values (read by rater from the annotations) equal Gwet's formula
    over the dense items x raters grid, with missing ratings."""
    rng = np.random.default_rng(seed)
    grid = rng.integers(0, k, (n_items, b))
    grid[rng.random(grid.shape) < 0.3] = -1
    grid[0, :2] = rng.integers(0, k, 2)  # at least one pairable item
    frame = pd.DataFrame(np.where(grid >= 0, grid, np.nan))
    got, _ = quietly(lambda: frame.xrr(wide=True, categories=list(range(k))).irr(
        metric="conger", weights=weights, ci=0.95))
    w = np.eye(k) if weights == "unweighted" else 1 - (np.subtract.outer(
        np.arange(k), np.arange(k)) / (k - 1)) ** 2
    kappa, se = naive_conger_se(grid, k, w)
    assert_close_or_both_nan(got["estimate"], kappa)
    assert_close_or_both_nan(got["se"], se)


def test_cohen_se_is_conger_with_two_raters_and_percent_se():
    entry = IRRCAC["tables"]["cac.ben.gerry"]
    ratings = pd.DataFrame(entry["ratings"]["data"], columns=entry["ratings"]["columns"])
    complete = ratings.dropna()
    cohen = complete.xrr(wide=True).irr(metric="cohen", level="nominal", ci=0.95)
    conger = complete.xrr(wide=True).irr(metric="conger", level="nominal", ci=0.95)
    assert cohen["estimate"] == pytest.approx(conger["estimate"], abs=1e-12)
    assert cohen["se"] == pytest.approx(conger["se"], abs=1e-12)
    # percent agreement: se of a mean of per-item agreements
    vals = np.array([[1, 1], [1, 2], [2, 2], [1, 1], [2, 1], [2, 2]])
    out = pd.DataFrame(vals).xrr(wide=True).irr(metric="percent", level="nominal", ci=0.95)
    agree = (vals[:, 0] == vals[:, 1]).astype(float)
    assert out["estimate"] == pytest.approx(agree.mean())
    assert out["se"] == pytest.approx(agree.std(ddof=1) / np.sqrt(len(agree)))


def test_finite_population_correction():
    entry = IRRCAC["tables"]["cac.raw4raters"]
    ratings = pd.DataFrame(entry["ratings"]["data"], columns=entry["ratings"]["columns"])
    acc = ratings.xrr(wide=True)
    infinite = acc.irr(metric="gwet", level="nominal", ci=0.95)
    finite = acc.irr(metric="gwet", level="nominal", ci=0.95, population=48)
    n = 12  # items with at least one rating
    assert finite["se"] == pytest.approx(infinite["se"] * np.sqrt(1 - n / 48))
    assert finite["estimate"] == infinite["estimate"]


def test_interval_tables_are_labeled():
    df = pd.DataFrame({"item": np.repeat(np.arange(20), 2), "rater": ["a", "b"] * 20,
                       "pool": np.repeat(["X", "Y"], 20),
                       "joy": np.random.default_rng(0).integers(0, 2, 40)})
    out = df.xrr.irr(metric="fleiss", level="nominal", ci=0.9)
    assert out.index.names == ["label", "replication"]
    assert {"estimate", "se", "lower", "upper", "p_value", "n_items"} <= set(out.columns)
    assert (out["lower"] <= out["estimate"]).all() and (out["estimate"] <= out["upper"]).all()
    ds = df.xrr.to_xarray().xrr.irr(metric="fleiss", level="nominal", ci=0.9)
    np.testing.assert_allclose(ds["se"].values, out["se"].to_numpy().reshape(1, 2))


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"metric": "scott", "ci": 0.95, "method": "analytic"}, "no analytic standard error"),
    ({"metric": "light", "ci": 0.95, "method": "analytic"}, "no analytic standard error"),
    ({"metric": "scott", "ci": 0.95}, "needs at least 10 items"),  # bootstrap, BCa
    ({"metric": "fleiss", "method": "bootstrap"}, "ask for one with ci="),
    ({"metric": "fleiss", "ci": 95}, "between 0 and 1"),
    ({"metric": "fleiss", "ci": 0.95, "population": 0}, "population"),
])
def test_interval_errors(kwargs, match):
    acc = pd.DataFrame({"A": [1, 2, 2], "B": [1, 2, 1]}).xrr(wide=True)
    with pytest.raises(InputError, match=match):
        acc.irr(**kwargs)


@given(vals=complete_tables())
def test_cohen_equals_statsmodels_cohens_kappa(vals):
    """statsmodels' cohens_kappa on the 2-rater table: unweighted, linear, quadratic
    (wt='linear'/'quadratic' weight by category position, as scikit-learn does)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    a, b = vals[:, 0], vals[:, 1]
    cats = np.unique(np.concatenate([a, b]))
    if len(cats) < 2:
        return
    ranks_a, ranks_b = np.searchsorted(cats, a), np.searchsorted(cats, b)
    table = np.zeros((len(cats), len(cats)))
    np.add.at(table, (ranks_a, ranks_b), 1)
    acc = pd.DataFrame({"A": ranks_a, "B": ranks_b}).xrr(wide=True)
    for wt, weights in [(None, "unweighted"), ("linear", "linear"),
                        ("quadratic", "quadratic")]:
        with np.errstate(all="ignore"):  # the peer divides by zero on degenerate tables
            want = cohens_kappa(table, wt=wt).kappa
        got, _ = quietly(lambda weights=weights: acc.irr(metric="cohen", weights=weights))
        if np.isfinite(want) and np.isfinite(got):
            assert got == pytest.approx(want, abs=1e-9), wt


@pytest.mark.parametrize("metric", METRICS)
@given(vals=rating_tables(), kind=st.sampled_from(["unweighted", "linear", "quadratic"]))
def test_bounds(vals, metric, kind):
    """Every coefficient is at most 1; percent agreement lies in [0, 1]; a standard
    error is never negative and an interval contains its estimate."""
    acc = pd.DataFrame(vals).xrr(wide=True)
    cats = np.unique(vals[~np.isnan(vals)])
    kind = kind if len(cats) > 1 else "unweighted"
    got, _ = quietly(lambda: acc.irr(metric=metric, weights=kind))
    if np.isfinite(got):
        assert got <= 1 + 1e-12
        if metric == "percent":
            assert got >= -1e-12
    if metric in ("percent", "fleiss", "gwet", "bp", "conger"):
        table, _ = quietly(lambda: acc.irr(metric=metric, weights=kind, ci=0.95))
        if np.isfinite(table["se"]):
            assert table["se"] >= 0
            assert table["lower"] <= table["estimate"] + 1e-12
            assert table["estimate"] <= table["upper"] + 1e-12 or table["upper"] == 1.0
