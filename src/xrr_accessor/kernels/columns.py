"""Item weights in the accumulation kernels: one column or C columns.

The kernels of :mod:`.accumulate` add each item's contribution to their
outputs through the helpers here, which numba resolves at compile time on the
weight's type, so each kernel has two compiled versions and neither carries a
branch between the two cases:

* one column (``weight`` (n,), a float per item: the plain or weighted
  statistics): outputs have no column axis, the item's weight stays in a
  register, ``out[index] += val * w``;
* C columns (``weight`` (n, C): C bootstrap replicates in one pass): outputs
  have a last axis of C, ``out[index, b] += val * weight[i, b]`` for each b.
"""

from __future__ import annotations

from numba import types
from numba.extending import overload

# Inlining: with C columns the helpers are inlined in numba's IR (the column loop
# then sits in the kernel). With one column they stay small functions that LLVM
# inlines itself: inlined in numba's IR, each call passing an output array gave an
# array reference count update that numba's pruning did not always remove, and in
# the kernel's innermost loops those atomic updates made the kappa_x pass 1.6x
# slower (50 -> 80 ms at IRep scale, serial).


def _columns_at(position: int):
    """Inline cost model: inline a call when its argument at ``position`` (the
    weight) is the C-column matrix, not the one-column float."""
    def inline(expr, caller, callee) -> bool:  # pragma: no cover - called by numba
        arg = caller.typemap[expr.args[position].name]
        return isinstance(arg, types.Array) and arg.ndim == 2
    return inline


def item_weight(weight, i):  # pragma: no cover - resolved by numba
    """What the additions of item ``i`` use: its weight, or the weight matrix."""


@overload(item_weight, inline=_columns_at(0))
def _item_impl(weight, i):
    if weight.ndim == 1:
        return lambda weight, i: weight[i]
    return lambda weight, i: weight


def all_zero(w, i):  # pragma: no cover - resolved by numba
    """True when item ``i`` has weight 0 in every column."""


@overload(all_zero, inline=_columns_at(0))
def _skip_impl(w, i):
    if isinstance(w, types.Float):
        return lambda w, i: w == 0.0

    def impl(w, i):
        for b in range(w.shape[1]):
            if w[i, b] != 0.0:
                return False
        return True
    return impl


def _adder(n_index: int):
    """``add(out, index..., val, w, i)``: out[index..., b] += val * weight of column b."""
    names = ", ".join(f"x{k}" for k in range(n_index))
    src = (f"def stub(out, {names}, val, w, i):\n    pass\n"
           f"def one(out, {names}, val, w, i):\n    out[{names}] += val * w\n"
           f"def many(out, {names}, val, w, i):\n    for b in range(w.shape[1]):\n"
           f"        out[{names}, b] += val * w[i, b]\n"
           f"def typer(out, {names}, val, w, i):\n"
           f"    return one if isinstance(w, types.Float) else many\n")
    scope: dict = {"types": types}
    exec(src, scope)  # one stub per number of indices
    overload(scope["stub"], inline=_columns_at(n_index + 2))(scope["typer"])
    return scope["stub"]


add2, add3, add4, add5, add6 = (_adder(n) for n in range(2, 7))
