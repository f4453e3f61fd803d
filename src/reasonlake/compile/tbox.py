"""Load a view's ontology files into a set of N-Triples-syntax triples (rdflib).

Blank nodes (anonymous class expressions, RDF lists) get names that depend only on what
they describe, so the same ontology compiles to the same terms in every process: derived
facts such as ``x rdf:type [restriction]`` keep their ids across slides and rebuilds.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict

from rdflib import BNode, Graph

from reasonlake.declare.view import OntologySource
from reasonlake.errors import ViewDeclarationError
from reasonlake.parse.lexical import as_written

Triple = tuple[str, str, str]

# Anonymous TBox terms: internal to the materialization, hidden from export and SQL.
ANONYMOUS_PREFIX = "urn:reasonlake:anon:"


def load_tbox(sources: tuple[OntologySource, ...]) -> frozenset[Triple]:
    triples: set[Triple] = set()
    for number, source in enumerate(sources):
        graph = _parse(source)
        triples |= _named(graph, salt=str(number))
    return frozenset(triples)


def _parse(source: OntologySource) -> Graph:
    # Literals of the ontology (owl:hasValue "05"^^xsd:int) must match the stream's, which
    # keep their lexical form as written.
    with as_written():
        return _parse_any(source)


def _parse_any(source: OntologySource) -> Graph:
    graph = Graph()
    try:
        graph.parse(data=source.text, format=source.format)
    except Exception as exc:  # rdflib raises many types; the message is what matters
        if source.format != "n3":
            raise _parse_error(source, exc) from None
        # Files named .n3 are often plain N-Triples (Brick ships one).
        try:
            graph = Graph()
            graph.parse(data=source.text, format="nt")
        except Exception:
            raise _parse_error(source, exc) from None
    return graph


def _named(graph: Graph, salt: str) -> set[Triple]:
    """The graph's triples with every blank node named by a hash of its description."""
    out_edges: dict[BNode, list] = defaultdict(list)
    in_edges: dict[BNode, list] = defaultdict(list)
    for s, p, o in graph:
        if isinstance(s, BNode):
            out_edges[s].append((p, o))
        if isinstance(o, BNode):
            in_edges[o].append((s, p))
    names: dict[BNode, str] = {}

    def describe(node, depth: int) -> str:
        if not isinstance(node, BNode):
            return node.n3()
        if node in names:
            return names[node]
        if depth > 50:  # a cycle of blank nodes: cut it (names stay deterministic)
            return "_cycle_"
        parts = sorted(f"{p.n3()} {describe(o, depth + 1)}" for p, o in out_edges.get(node, ()))
        if not parts:  # described only from outside
            parts = sorted(f"^{p.n3()} {describe(s, depth + 1)}" for s, p in in_edges.get(node, ()))
        digest = hashlib.sha256((salt + "\n" + "\n".join(parts)).encode()).hexdigest()[:20]
        names[node] = f"<{ANONYMOUS_PREFIX}{digest}>"
        return names[node]

    return {(describe(s, 0), p.n3(), describe(o, 0)) for s, p, o in graph}


def _parse_error(source: OntologySource, exc: Exception) -> ViewDeclarationError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ViewDeclarationError(
        f"{source.path}: field 'ontology': cannot parse as {source.format} ({first}); "
        "fix the file or give it the suffix of its syntax (.ttl, .nt, .owl, .jsonld)"
    )
