"""The independent oracle: owlrl's from-scratch closure of a window's items."""
from __future__ import annotations

import owlrl
from rdflib import Graph, Literal, URIRef

from reasonlake.vocab import TYPE

OWL_NS = "http://www.w3.org/2002/07/owl#"


def _node(term: str):
    if term.startswith("<"):
        return URIRef(term[1:-1])
    raise ValueError(f"oracle streams use IRIs only: {term}")


def closure(tbox_turtle: str, items: set[tuple[str, str, str]], profile: str,
            instances: set[str], properties: set[str], classes: set[str]) -> set[str]:
    """N-Triples lines of the instance-level entailments of TBox + items.

    Noise filtered out, in writing: TBox triples, and anything whose subject is not one of
    the stream's individuals, whose predicate is not one of the ontology's properties (or
    rdf:type / owl:sameAs), or which types an individual with a class outside the ontology
    (owl:Thing, rdfs:Resource and the like).
    """
    graph = Graph()
    graph.parse(data=tbox_turtle, format="turtle")
    for s, p, o in items:
        graph.add((_node(s), _node(p), _node(o)))
    semantics = owlrl.RDFS_Semantics if profile == "rdfs" else owlrl.OWLRL_Semantics
    owlrl.DeductiveClosure(semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(graph)
    out = set()
    for s, p, o in graph:
        if isinstance(o, Literal):
            continue
        s_t, p_t, o_t = s.n3(), p.n3(), o.n3()
        if s_t not in instances:
            continue
        if p_t == TYPE:
            if o_t in classes:
                out.add(f"{s_t} {p_t} {o_t} .")
        elif p_t in properties and o_t in instances:
            out.add(f"{s_t} {p_t} {o_t} .")
        elif p_t == f"<{OWL_NS}sameAs>" and s_t != o_t and o_t in instances:
            out.add(f"{s_t} {p_t} {o_t} .")
    return out
