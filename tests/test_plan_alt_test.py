"""plan_alt_test: the authors' simulation (Calderon, Reichart & Dror 2025, Appendix C).
Its annotators reach the agreement the authors' README gives for each noise level, its
test on a simulated grid is the naive test's, it is reproducible, and power grows with
items and epsilon."""

from __future__ import annotations

import numpy as np
import pytest

from xrr_accessor import InputError, plan_alt_test
from xrr_accessor.diagnostics._common import Read
from xrr_accessor.models.alignment import Scoring, by_item, outcomes
from xrr_accessor.models.decide import decide
from xrr_accessor.models.plan import _NOMINAL, _cast, _labels

import naive_models as nm


@pytest.mark.parametrize("noise, kappa", [(0.1, 0.80), (0.2, 0.63), (0.3, 0.48),
                                          (0.4, 0.36)])
def test_human_agreement_at_each_noise_is_the_authors(noise, kappa):
    """The authors' README: noise 0.1 -> IAA 0.80, 0.2 -> 0.63, 0.3 -> 0.48, 0.4 -> 0.36
    (their figures are averages over random priors, so within 0.03)."""
    t = plan_alt_test(n_items=200, epsilon=0.2, human_noise=noise, n_datasets=30,
                      n_draws=2, seed=1)
    assert t["human_kappa"].iloc[0] == pytest.approx(kappa, abs=0.03)


def test_the_simulated_label_mixture():
    """P(label = gold) = 1 - noise + noise * prior(gold); otherwise the prior's share."""
    rng = np.random.default_rng(0)
    priors = np.array([0.5, 0.3, 0.2])
    labels = _labels(rng, np.zeros(200_000, dtype=np.int64), priors, 0.4, (200_000,))
    share = np.bincount(labels, minlength=3) / len(labels)
    want = 0.4 * priors + 0.6 * np.array([1.0, 0.0, 0.0])
    assert share == pytest.approx(want, abs=0.005)


def test_a_simulated_draw_is_tested_as_the_naive_test_would():
    rng = np.random.default_rng(3)
    grid = rng.integers(0, 3, size=(60, 4))
    model = rng.integers(0, 3, size=60)
    c = _cast(grid, model, 3)
    found = outcomes(c, Read(c.ann, _NOMINAL, "pandas"), by_item(c.ann), 0,
                     Scoring("accuracy", _NOMINAL), 2, False)
    humans = {h: {i: int(grid[i, h]) for i in range(60)} for h in range(4)}
    candidate = {i: [int(model[i])] for i in range(60)}
    for eps in (0.1, 0.3, 0.6):
        d = decide(found.counts[0], np.arange(5) < 4, eps, 0.05, 2)
        ref = nm.alt_test(humans, candidate, nm.accuracy, epsilon=eps, min_items=2)
        assert d.winning_rate == ref.winning_rate
        assert d.advantage == pytest.approx(ref.advantage_probability, abs=1e-12)


def test_power_grows_with_items_and_epsilon_and_repeats_with_the_seed():
    t = plan_alt_test(n_items=[30, 150], epsilon=[0.05, 0.25], n_datasets=6, n_draws=4,
                      seed=2)
    p = t.set_index(["n_items", "epsilon"])["passed"]
    assert p[(150, 0.25)] >= p[(30, 0.25)] and p[(30, 0.25)] >= p[(30, 0.05)]
    assert p[(150, 0.25)] > p[(150, 0.05)]
    again = plan_alt_test(n_items=[30, 150], epsilon=[0.05, 0.25], n_datasets=6, n_draws=4,
                          seed=2)
    assert t.equals(again)
    for eps in (0.05, 0.25):
        enough = [n for n in (30, 150) if p[(n, eps)] >= 0.8]
        assert t.attrs["needed"][f"epsilon {eps:g}, 3 humans"] == (min(enough) if enough
                                                                    else None)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_items": 1}, "n_items=1"), ({"n_humans": [3, 1]}, "n_humans="),
    ({"epsilon": 1.2}, "epsilon=1.2"), ({"human_noise": 1.5}, "human_noise=1.5"),
    ({"power": 0}, "power=0"), ({"categories": 1}, "categories=1"),
])
def test_plan_alt_test_refuses_bad_options(kwargs, match):
    with pytest.raises(InputError, match=match):
        plan_alt_test(**kwargs)


def test_a_sizes_draws_do_not_depend_on_the_other_sizes():
    """Draws are keyed by (seed, data set, humans, items): adding a size, or data sets,
    leaves the rows already there as they were."""
    one = plan_alt_test(n_items=[50], epsilon=0.2, n_datasets=3, n_draws=4, seed=5)
    two = plan_alt_test(n_items=[50, 150], epsilon=0.2, n_datasets=3, n_draws=4, seed=5)
    assert one.iloc[0].equals(two.iloc[0])
    more = plan_alt_test(n_items=[50], epsilon=[0.1, 0.2], n_datasets=3, n_draws=4, seed=5)
    assert more[more["epsilon"] == 0.2].iloc[0].drop("epsilon").equals(
        one.iloc[0].drop("epsilon"))


def test_below_min_items_no_human_is_tested_and_nothing_warns():
    """Sizes under min_items (30, as alt_test's) test no human: passed 0, winning rate
    NaN; two categories at high noise (undefined kappas) raise no numpy warning."""
    t = plan_alt_test(n_items=[20, 40], epsilon=0.2, categories=2, human_noise=0.4,
                      candidate_noise=0.3, n_datasets=3, n_draws=3, seed=0)
    below = t[t["n_items"] == 20].iloc[0]
    assert below["passed"] == 0 and np.isnan(below["winning_rate"])
    assert np.isnan(below["advantage_probability"])
    above = t[t["n_items"] == 40].iloc[0]
    assert np.isfinite(above["winning_rate"])
    low = plan_alt_test(n_items=20, epsilon=0.2, min_items=10, n_datasets=2, n_draws=2)
    assert np.isfinite(low["winning_rate"].iloc[0])
