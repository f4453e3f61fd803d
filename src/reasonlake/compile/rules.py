"""The rule catalogue: every rule reasonlake knows, named by its W3C / RDFS id.

Rules are data. A compiled program instantiates them with the TBox folded in; the engine
only knows rule *shapes* (a single-premise mapping, a transitive join, ...), never an
ontology.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    id: str
    shape: str  # "linear" (one premise, TBox folded in) | "transitive" | "schema" (TBox only)
    body: str
    head: str


CATALOGUE = {
    r.id: r
    for r in (
        Rule("rdfs2", "linear", "P rdfs:domain C . x P y", "x rdf:type C"),
        Rule("rdfs3", "linear", "P rdfs:range C . x P y", "y rdf:type C"),
        Rule("rdfs5", "schema", "P ⊑ Q . Q ⊑ R", "P ⊑ R"),
        Rule("rdfs7", "linear", "P rdfs:subPropertyOf Q . x P y", "x Q y"),
        Rule("rdfs9", "linear", "C rdfs:subClassOf D . x rdf:type C", "x rdf:type D"),
        Rule("rdfs11", "schema", "C ⊑ D . D ⊑ E", "C ⊑ E"),
        Rule("prp-dom", "linear", "P rdfs:domain C . x P y", "x rdf:type C"),
        Rule("prp-rng", "linear", "P rdfs:range C . x P y", "y rdf:type C"),
        Rule("prp-spo1", "linear", "P rdfs:subPropertyOf Q . x P y", "x Q y"),
        Rule("prp-eqp1", "linear", "P owl:equivalentProperty Q . x P y", "x Q y"),
        Rule("prp-eqp2", "linear", "P owl:equivalentProperty Q . x Q y", "x P y"),
        Rule("prp-inv1", "linear", "P owl:inverseOf Q . x P y", "y Q x"),
        Rule("prp-inv2", "linear", "P owl:inverseOf Q . x Q y", "y P x"),
        Rule("prp-symp", "linear", "P a owl:SymmetricProperty . x P y", "y P x"),
        Rule("prp-trp", "transitive", "P a owl:TransitiveProperty . x P y . y P z", "x P z"),
        Rule("eq-sym", "linear", "x owl:sameAs y", "y owl:sameAs x"),
        Rule("cax-sco", "linear", "C rdfs:subClassOf D . x rdf:type C", "x rdf:type D"),
        Rule("cax-eqc1", "linear", "C owl:equivalentClass D . x rdf:type C", "x rdf:type D"),
        Rule("cax-eqc2", "linear", "C owl:equivalentClass D . x rdf:type D", "x rdf:type C"),
        Rule("scm-sco", "schema", "C ⊑ D . D ⊑ E", "C ⊑ E"),
        Rule("scm-spo", "schema", "P ⊑ Q . Q ⊑ R", "P ⊑ R"),
    )
}

# Which rule ids a profile may use; rule ids of the RDFS semantics for `rdfs`, the W3C
# OWL 2 RL ids for the OWL profiles (IMaRS's RDFS+ is the `rdfs-plus` set).
PROFILE_RULES = {
    "rdfs": ("rdfs2", "rdfs3", "rdfs5", "rdfs7", "rdfs9", "rdfs11"),
    "rdfs-plus": (
        "prp-dom", "prp-rng", "prp-spo1", "cax-sco", "scm-sco", "scm-spo",
        "prp-trp", "prp-inv1", "prp-inv2", "eq-sym", "prp-symp",
        "prp-eqp1", "prp-eqp2", "cax-eqc1", "cax-eqc2",
    ),
}
