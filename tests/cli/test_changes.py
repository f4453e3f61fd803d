"""`changes`: at every close, exactly the set difference of consecutive exports (renewals
are no change), on a stream that derives, expires, renews and comes back."""
from __future__ import annotations

import json
import random
from collections import defaultdict

from tests.cli.helpers import EX, ex, jsonl, simple_view

TBOX = (
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
    f"<{EX}knows> rdfs:domain <{EX}Person> .\n<{EX}Person> rdfs:subClassOf <{EX}Agent> .\n"
    f"<{EX}next> a owl:TransitiveProperty .\n"
)


def test_changes_are_the_difference_of_consecutive_exports(cli, tmp_path, monkeypatch):
    cli("view", "create", str(simple_view(tmp_path, width="3s", slide="1s", tbox=TBOX)))
    rng = random.Random(5)
    events = []
    for t in range(1, 13):
        if t in (6, 7):  # quiet closes: only expiry happens there
            continue
        for _ in range(3):
            pick = rng.random()
            if pick < 0.4:
                events.append((ex(f"p{rng.randrange(4)}"), ex("knows"), ex(f"p{rng.randrange(4)}"), t * 1000))
            else:
                a = rng.randrange(5)
                events.append((ex(f"n{a}"), ex("next"), ex(f"n{a + 1}"), t * 1000))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    closes = list(range(3000, 13000, 1000))
    for close in closes:
        cli("slide", "v", "--until", str(close))
    exports = {c: set(cli("export", "v", "--close", str(c)).splitlines()) for c in closes}
    exports[2000] = set()  # before the first close the view is empty
    every = ("changes", "v", "--from", "2000", "--to", "12000", "--format", "json")
    rows = [json.loads(line) for line in cli(*every).splitlines()]  # read in this process (delta-rs)
    with monkeypatch.context() as through_spark:  # the same SQL text, run by Spark
        through_spark.setenv("REASONLAKE_SMALL_TABLES", "0")
        assert [json.loads(line) for line in cli(*every).splitlines()] == rows
    got = defaultdict(lambda: (set(), set()))
    for r in rows:
        close = {c: c for c in closes}[_ms(r["close"])]
        (got[close][0] if r["op"] == "+" else got[close][1]).add(f"{r['subject']} {r['predicate']} {r['object']} .")
    moved = 0
    for close in closes:
        before, now = exports[close - 1000], exports[close]
        assert got[close] == (now - before, before - now), close
        moved += bool(now - before) and bool(before - now)
    assert moved >= 2  # closes where facts both entered and left
    assert any(r["inferred"] for r in rows) and any(not r["inferred"] for r in rows)
    # the default: the closes since the processed close before the last one
    last = cli("changes", "v").splitlines()
    assert last[0] == "# close 1970-01-01T00:00:12.000Z"
    assert sorted(last[1:]) == sorted([f"+ {t}" for t in exports[12000] - exports[11000]]
                                      + [f"- {t}" for t in exports[11000] - exports[12000]])


def _ms(text: str) -> int:
    from reasonlake.plan.durations import parse_time

    return parse_time(text)
