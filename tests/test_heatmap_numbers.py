"""The normalized kappa_x heatmap writes each cell's number in up to 200 cells (31 labels
x 3 pairs included), each the report's estimate to two decimals."""

from __future__ import annotations

import warnings

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")


def test_heatmap_numbers_at_31_labels_are_the_reports_estimates() -> None:
    from test_figure_layout import _labels

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = _labels(31).xrr(item="item_id", rater="rater", replication="pool").report()
    norm = rep.frame[rep.frame["statistic"] == "normalized"]
    try:
        ax = rep.plot.heatmap()
        written = [t.get_text() for t in ax.texts]
        assert len(written) == len(norm) == 93
        pairs = list(dict.fromkeys(zip(norm["replication"], norm["replication_other"],
                                       strict=True)))
        at = {(r.label, r.replication, r.replication_other): r.estimate
              for r in norm.itertuples()}
        want = ["NaN" if np.isnan(v) else f"{v:.2f}"  # row by row, as imshow's cells
                for v in (at[(lab, a, b)] for lab in dict.fromkeys(norm["label"])
                          for a, b in pairs)]
        assert written == want
    finally:
        plt.close("all")
