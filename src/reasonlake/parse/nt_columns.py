"""The usual N-Triples line read as columns, as ``jsonl_columns`` reads JSONL rows: a line
is taken here only when its text proves the statement reader would read it unchanged (two
absolute IRIs with no escape, then such an IRI or a literal with ``@lang`` or
``^^<datatype>``, then ``.``, with nothing else but spaces and tabs); its literal's canonical
form is the statement reader's own (``normalize_term``, once per distinct literal). Every
other line (a comment, a blank node, an escape in an IRI, anything odd) is left to the
statement reader with its line number.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reasonlake.parse.columns import IRI, tbox_rows, text_lines, with_literals

_WS = "[ \\t]*"
_IRI_TOKEN = IRI[1:-1]  # without its anchors
_LITERAL = '"(?:[^"\\\\\\r\\n]|\\\\.)*"(?:@[A-Za-z0-9\\-]*|\\^\\^<[^>\\r\\n]*>)?'
_LINE = f"^{_WS}({_IRI_TOKEN}){_WS}({_IRI_TOKEN}){_WS}({_IRI_TOKEN}|{_LITERAL}){_WS}\\.{_WS}$"


@dataclass(frozen=True)
class Split:
    triples: pl.DataFrame  # s, p, o, line (Int32), raw: the lines read here, in line order
    rest: list[tuple[int, str]]  # (line number, text) for the statement reader


def split_lines(data: bytes) -> Split | None:
    """The statements of an N-Triples file this reader takes and the lines it leaves; None
    when the file is not plain UTF-8 with \\n or \\r\\n line ends."""
    lines = text_lines(data)
    if lines is None:
        return None
    frame = pl.DataFrame({"raw": lines}, schema={"raw": pl.String}).with_row_index("index")
    parts = pl.col("raw").str.extract_groups(_LINE)
    found = frame.with_columns(parts.alias("parts")).filter(pl.col("parts").struct.field("1").is_not_null())
    triples = found.select(
        "index", pl.col("parts").struct.field("1").alias("s"), pl.col("parts").struct.field("2").alias("p"),
        pl.col("parts").struct.field("3").alias("o"), pl.col("raw").str.strip_chars(" \t").alias("raw"))
    triples = with_literals(triples, pl.col("o").str.starts_with('"')).filter(pl.col("o").is_not_null())
    triples = triples.filter(~tbox_rows(triples))  # rejected by the statement reader, with its reason
    rest_rows = frame.join(triples.select("index"), on="index", how="anti").sort("index")
    rest = list(zip((i + 1 for i in rest_rows.get_column("index").to_list()), rest_rows.get_column("raw").to_list()))
    triples = triples.select("s", "p", "o", (pl.col("index") + 1).cast(pl.Int32).alias("line"), "raw").sort("line")
    return Split(triples, rest)
