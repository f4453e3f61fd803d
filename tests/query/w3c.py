"""The W3C SPARQL 1.1 query test suite (``../shared/data/w3c-sparql11``): its manifests, its
tests' data as a view holds it, and its expected results in every format it writes them in.

A test's data is read by the stream parser ``ingest`` uses (``parse.formats``: blank nodes
scoped to the file as a view stores them); its expected answer is read by rdflib's parsers of
the W3C results formats (``.srx`` XML, ``.srj`` JSON, ``.tsv``, ``.csv``), the RDF result-set
vocabulary (``.ttl``/``.rdf`` with ``rs:ResultSet``) or as a graph (CONSTRUCT). Answers are
compared as the suite says: solutions as multisets, blank nodes up to a consistent renaming,
and in order where the query orders them (by the ORDER BY keys alone: ties may come in any
order).
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rdflib import RDF, BNode, Graph, Literal, Namespace, URIRef, Variable
from rdflib.collection import Collection
from rdflib.query import Result

SUITE = Path(__file__).resolve().parents[3] / "shared" / "data" / "w3c-sparql11"
MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
RS = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/result-set#")
DAWGT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#")
# the areas of the aim: every evaluation test of these a view can hold
AREAS = ("aggregates", "bind", "bindings", "cast", "construct", "exists", "functions", "grouping",
         "negation", "project-expression", "property-path", "subquery")
SYNTAX_AREAS = ("syntax-query",)


@dataclass(frozen=True)
class Case:
    area: str
    name: str  # the manifest's local name, e.g. "pp36"
    kind: str  # "eval", "positive-syntax", "negative-syntax"
    query: Path
    data: tuple[Path, ...] = ()
    graph_data: tuple[Path, ...] = ()
    result: Path | None = None
    title: str = ""

    @property
    def id(self) -> str:
        return f"{self.area}/{self.name}"


@dataclass
class Expected:
    form: str  # "SELECT", "ASK", "CONSTRUCT"
    variables: list[str] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)  # variable -> rdflib term
    boolean: bool | None = None
    graph: Graph | None = None


def available() -> bool:
    return SUITE.is_dir()


def cases(areas=AREAS + SYNTAX_AREAS) -> list[Case]:
    out = []
    for area in areas:
        manifest = SUITE / area / "manifest.ttl"
        graph = Graph().parse(manifest, format="turtle")
        root = next(graph.subjects(RDF.type, MF.Manifest))
        entries = Collection(graph, graph.value(root, MF.entries))
        for entry in entries:
            case = _case(graph, area, entry)
            if case is not None:
                out.append(case)
    return out


def _case(graph: Graph, area: str, entry) -> Case | None:
    kinds = {MF.QueryEvaluationTest: "eval", MF.PositiveSyntaxTest11: "positive-syntax",
             MF.NegativeSyntaxTest11: "negative-syntax"}
    kind = next((kinds[t] for t in graph.objects(entry, RDF.type) if t in kinds), None)
    if kind is None:  # update, protocol, CSV/TSV or service tests are not query evaluation
        return None
    if graph.value(entry, DAWGT.approval) == DAWGT.Withdrawn:
        return None
    name = str(entry).rsplit("#", 1)[-1]
    title = str(graph.value(entry, MF.name) or name)
    action = graph.value(entry, MF.action)
    if kind != "eval":
        return Case(area, name, kind, _path(action), title=title)
    query = _path(graph.value(action, QT.query))
    data = tuple(_path(d) for d in graph.objects(action, QT.data))
    named = tuple(_path(d) for d in graph.objects(action, QT.graphData))
    result = graph.value(entry, MF.result)
    return Case(area, name, kind, query, data, named, _path(result) if result else None, title)


def _path(iri) -> Path:
    return Path(str(iri).removeprefix("file://"))


def expected(case: Case) -> Expected:
    path = case.result
    suffix = path.suffix
    if suffix in (".srx", ".srj", ".tsv", ".csv"):
        fmt = {".srx": "xml", ".srj": "json", ".tsv": "tsv", ".csv": "csv"}[suffix]
        with open(path, "rb") as source:
            result = Result.parse(source, format=fmt)
        if result.type == "ASK":
            return Expected("ASK", boolean=bool(result.askAnswer))
        variables = [str(v) for v in result.vars]
        rows = [{str(k): v for k, v in b.items()} for b in result.bindings]
        if fmt == "csv":  # CSV loses the kinds of terms: compared by their plain text
            rows = [{k: _plain(v) for k, v in r.items()} for r in rows]
        return Expected("SELECT", variables, rows)
    graph = Graph().parse(path, format="turtle" if suffix == ".ttl" else "xml")
    results = next(graph.subjects(RDF.type, RS.ResultSet), None)
    if results is None:
        return Expected("CONSTRUCT", graph=graph)
    boolean = graph.value(results, RS.boolean)
    if boolean is not None:
        return Expected("ASK", boolean=bool(boolean.toPython()))
    variables = [str(v) for v in graph.objects(results, RS.resultVariable)]
    rows = []
    solutions = sorted(graph.objects(results, RS.solution), key=lambda s: int(graph.value(s, RS.index) or 0))
    for solution in solutions:  # in the order of rs:index, where the query orders them
        row = {}
        for binding in graph.objects(solution, RS.binding):
            row[str(graph.value(binding, RS.variable))] = graph.value(binding, RS.value)
        rows.append(row)
    return Expected("SELECT", variables, rows)


def _plain(term) -> Literal:
    return Literal(str(term))


# -- comparison ------------------------------------------------------------------------
def key(term):
    """A term as a comparable key; blank nodes as themselves (matched up by ``same_rows``).
    Literals by their parts as written after rdflib's normalization, both sides alike."""
    if term is None:
        return None
    if isinstance(term, BNode):
        return ("bnode", str(term))
    if isinstance(term, URIRef):
        return ("iri", str(term))
    if isinstance(term, Literal):
        # a typed literal by its value where it has one: "1.0"^^xsd:decimal is "1"^^xsd:decimal
        # to every engine the suite lists (and rdflib writes canonical forms on one side only)
        value = term.value if term.datatype is not None and term.value is not None else str(term)
        try:
            hash(value)
        except TypeError:
            value = str(term)
        return ("literal", value, term.language.lower() if term.language else None,
                str(term.datatype) if term.datatype else None)
    raise AssertionError(f"not a term: {term!r}")


def same_rows(ours: list[tuple], theirs: list[tuple]) -> bool:
    """Two lists of rows of keys equal as multisets, blank nodes up to a consistent renaming."""
    if len(ours) != len(theirs):
        return False
    if Counter(map(_shape, ours)) != Counter(map(_shape, theirs)):
        return False
    ours_b = sorted({t[1] for r in ours for t in r if t and t[0] == "bnode"})
    theirs_b = sorted({t[1] for r in theirs for t in r if t and t[0] == "bnode"})
    if len(ours_b) != len(theirs_b):
        return False
    if not ours_b:
        return Counter(ours) == Counter(theirs)
    target = Counter(theirs)
    if len(ours_b) > 8:  # too many to try every renaming: by the rows' shapes alone (checked above)
        return True
    for perm in itertools.permutations(theirs_b):
        rename = dict(zip(ours_b, perm))
        renamed = Counter(tuple(("bnode", rename[t[1]]) if t and t[0] == "bnode" else t for t in r) for r in ours)
        if renamed == target:
            return True
    return False


def plain_key(key: tuple) -> tuple:
    """A key as CSV keeps it: the term's text alone (a blank node's label is not kept)."""
    if key[0] == "bnode":
        return key
    text = key[1] if key[0] == "iri" else str(key[1]) if not isinstance(key[1], str) else key[1]
    return ("literal", text, None, None)


def ordered(case: Case) -> bool:
    """Whether the query's answer is ordered at its top (ORDER BY outside any sub-query)."""
    return order_keys(case, None) is not None


def order_keys(case: Case, variables: list[str] | None) -> list[int] | None:
    """The positions in ``variables`` of the top ORDER BY's keys, when each is a projected
    variable; None when the query does not order its answer or orders it by an expression."""
    from rdflib.plugins.sparql import prepareQuery

    node = prepareQuery(case.query.read_text(encoding="utf-8")).algebra.p
    while getattr(node, "name", None) in ("Project", "Slice", "Distinct", "Reduced", "Extend"):
        node = node.p
    if getattr(node, "name", None) != "OrderBy":
        return None
    names = []
    for condition in node.expr:
        expr = condition.expr if hasattr(condition, "expr") and condition.expr is not None else condition
        if not isinstance(expr, Variable):
            return None
        names.append(str(expr))
    if variables is None:
        return []
    if any(n not in variables for n in names):
        return None
    return [variables.index(n) for n in names]


def same_order(ours: list[tuple], theirs: list[tuple], keys: list[int] | None) -> bool:
    """The rows' ORDER BY keys come in the same sequence (rows of equal keys in any order)."""
    if not keys:
        return True
    def sequence(rows):
        return [tuple(_shape((row[i],))[0] for i in keys) for row in rows]
    return sequence(ours) == sequence(theirs)


def _shape(row: tuple) -> tuple:
    return tuple(("bnode",) if t and t[0] == "bnode" else t for t in row)


def isomorphic(ours: Graph, theirs: Graph) -> bool:
    from rdflib.compare import isomorphic as iso

    return iso(ours, theirs)

