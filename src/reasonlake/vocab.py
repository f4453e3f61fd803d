"""IRIs of the RDF, RDFS and OWL vocabularies, and what counts as TBox vocabulary.

Pure Python (no rdflib, no pyspark): shared by input parsing and the rule compiler.
Terms are written in N-Triples syntax everywhere inside reasonlake.
"""
from __future__ import annotations

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
PROV_GENERATED_AT = "http://www.w3.org/ns/prov#generatedAtTime"


def iri(value: str) -> str:
    """An IRI in N-Triples syntax."""
    return f"<{value}>"


TYPE = iri(RDF + "type")
SAME_AS = iri(OWL + "sameAs")
DIFFERENT_FROM = iri(OWL + "differentFrom")
SUB_CLASS_OF = iri(RDFS + "subClassOf")
SUB_PROPERTY_OF = iri(RDFS + "subPropertyOf")
DOMAIN = iri(RDFS + "domain")
RANGE = iri(RDFS + "range")
EQUIVALENT_CLASS = iri(OWL + "equivalentClass")
EQUIVALENT_PROPERTY = iri(OWL + "equivalentProperty")
INVERSE_OF = iri(OWL + "inverseOf")
OWL_THING = iri(OWL + "Thing")
OWL_NOTHING = iri(OWL + "Nothing")
RDFS_RESOURCE = iri(RDFS + "Resource")

# Predicates in the rdfs: and owl: namespaces that are instance-level (ABox) statements or
# harmless annotations; every other rdfs:/owl: predicate states an axiom.
ABOX_PREDICATES = frozenset(
    iri(x)
    for x in (
        OWL + "sameAs",
        OWL + "differentFrom",
        OWL + "members",
        OWL + "distinctMembers",
        OWL + "sourceIndividual",
        OWL + "assertionProperty",
        OWL + "targetIndividual",
        OWL + "targetValue",
        RDFS + "label",
        RDFS + "comment",
        RDFS + "seeAlso",
        RDFS + "isDefinedBy",
    )
)

# rdf:type objects in the rdfs:/owl: namespaces that still describe an individual.
ABOX_TYPES = frozenset(
    iri(x)
    for x in (
        OWL + "Thing",
        OWL + "Nothing",  # x a owl:Nothing asserts an inconsistency about x (cls-nothing2)
        OWL + "NamedIndividual",
        OWL + "AllDifferent",
        OWL + "NegativePropertyAssertion",
        RDFS + "Resource",
    )
)


def tbox_reason(s: str, p: str, o: str) -> str | None:
    """Why a triple is TBox vocabulary (and so not stream content), or None if it is ABox."""
    if p in ABOX_PREDICATES:
        return None
    if p == TYPE:
        if o.startswith("<") and (o.startswith(iri(OWL)[:-1]) or o.startswith(iri(RDFS)[:-1])):
            if o not in ABOX_TYPES:
                return f"TBox vocabulary: rdf:type {o} declares a schema element"
        return None
    if p.startswith(iri(OWL)[:-1]) or p.startswith(iri(RDFS)[:-1]):
        return f"TBox vocabulary: predicate {p} states an axiom"
    if p in (iri(RDF + "first"), iri(RDF + "rest")):
        return None
    return None
