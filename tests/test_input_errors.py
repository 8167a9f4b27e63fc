"""Inputs that raised raw exceptions (issue 36, part 5), and the command's ids (part 4):
each refused with the package's own error, naming the column or path and the fix.

1. lone surrogates (a JSON ``\\ud800``); 2. a ``sep`` that is not a regular expression;
3. devices and directories as files, ``--output`` onto an input; 4. Ctrl-C: exit 130;
5. complex, infinite and overflowing numbers; 6. ids read as ``read_annotations`` does.
"""

from __future__ import annotations

import io
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_helpers import cli_csv, cli_error

import xrr_accessor  # noqa: F401  (registers .xrr)
from xrr_accessor.cli import main
from xrr_accessor.errors import InputError, LevelError
from xrr_accessor.io import (
    read_annotations,
    read_argilla,
    read_doccano,
    read_file,
    read_mturk,
    read_prodigy,
)
from xrr_accessor.schema.text import factorize_text, first_lone_surrogate

LONE = "\ud800"  # a lone surrogate, as json.loads makes of the escape "\ud800"


def _frame(joy: list, **extra) -> pd.DataFrame:
    n = len(joy) // 2
    return pd.DataFrame({"item": np.repeat(np.arange(n), 2), "rater": ["a", "b"] * n,
                         "joy": joy, **extra})


# 1. lone surrogates ------------------------------------------------------------------


def test_read_annotations_refuses_a_lone_surrogate_naming_file_line_and_field(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"item": 1, "rater": "a", "joy": 1}\n'
                    '{"item": "x\\ud800", "rater": "b", "joy": 1}\n')
    with pytest.raises(InputError, match=r"a\.jsonl .*line 2, field 'item'.*lone surrogate"):
        read_annotations(path)


PRODIGY = ('{"text": "t", "label": "SPORTS", "answer": "accept", "_input_hash": 1, '
           '"_annotator_id": "a\\ud800"}\n')
DOCCANO = '{"id": 1, "text": "t", "label": ["pos\\udc00"], "username": "u"}\n'
ARGILLA = json.dumps([{"id": "r1", "responses": {"label\ud800": [
    {"user_id": "u1", "value": "positive", "status": "submitted"}]}}])


@pytest.mark.parametrize("reader, text, name, field", [
    (read_prodigy, PRODIGY, "p.jsonl", "the rater id"),
    (read_doccano, DOCCANO, "d.jsonl", "the answer"),
    (read_argilla, ARGILLA, "a.json", "the question"),
])
def test_json_readers_refuse_a_lone_surrogate_naming_the_field(tmp_path, reader, text, name,
                                                               field):
    path = tmp_path / name
    path.write_text(text)  # the escape as written in the export
    with pytest.raises(InputError, match=rf"{field}.*not valid Unicode.*{name[0]}\.json"):
        reader(path)


def test_a_lone_surrogate_in_an_ignored_field_is_no_error(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(PRODIGY.replace('"t"', '"cut \\ud83d"').replace("a\\ud800", "ann"))
    assert read_prodigy(path)["rater"].tolist() == ["ann"]  # the task's text is not read


def test_the_command_refuses_a_lone_surrogate_naming_file_and_field(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text('[{"item": 1, "rater": "a", "joy": 1}, '
                    '{"item": 1, "rater": "b", "joy": "x\\udfff"}]')
    err = cli_error(capsys, "irr", str(path))
    assert "s.json" in err and "record 2, field 'joy'" in err and "surrogate" in err


@pytest.mark.parametrize("level, cells", [("nominal", ["y", "x" + LONE, "x", "y"]),
                                          ("masi", [["y"], ["x", "x" + LONE], ["x"], ["y"]])])
def test_the_accessor_refuses_a_lone_surrogate_in_a_label_naming_column_and_annotation(
        level, cells):
    df = _frame([0, 0, 0, 0])
    df["joy"] = pd.Series(cells, dtype=object)  # an object column keeps it, in pandas 3 too
    with pytest.raises(InputError, match=r"column 'joy'.*\(item=0, rater='b'\).*'x\\ud800'"):
        df.xrr.irr(level=level)


def test_the_accessor_refuses_a_lone_surrogate_in_a_label_name():
    df = _frame([1, 1, 2, 2])
    df.columns = pd.Index(["item", "rater", "j" + LONE], dtype=object)
    with pytest.raises(InputError, match=r"label's column name.*'j\\ud800'"):
        df.xrr.irr()


def test_the_accessor_refuses_a_lone_surrogate_in_an_id():
    df = _frame([1, 1, 2, 2])
    df["rater"] = pd.Series(["a", "b" + LONE] * 2, dtype=object)
    with pytest.raises(InputError, match=r"column 'rater'.*row 1.*'b\\ud800'"):
        df.xrr.irr()


def test_factorize_text_names_the_row_of_a_lone_surrogate():
    values = pd.Series(["a", "b", "c" + LONE], dtype=object, index=["r1", "r2", "r3"])
    with pytest.raises(InputError, match=r"column 'item'.*row 'r3'.*character 1"):
        factorize_text(values, "column 'item'", "item")
    codes, uniques = factorize_text(pd.Series(["b", "a", "b"]), "column 'item'")
    assert codes.tolist() == [0, 1, 0] and list(uniques) == ["b", "a"]


def test_the_surrogate_check_finds_them_in_every_kind_of_array():
    ok = ["é", "😀", None, 3.5]
    assert first_lone_surrogate(np.array(ok, dtype=object)) is None
    assert first_lone_surrogate(np.array(["a", "b" + LONE])) == (1, "b" + LONE)  # numpy "U"
    assert first_lone_surrogate(pd.Series(["a", 1, "\udfff"], dtype=object)) == (2, "\udfff")
    assert first_lone_surrogate(pd.Series(["a", "b"], dtype="string[pyarrow]")) is None


# 2. sep ------------------------------------------------------------------------------


@pytest.fixture
def ids_file(tmp_path) -> Path:
    path = tmp_path / "a.csv"
    path.write_text("item,rater,joy\n007,a,1\n7,a,0\n007,b,1\n7,b,1\n8,a,1\n8,b,0\n9,a,1\n9,b,0\n")
    return path


@pytest.mark.parametrize("read", [
    lambda p: read_annotations(p, sep="(("),
    lambda p: read_file(p, sep="(("),
    lambda p: read_mturk(p, sep="(("),
])
def test_a_sep_that_is_not_a_regular_expression_is_refused_naming_it(ids_file, read):
    with pytest.raises(InputError, match=r"sep='\(\(' .*regular expression.*re\.escape"):
        read(ids_file)


def test_the_command_refuses_such_a_sep_before_reading(ids_file, capsys):
    with pytest.raises(SystemExit) as exc:  # argparse's usage error: status 2, one line
        main(["irr", str(ids_file), "--sep", "(("])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--sep '(('" in err and "regular expression" in err and "re.escape" in err


def test_a_regular_expression_sep_pandas_accepts_stays_accepted(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("item::rater::joy\n1::a::1\n1::b::1\n2::a::0\n2::b::1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nor pandas' ParserWarning about its engine
        df = read_annotations(path, sep="::")
    assert df.columns.tolist() == ["item", "rater", "joy"] and len(df) == 4


# 3. paths that are not files, and --output ------------------------------------------


needs_dev_zero = pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")


@needs_dev_zero
@pytest.mark.parametrize("read", [read_annotations, read_file, read_prodigy])
def test_a_device_is_refused_at_once_naming_it(read):
    with pytest.raises(InputError, match=r"/dev/zero is a character device, not a file"):
        read("/dev/zero")


def test_a_directory_given_as_a_file_is_refused_naming_it(tmp_path):
    with pytest.raises(InputError, match=rf"{tmp_path} is a directory, not a file"):
        read_file(tmp_path)
    with pytest.raises(InputError, match=r"is a directory, not a file"):
        read_doccano(tmp_path)


@needs_dev_zero
def test_the_command_refuses_a_device_and_stdin_from_a_device(capsys, monkeypatch):
    start = time.perf_counter()
    assert "/dev/zero is a character device" in cli_error(capsys, "irr", "/dev/zero")
    with open("/dev/zero") as zero:
        monkeypatch.setattr(sys, "stdin", zero)
        assert "stdin (-) is a device" in cli_error(capsys, "irr", "-")
    assert time.perf_counter() - start < 5  # refused, not read


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_the_command_still_reads_a_pipe(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    text = "item,rater,joy\n007,a,1\n7,a,0\n007,b,1\n7,b,1\n"

    def write() -> None:
        with open(fifo, "w") as fh:
            fh.write(text)

    writer = threading.Thread(target=write)
    writer.start()
    got = cli_csv(capsys, "irr", str(fifo))
    writer.join()
    assert got["n_items"].tolist() == [2]


def test_output_onto_an_input_is_refused_naming_both(ids_file, capsys, tmp_path):
    before = ids_file.read_bytes()
    link = tmp_path / "same.csv"
    os.link(ids_file, link)
    for output in (str(ids_file), str(tmp_path / "." / "a.csv"), str(link)):
        err = cli_error(capsys, "irr", str(ids_file), "-o", output)
        assert f"--output {output} is the input file" in err and str(ids_file) in err
    err = cli_error(capsys, "irr", str(tmp_path / "*.csv"), "-o", str(ids_file))
    assert f"is the input file {ids_file}" in err or "a.csv" in err
    assert ids_file.read_bytes() == before
    assert main(["irr", str(ids_file), "-o", str(tmp_path / "out.csv")]) == 0


# 4. Ctrl-C ----------------------------------------------------------------------------


def _raise_interrupt(*args, **kwargs):  # Ctrl-C in Python code
    raise KeyboardInterrupt


def _raise_wrapped(*args, **kwargs):
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as ki:  # what numba's dispatcher makes of it
        raise SystemError("CPUDispatcher(<function rater_categorical>) returned a result "
                          "with an exception set") from ki


def _raise_in_a_thread(*args, **kwargs):
    from xrr_accessor.kernels.threads import concurrently

    concurrently([lambda: 1, _raise_wrapped])


@pytest.mark.parametrize("fn", [_raise_interrupt, _raise_wrapped, _raise_in_a_thread])
def test_an_interrupt_anywhere_exits_130_with_one_line(ids_file, capsys, monkeypatch, fn):
    import xrr_accessor.cli.listing as listing  # xrr raters' command

    monkeypatch.setattr(listing, "rater_agreement", fn)
    ids_file.write_text(ids_file.read_text() + "8,c,1\n9,c,0\n")  # a rater table: 3 raters
    assert main(["raters", str(ids_file), "--ci", "0.95"]) == 130
    assert capsys.readouterr().err == "xrr: interrupted\n"


def test_a_lone_surrogate_among_the_categories_pandas_2_returns_is_refused(monkeypatch):
    """pandas 2 keeps a lone surrogate where pandas 3 fails: the categories are checked."""
    encode = sys.modules["xrr_accessor.schema.encode"]
    real = encode.label_categories

    def pandas_2(values, where, order, **kw):
        codes, _ = real(pd.Series(["x", "y", "x", "y"]), where, order, **kw)
        return codes, pd.Index(["x" + LONE, "y"], dtype=object)

    monkeypatch.setattr(encode, "label_categories", pandas_2)
    df = _frame([0, 0, 0, 0])
    df["joy"] = pd.Series(["x" + LONE, "y", "x" + LONE, "y"], dtype=object)
    with pytest.raises(InputError, match=r"column 'joy'.*\(item=0, rater='a'\)"):
        df.xrr.irr()


def test_other_system_errors_are_not_taken_for_an_interrupt(ids_file, monkeypatch):
    import xrr_accessor.cli.listing as listing  # xrr raters' command

    def broken(*args, **kwargs):
        raise SystemError("a real bug")

    monkeypatch.setattr(listing, "rater_agreement", broken)
    ids_file.write_text(ids_file.read_text() + "8,c,1\n9,c,0\n")  # a rater table: 3 raters
    with pytest.raises(SystemError, match="a real bug"):
        main(["raters", str(ids_file)])


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or os.name != "posix",
                    reason="needs /proc to see the command start")
def test_sigint_during_raters_ci_exits_130_without_a_traceback(tmp_path):
    rng = np.random.default_rng(0)
    n = 60_000
    df = pd.DataFrame({"item": np.repeat(np.arange(n), 5), "rater": rng.permuted(
        np.tile(np.arange(200), (n, 1)), axis=1)[:, :5].ravel(),
        "joy": rng.integers(0, 3, 5 * n)})
    path = tmp_path / "big.csv"
    df.to_csv(path, index=False)
    proc = subprocess.Popen([sys.executable, "-m", "xrr_accessor", "raters", str(path),
                             "--ci", "0.95", "--n-boot", "20000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 8
        # past the imports (about a second of CPU), into reading and the bootstrap
        while _cpu_seconds(proc.pid) < 2.0 and proc.poll() is None:
            assert time.monotonic() < deadline, "the command did not get going"
            time.sleep(0.05)
        assert proc.poll() is None, "the command ended before it was interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "xrr: interrupted"


# 5. values ----------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_complex_values_are_refused_naming_the_column(level):
    with pytest.raises(LevelError, match=r"column 'joy' holds \(1\+2j\) at \(item=0, "
                                         r"rater='a'\), which is a complex number.*real"):
        _frame([1 + 2j, 1, 2, 3]).xrr.irr(level=level)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_infinities_are_refused_at_every_level_naming_the_column(level, value):
    with pytest.raises(LevelError, match=r"column 'joy' holds -?inf at \(item=1, "
                                         r"rater='b'\), which is infinite.*np\.nan"):
        _frame([1.0, 2.5, 3.0, value]).xrr.irr(level=level)


@pytest.mark.parametrize("values", [[1e308, -1e308, 1e308, 1.0],
                                    [1.7e308, 0.5, 3.0, 1.0],
                                    pd.Series([10**400, 1, 2, 3], dtype=object).tolist()])
def test_numbers_whose_sums_overflow_are_refused_naming_the_column(values):
    df = _frame(values)
    if isinstance(values[0], int):
        df["joy"] = pd.Series(values, dtype=object)
    with pytest.raises(LevelError, match=r"column 'joy' holds .* at \(item=\d, rater='\w'\), "
                                         r"which is beyond \+-4\.49e\+307.*rescale"):
        df.xrr.irr(level="interval")


def test_large_numbers_below_the_limit_give_the_coefficients_of_the_data_rescaled():
    rng = np.random.default_rng(3)
    joy = (rng.integers(0, 5, 40) + rng.random(40)).tolist()
    df = _frame(joy)
    big = df.assign(joy=np.ldexp(df["joy"], 1000))  # about 1e301: exact, a power of two
    for level in ("interval", "ratio"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert math.isclose(float(big.xrr.irr(level=level).iloc[0]),
                                float(df.xrr.irr(level=level).iloc[0]), rel_tol=1e-12)


def test_the_command_refuses_an_infinity_naming_the_column(tmp_path, capsys):
    path = tmp_path / "inf.csv"
    path.write_text("item,rater,joy\n1,a,1\n1,b,inf\n2,a,0\n2,b,1\n")
    assert "column 'joy' holds inf" in cli_error(capsys, "irr", str(path))


# 6. the command reads ids as read_annotations does ----------------------------------


def test_the_command_keeps_ids_that_differ_as_text_apart(ids_file, capsys):
    want = read_annotations(ids_file)["item"].nunique()
    globbed = read_annotations(ids_file.parent / "*.csv")["item"].nunique()
    assert want == globbed == 4
    assert cli_csv(capsys, "irr", str(ids_file))["n_items"].tolist() == [want]
    named = ids_file.parent / "named.tsv"
    named.write_text(ids_file.read_text().replace(",", "\t").replace("item", "task"))
    got = cli_csv(capsys, "irr", str(named), "--item", "task")
    assert got["n_items"].tolist() == [4]


def test_the_command_reads_stdin_ids_as_text(ids_file, capsys, monkeypatch):
    stdin = io.TextIOWrapper(io.BytesIO(ids_file.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert cli_csv(capsys, "irr", "-")["n_items"].tolist() == [4]


def test_two_files_with_ids_as_text_and_as_numbers_still_pair(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    crowd = tmp_path / "crowd.csv"
    crowd.write_text("item,rater,joy\n1,a,1\n1,b,1\n2,a,0\n2,b,0\n3,a,1\n3,b,0\n")
    experts = tmp_path / "experts.parquet"
    pd.read_csv(crowd).assign(rater=lambda d: d["rater"] + "x").to_parquet(experts)
    got = cli_csv(capsys, "cross-kappa", str(crowd), str(experts))
    assert got["n_items"].tolist() == [3]
