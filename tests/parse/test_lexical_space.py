"""The lexical spaces behind dt-not-type: well-typed and ill-typed forms of every checked
datatype, as XSD 1.1 (and OWL 2 for its own datatypes) writes them."""
from __future__ import annotations

import pytest

from reasonlake.parse.lexical_space import CHECKS, ill_typed, in_lexical_space
from reasonlake.vocab import OWL, RDF, XSD

# datatype (local name; rdf: and owl: ones prefixed) -> (well-typed forms, ill-typed forms)
TABLE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "integer": (("0", "-0", "+42", "0042", "123456789012345678901234567890"),
                ("", "1_000", "42.0", "1e3", " 1", "١٢", "+", "--1", "0x1F")),
    "long": (("9223372036854775807", "-9223372036854775808", "007"),
             ("9223372036854775808", "-9223372036854775809", "1.0")),
    "int": (("2147483647", "-2147483648"), ("2147483648", "-2147483649")),
    "short": (("32767", "-32768"), ("32768", "-32769")),
    "byte": (("127", "-128", "+0"), ("128", "-129", "300")),
    "nonNegativeInteger": (("0", "-0", "+7", "99999999999999999999999"), ("-1", "1.5")),
    "positiveInteger": (("1", "+0001"), ("0", "-0", "-1")),
    "nonPositiveInteger": (("0", "+0", "-99999999999999999999999"), ("1", "+1")),
    "negativeInteger": (("-1", "-0001"), ("0", "-0", "1")),
    "unsignedLong": (("18446744073709551615", "0"), ("18446744073709551616", "-1")),
    "unsignedInt": (("4294967295",), ("4294967296", "-1")),
    "unsignedShort": (("65535",), ("65536", "-1")),
    "unsignedByte": (("255", "-0"), ("256", "-1")),
    "decimal": (("1", "-1.5", "+.5", "5.", "0042.100"), ("0.3141E+1", ".", "1,5", "", "INF", "1.2.3")),
    # XSD 1.1 rounds numerals beyond the finite range to ±INF and tiny ones to ±0
    "double": (("1e400", "1.0E+310", "1.0E-330", "-0", "INF", "+INF", "-INF", "NaN", ".5e-3", "5.E2"),
               ("inf", "nan", "1e", "e5", "1.0d", "0x1p3", "", " 1", "1_0")),
    "float": (("1.0E+40", "1.0E-50", "3.4028235E38", "-INF"), ("Infinity", "1.2.3", "1E+")),
    "boolean": (("true", "false", "1", "0"), ("yes", "True", "FALSE", "nonsense", "", " true")),
    "string": (("", "any text", "tab\tand newline\n"), ("\x00", "\x1b[0m", "\ufffe")),
    "normalizedString": (("a  b", " x ", ""), ("a\tb", "a\nb", "a\rb")),
    "token": (("abc 123", "a"), (" abc  123 ", " a", "a ", "a  b", "a\tb")),
    "language": (("en", "en-GB", "zh-Hant-TW", "x-private1"), ("en-", "", "123", "toolongtag", "en_GB")),
    "Name": (("tag", "ex:tag", "_x", "a.b-c", "été"), (".tag", "1a", "a b", "", "-a")),
    "NCName": (("tag", "_x1", "a.b"), ("ex:tag", ".tag", "1a", "")),
    "NMTOKEN": (("1a", ".tag", "a:b"), (" a b ", "a b", "")),
    "dateTime": (("2009-04-21T12:30:15", "2009-04-21T12:30:15.123456789Z", "2024-02-29T00:00:00+14:00",
                  "-0044-03-15T12:00:00Z", "2000-02-29T24:00:00", "12345-01-01T00:00:00-05:30"),
                 ("2009-04-21", "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00",
                  "2026-04-31T00:00:00Z", "2026-01-01T24:00:01Z", "2026-01-01T10:00:00+15:00",
                  "026-01-01T00:00:00", "2026-01-01 00:00:00", "2026-01-01T10:00Z")),
    "dateTimeStamp": (("2009-04-21T12:30:15Z", "2009-04-21T12:30:15-03:00"), ("2009-04-21T12:30:15",)),
    "anyURI": (("http://example.org/a?b#c", "relative/path", "", "#frag", "urn:x:y", "a%20b"),
               (":abc", "1ab:c", "a b", "http://e/<x>", "50%")),
    "hexBinary": (("", "0F", "deadBEEF"), ("0", "0G", "ABC")),
    "base64Binary": (("", "YQ==", "YWI=", "YWJj", "YW Jj", "Y W J j"), ("T(1)d#M-I.D:I,g!", "YQ=", "Y", "YR==", "YWJj ")),
    "rdf:PlainLiteral": (("abc@", "abc@en", "a@b@en-GB", "@"), ("abc", "abc@12", "abc@en-")),
    "rdf:XMLLiteral": (("", "text", "<a>b</a>", "<a x='1'/>tail"), ("<illformed", "<a>", "</a>", "a & b")),
    "owl:rational": (("1/3", "-4/2", "0/7"), ("1/0", "1.5", "1/-3", "1")),
    "owl:real": ((), ("1", "1/3")),
}


def _iri(name: str) -> str:
    prefix, _, local = name.rpartition(":")
    return {"": XSD, "rdf": RDF, "owl": OWL}[prefix] + local


CASES = [(lexical, name, True) for name, (good, _) in TABLE.items() for lexical in good] + [
    (lexical, name, False) for name, (_, bad) in TABLE.items() for lexical in bad]


def test_the_table_covers_every_checked_datatype_both_ways():
    assert {_iri(name) for name in TABLE} == set(CHECKS)
    assert all(bad for _, bad in TABLE.values()), "a datatype without an ill-typed form"
    assert len(CASES) > 200


@pytest.mark.parametrize(("lexical", "name", "valid"), CASES)
def test_lexical_space(lexical, name, valid):
    assert in_lexical_space(lexical, _iri(name)) is valid


def test_unknown_datatypes_and_untyped_terms_are_never_ill_typed():
    assert in_lexical_space("yes", "http://example.org/Answer") is None
    assert in_lexical_space("2026-13-01", XSD + "date") is None  # not an OWL 2 RL datatype
    assert not ill_typed('"yes"^^<http://example.org/Answer>')
    assert not ill_typed('"yes"') and not ill_typed('"yes"@en') and not ill_typed("<http://e/x>")


def test_ill_typed_reads_the_term_as_written():
    assert ill_typed(f'"yes"^^<{XSD}boolean>')
    assert not ill_typed(f'"true"^^<{XSD}boolean>')
    assert ill_typed(f'" a\\tb"^^<{XSD}normalizedString>')  # the escape is a tab
    assert not ill_typed(f'"say \\"hi\\""^^<{XSD}token>')
