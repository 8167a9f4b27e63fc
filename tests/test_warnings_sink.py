"""Warnings are collected per call (a thread-local sink), never through process-wide state.

Issue 25: ``report()`` used ``warnings.catch_warnings``, which swaps the
process-wide filters: in threads, notes landed on the wrong reports and an
``('always', Warning)`` filter stayed installed over the caller's own.
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pandas as pd

import xrr_accessor as xa
from xrr_accessor.datasets import simulate
from xrr_accessor.errors import DroppedDataWarning, UndefinedWarning, XRRWarning, per_call, warn


def _data(k: int) -> pd.DataFrame:
    """Data sets whose reports carry different notes: none, blank strings, a constant label."""
    df = simulate(n_items=40, labels=["joy", "awe"], pools=["A", "B"], seed=k)
    if k % 3 == 1:
        df["joy"] = df["joy"].astype(str)
        df.loc[df.index[: k + 1], "joy"] = " "  # k+1 blank strings: a note of its own
    if k % 4 == 2:
        df["awe"] = 1  # every annotation the same: undefined IRR and kappa_x
    return df


def _notes(k: int) -> list[str]:
    return xa.report(_data(k)).attrs["notes"]  # no catch_warnings here: it is process-wide


def test_reports_in_eight_threads_keep_their_own_notes():
    with warnings.catch_warnings():  # set once, in this thread, around every run
        warnings.simplefilter("ignore", XRRWarning)
        _eight_threads()


def _eight_threads() -> None:
    serial = [_notes(k) for k in range(8)]
    assert sorted(len(n) for n in serial)[0] == 0 and max(len(n) for n in serial) >= 2
    assert len({tuple(n) for n in serial}) >= 4  # the data sets differ in their notes
    for _ in range(4):  # every run, not just one
        got: list[list[str] | None] = [None] * 8
        barrier = threading.Barrier(8)

        def work(k: int, got: list[list[str] | None] = got,
                 barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            got[k] = _notes(k)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert got == serial


def test_the_callers_warning_filters_are_untouched():
    df = _data(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", XRRWarning)
        before = list(warnings.filters)
        rep = xa.report(df)
        xa.report(df, ci=0.9, n_boot=30, seed=1, progress=False)
        xa.irr(df)
        df.xrr.summary()
        assert warnings.filters == before
    assert rep.attrs["notes"]  # the notes were collected all the same


def test_report_still_raises_its_notes_to_the_caller_once_each():
    df = _data(1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = xa.report(df)
    ours = [str(w.message) for w in caught if issubclass(w.category, XRRWarning)]
    assert ours == rep.attrs["notes"]
    assert any("blank string" in m for m in ours)
    assert all(w.filename == __file__ for w in caught if issubclass(w.category, XRRWarning))


def test_a_repeated_warning_reaches_the_caller_once_per_call():
    calls = []

    @per_call
    def inner() -> None:  # a public function another public function calls
        warn("left out 3 items", DroppedDataWarning)

    @per_call
    def outer() -> int:
        calls.append(1)
        inner()
        inner()
        warn("undefined here", UndefinedWarning)
        inner()
        return 7

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert outer() == 7
        assert outer() == 7
    got = [(w.category, str(w.message)) for w in caught]
    once = [(DroppedDataWarning, "left out 3 items"), (UndefinedWarning, "undefined here")]
    assert got == once * 2  # once per call, in order, and again on the next call


def test_warnings_of_a_call_that_fails_are_still_raised():
    @per_call
    def fails() -> None:
        warn("read 2 blank strings as missing", DroppedDataWarning)
        raise xa.InputError("bad")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fails()
        except xa.InputError:
            pass
    assert [str(w.message) for w in caught] == ["read 2 blank strings as missing"]


def test_public_functions_raise_each_distinct_warning_once():
    df = _data(1)
    df["awe"] = df["awe"].where(np.arange(len(df)) % 7 > 0)
    for fn in (xa.irr, xa.cross_kappa, xa.normalized, xa.summary, xa.report,
               xa.per_category, xa.agreement_table, xa.rater_agreement):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fn(df)
        seen = [(w.category, str(w.message)) for w in caught]
        assert seen and len(seen) == len(set(seen)), fn.__name__


def test_every_public_function_collects_its_warnings_per_call():
    import inspect

    pure = {"interpret", "judge", "verdict_of"}  # words from numbers: they warn about nothing
    for name in xa.__all__:
        fn = getattr(xa, name)
        if inspect.isfunction(fn) and name not in pure:
            assert fn.__code__.co_qualname in ("per_call.<locals>.wrapper",
                                               "deferrable.<locals>.wrapper"), name
