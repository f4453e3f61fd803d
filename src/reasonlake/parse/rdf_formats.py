"""The RDF stream formats: ``.nt`` and ``.ttl`` (the whole file one event at the time the
caller passes), ``.nq`` and ``.trig`` (one named graph one event, timed by
``<g> prov:generatedAtTime "..."`` in the default graph, RSP-QL style). Lines are read as
N-Triples/N-Quads statements where they can be; Turtle and TriG go through rdflib,
statement by statement when a document cannot be parsed whole, so a bad statement costs
only itself (``turtle_units``)."""
from __future__ import annotations

import codecs
import re
import warnings
from typing import NamedTuple

import polars as pl
from rdflib import BNode, Dataset, Graph, Literal, URIRef
from rdflib.graph import DATASET_DEFAULT_GRAPH_ID
from rdflib.plugins.stores.memory import Memory

from reasonlake import vocab
from reasonlake.plan.durations import parse_time
from reasonlake.errors import TimeFormatError
from reasonlake.parse import collected, nt_columns, turtle_units
from reasonlake.parse.collected import Collector, not_utf8, numbered_lines, printable
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

from reasonlake.parse.collected import NOT_UTF8_REASON

_STATEMENT_POSITIONS = (SUBJECT, PREDICATE, OBJECT, GRAPH)
_GENERATED_AT = vocab.iri(vocab.PROV_GENERATED_AT)
_TIME_DATATYPES = frozenset({vocab.XSD + "dateTime", vocab.XSD + "dateTimeStamp"})
_EPOCH_DATATYPES = frozenset({vocab.XSD + "integer", vocab.XSD + "long"})
_OUTSIDE_GRAPH = "triple outside a named graph: every stream item must be in a timestamped named graph"
_TIME_EXAMPLE = (
    '{g} <http://www.w3.org/ns/prov#generatedAtTime> '
    '"2026-11-22T10:00:00Z"^^<http://www.w3.org/2001/XMLSchema#dateTime> .'
)
_RELATIVE_BASE = "http://reasonlake.invalid/relative/"
_RELATIVE_ROOT = "http://reasonlake.invalid/"


# ---- statements --------------------------------------------------------------


class _Quad(NamedTuple):
    s: str  # canonical terms; blank nodes still as _:label, scoped to the whole file
    p: str
    o: str
    g: str | None  # graph name, None for the default graph
    line: int
    raw: str


def read_nt(path: str, data: bytes, ts: int | None, out: Collector) -> None:
    split = nt_columns.split_lines(data) if collected.COLUMNS else None
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


def read_nq(path: str, data: bytes, ts: int | None, out: Collector) -> None:
    _graph_events(_statements(data, out, quads=True), out)


def read_ttl(path: str, data: bytes, ts: int | None, out: Collector) -> None:
    _single_event(_rdflib_quads(data, out, named=False), ts, out)


def read_trig(path: str, data: bytes, ts: int | None, out: Collector) -> None:
    _graph_events(_rdflib_quads(data, out, named=True), out)


def _statements(data: bytes, out: Collector, *, quads: bool) -> list[_Quad]:
    """Line-by-line N-Triples / N-Quads, so one bad line costs only that line."""
    return _statement_lines(numbered_lines(data), out, quads=quads)


def _statement_lines(lines, out: Collector, *, quads: bool) -> list[_Quad]:
    """_statements over (number, text) lines."""
    found: list[_Quad] = []
    most = 4 if quads else 3
    for number, line in lines:
        if not_utf8(line):
            out.reject(number, printable(line), NOT_UTF8_REASON)
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


def _rdflib_quads(data: bytes, out: Collector, *, named: bool) -> list[_Quad]:
    """Turtle (named=False) or TriG (named=True) through rdflib, in file order. A document
    rdflib cannot parse whole is parsed statement by statement (``turtle_units``): a bad
    statement costs itself, with its line, and the rest is kept."""
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


def _to_quads(added: list[tuple], out: Collector, named: bool, labels: dict[BNode, str], *,
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


def _unit_by_unit(data: bytes, out: Collector, named: bool, whole: Exception) -> list[_Quad]:
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
        if not_utf8(unit.text):
            out.reject(unit.line, printable(unit.text), NOT_UTF8_REASON)
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
                       "and ingest the file again with --only-new-items (the items already ingested from "
                       "it are left out)")
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


def _single_event(quads: list[_Quad], ts: int, out: Collector) -> None:
    """.nt and .ttl: every triple is one event at the given time (a graph is a set, so no repeats)."""
    for quad in _distinct(quads):
        out.item(quad.s, quad.p, quad.o, ts, quad.line, 0, quad.raw)


def _distinct(quads: list[_Quad]):
    """Each triple once, at its first statement (a graph is a set)."""
    seen: set[tuple[str, str, str]] = set()
    for quad in quads:
        key = (quad.s, quad.p, quad.o)
        if key not in seen:
            seen.add(key)
            yield quad


def _graph_events(quads: list[_Quad], out: Collector) -> None:
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
        for quad in _distinct(members):
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


def _graph_time(graph: str, stamps: list[_Quad], out: Collector) -> tuple[int, str | None]:
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


