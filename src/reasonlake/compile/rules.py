"""The rule catalogue: every rule reasonlake knows, named by its W3C / RDFS id.

Rules are data. A compiled program instantiates them with the TBox folded in; the engine
only knows rule *shapes*, never an ontology:
- ``linear``: one premise, its TBox part folded into a lookup table (``cax-sco``, ...);
- ``transitive``: ``x P y . y P z`` for the transitive properties (``prp-trp``, ``eq-trans``);
- ``join``: a conjunction of premises sharing variables (``cls-svf1``, ``prp-spo2``, ...);
- ``violation``: a join whose head is ``false``: it produces violation rows, not facts;
- ``background``: facts the TBox alone entails about individuals (``cls-oo``);
- ``literal``: a check of each literal of the facts against its datatype's lexical space
  (``dt-not-type``): violation rows, no join and no TBox;
- ``schema``: runs once on the TBox at compile time (``scm-*``, and the rules whose
  premises and head are all TBox triples).
Rules whose head is ``owl:sameAs`` are joins under standard equality and violations under
the unique name assumption (a view's ``unique_names``).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class RuleShape(StrEnum):
    """How the engine evaluates a rule (the list above)."""

    LINEAR = "linear"
    TRANSITIVE = "transitive"
    JOIN = "join"
    VIOLATION = "violation"
    BACKGROUND = "background"
    LITERAL = "literal"
    SCHEMA = "schema"


@dataclass(frozen=True)
class Rule:
    id: str
    shape: RuleShape
    body: str
    head: str

    def __post_init__(self):  # written as strings below; a misspelt shape fails at import
        object.__setattr__(self, "shape", RuleShape(self.shape))


_RULES = (
    # RDFS semantics (profile `rdfs`)
    Rule("rdfs2", "linear", "P rdfs:domain C . x P y", "x rdf:type C"),
    Rule("rdfs3", "linear", "P rdfs:range C . x P y", "y rdf:type C"),
    Rule("rdfs5", "schema", "P ⊑ Q . Q ⊑ R", "P ⊑ R"),
    Rule("rdfs7", "linear", "P rdfs:subPropertyOf Q . x P y", "x Q y"),
    Rule("rdfs9", "linear", "C rdfs:subClassOf D . x rdf:type C", "x rdf:type D"),
    Rule("rdfs11", "schema", "C ⊑ D . D ⊑ E", "C ⊑ E"),
    Rule("rdfs12", "schema", "P a rdfs:ContainerMembershipProperty", "P rdfs:subPropertyOf rdfs:member"),
    # OWL 2 RL, Table 4: equality
    Rule("eq-sym", "linear", "x owl:sameAs y", "y owl:sameAs x"),
    Rule("eq-trans", "transitive", "x owl:sameAs y . y owl:sameAs z", "x owl:sameAs z"),
    Rule("eq-rep-s", "join", "s owl:sameAs s2 . s p o", "s2 p o"),
    Rule("eq-rep-p", "join", "p owl:sameAs p2 . s p o", "s p2 o"),
    Rule("eq-rep-o", "join", "o owl:sameAs o2 . s p o", "s p o2"),
    Rule("eq-diff1", "violation", "x owl:sameAs y . x owl:differentFrom y", "false"),
    Rule("eq-diff2", "violation", "AllDifferent(members y1..yn) . yi owl:sameAs yj", "false"),
    Rule("eq-diff3", "violation", "AllDifferent(distinctMembers y1..yn) . yi owl:sameAs yj", "false"),
    # Table 5: properties
    Rule("prp-ap", "schema", "P a owl:AnnotationProperty", "(no instance consequence)"),
    Rule("prp-dom", "linear", "P rdfs:domain C . x P y", "x rdf:type C"),
    Rule("prp-rng", "linear", "P rdfs:range C . x P y", "y rdf:type C"),
    Rule("prp-fp", "join", "P a owl:FunctionalProperty . x P y1 . x P y2", "y1 owl:sameAs y2"),
    Rule("prp-ifp", "join", "P a owl:InverseFunctionalProperty . x1 P y . x2 P y", "x1 owl:sameAs x2"),
    Rule("prp-irp", "violation", "P a owl:IrreflexiveProperty . x P x", "false"),
    Rule("prp-symp", "linear", "P a owl:SymmetricProperty . x P y", "y P x"),
    Rule("prp-asyp", "violation", "P a owl:AsymmetricProperty . x P y . y P x", "false"),
    Rule("prp-trp", "transitive", "P a owl:TransitiveProperty . x P y . y P z", "x P z"),
    Rule("prp-spo1", "linear", "P rdfs:subPropertyOf Q . x P y", "x Q y"),
    Rule("prp-spo2", "join", "P owl:propertyChainAxiom (P1..Pn) . u0 P1 u1 ... un-1 Pn un", "u0 P un"),
    Rule("prp-eqp1", "linear", "P owl:equivalentProperty Q . x P y", "x Q y"),
    Rule("prp-eqp2", "linear", "P owl:equivalentProperty Q . x Q y", "x P y"),
    Rule("prp-pdw", "violation", "P owl:propertyDisjointWith Q . x P y . x Q y", "false"),
    Rule("prp-adp", "violation", "AllDisjointProperties(P1..Pn) . x Pi y . x Pj y", "false"),
    Rule("prp-inv1", "linear", "P owl:inverseOf Q . x P y", "y Q x"),
    Rule("prp-inv2", "linear", "P owl:inverseOf Q . x Q y", "y P x"),
    Rule("prp-key", "join", "C owl:hasKey (P1..Pn) . x a C . y a C . x Pi zi . y Pi zi", "x owl:sameAs y"),
    Rule("prp-npa1", "violation", "NegativePropertyAssertion(i1 P i2) . i1 P i2", "false"),
    Rule("prp-npa2", "violation", "NegativePropertyAssertion(i P lt) . i P lt", "false"),
    # Table 6: classes
    Rule("cls-thing", "schema", "", "owl:Thing a owl:Class"),
    Rule("cls-nothing1", "schema", "", "owl:Nothing a owl:Class"),
    Rule("cls-nothing2", "violation", "x a owl:Nothing", "false"),
    Rule("cls-int1", "join", "C owl:intersectionOf (C1..Cn) . x a C1 ... x a Cn", "x a C"),
    Rule("cls-int2", "linear", "C owl:intersectionOf (C1..Cn) . x a C", "x a Ci"),
    Rule("cls-uni", "linear", "C owl:unionOf (C1..Cn) . x a Ci", "x a C"),
    Rule("cls-com", "violation", "C1 owl:complementOf C2 . x a C1 . x a C2", "false"),
    Rule("cls-svf1", "join", "R svf(P, D) . x P y . y a D", "x a R"),
    Rule("cls-svf2", "linear", "R svf(P, owl:Thing) . x P y", "x a R"),
    Rule("cls-avf", "join", "R avf(P, D) . x a R . x P y", "y a D"),
    Rule("cls-hv1", "linear", "R hasValue(P, v) . x a R", "x P v"),
    Rule("cls-hv2", "linear", "R hasValue(P, v) . x P v", "x a R"),
    Rule("cls-maxc1", "violation", "R maxCardinality 0 on P . x a R . x P y", "false"),
    Rule("cls-maxc2", "join", "R maxCardinality 1 on P . x a R . x P y1 . x P y2", "y1 owl:sameAs y2"),
    Rule("cls-maxqc1", "violation", "R maxQC 0 on P of D . x a R . x P y . y a D", "false"),
    Rule("cls-maxqc2", "violation", "R maxQC 0 on P of owl:Thing . x a R . x P y", "false"),
    Rule("cls-maxqc3", "join", "R maxQC 1 on P of D . x a R . x P y1 . y1 a D . x P y2 . y2 a D", "y1 owl:sameAs y2"),
    Rule("cls-maxqc4", "join", "R maxQC 1 on P of owl:Thing . x a R . x P y1 . x P y2", "y1 owl:sameAs y2"),
    Rule("cls-oo", "background", "C owl:oneOf (y1..yn)", "yi a C"),
    # Table 7: class axioms
    Rule("cax-sco", "linear", "C rdfs:subClassOf D . x rdf:type C", "x rdf:type D"),
    Rule("cax-eqc1", "linear", "C owl:equivalentClass D . x rdf:type C", "x rdf:type D"),
    Rule("cax-eqc2", "linear", "C owl:equivalentClass D . x rdf:type D", "x rdf:type C"),
    Rule("cax-dw", "violation", "C1 owl:disjointWith C2 . x a C1 . x a C2", "false"),
    Rule("cax-adc", "violation", "AllDisjointClasses(C1..Cn) . x a Ci . x a Cj", "false"),
    # Table 8: datatypes (the others compare values, which the engine's ids do not hold)
    Rule("dt-not-type", "literal", "lt = \"s\"^^DT, s outside DT's lexical space", "false"),
    # Table 9: schema vocabulary, run once on the TBox
    Rule("scm-sco", "schema", "C ⊑ D . D ⊑ E", "C ⊑ E"),
    Rule("scm-spo", "schema", "P ⊑ Q . Q ⊑ R", "P ⊑ R"),
    Rule("scm-eqc1", "schema", "C ≡ D", "C ⊑ D . D ⊑ C"),
    Rule("scm-eqp1", "schema", "P ≡ Q", "P ⊑ Q . Q ⊑ P"),
    Rule("scm-dom1", "schema", "P domain C . C ⊑ D", "P domain D"),
    Rule("scm-dom2", "schema", "P2 domain C . P1 ⊑ P2", "P1 domain C"),
    Rule("scm-rng1", "schema", "P range C . C ⊑ D", "P range D"),
    Rule("scm-rng2", "schema", "P2 range C . P1 ⊑ P2", "P1 range C"),
    Rule("scm-int", "schema", "C owl:intersectionOf (C1..Cn)", "C ⊑ Ci"),
    Rule("scm-uni", "schema", "C owl:unionOf (C1..Cn)", "Ci ⊑ C"),
    Rule("scm-svf1", "schema", "R1 svf(P, C1) . R2 svf(P, C2) . C1 ⊑ C2", "R1 ⊑ R2"),
    Rule("scm-svf2", "schema", "R1 svf(P1, C) . R2 svf(P2, C) . P1 ⊑ P2", "R1 ⊑ R2"),
    Rule("scm-avf1", "schema", "R1 avf(P, C1) . R2 avf(P, C2) . C1 ⊑ C2", "R1 ⊑ R2"),
    Rule("scm-avf2", "schema", "R1 avf(P1, C) . R2 avf(P2, C) . P1 ⊑ P2", "R2 ⊑ R1"),
    Rule("scm-hv", "schema", "R1 hasValue(P1, i) . R2 hasValue(P2, i) . P1 ⊑ P2", "R1 ⊑ R2"),
)

CATALOGUE = {r.id: r for r in _RULES}

# Rule ids whose head is owl:sameAs between (possibly) different names.
SAME_AS_RULES = frozenset({"prp-fp", "prp-ifp", "prp-key", "cls-maxc2", "cls-maxqc3", "cls-maxqc4"})
# OWL 2 RL rules with a `false` head (plus the SAME_AS_RULES under unique names).
NEGATIVE_RULES = frozenset(r.id for r in _RULES if r.shape == "violation")

_OWL2RL = tuple(r.id for r in _RULES if not r.id.startswith("rdfs"))

# Which rule ids a profile may use; rule ids of the RDFS semantics for `rdfs`, the W3C
# OWL 2 RL ids for the OWL profiles (IMaRS's RDFS+ is the `rdfs-plus` set).
PROFILE_RULES = {
    "rdfs": ("rdfs2", "rdfs3", "rdfs5", "rdfs7", "rdfs9", "rdfs11", "rdfs12"),
    "rdfs-plus": (
        "prp-dom", "prp-rng", "prp-spo1", "cax-sco", "scm-sco", "scm-spo",
        "prp-trp", "prp-inv1", "prp-inv2", "eq-sym", "prp-symp",
        "prp-eqp1", "prp-eqp2", "cax-eqc1", "cax-eqc2",
    ),
    "owl2rl": _OWL2RL,
}
