"""xrr_accessor: inter-rater and cross-replication reliability for pandas and xarray.

Importing the package registers the ``.xrr`` accessor on
:class:`pandas.DataFrame`, :class:`xarray.Dataset` and
:class:`xarray.DataArray`. The same computations are plain functions here.
"""


from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .api import annotations, cross_kappa, irr, normalized, to_frame, to_xarray
    from .diagnostics import Intra, Validity, item_disagreement, rater_agreement
    from .diagnostics.intra import intra
    from .diagnostics.pairwise import pairwise
    from .diagnostics.spearman import disattenuated_correlation
    from .diagnostics.validity import validity
    from .io.counts import from_counts
    from .lazy.graph import Lazy  # noqa: F401 (not in __all__: it imports dask)
    from .models import AltTest, plan_alt_test
    from .models.alt_test import alt_test
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

from .accessors import XRRAccessor, register
from .errors import (
    AmbiguousLevelWarning,
    CostWarning,
    DroppedDataWarning,
    InputError,
    LevelError,
    LevelNote,
    RoleError,
    StrayValueWarning,
    UndefinedWarning,
    XRRWarning,
)

#: Where each public name lives. They are imported on first use (PEP 562), so that
#: ``import xrr_accessor`` registers ``.xrr`` without importing numba and the kernels.
_WHERE = {
    **dict.fromkeys(("annotations", "cross_kappa", "irr", "normalized", "to_frame",
                     "to_xarray"), ".api"),
    **dict.fromkeys(("Intra", "Validity", "intra", "item_disagreement", "rater_agreement",
                     "validity"), ".diagnostics"),
    "pairwise": ".diagnostics.pairwise",
    "from_counts": ".io.counts",
    "disattenuated_correlation": ".diagnostics.spearman",
    "Lazy": ".lazy.graph",  # the result type of dask-backed calls; imports dask
    **dict.fromkeys(("AltTest", "alt_test", "plan_alt_test"), ".models"),
    **dict.fromkeys(("augmented_kappa", "augmented_sweep"), ".multilabel.augmented"),
    **dict.fromkeys(("augmented_items", "augmented_matrix"), ".multilabel.augmented_items"),
    **dict.fromkeys(("Sharpened", "sharpen"), ".multilabel.sharpen"),
    **dict.fromkeys(("agreement_table", "interpret", "per_category"),
                    ".reporting.agreement"),
    **dict.fromkeys(("Report", "report"), ".reporting.report"),
    **dict.fromkeys(("common_items", "summary"), ".reporting.summary"),
    **dict.fromkeys(("Verdict", "Wording", "judge", "verdict_of"), ".reporting.verdicts"),
    "read_sets": ".schema.readsets",
    "set_cells": ".schema.setcells",
    "LabelSets": ".schema.sets",
    **dict.fromkeys(("compare", "plan"), ".uncertainty.compare"),
}

__version__ = "0.1.0"

__all__ = [
    "AltTest",
    "AmbiguousLevelWarning",
    "CostWarning",
    "DroppedDataWarning",
    "InputError",
    "Intra",
    "LabelSets",
    "LevelError",
    "LevelNote",
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
    "from_counts",
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
    import importlib
    import importlib.util

    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name], __name__), name)
        globals()[name] = value  # looked up once
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):  # as
        return importlib.import_module(f".{name}", __name__)  # a submodule, on first use
    raise AttributeError(f"module 'xrr_accessor' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
