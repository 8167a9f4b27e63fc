"""Fuzzing every public entry point with malformed frames, datasets and CSV files.

The only acceptable outcomes: a result of the documented type, or one of the
documented exceptions (InputError / RoleError: ValueError; LevelError:
TypeError) with a message. Never another exception, a numpy RuntimeWarning,
or a result of the wrong type. Bounded in CI (the default hypothesis profile);
``HYPOTHESIS_PROFILE=long python -m pytest tests/test_fuzz.py`` runs 2,000
cases per test.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr
from hypothesis import given
from hypothesis import strategies as st

import xrr_accessor  # noqa: F401  (registers .xrr)
from xrr_accessor.cli import main
from xrr_accessor.errors import InputError, LevelError, XRRWarning

DOCUMENTED = (InputError, LevelError)

NAMES = ["item", "rater", "pool", "label", "value", "joy", "Item_ID", "worker", "annotator",
         0, 1, "", " ", "x", "Rating"]

SCALARS = st.one_of(
    st.integers(-3, 3), st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.none(),
    st.just(pd.NA), st.text(max_size=3), st.sampled_from(["", " ", "1", "a", "b", "10"]),
    st.just(b"x"), st.just(pd.Timestamp("2020-01-01")),
)


@st.composite
def columns(draw: Any, n: int) -> Any:
    kind = draw(st.sampled_from(["int", "float", "str", "bool", "mixed", "nullable", "category",
                                 "lists", "string"]))
    if kind == "int":
        return draw(st.lists(st.integers(-2, 3), min_size=n, max_size=n))
    if kind == "float":
        return draw(st.lists(st.sampled_from([0.0, 1.0, 2.5, np.nan, np.inf, -1.0]),
                             min_size=n, max_size=n))
    if kind == "str":
        return draw(st.lists(st.sampled_from(["a", "b", "", " ", "1", "2"]), min_size=n,
                             max_size=n))
    if kind == "bool":
        return draw(st.lists(st.booleans(), min_size=n, max_size=n))
    if kind == "nullable":
        vals = draw(st.lists(st.one_of(st.integers(0, 2), st.none()), min_size=n, max_size=n))
        return pd.array(vals, dtype="Int64")
    if kind == "category":
        vals = draw(st.lists(st.sampled_from(["lo", "hi", None]), min_size=n, max_size=n))
        return pd.Categorical(vals, categories=["lo", "hi"], ordered=draw(st.booleans()))
    if kind == "string":
        vals = draw(st.lists(st.sampled_from(["x", "y", None, ""]), min_size=n, max_size=n))
        return pd.array(vals, dtype="string")
    if kind == "lists":
        return pd.Series([[i] for i in range(n)], dtype=object)
    return pd.Series(draw(st.lists(SCALARS, min_size=n, max_size=n)), dtype=object)


@st.composite
def frames(draw: Any) -> pd.DataFrame:
    n = draw(st.integers(0, 8))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=0, max_size=6))
    data = {k: draw(columns(n)) for k in range(len(names))}
    df = pd.DataFrame({k: pd.Series(v) if not isinstance(v, pd.Series) else v.reset_index(
        drop=True) for k, v in data.items()}) if data else pd.DataFrame(index=range(n))
    df.columns = names if names else df.columns
    if draw(st.booleans()) and len(df.columns) >= 2:
        df.columns = pd.MultiIndex.from_arrays([["X"] * len(df.columns), list(range(len(
            df.columns)))])
    if draw(st.booleans()):
        df.index = draw(st.lists(st.integers(0, 3), min_size=len(df), max_size=len(df)))
    return df


CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("irr", lambda d: d.xrr.irr()),
    ("irr cohen", lambda d: d.xrr.irr(metric="cohen")),
    ("irr iota ordinal", lambda d: d.xrr.irr(metric="iota", level="ordinal")),
    ("irr interval", lambda d: d.xrr.irr(level="interval")),
    ("irr ratio", lambda d: d.xrr.irr(level="ratio")),
    ("irr custom", lambda d: d.xrr.irr(level=lambda a, b: float(a != b))),
    ("cross_kappa", lambda d: d.xrr.cross_kappa()),
    ("cross_kappa other", lambda d: d.xrr.cross_kappa(d)),
    ("normalized", lambda d: d.xrr.normalized(level="interval")),
    ("normalized reference", lambda d: d.xrr.normalized(reference="X")),
    ("summary", lambda d: d.xrr.summary()),
    ("wide", lambda d: d.xrr(wide=True).irr()),
    ("wide cross", lambda d: d.xrr(wide=True).cross_kappa()),
    ("duplicates mean", lambda d: d.xrr(duplicates="mean").irr(level="interval")),
    ("roles", lambda d: d.xrr(item="item", rater="rater", value="joy").irr()),
    ("fleiss ci", lambda d: d.xrr.irr(metric="fleiss", ci=0.95)),
    ("gwet quadratic", lambda d: d.xrr.irr(metric="gwet", weights="quadratic")),
    ("conger ci", lambda d: d.xrr.irr(metric="conger", ci=0.9, population=100)),
    ("cohen linear", lambda d: d.xrr.irr(metric="cohen", weights="linear")),
    ("light", lambda d: d.xrr.irr(metric="light")),
    ("percent", lambda d: d.xrr.irr(metric="percent", ci=0.95)),
    ("icc", lambda d: d.xrr.irr(metric="icc", form="2,k", ci=0.95)),
    ("alpha ci", lambda d: d.xrr.irr(metric="alpha", level="interval", ci=0.95)),
    ("per_category", lambda d: d.xrr.per_category()),
    ("agreement_table", lambda d: d.xrr.agreement_table(ci=0.95)),
    ("to_xarray", lambda d: d.xrr.to_xarray()),
    ("to_frame", lambda d: d.xrr.to_frame()),
]

RESULT_TYPES = (float, pd.Series, pd.DataFrame, xr.DataArray, xr.Dataset)


def _check(call: Callable[[], Any]) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = call()
        except DOCUMENTED as exc:
            assert str(exc).strip(), "documented errors carry a message"
            out = None
    foreign = [w for w in caught if issubclass(w.category, RuntimeWarning)
               or not (issubclass(w.category, XRRWarning) or w.category in (
                   DeprecationWarning, PendingDeprecationWarning))]
    assert not foreign, [f"{w.category.__name__}: {w.message}" for w in foreign]
    if out is not None:
        assert isinstance(out, RESULT_TYPES), type(out)
        numeric = [c for c in getattr(out, "columns", []) if c not in ("item", "band", "reason")]
        if isinstance(out, pd.Series) and out.dtype != object:
            assert out.dtype == np.float64
        elif isinstance(out, pd.DataFrame) and "item" not in out.columns:  # coefficients
            assert all(np.issubdtype(out[c].dtype, np.number) for c in numeric)


@given(df=frames(), which=st.sampled_from(CALLS))
def test_fuzz_dataframes(df, which):
    before = df.copy(deep=True)
    _check(lambda: which[1](df))
    pd.testing.assert_frame_equal(df, before)


@st.composite
def xarrays(draw: Any) -> xr.DataArray | xr.Dataset:
    ndim = draw(st.integers(0, 4))
    dims = draw(st.lists(st.sampled_from(["item", "rater", "replication", "label", "pool",
                                          "time", "worker"]), min_size=ndim, max_size=ndim,
                         unique=True))
    shape = [draw(st.integers(0, 3)) for _ in dims]
    kind = draw(st.sampled_from(["float", "int", "str", "bool", "object"]))
    size = int(np.prod(shape)) if shape else 1
    if kind == "float":
        vals = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, np.nan, np.inf]),
                                      min_size=size, max_size=size)), dtype=float)
    elif kind == "int":
        vals = np.array(draw(st.lists(st.integers(-2, 2), min_size=size, max_size=size)))
    elif kind == "str":
        vals = np.array(draw(st.lists(st.sampled_from(["a", "b", ""]), min_size=size,
                                      max_size=size)), dtype=object)
    elif kind == "bool":
        vals = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)))
    else:
        vals = np.array(draw(st.lists(SCALARS, min_size=size, max_size=size)) or [None],
                        dtype=object)[:size]
    da = xr.DataArray(vals.reshape(shape), dims=dims, name=draw(st.sampled_from(
        [None, "joy", "value"])))
    if dims and draw(st.booleans()):
        d = dims[0]
        da = da.assign_coords({d: draw(st.lists(st.sampled_from(["u", "v", "w", 1]),
                                                min_size=shape[0], max_size=shape[0]))})
    if draw(st.booleans()) and da.name is not None:
        return da.to_dataset()
    return da


@given(obj=xarrays(), which=st.sampled_from(CALLS[:12] + CALLS[-10:]))
def test_fuzz_xarray(obj, which):
    before = repr(obj.to_dict())  # repr: pd.NA != pd.NA, but it prints the same
    _check(lambda: which[1](obj))
    assert repr(obj.to_dict()) == before


@given(text=st.one_of(
    st.text(max_size=200),
    st.lists(st.lists(st.sampled_from(["item", "rater", "pool", "joy", "1", "0", "", "a",
                                       "x,y", '"', "nan"]), min_size=1, max_size=5),
             min_size=0, max_size=8).map(lambda rows: "\n".join(",".join(r) for r in rows)),
), args=st.sampled_from([[], ["--irr", "cohen"], ["--level", "interval"],
                         ["--replication", "pool"], ["--item", "nope"]]))
def test_fuzz_cli(tmp_path_factory, text, args):
    path = tmp_path_factory.mktemp("fuzz") / "in.csv"
    path.write_text(text)
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", XRRWarning)
        code = main(["summary", str(path), *args])
    assert code in (0, 2)
    if code == 2:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith("xrr: error:"), err.getvalue()
        assert "Traceback" not in err.getvalue()
