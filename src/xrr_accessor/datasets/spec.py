"""The simulator's model: label specifications, presets and their validation.

A :class:`LabelSpec` holds the parameters of one binary label (prevalence,
concentration, and per pool: shift, noise, guess); :data:`PRESETS` names the
paper's qualitative cases. :func:`~xrr_accessor.datasets.simulate_replications`
draws from these specifications and
:func:`~xrr_accessor.datasets.true_reliability` gives their population values;
both resolve their arguments with the package-internal helpers here
(:func:`resolve_labels`, :func:`resolve_pools`, :class:`Params`), so that they
read the same arguments the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from ..errors import InputError
from .irep import norm_key

__all__ = ["ATTRS_KEY", "PRESETS", "LabelSpec", "PoolValue"]

#: A per-pool parameter: one value for every pool, a mapping pool -> value, or a
#: sequence in the order of ``pools``.
PoolValue = float | Mapping[str, float] | Sequence[float]

#: Key of ``DataFrame.attrs`` under which :func:`simulate_replications` records its
#: parameters (plain Python values), so that ``true_reliability(df)`` works.
ATTRS_KEY = "xrr_simulation"


def is_number(value: Any) -> bool:
    """A real number (int or float, numpy's too), not a bool."""
    return isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool | np.bool_
    )


def _check_range(value: float, what: str, low: float, high: float, high_open: bool) -> None:
    ok = np.isfinite(value) and low <= value and (value < high if high_open else value <= high)
    if not ok:
        bracket = ")" if high_open else "]"
        raise InputError(f"{what} is {value!r}; use a number in [{low:g}, {high:g}{bracket}.")


def _freeze_pool_value(value: Any, what: str) -> Any:
    """Copy a per-pool parameter (so later changes to the caller's object do not leak in)."""
    if value is None or is_number(value):
        return value
    if isinstance(value, Mapping):
        return MappingProxyType(dict(value))
    if isinstance(value, Sequence) and not isinstance(value, str):
        return tuple(value)
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return tuple(value.tolist())
    raise InputError(
        f"{what} is {value!r}; give a number, a mapping pool -> number, or a sequence "
        "with one number per pool."
    )


@dataclass(frozen=True)
class LabelSpec:
    """Parameters of one binary label in :func:`simulate_replications`.

    The model, per label: item i has a latent propensity ``s_i ~ Beta(mu k,
    (1 - mu) k)`` shared by every pool (``mu`` = ``prevalence``, ``k`` =
    ``concentration``). Pool X reads the item its own way with probability
    ``shift_X``: then its propensity is an independent draw ``o_Xi`` from the same
    Beta, otherwise it is ``s_i``. A pool-X rater answers at random with
    probability ``noise_X`` (saying 1 with probability ``guess_X``), otherwise says
    1 with the pool's propensity. So a pool-X rater says 1 on item i with
    probability ``p_X(i) = (1 - noise_X) q_X(i) + noise_X guess_X``, independently
    of the other raters given the item.

    Parameters
    ----------
    prevalence : float
        Mean propensity ``mu`` in (0, 1): how common the label is.
    concentration : float
        ``k > 0``. Small: items are clear-cut (propensities near 0 or 1), high
        agreement; large: items are ambiguous (propensities near ``mu``), low
        agreement. Without noise, alpha is ``1 / (k + 1)``.
    shift : float, mapping or sequence
        Per pool, in [0, 1]: the share of items the pool reads its own way. 0 in
        every pool is a perfect replication; 1 in a pool means it shares nothing
        with the others. It leaves the pool's IRR unchanged.
    noise : float, mapping or sequence
        Per pool, in [0, 1): the chance a rater answers at random. Lowers IRR and
        kappa_x, not normalized kappa_x (when the pools' marginals agree).
    guess : float, mapping, sequence or None
        Per pool, in [0, 1]: the chance a random answer is 1. Default: ``mu``, so
        that noise leaves the prevalence unchanged; other values give pools
        different marginal distributions.

    Examples
    --------
    >>> spec = LabelSpec(prevalence=0.2, concentration=1.0, shift={"A": 0.0, "B": 0.5})
    >>> spec.shift["B"]
    0.5
    >>> LabelSpec(prevalence=1.5)
    Traceback (most recent call last):
    ...
    xrr_accessor.errors.InputError: prevalence is 1.5; use a number in (0, 1).
    """

    prevalence: float = 0.1
    concentration: float = 1.0
    shift: PoolValue = 0.0
    noise: PoolValue = 0.0
    guess: PoolValue | None = None

    def __post_init__(self) -> None:
        if not is_number(self.prevalence) or not 0 < self.prevalence < 1:
            raise InputError(
                f"prevalence is {self.prevalence!r}; use a number in (0, 1)."
            )
        if not is_number(self.concentration) or not (
            np.isfinite(self.concentration) and self.concentration > 0
        ):
            raise InputError(
                f"concentration is {self.concentration!r}; use a finite number > 0."
            )
        for name in ("shift", "noise", "guess"):
            object.__setattr__(self, name, _freeze_pool_value(getattr(self, name), name))
        for name, high_open in (("shift", False), ("noise", True), ("guess", False)):
            value = getattr(self, name)
            if is_number(value):
                _check_range(float(value), name, 0.0, 1.0, high_open)

    def per_pool(self, pools: Sequence[str], label: str = "") -> dict[str, np.ndarray]:
        """``shift``, ``noise`` and ``guess`` as arrays over ``pools``, validated.

        Examples
        --------
        >>> LabelSpec(noise=[0.1, 0.2]).per_pool(["A", "B"])["noise"]
        array([0.1, 0.2])
        """
        where = f"label {label!r}: " if label else ""
        out = {}
        for name, high_open in (("shift", False), ("noise", True), ("guess", False)):
            value = getattr(self, name)
            if value is None:  # guess defaults to the prevalence
                value = self.prevalence
            out[name] = _pool_array(value, pools, where + name, high_open)
        return out

    def to_dict(self) -> dict[str, Any]:
        """The parameters as plain Python values (mappings become dicts).

        Examples
        --------
        >>> LabelSpec(shift={"A": 0.5, "B": 0.0}).to_dict()["shift"]
        {'A': 0.5, 'B': 0.0}
        """
        out: dict[str, Any] = {}
        for name in ("prevalence", "concentration", "shift", "noise", "guess"):
            value = getattr(self, name)
            if isinstance(value, Mapping):
                value = {str(k): float(v) for k, v in value.items()}
            elif isinstance(value, tuple):
                value = [float(v) for v in value]
            elif value is not None:
                value = float(value)
            out[name] = value
        return out


def _pool_array(value: Any, pools: Sequence[str], what: str, high_open: bool) -> np.ndarray:
    n_pool = len(pools)
    if is_number(value):
        arr = np.full(n_pool, float(value))
    elif isinstance(value, Mapping):
        missing = [p for p in pools if p not in value]
        if missing:  # extra keys are fine: a spec may serve a subset of its pools
            raise InputError(
                f"{what} is given per pool but lacks pool(s) {missing} (it has "
                f"{list(value)}); give one value for each of {list(pools)}."
            )
        arr = np.array([float(value[p]) for p in pools])
    else:
        if len(value) != n_pool:
            raise InputError(
                f"{what} has {len(value)} values for {n_pool} pools {list(pools)}; give one "
                "value per pool, in that order (or a mapping pool -> value)."
            )
        arr = np.array([float(v) for v in value])
    for pool, v in zip(pools, arr, strict=True):
        _check_range(float(v), f"{what} of pool {pool!r}", 0.0, 1.0, high_open)
    return arr


#: Named presets: the paper's qualitative cases (Wong et al. 2021, Section 4 and
#: Table 2), as label specifications that work for any pools. Population values
#: (every pair of pools alike): ``"perfect"`` alpha 0.5, kappa_x 0.5, normalized 1
#: (a perfect replication); ``"sadness"`` alpha 0.516, kappa_x 0.471, normalized
#: 0.912 (the paper's Mexico City x Budapest: 0.515 / 0.518, 0.471, 0.912);
#: ``"contentment"`` alpha 0.551, kappa_x 0, normalized 0 (high IRR that does not
#: generalize; the paper's Mexico City x Kuala Lumpur: 0.449 / 0.636, -0.034);
#: ``"awe"`` alpha 0.119, kappa_x 0.082, normalized 0.687 (low IRR, good
#: replication; the paper's Mexico City x Budapest: 0.121 / 0.117, 0.082, 0.687).
PRESETS: Mapping[str, LabelSpec] = MappingProxyType({
    "perfect": LabelSpec(prevalence=0.2, concentration=1.0),
    "sadness": LabelSpec(prevalence=0.12, concentration=0.57, shift=0.045, noise=0.1),
    "contentment": LabelSpec(prevalence=0.1, concentration=0.47, shift=1.0, noise=0.1),
    "awe": LabelSpec(prevalence=0.08, concentration=5.8, shift=0.171, noise=0.1),
})

_RESERVED = {"item", "itemid", "pool", "rater", "label", "value", "replication"}


def _preset(name: Any) -> LabelSpec:
    if not isinstance(name, str) or name not in PRESETS:
        raise InputError(f"{name!r} is not a preset; use one of {list(PRESETS)}.")
    return PRESETS[name]


def resolve_labels(labels: Any, preset: str | None) -> dict[str, LabelSpec]:
    """Label name -> LabelSpec from ``labels`` (mapping or preset names) or ``preset``."""
    if preset is not None:
        if labels is not None:
            raise InputError("give labels= or preset=, not both.")
        return {preset: _preset(preset)}
    if labels is None:
        return dict(PRESETS)
    if isinstance(labels, LabelSpec):
        raise InputError("labels= takes a mapping name -> LabelSpec; pass {'<name>': spec}.")
    if isinstance(labels, str):
        labels = [labels]
    if isinstance(labels, Mapping):
        items = list(labels.items())
    elif isinstance(labels, Iterable):
        items = [(name, name) for name in labels]
    else:
        raise InputError(
            f"labels= is {type(labels).__name__}; give a mapping name -> LabelSpec (or "
            f"preset name), or a list of preset names from {list(PRESETS)}."
        )
    if not items:
        raise InputError("labels= is empty; give at least one label.")
    out: dict[str, LabelSpec] = {}
    for name, spec in items:
        if not isinstance(name, str) or not name:
            raise InputError(f"label name {name!r} is not a non-empty string.")
        if norm_key(name) in _RESERVED:
            raise InputError(
                f"label name {name!r} would be read as a role column (item, pool, rater, "
                "label, value); rename the label."
            )
        if isinstance(spec, str):
            spec = _preset(spec)
        elif not isinstance(spec, LabelSpec):
            raise InputError(
                f"label {name!r}: {spec!r} is neither a LabelSpec nor a preset name "
                f"({list(PRESETS)})."
            )
        out[name] = spec
    return out


def resolve_pools(pools: Any) -> list[str]:
    if isinstance(pools, str) or not isinstance(pools, Iterable):
        raise InputError(f"pools= is {pools!r}; give a list of pool names, e.g. ['A', 'B'].")
    out = list(pools)
    if not out:
        raise InputError("pools= is empty; give at least one pool name.")
    if len(set(out)) != len(out):
        raise InputError(f"pools= {out} repeats a name; every pool needs its own.")
    return out


@dataclass(frozen=True)
class Params:
    """Resolved parameters, arrays over labels (L) and pools (P)."""

    labels: list[str]
    pools: list[str]
    mu: np.ndarray      # (L,)
    kappa: np.ndarray   # (L,)
    shift: np.ndarray   # (L, P)
    noise: np.ndarray   # (L, P)
    guess: np.ndarray   # (L, P)
    specs: dict[str, LabelSpec] = field(default_factory=dict)

    @classmethod
    def build(cls, specs: dict[str, LabelSpec], pools: list[str]) -> Params:
        per = [spec.per_pool(pools, name) for name, spec in specs.items()]
        return cls(
            labels=list(specs), pools=pools,
            mu=np.array([s.prevalence for s in specs.values()], dtype=float),
            kappa=np.array([s.concentration for s in specs.values()], dtype=float),
            shift=np.array([p["shift"] for p in per]).reshape(len(specs), len(pools)),
            noise=np.array([p["noise"] for p in per]).reshape(len(specs), len(pools)),
            guess=np.array([p["guess"] for p in per]).reshape(len(specs), len(pools)),
            specs=specs,
        )

