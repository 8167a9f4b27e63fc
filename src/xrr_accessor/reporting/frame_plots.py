"""``data.xrr.plot``: the report's figures drawn straight from the data (a report is
made, then drawn; :mod:`.plotting` draws, :mod:`.report` computes)."""

from __future__ import annotations

from typing import Any, ClassVar

from ..diagnostics.spearman import disattenuated_correlation
from ..uncertainty.compare import plan as plan_table
from .plotting import ReportPlots, plan, rho_vs_normalized
from .report import report

__all__ = ["FramePlots"]


class FramePlots:
    """``data.xrr.plot``: each figure of :class:`ReportPlots`, from the data.

    Keyword arguments other than the figure's own go to
    :func:`~xrr_accessor.report` (``irr=``, ``level=``, ``ci=``, ...).
    """

    _OWN: ClassVar[dict[str, tuple[str, ...]]] = {
        "irr_hist": ("ax", "bins"), "label": ("name", "ax"), "irr_vs_kappa": ("pair", "ax"),
        "heatmap": ("ax", "vmax")}

    def __init__(self, data: Any, roles: dict[str, Any]) -> None:
        self._data, self._roles = data, roles

    def __getattr__(self, name: str) -> Any:
        if name not in self._OWN:
            raise AttributeError(f"no plot {name!r}; plots: {', '.join(self.__dir__())}")

        def draw(*args: Any, **kwargs: Any) -> Any:
            own = {k: kwargs.pop(k) for k in self._OWN[name] if k in kwargs}
            rep = report(self._data, **kwargs, **self._roles)
            return getattr(rep.plot, name)(*args, **own)

        draw.__doc__ = getattr(ReportPlots, name).__doc__
        return draw

    def rho_vs_normalized(self, ax: Any = None, n_splits: int = 100, seed: int | None = 0,
                          **kwargs: Any) -> Any:
        """:func:`rho_vs_normalized` of the data (``kwargs`` to :func:`~xrr_accessor.report`)."""
        rho = disattenuated_correlation(self._data, kwargs.get("other"), n_splits=n_splits,
                                        seed=seed, **self._roles)
        return rho_vs_normalized(rho, report(self._data, **kwargs, **self._roles), ax=ax)

    def __dir__(self) -> list[str]:
        return [*self._OWN, "rho_vs_normalized", "plan"]

    def plan(self, ax: Any = None, **kwargs: Any) -> Any:
        """:func:`~xrr_accessor.plan` of the data, drawn by :func:`plan`."""
        return plan(plan_table(self._data, **kwargs, **self._roles), ax=ax)
