"""OWL 2 RL constructs beyond RDFS+: each TBox axiom becomes rule instantiations.

Hierarchy-like consequences (cls-int2, cls-uni) become class-hierarchy edges, so the
compiler's saturation folds them in with subclassing; single-premise ones (cls-hv1/2,
cls-svf2) become linear rules; the rest become joins or violation patterns over the ABox,
with the TBox constants written in. Every triple an axiom uses is marked as used; whatever
is left and is not a declaration is reported as ignored, with the reason.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from reasonlake.compile.restriction_subsumption import ALL, SOME, VALUE, Restriction
from reasonlake.vocab import OWL, RDF, SAME_AS, TYPE, DIFFERENT_FROM, OWL_NOTHING, OWL_THING, iri

Triple = tuple[str, str, str]

_FIRST, _REST, _NIL = iri(RDF + "first"), iri(RDF + "rest"), iri(RDF + "nil")


def _o(name: str) -> str:
    return iri(OWL + name)


@dataclass(frozen=True)
class JoinRule:
    """A conjunction of premises over the ABox, TBox constants written in.

    Terms starting with ``?`` are variables, others are N-Triples constants. ``head`` None
    means the head is ``false``: a match is a violation. ``distinct`` lists variable pairs
    that must bind different terms (``y1 owl:sameAs y2`` is only news when y1 ≠ y2).
    """

    rule: str
    body: tuple[Triple, ...]
    head: Triple | None
    distinct: tuple[tuple[str, str], ...] = ()


@dataclass
class Constructs:
    class_edges: list[tuple[str, str, str]] = field(default_factory=list)  # sub, sup, rule
    linear: list[tuple] = field(default_factory=list)  # LinearRule field tuples
    joins: list[JoinRule] = field(default_factory=list)
    background: list[tuple[str, Triple]] = field(default_factory=list)  # rule, triple
    used: set[Triple] = field(default_factory=set)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    restrictions: list[Restriction] = field(default_factory=list)  # for the scm-svf/avf/hv rules


class _Index:
    def __init__(self, tbox: frozenset[Triple]):
        self.by_sp: dict[tuple[str, str], list[str]] = defaultdict(list)
        for s, p, o in sorted(tbox):
            self.by_sp[(s, p)].append(o)

    def one(self, s: str, p: str) -> str | None:
        values = self.by_sp.get((s, p), [])
        return values[0] if values else None

    def items(self, head: str, used: set[Triple]) -> list[str] | None:
        """An RDF list's members, marking its cells as used; None if malformed."""
        out, node, seen = [], head, set()
        while node != _NIL:
            if node in seen:
                return None
            seen.add(node)
            first, rest = self.one(node, _FIRST), self.one(node, _REST)
            if first is None or rest is None:
                return None
            used.update({(node, _FIRST, first), (node, _REST, rest)})
            out.append(first)
            node = rest
        return out


def _axiom(*triples: Triple) -> str:
    return " ".join(f"{s} {p} {o} ." for s, p, o in triples)


def _cardinality(literal: str | None) -> int | None:
    if literal is None or not literal.startswith('"'):
        return None
    try:
        return int(literal[1:literal.index('"', 1)])
    except ValueError:
        return None


def compile_constructs(tbox: frozenset[Triple], unique_names: bool) -> Constructs:
    out = Constructs()
    index = _Index(tbox)
    same_as_head = not unique_names  # under unique names these rules flag a violation

    def same_as(rule: str, body, a: str, b: str) -> None:
        out.joins.append(JoinRule(rule, tuple(body), (a, SAME_AS, b) if same_as_head else None, ((a, b),)))

    for s, p, o in sorted(tbox):
        t = (s, p, o)
        if p == _o("intersectionOf"):
            members = _members(index, t, out)
            if members is None:
                continue
            for c in members:
                out.class_edges.append((s, c, "cls-int2"))
            if len(members) == 1:
                out.class_edges.append((members[0], s, "cls-int1"))
            elif members:
                body = tuple(("?x", TYPE, c) for c in members)
                out.joins.append(JoinRule("cls-int1", body, ("?x", TYPE, s)))
        elif p == _o("unionOf"):
            members = _members(index, t, out)
            if members is None:
                continue
            for c in members:
                out.class_edges.append((c, s, "cls-uni"))
        elif p == _o("complementOf"):
            out.used.add(t)
            out.joins.append(JoinRule("cls-com", (("?x", TYPE, s), ("?x", TYPE, o)), None))
        elif p == _o("oneOf"):
            members = _members(index, t, out)
            if members is None:
                continue
            out.background.extend(("cls-oo", (m, TYPE, s)) for m in members)
        elif p == _o("onProperty"):
            _restriction(index, s, o, out, same_as)
        elif p == _o("disjointWith"):
            out.used.add(t)
            out.joins.append(JoinRule("cax-dw", (("?x", TYPE, s), ("?x", TYPE, o)), None))
        elif p == _o("propertyChainAxiom"):
            chain = index.items(o, out.used)
            if not chain:
                out.ignored.append((_axiom(t), "malformed or empty property chain"))
                continue
            out.used.add(t)
            body = tuple((f"?u{i}", q, f"?u{i + 1}") for i, q in enumerate(chain))
            out.joins.append(JoinRule("prp-spo2", body, ("?u0", s, f"?u{len(chain)}")))
        elif p == TYPE and o == _o("FunctionalProperty"):
            out.used.add(t)
            same_as("prp-fp", [("?x", s, "?y1"), ("?x", s, "?y2")], "?y1", "?y2")
        elif p == TYPE and o == _o("InverseFunctionalProperty"):
            out.used.add(t)
            same_as("prp-ifp", [("?x1", s, "?y"), ("?x2", s, "?y")], "?x1", "?x2")
        elif p == TYPE and o == _o("IrreflexiveProperty"):
            out.used.add(t)
            out.joins.append(JoinRule("prp-irp", (("?x", s, "?x"),), None))
        elif p == TYPE and o == _o("AsymmetricProperty"):
            out.used.add(t)
            out.joins.append(JoinRule("prp-asyp", (("?x", s, "?y"), ("?y", s, "?x")), None))
        elif p == _o("propertyDisjointWith"):
            out.used.add(t)
            out.joins.append(JoinRule("prp-pdw", (("?x", s, "?y"), ("?x", o, "?y")), None))
        elif p == TYPE and o in (_o("AllDisjointClasses"), _o("AllDisjointProperties"), _o("AllDifferent")):
            _all_pairs(index, t, out)
        elif p == _o("hasKey"):
            keys = index.items(o, out.used)
            if not keys:
                out.ignored.append((_axiom(t), "malformed or empty key"))
                continue
            out.used.add(t)
            body = [("?x", TYPE, s), ("?y", TYPE, s)]
            for i, q in enumerate(keys):
                body += [("?x", q, f"?z{i}"), ("?y", q, f"?z{i}")]
            same_as("prp-key", body, "?x", "?y")
        elif p == TYPE and o == _o("NegativePropertyAssertion"):
            _negative_assertion(index, s, out)
        elif p == _o("sourceIndividual") and (s, TYPE, _o("NegativePropertyAssertion")) not in tbox:
            _negative_assertion(index, s, out)  # prp-npa1/2 do not need the rdf:type triple
        elif p in (SAME_AS, DIFFERENT_FROM):
            out.ignored.append((_axiom(t), "an instance assertion in the ontology; declare it under background:"))
            out.used.add(t)

    out.joins.append(JoinRule("cls-nothing2", (("?x", TYPE, OWL_NOTHING),), None))
    out.joins.append(JoinRule("eq-diff1", (("?x", SAME_AS, "?y"), ("?x", DIFFERENT_FROM, "?y")), None))
    if not unique_names:
        out.joins.append(JoinRule("eq-rep-s", (("?s", SAME_AS, "?s2"), ("?s", "?p", "?o")), ("?s2", "?p", "?o")))
        out.joins.append(JoinRule("eq-rep-p", (("?p", SAME_AS, "?p2"), ("?s", "?p", "?o")), ("?s", "?p2", "?o")))
        out.joins.append(JoinRule("eq-rep-o", (("?o", SAME_AS, "?o2"), ("?s", "?p", "?o")), ("?s", "?p", "?o2")))
    return out


def _members(index: _Index, t: Triple, out: Constructs) -> list[str] | None:
    """The list an axiom names, marking the axiom used; None (and reported) if malformed."""
    members = index.items(t[2], out.used)
    if members is None:
        out.ignored.append((_axiom(t), "malformed RDF list"))
    else:
        out.used.add(t)
    return members


def _restriction(index: _Index, r: str, prop: str, out: Constructs, same_as) -> None:
    on = (r, _o("onProperty"), prop)
    out.used.add(on)
    out.used.add((r, TYPE, _o("Restriction")))
    if prop.startswith("<urn:reasonlake:anon:"):
        out.ignored.append((_axiom(on), "a restriction on an anonymous property expression is outside OWL 2 RL here"))
        return
    understood = False
    for d in index.by_sp.get((r, _o("someValuesFrom")), []):
        out.used.add((r, _o("someValuesFrom"), d))
        understood = True
        out.restrictions.append(Restriction(r, SOME, prop, d))
        if d == OWL_THING:
            out.linear.append(("cls-svf2", prop, None, "s", TYPE, r))
        else:
            out.joins.append(JoinRule("cls-svf1", (("?x", prop, "?y"), ("?y", TYPE, d)), ("?x", TYPE, r)))
    for d in index.by_sp.get((r, _o("allValuesFrom")), []):
        out.used.add((r, _o("allValuesFrom"), d))
        understood = True
        out.restrictions.append(Restriction(r, ALL, prop, d))
        out.joins.append(JoinRule("cls-avf", (("?x", TYPE, r), ("?x", prop, "?y")), ("?y", TYPE, d)))
    for v in index.by_sp.get((r, _o("hasValue")), []):
        out.used.add((r, _o("hasValue"), v))
        understood = True
        out.restrictions.append(Restriction(r, VALUE, prop, v))
        out.linear.append(("cls-hv1", TYPE, r, "s", prop, v))
        out.linear.append(("cls-hv2", prop, v, "s", TYPE, r))
    for literal in index.by_sp.get((r, _o("maxCardinality")), []):
        out.used.add((r, _o("maxCardinality"), literal))
        n = _cardinality(literal)
        if n == 0:
            understood = True
            out.joins.append(JoinRule("cls-maxc1", (("?x", TYPE, r), ("?x", prop, "?y")), None))
        elif n == 1:
            understood = True
            same_as("cls-maxc2", [("?x", TYPE, r), ("?x", prop, "?y1"), ("?x", prop, "?y2")], "?y1", "?y2")
        else:
            out.ignored.append((_axiom(on, (r, _o("maxCardinality"), literal)), "only maxCardinality 0 and 1 are in OWL 2 RL"))
    for literal in index.by_sp.get((r, _o("maxQualifiedCardinality")), []):
        out.used.add((r, _o("maxQualifiedCardinality"), literal))
        n = _cardinality(literal)
        d = index.one(r, _o("onClass"))
        if d is None:
            out.ignored.append((_axiom(on), "maxQualifiedCardinality without owl:onClass"))
            continue
        out.used.add((r, _o("onClass"), d))
        thing = d == OWL_THING
        if n == 0:
            understood = True
            if thing:
                out.joins.append(JoinRule("cls-maxqc2", (("?x", TYPE, r), ("?x", prop, "?y")), None))
            else:
                out.joins.append(JoinRule("cls-maxqc1", (("?x", TYPE, r), ("?x", prop, "?y"), ("?y", TYPE, d)), None))
        elif n == 1:
            understood = True
            if thing:
                same_as("cls-maxqc4", [("?x", TYPE, r), ("?x", prop, "?y1"), ("?x", prop, "?y2")], "?y1", "?y2")
            else:
                same_as("cls-maxqc3", [("?x", TYPE, r), ("?x", prop, "?y1"), ("?y1", TYPE, d),
                                       ("?x", prop, "?y2"), ("?y2", TYPE, d)], "?y1", "?y2")
        else:
            out.ignored.append((_axiom(on), "only maxQualifiedCardinality 0 and 1 are in OWL 2 RL"))
    if not understood:
        others = sorted(
            (r, p, o) for (s, p), os in index.by_sp.items() if s == r for o in os
            if (r, p, o) not in out.used and p not in (_FIRST, _REST)
        )
        out.ignored.append((_axiom(on, *others), "restriction kind outside OWL 2 RL (min/exact cardinality, hasSelf, ...)"))
        out.used.update(others)


def _all_pairs(index: _Index, t: Triple, out: Constructs) -> None:
    node, _, kind = t
    members_p = _o("members")
    members_head = index.one(node, members_p)
    rule = {"AllDisjointClasses": "cax-adc", "AllDisjointProperties": "prp-adp", "AllDifferent": "eq-diff2"}[
        kind[len(iri(OWL)) - 1:-1]
    ]
    if members_head is None and rule == "eq-diff2":
        members_p, rule = _o("distinctMembers"), "eq-diff3"
        members_head = index.one(node, members_p)
    members = index.items(members_head, out.used) if members_head else None
    if members is None:
        out.ignored.append((_axiom(t), "no well-formed owl:members list"))
        return
    out.used.update({t, (node, members_p, members_head)})
    for i, a in enumerate(members):
        for b in members[i + 1:]:
            if rule == "cax-adc":
                body = (("?x", TYPE, a), ("?x", TYPE, b))
            elif rule == "prp-adp":
                body = (("?x", a, "?y"), ("?x", b, "?y"))
            else:
                body = ((a, SAME_AS, b),)
            out.joins.append(JoinRule(rule, body, None))


def _negative_assertion(index: _Index, node: str, out: Constructs) -> None:
    source = index.one(node, _o("sourceIndividual"))
    prop = index.one(node, _o("assertionProperty"))
    target = index.one(node, _o("targetIndividual"))
    value = index.one(node, _o("targetValue"))
    if source is None or prop is None or (target is None and value is None):
        out.ignored.append((f"{node} a owl:NegativePropertyAssertion", "incomplete negative property assertion"))
        return
    out.used.update({
        (node, TYPE, _o("NegativePropertyAssertion")), (node, _o("sourceIndividual"), source),
        (node, _o("assertionProperty"), prop),
    })
    if target is not None:
        out.used.add((node, _o("targetIndividual"), target))
        out.joins.append(JoinRule("prp-npa1", ((source, prop, target),), None))
    else:
        out.used.add((node, _o("targetValue"), value))
        out.joins.append(JoinRule("prp-npa2", ((source, prop, value),), None))
