"""``xrr irr --metric icc --form all`` (issue 35): every format prints every form's
estimate and the counts of the library's result, with and without ``--ci``.

The form-columns layout of ``irr(..., metric="icc", form="all")`` keeps its counts per
cell (as one form's result does) while the estimates are a column per form; the
records must carry the counts to every (cell, form) row.
"""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.cli.output import records

FORMS = ["ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k"]
COUNTS = ["n_items", "n_raters"]


def _scores(n_items: int, n_raters: int, pool: str, seed: int) -> pd.DataFrame:
    """Complete ratings of two labels, rater effects and noise: every ICC form differs."""
    rng = np.random.default_rng(seed)
    true = rng.normal(size=(n_items, 1))
    shift = np.linspace(0, 0.6, n_raters)
    rows = []
    for lab, noise in (("joy", 0.6), ("awe", 1.2)):
        x = true + shift + rng.normal(scale=noise, size=(n_items, n_raters))
        rows += [{"item": f"i{i}", "rater": f"r{j}", "pool": pool, "label": lab,
                  "score": x[i, j]} for i in range(n_items) for j in range(n_raters)]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two pools of different sizes (A: 20 items x 4 raters, B: 15 x 3), labels as
    columns; one pool in a file without a replication column (the file names it)."""
    root = tmp_path_factory.mktemp("icc")
    long = pd.concat([_scores(20, 4, "A", 1), _scores(15, 3, "B", 2)])
    wide = long.pivot(index=["item", "rater", "pool"], columns="label",
                      values="score").reset_index()
    wide.columns.name = None
    out = {"pools": root / "pools.csv", "one": root / "one.csv"}
    wide.to_csv(out["pools"], index=False)
    wide[wide["pool"] == "B"].drop(columns="pool").to_csv(out["one"], index=False)
    return out


def _library(path: Path, ci: float | None) -> pd.DataFrame:
    """The library's result as one row per (label, replication, form): estimate, counts."""
    df = pd.read_csv(path)
    if "pool" not in df.columns:
        df = df.assign(replication=path.stem)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        got = xrr.irr(df, metric="icc", form="all", level="interval", ci=ci)
    if ci is not None:  # one row per cell and form, the counts as columns
        flat = got.reset_index()
    else:  # a column per form; the counts per cell, {replication: {label: n}}
        assert list(got.columns) == FORMS
        flat = got.stack(future_stack=True).rename("estimate").reset_index()
        for key in COUNTS:
            by_cell = pd.DataFrame(got.attrs[key]).stack()
            flat[key] = [by_cell[(lab, rep)] for lab, rep in
                         zip(flat["label"], flat.iloc[:, 1], strict=True)]
    flat = flat.rename(columns={flat.columns[1]: "replication"})
    return flat.set_index(["label", "replication", "form"])


def _table_cells(text: str) -> list[list[str]]:
    """The cells of ``--format table``: fields are the runs of positions that are not
    blank on every line (an empty cell keeps its column)."""
    lines = text.rstrip("\n").splitlines()
    width = max(map(len, lines))
    lines = [ln.ljust(width) for ln in lines]
    used = [any(ln[i] != " " for ln in lines) for i in range(width)] + [False]
    spans, start = [], None
    for i, u in enumerate(used):
        if u and start is None:
            start = i
        elif not u and start is not None:
            spans.append((start, i))
            start = None
    return [[ln[a:b].strip() for a, b in spans] for ln in lines]


def _printed(path: Path, fmt: str, ci: float | None,
             capsys: pytest.CaptureFixture[str]) -> pd.DataFrame:
    """What ``xrr irr`` prints, as a frame indexed like :func:`_library`."""
    args = ["irr", str(path), "--metric", "icc", "--form", "all", "--level", "interval",
            "--format", fmt, "--decimals", "10"]
    assert main(args + ([] if ci is None else ["--ci", str(ci)])) == 0
    text = capsys.readouterr().out
    if fmt == "csv":
        frame = pd.read_csv(io.StringIO(text))
    elif fmt == "json":
        frame = pd.DataFrame(json.loads(text)["records"])
    else:
        cells = (_table_cells(text) if fmt == "table" else
                 [[c.strip() for c in ln.strip().strip("|").split(" | ")]
                  for ln in text.strip().splitlines() if not ln.startswith("|---")])
        frame = pd.DataFrame(cells[1:], columns=cells[0]).replace("", np.nan)
    for key in ["estimate", *COUNTS]:
        frame[key] = pd.to_numeric(frame[key])
    return frame.set_index(["label", "replication", "form"])


@pytest.mark.parametrize("ci", [None, 0.95])
@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
@pytest.mark.parametrize("which", ["pools", "one"])
def test_every_format_prints_the_forms_and_counts(files: dict[str, Path], which: str,
                                                  fmt: str, ci: float | None,
                                                  capsys: pytest.CaptureFixture[str]
                                                  ) -> None:
    want = _library(files[which], ci)
    got = _printed(files[which], fmt, ci, capsys)
    assert sorted(got.index) == sorted(want.index)  # every (label, replication, form)
    assert set(got.index.get_level_values("form")) == set(FORMS)
    got = got.loc[want.index]
    np.testing.assert_allclose(got["estimate"], want["estimate"], rtol=0, atol=1e-9)
    for key in COUNTS:  # printed, whole, and the library's
        assert got[key].notna().all(), key
        np.testing.assert_array_equal(got[key].to_numpy(), want[key].to_numpy())
    if which == "pools":  # the pools differ: A 20 items x 4 raters, B 15 x 3
        n = got["n_items"].groupby(level="replication").unique()
        assert n.to_dict() == {"A": [20], "B": [15]}
    if ci is not None:
        assert got[["lower", "upper"]].notna().all(axis=None)


def test_one_cell_records_carry_the_counts() -> None:
    """A wide table is one cell: the Series (or, with intervals, the table) over the
    forms keeps its counts as numbers in attrs; the records show them on every form."""
    rng = np.random.default_rng(3)
    wide = pd.DataFrame(rng.normal(size=(12, 1)) + rng.normal(size=(12, 3)),
                        columns=["a", "b", "c"])
    for ci in (None, 0.9):
        result = xrr.irr(wide, metric="icc", form="all", wide=True, ci=ci)
        frame = records(result, "icc", "value")
        assert frame["form"].tolist() == FORMS
        assert (frame["n_items"] == 12).all() and (frame["n_raters"] == 3).all()
        want = result if ci is None else result["estimate"]
        np.testing.assert_allclose(frame["estimate"], want.loc[FORMS], rtol=0, atol=0)
