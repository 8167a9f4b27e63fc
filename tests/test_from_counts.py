"""Count tables in: ``xa.from_counts`` (items x categories, no rater ids) -> one row per
rating, the raters anonymous; the classic family equals statsmodels' fleiss_kappa on the
table and krippendorff's alpha on the expanded data; the CLI reads one with --counts."""

from __future__ import annotations

import io
import subprocess
import sys
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from statsmodels.stats.inter_rater import fleiss_kappa

import xrr_accessor as xa
from xrr_accessor.datasets import load_fleiss1971
from xrr_accessor.errors import DroppedDataWarning, InputError


def _naive_fleiss(counts: np.ndarray) -> float:
    """Fleiss (1971), from the formula: mean per-item agreement P_i over items with >= 2
    ratings, chance from the pooled category shares."""
    counts = counts[counts.sum(1) >= 2].astype(float)
    n = counts.sum(1)
    p_i = ((counts ** 2).sum(1) - n) / (n * (n - 1))
    p_j = counts.sum(0) / counts.sum()
    pe = (p_j ** 2).sum()
    return (p_i.mean() - pe) / (1 - pe)


def _table(rng: np.random.Generator, n_items: int, k: int, raters: int | None) -> pd.DataFrame:
    """A count table: ``raters`` ratings per item (None: 0 to 6, varying)."""
    sizes = np.full(n_items, raters) if raters else rng.integers(0, 7, n_items)
    probs = rng.dirichlet(np.ones(k) * 0.7)
    counts = np.stack([rng.multinomial(s, probs) for s in sizes])
    return pd.DataFrame(counts, columns=[f"c{j}" for j in range(k)],
                        index=pd.Index([f"u{i}" for i in range(n_items)], name="unit"))


def _expanded_matrix(long: pd.DataFrame, item: str) -> np.ndarray:
    """The expanded data as krippendorff's reliability matrix (slots x items)."""
    codes = long["value"].cat.codes
    wide = pd.Series(codes.to_numpy(), index=[long["slot"], long[item]]).unstack(item)
    return wide.to_numpy(dtype=float)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(3, 15), k=st.integers(2, 4),
       raters=st.integers(2, 6))
def test_fleiss_equals_statsmodels_and_the_formula_on_random_balanced_tables(seed, n_items,
                                                                             k, raters):
    table = _table(np.random.default_rng(seed), n_items, k, raters)
    counts = table.to_numpy()
    shares = counts.sum(0) / counts.sum()
    assume((shares ** 2).sum() < 1 - 1e-9)  # chance agreement < 1: kappa defined
    long = xa.from_counts(table)
    got = xa.irr(long, metric="fleiss", level="nominal")
    assert got == pytest.approx(fleiss_kappa(counts, method="fleiss"), abs=1e-12)
    assert got == pytest.approx(_naive_fleiss(counts), abs=1e-12)
    assert len(long) == counts.sum()
    assert long.groupby("unit", sort=False).size().tolist() == counts.sum(1).tolist()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_items=st.integers(3, 15), k=st.integers(2, 4))
@example(seed=3728, n_items=7, k=3)  # one value among the pairable annotations
def test_alpha_equals_krippendorff_on_the_expanded_unbalanced_data(seed, n_items, k):
    table = _table(np.random.default_rng(seed), n_items, k, None)
    sizes = table.sum(axis=1).to_numpy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        long = xa.from_counts(table)
    assert len(caught) == int(((sizes == 0) | (sizes == 1)).any())  # said once, when any
    assert long.attrs["n_items_empty"] == (sizes == 0).sum()
    assert long.attrs["n_items_single"] == (sizes == 1).sum()
    pairable = long[long.groupby("unit")["value"].transform("size") >= 2]["value"]
    assume((sizes >= 2).sum() >= 2 and pairable.nunique() > 1)  # else alpha is NaN, with a warning
    got = xa.irr(long, metric="alpha", level="nominal")
    want = krippendorff.alpha(reliability_data=_expanded_matrix(long, "unit"),
                              level_of_measurement="nominal")
    assert got == pytest.approx(want, abs=1e-12)
    # the slots are anonymous: the same numbers with the slots shuffled within items
    shuffled = long.assign(slot=long.groupby("unit")["slot"].transform(
        lambda s: s.sample(frac=1, random_state=seed % 1000).to_numpy()))
    assert xa.irr(shuffled, metric="alpha", level="nominal") == pytest.approx(got, abs=1e-12)


def test_fleiss_1971_diagnoses_published_kappa():
    """Fleiss (1971): 30 patients x 6 psychiatrists x 5 diagnoses, kappa 0.430 (SPEC.md)."""
    raw = load_fleiss1971()
    table = pd.crosstab(raw["item_id"], raw["diagnosis"])  # the table of the paper
    cats = list(table.columns)
    long = xa.from_counts(table.reset_index(), categories=cats)
    got = xa.irr(long, metric="fleiss", level="nominal")
    assert round(got, 3) == 0.430
    assert got == pytest.approx(fleiss_kappa(table.to_numpy(), method="fleiss"), abs=1e-12)
    assert list(long["value"].cat.categories) == cats
    by_rater = xa.irr(raw, metric="fleiss", level="nominal")["diagnosis"]  # the rater ids
    assert by_rater == pytest.approx(got, abs=1e-12)


@pytest.mark.parametrize("names", [["1", "inf"], ["-inf", "0"], ["nan", "1"]])
def test_count_columns_named_like_infinity_are_text_categories(names):
    """A count column named "inf" (or "-inf", "nan") names a category, not a rating that
    is infinite: the categories stay the columns' names as text (once a raw pandas
    cast error), and the alpha equals krippendorff's on the expanded table."""
    t = pd.DataFrame({"item": ["a", "b", "c"], names[0]: [2, 1, 0], names[1]: [0, 1, 2]})
    long = xa.from_counts(t)
    assert sorted(map(str, long["value"].cat.categories)) == sorted(names)
    got = float(np.asarray(xa.irr(long, level="nominal"), dtype=float).reshape(-1)[0])
    codes = long["value"].cat.codes.to_numpy(dtype=float)
    want = krippendorff.alpha(reliability_data=codes.reshape(3, 2).T,
                              level_of_measurement="nominal")
    assert got == pytest.approx(want, abs=1e-12)


def test_long_frame_shape_order_and_categorical():
    t = pd.DataFrame({"question": ["q1", "q2"], "no": [1, 0], "yes": [2, 2]})
    long = xa.from_counts(t, categories=["yes", "no"])  # order from categories=
    assert long.columns.tolist() == ["question", "slot", "value"]
    assert long["question"].tolist() == ["q1"] * 3 + ["q2"] * 2
    assert long["slot"].tolist() == [1, 2, 3, 1, 2]
    assert long["value"].tolist() == ["yes", "yes", "no", "yes", "yes"]
    assert list(long["value"].cat.categories) == ["yes", "no"]
    assert not long["value"].cat.ordered
    assert xa.from_counts(t, ordered=True, categories=["no", "yes"])["value"].cat.ordered
    assert long.attrs == {"n_items": 2, "n_items_empty": 0, "n_items_single": 0}
    pd.testing.assert_frame_equal(t, pd.DataFrame({"question": ["q1", "q2"], "no": [1, 0],
                                                   "yes": [2, 2]}))  # input unchanged


def test_item_from_the_index_a_found_column_or_item_and_numeric_default_categories():
    counts = pd.DataFrame({"a": [2, 1], "b": [0, 1]}, index=pd.Index([7, 9], name="doc_id"))
    assert xa.from_counts(counts).columns.tolist() == ["doc_id", "slot", "value"]
    plain = xa.from_counts(counts.reset_index(drop=True))
    assert plain["item"].tolist() == [0, 0, 1, 1]
    found = xa.from_counts(counts.reset_index())  # doc_id found by name, not a category
    assert list(found["value"].cat.categories) == ["a", "b"]
    assert found["doc_id"].tolist() == [7, 7, 9, 9]
    assert xa.from_counts(counts.reset_index(), item="doc_id").equals(found)
    # a name the reader would not find as the item becomes "item": bare calls read it
    odd = xa.from_counts(counts.rename_axis("q"))
    assert odd.columns.tolist() == ["item", "slot", "value"]
    assert xa.irr(odd, metric="fleiss", level="nominal") == xa.irr(
        found, metric="fleiss", level="nominal")
    with pytest.raises(InputError, match="name='label' is the name of a role's column"):
        xa.from_counts(counts, name="label")


def test_chaosnli_counts_with_a_text_column_left_out_and_said():
    """Rows of /work/shared/data/real/varierr_nli/varierr_chaosnli_counts.csv (ChaosNLI
    crowd label counts, 100 per item; Weber-Genzel et al. 2024)."""
    t = pd.DataFrame({"item": ["23751e", "61429c", "4705552913.jpg#2r1n"],
                      "chaosnli_entailment": [85, 2, 1], "chaosnli_neutral": [13, 41, 94],
                      "chaosnli_contradiction": [2, 57, 5],
                      "varierr_idk_raters": ["1;3", None, None]})
    with pytest.warns(DroppedDataWarning, match=r"'varierr_idk_raters' \(not numbers\)"):
        long = xa.from_counts(t)
    assert len(long) == 300
    cats = t.columns[1:4].tolist()
    assert xa.irr(long, metric="fleiss", level="nominal") == pytest.approx(
        fleiss_kappa(t[cats].to_numpy(), method="fleiss"), abs=1e-12)


def test_a_total_column_is_not_a_category():
    t = pd.DataFrame({"hit": ["h1", "h2"], "pos": [3, 1], "neg": [2, 4], "n": [5, 5]})
    with pytest.warns(DroppedDataWarning, match=r"'n' \(the sum of the others: a total\)"):
        long = xa.from_counts(t)
    assert list(long["value"].cat.categories) == ["pos", "neg"] and len(long) == 10
    assert xa.from_counts(t, categories=["pos", "neg"]).equals(long)


@pytest.mark.parametrize(("value", "match"), [
    (-1, "'b' has 1 negative counts .*item 'q2'.* whole numbers >= 0"),
    (1.5, "'b' has 1 counts that are not whole numbers .*item 'q2'"),
    (np.nan, r"'b' has 1 missing counts .*table.fillna\(\{'b': 0\}\)"),
])
def test_bad_counts_name_the_column_an_item_and_the_fix(value, match):
    t = pd.DataFrame({"q": ["q1", "q2"], "a": [1, 2], "b": [2.0, value]})
    with pytest.raises(InputError, match=match):
        xa.from_counts(t, item="q")


def test_other_bad_inputs():
    t = pd.DataFrame({"q": ["q1"], "a": [1], "b": ["x"]})
    with pytest.raises(InputError, match=r"count column 'b' holds (str|object) values, not"):
        xa.from_counts(t, item="q", categories=["a", "b"])
    with pytest.raises(InputError, match=r"names \['c'\], which are not columns"):
        xa.from_counts(t, item="q", categories=["a", "c"])
    with pytest.raises(InputError, match="not list"):
        xa.from_counts([[1, 2]])
    with pytest.raises(InputError, match="categories='a' takes a list"):
        xa.from_counts(t, item="q", categories="a")


def test_items_with_no_or_one_rating_are_counted_and_said_once():
    t = pd.DataFrame({"a": [2, 0, 1, 3], "b": [1, 0, 0, 0]},
                     index=pd.Index(["x", "empty", "one", "y"], name="item"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        long = xa.from_counts(t)
    said = [str(w.message) for w in caught if issubclass(w.category, DroppedDataWarning)]
    assert len(said) == 1
    assert "1 item(s) with no rating" in said[0] and "'empty'" in said[0]
    assert "1 item(s) with one rating" in said[0] and "'one'" in said[0]
    assert long.attrs["n_items_empty"] == 1 and long.attrs["n_items_single"] == 1
    assert "empty" not in set(long["item"]) and (long["item"] == "one").sum() == 1


def test_slots_are_anonymous_raters_never_one_rater_across_items():
    long = xa.from_counts(pd.DataFrame({"a": [2, 1, 0], "b": [0, 1, 2]}))
    ann, _ = xa.annotations(long, level="nominal")
    assert len(ann.raters) == len(long)  # one rater per rating
    assert list(ann.raters[:3]) == ["0#1", "0#2", "1#1"]
    assert ann.role_names["rater"] == "slot"
    # slot 1 of item 0 and slot 1 of item 1 are two raters; statistics that follow raters
    # across items refuse (test_statistics_that_follow_raters_refuse_a_count_table_...)
    with pytest.raises(InputError, match="follows raters across items"):
        xa.pairwise(long, level="nominal")
    with pytest.raises(InputError, match="follows raters across items"):
        xa.irr(long, metric="cohen", level="nominal")
    # the hook for statistics that follow raters across items names the fix
    from xrr_accessor.schema.roles import need_rater_ids

    with pytest.raises(InputError, match=r"'slot' numbers the ratings within each item.*"
                                         r"metric='fleiss'"):
        need_rater_ids(ann.role_names["rater"], "Light's kappa")
    # the same for a DataArray whose dims are item and slot
    import xarray as xr

    da = xr.DataArray([[0, 0], [1, 0], [1, 1]], dims=("item", "slot"),
                      coords={"item": ["a", "b", "c"], "slot": [1, 2]}, name="value")
    ann3, _ = xa.annotations(da, level="nominal")
    assert list(ann3.raters) == ["a#1", "a#2", "b#1", "b#2", "c#1", "c#2"]
    # a slot column beside a rater column is not the rater
    named = long.assign(rater=["r1", "r2", "r1", "r2", "r1", "r2"])
    ann2, _ = xa.annotations(named, labels=["value"], level="nominal")
    assert list(ann2.raters) == ["r1", "r2"]


def _counts_file(tmp_path):
    t = pd.DataFrame({"question": ["q1", "q2", "q3", "q4"], "yes": [3, 0, 2, 1],
                      "no": [0, 3, 1, 2]})
    path = tmp_path / "counts.csv"
    t.to_csv(path, index=False)
    bad = tmp_path / "bad.csv"
    t.assign(no=[0, 3, None, 2]).to_csv(bad, index=False)
    return t, path, bad


def test_cli_files_read_a_count_table(tmp_path):
    from xrr_accessor.cli.files import read_table

    t, path, bad = _counts_file(tmp_path)
    long = read_table(str(path), counts=True, categories=["no", "yes"])
    pd.testing.assert_frame_equal(long, xa.from_counts(t, categories=["no", "yes"]))
    with pytest.raises(InputError, match=f"'no' has 1 missing counts .*write 0 in the empty "
                                         f"cells of {bad}"):
        read_table(str(bad), counts=True)
    with pytest.raises(InputError, match="--rater w with --counts"):
        read_table(str(path), counts=True, rater="w")


def test_cli_reads_a_count_table_with_counts(tmp_path):
    t, path, _ = _counts_file(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "xrr_accessor", "irr", str(path), "--counts",
                           "--categories", "no,yes", "--metric", "fleiss", "--level",
                           "nominal", "--format", "csv", "--raw"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = pd.read_csv(io.StringIO(proc.stdout))
    assert out["estimate"].iloc[0] == pytest.approx(
        fleiss_kappa(t[["no", "yes"]].to_numpy(), method="fleiss"), abs=1e-12)


def test_statistics_that_follow_raters_refuse_a_count_table_and_the_table_ones_run():
    """A count table has no rater ids: Cohen, Conger, Light, iota, pairwise and the
    rater table refuse with the coefficients that fit; Fleiss and alpha run."""
    table = pd.DataFrame({"q": range(12), "yes": np.arange(12) % 4, "no": 3 - np.arange(12) % 4})
    long = xa.from_counts(table, item="q")
    for metric in ("cohen", "conger", "light", "iota"):
        with pytest.raises(InputError, match=r"follows raters across items.*metric='fleiss'"):
            xa.irr(long, metric=metric)
    for fn in (xa.pairwise, xa.rater_agreement):
        with pytest.raises(InputError, match="follows raters across items"):
            fn(long)
    assert np.isfinite(xa.irr(long, metric="fleiss", level="nominal"))
    assert np.isfinite(xa.irr(long, level="nominal"))


def test_numeric_headers_are_numbers_and_a_count_table_has_a_report():
    """Found by a new-user trial: a CSV count table headed 1..5 gave text categories
    (nominal, no note, no ICC), and report() failed on Cohen's kappa."""
    text = "q,1,2,3,4,5\na,3,2,0,0,0\nb,0,1,3,1,0\nc,0,0,0,2,3\nd,1,1,1,1,1\n"
    long = xa.from_counts(pd.read_csv(io.StringIO(text), index_col="q"))
    assert long["value"].cat.categories.tolist() == [1, 2, 3, 4, 5]
    with pytest.warns(xa.errors.LevelNote, match="level='ordinal' inferred"):
        xa.irr(long)  # a single value (a float): the note names the level
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xa.XRRWarning)
        assert np.isfinite(xa.irr(long, metric="icc"))
        rep = xa.report(long, level="nominal")
    metrics = rep.agreement.index.get_level_values("metric").tolist()
    assert "fleiss" in metrics and "cohen" not in metrics and "conger" not in metrics
    assert rep.raters is None
    assert any("anonymous slots" in n for n in rep.attrs["notes"])
    wide = long.pivot_table(index="item", columns="value", aggfunc="size", observed=False)
    assert rep.agreement.loc["fleiss", "estimate"] == pytest.approx(
        fleiss_kappa(wide.to_numpy()), abs=1e-12)
