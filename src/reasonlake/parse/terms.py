"""Single RDF terms in N-Triples syntax: check them and return one canonical spelling.

Every term inside reasonlake is a string in N-Triples syntax, so two spellings of the same
term (``\\u0041`` and ``A``, ``"a"^^xsd:string`` and ``"a"``) must become one string
before they are hashed into ids. The canonical form is canonical N-Triples:

* IRIs ``<...>`` with ``\\u`` escapes decoded;
* literals with only ``"``, ``\\`` and control characters escaped, language tags in lower
  case, ``^^xsd:string`` dropped (RDF 1.1 makes it the same term as a plain literal) and the
  lexical form exactly as written (``"05"^^xsd:int`` stays ``"05"``: a store returns the
  form it was given, see ``parse/lexical.py``);
* blank nodes ``_:label`` unchanged (the caller skolemizes them).
"""
from __future__ import annotations

import re
from functools import lru_cache

from reasonlake.errors import TermError
from reasonlake.vocab import RDF, XSD

SUBJECT = "subject"
PREDICATE = "predicate"
OBJECT = "object"
GRAPH = "graph"
POSITIONS = (SUBJECT, PREDICATE, OBJECT, GRAPH)

XSD_STRING = XSD + "string"
RDF_LANGSTRING = RDF + "langString"
TERM_HELP = (
    "write IRIs as <http://example.org/x>, literals as \"text\", \"text\"@en or "
    "\"5\"^^<http://www.w3.org/2001/XMLSchema#integer>, blank nodes as _:b1"
)




# The common case, an absolute IRI with no escapes, is accepted by one regex and returned
# as written; everything else goes through the slower checks below.
_IRI_BAD = '\\x00-\\x20<>"{}|^`\\\\\\x7f-\\x9f\\ud800-\\udfff'
_FAST_IRI = re.compile(f"<[A-Za-z][A-Za-z0-9+.\\-]*:[^{_IRI_BAD}]*>")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_IRI_BAD_CHAR = re.compile(f"[{_IRI_BAD}]")
_UCHAR_ONLY = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.|$))", re.S)
_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))", re.S)
_ECHAR = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}
_SURROGATE = re.compile("[\ud800-\udfff]")

_LITERAL_BODY = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)
_LANG = re.compile(r"[A-Za-z]+(?:-[A-Za-z0-9]+)*")

_PN_CHARS_BASE = (
    "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_PN_CHARS_U = _PN_CHARS_BASE + "_:"
_PN_CHARS = _PN_CHARS_U + "\\-0-9\u00b7\u0300-\u036f\u203f-\u2040"
_BNODE_PATTERN = f"_:[{_PN_CHARS_U}0-9](?:[{_PN_CHARS}.]*[{_PN_CHARS}])?"
_BNODE = re.compile(_BNODE_PATTERN)

_NEEDS_ESCAPE = re.compile('[\\x00-\\x1f"\\\\\\x7f]')
_ESCAPE_OUT = {"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r", '"': '\\"', "\\": "\\\\"}

# Tokens of one N-Triples / N-Quads statement. They are deliberately loose (an IRI token
# runs to the next '>') so that the term checks, not the tokenizer, explain what is wrong.
_TOKEN_IRI = re.compile(r"<[^>\r\n]*>")
_TOKEN_LITERAL = re.compile(
    r'"(?:[^"\\\r\n]|\\.)*"(?:@[A-Za-z0-9\-]*|\^\^(?:<[^>\r\n]*>|[^\s<>".]*))?'
)
_TOKEN_LOOSE_BNODE = re.compile(r'_:[^\s<>"]*')
_TOKEN_OTHER = re.compile(r"[^\s]+")
_SPACE = re.compile(r"[ \t]*")


def _show(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def normalize_term(text: str, position: str) -> str:
    """The canonical N-Triples form of ``text``; raises TermError with the reason if bad.

    ``position`` is one of SUBJECT, PREDICATE, OBJECT, GRAPH: subjects and graph names
    must be IRIs or blank nodes, predicates IRIs, objects anything.
    """
    if _FAST_IRI.fullmatch(text):
        return text
    term = _canonical(text.strip())
    check_position(term, position)
    return term


def check_position(term: str, position: str) -> None:
    """Raise TermError if the canonical ``term`` may not stand at ``position``."""
    first = term[:1]
    if first == "<" or position == OBJECT:
        return
    kind = "a literal" if first == '"' else "a blank node"
    if position == PREDICATE:
        raise TermError(f"{kind} cannot be a predicate; predicates are IRIs such as <http://example.org/p>")
    if position not in (SUBJECT, GRAPH):
        raise ValueError(f"unknown term position {position!r}")
    if first == '"':
        what = "graph name" if position == GRAPH else position
        raise TermError(f"{kind} cannot be a {what}; a {what} is an IRI <...> or a blank node _:label")


@lru_cache(maxsize=1 << 16)
def _canonical(text: str) -> str:
    # Cached because literals and predicates repeat a lot across rows; failures raise and
    # so are never cached.
    if not text:
        raise TermError(f"empty; {TERM_HELP}")
    first = text[0]
    if first == "<":
        if not text.endswith(">") or len(text) < 2:
            raise TermError(f"IRI {_show(text)} has no closing '>'")
        return iri_term(text[1:-1], written=text)
    if first == '"':
        return _literal_text(text)
    if first == "_":
        if _BNODE.fullmatch(text):
            return text
        raise TermError(
            f"bad blank node {_show(text)}: write _: then letters, digits, '_', '-' or '.' "
            "(not at the end), such as _:b1"
        )
    if _SCHEME.match(text) and " " not in text:
        if "//" in text or text.lower().startswith("urn:"):
            raise TermError(f"{_show(text)!r} is not an N-Triples term; IRIs need angle brackets: <{_show(text)}>")
        raise TermError(
            f"{_show(text)!r} is not an N-Triples term; prefixed names are not allowed, write the full "
            "IRI in angle brackets such as <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
        )
    raise TermError(f"{_show(text)!r} is not an N-Triples term; {TERM_HELP}")


def iri_term(value: str, *, written: str | None = None) -> str:
    """``<value>`` after checking ``value`` (the IRI without brackets, \\u escapes allowed)."""
    shown = written if written is not None else f"<{value}>"
    if "\\" in value:
        value = _UCHAR_ONLY.sub(lambda m: _decode_iri_escape(m, shown), value)
    bad = _IRI_BAD_CHAR.search(value)
    if bad:
        raise TermError(f"bad IRI {_show(shown)}: contains {bad.group()!r}; percent-encode it or remove it")
    if not _SCHEME.match(value):
        raise TermError(
            f"bad IRI {_show(shown)}: relative (no scheme); write an absolute IRI such as "
            "<http://example.org/x>"
        )
    return f"<{value}>"


def _decode_iri_escape(match: re.Match[str], shown: str) -> str:
    short, long, other = match.groups()
    if other is not None:
        raise TermError(
            f"bad IRI {_show(shown)}: contains '\\'; only \\uXXXX and \\UXXXXXXXX escapes are allowed in IRIs"
        )
    return _code_point(short or long, shown)


def _code_point(hex_digits: str, shown: str) -> str:
    point = int(hex_digits, 16)
    if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
        raise TermError(f"{_show(shown)}: escape for U+{hex_digits.upper()} is not a Unicode character")
    return chr(point)


def _literal_text(text: str) -> str:
    body = _LITERAL_BODY.match(text)
    if not body:
        raise TermError(f"literal {_show(text)} has no closing '\"'")
    rest = text[body.end():]
    lang = datatype = None
    if rest.startswith("@"):
        lang = rest[1:]
        if not _LANG.fullmatch(lang):
            raise TermError(f"literal {_show(text)}: bad language tag {lang!r}; write a tag such as @en or @en-GB")
    elif rest.startswith("^^"):
        dt = rest[2:]
        if not (dt.startswith("<") and dt.endswith(">") and len(dt) > 1):
            raise TermError(
                f"literal {_show(text)}: the datatype must be a full IRI in angle brackets, "
                "such as ^^<http://www.w3.org/2001/XMLSchema#integer>"
            )
        datatype = iri_term(dt[1:-1], written=dt)[1:-1]
    elif rest:
        raise TermError(
            f"literal {_show(text)}: unexpected text {_show(rest, 30)!r} after the closing quote; "
            "escape quotes inside a literal as \\\" and put only @lang or ^^<datatype> after it"
        )
    raw = body.group(1)
    if "\n" in raw or "\r" in raw:
        raise TermError(f"literal {_show(text)} contains a raw line break; write it as \\n")
    lexical = _unescape(raw, text) if "\\" in raw else raw
    if _SURROGATE.search(lexical):
        raise TermError(f"literal {_show(text)} contains a lone surrogate; it is not valid Unicode text")
    return literal_term(lexical, lang, datatype)


def _unescape(raw: str, shown: str) -> str:
    def one(match: re.Match[str]) -> str:
        short, long, char = match.groups()
        if char is None:
            return _code_point(short or long, shown)
        if char in _ECHAR:
            return _ECHAR[char]
        if char in "uU":
            raise TermError(f"literal {_show(shown)}: \\u needs 4 hex digits and \\U needs 8")
        raise TermError(
            f"literal {_show(shown)}: bad escape '\\{char}'; allowed are \\t \\b \\n \\r \\f \\\" \\' \\\\ "
            "and \\uXXXX"
        )

    return _ESCAPE.sub(one, raw)


def literal_term(lexical: str, language: str | None = None, datatype: str | None = None) -> str:
    """The canonical N-Triples literal for an unescaped lexical form, language and datatype IRI."""
    if language:
        return _quote(lexical) + "@" + language.lower()
    if datatype is None or datatype == XSD_STRING:
        return _quote(lexical)
    if datatype == RDF_LANGSTRING:
        raise TermError(f"literal {_show(_quote(lexical))} has datatype rdf:langString but no language tag; write \"...\"@en")
    # The lexical form is kept as written: "05"^^xsd:int and "5"^^xsd:int are two terms
    # with one value, and an ill-typed "yes"^^xsd:boolean is data (parse/lexical.py).
    return f"{_quote(lexical)}^^<{datatype}>"


def _quote(lexical: str) -> str:
    if not _NEEDS_ESCAPE.search(lexical):
        return f'"{lexical}"'
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, lexical) + '"'


def _escape_char(match: re.Match[str]) -> str:
    char = match.group()
    return _ESCAPE_OUT.get(char) or f"\\u{ord(char):04X}"


def literal_parts(term: str) -> tuple[str, str | None, str | None] | None:
    """(lexical form, language, datatype IRI) of a canonical literal, or None if not a literal."""
    if not term.startswith('"'):
        return None
    body = _LITERAL_BODY.match(term)
    if not body:
        return None
    raw, rest = body.group(1), term[body.end():]
    lexical = _unescape(raw, term) if "\\" in raw else raw
    if rest.startswith("@"):
        return lexical, rest[1:], None
    if rest.startswith("^^<"):
        return lexical, None, rest[3:-1]
    return lexical, None, None


def split_statement(line: str) -> list[str]:
    """The raw term tokens of one N-Triples or N-Quads line, [] for a blank or comment line.

    Raises TermError if the line is not terms followed by ' .'. The tokens still need
    ``normalize_term``; this only finds where each one starts and ends.
    """
    tokens: list[str] = []
    i, end = 0, len(line)
    while True:
        i = _SPACE.match(line, i).end()
        if i >= end:
            if tokens:
                raise TermError("the statement does not end with ' .'")
            return tokens
        char = line[i]
        if char == "#" and not tokens:
            return tokens
        if char == ".":
            rest = line[i + 1:].strip()
            if rest and not rest.startswith("#"):
                raise TermError(f"unexpected text {_show(rest, 30)!r} after the final ' .'")
            if not tokens:
                raise TermError("a lone '.' is not a statement")
            return tokens
        if char == "<":
            match = _TOKEN_IRI.match(line, i)
            if not match:
                raise TermError(f"IRI {_show(line[i:], 40)} has no closing '>'")
        elif char == '"':
            match = _TOKEN_LITERAL.match(line, i)
            if not match:
                raise TermError(f"literal {_show(line[i:], 40)} has no closing '\"'")
        elif char == "_":
            match = _BNODE.match(line, i) or _TOKEN_LOOSE_BNODE.match(line, i)
        else:
            match = _TOKEN_OTHER.match(line, i)
            if not match:  # a space N-Triples does not allow (U+3000, U+00A0, ...)
                raise TermError(f"unexpected character U+{ord(char):04X} at column {i + 1}; terms are "
                                "separated by spaces or tabs")
        tokens.append(match.group())
        i = match.end()
