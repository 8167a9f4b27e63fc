"""Rosenberg & Binkowski (2004) augmented kappa and sharpening (seed 002).

The oracle is :func:`naive_kappa` below, written straight from Section 5 of
the paper with plain Python loops: one dict M per annotator (item -> label ->
weight), p(A) = sum(M_A * M_B) / N, Freq = column sums / N, p(E) = sum_y
Freq_A[y] Freq_B[y], kappa' = (p(A) - p(E)) / (1 - p(E)), over the items both
annotators annotated, then the mean over annotator pairs (the library's
documented choice for more than two annotators).

What the paper prints: Tables 1-3 (annotator A's M at p = 0.6, its column
totals and Freq_A) are reproduced exactly. The paper prints no kappa' for its
worked example (annotator B's labels are not given) and its corpus values
(average kappa' 0.299 at p = 1.0 and 0.281 at p = 0.5 over three annotators,
380 messages; classes of 92 / 183 / 58 / 47 messages) come from data that
are not published, so they cannot be recomputed; the worked kappa' values
tested here are computed by hand from the formulas.
"""

from __future__ import annotations

import copy
import math
import warnings
from fractions import Fraction
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

import xrr_accessor as xa
from xrr_accessor.errors import (
    DroppedDataWarning,
    InputError,
    RoleError,
    UndefinedWarning,
    XRRWarning,
)
from xrr_accessor.multilabel.augmented import label_weights, summed_pairs
from xrr_accessor.schema.readsets import read_sets

# --- the naive oracle ---------------------------------------------------------------


def naive_weights(labels: list, p: float) -> dict:
    """Section 5.1: one label 1.0; primary p, secondary 1 - p. For k > 2 labels the
    library's documented geometric rule: rank r weighs q^r / sum_j q^j, q = (1-p)/p."""
    if len(labels) == 1:
        return {labels[0]: 1.0}
    if len(labels) == 2:
        return {labels[0]: p, labels[1]: 1.0 - p}
    q = (1.0 - p) / p
    norm = sum(q ** j for j in range(len(labels)))
    return {lab: q ** r / norm for r, lab in enumerate(labels)}


def naive_matrices(rows: list[tuple], p: float) -> dict:
    """annotator -> item -> label -> weight (the M matrix, zeros left out)."""
    m: dict = {}
    for item, rater, labels in rows:
        m.setdefault(rater, {})[item] = naive_weights(list(labels), p)
    return m


def naive_pair(ma: dict, mb: dict) -> tuple[int, float, float, float]:
    """(N, p(A), p(E), kappa') of two annotators over the items both annotated."""
    shared = [x for x in ma if x in mb]
    n = len(shared)
    ag = 0.0
    for x in shared:
        for y in ma[x]:
            ag += ma[x][y] * mb[x].get(y, 0.0)
    p_a = ag / n
    freq_a: dict = {}
    freq_b: dict = {}
    for x in shared:
        for y, w in ma[x].items():
            freq_a[y] = freq_a.get(y, 0.0) + w / n
        for y, w in mb[x].items():
            freq_b[y] = freq_b.get(y, 0.0) + w / n
    p_e = 0.0
    for y in freq_a:
        p_e += freq_a[y] * freq_b.get(y, 0.0)
    kappa = math.nan if p_e >= 1 - 1e-12 else (p_a - p_e) / (1 - p_e)
    return n, p_a, p_e, kappa


def naive_pairs(rows: list[tuple], p: float) -> dict:
    """(rater, rater_other) -> (N, p(A), p(E), kappa') for every pair sharing an item."""
    m = naive_matrices(rows, p)
    out = {}
    for a, b in combinations(sorted(m), 2):
        if any(x in m[b] for x in m[a]):
            out[(a, b)] = naive_pair(m[a], m[b])
    return out


def naive_kappa(rows: list[tuple], p: float) -> float:
    """Mean of the pairwise kappa' over pairs that share items and are defined."""
    ks = [v[3] for v in naive_pairs(rows, p).values() if not math.isnan(v[3])]
    return sum(ks) / len(ks) if ks else math.nan


def naive_items(rows: list[tuple], tol: float = 0.05, high: float = 0.6) -> dict:
    """item -> (agreement at 1.0, at 0.5, kappa at 1.0, at 0.5, class), from the
    docstring of augmented_items."""
    out = {}
    per: dict = {}
    for p in (1.0, 0.5):
        m = naive_matrices(rows, p)
        pe = {k: v[2] for k, v in naive_pairs(rows, p).items()}
        for a, b in combinations(sorted(m), 2):
            for x in m[a]:
                if x in m[b]:
                    ag = sum(w * m[b][x].get(y, 0.0) for y, w in m[a][x].items())
                    per.setdefault(x, {}).setdefault(p, []).append((ag, pe[(a, b)]))
    for x, byp in per.items():
        agree = {p: sum(a for a, _ in v) / len(v) for p, v in byp.items()}
        kappa = {}
        for p, v in byp.items():
            ks = [(a - e) / (1 - e) for a, e in v if e < 1 - 1e-12]
            kappa[p] = sum(ks) / len(ks) if ks else math.nan
        d = agree[1.0] - agree[0.5]
        level = (kappa[1.0] + kappa[0.5]) / 2
        if d > tol:
            cls = "better at p=1.0"
        elif d < -tol:
            cls = "better at p=0.5"
        elif math.isnan(level):
            cls = None
        else:
            cls = "constant high" if level >= high else "constant low"
        out[x] = (agree[1.0], agree[0.5], kappa[1.0], kappa[0.5], cls)
    return out


def frame(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["item", "rater", "labels"])


def quiet(fn, *args, **kwargs):
    """Call without raising our warnings; return (result, their categories)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn(*args, **kwargs)
    return out, [w.category for w in caught if issubclass(w.category, XRRWarning)]


def close(got: float, want: float, tol: float = 1e-10) -> bool:
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= tol * max(1.0, abs(want))


# --- the paper's Tables 1-3 ---------------------------------------------------------

TABLE1 = [["a", "b"], ["b", "a"], ["b"], ["c"], ["c", "b"]]
#: a second annotator (not printed in the paper), who also uses label d
OTHER = [["a"], ["b", "c"], ["b"], ["d"], ["c", "a"]]


def paper_frame() -> pd.DataFrame:
    return frame([(f"Msg{i + 1}", "A", lab) for i, lab in enumerate(TABLE1)]
                 + [(f"Msg{i + 1}", "B", lab) for i, lab in enumerate(OTHER)])


def test_table2_annotation_matrix_at_p_06():
    m = xa.augmented_matrix(paper_frame(), p=0.6).loc["A"][["a", "b", "c", "d"]]
    want = [[0.6, 0.4, 0, 0], [0.4, 0.6, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0.4, 0.6, 0]]
    np.testing.assert_allclose(m.to_numpy(), want, rtol=0, atol=1e-15)
    assert list(m.index) == ["Msg1", "Msg2", "Msg3", "Msg4", "Msg5"]
    np.testing.assert_allclose(m.sum().to_numpy(), [1, 2.4, 1.6, 0], rtol=0, atol=1e-14)
    assert m.sum().sum() == pytest.approx(5.0, abs=1e-14)  # Table 2's grand total, N = 5


def test_table3_freq_a_as_the_kernel_computes_it():
    sets = read_sets(paper_frame())
    sums = summed_pairs(sets, [0.6])
    assert list(sets.categories) == ["a", "b", "c", "d"]
    assert sums.n.tolist() == [5]
    np.testing.assert_allclose(sums.freq[0, 0, 0], [0.2, 0.48, 0.32, 0], rtol=0, atol=1e-15)


def test_worked_kappa_computed_by_hand():
    # M_B at p = 0.6: (1,0,0,0), (0,.6,.4,0), (0,1,0,0), (0,0,0,1), (.4,0,.6,0)
    # Ag rows: .6, .36, 1, 0, .36 -> p(A) = 2.32 / 5
    # Freq_B = (1.4, 1.6, 1.0, 1) / 5; p(E) = .2*.28 + .48*.32 + .32*.2 + 0*.2
    p_a = Fraction(232, 500)
    p_e = (Fraction(2, 10) * Fraction(28, 100) + Fraction(48, 100) * Fraction(32, 100)
           + Fraction(32, 100) * Fraction(20, 100))
    want = float((p_a - p_e) / (1 - p_e))
    df = paper_frame()
    assert xa.augmented_kappa(df, p=0.6) == pytest.approx(want, abs=1e-14)
    table = xa.augmented_kappa(df, p=0.6, pairs=True)
    row = table.loc[("A", "B")]
    assert row["n_items"] == 5
    assert row["p_a"] == pytest.approx(float(p_a), abs=1e-14)
    assert row["p_e"] == pytest.approx(float(p_e), abs=1e-14)
    # p = 1.0: primary labels only, plain Cohen's kappa of a,b,b,c,c vs a,b,b,d,c
    assert xa.augmented_kappa(df, p=1.0) == pytest.approx(
        cohen_kappa_score(list("abbcc"), list("abbdc")), abs=1e-14)


def test_the_four_cases_of_section_4_and_the_item_classes():
    # {a,a} constant high; {a,b} constant low; {ab,ac} and {ab,a} better at p=1.0
    # ({ab,ab} too: its agreement is 1 at p=1 and 0.5 at p=0.5); {ab,ba} and {ab,b}
    # better at p=0.5 (primary and secondary swapped); {ab,cd} constant low.
    pairs = {"aa": (["a"], ["a"]), "ab": (["a"], ["b"]), "ab_ac": (["a", "b"], ["a", "c"]),
             "ab_a": (["a", "b"], ["a"]), "ab_ba": (["a", "b"], ["b", "a"]),
             "ab_b": (["a", "b"], ["b"]), "ab_cd": (["a", "b"], ["c", "d"]),
             "cc": (["c"], ["c"]), "dd": (["d"], ["d"])}
    rows = [(k, "A", v[0]) for k, v in pairs.items()] + [(k, "B", v[1])
                                                          for k, v in pairs.items()]
    table = xa.augmented_items(frame(rows))
    assert table["class"].to_dict() == {
        "aa": "constant high", "ab": "constant low", "ab_ac": "better at p=1.0",
        "ab_a": "better at p=1.0", "ab_ba": "better at p=0.5", "ab_b": "better at p=0.5",
        "ab_cd": "constant low", "cc": "constant high", "dd": "constant high"}
    assert table["agreement_1.0"]["ab_ba"] == 0.0 and table["agreement_0.5"]["ab_ba"] == 0.5
    assert table["agreement_1.0"]["ab_ac"] == 1.0
    assert table["agreement_0.5"]["ab_ac"] == 0.25
    assert list(table["class"].cat.categories) == list(xa.multilabel.augmented_items.ITEM_CLASSES)
    # the per-item kappa' average to the pair's kappa' (two annotators, every item shared)
    for p in ("1.0", "0.5"):
        assert table[f"kappa_{p}"].mean() == pytest.approx(
            xa.augmented_kappa(frame(rows), p=float(p)), abs=1e-12)


# --- the library against the naive oracle (hypothesis) ------------------------------


@st.composite
def annotated(draw, max_items: int = 8, max_raters: int = 4, max_labels: int = 2,
              max_categories: int = 5) -> list[tuple]:
    """Random (item, rater, labels) rows: missing annotations, 1..max_labels labels."""
    n_items = draw(st.integers(1, max_items))
    n_raters = draw(st.integers(2, max_raters))
    cats = list("vwxyz")[: draw(st.integers(1, max_categories))]
    missing = draw(st.sampled_from([0.0, 0.2, 0.5]))
    rows = []
    for i in range(n_items):
        for r in range(n_raters):
            if (i == 0 and r < 2) or draw(st.floats(0, 1)) >= missing:
                k = draw(st.integers(1, min(max_labels, len(cats))))
                rows.append((i, f"r{r}", list(draw(st.permutations(cats))[:k])))
    return rows


ps = st.floats(0.5, 1.0, allow_nan=False)


@settings(max_examples=150, deadline=None)
@given(rows=annotated(), p=ps)
def test_equals_the_naive_formula(rows, p):
    df = frame(rows)
    got, _ = quiet(xa.augmented_kappa, df, p=p)
    assert close(got, naive_kappa(rows, p)), (got, naive_kappa(rows, p))
    table, _ = quiet(xa.augmented_kappa, df, p=p, pairs=True)
    want = naive_pairs(rows, p)
    # pairs are listed in the order raters first appear; kappa' is symmetric
    table.index = [tuple(sorted(k)) for k in table.index]
    assert set(table.index) == set(want)
    for key, (n, p_a, p_e, kappa) in want.items():
        row = table.loc[[key]].iloc[0]
        assert row["n_items"] == n
        assert close(row["p_a"], p_a) and close(row["p_e"], p_e)
        assert close(row["kappa"], kappa)


@settings(max_examples=60, deadline=None)
@given(rows=annotated(max_labels=4, max_raters=3), p=ps)
def test_more_than_two_labels_equals_the_naive_geometric_rule(rows, p):
    got, _ = quiet(xa.augmented_kappa, frame(rows), p=p)
    assert close(got, naive_kappa(rows, p))


@settings(max_examples=60, deadline=None)
@given(rows=annotated())
def test_sweep_equals_each_p_and_items_equal_the_naive_table(rows):
    df = frame(rows)
    values = [0.5, 0.55, 0.8, 1.0]
    sweep, _ = quiet(xa.augmented_sweep, df, ps=values)
    assert list(sweep.index) == values
    for p in values:
        assert close(sweep.loc[p, "kappa"], naive_kappa(rows, p))
    items, _ = quiet(xa.augmented_items, df)
    want = naive_items(rows)
    assert set(items.index) == set(want)
    for x, (a1, a05, k1, k05, cls) in want.items():
        row = items.loc[x]
        assert close(row["agreement_1.0"], a1) and close(row["agreement_0.5"], a05)
        assert close(row["kappa_1.0"], k1) and close(row["kappa_0.5"], k05)
        assert (pd.isna(row["class"]) and cls is None) or row["class"] == cls


@settings(max_examples=100, deadline=None)
@given(rows=annotated(max_labels=1, max_raters=2), p=ps)
def test_one_label_each_is_cohens_kappa_for_any_p(rows, p):
    df = frame(rows).assign(value=lambda d: d["labels"].str[0]).drop(columns="labels")
    wide = df.pivot(index="item", columns="rater", values="value").dropna()
    assume(len(wide) >= 1)
    a, b = wide.iloc[:, 0].tolist(), wide.iloc[:, 1].tolist()
    assume(len(set(a) | set(b)) >= 2 and not (len(set(a)) == 1 and set(a) == set(b)))
    got = xa.augmented_kappa(df, p=p)
    lib = float(df.xrr(item="item", rater="rater", value="value").irr(metric="cohen"))
    sk = cohen_kappa_score(a, b)
    assert got == pytest.approx(lib, abs=1e-12)
    assert got == pytest.approx(sk, abs=1e-12)
    assert got == pytest.approx(xa.augmented_kappa(df, p=1.0), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(rows=annotated(max_labels=1, max_raters=4), p=ps)
def test_one_label_each_many_raters_is_lights_kappa(rows, p):
    df = frame(rows).assign(value=lambda d: d["labels"].str[0]).drop(columns="labels")
    got, ours = quiet(xa.augmented_kappa, df, p=p)
    lib, theirs = quiet(lambda: float(df.xrr(value="value").irr(metric="light")))
    assert close(got, lib, 1e-12)
    assert (UndefinedWarning in ours) == (UndefinedWarning in theirs)


@settings(max_examples=60, deadline=None)
@given(rows=annotated(max_labels=4), p=ps)
def test_label_weights_sum_to_one(rows, p):
    sets = read_sets(frame(rows))
    w = label_weights(sets, [p])[0]
    np.testing.assert_allclose(np.bincount(sets.annotation_of_member, weights=w), 1.0,
                               rtol=1e-12)


def test_geometric_weights_endpoints():
    sets = read_sets(frame([(1, "A", ["a", "b", "c"]), (2, "A", ["a", "b"])]))
    w = label_weights(sets, [1.0, 0.5, 0.6])
    np.testing.assert_allclose(w[0], [1, 0, 0, 1, 0], atol=1e-15)
    np.testing.assert_allclose(w[1], [1 / 3] * 3 + [0.5, 0.5], atol=1e-15)
    np.testing.assert_allclose(w[2, 3:], [0.6, 0.4], atol=1e-15)
    np.testing.assert_allclose(w[2, :3], np.array([1, 2 / 3, 4 / 9]) / (19 / 9), atol=1e-15)


# --- inputs, layouts, accessor ------------------------------------------------------


def test_long_layout_and_accessor_give_the_same_numbers():
    df = paper_frame()
    long = df.explode("labels").rename(columns={"labels": "tag", "rater": "coder"})
    long["rank"] = long.groupby(["item", "coder"]).cumcount() + 1
    want = xa.augmented_kappa(df, p=0.7)
    assert xa.augmented_kappa(long, p=0.7) == pytest.approx(want, abs=1e-15)
    assert long.xrr(rater="coder", value="tag").augmented(p=0.7) == pytest.approx(
        want, abs=1e-15)
    assert df.xrr.augmented(p=0.7) == want
    assert df.xrr(labels="labels").augmented(p=0.7) == want
    pd.testing.assert_frame_equal(df.xrr.augmented_sweep([0.6, 1.0]),
                                  xa.augmented_sweep(df, [0.6, 1.0]))
    pd.testing.assert_frame_equal(df.xrr.augmented_items(), xa.augmented_items(df))
    assert df.xrr.augmented(p=0.6, pairs=True).shape == (1, 4)


def test_inputs_are_not_modified():
    df = paper_frame()
    long = df.explode("labels").reset_index(drop=True)
    long["rank"] = long.groupby(["item", "rater"]).cumcount() + 1
    before, before_long = copy.deepcopy(df), long.copy()
    xa.augmented_kappa(df, p=0.6)
    xa.augmented_sweep(df)
    xa.augmented_items(df)
    xa.augmented_matrix(df, p=0.6)
    xa.sharpen(df, p=0.6)
    xa.augmented_kappa(long, p=0.6)
    pd.testing.assert_frame_equal(df, before)
    pd.testing.assert_frame_equal(long, before_long)
    assert [list(x) for x in df["labels"]] == TABLE1 + OTHER


@pytest.mark.parametrize("p", [0.49, 1.01, -1, 2, float("nan"), "0.6", True, None])
def test_p_outside_the_range_is_an_error_naming_p(p):
    with pytest.raises(InputError, match=r"p=.*\[0\.5, 1\]"):
        xa.augmented_kappa(paper_frame(), p=p)


def test_bad_p_everywhere():
    df = paper_frame()
    with pytest.raises(InputError, match=r"p=0\.3 is outside \[0\.5, 1\]"):
        df.xrr.augmented(p=0.3)
    with pytest.raises(InputError, match=r"p=0\.2 is outside"):
        xa.augmented_sweep(df, ps=[0.5, 0.2])
    with pytest.raises(InputError, match="ps= is empty"):
        xa.augmented_sweep(df, ps=[])
    with pytest.raises(InputError, match=r"p=1\.5 is outside"):
        xa.sharpen(df, p=1.5)
    with pytest.raises(InputError, match=r"p=0\.1 is outside"):
        xa.augmented_matrix(df, p=0.1)


def test_bad_label_sets_name_the_column_and_the_fix():
    df = paper_frame()
    empty = df.copy()
    empty.at[0, "labels"] = []
    with pytest.raises(InputError, match=r"column 'labels' has 1 empty label set.*NaN"):
        xa.augmented_kappa(empty, p=0.6)
    long = df.explode("labels").reset_index(drop=True)
    long["rank"] = long.groupby(["item", "rater"]).cumcount() + 1
    long.loc[long["rank"] == 2, "rank"] = 3
    with pytest.raises(InputError, match=r"rank column 'rank'.*gap.*without gaps"):
        xa.augmented_kappa(long, p=0.6)
    scalar = pd.DataFrame({"item": [1, 2], "rater": "A", "labels": ["a", "b"]})
    with pytest.raises(InputError, match=r"column 'labels' holds single labels.*layout="):
        xa.augmented_kappa(scalar, p=0.6, layout="sets")


def test_unordered_sets_of_two_labels_are_refused():
    df = frame([(1, "A", {"a", "b"}), (1, "B", ["a"])])
    with pytest.raises(InputError, match=r"no order.*rank column"):
        xa.augmented_kappa(df, p=0.6)
    # the error points to the coefficient that reads unordered sets (issue 21)
    with pytest.raises(InputError, match=r'level="masi"'):
        xa.augmented_kappa(df, p=0.6)
    assert np.isfinite(xa.irr(df, level="masi").iloc[0])  # and the pointer works
    unranked = frame([(1, "A", ["a", "b"]), (1, "B", ["a"])]).explode("labels")
    with pytest.raises(InputError, match="no order"):
        xa.augmented_kappa(unranked, p=0.6)
    single = frame([(1, "A", {"a"}), (1, "B", frozenset({"b"})), (2, "A", {"b"}),
                    (2, "B", {"b"})])
    assert xa.augmented_kappa(single, p=0.6) == pytest.approx(0.0)


def test_roles_that_do_not_apply_and_the_irr_metric():
    df = paper_frame().assign(pool="X")
    with pytest.raises(RoleError, match="replication="):
        df.xrr(replication="pool").augmented(p=0.6)
    with pytest.raises(InputError, match=r"augmented\(p=0\.6\)"):
        paper_frame().xrr.irr(metric="augmented")


def test_degenerate_data_are_nan_with_a_reason():
    same = frame([(i, r, ["a"]) for i in range(3) for r in "AB"])
    with pytest.warns(UndefinedWarning, match=r"p\(E\) = 1"):
        assert math.isnan(xa.augmented_kappa(same, p=0.6))
    apart = frame([(1, "A", ["a"]), (2, "B", ["b"])])
    with pytest.warns(UndefinedWarning, match="no two annotators"):
        assert math.isnan(xa.augmented_kappa(apart, p=0.6))
    with pytest.warns(UndefinedWarning, match="no two annotators"):
        assert xa.augmented_kappa(apart, p=0.6, pairs=True).empty
    # one pair undefined, one defined: the mean leaves it out and says so
    mixed = frame([(1, "A", ["a"]), (1, "B", ["a"]), (2, "A", ["a"]), (2, "B", ["a"]),
                   (3, "C", ["a"]), (3, "D", ["b"]), (4, "C", ["b"]), (4, "D", ["b"])])
    with pytest.warns(DroppedDataWarning, match="1 of 2 annotator pair"):
        assert xa.augmented_kappa(mixed, p=0.6) == pytest.approx(
            cohen_kappa_score(["a", "b"], ["b", "b"]))
    with pytest.warns(UndefinedWarning, match="A x B"):
        table = xa.augmented_kappa(mixed, p=0.6, pairs=True)
    assert math.isnan(table.loc[("A", "B"), "kappa"])
    with pytest.warns(UndefinedWarning, match="class of 3 item"):
        items = xa.augmented_items(same)
    assert items["class"].isna().all()


# --- sharpening ---------------------------------------------------------------------


def naive_sharpen(rows: list[tuple], p: float = 1.0, tol: float = 1e-6,
                  max_iter: int = 100) -> tuple[dict, dict, dict, int]:
    """Steps 1-5 of the docstring of ``sharpen`` with plain loops: (rater weights,
    item weights, item -> (top share, labels with that share), iterations)."""
    m = {(x, r): naive_weights(list(labs), p) for x, r, labs in rows}
    items = list(dict.fromkeys(x for x, _, _ in rows))
    raters = list(dict.fromkeys(r for _, r, _ in rows))
    cats = sorted({y for _, _, labs in rows for y in labs})

    def consensus(w):
        mass = {x: dict.fromkeys(cats, 0.0) for x in items}
        total = dict.fromkeys(items, 0.0)
        count = dict.fromkeys(items, 0)
        for (x, r), row in m.items():
            if w[r] > 0:
                total[x] += w[r]
                count[x] += 1
                for y, wt in row.items():
                    mass[x][y] += w[r] * wt
        v = {}
        for x in items:
            if count[x] < 2:
                v[x] = 0.0
            elif len(cats) < 2:
                v[x] = 1.0
            else:
                shares = [mass[x][y] / total[x] for y in cats]
                h = -sum(s * math.log(s) for s in shares if s > 0)
                v[x] = min(max(1 - h / math.log(len(cats)), 0.0), 1.0)
        return mass, total, v

    w = dict.fromkeys(raters, 1.0)
    mass, total, v = consensus(w)
    n_iter = 0
    while n_iter < max_iter:
        w_new = {}
        for r in raters:
            agree = seen = 0.0
            own = dict.fromkeys(cats, 0.0)
            other = dict.fromkeys(cats, 0.0)
            for (x, rr), row in m.items():
                rest = total[x] - max(w[r], 0.0)
                if rr != r or v[x] <= 0 or rest <= 1e-12 * (total[x] + 1):
                    continue
                share = {y: max((mass[x][y] - w[r] * row.get(y, 0.0)) / rest, 0.0)
                         for y in cats}
                agree += v[x] * sum(row.get(y, 0.0) * share[y] for y in cats)
                seen += v[x]
                for y in cats:
                    own[y] += v[x] * row.get(y, 0.0)
                    other[y] += v[x] * share[y]
            kappa = math.nan
            if seen > 0:
                p_a = agree / seen
                p_e = sum(own[y] * other[y] for y in cats) / seen ** 2
                if p_e < 1 - 1e-12:
                    kappa = (p_a - p_e) / (1 - p_e)
            w_new[r] = 0.0 if math.isnan(kappa) or kappa < 1e-12 else min(kappa, 1.0)
        mass, total, v_new = consensus(w_new)
        n_iter += 1
        moved = max([abs(w_new[r] - w[r]) for r in raters]
                    + [abs(v_new[x] - v[x]) for x in items])
        w, v = w_new, v_new
        if moved < tol:
            break
    top = {}
    for x in items:
        if total[x] > 0:
            best = max(mass[x].values())
            top[x] = (best / total[x], {y for y in cats if mass[x][y] >= best - 1e-9})
    return w, v, top, n_iter


@settings(max_examples=60, deadline=None)
@given(rows=annotated(max_raters=5), p=ps)
def test_sharpen_equals_the_naive_iteration(rows, p):
    """Equal to the naive iteration wherever it converges. A run that stops at max_iter
    without converging (weights oscillating) amplifies rounding differences between
    the two orders of summation, so there only the iteration count is compared."""
    out, _ = quiet(xa.sharpen, frame(rows), p=p, max_iter=30)
    w, v, top, n_iter = naive_sharpen(rows, p, max_iter=30)
    assert out.n_iter == n_iter
    if n_iter == 30:
        return
    np.testing.assert_allclose(out.rater_weights[list(w)], list(w.values()), atol=1e-9)
    np.testing.assert_allclose(out.item_weights[list(v)], list(v.values()), atol=1e-9)
    for x in v:
        if x in top:
            assert out.consensus[x] in top[x][1]
            assert out.items.loc[x, "share"] == pytest.approx(top[x][0], abs=1e-9)
        else:
            assert pd.isna(out.consensus[x]) and np.isnan(out.items.loc[x, "share"])


def test_sharpen_gives_a_contrary_rater_weight_zero():
    # D labels against the others (kappa < 0): weight 0, never negative
    labels = {"A": "xxyyzxyz", "B": "xxyyzxyz", "C": "xxyyzxyy", "D": "zyxzxzxx"}
    df = pd.DataFrame([(i, r, lab[i]) for r, lab in labels.items() for i in range(8)],
                      columns=["item", "rater", "label"])
    out = xa.sharpen(df)
    assert out.raters.loc["D", "kappa"] < 0 and out.rater_weights["D"] == 0.0
    assert (out.rater_weights[["A", "B", "C"]] > 0.9).all()
    assert "".join(out.consensus) == "xxyyzxyz"


def planted(seed: int, n_items: int = 150, n_good: int = 6, n_noisy: int = 2,
            n_cat: int = 4, accuracy: float = 0.75, missing: float = 0.2):
    """Items with a true label; good raters right with probability ``accuracy`` (else
    a random other label), noisy raters uniformly random. Some annotations missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cat, n_items)
    rows = []
    raters = [f"good{j}" for j in range(n_good)] + [f"noisy{j}" for j in range(n_noisy)]
    for r in raters:
        for i in range(n_items):
            if rng.random() < missing:
                continue
            if r.startswith("noisy"):
                lab = int(rng.integers(0, n_cat))
            elif rng.random() < accuracy:
                lab = int(truth[i])
            else:
                lab = int((truth[i] + rng.integers(1, n_cat)) % n_cat)
            rows.append((i, r, lab))
    return pd.DataFrame(rows, columns=["item", "rater", "label"]), truth, raters


@pytest.mark.parametrize("seed", range(5))
def test_sharpen_converges_and_finds_the_noisy_raters(seed):
    df, truth, raters = planted(seed)
    out = xa.sharpen(df, max_iter=100)
    assert out.converged and out.n_iter < 100
    weights = out.rater_weights
    noisy = [r for r in raters if r.startswith("noisy")]
    assert set(weights.nsmallest(len(noisy)).index) == set(noisy)
    assert weights[noisy].max() < weights.drop(noisy).min()
    # the weighted consensus recovers the truth at least as well as the plain majority
    majority = df.groupby("item")["label"].agg(lambda s: s.value_counts().index[0])
    cons = out.consensus.reindex(majority.index)
    assert (cons.to_numpy() == truth[majority.index]).mean() >= (
        majority.to_numpy() == truth[majority.index]).mean() - 0.02
    assert ((out.item_weights >= 0) & (out.item_weights <= 1)).all()
    assert out.items["n_annotations"].sum() == len(df)


def test_sharpen_with_set_valued_annotations_and_the_accessor():
    df, _, _ = planted(7, n_items=80)
    # give the good raters a secondary label now and then
    rng = np.random.default_rng(1)
    df["labels"] = [[v, (v + 1) % 4] if rng.random() < 0.3 else [v] for v in df["label"]]
    sets_df = df.drop(columns="label")
    out = sets_df.xrr.sharpen(p=0.7)
    assert out.converged
    assert set(out.rater_weights.nsmallest(2).index) == {"noisy0", "noisy1"}
    again = xa.sharpen(sets_df, p=0.7)
    pd.testing.assert_frame_equal(out.raters, again.raters)
    assert "Sharpened(8 raters" in repr(out)


def test_sharpen_options_and_warnings():
    df, _, _ = planted(0, n_items=40)
    with pytest.warns(XRRWarning, match="did not converge in max_iter=1"):
        out = xa.sharpen(df, max_iter=1)
    assert out.n_iter == 1 and not out.converged
    for bad in (0, -1, 2.5, True):
        with pytest.raises(InputError, match="max_iter"):
            xa.sharpen(df, max_iter=bad)
    for bad in (0, -1e-3, float("nan")):
        with pytest.raises(InputError, match="tol"):
            xa.sharpen(df, tol=bad)
    noise = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                          "label": ["x", "y", "y", "x"]})
    with pytest.warns(UndefinedWarning, match="every rater weight is 0"):
        out = xa.sharpen(noise)
    assert out.consensus.isna().all() and (out.item_weights == 0).all()
