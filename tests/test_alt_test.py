"""The alternative annotator test (alt_test) against its naive reference (naive_models.py,
written from SPEC.md section 8): random data under hypothesis at every alignment, real
data (LLMFAO: a crowd and two LLM judges; HANNA: five LLMs under four prompts against
three workers), the layouts it reads, what it leaves out, its errors, and its
bootstrap against a direct computation on the same keyed draws."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xrr_accessor as xa
from xrr_accessor.engine.draws import Draws, item_keys
from xrr_accessor.errors import DroppedDataWarning, InputError, UndefinedWarning
from xrr_accessor.models.decide import benjamini_yekutieli, t_test_less

import naive
import naive_models as nm
from helpers import examples

DATA = Path(__file__).parent / "data"


def quiet(fn, *args, **kwargs):
    """Call ``fn`` with the package's warnings (left-out humans and items) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedDataWarning)
        warnings.simplefilter("ignore", UndefinedWarning)
        return fn(*args, **kwargs)


def simulated(seed: int, n_items: int = 50, n_humans: int = 5, n_cand: int = 2, k: int = 3,
              per_item: tuple[int, int] = (1, 5), f_max: int = 2, step: float = 1.0,
              missing: float = 0.1) -> pd.DataFrame:
    """Humans (a random subset of ``n_humans`` per item) and ``n_cand`` candidates with
    0..``f_max`` values per item (a model under prompts), values ``step`` x 0..k-1, some
    cells missing."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n_items):
        m = int(rng.integers(per_item[0], per_item[1] + 1))
        for h in rng.choice(n_humans, size=min(m, n_humans), replace=False):
            v = float(rng.integers(k)) * step if rng.random() > missing else np.nan
            rows.append((f"i{i}", "humans", f"h{h}", v))
        for c in range(n_cand):
            for a in range(int(rng.integers(0, f_max + 1))):
                rows.append((f"i{i}", f"model{c}", f"prompt{a}", float(rng.integers(k)) * step))
    return pd.DataFrame(rows, columns=["item", "pool", "rater", "y"])


def as_dicts(df: pd.DataFrame, cand: str, reference: str = "humans", value: str = "y",
             pool: str = "pool", item: str = "item", rater: str = "rater"
             ) -> tuple[dict, dict]:
    """The naive reference's input: humans {human: {item: value}}, candidate
    {item: [values]} (missing values left out)."""
    df = df.dropna(subset=[value])
    humans: dict = {}
    for r in df[df[pool] == reference].itertuples():
        humans.setdefault(getattr(r, rater), {})[getattr(r, item)] = getattr(r, value)
    c: dict = {}
    for r in df[df[pool] == cand].itertuples():
        c.setdefault(getattr(r, item), []).append(getattr(r, value))
    return humans, c


def ordinal_score(df: pd.DataFrame, value: str = "y", pool: str = "pool",
                  reference: str = "humans", item: str = "item") -> nm.Score:
    """-mean D of Krippendorff's ordinal metric over the humans' pairable values."""
    hum = df[(df[pool] == reference) & df[value].notna()]
    pairable = hum.groupby(item)[value].transform("size") >= 2
    return nm.neg_distance(naive.d_ordinal(list(hum.loc[pairable, value])))


def assert_equal_to_naive(out: xa.AltTest, ref: nm.AltResult, label: str, cand: str) -> None:
    """Every number of one label and candidate equals the naive result."""
    s = out.summary.loc[(label, cand)]
    if math.isnan(ref.winning_rate):
        assert math.isnan(s.winning_rate) and pd.isna(s.passed)
    else:
        assert s.winning_rate == pytest.approx(ref.winning_rate, abs=1e-12)
        assert s.advantage_probability == pytest.approx(ref.advantage_probability, abs=1e-12)
        assert bool(s.passed) == ref.passed
    assert s.n_humans == len(ref.humans)
    assert s.n_items == ref.n_items
    table = out.humans.loc[(label, cand)]
    tested = table[table["tested"]]
    assert sorted(tested.index) == sorted(r.human for r in ref.humans)
    for row in ref.humans:
        got = tested.loc[row.human]
        assert got.n_items == row.n_items
        assert got.rho_candidate == pytest.approx(row.rho_f, abs=1e-12)
        assert got.rho_human == pytest.approx(row.rho_h, abs=1e-12)
        assert got.p_value == pytest.approx(row.p_value, rel=1e-10, abs=1e-13)
        assert bool(got.won) == row.won
        assert got.alignment_candidate == pytest.approx(row.score_f, rel=1e-12, abs=1e-12)
        assert got.alignment_human == pytest.approx(row.score_h, rel=1e-12, abs=1e-12)
    skipped = table[~table["tested"]]
    assert set(skipped.index) <= set(ref.skipped)


SCORES = {  # level -> (alignment the call takes, the naive score)
    "nominal": ("accuracy", nm.accuracy),
    "interval": ("rmse", nm.neg_rmse),
    "ratio": ("distance", nm.neg_distance(naive.d_ratio)),
}


@settings(max_examples=examples(15, 100), deadline=None)
@given(seed=st.integers(0, 2**32 - 1), level=st.sampled_from(
    ["nominal", "interval", "ordinal", "ratio", "custom"]),
       n_humans=st.integers(2, 7), n_cand=st.integers(1, 3), k=st.integers(1, 5),
       f_max=st.integers(1, 3), min_items=st.integers(2, 12), epsilon=st.sampled_from(
           [0.0, 0.1, 0.2, 0.35]), q=st.sampled_from([0.05, 0.2]))
def test_alt_test_equals_naive_on_random_data(seed, level, n_humans, n_cand, k, f_max,
                                              min_items, epsilon, q):
    """Random shapes, missing values, candidates with several values per item, at each
    alignment (a callable S included): every human's counts, rates, p-value and
    decision, the winning rate and the advantage probability equal the naive ones."""
    step = 0.5 if level in ("interval", "ratio") else 1.0
    df = simulated(seed, n_humans=n_humans, n_cand=n_cand, k=k, f_max=f_max, step=step)
    kw = {"reference": "humans", "epsilon": epsilon, "q": q, "min_items": min_items}
    if level == "custom":
        def s(v, others):
            return float(np.mean([v == o for o in others]))

        out = quiet(xa.alt_test, df, alignment=s, **kw)
        score = lambda preds, others: float(np.mean([s(p, others) for p in preds]))  # noqa: E731
    elif level == "ordinal":
        out = quiet(xa.alt_test, df, level="ordinal", **kw)
        score = ordinal_score(df)
    else:
        out = quiet(xa.alt_test, df, level=level, **kw)
        assert out.attrs["alignment"] == SCORES[level][0]
        score = SCORES[level][1]
    for cand in [f"model{c}" for c in range(n_cand)]:
        humans, c = as_dicts(df, cand)
        ref = nm.alt_test(humans, c, score, epsilon=epsilon, q=q, min_items=min_items)
        assert_equal_to_naive(out, ref, "y", cand)


@pytest.fixture(scope="module")
def llmfao() -> pd.DataFrame:
    return pd.read_csv(DATA / "llmfao.csv.gz")


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alt_test_equals_naive_on_llmfao(llmfao, level):
    """LLMFAO (124 crowd workers, GPT-4 and GPT-3.5 on 2,139 pairs): accuracy, and
    Krippendorff's ordinal distance with left < tie < right, equal the naive test."""
    kw = {"item": "pair", "rater": "worker", "replication": "source"}
    if level == "ordinal":
        kw["categories"] = ["left", "tie", "right"]
    out = quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.2, level=level, **kw)
    rank = {"left": 0, "tie": 1, "right": 2}
    coded = llmfao.assign(winner=llmfao["winner"].map(rank))
    score = (nm.accuracy if level == "nominal" else
             ordinal_score(coded, "winner", "source", "crowd", "pair"))
    for cand in ("gpt4", "gpt35"):
        humans, c = as_dicts(coded, cand, "crowd", "winner", "source", "pair", "worker")
        humans = {str(h): v for h, v in humans.items()}
        ref = nm.alt_test(humans, c, score, epsilon=0.2)
        assert_equal_to_naive(out, ref, "winner", cand)
    s = out.summary
    assert (s["n_humans"] == 49).all() and (s["n_items"] == 2124).all()
    assert (s["n_items_few_humans"] == 15).all()  # the 15 pairs with one crowd judgement


def test_alt_test_rmse_equals_naive_on_hanna():
    """HANNA (three workers' 1-5 ratings; five LLMs' mean scores under four prompts,
    pooled per model): negative RMSE, equal to the naive test for every model."""
    hanna = pd.read_csv(DATA / "hanna_llm.csv.gz")
    out = quiet(xa.alt_test, hanna, reference="human", epsilon=0.15, level="interval",
                item="story", replication="pool", labels=["engagement"])
    assert out.attrs["alignment"] == "rmse"
    for cand in out.attrs["candidates"]:
        humans, c = as_dicts(hanna, cand, "human", "engagement", "pool", "story", "rater")
        ref = nm.alt_test(humans, c, nm.neg_rmse, epsilon=0.15)
        assert_equal_to_naive(out, ref, "engagement", cand)


def test_models_frame_without_replication_makes_each_rater_a_candidate(llmfao):
    """humans.xrr.alt_test(models): a long models frame (item, the model's name as
    rater, value) gives one candidate per model, the same numbers as one frame with a
    replication column; with a replication column its raters (prompts) are pooled."""
    roles = {"item": "pair", "rater": "worker"}
    crowd = llmfao[llmfao["source"] == "crowd"].drop(columns="source")
    models = llmfao[llmfao["source"] != "crowd"].drop(columns="source")
    two = quiet(crowd.xrr(**roles).alt_test, models, epsilon=0.2)
    one = quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.2, replication="source",
                **roles)
    assert two.attrs["reference"] == "humans"
    assert list(two.summary.index.get_level_values("candidate")) == ["gpt35", "gpt4"]
    pd.testing.assert_frame_equal(two.summary, one.summary, check_names=False)
    prompts = models.assign(model="judge", worker=models["worker"] + " prompt")
    pooled = quiet(crowd.xrr(**roles).alt_test, prompts.xrr(replication="model", **roles),
                   epsilon=0.2)
    assert list(pooled.summary.index.get_level_values("candidate")) == ["judge"]
    humans, c = as_dicts(llmfao[llmfao["source"] == "crowd"].assign(source="crowd"), "x",
                         "crowd", "winner", "source", "pair", "worker")
    c = {}
    for r in models.itertuples():
        c.setdefault(r.pair, []).append(r.winner)
    ref = nm.alt_test(humans, c, nm.accuracy, epsilon=0.2)
    assert_equal_to_naive(pooled, ref, "winner", "judge")


def test_alt_test_does_not_depend_on_row_order_or_modify_its_input(llmfao):
    roles = {"item": "pair", "rater": "worker", "replication": "source"}
    before = llmfao.copy()
    a = quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.2, **roles)
    pd.testing.assert_frame_equal(llmfao, before)
    shuffled = llmfao.sample(frac=1.0, random_state=3)
    b = quiet(xa.alt_test, shuffled, reference="crowd", epsilon=0.2, **roles)
    pd.testing.assert_frame_equal(a.summary, b.summary)
    pd.testing.assert_frame_equal(a.humans.sort_index(), b.humans.sort_index())


def test_alt_test_counts_and_says_what_it_leaves_out():
    """Items with one human, items without the candidate, humans under min_items: each
    counted in the summary and named in one DroppedDataWarning."""
    rows = [(i, "humans", h, i % 2) for i in range(40) for h in ("a", "b", "c")]
    rows += [(i, "humans", "d", 0) for i in range(5)]  # d: 5 items only
    rows += [(i, "humans", "a", 1) for i in range(40, 43)]  # 3 items with one human
    rows += [(i, "model", "m", i % 2) for i in range(43) if i != 7]  # no label on item 7
    df = pd.DataFrame(rows, columns=["item", "pool", "rater", "y"])
    with pytest.warns(DroppedDataWarning) as caught:
        out = xa.alt_test(df, reference="humans", epsilon=0.1)
    row = out.summary.loc[("y", "model")]
    assert (row.n_items, row.n_items_few_humans, row.n_items_no_candidate) == (39, 3, 1)
    assert (row.n_humans, row.n_humans_skipped) == (3, 1)
    text = str(caught[0].message)
    assert "min_items=30" in text and "n_items_few_humans" in text and "'humans'" in text
    assert not out.humans.loc[("y", "model", "d"), "tested"]


def test_no_human_tested_is_nan_with_a_warning():
    df = simulated(1, n_items=20)
    with pytest.warns(UndefinedWarning, match="no human of 'humans' has min_items=30"):
        out = quiet_dropped(xa.alt_test, df, reference="humans", epsilon=0.2)
    assert out.summary["winning_rate"].isna().all()
    assert out.summary["passed"].isna().all()


def quiet_dropped(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedDataWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"epsilon": 1.5}, r"epsilon=1.5: it must be a number in \[0, 1\)"),
    ({"epsilon": "0.2"}, "epsilon='0.2'"),
    ({"epsilon": 0.2, "q": 0}, "q=0 rejects nothing"),
    ({"epsilon": 0.2, "min_raters": 1}, "min_raters=1"),
    ({"epsilon": 0.2, "min_items": 1.5}, "min_items=1.5"),
    ({"epsilon": 0.2, "alignment": "f1"}, "alignment='f1'"),
    ({"epsilon": 0.2, "alignment": "rmse", "level": "nominal"}, "scores at the interval"),
    ({"epsilon": 0.2, "reference": None}, "name the human pool with reference="),
    ({"epsilon": 0.2, "reference": "crowd"}, "reference='crowd' is not a replication"),
    ({"epsilon": 0.2, "candidates": ["humans"]}, "includes the reference"),
    ({"epsilon": 0.2, "candidates": "gpt"}, "'gpt' is not a replication"),
])
def test_alt_test_refuses_bad_options_naming_the_fix(kwargs, match):
    df = simulated(2)
    kwargs = {"reference": "humans", **kwargs}
    with pytest.raises(InputError, match=match):
        xa.alt_test(df, **kwargs)


def test_alt_test_needs_a_second_pool_and_two_humans():
    one = simulated(3, n_cand=0)
    with pytest.raises(InputError, match="the data hold one pool"):
        xa.alt_test(one.drop(columns="pool"), epsilon=0.2)
    gold = pd.DataFrame({"item": range(40), "pool": "experts", "rater": "e", "y": 1})
    model = gold.assign(pool="model", rater="m")
    with pytest.raises(InputError, match="'experts' has one rater"):
        xa.alt_test(pd.concat([gold, model]), reference="experts", epsilon=0.2)


def test_ids_that_do_not_meet_are_refused_with_both_examples(llmfao):
    crowd = llmfao[llmfao["source"] == "crowd"].drop(columns="source")
    models = llmfao[llmfao["source"] != "crowd"].drop(columns="source")
    models = models.assign(pair="p" + models["pair"].astype(str))
    with pytest.raises(InputError, match=r"item ids \(e.g. \[0\]\) and the candidates' "
                                         r"\(e.g. \['p0'\]\) do not meet"):
        xa.alt_test(crowd, models, epsilon=0.2, item="pair", rater="worker")


def test_numbers_are_scored_at_the_inferred_level_and_say_so():
    """A 1-5 scale of means (HANNA's models) without level= or alignment=: the level is
    inferred as every call infers it (numbers not all whole: interval) and the alignment
    follows it (negative RMSE, the paper's for numbers), named in a LevelNote; the same
    numbers as level='interval' given. level='nominal' gives accuracy (exact matches)."""
    from xrr_accessor.errors import LevelNote

    hanna = pd.read_csv(DATA / "hanna_llm.csv.gz")
    kw = {"reference": "human", "epsilon": 0.15, "item": "story", "replication": "pool",
          "labels": ["engagement"]}
    with pytest.warns(LevelNote, match="level='interval' inferred"):
        bare = quiet_dropped(xa.alt_test, hanna, **kw)
    given = quiet_dropped(xa.alt_test, hanna, level="interval", **kw)
    assert bare.attrs["alignment"] == given.attrs["alignment"] == "rmse"
    pd.testing.assert_frame_equal(bare.summary, given.summary)
    nominal = quiet_dropped(xa.alt_test, hanna, level="nominal", **kw)
    assert nominal.attrs["alignment"] == "accuracy"


def test_t_test_and_benjamini_yekutieli_equal_their_naive_forms():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 60))
        d = rng.choice([-1, 0, 1], size=n, p=rng.dirichlet([1, 1, 1])).tolist()
        eps = float(rng.choice([0.0, 0.1, 0.2]))
        got = t_test_less(np.array([n]), np.array([sum(d)]),
                          np.array([sum(x * x for x in d)]), eps)[0]
        assert got == pytest.approx(nm.t_test_less(d, eps), rel=1e-10, abs=1e-14)
    for _ in range(200):
        p = rng.random(int(rng.integers(1, 30))) ** 3
        q = float(rng.choice([0.05, 0.1, 0.3]))
        assert benjamini_yekutieli(p, q).tolist() == nm.benjamini_yekutieli(p.tolist(), q)


def naive_replicates(df: pd.DataFrame, cand: str, weights: np.ndarray, items: pd.Index,
                     min_items: int = 30) -> np.ndarray:
    """Advantage probability of each replicate from the naive per-item wins, the
    humans tested in the estimate, each item weighted as the replicate draws it."""
    humans, c = as_dicts(df, cand)
    ref = nm.alt_test(humans, c, nm.accuracy, epsilon=0.2, min_items=min_items)
    at = {item: k for k, item in enumerate(items)}
    out = np.zeros(weights.shape[1])
    for b in range(weights.shape[1]):
        shares = []
        for row in ref.humans:
            w = np.array([weights[at[i], b] for i in row.wins])
            won = np.array(list(row.wins.values()))
            if w.sum() > 0:
                shares.append((w * won).sum() / w.sum())
        out[b] = np.mean(shares)
    return out


def test_advantage_intervals_are_the_quantiles_of_the_keyed_replicates():
    """Percentile limits of each advantage probability and of the candidates'
    difference: the quantiles of replicates computed naively under the engine's keyed
    item weights (the same draws as any call with that seed)."""
    df = simulated(5, n_items=120, n_humans=4, per_item=(3, 4), k=2)
    out = quiet(xa.alt_test, df, reference="humans", epsilon=0.2, ci=0.9, n_boot=200,
                seed=11, interval="percentile")
    items = pd.Index(pd.unique(df["item"]))
    draws = Draws.plan(len(items), 200, 11)
    weights = draws.weights(item_keys(items))
    reps = {c: naive_replicates(df, c, weights, items) for c in ("model0", "model1")}
    for c, r in reps.items():
        row = out.summary.loc[("y", c)]
        assert row.advantage_lower == pytest.approx(np.quantile(r, 0.05), abs=1e-12)
        assert row.advantage_upper == pytest.approx(np.quantile(r, 0.95), abs=1e-12)
        assert row.advantage_se == pytest.approx(np.std(r, ddof=1), abs=1e-12)
    diff = reps["model0"] - reps["model1"]
    d = out.differences.loc[("y", "model0", "model1")]
    assert d.estimate == pytest.approx(out.summary.loc[("y", "model0"), "advantage_probability"]
                                       - out.summary.loc[("y", "model1"),
                                                         "advantage_probability"])
    assert (d.lower, d.upper) == pytest.approx((np.quantile(diff, 0.05),
                                                np.quantile(diff, 0.95)), abs=1e-12)
    assert out.attrs["seed"] == 11 and out.attrs["n_boot"] == 200


@pytest.mark.parametrize("interval", ["bca", "percentile"])
def test_difference_p_values_invert_their_intervals(interval, llmfao):
    """p < 1 - ci exactly when the difference's interval leaves out 0, at several ci."""
    roles = {"item": "pair", "rater": "worker", "replication": "source"}
    for ci in (0.5, 0.8, 0.95):
        out = quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.2, ci=ci, n_boot=300,
                    seed=2, interval=interval, min_items=10, **roles)
        d = out.differences.iloc[0]
        assert (d.p_value < 1 - ci) == (d.lower > 0 or d.upper < 0)
        again = quiet(xa.alt_test, llmfao, reference="crowd", epsilon=0.2, ci=ci,
                      n_boot=300, seed=2, interval=interval, min_items=10, **roles)
        pd.testing.assert_frame_equal(out.summary, again.summary)


def test_model_outputs_in_the_shapes_people_have_them(llmfao):
    """One column per model beside the humans' rows, a table with a column per model,
    and a model x item table: the same test as the long frame of models."""
    roles = {"item": "pair", "rater": "worker"}
    crowd = llmfao[llmfao["source"] == "crowd"].drop(columns="source")
    models = llmfao[llmfao["source"] != "crowd"]
    long = quiet(crowd.xrr(**roles).alt_test, models.drop(columns="source"), epsilon=0.2)
    table = models.pivot(index="pair", columns="source", values="winner")  # item x model
    beside = crowd.merge(table, left_on="pair", right_index=True)
    by_columns = quiet(beside.xrr(**roles).alt_test, ["gpt4", "gpt35"], epsilon=0.2)
    wide = quiet(crowd.xrr(**roles).alt_test, table.xrr(wide=True), epsilon=0.2)
    transposed = table.T  # model x item, as some exports have it
    from_file = quiet(crowd.xrr(**roles).alt_test, transposed.T.xrr(wide=True), epsilon=0.2)
    for other in (by_columns, wide, from_file):
        pd.testing.assert_frame_equal(other.summary, long.summary)
    beside.loc[beside.index[0], "gpt4"] = "tie"  # a model column that varies in an item
    with pytest.raises(InputError, match="model column 'gpt4' takes different values"):
        xa.alt_test(beside, ["gpt4"], epsilon=0.2, **roles)
    two = beside.drop(columns="gpt4").assign(other_label=beside["winner"])
    with pytest.raises(InputError, match="need one label column"):
        xa.alt_test(two, ["gpt35"], epsilon=0.2, **roles)
