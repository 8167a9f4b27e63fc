"""xrr_accessor: inter-rater and cross-replication reliability for pandas and xarray.

Importing the package registers the ``.xrr`` accessor on
:class:`pandas.DataFrame`, :class:`xarray.Dataset` and
:class:`xarray.DataArray`. The same computations are plain functions here.
"""


from .accessors import XRRAccessor, register
from .api import annotations, cross_kappa, irr, normalized, to_frame, to_xarray
from .diagnostics import (
    Intra,
    Validity,
    intra,
    item_disagreement,
    rater_agreement,
    validity,
)
from .diagnostics.pairwise import pairwise
from .diagnostics.spearman import disattenuated_correlation
from .errors import (
    CostWarning,
    DroppedDataWarning,
    InputError,
    LevelError,
    RoleError,
    StrayValueWarning,
    UndefinedWarning,
    XRRWarning,
)
from .models import AltTest, alt_test, plan_alt_test
from .multilabel.augmented import augmented_kappa, augmented_sweep
from .multilabel.augmented_items import augmented_items, augmented_matrix
from .multilabel.sharpen import Sharpened, sharpen
from .reporting.agreement import agreement_table, interpret, per_category
from .reporting.report import Report, report
from .reporting.summary import common_items, summary
from .reporting.verdicts import Verdict, Wording, judge, verdict_of
from .schema.readsets import read_sets
from .schema.setcells import set_cells
from .schema.sets import LabelSets
from .uncertainty.compare import compare, plan

__version__ = "0.1.0"

__all__ = [
    "AltTest",
    "CostWarning",
    "DroppedDataWarning",
    "InputError",
    "Intra",
    "LabelSets",
    "LevelError",
    "Report",
    "RoleError",
    "Sharpened",
    "StrayValueWarning",
    "UndefinedWarning",
    "Validity",
    "Verdict",
    "Wording",
    "XRRAccessor",
    "XRRWarning",
    "agreement_table",
    "alt_test",
    "annotations",
    "augmented_items",
    "augmented_kappa",
    "augmented_matrix",
    "augmented_sweep",
    "common_items",
    "compare",
    "cross_kappa",
    "disattenuated_correlation",
    "interpret",
    "intra",
    "irr",
    "item_disagreement",
    "judge",
    "normalized",
    "pairwise",
    "per_category",
    "plan",
    "plan_alt_test",
    "rater_agreement",
    "read_sets",
    "report",
    "set_cells",
    "sharpen",
    "summary",
    "to_frame",
    "to_xarray",
    "validity",
    "verdict_of",
]

register()


def __getattr__(name: str) -> object:
    if name == "Lazy":  # the result type of dask-backed calls; imports dask
        from .lazy.graph import Lazy

        return Lazy
    if name in ("datasets", "io"):  # submodules imported on first use (a faster import)
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'xrr_accessor' has no attribute {name!r}")
