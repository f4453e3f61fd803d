"""Conformance runner: the OWL 2 RL / RDFS entailment test cases of ``../shared`` through reasonlake.

For each case the premise is split the way a user would deploy it: schema triples (what
``reasonlake.vocab.tbox_reason`` calls TBox vocabulary, plus the RDF lists and blank-node
class expressions they use, plus owl:AllDifferent / negative property assertion structures,
which the rule compiler reads from the TBox) become the view's ontology, and the instance
triples are streamed as one event. A case then passes when

* POSITIVE_ENTAILMENT: every instance-level conclusion triple is in the view's export and
  every schema-level one is in the engine's schema (``engine_schema``: the TBox as reasonlake
  loads it and what its compiled program entails), which must itself be sound: in owlrl's
  closure of the TBox (``unsound_schema``; owlrl is the oracle, never the compiler); blank
  nodes of a conclusion are existential, matched jointly across both parts. A failing case names the conclusion triples it misses,
  in its own terms (``Outcome.missing``): an expected failure lists them
  (``expected_missing.json``), so that a triple newly missing there fails the case in earnest;
* INCONSISTENCY: the view's violations list at least one violation over the case's triples.

A POSITIVE_ENTAILMENT case streamed through the engine (one with instance-level conclusion
triples) must moreover be sound: every exported triple of the case (see ``soundness``) must be
in owlrl's closure of the case's premises, computed as ``tests/oracle.py`` does; the extra
triples make its verdict negative, and fail an expected failure too. INCONSISTENCY cases are
left out of that check (everything follows from an inconsistent premise), and so are the cases
the engine does not run (schema-only or empty conclusions: their instance triples are not
streamed).

One Spark run per case would cost about ten seconds each, so all cases of a profile share
one view: every IRI outside the rdf:/rdfs:/owl:/xsd: namespaces is renamed into a per-case
namespace and blank nodes get per-case labels, so cases cannot meet through names, and the
instance triples of all cases are one event. The few cases whose conclusion names no term of
their own (only vocabulary) could be satisfied by another case's data; they are streamed in
windows of their own (window k is one event at k hours + 1 s, the view's window is 1 h wide
and slides by 1 h, and each window is read back at its own close).
"""
from __future__ import annotations

import io
import json
import re
import warnings
from collections import defaultdict
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import owlrl
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import to_canonical_graph
from rdflib.term import _toPythonMapping

from reasonlake.compile.program import compile_program
from reasonlake.compile.schema import saturated_schema
from reasonlake.compile.tbox import ANONYMOUS_PREFIX, load_tbox
from reasonlake.declare.view import OntologySource
from reasonlake.parse.formats import SKOLEM_PREFIX
from reasonlake.parse.lexical import as_written
from reasonlake.parse.terms import iri_term, literal_parts, literal_term, split_statement
from reasonlake.vocab import (
    OWL,
    PROV_GENERATED_AT,
    RDF,
    RDFS,
    TYPE,
    XSD,
    iri,
    tbox_reason,
)

Triple = tuple[str, str, str]

PROFILES = {
    # profile directory -> view settings; owl2rl cases assume standard OWL equality
    "owl2rl": {"profile": "owl2rl", "unique_names": False},
    "rdfs": {"profile": "rdfs", "unique_names": True},
}
POSITIVE, INCONSISTENCY = "POSITIVE_ENTAILMENT", "INCONSISTENCY"

CASE_NS = "http://conformance.reasonlake.test/"
_VOCABULARY = (RDF, RDFS, OWL, XSD)
_OWNER = (
    re.compile(rf"^<{re.escape(CASE_NS)}(\d+)/"),  # a renamed IRI
    re.compile(rf"^<{re.escape(ANONYMOUS_PREFIX)}conformance-(\d+)-"),  # a TBox blank node
    re.compile(r"^<urn:reasonlake:genid:.*:c(\d+)x[^:>]*>$"),  # a streamed blank node, skolemized
)
HOUR = 3_600_000

_STRUCTURE_PREDICATES = frozenset(
    iri(OWL + x) for x in ("members", "distinctMembers", "sourceIndividual", "assertionProperty",
                           "targetIndividual", "targetValue")
)
_STRUCTURE_TYPES = frozenset(iri(OWL + x) for x in ("AllDifferent", "NegativePropertyAssertion"))


# ---- loading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    key: str  # "<profile>/<id>", unique over both profiles
    id: str
    profile: str
    kind: str  # POSITIVE or INCONSISTENCY
    description: str
    premise: tuple[Triple, ...]  # N-Triples terms as in the files, blank nodes _:b0, _:b1, ...
    conclusion: tuple[Triple, ...]  # empty for INCONSISTENCY cases


def case_dirs(root: Path) -> dict[str, list[Path]]:
    """profile -> its case folders, sorted; profiles whose folder is missing are left out."""
    return {p: sorted(d for d in (root / p).iterdir() if d.is_dir()) for p in PROFILES if (root / p).is_dir()}


def case_keys(root: Path) -> list[str]:
    return [f"{p}/{d.name}" for p, dirs in case_dirs(root).items() for d in dirs]


def load_case(folder: Path, profile: str) -> Case:
    name = folder.name
    meta = (folder / f"{name}.metadata.properties").read_text(encoding="utf-8")
    kind = _entry(meta, "testcase.type")
    if kind == INCONSISTENCY:
        premise, conclusion = _graph(folder / f"{name}.graph.ttl"), ()
    elif kind == POSITIVE:
        premise = _graph(folder / f"{name}.premisegraph.ttl")
        conclusion = _graph(folder / f"{name}.conclusiongraph.ttl")
    else:
        raise ValueError(f"{folder}: unknown test type {kind!r}")
    return Case(f"{profile}/{name}", _entry(meta, "testcase.id"), profile, kind,
                _entry(meta, "testcase.description"), premise, conclusion)


def _entry(meta: str, key: str) -> str:
    match = re.search(rf'<entry key="{re.escape(key)}">(.*?)</entry>', meta, re.DOTALL)
    if not match:
        raise ValueError(f"metadata without {key}")
    return match.group(1).strip()


def _graph(path: Path) -> tuple[Triple, ...]:
    graph = Graph()
    # literals as the case writes them (ill-typed ones are what the datatype cases are about)
    with as_written(), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        graph.parse(path, format="turtle")
        return _stable_blank_nodes(graph)


def _stable_blank_nodes(graph: Graph) -> tuple[Triple, ...]:
    """The graph's triples, sorted, with blank nodes labelled alike on every parse.

    rdflib labels a file's blank nodes afresh on each parse, so a conclusion triple with one
    could not be named in ``expected_missing.json``. rdflib.compare labels them from the graph's
    structure; those long labels then become ``_:b0``, ``_:b1``, ... in order of appearance.
    """
    triples = sorted((_term(s), _term(p), _term(o)) for s, p, o in to_canonical_graph(graph))
    short: dict[str, str] = {}
    for x in (x for t in triples for x in t if x.startswith("_:")):
        short.setdefault(x, f"_:b{len(short)}")
    return tuple(sorted(tuple(short.get(x, x) for x in t) for t in triples))


def _term(node) -> str:
    if isinstance(node, BNode):
        return f"_:{node}"
    if isinstance(node, URIRef):
        return iri_term(str(node))
    if isinstance(node, Literal):
        return literal_term(str(node), node.language, str(node.datatype) if node.datatype else None)
    raise TypeError(f"not an RDF term: {node!r}")


# ---- TBox / ABox split and renaming -------------------------------------------------------


def split(triples) -> tuple[list[Triple], list[Triple]]:
    """(TBox, ABox) of a premise graph.

    TBox: the triples ``tbox_reason`` names, everything hanging off a blank node that a TBox
    triple mentions (RDF lists, restrictions), and owl:AllDifferent / negative property
    assertion structures (the compiler reads them from the ontology). The rest is ABox.
    """
    tbox = {t for t in triples if tbox_reason(*t) is not None}
    by_subject: dict[str, list[Triple]] = defaultdict(list)
    for t in triples:
        by_subject[t[0]].append(t)
    stack = [s for s, p, o in triples if p in _STRUCTURE_PREDICATES or (p == TYPE and o in _STRUCTURE_TYPES)]
    stack += [x for t in tbox for x in (t[0], t[2]) if x.startswith("_:")]
    seen: set[str] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for t in by_subject.get(node, ()):
            tbox.add(t)
            if t[2].startswith("_:"):
                stack.append(t[2])
    return sorted(tbox), [t for t in triples if t not in tbox]


def rename_iri(term: str, number: int) -> str:
    value = term[1:-1]
    if value.startswith(_VOCABULARY):
        return term
    return f"<{CASE_NS}{number:03d}/{value.replace('%', '%25').replace('#', '%23')}>"


def owner(term: str) -> int | None:
    """The case number a renamed term belongs to; None for vocabulary, literals, shared terms."""
    for pattern in _OWNER:
        match = pattern.match(term)
        if match:
            return int(match.group(1))
    return None


@dataclass
class Prepared:
    case: Case
    number: int
    tbox: list[Triple]
    abox: list[Triple]
    instance: list[Triple]  # conclusion patterns checked against the export; ?x: a variable
    schema: list[Triple]  # conclusion patterns checked against ``engine_schema``
    own: dict[Triple, Triple] = field(default_factory=dict)  # pattern -> its conclusion triple, as the case writes it
    batch: int = 0  # the window the case's instance triples are streamed in

    @property
    def engine(self) -> bool:
        """Whether the case needs the engine (anything to check beyond the schema)."""
        return self.case.kind == INCONSISTENCY or bool(self.instance)


def prepare(case: Case, number: int) -> Prepared:
    tbox, abox = split(case.premise)
    tbox_nodes = {x for t in tbox for x in t if x.startswith("_:")}
    names: dict[str, str] = {}

    def premise_term(term: str) -> str:
        if term.startswith("<"):
            return rename_iri(term, number)
        if term.startswith("_:"):
            if term not in names:
                k = len(names)
                names[term] = (f"<{ANONYMOUS_PREFIX}conformance-{number:03d}-{k}>" if term in tbox_nodes
                               else f"_:c{number:03d}x{k}")
            return names[term]
        return term

    def pattern_term(term: str) -> str:
        if term.startswith("<"):
            return rename_iri(term, number)
        if term.startswith("_:"):
            return "?" + term[2:]
        return term

    def rename(triples, how):
        return [tuple(how(x) for x in t) for t in triples]

    conclusion = rename(case.conclusion, pattern_term)
    return Prepared(
        case=case, number=number,
        tbox=rename(tbox, premise_term), abox=rename(abox, premise_term),
        instance=[t for t in conclusion if tbox_reason(*t) is None],
        schema=[t for t in conclusion if tbox_reason(*t) is not None],
        own=dict(zip(conclusion, case.conclusion)),
    )


def attributable(c: Prepared) -> bool:
    """Whether every instance-level conclusion triple names one of the case's own terms.

    Such a triple can only come from the case's own data, whatever else shares the window.
    A conclusion made of vocabulary and literals alone (``owl:sameAs owl:sameAs owl:sameAs``,
    ``rdf:type rdf:type rdf:Property``) could come from any case: it needs a window of its own.
    """
    return all(any(owner(x) == c.number for x in t) for t in c.instance)


def assign_batches(cases: list[Prepared]) -> int:
    """Put the cases into windows; the number of windows.

    Each case whose conclusion cannot be attributed gets a window of its own, except that
    those streaming nothing share one (what the engine derives from no data at all); every
    other case is in the main window. The view's first close is the first window with data,
    so the empty window never comes first. Cases sharing a window cannot meet through names
    (renamed) nor through literals: the engine never puts a literal in subject position
    (``run_engine`` checks it), so no rule joins two cases on a literal.
    """
    lonely = [c for c in cases if not attributable(c)]
    groups = [[c] for c in lonely if c.abox]
    empty = [c for c in lonely if not c.abox]
    main = [c for c in cases if attributable(c)]
    if groups:  # after a small window: expiring it is cheap
        groups += [g for g in (empty, main) if g]
    else:
        groups += [g for g in (main, empty) if g]
    for k, group in enumerate(groups):
        for c in group:
            c.batch = k
    return max(len(groups), 1)


# ---- schema-level check ---------------------------------------------------------------------

def engine_schema(c: Prepared, profile: str, unique_names: bool) -> set[Triple]:
    """The engine's answer to a schema conclusion: the case's TBox as reasonlake loads it, and
    the schema its compiled program entails (``saturated_schema``)."""
    text = "".join(f"{s} {p} {o} .\n" for s, p, o in c.tbox)
    tbox = load_tbox((OntologySource(f"{c.case.key}.nt", text, "nt"),))
    return set(tbox) | set(saturated_schema(compile_program(tbox, profile, unique_names)))


def unsound_schema(c: Prepared, profile: str, engine: set[Triple]) -> list[Triple]:
    """The engine's schema triples that owlrl does not entail from the case's TBox: what
    makes its schema answer unsound. Names the compiler gives its own anonymous class
    expressions (none of the case's) are internal, never exported, and left out."""
    own = {x for t in c.tbox for x in t}
    internal = f"<{ANONYMOUS_PREFIX}"
    closure = owlrl_closure(c.tbox, profile) | set(c.tbox)
    return sorted(t for t in engine if t not in closure
                  and not any(x.startswith(internal) and x not in own for x in t))


# ---- matching ---------------------------------------------------------------------------------


def match(patterns: list[tuple[Triple, set[Triple]]]) -> dict[str, str] | None:
    """A binding of the ``?`` variables under which every pattern is in its triple set."""
    index: dict[int, dict[str, list[Triple]]] = {}
    for _, triples in patterns:
        if id(triples) not in index:
            by_p: dict[str, list[Triple]] = defaultdict(list)
            for t in triples:
                by_p[t[1]].append(t)
            index[id(triples)] = by_p
    order = sorted(patterns, key=lambda pt: sum(x.startswith("?") for x in pt[0]))

    def solve(i: int, binding: dict[str, str]) -> dict[str, str] | None:
        if i == len(order):
            return binding
        pattern, triples = order[i]
        p = binding.get(pattern[1], pattern[1])
        candidates = triples if p.startswith("?") else index[id(triples)].get(p, ())
        for t in candidates:
            new = dict(binding)
            if all(_bind(new, x, y) for x, y in zip(pattern, t)):
                found = solve(i + 1, new)
                if found is not None:
                    return found
        return None

    return solve(0, {})


def _bind(binding: dict[str, str], x: str, value: str) -> bool:
    if not x.startswith("?"):
        return x == value
    return binding.setdefault(x, value) == value


# ---- soundness check -----------------------------------------------------------------------

_SKOLEMIZED = re.compile(rf"^<{re.escape(SKOLEM_PREFIX)}.*:(c\d+x[^:>]*)>$")


def skolem(term: str) -> str:
    """One spelling, on both sides of the soundness check, for a streamed blank node.

    The premise's ``_:c001x0`` (as ``prepare`` names the case's ABox blank nodes) and the
    engine's skolem IRI for it, ``<urn:reasonlake:genid:<file key>:<event>:c001x0>``, both become
    ``<urn:reasonlake:genid:conformance:c001x0>`` (``owner`` still reads the case from it);
    owlrl then reasons over that IRI as the engine does over its skolem IRI. TBox blank nodes
    need no mapping: ``prepare`` already made them ``<urn:reasonlake:anon:conformance-...>``
    IRIs in the ontology the engine loads, so they are spelled alike on both sides (and export
    hides them anyway). IRIs and literals are kept (``owlrl_spelling`` is literals' one spelling).
    """
    if term.startswith("_:"):
        return f"<{SKOLEM_PREFIX}conformance:{term[2:]}>"
    matched = _SKOLEMIZED.match(term)
    return f"<{SKOLEM_PREFIX}conformance:{matched.group(1)}>" if matched else term


def owlrl_spelling(term: str) -> str:
    """A literal as owlrl's closure spells it; any other term as it is.

    The engine exports a literal as written (decision 0018: ``"+042"^^xsd:byte``), and the
    closure holds it as rdflib normalizes it on parsing the premise (``"42"^^xsd:byte``): one
    value, which the soundness check must not take for two.
    """
    parts = literal_parts(term)
    if parts is None:
        return term
    lexical, language, datatype = parts
    with warnings.catch_warnings():  # ill-typed literals, as in _graph
        warnings.simplefilter("ignore", UserWarning)
        return _term(Literal(lexical, lang=language, datatype=URIRef(datatype) if datatype else None))


def shared_schema(cases: list[Prepared]) -> list[Triple]:
    """TBox triples of the view that no case owns (only vocabulary and literals).

    Renaming cannot keep them to their case: in the one view every case shares, an axiom such
    as ``rdfs:comment rdfs:domain owl:Nothing`` applies to every case's data. They are part of
    every case's premises for the soundness check.
    """
    return sorted({t for c in cases for t in c.tbox if all(owner(x) is None for x in t)})


def premise_closure(c: Prepared, profile: str, shared: list[Triple] = ()) -> set[Triple]:
    """owlrl's closure of the case's TBox + ABox, renamed as streamed, plus the view's ``shared``
    schema."""
    return owlrl_closure({*c.tbox, *c.abox, *shared}, profile)


def owlrl_closure(triples, profile: str) -> set[Triple]:
    """owlrl's closure (as ``tests/oracle.py`` computes it) of ``triples``; canonical N-Triples
    terms, ``skolem``'s spelling for streamed blank nodes."""
    premise = sorted(triples)
    graph = Graph()
    # owlrl swaps rdflib's lexical-to-value table for its own while it runs and, restoring it,
    # leaves its own entries for the datatypes rdflib lacks (xsd:dateTimeStamp, rdf:PlainLiteral):
    # rdflib then canonicalizes those literals differently ("abc@de"^^rdf:PlainLiteral becomes
    # "abc"), here and in the engine, which runs in this process. Put the table back as it was.
    saved = dict(_toPythonMapping)
    try:
        with warnings.catch_warnings():  # ill-typed literals, as in _graph
            warnings.simplefilter("ignore", UserWarning)
            graph.parse(data="".join(" ".join(map(skolem, t)) + " .\n" for t in premise), format="nt")
            semantics = owlrl.RDFS_Semantics if profile == "rdfs" else owlrl.OWLRL_Semantics
            owlrl.DeductiveClosure(semantics, rdfs_closure=False, axiomatic_triples=False,
                                   datatype_axioms=False).expand(graph)
    finally:
        _toPythonMapping.clear()
        _toPythonMapping.update(saved)
    return {(_term(s), _term(p), _term(o)) for s, p, o in graph}


def sound_in_scope(c: Prepared) -> bool:
    """Whether the soundness check applies: a positive case whose data the engine streams."""
    return c.case.kind == POSITIVE and bool(c.instance)


def soundness(c: Prepared, run: EngineRun, closure: set[Triple], alone: bool) -> list[Triple]:
    """The exported triples of case ``c`` that are not in ``closure``, sorted.

    The case's exported triples are those of its window that name one of its own terms
    (``owner``); one that also names another case's term is the engine joining two cases,
    which renaming rules out, and is reported too. Triples naming no case's term (vocabulary and
    literals only) are the case's only when it is ``alone`` in its window; in the shared windows
    they cannot be attributed and are left out (the main window has none so far). Literals are
    compared as owlrl spells them (``owlrl_spelling``).
    """
    mine = set()
    for t in run.exported.get(c.batch, ()):
        t = tuple(skolem(x) for x in t)
        owners = {owner(x) for x in t} - {None}
        if c.number in owners or (alone and not owners):
            mine.add(tuple(map(owlrl_spelling, t)))
    return sorted(mine - closure)


# ---- running the engine -------------------------------------------------------------------


class Cli:
    """``reasonlake --home HOME ...`` in this process (and so on the test session's Spark)."""

    def __init__(self, home: Path):
        self.home = home

    def __call__(self, *args: str) -> str:
        from reasonlake.cli import main

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["--home", str(self.home), *args])
        if code != 0:
            raise AssertionError(f"reasonlake {' '.join(args)}: exit {code}\n{out.getvalue()}\n{err.getvalue()}")
        return out.getvalue()


@dataclass
class EngineRun:
    exported: dict[int, set[Triple]] = field(default_factory=dict)  # batch -> triples at its close
    violations: dict[int, list[dict]] = field(default_factory=dict)  # batch -> violations (JSON)
    quarantined: str = ""  # ingest report lines of quarantined rows, if any


def iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def run_engine(cli: Cli, work: Path, name: str, profile: str, unique_names: bool,
               cases: list[Prepared], batches: int) -> EngineRun:
    """One view over all ``cases``: combined TBox, one event per batch, one close per batch."""
    work.mkdir(parents=True, exist_ok=True)
    ontology = sorted({t for c in cases for t in c.tbox})
    (work / f"{name}.nt").write_text("".join(f"{s} {p} {o} .\n" for s, p, o in ontology), encoding="utf-8")
    lines = []
    for k in range(batches):
        graph = f"<urn:conformance:batch:{k}>"
        quads = [f"{s} {p} {o} {graph} .\n" for c in cases if c.batch == k for s, p, o in c.abox]
        if quads:  # an empty window streams nothing at all
            stamp = f'"{iso(k * HOUR + 1000)}"^^<{XSD}dateTime>'
            lines += [f"{graph} <{PROV_GENERATED_AT}> {stamp} .\n", *quads]
    events = work / f"{name}.nq"
    events.write_text("".join(lines), encoding="utf-8")
    (work / f"{name}.yaml").write_text(
        f"name: {name}\nstream: {name}_stream\nontology: [{name}.nt]\nprofile: {profile}\n"
        f"unique_names: {'true' if unique_names else 'false'}\n"
        "window: {width: 1h, slide: 1h, start: 0}\n", encoding="utf-8")

    run = EngineRun()
    cli("view", "create", str(work / f"{name}.yaml"))
    report = cli("ingest", f"{name}_stream", str(events))
    run.quarantined = "\n".join(line for line in report.splitlines() if line.strip().startswith("quarantined"))
    cli("slide", name, "--until", iso(batches * HOUR))
    for k in range(batches):
        close = iso((k + 1) * HOUR)
        here = [c for c in cases if c.batch == k]
        if any(c.instance for c in here):
            out = cli("export", name, "--close", close)
            run.exported[k] = {_triple(line) for line in out.splitlines() if line}
            literal_subjects = sorted(t for t in run.exported[k] if t[0].startswith('"'))
            assert not literal_subjects, (
                "the engine now derives triples with a literal subject, so cases sharing a literal "
                f"can meet: batch them apart (assign_batches) first; e.g. {literal_subjects[:3]}")
        if any(c.case.kind == INCONSISTENCY for c in here):
            out = cli("violations", name, "--close", close, "--format", "json")
            run.violations[k] = [json.loads(line) for line in out.splitlines() if line.strip()]
    return run


def _triple(line: str) -> Triple:
    tokens = split_statement(line)
    assert len(tokens) == 3, line
    return tokens[0], tokens[1], tokens[2]


# ---- verdicts -----------------------------------------------------------------------------------


class CaseFailed(AssertionError):
    """A case's verdict is negative (as opposed to the runner failing to reach a verdict)."""


class UnexpectedVerdict(AssertionError):
    """A case fails otherwise than its expected failure says; never taken for that failure
    (the tests expect ``CaseFailed`` alone, which this is not)."""


RECORD = "REASONLAKE_DRIVER_MEMORY=2g .venv/bin/python -m tests.conformance.record_expected_missing"


@dataclass(frozen=True)
class Outcome:
    passed: bool
    detail: str
    checked_by: str  # "engine", "schema" (pure Python), "engine+schema" or "vacuous"
    # the conclusion triples not entailed, as the case writes them; None for an INCONSISTENCY case
    missing: tuple[Triple, ...] | None = None
    unsound: tuple[Triple, ...] = ()  # exported, not in owlrl's closure of the premises


def nt(triple: Triple) -> str:
    """A triple as an N-Triples line, as ``expected_missing.json`` lists it."""
    return " ".join(triple) + " ."


def belongs(triple: Triple, number: int) -> bool:
    """Whether every case-specific term of ``triple`` is case ``number``'s."""
    return all(owner(x) in (None, number) for x in triple)


def judge(c: Prepared, run: EngineRun | None, schema: set[Triple],
          unsound: list[Triple] = ()) -> Outcome:
    """The case's verdict; ``unsound``: its exported triples outside owlrl's closure of its premises
    (``soundness``), which make a positive case fail however complete it is."""
    if c.case.kind == INCONSISTENCY:
        mine = [v for v in run.violations.get(c.batch, ()) if _violation_of(v, c.number)]
        if mine:
            return Outcome(True, f"{len(mine)} violation(s): {sorted({v['rule'] for v in mine})}", "engine")
        return Outcome(False, "no violation over the case's triples was reported", "engine")
    if not c.case.conclusion:
        return Outcome(True, "empty conclusion", "vacuous", missing=())
    exported = {t for t in run.exported.get(c.batch, ()) if belongs(t, c.number)} if c.instance else set()
    patterns = [(t, exported) for t in c.instance] + [(t, schema) for t in c.schema]
    by = "engine+schema" if c.instance and c.schema else "engine" if c.instance else "schema"
    unsound = tuple(unsound)
    extra = ("unsound (exported, not in owlrl's closure of the premises): "
             + "; ".join(" ".join(t) for t in unsound)) if unsound else ""
    if match(patterns) is not None:
        if extra:
            return Outcome(False, f"all conclusion triples entailed, but {extra}", by, (), unsound)
        return Outcome(True, "all conclusion triples entailed", by, ())
    missing = [t for t, triples in patterns if match([(t, triples)]) is None]
    shown = missing or [t for t, _ in patterns]
    what = "missing" if missing else "not jointly matched (shared blank nodes)"
    detail = f"{what}: " + "; ".join(" ".join(t) for t in shown)
    # each there alone but not together: the triples a blank node ties together count as missing
    missing = missing or [t for t, _ in patterns if any(x.startswith("?") for x in t)]
    return Outcome(False, f"{detail}; {extra}" if extra else detail, by,
                   tuple(sorted(c.own[t] for t in missing)), unsound)


def assert_as_expected(key: str, outcome: Outcome, expected_failure: bool,
                       listed: frozenset[str] | None) -> None:
    """Return if case ``key`` passes and should; raise ``CaseFailed`` if it fails as expected;
    raise ``UnexpectedVerdict`` if it fails in any other way.

    ``listed``: the N-Triples lines ``expected_missing.json`` gives for the case. A positive
    case expected to fail fails as expected only when the triples it misses are exactly those
    and nothing it exported is unsound; an INCONSISTENCY case has no triples to compare, and
    its expected failure stays per case.
    """
    if outcome.unsound:
        raise UnexpectedVerdict(
            f"{key}: unsound, exported but not in owlrl's closure of the premises: "
            + "; ".join(map(nt, outcome.unsound)) + f"\n({outcome.checked_by}) {outcome.detail}")
    if outcome.passed:
        if expected_failure:
            raise UnexpectedVerdict(f"{key} passes now: take it out of EXPECTED_FAILURES (expected_failures.py) "
                                    f"and re-record the expected missing triples: {RECORD}")
        return
    failed = f"{key} ({outcome.checked_by}): {outcome.detail}"
    if expected_failure and outcome.missing is not None:
        _assert_missing_as_listed(key, {nt(t) for t in outcome.missing}, listed)
    raise CaseFailed(failed)


def _assert_missing_as_listed(key: str, missing: set[str], listed: frozenset[str] | None) -> None:
    if listed is None:
        raise UnexpectedVerdict(f"{key} is an expected failure with no triples listed in expected_missing.json "
                                f"(it misses {sorted(missing)}): {RECORD}")
    newly, entailed = sorted(missing - listed), sorted(listed - missing)
    if newly or entailed:
        raise UnexpectedVerdict(
            f"{key} misses other conclusion triples than expected_missing.json lists; newly missing: {newly}; "
            f"listed but now entailed: {entailed}. If the engine's change is meant, re-record: {RECORD}")


def _violation_of(violation: dict, number: int) -> bool:
    triples = [_triple(t["triple"]) for t in violation.get("triples", ())]
    terms = [x for t in triples for x in t]
    return bool(terms) and all(belongs(t, number) for t in triples) and any(owner(x) == number for x in terms)


def run_profile(root: Path, profile_dir: str, cli: Cli, work: Path) -> dict[str, Outcome]:
    """Every case of one profile folder, judged."""
    settings = PROFILES[profile_dir]
    folders = case_dirs(root)[profile_dir]
    prepared = [prepare(load_case(folder, profile_dir), n) for n, folder in enumerate(folders, 1)]
    engine_cases = [c for c in prepared if c.engine]
    batches = assign_batches(engine_cases)
    run = run_engine(cli, work / profile_dir, f"conformance_{profile_dir}", settings["profile"],
                     settings["unique_names"], engine_cases, batches) if engine_cases else None
    if run is not None and run.quarantined:
        raise AssertionError(f"ingest quarantined rows of the {profile_dir} cases:\n{run.quarantined}")
    shared = shared_schema(engine_cases)
    per_batch = defaultdict(int)
    for c in engine_cases:
        per_batch[c.batch] += 1
    outcomes = {}
    for c in prepared:
        schema = engine_schema(c, settings["profile"], settings["unique_names"]) if c.schema else set()
        unsound = unsound_schema(c, settings["profile"], schema) if c.schema else []
        if run is not None and sound_in_scope(c):
            closure = premise_closure(c, settings["profile"], shared)
            unsound += soundness(c, run, closure, alone=per_batch[c.batch] == 1)
        outcomes[c.case.key] = judge(c, run if c.engine else None, schema, unsound)
    return outcomes
