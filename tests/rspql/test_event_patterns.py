"""RSEP-QL's MATCH in registered queries (chapter 6 of the thesis): event patterns over the
items of a query's windows, with SEQ's selection policies and MATCH's consumption policies,
answered at every evaluation time as the enumerating oracle (``tests/rspql/events.py``)
answers them.

The generated stream's items hold one to three statements each (so a basic event pattern of
two triples matches within an item, not across two), over windows of 3 s and a drawn second
window on the same stream (sliding, tumbling, offset, or a landmark window), so that an item one MATCH used through one window is new input
of the other later (Definition 6.11's delta). The stream is read under rdfs-plus with a TBox
(the windows are views): a basic event pattern matches each item's so-far closure, the facts
derived at the time of their newest premise (``tests/rspql/so_far.py``, decision 0074), and
a transitive property makes derivations of several items.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import deltalake
import polars as pl
import pytest
from rdflib import Graph, URIRef

from tests.conftest import write
from tests.query.test_matches_rdflib import _seed
from tests.rspql.events import Event, First, Last, Seq, continuous_match
from tests.rspql.oracle import SteppedLandmark, Window, WindowDecl
from tests.rspql.so_far import Tbox, closure_agrees_with_owlrl
from tests.rspql.so_far import entailment as so_far_entailment

EX = "http://example.org/"
PREFIXES = {"": EX}
FIRST_WINDOW = Window(3000, 1000, 0)
# the second window: tumbling, offset, another step, or a landmark window (RSEP-QL's Def. 6.1)
SECOND = [Window(2000, 2000, 0), Window(2500, 1000, 500), Window(4000, 2000, 1000), SteppedLandmark(1000, 1000),
          SteppedLandmark(0, 2000)]
UNTIL = 10_000
TBOX = (f"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        f"@prefix : <{EX}> .\n:likes rdfs:domain :Fan . :Fan rdfs:subClassOf :Person . :visits rdfs:range :Shop .\n"
        ":follows a owl:TransitiveProperty ; owl:inverseOf :followedBy .\n")
QUERIES = 12  # one per shape of ``_patterns``


def _stream(rng: random.Random) -> list[tuple[str, str, str, int]]:
    """Items at drawn times over eight seconds, each of one to three statements."""
    shops, people = ["s1", "s2", "s3"], ["u1", "u2", "u3", "u4"]
    statements = [lambda: (f"e{rng.randint(1, 9)}", "a", "A"), lambda: (f"e{rng.randint(1, 9)}", "a", "B"),
                  lambda: (rng.choice(people), "likes", rng.choice(shops)),
                  lambda: (rng.choice(people), "visits", rng.choice(shops)),
                  lambda: _follows(*rng.sample(people, 2))]
    events = []
    for ts in sorted(rng.sample(range(1, 8000), 28)):
        item = {rng.choice(statements)() for _ in range(rng.randint(1, 3))}
        if rng.random() < 0.3:  # an A at a shop, said in one item
            e = f"e{rng.randint(1, 9)}"
            item |= {(e, "a", "A"), (e, "at", rng.choice(shops))}
        events += [(s, p, o, ts) for s, p, o in item]
    return events


def _follows(one: str, other: str) -> tuple[str, str, str]:
    return one, "follows", other


def _term(name: str) -> str:
    return "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>" if name == "a" else f"<{EX}{name}>"


def _patterns(rng: random.Random) -> list:
    """Event patterns (the oracle's), one of each shape, in a drawn order, with drawn policies:
    together they reach every operator and policy."""
    def event(window: str, pattern: str) -> Event:
        return Event(f"{EX}{window}", pattern)

    a, b = event("w1", "?a a :A"), event("w2", "?b a :B")
    likes, visits = event("w1", "?x :likes ?shop"), event("w2", "?y :visits ?shop")
    at = event("w1", "?e a :A . ?e :at ?shop")
    visits1 = event("w1", "?z :visits ?shop")
    def selection() -> str:
        return rng.choice(["unrestricted", "chronological", "recent", "naive"])

    shapes = [
        lambda: Seq(a, b, selection()),
        lambda: Seq(likes, visits, selection()),
        lambda: Seq(at, visits, selection()),
        lambda: First(a),
        lambda: Last(at),
        lambda: Seq(Seq(likes, visits1, selection()), visits, selection()),
        lambda: Seq(likes, First(visits), selection()),
        lambda: First(Seq(a, b, selection())),
        lambda: Seq(a, Last(Seq(likes, visits, selection())), selection()),
        # derived occurrences: at the item of the newest premise (decision 0074, "Derived events")
        lambda: Seq(event("w1", "?x a :Person"), visits, selection()),
        lambda: Seq(event("w1", "?u :follows ?v"), event("w2", "?v :followedBy ?w"), selection()),
        lambda: Last(event("w2", "?u :followedBy ?v . ?v a :Fan")),
    ]
    return [shape() for shape in rng.sample(shapes, len(shapes))]


def _written(pattern) -> str:
    """The pattern in the query syntax (``declare.rsep``)."""
    if isinstance(pattern, Event):
        return f"EVENT <{pattern.window}> {{ {pattern.pattern} }}"
    if isinstance(pattern, (First, Last)):
        return f"{type(pattern).__name__.upper()} ({_written(pattern.pattern)})"
    return f"({_written(pattern.earlier)} SEQ {pattern.selection.upper()} {_written(pattern.later)})"


def _text(name: str, pattern, consumption: str, second: Window) -> str:
    return (f"PREFIX : <{EX}>\nENTAILMENT rdfs-plus ONTOLOGY <tbox.ttl>\nREGISTER RSTREAM :{name} AS SELECT *\n"
            f"FROM NAMED WINDOW :w1 ON :s [RANGE {FIRST_WINDOW.width_ms}ms STEP {FIRST_WINDOW.slide_ms}ms]\n"
            f"FROM NAMED WINDOW :w2 ON :s [{_range(second)} FROM {second.t0_ms}]\n"
            f"WHERE {{ MATCH {consumption.upper()} {{ {_written(pattern)} }} }}\n")


def _range(window) -> str:
    if isinstance(window, SteppedLandmark):
        return f"RANGE UNBOUNDED STEP {window.step_ms}ms"
    return f"RANGE {window.width_ms}ms STEP {window.slide_ms}ms"


def _first_close(window) -> int:
    return window.t0_ms + (window.step_ms if isinstance(window, SteppedLandmark) else window.width_ms)


def _ours(home: Path, name: str) -> set:
    path = home / f"rspql_{name}"
    if not deltalake.DeltaTable.is_deltatable(str(path)):
        return set()
    table = pl.from_arrow(deltalake.DeltaTable(str(path)).to_pyarrow_table())
    return {(frozenset((k, v) for k, v in row.items() if k != "close"), row["close"])
            for row in table.iter_rows(named=True)}


def _times(second: Window, begin: int) -> list[int]:
    return [t for t in range(begin, UNTIL + 1, 500) if FIRST_WINDOW.closes_at(t) and second.closes_at(t)]


def test_generated_event_patterns_answer_as_the_oracle_at_every_evaluation_time(cli, tmp_path, monkeypatch):
    rng = random.Random(_seed() + 75)
    second = rng.choice(SECOND)
    events = _stream(rng)
    write(tmp_path / "q" / "tbox.ttl", TBOX)
    drawn = [(f"e{k}", pattern, rng.choice(["unrestricted", "chronological", "recent"]))
             for k, pattern in enumerate(_patterns(rng))]
    drawn.append(("e_spark", *drawn[0][1:]))
    for name, pattern, consumption in drawn:
        cli("register", str(write(tmp_path / "q" / f"{name}.rspql", _text(name, pattern, consumption, second))))
    cli("ingest", "s", str(write(tmp_path / "s.jsonl", "".join(
        json.dumps({"s": _term(s), "p": _term(p), "o": _term(o), "ts": ts}) + "\n" for s, p, o, ts in events))))
    for name, *_ in drawn:
        if name == "e_spark":
            monkeypatch.setenv("REASONLAKE_DRIVER_READ_MB", "0")  # the windows' items are read by Spark
        cli("slide", name, "--until", str(UNTIL))
        monkeypatch.delenv("REASONLAKE_DRIVER_READ_MB", raising=False)
    stream = [((URIRef(_term(s).strip("<>")), URIRef(_term(p).strip("<>")), URIRef(_term(o).strip("<>"))), ts)
              for s, p, o, ts in events]
    windows = {f"{EX}w1": WindowDecl(f"{EX}w1", "s", FIRST_WINDOW), f"{EX}w2": WindowDecl(f"{EX}w2", "s", second)}
    begin = min(_first_close(FIRST_WINDOW), _first_close(second))
    begin = next(t for t in range(begin, UNTIL, 500) if any(
        w.window.content(stream, t) for w in windows.values() if w.window.closes_at(t)))
    tbox = Tbox(Graph().parse(data=TBOX, format="turtle"))
    vocabulary = {URIRef(EX + n) for n in ("A", "B", "Fan", "Person", "Shop", "likes", "visits", "at", "follows",
                                           "followedBy")}
    assert closure_agrees_with_owlrl({triple for triple, _ in stream}, tbox, vocabulary) == (set(), set())
    entailment = so_far_entailment(tbox)
    answered = 0
    for name, pattern, consumption in drawn:
        results = continuous_match(pattern, windows, {"s": stream}, _times(second, begin), consumption, PREFIXES,
                                   entailment)
        expected = {(frozenset((k, v.n3()) for k, v in mapping.mu), t) for t, mappings in results for mapping in mappings}
        found = _ours(cli.home, name)
        assert found == expected, (f"{name} MATCH {consumption} {_written(pattern)} (REASONLAKE_PROPERTY_SEED="
                                   f"{_seed()}), second window {second}:\nmissing: {sorted(expected - found, key=str)[:6]}"
                                   f"\nextra: {sorted(found - expected, key=str)[:6]}")
        answered += bool(expected)
    assert answered >= QUERIES // 2, "too few queries matched anything"


# Section 6.5 over the windows' closes: items at 1, 2, 3 and 5.5 s in a 5 s window sliding by
# 2 s (closes at 4, 6 and 8 s), ``A SEQ CHRONOLOGICAL B`` under each consumption policy
CONSUMING_ITEMS = [(1000, "a1", "A"), (2000, "a2", "A"), (3000, "b3", "B"), (5500, "b6", "B")]
CONSUMED = {
    # P^u: the whole window each time: the first B with an A before it, with its first A
    "UNRESTRICTED": {("a1", "b3", 4000), ("a2", "b3", 6000)},
    # P^c: a1 and b3 match at 4; at 6 the input is a2 (left over) and b6 (new); at 8 nothing is left
    "CHRONOLOGICAL": {("a1", "b3", 4000), ("a2", "b6", 6000)},
}


def consuming(folder: Path, consumption: str, stream: str = "s") -> tuple[Path, Path]:
    """The query and the items of the consumption case, written into ``folder``; the query
    reads the home's stream ``stream``."""
    text = (f"PREFIX : <{EX}>\nREGISTER RSTREAM :out AS SELECT ?a ?b\n"
            f"FROM NAMED WINDOW :w ON :{stream} [RANGE 5s STEP 2s FROM -1000]\n"
            f"WHERE {{ MATCH {consumption} {{ EVENT :w {{ ?a a :A }} SEQ CHRONOLOGICAL EVENT :w {{ ?b a :B }} }} }}")
    items = "".join(json.dumps({"s": f"<{EX}{s}>", "p": _term("a"), "o": f"<{EX}{o}>", "ts": ts}) + "\n"
                    for ts, s, o in CONSUMING_ITEMS)
    return write(folder / "out.rspql", text), write(folder / "s.jsonl", items)


def consumed_pairs(home: Path) -> set:
    """The consumption case's answers: (a, b, evaluation time)."""
    return {(dict(mu)["a"].strip("<>").removeprefix(EX), dict(mu)["b"].strip("<>").removeprefix(EX), t)
            for mu, t in _ours(home, "out")}


@pytest.mark.parametrize("consumption", sorted(CONSUMED))
def test_a_consumed_item_is_not_matched_again(cli, tmp_path, consumption):
    query, stream = consuming(tmp_path, consumption)
    cli("register", str(query))
    cli("ingest", "s", str(stream))
    cli("slide", "out", "--until", "5000")  # in two runs: the second reads back what the first used
    cli("slide", "out", "--until", "8000")
    assert consumed_pairs(cli.home) == CONSUMED[consumption]


def test_example_17_registered_matches_the_thesis(cli, tmp_path):
    """Example 17: MATCH (E2 SEQ E1) over the windows w3 and w4 of Examples 15 and 16, joined
    with the followers graph on ?following, at 22: "{(mu_d u mu_b), (mu_e u mu_b)}". The
    windows are (alpha = 30, beta = 1) started at -8 so that one closes at 22 and holds
    (-8, 22], all the items up to 22, as the thesis's window at 22 does."""
    from tests.rspql import test_oracle as thesis
    from tests.rspql.events import join, match
    from tests.rspql.test_registered_rspql import jsonl

    text = ("PREFIX : <http://example.org/sirius#>\nREGISTER RSTREAM :out AS SELECT *\n"
            "FROM NAMED WINDOW :w3 ON :nearby [RANGE 30ms STEP 1ms FROM -8]\n"
            "FROM NAMED WINDOW :w4 ON :social [RANGE 30ms STEP 1ms FROM -8]\n"
            "FROM NAMED GRAPH :gf\n"
            "WHERE { GRAPH :gf { :carl :follows ?following }\n"
            "        MATCH EVENT :w4 { ?post :author ?following . ?post :mentions ?c . ?c :in ?shop }\n"
            "              SEQ EVENT :w3 { :carl :isNearby ?shop } }\n")
    followers = write(tmp_path / "followers.ttl", "@prefix : <http://example.org/sirius#> .\n"
                      + thesis.listings.LISTING_6_1_G_FOLLOWERS)
    cli("register", str(write(tmp_path / "out.rspql", text)), "--graph", f"{thesis.EX}gf={followers}")
    cli("ingest", "nearby", str(write(tmp_path / "nearby.jsonl", jsonl(thesis.S_NEARBY))))
    cli("ingest", "social", str(write(tmp_path / "social.jsonl", jsonl(thesis.S_SOCIAL))))
    cli("slide", "out", "--until", "22")
    followed = {frozenset({("following", thesis.EX.diana)}), frozenset({("following", thesis.EX.eve)})}
    expected = join(followed, match(Seq(thesis.E2, thesis.E1), thesis.EVENT_SCOPE_AT_22))
    assert expected == {thesis.MU_D | thesis.MU_B, thesis.MU_E | thesis.MU_B}
    assert _ours(cli.home, "out") == {(frozenset((k, v.n3()) for k, v in mu), 22) for mu in expected}
