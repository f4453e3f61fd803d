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
from reasonlake.vocab import OWL, OWL_NOTHING, OWL_THING, TYPE, iri


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
