"""A brute-force RSP-QL evaluator written from Dell'Aglio's thesis "On Unified Stream Reasoning"
(``../shared/papers/dellaglio-unified-stream-reasoning-thesis.txt``, chapters 4, 5 and 7): the
independent oracle of the continuous-query feature.

Everything is enumeration: every instant of the time line is tested against the report policy,
every window is cut again from the whole stream, every evaluation runs rdflib's SPARQL engine on a
dataset built from scratch. Nothing is incremental; every function is meant to be read next to the
definition it cites ("Def. 5.3" is Definition 5.3 of the thesis, "Ex. 9" its Example 9).

Time (Def. 4.1) is a discrete line of natural numbers; here one instant is one millisecond and a
query may step the line by a coarser constant time unit (`unit_ms`).
"""
from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, Union

import owlrl
from rdflib import BNode, Dataset, Graph, Literal, URIRef, Variable
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.algebra import traverse
from rdflib.plugins.sparql.evaluate import evalPart
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query as PreparedQuery
from rdflib.plugins.sparql.sparql import QueryContext
from rdflib.term import Node

Triple = tuple[Node, Node, Node]
# Def. 4.2 makes a stream item an RDF graph; the oracle's stream is a list of timestamped statements,
# and the statements sharing a timestamp form one item (Sec. 4.1: "grouping all statements with the
# same time annotation").
Stream = list[tuple[Triple, int]]
# Def. 2.3: a solution mapping, a partial function from variables (by name, without "?") to terms.
Solution = frozenset[tuple[str, Node]]


def solution(**bindings: Node) -> Solution:
    """The solution mapping {?name -> term, ...} (Def. 2.3)."""
    return frozenset(bindings.items())


def compatible(first: Solution, second: Solution) -> bool:
    """Def. 2.3: mu1 ~ mu2 iff they agree on every variable both bind."""
    left = dict(first)
    return all(left.get(name, term) == term for name, term in second)


# ---------------------------------------------------------------------------------------------
# Streams written in the thesis's TriG-like notation
# ---------------------------------------------------------------------------------------------

_TIMESTAMPED_GRAPH = re.compile(r"(\S+)\s*\{(.*?)\}\s*\[(\d+)\]\s*\.", re.DOTALL)


def parse_timestamped_graphs(text: str, prefixes: dict[str, str]) -> Stream:
    """Reads `:g { turtle } [t] .` items (Listings 4.1, 5.1, 5.2, 6.2) into a stream, in order."""
    stream: Stream = []
    for _name, body, timestamp in _TIMESTAMPED_GRAPH.findall(text):
        for triple in sorted(parse_turtle(body, prefixes)):
            stream.append((triple, int(timestamp)))
    return stream


def parse_turtle(body: str, prefixes: dict[str, str]) -> Graph:
    """A Turtle snippet with the given prefixes; TriG lets a graph's last statement omit its dot."""
    declarations = "".join(f"@prefix {name}: <{iri}> .\n" for name, iri in prefixes.items())
    text = body.strip()
    if not text.endswith("."):
        text += " ."
    return Graph().parse(data=declarations + text, format="turtle")


def scaled(stream: Stream, factor: int) -> Stream:
    """The same stream with every timestamp multiplied, e.g. thesis minutes to milliseconds."""
    return [(triple, timestamp * factor) for triple, timestamp in stream]


# ---------------------------------------------------------------------------------------------
# Windows (Def. 5.2, 5.3, 6.1, 6.3, 6.4)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FixedWindow:
    """Def. 5.2: W^(o,c](S) = {(d, t) | (d, t) in S and t in (o, c]} -- open at the opening time o,
    closed at the closing time c. Unbounded ends are +-infinity (the identity window, Def. 6.4)."""

    opening: float
    closing: float

    def contains(self, timestamp: int) -> bool:
        return self.opening < timestamp <= self.closing

    def select(self, stream: Stream) -> Stream:
        return [(triple, timestamp) for triple, timestamp in stream if self.contains(timestamp)]

    def compose(self, other: FixedWindow) -> FixedWindow:
        """Def. 6.3: W^(o1,c1] . W^(o2,c2] is the window in (max{o1, o2}, min{c1, c2}]."""
        return FixedWindow(max(self.opening, other.opening), min(self.closing, other.closing))


IDENTITY_WINDOW = FixedWindow(-math.inf, math.inf)  # Def. 6.4: W^id . W = W and W^id(S) = S


@dataclass(frozen=True)
class Window:
    """A time-based sliding window (Def. 5.3) with width alpha, slide beta and start t0."""

    width_ms: int
    slide_ms: int
    t0_ms: int

    def __post_init__(self) -> None:
        if self.width_ms <= 0 or self.slide_ms <= 0:
            raise ValueError(f"a window needs a positive width and slide, not {self.width_ms} and {self.slide_ms}")

    def opened(self) -> Iterator[FixedWindow]:
        """The fixed windows W1, W2, ... it opens (Def. 5.3's constraints): o1 = t0, c_i - o_i = alpha,
        o_{i+1} - o_i = beta."""
        opening = self.t0_ms
        while True:
            yield FixedWindow(opening, opening + self.width_ms)
            opening += self.slide_ms

    def present_window(self, t: int) -> FixedWindow | None:
        """The present ("active") window at t: the earliest-opened window W_p with o_p < t <= c_p.

        Def. 5.3 words it as "o_p is the most recent opening time, i.e. there is no W_j with
        o_p < o_j < t_now", but every worked example of the thesis picks the oldest window that has
        not closed yet: Ex. 9 (alpha=5, beta=2, t0=1) names W3 = (5,10] at t=9 although W4 = (7,12]
        opened at 7; Ex. 23 gives (13,17] at 17 and (15,19] at 19 for (4, 2, 13); Sec. 7.3's Ex. 18
        gives (0,20] at 20 for (20, 10, 0); Table 5.1 needs (3,8] at 8 and (11,16] at 16 for (5, 2, 1).
        The most-recent reading contradicts all of them, so the oracle follows the examples; at a
        closing time c_i this is W_i itself, i.e. a window is reported whole when it closes.
        None when no window contains t (before t0, or in the gaps of a window with beta > alpha)."""
        for fixed in self.opened():
            if fixed.opening >= t:
                return None
            if fixed.closing >= t:
                return fixed
        raise AssertionError("unreachable: opened() is infinite")

    # the DSMS name; the thesis says "present window" to keep "active" for the active graph (Sec. 5.3, note 1)
    active_window = present_window

    def scope(self, t: int) -> FixedWindow | None:
        """Def. 5.3: W(S, t_now) = W^(o_p, t_now], a sub-window of the present window."""
        present = self.present_window(t)
        return None if present is None else FixedWindow(present.opening, t)

    def content(self, stream: Stream, t: int) -> Stream:
        scope = self.scope(t)
        return [] if scope is None else scope.select(stream)

    def closes_at(self, t: int) -> bool:
        """Some window W_i has c_i = t0 + alpha + (i-1) beta = t."""
        since_first_close = t - self.t0_ms - self.width_ms
        return since_first_close >= 0 and since_first_close % self.slide_ms == 0


@dataclass(frozen=True)
class LandmarkWindow:
    """Def. 6.1: at t it produces the fixed window W^(t0, t]; it grows and never closes."""

    t0_ms: int

    def scope(self, t: int) -> FixedWindow:
        return FixedWindow(self.t0_ms, t)

    def content(self, stream: Stream, t: int) -> Stream:
        return self.scope(t).select(stream)

    def closes_at(self, t: int) -> bool:
        """Choice (Def. 5.12's Window Close applied to Def. 6.1): a landmark window never closes."""
        return False


@dataclass(frozen=True)
class SteppedLandmark(LandmarkWindow):
    """A landmark window read every ``step_ms`` from t0, as a query's ``[RANGE UNBOUNDED STEP d
    FROM t0]``. Choice: Def. 6.1 gives the window no closing time (EP-SPARQL evaluates at every
    item); a query's evaluation times are its windows' closes (Def. 5.12), so the step is when
    it closes: t0 + k * step, k >= 1. Its content at t stays Def. 6.1's (t0, t]."""

    step_ms: int = 1000

    def closes_at(self, t: int) -> bool:
        return t > self.t0_ms and (t - self.t0_ms) % self.step_ms == 0


WindowOperator = Union[Window, LandmarkWindow]


def merge(items: Stream) -> Graph:
    """Def. 5.7: the RDF graph merging every item of a window. The merge keeps blank nodes apart per
    item (footnote 2 of Sec. 5.5: "blank nodes cannot be shared across stream items")."""
    graph = Graph()
    for (subject, predicate, obj), timestamp in items:
        graph.add((_apart(subject, timestamp), predicate, _apart(obj, timestamp)))
    return graph


def _apart(term: Node, timestamp: int) -> Node:
    return BNode(f"{term}_{timestamp}") if isinstance(term, BNode) else term


# ---------------------------------------------------------------------------------------------
# The RSP-QL dataset (Def. 5.4) and entailment (Sec. 7.3)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entailment:
    """Graph-level entailment (Sec. 7.3, Def. 7.1): a BGP over a window is matched on the closure of
    SDS(W(S), t) union M(S), where M(S) is the stream's TBox. Choice: the TBox statements stay in the
    scoping graph, as Def. 7.1's union says."""

    tbox: Graph
    semantics: type = owlrl.OWLRL_Semantics

    def close(self, graph: Graph) -> Graph:
        closed = Graph()
        for triple in graph:
            closed.add(triple)
        for triple in self.tbox:
            closed.add(triple)
        owlrl.DeductiveClosure(self.semantics, axiomatic_triples=False, datatype_axioms=False).expand(closed)
        return closed


@dataclass(frozen=True)
class WindowDecl:
    """One (w, W(S)) of Def. 5.4: window operator `window` over stream `stream`, known as `name` (an
    IRI). named=False puts its content in the default element A0 instead (C-SPARQL's FROM STREAM)."""

    name: str
    stream: str
    window: WindowOperator
    named: bool = True
    entailment: Entailment | None = None


@dataclass(frozen=True)
class GraphDecl:
    """A time-varying graph (Def. 4.3): a fixed Graph, or a function from t to the instantaneous
    graph. name None puts it in the default element A0 (FROM GRAPH); an IRI makes it a named graph."""

    graph: Graph | Callable[[int], Graph]
    name: str | None = None

    def at(self, t: int) -> Graph:
        return self.graph(t) if callable(self.graph) else self.graph


@dataclass(frozen=True)
class Environment:
    """The windows of one query and the streams they read, on a time line of step `unit_ms`."""

    windows: dict[str, WindowDecl]
    streams: dict[str, Stream]
    unit_ms: int = 1

    def content(self, window: str, t: int) -> Stream:
        decl = self.windows[window]
        return decl.window.content(self.streams[decl.stream], t)

    def window_graph(self, window: str, t: int) -> Graph:
        """SDS(W(S), t) of Def. 5.7, closed under the window's entailment regime if it has one."""
        graph = merge(self.content(window, t))
        entailment = self.windows[window].entailment
        return graph if entailment is None else entailment.close(graph)


# ---------------------------------------------------------------------------------------------
# Report policies and the evaluation time instant set (Sec. 5.8, Def. 5.12)
# ---------------------------------------------------------------------------------------------


class Policy(Protocol):
    def holds(self, t: int, env: Environment) -> bool: ...


@dataclass(frozen=True)
class WindowClose:
    """WC: "the sliding window reports if the present window closes" (Sec. 5.8)."""

    window: str

    def holds(self, t: int, env: Environment) -> bool:
        return env.windows[self.window].window.closes_at(t)


@dataclass(frozen=True)
class NonEmptyContent:
    """NC: "the sliding window reports if the present window is not empty" (Sec. 5.8); the content
    is W(S, t) of Def. 5.3."""

    window: str

    def holds(self, t: int, env: Environment) -> bool:
        return bool(env.content(self.window, t))


@dataclass(frozen=True)
class ContentChange:
    """CC: "the sliding window reports if the content changes" (Sec. 5.8). Choice: the content at t
    differs (as a set of timestamped statements) from the content one time unit before, so an item
    leaving the window is a change too, not only one entering it (Ex. 28's prose on CQELS mentions
    entering statements only)."""

    window: str

    def holds(self, t: int, env: Environment) -> bool:
        return set(env.content(self.window, t)) != set(env.content(self.window, t - env.unit_ms))


@dataclass(frozen=True)
class Periodic:
    """P: "the sliding window reports only at regular intervals" (Sec. 5.8). Choice: the strategy is
    tied to its window (Def. 5.12: "each strategy is associated to a window") and reports at
    t0 + k * period for k >= 1."""

    window: str
    period_ms: int

    def holds(self, t: int, env: Environment) -> bool:
        since_start = t - env.windows[self.window].window.t0_ms
        return since_start > 0 and since_start % self.period_ms == 0


class All:
    """The conjunction of strategies, e.g. Ex. 12's P = WC[W2] and NC[W2]."""

    def __init__(self, *parts: Policy):
        self.parts = parts

    def holds(self, t: int, env: Environment) -> bool:
        return all(part.holds(t, env) for part in self.parts)


class AnyOf:
    """The disjunction of strategies (Def. 5.12 allows any boolean combination)."""

    def __init__(self, *parts: Policy):
        self.parts = parts

    def holds(self, t: int, env: Environment) -> bool:
        return any(part.holds(t, env) for part in self.parts)


def evaluation_times(policy: Policy, env: Environment, start_ms: int, until_ms: int) -> list[int]:
    """Def. 5.12: t is in ET_P iff P is satisfied at t -- tested at every instant of [start, until].
    With several windows the strategies of all of them form the one combination P, and a window
    without a strategy does not contribute (Ex. 12)."""
    return [t for t in range(start_ms, until_ms + 1, env.unit_ms) if policy.holds(t, env)]


# ---------------------------------------------------------------------------------------------
# Streaming operators (Sec. 5.6, Def. 5.9-5.11), on the answers over the ET sequence
# ---------------------------------------------------------------------------------------------

Answers = Sequence[tuple[int, Sequence[Solution]]]  # (t_j, Psi(t_j)) for t_j in ET, in order


def rstream(answers: Answers) -> list[tuple[Solution, int]]:
    """Def. 5.9: RStream(Psi(t), t) = {(mu, t) | mu in Psi(t)} -- every solution, every time."""
    return [(mu, t) for t, psi in answers for mu in psi]


def istream(answers: Answers) -> list[tuple[Solution, int]]:
    """Def. 5.10: IStream = {(mu, t_j) | mu in Psi(t_j) and mu not in Psi(t_{j-1})}, read literally as
    a membership test: every copy of mu in Psi(t_j) is kept when mu does not occur in Psi(t_{j-1})
    (not a bag difference). Choice: before the first evaluation time Psi is empty (Def. 5.10 only
    speaks of consecutive instants), so the first answer streams out whole."""
    output: list[tuple[Solution, int]] = []
    previous: Sequence[Solution] = ()
    for t, psi in answers:
        output += [(mu, t) for mu in psi if mu not in previous]
        previous = psi
    return output


def dstream(answers: Answers) -> list[tuple[Solution, int]]:
    """Def. 5.11: DStream = {(mu, t_j) | mu not in Psi(t_j) and mu in Psi(t_{j-1})}, with the same
    literal membership reading and the same empty Psi before the first evaluation time."""
    output: list[tuple[Solution, int]] = []
    previous: Sequence[Solution] = ()
    for t, psi in answers:
        output += [(mu, t) for mu in previous if mu not in psi]
        previous = psi
    return output


STREAMING_OPERATORS = {"RSTREAM": rstream, "ISTREAM": istream, "DSTREAM": dstream}


# ---------------------------------------------------------------------------------------------
# Queries (Def. 5.1, 5.13)
# ---------------------------------------------------------------------------------------------

_QUOTED = re.compile(r"(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')")
_WINDOW_BLOCK = re.compile(
    r"(?<![\w:?$])WINDOW(\s+(?:<[^>\s]*>|[A-Za-z_][\w.-]*:[\w.-]*|:[\w.-]*|[?$]\w+)\s*\{)", re.IGNORECASE
)


def rewrite_windows(text: str) -> str:
    """`WINDOW w { P }` becomes `GRAPH w { P }`.

    In an RSP-QL body WINDOW sets the named window's content as the active graph "similarly to the
    GRAPH keyword in SPARQL" (Sec. 8.6); since the oracle's dataset holds each named window as the
    named graph of the same IRI, GRAPH is the same operation and rdflib can run the body. Only the
    keyword directly followed by an IRI, prefixed name or variable and a `{` is rewritten, and never
    inside a string literal."""
    parts = _QUOTED.split(text)
    return "".join(part if index % 2 else _WINDOW_BLOCK.sub(r"GRAPH\1", part) for index, part in enumerate(parts))


@dataclass(frozen=True)
class Query:
    """An RSP-QL query (SE, SDS, ET, QF) of Def. 5.1, with SE and QF given as SPARQL text whose WINDOW
    blocks are rewritten by `rewrite_windows`; SDS is `windows` + `graphs` (Def. 5.4); ET is the
    report `policy` (Def. 5.12); `operator` is the outer streaming operator (Sec. 5.6); `output`
    names the stream a CONSTRUCT query registers (REGISTER STREAM), read by queries downstream."""

    text: str
    windows: Sequence[WindowDecl]
    policy: Policy
    graphs: Sequence[GraphDecl] = ()
    operator: str = "RSTREAM"
    output: str | None = None
    prefixes: dict[str, str] = field(default_factory=dict)


@dataclass
class Answer:
    """Ans(Q) of Def. 5.13: the ET instants, Psi(t) at each, the streaming operator's output as a
    multiset of (mu, t), and, for CONSTRUCT, the output RDF stream (statements stamped with t)."""

    form: str
    times: list[int]
    answers: list[tuple[int, list[Solution]]]
    output: Counter[tuple[Solution, int]]
    stream: Stream


def prepare(query: Query) -> PreparedQuery:
    prepared = prepareQuery(rewrite_windows(query.text), initNs=query.prefixes)
    traverse(prepared.algebra, visitPost=_join_bottom_up)
    return prepared


def _join_bottom_up(node: object) -> None:
    """rdflib evaluates a join "lazily", feeding the left side's bindings into the right side, which
    changes the answer of a sub-SELECT with GROUP BY (a Listing 8.5 shape). SPARQL evaluates both
    sides independently and joins them (Def. 2.3, eq. 2.1), so every join is made eager."""
    if isinstance(node, CompValue) and node.name == "Join":
        node["lazy"] = False


def dataset_at(query: Query, env: Environment, t: int) -> Dataset:
    """The RDF dataset the expression is evaluated on at t (Def. 5.7): each named window's content and
    each named time-varying graph as a named graph, and the default element A0 merged into the default
    graph (Sec. 5.5: "for each time-varying graph and sliding window a RDF graph is computed; finally,
    the graphs are merged together")."""
    dataset = Dataset()
    for decl in query.windows:
        _add(dataset, decl.name if decl.named else None, env.window_graph(decl.name, t))
    for graph in query.graphs:
        _add(dataset, graph.name, graph.at(t))
    return dataset


def _add(dataset: Dataset, name: str | None, graph: Graph) -> None:
    target = dataset.default_graph if name is None else dataset.graph(URIRef(name))
    for triple in graph:
        target.add(triple)


def solutions(prepared: PreparedQuery, dataset: Dataset) -> list[Solution]:
    """Psi(t): the solution sequence of the query's pattern over the dataset at t (Def. 5.6). The
    default graph is A0 alone, never the union of the named graphs."""
    context = QueryContext(dataset, initBindings={})
    context.graph = dataset.default_graph
    context.prologue = prepared.prologue
    return [_as_solution(row) for row in evalPart(context, prepared.algebra.p)]


def _as_solution(row: object) -> Solution:
    # rdflib names the helper variables of aggregates "__agg_n__"; they are not the query's variables
    return frozenset(
        (str(name), term)
        for name, term in row.items()  # type: ignore[attr-defined]
        if isinstance(name, Variable) and not str(name).startswith("__")
    )


def query_form(prepared: PreparedQuery) -> str:
    return {"SelectQuery": "SELECT", "ConstructQuery": "CONSTRUCT"}[prepared.algebra.name]


def construct_template(prepared: PreparedQuery) -> list[tuple[Node, Node, Node]]:
    algebra = prepared.algebra
    return list(algebra.template or algebra.p.p.triples)  # CONSTRUCT WHERE { ... } has no template


def instantiate(template: Sequence[Triple], mu: Solution) -> list[Triple]:
    """SPARQL's CONSTRUCT for one solution: variables replaced, a fresh blank node for each template
    blank node, a statement dropped when a variable is unbound or the result is not RDF (Def. 2.1)."""
    bindings = dict(mu)
    fresh: dict[BNode, BNode] = {}
    statements = []
    for pattern in template:
        terms = [_instantiate_term(term, bindings, fresh) for term in pattern]
        if _is_statement(terms):
            statements.append((terms[0], terms[1], terms[2]))
    return statements


def _instantiate_term(term: Node, bindings: dict[str, Node], fresh: dict[BNode, BNode]) -> Node | None:
    if isinstance(term, Variable):
        return bindings.get(str(term))
    if isinstance(term, BNode):
        return fresh.setdefault(term, BNode())
    return term


def _is_statement(terms: list[Node | None]) -> bool:
    subject, predicate, obj = terms
    return (
        isinstance(subject, (URIRef, BNode)) and isinstance(predicate, URIRef) and isinstance(obj, (URIRef, BNode, Literal))
    )


def output_stream(template: Sequence[Triple], output: Sequence[tuple[Solution, int]]) -> Stream:
    """Sec. 5.7: a CONSTRUCT query with a streaming operator outputs an RDF stream; each evaluation
    appends the graph built from its timestamped solutions, stamped with the evaluation time."""
    graphs: dict[int, set[Triple]] = {}
    for mu, t in output:
        graphs.setdefault(t, set()).update(instantiate(template, mu))
    return [(triple, t) for t in sorted(graphs) for triple in sorted(graphs[t])]


def evaluate(query: Query, streams: dict[str, Stream], until_ms: int, start_ms: int = 0, unit_ms: int = 1) -> Answer:
    """Def. 5.13: for each t in ET evaluate the expression over the dataset at t; the outer streaming
    operator turns the sequence of answers into timestamped solutions; the query form formats them."""
    prepared = prepare(query)
    env = Environment({decl.name: decl for decl in query.windows}, streams, unit_ms)
    times = evaluation_times(query.policy, env, start_ms, until_ms)
    answers = [(t, solutions(prepared, dataset_at(query, env, t))) for t in times]
    output = STREAMING_OPERATORS[query.operator](answers)
    form = query_form(prepared)
    stream = output_stream(construct_template(prepared), output) if form == "CONSTRUCT" else []
    return Answer(form, times, answers, Counter(output), stream)


# ---------------------------------------------------------------------------------------------
# Networks of queries (Sec. 8.3: "a network of three C-SPARQL queries")
# ---------------------------------------------------------------------------------------------


def dependency_order(queries: Sequence[Query], inputs: set[str]) -> list[Query]:
    """The queries ordered so that each comes after the producers of the streams it reads."""
    available, ordered, waiting = set(inputs), [], list(queries)
    while waiting:
        ready = [query for query in waiting if {decl.stream for decl in query.windows} <= available]
        if not ready:
            raise ValueError(f"no query can run: cycle or missing input among {[q.output for q in waiting]}")
        for query in ready:
            ordered.append(query)
            waiting.remove(query)
            if query.output is not None:
                available.add(query.output)
    return ordered


def run_network(
    queries: Sequence[Query], inputs: dict[str, Stream], until_ms: int, start_ms: int = 0, unit_ms: int = 1
) -> dict[str, Answer]:
    """Evaluates each query of a network in dependency order; a CONSTRUCT query's output stream becomes
    an input of the queries after it (Sec. 5.7: only the CONSTRUCT/DESCRIBE output "can be consumed by
    another RSP-QL engine", so a SELECT query's output is not registered as a stream). The thesis's
    assumption that an evaluation takes less than one time unit (Sec. 5.2) makes an output stamped t
    visible to a downstream window at t."""
    streams = dict(inputs)
    answers: dict[str, Answer] = {}
    for position, query in enumerate(dependency_order(queries, set(inputs))):
        unreadable = {decl.stream for decl in query.windows} - set(streams)
        if unreadable:
            raise ValueError(f"streams {sorted(unreadable)} are SELECT outputs, not RDF streams")
        answer = evaluate(query, streams, until_ms, start_ms, unit_ms)
        answers[query.output or f"query {position}"] = answer
        if query.output is not None and answer.form == "CONSTRUCT":
            streams[query.output] = answer.stream
    return answers
