"""Set levels on real multi-label data: VariErr NLI (Weber-Genzel et al. 2024, ACL).

500 MNLI items, 4 expert annotators, each giving one or more NLI labels (round 1);
ChaosNLI's 100 crowd labels per item as a second replication. The data have no
license (see ../shared/data/real/varierr_nli/SOURCE.md beside the project), so they are not copied
into tests/data: these tests read the shared copy and are skipped without it.
MASI and Jaccard alpha: the library against the naive pair loop and nltk.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import pandas as pd
import pytest
from test_set_levels import NAIVE, NLTK, SET_LEVELS, _nltk_alpha, d_masi, scalar

import xrr_accessor as xa
from xrr_accessor.schema.setcells import set_cells

import naive

#: The shared data folder beside the project (../shared), as CI and this workplace have it.
VARIERR = Path(__file__).resolve().parents[2] / "shared" / "data" / "real" / "varierr_nli"
ROUND1 = VARIERR / "varierr_round1_labels_long.csv"
CHAOS = VARIERR / "varierr_chaosnli_counts.csv"
needs_varierr = pytest.mark.skipif(
    not ROUND1.exists(),
    reason="VariErr NLI has no license, so it is not bundled in tests/data; the test "
           "reads the shared copy at " + str(VARIERR))


def _varierr_units() -> dict:
    """item -> list of the raters' label sets, straight from the CSV (plain Python)."""
    by: dict = defaultdict(set)
    with ROUND1.open(newline="") as f:
        for row in csv.DictReader(f):
            by[(row["item"], row["rater"])].add(row["label"])
    out: dict = defaultdict(list)
    for (item, _), labels in sorted(by.items()):
        out[item].append(frozenset(labels))
    return dict(out)


@needs_varierr
@pytest.mark.parametrize("level", SET_LEVELS)
def test_varierr_alpha_library_equals_naive(level):
    long = pd.read_csv(ROUND1, dtype={"item": str})
    cells = set_cells(long, value="label")
    assert len(cells) == sum(map(len, _varierr_units().values())) == 1856
    assert (cells["labels"].map(len) == 2).sum() == 77  # annotations with two labels
    got = scalar(xa.irr(cells, level=level, labels=["labels"]))
    u = _varierr_units()
    # the naive loop adds 3.4 million terms one by one: rounding near 1e-12
    assert got == pytest.approx(naive.alpha(u, NAIVE[level]), rel=1e-10)
    assert got == pytest.approx(_nltk_alpha(u, NLTK[level]), abs=1e-14)


@needs_varierr
def test_varierr_experts_against_the_crowd():
    """kappa_x of the experts' label sets against ChaosNLI's 100 crowd labels per item
    (one label each, rater slots 0-99), on 40 items so the naive loop stays quick."""
    long = pd.read_csv(ROUND1, dtype={"item": str})
    counts = pd.read_csv(CHAOS, dtype={"item": str})
    items = sorted(long["item"].unique())[:40]
    experts = set_cells(long[long["item"].isin(items)], value="label").assign(pool="experts")
    crowd_rows = []
    for row in counts[counts["item"].isin(items)].itertuples():
        labels = (["entailment"] * row.chaosnli_entailment + ["neutral"] * row.chaosnli_neutral
                  + ["contradiction"] * row.chaosnli_contradiction)
        crowd_rows += [{"item": row.item, "rater": f"w{k}", "labels": [lab], "pool": "crowd"}
                       for k, lab in enumerate(labels)]
    both = pd.concat([experts.astype({"rater": str}), pd.DataFrame(crowd_rows)])
    got = scalar(xa.cross_kappa(both, level="masi", labels=["labels"]))
    x = {i: [frozenset(v) for v in g["labels"]] for i, g in experts.groupby("item")}
    y = defaultdict(list)
    for r in crowd_rows:
        y[r["item"]].append(frozenset(r["labels"]))
    assert got == pytest.approx(naive.kappa_x(y, x, d_masi), abs=1e-12)
