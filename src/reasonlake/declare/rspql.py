"""An RSP-QL query as users write it (Dell'Aglio's thesis, section 8.6 and Listing 8.5; the
W3C RSP Community Group's draft), read into what the engine runs: its named windows over
streams, its static graphs, the stream it registers, and the SPARQL query left once those
clauses are taken out, with each ``WINDOW w { P }`` written as ``GRAPH w { P }`` (the window's
content is a named graph of the query's dataset at each evaluation time).

    PREFIX : <http://example.org/>
    ENTAILMENT rdfs-plus ONTOLOGY <ontologies/shops.ttl>          # optional, for every window
    REGISTER RSTREAM :out AS                                       # or ISTREAM, DSTREAM
    SELECT ?shop ...
    FROM NAMED WINDOW :lwin ON :in [RANGE PT60M STEP PT20M FROM 2026-11-22T10:00:00Z]
    FROM GRAPH :shops                                              # static, in the default graph
    WHERE { WINDOW :lwin { ?m :topic ?shop } ?shop a :Shop }

The thesis's own form, ``REGISTER STREAM :out AS CONSTRUCT RSTREAM { ... }``, is read too.
``FROM t0`` fixes where the window's first window opens (Definition 5.3's t0; Figure 8.1
shows the answers change with it); without it the window starts at the epoch, as a view's
does. ``STEP`` left out makes a tumbling window (the step is the range). ``RANGE UNBOUNDED``
makes a landmark window (RSEP-QL, Definition 6.1): at each step it holds every item since
its ``FROM``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from reasonlake.declare import rsep
from reasonlake.plan.durations import parse_duration, parse_time
from reasonlake.declare.view import PROFILES
from reasonlake.errors import SparqlError
from reasonlake.plan.windows import LANDMARK

_IRI = r"(?:<[^<>\s]*>|[A-Za-z_][\w.-]*:[\w.-]*|:[\w.-]*)"
_PREFIX = re.compile(r"PREFIX\s+([A-Za-z_][\w.-]*)?:\s*<([^<>\s]*)>", re.I)
_REGISTER = re.compile(rf"REGISTER\s+(RSTREAM|ISTREAM|DSTREAM|STREAM)\s+({_IRI})\s+AS\b", re.I)
_OPERATOR_AFTER_FORM = re.compile(r"\b(SELECT|CONSTRUCT)\s+(RSTREAM|ISTREAM|DSTREAM)\b", re.I)
_WINDOW_DECL = re.compile(rf"FROM\s+NAMED\s+WINDOW\s+({_IRI})\s+ON\s+({_IRI})\s*\[([^\]]*)\]", re.I)
_STREAM_DECL = re.compile(rf"FROM\s+STREAM\s+({_IRI})\s*\[([^\]]*)\]", re.I)
_GRAPH_DECL = re.compile(rf"FROM\s+(NAMED\s+)?(?:GRAPH\s+)?({_IRI})", re.I)
_ENTAILMENT = re.compile(r"ENTAILMENT\s+([\w-]+)((?:\s+ONTOLOGY\s+<[^<>\s]*>)*)", re.I)
_ONTOLOGY = re.compile(r"ONTOLOGY\s+<([^<>\s]*)>", re.I)
_WINDOW_USE = re.compile(rf"\bWINDOW\s+({_IRI}|\?\w+)\s*\{{", re.I)
_RANGE = re.compile(r"^\s*RANGE\s+(\S+)(?:\s+STEP\s+(\S+))?(?:\s+FROM\s+(\S+))?"
                    r"(?:\s+REPORT\s+(ON\s+CLOSE|ON\s+CHANGE|NON\s+EMPTY|EVERY\s+\S+))?\s*$", re.I)
REPORTS = ("on close", "on change", "non empty", "every")
# what the clauses are found in: the text with its strings and comments blanked out (an IRI
# is kept: it is read, and a "#" in it starts no comment)
_OPAQUE = re.compile(r'(<[^<>\s]*>)|"""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"(?:[^"\\\n]|\\.)*"|'
                     r'\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*')


@dataclass(frozen=True)
class NamedWindow:
    """``FROM NAMED WINDOW name ON stream [RANGE width STEP slide FROM start]``; IRIs in
    N-Triples form (``<...>``)."""

    name: str
    stream: str
    width_ms: int
    slide_ms: int
    start_ms: int | None
    # C-SPARQL's FROM STREAM <s> [RANGE ...]: the window's content is in the default graph
    # (Definition 5.4's A0), under a name the query does not use
    named: bool = True
    # the window's report strategy (Section 5.8), read at the closes the windows share: on
    # close (every one), on change (its content differs from the previous such close's), non
    # empty, every (at start + k * period_ms)
    report: str = "on close"
    period_ms: int | None = None


@dataclass(frozen=True)
class Registration:
    output: str  # the registered stream's IRI
    operator: str  # rstream, istream or dstream (Definitions 5.9-5.11)
    windows: tuple[NamedWindow, ...]
    graphs: tuple[str, ...]  # FROM GRAPH: static graphs merged into the default graph
    named_graphs: tuple[str, ...]  # FROM NAMED GRAPH: static named graphs
    profile: str | None  # the entailment regime every window is read under (None: not named)
    ontologies: tuple[str, ...]
    sparql: str  # the query left, WINDOW w { } written as GRAPH w { }, each MATCH as its placeholder
    matches: tuple[rsep.Match, ...] = ()  # RSEP-QL's MATCH clauses (``declare.rsep``)
    prefixes: tuple[tuple[str, str], ...] = ()  # the PREFIXes, which a MATCH's patterns are read with


def parse(text: str) -> Registration:
    """``text`` read, or one ``SparqlError`` naming the clause and the fix."""
    prefixes = {m.group(1) or "": m.group(2) for m in _PREFIX.finditer(_masked(text))}
    register = _REGISTER.search(_masked(text))
    if register is None:
        raise SparqlError("an RSP-QL query starts with REGISTER RSTREAM|ISTREAM|DSTREAM <stream> AS (after its "
                          "PREFIXes): it names the stream its answers go to")
    operator = register.group(1).lower()
    output = _iri(register.group(2), prefixes)
    text = _cut(text, register)
    after_form = _OPERATOR_AFTER_FORM.search(_masked(text))
    if operator == "stream":  # the thesis's form: REGISTER STREAM :out AS CONSTRUCT RSTREAM { ... }
        operator = after_form.group(2).lower() if after_form else "rstream"
    elif after_form:
        raise SparqlError(f"{after_form.group(2).upper()} after {after_form.group(1).upper()} and "
                          f"{operator.upper()} after REGISTER: name the stream operator once")
    if after_form:
        text = text[:after_form.start(2)] + text[after_form.end(2):]
    windows, text = _windows(text, prefixes)
    graphs, named_graphs = [], []
    while (found := _GRAPH_DECL.search(_masked(text))) is not None:
        (named_graphs if found.group(1) else graphs).append(_iri(found.group(2), prefixes))
        text = _cut(text, found)
    profile, ontologies = None, ()
    entailment = _ENTAILMENT.search(_masked(text))
    if entailment is not None:
        profile = entailment.group(1).lower()
        if profile not in PROFILES:
            raise SparqlError(f"ENTAILMENT {entailment.group(1)}: give one of {', '.join(map(str, PROFILES))} (a "
                              "view's profiles)")
        ontologies = tuple(_ONTOLOGY.findall(text[entailment.start():entailment.end()]))
        text = _cut(text, entailment)
    names = {w.name for w in windows}
    for used in _WINDOW_USE.finditer(_masked(text)):
        term = used.group(1)
        if not term.startswith("?") and _iri(term, prefixes) not in names:
            raise SparqlError(f"WINDOW {term} {{ ... }} reads a window the query does not declare: add FROM NAMED "
                              f"WINDOW {term} ON <stream> [RANGE ... STEP ...]")
    text, matches = rsep.take_matches(text, _masked(text), lambda term: _iri(term, prefixes),
                                      {w.name for w in windows if w.named})
    sparql = text  # each WINDOW w { written GRAPH w {, from the last so that the offsets hold
    for used in reversed(list(_WINDOW_USE.finditer(_masked(text)))):
        sparql = f"{sparql[:used.start()]}GRAPH {used.group(1)} {{{sparql[used.end():]}"
    return Registration(output, operator, tuple(windows), tuple(graphs), tuple(named_graphs), profile, ontologies,
                        sparql, matches, tuple(sorted(prefixes.items())))


def _windows(text: str, prefixes: dict[str, str]) -> tuple[list[NamedWindow], str]:
    windows: list[NamedWindow] = []
    while (found := _WINDOW_DECL.search(_masked(text))) is not None:
        name, stream = _iri(found.group(1), prefixes), _iri(found.group(2), prefixes)
        width, slide, start, report, period = _range(found.group(3), f"FROM NAMED WINDOW {found.group(1)}",
                                                     f"window {found.group(1)}")
        if any(w.name == name for w in windows):
            raise SparqlError(f"the window {found.group(1)} is declared twice: give each FROM NAMED WINDOW its own name")
        windows.append(NamedWindow(name, stream, width, slide, start, report=report, period_ms=period))
        text = _cut(text, found)
    while (found := _STREAM_DECL.search(_masked(text))) is not None:  # C-SPARQL's unnamed windows
        stream = _iri(found.group(1), prefixes)
        width, slide, start, report, period = _range(found.group(2), f"FROM STREAM {found.group(1)}",
                                                     f"stream {found.group(1)}")
        local = re.search(r"[^/#:]*$", stream.strip("<>")).group()
        name = f"<urn:reasonlake:window:{local}_{sum(not w.named for w in windows) + 1}>"
        windows.append(NamedWindow(name, stream, width, slide, start, named=False, report=report, period_ms=period))
        text = _cut(text, found)
    if not windows:
        raise SparqlError("an RSP-QL query reads at least one window: FROM NAMED WINDOW <w> ON <stream> "
                          "[RANGE PT10M STEP PT1M]")
    return windows, text


def _range(spec_text: str, clause: str, what: str) -> tuple[int, int, int | None, str, int | None]:
    spec = _RANGE.match(spec_text)
    if spec is None:
        raise SparqlError(f"{clause}: the window is [RANGE duration STEP duration FROM time REPORT ON CLOSE|ON "
                          f"CHANGE|NON EMPTY|EVERY duration] (STEP, FROM and REPORT optional), not [{spec_text.strip()}]")
    if spec.group(1).upper() == "UNBOUNDED":  # a landmark window (RSEP-QL, Definition 6.1; CQL's [Range Unbounded])
        if not spec.group(2):
            raise SparqlError(f"{clause}: a landmark window [RANGE UNBOUNDED] never closes by itself; give STEP d "
                              "(how often it is read: every d from its FROM) and FROM time (where it starts)")
        width = LANDMARK
    else:
        width = parse_duration(spec.group(1), what=f"{what}'s RANGE")
    slide = parse_duration(spec.group(2), what=f"{what}'s STEP") if spec.group(2) else width
    start = parse_time(spec.group(3), what=f"{what}'s FROM") if spec.group(3) else None
    report, period = " ".join((spec.group(4) or "on close").lower().split()), None
    if report.startswith("every"):
        period = parse_duration(report.split()[1], what=f"{what}'s REPORT EVERY")
        report = "every"
    return width, slide, start, report, period


def _iri(term: str, prefixes: dict[str, str]) -> str:
    if term.startswith("<"):
        return term
    prefix, local = term.split(":", 1)
    if prefix not in prefixes:
        raise SparqlError(f"{term}: the prefix {prefix}: is not declared (PREFIX {prefix}: <...>)")
    return f"<{prefixes[prefix]}{local}>"


def _masked(text: str) -> str:
    """``text`` with strings and comments blanked (same length): a clause is never found in them."""
    return _OPAQUE.sub(lambda m: m.group() if m.group(1) else " " * len(m.group()), text)


def _cut(text: str, found: re.Match) -> str:
    return text[:found.start()] + " " * (found.end() - found.start()) + text[found.end():]
