"""The parser and runner behind tests/test_suggestions_work.py (issue 34: every suggestion
in a message works).

A message's suggestions are read by :func:`suggestions`: calls written ``name(...)``
(``agreement_table(data, weights='linear')``, ``.xrr(item='<column>')``), keywords
written ``key=value`` (``use level='interval'``), and keywords to take out (``not with
level=``, ``leave level= and weights= out``, ``Drop rank=``). :func:`follow` runs one
on the data of the call that raised it: the same call with the keyword added (or taken
out), or the suggested library call on the same data and roles.
"""

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

import xrr_accessor as xa

#: Keywords of ``.xrr(...)``: they carry over from the failing call to a suggested one.
ROLES = frozenset({"item", "rater", "replication", "label", "value", "labels", "wide",
                   "categories", "duplicates"})
#: Library functions that make data: a suggestion to call one is followed by the same call
#: on what it returns.
TRANSFORMS = frozenset({"set_cells"})
#: Prefixes of a library call in a message, dropped to find the function's name.
_OWNERS = re.compile(r"^(?:xrr_accessor\.|xa\.|(?:df|data|humans|ds|ddf)\.xrr\.|\.)")
_CALL = re.compile(r"(?<![\w\]\)])(\.?(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\(")
#: The start of a pandas or numpy expression (a recipe written in the message).
_PANDAS = re.compile(r"(?<![\w.])(?:df|ddf|pd|np)(?=[.\[])")
_KEY = re.compile(r"(?<![\w.'\"])([a-z_][a-z0-9_]*)=")
_DROP = re.compile(r"\b(?:not|[Ll]eave|[Dd]rop|without)\s+(?:with\s+)?"
                   r"((?:[a-z_]\w*=(?:\s+and\s+|,\s*|\s+or\s+)?)+)")
_ASSIGN = re.compile(r"(?<![\w.])(?:df|ddf)(?:\[[^\]]*\]|\.\w+) = ")
_SCALAR = re.compile(r"np\.(?:u?int|float|bool|str|complex)\w*")
_PLACEHOLDER = object()


@dataclass(frozen=True)
class Suggestion:
    """One suggestion: ``kind`` "key" (``key=value``; value ``_PLACEHOLDER`` when the
    message leaves it to the user), "drop" (take ``key`` out) or "call" (``name`` with
    ``args``, the text between its parentheses). ``text`` is how the message writes it."""

    kind: str
    text: str
    key: str = ""
    value: Any = None
    name: str = ""
    args: str = ""
    also: tuple[tuple[str, Any], ...] = ()

    @property
    def placeholder(self) -> bool:
        return self.value is _PLACEHOLDER


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at ``start`` (quotes respected), or -1."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and not text[i - 1].isalnum():  # not the apostrophe of "rater's"
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _value(text: str, start: int) -> tuple[Any, int]:
    """The literal written at ``text[start:]`` and where it ends; ``_PLACEHOLDER`` for a
    value left to the user (nothing, ``'<column>'``, ``...``, ``[...]``)."""
    rest = text[start:]
    if not rest or rest[0] in " ,.;)":
        return _PLACEHOLDER, start
    if rest[0] in "'\"[{(":
        end = rest.index(rest[0], 1) if rest[0] in "'\"" else _closing(rest, 0)
        if end < 0:
            return _PLACEHOLDER, len(text)
        source = rest[:end + 1]
    else:
        source = re.match(r"[\w.+-]*", rest).group(0).rstrip(".")  # type: ignore[union-attr]
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError):
        value = _PLACEHOLDER
    if value is Ellipsis or (isinstance(value, str) and value.startswith("<")) or (
            isinstance(value, list | tuple) and Ellipsis in value):
        value = _PLACEHOLDER
    return value, start + len(source)


def _keywords(text: str, out: list[Suggestion]) -> None:
    for m in _KEY.finditer(text):
        value, end = _value(text, m.end())
        out.append(Suggestion("key", text[m.start():end], key=m.group(1), value=value))


def _is_location(args: str) -> bool:
    """``(item=0, rater='a')``: where a problem is, not a call."""
    return bool(re.fullmatch(r"\s*\w+=[^=,\s][^=]*(,\s*\w+=[^=]*)*", args))


def _expression_end(text: str, start: int) -> int:
    """Where the Python expression written from ``start`` ends: at ``, ``, ``; ``,
    ``. ``, `` (`` or an unmatched ``)`` outside brackets, or the end."""
    depth, quote, i = 0, "", start
    while i < len(text):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            if depth == 0 and text[i - 1] == " " and ch == "(":
                return i - 1
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and text[i:i + 2] in (", ", "; ", ". "):
            return i
        i += 1
    return len(text.rstrip("."))


def _chain_end(text: str, i: int) -> int:
    """Where a chain of ``.name``, ``[...]`` and ``(...)`` from ``i`` ends."""
    while i < len(text):
        if text[i] == "." and (m := re.match(r"\.[A-Za-z_]\w*", text[i:])):
            i += m.end()
        elif text[i] in "[(" and (close := _closing(text, i)) > 0:
            i = close + 1
        else:
            break
    return i


def _blank(text: str, a: int, b: int) -> str:
    return text[:a] + " " * (b - a) + text[b:]


def _alternatives(message: str) -> list[Suggestion]:
    """``sort_by='x'; use one of ['irr', 'kappa_x']``, ``unknown level 'x'; use one of
    nominal, ordinal``: the message opens on the value the call gave and lists the
    values to use instead (after "one of", "; use" or "; choose")."""
    head = (re.match(r"([a-z_]\w*)=\S+ (.*)", message)
            or re.match(r"unknown (?:ICC )?(level|form) \S+ (.*)", message))
    if not head or re.search(rf"\b{head.group(1)}=", head.group(2)):
        return []
    listed = (re.search(r"one of (.*)", head.group(2))
              or re.search(r"(?:^|; |: )(?:use|choose) (.*)", head.group(2)))
    if not listed or re.search(r"\w=", listed.group(1)):  # use method='bootstrap': a key
        return []
    rest = re.sub(r" \([^()]*\)", "", listed.group(1)).split(". ")[0]
    values: list[Any] = [ast.literal_eval(q) for q in re.findall(r"'[^']*'", rest)]
    if not values:  # bare: one of cohen, alpha, iota / 1,1, 2,1, 3,1
        values = [v.strip(" .") for v in rest.split(", ")
                  if re.fullmatch(r"[\w,]+", v.strip(" ."))]
    return [Suggestion("key", f"{head.group(1)}={v!r}", key=head.group(1), value=v)
            for v in values]


def suggestions(message: str) -> list[Suggestion]:
    """Every suggestion written in ``message``.

    Calls are ``name(args)`` (``.xrr(k=v)`` gives its keywords as "key" suggestions);
    ``(s)`` of plurals, the repr of a numpy scalar (``np.int64(1)``: a value shown),
    bare parentheses holding ``key=value`` pairs (a location such as ``(item=0,
    rater='a')``) and prose in parentheses are not calls. An assignment ``df[col] =
    ...`` is a recipe ("call" of name ``=``); ``key=v with other=w`` and ``key=/other=``
    are one suggestion;
    ``key=`` beside ``key=value`` (``ci= (e.g. ci=0.95)``) is that value; a message
    opening on ``key=value; use one of ...`` suggests each value listed.
    """
    out: list[Suggestion] = []
    drops = [m.span(1) for m in _DROP.finditer(message)]
    rest = message  # the spans read, blanked before keywords are read
    for m in _ASSIGN.finditer(message):
        end = _expression_end(message, m.end())
        out.append(Suggestion("call", message[m.start():end], name="="))
        rest = _blank(rest, m.start(), end)
    for m in _PANDAS.finditer(rest):  # df[col].astype(str), pd.to_numeric, df.xrr.irr()
        if rest[m.start()] == " ":  # inside one read already
            continue
        end = _chain_end(rest, m.end())
        text = rest[m.start():end]
        rest = _blank(rest, m.start(), end)
        if _SCALAR.fullmatch(text.split("(")[0]):  # np.int64(1): a value shown
            continue
        own = re.fullmatch(r"(?:df|ddf)\.xrr\.(\w+)\((.*)\)", text)
        out.append(Suggestion("call", text, name=own.group(1) if own else text.split("(")[0],
                              args=own.group(2) if own else ""))
    for m in _CALL.finditer(rest):
        if rest[m.start()] == " ":
            continue
        open_ = m.end() - 1
        close = _closing(rest, open_)
        name, args = m.group(1), rest[open_ + 1:close]
        if close < 0 or args == "s" or len(name.lstrip(".")) == 1:  # p(E), D(a, b)
            continue
        if name.endswith("xrr"):  # .xrr(item='<column>'): the roles, as keywords
            _keywords(args, out)
        else:
            out.append(Suggestion("call", rest[m.start():close + 1], name=name, args=args))
        rest = _blank(rest, m.start(), close + 1)
    for m in re.finditer(r"\(([^()]*)\)", rest):  # bare parentheses: locations
        if _is_location(m.group(1)):
            rest = _blank(rest, m.start(), m.end())
    keys: list[tuple[Suggestion, int, int]] = []
    for m in _KEY.finditer(rest):
        if any(a <= m.start() < b for a, b in drops):
            out.append(Suggestion("drop", m.group(0), key=m.group(1)))
            continue
        value, end = _value(rest, m.end())
        keys.append((Suggestion("key", rest[m.start():end], key=m.group(1), value=value),
                     m.start(), end))
    merged: list[tuple[Suggestion, int, int]] = []
    for i, (s, a, b) in enumerate(keys):
        if s.placeholder and any(t.key == s.key and not t.placeholder for t, _, _ in keys[i:]):
            continue
        joint = rest[merged[-1][2]:a] if merged else ""
        if joint in (" with ", "/"):  # metric='alpha' with level=..., item=/rater=
            first, a0, _ = merged.pop()
            s = Suggestion("key", f"{first.text}{joint}{s.text}", key=first.key,
                           value=first.value, also=((s.key, s.value), *first.also))
            a = a0
        merged.append((s, a, b))
    return out + [s for s, _, _ in merged] + _alternatives(message)


def suggests_something(message: str) -> bool:
    """Whether the message writes a call or a keyword at all (``=`` or ``name(``)."""
    return bool(re.search(r"\w=|[A-Za-z_]\w*\((?!s\))", message) or _PANDAS.search(message))


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
        value, _ = _value(text, 0)
        keywords[kw.arg] = fill[kw.arg] if value is _PLACEHOLDER else value
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
        return _PLACEHOLDER
    return _PLACEHOLDER if parameter is None else parameter.default


def advice(case: Case, message: str) -> list[Suggestion]:
    """The suggestions of ``message`` less those quoting the call itself: a keyword at
    the value the call has (given, or by default), or a keyword it gave named without a
    value (unless the case fills it: "add them to categories=")."""
    def quoted(s: Suggestion) -> bool:
        if s.kind != "key":
            return False
        has = case.kw.get(s.key, _default(case, s.key))
        if s.placeholder:  # "form= selects an ICC form", unless the case fills it
            return s.key in case.kw and s.key not in case.fill
        return has is not _PLACEHOLDER and has == s.value
    return [s for s in suggestions(message) if not quoted(s)]


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
    if s.kind == "call" and library(s.name) in TRANSFORMS:  # set_cells(df): the data
        data = getattr(xa, library(s.name))(data)
        return outcome(lambda: case.run(data, {**case.kw, **extra}))
    if s.kind == "call" and (name := library(s.name)) is not None:
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
        kw.update({k: case.fill[k] if v is _PLACEHOLDER else v for k, v in s.also})
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
