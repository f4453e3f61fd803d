"""Multi-premise rules grouped by shape: the rule IR the engines evaluate.

Rules that differ only in their TBox constants (every ``prp-fp`` instance, every property
chain of one length) share a shape: the body's atoms with each constant replaced by a slot.
A group is one shape and a row of constant ids per rule, so an engine evaluates each shape
once, joined with its rows, whatever the number of axioms (decision 0006).
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake.compile.owl2rl import JoinRule

Term = tuple[str, object]  # ("v", variable name) | ("k", constant slot)


@dataclass
class JoinGroup:
    body: tuple[tuple[Term, Term, Term], ...]
    head: tuple[Term, Term, Term] | None
    distinct: tuple[tuple[Term, Term], ...]  # pairs that must bind different terms
    slots: int
    rows: list[tuple]  # (rule, id of slot 0, id of slot 1, ...)

    @property
    def variables(self) -> list[str]:
        seen: list[str] = []
        for atom in self.body:
            for kind, value in atom:
                if kind == "v" and value not in seen:
                    seen.append(value)
        return seen


def _shape(rule: JoinRule) -> tuple[tuple, list[str]]:
    """The rule's structure with constants replaced by slots, and the slots' constants."""
    constants: list[str] = []

    def term(t: str) -> Term:
        if t.startswith("?"):
            return ("v", t[1:])
        if t not in constants:
            constants.append(t)
        return ("k", constants.index(t))

    body = tuple(tuple(term(t) for t in atom) for atom in rule.body)
    head = tuple(term(t) for t in rule.head) if rule.head else None
    distinct = tuple((term(a), term(b)) for a, b in rule.distinct)
    return (body, head, distinct), constants


def group_rules(rules: tuple[JoinRule, ...], ids: dict[str, int]) -> list[JoinGroup]:
    groups: dict[tuple, JoinGroup] = {}
    for rule in rules:
        key, constants = _shape(rule)
        if key not in groups:
            body, head, distinct = key
            groups[key] = JoinGroup(body, head, distinct, len(constants), [])
        groups[key].rows.append((rule.rule, *(ids[c] for c in constants)))
    return list(groups.values())
