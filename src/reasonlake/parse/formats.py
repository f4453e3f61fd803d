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

import csv
import gc
import io
import json
import re
from pathlib import Path
from typing import Callable, Iterator


from reasonlake.plan.durations import TIME_HELP, parse_time
from reasonlake.errors import IngestError, TimeFormatError
from reasonlake.parse import collected
from reasonlake.parse.collected import (  # noqa: F401 (the names callers import from here)
    NOT_UTF8_REASON,
    SKOLEM_PREFIX,
    Collector,
    ParsedFile,
    Rejected,
    StreamItem,
    numbered_lines,
    not_utf8,
    printable,
)
from reasonlake.parse import jsonl_columns
from reasonlake.parse.terms import (
    OBJECT,
    PREDICATE,
    SUBJECT,
    TermError,
    normalize_term,
)


SUPPORTED_SUFFIXES = (".jsonl", ".csv", ".nq", ".trig", ".nt", ".ttl")
ROW_FIELDS = ("s", "p", "o", "ts")
_ROW_FIELD_SET = frozenset(ROW_FIELDS)

_FIELD_POSITION = {"s": SUBJECT, "p": PREDICATE, "o": OBJECT}

# Relative IRIs in Turtle/TriG resolve against this base instead of the file's location,
# so they can be recognised and rejected rather than silently becoming file:/// IRIs that
# differ from machine to machine.
_FILE_KEY = re.compile(r"[A-Za-z0-9._\-]+")

_MISSING = object()
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
    if suffix not in _readers():
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
    reader = _readers()[suffix_of(name)]
    out = Collector(file_key)
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


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise IngestError(f"{path}: cannot read the file: {exc.strerror or exc}") from None


# ---- row formats: .jsonl and .csv -------------------------------------------------------


def _read_jsonl(path: str, data: bytes, ts: int | None, out: Collector) -> None:
    split = jsonl_columns.split_rows(data) if collected.COLUMNS else None
    if split is not None:  # the usual rows as columns, the others row by row
        out.table = split.items
        for number, line, event in split.rest:
            _jsonl_line(out, number, line, event)
        return
    event = 0
    for number, line in numbered_lines(data):
        if not line.strip():
            continue
        _jsonl_line(out, number, line, event)
        event += 1


def _jsonl_line(out: Collector, number: int, line: str, event: int) -> None:
    """One line that is not blank: its item, or its rejection."""
    if not_utf8(line):
        out.reject(number, printable(line), NOT_UTF8_REASON)
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


def _unkept(row: dict, out: Collector) -> str | None:
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


def _read_csv(path: str, data: bytes, ts: int | None, out: Collector) -> None:
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
            out.reject(start + 1, printable(raw), f"cannot parse the CSV row: {exc}; quote fields that hold "
                       'commas or quotes and double the quotes inside them ("" for ")')
            if reader.line_num <= start:
                break
            continue
        if not any(cell.strip() for cell in cells):
            continue
        event += 1
        raw = "".join(lines[start:reader.line_num]).rstrip("\r\n")
        if not_utf8(raw):
            out.reject(start + 1, printable(raw), NOT_UTF8_REASON)
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


def _row(out: Collector, row: dict, line: int, raw: str, event: int, note: str | None = None, *,
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


def _readers() -> dict[str, Callable[[str, bytes, int | None, Collector], None]]:
    """The reader of each suffix (the RDF formats' readers load rdflib: only when asked)."""
    # imported when called: it loads rdflib
    from reasonlake.parse import rdf_formats

    return {
        ".jsonl": _read_jsonl,
        ".csv": _read_csv,
        ".nq": rdf_formats.read_nq,
        ".trig": rdf_formats.read_trig,
        ".nt": rdf_formats.read_nt,
        ".ttl": rdf_formats.read_ttl,
    }


def parse_rows(rows: Iterator[dict], *, file_key: str) -> ParsedFile:
    """Rows of a DataFrame (fields s, p, o, ts) with the checks of a JSONL row: each row is an
    event, its ``line`` the 1-based position among ``rows``, its text the row as JSON."""
    if not _FILE_KEY.fullmatch(file_key):
        raise ValueError(f"file_key {file_key!r} must be letters, digits, '.', '_' or '-'")
    out = Collector(file_key)
    for event, row in enumerate(rows):
        _row(out, row, event + 1, json.dumps(row, ensure_ascii=False, default=str), event)
    return ParsedFile(out.items, out.rejected)
