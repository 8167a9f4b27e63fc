"""Every suggestion in a message works (issue 34).

Each case is a realistic bad or degenerate call; its error (or warning) is raised, the
calls and keywords its message suggests are read by ``suggestions.suggestions``, and each
is run on the same data: the same call with the keyword added (``use level='interval'``),
or taken out (``not with level=``), the suggested library call (``agreement_table(data,
weights='linear')``) with the call's roles, or a pandas recipe written in the message
(``df.drop_duplicates(subset=[...])``) applied literally before the same call. A followed
suggestion must not raise an error, nor warn the same warning again (same class, same
start). A suggestion the test cannot run is listed in its case's ``skip`` with the reason;
a message that writes a call or keyword the parser reads nothing from fails.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from suggestions import (
    Case,
    advice,
    follow,
    followable,
    same_again,
    suggestions,
    suggests_something,
    triggered,
)

from xrr_accessor.errors import (
    DroppedDataWarning,
    InputError,
    LevelError,
    RoleError,
    UndefinedWarning,
)


def long(values: list[Any], raters: tuple[str, ...] = ("a", "b", "c"), column: str = "joy",
         **extra: Any) -> pd.DataFrame:
    """Items 0, 1, ... each rated by every rater in turn."""
    n = len(values) // len(raters)
    return pd.DataFrame({"item": np.repeat(np.arange(n), len(raters)),
                         "rater": list(raters) * n, column: values, **extra})


def words() -> pd.DataFrame:
    return long(["low", "mid", "high", "mid", "mid", "high", "low", "low", "mid",
                 "high", "high", "mid"])


def numbers() -> pd.DataFrame:
    return long([1, 2, 3, 2, 2, 3, 1, 1, 2, 3, 3, 2, 4, 4, 3])


def label_sets() -> pd.DataFrame:
    return long([["a", "b"], ["a"], ["b"], ["a"], ["a", "b"], ["b"], ["a"], ["a"], ["b"],
                 ["b"], ["a", "b"], ["a"]])


def two_pools() -> pd.DataFrame:
    a = numbers().assign(pool="A")
    return pd.concat([a, a.assign(pool="B", joy=a["joy"].sample(frac=1, random_state=0)
                                  .to_numpy())], ignore_index=True)


def sourced() -> pd.DataFrame:
    """Two pools with their own raters, told apart by a column named 'source'."""
    d = two_pools().rename(columns={"pool": "source"})
    return d.assign(rater=d["rater"] + d["source"])


def gold_of_a() -> pd.Series:
    d = two_pools()
    return d[(d.pool == "A") & (d.rater == "a")].set_index("item")["joy"]


def one_human() -> pd.DataFrame:
    d = two_pools()
    return d[(d.pool == "B") | (d.rater == "a")]


def many() -> pd.DataFrame:
    """Twelve items, enough for a bootstrap interval."""
    return long([1, 2, 3, 2, 2, 3, 1, 1, 2, 3, 3, 2] * 3)


def crowd(n: int = 12) -> pd.DataFrame:
    """Each item rated by two of many raters (no rater crosses items fully)."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({"item": np.repeat(np.arange(n), 2),
                         "rater": [f"w{i}" for i in range(2 * n)],
                         "joy": rng.integers(1, 5, 2 * n).astype(float)})


INTERVAL = {"level": "interval"}
CASES: list[Case] = [
    # levels and weights -----------------------------------------------------------------
    Case("ordinal-on-unordered-text", "irr", words, {"level": "ordinal"}, LevelError,
         "unordered categories", fill={"categories": ["low", "mid", "high"]},
         recipes={"pd.Categorical": lambda d: d.assign(joy=pd.Categorical(
             d["joy"], ["low", "mid", "high"], ordered=True))}),
    Case("interval-on-text", "irr", words, INTERVAL, LevelError,
         "non-numeric", fill={"categories": ["low", "mid", "high"]},
         together={"categories=": {"level": "ordinal"}},  # "or 'ordinal' with categories="
         skip={"pd.to_numeric": "converts numbers written as text; these are words"}),
    Case("ratio-on-negative-numbers", "irr", lambda: numbers().assign(joy=lambda d: d.joy - 2),
         {"level": "ratio"}, InputError, "negative values"),
    Case("alpha-given-weights", "irr", numbers, {"weights": "linear"}, InputError,
         "through level=", fill={"level": "ordinal"}),
    Case("fleiss-given-level", "irr", numbers, {"metric": "fleiss", "level": "ordinal"},
         InputError, "not with level="),
    Case("icc-given-level", "irr", numbers, {"metric": "icc", "level": "ordinal"}, InputError,
         "leave level="),
    Case("single-labels-at-masi", "irr", numbers, {"level": "masi"}, LevelError,
         "compares label sets", skip={"xrr_accessor.set_cells(df)": (
             "for a long frame with one row per label; here each row is one annotation")}),
    Case("mixed-types", "irr", lambda: long([1, "1", 2, 2, 1, "x"]), {"level": "nominal"},
         LevelError, "mixes value types",
         skip={"pd.to_numeric(df[col])": "'x' is not a number: the other recipe is for it"}),
    Case("infinite-rating", "irr", lambda: numbers().assign(
        joy=lambda d: d.joy.replace(4, np.inf)), INTERVAL, LevelError, "infinite"),
    Case("categories-missing-one", "irr", words,
         {"level": "ordinal", "categories": ["low", "mid"]}, InputError, "not among",
         fill={"categories": ["low", "mid", "high"]}),
    # metrics and their data ------------------------------------------------------------
    Case("cohen-on-three-raters", "irr", numbers, {"metric": "cohen", **INTERVAL}, InputError,
         "exactly 2 raters"),
    Case("icc-with-missing-ratings", "irr", lambda: numbers().iloc[:-1], {"metric": "icc"},
         UndefinedWarning, "lack a rating",
         recipes={".dropna()": lambda d: d.pivot(
             index="item", columns="rater", values="joy").dropna()},
         together={".dropna()": {"wide": True}}),  # "pivot to items x raters and .dropna()"
    Case("icc-on-crowd-data", "irr", crowd, {"metric": "icc"}, UndefinedWarning,
         "lack a rating", recipes={".dropna()": lambda d: d.pivot(
             index="item", columns="rater", values="joy").dropna()},
         together={".dropna()": {"wide": True}},
         xfail="coefficients/icc.py:138: on crowd data pivot and .dropna() leave no item"),
    Case("iota-drops-incomplete-items", "irr", lambda: numbers().iloc[:-1],
         {"metric": "iota", **INTERVAL}, DroppedDataWarning, "every rater on every item"),
    Case("form-without-icc", "irr", numbers, {"form": "ICC2", **INTERVAL}, InputError,
         "goes with metric='icc'", together={"metric='icc'": {"level": None}}),
    Case("augmented-as-a-metric", "irr", label_sets, {"metric": "augmented"}, InputError,
         "own entry points", fill={"ps": [0.5, 1.0]}, recipes={},
         skip={".augmented_items()": "takes ordered sets; these are unordered"}),
    Case("normalize-by-icc", "normalized", two_pools, {"irr": "icc", **INTERVAL}, InputError,
         "cannot normalize", skip={"irr='cohen'": "Cohen's kappa needs two raters, these "
                                   "have three (its own error says so)"}),
    # intervals --------------------------------------------------------------------------
    Case("ci-as-percent", "irr", numbers, {"ci": 95, **INTERVAL}, InputError,
         "between 0 and 1"),
    Case("method-without-ci", "irr", many, {"method": "bootstrap", **INTERVAL}, InputError,
         "ask for one with ci="),
    Case("population-with-bootstrap", "irr", numbers,
         {"ci": 0.95, "method": "bootstrap", "population": 100, "n_boot": 50, **INTERVAL},
         InputError, "finite-population"),
    Case("bca-on-few-items", "irr", lambda: numbers().iloc[:6],
         {"ci": 0.95, "method": "bootstrap", "n_boot": 50, **INTERVAL}, InputError,
         "needs at least"),
    Case("one-replicate", "irr", numbers, {"ci": 0.95, "n_boot": 1, **INTERVAL}, InputError,
         "number of bootstrap replicates", nothing="it states the rule (>= 2), no call"),
    # roles ------------------------------------------------------------------------------
    Case("item-column-not-found", "irr", lambda: numbers().rename(columns={"item": "stimulus"}),
         INTERVAL, RoleError, "no column for the item", fill={"item": "stimulus"},
         skip={"wide=True": "for a frame whose rows are items; this one is long"}),
    Case("rater-column-not-found", "irr", lambda: numbers().rename(columns={"rater": "who"}),
         INTERVAL, RoleError, "no column for the rater", fill={"rater": "who"},
         skip={"wide=True": "for a frame whose rows are items; this one is long"}),
    Case("pool-column-left-out", "irr", sourced, INTERVAL, DroppedDataWarning,
         "left out 'source'", fill={"labels": ["joy"], "replication": "source"}),
    Case("kappa-x-on-one-pool", "cross_kappa", sourced, {"labels": ["joy"], **INTERVAL},
         InputError, "compares two replications",
         fill={"replication": "source", "other": numbers()},
         skip={}),
    Case("duplicate-annotations", "irr", lambda: pd.concat([numbers(), numbers().iloc[:1]]),
         INTERVAL, InputError, "duplicate annotation"),
    Case("one-row-per-label-at-jaccard", "irr", lambda: pd.DataFrame({
        "item": [0, 0, 0, 1, 1, 1, 2, 2], "rater": ["x", "x", "y", "x", "y", "y", "x", "y"],
        "joy": ["a", "b", "a", "b", "b", "a", "a", "a"]}), {"level": "jaccard"}, InputError,
         "duplicate annotation", xfail=(
             "engine/pipeline.py:107: at a set level, lead with set_cells; drop_duplicates "
             "and duplicates= leave single labels, which the set levels refuse")),
    Case("missing-item-ids", "irr", lambda: numbers().assign(
        item=lambda d: d.item.where(d.index > 0)), INTERVAL, InputError, "missing id"),
    Case("labels-and-value", "irr", numbers, {"labels": ["joy"], "value": "joy", **INTERVAL},
         RoleError, "not both", fill={"labels": ["joy"], "value": "joy"}),
    Case("no-label-columns", "irr", lambda: numbers()[["item", "rater"]], INTERVAL, RoleError,
         "no value columns", skip={"labels=[...]": "the frame holds no column to name"}),
    Case("value-column-and-others", "irr", lambda: numbers().assign(label="joy", value=1,
                                                                    note="x"),
         INTERVAL, DroppedDataWarning, "are not used", fill={"labels": ["joy"]}),
    Case("duplicate-column-names", "irr", lambda: pd.concat(
        [numbers(), numbers()[["joy"]]], axis=1), INTERVAL, InputError,
        "appear more than once",
        recipes={"df.columns = [...]": lambda d: d.set_axis(
            ["item", "rater", "joy", "joy2"], axis=1)}),
    Case("multiindex-columns", "irr", lambda: numbers().groupby(["item", "rater"]).agg(
        {"joy": ["first"]}).reset_index(), INTERVAL,
         InputError, "MultiIndex columns",
         skip={"wide=True": "for a frame whose rows are items; this one is long"}),
]

@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_every_suggestion_of_the_message_works(case: Case) -> None:
    message = triggered(case)
    found = advice(case, message)
    if case.nothing:
        assert not [s for s in found if s.text not in case.skip], (message, found)
        return
    assert found or not suggests_something(message), f"nothing parsed from: {message}"
    assert found, f"{case.id}: no suggestion in {message!r}; give nothing= a reason"
    stale = set(case.skip) - {s.text for s in found}
    assert not stale, f"{case.id}: skip lists {stale}, not in {message!r}"
    failures = []
    for s in found:
        if s.text in case.skip or s.kind == "drop":  # a drop goes with the keys it replaces
            continue
        assert followable(case, s), (f"{case.id}: cannot run {s.text!r} of {message!r}: "
                                      "add a fill=, a recipe, or a skip reason")
        why = same_again(case, message, follow(case, s, message, found))
        if why:
            failures.append(f"{s.text!r} -> {why}")
    assert not failures, f"{case.id}: {message!r}\n" + "\n".join(failures)


def test_the_parser_reads_calls_keywords_and_drops() -> None:
    got = suggestions("at level='masi' (item=0, rater='a'): call agreement_table(data, "
                      "weights='linear'), pass .xrr(item='<column>') or metric='alpha', not "
                      "with level=; e.g. df.dropna(subset=['x']); 2 item(s).")
    assert [(s.kind, s.text) for s in got] == [
        ("call", "agreement_table(data, weights='linear')"), ("key", "item='<column>'"),
        ("call", "df.dropna(subset=['x'])"), ("drop", "level="), ("key", "level='masi'"),
        ("key", "metric='alpha'")]
    assert got[1].placeholder and got[5].value == "alpha"
    assert suggests_something("use level=") and not suggests_something("2 item(s) left")


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

