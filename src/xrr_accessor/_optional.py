"""Optional dependencies, imported when first used, with the extra that installs them."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["new_axes", "pyplot", "require"]


def require(module: str, what: str, extra: str = "io") -> Any:
    """``module``, or an ImportError saying ``what`` needs it and which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs {module}: pip install 'xrr_accessor[{extra}]'"
                          ) from None


def pyplot() -> Any:
    """matplotlib.pyplot, or an ImportError naming the ``plot`` extra."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plots need matplotlib: pip install 'xrr_accessor[plot]'") from exc
    return plt


def new_axes(ax: Any, size: tuple[float, float]) -> Any:
    """``ax``, or the axes of a new figure of ``size`` inches."""
    return pyplot().subplots(figsize=size, layout="constrained")[1] if ax is None else ax
