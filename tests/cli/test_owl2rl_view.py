"""An owl2rl view end to end through the CLI: restrictions and chains derived at slides,
violations recorded and listed, background facts that never expire, the coverage report."""
from __future__ import annotations

from tests.cli.helpers import EX, TYPE, ex, jsonl, sql_names_show_what_the_readers_show, violations, violations_status
from tests.conftest import write

ONTOLOGY = f"""
@prefix : <{EX}> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:LowReactor owl:equivalentClass [ a owl:Restriction ; owl:onProperty :temperatureStatus ; owl:hasValue :low ] .
:temperatureStatus a owl:FunctionalProperty .
:Alarmed owl:equivalentClass [ owl:intersectionOf ( :Reactor [ a owl:Restriction ;
    owl:onProperty :raises ; owl:someValuesFrom :Alarm ] ) ] .
:Reactor owl:disjointWith :Sensor .
:locatedIn a owl:TransitiveProperty .
:partOfSite owl:propertyChainAxiom ( :locatedIn :siteOf ) .
:Odd a owl:Class ; owl:minCardinality "2"^^xsd:nonNegativeInteger .
"""

BACKGROUND = f"""
@prefix : <{EX}> .
:hall :siteOf :plant .
:alarm1 a :Alarm .
"""


def _view(tmp, unique_names=True):
    write(tmp / "o.ttl", ONTOLOGY)
    write(tmp / "bg.ttl", BACKGROUND)
    return write(tmp / "r.yaml", (
        "name: r\nstream: s\nontology: [o.ttl]\nprofile: owl2rl\nbackground: [bg.ttl]\n"
        f"unique_names: {'true' if unique_names else 'false'}\n"
        "window: {width: 60s, slide: 30s, start: 0}\n"
    ))


def test_owl2rl_view_derives_flags_and_keeps_background(cli, tmp_path):
    view = _view(tmp_path)
    out = cli("rules", str(view))
    assert "cls-int1" in out and "prp-spo2" in out and "cax-dw" in out and "prp-fp" in out
    assert "minCardinality" in out  # the ignored axiom, listed with its reason
    cli("view", "create", str(view))
    assert "minCardinality" in cli.last_err  # view creation warns about it too
    events = [
        (ex("reactor"), ex("temperatureStatus"), ex("low"), 30_000),
        (ex("reactor"), TYPE, ex("Reactor"), 30_000),
        (ex("reactor"), ex("raises"), ex("alarm1"), 30_000),
        (ex("reactor"), ex("locatedIn"), ex("hall"), 40_000),
        (ex("reactor"), ex("temperatureStatus"), ex("high"), 60_000),
        (ex("reactor"), TYPE, ex("Sensor"), 90_000),
    ]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "r", "--until", "1970-01-01T00:01:00Z")
    at60 = set(cli("export", "r").splitlines())
    assert f"{ex('reactor')} {TYPE} {ex('LowReactor')} ." in at60  # cls-hv2
    assert f"{ex('reactor')} {TYPE} {ex('Alarmed')} ." in at60  # cls-svf1 on background + cls-int1
    assert f"{ex('reactor')} {ex('partOfSite')} {ex('plant')} ." in at60  # prp-spo2 via background
    assert f"{ex('hall')} {ex('siteOf')} {ex('plant')} ." in at60  # background is exported
    assert not any("urn:reasonlake:anon" in line for line in at60)
    status = f"{ex('reactor')} {ex('temperatureStatus')} "
    assert violations(cli, "r") == {("prp-fp", frozenset({
        (f"{status}{ex('low')} .", "1970-01-01T00:00:30.000Z"),
        (f"{status}{ex('high')} .", "1970-01-01T00:01:00.000Z"),
    }))}
    assert violations_status(cli, "r") == "view r at 1970-01-01T00:01:00.000Z: inconsistent: 1 violation(s)"
    cli("slide", "r", "--until", "1970-01-01T00:02:00Z")
    at120 = set(cli("export", "r").splitlines())
    # the window (60 s, 120 s] holds the Sensor typing only; the background stays
    assert f"{ex('hall')} {ex('siteOf')} {ex('plant')} ." in at120
    assert f"{ex('reactor')} {TYPE} {ex('LowReactor')} ." not in at120
    assert violations(cli, "r") == set()
    assert violations_status(cli, "r") == "view r at 1970-01-01T00:02:00.000Z: consistent"
    history = cli("history", "r")
    assert "violations" in history.splitlines()[0]


def test_owl2rl_disjointness_violation_lists_triples_and_origins(spark, cli, tmp_path):
    view = _view(tmp_path)
    cli("view", "create", str(view))
    events = [(ex("x"), TYPE, ex("Reactor"), 10_000), (ex("x"), TYPE, ex("Sensor"), 20_000)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "r", "--until", "1970-01-01T00:01:00Z")
    assert violations(cli, "r") == {("cax-dw", frozenset({
        (f"{ex('x')} {TYPE} {ex('Reactor')} .", "1970-01-01T00:00:10.000Z"),
        (f"{ex('x')} {TYPE} {ex('Sensor')} .", "1970-01-01T00:00:20.000Z"),
    }))}
    report = cli("violations", "r").splitlines()
    assert report[0] == "view r at 1970-01-01T00:01:00.000Z: inconsistent: 1 violation(s)"
    assert report[1].startswith("cax-dw  since 1970-01-01T00:01:00.000Z")
    rows = cli("sql", "SELECT rule FROM r_violations", "--format", "csv").splitlines()
    assert rows == ["rule", "cax-dw"]
    sql_names_show_what_the_readers_show(spark, cli.home, "r")


def test_violation_leaves_with_its_oldest_triple_and_stays_at_its_close(cli, tmp_path):
    """A cax-dw violation found at one close is retired at the close where its older typing
    leaves the window (the newer one still in it), and time travel to the first close still
    lists it."""
    cli("view", "create", str(_view(tmp_path)))
    events = [(ex("x"), TYPE, ex("Reactor"), 10_000), (ex("x"), TYPE, ex("Sensor"), 50_000)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    reactor = (f"{ex('x')} {TYPE} {ex('Reactor')} .", "1970-01-01T00:00:10.000Z")
    sensor = (f"{ex('x')} {TYPE} {ex('Sensor')} .", "1970-01-01T00:00:50.000Z")
    found = {("cax-dw", frozenset({reactor, sensor}))}
    cli("slide", "r", "--until", "1970-01-01T00:01:00Z")
    assert violations(cli, "r") == found
    assert violations_status(cli, "r") == "view r at 1970-01-01T00:01:00.000Z: inconsistent: 1 violation(s)"
    cli("slide", "r", "--until", "1970-01-01T00:01:30Z")  # the window (30 s, 90 s]: the Reactor typing left
    assert f"{ex('x')} {TYPE} {ex('Sensor')} ." in set(cli("export", "r").splitlines())
    assert violations(cli, "r") == set()
    assert violations_status(cli, "r") == "view r at 1970-01-01T00:01:30.000Z: consistent"
    at60 = ("--close", "1970-01-01T00:01:00Z")
    assert violations(cli, "r", *at60) == found
    assert violations_status(cli, "r", *at60) == "view r at 1970-01-01T00:01:00.000Z: inconsistent: 1 violation(s)"
    history = [line.split() for line in cli("history", "r").splitlines()[1:]]
    assert [(h[0], h[-2]) for h in history] == [("1970-01-01T00:01:00.000Z", "1"), ("1970-01-01T00:01:30.000Z", "0")]
    cli("rebuild", "r")  # rewrites the violations table as of its last close, where there is none
    assert violations(cli, "r") == set()
    assert violations(cli, "r", *at60) == found  # read as they were at that close
