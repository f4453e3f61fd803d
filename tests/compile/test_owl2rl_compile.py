"""The owl2rl compiler in pure Python: what an ontology activates, what it ignores and why,
stable names for anonymous class expressions."""
from __future__ import annotations

from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import ANONYMOUS_PREFIX, load_tbox
from reasonlake.declare.view import OntologySource

TTL = """
@prefix : <http://e/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:A owl:equivalentClass [ owl:intersectionOf ( :B [ a owl:Restriction ; owl:onProperty :p ; owl:someValuesFrom :C ] ) ] .
:Two rdfs:subClassOf [ a owl:Restriction ; owl:onProperty :p ; owl:minCardinality "2"^^xsd:nonNegativeInteger ] .
:Colour owl:oneOf ( :red :green ) .
:f a owl:FunctionalProperty .
:x :p :y .
"""


def _program(unique_names=True, text=TTL):
    return compile_program(load_tbox((OntologySource("o.ttl", text, "turtle"),)), "owl2rl", unique_names)


def test_anonymous_class_expressions_get_the_same_names_in_every_load():
    first = load_tbox((OntologySource("o.ttl", TTL, "turtle"),))
    second = load_tbox((OntologySource("o.ttl", TTL, "turtle"),))
    assert first == second
    anonymous = {t for triple in first for t in triple if t.startswith(f"<{ANONYMOUS_PREFIX}")}
    assert len(anonymous) >= 3  # the intersection, the restriction, the list cells


def test_ignored_axioms_are_listed_with_the_reason():
    reasons = dict(_program().ignored)
    assert any("minCardinality" in axiom and "outside OWL 2 RL" in why for axiom, why in reasons.items())
    assert reasons["<http://e/x> <http://e/p> <http://e/y> ."].startswith("an instance assertion")


def test_rules_and_equality_setting():
    una = _program(unique_names=True)
    std = _program(unique_names=False)
    assert {"cls-int1", "cls-int2", "cls-svf1", "cls-oo", "prp-fp"} <= set(una.active_rules())
    assert [r.rule for r in una.negative() if r.rule == "prp-fp"] == ["prp-fp"]
    assert not [r for r in std.negative() if r.rule == "prp-fp"]
    assert {"eq-rep-s", "eq-rep-p", "eq-rep-o", "eq-trans"} <= set(std.active_rules())
    assert not {"eq-rep-s", "eq-trans"} & set(una.active_rules())
    assert sorted(t for _, t in una.background) == [
        ("<http://e/green>", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", "<http://e/Colour>"),
        ("<http://e/red>", "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", "<http://e/Colour>"),
    ]


def test_rdfs_plus_profile_ignores_owl2rl_constructs():
    program = compile_program(load_tbox((OntologySource("o.ttl", TTL, "turtle"),)), "rdfs-plus")
    assert not program.joins
    assert any("intersectionOf" in axiom for axiom, _ in program.ignored)
