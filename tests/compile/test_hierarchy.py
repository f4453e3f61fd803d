"""A hierarchy kept as jumps: sound pairs only, and rounds over them reach the closed hierarchy."""
from __future__ import annotations

import random

import pytest

from reasonlake.compile.hierarchy import Hierarchy
from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, compile_program
from reasonlake.vocab import TYPE

RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"


def _graph(r: random.Random) -> dict[str, set[str]]:
    """A random hierarchy: mostly a forest of chains, with extra edges, cycles and self edges."""
    n = r.randint(2, 40)
    graph: dict[str, set[str]] = {}
    for i in range(1, n):
        graph.setdefault(f"t{i}", set()).add(f"t{r.randrange(i) if r.random() < 0.3 else i - 1}")
    for _ in range(r.randint(0, n // 3)):
        graph.setdefault(f"t{r.randrange(n)}", set()).add(f"t{r.randrange(n)}")
    return graph


def _rounds(pairs: dict[str, set[str]], start: str) -> set[str]:
    """What repeated application of the pairs' rule instances reaches from ``start``."""
    seen, todo = set(), [start]
    while todo:
        for nxt in pairs.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    seen.discard(start)
    return seen


def test_jumps_are_entailed_pairs_whose_rounds_reach_every_ancestor(monkeypatch):
    r = random.Random(7)
    jumped = 0
    for _ in range(300):
        graph = _graph(r)
        closed = Hierarchy(graph)
        assert closed.closed
        monkeypatch.setenv("REASONLAKE_SATURATE_PAIRS", "0")
        jumps = Hierarchy(graph)
        monkeypatch.delenv("REASONLAKE_SATURATE_PAIRS")
        assert not jumps.closed
        for term in set(graph).union(*graph.values()):
            ancestors = closed.pairs.get(term, set())
            assert jumps.pairs.get(term, set()) <= ancestors, f"{term}: a jump to a non-ancestor in {graph}"
            assert _rounds(jumps.pairs, term) == ancestors, f"{term}: rounds over jumps miss some in {graph}"
            assert jumps.supers(term) == ancestors
            assert jumps.subs(term) == {t for t, sups in closed.pairs.items() if term in sups}
        jumped += jumps.count() < closed.count()
    assert jumped > 100  # the jumps really were fewer pairs, in most hierarchies


def test_a_long_chain_keeps_about_n_log_n_pairs(monkeypatch):
    monkeypatch.setenv("REASONLAKE_SATURATE_PAIRS", "0")
    n = 5000
    chain = Hierarchy({f"t{i}": {f"t{i + 1}"} for i in range(n)})
    assert chain.count() <= n * n.bit_length()
    assert chain.pairs["t0"] == {f"t{2 ** k}" for k in range(n.bit_length()) if 2 ** k <= n}
    assert len(chain.supers("t0")) == n


def _apply(program, facts: set[tuple[str, str, str]]) -> set[tuple[str, str, str]]:
    """The program's single-premise rules, applied until nothing is new."""
    facts = set(facts)
    todo = list(facts)
    while todo:
        x, p, y = todo.pop()
        for rule in program.linear:
            if rule.in_p != p or (rule.in_o is not None and rule.in_o != y):
                continue
            s = x if rule.out_s == FROM_SUBJECT else y
            o = {FROM_SUBJECT: x, FROM_OBJECT: y}.get(rule.out_o, rule.out_o)
            if (s, rule.out_p, o) not in facts:
                facts.add((s, rule.out_p, o))
                todo.append((s, rule.out_p, o))
    return facts


@pytest.mark.parametrize("profile", ["rdfs", "rdfs-plus", "owl2rl"])
def test_a_program_with_its_hierarchies_as_jumps_entails_the_same_facts(monkeypatch, profile):
    r = random.Random(profile)
    for _ in range(40):
        c = [f"<http://e/C{i}>" for i in range(12)]
        p = [f"<http://e/p{i}>" for i in range(8)]
        tbox = set()
        for terms, relation in ((c, "subClassOf"), (p, "subPropertyOf")):
            order = r.sample(terms, len(terms))
            tbox |= {(a, f"<{RDFS}{relation}>", b) for a, b in zip(order, order[1:])}
        tbox |= {(r.choice(p), f"<{RDFS}{rel}>", r.choice(c)) for rel in ("domain", "range") for _ in range(2)}
        tbox |= {(r.choice(c), f"<{OWL}equivalentClass>", r.choice(c))}
        facts = {(f"<http://e/i{r.randrange(4)}>", r.choice(p), f"<http://e/i{r.randrange(4)}>") for _ in range(4)}
        facts |= {(f"<http://e/i{r.randrange(4)}>", TYPE, r.choice(c)) for _ in range(3)}
        closed = compile_program(frozenset(tbox), profile)
        monkeypatch.setenv("REASONLAKE_SATURATE_PAIRS", "0")
        jumps = compile_program(frozenset(tbox), profile)
        monkeypatch.delenv("REASONLAKE_SATURATE_PAIRS")
        assert len(jumps.linear) < len(closed.linear)
        assert _apply(jumps, facts) == _apply(closed, facts)
