"""Load a view's ontology files into a set of N-Triples-syntax triples (rdflib)."""
from __future__ import annotations

from rdflib import BNode, Graph

from reasonlake.declare.view import OntologySource
from reasonlake.errors import ViewDeclarationError

Triple = tuple[str, str, str]


def load_tbox(sources: tuple[OntologySource, ...]) -> frozenset[Triple]:
    triples: set[Triple] = set()
    for source in sources:
        graph = Graph()
        try:
            graph.parse(data=source.text, format=source.format)
        except Exception as exc:  # rdflib raises many types; the message is what matters
            if source.format == "n3":
                # Files named .n3 are often plain N-Triples (Brick ships one).
                try:
                    graph = Graph()
                    graph.parse(data=source.text, format="nt")
                except Exception:
                    raise _parse_error(source, exc) from None
            else:
                raise _parse_error(source, exc) from None
        for s, p, o in graph:
            triples.add((_term(s), _term(p), _term(o)))
    return frozenset(triples)


def _term(node) -> str:
    if isinstance(node, BNode):
        return f"_:{node}"
    return node.n3()


def _parse_error(source: OntologySource, exc: Exception) -> ViewDeclarationError:
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ViewDeclarationError(
        f"{source.path}: field 'ontology': cannot parse as {source.format} ({first}); "
        "fix the file or give it the suffix of its syntax (.ttl, .nt, .owl, .jsonld)"
    )
