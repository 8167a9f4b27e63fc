"""xrr_accessor.datasets: reachable from the package, the demo set, and the old import paths."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pandas as pd
import pytest

import xrr_accessor
from xrr_accessor import datasets

# every name the package re-exports, and the submodule that defines it
SUBMODULES = {
    "demo": ["DEMO_SEED", "load_demo", "simulate"],
    "irep": ["EMOTIONS", "IREP_POOLS", "IREP_ROLES", "POOLS", "read_irep"],
    "spec": ["ATTRS_KEY", "PRESETS", "LabelSpec"],
    "simulation": ["draw_propensities", "simulate_replications"],
    "truth": ["Reliability", "true_reliability"],
    "published": ["SNOW2008_TASKS", "load_fleiss1971", "load_krippendorff2011",
                  "load_snow2008"],
}


def _run(code: str) -> str:
    """Run ``code`` in a fresh interpreter (nothing imported yet) and return its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_datasets_and_io_are_attributes_of_the_package_in_a_fresh_interpreter():
    out = _run(
        "import xrr_accessor\n"
        "df = xrr_accessor.datasets.load_demo()\n"
        "print(df.shape[1], len(df) > 0, callable(xrr_accessor.io.read_label_studio))\n"
    )
    assert out.split() == ["34", "True", "True"]


def test_old_import_paths_work_in_a_fresh_interpreter():
    out = _run(
        "from xrr_accessor.datasets import simulate, load_demo, EMOTIONS, POOLS\n"
        "from xrr_accessor.datasets import DEMO_SEED\n"
        "from xrr_accessor.io import read_prodigy, read_mturk\n"
        "from xrr_accessor.io.platforms import read_argilla\n"
        "from xrr_accessor.io.label_studio import read_label_studio\n"
        "print(len(EMOTIONS), len(POOLS), DEMO_SEED)\n"
    )
    assert out.split() == ["31", "3", "2021"]


def test_load_demo_shape_and_pools():
    df = datasets.load_demo()
    assert df.shape == (12270, 34)
    assert list(df.columns[:3]) == ["item_id", "pool", "rater"]
    assert list(df.columns[3:]) == list(datasets.EMOTIONS)
    assert sorted(df["pool"].unique()) == list(datasets.POOLS)
    assert set(df["rater"].unique()) == {"Rater 1", "Rater 2"}
    assert df["item_id"].nunique() <= 3000
    for label in datasets.EMOTIONS:
        assert str(df[label].dtype) == "int64"
        assert set(df[label].unique()) <= {0, 1}
    # at most two ratings of an item per pool
    assert df.groupby(["pool", "item_id"]).size().max() == 2


def test_load_demo_matches_simulate_with_the_demo_seed():
    """The bundled file is ``simulate(seed=DEMO_SEED)``, frozen (dtypes aside)."""
    shipped = datasets.load_demo()
    fresh = datasets.simulate(seed=datasets.DEMO_SEED)
    if len(fresh) != len(shipped):  # another numpy drew differently: the file is the truth
        pytest.skip("numpy's generator draws differently from the one that made the file")
    pd.testing.assert_frame_equal(shipped, fresh, check_dtype=False)


def test_irep_pools_and_pools_are_one_constant():
    assert datasets.POOLS is datasets.IREP_POOLS
    assert datasets.POOLS == ("Budapest", "Kuala Lumpur", "Mexico City")
    demo = importlib.import_module("xrr_accessor.datasets.demo")
    assert demo.POOLS is datasets.IREP_POOLS


@pytest.mark.parametrize("module", sorted(SUBMODULES))
def test_package_re_exports_each_submodule_name(module):
    mod = importlib.import_module(f"xrr_accessor.datasets.{module}")
    for name in SUBMODULES[module]:
        assert getattr(datasets, name) is getattr(mod, name), name
        assert name in datasets.__all__


def test_all_lists_exactly_the_re_exports():
    assert sorted(datasets.__all__) == sorted(n for names in SUBMODULES.values() for n in names)
    assert xrr_accessor.datasets is datasets


def test_replications_module_is_gone():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("xrr_accessor.replications")


def test_truth_is_ordered_like_the_estimates_whatever_the_pool_order():
    # pools given out of name order, with per-pool values: the truth still lines up
    # with the estimates (which order replications by name), cell for cell
    spec = {"x": datasets.LabelSpec(prevalence=0.2, concentration=1.0,
                                    shift={"Z": 0.0, "A": 0.9}, noise={"Z": 0.0, "A": 0.5})}
    truth = datasets.true_reliability(spec, pools=["Z", "A"])
    assert list(truth.alpha.columns) == ["A", "Z"]
    assert truth.alpha.loc["x", "A"] == pytest.approx(0.125)  # noise 0.5: (1/2)^2 / 2
    assert truth.alpha.loc["x", "Z"] == pytest.approx(0.5)
    df = datasets.simulate_replications(n_items=20_000, labels=spec, pools=["Z", "A"], seed=1)
    gap = df.xrr.irr() - truth.alpha
    assert gap.notna().all().all() and (gap.abs() < 0.05).all().all()
    kx_gap = df.xrr.cross_kappa() - truth.kappa_x
    assert kx_gap.notna().all().all() and (kx_gap.abs() < 0.03).all().all()
