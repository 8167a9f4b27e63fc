"""The parser and runner of tests/test_suggestions_work.py, on messages written here: what
it reads as a suggestion, what it leaves (a location, a value shown, a formula), and
that a broken suggestion fails the check."""

from __future__ import annotations

import pandas as pd
from suggestion_runner import Case, advice, follow, same_again
from suggestions import suggestions, suggests_something

from xrr_accessor.errors import InputError, LevelError


def _read(message: str) -> list[tuple[str, str]]:
    return [(s.kind, s.text) for s in suggestions(message)]


def test_calls_keywords_and_drops_are_read() -> None:
    got = suggestions("at level='masi' (item=0, rater='a'): call agreement_table(data, "
                      "weights='linear'), pass .xrr(item='<column>') or metric='alpha', not "
                      "with level=; e.g. df.dropna(subset=['x']); 2 item(s).")
    assert [(s.kind, s.text) for s in got] == [
        ("call", "df.dropna(subset=['x'])"),
        ("call", "agreement_table(data, weights='linear')"), ("key", "item='<column>'"),
        ("drop", "level="), ("key", "level='masi'"), ("key", "metric='alpha'")]
    assert got[2].placeholder and got[5].value == "alpha"
    assert suggests_something("use level=") and not suggests_something("2 item(s) left")


def test_recipes_values_and_formulas() -> None:
    assert _read("e.g. df[col] = df[col].replace([np.inf], np.nan), or fix it") == [
        ("call", "df[col] = df[col].replace([np.inf], np.nan)")]
    assert _read("convert them, e.g. df[['a', 'b']] = df[['a', 'b']].apply(pd.to_numeric).") == [
        ("call", "df[['a', 'b']] = df[['a', 'b']].apply(pd.to_numeric)")]
    assert _read("holds single labels (e.g. np.int64(1)); p(E) = 1 and D(a, b)") == []
    assert _read("convert with pd.to_numeric, or an ordered pd.Categorical.") == [
        ("call", "pd.to_numeric"), ("call", "pd.Categorical")]


def test_keywords_that_go_together() -> None:
    got = suggestions("or use metric='alpha' with level='interval'; pass item=/rater= "
                      "naming the columns; ask with ci= (e.g. ci=0.95).")
    assert [s.text for s in got] == ["metric='alpha' with level='interval'", "item=/rater=",
                                     "ci=0.95"]
    assert got[0].also == (("level", "interval"),) and got[1].also[0][0] == "rater"


def test_values_listed_for_the_keyword_given() -> None:
    assert [s.value for s in suggestions("sort_by='x'; use one of ['irr', 'kappa'].")] == [
        "x", "irr", "kappa"]  # the first quotes the call (advice() leaves it out)
    assert [s.value for s in suggestions("irr='icc' cannot normalize; use one of cohen, "
                                         "alpha (defined at every level).")] == [
        "icc", "cohen", "alpha"]
    assert [s.value for s in suggestions("unknown level 'x'; use one of nominal, ratio, a "
                                         "matrix, or a callable D(a, b).")] == [
        "nominal", "ratio"]
    assert [s.text for s in suggestions("metric='light' has no analytic error; use "
                                        "method='bootstrap'.")] == ["metric='light'",
                                                                    "method='bootstrap'"]


def test_the_call_quoted_is_no_advice() -> None:
    case = Case("quoted", "validity", pd.DataFrame, {"gold": "g", "ci": 0.95,
                                                    "level": "nominal"}, InputError, "")
    got = advice(case, "validity(ci=0.95) gives intervals; at level='nominal' leave ci out "
                       "(or pass level='interval').")
    assert [s.text for s in got] == ["level='interval'"]


def test_a_broken_suggestion_fails_the_check() -> None:
    """The check catches a message sending the user the wrong way: a LevelError whose
    advice (level='ordinal' on unordered text) raises the same LevelError."""
    case = Case("broken", "irr", lambda: pd.DataFrame(
        {"item": [0, 0, 1, 1], "rater": ["a", "b"] * 2, "joy": ["x", "y", "x", "x"]}),
        {"level": "interval"}, LevelError, "non-numeric")
    message = "column 'joy' holds non-numeric values; use level='ordinal'."
    s = suggestions(message)[0]
    got = follow(case, s, message, [])
    assert same_again(case, message, got) is not None
    assert isinstance(got.error, LevelError)
