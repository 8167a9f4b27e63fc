"""report() on one pool (issue 21): the IRR report, its readings and its page."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import InputError
from xrr_accessor.reporting.agreement import interpret

import naive


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def pool():
    df = simulate(n_items=200, labels=["joy", "awe"], pools=["A"], seed=1)
    return df, _quiet(xa.report, df, ci=0.95, seed=0, progress=False)


def test_one_pool_is_the_irr_report(pool):
    df, rep = pool
    assert rep.one_pool and set(rep.frame["statistic"]) == {"irr"}
    assert rep.attrs["irr"] == "cohen"  # two raters: Cohen's kappa, as in the paper
    for lab in ("joy", "awe"):
        wide = df.pivot(index="item_id", columns="rater", values=lab).dropna()
        want = naive.cohen(wide.iloc[:, 0].tolist(), wide.iloc[:, 1].tolist())
        row = rep.frame[rep.frame["label"] == lab].iloc[0]
        assert row.estimate == pytest.approx(want, abs=1e-12)
        assert row.lower < row.estimate < row.upper
        assert row.band == interpret(want)
    assert "one replication: the IRR report" in rep.caption()


def test_one_pool_parts_are_the_library_functions(pool):
    df, rep = pool
    pd.testing.assert_frame_equal(rep.agreement, _quiet(xa.agreement_table, df, ci=0.95))
    assert rep.raters is None  # two raters: each against the rest is the IRR itself
    pd.testing.assert_frame_equal(rep.items, _quiet(xa.item_disagreement, df,
                                                    level="nominal"))
    assert rep.agreement.xs("percent", level="metric")["pe"].isna().all()


def test_one_pool_readings_follow_the_numbers(pool):
    _, rep = pool
    out = rep.readings()
    assert len(out) == 2
    for r in out.itertuples():
        lo, hi = interpret(r.lower), interpret(r.upper)
        assert r.text.startswith(f"On {r.label}, the raters of A agree at Cohen's kappa "
                                 f"{r.estimate:.2f} [{r.lower:.2f}, {r.upper:.2f}], "
                                 f"{interpret(r.estimate)} on Landis and Koch's scale; ")
        assert r.text.endswith(f"the interval lies within {lo}." if lo == hi
                               else f"the interval spans {lo} to {hi}.")
        assert r.verdict == interpret(r.estimate)


def test_one_pool_page(pool):
    _, rep = pool
    page = rep.to_html(figures=False)
    flat = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    for t in rep.readings()["text"]:
        assert t.replace("'", "&#39;") in page
    for section in ('id="agreement"', 'id="items"', 'id="xrr-agreement"'):
        assert section in page
    assert 'id="raters"' not in page
    assert "kappa_x and normalized" not in page.split('id="bands"')[0]
    assert "one replication: the IRR of each label" in flat
    joy = rep.frame[rep.frame["label"] == "joy"].iloc[0]
    assert f"{joy.estimate:.3f} [{joy.lower:.3f}, {joy.upper:.3f}]" in flat


def test_no_replication_column_and_no_interval():
    df = simulate(n_items=120, labels=["joy"], pools=["A"], seed=2).drop(columns="pool")
    rep = _quiet(xa.report, df)
    assert rep.frame["replication"].tolist() == ["all"]
    text = rep.readings().loc[0, "text"]
    assert text.startswith("On joy, the raters agree at Cohen's kappa ")
    assert text.endswith("(no interval: ci=0.95, or --ci 0.95 in the shell, says how far "
                         "it can move).")
    assert _quiet(df.xrr.report).frame.equals(rep.frame)
    page = rep.to_html(figures=False)
    band = rep.readings().loc[0, "verdict"]
    assert "<h3>all raters</h3>" in page and f"all raters, on joy: {band}." in page


def test_three_raters_use_alpha_and_an_undefined_label_says_so():
    rows = [(i, r, (i + (r == "c")) % 2) for i in range(40) for r in "abc"]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    df["flat"] = 1
    rep = _quiet(xa.report, df)
    assert rep.attrs["irr"] == "alpha"
    flat = rep.readings().set_index("label").loc["flat"]
    assert flat.verdict == "undefined" and "Krippendorff's alpha of the raters is undefined" \
        in flat.text


def test_three_raters_get_the_rater_table_with_min_items():
    rows = [(i, r, (i * 7 + k) % 3 == 0) for i in range(30) for k, r in enumerate("abc")]
    rows += [(i, "sparse", True) for i in range(3)]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    rep = _quiet(xa.report, df, min_items=5)
    # the report's rater table has a 95% interval by default (200 percentile replicates)
    pd.testing.assert_frame_equal(rep.raters, _quiet(xa.rater_agreement, df, min_items=5,
                                                     ci=0.95, n_boot=200, seed=0,
                                                     interval="percentile"))
    page = rep.to_html(figures=False)
    assert 'id="raters"' in page and "1 rater with fewer than 5 items is not ranked" in page
    assert "sparse" not in page.split('id="raters"')[1].split("</section>")[0]


def test_rater_agreement_min_items():
    rows = [(i, r, (i * 7 + k) % 3 == 0) for i in range(30) for k, r in enumerate("abc")]
    rows += [(i, "sparse", True) for i in range(3)]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    full = _quiet(xa.rater_agreement, df, min_items=1).droplevel("label")
    cut = _quiet(xa.rater_agreement, df, min_items=5).droplevel("label")
    assert full.loc["sparse", "rank"] >= 1
    # below min_items: counted, kept last with every value, not ranked
    assert cut.index[-1] == "sparse" and pd.isna(cut.loc["sparse", "rank"])
    assert cut.loc["sparse", "kappa_x"] == full.loc["sparse", "kappa_x"]
    assert cut.attrs["n_below_min_items"] == 1 and cut.attrs["min_items"] == 5
    ranked = cut[cut["rank"].notna()]
    assert ranked["rank"].min() == 1 and ranked["rank"].max() <= len(ranked)
    assert (ranked["n_annotations"] >= 5).all()
    with pytest.raises(InputError, match="min_items=0"):
        xa.rater_agreement(df, min_items=0)
    assert np.isfinite(ranked["kappa_x"]).all()


def test_one_pool_summary_on_xarray_is_its_irr():
    """summary() of one pool held in xarray: the IRR alone, as for a DataFrame (it
    stopped with an IndexError on the missing pairs once)."""
    rng = np.random.default_rng(4)
    import xarray as xr

    values = rng.integers(0, 3, size=(30, 4)).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    da = xr.DataArray(values, dims=("item", "rater"))
    out = _quiet(da.xrr.summary)
    assert list(out.data_vars) == ["irr"]
    assert float(out["irr"]) == pytest.approx(float(_quiet(da.xrr.irr)), abs=1e-12)
    want = naive.alpha({i: [v for v in row if np.isfinite(v)] for i, row in enumerate(values)})
    assert float(out["irr"]) == pytest.approx(want, abs=1e-12)


from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BANDS = "|".join(["poor", "slight", "fair", "moderate", "substantial", "almost perfect"])


@settings(max_examples=300, deadline=None)
@given(x=st.floats(-0.3, 1.0), a=st.floats(0, 0.3), b=st.floats(0, 0.3),
       edge=st.sampled_from([0.0, 0.2, 0.4, 0.6, 0.8]), near=st.booleans())
@example(x=0.4, a=0.0, b=8e-09, edge=0.0, near=False)  # found by CI: an upper limit
# 8e-9 above an edge printed as "0.4" (fair) in a sentence calling it moderate
@example(x=-1e-13, a=1.3e-12, b=0.0, edge=0.0, near=False)  # found in a README run: a
# lower limit of -1.4e-12 (poor) printed at 12 decimals as -1e-12, on the edge (slight)
def test_printed_numbers_fall_in_the_bands_the_sentence_names(x, a, b, edge, near):
    """Found by a new-user trial: "alpha 0.38 [0.36, 0.40] ... spans fair to moderate"
    (0.40068 is moderate; printed as 0.40 it reads as fair). Each number as printed,
    read back, falls in the band the sentence gives it."""
    from types import SimpleNamespace

    from xrr_accessor.reporting.report_pool import band_digits, irr_readings

    if near:  # limits within rounding of a band edge
        x, a, b = edge + 0.0004, 0.03, 0.0004 - 0.0003
    frame = pd.DataFrame({"statistic": ["irr"], "label": ["joy"], "replication": ["A"],
                          "estimate": [x], "lower": [x - a], "upper": [x + b]})
    text = irr_readings(SimpleNamespace(frame=frame, attrs={"irr": "alpha", "pool": "A"}),
                        2).loc[0, "text"]
    num = r"(-?[\d.]+(?:e[-+]\d+)?)"
    m = re.search(rf"alpha {num} \[{num}, {num}\], ({_BANDS}) on", text)
    assert m, text
    est, lo, hi, band = float(m[1]), float(m[2]), float(m[3]), m[4]
    assert interpret(est) == band, text
    tail = re.search(rf"the interval (?:lies within ({_BANDS})|spans ({_BANDS}) to "
                     rf"({_BANDS}))\.", text)
    assert tail, text
    first, last = (tail[1], tail[1]) if tail[1] else (tail[2], tail[3])
    assert interpret(lo) == first and interpret(hi) == last, text
    # one precision for the whole sentence: the most any of its numbers needs
    places = {len(m[i].partition(".")[2]) for i in (1, 2, 3)}
    assert len(places) == 1, text
    need = max(band_digits(v, 2) for v in (x, x - a, x + b))
    assert places == {need}, text


def test_a_sentence_prints_its_estimate_and_limits_with_one_precision():
    """Found by a new-user trial: "alpha 0.34 [0.28, 0.401]" (the third decimal keeps
    0.40068 off the fair/moderate edge) read like a typo beside two-digit numbers."""
    from types import SimpleNamespace

    from xrr_accessor.reporting.report_pool import irr_readings

    def text(x, lo, hi):
        frame = pd.DataFrame({"statistic": ["irr"], "label": ["aggressive"],
                              "replication": [None], "estimate": [x], "lower": [lo],
                              "upper": [hi]})
        rep = SimpleNamespace(frame=frame, attrs={"irr": "alpha", "pool": None})
        return irr_readings(rep, 2).loc[0, "text"]

    assert "alpha 0.340 [0.280, 0.401], fair" in text(0.3404, 0.2801, 0.40068)
    assert "alpha 0.34 [0.28, 0.39], fair" in text(0.3404, 0.2801, 0.39)
    assert "alpha 0.41, moderate" in text(0.4123, np.nan, np.nan)
    assert "alpha 0.401, moderate" in text(0.40068, np.nan, np.nan)


def test_one_pool_figures_refuse_pairs_and_draw_the_irr(pool):
    """Found by a new-user trial: heatmap() of a one-pool report drew empty axes."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, rep = pool
    for name, what in (("heatmap", "normalized kappa_x"), ("irr_vs_kappa", "kappa_x")):
        with pytest.raises(InputError, match=f"one replication, so no {what} to draw"):
            getattr(rep.plot, name)()
    ax = rep.plot.irr_hist()
    assert ax.patches or ax.lines
    plt.close("all")


def test_ordinal_pool_has_the_linear_table_and_ratio_says_why_none_and_page_keeps_its_word():
    """Found by a new-user trial: at level='ordinal' rep.agreement was None with no word,
    and the page promised "the classic coefficients below". The ordinal level now takes
    linear weights (issue 34); the ratio level has no weights of its own and says so."""
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, 60)
    rows = [(i, f"r{b}", int(np.clip(truth[i] + rng.integers(-1, 2), 1, 5)))
            for i in range(60) for b in range(3)]
    df = pd.DataFrame(rows, columns=["item", "rater", "score"])
    rep = xa.report(df, level="ordinal")
    want = xa.agreement_table(df, weights="linear")
    pd.testing.assert_series_equal(rep.agreement["estimate"], want["estimate"])
    with pytest.warns(xa.UndefinedWarning, match="no agreement table .* level='ratio'"):
        rep = xa.report(df, level="ratio")
    assert rep.agreement is None
    assert any("no agreement table" in n for n in rep.attrs["notes"])
    page = _quiet(rep.to_html)
    assert "with rater and item diagnostics above" in page
    assert "classic coefficients and" not in page


def test_page_prints_small_p_values_as_the_command_line_does(pool):
    _, rep = pool
    page = _quiet(rep.to_html)
    table = rep.agreement
    small = (table["p_value"] < 0.001).sum()
    assert small > 0 and page.count("&lt;0.001") >= small
    assert ">0.000<" not in page


def test_one_pool_report_on_dask_equals_memory_diagnostics_included():
    """Found by a new-user trial: report() of one pool on dask stopped with an IndexError
    (the lazy finish holds summed statistics, not annotations); then it gave only the
    IRR table. Now the agreement table (without intervals, said), the raters (with
    their intervals, from the IRR's seed) and the items are the in-memory ones, on
    partitions that split items."""
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 150)
    rows = [(f"t{i}", f"w{r}", int(truth[i] if rng.random() < 0.7 else rng.integers(0, 3)))
            for i in range(150) for r in rng.choice(6, size=3, replace=False)]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"]).sample(frac=1.0, random_state=2)
    kw = dict(ci=0.9, n_boot=80, seed=3)
    with pytest.warns(xa.DroppedDataWarning, match="agreement table has no intervals"):
        rep = dd.from_pandas(df, npartitions=3, sort=False).xrr.report(**kw).compute()
    mem = _quiet(xa.report, df, **kw)
    cols = ["estimate", "lower", "upper"]
    np.testing.assert_allclose(rep.frame[cols], mem.frame[cols], rtol=1e-12)
    for name in ("raters", "items"):
        pd.testing.assert_frame_equal(getattr(rep, name), getattr(mem, name), rtol=1e-12,
                                      check_index_type=False)
    assert "kappa_x_lower" in rep.raters.columns
    table = _quiet(xa.agreement_table, df)
    pd.testing.assert_frame_equal(rep.agreement, table, rtol=1e-12, check_index_type=False)
    assert rep.readings()["text"].tolist() == mem.readings()["text"].tolist()
    assert "Raters against the rest" in _quiet(rep.to_html, figures=False)


def test_one_pool_page_draws_the_raters_and_the_items():
    """Found by a new-user trial: a one-label pool's page had no figure at all."""
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(9)
    truth = rng.integers(0, 2, 60)
    rows = [(i, r, int(truth[i] if rng.random() < 0.8 else 1 - truth[i]))
            for i in range(60) for r in "abcd"]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    page = _quiet(_quiet(xa.report, df).to_html)
    alts = re.findall(r'<img[^>]*alt="([^"]+)"', page)
    assert alts == ["Raters against the rest of the pool, joy"]  # the items: equal bars
    d = _quiet(xa.item_disagreement, df)["disagreement"].nlargest(10)
    assert d.nunique() == 1  # ... so no items figure
