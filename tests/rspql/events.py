"""RSEP-QL event patterns (thesis chapter 6), evaluated by enumeration: basic event patterns,
FIRST / LAST, SEQ with its selection policies (unrestricted, C-SPARQL's naive, chronological,
recent) and the consumption policies over a sequence of evaluation times.

"Def. 6.8" is Definition 6.8 of Dell'Aglio's thesis, "(6.10)" its Equation 6.10.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Union

from rdflib import Graph
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.sparql import Query as PreparedQuery

from tests.rspql.oracle import (
    IDENTITY_WINDOW,
    FixedWindow,
    Solution,
    Stream,
    Triple,
    WindowDecl,
    compatible,
)

SELECTION_POLICIES = ("unrestricted", "naive", "chronological", "recent")
CONSUMPTION_POLICIES = ("unrestricted", "chronological", "recent")


@dataclass(frozen=True)
class Item:
    """One stream item (d, t) of Def. 4.2: the statements of stream `stream` stamped `timestamp`."""

    stream: str
    timestamp: int
    statements: frozenset[Triple]


def items_of(name: str, stream: Stream) -> list[Item]:
    """The items of a stream: its statements grouped by timestamp (Sec. 4.1's grouping)."""
    grouped: dict[int, set[Triple]] = {}
    for triple, timestamp in stream:
        grouped.setdefault(timestamp, set()).add(triple)
    return [Item(name, timestamp, frozenset(grouped[timestamp])) for timestamp in sorted(grouped)]


@dataclass(frozen=True)
class EventMapping:
    """Def. 6.2: (mu, t1, t2), a solution mapping with the first and last instants that justify it.
    `items` records which stream items the match used, for the consumption policies of Sec. 6.5."""

    mu: Solution
    start: int
    end: int
    items: frozenset[Item]

    def interval(self) -> tuple[Solution, int, int]:
        return (self.mu, self.start, self.end)


def precedes(first: EventMapping, second: EventMapping) -> bool:
    """The order on event mappings. Def. 6.2 leaves it open ("specific ordering can be chosen");
    choice: (t1, t2) precedes (t3, t4) iff t2 < t3, the first ends strictly before the second starts.
    On single-instant events (Def. 6.6) this is t < t'."""
    return first.end < second.start


# -- event patterns (Sec. 6.2) -----------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """(EVENT w P): the basic event pattern, a BGP `pattern` (SPARQL syntax) over window `window`."""

    window: str
    pattern: str


@dataclass(frozen=True)
class First:
    pattern: EventPattern


@dataclass(frozen=True)
class Last:
    pattern: EventPattern


@dataclass(frozen=True)
class Seq:
    """(E1 SEQ E2): `earlier` then `later`, under one selection policy of Sec. 6.4."""

    earlier: EventPattern
    later: EventPattern
    selection: str = "unrestricted"

    def __post_init__(self) -> None:
        if self.selection not in SELECTION_POLICIES:
            raise ValueError(f"selection policy {self.selection!r} not in {SELECTION_POLICIES}")


EventPattern = Union[Event, First, Last, Seq]


@dataclass(frozen=True)
class EventScope:
    """What the evaluation reads at time t: the dataset's windows (w_i, W_i(S_j)) and their streams,
    and, under a consumption policy, the input structure I_i (Def. 6.10): per window, the items still
    available. inputs None is the full window content (the unrestricted policy P^u)."""

    windows: dict[str, WindowDecl]
    streams: dict[str, Stream]
    time: int
    prefixes: dict[str, str]
    inputs: dict[str, frozenset[Item]] | None = None
    # under an entailment regime (Sec. 7.4): a window's items to their graphs, each closed
    # with the items before it (``so_far``); None: each item's own statements
    entailment: Callable[[Sequence[Item]], list[frozenset[Triple]]] | None = None

    def window_items(self, window: str) -> list[Item]:
        """The items of W_i(S_j, t) (before any contextual window)."""
        decl = self.windows[window]
        scope = decl.window.scope(self.time)
        if scope is None:
            return []
        items = [item for item in items_of(decl.stream, self.streams[decl.stream]) if scope.contains(item.timestamp)]
        if self.inputs is not None:
            items = [item for item in items if item in self.inputs[window]]
        return items


def evaluate(pattern: EventPattern, contextual: FixedWindow, scope: EventScope, bindings: Solution = frozenset()
             ) -> set[EventMapping]:
    """<E>^t_W (Def. 6.5): the event mappings of `pattern` inside the contextual window. `bindings`
    is the substitution mu2(E1) that Def. 6.8 applies to the earlier side of a SEQ."""
    if isinstance(pattern, Event):
        return _basic(pattern, contextual, scope, bindings)
    if isinstance(pattern, First):
        return first(evaluate(pattern.pattern, contextual, scope, bindings))
    if isinstance(pattern, Last):
        return last(evaluate(pattern.pattern, contextual, scope, bindings))
    return _sequence(pattern, contextual, scope, bindings)


def _basic(pattern: Event, contextual: FixedWindow, scope: EventScope, bindings: Solution) -> set[EventMapping]:
    """Def. 6.6: {(mu, t_k, t_k) | mu in [[P]]_{G_k} and (G_k, t_k) in W . W_i(S_j, t)} -- the BGP
    is matched on each item separately, not on their merge. Substituting `bindings` into P is the
    same as keeping the solutions compatible with them."""
    mappings = set()
    items = scope.window_items(pattern.window)
    graphs = [item.statements for item in items] if scope.entailment is None else scope.entailment(items)
    for item, graph in zip(items, graphs):
        if not contextual.contains(item.timestamp):
            continue
        for mu in bgp_solutions(pattern.pattern, tuple(sorted(scope.prefixes.items())), graph):
            if compatible(mu, bindings):
                mappings.add(EventMapping(mu, item.timestamp, item.timestamp, frozenset({item})))
    return mappings


def bgp_solutions(pattern: str, prefixes: tuple[tuple[str, str], ...], statements: frozenset[Triple]
                  ) -> list[Solution]:
    """[[P]]_G (Def. 2.8) by rdflib's SPARQL engine on the item's graph."""
    graph = Graph()
    for triple in statements:
        graph.add(triple)
    return [frozenset((str(name), term) for name, term in row.asdict().items())
            for row in graph.query(_prepared(pattern, prefixes))]


@lru_cache(maxsize=None)
def _prepared(pattern: str, prefixes: tuple[tuple[str, str], ...]) -> PreparedQuery:
    return prepareQuery(f"SELECT * WHERE {{ {pattern} }}", initNs=dict(prefixes))


def first(mappings: set[EventMapping]) -> set[EventMapping]:
    """Def. 6.7, (6.2): the mappings with no other mapping preceding them. The text file prints the
    quantifier as "exists"; the definition's name, its use in (6.10) and the prose around (6.10)
    ("is the first of such event mappings. This is ensured by stating that no such ... exists") make
    it "there is no", which the oracle uses."""
    return {mapping for mapping in mappings if not any(precedes(other, mapping) for other in mappings)}


def last(mappings: set[EventMapping]) -> set[EventMapping]:
    """Def. 6.7, (6.3): the mappings that precede no other mapping (same reading of the quantifier)."""
    return {mapping for mapping in mappings if not any(precedes(mapping, other) for other in mappings)}


def joined(earlier: EventMapping, later: EventMapping) -> EventMapping:
    """(mu1 union mu2, t1, t4) of Def. 6.8."""
    return EventMapping(earlier.mu | later.mu, earlier.start, later.end, earlier.items | later.items)


def before(t: int) -> FixedWindow:
    """The window "[0, t - 1]" of Def. 6.8 -- on the natural time line of Def. 4.1, (-1, t - 1]."""
    return FixedWindow(-1, t - 1)


def _sequence(pattern: Seq, contextual: FixedWindow, scope: EventScope, bindings: Solution) -> set[EventMapping]:
    """E1 SEQ E2 under its selection policy: (6.4) unrestricted, every E1 match before each E2 match;
    (6.10) chronological, the first E2 match that has a compatible earlier E1 match, with the first
    such E1 match; (6.11) recent, the last such E2 match with the last such E1 match.

    Two readings are choices. In (6.10) the E2 match chosen is, in the prose's words, "the first of
    such event mappings", those with a compatible earlier E1 match, so each competitor mu2' is tested
    with its own window [0, t3' - 1] (the formula writes W* with the chosen t3, which would let a
    competitor's later E1 match disqualify the chosen one); the text file prints that competitor
    quantifier as "exists" in (6.10) and "not exists" in (6.11), and the prose says "no such ...
    exists". (6.11) writes W* (which depends on t3) as the window of E2 itself, which is circular;
    E2 is evaluated in W, as in (6.10)."""
    if pattern.selection == "naive":
        return _sequence_naive(pattern, contextual, scope, bindings)
    later = evaluate(pattern.later, contextual, scope, bindings)
    prior = {mapping: _prior(pattern, mapping, contextual, scope, bindings) for mapping in later}
    if pattern.selection == "unrestricted":
        return {joined(earlier, mapping) for mapping in later for earlier in prior[mapping]}
    matched = {mapping for mapping in later if prior[mapping]}
    if pattern.selection == "chronological":
        return {joined(earlier, mapping) for mapping in first(matched) for earlier in first(prior[mapping])}
    return {joined(earlier, mapping) for mapping in last(matched) for earlier in last(prior[mapping])}


def _prior(pattern: Seq, later: EventMapping, contextual: FixedWindow, scope: EventScope, bindings: Solution
           ) -> set[EventMapping]:
    """<mu2(E1)>_{W [0, t3-1] . W}: the matches of the earlier pattern, with mu2 substituted, among
    the items strictly before the later match starts (Def. 6.8, (6.4))."""
    return evaluate(pattern.earlier, before(later.start).compose(contextual), scope, bindings | later.mu)


def _sequence_naive(pattern: Seq, contextual: FixedWindow, scope: EventScope, bindings: Solution
                    ) -> set[EventMapping]:
    """(6.9), C-SPARQL's SEQ: the last match of each side, kept when the first precedes the second.
    Choice: mu1 union mu2 must be a solution mapping, so the two must be compatible (Def. 2.3)."""
    earlier = last(evaluate(pattern.earlier, contextual, scope, bindings))
    later = last(evaluate(pattern.later, contextual, scope, bindings))
    return {joined(one, two) for one in earlier for two in later if precedes(one, two) and compatible(one.mu, two.mu)}


def match(pattern: EventPattern, scope: EventScope) -> set[Solution]:
    """Def. 6.9: [[MATCH E]] = {mu | (mu, t1, t2) in <E>^t_{W^id}} (set semantics, Ex. 17's note)."""
    return {mapping.mu for mapping in evaluate(pattern, IDENTITY_WINDOW, scope)}


def windows_in(pattern: EventPattern) -> set[str]:
    """The windows w_j appearing in E (Sec. 6.5's w_j in E)."""
    if isinstance(pattern, Event):
        return {pattern.window}
    if isinstance(pattern, (First, Last)):
        return windows_in(pattern.pattern)
    return windows_in(pattern.earlier) | windows_in(pattern.later)


def continuous_match(pattern: EventPattern, windows: dict[str, WindowDecl], streams: dict[str, Stream],
                     times: Sequence[int], consumption: str, prefixes: dict[str, str], entailment=None
                     ) -> list[tuple[int, set[EventMapping]]]:
    """The event mappings of `pattern` at each evaluation time under a consumption policy (Sec. 6.5).

    P^u (unrestricted) gives each evaluation the full window content. P^c and P^r (chronological,
    recent) give I_i(w_j) = Delta_i(w_j) plus the items of I_{i-1}(w_j) not used to match E at t_{i-1}
    (Def. 6.10-6.12), cut to the window's current content (the intersection in Sec. 6.5's formula).
    Choice: Def. 6.10-6.11 speak of triples; the oracle consumes whole stream items, the unit a basic
    event pattern matches on (Def. 6.6), so a statement repeated in a later item is new input."""
    if consumption not in CONSUMPTION_POLICIES:
        raise ValueError(f"consumption policy {consumption!r} not in {CONSUMPTION_POLICIES}")
    names = windows_in(pattern)
    previous_content: dict[str, frozenset[Item]] = {name: frozenset() for name in names}  # I_0(w_j) = empty (Def. 6.10)
    previous_input = dict(previous_content)
    used: frozenset[Item] = frozenset()
    results = []
    for t in times:
        content = {name: frozenset(EventScope(windows, streams, t, prefixes).window_items(name)) for name in names}
        inputs = None if consumption == "unrestricted" else {
            name: _valid_input(content[name], previous_content[name], previous_input[name], used) for name in names
        }
        mappings = evaluate(pattern, IDENTITY_WINDOW, EventScope(windows, streams, t, prefixes, inputs, entailment))
        results.append((t, mappings))
        used = frozenset().union(*(mapping.items for mapping in mappings))
        previous_content, previous_input = content, inputs or content
    return results


def _valid_input(content: frozenset[Item], previous_content: frozenset[Item], previous_input: frozenset[Item],
                 used: frozenset[Item]) -> frozenset[Item]:
    delta = content - previous_content  # Def. 6.11: Delta_i = SDS_w(t_i) \ SDS_w(t_{i-1}); Delta_1 = SDS_w(t_1)
    return (delta | (previous_input - used)) & content


def join(left: Iterable[Solution], right: Iterable[Solution]) -> set[Solution]:
    """Def. 2.3, (2.1): {mu1 union mu2 | mu1 in Omega1, mu2 in Omega2, mu1 ~ mu2} (sets, as Ex. 17)."""
    right = list(right)
    return {one | two for one in left for two in right if compatible(one, two)}
