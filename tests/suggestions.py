"""The parser behind tests/test_suggestions_work.py (issue 34: every suggestion in a
message works).

A message's suggestions are read by :func:`suggestions`: calls written ``name(...)``
(``agreement_table(data, weights='linear')``, ``.xrr(item='<column>')``), pandas recipes
(``df.drop_duplicates(subset=[...])``, ``df[col] = ...``), keywords written
``key=value`` (``use level='interval'``), keywords to take out (``not with level=``,
``leave level= and weights= out``, ``Drop rank=``) and values listed for the keyword
the call gave (``sort_by='x'; use one of [...]``). ``suggestion_runner.follow`` runs
each on the data of the call that raised it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

_CALL = re.compile(r"(?<![\w\]\)])(\.?(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\(")
#: The start of a pandas or numpy expression (a recipe written in the message).
_PANDAS = re.compile(r"(?<![\w.])(?:df|ddf|pd|np)(?=[.\[])")
_KEY = re.compile(r"(?<![\w.'\"])([a-z_][a-z0-9_]*)=")
_DROP = re.compile(r"\b(?:not|[Ll]eave|[Dd]rop|without)\s+(?:with\s+)?"
                   r"((?:[a-z_]\w*=(?:\s+and\s+|,\s*|\s+or\s+)?)+)")
_ASSIGN = re.compile(r"(?<![\w.])(?:df|ddf)(?=[\[.])")
_SCALAR = re.compile(r"np\.(?:u?int|float|bool|str|complex)\w*")
PLACEHOLDER = object()


@dataclass(frozen=True)
class Suggestion:
    """One suggestion: ``kind`` "key" (``key=value``; value ``PLACEHOLDER`` when the
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
        return self.value is PLACEHOLDER


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


def value_at(text: str, start: int) -> tuple[Any, int]:
    """The literal written at ``text[start:]`` and where it ends; ``PLACEHOLDER`` for a
    value left to the user (nothing, ``'<column>'``, ``...``, ``[...]``)."""
    rest = text[start:]
    if not rest or rest[0] in " ,.;)":
        return PLACEHOLDER, start
    if rest[0] in "'\"[{(":
        end = rest.index(rest[0], 1) if rest[0] in "'\"" else _closing(rest, 0)
        if end < 0:
            return PLACEHOLDER, len(text)
        source = rest[:end + 1]
    else:
        source = re.match(r"[\w.+-]*", rest).group(0).rstrip(".")  # type: ignore[union-attr]
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError):
        value = PLACEHOLDER
    if value is Ellipsis or (isinstance(value, str) and value.startswith("<")) or (
            isinstance(value, list | tuple) and Ellipsis in value):
        value = PLACEHOLDER
    return value, start + len(source)


def _keywords(text: str, out: list[Suggestion]) -> None:
    for m in _KEY.finditer(text):
        value, end = value_at(text, m.end())
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
    for m in _ASSIGN.finditer(message):  # df[col] = ..., df[['a', 'b']] = ...
        target = _chain_end(message, m.end())
        if message[target:target + 3] != " = ":
            continue
        end = _expression_end(message, target + 3)
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
        value, end = value_at(rest, m.end())
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
