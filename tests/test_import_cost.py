"""``import xrr_accessor`` registers ``.xrr`` without importing numba or the kernels
(issue 35: a fast import; the public names are imported on first use, PEP 562)."""

from __future__ import annotations

import subprocess
import sys

import xrr_accessor


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout.strip()


def test_import_registers_the_accessor_without_numba_or_the_kernels() -> None:
    code = ("import sys, pandas as pd, xarray as xr, xrr_accessor\n"
            "heavy = sorted(m for m in sys.modules if m == 'numba' or m.startswith("
            "('xrr_accessor.kernels', 'xrr_accessor.api', 'xrr_accessor.engine')))\n"
            "print(heavy, hasattr(pd.DataFrame, 'xrr'), hasattr(xr.Dataset, 'xrr'),"
            " hasattr(xr.DataArray, 'xrr'))")
    assert _run(code) == "[] True True True"


def test_the_first_call_imports_what_it_needs() -> None:
    code = ("import sys, pandas as pd, xrr_accessor\n"
            "df = pd.DataFrame({'item': [1, 1, 2, 2], 'rater': [1, 2, 1, 2],"
            " 'v': [1, 1, 0, 0]})\n"
            "print(round(float(df.xrr.irr()['v']), 3), 'numba' in sys.modules)")
    assert _run(code) == "1.0 True"


def test_subpackages_are_attributes_on_first_use_in_a_fresh_process() -> None:
    code = ("import sys, xrr_accessor as xa\n"
            "print('xrr_accessor.coefficients' in sys.modules,"
            " xa.coefficients.lookup('alpha').name, xa.models.alt_test.__name__,"
            " xa.io.__name__, xa.datasets.__name__)")
    assert _run(code) == "False alpha alt_test xrr_accessor.io xrr_accessor.datasets"


def test_every_public_name_resolves_and_is_listed() -> None:
    for name in xrr_accessor.__all__:
        obj = getattr(xrr_accessor, name)
        assert obj.__module__.startswith("xrr_accessor"), name
    assert set(xrr_accessor.__all__) <= set(dir(xrr_accessor))
    assert xrr_accessor.Lazy.__name__ == "Lazy"
    namespace: dict[str, object] = {}
    exec("from xrr_accessor import *", namespace)
    assert {"irr", "report", "alt_test", "InputError"} <= set(namespace)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        xrr_accessor.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("no AttributeError")
