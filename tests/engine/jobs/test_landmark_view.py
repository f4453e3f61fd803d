"""A landmark window (RSEP-QL, Definition 6.1; a view file's ``width: unbounded``): at each
close t the view holds owlrl's closure of the items in (start, t], nothing before its start,
and nothing expires (its SQL table shows no expiry), with the rounds on either backend."""
from __future__ import annotations

import json
import random

import pytest

from tests.conftest import write
from tests.engine.paths import evaluation_path
from tests.oracle import closure

EX = "http://example.org/"
TBOX = (f"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
        f"@prefix : <{EX}> .\n:likes rdfs:domain :Fan . :Fan rdfs:subClassOf :Person .\n"
        ":follows a owl:TransitiveProperty .\n")
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
PEOPLE = [f"<{EX}u{k}>" for k in range(5)]
SHOPS = [f"<{EX}s{k}>" for k in range(3)]


def _items(rng: random.Random) -> list[tuple[str, str, str, int]]:
    found = []
    for ts in sorted(rng.sample(range(1, 6000), 30)):
        if rng.random() < 0.5:
            found.append((rng.choice(PEOPLE), f"<{EX}likes>", rng.choice(SHOPS), ts))
        else:
            found.append((*rng.sample(PEOPLE, 1), f"<{EX}follows>", rng.choice(PEOPLE), ts))
    return found


@pytest.mark.parametrize("path", ["driver", "spark"])
def test_a_landmark_view_holds_owlrls_closure_of_everything_since_its_start(cli, tmp_path, path):
    items = _items(random.Random(74))
    write(tmp_path / "tbox.ttl", TBOX)
    cli("view", "create", str(write(tmp_path / "land.yaml", "name: land\nstream: s\nontology: [tbox.ttl]\n"
                                    "profile: rdfs-plus\nwindow: {width: unbounded, slide: 1s, start: 1000}\n")))
    cli("ingest", "s", str(write(tmp_path / "s.jsonl", "".join(
        json.dumps({"s": s, "p": p, "o": o, "ts": ts}) + "\n" for s, p, o, ts in items))))
    classes = {f"<{EX}Fan>", f"<{EX}Person>"}
    properties = {f"<{EX}likes>", f"<{EX}follows>"}
    grew = []
    for close in range(2000, 7000, 1000):
        with evaluation_path(path) as ran:
            cli("slide", "land", "--until", str(close))
        assert ran[path], f"close {close} ran on {dict(ran)}, not {path}"
        cli("export", "land", "--close", str(close), "-o", str(tmp_path / "out.nt"))
        got = {line for line in (tmp_path / "out.nt").read_text().splitlines() if line}
        since = {(s, p, o) for s, p, o, ts in items if 1000 < ts <= close}
        want = closure(TBOX, since, "rdfs-plus", set(PEOPLE) | set(SHOPS), properties, classes)
        assert got == want, f"close {close}: missing {sorted(want - got)[:4]}, extra {sorted(got - want)[:4]}"
        grew.append(len(got))
    assert grew == sorted(grew) and grew[0] < grew[-1], f"the window should only grow: {grew}"
    assert any(ts <= 1000 for *_, ts in items), "the stream should have items before the window's start"
    row = json.loads(cli("sql", "SELECT count(*) AS n, count(expires) AS expiring FROM land", "--format", "json"))
    assert row == {"n": grew[-1], "expiring": 0}, row  # the view's SQL table: every fact, none expiring
