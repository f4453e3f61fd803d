"""EP-SPARQL's event operators over derived facts (decision 0074, "Derived intervals"): a
view's event query matches the facts its ontology derives from the window's items, each over
a minimal interval of the items that entail it (from its oldest to its newest premise), as
well as the items. Generated streams under a TBox with a domain, a sub-class, a range and a
transitive property with its inverse, and generated queries (SEQ, EQUALS, OPTIONALSEQ,
EQUALSOPTIONAL, a duration FILTER, getSTARTTIME() and getENDTIME()), checked at every close
against the paper's definitions over the intervals ``tests/rspql/so_far.minimal_intervals``
finds from the definition, on both backends."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from datetime import datetime, timezone

import pytest
from rdflib import RDF, Graph, URIRef

from reasonlake.api import Lakehouse
from reasonlake.query.answer import read_patterns
from reasonlake.query.bound import Bound, QueryBoundError
from tests.cli.helpers import jsonl, simple_view
from tests.query.backends import view_triples
from tests.query.test_event_operators import PREFIXES, XSD, _answers
from tests.query.test_matches_rdflib import _seed
from tests.rspql.so_far import Tbox, closure_agrees_with_owlrl, minimal_intervals
from tests.rspql.test_event_patterns import EX, TBOX

# the README's example: two follows links, and the one a transitive property derives from
# them from 10 s to 12 s (the connect and local-cluster checks ask it)
FOLLOWS_ITEMS = [(f"<{EX}a>", f"<{EX}follows>", f"<{EX}b>", 10_000), (f"<{EX}b>", f"<{EX}follows>", f"<{EX}c>", 12_000)]
FOLLOWS_QUERY = (f"PREFIX : <{EX}> SELECT ?y (getDURATION() AS ?d) WHERE {{ :a :follows ?y }} "
                 "EQUALS { :a :follows ?y } ORDER BY ?y")
WIDTH, SLIDE = 4000, 1000
CLOSES = range(4000, 12000, 1000)
PEOPLE, SHOPS = ["u1", "u2", "u3", "u4"], ["s1", "s2"]
# what a pattern reads: each predicate the stream states or the TBox derives, and every type
PREDICATES = ["follows", "followedBy", "a", "visits", "likes"]


def _stream(rng: random.Random) -> list[tuple[URIRef, URIRef, URIRef, int]]:
    """Statements over eleven seconds, three a second: follows edges (some stated as their
    inverse) chain through the transitive property, likes and visits type their terms; statements come again (two
    occurrences of one triple) and share times (EQUALS has items to pair)."""
    statements = [lambda: ("likes", rng.choice(PEOPLE), rng.choice(SHOPS)),
                  lambda: ("visits", rng.choice(PEOPLE), rng.choice(SHOPS)),
                  lambda: ("follows", *rng.sample(PEOPLE, 2)), lambda: ("follows", *rng.sample(PEOPLE, 2)),
                  lambda: ("followedBy", *rng.sample(PEOPLE, 2))]  # a follows link a rule makes
    events = set()
    for second in range(11):
        for _ in range(3):
            p, s, o = rng.choice(statements)()
            events.add((URIRef(EX + s), URIRef(EX + p), URIRef(EX + o), second * 1000 + rng.choice([100, 100, 400, 700])))
    return sorted(events, key=lambda e: (e[3], e[:3]))


def _predicate(name: str) -> URIRef:
    return RDF.type if name == "a" else URIRef(EX + name)


def _time(ms: int) -> str:
    when = datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f'"{when}.{ms % 1000:03d}Z"^^<{XSD}dateTime>'


class _Drawn:
    """One generated query: two operand patterns, an operator, maybe a duration FILTER, and
    maybe the solution's interval."""

    def __init__(self, rng: random.Random):
        self.operator = rng.choice(["SEQ", "EQUALS", "OPTIONALSEQ", "EQUALSOPTIONAL"])
        self.left = rng.choice(PREDICATES)
        self.right = rng.choice(PREDICATES)
        self.shared = rng.random() < 0.7  # both on ?c, else the right on ?d
        self.limit = rng.choice([None, 1000, 2500]) if self.operator in ("SEQ", "OPTIONALSEQ") else None
        self.times = rng.random() < 0.5

    def _variables(self) -> list[str]:
        return ["?c", "?x", "?y"] if self.shared else ["?c", "?x", "?d", "?y"]

    def text(self) -> str:
        left = f"{{ ?c {_written(self.left)} ?x }}"
        right = f"{{ {'?c' if self.shared else '?d'} {_written(self.right)} ?y }}"
        where = f"{left} {self.operator} {right}"
        if self.limit is not None:
            where += f' FILTER (getDURATION() <= "PT{self.limit / 1000:g}S"^^xsd:dayTimeDuration)'
        times = " (getSTARTTIME() AS ?start) (getENDTIME() AS ?end)" if self.times else ""
        return PREFIXES + f"SELECT {' '.join(self._variables())}{times} WHERE {where}"

    def brute_force(self, occurrences: list[tuple[tuple, int, int]]) -> tuple[Counter, int]:
        """The paper's definitions over the occurrences ((s, p, o), start, end); and how many
        solutions use a derived occurrence over more than one instant."""
        def matches(name, subject, var):
            return [({subject: s.n3(), var: o.n3()}, start, end) for (s, p, o), start, end in occurrences
                    if p == _predicate(name)]

        left = matches(self.left, "?c", "?x")
        right = matches(self.right, "?c" if self.shared else "?d", "?y")

        def compatible(m1, m2):
            return all(m1[k] == m2[k] for k in m1.keys() & m2.keys())

        def combined(a, b):
            return ({**a[0], **b[0]}, min(a[1], b[1]), max(a[2], b[2]), a[1] < a[2] or b[1] < b[2])

        out = []
        if self.operator == "SEQ":
            out = [combined(a, b) for a, b in itertools.product(left, right) if compatible(a[0], b[0]) and a[2] < b[1]]
        elif self.operator == "EQUALS":
            out = [combined(a, b) for a, b in itertools.product(left, right)
                   if compatible(a[0], b[0]) and (a[1], a[2]) == (b[1], b[2])]
        elif self.operator == "OPTIONALSEQ":  # SeqRightJoin(left, right): the right is kept
            for b in right:
                joined = [combined(a, b) for a in left if compatible(a[0], b[0]) and a[2] < b[1]]
                out += joined or [(*b, b[1] < b[2])]
        else:  # EqLeftJoin(left, right)
            for a in left:
                joined = [combined(a, b) for b in right if compatible(a[0], b[0]) and (a[1], a[2]) == (b[1], b[2])]
                out += joined or [(*a, a[1] < a[2])]
        if self.limit is not None:
            out = [s for s in out if s[2] - s[1] <= self.limit]
        times = (lambda start, end: (_time(start), _time(end))) if self.times else (lambda start, end: ())
        rows = Counter((*(mu.get(v) for v in self._variables()), *times(start, end)) for mu, start, end, _ in out)
        return rows, sum(spanned for *_, spanned in out)


def _written(name: str) -> str:
    return "a" if name == "a" else f":{name}"


def test_event_queries_match_derived_facts_over_their_minimal_intervals(spark, cli, tmp_path, monkeypatch):
    rng = random.Random(_seed() + 7)
    events = _stream(rng)
    tbox = Tbox(Graph().parse(data=TBOX, format="turtle"))
    # the oracle's rules reach what owlrl's OWL 2 RL closure reaches on the stream's statements
    vocabulary = {_predicate(p) for p in PREDICATES} | {URIRef(EX + c) for c in ("Fan", "Person", "Shop")}
    assert closure_agrees_with_owlrl({e[:3] for e in events}, tbox, vocabulary) == (set(), set())
    cli("view", "create", str(simple_view(tmp_path, width="4s", slide="1s", tbox=TBOX)))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", [(s.n3(), p.n3(), o.n3(), ts) for s, p, o, ts in events])))
    cli("slide", "v", "--until", str(CLOSES[-1]))
    home = Lakehouse(str(cli.home), spark=spark).home
    compared, spanned, kinds = 0, 0, Counter()
    for n, close in enumerate(CLOSES):
        window = [((s, p, o), ts) for s, p, o, ts in events if close - WIDTH < ts <= close]
        occurrences = sorted(minimal_intervals(window, tbox))
        drawn = [_Drawn(rng) for _ in range(6)]
        for backend in ["driver", "spark"] if n == 4 else ["driver"]:  # Spark once, past the first expiries
            triples = view_triples(home, "v", close, backend, monkeypatch)
            if backend == "spark":  # the items collected to derive from stay within the query's bound
                with pytest.raises(QueryBoundError, match="the window's items the ontology derives events from: "
                                                          "more than 3 rows"):
                    triples.answer(PREFIXES + "SELECT * WHERE { ?c :follows ?y } EQUALS { ?c :follows ?y }",
                                   Bound(3, 2048))
            for query in drawn:
                expected, spans = query.brute_force(occurrences)
                found = _answers(triples, query.text())
                assert found == expected, (
                    f"close {close}, {backend} (REASONLAKE_PROPERTY_SEED={_seed()}):\n{query.text()}\n"
                    f"only reasonlake: {found - expected}\nonly the definitions: {expected - found}")
                compared += 1
                spanned += spans
                kinds[query.operator] += bool(expected)
    # derived occurrences over intervals must be in answers, every operator must answer, and a
    # window must hold a triple twice
    assert compared >= 48 and spanned >= 10 and all(kinds[k] for k in ("SEQ", "EQUALS", "OPTIONALSEQ",
                                                                         "EQUALSOPTIONAL")), (spanned, kinds)
    assert any(Counter(e[:3] for e in events if c - WIDTH < e[3] <= c).most_common(1)[0][1] > 1 for c in CLOSES)


# an ontology whose rules join premises of different facts (the rule engine's join groups):
# a chain of two properties (prp-spo2) and an intersection (cls-int1)
OWL_TBOX = TBOX + (f"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
                   f"@prefix : <{EX}> .\n:followsFanOf owl:propertyChainAxiom (:follows :likes) .\n"
                   ":visits rdfs:domain :Visitor .\n:Regular owl:intersectionOf (:Fan :Visitor) .\n")


def _program(text: str, profile: str):
    """The TBox ``text``'s graph, its program under ``profile`` and the program's tables."""
    from reasonlake.compile.program import compile_program
    from reasonlake.engine.reason.program_tables import encode_program

    graph = Graph().parse(data=text, format="turtle")
    program = compile_program(frozenset(tuple(t.n3() for t in triple) for triple in graph), profile)
    return graph, program, encode_program(None, program)


def _with_intervals(window: list[tuple[tuple, int]], program, tables):
    """``derived_events.with_intervals`` over the window's (triple, time) items, each its
    own occurrence at its time."""
    import polars as pl

    from reasonlake.engine.reason.derived_events import with_intervals
    from reasonlake.query.solutions import END, START

    frame = pl.DataFrame([(*(t.n3() for t in triple), ts, ts) for triple, ts in window],
                         schema={"subject": pl.String, "predicate": pl.String, "object": pl.String,
                                 START: pl.Int64, END: pl.Int64}, orient="row")
    return with_intervals(frame, tables, program.terms())


@pytest.mark.parametrize("profile", ["rdfs-plus", "owl2rl"])
def test_derived_intervals_are_the_minimal_spans_whose_items_entail_the_fact(profile):
    """``with_intervals`` itself, on the driver, over windows of generated streams: every fact
    the items entail, over exactly the minimal spans the definition gives."""
    graph, program, tables = _program(TBOX if profile == "rdfs-plus" else OWL_TBOX, profile)
    tbox = Tbox(graph)
    predicates = {_predicate(p) for p in [*PREDICATES, "followsFanOf"]}
    classes = {URIRef(EX + c) for c in ("Fan", "Person", "Shop", "Visitor", "Regular")}
    named = {t.n3() for t in predicates | classes}
    rng = random.Random(_seed() + 11)
    spanned, joined = 0, 0
    for _ in range(8):
        events = _stream(rng)
        assert closure_agrees_with_owlrl({e[:3] for e in events}, tbox, predicates | classes) == (set(), set())
        opens = rng.randrange(0, 8000)
        window = [((s, p, o), ts) for s, p, o, ts in events if opens < ts <= opens + WIDTH]

        def kept(triple) -> bool:  # what the test's vocabulary names (OWL 2 RL derives more)
            return triple[2] in named if triple[1] == RDF.type.n3() else triple[1] in named

        found = Counter(row for row in _with_intervals(window, program, tables).iter_rows() if kept(row))
        expected = Counter((*(t.n3() for t in fact), start, end) for fact, start, end in minimal_intervals(window, tbox)
                           if kept(tuple(t.n3() for t in fact)))
        assert found == expected, (f"{profile}, items {window} (REASONLAKE_PROPERTY_SEED={_seed()}):\n"
                                   f"only reasonlake: {found - expected}\nonly the definition: {expected - found}")
        spanned += sum(1 for *_, start, end in expected if start < end)
        joined += sum(1 for _, p, o, *_ in expected if p == f"<{EX}followsFanOf>" or o == f"<{EX}Regular>")
    # intervals longer than an instant, and (under owl2rl) facts of the join groups, must be there
    assert spanned >= 10 and (joined >= 5 or profile == "rdfs-plus"), (spanned, joined)


def test_the_patterns_an_event_query_reads_include_those_of_its_exists():
    """Which patterns decide whether facts are derived: a pattern inside FILTER (NOT) EXISTS
    reads the occurrences too (its algebra keeps the parse tree, not a BGP)."""
    from reasonlake.query import events, parse

    text, timed = events.translate(PREFIXES + "SELECT ?c WHERE { ?c :likes ?x } SEQ { ?c :visits ?y "
                                              "FILTER EXISTS { ?c :follows ?d ; a :Person } }")
    follows, person = f"<{EX}follows>", f"<{EX}Person>"
    found = read_patterns(parse.algebra(text).algebra)
    assert timed and (("c",), follows, ("d",)) in found and (("c",), RDF.type.n3(), person) in found, found


def test_a_transitive_link_joins_each_interval_of_the_other_link_that_can_give_a_minimal_one():
    """(a follows b) comes a round late (from its inverse) at 10, while (b follows c) holds
    over [1, 1] and, through x, over [5, 20]: (a follows c) occurs over [1, 10] and over
    [5, 20], neither inside the other; the link starting latest before 10 gives only the
    second (the seed 739340289's close 6000)."""
    import polars as pl

    from reasonlake.query.solutions import END, START

    graph, program, tables = _program(TBOX, "rdfs-plus")
    a, b, c, x = (URIRef(EX + n) for n in "abcx")
    follows, followed_by = URIRef(EX + "follows"), URIRef(EX + "followedBy")
    window = [((b, follows, c), 1), ((b, follows, x), 5), ((b, followed_by, a), 10), ((x, follows, c), 20)]
    found = _with_intervals(window, program, tables)
    spans = sorted(found.filter((pl.col("subject") == a.n3()) & (pl.col("predicate") == follows.n3())
                                & (pl.col("object") == c.n3())).select(START, END).iter_rows())
    expected = sorted((start, end) for fact, start, end in minimal_intervals(window, Tbox(graph))
                      if fact == (a, follows, c))
    assert spans == expected == [(1, 10), (5, 20)], (spans, expected)
