"""dt-not-type end to end: an owl2rl view flags exactly its ill-typed literals and still
exports every literal byte for byte as it was written. The close runs in the driver here;
tests/engine/reason/test_owl2rl_rules.py holds the Spark path to the same rows."""
from __future__ import annotations

import json

from tests.cli.helpers import EX, ex, jsonl, violations_status
from tests.conftest import write

XSD = "http://www.w3.org/2001/XMLSchema#"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

WELL_TYPED = [
    f'"true"^^<{XSD}boolean>', f'"1000"^^<{XSD}integer>', f'"-128"^^<{XSD}byte>',
    f'"1e400"^^<{XSD}double>',  # XSD 1.1: beyond the finite range is INF, not an error
    f'"2026-02-28T23:59:59.123456789Z"^^<{XSD}dateTime>', f'"05"^^<{XSD}int>',
    f'" a  b "^^<{XSD}string>'.replace(f"^^<{XSD}string>", ""),  # a plain string, spaces kept
    '"yes"^^<http://example.org/Answer>',  # a datatype outside OWL 2 RL's: never ill-typed
]
ILL_TYPED = [
    f'"yes"^^<{XSD}boolean>', f'"1_000"^^<{XSD}integer>', f'"300"^^<{XSD}byte>',
    f'"2026-13-01T00:00:00Z"^^<{XSD}dateTime>',
]


def _view(tmp):
    write(tmp / "o.ttl", f"<{EX}value> <http://www.w3.org/2000/01/rdf-schema#domain> <{EX}Reading> .\n")
    return write(tmp / "v.yaml", (
        "name: v\nstream: s\nontology: [o.ttl]\nprofile: owl2rl\n"
        "window: {width: 60s, slide: 30s, start: 0}\n"))


def test_dt_not_type_flags_exactly_the_ill_typed_literals_and_export_keeps_them(cli, tmp_path):
    cli("view", "create", str(_view(tmp_path)))
    assert "dt-not-type" in cli("rules", "v")
    items = [(ex(f"r{i}"), ex("value"), literal, 10_000) for i, literal in enumerate(WELL_TYPED + ILL_TYPED)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", items)))
    cli("slide", "v", "--until", "1970-01-01T00:01:00Z")

    rows = [json.loads(line) for line in cli("violations", "v", "--format", "json").splitlines()]
    found = sorted((r["rule"], r["bindings"]["lt"], [(t["triple"], t["origin"]) for t in r["triples"]]) for r in rows)
    expected = sorted(("dt-not-type", o, [(f"{s} {p} {o} .", "1970-01-01T00:00:10.000Z")])
                      for s, p, o, _ in items if o in ILL_TYPED)
    assert len(expected) == len(ILL_TYPED) == 4
    assert found == expected
    assert violations_status(cli, "v").endswith("inconsistent: 4 violation(s)")
    # the items stay in the view, every literal exactly as ingested
    written = {f"{s} {p} {o} ." for s, p, o, _ in items}
    typed = {f"{s} {TYPE} {ex('Reading')} ." for s, _, _, _ in items}
    assert set(cli("export", "v").splitlines()) == written | typed
