"""The IMaRS running example (Dell'Aglio & Della Valle, Table 3.6), restated in the
(c − ω, c] window convention, end to end through the CLI."""
from __future__ import annotations

import json

import pytest

from tests.cli.helpers import EX, jsonl
from tests.conftest import write

SIOC = "http://rdfs.org/sioc/ns#"
TBOX = f"""
@prefix sioc: <{SIOC}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
sioc:creator_of owl:inverseOf sioc:has_creator .
sioc:has_creator rdfs:range sioc:UserAccount .
"""
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"


def ex(name: str) -> str:
    return f"<http://example.org/{name}>"


def sioc(name: str) -> str:
    return f"<{SIOC}{name}>"


def origins(cli, close: str) -> dict[str, int]:
    """triple line -> origin in seconds, read with SQL at the view's published close."""
    out = cli("export", "imars", "--close", close)
    lines = set(out.splitlines())
    rows = cli("sql", "SELECT subject, predicate, object, unix_millis(origin) AS origin FROM imars", "--format", "json")
    table = {}
    for raw in rows.splitlines():
        r = json.loads(raw)
        table[f"{r['subject']} {r['predicate']} {r['object']} ."] = r["origin"] // 1000
    return lines, table


def test_imars_running_example(cli, tmp_path):
    write(tmp_path / "sioc.ttl", TBOX)
    view = write(
        tmp_path / "imars.yaml",
        "name: imars\nstream: tweets\nontology: [sioc.ttl]\nprofile: rdfs-plus\n"
        "window: {width: 5s, slide: 1s, start: 0}\n",
    )
    events = [
        (ex("Adam"), sioc("creator_of"), ex("tweet1"), 6000),
        (ex("Bob"), sioc("creator_of"), ex("tweet2"), 8000),
        (ex("Adam"), sioc("creator_of"), ex("tweet3"), 11000),
    ]
    stream = write(
        tmp_path / "tweets.jsonl",
        "".join(json.dumps({"s": s, "p": p, "o": o, "ts": ts}) + "\n" for s, p, o, ts in events),
    )
    cli("view", "create", str(view))
    cli("ingest", "tweets", str(stream))

    cli("slide", "imars", "--until", "10000")
    lines, at10 = origins(cli, "10000")
    expected10 = {
        f"{ex('Adam')} {sioc('creator_of')} {ex('tweet1')} .": 6,
        f"{ex('Bob')} {sioc('creator_of')} {ex('tweet2')} .": 8,
        f"{ex('tweet1')} {sioc('has_creator')} {ex('Adam')} .": 6,
        f"{ex('tweet2')} {sioc('has_creator')} {ex('Bob')} .": 8,
        f"{ex('Adam')} {TYPE} {sioc('UserAccount')} .": 6,
        f"{ex('Bob')} {TYPE} {sioc('UserAccount')} .": 8,
    }
    assert lines == set(expected10)
    assert at10 == expected10

    cli("slide", "imars", "--until", "11000")
    lines, at11 = origins(cli, "11000")
    expected11 = {
        f"{ex('Bob')} {sioc('creator_of')} {ex('tweet2')} .": 8,
        f"{ex('tweet2')} {sioc('has_creator')} {ex('Bob')} .": 8,
        f"{ex('Bob')} {TYPE} {sioc('UserAccount')} .": 8,
        f"{ex('Adam')} {sioc('creator_of')} {ex('tweet3')} .": 11,
        f"{ex('tweet3')} {sioc('has_creator')} {ex('Adam')} .": 11,
        f"{ex('Adam')} {TYPE} {sioc('UserAccount')} .": 11,  # renewed: expires at 16
    }
    assert lines == set(expected11)
    assert at11 == expected11
    expires = cli(
        "sql", f"SELECT unix_millis(expires) AS e FROM imars WHERE subject = '{ex('Adam')}' AND predicate = '{TYPE}'",
        "--format", "csv",
    )
    assert expires.splitlines()[1:] == ["16000"]
    # time travel: the close-10 content is still readable after close 11
    assert set(cli("export", "imars", "--close", "10000").splitlines()) == set(expected10)


def test_window_boundaries(cli, tmp_path):
    """Width 4 s ending at close 8: t=4 is out, t=5, 7 and 8 are in."""
    view = write(
        tmp_path / "b.yaml",
        "name: bounds\nstream: s\nontology: []\nprofile: rdfs\nwindow: {width: 4s, slide: 1s, start: 0}\n",
    )
    events = [(ex(f"x{t}"), ex("p"), ex("y"), t * 1000) for t in (4, 5, 7, 8, 9)]
    stream = write(
        tmp_path / "s.jsonl",
        "".join(json.dumps({"s": s, "p": p, "o": o, "ts": ts}) + "\n" for s, p, o, ts in events),
    )
    cli("view", "create", str(view))
    cli("ingest", "s", str(stream))
    cli("slide", "bounds", "--until", "8000")
    subjects = {line.split()[0] for line in cli("export", "bounds", "--close", "8000").splitlines()}
    assert subjects == {ex("x5"), ex("x7"), ex("x8")}


@pytest.mark.parametrize("window, close", [
    ("{width: 4s, slide: 1s, start: 0}", 8000),       # sliding
    ("{width: 4s, slide: 4s, start: 250}", 8250),     # tumbling, a start that is no multiple of a second
    ("{width: 3500ms, slide: 1s, start: -300}", 7200),  # a width that is no multiple of the slide
])
def test_window_edges_to_the_millisecond(cli, tmp_path, window, close):
    """At close c of width w the window holds c - w < ts <= c, to the millisecond: an item at
    the opening is out, one a millisecond later in (and what it derives, with its origin),
    one at the close in, one a millisecond after it out."""
    width = {8000: 4000, 8250: 4000, 7200: 3500}[close]
    opening = close - width
    view = write(tmp_path / "e.yaml",
                 "name: edges\nstream: s\nontology: [e.ttl]\nprofile: rdfs\n"
                 f"window: {window}\n")
    write(tmp_path / "e.ttl", f"<{EX}p> <http://www.w3.org/2000/01/rdf-schema#domain> <{EX}Thing> .\n")
    events = [(ex(f"x{t}"), ex("p"), ex("y"), t) for t in (opening, opening + 1, close, close + 1)]
    cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "s.jsonl", events)))
    cli("slide", "edges", "--until", str(close))
    lines = cli("export", "edges", "--close", str(close)).splitlines()
    subjects = {line.split()[0] for line in lines}
    assert subjects == {ex(f"x{opening + 1}"), ex(f"x{close}")}, lines
    origins = dict(
        (row["subject"], row["origin"]) for row in map(json.loads, cli(
            "sql", f"SELECT subject, unix_millis(origin) AS origin FROM edges WHERE object = '{ex('Thing')}'",
            "--format", "json").splitlines()))
    assert origins == {ex(f"x{opening + 1}"): opening + 1, ex(f"x{close}"): close}
