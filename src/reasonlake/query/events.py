"""EP-SPARQL's event operators and functions (Anicic et al., WWW 2011), written in the
paper's syntax and translated to SPARQL that rdflib parses (decision 0046).

``{P1} SEQ {P2}``, ``{P1} EQUALS {P2}``, ``{P1} OPTIONALSEQ {P2}`` and ``{P1}
EQUALSOPTIONAL {P2}`` stand between two group patterns, left-associative as the paper's
examples chain them; each becomes ``{ GRAPH <urn:reasonlake:event:seq> { {P1} UNION {P2}
} }``, a node rdflib keeps whole (a UNION is never merged with its neighbours, as two
adjacent groups of triples may be), and the planner reads it back as the operator
(``planner._Graph``). ``getDURATION()``, ``getSTARTTIME()`` and ``getENDTIME()`` become
calls of ``<urn:reasonlake:event:duration>`` and the like. A WHERE clause the paper writes
without its braces (``WHERE { A } SEQ { B } FILTER (...)``) is given them first.

The translation reads the text as SPARQL's tokens: strings, IRIs and comments are skipped,
so a keyword inside them is left alone.
"""
from __future__ import annotations

import re

from reasonlake.errors import SparqlError

EVENT = "urn:reasonlake:event:"
OPERATORS = ("optionalseq", "equalsoptional", "seq", "equals")
FUNCTIONS = {"getduration": "duration", "getstarttime": "start", "getendtime": "end"}

# what SPARQL text holds that braces and keywords inside must not count in: long strings,
# strings, IRIs (no space, quote or brace inside, which a less-than between terms has), comments
_SKIPPED = re.compile(r'"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
                      r'|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|<[^<>"{}|^`\\\s]*>|#[^\n]*')
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODIFIERS = {"group", "having", "order", "limit", "offset", "values"}


def translate(text: str) -> tuple[str, bool]:
    """The query in SPARQL rdflib parses, and whether it uses an event operator or function
    (then its triple patterns match timed occurrences, ``planner``)."""
    tokens = _tokens(text)
    words = {t[1].lower() for t in tokens if t[0] == "word"}
    if not words & (set(OPERATORS) | set(FUNCTIONS)):
        return text, False
    text = _functions(text)
    text = _braced_where(text)
    while True:
        tokens = _tokens(text)
        at = next((i for i, t in enumerate(tokens) if t[0] == "word" and t[1].lower() in OPERATORS), None)
        if at is None:
            return text, True
        text = _rewritten(text, tokens, at)


def _tokens(text: str) -> list[tuple[str, str, int]]:
    """(kind, text, offset) of the words, braces and parentheses outside strings, IRIs, comments."""
    out, i = [], 0
    while i < len(text):
        skipped = _SKIPPED.match(text, i)
        if skipped and (text[i] != "<" or skipped.end() - i > 2 or text[i:i + 2] == "<>"):
            i = skipped.end()
            continue
        word = _WORD.match(text, i)
        # a word, not part of a variable, a prefixed name (``seq:x``, ``ex:SEQ``) or a longer name
        if word and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "?$_:")) \
                and not text.startswith(":", word.end()):
            out.append(("word", word.group(), i))
            i = word.end()
            continue
        if text[i] in "{}()":
            out.append((text[i], text[i], i))
        i += 1
    return out


def _functions(text: str) -> str:
    pieces, last = [], 0
    tokens = _tokens(text)
    for n, (kind, word, at) in enumerate(tokens):
        name = FUNCTIONS.get(word.lower()) if kind == "word" else None
        if name is None or n + 1 >= len(tokens) or tokens[n + 1][0] != "(":
            continue
        pieces += [text[last:at], f"<{EVENT}{name}>"]
        last = at + len(word)
    return "".join(pieces) + text[last:]


def _braced_where(text: str) -> str:
    """``WHERE { A } SEQ { B } FILTER (...)`` as ``WHERE { { A } SEQ { B } FILTER (...) }``."""
    tokens = _tokens(text)
    depth, start = 0, None
    for n, (kind, word, at) in enumerate(tokens):
        if kind == "{":
            if depth == 0 and start is None and _opens_where(tokens, n):
                start = n
            depth += 1
        elif kind == "}":
            depth -= 1
            if depth == 0 and start is not None:
                following = tokens[n + 1] if n + 1 < len(tokens) else None
                if following is None or following[0] != "word" or following[1].lower() not in OPERATORS:
                    return text  # the clause is one group already
                end = next((t[2] for t in tokens[n + 1:] if t[0] == "word" and t[1].lower() in _MODIFIERS
                            and _depth_at(tokens, t[2]) == 0), len(text))
                open_at = tokens[start][2]
                return text[:open_at] + "{ " + text[open_at:end].rstrip() + " }\n" + text[end:]
    return text


def _opens_where(tokens, n: int) -> bool:
    """Whether the brace at ``tokens[n]`` opens the query's WHERE clause (after WHERE, or
    the first group of a SELECT or ASK written without it)."""
    before = [t[1].lower() for t in tokens[:n] if t[0] == "word"]
    if before and before[-1] == "where":
        return True
    return "where" not in before and any(w in ("select", "ask") for w in before) and "construct" not in before


def _depth_at(tokens, offset: int) -> int:
    depth = 0
    for kind, _, at in tokens:
        if at >= offset:
            break
        depth += {"{": 1, "}": -1}.get(kind, 0)
    return depth


def _rewritten(text: str, tokens, at: int) -> str:
    operator = tokens[at][1]
    if at == 0 or tokens[at - 1][0] != "}" or at + 1 >= len(tokens) or tokens[at + 1][0] != "{":
        raise SparqlError(f"{operator.upper()} stands between two group patterns: {{ ... }} "
                          f"{operator.upper()} {{ ... }} (EP-SPARQL)")
    depth, left = 0, None
    for n in range(at - 1, -1, -1):
        depth += {"}": 1, "{": -1}.get(tokens[n][0], 0)
        if depth == 0:
            left = n
            break
    depth, right = 0, None
    for n in range(at + 1, len(tokens)):
        depth += {"{": 1, "}": -1}.get(tokens[n][0], 0)
        if depth == 0:
            right = n
            break
    if left is None or right is None:
        raise SparqlError(f"the group patterns around {operator.upper()} are not closed")
    start, end = tokens[left][2], tokens[right][2] + 1
    first = text[start:tokens[at - 1][2] + 1]
    second = text[tokens[at + 1][2]:end]
    made = f"{{ GRAPH <{EVENT}{operator.lower()}> {{ {first} UNION {second} }} }}"
    return text[:start] + made + text[end:]
