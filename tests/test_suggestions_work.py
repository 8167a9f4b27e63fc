"""Every suggestion in a message runs: no error, not the same warning again (issue 34).

Each case is a realistic bad or degenerate call; its error (or warning) is raised, the
calls and keywords its message suggests are read by ``suggestions.suggestions``, and each
is run on the same data: the same call with the keyword added (``use level='interval'``),
or taken out (``not with level=``), the suggested library call (``agreement_table(data,
weights='linear')``) with the call's roles, or a pandas recipe written in the message
(``df.drop_duplicates(subset=[...])``) applied literally before the same call. A followed
suggestion must not raise an error, nor warn the same warning again (same class, same
start). A suggestion the test cannot run is listed in its case's ``skip`` with the reason,
a message that suggests nothing runnable has its reason in ``nothing``; a message that
writes a call or keyword the parser reads nothing from, or one it cannot run, fails.
A suggestion that does not work yet is an ``xfail`` naming the fix. The readers' messages
are in tests/test_suggestions_readers.py, the command's flags in test_suggestions_cli.py,
the parser's own tests in test_suggestions_parser.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import suggestion_data as sd
import xarray as xr
from suggestion_runner import Case, check

from xrr_accessor.errors import (
    DroppedDataWarning,
    InputError,
    LevelError,
    LevelNote,
    RoleError,
    StrayValueWarning,
    UndefinedWarning,
    XRRWarning,
)

INTERVAL = {"level": "interval"}
CASES: list[Case] = [
    # levels and weights -----------------------------------------------------------------
    Case("ordinal-on-unordered-text", "irr", sd.words, {"level": "ordinal"}, LevelError,
         "unordered categories", fill={"categories": ["low", "mid", "high"]},
         recipes={"pd.Categorical": lambda d: d.assign(joy=pd.Categorical(
             d["joy"], ["low", "mid", "high"], ordered=True))}),
    Case("interval-on-text", "irr", sd.words, INTERVAL, LevelError,
         "non-numeric", fill={"categories": ["low", "mid", "high"]},
         together={"categories=": {"level": "ordinal"}},  # "or 'ordinal' with categories="
         skip={"pd.to_numeric": "converts numbers written as text; these are words"}),
    Case("ratio-on-negative-numbers", "irr", lambda: sd.numbers().assign(joy=lambda d: d.joy - 2),
         {"level": "ratio"}, InputError, "negative values"),
    Case("alpha-given-weights", "irr", sd.numbers, {"weights": "linear"}, InputError,
         "through level=", fill={"level": "ordinal"}),
    Case("fleiss-given-level", "irr", sd.numbers, {"metric": "fleiss", "level": "ordinal"},
         InputError, "not with level="),
    Case("icc-given-level", "irr", sd.numbers, {"metric": "icc", "level": "ordinal"}, InputError,
         "leave level="),
    Case("single-labels-at-masi", "irr", sd.numbers, {"level": "masi"}, LevelError,
         "compares label sets", skip={"xrr_accessor.set_cells(df)": (
             "for a long frame with one row per label; here each row is one annotation")}),
    Case("mixed-types", "irr", lambda: sd.long([1, "1", 2, 2, 1, "x"]), {"level": "nominal"},
         LevelError, "mixes value types",
         skip={"pd.to_numeric(df[col])": "'x' is not a number: the other recipe is for it"}),
    Case("infinite-rating", "irr", lambda: sd.numbers().assign(
        joy=lambda d: d.joy.replace(4, np.inf)), INTERVAL, LevelError, "infinite"),
    Case("categories-missing-one", "irr", sd.words,
         {"level": "ordinal", "categories": ["low", "mid"]}, InputError, "not among",
         fill={"categories": ["low", "mid", "high"]}),
    # metrics and their data ------------------------------------------------------------
    Case("cohen-on-three-raters", "irr", sd.numbers, {"metric": "cohen", **INTERVAL}, InputError,
         "exactly 2 raters"),
    Case("icc-with-missing-ratings", "irr", lambda: sd.numbers().iloc[:-1],
         {"metric": "icc", "form": "2,1"},  # (without form=: the one-way ICC, defined)
         UndefinedWarning, "lack a rating",
         skip={"metric='alpha' with level='interval'": "the call's form='2,1' belongs to "
               "the ICC: a user following it drops form= with the metric"},
         recipes={".dropna()": lambda d: d.pivot(
             index="item", columns="rater", values="joy").dropna()},
         together={".dropna()": {"wide": True}}),  # "pivot to items x raters and .dropna()"
    Case("iota-drops-incomplete-items", "irr", lambda: sd.numbers().iloc[:-1],
         {"metric": "iota", **INTERVAL}, DroppedDataWarning, "every rater on every item"),
    Case("form-without-icc", "irr", sd.numbers, {"form": "ICC2", **INTERVAL}, InputError,
         "goes with metric='icc'", together={"metric='icc'": {"level": None}}),
    Case("augmented-as-a-metric", "irr", sd.label_sets, {"metric": "augmented"}, InputError,
         "own entry points", fill={"ps": [0.5, 1.0]}, recipes={},
         skip={".augmented_items()": "takes ordered sets; these are unordered"}),
    Case("normalize-by-icc", "normalized", sd.two_pools, {"irr": "icc", **INTERVAL}, InputError,
         "cannot normalize", skip={"irr='cohen'": "Cohen's kappa needs two raters, these "
                                   "have three (its own error says so)"}),
    # intervals --------------------------------------------------------------------------
    Case("ci-as-percent", "irr", sd.numbers, {"ci": 95, **INTERVAL}, InputError,
         "between 0 and 1"),
    Case("method-without-ci", "irr", sd.many, {"method": "bootstrap", **INTERVAL}, InputError,
         "ask for one with ci="),
    Case("population-with-bootstrap", "irr", sd.numbers,
         {"ci": 0.95, "method": "bootstrap", "population": 100, "n_boot": 50, **INTERVAL},
         InputError, "finite-population"),
    Case("bca-on-few-items", "irr", lambda: sd.numbers().iloc[:6],
         {"ci": 0.95, "method": "bootstrap", "n_boot": 50, **INTERVAL}, InputError,
         "needs at least"),
    Case("one-replicate", "irr", sd.numbers, {"ci": 0.95, "n_boot": 1, **INTERVAL}, InputError,
         "number of bootstrap replicates", nothing="it states the rule (>= 2), no call"),
    # roles ------------------------------------------------------------------------------
    Case("item-column-not-found", "irr", lambda: sd.numbers().rename(columns={"item": "stimulus"}),
         INTERVAL, RoleError, "no column for the item", fill={"item": "stimulus"},
         skip={"wide=True": "for a frame whose rows are items; this one is long"}),
    Case("rater-column-not-found", "irr", lambda: sd.numbers().rename(columns={"rater": "who"}),
         INTERVAL, RoleError, "no column for the rater", fill={"rater": "who"},
         skip={"wide=True": "for a frame whose rows are items; this one is long"}),
    Case("pool-column-left-out", "irr", sd.sourced, INTERVAL, DroppedDataWarning,
         "left out 'source'", fill={"labels": ["joy"], "replication": "source"}),
    Case("kappa-x-on-one-pool", "cross_kappa", sd.sourced, {"labels": ["joy"], **INTERVAL},
         InputError, "compares two replications",
         fill={"replication": "source", "other": sd.numbers()},
         skip={}),
    Case("duplicate-annotations", "irr", lambda: pd.concat([sd.numbers(), sd.numbers().iloc[:1]]),
         INTERVAL, InputError, "duplicate annotation",
         skip={"replication='<column>'": "no column tells pools apart in these data"}),
    Case("duplicate-numbers-without-a-level", "irr", lambda: pd.concat(
        [sd.numbers(), sd.numbers().iloc[:1]]), {}, InputError, "duplicate annotation",
         skip={"replication='<column>'": "no column tells pools apart in these data"}),
    Case("pools-in-an-unnamed-column", "irr", lambda: sd.two_pools().rename(
        columns={"pool": "batch"}), INTERVAL, InputError, "duplicate annotation",
         fill={"replication": "batch"}, skip={  # the message's last clause is for pools
             "df.drop_duplicates(subset=['item', 'rater'])": "would drop a pool",
             "duplicates='first'": "would drop a pool"}),
    Case("one-row-per-label-at-jaccard", "irr", lambda: pd.DataFrame({
        "item": [0, 0, 0, 1, 1, 1, 2, 2], "rater": ["x", "x", "y", "x", "y", "y", "x", "y"],
        "joy": ["a", "b", "a", "b", "b", "a", "a", "a"]}), {"level": "jaccard"}, InputError,
         "duplicate annotation", skip={
             "replication='<column>'": "no column tells pools apart in these data"}),
    Case("missing-item-ids", "irr", lambda: sd.numbers().assign(
        item=lambda d: d.item.where(d.index > 0)), INTERVAL, InputError, "missing id"),
    Case("labels-and-value", "irr", sd.numbers, {"labels": ["joy"], "value": "joy", **INTERVAL},
         RoleError, "not both", fill={"labels": ["joy"], "value": "joy"}),
    Case("no-label-columns", "irr", lambda: sd.numbers()[["item", "rater"]], INTERVAL, RoleError,
         "no value columns", skip={"labels=[...]": "the frame holds no column to name"}),
    Case("value-column-and-others", "irr", lambda: sd.numbers().assign(label="joy", value=1,
                                                                    note="x"),
         INTERVAL, DroppedDataWarning, "are not used", fill={"labels": ["joy"]}),
    Case("duplicate-column-names", "irr", lambda: pd.concat(
        [sd.numbers(), sd.numbers()[["joy"]]], axis=1), INTERVAL, InputError,
        "appear more than once",
        recipes={"df.columns = [...]": lambda d: d.set_axis(
            ["item", "rater", "joy", "joy2"], axis=1)}),
    Case("multiindex-columns", "irr", lambda: sd.numbers().groupby(["item", "rater"]).agg(
        {"joy": ["first"]}).reset_index(), INTERVAL,
         InputError, "MultiIndex columns",
         skip={"wide=True": "for a frame whose rows are items; this one is long"}),
    # diagnostics -----------------------------------------------------------------------
    Case("intra-given-replication", "intra", sd.sessions,
         {"session": "round", "replication": "pool", **INTERVAL}, RoleError,
         "not replication=",
         recipes={"df[df['pool'] == ...].drop(columns='pool').xrr.intra(session='round')": (
             lambda d: d[d.pool == "A"].drop(columns="pool"))},
         together={"df[df['pool'] == ...].drop(columns='pool').xrr.intra(session='round')": {
             "replication": None}}),
    Case("intra-on-two-pools", "intra", sd.sessions, {"session": "round", **INTERVAL}, RoleError,
         "select one", recipes={"df[df['pool'] == ...].drop(columns='pool')": (
             lambda d: d[d.pool == "A"].drop(columns="pool"))}),
    Case("intra-session-not-a-column", "intra", lambda: sd.sessions()[lambda d: d.pool == "A"],
         {"session": "visit", **INTERVAL}, RoleError, "is not a column",
         skip={"session='round'": "an example name (here it happens to be a column)"}),
    Case("validity-series-gold-two-labels", "validity",
         lambda: sd.two_pools().assign(fear=1), {"gold": sd.gold_of_a(), **INTERVAL}, InputError,
         "gold is a Series", fill={"labels": ["joy"]}),
    Case("validity-one-gold-column-two-labels", "validity", lambda: sd.numbers().assign(
        fear=lambda d: 5 - d.joy, g_joy=lambda d: d.groupby("item").joy.transform("max"),
        g_fear=lambda d: 5 - d.g_joy), {"gold": "g_joy", **INTERVAL}, InputError,
         "is one column", fill={"labels": ["joy"], "gold": {"joy": "g_joy", "fear": "g_fear"}}),
    Case("validity-gold-varies-within-items", "validity",
         lambda: sd.numbers().assign(g=lambda d: d.joy), {"gold": "g", **INTERVAL}, InputError,
         "different values", nothing="prose: pass gold as a Series item -> label"),
    Case("rater-min-items-zero", "rater_agreement", sd.numbers, {"min_items": 0, **INTERVAL},
         InputError, "fewest items"),
    Case("rater-metric-unknown", "rater_agreement", sd.numbers, {"metric": "xx", **INTERVAL},
         InputError, "not a ranking"),
    Case("pairwise-metric-unknown", "pairwise", sd.numbers, {"metric": "alpha", **INTERVAL},
         InputError, "pairwise compares raters"),
    Case("spearman-on-words", "disattenuated_correlation", sd.yes_no, {"replication": "pool"},
         InputError, "non-numeric", column="joy"),
    # reports ---------------------------------------------------------------------------
    Case("report-sort-by-unknown", "report", sd.numbers, {"sort_by": "xx", **INTERVAL},
         InputError, "sort_by="),
    Case("summary-items-unknown", "summary", sd.two_pools, {"items": "xx", **INTERVAL},
         InputError, "items="),
    Case("report-on-label-sets", "report", sd.label_sets, {"level": "masi"}, UndefinedWarning,
         "no agreement table"),
    Case("report-at-ratio", "report", sd.numbers, {"level": "ratio"}, UndefinedWarning,
         "no agreement table"),
    Case("report-on-no-rows", "report", lambda: sd.numbers().iloc[:0], INTERVAL,
         UndefinedWarning, "no annotations", nothing="says what is missing, names no call"),
    Case("report-gold-without-reference", "report", sd.three_pools, {"gold": "B", **INTERVAL},
         InputError, "name their pool", fill={"reference": "A"},
         skip={"candidates=": "names what opens the models page, not a fix",
               "epsilon=": "names what opens the models page, not a fix"}),
    # models ----------------------------------------------------------------------------
    Case("alt-test-on-one-pool", "alt_test", sd.numbers, {"epsilon": 0.1, **INTERVAL}, InputError,
         "hold one pool", fill={"models": sd.numbers()[lambda d: d.rater == "a"].assign(rater="m")},
         skip={"replication='source'": "an example name; these data hold one pool"}),
    Case("alt-test-one-human", "alt_test", sd.one_human, {"epsilon": 0.1, "reference": "A",
                                                        "replication": "pool", **INTERVAL},
         InputError, "has one rater", fill={"gold": sd.gold_of_a()}),
    # label sets ------------------------------------------------------------------------
    Case("sets-mixed-with-single-labels", "read_sets",
         lambda: sd.sets_of([["a"], "b", ["a", "b"], ["b"]]), {}, InputError,
         "mixes label sets", column="labels"),
    Case("single-labels-read-as-sets", "read_sets", lambda: sd.sets_of(["a", "b", "a", "b"]),
         {"layout": "sets"}, InputError, "requires a list", column="labels"),
    Case("sets-read-as-long", "read_sets", lambda: sd.sets_of([["a"], ["b"], ["a"], ["b"]]),
         {"layout": "long"}, InputError, "one label per row", column="labels"),
    Case("a-label-twice-in-a-set", "irr", lambda: sd.sets_of([["a", "a"], ["b"], ["a"], ["b"]]),
         {"level": "masi"}, InputError, "appears twice", column="labels",
         recipes={"list(dict.fromkeys(labels))": lambda d: d.assign(
             labels=d["labels"].map(lambda v: list(dict.fromkeys(v))))}),
    Case("augmented-on-unordered-sets", "augmented_kappa",
         lambda: sd.sets_of([{"a", "b"}, {"b"}, {"a"}, {"b"}]), {"p": 0.6}, InputError,
         "no order", column="labels",
         skip={"rank=": "for a long frame; these are sets in cells",
               'level="jaccard"': 'the level of the irr(...) before it, not of this call'}),
    Case("augmented-given-a-level", "augmented_kappa",
         lambda: sd.sets_of([["a", "b"], ["b"], ["a"], ["b", "a"]]), {"p": 0.6, "level": "masi"},
         RoleError, "does not take", column="labels"),
    Case("augmented-given-a-replication", "augmented_kappa", lambda: sd.sets_of(
        [["a", "b"], ["b"], ["a"], ["b", "a"]] * 2).assign(pool=["A"] * 4 + ["B"] * 4),
         {"p": 0.6, "replication": "pool"}, RoleError, "does not take", column="labels",
         skip={"item=": "the columns are named item and rater already",
               "rater=": "the columns are named item and rater already",
               "value=": "the column of labels is found by its name"}),
    Case("augmented-sweep-no-ps", "augmented_sweep",
         lambda: sd.sets_of([["a", "b"], ["b"], ["a"], ["b"]]), {"ps": []}, InputError,
         "is empty"),
    Case("augmented-undefined-pairs", "augmented_kappa", lambda: pd.DataFrame(
        {"item": [0, 0, 1, 1, 2, 2], "rater": ["a", "b", "a", "b", "c", "d"],
         "labels": [["a"], ["a"], ["a"], ["a"], ["a"], ["b"]]}), {"p": 0.6},
         DroppedDataWarning, "left out of the mean",
         skip={"pairs=True": "shows each pair's NaN: the same pairs stay undefined"}),
    Case("set-cells-partial-indicators", "set_cells", lambda: pd.DataFrame(
        {"item": [0, 0, 1, 1], "rater": ["a", "b", "a", "b"], "x": [1, None, 0, 1],
         "y": [0, 1, 1, 1]}), {"columns": ["x", "y"]}, InputError, "miss some",
         nothing="prose: fill with 0 or drop the rows"),
    # readers ---------------------------------------------------------------------------
    Case("level-inferred-note", "irr", lambda: sd.long(list(range(30))), {}, LevelNote,
         "inferred", fill={"level": "interval"}),
    # more parameters -------------------------------------------------------------------
    Case("unknown-level", "irr", sd.numbers, {"level": "ordinl"}, InputError, "unknown level",
         skip={"level='jaccard'": "a level of label sets; these are numbers",
               "level='masi'": "a level of label sets; these are numbers"}),
    Case("unknown-icc-form", "irr", sd.numbers, {"metric": "icc", "form": "ICC9"}, InputError,
         "unknown ICC form", skip={"ICC(2,1)": "a spelling of form='2,1', not a call"}),
    Case("asymmetric-matrix", "irr", lambda: sd.long([0, 1, 1, 0, 1, 0]),
         {"level": np.array([[0.0, 1.0], [2.0, 0.0]])}, InputError, "symmetric",
         nothing="the recipe ((D + D.T) / 2) is algebra on the user's matrix"),
    Case("reference-not-a-pool", "compare", sd.two_pools, {"reference": "C", **INTERVAL},
         InputError, "is not a replication"),
    Case("interval-unknown", "irr", sd.many, {"ci": 0.95, "interval": "xx", **INTERVAL},
         InputError, "choose 'bca'"),
    Case("method-unknown", "irr", sd.many, {"ci": 0.95, "method": "xx", **INTERVAL}, InputError,
         "choose 'bootstrap'"),
    Case("no-analytic-error", "irr", sd.many, {"metric": "light", "ci": 0.95,
                                            "method": "analytic"},
         InputError, "no analytic standard error", together={"method='bootstrap'": {
             "n_boot": 50}}),
    Case("duplicates-policy-unknown", "irr", sd.numbers, {"duplicates": "xx", **INTERVAL},
         InputError, "not a policy"),
    Case("duplicates-mean-of-words", "irr", lambda: pd.concat([sd.words(), sd.words().iloc[:1]]),
         {"duplicates": "mean", "level": "nominal"}, LevelError, "averages numbers"),
    Case("layout-unknown", "to_xarray", sd.numbers, {"layout": "xx"}, InputError, "layout="),
    Case("alignment-unknown", "alt_test", sd.three_pools,
         {"epsilon": 0.1, "reference": "A", "alignment": "xx", "min_items": 5},
         InputError, "alignment="),
    Case("gold-not-a-pool", "report", sd.three_pools,
         {"gold": "Z", "reference": "A", **INTERVAL}, InputError, "gold="),
    Case("candidate-not-a-pool", "alt_test", sd.three_pools,
         {"epsilon": 0.1, "reference": "A", "candidates": ["Z"], "min_items": 5, **INTERVAL},
         InputError, "candidates="),
    # more roles ------------------------------------------------------------------------
    Case("two-item-columns", "irr", lambda: sd.numbers().assign(unit=lambda d: d.item),
         INTERVAL, RoleError, "several columns", fill={"item": "item"}),
    Case("gold-column-beside-labels", "irr", lambda: sd.numbers().assign(
        truth=lambda d: d.groupby("item").joy.transform("max")), INTERVAL, XRRWarning,
         "named like a gold", fill={"labels": ["joy"]},
         skip={"replication='<column>'": "for a column telling pools apart; 'truth' is gold"}),
    Case("gold-labels-do-not-match", "validity", lambda: sd.numbers().assign(fear=1),
         {"gold": pd.DataFrame({"joy": [1, 2, 3, 4, 5]}), **INTERVAL}, InputError,
         "do not match", fill={"labels": ["joy"]}),
    Case("xarray-extra-dimension", "irr", lambda: xr.DataArray(
        np.ones((3, 2, 2)), dims=("item", "rater", "wave")), INTERVAL, InputError,
         "unexpected dimension", skip={"item=": "the dimensions are named item and rater already",
               "rater=": "the dimensions are named item and rater already"},
         fill={"replication": "wave"}),
    Case("set-duplicates", "read_sets", lambda: sd.sets_of([["a"], ["b"], ["a"], ["b"]]).pipe(
        lambda d: pd.concat([d, d.iloc[:1]])), {}, InputError, "more than one row",
         column="labels"),
    Case("read-sets-two-label-columns", "read_sets", lambda: sd.sets_of(
        [["a"], ["b"], ["a"], ["b"]]).assign(tags=[["x"]] * 4), {}, RoleError,
         "several columns", fill={"value": "labels"}),
    # batch 4: gold, counts, exports, ids, label-set readers ------------------------------
    Case("validity-ci-at-nominal", "validity", lambda: sd.many().assign(
        g=lambda d: d.groupby("item").joy.transform("max")), {"gold": "g", "ci": 0.95,
                                                            "level": "nominal"},
         InputError, "leave ci out"),
    Case("report-gold-without-rater-table", "report", lambda: sd.numbers()[
        lambda d: d.rater != "c"].assign(g=lambda d: d.groupby("item").joy.transform("max")),
         {"gold": "g", **INTERVAL}, UndefinedWarning, "gold= is not shown",
         fill={"gold": "g"}, skip={"gold=": "the report's own keyword, quoted"}),
    Case("cohen-on-rating-slots", "irr", lambda: sd.numbers().rename(columns={"rater": "slot"}),
         {"metric": "cohen"}, InputError, "raters"),
    Case("ids-of-two-types", "alt_test", lambda: sd.many().assign(pool="A"), {
        "other": sd.many()[lambda d: d.rater == "a"].assign(rater="m", item=lambda d: d.item
                                                         .astype(str)),
        "epsilon": 0.1, "min_items": 5, **INTERVAL}, InputError, "do not meet",
         column="item"),
    Case("alignment-against-level", "alt_test", sd.three_pools,
         {"epsilon": 0.1, "reference": "A", "alignment": "accuracy", "min_items": 5,
          **INTERVAL}, InputError, "drop one of them"),
    Case("numbers-as-text-and-a-stray", "irr", lambda: sd.long(
        ["1", "2", "3", "4", "5"] * 6 + ["x", "1", "2"]), {"level": "nominal"},
         StrayValueWarning, "numbers written as text",
         recipes={"df[col].replace({'x': '<number>'})": lambda d: d.replace({"joy": {
             "x": "3"}})}),
    Case("dataset-with-a-label-dimension", "irr", lambda: xr.Dataset(
        {"joy": xr.DataArray(np.arange(12.0).reshape(3, 2, 2) % 3,
                             dims=("item", "rater", "label"))}), INTERVAL, RoleError,
         "label dimension", recipes={"ds.to_dataarray()": lambda d: d["joy"]}),
    Case("rank-of-ordered-lists", "read_sets", lambda: sd.sets_of(
        [["a", "b"], ["b"], ["a"], ["b"]]).assign(r=1), {"rank": "r"}, InputError,
         "Drop rank="),
    Case("set-reader-extra-column", "read_sets", lambda: sd.sets_of(
        [["a"], ["b"], ["a"], ["b"]]).assign(note=["x", "y", "z", "w"]), {},
         DroppedDataWarning, "not used", fill={"value": "labels"}),
    Case("set-cells-by-the-item", "set_cells", lambda: pd.DataFrame(
        {"item": [0, 0, 1, 1], "rater": ["a", "a", "b", "b"], "lab": ["x", "y", "x", "z"]}),
         {"by": "item"}, InputError, "which is the item", fill={"by": None}),
    Case("set-cells-by-with-missing", "set_cells", lambda: pd.DataFrame(
        {"item": [0, 0, 1, 1], "rater": ["a", "a", "b", "b"], "lab": ["x", "y", "x", "z"],
         "pool": ["A", None, "A", "A"]}), {"by": "pool"}, InputError, "missing values",
         column="pool"),
    Case("categories-of-label-sets", "irr", sd.label_sets,
         {"categories": ["a", "b"], "level": "masi"}, InputError, "leave categories= out"),
    Case("compare-on-one-pool", "compare", sd.many, {"reference": "A", **INTERVAL}, InputError,
         "is not a replication", fill={"other": sd.many().sample(frac=1.0, random_state=1)},
         skip={"replication='<column>'": "the data hold one pool: no column to name"}),
    Case("candidates-include-the-reference", "alt_test", sd.three_pools, {
        "epsilon": 0.1, "reference": "A", "candidates": ["A", "C"], "min_items": 5},
         InputError, "not tested against itself", nothing="says why, names no call"),
    # batch 5: set cells, set readers, models as columns ---------------------------------
    Case("set-cells-mixing-sets-and-labels", "set_cells", lambda: sd.sets_of(
        [["a", "b"], "b", ["a"], ["b"]]), {}, InputError, "mixes label sets",
         column="labels"),
    Case("augmented-given-two-label-columns", "augmented_kappa", lambda: sd.sets_of(
        [["a", "b"], ["b"], ["a"], ["b", "a"]]).assign(tags=[["x"]] * 4),
         {"p": 0.6, "labels": ["labels", "tags"]}, RoleError, "reads one column",
         fill={"value": "labels"}),
    Case("models-as-columns-beside-two-labels", "alt_test", lambda: sd.many().assign(
        fear=lambda d: 4 - d.joy, m=lambda d: d.groupby("item").joy.transform("max")),
         {"other": ["m"], "epsilon": 0.1, "min_items": 5, **INTERVAL}, InputError,
         "need one label column", fill={"labels": ["joy"]}),
]

@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_every_suggestion_of_the_message_runs_without_an_error_or_the_same_warning(
        case: Case) -> None:
    check(case)
