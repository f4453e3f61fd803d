"""Inconsistency-normal form: negative rules rewritten over explicit assertions through the
TBox, recursion detected and bounded (pure Python: no Spark)."""
from __future__ import annotations

import pytest

from reasonlake.repair import normal_form
from reasonlake.repair.normal_form import RecursiveNegativeInclusion, rewrite
from reasonlake.compile.program import compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.declare.view import OntologySource

EX = "http://example.org/"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
PREFIXES = (f"@prefix : <{EX}> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
            "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")


def _form(ttl: str, depth=None):
    program = compile_program(load_tbox((OntologySource("t.ttl", PREFIXES + ttl, "turtle"),)), "owl2rl", True)
    return rewrite(program, depth)


def _patterns(form, rule):
    """Each pattern as a set of atoms with example.org names shortened."""
    def short(t):
        return t.replace(f"<{EX}", ":").rstrip(">") if t.startswith(f"<{EX}") else ("a" if t == TYPE else t)
    return {frozenset(tuple(short(t) for t in atom) for atom in r.body) for r in form.patterns if r.rule == rule}


def test_cax_dw_through_subclasses_domain_and_range():
    form = _form(":A owl:disjointWith :B . :A1 rdfs:subClassOf :A . :p rdfs:domain :A . :q rdfs:range :B .")
    got = _patterns(form, "cax-dw")
    assert frozenset({("?v0", "a", ":A1"), ("?v0", "a", ":B")}) in got
    assert frozenset({("?v0", ":p", "?v1"), ("?v0", "a", ":B")}) in got
    assert frozenset({("?v0", ":p", "?v1"), ("?v2", ":q", "?v0")}) in got
    assert len(got) == 6  # {A, A1, p-subject} x {B, q-object}


def test_cls_nothing2_through_an_intersection_is_the_conjunction():
    form = _form("[ owl:intersectionOf ( :A :B :C ) ] rdfs:subClassOf owl:Nothing .")
    assert frozenset({("?v0", "a", ":A"), ("?v0", "a", ":B"), ("?v0", "a", ":C")}) in _patterns(form, "cls-nothing2")


def test_prp_fp_with_has_value_keeps_the_constant_distinct():
    form = _form(":s a owl:FunctionalProperty . :Low owl:equivalentClass "
                 "[ a owl:Restriction ; owl:onProperty :s ; owl:hasValue :low ] .")
    fp = [r for r in form.patterns if r.rule == "prp-fp"]
    with_class = [r for r in fp if any(a[1] == TYPE for a in r.body)]
    assert len(with_class) == 1 and with_class[0].distinct == ((f"<{EX}low>", "?v1"),)


def test_a_named_intersection_is_not_recursion():
    form = _form(":C owl:equivalentClass [ owl:intersectionOf ( :A :B ) ] . :C owl:disjointWith :D .")
    got = _patterns(form, "cax-dw")
    assert frozenset({("?v0", "a", ":A"), ("?v0", "a", ":B"), ("?v0", "a", ":D")}) in got
    assert not form.recursive


def test_example5_is_recursive_and_named():
    ttl = "[ a owl:Restriction ; owl:onProperty :R ; owl:someValuesFrom :B ] rdfs:subClassOf :B . :A owl:disjointWith :B ."
    with pytest.raises(RecursiveNegativeInclusion) as raised:
        _form(ttl)
    assert raised.value.recursions[0].negative.rule == "cax-dw"
    assert "cls-svf1" in raised.value.recursions[0].cycle


@pytest.mark.parametrize("depth,longest", [(1, 1), (2, 2), (3, 3)])
def test_example5_rewritten_to_a_depth(depth, longest):
    ttl = "[ a owl:Restriction ; owl:onProperty :R ; owl:someValuesFrom :B ] rdfs:subClassOf :B . :A owl:disjointWith :B ."
    form = _form(ttl, depth)
    chains = [sum(1 for a in p if a[1] == ":R") for p in _patterns(form, "cax-dw")]
    assert sorted(chains) == list(range(longest + 1))  # A(x), B(x) plus R-chains of 1..depth


def test_irreflexive_transitive_property_is_recursive():
    with pytest.raises(RecursiveNegativeInclusion) as raised:
        _form(":p a owl:TransitiveProperty, owl:IrreflexiveProperty .")
    assert raised.value.recursions[0].negative.rule == "prp-irp"


def test_a_premise_the_unification_duplicates_is_unfolded_as_one():
    # B ≡ A ⊓ A is A, and B is disjoint with A: one q edge types its object A, inconsistent
    # alone. Unfolding one of the two copies of `?y a :A` left the other, which the pattern
    # it came from maps into, so the q pattern was pruned and never reached.
    form = _form(":A owl:disjointWith :B . :B owl:equivalentClass [ owl:intersectionOf ( :A :A ) ] . "
                 ":q rdfs:range :A .")
    assert _patterns(form, "cax-dw") == {frozenset({("?v0", "a", ":A")}), frozenset({("?v0", "a", ":B")}),
                                         frozenset({("?v0", ":q", "?v1")})}


def test_a_fresh_variable_beside_its_twin_is_one_atom():
    # p's subject is A and B: one p (or q ⊑ p) edge is the conflict, not two of them.
    form = _form(":A owl:disjointWith :B . :p rdfs:domain :A . :p rdfs:domain :B . :q rdfs:subPropertyOf :p .")
    assert _patterns(form, "cax-dw") == {frozenset({("?v0", "a", ":A"), ("?v0", "a", ":B")}),
                                         frozenset({("?v0", ":p", "?v1")}), frozenset({("?v0", ":q", "?v1")})}


def test_an_individual_typed_through_has_value_and_range_is_not_recursion():
    # x a C1 gives x p1 i0 (cls-hv1), so i0 a C0 (range), and C0 ⊑ C2 ⊑ C0 is disjoint with
    # itself: every p1 edge and every C0, C1, C2 typing is a conflict on its own.
    form = _form(":C2 owl:disjointWith :C0 . :p1 rdfs:domain :C1 . :C0 rdfs:subClassOf :C1 . "
                 ":C1 owl:equivalentClass [ a owl:Restriction ; owl:onProperty :p1 ; owl:hasValue :i0 ] . "
                 ":C2 owl:equivalentClass [ owl:intersectionOf ( :C0 :C0 ) ] . :p1 rdfs:range :C0 .")
    assert not form.recursive
    got = _patterns(form, "cax-dw")
    assert all(len(p) == 1 for p in got)
    for atom in [("?v0", ":p1", "?v1"), ("?v0", "a", ":C0"), ("?v0", "a", ":C1"), ("?v0", "a", ":C2")]:
        assert frozenset({atom}) in got


# Generated by Definition 7's suite (seed 662975713): C3 is unsatisfiable twice over, and
# :i1 gets C1 from any individual typed C1 (hasValue, then range). Every rewriting of that
# other individual's C1 multiplied every rewriting of :i1's atoms: more than 20000 patterns
# after five minutes, where every pattern holding a whole conflict beside other atoms is
# never a minimal conflict set.
UNSATISFIABLE_THROUGH_A_FRESH_INDIVIDUAL = (
    ":C0 owl:disjointWith :C1 . :C3 owl:disjointWith :C0 . :C2 owl:disjointWith :C3 . "
    ":C1 owl:equivalentClass [ a owl:Restriction ; owl:onProperty :p0 ; owl:hasValue :i1 ] . "
    ":p0 rdfs:range :C1 . :C3 owl:equivalentClass [ owl:intersectionOf ( :C1 :C2 ) ] . "
    ":C3 owl:equivalentClass [ owl:intersectionOf ( :C0 :C1 ) ] .")


def test_no_pattern_holds_a_smaller_conflict_of_another_rule(monkeypatch):
    # a twentieth of the bound a view allows: the search itself stays small, not only its result
    monkeypatch.setattr(normal_form, "MAX_PATTERNS", 1000)
    with pytest.raises(RecursiveNegativeInclusion):
        _form(UNSATISFIABLE_THROUGH_A_FRESH_INDIVIDUAL)
    form = _form(UNSATISFIABLE_THROUGH_A_FRESH_INDIVIDUAL, depth=1)
    got = _patterns(form, "cax-dw")
    assert frozenset({("?v0", "a", ":C0"), ("?v0", "a", ":C1")}) in got
    assert frozenset({("?v0", ":p0", ":i1"), ("?v0", "a", ":C0")}) in got
    assert frozenset({("?v0", ":p0", "?v1"), ("?v1", "a", ":C0")}) in got  # C1 by range
    assert frozenset({(":i1", "a", ":C0"), ("?v0", ":p0", "?v1")}) in got  # any p0 item: i1 a C1
    # C2 ⊓ C3 and C0 ⊓ C1 are conflicts of their own: no pattern of three atoms holds one
    for pattern in got:
        classes = {}
        for s, p, o in pattern:
            if p == "a":
                classes.setdefault(s, set()).add(o)
        assert len(pattern) == 2 or not any({":C0", ":C1"} <= c or {":C2", ":C3"} <= c for c in classes.values()), pattern
    assert sum(form.sources.values()) < 100
