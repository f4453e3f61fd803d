"""N-Triples term checks and canonical forms."""
from __future__ import annotations

import pytest
from rdflib import Literal, URIRef

from reasonlake.parse.terms import (
    GRAPH,
    OBJECT,
    PREDICATE,
    SUBJECT,
    TermError,
    iri_term,
    literal_parts,
    literal_term,
    normalize_term,
    split_statement,
)

XSD = "http://www.w3.org/2001/XMLSchema#"


def reason(text: str, position: str = OBJECT) -> str:
    with pytest.raises(TermError) as caught:
        normalize_term(text, position)
    return caught.value.reason


@pytest.mark.parametrize(
    "text",
    ["<http://example.org/a>", "<urn:isbn:123>", "<http://example.org/a#b?c=d&e=%20>", "<http://ex.org/é>"],
)
def test_absolute_iris_come_back_as_written(text):
    assert normalize_term(text, SUBJECT) == text


def test_iri_unicode_escapes_are_decoded():
    assert normalize_term("<http://example.org/\\u0041\\U00000042>", OBJECT) == "<http://example.org/AB>"


@pytest.mark.parametrize(
    "text, shown",
    [
        ("<http://example.org/a b>", "' '"),
        ('<http://example.org/a"b>', "'\"'"),
        ("<http://example.org/a{b}>", "'{'"),
        ("<http://example.org/a|b>", "'|'"),
        ("<http://example.org/a^b>", "'^'"),
        ("<http://example.org/a`b>", "'`'"),
        ("<http://example.org/a\x01b>", "'\\x01'"),
        ("<http://example.org/a\\u0020b>", "' '"),
        ("<http://example.org/a<b>", "'<'"),
    ],
)
def test_iris_with_forbidden_characters_are_rejected(text, shown):
    message = reason(text)
    assert message.startswith("bad IRI <")
    assert f"contains {shown}" in message


def test_iri_backslash_other_than_unicode_escape_is_rejected():
    assert "only \\uXXXX" in reason("<http://example.org/a\\nb>")


@pytest.mark.parametrize("text", ["<foo>", "<>", "<#frag>", "<//host/path>"])
def test_relative_iris_are_rejected(text):
    message = reason(text)
    assert message.startswith(f"bad IRI {text}: relative")
    assert "absolute IRI" in message


def test_unclosed_iri():
    assert "no closing '>'" in reason("<http://example.org/a")


def test_blank_nodes():
    assert normalize_term("_:b1", SUBJECT) == "_:b1"
    assert normalize_term("_:node-x.y_z", OBJECT) == "_:node-x.y_z"
    assert normalize_term("_:ä1", OBJECT) == "_:ä1"
    for bad in ("_:", "_:b1.", "_:a b", "_:-x"):
        assert "bad blank node" in reason(bad)


def test_plain_and_language_literals():
    assert normalize_term('"text"', OBJECT) == '"text"'
    assert normalize_term('"text"@en', OBJECT) == '"text"@en'
    # language tags are case-insensitive, so one spelling is kept
    assert normalize_term('"text"@EN-GB', OBJECT) == '"text"@en-gb'


@pytest.mark.parametrize("lexical, datatype", [
    ("05", "int"), ("1", "boolean"), ("+1.50", "decimal"),
    # ill-typed literals are legal RDF: data, not a value to guess
    ("abc", "int"), ("yes", "boolean"), ("maybe", "boolean"), ("\u0661\u0662", "integer"),
    ("1_000", "integer"), ("1e400", "double"), ("2026-11-22T10:00:00.123456789Z", "dateTime"),
])
def test_typed_literals_keep_their_lexical_form(lexical, datatype):
    written = f'"{lexical}"^^<{XSD}{datatype}>'
    assert normalize_term(written, OBJECT) == written
    assert normalize_term('"x"^^<http://example.org/dt>', OBJECT) == '"x"^^<http://example.org/dt>'


def test_xsd_string_is_the_plain_literal():
    assert normalize_term(f'"a"^^<{XSD}string>', OBJECT) == '"a"'


def test_simple_terms_match_rdflib_n3():
    assert normalize_term(f'"5"^^<{XSD}int>', OBJECT) == Literal("5", datatype=URIRef(XSD + "int")).n3()
    assert normalize_term('"text"@en', OBJECT) == Literal("text", lang="en").n3()
    assert normalize_term("<http://example.org/a>", OBJECT) == URIRef("http://example.org/a").n3()


def test_string_escapes_are_decoded_and_written_canonically():
    written = '"tab\\tquote\\"back\\\\slash\\nline\\u00E9\\U0001F600\\\'"'
    assert normalize_term(written, OBJECT) == '"tab\\tquote\\"back\\\\slash\\nlineé😀\'"'
    assert normalize_term('"\\u0001"', OBJECT) == '"\\u0001"'


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('"abc', "no closing '\"'"),
        ('"say "hi""', "unexpected text"),
        ('"a\\qb"', "bad escape '\\q'"),
        ('"\\u12"', "4 hex digits"),
        ('"\\uD800"', "not a Unicode character"),
        ('"x"@', "bad language tag"),
        ('"x"@en_GB', "bad language tag"),
        ('"x"^^xsd:int', "full IRI in angle brackets"),
        ('"x"^^<int>', "relative"),
        ('"line\nbreak"', "raw line break"),
        ('"x"^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>', "no language tag"),
    ],
)
def test_bad_literals(text, fragment):
    assert fragment in reason(text)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("rdf:type", "prefixed names are not allowed"),
        ("http://example.org/a", "angle brackets: <http://example.org/a>"),
        ("5", "not an N-Triples term"),
        ("", "empty"),
    ],
)
def test_things_that_are_not_terms(text, fragment):
    assert fragment in reason(text)


def test_positions():
    assert "literal cannot be a subject" in reason('"x"', SUBJECT)
    assert "literal cannot be a predicate" in reason('"x"', PREDICATE)
    assert "blank node cannot be a predicate" in reason("_:b", PREDICATE)
    assert "literal cannot be a graph name" in reason('"x"', GRAPH)
    assert normalize_term("_:b", SUBJECT) == "_:b"
    assert normalize_term("_:g", GRAPH) == "_:g"
    assert normalize_term('"x"', OBJECT) == '"x"'


def test_surrounding_whitespace_is_ignored():
    assert normalize_term(' "x"@en ', OBJECT) == '"x"@en'
    assert normalize_term(" <http://example.org/a> ", OBJECT) == "<http://example.org/a>"


def test_helpers_for_other_readers():
    assert iri_term("http://example.org/a") == "<http://example.org/a>"
    assert literal_term("a\nb", None, None) == '"a\\nb"'
    assert literal_term("x", "EN", None) == '"x"@en'
    assert literal_parts('"a\\nb"^^<http://example.org/dt>') == ("a\nb", None, "http://example.org/dt")
    assert literal_parts('"a"@en') == ("a", "en", None)
    assert literal_parts("<http://example.org/a>") is None


def test_split_statement():
    assert split_statement('<http://e/a> <http://e/p> "x . y"@en .') == [
        "<http://e/a>", "<http://e/p>", '"x . y"@en'
    ]
    assert split_statement("_:b1 <http://e/p> _:b2.") == ["_:b1", "<http://e/p>", "_:b2"]
    assert split_statement("<http://e/a> <http://e/p> <http://e/o> <http://e/g> . # note") == [
        "<http://e/a>", "<http://e/p>", "<http://e/o>", "<http://e/g>"
    ]
    assert split_statement("# a comment") == []
    assert split_statement("   ") == []
    with pytest.raises(TermError, match="does not end with"):
        split_statement("<http://e/a> <http://e/p> <http://e/o>")
    with pytest.raises(TermError, match="after the final"):
        split_statement("<http://e/a> <http://e/p> <http://e/o> . junk")
    with pytest.raises(TermError, match="no closing"):
        split_statement('<http://e/a> <http://e/p> "open .')


def test_a_space_ntriples_does_not_allow_is_named():
    from reasonlake.parse.terms import TermError, split_statement

    with pytest.raises(TermError, match="unexpected character U\\+3000 at column 1"):
        split_statement("\u3000")
