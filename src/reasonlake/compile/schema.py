"""The schema triples a compiled program entails: its saturated TBox, read back from the rules.

The compiler folds the class and property hierarchies (with equivalences, intersections and
unions) and domain/range through the hierarchy into single-premise rule instantiations.
Each such instantiation *is* a schema statement, so the saturated TBox can be read off
``program.linear`` without redoing the saturation:

* ``x rdf:type C ⇒ x rdf:type D`` is ``C rdfs:subClassOf D`` (scm-sco, scm-eqc1, scm-int,
  scm-uni; rdfs11 under ``rdfs``);
* ``x P y ⇒ x Q y`` is ``P rdfs:subPropertyOf Q`` (scm-spo, scm-eqp1; rdfs5);
* ``x P y ⇒ x rdf:type C`` / ``y rdf:type C`` is ``P rdfs:domain C`` / ``P rdfs:range C``
  (scm-dom1/2, scm-rng1/2);
* mutual sub-classes and sub-properties are ``owl:equivalentClass`` /
  ``owl:equivalentProperty`` (scm-eqc2, scm-eqp2) under the OWL profiles;
* inverse, symmetric and transitive properties as compiled, and the axiomatic
  ``owl:Thing``/``owl:Nothing a owl:Class`` of cls-thing and cls-nothing1 when the program
  ran them.

Subsumptions between restrictions (scm-svf1/2, scm-avf1/2, scm-hv) are hierarchy edges
like any other, so they are read back as ``rdfs:subClassOf``; so is ``rdfs12`` as
``rdfs:subPropertyOf rdfs:member``. Pure Python; terms in N-Triples syntax. Reflexive
statements (``C ⊑ C``, ``P ≡ P``) are not part of it: the compiler does not use them.
"""
from __future__ import annotations

from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, Program
from reasonlake.vocab import (
    DOMAIN, EQUIVALENT_CLASS, EQUIVALENT_PROPERTY, INVERSE_OF, OWL, OWL_NOTHING, OWL_THING, RANGE,
    SAME_AS, SUB_CLASS_OF, SUB_PROPERTY_OF, TYPE, iri,
)

Triple = tuple[str, str, str]

OWL_CLASS = iri(OWL + "Class")

_DOMAIN_RULES = frozenset({"prp-dom", "rdfs2"})
_RANGE_RULES = frozenset({"prp-rng", "rdfs3"})
_INVERSE_RULES = frozenset({"prp-inv1", "prp-inv2"})


def saturated_schema(program: Program) -> frozenset[Triple]:
    """The schema triples the compiled ``program`` entails (see the module docstring)."""
    out: set[Triple] = set()
    for r in program.linear:
        constant_out = r.out_o not in (FROM_SUBJECT, FROM_OBJECT)
        if r.in_p == TYPE and r.in_o is not None and r.out_s == FROM_SUBJECT and r.out_p == TYPE and constant_out:
            out.add((r.in_o, SUB_CLASS_OF, r.out_o))
        elif r.in_o is not None:
            continue  # hasValue restrictions: not schema statements
        elif r.rule in _DOMAIN_RULES and r.out_s == FROM_SUBJECT and r.out_p == TYPE and constant_out:
            out.add((r.in_p, DOMAIN, r.out_o))
        elif r.rule in _RANGE_RULES and r.out_s == FROM_OBJECT and r.out_p == TYPE and constant_out:
            out.add((r.in_p, RANGE, r.out_o))
        elif r.rule in _INVERSE_RULES and r.out_s == FROM_OBJECT and r.out_o == FROM_SUBJECT:
            out.add((r.in_p, INVERSE_OF, r.out_p))
        elif r.rule == "prp-symp":
            out.add((r.in_p, TYPE, iri(OWL + "SymmetricProperty")))
        elif r.in_p != SAME_AS and r.out_s == FROM_SUBJECT and r.out_o == FROM_OBJECT and r.out_p != r.in_p:
            out.add((r.in_p, SUB_PROPERTY_OF, r.out_p))
    for p in program.transitive:
        if p != SAME_AS:
            out.add((p, TYPE, iri(OWL + "TransitiveProperty")))
    if program.profile != "rdfs":
        for sub, rel, sup in list(out):
            if rel == SUB_CLASS_OF and (sup, SUB_CLASS_OF, sub) in out:
                out.add((sub, EQUIVALENT_CLASS, sup))
            elif rel == SUB_PROPERTY_OF and (sup, SUB_PROPERTY_OF, sub) in out:
                out.add((sub, EQUIVALENT_PROPERTY, sup))
    ran = {rule for rule, _ in program.schema}
    if "cls-thing" in ran:
        out.add((OWL_THING, TYPE, OWL_CLASS))
    if "cls-nothing1" in ran:
        out.add((OWL_NOTHING, TYPE, OWL_CLASS))
    return frozenset(out)
