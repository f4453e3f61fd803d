"""The rule compiler: a TBox and a profile become a program of ABox rules.

The TBox is saturated once (class and property hierarchies, equivalences, domain and range
through the hierarchy), so each single-premise rule instantiation maps a premise pattern
straight to every consequence the hierarchy gives: a class hierarchy of any depth costs one
join per round, not one round per level (C-Sprite's saturated hierarchy, IMaRS's M2+). A
hierarchy too large to saturate pairwise is kept as jumps (``hierarchy``): a few more rounds,
not the square of its depth in memory.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from reasonlake.compile.hierarchy import Hierarchy
from reasonlake.compile.owl2rl import JoinRule, compile_constructs
from reasonlake.compile.restriction_subsumption import SOME, subsumptions
from reasonlake.compile.rules import CATALOGUE, PROFILE_RULES
from reasonlake.parse.lexical_space import CHECKS as LEXICAL_SPACES
from reasonlake.vocab import (
    DOMAIN,
    EQUIVALENT_CLASS,
    EQUIVALENT_PROPERTY,
    INVERSE_OF,
    OWL,
    RANGE,
    RDF,
    RDFS,
    SAME_AS,
    SUB_CLASS_OF,
    SUB_PROPERTY_OF,
    TYPE,
    iri,
)

# Where a linear rule's output term comes from: the premise's subject or object (any other
# value is a constant IRI)
FROM_SUBJECT, FROM_OBJECT = "s", "o"


@dataclass(frozen=True)
class LinearRule:
    """One TBox instantiation of a single-premise rule.

    Premise ``(x in_p y)`` (and ``y == in_o`` when ``in_o`` is set, as for ``rdf:type C``
    or a ``owl:hasValue`` restriction's ``(x P v)``);
    head subject is ``x`` or ``y`` (``out_s``), head predicate ``out_p``, head object ``x``,
    ``y`` or the constant term ``out_o``.
    """

    rule: str
    in_p: str
    in_o: str | None
    out_s: str
    out_p: str
    out_o: str


@dataclass(frozen=True)
class Program:
    profile: str
    linear: tuple[LinearRule, ...]
    transitive: tuple[str, ...]
    ignored: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (axiom, reason)
    joins: tuple[JoinRule, ...] = ()  # multi-premise rules; head None: a violation
    background: tuple[tuple[str, tuple[str, str, str]], ...] = ()  # (rule, triple), origin +inf
    schema: tuple[tuple[str, int], ...] = ()  # TBox-only rules run here, with their uses
    unique_names: bool = True
    notes: tuple[tuple[str, str], ...] = ()  # (axiom, what it can and cannot entail)

    def active_rules(self) -> dict[str, int]:
        """Rule id -> number of TBox instantiations."""
        counts: dict[str, int] = defaultdict(int)
        for rule in self.linear:
            counts[rule.rule] += 1
        for p in self.transitive:
            counts["eq-trans" if p == SAME_AS else "prp-trp"] += 1
        for rule in self.joins:
            counts[rule.rule] += 1
        for rule, _ in self.background:
            counts[rule] += 1
        for rule, n in self.schema:
            counts[rule] += n
        if self.checks_literals:
            counts["dt-not-type"] = len(LEXICAL_SPACES)  # one check per datatype
        return dict(sorted(counts.items()))

    @property
    def checks_literals(self) -> bool:
        """Whether the facts' literals are checked against their datatypes (dt-not-type)."""
        return "dt-not-type" in PROFILE_RULES[self.profile]

    def negative(self) -> tuple[JoinRule, ...]:
        return tuple(r for r in self.joins if r.head is None)

    def positive(self) -> tuple[JoinRule, ...]:
        return tuple(r for r in self.joins if r.head is not None)

    def terms(self) -> set[str]:
        out = set(self.transitive)
        for r in self.linear:
            out.update(t for t in (r.in_p, r.in_o, r.out_p) if t)
            if r.out_o not in (FROM_SUBJECT, FROM_OBJECT):
                out.add(r.out_o)
        for j in self.joins:
            for atom in j.body + ((j.head,) if j.head else ()):
                out.update(t for t in atom if not t.startswith("?"))
        for _, triple in self.background:
            out.update(triple)
        return out


_SUB_CLASS, _SUB_PROP, _DOMAIN, _RANGE = SUB_CLASS_OF, SUB_PROPERTY_OF, DOMAIN, RANGE
_EQ_CLASS, _EQ_PROP, _INVERSE = EQUIVALENT_CLASS, EQUIVALENT_PROPERTY, INVERSE_OF
_TRANSITIVE = iri(OWL + "TransitiveProperty")
_SYMMETRIC = iri(OWL + "SymmetricProperty")
_CONTAINER_MEMBERSHIP, _MEMBER = iri(RDFS + "ContainerMembershipProperty"), iri(RDFS + "member")

# Declarations and annotations: they state nothing a rule of these profiles uses.
_INERT_PREDICATES = {
    iri(RDFS + x) for x in ("label", "comment", "seeAlso", "isDefinedBy")
} | {iri(OWL + x) for x in ("versionInfo", "priorVersion", "versionIRI", "deprecated")}
# prp-ap (OWL 2 RL, Table 5): one premise-less instantiation per built-in annotation property.
_BUILTIN_ANNOTATION_PROPERTIES = (
    "rdfs:label", "rdfs:comment", "rdfs:seeAlso", "rdfs:isDefinedBy", "owl:deprecated",
    "owl:versionInfo", "owl:priorVersion", "owl:backwardCompatibleWith", "owl:incompatibleWith",
)
_INERT_TYPES = {
    iri(OWL + x)
    for x in (
        "Class", "ObjectProperty", "DatatypeProperty", "AnnotationProperty", "Ontology",
        "NamedIndividual", "Thing", "Restriction", "Nothing",
    )
} | {iri(RDFS + "Class"), iri(RDF + "Property"), iri(RDFS + "Datatype")}


def compile_program(
    tbox: frozenset[tuple[str, str, str]], profile: str, unique_names: bool = True
) -> Program:
    allowed = set(PROFILE_RULES[profile])
    owl = profile != "rdfs"
    full_owl = profile == "owl2rl"
    constructs = compile_constructs(tbox, unique_names) if full_owl else None
    sub_class: dict[str, set[str]] = defaultdict(set)  # C -> direct supers
    sub_prop: dict[str, set[str]] = defaultdict(set)
    via: dict[tuple[str, str], str] = {}  # direct edge -> rule id that uses it
    domain: dict[str, set[str]] = defaultdict(set)
    range_: dict[str, set[str]] = defaultdict(set)
    inverse: list[tuple[str, str]] = []
    transitive, symmetric = set(), set()
    ignored: list[tuple[str, str]] = []
    ids = _rule_ids(profile)
    container_properties = 0  # rdfs12 instantiations

    if constructs is not None:
        for sub, sup, rule in constructs.class_edges:
            _edge(sub_class, via, sub, sup, rule)
        ignored.extend(constructs.ignored)
    for s, p, o in sorted(tbox):
        if constructs is not None and (s, p, o) in constructs.used:
            continue
        if p == _SUB_CLASS:
            _edge(sub_class, via, s, o, ids["sco"])
        elif p == _SUB_PROP:
            _edge(sub_prop, via, s, o, ids["spo"])
        elif p == TYPE and o == _CONTAINER_MEMBERSHIP and "rdfs12" in allowed:
            _edge(sub_prop, via, s, _MEMBER, ids["spo"])
            container_properties += 1
        elif p == _DOMAIN:
            domain[s].add(o)
        elif p == _RANGE:
            range_[s].add(o)
        elif owl and p == _EQ_CLASS:
            _edge(sub_class, via, s, o, "cax-eqc1")
            _edge(sub_class, via, o, s, "cax-eqc2")
        elif owl and p == _EQ_PROP:
            _edge(sub_prop, via, s, o, "prp-eqp1")
            _edge(sub_prop, via, o, s, "prp-eqp2")
        elif owl and p == _INVERSE:
            inverse.append((s, o))
        elif owl and p == TYPE and o == _TRANSITIVE:
            transitive.add(s)
        elif owl and p == TYPE and o == _SYMMETRIC:
            symmetric.add(s)
        elif p in _INERT_PREDICATES or (p == TYPE and o in _INERT_TYPES):
            continue
        elif p == iri(OWL + "imports"):
            # nothing is fetched over the network at compile time: an import would make the
            # view's rules depend on a remote file that can change under an unchanged fingerprint
            ignored.append((f"{s} {p} {o} .", "owl:imports is not followed; download the imported "
                            "ontology and list it in the view's ontology field"))
        elif p in (iri(RDF + "first"), iri(RDF + "rest")):
            continue  # list cells: reported through the axiom that uses the list
        elif not _schema_term(p) and not (p == TYPE and _schema_term(o)):
            ignored.append((f"{s} {p} {o} .", "an instance assertion, not an axiom; "
                            "declare instance data as the view's background"))
        else:
            ignored.append((f"{s} {p} {o} .", f"not used by the {profile} profile"))

    class_hierarchy, prop_hierarchy = Hierarchy(sub_class), Hierarchy(sub_prop)
    restriction_edges: dict[str, int] = defaultdict(int)  # scm-svf1/2, scm-avf1/2, scm-hv -> edges
    while constructs is not None:
        # a new edge can make two more fillers comparable: repeat until none is added
        new = [(a, b, rule) for a, b, rule in sorted(subsumptions(constructs.restrictions, class_hierarchy, prop_hierarchy))
               if b not in class_hierarchy.supers(a)]
        if not new:
            break
        for a, b, rule in new:
            _edge(sub_class, via, a, b, ids["sco"])
            restriction_edges[rule] += 1
        class_hierarchy = Hierarchy(sub_class)
    # the rule rows: every ancestor when the hierarchy is closed, else its jumps (the rounds
    # take an instance the rest of the way)
    class_sup, prop_sup = class_hierarchy.pairs, prop_hierarchy.pairs
    linear: list[LinearRule] = []
    notes = _existential_supers(constructs.restrictions, class_hierarchy) if constructs is not None else ()

    for c, sups in sorted(class_sup.items()):
        for d in sorted(sups):
            rule = via.get((c, d), ids["sco"])
            linear.append(LinearRule(rule, TYPE, c, FROM_SUBJECT, TYPE, d))
    for p, sups in sorted(prop_sup.items()):
        for q in sorted(sups):
            rule = via.get((p, q), ids["spo"])
            linear.append(LinearRule(rule, p, None, FROM_SUBJECT, q, FROM_OBJECT))

    # Domain and range through the hierarchy: P ⊑ Q, Q domain C, C ⊑ D gives x P y ⇒ x a D.
    typed = set(prop_sup) | set(domain) | set(range_)
    for p in sorted(typed):
        own_and_sup = {p} | prop_sup.get(p, set())
        for typing, rule, position in (
            (domain, ids["dom"], FROM_SUBJECT),
            (range_, ids["rng"], FROM_OBJECT),
        ):
            classes = set()
            for q in own_and_sup:
                for c in typing.get(q, ()):
                    classes.add(c)
                    classes |= class_sup.get(c, set())
            for c in sorted(classes):
                linear.append(LinearRule(rule, p, None, position, TYPE, c))

    for p, q in sorted(inverse):
        linear.append(LinearRule("prp-inv1", p, None, FROM_OBJECT, q, FROM_SUBJECT))
        linear.append(LinearRule("prp-inv2", q, None, FROM_OBJECT, p, FROM_SUBJECT))
    for p in sorted(symmetric):
        linear.append(LinearRule("prp-symp", p, None, FROM_OBJECT, p, FROM_SUBJECT))
    if "eq-sym" in allowed:
        linear.append(LinearRule("eq-sym", SAME_AS, None, FROM_OBJECT, SAME_AS, FROM_SUBJECT))
    joins: tuple[JoinRule, ...] = ()
    background: tuple = ()
    schema: list[tuple[str, int]] = []
    if constructs is not None:
        linear.extend(LinearRule(*fields) for fields in constructs.linear)
        joins = tuple(dict.fromkeys(constructs.joins))
        background = tuple(dict.fromkeys(constructs.background))
        if not unique_names:
            transitive.add(SAME_AS)  # eq-trans
        schema = [("cls-thing", 1), ("cls-nothing1", 1), ("prp-ap", len(_BUILTIN_ANNOTATION_PROPERTIES))]
        schema += [(rule, n) for rule, n in (
            ("scm-sco", class_hierarchy.count()),
            ("scm-spo", prop_hierarchy.count()),
        ) if n]
        schema += sorted(restriction_edges.items())

    if container_properties:
        schema.append(("rdfs12", container_properties))
    unknown = ({r.rule for r in linear} | {j.rule for j in joins}) - allowed - {"scm-sco", "scm-spo"}
    assert not unknown, f"compiler produced rules outside the {profile} profile: {unknown}"
    assert all(r.rule in CATALOGUE for r in linear)
    return Program(
        profile=profile,
        linear=tuple(dict.fromkeys(linear)),
        transitive=tuple(sorted(transitive)),
        ignored=tuple(ignored),
        joins=joins,
        background=background,
        schema=tuple(schema),
        unique_names=unique_names,
        notes=notes,
    )


def _existential_supers(restrictions, classes: Hierarchy) -> tuple[tuple[str, str], ...]:
    """C ⊑ ∃P.D with ∃P.D under no named class: compiled (cax-sco types C's members with the
    restriction) but, by OWL 2 RL, entailing nothing a reader sees: the profile makes up no
    individual for an existential in superclass position."""
    # imported when called: it loads rdflib, yaml
    from reasonlake.compile.tbox import ANONYMOUS_PREFIX

    def named(term: str) -> bool:
        return ANONYMOUS_PREFIX not in term

    out = []
    for r in restrictions:
        if r.kind != SOME or named(r.node) or any(named(d) for d in classes.supers(r.node)):
            continue
        for c in sorted(c for c in classes.subs(r.node) if named(c)):
            out.append((f"{c} rdfs:subClassOf [owl:onProperty {r.prop}; owl:someValuesFrom {r.filler}]",
                        "an existential in superclass position: OWL 2 RL makes up no individual, so "
                        f"members of {c} get no {r.prop} value from it; it entails something only where "
                        "the restriction is itself a subclass of a named class"))
    return tuple(out)


def _schema_term(term: str) -> bool:
    return term.startswith((iri(OWL)[:-1], iri(RDFS)[:-1], iri(RDF)[:-1]))


def _rule_ids(profile: str) -> dict[str, str]:
    if profile == "rdfs":
        return {"sco": "rdfs9", "spo": "rdfs7", "dom": "rdfs2", "rng": "rdfs3"}
    return {"sco": "cax-sco", "spo": "prp-spo1", "dom": "prp-dom", "rng": "prp-rng"}


def _edge(graph, via, a: str, b: str, rule: str) -> None:
    if a != b:
        graph[a].add(b)
        via.setdefault((a, b), rule)
