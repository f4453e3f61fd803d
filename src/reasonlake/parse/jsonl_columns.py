"""The usual JSONL row read as columns: a file of 200k rows costs 0.44 s instead of the 2 s
the row-by-row reader takes (decision 0016).

A row is taken here only when its text proves it is what the row reader would accept
unchanged: one flat object whose members are exactly ``s``, ``p``, ``o`` and ``ts``, each
once; ``s``, ``p`` strings holding an absolute IRI with no escape (the row reader
returns such an IRI as written), ``o`` such an IRI or a literal whose only JSON escape is
``\\"`` (its canonical form is the row reader's, computed once per distinct literal);
``ts`` an integer in the years 1-9999 or a string the row reader's time parser reads; and
no TBox vocabulary. Every other line (a literal, a
blank node, an escape, a float, an extra field, anything odd) goes to the row reader with
its line number and event index, so its item or its rejection is the row reader's own:
the two readers give the same items and rejections by construction, and
``tests/parse/test_jsonl_columns.py`` holds them equal on generated files.
"""
from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from reasonlake.plan.durations import MAX_TIME_MS, MIN_TIME_MS, parse_time
from reasonlake.parse.columns import IRI, map_distinct, tbox_rows, text_lines, with_literals

# JSON's own whitespace (the row reader's json.loads allows no other between tokens).
_WS = "[ \\t]*"
# A JSON string without escapes, quotes or control characters (json.loads rejects raw
# control characters), and a JSON integer (no leading zero, at most 16 digits: the years
# 1-9999 in epoch milliseconds take 15).
_STRING = '"(?:[^"\\\\\\x00-\\x1f]|\\\\")*"'
_INTEGER = "-?(?:0|[1-9][0-9]{0,15})"
_VALUE = f"(?:{_STRING}|{_INTEGER})"
_MEMBER = f'"(?:s|p|o|ts)"{_WS}:{_WS}{_VALUE}'
_ROW = f"^{_WS}\\{{{_WS}{_MEMBER}{_WS}(?:,{_WS}{_MEMBER}{_WS}){{3}}\\}}{_WS}$"
# The members in the usual order (s, p, o, ts), matched and captured by one expression: a
# row of that shape is a row of ``_ROW`` whose members ``_member`` extracts to the same
# values (a member's key follows ``{`` or ``,``, which no quote inside a string does: it is
# escaped), and one pass over the text replaces a match and four extracts (0.27 s against
# 0.4-0.5 s for 200k rows).
_ORDERED = (f"^{_WS}\\{{{_WS}" + f"{_WS},{_WS}".join(f'"{k}"{_WS}:{_WS}({_VALUE})' for k in ("s", "p", "o", "ts"))
            + f"{_WS}\\}}{_WS}$")
ITEM_SCHEMA = {"s": pl.String, "p": pl.String, "o": pl.String, "ts": pl.Int64, "line": pl.Int32,
               "event": pl.Int32}


@dataclass(frozen=True)
class Split:
    items: pl.DataFrame  # the rows read here (ITEM_SCHEMA)
    rest: list[tuple[int, str, int]]  # (line number, text, event index) for the row reader


def _member(key: str) -> pl.Expr:
    return pl.col("text").str.extract(f'[{{,]{_WS}"{key}"{_WS}:{_WS}({_VALUE})', 1)


def split_rows(data: bytes) -> Split | None:
    """The rows of a JSONL file this reader takes, and the lines it leaves to the row
    reader; None when the file as a whole is not plain UTF-8 with \\n or \\r\\n line ends
    (the row reader then reads every line)."""
    lines = text_lines(data)
    if lines is None:
        return None
    frame = pl.DataFrame({"text": lines}, schema={"text": pl.String}).with_row_index("index")
    ordered = frame.select("index", pl.col("text").str.extract_groups(_ORDERED).alias("m")).unnest("m")
    ordered = ordered.rename(dict(zip(ordered.columns[1:], ("s", "p", "o", "ts"))))
    in_order = ordered.get_column("s").is_not_null()
    values = ordered.filter(in_order)
    if not in_order.all():
        others = frame.filter(~in_order).filter(pl.col("text").str.contains(_ROW))
        # four members, each s, p, o or ts: a key given twice leaves another missing (null)
        values = pl.concat([values, others.select("index", *[_member(k).alias(k) for k in ("s", "p", "o", "ts")])])
    # a JSON string's text: the quotes off, its only escape (\\") undone
    text = {k: pl.col(k).str.slice(1, pl.col(k).str.len_chars() - 2).str.replace_all('\\"', '"', literal=True)
            for k in ("s", "p", "o")}
    strings = pl.all_horizontal([pl.col(k).str.starts_with('"') for k in ("s", "p", "o")])
    values = values.filter(strings).with_columns([text[k] for k in ("s", "p", "o")])
    values = values.filter(pl.col("s").str.contains(IRI) & pl.col("p").str.contains(IRI))
    values = _with_objects(values)
    values = _with_times(values)
    values = values.filter(pl.col("ms").is_not_null() & pl.col("o").is_not_null())
    values = values.filter(~tbox_rows(values))
    rest_rows = frame.join(values.select("index"), on="index", how="anti").sort("index")
    rest_index = rest_rows.get_column("index").to_list()
    rest_text = rest_rows.get_column("text").to_list()
    # Event indexes count the lines that are not blank; a taken line never is, and the
    # row reader decides blankness for the others (its str.strip is Python's).
    blank = {i for i, t in zip(rest_index, rest_text) if not t.strip()}
    if blank:
        event = pl.Series("event", [i not in blank for i in range(len(lines))]).cast(pl.Int32).cum_sum() - 1
    else:
        event = pl.int_range(0, len(lines), dtype=pl.Int32, eager=True)
    events = event.to_list() if rest_index else []
    rest = [(i + 1, t, events[i]) for i, t in zip(rest_index, rest_text) if i not in blank]
    items = values.select(
        "s", "p", "o", pl.col("ms").alias("ts"), (pl.col("index") + 1).cast(pl.Int32).alias("line"),
        event.gather(values.get_column("index")).alias("event"),
    ).sort("line")
    return Split(items.cast(ITEM_SCHEMA), rest)


def _with_objects(values: pl.DataFrame) -> pl.DataFrame:
    """``o`` as the row reader spells it: an IRI as written, a literal in its canonical form,
    null for what the row reader should see (a blank node, a bad term)."""
    iri = pl.col("o").str.contains(IRI)
    literal = pl.col("o").str.starts_with('"')
    values = values.with_columns(pl.when(iri | literal).then(pl.col("o")).alias("o"))
    return with_literals(values, ~iri & literal)


def _with_times(values: pl.DataFrame) -> pl.DataFrame:
    """``ms``: the row's time, or null when the row reader should see it (a string it
    cannot read, or an integer outside the years 1-9999)."""
    ts = pl.col("ts")
    is_text = ts.str.starts_with('"')
    values = values.with_columns(
        pl.when(is_text).then(None).otherwise(ts.cast(pl.Int64, strict=False)).alias("ms"))
    values = values.with_columns(
        pl.when((pl.col("ms") >= MIN_TIME_MS) & (pl.col("ms") <= MAX_TIME_MS)).then(pl.col("ms")).alias("ms"))
    parsed = map_distinct(values, "ts", is_text, lambda text: parse_time(text[1:-1], what="field 'ts'"), pl.Int64)
    return values.with_columns(pl.coalesce(pl.col("ms"), parsed).alias("ms"))
