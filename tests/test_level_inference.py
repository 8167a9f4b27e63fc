"""The level a call uses when level= is not given: one rule, every entry point, said.

The rule is the table of docs/definitions.md ("Which level, when level= is not
given"), implemented once in xrr_accessor.engine.infer; these tests check each row of
the table, that every entry point (irr, cross_kappa, item_disagreement,
rater_agreement, validity, report, summary, the CLI, dask-backed data) reaches the same
level and the same numbers as the explicit call, that the number equals the peer
(krippendorff) at that level, and that the note says what was chosen and goes away
with level=.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.engine.infer import infer, label_level
from xrr_accessor.errors import AmbiguousLevelWarning, LevelNote, UndefinedWarning


def _frame(values: np.ndarray, n_raters: int = 3, name: str = "answer") -> pd.DataFrame:
    n = len(values) // n_raters
    return pd.DataFrame({"item": np.repeat(np.arange(n), n_raters),
                         "rater": np.tile([f"r{i}" for i in range(n_raters)], n),
                         name: values})


def _scale(lo: int, hi: int, n: int = 60, seed: int = 0) -> np.ndarray:
    """Ratings on lo..hi: a true value per item plus noise, clipped (every value used)."""
    rng = np.random.default_rng(seed)
    true = np.repeat(rng.integers(lo, hi + 1, n), 3)
    noisy = true + rng.integers(-1, 2, 3 * n) * max(1, (hi - lo) // 10)
    out = np.clip(noisy, lo, hi)
    out[: min(hi - lo + 1, len(out))] = np.arange(lo, hi + 1)[: len(out)]  # ends occur
    return out


# --------------------------------------------------------------------------- the rule
@pytest.mark.parametrize(("cats", "ordered", "level", "said"), [
    ([0, 1], False, None, ""),                                  # two values: neutral
    (["a", "b", "c"], False, "nominal", ""),                    # text
    ([True, False], False, None, ""),
    (["low", "mid", "high"], True, "ordinal", "note"),          # ordered categorical
    ([0.5, 1.0, 2.25], False, "interval", "note"),              # not whole
    (list(range(0, 101, 5)), False, "interval", "note"),        # spans >= 20
    (list(range(11)), False, "interval", "warning"),            # 0-10
    (list(range(-5, 6)), False, "interval", "warning"),         # -5..5
    (list(range(-3, 2)), False, "ordinal", "note"),             # -3..1
    ([-1, 0, 1], False, "ordinal", "note"),
    (list(range(1, 6)), False, "ordinal", "note"),              # 1-5
    (list(range(1, 8)), False, "ordinal", "note"),              # 1-7
    ([1, 2, 3, 4], False, "ordinal", "note"),                   # 1-4
    ([1, 2, 3], False, "ordinal", "note"),                      # 1-3
    (list(range(0, 5)), False, "nominal", "warning"),           # 0-4: codes or scale
    (list(range(0, 4)), False, "nominal", "warning"),           # 0-3: codes or scale
    ([1, 2, 5, 9], False, "nominal", "note"),                   # gaps
    ([1, 2, 3, 5], False, "ordinal", "note"),                   # 1-5, nobody chose 4
    ([1, 2, 99], False, "nominal", "warning"),                  # codes far apart
    ([10, 20, 30], False, "nominal", "warning"),
    ([1, 2, 3, 4, 5, 99], False, "nominal", "warning"),         # Likert + "don't know"
    (list(range(0, 101, 10)), False, "interval", "note"),       # 11 values, 0-100
])
def test_each_row_of_the_documented_table(cats: list, ordered: bool, level: str | None,
                                          said: str) -> None:
    found = label_level(pd.Index(cats), ordered)
    assert (found.level, found.said) == (level, said)


@pytest.mark.parametrize(("name", "level"), [
    ("S6_truth_level", "ordinal"), ("rating", "ordinal"), ("severityScore", "ordinal"),
    ("breed", "nominal"), ("label", "nominal")])
def test_whole_numbers_from_0_named_like_a_scale_are_ordinal(name: str, level: str) -> None:
    """Roitero et al.'s 0-2 and 0-5 truthfulness scales (S3_truth_level, S6_truth_level)
    read as ordinal by their name; codes 0-3 of dog breeds stay nominal."""
    found = label_level(pd.Index([0, 1, 2, 3, 4, 5]), False, name)
    assert found.level == level
    assert found.said == ("note" if level == "ordinal" else "warning")


def test_the_table_in_the_docs_lists_the_rows_the_rule_applies() -> None:
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "definitions.md").read_text()
    section = text.split("### Which level, when `level=` is not given")[1].split("\n## ")[0]
    for phrase in ("at most 2 values", "`masi`", "ordered `pd.Categorical`",
                   "spanning 20 or more", "11 or more whole numbers", "not starting at 0",
                   "named like a scale", "from 0 otherwise", "far apart", "with gaps"):
        assert phrase in section


def test_labels_that_disagree_take_the_level_all_allow_and_say_so() -> None:
    where = ["column 'a'", "column 'b'", "column 'c'"].__getitem__
    lvl, note, kind = infer([pd.Index(range(101)), pd.Index(range(1, 6)), pd.Index([0, 1])],
                            [False, False, False], where)
    assert lvl.name == "ordinal" and kind is LevelNote
    assert "column 'a'" in note and "column 'b'" in note and "column 'c'" not in note
    assert "different levels (interval, ordinal)" in note
    lvl, _, _ = infer([pd.Index(["x", "y", "z"]), pd.Index(range(101))], [False, False], where)
    assert lvl.name == "nominal"
    lvl, note, kind = infer([pd.Index(["x", "y", "z"]), pd.Index([0, 1])], [False, False],
                            where)
    assert (lvl.name, note, kind) == ("nominal", "", None)


# ------------------------------------------------------------ the number and the note
def test_a_0_100_scale_is_interval_alpha_equal_to_krippendorff() -> None:
    df = _frame(_scale(0, 100, n=80))
    with pytest.warns(LevelNote, match=r"level='interval' inferred: column 'answer' holds "
                      r"\d+ whole numbers from 0 to 100") as caught:
        bare = xa.irr(df)
    assert not any(issubclass(w.category, AmbiguousLevelWarning) for w in caught)
    wide = df.pivot(index="rater", columns="item", values="answer").to_numpy(float)
    peer = krippendorff.alpha(wide, level_of_measurement="interval")
    assert bare.attrs["level"] == "interval" and bare.attrs["level_inferred"] is True
    assert bare["answer"] == pytest.approx(peer, abs=1e-12)
    nominal = xa.irr(df, level="nominal")["answer"]
    assert abs(nominal - bare["answer"]) > 0.1  # the default changed the number


def test_a_1_5_scale_is_ordinal_and_level_given_wins_without_a_note() -> None:
    df = _frame(_scale(1, 5))
    with pytest.warns(LevelNote, match="level='ordinal' inferred"):
        bare = xa.irr(df)["answer"]
    wide = df.pivot(index="rater", columns="item", values="answer").to_numpy(float)
    assert bare == pytest.approx(krippendorff.alpha(wide, level_of_measurement="ordinal"),
                                 abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LevelNote)  # no note when level= is given
        given = xa.irr(df, level="nominal")
    assert given.attrs == {**given.attrs, "level": "nominal", "level_inferred": False}
    assert given["answer"] == pytest.approx(
        krippendorff.alpha(wide, level_of_measurement="nominal"), abs=1e-12)


def test_the_note_classes_are_public_and_an_ignore_filter_silences_them() -> None:
    assert xa.LevelNote is LevelNote and issubclass(xa.AmbiguousLevelWarning, xa.LevelNote)
    assert issubclass(LevelNote, xa.XRRWarning)
    df = _frame(_scale(0, 10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=xa.LevelNote)
        xa.irr(df)
    assert not [w for w in caught if issubclass(w.category, LevelNote)]


def test_text_labels_say_nothing() -> None:
    df = _frame(np.array(["pos", "neg", "neu"] * 20))
    with warnings.catch_warnings():
        warnings.simplefilter("error", LevelNote)
        out = xa.irr(df)
    assert out.attrs["level"] == "nominal"


def test_a_0_10_scale_warns_that_it_is_ambiguous() -> None:
    df = _frame(_scale(0, 10))
    with pytest.warns(AmbiguousLevelWarning, match=r"interval' inferred \(ambiguous\).*"
                      "ordinal also fits"):
        out = xa.irr(df)
    assert out.attrs["level"] == "interval"


def test_the_note_is_said_once_per_call() -> None:
    df = _frame(_scale(1, 5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xa.report(df)
    notes = [w for w in caught if issubclass(w.category, LevelNote)]
    assert len(notes) == 1


# ------------------------------------------------------- every entry point, one level
@pytest.mark.parametrize(("lo", "hi", "level"), [(0, 100, "interval"), (1, 5, "ordinal"),
                                                  (0, 3, "nominal")])
def test_every_entry_point_reads_the_same_level_and_number(lo: int, hi: int,
                                                           level: str) -> None:
    df = _frame(_scale(lo, hi, n=40), n_raters=4)
    two = pd.concat([df.assign(pool="A"), df.assign(pool="B", answer=np.roll(df["answer"], 4))])
    gold = df.groupby("item")["answer"].first()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelNote)
        pairs = [
            (xa.irr(df), xa.irr(df, level=level)),
            (xa.cross_kappa(two, replication="pool"),
             xa.cross_kappa(two, replication="pool", level=level)),
            (xa.item_disagreement(df), xa.item_disagreement(df, level=level)),
            (xa.rater_agreement(df), xa.rater_agreement(df, level=level)),
            (xa.summary(two, replication="pool"),
             xa.summary(two, replication="pool", level=level)),
        ]
        warnings.simplefilter("ignore", UndefinedWarning)  # classes never in the gold
        bare_v, given_v = xa.validity(df, gold), xa.validity(df, gold, level=level)
        bare_r, given_r = xa.report(df), xa.report(df, level=level)
    for bare, given in pairs:
        assert bare.attrs["level"] == level
        if isinstance(bare, pd.DataFrame | pd.Series):
            pd.testing.assert_frame_equal(pd.DataFrame(bare), pd.DataFrame(given))
        else:
            assert bare.equals(given)
    assert bare_v.summary.equals(given_v.summary)
    assert bare_r.attrs["level"] == given_r.attrs["level"] == level
    pd.testing.assert_frame_equal(bare_r.frame, given_r.frame)
    for part in ("agreement", "raters", "items"):
        a, b = getattr(bare_r, part), getattr(given_r, part)
        assert (a is None) == (b is None)
        if a is not None:
            pd.testing.assert_frame_equal(a, b)


def test_dask_backed_data_infer_the_same_level() -> None:
    dd = pytest.importorskip("dask.dataframe")
    df = _frame(_scale(0, 100, n=50))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelNote)
        eager = xa.irr(df)
        lazy = xa.irr(dd.from_pandas(df, npartitions=3)).compute()
    assert lazy.attrs["level"] == eager.attrs["level"] == "interval"
    assert lazy["answer"] == pytest.approx(eager["answer"], abs=1e-12)


def test_an_ordered_categorical_is_ordinal_everywhere() -> None:
    cats = pd.CategoricalDtype(["low", "mid", "high"], ordered=True)
    df = _frame(pd.Series(np.array(["low", "mid", "high", "mid"] * 15)).astype(cats))
    with pytest.warns(LevelNote, match="3 ordered categories"):
        out = xa.irr(df)
    assert out.attrs["level"] == "ordinal"
    with pytest.warns(LevelNote):
        assert xa.item_disagreement(df).attrs["level"] == "ordinal"


def test_the_cli_infers_the_same_level_and_says_it(tmp_path, capsys) -> None:
    df = _frame(_scale(0, 100, n=30))
    path = tmp_path / "ratings.csv"
    df.to_csv(path, index=False)
    for command in ("irr", "items"):
        assert main([command, str(path), "--format", "json"]) == 0
        out = capsys.readouterr()
        assert "--level interval inferred" in out.err  # the CLI's name of the option
        assert '"level": "interval"' in out.out
    assert main(["irr", str(path), "--level", "nominal", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "inferred" not in out.err and '"level": "nominal"' in out.out


def test_the_readme_shows_the_note_the_call_says_and_its_number() -> None:
    from pathlib import Path

    from xrr_accessor.datasets import load_snow2008

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    block = readme.split("anger = load_snow2008")[1].split("```")[0]
    shown = " ".join(line.lstrip("# ").strip() for line in block.splitlines()
                     if line.startswith("# "))
    anger = load_snow2008("anger")
    with pytest.warns(LevelNote) as caught:
        value = anger[anger.pool == "crowd"].xrr.irr()
    said = [str(w.message) for w in caught if w.category is LevelNote]
    assert said == [shown.removeprefix("LevelNote: ")]
    assert f"crowd {value['crowd']:.3f} (interval alpha)" in block


def test_the_kappa_family_takes_the_weights_of_the_inferred_level() -> None:
    """Cohen's kappa and the chance-corrected family are weighted by weights=, not level=:
    given neither, they take the weights of the level inferred (linear for ratings 1-5,
    quadratic for a 0-100 scale, unweighted for codes), in irr and agreement_table alike,
    equal to scikit-learn's weighted kappa."""
    from sklearn.metrics import cohen_kappa_score

    for lo, hi, weights in ((1, 5, "linear"), (0, 100, "quadratic"), (0, 3, "unweighted")):
        df = _frame(_scale(lo, hi, n=60), n_raters=2)
        with pytest.warns(LevelNote, match=f"weights='{weights}' inferred"):
            bare = xa.irr(df, metric="cohen")
        assert bare.attrs["weights"] == weights and bare.attrs["weights_inferred"] is True
        assert "level" not in bare.attrs
        a, b = (df[df.rater == r]["answer"].to_numpy() for r in ("r0", "r1"))
        # scikit-learn weighs by rank distance; over consecutive values it equals ours
        want = cohen_kappa_score(a, b, weights=None if weights == "unweighted" else weights,
                                 labels=np.arange(lo, hi + 1))
        assert bare["answer"] == pytest.approx(want, abs=1e-12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", LevelNote)
            table = xa.agreement_table(df)
        assert table.attrs["weights"] == weights
        assert table.loc[("answer", "cohen"), "estimate"] == pytest.approx(want, abs=1e-12)
        given = xa.irr(df, metric="cohen", weights="unweighted")
        assert given.attrs.get("weights_inferred") is None


def test_the_report_says_the_level_was_inferred_and_which_weights_its_table_took() -> None:
    df = _frame(_scale(1, 5, n=40), n_raters=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelNote)
        bare, given = xa.report(df), xa.report(df, level="nominal")
        page, plain = bare.to_html(), given.to_html()
    assert bare.caption().startswith("IRR: alpha; level: ordinal (inferred from the values);")
    assert given.caption().startswith("IRR: alpha; level: nominal;")
    assert bare.agreement.attrs["weights"] == "linear"
    want = xa.agreement_table(df, weights="linear")["estimate"]
    pd.testing.assert_series_equal(bare.agreement["estimate"], want)
    assert "Weighted: linear agreement weights, those of the ordinal level" in page
    assert given.agreement.attrs["weights"] == "unweighted" and "Weighted:" not in plain


def test_the_cli_agreement_table_takes_the_weights_of_the_inferred_level(tmp_path,
                                                                        capsys) -> None:
    df = _frame(_scale(1, 5, n=40))
    path = tmp_path / "ratings.csv"
    df.to_csv(path, index=False)
    assert main(["agreement", str(path), "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "--weights linear inferred" in out.err and '"weights": "linear"' in out.out
    assert "--level" not in out.err  # one note: the table's weights, not a counting read
    assert main(["agreement", str(path), "--weights", "unweighted", "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "inferred" not in out.err and '"weights": "unweighted"' in out.out


def test_pairwise_cohen_equals_irr_cohen_of_each_pair_and_validity_reads_the_data() -> None:
    """Found in review: pairwise() read the ordinal level's D where irr(metric='cohen')
    took linear weights, and validity() inferred from the data and the gold together
    (a gold of t + 0.5 made 1-5 ratings 'interval', blaming the ratings' column)."""
    df = _frame(_scale(1, 5, n=60), n_raters=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelNote)
        pairs = xa.pairwise(df)
        for a, b in (("r0", "r1"), ("r0", "r2"), ("r1", "r2")):
            two = xa.irr(df[df.rater.isin([a, b])], metric="cohen")
            assert pairs.loc[("answer", a, b), "estimate"] == pytest.approx(
                two["answer"], abs=1e-12)
    assert pairs.attrs["weights"] == "linear" and pairs.attrs["weights_inferred"] is True
    gold = df.groupby("item")["answer"].first() + 0.5
    with pytest.warns(LevelNote, match="level='ordinal' inferred: column 'answer' holds 5 "
                                       "whole numbers from 1 to 5"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedWarning)
            found = xa.validity(df, gold)
    assert found.attrs["level"] == "ordinal"


def test_continuous_ratings_get_a_report_and_an_unweighted_family_past_the_matrix_limit(
        monkeypatch) -> None:
    """Found in review: on 6,000 distinct floats the inferred quadratic weights needed a
    6,000 x 6,000 matrix and report(), agreement_table() and Fleiss raised. Past the
    limit (here lowered to 50) the family is unweighted, and says why."""
    from xrr_accessor.engine import pipeline

    monkeypatch.setattr(pipeline, "MAX_MATRIX_CATEGORIES", 50)
    rng = np.random.default_rng(1)
    true = np.repeat(rng.normal(size=40), 2)
    df = pd.DataFrame({"item": np.repeat(np.arange(40), 2), "rater": np.tile(["a", "b"], 40),
                       "answer": true + rng.normal(0, 0.3, 80)})
    with pytest.warns(LevelNote, match="weights='unweighted' inferred .* Unweighted: 80 "
                                       "distinct values are too many"):
        fleiss = xa.irr(df, metric="fleiss")
    assert fleiss.attrs["weights"] == "unweighted"
    assert fleiss["answer"] == pytest.approx(
        xa.irr(df, metric="fleiss", weights="unweighted")["answer"], abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LevelNote)
        with pytest.warns(UndefinedWarning, match="classic family is unweighted"):
            rep = xa.report(df)
    assert rep.attrs["level"] == "interval" and rep.agreement.attrs["weights"] == "unweighted"
    with pytest.raises(xa.InputError, match=r"weights='quadratic' need a 80 x 80 matrix.*"
                                            r"metric='icc'"):
        xa.irr(df, metric="fleiss", weights="quadratic")
