"""What ``xrr`` reads: JSON records (flat and nested), stdin, /dev/stdin, FIFOs; and what
it refuses with a message naming what works (binary files, other JSON, unreadable
directories); Ctrl-C ends it with 130 and no traceback."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest
from cli_helpers import cli_csv as _csv
from cli_helpers import cli_error as _error

import xrr_accessor as xrr
from xrr_accessor.cli import files
from xrr_accessor.datasets import load_demo


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli_files")
    df = load_demo().iloc[:600, :5]  # item_id, pool, rater, amusement, anger
    df.to_csv(d / "pools.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xrr.XRRWarning)
        want = df.xrr.irr()
    return d, df, want


def _check(got: pd.DataFrame, want: pd.DataFrame) -> None:
    for _, r in got.iterrows():
        assert r["estimate"] == pytest.approx(want.loc[r["label"], r["replication"]],
                                              rel=1e-12)
    assert len(got) == want.size


def test_json_array_of_records_and_nested_annotator_arrays(demo, capsys):
    d, df, want = demo
    (d / "flat.json").write_text(df.to_json(orient="records"))
    _check(_csv(capsys, "irr", str(d / "flat.json")), want)
    nested = [{"item_id": item, "pool": pool,
               "annotations": g.drop(columns=["item_id", "pool"]).to_dict("records")}
              for (item, pool), g in df.groupby(["item_id", "pool"], sort=False)]
    (d / "nested.json").write_text(json.dumps(nested))
    _check(_csv(capsys, "irr", str(d / "nested.json")), want)
    lines = "\n".join(json.dumps(r) for r in json.loads(df.to_json(orient="records")))
    (d / "lines.json").write_text(lines)  # JSON Lines under a .json name
    _check(_csv(capsys, "irr", str(d / "lines.json")), want)


@pytest.mark.parametrize("doc, said", [
    ({"item": 1, "rater": "a"}, "one JSON object"),
    ([1, 2, 3], "array of values"),
    ([], "empty array"),
    ([{"item": 1, "a": [{"rater": "x"}], "b": [{"rater": "y"}]}], "several lists"),
    ([{"item": 1, "meta": {"source": "x"}}], "nested records"),
])
def test_other_json_is_refused_naming_what_works(demo, capsys, doc, said):
    d, _, _ = demo
    path = d / "other.json"
    path.write_text(json.dumps(doc))
    err = _error(capsys, "irr", str(path))
    assert said in err and "array of records" in err and "JSON Lines" in err
    path.write_text("[{\"item\": 1,")
    assert "not valid JSON" in _error(capsys, "irr", str(path))
    path.write_text("[" * 100_000 + "]" * 100_000)  # nesting past Python's recursion limit
    assert "cannot be read as JSON" in _error(capsys, "irr", str(path))


def test_binary_files_are_refused_as_binary(demo, capsys):
    d, _, _ = demo
    (d / "blob.csv").write_bytes(bytes(range(256)) * 40)
    err = _error(capsys, "irr", str(d / "blob.csv"))
    assert "binary" in err and "CSV" in err
    assert "tokenizing" not in err and "--sep" not in err
    (d / "book.csv").write_bytes(b"PK\x03\x04" + b"\x00" * 200)  # an .xlsx renamed
    assert "save it as CSV" in _error(capsys, "irr", str(d / "book.csv"))


def test_dash_reads_stdin_in_the_format_given_or_sniffed(demo, capsys, monkeypatch):
    _, df, want = demo
    for data, extra in ((df.to_csv(index=False).encode(), []),
                        (df.to_json(orient="records").encode(), []),
                        (df.to_csv(index=False, sep="\t").encode(), ["--format-in", "tsv"])):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        got = _csv(capsys, "irr", "-", *extra)
        _check(got, want)
        assert set(got["replication"]) == set(df["pool"])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert "empty input" in _error(capsys, "irr", "-")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\x00\x01\x02")))
    err = _error(capsys, "irr", "-")
    assert "stdin (-) is a binary file" in err and "xrr-stdin" not in err  # no temp name


def test_dev_stdin_reads_as_a_stream(demo):
    _, df, want = demo
    proc = subprocess.run([sys.executable, "-m", "xrr_accessor", "irr", "/dev/stdin",
                           "--format", "csv"], input=df.to_csv(index=False),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    _check(pd.read_csv(io.StringIO(proc.stdout)), want)


def test_fifo_reads_as_a_stream(demo, tmp_path, capsys):
    _, df, want = demo
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = df.to_csv(index=False)

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(text)

    writer = threading.Thread(target=write)
    writer.start()
    got = _csv(capsys, "irr", str(fifo))
    writer.join()
    _check(got, want)


def test_unreadable_directory_says_permission(demo, tmp_path, capsys, monkeypatch):
    d, df, _ = demo
    folder = tmp_path / "locked"
    folder.mkdir()
    df.to_csv(folder / "a.csv", index=False)
    if os.geteuid() != 0:  # a real chmod, where it binds (root reads anything)
        folder.chmod(0)
        try:
            err = _error(capsys, "irr", str(folder))
        finally:
            folder.chmod(0o755)
        assert "permission denied" in err and "no annotation files" not in err
    real = os.access
    monkeypatch.setattr(files.os, "access", lambda p, mode: False if str(p) == str(folder)
                        else real(p, mode))
    err = _error(capsys, "irr", str(folder))
    assert f"{folder}: permission denied" in err and "no annotation files" not in err
    monkeypatch.setattr(files.os, "access", lambda p, mode: False)
    assert "permission denied" in _error(capsys, "irr", str(d / "pools.csv"))


def _wait_reading(pid: int, limit: float = 20.0) -> None:
    """Until process ``pid`` sleeps in a pipe read (Linux; elsewhere a short wait): the
    SIGINT must find it waiting on its input, not returning from the FIFO's open (a
    CI run once hung there)."""
    wchan = Path(f"/proc/{pid}/wchan")
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if not wchan.exists():
            time.sleep(1.0)
            return
        if "pipe" in wchan.read_text():
            return
        time.sleep(0.05)


def test_ctrl_c_exits_130_without_traceback(tmp_path):
    """SIGINT while the command waits on its input (a FIFO nobody writes to yet)."""
    fifo = tmp_path / "slow"
    os.mkfifo(fifo)
    proc = subprocess.Popen([sys.executable, "-m", "xrr_accessor", "irr", str(fifo)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with open(fifo, "w") as fh:  # returns once xrr has opened the FIFO: it is in main
            fh.write("item,rater,joy\n")
            fh.flush()
            _wait_reading(proc.pid)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip() == "xrr: interrupted" and out == ""


def test_text_that_is_not_utf8_or_not_a_table_says_so(tmp_path, capsys):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("item,rater,mood\n1,a,café\n1,b,thé\n".encode("latin-1"))
    err = _error(capsys, "irr", str(latin))
    assert "not UTF-8 text" in err and "iconv" in err and "--sep" not in err
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("item,rater,joy\n1,a,1\n1,b,0,4,5\n2,a,1\n")
    err = _error(capsys, "irr", str(ragged))
    assert "sniffed" in err and "with --sep ," not in err  # no flag the user never passed
    err = _error(capsys, "irr", str(ragged), "--sep", ",")
    assert "--sep ," in err  # the one the user did pass


def test_flags_are_never_abbreviated(tmp_path, capsys):
    path = tmp_path / "a.csv"
    path.write_text("item,rater,joy\n1,a,1\n1,b,0\n")
    err = _error(capsys, "cross-kappa", str(path), "--form", "2,1")
    assert "unrecognized arguments: --form" in err and "ambiguous" not in err


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
@pytest.mark.parametrize("command", ["irr", "report", "raters", "pairwise", "agreement"])
def test_a_header_without_rows_is_refused_naming_the_file(tmp_path, capsys, suffix, command):
    """Found by the long fuzz run: a file holding only its header crashed `xrr irr` with an
    IndexError (no labels to name); every command now says the file has no rows."""
    import gzip

    text = "item,rater,label,value\n"
    path = tmp_path / f"empty{suffix}"
    if suffix.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    said = _error(capsys, command, str(path))
    assert "holds no annotations (no rows under its header: item, rater, label, value)" in said
    assert path.name in said
