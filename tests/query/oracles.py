"""Two SPARQL engines that judge the compiled queries: rdflib's own, and Oxigraph's
(``pyoxigraph``), each answering over the same triples. An answer is the query's form and
its solutions as a multiset of comparable rows (``normal``), or its boolean; an engine
that raises gives ``Failed`` instead of an answer, which no comparison counts."""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from types import MethodType

import pyoxigraph
import rdflib
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.operators import Builtin_STR
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import SPARQLError
from rdflib.namespace import XSD
from rdflib.util import from_n3

from reasonlake.parse.collected import SKOLEM_PREFIX
from reasonlake.query.terms import constant


@dataclass(frozen=True)
class Found:
    """An engine's answer: "ASK" with ``boolean``, or "SELECT" with ``rows`` (a multiset of
    tuples of ``normal`` terms, in the order of ``variables``)."""

    form: str
    variables: tuple[str, ...] = ()
    rows: Counter = field(default_factory=Counter)
    boolean: bool | None = None

    @property
    def empty(self) -> bool:
        return not self.boolean if self.form == "ASK" else not self.rows

    def over(self, variables) -> Found:
        """The same solutions as rows of ``variables`` (one this answer lacks: unbound)."""
        if self.form == "ASK" or tuple(variables) == self.variables:
            return self
        at = [self.variables.index(v) if v in self.variables else None for v in variables]
        rows = Counter()
        for row, n in self.rows.items():
            rows[tuple(None if i is None else row[i] for i in at)] += n
        return Found("SELECT", tuple(variables), rows)


@dataclass(frozen=True)
class Failed:
    """An engine that raised on the query (not an answer to compare with)."""

    engine: str
    error: str


def normal(term):
    """A term as a comparable key: numbers by value (engines may differ on a computed
    number's type: rdflib's ``*`` gives xsd:decimal), other terms as rdflib's (whose
    literals are normalized the same way on both sides)."""
    if term is None:
        return None
    if isinstance(term, URIRef):
        return ("iri", str(term))
    if isinstance(term, BNode):
        return ("bnode",)
    if isinstance(term, Literal):
        value = term.toPython()
        if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool) and term.datatype and \
                str(term.datatype) != str(XSD.boolean):
            return ("number", round(float(value), 9))
        # language tags are case-insensitive (reasonlake keeps them in lower case, rdflib as written)
        language = term.language.lower() if term.language else None
        if term.datatype:  # in rdflib's form of its value ("...Z" and "...+00:00" alike)
            term = Literal(str(term), datatype=term.datatype)
        return ("literal", str(term), language, str(term.datatype) if term.datatype else None)
    raise AssertionError(f"not a term: {term!r}")


def normal_text(text: str | None):
    """``normal`` of an N-Triples term's text (None: unbound)."""
    return None if text is None else normal(from_n3(text))


def graph_as_written(text: str, format: str = "nt") -> Graph:
    """rdflib's graph of ``text`` with each literal's lexical form as written: by default
    rdflib rewrites it from the value on parsing ("...Z" becomes "...+00:00", "7.0" "7"),
    and STR, STRLEN and the like would then read a form the data never held."""
    normalize, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False
    try:
        return Graph().parse(data=text, format=format)
    finally:
        rdflib.NORMALIZE_LITERALS = normalize


# how ``reasonlake export`` writes a view's blank node: its stored IRI (decision 0069)
STORED_BLANK = re.compile(f"<{re.escape(SKOLEM_PREFIX)}([^>]*)>")


def graph_of_export(text: str) -> Graph:
    """rdflib's graph of ``reasonlake export``'s N-Triples (``graph_as_written``), each
    blank node, which the export writes as its stored IRI, a blank node again: as a query
    reads it."""
    return graph_as_written(STORED_BLANK.sub(lambda m: "_:g" + m.group(1).encode().hex(), text))


def terms_as_written(triples) -> list[tuple]:
    """N-Triples terms (text) as rdflib terms with each literal's lexical form as written
    (``graph_as_written``'s reason: ``from_n3`` would rewrite "...Z" as "...+00:00")."""
    from rdflib.util import from_n3

    normalize, rdflib.NORMALIZE_LITERALS = rdflib.NORMALIZE_LITERALS, False
    try:
        return [tuple(from_n3(t) for t in triple) for triple in triples]
    finally:
        rdflib.NORMALIZE_LITERALS = normalize


def rdflib_graph(triples) -> Graph:
    graph = Graph()
    for t in triples:
        graph.add(t)
    return graph


def oxigraph_store(triples) -> pyoxigraph.Store:
    """The triples (rdflib terms) in an Oxigraph store, loaded as N-Triples."""
    store = pyoxigraph.Store()
    text = "".join(f"{constant(s)} {constant(p)} {constant(o)} .\n" for s, p, o in triples)
    store.load(text.encode("utf-8"), pyoxigraph.RdfFormat.N_TRIPLES)
    return store


def by_rdflib(graph: Graph, query: str, variables=None) -> Found | Failed:
    """rdflib's answer; ``variables``: the columns to read (default: the query's own)."""
    try:
        result = graph.query(_str_as_sparql(prepareQuery(query)))
        if result.type == "ASK":
            return Found("ASK", boolean=bool(result.askAnswer))
        names = tuple(variables if variables is not None else (str(v) for v in result.vars or ()))
        rows = Counter(tuple(normal(row.get(v)) for v in names) for row in (r.asdict() for r in result))
    except Exception as exc:  # rdflib's own failure: the generator's notes list the known ones
        return Failed("rdflib", f"{type(exc).__name__}: {exc}"[:200])
    return Found("SELECT", names, rows)


def _str_as_sparql(prepared):
    """rdflib's prepared query with SPARQL's STR: rdflib's gives a blank node's label, where
    STR of a blank node is an error (17.4.2.5), as Oxigraph and reasonlake have it."""
    for node in every_node(prepared.algebra):
        if node.name == "Builtin_STR":
            node._evalfn = MethodType(_sparql_str, node)
    return prepared


def _sparql_str(e, ctx):
    if isinstance(e.arg, BNode):
        raise SPARQLError("STR of a blank node")
    return Builtin_STR(e, ctx)


def every_node(node):
    """Every CompValue of rdflib's algebra below ``node``: patterns, sub-queries and the
    expressions' nodes."""
    if isinstance(node, CompValue):
        yield node
        for key, value in node.items():
            if key != "_vars":
                yield from every_node(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from every_node(value)


def by_oxigraph(store: pyoxigraph.Store, query: str, variables=None) -> Found | Failed:
    """Oxigraph's answer; ``variables``: the columns to read (default: the query's own)."""
    try:
        result = store.query(query)
        if isinstance(result, pyoxigraph.QueryBoolean):
            return Found("ASK", boolean=bool(result))
        names = tuple(variables if variables is not None else (v.value for v in result.variables))
        rows = Counter(tuple(normal_text(None if s[v] is None else str(s[v])) for v in names) for s in result)
    except Exception as exc:
        return Failed("oxigraph", f"{type(exc).__name__}: {exc}"[:200])
    return Found("SELECT", names, rows)
