"""Every coefficient of the registry has a naive reference (tests/naive.py REFERENCES)."""

from __future__ import annotations

import pandas as pd
import pytest

from xrr_accessor.coefficients import REGISTRY

import naive


def test_every_registered_metric_has_a_naive_reference():
    missing = sorted(set(REGISTRY) - set(naive.REFERENCES))
    assert not missing, f"no naive reference in tests/naive.py REFERENCES for {missing}"
    stale = sorted(set(naive.REFERENCES) - set(REGISTRY))
    assert not stale, f"REFERENCES names metrics the registry does not have: {stale}"
    for name, refs in naive.REFERENCES.items():
        assert refs, name
        for ref in refs:
            assert callable(ref.fn), name
            assert ref.takes.strip(), name


ROWS = [[0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 2, 2], [0, 0, 0], [2, 1, 2]]


@pytest.mark.parametrize("metric", ["percent", "scott", "fleiss", "conger", "light", "bp",
                                    "gwet", "iota", "alpha"])
def test_registry_reference_equals_the_library_on_one_table(metric):
    """The registry's first reference, fed the input its note names, gives the library's value."""
    ref = naive.REFERENCES[metric][0]
    if metric == "alpha":
        want = ref.fn(dict(enumerate(ROWS)), "nominal")
    elif metric == "iota":
        want = ref.fn(ROWS, "nominal")
    else:
        want = ref.fn(ROWS)
    got = pd.DataFrame(ROWS).xrr(wide=True).irr(metric=metric)
    assert got == pytest.approx(want, abs=1e-12)
