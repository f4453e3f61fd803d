"""What parsing a file collects: stream items, rejected rows with their reasons, and the
line helpers every reader shares (``formats`` for rows, ``rdf_formats`` for RDF)."""
from __future__ import annotations

import io
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Iterator

import polars as pl

from reasonlake import vocab
from reasonlake.parse.jsonl_columns import ITEM_SCHEMA

SKOLEM_PREFIX = "urn:reasonlake:genid:"
_TBOX_HINT = "; put axioms in the view's ontology file, not in the stream"
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
# Whether the usual JSONL rows and N-Triples lines are read as columns (``jsonl_columns``,
# ``nt_columns``); the tests that hold both readers equal turn it off.
COLUMNS = True


@dataclass(frozen=True, slots=True)
class StreamItem:
    s: str  # N-Triples syntax, blank nodes already skolemized
    p: str
    o: str
    ts: int  # epoch milliseconds
    line: int  # 1-based line of the row or triple in the file, 0 if unknown
    event: int  # 0-based index of the event (row or named graph) in the file


@dataclass(frozen=True, slots=True)
class Rejected:
    line: int  # 1-based line, 0 if unknown
    raw: str  # the offending text (the row, or the triple in N-Triples form), never empty
    reason: str  # what is wrong and how to fix it


@dataclass(frozen=True)
class ParsedFile:
    rows: list[StreamItem]  # items read one by one
    rejected: list[Rejected]
    notes: tuple[str, ...] = ()  # what was read but not kept, for the ingest's report
    table: pl.DataFrame | None = None  # items read as columns (``jsonl_columns.ITEM_SCHEMA``)

    @property
    def count(self) -> int:
        return len(self.rows) + (self.table.height if self.table is not None else 0)

    @property
    def newest(self) -> int | None:
        """The latest item time, None without items."""
        times = [i.ts for i in self.rows]
        if self.table is not None and self.table.height:
            times.append(self.table.get_column("ts").max())
        return max(times, default=None)

    def frame(self) -> pl.DataFrame:
        """Every item as columns (``jsonl_columns.ITEM_SCHEMA``), in line order."""
        rows = pl.DataFrame({name: [getattr(i, name) for i in self.rows] for name in ITEM_SCHEMA},
                            schema=ITEM_SCHEMA)
        if self.table is None or not self.table.height:
            return rows
        return pl.concat([self.table, rows]).sort("line") if self.rows else self.table

    @cached_property
    def items(self) -> list[StreamItem]:
        """Every item, in line order."""
        if self.table is None or not self.table.height:
            return self.rows
        return [StreamItem(*row) for row in self.frame().iter_rows()]


class Collector:
    """Items and rejections of one file, with the checks every format shares."""

    def __init__(self, file_key: str):
        self.items: list[StreamItem] = []
        self.rejected: list[Rejected] = []
        # fields (JSONL, with their row counts) and columns (CSV) other than s, p, o, ts
        self.unkept: dict[str, int | None] = {}
        self.table: pl.DataFrame | None = None  # items read as columns
        self._skolem = f"<{SKOLEM_PREFIX}{file_key}:"

    def reject(self, line: int, raw: str, reason: str) -> None:
        self.rejected.append(Rejected(line, raw if raw.strip() else repr(raw), reason))

    def item(self, s: str, p: str, o: str, ts: int, line: int, event: int, raw: str) -> None:
        """Add a triple of canonical terms, unless it is TBox vocabulary."""
        tbox = vocab.tbox_reason(s, p, o)
        if tbox is not None:
            self.reject(line, raw, tbox + _TBOX_HINT)
            return
        # Blank nodes are scoped to their event: the same label in two rows or two named
        # graphs names two different nodes.
        if s[0] == "_":
            s = f"{self._skolem}{event}:{s[2:]}>"
        if o[0] == "_":
            o = f"{self._skolem}{event}:{o[2:]}>"
        self.items.append(StreamItem(s, p, o, ts, line, event))


def numbered_lines(data: bytes) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each line; undecodable bytes survive as lone surrogates."""
    text = data.decode("utf-8-sig", errors="surrogateescape")
    # newline="" splits at \n, \r and \r\n only; str.splitlines would also split at
    # U+2028 and friends, which may stand unescaped inside JSON strings and literals.
    for number, line in enumerate(io.StringIO(text, newline=""), 1):
        yield number, line.rstrip("\r\n")


def not_utf8(line: str) -> bool:
    return _NOT_UTF8.search(line) is not None


def printable(line: str) -> str:
    return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


NOT_UTF8_REASON = "the line is not valid UTF-8 text; save the file as UTF-8"
