"""The query dialect's literal parser (``query.terms.literal_parts``: the lexical form as
written, the language tag, the datatype, read by every FILTER on a literal's value) takes
apart what the view writes (``parse.terms.literal_term``) into what was written, for
lexical forms that hold what could end a literal early: quotes, backslashes, ``"^^<``,
``"@en``, line breaks, control characters and characters beyond ASCII."""
from __future__ import annotations

import random

import polars as pl

from reasonlake.parse.terms import literal_term
from reasonlake.query import terms as T

PIECES = ['"', "\\", '"^^<http://x>', '"@en', "\n", "\r\t", "\x01", "é", "語", "^^<", "@", ">", "a", "1", " ", ""]
TAGS = [None, "en", "en-US", "x-1"]
TYPES = [None, T.XSD_INTEGER, T.XSD_STRING, T.XSD_DOUBLE, "http://ex/t#x"]


def _drawn(rng: random.Random) -> tuple[str, str | None, str | None]:
    lexical = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6)))
    language = rng.choice(TAGS)
    return lexical, language, None if language else rng.choice(TYPES)


def test_literal_parts_give_back_what_was_written():
    rng = random.Random(47)
    drawn = [_drawn(rng) for _ in range(2000)]
    terms = [literal_term(*d) for d in drawn] + ["<http://ex/a>", "_:b1", None]
    got = pl.DataFrame({"t": terms}).select(
        T.lexical(pl.col("t")).alias("lexical"), T.literal_parts(pl.col("t")).struct.field("2").alias("language"),
        T.literal_parts(pl.col("t")).struct.field("3").alias("datatype")).rows()
    # a tag is written in lower case, xsd:string as a simple literal (RDF 1.1: they are one)
    expected = [(lexical, language and language.lower(), None if datatype == T.XSD_STRING else datatype)
                for lexical, language, datatype in drawn]
    assert [(lex, lang, None if dt == T.XSD_STRING else dt) for lex, lang, dt in got[:-3]] == expected
    assert got[-3:] == [(None, None, None)] * 3
    assert any('"' in d[0] for d in drawn) and any(d[1] for d in drawn) and any(d[2] for d in drawn)
