"""pairwise(): Cohen's kappa of every pair of raters, three ways (naive formula,
sklearn, the library's own Cohen on each two-rater subset), shared items counted,
the user's rater name kept, and its heatmap."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.errors import InputError

import naive


def _crowd(seed: int = 4) -> pd.DataFrame:
    """Five coders over 80 items, each item rated by 3 of them, two pools."""
    rng = np.random.default_rng(seed)
    rows = []
    for pool in ("P", "Q"):
        for i in range(80):
            truth = int(rng.integers(0, 3))
            for c in rng.choice(list("abcde"), size=3, replace=False):
                v = truth if rng.random() < 0.7 else int(rng.integers(0, 3))
                rows.append((f"{pool}{i}", pool, c, v))
    return pd.DataFrame(rows, columns=["text", "batch", "coder", "label_a"])


@pytest.fixture(scope="module")
def table():
    df = _crowd()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return df, xa.pairwise(df, item="text", rater="coder", replication="batch")


def test_every_pair_is_cohens_kappa_three_ways(table):
    from sklearn.metrics import cohen_kappa_score

    df, out = table
    assert out.index.names == ["label", "replication", "coder", "coder_other"]
    assert len(out) == 2 * 5 * 4
    for pool, part in df.groupby("batch"):
        wide = part.pivot(index="text", columns="coder", values="label_a")
        for a, b in itertools.permutations("abcde", 2):
            both = wide[[a, b]].dropna()
            row = out.loc[("label_a", pool, a, b)]
            assert row["n_items"] == len(both)
            want = naive.cohen(both[a].tolist(), both[b].tolist())
            assert row["estimate"] == pytest.approx(want, abs=1e-12)
            assert row["estimate"] == pytest.approx(cohen_kappa_score(both[a], both[b]),
                                                    abs=1e-12)
            sub = part[part["coder"].isin([a, b]) & part["text"].isin(both.index)]
            own = xa.irr(sub, metric="cohen", item="text", rater="coder",
                         replication="batch")
            assert row["estimate"] == pytest.approx(float(np.asarray(own).ravel()[0]),
                                                    abs=1e-12)


def test_the_matrix_is_symmetric_and_metric_names_agree(table):
    df, out = table
    m = out.xs(("label_a", "P"), level=["label", "replication"])["estimate"].unstack()
    np.testing.assert_allclose(m.to_numpy(), m.to_numpy().T, equal_nan=True)
    assert np.isnan(np.diag(m.to_numpy())).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kx = xa.pairwise(df, metric="kappa_x", item="text", rater="coder",
                         replication="batch")
        bound = df.xrr(item="text", rater="coder", replication="batch").pairwise()
    pd.testing.assert_series_equal(kx["estimate"], out["estimate"])
    pd.testing.assert_frame_equal(bound, out)
    with pytest.raises(InputError, match="metric='fleiss'"):
        xa.pairwise(df, metric="fleiss", item="text", rater="coder")


def test_pairs_with_no_shared_item_are_left_out_and_counted():
    """A sparse crowd (found by a new-user trial: 135,896 of 148,610 rows of one
    MD-Agreement domain had n_items 0): only pairs who rated an item together are
    listed; the others are counted, and the square matrix shows them as NaN."""
    df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": list("abababcd"),
                       "joy": [1, 1, 0, 1, 0, 0, 1, 0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = xa.pairwise(df)
    pairs = {(a, b) for _, a, b in out.index}
    assert pairs == {("a", "b"), ("b", "a"), ("c", "d"), ("d", "c")}
    assert out.attrs["n_pairs"] == 2 and out.attrs["n_pairs_without_items"] == 6 - 2
    assert out.loc[("joy", "c", "d"), "n_items"] == 1
    square = out.xs("joy")["estimate"].unstack()
    assert np.isnan(square.loc["a", "c"]) and np.isnan(square.loc["d", "b"])


def test_pairs_are_only_within_a_replication():
    df = pd.DataFrame({"item": [1, 1, 1, 1, 2, 2, 2, 2], "pool": list("PPQQPPQQ"),
                       "rater": list("abcdabcd"), "joy": [1, 1, 0, 1, 0, 0, 1, 0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = xa.pairwise(df, replication="pool")
    got = {(p, a, b) for _, p, a, b in out.index}
    assert got == {("P", "a", "b"), ("P", "b", "a"), ("Q", "c", "d"), ("Q", "d", "c")}
    assert out.attrs["n_pairs_without_items"] == 0


def test_heatmap_draws_the_matrix(table):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xrr_accessor.reporting.plotting import pairwise_heatmap

    _, out = table
    ax = pairwise_heatmap(out, replication="Q")
    shown = ax.images[0].get_array()
    part = out.xs(("label_a", "Q"), level=["label", "replication"])["estimate"]
    order = list(pd.unique(part.index.get_level_values(0)))  # the data's order of raters
    want = part.unstack().reindex(index=order, columns=order)
    np.testing.assert_allclose(np.ma.filled(shown, np.nan), want.to_numpy(), equal_nan=True)
    texts = {t.get_text() for t in ax.texts}
    assert f"{want.loc['a', 'b']:.2f}" in texts
    plt.close(ax.figure)
    with pytest.raises(InputError, match="replication='Z'"):
        pairwise_heatmap(out, replication="Z")


def test_heatmap_of_a_crowd_stays_readable():
    """Found by a new-user trial: 199 raters made a 91 x 81 inch figure. The figure is
    capped, and past PAIRWISE_MAX_NAMES raters the names are not drawn (said on the axis)."""
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xrr_accessor.reporting.plotting import (
        PAIRWISE_MAX_INCHES,
        PAIRWISE_MAX_NAMES,
        pairwise_heatmap,
    )

    rng = np.random.default_rng(2)
    n = PAIRWISE_MAX_NAMES + 20
    rows = [(i, f"w{r}", int(rng.integers(0, 3))) for i in range(200)
            for r in rng.choice(n, 6, replace=False)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = xa.pairwise(pd.DataFrame(rows, columns=["item", "rater", "x"]))
    ax = pairwise_heatmap(table)
    try:
        assert max(ax.figure.get_size_inches()) <= PAIRWISE_MAX_INCHES
        assert ax.images[0].get_array().shape == (n, n)
        assert not [t.get_text() for t in ax.get_xticklabels() if t.get_text().startswith("w")]
        assert f"{n} raters" in ax.get_xlabel()
    finally:
        plt.close(ax.figure)
