"""Turtle and TriG text cut into top-level units, so one bad statement costs only itself.

rdflib parses a whole document or nothing. When it fails, the document is cut here into its
directives (``@prefix``, ``@base``, ``PREFIX``, ``BASE``) and its statements (Turtle: up to a
final ``.``; TriG: a graph block ``{ ... }`` or a default-graph statement), each with the line
it starts on, and each statement is parsed alone after the directives seen before it.

Blank node labels are scoped to the document, so a label used in two statements must stay one
node when the statements are parsed apart: ``_:label`` is written as an IRI under
``LABEL_PREFIX`` for the parser and turned back into the same blank node after it.
"""
from __future__ import annotations

import re
from typing import NamedTuple

LABEL_PREFIX = "urn:reasonlake:label:"

_DIRECTIVE = re.compile(r"(@prefix|@base|PREFIX|BASE)\b", re.IGNORECASE)
_LABEL = re.compile(r"_:([A-Za-z0-9_\u00b7\u00c0-\ufffd][A-Za-z0-9_.\-\u00b7\u00c0-\ufffd]*)")


class Unit(NamedTuple):
    line: int  # 1-based line the unit starts on
    text: str  # as written
    directive: bool


def units(text: str, *, graphs: bool) -> list[Unit]:
    """The document's top-level units in order; text after the last complete unit is one
    more (unterminated) unit, so it is reported rather than lost."""
    found: list[Unit] = []
    i, n, line = 0, len(text), 1
    start, start_line = None, 1
    depth = 0  # brackets [ ( { open in the current unit
    while i < n:
        char = text[i]
        if start is None:
            if char.isspace():
                line += char == "\n"
                i += 1
                continue
            if char == "#":
                i = _line_end(text, i)
                continue
            start, start_line = i, line
        if char == "\n":
            line += 1
        elif char == "#":
            i = _line_end(text, i)
            continue
        elif char in "\"'":
            end = _string_end(text, i)
            if text[end - 1] == "\n" and not text.startswith(char * 3, i):
                # a short string cut by a line end: the statement is broken there, and
                # the next line starts the next one
                found.append(_unit(text, start, end - 1, start_line))
                start, depth = None, 0
                line += 1
                i = end
                continue
            line += text.count("\n", i, end)
            i = end
            continue
        elif char == "<":
            end = text.find(">", i + 1)
            if end != -1 and "\n" not in text[i:end] and " " not in text[i:end]:
                i = end + 1
                continue
        elif char in "[(":
            depth += 1
        elif char in "])":
            depth = max(depth - 1, 0)
        elif char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
            if graphs and depth == 0:
                i = _after_optional_dot(text, i + 1)
                found.append(_unit(text, start, i, start_line))
                start = None
                continue
        elif char == "." and depth == 0 and (i + 1 >= n or text[i + 1].isspace() or text[i + 1] == "#"):
            found.append(_unit(text, start, i + 1, start_line))
            start = None
        i += 1
    if start is not None and text[start:].strip():
        found.append(_unit(text, start, n, start_line))
    return found


def _unit(text: str, start: int, end: int, line: int) -> Unit:
    body = text[start:end]
    return Unit(line, body, bool(_DIRECTIVE.match(body)))


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end == -1 else end


def _string_end(text: str, i: int) -> int:
    """The index after the string literal opening at i (short or long, ' or ")."""
    quote = text[i]
    long = text.startswith(quote * 3, i)
    j = i + (3 if long else 1)
    while j < len(text):
        char = text[j]
        if char == "\\":
            j += 2
            continue
        if long and text.startswith(quote * 3, j):
            return j + 3
        if not long and (char == quote or char == "\n"):
            return j + 1
        j += 1
    return len(text)


def _after_optional_dot(text: str, i: int) -> int:
    j = i
    while j < len(text) and text[j] in " \t":
        j += 1
    return j + 1 if j < len(text) and text[j] == "." else i


def labels_as_iris(text: str) -> str:
    """``_:label`` outside strings and IRIs written as ``<LABEL_PREFIX label>``."""
    out, i, n = [], 0, len(text)
    while i < n:
        char = text[i]
        if char in "\"'":
            end = _string_end(text, i)
            out.append(text[i:end])
            i = end
        elif char == "<":
            end = text.find(">", i + 1)
            end = n if end == -1 else end + 1
            out.append(text[i:end])
            i = end
        elif char == "#":
            end = _line_end(text, i)
            out.append(text[i:end])
            i = end
        elif char == "_" and text.startswith("_:", i):
            match = _LABEL.match(text, i)
            if match is None:
                out.append(char)
                i += 1
                continue
            label = match.group(1).rstrip(".")
            out.append(f"<{LABEL_PREFIX}{label}>")
            i += 2 + len(label)
        else:
            out.append(char)
            i += 1
    return "".join(out)
