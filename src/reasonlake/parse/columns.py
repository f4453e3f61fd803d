"""What the columnar readers (``jsonl_columns``, ``nt_columns``) share: a file's lines, the
row reader's fast IRI, literals in their canonical form, and TBox vocabulary."""
from __future__ import annotations

import polars as pl

from reasonlake import vocab
from reasonlake.errors import ReasonlakeError
from reasonlake.parse.terms import OBJECT, TermError, normalize_term

# The row reader's fast IRI (parse.terms._FAST_IRI); surrogates cannot occur in valid UTF-8.
IRI = '^<[A-Za-z][A-Za-z0-9+.\\-]*:[^\\x00-\\x20<>"{}|^`\\\\\\x7f-\\x9f]*>$'


def text_lines(data: bytes) -> list[str] | None:
    """The file's lines without their ends; None unless it is UTF-8 (a BOM allowed) ending
    its lines with \\n or \\r\\n (the row readers also end a line at a lone \\r)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if "\r" in text:
        if text.count("\r") != text.count("\r\n"):
            return None
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def map_distinct(frame: pl.DataFrame, column: str, where: pl.Expr, convert, dtype) -> pl.Series:
    """``convert`` of ``column`` where ``where`` holds, called once per distinct value (null
    where it refuses the value, or where ``where`` does not hold): the row reader's own
    conversion, paid per distinct value, not per row."""
    done = {}
    for text in frame.filter(where).get_column(column).unique().to_list():
        try:
            done[text] = convert(text)
        except (TermError, ReasonlakeError):  # the row reader rejects it, with its reason
            pass
    known = pl.DataFrame({column: list(done), "_mapped": list(done.values())},
                         schema={column: pl.String, "_mapped": dtype})
    joined = frame.select(column, where.alias("_where")).join(known, on=column, how="left", maintain_order="left")
    return joined.select(pl.when(pl.col("_where")).then(pl.col("_mapped"))).to_series()


def with_literals(frame: pl.DataFrame, literal: pl.Expr) -> pl.DataFrame:
    """``o`` where ``literal`` holds replaced by its canonical form (``normalize_term``), or
    null when the row reader rejects it."""
    canonical = map_distinct(frame, "o", literal, lambda text: normalize_term(text, OBJECT), pl.String)
    return frame.with_columns(pl.when(literal).then(canonical).otherwise(pl.col("o")).alias("o"))


def tbox_rows(values: pl.DataFrame) -> pl.Expr:
    """Rows the row readers reject as TBox vocabulary (``vocab.tbox_reason``), decided once
    per predicate, and per class for rdf:type rows."""
    predicates = [p for p in values.get_column("p").unique().to_list()
                  if p != vocab.TYPE and vocab.tbox_reason("", p, "") is not None]
    types = values.filter(pl.col("p") == vocab.TYPE).get_column("o").unique().to_list()
    classes = [o for o in types if vocab.tbox_reason("", vocab.TYPE, o) is not None]
    return pl.col("p").is_in(predicates) | ((pl.col("p") == vocab.TYPE) & pl.col("o").is_in(classes))
