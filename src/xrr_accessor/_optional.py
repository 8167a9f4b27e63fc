"""Optional dependencies, imported when first used, with the extra that installs them."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["require"]


def require(module: str, what: str, extra: str = "io") -> Any:
    """``module``, or an ImportError saying ``what`` needs it and which extra installs it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs {module}: pip install 'xrr_accessor[{extra}]'"
                          ) from None
