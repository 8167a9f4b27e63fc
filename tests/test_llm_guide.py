"""The LLM-as-annotator guide's numbers (HANNA: five language models under four prompts,
three mTurk workers, 1,056 stories, six criteria) against independent computations:
Krippendorff's alpha from the ``krippendorff`` package, kappa_x from Eq 9-11 written out
here, and the statements the guide makes in words."""

from __future__ import annotations

import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

import xrr_accessor  # noqa: F401  (registers .xrr)
from xrr_accessor.errors import UndefinedWarning

DATA = Path(__file__).parent / "data" / "hanna_llm.csv.gz"
CRITERIA = ["relevance", "coherence", "empathy", "surprise", "engagement", "complexity"]
MODELS = ["Beluga-13B", "ChatGPT", "Llama-13B", "Mistral-7B", "OrcaPlatypus"]


@pytest.fixture(scope="module")
def hanna() -> pd.DataFrame:
    return pd.read_csv(DATA)


@pytest.fixture(scope="module")
def accessor(hanna):
    return hanna.xrr(item="story", replication="pool", labels=CRITERIA)


def alpha_peer(hanna: pd.DataFrame, pool: str, criterion: str) -> float:
    """Interval alpha of one pool by the krippendorff package (raters x items)."""
    grid = hanna[hanna["pool"] == pool].pivot(index="rater", columns="story", values=criterion)
    return float(krippendorff.alpha(reliability_data=grid.to_numpy(),
                                    level_of_measurement="interval"))


_KAPPA_X: dict[tuple[int, str, str, str], float] = {}


def naive_kappa_x(hanna: pd.DataFrame, x_pool: str, y_pool: str, criterion: str) -> float:
    """kappa_x at the interval level, D(a, b) = (a - b)^2, from Eq 9-11 term by term."""
    key = (id(hanna), x_pool, y_pool, criterion)
    if key not in _KAPPA_X:
        _KAPPA_X[key] = _naive_kappa_x(hanna, x_pool, y_pool, criterion)
    return _KAPPA_X[key]


def _naive_kappa_x(hanna: pd.DataFrame, x_pool: str, y_pool: str, criterion: str) -> float:
    x = hanna[hanna["pool"] == x_pool].groupby("story")[criterion].apply(
        lambda s: s.dropna().to_numpy())
    y = hanna[hanna["pool"] == y_pool].groupby("story")[criterion].apply(
        lambda s: s.dropna().to_numpy())
    items = [i for i in x.index.intersection(y.index) if len(x[i]) and len(y[i])]
    big_r = sum(len(x[i]) for i in items)
    big_s = sum(len(y[i]) for i in items)
    d_o = 0.0
    for i in items:  # Eq 10: each item's mean cross-pair disagreement, weighted
        pairs = np.subtract.outer(x[i], y[i]) ** 2
        d_o += (len(x[i]) + len(y[i])) / (big_r + big_s) * pairs.sum() / pairs.size
    all_x = np.concatenate([x[i] for i in items])
    all_y = np.concatenate([y[i] for i in items])
    total = 0.0
    for start in range(0, len(all_x), 512):  # Eq 11: every cross pair, in blocks
        total += float((np.subtract.outer(all_x[start:start + 512], all_y) ** 2).sum())
    d_e = total / (big_r * big_s)
    return 1.0 - d_o / d_e


def test_data_is_as_described(hanna):
    assert hanna.shape == (1056 * (3 + 5 * 4), 10)
    assert hanna.groupby("pool")["rater"].nunique().to_dict() == {
        **dict.fromkeys(MODELS, 4), "human": 3}
    assert hanna.groupby("pool")["story"].nunique().eq(1056).all()
    human = hanna[hanna["pool"] == "human"][CRITERIA]
    assert human.isin([1, 2, 3, 4, 5]).all().all()  # the workers' 1-5 ratings
    assert not hanna[CRITERIA].isna().any().any()


def test_stability_and_human_irr_equal_the_krippendorff_package(hanna, accessor):
    irr = accessor.irr(level="interval")
    for pool in [*MODELS, "human"]:
        for criterion in CRITERIA:
            assert irr.loc[criterion, pool] == pytest.approx(
                alpha_peer(hanna, pool, criterion), abs=1e-10), (pool, criterion)


def test_kappa_x_of_each_model_against_the_humans_equals_eq_9_11(hanna, accessor):
    kx = accessor.cross_kappa(level="interval")
    for model in MODELS:
        for criterion in CRITERIA:
            assert kx.loc[criterion, (model, "human")] == pytest.approx(
                naive_kappa_x(hanna, model, "human", criterion), abs=1e-10), (model, criterion)


def test_kappa_x_over_the_humans_irr(hanna, accessor):
    with pytest.warns(UndefinedWarning, match="coherence.*IRR \\(alpha\\) of human is -0.0547"):
        rel = accessor.normalized(level="interval", reference="human")
    for model in MODELS:
        for criterion in CRITERIA:
            got = rel.loc[criterion, (model, "human")]
            human = alpha_peer(hanna, "human", criterion)
            if human <= 0:
                assert np.isnan(got)
                continue
            want = naive_kappa_x(hanna, model, "human", criterion) / human
            assert got == pytest.approx(want, abs=1e-10), (model, criterion)


def test_eq_13_normalized_against_the_peers(hanna, accessor):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)  # coherence, tested above
        norm = accessor.normalized(level="interval")
    for model in ("ChatGPT", "Mistral-7B"):
        want = naive_kappa_x(hanna, model, "human", "engagement") / np.sqrt(
            alpha_peer(hanna, model, "engagement") * alpha_peer(hanna, "human", "engagement"))
        assert norm.loc["engagement", (model, "human")] == pytest.approx(want, abs=1e-10)


def test_what_the_guide_says_in_words(hanna):
    """The numbers quoted in the prose of docs/guides/llm_annotators.md, from the peers."""
    alpha = {(p, c): alpha_peer(hanna, p, c) for p in [*MODELS, "human"] for c in CRITERIA}
    by_pool = {p: [alpha[p, c] for c in CRITERIA] for p in [*MODELS, "human"]}
    assert (round(min(by_pool["ChatGPT"]), 2), round(max(by_pool["ChatGPT"]), 2)) == (0.53, 0.79)
    assert (round(min(by_pool["Llama-13B"]), 2), round(max(by_pool["Llama-13B"]), 2)) == (
        0.05, 0.27)
    assert round(max(by_pool["human"]), 2) == 0.28
    assert round(alpha["human", "coherence"], 2) == -0.05
    # "the workers agree less than the prompts of every model but Llama-13B"
    for model in MODELS:
        beats = all(alpha[model, c] > alpha["human", c] for c in CRITERIA)
        assert beats == (model != "Llama-13B"), model
    kx = {(m, c): naive_kappa_x(hanna, m, "human", c) for m in MODELS for c in CRITERIA}
    assert round(kx["ChatGPT", "engagement"], 2) == 0.16
    assert round(alpha["human", "engagement"], 2) == 0.18
    assert (round(kx["Mistral-7B", "engagement"], 2), round(kx["Beluga-13B", "engagement"], 2)
            ) == (0.22, 0.25)
    coherence = [kx[m, "coherence"] for m in MODELS]
    assert (round(min(coherence), 2), round(max(coherence), 2)) == (0.12, 0.18)
    # kappa_x / IRR_humans: near 1 on complexity and engagement except Llama-13B
    rel = {(m, c): kx[m, c] / alpha["human", c] for m in MODELS for c in CRITERIA
           if alpha["human", c] > 0}
    near = [rel[m, c] for m in MODELS if m != "Llama-13B" for c in ("complexity", "engagement")]
    assert (round(min(near), 2), round(max(near), 2)) == (0.86, 1.41)
    assert (round(rel["Llama-13B", "complexity"], 2), round(rel["Llama-13B", "engagement"], 2)
            ) == (0.58, 0.55)
    assert round(max(rel[m, "surprise"] for m in MODELS), 1) == 3.4
    assert sum(rel[m, c] > 1.5 for m in MODELS for c in ("relevance", "empathy", "surprise")
               ) > 15 / 2  # "most models exceed 1.5"
    low = [alpha["human", c] for c in ("relevance", "empathy", "surprise")]
    assert (round(min(low), 2), round(max(low), 2)) == (0.05, 0.14)


def test_the_readme_paragraph(hanna):
    """The README's numbers, from its own calls (1,000 replicates, seed 0)."""
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    data = hanna.xrr(item="story", replication="pool", labels=["engagement", "coherence"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)  # coherence: tested above
        ci = data.normalized(level="interval", reference="human", ci=0.95, seed=0,
                             progress=False)
    row = ci.loc[("engagement", "ChatGPT", "human")]
    quoted = (f"kappa_x / IRR_humans {row['estimate']:.2f}, 95% interval "
              f"{row['lower']:.2f}-{row['upper']:.2f}")
    assert quoted in " ".join(readme.split()), quoted
    kx = naive_kappa_x(hanna, "ChatGPT", "human", "engagement")
    assert f"(kappa_x {kx:.2f})" in readme
    assert f"two workers agree ({alpha_peer(hanna, 'human', 'engagement'):.2f})" in readme
