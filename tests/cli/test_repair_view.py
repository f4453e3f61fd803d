"""Newest-wins repair end to end through the CLI: Proost & Bonte's examples, the reactor of
their introduction, disproving a disproof, the audit trail and the repair job."""
from __future__ import annotations

import json

from tests.cli.helpers import EX, TYPE, ex, jsonl, sql_names_show_what_the_readers_show, violations, violations_status
from tests.conftest import write

PREFIXES = (
    f"@prefix : <{EX}> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
)


def _view(tmp, name, tbox, width="3s", slide="1s", extra="", start=-3000):
    write(tmp / f"{name}.ttl", PREFIXES + tbox)
    return write(tmp / f"{name}.yaml", (
        f"name: {name}\nstream: {name}\nontology: [{name}.ttl]\nprofile: owl2rl\nrepair: newest-wins\n"
        f"window: {{width: {width}, slide: {slide}, start: {start}}}\n{extra}"
    ))


def _a(x, c, ts):
    return (ex(x), TYPE, ex(c), ts)


def _types(cli, view, x, close=None):
    args = ["export", view] + (["--close", close] if close else [])
    lines = cli(*args).splitlines()
    prefix = f"{ex(x)} {TYPE} "
    return {line[len(prefix):].split(" ")[0][len(EX) + 1:-1] for line in lines if line.startswith(prefix)}


def _start(cli, tmp, name, tbox, events, until):
    """Create the view, ingest its events, slide it to ``until``."""
    cli("view", "create", str(_view(tmp, name, tbox)))
    cli("ingest", name, str(jsonl(tmp / f"{name}.jsonl", events)))
    cli("slide", name, "--until", until)


def test_example1_newer_assertion_wins_against_two_older_ones(cli, tmp_path):
    _start(cli, tmp_path, "ex1", ":A owl:disjointWith :C . :B owl:disjointWith :C .",
           [_a("a", "A", 1000), _a("a", "B", 1000), _a("a", "C", 2000)], "1970-01-01T00:00:02Z")
    assert _types(cli, "ex1", "a") == {"C"}
    assert violations(cli, "ex1") == set()
    assert violations_status(cli, "ex1") == "view ex1 at 1970-01-01T00:00:02.000Z: consistent"


def test_example3_car_pedals(cli, tmp_path):
    view = _view(tmp_path, "car", ":GasPedalPressed owl:disjointWith :BreaksPressed .")
    cli("view", "create", str(view))
    events = [_a("x", "GasPedalPressed", 0), _a("x", "GasPedalPressed", 1000), _a("x", "BreaksPressed", 3000),
              _a("x", "BreaksPressed", 4000), _a("x", "ClutchPressed", 4000)]
    cli("ingest", "car", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "car", "--until", "1970-01-01T00:00:02Z")
    assert _types(cli, "car", "x") == {"GasPedalPressed"}
    cli("slide", "car", "--until", "1970-01-01T00:00:03Z")
    assert _types(cli, "car", "x") == {"BreaksPressed"}
    cli("slide", "car", "--until", "1970-01-01T00:00:04Z")
    assert _types(cli, "car", "x") == {"BreaksPressed", "ClutchPressed"}
    # time travel: close 2 still shows the gas pedal, and the repair says why it went
    assert _types(cli, "car", "x", close="1970-01-01T00:00:02Z") == {"GasPedalPressed"}
    why = cli("explain", "car", "--removed", f"{ex('x')} {TYPE} {ex('GasPedalPressed')}")
    assert "cax-dw" in why and "BreaksPressed" in why and "1970-01-01T00:00:03" in why
    history = cli("history", "car")
    assert "repairs" in history.splitlines()[0]


def test_example6_only_the_shared_older_assertion_goes(cli, tmp_path):
    _start(cli, tmp_path, "ex6",
           "[ owl:intersectionOf ( :A :B :C ) ] rdfs:subClassOf owl:Nothing .\n:B owl:disjointWith :D .\n",
           [_a("a", "A", 1000), _a("a", "B", 2000), _a("a", "C", 3000), _a("a", "D", 3000)],
           "1970-01-01T00:00:03Z")
    assert _types(cli, "ex6", "a") == {"A", "C", "D"}


REACTOR = """
:temperatureStatus a owl:FunctionalProperty .
:LowReactor owl:equivalentClass [ a owl:Restriction ; owl:onProperty :temperatureStatus ; owl:hasValue :low ] .
:Cooling owl:equivalentClass [ a owl:Restriction ; owl:onProperty :coolant ; owl:someValuesFrom :LowReactor ] .
"""


def test_functional_property_reactor_newest_status_wins_and_its_consequences_go(spark, cli, tmp_path):
    view = _view(tmp_path, "reactor", REACTOR, width="60s", slide="30s", start=-30_000)
    cli("view", "create", str(view))
    events = [
        (ex("reactor"), ex("temperatureStatus"), ex("low"), 30_000),
        (ex("pump"), ex("coolant"), ex("reactor"), 30_000),
        (ex("reactor"), ex("temperatureStatus"), ex("high"), 60_000),
    ]
    cli("ingest", "reactor", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "reactor", "--until", "1970-01-01T00:01:00Z")
    at30 = set(cli("export", "reactor", "--close", "1970-01-01T00:00:30Z").splitlines())
    at60 = set(cli("export", "reactor").splitlines())
    low = f"{ex('reactor')} {ex('temperatureStatus')} {ex('low')} ."
    derived = {f"{ex('reactor')} {TYPE} {ex('LowReactor')} .", f"{ex('pump')} {TYPE} {ex('Cooling')} ."}
    assert low in at30 and derived <= at30  # cls-hv2, then cls-svf1 on top of it
    assert f"{ex('reactor')} {ex('temperatureStatus')} {ex('high')} ." in at60
    assert low not in at60 and not (derived & at60)  # delete and re-derive took them out
    assert f"{ex('pump')} {ex('coolant')} {ex('reactor')} ." in at60
    # time travel: the Delta version published at close 30 still holds it
    versions = [line.split()[1] for line in cli("history", "reactor").splitlines()[1:]]
    assert low in set(cli("export", "reactor", "--version", versions[0]).splitlines())
    assert low not in set(cli("export", "reactor", "--version", versions[1]).splitlines())
    why = cli("explain", "reactor", "--removed", low)
    assert "prp-fp" in why and ex("high") in why
    sql = cli("sql", "SELECT rule, removed, conflict FROM reactor_repairs", "--format", "json")
    (logged,) = [json.loads(line) for line in sql.splitlines()]
    assert logged["rule"] == "prp-fp" and logged["removed"] == low, logged
    assert logged["conflict"] == sorted([low, f"{ex('reactor')} {ex('temperatureStatus')} {ex('high')} ."]), logged
    sql_names_show_what_the_readers_show(spark, cli.home, "reactor")
    assert violations(cli, "reactor") == set()
    assert violations_status(cli, "reactor") == "view reactor at 1970-01-01T00:01:00.000Z: consistent"


def test_disproving_a_disproof_is_not_a_proof(cli, tmp_path):
    _start(cli, tmp_path, "dd", ":A owl:disjointWith :B . :B owl:disjointWith :C .",
           [_a("a", "A", 1000), _a("a", "B", 2000), _a("a", "C", 3000)], "1970-01-01T00:00:02Z")
    assert _types(cli, "dd", "a") == {"B"}
    cli("slide", "dd", "--until", "1970-01-01T00:00:03Z")
    # B lost to C; A, which only B disproved, stays removed (A and C are compatible)
    assert _types(cli, "dd", "a") == {"C"}
    history = cli("history", "dd").splitlines()
    assert [line.split()[-1] for line in history[1:]] == ["0", "1", "1"]  # closes 1, 2, 3


def test_recursive_negative_inclusion_needs_a_depth(cli, tmp_path):
    tbox = "[ a owl:Restriction ; owl:onProperty :R ; owl:someValuesFrom :B ] rdfs:subClassOf :B .\n:A owl:disjointWith :B .\n"
    view = _view(tmp_path, "rec", tbox)
    cli("view", "create", str(view), expect=1)
    assert "cax-dw" in cli.last_err and "repair_depth" in cli.last_err and "cls-svf1" in cli.last_err
    view = _view(tmp_path, "rec", tbox, extra="repair_depth: 2\n")
    cli("view", "create", str(view))
    rules = cli("rules", "rec")  # the normal form: A(x) B(x), then R-chains of 1 and 2 steps
    assert "to depth 2" in rules and [ln.split() for ln in rules.splitlines() if ln.strip().startswith("cax-dw")][-1] == ["cax-dw", "3"]
    events = [
        _a("a", "A", 500), (ex("a"), ex("R"), ex("b"), 1000), (ex("b"), ex("R"), ex("c"), 1000),
        _a("c", "B", 2000),  # two R steps from a: within depth 2, so A(a) loses
        _a("p", "A", 500), (ex("p"), ex("R"), ex("q1"), 1000), (ex("q1"), ex("R"), ex("q2"), 1000),
        (ex("q2"), ex("R"), ex("q3"), 1000), _a("q3", "B", 2000),  # three steps: beyond depth 2
    ]
    cli("ingest", "rec", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "rec", "--until", "1970-01-01T00:00:02Z")
    assert _types(cli, "rec", "a") == {"B"}
    assert _types(cli, "rec", "p") == {"A", "B"}  # kept, and reported, never silently
    # A(p) and B(p), derived by cls-svf1 from the three R steps and B(q3): its origin is
    # the oldest of theirs
    assert violations(cli, "rec") == {("cax-dw", frozenset({
        (f"{ex('p')} {TYPE} {ex('A')} .", "1970-01-01T00:00:00.500Z"),
        (f"{ex('p')} {TYPE} {ex('B')} .", "1970-01-01T00:00:01.000Z"),
    }))}
    assert violations_status(cli, "rec") == "view rec at 1970-01-01T00:00:02.000Z: inconsistent: 1 violation(s)"


def test_repair_job_after_a_tbox_change_is_idempotent(cli, tmp_path):
    view = _view(tmp_path, "job", ":A rdfs:subClassOf :Top .")
    cli("view", "create", str(view))
    cli("ingest", "job", str(jsonl(tmp_path / "e.jsonl", [_a("a", "A", 1000), _a("a", "B", 2000)])))
    cli("slide", "job", "--until", "1970-01-01T00:00:02Z")
    assert _types(cli, "job", "a") == {"A", "B", "Top"}
    view = _view(tmp_path, "job", ":A rdfs:subClassOf :Top . :Top owl:disjointWith :B .")
    cli("view", "create", "--rebuild", str(view))  # rematerializes, then repairs the window
    assert _types(cli, "job", "a") == {"B"}
    assert "nothing to repair" in cli("repair", "job")
    why = cli("explain", "job", "--removed", f"{ex('a')} {TYPE} {ex('A')}")
    assert "cax-dw" in why and "repair" in why
    last = cli("history", "job").splitlines()[-1].split()
    assert last[2] == "repair" and last[-1] == "1"  # the job's close: one item removed


def test_a_conflict_tied_only_through_the_ontology_is_found_from_either_side(cli, tmp_path):
    """``?x a :C0`` and ``:i0 :p0 ?y`` share no term, yet together entail false: every :C0
    has :p1 :i0 (hasValue), :p1's range is :C0, and :p0's domain :C2 is disjoint with :C0.
    A slide finds the conflict whether the new item is the :p0 edge (old :C0 members) or a
    :C0 member (an old :p0 edge), and the older side loses, every occurrence of it."""
    tbox = (":C2 owl:disjointWith :C0 . :p0 rdfs:domain :C2 . :p1 rdfs:range :C0 .\n"
            ":C0 owl:equivalentClass [ a owl:Restriction ; owl:onProperty :p1 ; owl:hasValue :i0 ] .\n")
    edge = [(ex("i0"), ex("p0"), ex("i1"), 3500)]
    _start(cli, tmp_path, "tie1", tbox, [_a("i2", "C0", 2500), _a("i2", "C0", 3000), *edge], "1970-01-01T00:00:03Z")
    assert _types(cli, "tie1", "i2") == {"C0"}
    cli("slide", "tie1", "--until", "1970-01-01T00:00:04Z")  # the edge is new: both old members lose
    assert _types(cli, "tie1", "i2") == set() and _types(cli, "tie1", "i0") == {"C2"}
    assert violations(cli, "tie1") == set()

    _start(cli, tmp_path, "tie2", tbox, [(ex("i0"), ex("p0"), ex("i1"), 2500), _a("i2", "C0", 3500)],
           "1970-01-01T00:00:03Z")
    assert _types(cli, "tie2", "i0") == {"C2"}
    cli("slide", "tie2", "--until", "1970-01-01T00:00:04Z")  # the member is new: the old edge loses
    assert _types(cli, "tie2", "i2") == {"C0"} and _types(cli, "tie2", "i0") == {"C0"}
    assert violations(cli, "tie2") == set()
