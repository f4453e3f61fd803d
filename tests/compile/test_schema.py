"""The saturated schema read back from a compiled program."""
from __future__ import annotations

from reasonlake.compile.program import compile_program
from reasonlake.compile.schema import (
    DOMAIN,
    EQUIVALENT_CLASS,
    EQUIVALENT_PROPERTY,
    INVERSE_OF,
    OWL_CLASS,
    RANGE,
    SUB_CLASS_OF,
    SUB_PROPERTY_OF,
    saturated_schema,
)
from reasonlake.vocab import OWL, OWL_NOTHING, OWL_THING, RDFS, TYPE, iri


def ex(name: str) -> str:
    return f"<http://example.org/{name}>"


TBOX = frozenset({
    (ex("A"), SUB_CLASS_OF, ex("B")),
    (ex("B"), EQUIVALENT_CLASS, ex("C")),
    (ex("C"), SUB_CLASS_OF, ex("D")),
    (ex("p"), SUB_PROPERTY_OF, ex("q")),
    (ex("q"), SUB_PROPERTY_OF, ex("p")),
    (ex("q"), DOMAIN, ex("A")),
    (ex("q"), RANGE, ex("C")),
    (ex("p"), INVERSE_OF, ex("r")),
    (ex("t"), TYPE, iri(OWL + "TransitiveProperty")),
})


def test_owl2rl_schema_closes_hierarchies_equivalences_and_domains():
    schema = saturated_schema(compile_program(TBOX, "owl2rl", unique_names=False))
    for sub, sup in (("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("C", "B"), ("B", "D")):
        assert (ex(sub), SUB_CLASS_OF, ex(sup)) in schema
    assert (ex("B"), EQUIVALENT_CLASS, ex("C")) in schema and (ex("C"), EQUIVALENT_CLASS, ex("B")) in schema
    assert (ex("A"), EQUIVALENT_CLASS, ex("B")) not in schema
    assert (ex("p"), EQUIVALENT_PROPERTY, ex("q")) in schema
    # domain and range through both hierarchies (scm-dom1/2, scm-rng1/2)
    for prop in ("p", "q"):
        assert {(ex(prop), DOMAIN, ex(c)) for c in "ABCD"} <= schema
        assert {(ex(prop), RANGE, ex(c)) for c in "BCD"} <= schema
        assert (ex(prop), RANGE, ex("A")) not in schema
    assert (ex("p"), INVERSE_OF, ex("r")) in schema and (ex("r"), INVERSE_OF, ex("p")) in schema
    assert (ex("t"), TYPE, iri(OWL + "TransitiveProperty")) in schema
    assert {(OWL_THING, TYPE, OWL_CLASS), (OWL_NOTHING, TYPE, OWL_CLASS)} <= schema
    assert not any(s == o and p in (SUB_CLASS_OF, EQUIVALENT_CLASS) for s, p, o in schema)


def test_rdfs_schema_has_no_owl_terms():
    tbox = frozenset(t for t in TBOX if t[1] in (SUB_CLASS_OF, SUB_PROPERTY_OF, DOMAIN, RANGE))
    schema = saturated_schema(compile_program(tbox, "rdfs"))
    assert (ex("A"), SUB_CLASS_OF, ex("B")) in schema and (ex("p"), DOMAIN, ex("A")) in schema
    assert not any(OWL in term for triple in schema for term in triple)


# --- subsumption between restrictions (OWL 2 RL Table 9), and rdfs12

ON, SVF, AVF, HV = (iri(OWL + x) for x in ("onProperty", "someValuesFrom", "allValuesFrom", "hasValue"))


def _restrictions(*specs: tuple[str, str, str, str]) -> set[tuple[str, str, str]]:
    """(node, kind, property, filler) -> the restriction triples."""
    return {t for node, kind, prop, filler in specs for t in ((ex(node), ON, ex(prop)), (ex(node), kind, ex(filler)))}


def _sub_classes(tbox: set) -> set[tuple[str, str]]:
    schema = saturated_schema(compile_program(frozenset(tbox), "owl2rl"))
    return {(s, o) for s, p, o in schema if p == SUB_CLASS_OF}


def _same_property_sub_class_filler(kind: str) -> None:
    """scm-svf1 / scm-avf1: one property, fillers C1 ⊑ C2 give R1 ⊑ R2, and nothing else."""
    tbox = _restrictions(("R1", kind, "p", "C1"), ("R2", kind, "p", "C2"), ("R3", kind, "q", "C2"))
    tbox |= {(ex("C1"), SUB_CLASS_OF, ex("C2"))}
    subs = _sub_classes(tbox)
    assert (ex("R1"), ex("R2")) in subs
    assert (ex("R2"), ex("R1")) not in subs  # the filler is not a sub-class the other way
    assert (ex("R1"), ex("R3")) not in subs  # another property, not a sub-property


def test_scm_svf1():
    _same_property_sub_class_filler(SVF)


def test_scm_svf2():
    tbox = _restrictions(("R1", SVF, "p", "C"), ("R2", SVF, "q", "C"), ("R3", SVF, "q", "D"))
    tbox |= {(ex("p"), SUB_PROPERTY_OF, ex("q"))}
    subs = _sub_classes(tbox)
    assert (ex("R1"), ex("R2")) in subs
    assert (ex("R2"), ex("R1")) not in subs and (ex("R1"), ex("R3")) not in subs


def test_scm_avf1():
    _same_property_sub_class_filler(AVF)


def test_scm_avf2():
    tbox = _restrictions(("R1", AVF, "p", "C"), ("R2", AVF, "q", "C"), ("R3", AVF, "q", "D"))
    tbox |= {(ex("p"), SUB_PROPERTY_OF, ex("q"))}
    subs = _sub_classes(tbox)
    assert (ex("R2"), ex("R1")) in subs  # all values over the super-property: the smaller class
    assert (ex("R1"), ex("R2")) not in subs and (ex("R3"), ex("R1")) not in subs


def test_scm_hv():
    tbox = _restrictions(("R1", HV, "p", "v"), ("R2", HV, "q", "v"), ("R3", HV, "q", "w"), ("R4", HV, "p", "v"))
    tbox |= {(ex("p"), SUB_PROPERTY_OF, ex("q"))}
    program = compile_program(frozenset(tbox), "owl2rl")
    subs = _sub_classes(tbox)
    assert (ex("R1"), ex("R2")) in subs and (ex("R2"), ex("R1")) not in subs
    assert (ex("R1"), ex("R3")) not in subs  # another value
    assert {(ex("R1"), ex("R4")), (ex("R4"), ex("R1"))} <= subs  # the same restriction twice: equivalent
    assert program.active_rules()["scm-hv"] == 4  # R1 ⊑ R2, R4 ⊑ R2, R1 ≡ R4


def test_restriction_subsumption_reaches_a_fixpoint_through_nested_fillers():
    # R1 = ∃p.C1 ⊑ R2 = ∃p.C2 (scm-svf1) makes S1 = ∃q.R1 ⊑ S2 = ∃q.R2 (scm-svf1 again)
    tbox = _restrictions(("R1", SVF, "p", "C1"), ("R2", SVF, "p", "C2"), ("S1", SVF, "q", "R1"), ("S2", SVF, "q", "R2"))
    tbox |= {(ex("C1"), SUB_CLASS_OF, ex("C2"))}
    subs = _sub_classes(tbox)
    assert {(ex("R1"), ex("R2")), (ex("S1"), ex("S2"))} <= subs
    assert (ex("S2"), ex("S1")) not in subs


def test_rdfs12():
    cmp_, member = iri(RDFS + "ContainerMembershipProperty"), iri(RDFS + "member")
    tbox = frozenset({(ex("p"), TYPE, cmp_), (ex("q"), SUB_PROPERTY_OF, ex("r"))})
    program = compile_program(tbox, "rdfs")
    schema = saturated_schema(program)
    assert (ex("p"), SUB_PROPERTY_OF, member) in schema
    assert (ex("q"), SUB_PROPERTY_OF, member) not in schema
    assert program.active_rules()["rdfs12"] == 1
    assert not program.ignored
