"""Flag values the ``xrr`` command reads as the library does: a coefficient's name in any
case, with spaces or hyphens, or by an alias (``--metric Fleiss``, ``--irr "Cohen's
kappa"``), as :func:`~xrr_accessor.coefficients.lookup` reads it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..coefficients import lookup
from ..errors import InputError

__all__ = ["coefficient"]


def coefficient(allowed: Sequence[str]) -> Callable[[str], str]:
    """An argparse ``type`` for a flag whose ``choices`` are ``allowed`` coefficient names:
    any name :func:`~xrr_accessor.coefficients.lookup` accepts becomes the registry's
    name; any other text is handed back as given, so that argparse refuses it and lists
    ``allowed``.

    Examples
    --------
    >>> as_metric = coefficient(["cohen", "fleiss", "kappa_x"])
    >>> as_metric("Fleiss"), as_metric("Cohen's kappa"), as_metric("KAPPA-X")
    ('fleiss', 'cohen', 'kappa_x')
    >>> as_metric("nonsense")
    'nonsense'
    """
    def convert(text: str) -> str:
        try:
            return lookup(text, None).name
        except InputError:
            return text

    convert.__name__ = "coefficient name"  # argparse names the type in its messages
    return convert
