"""The so-far closure of each item of a fixed window (the thesis, Definition 7.5), written from
the definition and the W3C OWL 2 RL rule table, independent of the engine's rules.

An item's so-far closure holds what the TBox and the window's items up to the item's time
entail through a derivation that uses the item: a fact holds "when the most recent of [its
premises] appears". So each fact is carried with the time of its newest premise, a derivation
taking the latest of its premises' times, and every (fact, time) pair found is kept (a later
item deriving a fact again is a new occurrence of it). The rules are those of ``rdfs-plus``
that a TBox of domains, ranges, sub-classes, sub-properties, transitive, symmetric and
inverse properties fires (prp-dom, prp-rng, cax-sco, prp-spo1, prp-trp, prp-symp,
prp-inv1, prp-inv2), and of ``owl2rl`` that chains of two properties and intersections fire
(prp-spo2, cls-int1, cls-int2), applied naively until nothing new is found. ``closure_agrees_with_owlrl``
checks the facts they reach against owlrl's closure of the same statements.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

from owlrl import DeductiveClosure, OWLRL_Semantics
from rdflib import OWL, RDF, RDFS, Graph, URIRef
from rdflib.collection import Collection

from tests.rspql.events import Item, Triple


class Tbox:
    """The TBox's axioms as look-ups (its sub-class and sub-property chains followed by the
    rules themselves, so scm-sco and scm-spo need no rule of their own)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.domain = _pairs(graph, RDFS.domain)
        self.range = _pairs(graph, RDFS.range)
        self.sub_class = _pairs(graph, RDFS.subClassOf)
        self.sub_property = _pairs(graph, RDFS.subPropertyOf)
        self.inverse = _pairs(graph, OWL.inverseOf)
        self.transitive = set(graph.subjects(RDF.type, OWL.TransitiveProperty))
        self.symmetric = set(graph.subjects(RDF.type, OWL.SymmetricProperty))
        # prp-spo2 over chains of two properties, cls-int1: a class and the classes it intersects
        self.chains = [(q, *Collection(graph, chain)) for q, chain in graph.subject_objects(OWL.propertyChainAxiom)]
        self.intersections = [(c, tuple(Collection(graph, members)))
                              for c, members in graph.subject_objects(OWL.intersectionOf)]
        assert all(len(chain) == 3 for chain in self.chains), "chains of two properties only"

    def one_premise(self, triple: Triple) -> set[Triple]:
        """What the one-premise rules derive from ``triple``."""
        s, p, o = triple
        out = {(s, RDF.type, c) for c in self.domain.get(p, ())}  # prp-dom
        out |= {(o, RDF.type, c) for c in self.range.get(p, ()) if not _literal(o)}  # prp-rng
        out |= {(s, q, o) for q in self.sub_property.get(p, ())}  # prp-spo1
        if p == RDF.type:
            out |= {(s, RDF.type, d) for d in self.sub_class.get(o, ())}  # cax-sco
            out |= {(s, RDF.type, m) for c, members in self.intersections if c == o for m in members}  # cls-int2
        if p in self.symmetric and not _literal(o):
            out.add((o, p, s))  # prp-symp
        if not _literal(o):
            out |= {(o, q, s) for q in self.inverse.get(p, ())}  # prp-inv1
            out |= {(o, q, s) for q, inverses in self.inverse.items() if p in inverses}  # prp-inv2
        return out


def _pairs(graph: Graph, predicate: URIRef) -> dict:
    found: dict = {}
    for s, o in graph.subject_objects(predicate):
        found.setdefault(s, set()).add(o)
    return found


def _literal(term) -> bool:
    return not isinstance(term, URIRef)


def so_far_closures(items: Sequence[Item], tbox: Tbox) -> list[frozenset[Triple]]:
    """Each item's so-far closure within ``items`` (one fixed window), in their order."""
    timed = {(triple, item.timestamp) for item in items for triple in item.statements}
    new = set(timed)
    while new:
        found = set()
        for triple, t in new:
            found |= {(derived, t) for derived in tbox.one_premise(triple)}
            s, p, o = triple
            if p in tbox.transitive:  # prp-trp, with (s p o) as either premise
                found |= {((s, p, o2), max(t, t2)) for (s2, p2, o2), t2 in timed if p2 == p and s2 == o}
                found |= {((s1, p, o), max(t, t1)) for (s1, p1, o1), t1 in timed if p1 == p and o1 == s}
            for q, first, second in tbox.chains:  # prp-spo2, with (s p o) as either link
                if p == first:
                    found |= {((s, q, o2), max(t, t2)) for (s2, p2, o2), t2 in timed if p2 == second and s2 == o}
                if p == second:
                    found |= {((s1, q, o), max(t, t1)) for (s1, p1, o1), t1 in timed if p1 == first and o1 == s}
            for c, members in tbox.intersections:  # cls-int1, with (s a o) as any member
                if p == RDF.type and o in members:
                    others = [[t2 for (s2, p2, o2), t2 in timed if s2 == s and p2 == RDF.type and o2 == m]
                              for m in members if m != o]
                    found |= {((s, RDF.type, c), max(t, *times)) for times in itertools.product(*others)}
        new = found - timed
        timed |= new
    return [frozenset(triple for triple, t in timed if t == item.timestamp) for item in items]


def minimal_intervals(items: Sequence[tuple[Triple, int]], tbox: Tbox) -> set[tuple[Triple, int, int]]:
    """EP-SPARQL's derived occurrences in a fixed window (decision 0074, "Derived intervals"):
    each fact the window's (statement, time) items entail with the TBox, over each minimal
    interval [s, e] of their times whose items entail it (those within no smaller interval
    do). Every interval's closure is computed, from the definition."""
    times = sorted({t for _, t in items})
    spans: dict[Triple, list[tuple[int, int]]] = {}
    for i, start in enumerate(times):
        for end in times[i:]:
            within = frozenset(triple for triple, t in items if start <= t <= end)
            for fact in so_far_closures([Item("s", 0, within)], tbox)[0]:
                spans.setdefault(fact, []).append((start, end))
    return {(fact, s, e) for fact, found in spans.items() for s, e in found
            if not any((s2, e2) != (s, e) and s <= s2 and e2 <= e for s2, e2 in found)}


def entailment(tbox: Tbox):
    """The EventScope's entailment: a window's items to their so-far closures (cached: the
    windows of successive closes overlap)."""
    @lru_cache(maxsize=None)
    def closures(items: tuple[Item, ...]) -> tuple[frozenset[Triple], ...]:
        return tuple(so_far_closures(items, tbox))

    return lambda items: list(closures(tuple(sorted(items, key=lambda item: item.timestamp))))


def closure_agrees_with_owlrl(statements: set[Triple], tbox: Tbox, vocabulary: set) -> tuple[set, set]:
    """The facts the rules reach from ``statements`` (all at one time) beside owlrl's OWL 2 RL
    closure of them with the TBox, both cut to ``vocabulary`` (the stream's predicates and
    classes): (missing from the rules, extra in the rules)."""
    ours = set(so_far_closures([Item("s", 0, frozenset(statements))], tbox)[0])
    graph = Graph()
    for triple in tbox.graph:
        graph.add(triple)
    for triple in statements:
        graph.add(triple)
    DeductiveClosure(OWLRL_Semantics).expand(graph)
    individuals = {t for triple in statements for t in (triple[0], triple[2])}

    def kept(triple: Triple) -> bool:
        s, p, o = triple
        return s in individuals and (o in vocabulary if p == RDF.type else p in vocabulary)

    theirs = {triple for triple in graph if kept(triple)}
    ours = {triple for triple in ours if kept(triple)}
    return theirs - ours, ours - theirs
