"""`explain --why` on the README's example: one derivation of an inferred type, of a
transitive edge and of a stream item, down to the items with their files and lines and the
ontology's axioms each step rests on; a triple not in the view exits 1 saying where it was."""
from __future__ import annotations

import json

from tests.conftest import REPO

PEOPLE = "http://example.org/people#"
SOCIAL = "http://example.org/social#"
SIOC = "http://rdfs.org/sioc/ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
STREAM = str(REPO / "examples" / "streams" / "social.jsonl")


def p(name: str) -> str:
    return f"<{PEOPLE}{name}>"


def why(cli, triple: str, *more: str) -> dict:
    return json.loads(cli("explain", "active_users", "--why", triple, "--format", "json", *more))


def item(triple: str, ts: str, line: int) -> dict:
    return {"triple": triple + " .", "origin": ts, "rule": None, "premises": [],
            "item": {"ts": ts, "file": STREAM, "line": line}}


def test_why_a_fact_is_in_the_view(cli):
    cli("view", "create", str(REPO / "views" / "active_users.yaml"))
    cli("ingest", "social", STREAM)
    cli("slide", "active_users", "--until", "2026-11-22T10:08:00Z")

    # adam is an Entity: has_creator's range through the class hierarchy, from the inverse
    # of his newest post (10:06:45, not his 10:03:20 one: the derivation that gives the origin)
    creator_of = f"{p('adam')} <{SIOC}creator_of> {p('tweet4')}"
    entity = why(cli, f"{p('adam')} {TYPE} <{SOCIAL}Entity>")
    assert entity == {
        "triple": f"{p('adam')} {TYPE} <{SOCIAL}Entity> .", "origin": "2026-11-22T10:06:45.000Z",
        "rule": "prp-rng",
        "tbox": [f"<{SIOC}has_creator> <{RDFS}range> <{SIOC}UserAccount> .",
                 f"<{SIOC}UserAccount> <{RDFS}subClassOf> <{SOCIAL}Agent> .",
                 f"<{SOCIAL}Agent> <{RDFS}subClassOf> <{SOCIAL}Entity> ."],
        "premises": [{
            "triple": f"{p('tweet4')} <{SIOC}has_creator> {p('adam')} .", "origin": "2026-11-22T10:06:45.000Z",
            "rule": "prp-inv1", "tbox": [f"<{SIOC}creator_of> <http://www.w3.org/2002/07/owl#inverseOf> <{SIOC}has_creator> ."],
            "premises": [item(creator_of, "2026-11-22T10:06:45.000Z", 8)]}],
    }, entity
    # a transitive edge: its origin is its older premise's
    edge = why(cli, f"{p('tweet4')} <{SOCIAL}discuss> {p('tweet2')}")
    assert (edge["rule"], edge["origin"]) == ("prp-trp", "2026-11-22T10:04:00.000Z"), edge
    assert edge["premises"] == [item(f"{p('tweet4')} <{SOCIAL}discuss> {p('tweet3')}", "2026-11-22T10:07:15.000Z", 9),
                                item(f"{p('tweet3')} <{SOCIAL}discuss> {p('tweet2')}", "2026-11-22T10:04:00.000Z", 6)]
    # a stream item is its own explanation
    assert why(cli, creator_of) == item(creator_of, "2026-11-22T10:06:45.000Z", 8)
    # at an earlier close, from that close's facts
    before = why(cli, f"{p('carol')} <{SOCIAL}knows> {p('adam')}", "--close", "2026-11-22T10:07:00Z")
    assert (before["rule"], [x["item"]["line"] for x in before["premises"]]) == ("prp-spo1", [4]), before
    text = cli("explain", "active_users", "--why", f"{p('tweet4')} <{SOCIAL}discuss> {p('tweet2')}")
    assert "by prp-trp, origin 2026-11-22T10:04:00.000Z" in text and f"{STREAM} line 9" in text, text

    # gone by 10:08 (carol followed adam at 10:02:05): where it was instead
    cli("explain", "active_users", "--why", f"{p('carol')} <{SOCIAL}knows> {p('adam')}", expect=1)
    assert "RL180" in cli.last_err and "last there at close 2026-11-22T10:07:00.000Z" in cli.last_err, cli.last_err
    cli("explain", "active_users", "--why", f"{p('zed')} <{SOCIAL}knows> {p('adam')}", expect=1)
    assert "nor in any of its last 4 closes" in cli.last_err, cli.last_err
    cli("explain", "active_users", "--why", "<not a triple", expect=1)
    assert "--why" in cli.last_err and "not one N-Triples statement" in cli.last_err, cli.last_err
