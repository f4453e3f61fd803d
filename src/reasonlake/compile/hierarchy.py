"""A class or property hierarchy as the (sub, super) pairs the rule tables hold.

Each pair becomes one single-premise rule instance (``x a C ⇒ x a D``), so the pairs decide
both the compile's memory and how many rounds a hierarchy costs a close:

* **closed**: every (sub, ancestor) pair, the saturated hierarchy. Any depth costs one round.
  A chain of n classes has n(n-1)/2 pairs, so this is kept while the pairs stay under
  ``REASONLAKE_SATURATE_PAIRS`` (default one million: a 1,400-class chain).
* **jumps**: past that, each term keeps its ancestors at path lengths 1, 2, 4, 8, ... (the
  pointer doubling of list ranking). An ancestor at distance d is reached by one jump per
  set bit of d, so the rounds finish what the compile does not, in at most log2(depth)
  more rounds; a chain of n classes has about n·log2(n) pairs (1.7 million for 100,000).
  Every pair is an entailed subsumption, so each rule instance stays sound and the rounds
  reach exactly the closed hierarchy's facts, with the same origins.

Both stop at ``REASONLAKE_MAX_SCHEMA_PAIRS`` (5 million) with the limit and the fix, instead
of taking the machine's memory. Questions about the hierarchy itself (is A below B, what is
below C) are answered by search over the direct edges, whichever form the pairs take.
"""
from __future__ import annotations


from reasonlake import settings
from reasonlake.errors import ViewDeclarationError

# About 300 bytes a pair while compiling (a rule instance and its place in the tables).
_BYTES_A_PAIR = 300


def saturate_pairs() -> int:
    """Most pairs the closed form may have before the hierarchy is kept as jumps."""
    return int(settings.text("REASONLAKE_SATURATE_PAIRS"))


def max_schema_pairs() -> int:
    """Most pairs (rule instances) a hierarchy may compile to in either form:
    REASONLAKE_MAX_SCHEMA_PAIRS, default 5 million (about 1.5 GB while compiling)."""
    return int(settings.text("REASONLAKE_MAX_SCHEMA_PAIRS"))


class Hierarchy:
    """``graph``: term -> its direct supers (an edge a -> a is ignored; cycles are allowed)."""

    def __init__(self, graph: dict[str, set[str]]):
        self.graph = graph
        closed = _closed(graph, min(saturate_pairs(), max_schema_pairs()))
        self.closed = closed is not None
        self.pairs: dict[str, set[str]] = closed if closed is not None else _jumps(graph, max_schema_pairs())
        self._supers: dict[str, frozenset[str]] = {}
        self._below: dict[str, set[str]] | None = None

    def count(self) -> int:
        return sum(len(v) for v in self.pairs.values())

    def supers(self, term: str) -> frozenset[str]:
        """Every strict ancestor of ``term`` (the closed hierarchy's row, whichever form)."""
        if self.closed:
            return frozenset(self.pairs.get(term, ()))
        if term not in self._supers:
            self._supers[term] = frozenset(_reach(term, self.graph))
        return self._supers[term]

    def subs(self, term: str) -> frozenset[str]:
        """Every strict descendant of ``term``."""
        if self._below is None:
            self._below = {}
            for a, sups in self.graph.items():
                for b in sups:
                    self._below.setdefault(b, set()).add(a)
        return frozenset(_reach(term, self._below))


def _reach(start: str, edges: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(edges.get(start, ()))
    while stack:
        nxt = stack.pop()
        if nxt not in seen:
            seen.add(nxt)
            stack.extend(edges.get(nxt, ()))
    seen.discard(start)
    return seen


def _closed(graph: dict[str, set[str]], budget: int) -> dict[str, set[str]] | None:
    """The strict transitive closure, or None as soon as it passes ``budget`` pairs."""
    out: dict[str, set[str]] = {}
    pairs = 0
    for node in graph:
        seen = _reach(node, graph)
        if seen:
            out[node] = seen
            pairs += len(seen)
            if pairs > budget:
                return None
    return out


def _jumps(graph: dict[str, set[str]], limit: int) -> dict[str, set[str]]:
    """Each term's ancestors at path lengths 1, 2, 4, ...: level k+1 of a term is level k of
    its level-k ancestors. Every ancestor on a simple path of length d is reached by the
    jumps of d's set bits, and a simple path is shorter than the number of terms, so the
    levels stop there (a cycle has walks of every length: its levels never run out)."""
    level = {a: set(sups) - {a} for a, sups in graph.items()}
    level = {a: sups for a, sups in level.items() if sups}
    out = {a: set(sups) for a, sups in level.items()}
    pairs = sum(len(v) for v in out.values())
    terms = len(set(graph).union(*graph.values())) if graph else 0
    for _ in range(max(terms - 1, 1).bit_length()):
        following: dict[str, set[str]] = {}
        for a, mids in level.items():
            far: set[str] = set()
            for m in mids:
                far |= level.get(m, set())
            far.discard(a)
            if far:
                following[a] = far
                before = len(out[a])
                out[a] |= far
                pairs += len(out[a]) - before
        if pairs > limit:
            worst = max(out, key=lambda a: len(out[a]))
            raise ViewDeclarationError(
                f"the ontology's hierarchy compiles to more than {limit:,} (sub, super) pairs, "
                f"one rule instance each, even as jumps ({len(graph):,} terms with a super; e.g. {worst} keeps "
                f"{len(out[worst]):,}). Split the ontology, flatten deep or wide hierarchies, or "
                f"raise REASONLAKE_MAX_SCHEMA_PAIRS if the machine has the memory (about "
                f"{_BYTES_A_PAIR} bytes a pair)", code="RL112")
        if not following:
            break
        level = following
    return out
