"""Bad parameters give an InputError naming the parameter and what it accepts (issue 25)."""

from __future__ import annotations

import warnings

import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import simulate


@pytest.fixture(scope="module")
def one_pool():
    return simulate(n_items=40, labels=["joy"], pools=["A"], seed=1)


@pytest.fixture(scope="module")
def two_pools():
    return simulate(n_items=40, labels=["joy"], pools=["A", "B"], seed=1)


@pytest.mark.parametrize("population", [2, 5.0, "100", True, float("nan"), -1, [100]])
def test_population_refused_naming_it_and_the_accepted_values(one_pool, population):
    n_items = one_pool["item_id"].nunique()
    assert n_items > 5
    with pytest.raises(xa.InputError, match=r"population=.* is the number of items in the "
                       r"population \(a number >= the \d+ item\(s\) rated\), or None"):
        xa.irr(one_pool, metric="gwet", ci=0.95, population=population)


def test_population_at_least_the_items_rated_is_accepted(one_pool):
    n_items = one_pool["item_id"].nunique()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        at_n = xa.irr(one_pool, metric="gwet", ci=0.95, population=n_items)
        big = xa.irr(one_pool, metric="gwet", ci=0.95, population=10**9)
        inf = xa.irr(one_pool, metric="gwet", ci=0.95)
    assert float(at_n["se"].iloc[0]) == 0.0  # the whole population: no sampling error
    assert float(big["se"].iloc[0]) == pytest.approx(float(inf["se"].iloc[0]), rel=1e-6)
    with pytest.raises(xa.InputError, match=f"a number >= the {n_items} item"):
        xa.irr(one_pool, metric="gwet", ci=0.95, population=n_items - 1)


@pytest.mark.parametrize("sizes", ["abc", [1.5, 3], [100, "x"], ["10"], 5, [], [1], [True, 4]])
def test_plan_sizes_refused_naming_it(two_pools, sizes):
    with pytest.raises(xa.InputError, match=r"sizes=.*: candidate numbers of items, a list "
                       r"of whole numbers each >= 2 \(e\.g\. sizes=\[100, 400, 1600\]\)"):
        xa.plan(two_pools, sizes=sizes, n_boot=20, progress=False)


def test_plan_sizes_whole_floats_accepted(two_pools):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        table = xa.plan(two_pools, sizes=[20, 40.0], n_boot=20, seed=0, progress=False)
    assert sorted(set(table["n_items"])) == [20, 40]


def test_wide_hint_lists_estimate(two_pools):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        rep = xa.report(two_pools)
    with pytest.raises(xa.InputError, match=r"quantity='foo'.*\['estimate', 'n_items'"):
        rep.wide("foo")
    with pytest.raises(xa.InputError, match="quantity='label'"):
        rep.wide("label")
    assert rep.wide("n_items").shape == rep.wide().shape
