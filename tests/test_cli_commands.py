"""The ``xrr`` subcommands and flags added for issues 21 and 25: set levels, ICC forms,
the agreement table, rater and item diagnostics, messages in shell terms and the
bootstrap's memory bound; each checked against what the library (and, for
coefficients, a naive formula and a peer package) gives."""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_csv as _csv
from cli_helpers import cli_error as _error

import xrr_accessor as xrr
from xrr_accessor.cli import main
from xrr_accessor.cli.commands import check_memory
from xrr_accessor.datasets import load_demo

import naive

SETS = {  # (item, rater) -> labels
    (1, "a"): ["joy", "awe"], (1, "b"): ["joy"], (1, "c"): ["joy", "awe"],
    (2, "a"): ["sad"], (2, "b"): ["sad", "joy"], (3, "a"): ["awe"], (3, "b"): ["awe"],
    (3, "c"): ["fear", "awe", "joy"], (4, "a"): ["joy"], (4, "b"): ["sad"],
    (5, "a"): ["fear"], (5, "c"): ["fear", "sad"], (6, "b"): ["joy"],
}


def _masi(a: frozenset, b: frozenset) -> float:
    """MASI distance (Passonneau 2006), written from its definition."""
    if a == b:
        return 0.0
    m = 2 / 3 if a <= b or b <= a else (1 / 3 if a & b else 0.0)
    return 1.0 - len(a & b) / len(a | b) * m


def _jaccard(a: frozenset, b: frozenset) -> float:
    return 1.0 - len(a & b) / len(a | b)


@pytest.mark.parametrize("level, dist", [("masi", _masi), ("jaccard", _jaccard)])
def test_set_levels_from_rows_per_label_and_from_lists(tmp_path, capsys, level, dist):
    metrics = pytest.importorskip("nltk.metrics")
    peer = {"masi": metrics.masi_distance, "jaccard": metrics.jaccard_distance}[level]
    long = pd.DataFrame([(i, r, lab) for (i, r), labs in SETS.items() for lab in labs],
                        columns=["item", "rater", "emotion"])
    long.to_csv(tmp_path / "long.csv", index=False)
    cells = pd.DataFrame([(i, r, json.dumps(labs)) for (i, r), labs in SETS.items()],
                         columns=["item", "rater", "emotion"])
    cells.to_csv(tmp_path / "lists.csv", index=False)
    records = [{"item": i, "rater": r, "emotion": labs} for (i, r), labs in SETS.items()]
    (tmp_path / "lists.json").write_text(json.dumps(records))
    units: dict = {}
    for (i, _), labs in SETS.items():
        units.setdefault(i, []).append(frozenset(labs))
    own = naive.alpha(units, dist)
    assert own == pytest.approx(naive.alpha(units, lambda a, b: float(peer(set(a), set(b)))),
                                rel=1e-12)
    frame = pd.DataFrame([(i, r, frozenset(labs)) for (i, r), labs in SETS.items()],
                         columns=["item", "rater", "emotion"])
    api = float(xrr.irr(frame, level=level).iloc[0])
    assert api == pytest.approx(own, rel=1e-12)
    for name in ("long.csv", "lists.csv", "lists.json"):
        got = _csv(capsys, "irr", str(tmp_path / name), "--level", level)
        assert got["estimate"].tolist() == pytest.approx([own], rel=1e-12), name
        assert got["label"].tolist() == ["emotion"] and got["n_items"].tolist() == [5]


def test_icc_forms(tmp_path, capsys):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(30, 1)) + rng.normal(scale=0.7, size=(30, 4)) + [0, 0.3, -0.2, 0.5]
    wide = pd.DataFrame(x, columns=list("pqrs")).rename_axis("item").reset_index()
    long = wide.melt(id_vars="item", var_name="rater", value_name="score")
    long.to_csv(tmp_path / "scores.csv", index=False)
    pingouin = pytest.importorskip("pingouin")
    peer = pingouin.intraclass_corr(long, targets="item", raters="rater", ratings="score")
    peer = dict(zip(peer["Type"], peer["ICC"], strict=True))
    names = {"1,1": "ICC(1,1)", "2,1": "ICC(A,1)", "3,1": "ICC(C,1)", "1,k": "ICC(1,k)",
             "2,k": "ICC(A,k)", "3,k": "ICC(C,k)"}
    for form, name in names.items():
        got = _csv(capsys, "irr", str(tmp_path / "scores.csv"), "--metric", "icc",
                   "--form", f"ICC({form})", "--ci", "0.95")
        own = naive.icc(x, form)
        assert got["estimate"].tolist() == pytest.approx([own], rel=1e-10), form
        assert own == pytest.approx(peer[name], rel=1e-10), form
        want = xrr.irr(long, metric="icc", form=form, level="interval", ci=0.95)
        assert got["lower"].tolist() == pytest.approx(want["lower"].tolist(), rel=1e-12)
        assert got["method"].tolist() == ["analytic"]
    assert "--form" in _error(capsys, "irr", str(tmp_path / "scores.csv"), "--form", "2,1")
    assert "unknown ICC form" in _error(capsys, "irr", str(tmp_path / "scores.csv"),
                                        "--metric", "icc", "--form", "9,9")


@pytest.fixture(scope="module")
def pools(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_commands")
    df = load_demo().groupby("pool").head(300).iloc[:, :5]
    # four raters a pool (two an item): a rater table needs three (xrr raters)
    half = df["item_id"].str[-1].isin(list("01234"))
    df = df.assign(rater=df["rater"] + np.where(half, "a", "b"))
    df.to_csv(d / "pools.csv", index=False)
    return d / "pools.csv", df


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        return fn(*args, **kwargs)


@pytest.mark.parametrize("fmt", ["csv", "json", "table", "markdown"])
def test_agreement_table_command(pools, capsys, fmt):
    path, df = pools
    want = _quiet(xrr.agreement_table, df, ci=0.95).reset_index()
    assert main(["agreement", str(path), "--ci", "0.95", "--format", fmt]) == 0
    out = capsys.readouterr().out
    if fmt == "csv":
        got = pd.read_csv(io.StringIO(out))
    elif fmt == "json":
        got = pd.DataFrame(json.loads(out)["records"])
    else:
        lines = [ln for ln in out.strip().splitlines() if not ln.startswith("|---")]
        assert len(lines) == len(want) + 1
        for line, (_, row) in zip(lines[1:], want.iterrows(), strict=True):
            assert row["metric"] in line and f"{row['estimate']:.3f}" in line
            if np.isfinite(row["pe"]):
                assert f"{row['pe']:.3f}" in line
        return
    assert got["statistic"].tolist() == want["metric"].tolist()
    np.testing.assert_allclose(got["estimate"], want["estimate"], rtol=1e-12)
    np.testing.assert_allclose(got["pa"], want["pa"], rtol=1e-12)
    np.testing.assert_allclose(got["upper"], want["upper"], rtol=1e-12)
    analytic = got["se"].notna()
    assert (got.loc[analytic, "method"] == "analytic").all()
    assert got.loc[~analytic, "method"].isna().all()  # scott, light: no interval, no claim


@pytest.mark.parametrize("cmd, fn, kwargs", [
    ("raters", xrr.rater_agreement, {}),
    ("items", xrr.item_disagreement, {"level": "interval"}),
])
def test_rater_and_item_diagnostics(pools, capsys, cmd, fn, kwargs):
    path, df = pools
    want = _quiet(fn, df, **kwargs).reset_index()
    for fmt in ("csv", "json"):
        assert main([cmd, str(path), "--format", fmt]) == 0
        out = capsys.readouterr().out
        got = (pd.read_csv(io.StringIO(out)) if fmt == "csv"
               else pd.DataFrame(json.loads(out)["records"]))
        assert list(got.columns[:2]) == ["label", "replication"]
        assert len(got) == len(want)
        key = want.columns[2]  # the data's own item / rater column name (issue 21)
        assert got[key].astype(str).tolist() == want[key].astype(str).tolist()
        value = "kappa_x" if cmd == "raters" else "disagreement"
        np.testing.assert_allclose(got[value], want[value], rtol=1e-12)
        np.testing.assert_array_equal(got["rank"].astype(float).fillna(-1),
                                      want["rank"].astype(float).fillna(-1))
    table = main([cmd, str(path), "--decimals", "2"])
    assert table == 0
    first = capsys.readouterr().out.splitlines()[1]
    assert f"{want[value].iloc[0]:.2f}" in first


def _messages_cases(tmp_path):
    good = load_demo().iloc[:400, :4]  # item_id, pool, rater, amusement
    cases = []
    bad = good.astype({"item_id": object}).copy()
    bad.loc[3, "item_id"] = None
    bad.to_csv(tmp_path / "missing_id.csv", index=False)
    cases.append((["irr", "missing_id.csv"], "delete the rows whose 'item_id' is empty"))
    pd.concat([good, good.iloc[:2]]).to_csv(tmp_path / "dups.csv", index=False)
    cases.append((["irr", "dups.csv"], "--duplicates first"))
    records = json.loads(good.to_json(orient="records"))
    records[0]["amusement"] = "yes"
    (tmp_path / "mixed.json").write_text(json.dumps(records))
    cases.append((["irr", "mixed.json"], "one type in the file"))
    text = good.assign(amusement=good["amusement"].map({0: "no", 1: "yes"}))
    text.to_csv(tmp_path / "text.csv", index=False)
    cases.append((["irr", "text.csv", "--level", "interval"], "Leave only numbers"))
    cases.append((["irr", "text.csv", "--level", "ordinal"], "--categories lowest"))
    lists = [{"item": i, "rater": r, "tags": labs if k % 3 else labs[0]}
             for k, ((i, r), labs) in enumerate(SETS.items())]
    (tmp_path / "mixed_sets.json").write_text(json.dumps(lists))
    cases.append((["irr", "mixed_sets.json", "--level", "masi"], "make every annotation a "
                  "list in the file"))
    return cases


def test_messages_are_in_shell_terms(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args, fix in _messages_cases(tmp_path):
        err = _error(capsys, *args)
        assert fix in err, (args, err)
        for python in ("df[", "df.", "pd.", ".map(", "lambda", ".xrr(", "=[", "astype"):
            assert python not in err, (args, err)


def test_stray_text_note_in_shell_terms(tmp_path, capsys):
    df = load_demo().iloc[:600, :4]
    text = df.astype({"amusement": str})
    text.loc[5, "amusement"] = "No"
    text.to_csv(tmp_path / "stray.csv", index=False)
    assert main(["irr", str(tmp_path / "stray.csv")]) == 0
    err = capsys.readouterr().err
    assert "Recode them in the file (replace 'No' with a number)" in err, err
    assert "df[" not in err and "pd." not in err


def test_huge_n_boot_is_refused_before_allocating(pools, capsys, monkeypatch):
    path, _ = pools
    called = []
    monkeypatch.setattr(xrr.api, "cross_kappa", lambda *a, **k: called.append(1))
    pages = {"SC_AVPHYS_PAGES": 1_000_000, "SC_PAGE_SIZE": 4096}  # 3.8 GiB free, fixed
    monkeypatch.setattr("xrr_accessor.cli.inputs.os.sysconf", pages.__getitem__)
    err = _error(capsys, "cross-kappa", str(path), "--ci", "0.95", "--n-boot",
                 "1000000000000")
    assert not called  # nothing computed, nothing allocated
    cells = 2 * 3  # two labels x three pairs
    need = 10**12 * (16 * cells + 8) / 2**30
    assert f"about {need:,.1f} GiB" in err and f"x {cells:,} cell(s)" in err
    assert "the 3.8 GiB of memory available" in err
    most = int(re.search(r"at most --n-boot ([\d,]+)", err).group(1).replace(",", ""))
    check_memory(most, cells)  # the suggestion fits
    with pytest.raises(xrr.InputError):
        check_memory(most * 2 + 1, cells)


def test_readme_cli_reference_names_every_command_and_flag():
    import argparse
    from pathlib import Path

    from xrr_accessor.cli.parser import parser

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### From the shell"):readme.index("### Roles")]
    top = parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in sub.choices.items():
        assert f"xrr {name}" in section or f"alias `{name}`" in section, name
        for action in command._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):  # `--form` or `--form X`, not `--format`
                    assert re.search(rf"`{re.escape(flag)}[` ]", section), (name, flag)
    assert "`--version`" in section


def test_unused_columns_note_names_the_flag(tmp_path, capsys):
    path = tmp_path / "long.csv"
    path.write_text("item,split,rater,value\n1,a,x,1\n1,a,y,1\n2,b,x,0\n2,b,y,1\n")
    assert main(["irr", str(path)]) == 0
    err = capsys.readouterr().err
    assert "leave them out with --exclude" in err and "drop the columns" not in err
    assert main(["irr", str(path), "--exclude", "split"]) == 0
    assert capsys.readouterr().err == ""  # the fix the note gives silences it


def test_agreement_table_text_leaves_missing_bands_blank(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    path.write_text("A,B,C\n1,1,2\n2,2,2\n3,3,1\n1,2,1\n")
    out = main(["agreement", str(path), "--wide"])
    assert out == 0
    lines = capsys.readouterr().out.splitlines()
    percent = next(ln for ln in lines if " percent " in ln).split()
    scott = next(ln for ln in lines if " scott " in ln).split()
    assert scott[-1] == "slight" and len(percent) == len(scott) - 1  # no band: blank
    assert percent[-1] in ("0.000", "NaN")  # its pe (no chance term), not a band "NaN"


def test_pandas_advice_no_rule_knows_is_left_out():
    from xrr_accessor.cli.messages import as_flags

    text = as_flags("column 'x' is odd (e.g. df['x'].str.strip()). Strip it first: "
                    "df['x'] = df['x'].str.strip(). Then read it again.")
    assert text == "column 'x' is odd. Then read it again."


def test_label_column_note_names_the_flags():
    from xrr_accessor.cli.messages import as_flags

    note = ("column 'label' is read as the labels (found by its name); column(s) 'x' are "
            "not used. To silence this, name it with value= and drop the columns you do "
            "not need.")  # schema.read's note, as varierr_round1_labels_long.csv gets it
    text = as_flags(note)
    assert text.endswith("name it with --value and leave the columns you do not need out "
                         "with --exclude COL,COL.")


def test_lists_as_text_in_python_or_json_spelling(tmp_path, capsys):
    path = tmp_path / "tags.csv"
    rows = ["item,rater,tags", "1,a,\"['don''t', 'x']\"", "1,b,\"[\"\"don't\"\"]\"",
            "2,a,\"['x']\"", "2,b,\"['x']\"", "3,a,\"['y', 'x']\"", "3,b,\"['y']\""]
    path.write_text("\n".join(rows).replace("''", "\\'") + "\n")
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("abababab")[:6],
                          "tags": [frozenset({"don't", "x"}), frozenset({"don't"}),
                                   frozenset({"x"}), frozenset({"x"}),
                                   frozenset({"y", "x"}), frozenset({"y"})]})
    want = float(xrr.irr(frame, level="masi").iloc[0])
    got = _csv(capsys, "irr", str(path), "--level", "masi")
    assert got["estimate"].tolist() == pytest.approx([want], rel=1e-12)
    path.write_text("item,rater,tags\n1,a,[__import__('os')]\n1,b,[x]\n")
    assert "not lists of labels" in _error(capsys, "irr", str(path), "--level", "masi")


def test_pairwise_command_is_cohen_per_pair(pools, capsys):
    """xrr pairwise: one record per ordered pair of raters within a replication, the
    estimate Cohen's kappa on the items both rated (sklearn), n_items those items."""
    from sklearn.metrics import cohen_kappa_score

    path, df = pools
    got = _csv(capsys, "pairwise", str(path))
    assert list(got.columns[:4]) == ["label", "replication", "rater", "rater_other"]
    assert (got["statistic"] == "cohen").all()
    label = df.columns[3]
    checked = 0
    for row in got[got["label"] == label].itertuples():
        pool = df[df["pool"] == row.replication]
        wide = pool.pivot(index="item_id", columns="rater", values=label)
        both = wide[[row.rater, row.rater_other]].dropna()
        assert row.n_items == len(both)
        if len(both) and both.nunique().max() > 1:
            want = cohen_kappa_score(both.iloc[:, 0], both.iloc[:, 1])
            assert row.estimate == pytest.approx(want, abs=1e-12)
            checked += 1
    assert checked > 0
    want = _quiet(xrr.pairwise, df, metric="kappa_x").reset_index()
    got = _csv(capsys, "pairwise", str(path), "--metric", "kappa_x")
    np.testing.assert_allclose(got["estimate"], want["estimate"], rtol=1e-12)
    assert (got["statistic"] == "kappa_x").all()


def test_raters_min_items_leaves_out_sparse_raters(pools, capsys):
    path, df = pools
    counts = df.groupby(["pool", "rater"]).size()
    cut = int(counts.median()) + 1
    got = _csv(capsys, "raters", str(path), "--min-items", str(cut))
    # the raters below --min-items are counted (a note), not ranked, not listed
    want = _quiet(xrr.rater_agreement, df, min_items=cut)
    want = want[want["rank"].notna()].reset_index()
    assert len(got) == len(want) < len(_csv(capsys, "raters", str(path), "--min-items", "1"))
    np.testing.assert_allclose(got["kappa_x"], want["kappa_x"], rtol=1e-12)
    kept = counts[counts >= cut].index
    assert set(zip(got["replication"], got["rater"], strict=True)) <= set(kept)
