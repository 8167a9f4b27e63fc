"""Running the corpus of tests/test_suggestions_work.py: a case's call, the message it
raises or warns, and each suggestion of it followed on the same data (issue 34)."""

from __future__ import annotations

import ast
import inspect
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
from suggestions import PLACEHOLDER, Suggestion, suggestions, suggests_something, value_at

import xrr_accessor as xa

#: Keywords of ``.xrr(...)``: they carry over from the failing call to a suggested one.
ROLES = frozenset({"item", "rater", "replication", "label", "value", "labels", "wide",
                   "categories", "duplicates"})
#: Library functions that make data: a suggestion to call one is followed by the same call
#: on what it returns.
TRANSFORMS = frozenset({"set_cells"})
#: Prefixes of a library call in a message, dropped to find the function's name.
_OWNERS = re.compile(r"^(?:xrr_accessor\.|xa\.|(?:df|data|humans|ds|ddf)\.xrr\.|\.)")


@dataclass
class Outcome:
    """What a call gave: its exception (or None) and its warnings (category, message)."""

    error: BaseException | None
    warned: list[tuple[type[Warning], str]] = field(default_factory=list)


def outcome(call: Callable[[], Any]) -> Outcome:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            call()
        except Exception as exc:
            return Outcome(exc, [(w.category, str(w.message)) for w in caught])
    return Outcome(None, [(w.category, str(w.message)) for w in caught])


def library(name: str) -> str | None:
    """The library function or ``.xrr`` method a call's name denotes, or None."""
    bare = _OWNERS.sub("", name)
    if "." in bare or "[" in bare:
        return None
    accessor = type(xa.XRRAccessor.__new__(xa.XRRAccessor))
    if (bare in xa.__all__ and callable(getattr(xa, bare))) or hasattr(accessor, bare):
        return bare
    return None


def call_library(name: str, args: str, data: Any, roles: dict[str, Any],
                 fill: dict[str, Any], params: dict[str, Any]) -> Any:
    """Run ``name(args)`` as the message writes it, on ``data`` with the call's roles.

    A positional ``data``, ``df``, ``humans`` or a leading ``...`` is the data, a later
    ``...`` the failing call's other arguments (``params``); a keyword whose value is a
    placeholder takes ``fill[key]``, as does a positional name not among those.
    """
    tree = ast.parse(f"f({args})", mode="eval").body
    assert isinstance(tree, ast.Call)
    positional: list[Any] = []
    for arg in tree.args:
        if isinstance(arg, ast.Name) and arg.id in ("data", "df", "humans", "ddf"):
            positional.append(data)
        elif isinstance(arg, ast.Constant) and arg.value is Ellipsis:
            if positional:
                roles = {**params, **roles}  # humans.xrr.alt_test(models, ...)
            else:
                positional.append(data)
        elif isinstance(arg, ast.Name):
            positional.append(fill[arg.id])
        else:
            positional.append(ast.literal_eval(arg))
    keywords: dict[str, Any] = {}
    for kw in tree.keywords:
        assert kw.arg is not None
        text = ast.get_source_segment(f"f({args})", kw.value) or ""
        value, _ = value_at(text, 0)
        keywords[kw.arg] = fill[kw.arg] if value is PLACEHOLDER else value
    if not positional or positional[0] is not data:
        positional.insert(0, data)
    if hasattr(xa, name) and name in xa.__all__:
        return getattr(xa, name)(*positional, **roles, **keywords)
    return getattr(data.xrr(**roles), name)(*positional[1:], **keywords)


@dataclass
class Case:
    """A bad or degenerate call: ``fn`` (a public function's name, or a callable) on
    ``data()`` with ``kw`` raises ``expect`` (or warns it) with ``match`` in the message.

    ``fill``: values for keywords the message leaves to the user (``item='<column>'``);
    ``together``: a suggestion's text -> keywords the message's prose gives with it
    ("or 'ordinal' with categories="); ``recipes``: a suggested call's text -> the data
    it makes (where the text cannot be run literally); ``skip``: a suggestion's text ->
    why it is not run; ``nothing``: why the message suggests nothing runnable;
    ``xfail``: the fix that will make it work.
    """

    id: str
    fn: str | Callable[..., Any]
    data: Callable[[], Any]
    kw: dict[str, Any]
    expect: type[BaseException] | type[Warning]
    match: str
    fill: dict[str, Any] = field(default_factory=dict)
    recipes: dict[str, Callable[[Any], Any]] = field(default_factory=dict)
    skip: dict[str, str] = field(default_factory=dict)
    together: dict[str, dict[str, Any]] = field(default_factory=dict)
    nothing: str = ""
    xfail: str = ""
    column: str = "joy"

    def run(self, data: Any, kw: dict[str, Any]) -> Any:
        fn = getattr(xa, self.fn) if isinstance(self.fn, str) else self.fn
        return fn(data, **kw)

    @property
    def marks(self) -> Any:
        return [pytest.mark.xfail(strict=True, reason=self.xfail)] if self.xfail else []


START = 30  # characters of a message that say which error it is ("the same message start")


def _same(a: str, b: str) -> bool:
    return a[:START] == b[:START]


def triggered(case: Case) -> str:
    """Run the case; return the message of its expected error or warning."""
    got = outcome(lambda: case.run(case.data(), case.kw))
    if issubclass(case.expect, Warning):
        assert got.error is None, f"{case.id}: {got.error!r}"
        found = [m for c, m in got.warned if issubclass(c, case.expect)
                 and case.match in m]
        assert found, f"{case.id}: no {case.expect.__name__} with {case.match!r}: {got.warned}"
        return found[0]
    assert isinstance(got.error, case.expect), f"{case.id}: {got.error!r}"
    assert case.match in str(got.error), f"{case.id}: {got.error}"
    return str(got.error)


def same_again(case: Case, message: str, got: Outcome) -> str | None:
    """Why the followed suggestion failed, or None."""
    if got.error is not None:
        return f"raised {type(got.error).__name__}: {got.error}"
    if issubclass(case.expect, Warning):
        again = [m for c, m in got.warned if issubclass(c, case.expect) and _same(m, message)]
        if again:
            return f"warned again: {again[0]}"
    return None


def _default(case: Case, key: str) -> Any:
    fn = getattr(xa, case.fn) if isinstance(case.fn, str) else case.fn
    try:
        parameter = inspect.signature(fn).parameters.get(key)
    except (TypeError, ValueError):
        return PLACEHOLDER
    return PLACEHOLDER if parameter is None else parameter.default


def advice(case: Case, message: str) -> list[Suggestion]:
    """The suggestions of ``message`` less those quoting the call itself: a keyword at
    the value the call has (given, or by default), a keyword it gave named without a
    value (unless the case fills it: "add them to categories="), or the function itself
    with keywords the call gave (``validity(ci=0.95)``)."""
    def quoted(s: Suggestion) -> bool:
        if s.kind != "key":
            return False
        has = case.kw.get(s.key, _default(case, s.key))
        if s.placeholder:  # "form= selects an ICC form", unless the case fills it
            return s.key in case.kw and s.key not in case.fill
        return has is not PLACEHOLDER and has == s.value
    def own(s: Suggestion) -> bool:  # validity(ci=0.95) in validity's message: the call
        if s.kind != "call" or library(s.name) != case.fn:
            return False
        given = [t for t in suggestions(s.args) if t.kind == "key"]
        return bool(given) and all(case.kw.get(t.key, PLACEHOLDER) == t.value for t in given)
    return [s for s in suggestions(message) if not quoted(s) and not own(s)]


def _recipe(case: Case, s: Suggestion, data: Any) -> Any:
    """The data after the message's pandas recipe, applied literally."""
    space = {"df": data.copy(), "ddf": data.copy(), "pd": pd, "np": np,
             "col": case.column, "data": data}
    if s.name == "=":
        exec(s.text, space)
        return space["df"] if s.text.startswith("df") else space["ddf"]
    result = eval(s.text, space)
    if isinstance(result, pd.Series):
        result = data.assign(**{case.column: result})
    assert isinstance(result, pd.DataFrame), (s.text, type(result))
    return result


def follow(case: Case, s: Suggestion, message: str, found: list[Suggestion]) -> Outcome:
    """Run suggestion ``s`` of ``message`` on the case's data; ``found``: the message's
    other suggestions (its keywords to take out, and with "not both" its alternatives)."""
    data = case.data()
    extra = case.together.get(s.text, {})
    name = library(s.name) if s.kind == "call" else None
    if name in TRANSFORMS:  # set_cells(df): the data, then the same call on them
        return outcome(lambda: case.run(getattr(xa, str(name))(data), {**case.kw, **extra}))
    if name is not None:
        roles = {k: v for k, v in case.kw.items() if k in ROLES}
        params = {k: v for k, v in case.kw.items() if k not in ROLES}
        return outcome(lambda: call_library(name, s.args, data, roles, case.fill, params))
    drops = {t.key for t in found if t.kind == "drop"}
    if "not both" in message and s.kind == "key":
        drops |= {t.key for t in found if t.kind == "key" and t.key != s.key}
    kw = {k: v for k, v in case.kw.items() if k not in drops}
    if s.kind == "call":  # a recipe, with the keywords the message takes out
        try:
            data = (case.recipes[s.text](data) if s.text in case.recipes
                    else _recipe(case, s, data))
        except Exception as exc:  # a recipe that fails on the data
            return Outcome(exc)
    if s.kind == "key":
        kw[s.key] = case.fill[s.key] if s.placeholder else s.value
        kw.update({k: case.fill[k] if v is PLACEHOLDER else v for k, v in s.also})
    kw.update(extra)
    kw = {k: v for k, v in kw.items() if v is not None or k == "other"}
    return outcome(lambda: case.run(data, kw))


def followable(case: Case, s: Suggestion) -> bool:
    """Whether the test can run ``s``: a keyword with a value (written or in ``fill``),
    a keyword to take out, a library call, a recipe of the case or written in full."""
    if s.kind == "key":
        return not s.placeholder or s.key in case.fill
    if s.kind == "drop" or s.text in case.recipes or library(s.name) is not None:
        return True
    return s.name == "=" or (s.name.startswith(("df", "pd.", "ddf", "np.")) and (
        "(" in s.text or "[" in s.text) and "..." not in s.text)


def check(case: Case) -> None:
    """Trigger the case's message and follow each of its suggestions (the test)."""
    message = triggered(case)
    found = advice(case, message)
    if case.nothing:
        assert not [s for s in found if s.text not in case.skip], (message, found)
        return
    assert found or not suggests_something(message), f"nothing parsed from: {message}"
    assert found, f"{case.id}: no suggestion in {message!r}; give nothing= a reason"
    stale = set(case.skip) - {s.text for s in found}  # (a fix may drop one: xfail cases)
    assert not stale or case.xfail, f"{case.id}: skip lists {stale}, not in {message!r}"
    failures = []
    for s in found:
        if s.text in case.skip or s.kind == "drop":  # a drop goes with the keys it replaces
            continue
        assert followable(case, s), (f"{case.id}: cannot run {s.text!r} of {message!r}: "
                                      "add a fill=, a recipe, or a skip reason")
        why = same_again(case, message, follow(case, s, message, found))
        if why:
            failures.append(f"{s.text!r} -> {why}")
    assert not failures, f"{case.id}: {message!r}\n" + "\n".join(failures)
