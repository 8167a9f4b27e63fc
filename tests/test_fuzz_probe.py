"""The second reliability probe (issue 36), kept: seeded families of bad input, counted by site.

Every call below must return a result or raise one of the package's documented
errors (InputError and its subclasses, RoleError, LevelError) with a message; it
must never raise anything else (a "raw" exception), warn with a foreign warning
class (numpy's RuntimeWarning), or modify its input. Raw exceptions are counted by
the site that raised them (the innermost frame in the package, else the outermost
foreign one), so a failure names every place at once.

Families (the probe's): every public function with each parameter set to a bad
value; degenerate and hostile frames (0 rows, one row, all missing, complex,
infinite and huge values, lone surrogates in values and ids, list-valued ids, ids
that are equal across types); hostile files and paths for ``read_annotations`` and
the CLI (a regex ``sep`` that does not compile, a lone surrogate in JSON, a device,
a folder, a missing file, an empty file); Report writers on paths that cannot be
written. The quick subset (a seeded sample, about 250 calls) runs in the README's
test command; ``XRR_FUZZ_FULL=1`` runs every combination (about 6,000 calls).
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import random
import traceback
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import xrr_accessor as xa
from xrr_accessor.cli import main
from xrr_accessor.errors import InputError, LevelError, XRRWarning
from xrr_accessor.io import read_annotations

FULL = os.environ.get("XRR_FUZZ_FULL") == "1"
SEED = int(os.environ.get("XRR_FUZZ_SEED", "36"))
DOCUMENTED = (InputError, LevelError)  # RoleError, DataTypeError: InputErrors

FUNCTIONS = ["irr", "cross_kappa", "normalized", "report", "summary", "agreement_table",
             "per_category", "item_disagreement", "rater_agreement", "pairwise", "compare",
             "validity", "intra", "alt_test", "annotations", "to_frame", "to_xarray",
             "augmented_kappa", "disattenuated_correlation"]
ROLE_PARAMS = ["labels", "categories", "item", "rater", "replication", "label", "value",
               "duplicates"]
BAD = [0, -1, None, {}, [], "zzz", pd.NA, 2**70, 10**12, 1.5, float("nan"), (), object(),
       True, "\ud800", [[1]], {"joy": 0}]


#: What a function needs besides the data (a call without it is refused before the door).
BASE: dict[str, dict[str, Any]] = {"alt_test": {"epsilon": 0.2}, "validity": {"gold": "anger"},
                                   "intra": {"session": "replication"}}


def _frame(n: int = 40, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"item": np.repeat(np.arange(n // 4), 4),
                         "rater": np.tile(list("abcd"), n // 4),
                         "replication": np.tile(["p", "p", "q", "q"], n // 4),
                         "joy": rng.integers(0, 3, n), "anger": rng.integers(0, 2, n)})


class Probe:
    """Runs calls under the invariant and counts raw exceptions and foreign warnings by site."""

    def __init__(self) -> None:
        self.raw: Counter[str] = Counter()
        self.foreign: Counter[str] = Counter()
        self.calls = 0

    def run(self, call: Callable[[], Any], what: str) -> Any:
        self.calls += 1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = call()
                if hasattr(out, "compute") and callable(out.compute):
                    out = out.compute()
            except DOCUMENTED as exc:
                assert str(exc).strip(), f"{what}: {type(exc).__name__} without a message"
                out = exc
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # a raw exception: counted by site
                self.raw[f"{_site(exc)} {type(exc).__name__} ({what})"] += 1
                out = exc
        for w in caught:
            if not issubclass(w.category, XRRWarning | DeprecationWarning | FutureWarning):
                self.foreign[f"{w.category.__name__}: {str(w.message)[:60]} ({what})"] += 1
        return out

    def check(self) -> None:
        raw = "\n".join(f"{n} x {k}" for k, n in self.raw.most_common(30))
        assert not self.raw, f"{sum(self.raw.values())} raw exception(s) in {self.calls} " \
                             f"calls, by site:\n{raw}"
        foreign = "\n".join(f"{n} x {k}" for k, n in self.foreign.most_common(30))
        assert not self.foreign, f"foreign warnings:\n{foreign}"


def _site(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "xrr_accessor" in f.filename]
    f = ours[-1] if ours else frames[-1]
    return f"{f.filename.split('xrr_accessor/')[-1]}:{f.lineno}"


def _sample(combos: list[Any], n: int) -> list[Any]:
    return combos if FULL or len(combos) <= n else random.Random(SEED).sample(combos, n)


def _positional(fn: Callable[..., Any]) -> list[str]:
    params = inspect.signature(fn).parameters
    return [p for p, v in list(params.items())[1:]
            if v.kind not in (v.VAR_KEYWORD, v.VAR_POSITIONAL)]


def test_every_parameter_set_to_a_bad_value_gets_a_documented_error_or_a_result():
    df = _frame()
    before = df.copy()
    probe = Probe()
    combos = [(f, p, i) for f in FUNCTIONS for p in _positional(getattr(xa, f)) + ROLE_PARAMS
              for i in range(len(BAD))]
    for f, p, i in _sample(combos, 160):
        fn = getattr(xa, f)
        if p in ROLE_PARAMS and p not in inspect.signature(fn).parameters and not any(
                v.kind is v.VAR_KEYWORD for v in inspect.signature(fn).parameters.values()):
            continue
        base = dict(BASE.get(f, {}))
        base[p] = BAD[i]
        out = probe.run(lambda fn=fn, kw=base: fn(df, **kw), f"{f}({p}=BAD[{i}])")
        if isinstance(out, TypeError) and ("required positional" in str(out)
                                           or "unexpected keyword" in str(out)):
            probe.raw.pop(next(k for k in probe.raw if f"{f}({p}=BAD[{i}])" in k), None)
    pd.testing.assert_frame_equal(df, before)
    probe.check()
    assert probe.calls >= (len(combos) if FULL else 120)


def _degenerate() -> dict[str, pd.DataFrame]:
    df = _frame(16)
    n = len(df)
    return {
        "0 rows": df.iloc[:0],
        "one row": df.iloc[:1],
        "all missing": df.assign(joy=np.nan, anger=np.nan),
        "complex": df.assign(joy=df["joy"] + 1j),
        "infinite": df.assign(joy=df["joy"].astype(float).where(df.index % 3 > 0, np.inf)),
        "huge": df.assign(joy=df["joy"] * 9e307),
        "surrogate value": df.assign(joy=pd.Series(["\ud800" if i == 0 else str(v)
                                                    for i, v in enumerate(df["joy"])],
                                                   dtype=object)),
        "surrogate id": df.assign(rater=pd.Series(["\udc80" if i == 1 else r
                                                   for i, r in enumerate(df["rater"])],
                                                  dtype=object)),
        "list ids": df.assign(item=[[i] for i in df["item"]]),
        "True and 1": df.assign(item=pd.Series([True if i == 0 else v
                                                for i, v in enumerate(df["item"])],
                                               dtype=object)),
        "1 and '1'": df.assign(item=pd.Series(["0" if i == 0 else v
                                               for i, v in enumerate(df["item"])],
                                              dtype=object)),
        "one value": df.assign(joy=1, anger=1),
        "bytes": df.assign(joy=[b"x"] * n),
    }


CALLS: dict[str, Callable[[pd.DataFrame], Any]] = {
    "irr": xa.irr, "report": xa.report, "summary": xa.summary,
    "item_disagreement": xa.item_disagreement, "rater_agreement": xa.rater_agreement,
    "agreement_table": xa.agreement_table, "per_category": xa.per_category,
    "pairwise": xa.pairwise, "compare": xa.compare, "normalized": xa.normalized,
    "irr interval": lambda d: xa.irr(d, level="interval"),
    "irr ci": lambda d: xa.irr(d, ci=0.9, n_boot=50),
    "report html": lambda d: xa.report(d).to_html(),
    "report markdown": lambda d: xa.report(d).to_markdown(),
}


def test_degenerate_and_hostile_frames_get_a_result_or_a_documented_error():
    probe = Probe()
    frames = _degenerate()
    combos = [(name, call) for name in frames for call in CALLS]
    for name, call in _sample(combos, 70):
        df = frames[name]
        before = df.copy()
        probe.run(lambda df=df, call=call: CALLS[call](df), f"{call} on {name}")
        pd.testing.assert_frame_equal(df, before, obj=f"{call} on {name}")
    probe.check()


def test_a_report_of_no_annotations_is_nan_with_a_warning():
    df = _frame().drop(columns="replication").iloc[:0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = xa.report(df)
    assert any("no annotations" in str(w.message) for w in caught), caught
    assert rep.frame["estimate"].isna().all() and len(rep.frame)
    assert rep.items is None and rep.raters is None
    assert "nan" in rep.to_markdown().lower()


def _cli(args: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return int(code or 0), err.getvalue()


def test_hostile_files_and_paths_get_a_documented_error_and_the_cli_no_traceback(tmp_path):
    good = tmp_path / "a.csv"
    _frame(16).to_csv(good, index=False)
    surrogate = tmp_path / "s.jsonl"
    surrogate.write_text('{"item": 1, "rater": "a", "joy": "\\ud800"}\n'
                         '{"item": 1, "rater": "b", "joy": "x"}\n')
    empty = tmp_path / "e.jsonl"
    empty.write_text("")
    cases: list[tuple[str, Path | str, dict[str, Any]]] = [
        ("regex sep", good, {"sep": "(("}),
        ("surrogate json", surrogate, {}),
        ("folder of nothing", tmp_path / "nothing", {}),
        ("missing file", tmp_path / "missing.csv", {}),
        ("empty file", empty, {}),
    ]
    if Path("/dev/zero").exists():
        cases.append(("device", "/dev/zero", {}))
    (tmp_path / "nothing").mkdir()
    probe = Probe()
    for what, path, options in cases:
        probe.run(lambda p=path, o=options: xa.irr(read_annotations(p, **o)), what)
        probe.run(lambda p=path, o=options: xa.irr(read_annotations(p, lazy=True, **o)),
                  f"{what} (lazy)")
        args = ["irr", str(path)] + (["--sep", options["sep"]] if "sep" in options else [])
        code, err = _cli(args)
        assert code != 0 and "Traceback" not in err, (what, code, err[-500:])
    probe.check()


@pytest.mark.parametrize("target", ["folder", "missing folder"])
def test_report_writers_on_paths_that_cannot_be_written(tmp_path, target):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = xa.report(_frame(16))
    path = tmp_path if target == "folder" else tmp_path / "no" / "such" / "r"
    probe = Probe()
    for writer, ext in [("to_html", ".html"), ("to_csv", ".csv"), ("to_json", ".json")]:
        where = path if target == "folder" else path.with_suffix(ext)
        out = probe.run(lambda w=writer, p=where: getattr(rep, w)(p), writer)
        assert isinstance(out, InputError) and str(where) in str(out), (writer, out)
    probe.check()
