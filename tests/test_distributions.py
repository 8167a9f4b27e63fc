"""t and F quantiles used for confidence intervals, against scipy (test extra only)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from xrr_accessor.coefficients.distributions import betainc, f_ppf, f_sf, t_ppf, t_sf


@given(a=st.floats(0.05, 500), b=st.floats(0.05, 500), x=st.floats(0, 1))
def test_betainc(a, b, x):
    from scipy.special import betainc as ref

    assert betainc(a, b, x) == pytest.approx(ref(a, b, x), abs=1e-10)


@given(p=st.floats(1e-6, 1 - 1e-6), df=st.floats(0.5, 5000))
def test_t(p, df):
    assert t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-9, abs=1e-9)


@given(t=st.floats(1e-4, 50), sign=st.sampled_from([-1, 1]), df=st.floats(0.5, 5000))
def test_t_sf(t, sign, df):
    assert t_sf(sign * t, df) == pytest.approx(stats.t.sf(sign * t, df), abs=1e-10)


@given(t=st.floats(-50, 50))
def test_t_sf_closed_forms(t):
    """df = 1 (Cauchy) and df = 2 have closed forms; near t = 0 they are a stricter
    reference than scipy (whose df = 1 tail is off by ~1e-9 at t ~ 1e-8)."""
    import math

    assert t_sf(t, 1.0) == pytest.approx(0.5 - math.atan(t) / math.pi, abs=1e-13)
    assert t_sf(t, 2.0) == pytest.approx(0.5 - t / (2 * math.sqrt(2 + t * t)), abs=1e-13)


@given(p=st.floats(1e-4, 1 - 1e-4), d1=st.floats(0.5, 2000), d2=st.floats(0.5, 2000))
def test_f(p, d1, d2):
    assert f_ppf(p, d1, d2) == pytest.approx(stats.f.ppf(p, d1, d2), rel=1e-8)


@given(f=st.floats(0, 1e4), d1=st.floats(0.5, 2000), d2=st.floats(0.5, 2000))
def test_f_sf(f, d1, d2):
    assert f_sf(f, d1, d2) == pytest.approx(stats.f.sf(f, d1, d2), abs=1e-10)


def test_t_cdf_array_equals_scipy_and_the_scalar_form():
    """The compiled array form (the alternative annotator test's p-values, every human at
    once) equals scipy's Student t and the scalar t_sf to 1e-10 relative (the same
    fraction; numba's and Python's lgamma differ in the last bits, which the
    lgamma(a + b) - lgamma(a) - lgamma(b) of large df magnifies), infinite t included."""
    from scipy.stats import t as student

    from xrr_accessor.coefficients.distributions import t_cdf_array, t_sf

    rng = np.random.default_rng(1)
    t = np.concatenate([rng.normal(0, 6, 3000), [0.0, -np.inf, np.inf, -40.0, 40.0]])
    df = np.concatenate([rng.integers(1, 5000, 3000), [7, 7, 7, 29, 29]]).astype(float)
    got = t_cdf_array(t, df)
    want = student.cdf(t, df)
    assert np.allclose(got, want, rtol=1e-10, atol=1e-300)
    finite = np.isfinite(t)
    scalar = np.array([t_sf(-a, b) for a, b in zip(t[finite], df[finite], strict=True)])
    assert np.allclose(got[finite], scalar, rtol=1e-10, atol=1e-300)
