"""items="common": IRRs and kappa_x on the items both replications rated at least
twice, checked against naive alpha / kappa_x on the filtered items; and, at the
default, the warning that names the item counts when normalized kappa_x exceeds 1
on different item sets (issue 21: MultiPICo Italian, 243 / 309 items, kappa_x 320)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.engine.pipeline import annotations
from xrr_accessor.errors import InputError, UndefinedWarning
from xrr_accessor.reporting.summary import common_items

import naive


def _uneven(seed: int = 0) -> pd.DataFrame:
    """Two pools over overlapping item sets: common items where the pools agree, items
    rated twice only in A (noisy, lowering IRR_A), single annotations in B."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(60):  # common: both pools, two raters each, mostly the truth
        truth = int(rng.integers(0, 3))
        for pool in ("A", "B"):
            for r in (1, 2):
                v = truth if rng.random() < 0.9 else int(rng.integers(0, 3))
                rows.append((f"c{i}", pool, f"{pool}{r}", v))
    for i in range(40):  # A only, twice, noise
        for r in (1, 2):
            rows.append((f"a{i}", "A", f"A{r}", int(rng.integers(0, 3))))
    for i in range(30):  # B once: unpairable for IRR_B, pairable for kappa_x with A? no
        rows.append((f"a{i}", "B", "B1", int(rng.integers(0, 3))))
    return pd.DataFrame(rows, columns=["item", "pool", "rater", "value"])


def _units(df: pd.DataFrame, pool: str) -> dict:
    sub = df[df["pool"] == pool]
    return {i: list(g["value"]) for i, g in sub.groupby("item")}


def test_common_items_match_naive_on_the_filtered_items():
    df = _uneven()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        rep = xa.report(df, irr="alpha", items="common")
    # naive: keep the items each pool rated at least twice, then the formulas
    counts = df.groupby(["item", "pool"]).size().unstack(fill_value=0)
    keep = counts.index[(counts >= 2).all(axis=1)]
    assert len(keep) == 60
    sub = df[df["item"].isin(keep)]
    ua, ub = _units(sub, "A"), _units(sub, "B")
    got = rep.frame.set_index(["statistic", "replication"])
    assert got.loc[("irr", "A"), "estimate"] == pytest.approx(naive.alpha(ua), abs=1e-12)
    assert got.loc[("irr", "B"), "estimate"] == pytest.approx(naive.alpha(ub), abs=1e-12)
    assert got.loc[("kappa_x", "A"), "estimate"] == pytest.approx(naive.kappa_x(ua, ub),
                                                                  abs=1e-12)
    assert got.loc[("normalized", "A"), "estimate"] == pytest.approx(
        naive.normalized_kappa_x(ua, ub), abs=1e-12)
    assert (got["n_items"] == 60).all()
    assert ("items: those every replication rated at least twice, or once where it has one "
            "rater (common)") in rep.caption()
    # the same numbers from summary(), and the input is not modified
    before = df.copy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        s = xa.summary(df, items="common")
    assert s[("normalized", "A", "B")].iloc[0] == pytest.approx(
        naive.normalized_kappa_x(ua, ub), abs=1e-12)
    pd.testing.assert_frame_equal(df, before)


def test_default_warns_with_the_item_counts_when_normalized_exceeds_1():
    df = _uneven()
    with pytest.warns(UndefinedWarning, match=r"exceeds 1 where the IRRs and kappa_x use "
                      r"different item sets: 'value', A x B: [\d.]+ \(IRR items: A 100, "
                      r"B 60; kappa_x items: 90\)"):
        rep = xa.report(df, irr="alpha")
    norm = rep.frame.set_index("statistic").loc["normalized", "estimate"]
    ua, ub = _units(df, "A"), _units(df, "B")
    assert norm == pytest.approx(naive.normalized_kappa_x(ua, ub), abs=1e-12) and norm > 1
    assert any("exceeds 1" in n for n in rep.attrs["notes"])
    assert "kappa_x on the items both replications rated" in rep.caption()
    # on common items: below 1 and no such warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        common = xa.report(df, irr="alpha", items="common")
    assert not any("exceeds 1" in str(w.message) for w in caught)
    assert common.frame.set_index("statistic").loc["normalized", "estimate"] < norm


def test_normalized_alone_warns_above_1_and_takes_items_common():
    """normalized() says what summary() says when it exceeds 1 on different item sets,
    and takes the items="common" that warning recommends: the same numbers as summary."""
    df = _uneven()
    with pytest.warns(UndefinedWarning, match=r"exceeds 1 where the IRRs and kappa_x use "
                      r"different item sets: 'value', A x B: [\d.]+ \(IRR items: A 100, "
                      r"B 60; kappa_x items: 90\)"):
        alone = xa.normalized(df)
    ua, ub = _units(df, "A"), _units(df, "B")
    assert float(np.ravel(alone)[0]) == pytest.approx(naive.normalized_kappa_x(ua, ub),
                                                    abs=1e-12)
    assert alone.attrs["items"] == "all"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        common = df.xrr.normalized(items="common")
        s = xa.summary(df, items="common")
    assert not any("exceeds 1" in str(w.message) for w in caught)
    assert float(np.ravel(common)[0]) == pytest.approx(s[("normalized", "A", "B")].iloc[0],
                                                     abs=1e-14)
    assert common.attrs["items"] == "common"
    assert float(np.ravel(common)[0]) < float(np.ravel(alone)[0])
    with pytest.raises(InputError, match=r"items='some'"):
        xa.normalized(df, items="some")


def test_common_items_is_per_label_and_leaves_ann_alone():
    df = _uneven()
    df["other"] = df["value"]
    df.loc[df["item"].str.startswith("c1"), "other"] = np.nan  # label 2 misses some items
    ann, _ = annotations(df, labels=["value", "other"])
    before = ann.codes.copy()
    out = common_items(ann)
    np.testing.assert_array_equal(ann.codes, before)
    kept = [set(ann.items[ann.item[out.codes[j] >= 0]]) for j in range(2)]
    assert len(kept[0]) == 60 and kept[1] < kept[0] and len(kept[1]) == 60 - 11


def test_items_option_is_checked():
    with pytest.raises(InputError, match=r"items='some'.*'common'"):
        xa.report(_uneven(), items="some")


def test_cli_items_common_and_the_note_in_flags(tmp_path, capsys):
    """`xrr report --items common` is report(items="common"); the note about normalized
    kappa_x above 1 names the flag, not the Python argument."""
    import io

    from xrr_accessor.cli import main
    from xrr_accessor.datasets import load_demo

    df = load_demo().iloc[:, :8]
    df.to_csv(tmp_path / "demo.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = xa.report(df, items="common").frame
    assert main(["report", str(tmp_path / "demo.csv"), "--items", "common",
                 "--format", "csv"]) == 0
    got = pd.read_csv(io.StringIO(capsys.readouterr().out))
    np.testing.assert_allclose(got["estimate"], want["estimate"], rtol=1e-12)
    assert main(["demo"]) == 0
    err = capsys.readouterr().err
    assert "--items common computes all three" in err and 'items="common"' not in err


def test_a_single_rater_pool_needs_one_annotation_of_a_common_item():
    """A gold pool (one rater) is never rated twice: items="common" keeps the items the
    other pools rated twice that the gold rated once (the naive filter), instead of none,
    and kappa_x against the gold is the naive one on those items."""
    df = _uneven()
    gold = (df[df["item"].str.startswith("c")].groupby("item")["value"].first()
            .iloc[:50].rename("value").reset_index().assign(pool="gold", rater="g"))
    both = pd.concat([df, gold], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedWarning)
        rep = xa.report(both, irr="alpha", items="common")
    counts = both.groupby(["item", "pool"]).size().unstack(fill_value=0)
    keep = counts.index[(counts[["A", "B"]] >= 2).all(axis=1) & (counts["gold"] >= 1)]
    assert len(keep) == 50
    sub = both[both["item"].isin(keep)]
    got = rep.frame.set_index(["statistic", "replication", "replication_other"])
    kx = got.loc[("kappa_x", "A", "gold"), "estimate"]
    assert kx == pytest.approx(naive.kappa_x(_units(sub, "A"), _units(sub, "gold")),
                               abs=1e-12)
    assert got.loc[("kappa_x", "A", "gold"), "n_items"] == 50
