"""ICC for crowds (issue 34): the one-way ICC(1) and ICC(1,k) from every annotation.

Against a naive unbalanced one-way ANOVA written here from the formulas (loops
over items, scipy's F distribution), statsmodels' ANOVA table on unbalanced
designs, pingouin on balanced ones, Shrout & Fleiss's published ICC(1,1) and
ICC(1,4); the automatic choice of form, its attrs, the intervals' coverage of
the true ICC in simulations, the degenerate cases, ``form="all"``, the CLI and
dask-backed input.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pingouin as pg
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.coefficients import lookup
from xrr_accessor.coefficients.icc import anova, form_attrs
from xrr_accessor.coefficients.icc_oneway import CROSSED_SHARE, choose_form, oneway
from xrr_accessor.engine.pipeline import run
from xrr_accessor.errors import UndefinedWarning

import naive

SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
                          [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)


def naive_oneway(groups: list[list[float]], level: float = 0.95) -> dict[str, float]:
    """ICC(1), ICC(1,k), F, degrees of freedom, p-value and F-based limits of the
    unbalanced one-way ANOVA of ``groups`` (each item's ratings), term by term."""
    n = len(groups)
    big_n = sum(len(g) for g in groups)
    grand = sum(sum(g) for g in groups) / big_n
    means = [sum(g) / len(g) for g in groups]
    ssb = sum(len(g) * (m - grand) ** 2 for g, m in zip(groups, means, strict=True))
    ssw = sum((x - m) ** 2 for g, m in zip(groups, means, strict=True) for x in g)
    msb, msw = ssb / (n - 1), ssw / (big_n - n)
    k0 = (big_n - sum(len(g) ** 2 for g in groups) / big_n) / (n - 1)
    f, df1, df2 = msb / msw, n - 1, big_n - n
    q = 1 - (1 - level) / 2
    f_lo, f_hi = f / stats.f.ppf(q, df1, df2), f * stats.f.ppf(q, df2, df1)
    return {"1,1": (msb - msw) / (msb + (k0 - 1) * msw), "1,k": (msb - msw) / msb,
            "F": f, "df1": df1, "df2": df2, "p_value": stats.f.sf(f, df1, df2), "k": k0,
            "lower_1,1": (f_lo - 1) / (f_lo + k0 - 1), "upper_1,1": (f_hi - 1) / (f_hi + k0 - 1),
            "lower_1,k": 1 - 1 / f_lo, "upper_1,k": 1 - 1 / f_hi}


def crowd(rng: np.random.Generator, n_items: int, n_workers: int = 38, most: int = 10,
          spread: float = 1.0, noise: float = 1.0) -> pd.DataFrame:
    """Each item rated by 1..``most`` of ``n_workers`` workers, drawn anew per item."""
    rows = []
    for i in range(n_items):
        true = rng.normal(scale=spread)
        for w in rng.choice(n_workers, size=rng.integers(1, most + 1), replace=False):
            rows.append((f"i{i}", f"w{w}", 50 + true + rng.normal(scale=noise)))
    return pd.DataFrame(rows, columns=["item", "rater", "value"])


def groups_of(df: pd.DataFrame, column: str = "value") -> list[list[float]]:
    kept = df.dropna(subset=[column])
    return [list(g) for _, g in kept.groupby("item", sort=False)[column]]


@st.composite
def designs(draw):
    """Unbalanced crowd designs with missing values (NaN scores are missing ratings)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    df = crowd(rng, draw(st.integers(3, 25)), n_workers=draw(st.integers(6, 20)),
               most=draw(st.integers(2, 6)), spread=draw(st.floats(0.1, 3)))
    if draw(st.booleans()):
        df["value"] = df["value"].round(1)
    holes = rng.random(len(df)) < draw(st.floats(0, 0.2))
    df.loc[holes, "value"] = np.nan
    return df


@settings(max_examples=8, deadline=None)
@given(df=designs())
def test_equals_the_naive_unbalanced_anova(df):
    groups = groups_of(df)
    if len(groups) < 2 or sum(map(len, groups)) == len(groups):
        return  # undefined: tested in test_degenerate_cases
    want = naive_oneway(groups, 0.9)
    for form in ("1,1", "1,k"):
        got = xa.irr(df, metric="icc", form=form, ci=0.9, level="interval")
        assert got["estimate"] == pytest.approx(want[form], rel=1e-9, abs=1e-12)
        for col in ("F", "df1", "df2", "k"):
            assert got[col] == pytest.approx(want[col], rel=1e-9)
        assert got["p_value"] == pytest.approx(want["p_value"], rel=1e-7, abs=1e-12)
        assert got["lower"] == pytest.approx(want[f"lower_{form}"], rel=1e-8, abs=1e-10)
        assert got["upper"] == pytest.approx(want[f"upper_{form}"], rel=1e-8, abs=1e-10)
        assert got.attrs["n_items"] == len(groups)
        assert got.attrs["n_single"] == sum(len(g) == 1 for g in groups)


def test_mean_squares_equal_statsmodels_anova_on_unbalanced_items():
    """statsmodels' ANOVA of value ~ C(item), items with one rating kept, gives the
    mean squares of ICC(1) (k0 from the formula)."""
    df = crowd(np.random.default_rng(11), 40)
    table = sm.stats.anova_lm(smf.ols("value ~ C(item)", data=df).fit())
    msb, msw = table["mean_sq"].iloc[0], table["mean_sq"].iloc[1]
    sizes = df.groupby("item").size().to_numpy()
    k0 = (sizes.sum() - (sizes**2).sum() / sizes.sum()) / (len(sizes) - 1)
    got = xa.irr(df, metric="icc", form="1,1", ci=0.95, level="interval")
    assert (sizes == 1).any() and got.attrs["n_single"] == (sizes == 1).sum()
    assert got["estimate"] == pytest.approx((msb - msw) / (msb + (k0 - 1) * msw), rel=1e-10)
    assert got["F"] == pytest.approx(table["F"].iloc[0], rel=1e-10)
    assert got["p_value"] == pytest.approx(table["PR(>F)"].iloc[0], rel=1e-6)
    single = df.groupby("item")["value"].transform("size") == 1
    without = xa.irr(df[~single], metric="icc", form="1,1", level="interval")
    assert abs(without - got["estimate"]) > 1e-6  # the single ratings are used (in SSB)


def long_frame(x: np.ndarray) -> pd.DataFrame:
    n, k = x.shape
    return pd.DataFrame({"item": np.repeat(np.arange(n), k), "rater": np.tile(np.arange(k), n),
                         "value": x.reshape(-1)})


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 30), k=st.integers(2, 6))
def test_balanced_equals_pingouin_and_the_two_way_table(seed, n, k):
    """Complete balanced data: pingouin's ICC1 and ICC1k (and CI95%), the naive
    two-way computation (tests/naive.py) and the two-way mean squares' ICC(1,1)."""
    rng = np.random.default_rng(seed)
    x = 50 + rng.normal(size=(n, 1)) + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    long = long_frame(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pingouin's own pandas notices
        ref = pg.intraclass_corr(long, targets="item", raters="rater", ratings="value")
    r = run(long, [lookup("icc")], level="interval")
    a = anova(r.stats, r.ctx)  # the two-way table of the complete items
    old = {"1,1": (a["msr"] - a["msw"]) / (a["msr"] + (a["k"] - 1) * a["msw"]),
           "1,k": (a["msr"] - a["msw"]) / a["msr"]}
    for form, row in (("1,1", 0), ("1,k", 3)):
        got = xa.irr(long, metric="icc", form=form, ci=0.95)
        assert got["estimate"] == pytest.approx(ref["ICC"].iloc[row], rel=1e-9, abs=1e-12)
        assert got["estimate"] == pytest.approx(naive.icc(x, form), rel=1e-9, abs=1e-12)
        assert oneway(r.stats, r.ctx, form).value[0, 0] == pytest.approx(
            float(old[form][0, 0]), rel=1e-12, abs=1e-14)
        lower, upper = ref[next(c for c in ref.columns if c.startswith("CI"))].iloc[row]
        assert got["lower"] == pytest.approx(lower, abs=0.005 + 1e-9)  # pingouin rounds
        assert got["upper"] == pytest.approx(upper, abs=0.005 + 1e-9)
        assert got["F"] == pytest.approx(ref["F"].iloc[row], rel=1e-9)
        assert got["k"] == k and got["df2"] == n * (k - 1)


def test_shrout_fleiss_1979_published_and_as_a_crowd():
    """Table 4: ICC(1,1) = 0.17, ICC(1,4) = 0.44; the same when every rating has its own
    rater (anonymous slots), where the form is chosen without form=."""
    wide = pd.DataFrame(SHROUT_FLEISS).xrr(wide=True)
    assert round(wide.irr(metric="icc", form="1,1"), 2) == 0.17
    assert round(wide.irr(metric="icc", form="1,k"), 2) == 0.44
    slots = long_frame(SHROUT_FLEISS)
    slots["rater"] = np.arange(len(slots))  # 24 raters, one rating each
    r = run(slots, [lookup("icc")], level="interval")
    assert choose_form(r.stats, r.ctx)[0] == "1,1"
    got = xa.irr(slots, metric="icc")
    assert round(got, 2) == 0.17
    assert got == pytest.approx(wide.irr(metric="icc", form="1,1"), rel=1e-12)


def test_snow2008_anger_crowd_equals_pingouin_on_renumbered_slots():
    """Real crowd data (Snow et al. 2008: 100 headlines, 10 of 38 workers each, 0-100):
    chosen without form=, the one-way ICC equals pingouin's ICC(1,1) once the ratings
    are renumbered 0..9 within each item by hand (what a user had to do)."""
    from xrr_accessor.datasets.published import load_snow2008

    people = load_snow2008("anger").query("pool == 'crowd'").drop(columns="pool")
    people["response"] = people["response"].astype(float)
    assert _chosen(people)["form"] == "1,1"
    got = xa.irr(people, metric="icc", ci=0.95)
    slots = people.assign(slot=people.groupby("item_id").cumcount())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pingouin's own pandas notices
        ref = pg.intraclass_corr(slots, targets="item_id", raters="slot", ratings="response")
    assert got["estimate"] == pytest.approx(ref["ICC"].iloc[0], rel=1e-10)
    assert got["F"] == pytest.approx(ref["F"].iloc[0], rel=1e-10)
    lower, upper = ref[next(c for c in ref.columns if c.startswith("CI"))].iloc[0]
    assert got["lower"] == pytest.approx(lower, abs=0.005) and got["k"] == 10
    assert got["upper"] == pytest.approx(upper, abs=0.005) and round(got["estimate"], 3) == 0.355


def test_a_count_table_gives_the_one_way_icc():
    """A count table's raters are anonymous slots (xa.from_counts): the ICC chosen
    without form= is the one-way ICC of the ratings the counts stand for."""
    table = pd.DataFrame({"item": list("abcdef"), 1: [3, 0, 1, 2, 0, 4],
                          2: [1, 2, 2, 1, 0, 0], 3: [0, 2, 1, 1, 4, 0]})
    long = xa.from_counts(table, item="item", categories=[1, 2, 3])
    groups = [[c for c in (1, 2, 3) for _ in range(int(row[c]))]
              for _, row in table.iterrows()]
    want = naive_oneway(groups, 0.9)
    got = xa.irr(long, metric="icc", ci=0.9)
    assert got["estimate"] == pytest.approx(want["1,1"], rel=1e-12)
    assert got["lower"] == pytest.approx(want["lower_1,1"], rel=1e-9)


def _chosen(df: pd.DataFrame) -> dict[str, str]:
    return form_attrs(run(df, [lookup("icc")], level="interval"), {"form": "auto"})


def test_the_form_is_chosen_from_the_design():
    """A crowd (no item rated by every worker): the one-way ICC(1); a crossed design
    (every rater on every item): ICC(2,1); a panel with missing ratings: the one-way
    form, defined, where the two-way forms are NaN; a replication of each: the one-way
    form for both, so they stay comparable."""
    rng = np.random.default_rng(2)
    people = crowd(rng, 50)
    chosen = _chosen(people)
    assert chosen["form"] == "1,1" and "do not cross" in chosen["form_reason"]
    assert "0 of the 50 items" in chosen["form_reason"]
    assert xa.irr(people, metric="icc") == xa.irr(people, metric="icc", form="1,1")
    panel = long_frame(rng.normal(size=(20, 1)) + rng.normal(size=(20, 3)))
    assert _chosen(panel) == {"form": "2,1", "form_reason": _chosen(panel)["form_reason"]}
    assert "cross items" in _chosen(panel)["form_reason"]
    assert xa.irr(panel, metric="icc") == xa.irr(panel, metric="icc", form="2,1")
    assert _chosen(panel)["form"] != xa.irr(panel, metric="icc", form="1,1")
    holes = panel.copy()
    holes.loc[holes.index[:12:3], "value"] = np.nan  # 4 of 20 items lack a rating
    assert _chosen(holes)["form"] == "1,1"
    assert xa.irr(holes, metric="icc") == xa.irr(holes, metric="icc", form="1,1")
    assert np.isfinite(xa.irr(holes, metric="icc"))
    with pytest.warns(UndefinedWarning, match=r"lack a rating.*dropna.*form='1,1'"):
        assert np.isnan(xa.irr(holes, metric="icc", form="2,1"))
    given_form = form_attrs(run(panel, [lookup("icc")], level="interval"), {"form": "1,k"})
    assert given_form == {"form": "1,k", "form_reason": "form='1,k' given"}
    both = pd.concat([people.assign(pool="crowd"),
                      panel.assign(pool="panel", item=panel["item"].astype(str))])
    assert _chosen(both)["form"] == "1,1" and "'crowd'" in _chosen(both)["form_reason"]
    one_way = xa.irr(both, metric="icc")
    assert one_way["panel"] == pytest.approx(xa.irr(panel, metric="icc", form="1,1"), rel=1e-10)


def test_the_documented_rule_at_its_boundary():
    """docs/definitions.md: raters cross items when at least two items, and every rated
    item, are rated by every rater."""
    text = " ".join((Path(__file__).parents[1] / "docs" / "definitions.md").read_text().split())
    assert CROSSED_SHARE == 1.0 and "at least two items, and every one of its rated" in text
    rng = np.random.default_rng(12)
    panel = long_frame(rng.normal(size=(10, 1)) + rng.normal(size=(10, 3)))
    for complete, form in ((10, "2,1"), (9, "1,1")):
        holes = panel.copy()
        holes.loc[(holes["item"] >= complete) & (holes["rater"] == 2), "value"] = np.nan
        assert _chosen(holes)["form"] == form, complete
    two = panel[panel["item"] < 2].copy()
    two.loc[(two["item"] == 1) & (two["rater"] == 2), "value"] = np.nan  # 1 of 2 complete
    assert _chosen(two)["form"] == "1,1"


def test_the_result_attrs_name_the_chosen_form():
    got = xa.irr(crowd(np.random.default_rng(4), 30), metric="icc", ci=0.9)
    assert got.attrs["form"] == "1,1" and "do not cross" in got.attrs["form_reason"]


def test_an_explicit_two_way_form_on_a_crowd_names_the_one_way_form():
    people = crowd(np.random.default_rng(5), 30)
    with pytest.warns(UndefinedWarning, match=r"do not cross items: 0 of the 30 items.*"
                      r"form='1,1'") as caught:
        assert np.isnan(xa.irr(people, metric="icc", form="2,1"))
    assert len(caught) == 1
    with pytest.warns(UndefinedWarning, match=r"do not cross") as caught:
        every = xa.irr(people, metric="icc", form="all", ci=0.95)
    assert sum("do not cross" in str(w.message) for w in caught) == 1  # once for the four
    assert every.loc[["ICC1", "ICC1k"], "estimate"].notna().all()
    assert every.loc[["ICC2", "ICC3", "ICC2k", "ICC3k"], "estimate"].isna().all()
    for name, form in (("ICC1", "1,1"), ("ICC1k", "1,k")):
        alone = xa.irr(people, metric="icc", form=form, ci=0.95)
        assert every.loc[name, "estimate"] == alone["estimate"]
        assert every.loc[name, "lower"] == alone["lower"]


def test_intervals_cover_the_true_icc():
    """300 simulated crowds (one label each, the same unbalanced design) from the
    one-way model with ICC 0.4: the 90% F intervals cover it about 90% of the time,
    and each contains its estimate."""
    rng = np.random.default_rng(8)
    design = crowd(rng, 40, most=6)[["item", "rater"]]
    codes = pd.factorize(design["item"])[0]
    sims = 300
    true = rng.normal(scale=np.sqrt(0.4), size=(codes.max() + 1, sims))[codes]
    scores = true + rng.normal(scale=np.sqrt(0.6), size=(len(design), sims))
    wide = pd.concat([design, pd.DataFrame(scores, columns=[f"s{j}" for j in range(sims)])],
                     axis=1)
    got = xa.irr(wide, metric="icc", form="1,1", ci=0.9, level="interval")
    assert len(got) == sims
    assert ((got["lower"] <= got["estimate"]) & (got["estimate"] <= got["upper"])).all()
    covered = ((got["lower"] <= 0.4) & (0.4 <= got["upper"])).mean()
    assert 0.85 <= covered <= 0.95, covered


def test_degenerate_cases_are_nan_with_the_reason():
    one_item = pd.DataFrame({"item": ["a"] * 3, "rater": ["x", "y", "z"],
                             "value": [1.0, 2.0, 4.0]})
    with pytest.warns(UndefinedWarning, match="fewer than two rated items"):
        assert np.isnan(xa.irr(one_item, metric="icc", form="1,1"))
    flat = crowd(np.random.default_rng(1), 10).assign(value=3.5)
    with pytest.warns(UndefinedWarning, match="every rating has the same value"):
        assert np.isnan(xa.irr(flat, metric="icc"))
    single = pd.DataFrame({"item": ["a", "b", "c"], "rater": ["x", "y", "z"],
                           "value": [1.0, 2.0, 4.0]})
    with pytest.warns(UndefinedWarning, match="no item has two ratings"):
        assert np.isnan(xa.irr(single, metric="icc", form="1,1"))
    same_means = pd.DataFrame({"item": ["a", "a", "b", "b", "b"], "rater": list("vwxyz"),
                               "value": [1.0, 3.0, 1.0, 2.0, 3.0]})
    with pytest.warns(UndefinedWarning, match="item means are all equal"):
        assert np.isnan(xa.irr(same_means, metric="icc", form="1,k"))
    assert xa.irr(same_means, metric="icc", form="1,1") == pytest.approx(-1 / (2.4 - 1))


def test_dask_gives_the_same_numbers():
    dd = pytest.importorskip("dask.dataframe")
    people = crowd(np.random.default_rng(6), 40).sort_values("item")
    for form in (None,):
        want = xa.irr(people, metric="icc", form=form, ci=0.9)
        got = dd.from_pandas(people, npartitions=3).xrr.irr(metric="icc", form=form,
                                                             ci=0.9).compute()
        np.testing.assert_allclose(got[["estimate", "lower", "upper"]].to_numpy(float),
                                   want[["estimate", "lower", "upper"]].to_numpy(float),
                                   rtol=1e-10)


def test_cli_gives_the_one_way_icc_on_a_crowd(tmp_path, capsys):
    people = crowd(np.random.default_rng(9), 30)
    path = tmp_path / "crowd.csv"
    people.to_csv(path, index=False)
    assert main(["irr", str(path), "--metric", "icc", "--level", "interval",
                 "--format", "csv", "--decimals", "10"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    want = xa.irr(people, metric="icc", form="1,1", level="interval")
    assert printed["statistic"].iloc[0] == "icc" and printed["n_single"].iloc[0] > 0
    assert printed["estimate"].iloc[0] == pytest.approx(want, abs=1e-9)
