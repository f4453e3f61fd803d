"""The lexical spaces of the OWL 2 RL datatypes: is a lexical form one of its datatype's?

OWL 2 RL's ``dt-not-type`` makes a literal ``"s"^^DT`` an inconsistency when ``s`` is not in
the lexical space of a datatype DT the profile supports. The grammars are XML Schema 1.1's
(Part 2), written as regular expressions plus the range checks a regex cannot say (the
bounds of the integer types, the days of a month). Nothing here converts or normalises a
literal: a literal is kept as written (decision 0015), this only says whether it is
well-typed. rdflib is not asked: its conversion guesses (``"yes"^^xsd:boolean`` is false).

Decisions a grammar leaves open (decision 0018):
- ``xsd:double``/``xsd:float``: XSD 1.1 rounds a numeral beyond the finite range to ±INF and
  one below the smallest subnormal to ±0, so ``"1e400"^^xsd:double`` is well-typed;
- ``xsd:anyURI``: XSD 1.1 accepts any string and leaves the IRI check to the application;
  OWL 2 takes anyURI's values to be IRIs, so a form must be an IRI reference (RFC 3987);
- ``owl:real`` has no lexical form in OWL 2 (every ``"s"^^owl:real`` is ill-typed);
- ``rdf:XMLLiteral``: well-balanced XML content (a parse of it inside one element);
- plain and language-tagged strings (``xsd:string``, ``rdf:langString``) are not checked:
  every string a parser accepts is theirs, short of the control characters XML excludes.
Datatypes outside this table (``xsd:date``, a user's own) are not checked: they are not
OWL 2 RL datatypes, and a literal of an unknown datatype is not ill-typed.
"""
from __future__ import annotations

import re
from typing import Callable
from xml.parsers import expat

from reasonlake.parse.terms import literal_parts
from reasonlake.vocab import OWL, RDF, XSD

# --- numbers -----------------------------------------------------------------------------

_INTEGER = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
# XSD 1.1 floating point: a decimal numeral with an optional exponent, or the special values
_FLOATING = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|NaN")
_RATIONAL = re.compile(r"[+-]?[0-9]+/[0-9]*[1-9][0-9]*")  # owl:rational: numerator/denominator


def _integer_within(low: int | None, high: int | None) -> Callable[[str], bool]:
    """An integer type: the integer grammar, then its value bounds (None: unbounded)."""
    def check(lexical: str) -> bool:
        if not _INTEGER.fullmatch(lexical):
            return False  # int() alone would take "1_000" and non-ASCII digits
        value = int(lexical)
        return (low is None or value >= low) and (high is None or value <= high)
    return check


# --- strings and names (XML 1.0, fifth edition) -------------------------------------------

# XML's Char: the characters a string datatype may hold
_CHARS = re.compile("[\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")
_NAME_START = (
    ":A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_NAME_CHAR = _NAME_START + "\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040"
_NAME = re.compile(f"[{_NAME_START}][{_NAME_CHAR}]*")
_NCNAME = re.compile(f"[{_NAME_START.replace(':', '')}][{_NAME_CHAR.replace(':', '')}]*")
_NMTOKEN = re.compile(f"[{_NAME_CHAR}]+")
_LANGUAGE = re.compile(r"[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*")


def _normalized(lexical: str) -> bool:
    # OWL 2 applies no whitespace normalisation: a tab or line break is outside the space
    return bool(_CHARS.fullmatch(lexical)) and not any(c in lexical for c in "\t\n\r")


def _token(lexical: str) -> bool:
    return _normalized(lexical) and not lexical.startswith(" ") and not lexical.endswith(" ") and "  " not in lexical


def _plain_literal(lexical: str) -> bool:
    """rdf:PlainLiteral: ``text@tag``, the tag empty (a plain string) or a language tag."""
    text, at, tag = lexical.rpartition("@")
    return bool(at) and bool(_CHARS.fullmatch(text)) and (tag == "" or bool(_LANGUAGE.fullmatch(tag)))


# --- date and time -----------------------------------------------------------------------

_DATE_TIME = re.compile(
    r"(-?(?:[1-9][0-9]{3,}|0[0-9]{3}))-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
    r"T(?:(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?|24:00:00(?:\.0+)?)"
    r"(Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _date_time(lexical: str, zoned: bool = False) -> bool:
    match = _DATE_TIME.fullmatch(lexical)
    if not match or (zoned and match.group(4) is None):
        return False
    year, month, day = int(match.group(1)), int(match.group(2)), int(match.group(3))
    if day > _DAYS[month - 1]:
        return False
    # February 29th needs a leap year (XSD 1.1 counts a year 0, which is one)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return not (month == 2 and day == 29 and not leap)


# --- binary, IRIs, XML -----------------------------------------------------------------------

_HEX_BINARY = re.compile(r"(?:[0-9a-fA-F]{2})*")
# XSD 1.1's Base64Binary production: quads of base64 characters, single spaces allowed
# between characters, the last quad padded by '=' with the unused bits zero
_BASE64_BINARY = re.compile(
    r"(?:(?:(?:[A-Za-z0-9+/] ?){4})*"
    r"(?:(?:[A-Za-z0-9+/] ?){3}[A-Za-z0-9+/]|(?:[A-Za-z0-9+/] ?){2}[AEIMQUYcgkosw048] ?=|[A-Za-z0-9+/] ?[AQgw] ?= ?=))?"
)
# An IRI reference (RFC 3987), as far as its characters and its scheme: characters an IRI
# never holds are out, a '%' starts two hex digits, and a reference without a scheme has no
# ':' before its first '/', '?' or '#' (that ':' would make the text before it a scheme).
_IRI_EXCLUDED = re.compile('[\x00-\x20<>"{}|\\\\^`\x7f-\x9f]|%(?![0-9A-Fa-f]{2})')
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def _any_uri(lexical: str) -> bool:
    if _IRI_EXCLUDED.search(lexical):
        return False
    if _SCHEME.match(lexical):
        return True
    first_segment = re.split(r"[/?#]", lexical, maxsplit=1)[0]
    return ":" not in first_segment


def _xml_literal(lexical: str) -> bool:
    """Well-balanced XML content: it parses as the content of one element."""
    parser = expat.ParserCreate()
    try:
        parser.Parse(f"<xml-literal>{lexical}</xml-literal>", True)
    except expat.ExpatError:
        return False
    return True


def _matches(pattern: re.Pattern[str]) -> Callable[[str], bool]:
    return lambda lexical: bool(pattern.fullmatch(lexical))


# datatype IRI -> is a lexical form in its lexical space
CHECKS: dict[str, Callable[[str], bool]] = {
    XSD + "integer": _matches(_INTEGER),
    XSD + "long": _integer_within(-(2**63), 2**63 - 1),
    XSD + "int": _integer_within(-(2**31), 2**31 - 1),
    XSD + "short": _integer_within(-(2**15), 2**15 - 1),
    XSD + "byte": _integer_within(-(2**7), 2**7 - 1),
    XSD + "nonNegativeInteger": _integer_within(0, None),
    XSD + "positiveInteger": _integer_within(1, None),
    XSD + "nonPositiveInteger": _integer_within(None, 0),
    XSD + "negativeInteger": _integer_within(None, -1),
    XSD + "unsignedLong": _integer_within(0, 2**64 - 1),
    XSD + "unsignedInt": _integer_within(0, 2**32 - 1),
    XSD + "unsignedShort": _integer_within(0, 2**16 - 1),
    XSD + "unsignedByte": _integer_within(0, 2**8 - 1),
    XSD + "decimal": _matches(_DECIMAL),
    XSD + "double": _matches(_FLOATING),
    XSD + "float": _matches(_FLOATING),
    XSD + "boolean": lambda lexical: lexical in ("true", "false", "1", "0"),
    XSD + "string": _matches(_CHARS),
    XSD + "normalizedString": _normalized,
    XSD + "token": _token,
    XSD + "language": _matches(_LANGUAGE),
    XSD + "Name": _matches(_NAME),
    XSD + "NCName": _matches(_NCNAME),
    XSD + "NMTOKEN": _matches(_NMTOKEN),
    XSD + "dateTime": _date_time,
    XSD + "dateTimeStamp": lambda lexical: _date_time(lexical, zoned=True),
    XSD + "anyURI": _any_uri,
    XSD + "hexBinary": _matches(_HEX_BINARY),
    XSD + "base64Binary": _matches(_BASE64_BINARY),
    RDF + "PlainLiteral": _plain_literal,
    RDF + "XMLLiteral": _xml_literal,
    OWL + "rational": _matches(_RATIONAL),
    OWL + "real": lambda lexical: False,  # OWL 2 gives owl:real no lexical form
}


def in_lexical_space(lexical: str, datatype: str) -> bool | None:
    """Whether ``lexical`` is in ``datatype``'s lexical space; None: a datatype not checked."""
    check = CHECKS.get(datatype)
    return None if check is None else check(lexical)


def ill_typed(term: str) -> bool:
    """Whether an N-Triples term is a literal outside its (checked) datatype's lexical space."""
    parts = literal_parts(term)
    if parts is None or parts[2] is None:
        return False
    return in_lexical_space(parts[0], parts[2]) is False


# The end of the N-Triples text of a literal of a checked datatype: what a look-up of
# literal terms keeps (a literal of any other datatype cannot be ill-typed here).
CHECKED_SUFFIXES = tuple(f'"^^<{datatype}>' for datatype in CHECKS)
