"""Issue 36, part 5: costs that grew with the square of the input are linear now.

* Conger's chance term summed every rater's totals over the whole (labels x ...) array
  once per (label, replication): ``agreement_table`` and ``report`` were quadratic in
  the labels. The totals are summed once per call (:class:`RaterCounts`); the values
  are the same to the last bit.
* ``per_category`` refuses binary labels that cannot fit, before allocating them, and
  writes them into one array (no list of rows, then a stacked copy).
* ``read_label_studio`` gives one row per answer (a multi-choice answer's choices as a
  label set), not answers x choices rows.
* ``pairwise`` refuses too many rater pairs before any O(raters^2) work.

Linearity is tested by what is computed (how often, how much memory), never by time.
"""

from __future__ import annotations

import io
import json
import tracemalloc
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.coefficients import chance, lookup
from xrr_accessor.coefficients.chance import Cell, chance_terms, conger
from xrr_accessor.coefficients.sums import rater_totals
from xrr_accessor.diagnostics import pairwise as pairwise_module
from xrr_accessor.engine.levels import resolve_weights
from xrr_accessor.engine.pipeline import annotations, run
from xrr_accessor.errors import InputError
from xrr_accessor.io import read_label_studio
from xrr_accessor.reporting import agreement


def conger_before(cell: Cell) -> float:
    """Conger's chance term as it was before issue 36 (the rater totals of every cell
    summed for each cell): the reference the new one must equal to the last bit."""
    per_rater = cell.stats["strata_rater"][cell.lab, cell.r].sum(axis=0)
    present = rater_totals(cell.stats)[cell.lab, cell.r] > 0
    g = per_rater[present][:, :cell.k]
    b = len(g)
    if b < 2:
        return np.nan
    p = g / g.sum(axis=1, keepdims=True)
    mean = p.mean(axis=0)
    if cell.w is None:
        var = ((p**2).sum(axis=0) - b * mean**2) / (b - 1)
        return float((mean**2 - var / b).sum())
    cov = (p.T @ p - b * np.outer(mean, mean)) / (b - 1)
    return float((cell.w * (np.outer(mean, mean) - cov / b)).sum())


def labels_frame(n_categories: list[int], seed: int = 0, n_items: int = 30,
                 replications: tuple[str, ...] = ("p", "q")) -> pd.DataFrame:
    """Long data: one label per entry of ``n_categories`` (its number of categories),
    four raters, about 20% of the annotations missing, two replications."""
    rng = np.random.default_rng(seed)
    rows = [(i, r, rep, f"l{j}", int(rng.integers(0, k)))
            for j, k in enumerate(n_categories) for rep in replications
            for i in range(n_items) for r in "abcd" if rng.random() >= 0.2]
    return pd.DataFrame(rows, columns=["item", "rater", "replication", "label", "value"])


@pytest.mark.parametrize("n_categories", [[2, 3, 9, 12, 5, 4], [3]])  # several, one
@pytest.mark.parametrize("weights", ["unweighted", "linear", "quadratic"])
def test_conger_equals_the_per_cell_sums_to_the_last_bit(n_categories: list[int],
                                                         weights: str) -> None:
    """p_a and p_e of Conger's kappa: the totals summed once for every cell give the
    numbers the per-cell sums gave, bit for bit (several labels with missing values,
    categories beyond 8, weighted and unweighted; and one label)."""
    df = labels_frame(n_categories)
    result = run(df, [lookup("conger")], level=resolve_weights(weights))
    got = chance_terms(result.stats, result.ctx, conger)
    want = chance_terms(result.stats, result.ctx, conger_before)
    for new, old in zip(got, want, strict=True):
        assert new.shape == (len(n_categories), 2)
        np.testing.assert_array_equal(new, old)  # NaN where both are NaN
    assert np.isfinite(got[1]).all()


def test_agreement_table_of_many_labels_is_each_labels_own() -> None:
    """Every label's rows of the many-label table are the label's own table (to
    rounding of the engine's sums), with intervals."""
    df = labels_frame([2, 3, 9, 12])
    full = xa.agreement_table(df, weights="linear", ci=0.95)
    for label in df["label"].unique():
        one = xa.agreement_table(df[df["label"] == label], weights="linear", ci=0.95)
        pd.testing.assert_frame_equal(full.loc[[label]], one, rtol=0, atol=1e-13)


def test_rater_totals_summed_once_whatever_the_labels(monkeypatch: pytest.MonkeyPatch
                                                      ) -> None:
    """Conger's chance term sums the rater totals once per call, however many labels
    (it was once per label and replication: quadratic). Counted, not timed."""
    calls = []

    def counted(stats: Any) -> np.ndarray:
        calls.append(stats["strata_rater"].shape[0])
        return rater_totals(stats)

    monkeypatch.setattr(chance, "rater_totals", counted)
    for n_labels in (2, 40):
        calls.clear()
        table = xa.agreement_table(labels_frame([3] * n_labels, n_items=6))
        assert table.loc[("l1", "p", "conger"), "pe"] > 0
        assert calls == [n_labels], (n_labels, calls)


# ------------------------------------------------------------------ per_category

def binary_before(ann: Any) -> np.ndarray:
    """per_category's binary codes as they were built before (one row per category)."""
    rows = [np.where(ann.codes[j] < 0, -1, (ann.codes[j] == k).astype(np.int64))
            for j in range(len(ann.labels)) for k in range(len(ann.categories[j]))]
    return np.stack(rows)


def test_per_category_binary_codes_unchanged() -> None:
    df = labels_frame([2, 3, 9, 12, 5])
    ann, _ = annotations(df)
    got = agreement._binary(ann)
    np.testing.assert_array_equal(got.codes, binary_before(ann))
    assert got.codes.dtype == np.int64
    assert list(got.labels)[:3] == [("l0", 0), ("l0", 1), ("l1", 0)]


def test_per_category_refuses_a_size_that_cannot_fit_before_allocating(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """400 categories x 2,000 annotation rows of int64 codes (6 MiB) against 4 MiB of
    memory: refused, naming the size and the fix, with next to nothing allocated."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"item": np.repeat(np.arange(1000), 2), "rater": [0, 1] * 1000,
                       "value": rng.permutation(np.repeat(np.arange(400), 5))})
    xa.per_category(df.head(40))  # imports and compiles outside the measure
    monkeypatch.setattr(agreement, "available_memory", lambda: 4 * 2**20)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match=r"400 categories into binary labels over 2,000 "
                           r"annotation rows: 400 x 2,000 codes, about 0\.0 GiB .* Merge rare "
                           r"categories .* fewer labels at a time"):
            xa.per_category(df)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2000 * 8 / 4, peak  # the codes were never allocated
    monkeypatch.setattr(agreement, "available_memory", lambda: 2**30)
    assert len(xa.per_category(df)) == 400  # with the memory: computed as before


# ------------------------------------------------------------------ Label Studio

def multi_choice_export(size: int) -> tuple[str, int]:
    """A Label Studio export of about ``size`` bytes: two annotators per task, each
    picking one or two choices of the task's own (every choice distinct in the file,
    the worst case of one 0/1 row per choice seen). Returns the text and its answers."""
    tasks, n, answers = [], 2, 0
    while n < size:
        i = len(tasks)
        task = {"id": i, "data": {"text": f"t{i}"}, "annotations": [
            {"completed_by": r, "was_cancelled": False, "result": [
                {"from_name": "topics", "to_name": "text", "type": "choices",
                 "value": {"choices": [f"c{i}", f"d{i}"][:1 + (i + r) % 2]}}]}
            for r in (1, 2)]}
        n += len(json.dumps(task)) + 2
        answers += 2
        tasks.append(task)
    return json.dumps(tasks), answers


def test_label_studio_multi_choice_is_one_row_per_answer() -> None:
    text, answers = multi_choice_export(8_000)
    df = read_label_studio(io.StringIO(text))
    assert len(df) == answers  # was answers x distinct choices
    assert df["label"].unique().tolist() == ["topics"]
    assert df["value"].iloc[:2].tolist() == [frozenset({"c0", "d0"}), frozenset({"c0"})]


def test_label_studio_750_kb_export_stays_small() -> None:
    """The fuzz probe's 750 KB multi-choice export (it ran out of memory): one row per
    answer, a peak far under 200 MB."""
    text, answers = multi_choice_export(750_000)
    assert len(text) >= 750_000
    read_label_studio(io.StringIO(multi_choice_export(1_000)[0]))  # imports, outside
    tracemalloc.start()
    try:
        df = read_label_studio(io.StringIO(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(df) == answers
    assert peak < 200 * 2**20, peak


# ------------------------------------------------------------------ pairwise

def sharing_before(item: np.ndarray, cell: np.ndarray, rated: np.ndarray,
                   rep_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pairwise's rater pairs as they were found before (a self-merge on the item)."""
    both = pd.DataFrame({"item": item[rated], "cell": cell[rated]}).drop_duplicates()
    joined = both.merge(both, on="item")
    joined = joined[joined["cell_x"] < joined["cell_y"]]
    pairs = np.unique(joined[["cell_x", "cell_y"]].to_numpy(dtype=np.int64), axis=0)
    pairs = pairs.reshape(-1, 2)
    a, b = pairs[:, 0], pairs[:, 1]
    return a[rep_of[a] == rep_of[b]], b[rep_of[a] == rep_of[b]]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pairwise_finds_the_same_pairs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    item, cell = rng.integers(0, 60, n), rng.integers(0, 40, n)
    rated, rep_of = rng.random(n) > 0.1, np.repeat([0, 1, 2], [15, 15, 10])
    got = pairwise_module._sharing(item, cell, rated, rep_of, 10**6)
    want = sharing_before(item, cell, rated, rep_of)
    for new, old in zip(got, want, strict=True):
        np.testing.assert_array_equal(new, old)
    assert len(got[0]) > 50


def memory_of(call: Callable[[], Any]) -> tuple[Exception, int]:
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            call()
        return caught.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_pairwise_refuses_too_many_pairs_at_once() -> None:
    """More rater pairs than MAX_PAIRS: refused in O(annotations) memory, where the
    pairs were listed first (a merge of sum m^2 rows), with the same advice."""
    fix = (r"rater pairs share an item, more than pairwise computes in one call "
           r"\(200,000\); select raters \(e\.g\. those with the most items\) first")
    one_item = pd.DataFrame({"item": 0, "rater": np.arange(3000), "v": np.arange(3000) % 3})
    xa.pairwise(one_item.head(5))  # imports and compiles outside the measure
    err, peak = memory_of(lambda: xa.pairwise(one_item))
    assert str(err).startswith("4,498,500 rater pairs")  # all of them: said exactly
    assert peak < 20 * 2**20, peak
    rng = np.random.default_rng(0)  # 10,000 raters, two items each of 50: ~4e6 pairs
    crowd = pd.DataFrame({"item": rng.integers(0, 50, 20_000),
                          "rater": np.repeat(np.arange(10_000), 2), "v": 1}
                         ).drop_duplicates(["item", "rater"])
    err, peak = memory_of(lambda: xa.pairwise(crowd))
    assert pd.Series([str(err)]).str.contains(fix).all()
    assert str(err).startswith("at least 200,001 (at most ")  # the pass stopped there
    assert peak < 40 * 2**20, peak


def test_pairwise_still_computes_below_the_limit() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = labels_frame([3], n_items=20, replications=("p",))
        out = xa.pairwise(df, both_orders=False)
    assert len(out) == 6 and out.attrs["n_pairs"] == 6
