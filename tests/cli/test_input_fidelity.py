"""Input fidelity: fields never dropped without a word, names that cannot collide in SQL,
commands that fail leaving nothing half-done."""
from __future__ import annotations

import json

from tests.cli.helpers import ex, jsonl, simple_view
from tests.conftest import write


def _count(cli, query: str) -> int:
    return int(cli("sql", query, "--format", "csv").splitlines()[1])


def test_ingest_is_all_or_nothing_and_says_what_it_does_not_keep(cli, tmp_path):
    good = jsonl(tmp_path / "good.jsonl", [(ex("a"), ex("knows"), ex("b"), 1000)])
    cli("ingest", "s", str(good), str(write(tmp_path / "bad.jsonl.gz", "x")), expect=1)
    assert "unsupported file type '.gz'" in cli.last_err
    cli("ingest", "s", str(good), str(write(tmp_path / "same.jsonl", good.read_text())), expect=1)
    assert "same content" in cli.last_err and "nothing was ingested" in cli.last_err
    assert _count(cli, "SELECT count(*) FROM rl_ingests") == 0
    cli("ingest", "s", str(good))
    assert "no view reads stream 's' yet" in cli.last_err  # accepted, and said
    later = jsonl(tmp_path / "later.jsonl", [(ex("c"), ex("knows"), ex("d"), 2000)])
    cli("ingest", "s", str(later), str(good), expect=1)
    assert "already ingested" in cli.last_err and "nothing of this call" in cli.last_err
    assert _count(cli, "SELECT count(*) FROM rl_events") == 1
    # fields beyond s, p, o, ts: reported, not silently dropped; a field given twice: quarantined
    row = {"s": ex("a"), "p": ex("knows"), "o": ex("e"), "ts": 1000}
    lines = [json.dumps({**row, "g": ex("graph")}), json.dumps(row).replace("}", ', "s": "<http://x/other>"}')]
    out = cli("ingest", "s", str(write(tmp_path / "extra.jsonl", "\n".join(lines) + "\n")))
    assert "1 items, 1 quarantined" in out, out
    assert "field 's' appears more than once" in out, out
    assert "note: " in out and "'g' (in 1 rows)" in out, out
    csv_text = f"s,p,o,ts,note\n{ex('a')},{ex('knows')},{ex('c')},1000,kept out\n{ex('a')},{ex('knows')},{ex('d')},1000,x,y\n"
    out = cli("ingest", "s", str(write(tmp_path / "extra.csv", csv_text)))
    assert "1 items, 1 quarantined" in out, out
    assert "the row has 6 cells but the header names 5 columns" in out, out
    assert "'note'" in out and "not kept" in out, out


def test_view_names_cannot_collide_and_view_create_is_all_or_nothing(cli, tmp_path):
    narrow = simple_view(tmp_path / "a", name="w", width="4s")
    wide = simple_view(tmp_path / "b", name="w", width="8s")
    cli("view", "create", str(narrow), str(wide), expect=1)
    assert "declared twice" in cli.last_err
    assert _count(cli, "SELECT count(*) FROM rl_views") == 0
    cli("view", "create", str(simple_view(tmp_path, name="Cased")))
    other = write(tmp_path / "other.yaml", (tmp_path / "Cased.yaml").read_text().replace("name: Cased", "name: cased"))
    cli("view", "create", str(other), expect=1)
    assert "view 'Cased'" in cli.last_err and "case-insensitive" in cli.last_err
    newline = write(tmp_path / "nl.yaml", (tmp_path / "Cased.yaml").read_text().replace("name: Cased", 'name: "nlview\\n"'))
    cli("view", "create", str(newline), expect=1)
    assert "SQL-safe identifier" in cli.last_err
    assert _count(cli, "SELECT count(*) FROM rl_views") == 1


def test_a_deep_class_chain_compiles_as_jumps_and_types_with_every_ancestor(cli, tmp_path, monkeypatch):
    """4,000 classes in a chain: 8 million saturated pairs, past the 5 million bound, so
    `view create` refused it (RL112); kept as jumps it is 44,000 rule instances, and a slide
    types an individual with every ancestor. A bound that even the jumps pass still fails
    with the limit and the fix."""
    n = 4000
    chain = "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n" + "".join(
        f"<http://example.org/C{i}> rdfs:subClassOf <http://example.org/C{i + 1}> .\n" for i in range(n))
    view = simple_view(tmp_path, name="deep", tbox=chain)
    monkeypatch.setenv("REASONLAKE_MAX_SCHEMA_PAIRS", "20000")
    cli("view", "create", str(view), expect=1)
    assert "RL112" in cli.last_err and "REASONLAKE_MAX_SCHEMA_PAIRS" in cli.last_err and "even as jumps" in cli.last_err
    monkeypatch.delenv("REASONLAKE_MAX_SCHEMA_PAIRS")
    cli("view", "create", str(view))
    typed = (ex("x"), "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>", ex("C7"), 1000)
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", [typed])))
    cli("slide", "deep", "--until", "4000")
    lines = cli("export", "deep").splitlines()
    assert sorted(lines) == sorted(f"{ex('x')} {typed[1]} {ex(f'C{i}')} ." for i in range(7, n + 1))
