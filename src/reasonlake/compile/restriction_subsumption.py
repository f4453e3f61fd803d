"""Subsumption between restrictions (OWL 2 RL Table 9: scm-svf1/2, scm-avf1/2, scm-hv).

Two restrictions on comparable properties and fillers subsume one another; the compiler
adds the edge to the class hierarchy before saturating it, so an individual *asserted* to
be in one restriction is in the other (``x a ∃p.C1`` with ``C1 ⊑ C2`` gives ``x a ∃p.C2``,
which no ABox rule derives on its own). New edges can make further fillers comparable
(a filler may itself be a restriction), so the caller repeats until nothing is added.

Pure Python; the comparisons are exactly the W3C rules' (one of property or filler
differs, the other is the same), reflexive included: two identical restrictions are
equivalent.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from reasonlake.compile.hierarchy import Hierarchy

SOME, ALL, VALUE = "someValuesFrom", "allValuesFrom", "hasValue"


@dataclass(frozen=True)
class Restriction:
    node: str
    kind: str  # SOME, ALL or VALUE
    prop: str
    filler: str  # the class, or the individual of a hasValue


def subsumptions(
    restrictions: list[Restriction],
    class_sup: Hierarchy,
    prop_sup: Hierarchy,
) -> set[tuple[str, str, str]]:
    """``(sub, sup, rule)`` for every pair the scm-* rules relate under the given hierarchies."""
    def below(a: str, b: str, sup: Hierarchy) -> bool:
        return a == b or b in sup.supers(a)

    out: set[tuple[str, str, str]] = set()
    by_kind: dict[str, list[Restriction]] = defaultdict(list)
    for r in restrictions:
        by_kind[r.kind].append(r)
    for kind, rules in by_kind.items():
        by_prop, by_filler = defaultdict(list), defaultdict(list)
        for r in rules:
            by_prop[r.prop].append(r)
            by_filler[r.filler].append(r)
        if kind in (SOME, ALL):  # scm-svf1 / scm-avf1: same property, filler C1 ⊑ C2
            for same in by_prop.values():
                out.update(
                    (a.node, b.node, f"scm-{'svf' if kind == SOME else 'avf'}1")
                    for a in same for b in same if a.node != b.node and below(a.filler, b.filler, class_sup)
                )
        # scm-svf2 / scm-hv: same filler, P1 ⊑ P2 gives R1 ⊑ R2; scm-avf2 turns it round
        rule = {SOME: "scm-svf2", ALL: "scm-avf2", VALUE: "scm-hv"}[kind]
        for same in by_filler.values():
            for a in same:
                for b in same:
                    if a.node != b.node and below(a.prop, b.prop, prop_sup):
                        out.add((b.node, a.node, rule) if kind == ALL else (a.node, b.node, rule))
    return out
