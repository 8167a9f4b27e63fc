"""The one pipeline: read -> codes -> statistics -> finalize -> warn -> label.

Every public function calls :func:`run` with the registry entries it needs.
:func:`run` reads and encodes the input once, makes one statistics pass for
all of them (the union of their statistics groups), and returns a
:class:`Run` that finalizes any of those entries from the same statistics,
warns (once per call, at the caller's line) and labels the result the same
way for every entry point.
"""


from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ..coefficients import Coefficient, Context, Estimates
from ..coefficients.chance import unused_categories
from ..coefficients.cross import scale_gaps
from ..coefficients.light import MAX_LIGHT_RATERS
from ..coefficients.registry import finalize, needs
from ..errors import InputError, LevelError, per_call
from ..kernels import accumulate
from ..schema import Annotations, Roles, Table, encode, read
from ..schema.duplicates import set_duplicates
from ..schema.encode import same_label
from ..schema.read import column_names
from ..schema.roles import need_rater_ids
from .additive import GROUPS, Meta, Stats, check_size, ranked
from .infer import WEIGHTS_INFERRED, given_level, inferred_level, said_given
from .levels import Level, check_sets, resolve_level, resolve_weights, standardized
from .replications import default_pairs, keep_pairs, n_self, reference_code
from .results import (
    label_result,
    label_table,
    pair_index,
    warn_categories,
    warn_dropped,
    warn_scales,
    warn_undefined,
)
from .staged import OTHER_REFUSED, Planned, Staged
from .statistics import Codes, chunk, rows

__all__ = ["Codes", "Run", "annotations", "default_pairs", "entry_level", "given_level",
           "inferred_level", "make_meta", "run"]

#: Largest K x K disagreement matrix built for one label (ordinal, ratio, custom, weights).
MAX_MATRIX_CATEGORIES = 4096

#: Largest rater-pair table (Light's kappa) built, in cells.
MAX_JOINT_CELLS = 50_000_000


def _table(data: Any, roles: dict[str, Any]) -> Table:
    # on the type: a DataFrame searches a missing attribute among its columns (slow)
    bound = data._xrr_bound if hasattr(type(data), "_xrr_bound") else None
    if bound is not None:  # an accessor called with roles: other=df.xrr(rater="w")
        data, roles = bound
    return read(data, Roles.from_kwargs(roles))


@per_call
def annotations(data: Any, other: Any = None, level: Any = None, one_label: bool = False,
                numbers: bool = False, **roles: Any) -> tuple[Annotations, Level]:
    """Read ``data`` (and ``other``) into the canonical form, validating once.

    Parameters
    ----------
    data : DataFrame, Dataset or DataArray
        The annotations (see :class:`xrr_accessor.schema.Roles` for layouts).
    other : same kinds, optional
        A second set of annotations of the same items (another replication).
    level : str, matrix or callable
        Level of measurement; checked against the values here.
    one_label : bool
        Two inputs of one label each are the same label even when named differently
        (a wide table's label is called ``value``): it takes ``data``'s name.
    numbers : bool
        Continuous ratings kept as numbers, not factorized (the ICC reads no categories).
    **roles
        ``item=``, ``rater=``, ``replication=``, ``label=``, ``value=``,
        ``wide=``, ``categories=``, ``duplicates=``. ``other`` is read with
        the same roles, unless it is passed as ``other.xrr(...)`` with its own.

    Returns
    -------
    (Annotations, Level)

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
    ...                    "joy": [0, 1, 1, 1]})
    >>> ann, level = annotations(df)
    >>> ann.codes
    array([[0, 1, 1, 1]])
    """
    weights = isinstance(level, str) and level == WEIGHTS_INFERRED  # follow the level
    lvl = None if level is None or weights else resolve_level(level)
    if isinstance(data, Staged):  # dask-backed: the skeleton read from the partitions
        return _staged_annotations(data, other, lvl, weights)
    try:
        tables = [_table(data, roles)]
        if other is not None:
            tables.append(_table(other, roles))
    except InputError as exc:  # e.g. one row per label where a set level wants set cells
        if lvl is not None and lvl.sets and "duplicate annotation" in str(exc):
            raise set_duplicates(str(exc), lvl.name) from exc
        raise
    if one_label:
        same_label(tables)
    if lvl is None:  # inferred from the values: encoded as nominal, then decided
        ann, lvl = inferred_level(encode(tables, numbers=numbers), tables, weights=weights,
                                  max_matrix=MAX_MATRIX_CATEGORIES)
    else:
        ann = encode(tables, ordinal=lvl.ordered, numbers=numbers and lvl.numeric,
                     said=said_given(lvl))  # as given_level says, without a copy
    check_sets(lvl, ann.categories, ann.where)
    if lvl.numeric and not all(isinstance(c.dtype, np.dtype) and c.dtype.kind in "biuf"
                               for c in ann.categories):  # numpy numbers: finite (encode)
        ann.values(lvl.name)  # raises a LevelError naming the column
    return ann, lvl


def _staged_annotations(data: Staged, other: Any, lvl: Level | None, weights: bool = False
                        ) -> tuple[Annotations, Level]:
    if other is not None:
        raise InputError(OTHER_REFUSED)
    ann = data.ann
    ann, lvl = (inferred_level(ann, staged=data, weights=weights,
                               max_matrix=MAX_MATRIX_CATEGORIES) if lvl is None
                else given_level(ann, lvl))
    check_sets(lvl, ann.categories, ann.where)
    if lvl.ordered:
        unordered = [j for j, ok in enumerate(data.ordered) if not ok]
        if unordered:
            raise LevelError(
                f"{ann.where(unordered[0])} holds unordered categories; the ordinal level "
                "and linear or quadratic weights need their order. Pass categories="
                "[lowest, ..., highest] to .xrr(...), or make the column an ordered "
                "pd.Categorical.")
    if lvl.numeric:
        ann.values(lvl.name)
    return ann, lvl


def entry_level(entry: Coefficient, level: Any, weights: Any) -> Any:
    """The level ``entry`` is computed at, from ``level=`` and ``weights=``, checked
    against the levels its registry entry accepts."""
    out = _entry_level(entry, level, weights)
    if out is None or (isinstance(out, str) and out == WEIGHTS_INFERRED):
        return out  # inferred from the values (every level the entry accepts)
    name = resolve_level(out).name if not isinstance(out, Level) else out.name
    if name not in entry.levels:
        raise InputError(f"{entry.name} is not defined at the {name} level; it accepts "
                         f"{', '.join(entry.levels)}.")
    return out


def _entry_level(entry: Coefficient, level: Any, weights: Any) -> Any:
    given_level = level is not None and not (isinstance(level, str) and level == "nominal")
    if entry.weighting == "interval":
        if weights is not None or (given_level and level != "interval"):
            raise InputError(f"the {entry.name.upper()} treats ratings as interval numbers; "
                             "leave level= and weights= out (or use metric='alpha' for "
                             "other levels).")
        return "interval"
    if weights is None:
        if entry.weighting == "weights":
            if given_level:
                raise InputError(
                    f"metric={entry.name!r} is weighted with weights='linear', 'quadratic' or "
                    "a K x K matrix of agreement weights, not with level=."
                )
            if level is None:  # the weights of the level inferred from the values
                return WEIGHTS_INFERRED
            return resolve_weights("unweighted")
        if level is None and entry.weighting == "both":  # Cohen, iota: as the family
            return WEIGHTS_INFERRED
        return level
    if entry.weighting == "level":
        raise InputError(
            f"{entry.name} is weighted through level= ('ordinal', 'interval', 'ratio', or a "
            "disagreement matrix), not weights=."
        )
    if given_level:
        raise InputError("give level= or weights=, not both.")
    return resolve_weights(weights)


def _form(level: Level) -> str:
    if level.uses_moments:
        return "moments"
    if level.name == "nominal" or (level.name == "weights" and isinstance(level.custom, str)
                                   and level.custom == "unweighted"):
        return "vector"
    return "matrix"


def _values(ann: Annotations, level: Level, form: str) -> np.ndarray | None:
    if not level.numeric:
        return None
    values = ann.values(level.name)
    if form != "moments":
        return values
    return standardized(values)


#: Up to this many raters the strata (m, annotations of an item in a replication)
#: run to the number of raters, with no pass to find the largest m.
FEW_RATERS = 8


def make_meta(ann: Annotations, level: Level, groups: set[str], pairs: np.ndarray,
              top: int | None = None) -> Meta:
    """The :class:`Meta` of a call: form, values, strata and the groups to compute.

    ``top`` (the largest number of annotations of one item in one replication)
    is found from the codes when not given."""
    groups = set(groups) & set(GROUPS)
    form = ranked(_form(level), level.ordinal, groups, ann.n_category)
    n_rep, n_rater = len(ann.replications), len(ann.raters)
    k = ann.n_category
    if form == "moments":
        groups.discard("chance")
        groups.discard("joint")
    if "joint" in groups and (n_rater > MAX_LIGHT_RATERS * n_rep or len(ann.labels) * n_rep
                              * n_rater**2 * k**2 > MAX_JOINT_CELLS):
        groups.discard("joint")  # Light's kappa says why it is NaN
    if top is not None:
        top = max(2, min(top, n_rater)) if "strata" in groups else 2
    elif "strata" in groups and n_rater <= FEW_RATERS:  # m <= raters: no duplicate rows
        top = max(2, n_rater)
    elif "strata" in groups and len(ann.item):
        top = max(2, int(accumulate.max_group_size(ann.item, ann.replication,
                                                   len(ann.items), n_rep)))
    else:
        top = 2
    return Meta(
        n_label=len(ann.labels), n_rep=n_rep, n_rater=n_rater, n_category=k,
        n_categories=tuple(len(c) for c in ann.categories), form=form,
        groups=frozenset(groups), pairs=np.asarray(pairs, dtype=np.int64).reshape(-1, 2),
        values=_values(ann, level, form), top=top,
    )


def kind_of(data: Any) -> str:
    if isinstance(data, Staged):
        return data.kind
    return "xarray" if isinstance(data, (xr.Dataset, xr.DataArray)) else "pandas"


@dataclass
class Run:
    """One call's encoded annotations, statistics and finalized estimates."""

    ann: Annotations
    ctx: Context
    stats: Stats
    kind: str
    #: The annotations in item order, for further passes (bootstrap, jackknife);
    #: for dask-backed data (whose annotations stay in the partitions) None, or the
    #: partitions' replicate statistics (:class:`~.draws.Sampled`) under ``ci=``.
    rows: Any
    #: The code of the call's ``reference=`` replication (None: no reference).
    reference: int | None = None
    _cache: dict[tuple[Any, ...], Estimates] = field(default_factory=dict)
    _warned: set[str] = field(default_factory=set)

    @property
    def level(self) -> Level:
        return self.ctx.level

    @property
    def pairs(self) -> np.ndarray:
        return self.ctx.meta.pairs

    def cells(self, entry: Coefficient) -> pd.Index:
        """Replications (IRR) or the pair MultiIndex (cross coefficients)."""
        return self.ann.replications if entry.kind == "irr" else pair_index(self.ann,
                                                                            self.pairs)

    def estimate(self, entry: Coefficient, **params: Any) -> Estimates:
        """``entry`` finalized from this run's statistics (each once per parameters)."""
        return finalize(entry, self.stats, self.ctx, params, self._cache)

    def warn(self, entry: Coefficient, est: Estimates, what: str | None = None) -> None:
        """The undefined-value and dropped-item warnings of ``est`` (and, once per
        run, for cross coefficients, replications that look like different scales;
        for a coefficient that counts categories, a replication using few of them)."""
        warn_undefined(est, self.ann, self.cells(entry), what or entry.name)
        warn_dropped(est, self.ann, entry.name)
        if entry.kind == "cross" and "scales" not in self._warned:
            self._warned.add("scales")
            warn_scales(scale_gaps(self.stats, self.ctx), self.ann, self.cells(entry))
        if entry.counts_categories:
            self.warn_categories(what or entry.display)

    def warn_categories(self, what: str) -> None:
        """Once per run: a :class:`~xrr_accessor.errors.ScaleWarning` where a replication
        uses few of its label's q categories, for the coefficients ``what`` that count
        them (:attr:`~xrr_accessor.coefficients.Coefficient.counts_categories`)."""
        if "categories" not in self._warned:
            self._warned.add("categories")
            warn_categories(unused_categories(self.stats, self.ctx), self.ann, what)

    def label(self, entry: Coefficient, est: Estimates, attrs: dict[str, Any],
              columns: dict[str, np.ndarray] | None = None,
              keep_cells: bool | None = None) -> Any:
        """``est`` as the caller's kind of object: a value per cell, or a table (the
        pair dimension of a cross coefficient kept as :func:`.keep_pairs` says)."""
        if keep_cells is None and entry.kind == "cross":
            keep_cells = keep_pairs(self.ann)
        if columns is not None:
            return label_table(est, columns, self.ann, self.cells(entry), self.kind, attrs,
                               keep_cells=keep_cells)
        return label_result(est, self.ann, self.cells(entry), self.kind, attrs,
                            keep_cells=keep_cells)


def run(
    data: Any, entries: Sequence[Coefficient], other: Any = None, level: Any = None,
    pairs: np.ndarray | None = None, reference: Any = None, ann: Annotations | None = None,
    lvl: Level | None = None, **roles: Any,
) -> Run:
    """Read, encode and make one statistics pass for ``entries``.

    ``pairs`` (P, 2) are replication pairs for cross coefficients (default: every pair,
    or self x other when ``other`` is given; with ``reference`` each other replication
    against it; its code is :attr:`Run.reference`). ``ann``/``lvl`` skip reading when
    the caller already encoded the data (e.g. recoded it per category).
    """
    if ann is None or lvl is None:
        numbers = all(e.weighting == "interval" for e in entries)  # the ICC: no categories
        ann, lvl = annotations(data, other, level=level, numbers=numbers, **roles)
    for e in entries:  # a count table's slots are no raters to follow across items
        if "raters" in needs(e) and e.weighting != "interval":  # the ICC: one-way there
            need_rater_ids(ann.role_names.get("rater"), e.display)
    groups = set().union(*(needs(e) for e in entries))
    if any(e.kind == "cross" for e in entries):
        if pairs is None:
            pairs = default_pairs(ann, reference)
    pairs = np.zeros((0, 2), dtype=np.int64) if pairs is None else pairs
    staged = data if isinstance(data, Staged) else None
    meta = make_meta(ann, lvl, groups, pairs, top=None if staged is None else staged.top)
    ctx = Context(
        meta=meta, level=lvl, categories=ann.categories,
        labels=tuple(ann.source.get(label, repr(label)) for label in column_names(ann.labels)),
        replications=ann.replications, raters=ann.raters,
        has_replication=ann.has_replication,
    )
    if meta.form == "matrix" and meta.n_category > MAX_MATRIX_CATEGORIES:
        k = meta.n_category
        if lvl.name == "weights":
            raise InputError(
                f"{_widest(ann)} has {k:,} categories; weights={lvl.custom!r} need a {k:,} x "
                f"{k:,} matrix of agreement weights. For numbers use metric='alpha' with "
                "level='interval' or metric='icc' (no matrix); weights='unweighted' counts "
                "exact matches at any K.")
        raise InputError(
            f"{_widest(ann)} has {k:,} categories; level={lvl.name!r} needs a {k:,} x {k:,} "
            "disagreement matrix. For numbers use level='interval' (no matrix), for "
            "labels level='nominal' (no matrix at any K), or merge categories."
        )
    check_size(meta, lambda: _widest(ann))
    ref = None if reference is None else reference_code(ann, reference, n_self(ann))
    if staged is not None:  # dask-backed: plan the partitions' pass, or use its sums
        if staged.stats is None:
            raise Planned(meta)
        assert isinstance(staged.meta, Meta)  # set with the statistics
        return Run(ann, replace(ctx, meta=staged.meta), staged.stats, staged.kind,
                   staged.sampled, ref)
    item_rows = rows(Codes(ann), meta)
    return Run(ann, ctx, chunk(item_rows, meta), kind_of(data), item_rows, ref)


def _widest(ann: Annotations) -> str:
    widest = max(range(len(ann.labels)), key=lambda j: len(ann.categories[j]))
    return ann.source.get(ann.labels[widest], repr(ann.labels[widest]))
