"""Input files turned into stream items; every row that cannot be one is kept as a rejection.

One entry point, ``parse_file``, picks the reader by file suffix:

* ``.jsonl`` and ``.csv``: one row is one event, fields ``s, p, o, ts``;
* ``.nq`` and ``.trig``: one named graph is one event, timed by
  ``<g> prov:generatedAtTime "..."`` in the default graph (RSP-QL style);
* ``.nt`` and ``.ttl``: the whole file is one event at the time the caller passes.

Nothing a user gave is dropped silently: a bad row, a bad triple, a graph without a time
or a file rdflib cannot read all come back as ``Rejected`` with the text and the fix.
Only problems that make the whole file meaningless (unknown suffix, CSV without the needed
columns, a triples file without ``ts``) raise ``IngestError``.
"""
from __future__ import annotations

import codecs
import csv
import gc
import io
import json
import re
import warnings
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

import polars as pl
from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.stores.memory import Memory

from reasonlake import vocab
from reasonlake.declare.durations import TIME_HELP, parse_time
from reasonlake.errors import IngestError, TimeFormatError
from reasonlake.parse import jsonl_columns, nt_columns, turtle_units
from reasonlake.parse.jsonl_columns import ITEM_SCHEMA
from reasonlake.parse.lexical import as_written
from reasonlake.parse.terms import (
    GRAPH,
    OBJECT,
    PREDICATE,
    SUBJECT,
    TermError,
    check_position,
    iri_term,
    literal_parts,
    literal_term,
    normalize_term,
    split_statement,
)

SKOLEM_PREFIX = "urn:reasonlake:genid:"
SUPPORTED_SUFFIXES = (".jsonl", ".csv", ".nq", ".trig", ".nt", ".ttl")
ROW_FIELDS = ("s", "p", "o", "ts")
_ROW_FIELD_SET = frozenset(ROW_FIELDS)

_FIELD_POSITION = {"s": SUBJECT, "p": PREDICATE, "o": OBJECT}
_STATEMENT_POSITIONS = (SUBJECT, PREDICATE, OBJECT, GRAPH)
_GENERATED_AT = vocab.iri(vocab.PROV_GENERATED_AT)
_TIME_DATATYPES = frozenset({vocab.XSD + "dateTime", vocab.XSD + "dateTimeStamp"})
_EPOCH_DATATYPES = frozenset({vocab.XSD + "integer", vocab.XSD + "long"})
_TBOX_HINT = "; put axioms in the view's ontology file, not in the stream"
_OUTSIDE_GRAPH = "triple outside a named graph: every stream item must be in a timestamped named graph"
_TIME_EXAMPLE = (
    '{g} <http://www.w3.org/ns/prov#generatedAtTime> '
    '"2026-11-22T10:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .'
)
# Relative IRIs in Turtle/TriG resolve against this base instead of the file's location,
# so they can be recognised and rejected rather than silently becoming file:/// IRIs that
# differ from machine to machine.
_RELATIVE_BASE = "http://reasonlake.invalid/relative/"
_RELATIVE_ROOT = "http://reasonlake.invalid/"
_FILE_KEY = re.compile(r"[A-Za-z0-9._\-]+")
_NOT_UTF8 = re.compile("[\udc80-\udcff]")
_MISSING = object()
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


def parse_file(path: Path, *, ts: int | None = None, file_key: str) -> ParsedFile:
    """Read one input file into stream items and rejected rows.

    ``ts`` (epoch ms) times .nt/.ttl files, which carry no time of their own; other formats
    ignore it. ``file_key`` (a short hash of the content) goes into skolem IRIs so blank nodes
    of different files never meet.
    """
    path = Path(path)
    check_readable(str(path), ts)
    return parse_bytes(str(path), _read_bytes(path), ts=ts, file_key=file_key)


def check_readable(name: str, ts: int | None) -> None:
    """The checks a file's name allows before reading it: a known suffix, and a time for the
    formats that carry none. ``name`` is a path or a URI."""
    suffix = suffix_of(name)
    if suffix not in _READERS:
        raise IngestError(
            f"{name}: unsupported file type {suffix or '(no suffix)'!r}; "
            f"use one of {', '.join(SUPPORTED_SUFFIXES)}"
        )
    if suffix in (".nt", ".ttl") and ts is None:
        raise IngestError(f"{name}: .nt/.ttl files carry no time; pass --ts TIME")


def suffix_of(name: str) -> str:
    """The lower-cased suffix of a path's or a URI's last segment ('' when it has none)."""
    last = name.rstrip("/").rsplit("/", 1)[-1]
    return "." + last.rsplit(".", 1)[1].lower() if "." in last.strip(".") else ""


def parse_bytes(name: str, data: bytes, *, ts: int | None = None, file_key: str) -> ParsedFile:
    """parse_file of a file's content, wherever it was read (the driver or an executor);
    ``name`` (a path or a URI) picks the reader by its suffix and names the file in messages."""
    if not _FILE_KEY.fullmatch(file_key):
        raise ValueError(f"file_key {file_key!r} must be letters, digits, '.', '_' or '-'")
    check_readable(name, ts)
    reader = _READERS[suffix_of(name)]
    out = _Collector(file_key)
    # A file makes millions of small objects and no reference cycles worth collecting;
    # the cyclic collector rescanning them all again and again costs about a fifth of the time.
    collecting = gc.isenabled()
    gc.disable()
    try:
        reader(name, data, ts, out)
    finally:
        if collecting:
            gc.enable()
    # Readers reject as they find problems, which for graph formats is not file order.
    out.rejected.sort(key=lambda rejected: rejected.line)
    return ParsedFile(out.items, out.rejected, _notes(out.unkept), out.table)


def _notes(unkept: dict[str, int | None]) -> tuple[str, ...]:
    """One line naming the fields or columns read but not kept (the README's input policy:
    extra fields are allowed and reported; the rows' s, p, o and ts are ingested)."""
    if not unkept:
        return ()
    named = ", ".join(f"'{name}'" + (f" (in {count} rows)" if count else "") for name, count in unkept.items())
    return (f"not kept: {named}; a row holds s, p, o and ts only (drop them before ingest to "
            "silence this)",)


class _Collector:
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


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the file: {exc.strerror or exc}") from None


def _lines(data: bytes) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each line; undecodable bytes survive as lone surrogates."""
    text = data.decode("utf-8-sig", errors="surrogateescape")
    # newline="" splits at \n, \r and \r\n only; str.splitlines would also split at
    # U+2028 and friends, which may stand unescaped inside JSON strings and literals.
    for number, line in enumerate(io.StringIO(text, newline=""), 1):
        yield number, line.rstrip("\r\n")


def _not_utf8(line: str) -> bool:
    return _NOT_UTF8.search(line) is not None


def _printable(line: str) -> str:
    return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


_NOT_UTF8_REASON = "the line is not valid UTF-8 text; save the file as UTF-8"


# ---- row formats: .jsonl and .csv -------------------------------------------------------


def _read_jsonl(path: str, data: bytes, ts: int | None, out: _Collector) -> None:
    split = jsonl_columns.split_rows(data) if COLUMNS else None
    if split is not None:  # the usual rows as columns, the others row by row
        out.table = split.items
        for number, line, event in split.rest:
            _jsonl_line(out, number, line, event)
        return
    event = 0
    for number, line in _lines(data):
        if not line.strip():
            continue
        _jsonl_line(out, number, line, event)
        event += 1


def _jsonl_line(out: _Collector, number: int, line: str, event: int) -> None:
    """One line that is not blank: its item, or its rejection."""
    if _not_utf8(line):
        out.reject(number, _printable(line), _NOT_UTF8_REASON)
        return
    try:
        row = json.loads(line, object_pairs_hook=_object)
    except RecursionError:
        out.reject(number, line[:2000], "the JSON nests too deeply to be a row; write one flat object "
                   "with fields s, p, o, ts")
        return
    except ValueError as exc:
        detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
        out.reject(number, line, f"invalid JSON: {detail}; write one object per line such as "
                   '{"s": "<http://example.org/a>", "p": "<http://example.org/p>", '
                   '"o": "\\"text\\"", "ts": "2026-11-22T10:00:00Z"}')
        return
    if not isinstance(row, dict):
        out.reject(number, line, f"expected a JSON object with fields s, p, o, ts, got {_json_kind(row)}")
        return
    _row(out, row, number, line, event, _unkept(row, out))


class _Object(dict):
    """A JSON object that remembers the keys it was given twice (json keeps the last)."""
    repeated: tuple = ()


def _object(pairs: list) -> dict:
    row = _Object(pairs)
    if len(row) != len(pairs):
        seen: set = set()
        row.repeated = tuple(sorted({k for k, _ in pairs if k in seen or seen.add(k)}))
    return row


def _unkept(row: dict, out: _Collector) -> str | None:
    """Fields other than s, p, o, ts are counted for the file's notes (they are not kept);
    a field given twice is the row's rejection (which value was meant cannot be told)."""
    if len(row) != 4 or getattr(row, "repeated", ()):
        for key in row:
            if key not in _ROW_FIELD_SET:
                out.unkept[key] = out.unkept.get(key, 0) + 1
    repeated = getattr(row, "repeated", ())
    if repeated:
        return "; ".join(f"field '{key}' appears more than once; keep one" for key in repeated)
    return None


def _read_csv(path: str, data: bytes, ts: int | None, out: _Collector) -> None:
    text = data.decode("utf-8-sig", errors="surrogateescape")
    lines = list(io.StringIO(text, newline=""))
    # strict: a stray quote such as "a"b is reported for its row instead of being guessed at
    reader = csv.reader(lines, strict=True)
    columns, header = _csv_columns(path, reader)
    header_width, needed = len(header), max(columns.values()) + 1
    for index, name in enumerate(header):
        if index not in columns.values() and name.strip():
            out.unkept[name.strip()] = None  # a whole column: named once, not per row
    event = 0
    while True:
        start = reader.line_num
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raw = "".join(lines[start:max(reader.line_num, start + 1)]).rstrip("\r\n")
            event += 1
            out.reject(start + 1, _printable(raw), f"cannot parse the CSV row: {exc}; quote fields that hold "
                       'commas or quotes and double the quotes inside them ("" for ")')
            if reader.line_num <= start:
                break
            continue
        if not any(cell.strip() for cell in cells):
            continue
        event += 1
        raw = "".join(lines[start:reader.line_num]).rstrip("\r\n")
        if _not_utf8(raw):
            out.reject(start + 1, _printable(raw), _NOT_UTF8_REASON)
            continue
        row = {name: cells[index] for name, index in columns.items() if index < len(cells)}
        _row(out, row, start + 1, raw, event - 1, _csv_shape(cells, header_width, needed), csv_cells=True)


def _csv_shape(cells: list[str], header_width: int, needed: int) -> str | None:
    """Why a CSV row would be misread: too few cells for s, p, o and ts, or more cells than
    the header names (an unquoted comma, usually: the cells past it would be lost)."""
    if len(cells) < needed:
        return f"the row has only {len(cells)} columns"
    if len(cells) > header_width:
        return (f"the row has {len(cells)} cells but the header names {header_width} columns; quote "
                "fields that hold commas")
    return None


def _csv_columns(path: str, reader: Iterator[list[str]]) -> tuple[dict[str, int], list[str]]:
    try:
        for header in reader:
            if any(cell.strip() for cell in header):
                break
        else:
            raise IngestError(f"{path}: empty CSV file; the first row must name the columns s,p,o,ts")
    except csv.Error as exc:
        raise IngestError(f"{path}: cannot parse the CSV header row: {exc}") from None
    names = [cell.strip().lower() for cell in header]
    columns: dict[str, int] = {}
    for name in ROW_FIELDS:
        if names.count(name) > 1:
            raise IngestError(f"{path}: the CSV header names column {name!r} twice; keep one")
        if name in names:
            columns[name] = names.index(name)
    missing = [name for name in ROW_FIELDS if name not in columns]
    if missing:
        found = ", ".join(repr(cell) for cell in header)
        raise IngestError(
            f"{path}: the CSV header has no column {', '.join(map(repr, missing))} (found {found}); "
            "the first row must name the columns s,p,o,ts"
        )
    return columns, header


_CSV_LITERAL_HINT = ('; in CSV a literal\'s own quotes go inside the cell\'s, doubled: write """{0}""" for '
                     'the literal "{0}"')


def _row(out: _Collector, row: dict, line: int, raw: str, event: int, note: str | None = None, *,
         csv_cells: bool = False) -> None:
    """Check one jsonl/csv row and add it as an item, or reject it with every problem found."""
    s, p, o, time = row.get("s"), row.get("p"), row.get("o"), row.get("ts")
    # Fast path for the usual good row; any failure falls through to the full checks,
    # which collect every problem of the row for its rejection.
    if note is None and type(s) is str and type(p) is str and type(o) is str and type(time) in (str, int):
        try:
            terms = (normalize_term(s, SUBJECT), normalize_term(p, PREDICATE), normalize_term(o, OBJECT))
            stamp = parse_time(time, what="field 'ts'")
        except (TermError, TimeFormatError):
            pass
        else:
            out.item(*terms, stamp, line, event, raw)
            return
    problems: list[str] = []
    for field in ("s", "p", "o"):
        value = row.get(field, _MISSING)
        if value is _MISSING:
            problems.append(f"missing field '{field}'")
        elif not isinstance(value, str):
            problems.append(f"field '{field}': expected a string holding an N-Triples term, got {_json_kind(value)}")
        elif not value.strip():
            problems.append(f"field '{field}' is empty")
        else:
            try:
                normalize_term(value, _FIELD_POSITION[field])
            except TermError as exc:
                hint = _CSV_LITERAL_HINT.format(value[:60]) if csv_cells and field == "o" and value.strip()[:1] not in ('<', '"', '_') else ""
                problems.append(f"field '{field}': {exc.reason}{hint}")
    time = row.get("ts", _MISSING)
    if time is _MISSING:
        problems.append("missing field 'ts'")
    elif isinstance(time, str) and not time.strip():
        problems.append(f"field 'ts' is empty; {TIME_HELP}")
    elif isinstance(time, bool) or not isinstance(time, (str, int)):
        problems.append(f"field 'ts': {_json_kind(time)} is not a time; {TIME_HELP}")
    else:
        try:
            parse_time(time, what="field 'ts'")
        except TimeFormatError as exc:
            problems.append(str(exc))
    if note is not None:
        problems.append(note)
    out.reject(line, raw, "; ".join(problems))


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, (list, dict)):
        return "an array" if isinstance(value, list) else "an object"
    return repr(value)


# ---- triple and quad formats --------------------------------------------------------------


class _Quad(NamedTuple):
    s: str  # canonical terms; blank nodes still as _:label, scoped to the whole file
    p: str
    o: str
    g: str | None  # graph name, None for the default graph
    line: int
    raw: str


def _read_nt(path: str, data: bytes, ts: int | None, out: _Collector) -> None:
    split = nt_columns.split_lines(data) if COLUMNS else None
    if split is None:
        _single_event(_statements(data, out, quads=False), ts, out)
        return
    # the usual lines as columns, the others line by line; a triple repeated in both
    # counts once, at its first line, as the statement reader counts it
    quads = _statement_lines(split.rest, out, quads=False)
    triples = split.triples.unique(["s", "p", "o"], keep="first", maintain_order=True)
    first: dict[tuple[str, str, str], int] = {}
    for quad in quads:
        first.setdefault((quad.s, quad.p, quad.o), quad.line)
    if first:
        slow = pl.DataFrame({"s": [k[0] for k in first], "p": [k[1] for k in first], "o": [k[2] for k in first],
                             "slow_line": list(first.values())},
                            schema={"s": pl.String, "p": pl.String, "o": pl.String, "slow_line": pl.Int32})
        both = triples.join(slow, on=["s", "p", "o"], how="inner")
        later = {(r[0], r[1], r[2]) for r in both.filter(pl.col("line") < pl.col("slow_line")).iter_rows()}
        quads = [q for q in quads if (q.s, q.p, q.o) not in later]
        triples = triples.join(both.filter(pl.col("slow_line") < pl.col("line")).select("s", "p", "o"),
                               on=["s", "p", "o"], how="anti", maintain_order="left")
    _single_event(quads, ts, out)
    out.table = triples.select("s", "p", "o", pl.lit(ts, pl.Int64).alias("ts"), "line",
                               pl.lit(0, pl.Int32).alias("event")).cast(ITEM_SCHEMA)


def _read_nq(path: str, data: bytes, ts: int | None, out: _Collector) -> None:
    _graph_events(_statements(data, out, quads=True), out)


def _read_ttl(path: str, data: bytes, ts: int | None, out: _Collector) -> None:
    _single_event(_rdflib_quads(data, out, named=False), ts, out)


def _read_trig(path: str, data: bytes, ts: int | None, out: _Collector) -> None:
    _graph_events(_rdflib_quads(data, out, named=True), out)


def _statements(data: bytes, out: _Collector, *, quads: bool) -> list[_Quad]:
    """Line-by-line N-Triples / N-Quads, so one bad line costs only that line."""
    return _statement_lines(_lines(data), out, quads=quads)


def _statement_lines(lines, out: _Collector, *, quads: bool) -> list[_Quad]:
    """_statements over (number, text) lines."""
    found: list[_Quad] = []
    most = 4 if quads else 3
    for number, line in lines:
        if _not_utf8(line):
            out.reject(number, _printable(line), _NOT_UTF8_REASON)
            continue
        try:
            tokens = split_statement(line)
            if not tokens:
                continue
            if not 3 <= len(tokens) <= most:
                raise TermError(_term_count_reason(len(tokens), quads))
            terms = []
            for token, position in zip(tokens, _STATEMENT_POSITIONS):
                try:
                    terms.append(normalize_term(token, position))
                except TermError as exc:
                    raise TermError(f"{position}: {exc.reason}") from None
        except TermError as exc:
            out.reject(number, line, exc.reason)
            continue
        graph = terms[3] if len(terms) == 4 else None
        found.append(_Quad(terms[0], terms[1], terms[2], graph, number, line.strip()))
    return found


def _term_count_reason(count: int, quads: bool) -> str:
    if quads:
        return f"found {count} terms; an N-Quads line is subject predicate object [graph] ' .'"
    hint = " (use a .nq file for quads)" if count == 4 else ""
    return f"found {count} terms; an N-Triples line is subject predicate object ' .'{hint}"


class _OrderedStore(Memory):
    # rdflib's memory store keeps triples in sets, so reading them back loses the file's
    # order. Recording each add keeps it, which makes event numbers and blank node labels
    # the same every time the same file is read.
    def __init__(self) -> None:
        super().__init__()
        self.added: list[tuple] = []

    def add(self, triple, context, quoted=False) -> None:  # type: ignore[override]
        self.added.append((*triple, getattr(context, "identifier", context)))
        super().add(triple, context, quoted)


def _rdflib_quads(data: bytes, out: _Collector, *, named: bool) -> list[_Quad]:
    """Turtle (named=False) or TriG (named=True) through rdflib, in file order. A document
    rdflib cannot parse whole is parsed statement by statement (``turtle_units``): a bad
    statement costs itself, with its line, and the rest is kept."""
    label = "TriG" if named else "Turtle"
    if data.startswith(codecs.BOM_UTF8):  # allowed here as in every other format
        data = data[len(codecs.BOM_UTF8):]
    try:
        added = _rdflib_parse(data, named)
    except Exception as whole:  # noqa: BLE001 - any failure of the parser on user data means "cannot parse"
        return _unit_by_unit(data, out, named, whole)
    return _to_quads(added, out, named, {}, line=0)


def _rdflib_parse(data: bytes | str, named: bool) -> list[tuple]:
    store = _OrderedStore()
    sink = Dataset(store=store) if named else Graph(store=store)
    with as_written(), warnings.catch_warnings():
        # rdflib's TriG parser calls its own deprecated APIs; the user can do nothing about it
        warnings.simplefilter("ignore", DeprecationWarning)
        sink.parse(data=data, format="trig" if named else "turtle", publicID=_RELATIVE_BASE)
    return store.added


def _to_quads(added: list[tuple], out: _Collector, named: bool, labels: dict[BNode, str], *,
              line: int) -> list[_Quad]:
    seen: set[tuple] = set()
    found: list[_Quad] = []
    for quad in added:
        if quad in seen:
            continue
        seen.add(quad)
        s, p, o, g = (_label_node(node) for node in quad)
        graph = g if named and g != DATASET_DEFAULT_GRAPH_ID else None
        try:
            terms = [
                _from_rdflib(node, position, labels)
                for node, position in zip((s, p, o, graph), _STATEMENT_POSITIONS)
                if node is not None
            ]
        except TermError as exc:
            out.reject(line, _rdflib_raw(s, p, o, graph), exc.reason)
            continue
        name = terms[3] if len(terms) == 4 else None
        raw = " ".join(terms) + " ."
        found.append(_Quad(terms[0], terms[1], terms[2], name, line, raw))
    return found


def _label_node(node: object) -> object:
    """A blank node label written as an IRI for a statement parsed alone, back as that node."""
    if isinstance(node, URIRef) and str(node).startswith(turtle_units.LABEL_PREFIX):
        return BNode("rl" + str(node)[len(turtle_units.LABEL_PREFIX):])
    return node


def _unit_by_unit(data: bytes, out: _Collector, named: bool, whole: Exception) -> list[_Quad]:
    """The quads of the units (``turtle_units``) that parse, and a rejection per unit that
    does not. Units are parsed in groups, halved only where a group fails: one bad statement
    in a million costs about twice the whole document's parse, not a million parses. Items
    of a group keep line 0, as a whole-document parse gives them; a rejection has its line."""
    label = "TriG" if named else "Turtle"
    text = data.decode("utf-8", errors="surrogateescape")
    directives: list[str] = []
    labels: dict[BNode, str] = {}
    found: list[_Quad] = []
    pieces = turtle_units.units(text, graphs=named)
    statements: list[tuple[turtle_units.Unit, str]] = []  # with the directives in force before it
    for unit in pieces:
        if _not_utf8(unit.text):
            out.reject(unit.line, _printable(unit.text), _NOT_UTF8_REASON)
        elif unit.directive:
            directives.append(unit.text)
        else:
            statements.append((unit, "\n".join(directives)))

    def parse(group: list[tuple[turtle_units.Unit, str]]) -> None:
        # every unit of a group has the same directives before it (``runs``)
        body = "\n".join(turtle_units.labels_as_iris(unit.text) for unit, _ in group)
        try:
            added = _rdflib_parse(f"{group[-1][1]}\n{body}\n".encode("utf-8"), named)
        except Exception as exc:  # noqa: BLE001 - a failing group is split, a failing unit rejected
            if len(group) > 1:
                half = len(group) // 2
                parse(group[:half])
                parse(group[half:])
                return
            unit = group[0][0]
            shown = unit.text if len(unit.text) <= 2000 else unit.text[:2000] + "..."
            out.reject(unit.line, shown, f"cannot parse the statement as {label}: {_parser_why(exc)}; fix it "
                       "and ingest the file again")
            return
        found.extend(_to_quads(added, out, named, labels, line=group[0][0].line if len(group) == 1 else 0))

    # runs of statements under the same directives: a prefix redefined between two
    # statements must not be read with the other's meaning when they are parsed together
    runs: list[list[tuple[turtle_units.Unit, str]]] = []
    for statement in statements:
        if runs and runs[-1][-1][1] == statement[1]:
            runs[-1].append(statement)
        else:
            runs.append([statement])
    for run in runs:
        parse(run)
    if not pieces:  # nothing could be cut out: report the parser's own finding
        out.reject(*_parse_failure(data, whole, label))
    return found


def _parser_why(exc: Exception) -> str:
    """rdflib's own reason for a failed parse, in one line."""
    message = str(exc).strip()
    return getattr(exc, "_why", None) or (message.splitlines()[0] if message else type(exc).__name__)


def _from_rdflib(node: object, position: str, labels: dict[BNode, str]) -> str:
    if isinstance(node, BNode):
        # rdflib's ids are random per run; number them in order of appearance instead.
        term = labels.setdefault(node, f"_:b{len(labels)}")
    elif isinstance(node, URIRef):
        value = str(node)
        if value.startswith(_RELATIVE_ROOT):
            relative = value[len(_RELATIVE_BASE):] if value.startswith(_RELATIVE_BASE) else value
            raise TermError(
                f"{position}: bad IRI <{relative}>: relative (no scheme) and the file has no @base; "
                "write absolute IRIs or add @base <http://...> ."
            )
        try:
            term = iri_term(value)
        except TermError as exc:
            raise TermError(f"{position}: {exc.reason}") from None
    elif isinstance(node, Literal):
        datatype = str(node.datatype) if node.datatype is not None else None
        term = literal_term(str(node), node.language, datatype)
    else:
        raise TermError(f"{position}: {type(node).__name__} {node} is not an RDF term")
    try:
        check_position(term, position)
    except TermError as exc:
        raise TermError(f"{position}: {exc.reason}") from None
    return term


def _rdflib_raw(*nodes: object) -> str:
    text = " ".join(node.n3() for node in nodes if node is not None) + " ."  # type: ignore[attr-defined]
    return text.replace(_RELATIVE_BASE, "")


def _parse_failure(data: bytes, exc: Exception, label: str) -> tuple[int, str, str]:
    """(line, raw, reason) for a file rdflib could not parse at all."""
    text = data.decode("utf-8", errors="replace")
    why = _parser_why(exc)
    fix = "fix the syntax and ingest it again"
    number = getattr(exc, "lines", None)  # rdflib's BadSyntax counts lines from 0
    if not isinstance(number, int):
        return 0, text[:200], f"cannot parse the file as {label}: {why}; {fix}"
    lines = text.split("\n")  # as rdflib counts: U+2028 and the like are not line ends
    raw = lines[number].rstrip("\r") if number < len(lines) else ""
    return number + 1, raw if raw.strip() else text[:200], f"cannot parse the file as {label}: {why} (line {number + 1}); {fix}"


def _single_event(quads: list[_Quad], ts: int, out: _Collector) -> None:
    """.nt and .ttl: every triple is one event at the given time (a graph is a set, so no repeats)."""
    seen: set[tuple[str, str, str]] = set()
    for quad in quads:
        key = (quad.s, quad.p, quad.o)
        if key in seen:
            continue
        seen.add(key)
        out.item(quad.s, quad.p, quad.o, ts, quad.line, 0, quad.raw)


def _graph_events(quads: list[_Quad], out: _Collector) -> None:
    """.nq and .trig: each named graph is one event, timed from the default graph."""
    stamps: dict[str, list[_Quad]] = {}
    graphs: dict[str, list[_Quad]] = {}
    for quad in quads:
        if quad.g is not None:
            graphs.setdefault(quad.g, []).append(quad)
        elif quad.p == _GENERATED_AT:
            stamps.setdefault(quad.s, []).append(quad)
        else:
            out.reject(quad.line, quad.raw, _OUTSIDE_GRAPH)
    # Events are numbered in order of each graph's first triple, counting rejected graphs,
    # so an event number always points at the same graph of the file.
    for event, (graph, members) in enumerate(graphs.items()):
        time, problem = _graph_time(graph, stamps.pop(graph, []), out)
        seen: set[tuple[str, str, str]] = set()
        for quad in members:
            key = (quad.s, quad.p, quad.o)
            if key in seen:
                continue
            seen.add(key)
            if problem is not None:
                out.reject(quad.line, quad.raw, problem)
            else:
                out.item(quad.s, quad.p, quad.o, time, quad.line, event, quad.raw)
    for graph, unused in stamps.items():
        for quad in unused:
            out.reject(
                quad.line, quad.raw,
                f"prov:generatedAtTime for {graph}, but the file has no named graph {graph} with "
                "triples; check the graph name",
            )


def _graph_time(graph: str, stamps: list[_Quad], out: _Collector) -> tuple[int, str | None]:
    """The time of one named graph, or a reason why its triples must be rejected."""
    times: dict[int, list[_Quad]] = {}
    for stamp in stamps:
        try:
            times.setdefault(_time_of(graph, stamp.o), []).append(stamp)
        except (TermError, TimeFormatError) as exc:
            out.reject(stamp.line, stamp.raw, str(exc))
    if len(times) == 1:
        return next(iter(times)), None
    if len(times) > 1:
        problem = (
            f"named graph {graph} has {len(times)} different prov:generatedAtTime values; "
            "keep one so the graph is one event at one time"
        )
        for stamp in (stamp for group in times.values() for stamp in group):
            out.reject(stamp.line, stamp.raw, problem)
        return 0, problem
    if stamps:
        return 0, f"named graph {graph} has no usable prov:generatedAtTime (its time triple was rejected); fix that triple"
    return 0, (
        f"named graph {graph} has no prov:generatedAtTime in the default graph; add "
        + _TIME_EXAMPLE.format(g=graph)
    )


def _time_of(graph: str, term: str) -> int:
    what = f"prov:generatedAtTime of {graph}"
    parts = literal_parts(term)
    if parts is None:
        raise TermError(f"{what}: {term} is not a literal; {_time_forms()}")
    lexical, _, datatype = parts
    if datatype in _TIME_DATATYPES:
        if re.fullmatch(r"\s*[+-]?\d+\s*", lexical):
            raise TermError(f"{what}: {lexical!r} is not an xsd:dateTime; {_time_forms()}")
        return parse_time(lexical, what=what)
    if datatype in _EPOCH_DATATYPES and re.fullmatch(r"[+-]?\d+", lexical):
        return int(lexical)
    raise TermError(f"{what}: {term} is not a time; {_time_forms()}")


def _time_forms() -> str:
    return (
        'use "2026-11-22T10:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> (with a zone) '
        'or epoch milliseconds as "1763805600000"^^<http://www.w3.org/2001/XMLSchema#long>'
    )


_READERS: dict[str, Callable[[str, bytes, int | None, _Collector], None]] = {
    ".jsonl": _read_jsonl,
    ".csv": _read_csv,
    ".nq": _read_nq,
    ".trig": _read_trig,
    ".nt": _read_nt,
    ".ttl": _read_ttl,
}


def parse_rows(rows: Iterator[dict], *, file_key: str) -> ParsedFile:
    """Rows of a DataFrame (fields s, p, o, ts) with the checks of a JSONL row: each row is an
    event, its ``line`` the 1-based position among ``rows``, its text the row as JSON."""
    if not _FILE_KEY.fullmatch(file_key):
        raise ValueError(f"file_key {file_key!r} must be letters, digits, '.', '_' or '-'")
    out = _Collector(file_key)
    for event, row in enumerate(rows):
        _row(out, row, event + 1, json.dumps(row, ensure_ascii=False, default=str), event)
    return ParsedFile(out.items, out.rejected)
