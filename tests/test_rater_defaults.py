"""Rater tables that can be trusted by default (issue 34).

A rater needs ``MIN_RATER_ITEMS`` (10) items to be ranked, at every entry point
(``rater_agreement``, ``report``, ``xrr raters``, ``xrr report``): the raters
below are counted, not ranked. ``--min-items`` means the same in both
subcommands. With a gold column the report puts each rater's agreement with
the gold beside the pool score, and says how far the two rankings agree.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.diagnostics.raters import MIN_RATER_ITEMS
from xrr_accessor.reporting.rater_view import gold_sentences, ranked, unranked_sentence

SOLO = [f"solo{k}" for k in range(4)]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _crowd(seed: int = 0, n_items: int = 40, n_raters: int = 6) -> pd.DataFrame:
    """A crowd: ``n_raters`` workers rate every item (3 categories, some noisy), four
    one-item workers rate one item each (perfectly: kappa_x 0 by construction), and
    each item's gold in column ``gold``."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    noise = np.linspace(0.1, 0.8, n_raters)
    rows = [(i, f"w{b}", int(truth[i] if rng.random() > noise[b] else rng.integers(0, 3)),
             int(truth[i])) for i in range(n_items) for b in range(n_raters)]
    rows += [(k, name, int(truth[k]), int(truth[k])) for k, name in enumerate(SOLO)]
    return pd.DataFrame(rows, columns=["item", "rater", "answer", "gold"])


def _xrr(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "xrr_accessor", *args], capture_output=True,
                          text=True, timeout=300)


def test_one_item_raters_are_never_ranked_by_default_in_the_api():
    df = _crowd()
    table = _quiet(xrr.rater_agreement, df.drop(columns="gold"), level="nominal")
    raters = table.index.get_level_values("rater")
    solo = np.isin(raters, SOLO)
    assert table["rank"][solo].isna().all() and table["rank"][~solo].notna().all()
    assert list(raters[-len(SOLO):]) != [] and set(raters[-len(SOLO):]) == set(SOLO)
    assert table.attrs["min_items"] == MIN_RATER_ITEMS == 10
    assert table.attrs["n_below_min_items"] == len(SOLO)
    # the report: the same rule, and the page lists only the ranked raters
    rep = _quiet(xrr.report, df.drop(columns="gold"), level="nominal")
    assert rep.raters["rank"][np.isin(rep.raters.index.get_level_values("rater"),
                                      SOLO)].isna().all()
    assert not np.isin(ranked(rep.raters).index.get_level_values("rater"), SOLO).any()
    page = _quiet(rep.to_html, figures=False)
    section = page.split('id="raters"')[1].split("</section>")[0]
    assert not any(name in section for name in SOLO)
    assert "4 raters with fewer than 10 items are not ranked" in section
    # min_items=1 ranks everyone: the one-item raters then sit at kappa_x 0
    every = _quiet(xrr.rater_agreement, df.drop(columns="gold"), level="nominal",
                   min_items=1)
    assert every["rank"].notna().all() and every.attrs["n_below_min_items"] == 0


def test_the_report_rater_table_has_an_interval_by_default():
    df = _crowd(1).drop(columns="gold")
    rep = _quiet(xrr.report, df, level="nominal")
    want = _quiet(xrr.rater_agreement, df, level="nominal", ci=0.95, n_boot=200, seed=0,
                  interval="percentile")
    pd.testing.assert_frame_equal(rep.raters, want)
    shown = ranked(rep.raters)
    assert (shown["kappa_x_lower"] <= shown["kappa_x"] + 1e-12).all()
    assert (shown["kappa_x"] <= shown["kappa_x_upper"] + 1e-12).all()
    assert rep.raters.attrs["n_boot"] == 200 and rep.raters.attrs["interval"] == "percentile"


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), cut=st.integers(1, 12), missing=st.floats(0.0, 0.5))
def test_unranked_count_equals_a_naive_count(seed: int, cut: int, missing: float):
    """Random crowds (each worker a random number of items, missing values per label):
    attrs' count and the rows without a rank equal a count made straight from the rows."""
    rng = np.random.default_rng(seed)
    n_rows = 160
    df = pd.DataFrame({"item": rng.integers(0, 30, n_rows),
                       "rater": rng.choice([f"r{k}" for k in range(12)], n_rows,
                                           p=np.r_[np.full(4, 0.2), np.full(8, 0.025)])})
    df = df.drop_duplicates(["item", "rater"]).reset_index(drop=True)
    for lab in ("a", "b"):
        values = rng.integers(0, 3, len(df)).astype(float)
        values[rng.random(len(df)) < missing] = np.nan
        df[lab] = values
    table = _quiet(xrr.rater_agreement, df, level="nominal", min_items=cut)
    naive = 0
    below = set()
    for lab in ("a", "b"):
        n = df.dropna(subset=[lab]).groupby("rater").size()
        naive += int(((n > 0) & (n < cut)).sum())
        below |= {(lab, r) for r in n[(n > 0) & (n < cut)].index}
    assert table.attrs["n_below_min_items"] == naive
    unranked = set(table.index[table["rank"].isna() & (table["n_annotations"] < cut)])
    assert unranked == below
    assert (table["n_annotations"][table["rank"].notna()] >= cut).all()
    enough = (table["n_annotations"] >= cut) & table["kappa_x"].notna()
    assert table["rank"][enough].notna().all()  # every rater with cut items is ranked
    said = unranked_sentence(table)
    assert (said == "") == (naive == 0)
    if naive:
        assert said.startswith(f"{naive} rater{'s' if naive != 1 else ''} ")
        assert f"fewer than {cut} items" in said


def test_min_items_flag_in_a_real_process(tmp_path, capsys):
    """--min-items N means the same in xrr raters and xrr report: the fewest items a rater
    needs to be ranked; the default leaves out the one-item workers and says how many.
    The flag in a real process (python -m xrr_accessor); the rest through main()."""
    df = _crowd(2)
    path = tmp_path / "crowd.csv"
    df.drop(columns="gold").to_csv(path, index=False)
    proc = _xrr("raters", str(path), "--level", "nominal", "--format", "csv",
                "--min-items", "1")
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(io.StringIO(proc.stdout))
    want = _quiet(xrr.rater_agreement, df.drop(columns="gold"), level="nominal", min_items=1)
    assert got["rater"].tolist() == want.index.get_level_values("rater").tolist()
    np.testing.assert_allclose(got["kappa_x"], want["kappa_x"], rtol=1e-12)
    assert "not ranked" not in proc.stderr
    assert main(["raters", str(path), "--level", "nominal", "--format", "csv"]) == 0
    out = capsys.readouterr()
    got = pd.read_csv(io.StringIO(out.out))
    assert not got["rater"].isin(SOLO).any() and len(got) == 6
    assert "4 raters with fewer than 10 items are not ranked" in out.err
    assert main(["report", str(path), "--level", "nominal", "--min-items", "41"]) == 0
    block = capsys.readouterr().out.split("Raters against the rest of the pool")[1]
    assert "10 raters with fewer than 41 items are not ranked" in block  # 40 items each
    assert main(["report", str(path), "--level", "nominal"]) == 0
    block = capsys.readouterr().out.split("Raters against the rest of the pool")[1]
    assert not any(name in block.split("not ranked")[0] for name in SOLO)
    assert "4 raters with fewer than 10 items are not ranked" in block


def test_gold_column_equals_naive_accuracy_and_cohens_kappa():
    df = _crowd(3)
    rep = _quiet(xrr.report, df, gold="gold", level="nominal")
    table = rep.raters.droplevel([n for n in rep.raters.index.names if n != "rater"])
    assert "gold" not in set(rep.frame["label"])  # the gold is not analysed as a label
    for rater, part in df.groupby("rater"):
        row = table.loc[rater]
        assert row["n_gold"] == len(part)
        assert row["gold_accuracy"] == pytest.approx((part["answer"] == part["gold"]).mean(),
                                                     abs=1e-12)
        if part["answer"].nunique() > 1 or part["gold"].nunique() > 1:
            want = cohen_kappa_score(part["answer"], part["gold"])
            assert row["gold_kappa_x"] == pytest.approx(want, abs=1e-12)
    # the pool score beside it is the rater table's own
    pool = _quiet(xrr.rater_agreement, df.drop(columns="gold"), level="nominal")
    np.testing.assert_allclose(table["kappa_x"], pool.droplevel("label")["kappa_x"],
                               rtol=1e-12)


def test_gold_column_at_the_interval_level_is_the_naive_kappa_x():
    df = _crowd(4)
    got = _quiet(xrr.report, df, gold="gold", level="interval").raters
    got = got.droplevel([n for n in got.index.names if n != "rater"])
    for rater, part in df[~df["rater"].isin(SOLO)].groupby("rater"):
        x, g = part["answer"].to_numpy(float), part["gold"].to_numpy(float)
        naive = 1 - np.mean((x - g) ** 2) / np.mean((x[:, None] - g[None, :]) ** 2)
        assert got.loc[rater, "gold_kappa_x"] == pytest.approx(naive, abs=1e-12)
        assert np.isnan(got.loc[rater, "gold_accuracy"])  # no exact matches for numbers


@pytest.mark.parametrize("seed", [5, 6])
def test_spearman_sentence_equals_scipy_on_the_table(seed):
    df = _crowd(seed, n_raters=8)
    rep = _quiet(xrr.report, df, gold="gold", level="nominal")
    shown = ranked(rep.raters)
    rho, _ = spearmanr(shown["kappa_x"], shown["gold_kappa_x"])
    (sentence,) = gold_sentences(rep.raters)
    said = re.search(r"Spearman's rho = (-?[0-9.]+) over (\d+) ranked raters", sentence)
    assert said is not None, sentence
    assert float(said.group(1)) == pytest.approx(rho, abs=0.005)
    assert int(said.group(2)) == len(shown) == 8
    shown_rho = float(said.group(1))  # the reading follows the number printed
    reading = ("a close agreement" if shown_rho >= 0.7 else "a moderate agreement"
               if shown_rho >= 0.4 else "a weak agreement" if shown_rho >= 0
               else "opposite rankings")
    assert f"ranked raters: {reading}" in sentence
    assert rep.raters.attrs["gold_spearman"][0]["rho"] == pytest.approx(rho, abs=1e-12)
    page = _quiet(rep.to_html, figures=False)
    assert f"rho = {float(said.group(1)):.2f} over 8 ranked raters" in page


def test_gold_needs_one_pool_and_a_replication_name_keeps_the_models_page():
    df = _crowd(7)
    two = pd.concat([df.assign(pool="A"), df.assign(pool="B")])
    with pytest.raises(xrr.InputError, match="several replications"):
        _quiet(xrr.report, two, gold="gold", level="nominal", replication="pool")
    with pytest.raises(SystemExit) as exc:  # the command line's --min-items is checked
        main(["raters", "x.csv", "--min-items", "0"])
    assert exc.value.code == 2


def test_a_tiny_negative_score_is_never_printed_as_minus_zero():
    """The dog-breed page listed one-item workers at "-0.000 [-0.000, -0.000]"."""
    from xrr_accessor.reporting.cells import fixed

    assert [fixed(v, 3) for v in (-2.2e-16, -0.0004, -0.0005, 0.25)] == [
        "0.000", "0.000", "-0.001", "0.250"]


@pytest.mark.parametrize(("rho", "start"), [
    (0.7, "a close agreement"), (0.69, "a moderate agreement"), (0.4, "a moderate"),
    (0.39, "a weak agreement"), (0.0, "a weak agreement"), (-0.01, "opposite rankings"),
    (-0.8, "opposite rankings")])
def test_the_spearman_reading_at_its_boundaries_and_below_zero(rho, start):
    """A negative rho is not "a weak agreement": the rankings run against each other."""
    from xrr_accessor.reporting.rater_view import reading_of

    assert reading_of(rho).startswith(start)


def test_a_page_whose_raters_all_fall_below_the_cut_says_so_without_an_empty_table():
    """Found by a new-user trial (Roitero et al.: 199 workers, 9 items each): the page
    showed a table of headers under "they keep their row"."""
    rng = np.random.default_rng(3)
    rows = [(i, f"w{i // 3}_{k}", int(rng.integers(1, 6))) for i in range(60) for k in range(3)]
    df = pd.DataFrame(rows, columns=["item", "worker", "score"])
    rep = _quiet(xrr.report, df, level="ordinal")
    assert ranked(rep.raters).empty and rep.raters.attrs["n_below_min_items"] == 60
    page = _quiet(rep.to_html, figures=False)
    assert 'id="xrr-raters"' not in page
    assert "60 raters with fewer than 10 items are not ranked (no rater to show" in page
