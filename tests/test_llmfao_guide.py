"""The LLMFAO numbers of README.md ("Can a model replace the annotators?") and of the
guide docs/guides/llm_annotators.md, recomputed from their own calls and, where one
exists, from an independent computation: the naive alternative annotator test
(``tests/naive_models.py``), Krippendorff's alpha from the ``krippendorff`` package,
kappa_x from Eq 9-11 (``tests/naive.py``) and counts straight from the data. Each quoted
string is checked to appear in the text (whitespace collapsed), so a number that drifts
from what the library computes fails here.

The guide's ``>>>`` examples run in tests/test_docs.py; this file checks the numbers its
prose states in words."""

from __future__ import annotations

import inspect
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.errors import XRRWarning

import naive
import naive_models

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "llmfao.csv.gz"
ROLES = {"item": "pair", "rater": "worker", "replication": "source"}
JUDGES = {"gpt4": "GPT-4", "gpt35": "GPT-3.5"}
GRID = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)

# one worker (-n auto): the module fixture reads and reports the whole set once (where
# pytest-xdist's loadgroup mode works; see tests/test_docs_site.py)
pytestmark = pytest.mark.xdist_group("llmfao_guide")


def quiet(fn, *args, **kwargs):
    """Call ``fn`` with the package's warnings silenced (what they say is tested in
    tests/test_alt_test.py; here only the numbers)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XRRWarning)
        return fn(*args, **kwargs)


def flat(path: Path) -> str:
    return " ".join(path.read_text(encoding="utf-8").split())


@pytest.fixture(scope="module")
def llmfao() -> pd.DataFrame:
    return pd.read_csv(DATA)


@pytest.fixture(scope="module")
def crowd(llmfao) -> pd.DataFrame:
    return llmfao[llmfao["source"] == "crowd"]


@pytest.fixture(scope="module")
def readme() -> str:
    return flat(ROOT / "README.md")


@pytest.fixture(scope="module")
def guide() -> str:
    return flat(ROOT / "docs" / "guides" / "llm_annotators.md")


@pytest.fixture(scope="module")
def alt(llmfao):
    """The README's call: epsilon 0.2, 95% intervals, 1,000 replicates, seed 0."""
    return quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.2, ci=0.95, seed=0,
                 **ROLES)


@pytest.fixture(scope="module")
def normalized(llmfao):
    return quiet(xa.normalized, llmfao, reference="crowd", ci=0.95, seed=0, **ROLES)


@pytest.fixture(scope="module")
def sweep(llmfao) -> pd.DataFrame:
    """Winning rate per judge (rows) and epsilon (columns) on the 0.05 grid."""
    return pd.DataFrame({eps: quiet(xa.alt_test, llmfao, reference="crowd", epsilon=eps,
                                    **ROLES).summary["winning_rate"].droplevel("label")
                         for eps in GRID})


@pytest.fixture(scope="module")
def humans(crowd) -> dict:
    return {w: dict(zip(part["pair"], part["winner"], strict=True))
            for w, part in crowd.groupby("worker")}


def judge_labels(llmfao: pd.DataFrame, name: str) -> dict:
    part = llmfao[llmfao["source"] == name]
    return {i: [v] for i, v in zip(part["pair"], part["winner"], strict=True)}


_NAIVE: dict[tuple[str, float], naive_models.AltResult] = {}


def naive_test(llmfao, humans, name: str, epsilon: float) -> naive_models.AltResult:
    """The test of SPEC section 8 in plain Python (accuracy, q 0.05, 2 raters, 30 items)."""
    if (name, epsilon) not in _NAIVE:
        _NAIVE[name, epsilon] = naive_models.alt_test(humans, judge_labels(llmfao, name),
                                                      epsilon=epsilon)
    return _NAIVE[name, epsilon]


@pytest.fixture(scope="module")
def crowd_alpha(crowd) -> float:
    """Nominal alpha of the 124 workers by the krippendorff package (workers x pairs)."""
    codes = {"left": 0, "tie": 1, "right": 2}
    grid = crowd.assign(code=crowd["winner"].map(codes)).pivot(
        index="worker", columns="pair", values="code")
    return float(krippendorff.alpha(reliability_data=grid.to_numpy(dtype=float),
                                    level_of_measurement="nominal"))


@pytest.fixture(scope="module")
def kappa_x(llmfao, crowd) -> dict[str, float]:
    """kappa_x of each judge against the crowd, from Eq 9-11 written out."""
    units = crowd.groupby("pair")["winner"].apply(list).to_dict()
    return {name: naive.kappa_x(judge_labels(llmfao, name), units) for name in JUDGES}


def tie_share(llmfao: pd.DataFrame, source: str) -> float:
    return float((llmfao.loc[llmfao["source"] == source, "winner"] == "tie").mean())


# -- the data ------------------------------------------------------------------------


def test_the_data_are_as_described(llmfao, crowd):
    assert llmfao.shape == (8931 + 2 * 2139, 4)
    assert llmfao["pair"].nunique() == 2139
    assert set(llmfao["source"]) == {"crowd", "gpt4", "gpt35"}
    assert set(llmfao["winner"]) == {"left", "tie", "right"}
    assert (crowd["worker"].nunique(), len(crowd)) == (124, 8931)
    per_pair = crowd.groupby("pair").size()
    assert (per_pair.min(), per_pair.max(), per_pair.size) == (1, 5, 2139)
    assert int((per_pair == 1).sum()) == 15  # the pairs with one worker's judgement
    for name in JUDGES:
        judge = llmfao[llmfao["source"] == name]
        assert len(judge) == judge["pair"].nunique() == 2139
        assert set(judge["worker"]) == {name}  # the judge is its own (only) rater


# -- README.md: the table and the paragraph ------------------------------------------


def test_the_readme_table_humans_won_of_49_tested(alt, llmfao, humans, readme):
    """'humans won (of 49 tested)': the library's counts equal the naive test's."""
    assert "| judge | humans won (of 49 tested) |" in readme
    for name, shown in JUDGES.items():
        row = alt.summary.loc[("winner", name)]
        ref = naive_test(llmfao, humans, name, 0.2)
        assert row["n_humans"] == len(ref.humans) == 49
        assert row["n_won"] == sum(h.won for h in ref.humans)
        assert row["winning_rate"] == ref.winning_rate
        quoted = f"| {shown} | {row['n_won']} (winning rate {row['winning_rate']:.2f}) |"
        assert quoted in readme, quoted


def _advantage_cells(alt, name: str) -> str:
    """The README table's row up to the advantage probability and its interval."""
    row = alt.summary.loc[("winner", name)]
    return (f"| {JUDGES[name]} | {row['n_won']} (winning rate {row['winning_rate']:.2f}) | "
            f"{row['advantage_probability']:.2f} [{row['advantage_lower']:.2f}, "
            f"{row['advantage_upper']:.2f}] |")


def test_the_readme_table_advantage_probability_of_gpt35(alt, llmfao, humans, readme):
    ref = naive_test(llmfao, humans, "gpt35", 0.2)
    assert alt.summary.loc[("winner", "gpt35"), "advantage_probability"] == pytest.approx(
        ref.advantage_probability, abs=1e-12)
    assert _advantage_cells(alt, "gpt35") in readme, _advantage_cells(alt, "gpt35")


def test_the_readme_table_advantage_probability_of_gpt4_point_estimate(alt, llmfao, humans,
                                                                       readme):
    ref = naive_test(llmfao, humans, "gpt4", 0.2)
    assert alt.summary.loc[("winner", "gpt4"), "advantage_probability"] == pytest.approx(
        ref.advantage_probability, abs=1e-12)
    won = sum(h.won for h in ref.humans)
    assert (f"| GPT-4 | {won} (winning rate {ref.winning_rate:.2f}) | "
            f"{ref.advantage_probability:.2f} [") in readme


def test_the_readme_table_advantage_interval_of_gpt4(alt, readme):
    assert _advantage_cells(alt, "gpt4") in readme, _advantage_cells(alt, "gpt4")


def test_the_readme_table_normalized_kappa_x_and_tie_share(normalized, kappa_x, crowd_alpha,
                                                           llmfao, readme):
    for name, shown in JUDGES.items():
        row = normalized.loc[("winner", "crowd", name)]
        # the estimate is kappa_x / IRR_crowd from the independent computations
        assert row["estimate"] == pytest.approx(kappa_x[name] / crowd_alpha, abs=1e-10)
        quoted = (f"| {row['estimate']:.2f} [{row['lower']:.2f}, {row['upper']:.2f}] | "
                  f"{tie_share(llmfao, name):.0%} |")
        assert quoted in readme, (shown, quoted)


def test_the_readme_on_the_epsilon_each_judge_needs(llmfao, readme):
    """In steps of 0.01, the first epsilon at which each judge passes, and GPT-4's wins
    at the authors' 0.1 for crowd workers."""
    fine = np.round(np.arange(0.20, 0.50, 0.01), 2)
    rates = pd.DataFrame({eps: quiet(xa.alt_test, llmfao, reference="crowd", epsilon=eps,
                                     **ROLES).summary["winning_rate"].droplevel("label")
                          for eps in fine})
    first = {name: float(min(e for e in fine if rates.loc[name, e] >= 0.5)) for name in JUDGES}
    at_01 = quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.1, **ROLES).summary
    won = int(at_01.loc[("winner", "gpt4"), "n_won"])
    quoted = (f"in steps of 0.01, GPT-4 would pass from an epsilon of {first['gpt4']:g} and "
              f"GPT-3.5 from {first['gpt35']:g}, and at the authors' suggestion for crowd "
              f"workers, 0.1, GPT-4 wins against {won} of 49")
    assert quoted in " ".join(readme.split()), quoted


def test_the_readme_advantage_difference(alt, readme):
    d = alt.differences.loc[("winner", "gpt35", "gpt4")]  # GPT-3.5 minus GPT-4
    quoted = (f"(its advantage probability minus GPT-3.5's: {-d['estimate']:.2f} "
              f"[{-d['upper']:.2f}, {-d['lower']:.2f}])")
    assert quoted in readme, quoted
    assert d["upper"] < 0 and d["p_value"] < 0.05  # GPT-4 is the better judge


def test_the_readme_crowd_alpha_and_half_its_agreement(llmfao, normalized, crowd_alpha,
                                                       readme):
    irr = quiet(xa.irr, llmfao, **ROLES)
    assert irr.loc["winner", "crowd"] == pytest.approx(crowd_alpha, abs=1e-10)
    assert f"(crowd alpha {crowd_alpha:.2f})" in readme
    # "agrees with the crowd at about half of the crowd's own agreement"
    assert 0.45 < normalized.loc[("winner", "crowd", "gpt4"), "estimate"] < 0.6
    assert "agrees with the crowd at about half of the crowd's own agreement" in readme


def test_the_readme_tie_shares(llmfao, readme):
    quoted = (f"the crowd says `tie` on {tie_share(llmfao, 'crowd'):.0%} of its judgements, "
              f"GPT-4 on {tie_share(llmfao, 'gpt4'):.0%}")
    assert quoted in readme, quoted


def test_the_readme_names_the_data(readme, llmfao, crowd):
    n_workers = crowd["worker"].nunique()
    assert (f"{llmfao['pair'].nunique():,} pairs: {n_workers} crowd workers, GPT-4, "
            "GPT-3.5") in readme
    assert "with epsilon 0.2, 1,000 replicates and seed 0" in readme


# -- the guide: what its prose says --------------------------------------------------


def test_the_guide_describes_the_data(llmfao, crowd, guide):
    per_pair = crowd.groupby("pair").size()
    assert (f"{crowd['worker'].nunique()} workers made {len(crowd):,} judgements, one to "
            f"five per pair; each judge judged every one of the "
            f"{llmfao['pair'].nunique():,} pairs once") in guide
    assert (per_pair.min(), per_pair.max()) == (1, 5)
    # "compared with one to four others": a pair has at most five workers
    assert "with a worker's judgement compared with one to four others" in guide


def test_the_guide_on_the_test_at_02(alt, llmfao, humans, crowd, guide):
    gpt4 = naive_test(llmfao, humans, "gpt4", 0.2)
    gpt35 = naive_test(llmfao, humans, "gpt35", 0.2)
    won4, won35 = sum(h.won for h in gpt4.humans), sum(h.won for h in gpt35.humans)
    assert (f"GPT-4 wins against {won4} of the {len(gpt4.humans)} workers tested (winning "
            f"rate {gpt4.winning_rate:.2f}) and GPT-3.5 against {won35} "
            f"({gpt35.winning_rate:.2f})") in guide
    # left out: workers with fewer than 30 comparable pairs, pairs with one worker
    skipped = alt.summary.loc[("winner", "gpt4"), "n_humans_skipped"]
    assert skipped == len(gpt4.skipped) == crowd["worker"].nunique() - len(gpt4.humans)
    assert (f"{skipped} of the {crowd['worker'].nunique()} workers judged fewer than 30 "
            "pairs that could be compared") in guide
    single = int((crowd.groupby("pair").size() == 1).sum())
    assert alt.summary.loc[("winner", "gpt4"), "n_items_few_humans"] == single
    assert f"{single} pairs have a single worker's judgement" in guide
    # ties, and the workers' lead over GPT-4: medians over the workers tested
    ties = np.median([h.rho_f + h.rho_h - 1 for h in gpt4.humans])
    lead = np.median([h.rho_h - h.rho_f for h in gpt4.humans])
    assert f"for GPT-4, the median share of ties over the workers tested is {ties:.0%}" \
        in guide
    assert f"The median lead over GPT-4 is {lead:.2f}" in guide
    assert lead < 0.2  # "below 0.2, but for most workers not by enough to reject"
    assert won4 < len(gpt4.humans) / 2


def test_the_guide_on_the_advantage_difference(alt, guide):
    d = alt.differences.loc[("winner", "gpt35", "gpt4")]
    assert (f"GPT-3.5's advantage probability is {-d['estimate']:.2f} below GPT-4's "
            f"(interval {-d['upper']:.2f} to {-d['lower']:.2f} in GPT-4's favour)") in guide


def test_the_guide_on_epsilon(sweep, llmfao, humans, guide):
    passing = sweep >= 0.5
    first = {name: min(eps for eps in GRID if passing.loc[name, eps]) for name in JUDGES}
    both = min(eps for eps in GRID if passing[eps].all())
    assert (first["gpt4"], both) == (0.35, 0.4)
    assert (f"On this grid, GPT-4 would pass from an epsilon of {first['gpt4']:g} and both "
            f"judges only at {both:g}") in guide
    # at the FAQ's 0.1 for crowd workers (naive test and library agree)
    at = {name: naive_test(llmfao, humans, name, 0.1) for name in JUDGES}
    won = {name: sum(h.won for h in r.humans) for name, r in at.items()}
    assert won["gpt4"] / 49 == sweep.loc["gpt4", 0.1]
    assert won["gpt35"] / 49 == sweep.loc["gpt35", 0.1]
    assert (f"GPT-4 wins against {won['gpt4']} workers of 49 and GPT-3.5 against "
            f"{won['gpt35']}") in guide
    # the authors' FAQ is quoted, and the discrepancy with the specification said
    assert "For crowd-workers, set epsilon=0.1." in guide
    assert "some put it the other way round (0.2 when the humans are crowd workers" in guide


def test_the_guide_on_agreement_with_the_crowd(llmfao, normalized, kappa_x, crowd_alpha,
                                               guide):
    gpt4 = normalized.loc[("winner", "crowd", "gpt4"), "estimate"]
    gpt35 = normalized.loc[("winner", "crowd", "gpt35"), "estimate"]
    assert 0.45 < gpt4 < 0.6 and 0.2 < gpt35 < 0.3  # "about half", "about a quarter"
    assert "GPT-4 reaches about half of the crowd's agreement, GPT-3.5 about a quarter" \
        in guide
    assert f"(Krippendorff's alpha, {crowd_alpha:.2f})" in guide
    closer = quiet(xa.compare, llmfao, reference="crowd", seed=0, **ROLES).set_index(
        ["comparison", "replication", "replication_other"])
    diff = closer.loc[("kappa_x(x, ref) - kappa_x(y, ref)", "gpt35", "gpt4")]
    assert diff["estimate"] == pytest.approx(kappa_x["gpt35"] - kappa_x["gpt4"], abs=1e-10)
    assert diff["upper"] < 0
    assert f"(`kappa_x(x, ref) - kappa_x(y, ref)`, {diff['estimate']:.2f})" in guide
    for name in JUDGES:  # "below 0 for both"
        assert closer.loc[("kappa_x(x, ref) - irr_ref", name, "crowd"), "upper"] < 0


def test_the_guide_on_the_label_distribution(llmfao, guide):
    quoted = (f"the crowd says it on {tie_share(llmfao, 'crowd'):.0%} of its judgements, "
              f"GPT-4 on {tie_share(llmfao, 'gpt4'):.0%} and GPT-3.5 on "
              f"{tie_share(llmfao, 'gpt35'):.0%}")
    assert quoted in guide, quoted


def _toy() -> pd.DataFrame:
    """The guide's synthetic gold example, built as the guide builds it."""
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, 300)

    def noisy(share):
        return np.where(rng.random(300) < share, rng.integers(0, 3, 300), truth)

    sources = ([("expert", "expert", truth)]
               + [("crowd", f"w{k}", noisy(0.4)) for k in range(4)]
               + [("model", "model", noisy(0.2))])
    return pd.concat([pd.DataFrame({"item": range(300), "source": s, "rater": r, "label": v})
                      for s, r, v in sources], ignore_index=True)


def test_the_guide_on_the_synthetic_gold(guide):
    toy = _toy()
    roles = {"item": "item", "rater": "rater", "replication": "source"}
    page = quiet(xa.report, toy, reference="crowd", gold="expert", epsilon=0.2, ci=0.95,
                 n_boot=200, seed=0, **roles).models.set_index("replication")
    units = {name: toy[toy["source"] == name].groupby("item")["label"].apply(list).to_dict()
             for name in ("expert", "crowd", "model")}
    model_kx = naive.kappa_x(units["model"], units["expert"])
    crowd_kx = naive.kappa_x(units["crowd"], units["expert"])
    assert page.loc["model", "kappa_x_gold"] == pytest.approx(model_kx, abs=1e-10)
    assert page.loc["crowd", "kappa_x_gold"] == pytest.approx(crowd_kx, abs=1e-10)
    assert bool(page.loc["model", "passed"])
    m = page.loc["model"]
    assert (f"kappa_x against the expert {model_kx:.2f} for the model and {crowd_kx:.2f} "
            f"for the crowd") in guide
    assert (f"({m['gold_difference']:.2f}, interval {m['gold_difference_lower']:.2f}-"
            f"{m['gold_difference_upper']:.2f})") in guide
    cmp = quiet(xa.compare, toy, reference="expert", n_boot=200, seed=0, **roles)
    assert list(cmp["comparison"]) == ["kappa_x(x, ref) - kappa_x(y, ref)"]  # no IRR rows
    assert cmp["estimate"].iloc[0] == pytest.approx(-m["gold_difference"], abs=1e-12)


def test_the_guide_on_the_noise_to_kappa_mapping(guide):
    """The authors' mapping (their README: 0.1 -> 0.80, ..., 0.4 -> 0.36), against the
    guide's small simulation: within 0.02."""
    authors = {0.1: 0.80, 0.2: 0.63, 0.3: 0.48, 0.4: 0.36}
    for noise, kappa in authors.items():
        run = xa.plan_alt_test(n_items=100, epsilon=0.2, human_noise=noise,
                               candidate_noise=noise, n_datasets=10, n_draws=5, seed=0)
        assert run["human_kappa"].item() == pytest.approx(kappa, abs=0.02), noise
    assert ("0.1 to about 0.80, 0.2 to 0.63, 0.3 to 0.48 and 0.4 to 0.36") in guide


def test_the_guide_on_the_small_plan(guide):
    plan = xa.plan_alt_test(n_items=[30, 50, 100], epsilon=[0.1, 0.2], n_datasets=4,
                            n_draws=5, seed=0).set_index(["epsilon", "n_items"])["passed"]
    assert (f"100 items pass at epsilon 0.2 in {plan[(0.2, 100)]:.0%} of the draws of this "
            f"run, 50 items in {plan[(0.2, 50)]:.0%}, and at 0.1 even 100 items pass in "
            f"only {plan[(0.1, 100)]:.0%}") in guide
    again = xa.plan_alt_test(n_items=[30, 50, 100, 200], epsilon=0.2, n_datasets=4,
                             n_draws=5, seed=0).set_index("n_items")["passed"]
    assert all(again[n] == plan[(0.2, n)] for n in (30, 50, 100))  # "leaves the other rows"
    assert "adding a size leaves the other rows as they were" in guide


def test_the_guide_on_model_shapes(llmfao, crowd, guide):
    """Two frames: the humans are called 'humans', in alt_test and in report()."""
    humans_only = crowd.drop(columns="source")
    models = llmfao[llmfao["source"] != "crowd"].drop(columns="source")
    out = quiet(xa.alt_test, humans_only, models, epsilon=0.2, item="pair", rater="worker")
    assert out.attrs["reference"] == "humans"
    assert "The humans' pool is called `humans` when their frame has no replication column" \
        in guide
    rep = quiet(xa.report, humans_only, models, epsilon=0.2, item="pair", rater="worker")
    assert rep.attrs["models"]["reference"] == "humans"
    assert "`crowd.xrr(...).report(models, epsilon=0.2)`" in guide


def test_the_guide_states_the_defaults(alt, guide):
    """The defaults the guide names: q, min_items, min_raters, 1,000 replicates; the
    simulation's 20 data sets x 10 draws, 4 categories and three humans."""
    test = inspect.signature(xa.alt_test).parameters
    assert (test["q"].default, test["min_items"].default, test["min_raters"].default,
            test["n_boot"].default) == (0.05, 30, 2, 1000)
    assert alt.attrs["n_boot"] == 1000
    for said in ("(`q=0.05`)", "That is `min_items=30`, the default",
                 "`min_raters=2` is the least the test can run on",
                 "1,000 replicates by default"):
        assert said in guide, said
    plan = inspect.signature(xa.plan_alt_test).parameters
    assert (plan["n_datasets"].default, plan["n_draws"].default, plan["categories"].default,
            plan["n_humans"].default) == (20, 10, 4, 3)
    for said in ("(the default is 20 data sets and 10 draws)",
                 "Set `categories` to your task's (4 by default)",
                 "With three humans and a candidate as noisy as they are"):
        assert said in guide, said
