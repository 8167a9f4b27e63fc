"""The ``.xrr`` accessor on pandas DataFrames and xarray Datasets / DataArrays.

Thin and stateless: ``__init__`` stores the object; calling the accessor,
``df.xrr(item="video", rater="worker")``, returns a new accessor bound to
those roles; every method is a one-line delegate to :mod:`xrr_accessor.api`.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pandas as pd
import xarray as xr

from .lazy import when_imported

if TYPE_CHECKING:
    from . import api
    from . import diagnostics as _diagnostics
    from . import models as _models
    from .multilabel import augmented as _augmented
    from .multilabel import augmented_items as _augmented_items
    from .multilabel import sharpen as _sharpen
    from .reporting import agreement
    from .reporting import report as _report
    from .reporting import summary as _summary
    from .uncertainty import compare as _compare


class _OnFirstUse(ModuleType):
    """A module imported on its first attribute access: ``import xrr_accessor`` then
    registers ``.xrr`` without importing numba and the kernels (a fast import); the
    first call pays for them."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_target"] = name

    def __getattr__(self, attr: str) -> Any:
        target = self.__dict__["_target"]  # imported once: then sys.modules' entry (the
        module = sys.modules.get(target) or importlib.import_module(target)  # import
        return getattr(module, attr)  # machinery costs microseconds even then)


if not TYPE_CHECKING:
    api = _OnFirstUse("xrr_accessor.api")
    _diagnostics = _OnFirstUse("xrr_accessor.diagnostics")
    _models = _OnFirstUse("xrr_accessor.models")
    _augmented = _OnFirstUse("xrr_accessor.multilabel.augmented")
    _augmented_items = _OnFirstUse("xrr_accessor.multilabel.augmented_items")
    _sharpen = _OnFirstUse("xrr_accessor.multilabel.sharpen")
    agreement = _OnFirstUse("xrr_accessor.reporting.agreement")
    _report = _OnFirstUse("xrr_accessor.reporting.report")
    _summary = _OnFirstUse("xrr_accessor.reporting.summary")
    _compare = _OnFirstUse("xrr_accessor.uncertainty.compare")

__all__ = ["XRRAccessor"]


class XRRAccessor:
    """Reliability of the annotations held by a DataFrame, Dataset or DataArray.

    Examples
    --------
    >>> import pandas as pd
    >>> import xrr_accessor  # registers .xrr
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": ["a", "b"] * 3,
    ...                    "joy": [1, 1, 0, 0, 1, 0]})
    >>> round(float(df.xrr.irr(metric="cohen")["joy"]), 3)
    0.4
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj
        self._roles: dict[str, Any] = {}

    def __call__(self, **roles: Any) -> XRRAccessor:
        """Bind column or dimension roles: ``df.xrr(item="video", rater="worker")``.

        Roles: ``item``, ``rater``, ``replication``, ``label``, ``value`` (a
        column or list of columns), ``labels`` (the label columns: others are
        left out), ``wide`` (rows items, columns raters), ``categories`` (the
        order of categories, for ordinal strings) and ``duplicates`` (what to
        do with repeated annotations).
        """
        from .schema.roles import Roles

        Roles.from_kwargs(roles)  # unknown names fail here, with a hint
        bound = type(self)(self._obj)
        bound._roles = dict(roles)
        return bound

    @property
    def _xrr_bound(self) -> tuple[Any, dict[str, Any]]:
        return self._obj, self._roles

    def irr(
        self, metric: str = "alpha", level: Any = None, weights: Any = None,
        ci: float | None = None, population: float | None = None, form: str | None = None,
        method: str | None = None, n_boot: int = 1000, seed: int | None = None,
        interval: str = "bca", progress: bool | None = None,
    ) -> Any:
        """IRR per label and replication; see :func:`xrr_accessor.irr`."""
        return api.irr(self._obj, metric=metric, level=level, weights=weights, ci=ci,
                       population=population, form=form, method=method, n_boot=n_boot,
                       seed=seed, interval=interval, progress=progress, **self._roles)

    def cross_kappa(
        self, other: Any = None, level: Any = None, ci: float | None = None,
        n_boot: int = 1000, seed: int | None = None, interval: str = "bca",
        progress: bool | None = None,
    ) -> Any:
        """kappa_x per label and replication pair; see :func:`xrr_accessor.cross_kappa`."""
        return api.cross_kappa(self._obj, other, level=level, ci=ci, n_boot=n_boot,
                               seed=seed, interval=interval, progress=progress,
                               **self._roles)

    def normalized(
        self, other: Any = None, irr: str = "alpha", level: Any = None,
        reference: Any = None, ci: float | None = None, n_boot: int = 1000,
        seed: int | None = None, interval: str = "bca", progress: bool | None = None,
        items: str = "all",
    ) -> Any:
        """Normalized kappa_x (Eq 13); see :func:`xrr_accessor.normalized`."""
        return api.normalized(
            self._obj, other, irr=irr, level=level, reference=reference, ci=ci,
            n_boot=n_boot, seed=seed, interval=interval, progress=progress, items=items,
            **self._roles
        )

    def summary(
        self, other: Any = None, irr: str = "alpha", level: Any = None,
        reference: Any = None, ci: float | None = None, n_boot: int = 1000,
        seed: int | None = None, interval: str = "bca", progress: bool | None = None,
        items: str = "all",
    ) -> Any:
        """IRR, kappa_x and normalized kappa_x side by side; see :func:`xrr_accessor.summary`."""
        return _summary.summary(self._obj, other, irr=irr, level=level, reference=reference,
                                ci=ci, n_boot=n_boot, seed=seed, interval=interval,
                                progress=progress, items=items, **self._roles)

    def report(
        self, other: Any = None, irr: str | None = None, level: Any = None,
        reference: Any = None, ci: float | None = None, n_boot: int = 1000,
        seed: int | None = None, interval: str = "bca", progress: bool | None = None,
        sort_by: str | None = None, items: str = "all", min_items: int | None = None,
        candidates: Any = None, gold: Any = None, epsilon: float | None = None,
        q: float = 0.05,
    ) -> _report.Report:
        """The paper's Table 5 as a :class:`~xrr_accessor.reporting.report.Report` (with
        ``candidates=``, ``epsilon=`` or ``gold=``: can these models replace the
        annotators?); see :func:`xrr_accessor.report`."""
        return _report.report(self._obj, other, irr=irr, level=level, reference=reference,
                              ci=ci, n_boot=n_boot, seed=seed, interval=interval,
                              progress=progress, sort_by=sort_by, items=items,
                              min_items=min_items, candidates=candidates, gold=gold,
                              epsilon=epsilon, q=q, **self._roles)

    def disattenuated_correlation(
        self, other: Any = None, n_splits: int = 100, seed: int | None = 0,
    ) -> pd.DataFrame:
        """Spearman-corrected correlation of item means (Eq 12); see
        :func:`xrr_accessor.disattenuated_correlation`."""
        from .diagnostics.spearman import disattenuated_correlation

        return disattenuated_correlation(self._obj, other, n_splits=n_splits, seed=seed,
                                         **self._roles)

    def compare(
        self, other: Any = None, irr: str = "alpha", level: Any = None,
        reference: Any = None, ci: float = 0.95, n_boot: int = 1000,
        seed: int | None = None, interval: str = "bca", progress: bool | None = None,
    ) -> pd.DataFrame:
        """Paired differences with intervals and p-values; see :func:`xrr_accessor.compare`."""
        return _compare.compare(self._obj, other, irr=irr, level=level, reference=reference,
                                ci=ci, n_boot=n_boot, seed=seed, interval=interval,
                                progress=progress, **self._roles)

    def plan(
        self, other: Any = None, irr: str = "alpha", level: Any = None,
        width: float = 0.1, sizes: Any = None, ci: float = 0.95, n_boot: int = 200,
        seed: int | None = None, progress: bool | None = None,
    ) -> pd.DataFrame:
        """Items needed for a normalized kappa_x interval of +/- width, from this pilot;
        see :func:`xrr_accessor.plan`."""
        return _compare.plan(self._obj, other, irr=irr, level=level, width=width,
                             sizes=sizes, ci=ci, n_boot=n_boot, seed=seed,
                             progress=progress, **self._roles)

    def per_category(self, metric: str = "fleiss") -> Any:
        """Agreement on each category against the rest; see
        :func:`xrr_accessor.per_category`."""
        return agreement.per_category(self._obj, metric=metric, **self._roles)

    def agreement_table(
        self, weights: Any = None, ci: float | None = None,
        population: float | None = None,
    ) -> pd.DataFrame:
        """Every coefficient side by side; see :func:`xrr_accessor.agreement_table` (its
        default too: the weights of the level inferred from the values)."""
        return agreement.agreement_table(self._obj, weights=weights, ci=ci, population=population,
                                      **self._roles)

    def augmented(self, p: float, rank: Any = None, layout: str = "auto",
                  pairs: bool = False) -> Any:
        """Rosenberg-Binkowski augmented kappa of set-valued annotations at primary
        weight ``p``; see :func:`xrr_accessor.augmented_kappa`."""
        return _augmented.augmented_kappa(self._obj, p, rank=rank, layout=layout, pairs=pairs,
                                          **self._roles)

    def augmented_sweep(self, ps: Any = None, rank: Any = None, layout: str = "auto",
                        pairs: bool = False) -> pd.DataFrame:
        """Augmented kappa over a range of p; see :func:`xrr_accessor.augmented_sweep`."""
        ps = _augmented.DEFAULT_PS if ps is None else ps
        return _augmented.augmented_sweep(self._obj, ps, rank=rank, layout=layout, pairs=pairs,
                                          **self._roles)

    def augmented_items(self, tol: float = 0.05, high: float = 0.6, rank: Any = None,
                        layout: str = "auto") -> pd.DataFrame:
        """Per-item agreement at p = 1.0 and 0.5 and the paper's four item classes;
        see :func:`xrr_accessor.augmented_items`."""
        return _augmented_items.augmented_items(self._obj, tol=tol, high=high, rank=rank,
                                          layout=layout, **self._roles)

    def sharpen(self, p: float = 1.0, tol: float = 1e-6, max_iter: int = 100,
                rank: Any = None, layout: str = "auto") -> Any:
        """Experimental rater / item weighting by consensus; see
        :func:`xrr_accessor.sharpen`."""
        return _sharpen.sharpen(self._obj, p=p, tol=tol, max_iter=max_iter, rank=rank,
                                layout=layout, **self._roles)

    def item_disagreement(self, level: Any = None) -> Any:
        """Per-item disagreement D_i, items ranked; see
        :func:`xrr_accessor.item_disagreement`."""
        return _diagnostics.item_disagreement(self._obj, level=level, **self._roles)

    def pairwise(self, metric: str = "cohen", level: Any = None,
                 both_orders: bool = True) -> pd.DataFrame:
        """Every pair of raters: Cohen's kappa and shared items; see
        :func:`xrr_accessor.pairwise`."""
        from .diagnostics.pairwise import pairwise

        return pairwise(self._obj, metric=metric, level=level, both_orders=both_orders,
                        **self._roles)

    def rater_agreement(self, metric: str = "kappa_x", level: Any = None,
                        min_items: int | None = None, ci: float | None = None,
                        n_boot: int = 1000,
                        seed: Any = None, interval: str = "bca") -> Any:
        """Each rater against the rest of the pool (leave one out); see
        :func:`xrr_accessor.rater_agreement`."""
        return _diagnostics.rater_agreement(self._obj, metric=metric, level=level,
                                            min_items=min_items, ci=ci, n_boot=n_boot,
                                            seed=seed, interval=interval, **self._roles)

    def intra(self, session: Any, level: Any = None) -> _diagnostics.Intra:
        """Intra-rater kappa_x across sessions and AAD distributions; see
        :func:`xrr_accessor.intra`."""
        return _diagnostics.intra(self._obj, session=session, level=level, **self._roles)

    def validity(self, gold: Any, level: Any = None, ci: float | None = None,
                 n_boot: int = 1000, seed: int | None = None, interval: str = "bca",
                 ) -> _diagnostics.Validity:
        """Agreement with gold labels; see :func:`xrr_accessor.validity`."""
        return _diagnostics.validity(self._obj, gold=gold, level=level, ci=ci, n_boot=n_boot,
                                     seed=seed, interval=interval, **self._roles)

    def alt_test(
        self, other: Any = None, *, epsilon: float, reference: Any = None,
        candidates: Any = None, q: float = 0.05, min_raters: int = 2, min_items: int = 30,
        level: Any = None, alignment: Any = None, ci: float | None = None,
        n_boot: int = 1000, seed: int | None = None, interval: str = "bca",
        progress: bool | None = None,
    ) -> _models.AltTest:
        """The alternative annotator test: can a candidate (a model) replace the
        humans? See :func:`xrr_accessor.alt_test`."""
        return _models.alt_test(
            self._obj, other, epsilon=epsilon, reference=reference, candidates=candidates,
            q=q, min_raters=min_raters, min_items=min_items, level=level,
            alignment=alignment, ci=ci, n_boot=n_boot, seed=seed, interval=interval,
            progress=progress, **self._roles)

    @property
    def plot(self) -> Any:
        """The paper's figures of this data (the ``plot`` extra: matplotlib); see
        :mod:`xrr_accessor.reporting.plotting`. ``df.xrr.plot.irr_vs_kappa(irr="alpha")``."""
        from .reporting.frame_plots import FramePlots

        return FramePlots(self._obj, self._roles)

    def to_xarray(self, layout: str = "auto") -> xr.Dataset:
        """The annotations as a Dataset; see :func:`xrr_accessor.to_xarray`."""
        return api.to_xarray(self._obj, layout=layout, **self._roles)

    def to_frame(self) -> pd.DataFrame:
        """The annotations as a long DataFrame; see :func:`xrr_accessor.to_frame`."""
        return api.to_frame(self._obj, **self._roles)


def register() -> None:
    """Register ``.xrr`` on DataFrame, Dataset and DataArray (done on import), and on
    dask and polars frames once those are imported."""
    pd.api.extensions.register_dataframe_accessor("xrr")(XRRAccessor)
    xr.register_dataset_accessor("xrr")(XRRAccessor)
    xr.register_dataarray_accessor("xrr")(XRRAccessor)
    when_imported("dask.dataframe", _register_dask)
    when_imported("polars", _register_polars)


def _register_polars() -> None:
    """``.xrr`` on polars DataFrames and LazyFrames (once polars is imported, before or
    after); see :mod:`xrr_accessor.polars_accessor`, which registers when imported (and
    may be the module whose ``import polars`` runs this hook: it is then completed)."""
    import importlib

    importlib.import_module(".polars_accessor", __package__)


def _register_dask() -> None:
    """``.xrr`` on dask DataFrames (once dask.dataframe is imported, before or after)."""
    import warnings

    from dask.dataframe.extensions import register_dataframe_accessor

    with warnings.catch_warnings():  # re-registering on reload is harmless
        warnings.simplefilter("ignore", UserWarning)
        register_dataframe_accessor("xrr")(XRRAccessor)
