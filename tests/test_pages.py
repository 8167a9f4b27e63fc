"""What a new-user trial found on the report pages and tables (trial 3): every sentence
and figure is checked against the numbers it describes."""

from __future__ import annotations

import functools
import itertools
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.datasets import simulate


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("weights", ["unweighted", "quadratic"])
def test_agreement_rows_without_an_interval_say_where_it_is(weights):
    """Scott's pi and Light's kappa have no analytic interval: their blank se/lower/
    upper are said in ``reason``, and the call it names runs and gives one."""
    df = simulate(n_items=200, labels=["joy"], pools=["A"], seed=1)
    table = _quiet(xa.agreement_table, df, ci=0.9, weights=weights)
    blank = table["lower"].isna() & np.isfinite(table["estimate"])
    assert set(table.index.get_level_values("metric")[blank]) == {"scott", "light"}
    assert (table.loc[~blank, "reason"] == "").all()
    for (_, _, metric), row in table[blank].iterrows():
        call = re.fullmatch(r"no analytic interval for (\w+); (irr\(data, .*\)) gives a "
                            r"bootstrap one", row["reason"])
        assert call is not None and call[1] == metric
        irr = functools.partial(xa.irr, n_boot=200, seed=1)  # the call as printed
        got = _quiet(eval, call[2], {"irr": irr, "data": df})
        est = got.iloc[0]
        assert est["estimate"] == pytest.approx(row["estimate"], abs=1e-12)
        assert est["lower"] < row["estimate"] < est["upper"]
    assert (_quiet(xa.agreement_table, df, weights=weights)["reason"] == "").all()


def _split_pool(seed: int = 3) -> pd.DataFrame:
    """Five raters per item, binary: most items split 3-2 (all tied at the top D), and on
    "awe" three items with two annotations that differ (D = 1, above the tie)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(400):
        ones = int(rng.choice([2, 3, 5], p=[0.45, 0.45, 0.1]))
        values = rng.permutation([1] * ones + [0] * (5 - ones))
        for r, v in zip(rng.choice(8, size=5, replace=False), values, strict=True):
            rows.append((f"t{i}", f"w{r}", int(v), float(v)))
    df = pd.DataFrame(rows, columns=["text", "coder", "joy", "awe"])
    df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # items interleaved
    few = [f"t{i}" for i in (150, 250, 350)]
    keep = df[df["text"].isin(few)].groupby("text").head(2).index  # two annotations left...
    df.loc[df["text"].isin(few) & ~df.index.isin(keep), "awe"] = np.nan
    for t in few:  # ... that differ
        at = df.index[(df["text"] == t) & df["awe"].notna()]
        df.loc[at, "awe"] = [0.0, 1.0]
    return df


def _naive_d(df: pd.DataFrame, label: str) -> pd.Series:
    """D_i at the nominal level from the formula: sqrt(share of the item's pairs that
    differ), items in the order they first appear in the data."""
    out = {}
    for item, values in df.groupby("text", sort=False)[label]:
        v = values.dropna().to_numpy()
        n = len(v)
        if n >= 2:
            differ = sum(a != b for k, a in enumerate(v) for b in v[k + 1:])
            out[item] = np.sqrt(differ / (n * (n - 1) / 2))
    return pd.Series(out)


_TIE_ROW = re.compile(r'<tr class="tie"><th class="label" scope="row">(\w+)</th>'
                      r'<td colspan="\d+">([\d,]+) items tied at D = ([\d.]+) \(the first '
                      r"in the data(?:'|&#39;|&#x27;)s order: ([^)]*)\)</td></tr>")

def test_items_tie_row_says_how_many_tie_at_which_d(monkeypatch):
    """Found by a new-user trial: thousands of items tie at the top D_i (every 3-2 split
    of five) and the page showed ten of them without saying so. Now the rows above the
    tie are shown one by one and the tie is one row: its count, its D and the first tied
    items in the data's order, each checked against D_i from the formula."""
    from xrr_accessor.reporting.report_html import TOP_ROWS

    df = _split_pool()
    rep = _quiet(xa.report, df, item="text", rater="coder", level="nominal")
    page = _quiet(rep.to_html)
    rows = {m[1]: m for m in _TIE_ROW.finditer(page)}
    assert set(rows) == {"joy", "awe"}
    for label in ("joy", "awe"):
        d = _naive_d(df, label).sort_values(ascending=False, kind="stable")
        last = d.iloc[TOP_ROWS - 1]
        tied = d[np.isclose(d, last, rtol=0, atol=1e-12)]
        m = rows[label]
        assert int(m[2].replace(",", "")) == len(tied)
        assert float(m[3]) == pytest.approx(last, abs=5e-4)
        first = [t.strip() for t in m[4].removesuffix(", ...").split(",")]
        assert first == [str(t) for t in tied.index[:len(first)]]
        above = d[d > last + 1e-12]  # shown one by one, above the tie row
        table = page[page.index('id="xrr-items"'):]
        for item in above.index:
            assert f'<th scope="row">{item}</th>' in table
    assert float(rows["joy"][3]) == pytest.approx(np.sqrt(0.6), abs=5e-4)  # 3-2 of five
    assert "read n_annotations beside D" in page


def _agreement_section(page: str) -> tuple[str, str]:
    """The caption and table of the one-pool page's classic-family section."""
    m = re.search(r'<section id="agreement">.*?<p class="note">(.*?)</p>(.*?)</section>',
                  page, re.S)
    assert m is not None
    return m[1].replace("&#39;", "'"), m[2]


def test_classic_table_caption_says_what_its_columns_hold():
    """Found by a new-user trial: on dask the one-pool page said the classic table's
    intervals were analytic while the table had none. The caption follows the table's
    columns: analytic intervals (naming the rows without one), none on dask, nothing
    said without ci."""
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 150)
    rows = [(f"t{i}", f"w{r}", int(truth[i] if rng.random() < 0.7 else rng.integers(0, 3)))
            for i in range(150) for r in rng.choice(6, size=3, replace=False)]
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    kw = dict(ci=0.9, n_boot=50, seed=3)
    cases = {"memory": _quiet(xa.report, df, **kw),
             "dask": _quiet(dd.from_pandas(df, npartitions=3).xrr.report(**kw).compute),
             "no ci": _quiet(xa.report, df)}
    for case, rep in cases.items():
        note, html = _agreement_section(_quiet(rep.to_html, figures=False))
        table = rep.agreement
        has = "lower" in table.columns
        assert has == ("<th>lower</th>" in html) == (case == "memory")
        assert ("Its intervals are analytic" in note) == has
        assert ("This table has no intervals: on dask-backed data" in note) == (case == "dask")
        if has:
            blank = table["lower"].isna() & np.isfinite(table["estimate"])
            names = sorted(table.index.get_level_values("metric")[blank])
            assert names == ["light", "scott"]
            said = re.search(r"; ([\w, ]+) have none \(see reason\)\.", note)
            assert said is not None and sorted(said[1].split(", ")) == names
        else:
            assert "none (see reason)" not in note


def _pools(shared: bool) -> pd.DataFrame:
    df = simulate(n_items=200, labels=["joy", "awe"], pools=["A", "B"], seed=1)
    if not shared:  # the pools share no item: kappa_x is undefined everywhere
        b = df["pool"] == "B"
        df.loc[b, "item_id"] = "b" + df.loc[b, "item_id"].astype(str)
    return df


def _pixel(ax, x: float, y: float) -> np.ndarray:
    """The RGB of the drawn figure at data point (x, y) of ``ax``."""
    fig = ax.figure
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3]
    px, py = ax.transData.transform((x, y))
    return img[img.shape[0] - round(float(py)), round(float(px))]


@pytest.mark.parametrize("shared", [True, False])
def test_figures_say_undefined_and_legends_list_what_is_drawn(shared):
    """Found by a new-user trial: with pools sharing no item the normalized-kappa_x
    heatmap was an empty white box (its "NaN" written in white) and the bar chart's
    legend listed a kappa_x bar that was not drawn. Undefined cells are grey with
    "NaN" in dark ink and counted in the title; legends list only drawn bars."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    from xrr_accessor.reporting.plotting import UNDEFINED_COLOR

    rep = _quiet(xa.report, _pools(shared), ci=0.9, n_boot=50, seed=1)
    frame = rep.frame
    norm = frame[frame["statistic"] == "normalized"].reset_index(drop=True)
    n_nan = int(norm["estimate"].isna().sum())
    assert n_nan == (0 if shared else 2)
    ax = rep.plot.heatmap()
    grey = np.round(np.array(to_rgb(UNDEFINED_COLOR)) * 255)
    for i, v in enumerate(norm["estimate"]):  # one pair: cell (i, 0)
        rgb = _pixel(ax, 0.3, i + 0.3)  # inside the cell, off its text
        assert np.allclose(rgb, grey, atol=2) == bool(np.isnan(v))
        assert not np.all(rgb > 250)  # never an empty white cell
        (text,) = [t for t in ax.texts if t.get_position() == (0, i)]
        assert text.get_text() == ("NaN" if np.isnan(v) else f"{v:.2f}")
        if np.isnan(v):
            assert np.all(np.array(to_rgb(text.get_color())) < 0.5)  # dark on grey
    assert ("grey: undefined (NaN), 2 of 2 cells" in ax.get_title()) == (not shared)
    plt.close(ax.figure)

    kx = frame[frame["statistic"] == "kappa_x"]
    ax = rep.plot.irr_vs_kappa()
    legend = ax.get_legend()
    names = [t.get_text() for t in legend.get_texts()]
    want = ["IRR A", "IRR B"] + (["kappa_x A x B"] if np.isfinite(kx["estimate"]).any()
                                 else [])
    assert names == want
    drawn = [p for p in ax.patches if np.isfinite(p.get_height())]
    irr = frame[frame["statistic"] == "irr"]
    assert len(drawn) == int(np.isfinite(irr["estimate"]).sum()
                             + np.isfinite(kx["estimate"]).sum())
    assert sum(t.get_text() == "NaN" for t in ax.texts) == int(kx["estimate"].isna().sum())
    assert ("kappa_x A x B undefined (NaN) on 2 of 2 labels" in ax.get_title()) == (
        not shared)
    plt.close(ax.figure)

    ax = rep.plot.label("joy")
    names = [t.get_text() for t in ax.get_legend().get_texts()]
    assert names == (["IRR", "kappa_x"] if shared else ["IRR"])
    assert sum(t.get_text() == "NaN" for t in ax.texts) == (0 if shared else 1)
    plt.close(ax.figure)


def test_pairwise_heatmap_tells_unshared_pairs_from_undefined_ones():
    """The rater heatmap's cells without a number: pairs that never shared an item are
    white with "none", pairs that shared items whose kappa is undefined (a single value
    throughout) grey with "NaN" in dark ink; each kind counted in the title, the
    diagonal (no pair) in neither. Found by a new-user trial: "grey: undefined (NaN),
    8112 of 17030 cells" counted 4,644 pairs that never shared an item as undefined."""
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    from xrr_accessor.reporting.plotting import (
        UNDEFINED_COLOR,
        UNSHARED_COLOR,
        pairwise_heatmap,
    )

    rows = [(i, r, (i + (r == "c")) % 2) for i in range(12) for r in "abc"]
    rows += [(i, "d", i % 2) for i in range(12, 20)] + [(i, "a", i % 2) for i in range(12, 20)]
    rows += [(i, r, 1) for i in range(20, 24) for r in "ef"]  # e, f: one value throughout
    df = pd.DataFrame(rows, columns=["item", "rater", "joy"])
    table = _quiet(xa.pairwise, df)
    joy = table.xs("joy", level="label")
    order = list(pd.unique(df["rater"]))
    matrix = joy["estimate"].unstack().reindex(index=order, columns=order).to_numpy(float)
    listed = joy["n_items"].unstack().reindex(index=order, columns=order).to_numpy(float)
    off = ~np.eye(len(matrix), dtype=bool)
    never = off & ~(np.nan_to_num(listed) > 0)
    undefined = off & np.isnan(matrix) & ~never
    # the counts, from the table: d, e and f share nothing with the others; e x f undefined
    assert never.sum() == 2 * table.attrs["n_pairs_without_items"] == 20
    assert undefined.sum() == 2
    ax = pairwise_heatmap(table)
    title = ax.get_title()
    assert (f"grey: undefined (NaN), {undefined.sum()} of {off.sum()} cells" in title
            and f"white: never shared an item, {never.sum()} of {off.sum()} cells" in title)
    for cells, colour, word in ((undefined, UNDEFINED_COLOR, "NaN"),
                                (never, UNSHARED_COLOR, "none")):
        ink = np.round(np.array(to_rgb(colour)) * 255)
        for i, j in zip(*np.nonzero(cells), strict=True):
            assert np.allclose(_pixel(ax, j + 0.3, i + 0.3), ink, atol=2), (i, j, word)
            (text,) = [t for t in ax.texts if t.get_position() == (j, i)]
            assert text.get_text() == word
            assert np.all(np.array(to_rgb(text.get_color())) < 0.5)
    assert sum(t.get_text() == "none" for t in ax.texts) == never.sum()
    assert sum(t.get_text() == "NaN" for t in ax.texts) == undefined.sum()
    plt.close(ax.figure)
    # a pair listed with 0 items: it shares items in another label, none in this one
    df["awe"] = np.where(df["rater"] == "d", np.nan, df["joy"])
    awe = _quiet(xa.pairwise, df)
    assert awe.loc[("awe", "a", "d"), "n_items"] == 0
    ax = pairwise_heatmap(awe, label="awe")
    assert "white: never shared an item, 22 of 30 cells" in ax.get_title()  # a x d too
    assert "grey: undefined (NaN), 2 of 30 cells" in ax.get_title()
    plt.close(ax.figure)
    # each pair listed once: the same cells, the same counts
    once = _quiet(xa.pairwise, df, both_orders=False)
    ax = pairwise_heatmap(once)
    assert ax.get_title() == title
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(names) == sorted(order)
    want = joy["estimate"].unstack().reindex(index=names, columns=names).to_numpy(float)
    np.testing.assert_allclose(np.ma.filled(ax.images[0].get_array(), np.nan), want,
                               equal_nan=True)
    plt.close(ax.figure)


def test_pairwise_lists_each_pair_once_on_request(tmp_path, capsys):
    """A new-user trial read every pair twice in pairwise(). Both orders are the
    documented default (unstack() gives the square matrix the heatmap draws);
    both_orders=False (``xrr pairwise --unordered``) lists each unordered pair once,
    the rater met first in the data first, each checked against sklearn."""
    from cli_helpers import cli_csv
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(6)
    rows = []
    for pool in ("P", "Q"):
        for i in range(60):
            truth = int(rng.integers(0, 3))
            for c in rng.choice(["e", "b", "d", "a", "c"], size=3, replace=False):
                rows.append((f"{pool}{i}", pool, c,
                             truth if rng.random() < 0.7 else int(rng.integers(0, 3))))
    df = pd.DataFrame(rows, columns=["text", "batch", "coder", "joy"])
    roles = dict(item="text", rater="coder", replication="batch")
    both = _quiet(xa.pairwise, df, **roles)
    once = _quiet(xa.pairwise, df, both_orders=False, **roles)
    assert len(both) == 2 * len(once) and once.attrs["both_orders"] is False
    path = tmp_path / "crowd.csv"
    df.rename(columns={"text": "item", "batch": "replication", "coder": "rater"}).to_csv(
        path, index=False)
    cli = cli_csv(capsys, "pairwise", str(path), "--unordered")
    assert len(cli) == len(once)
    for pool, part in df.groupby("batch"):
        seen = list(pd.unique(df["coder"]))  # the data's order of raters
        listed = once.xs(("joy", pool), level=["label", "replication"])
        pairs = list(listed.index)
        assert len(set(map(frozenset, pairs))) == len(pairs)  # each pair once
        assert all(seen.index(a) < seen.index(b) for a, b in pairs)
        wide = part.pivot(index="text", columns="coder", values="joy")
        for a, b in itertools.combinations(seen, 2):
            shared = wide[[a, b]].dropna()
            if not len(shared):
                assert (a, b) not in pairs
                continue
            row = listed.loc[(a, b)]
            assert row["n_items"] == len(shared)
            assert row["estimate"] == pytest.approx(
                cohen_kappa_score(shared[a], shared[b]), abs=1e-12)
            assert row["estimate"] == both.loc[("joy", pool, b, a), "estimate"]
            (line,) = cli[(cli["replication"] == pool) & (cli["rater"] == a)
                          & (cli["rater_other"] == b)].itertuples()
            assert line.estimate == pytest.approx(row["estimate"], abs=1e-12)
            assert line.n_items == row["n_items"]
