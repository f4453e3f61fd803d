"""The columnar JSONL reader gives the row reader's items and rejections, line for line."""
from __future__ import annotations

import json
import random

import pytest

from reasonlake.parse import collected
from reasonlake.parse.formats import parse_bytes

E = "http://example.org/"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
T0_MS = 1795341600000


def _value(rng: random.Random, position: str):
    """A field value: mostly the usual IRI, often something only the row reader takes or
    rejects (a literal, a blank node, an escape, a wrong type, TBox vocabulary)."""
    pick = rng.random()
    if pick < 0.6:
        return f"<{E}n{rng.randrange(50)}>"
    return rng.choice([
        '"text"', '"5"^^<http://www.w3.org/2001/XMLSchema#integer>', '"été"@FR', "_:b1", "_:b2",
        '"a\\"quote"', '"tab\\there"', '"x"^^<http://www.w3.org/2001/XMLSchema#string>', '"unclosed',
        '"5"^^xsd:integer', '"l"@', '"007"^^<http://www.w3.org/2001/XMLSchema#int>', '"two" "terms"',
        f"<{E}a\\u0041>", f"<{E}sp ace>", "<rel>", "ex:short", "", "   ", 5, None, True, [1],
        "<http://www.w3.org/2000/01/rdf-schema#subClassOf>", "<http://www.w3.org/2002/07/owl#Class>",
        f"<{E}é>", "<urn:x:y>", f"<{E}tab\there>",
    ])


def _ts(rng: random.Random):
    pick = rng.random()
    if pick < 0.5:
        return T0_MS + rng.randrange(100_000)
    return rng.choice([
        "2026-11-22T10:00:00Z", "2026-11-22T11:00:00+01:00", "2026-11-22T10:00:00", "never", "", 1.5,
        -5, 0, 253_402_300_799_999, 253_402_300_800_000, 10 ** 20, True, None, str(T0_MS), " 17 ",
    ])


def _line(rng: random.Random) -> str:
    pick = rng.random()
    if pick < 0.04:
        return rng.choice(["", "   ", "\t", "\u3000", "\x1c", "oops", "[1]", "{}", "{\"s\": 1,}", "01"])
    row = {"s": _value(rng, "s"), "p": rng.choice([TYPE, f"<{E}p>", _value(rng, "p")]),
           "o": _value(rng, "o"), "ts": _ts(rng)}
    if rng.random() < 0.05:
        row["g"] = "extra"
    if rng.random() < 0.05:
        del row[rng.choice(list(row))]
    if row.get("p") == TYPE and rng.random() < 0.1:
        row["o"] = "<http://www.w3.org/2002/07/owl#Class>"
    if rng.random() < 0.2:  # members in another order than s, p, o, ts (the reader's other path)
        keys = list(row)
        rng.shuffle(keys)
        row = {k: row[k] for k in keys}
    text = json.dumps(row, ensure_ascii=rng.random() < 0.5, separators=rng.choice([(",", ":"), (", ", ": ")]))
    if rng.random() < 0.03:  # a field given twice
        text = text[:-1] + ', "s": "<http://example.org/twice>"}'
    if rng.random() < 0.03:
        text = "  " + text + " \t"
    return text


def _both(data: bytes, monkeypatch):
    columns = parse_bytes("f.jsonl", data, file_key="k")
    monkeypatch.setattr(collected, "COLUMNS", False)
    rows = parse_bytes("f.jsonl", data, file_key="k")
    monkeypatch.setattr(collected, "COLUMNS", True)
    return columns, rows


@pytest.mark.parametrize("seed", range(6))
def test_generated_files_read_alike(seed, monkeypatch):
    rng = random.Random(seed)
    lines = [_line(rng) for _ in range(400)]
    ending = rng.choice(["\n", "\r\n"])
    data = (ending.join(lines) + rng.choice([ending, ""])).encode()
    if seed % 3 == 0:
        data = b"\xef\xbb\xbf" + data
    columns, rows = _both(data, monkeypatch)
    assert columns.table is not None and columns.table.height > 50  # the columnar reader took part
    assert columns.table.filter(columns.table.get_column("o").str.starts_with('"')).height  # literals too
    assert columns.items == rows.items
    assert columns.rejected == rows.rejected
    assert columns.notes == rows.notes
    assert columns.count == len(rows.items)


@pytest.mark.parametrize("data", [
    b'{"s": "<http://example.org/a>", "p": "<http://example.org/p>", "o": "<http://example.org/o>", "ts": 5}\r'
    b'{"s": "<http://example.org/a>", "p": "<http://example.org/p>", "o": "<http://example.org/o>", "ts": 6}\n',
    b'{"s": "<http://example.org/\xff>", "p": "<http://example.org/p>", "o": "<http://example.org/o>", "ts": 5}\n'
    b'{"s": "<http://example.org/a>", "p": "<http://example.org/p>", "o": "<http://example.org/o>", "ts": 6}\n',
    b"",
    b"\n\n",
])
def test_files_the_columnar_reader_leaves_whole_read_alike(data, monkeypatch):
    columns, rows = _both(data, monkeypatch)
    assert (columns.items, columns.rejected) == (rows.items, rows.rejected)


# ---- N-Triples ---------------------------------------------------------------------------


def _nt_term(rng: random.Random, position: str) -> str:
    if rng.random() < 0.7:
        return f"<{E}n{rng.randrange(30)}>"
    return rng.choice([
        "_:b1", "_:b2", f"<{E}a\\u0041>", "<rel>", "ex:short", f"<{E}é>", "<urn:x:y>",
        '"text"', '"a\\"quote"', '"tab\\there"', '"été"@FR', '"5"^^<http://www.w3.org/2001/XMLSchema#integer>',
        '"x"^^<http://www.w3.org/2001/XMLSchema#string>', '"bad\\q"', '"l"@', '"u\\u00e9"',
        "<http://www.w3.org/2000/01/rdf-schema#subClassOf>", "<http://www.w3.org/2002/07/owl#Class>",
    ])


def _nt_line(rng: random.Random) -> str:
    if rng.random() < 0.05:
        return rng.choice(["", "   ", "# a comment", ".", "<a> <b>", "\u3000"])
    p = rng.choice([TYPE, f"<{E}p>", _nt_term(rng, "p")])
    o = "<http://www.w3.org/2002/07/owl#Class>" if p == TYPE and rng.random() < 0.1 else _nt_term(rng, "o")
    sep = rng.choice([" ", "\t", "  ", ""])
    end = rng.choice([" .", ".", " . ", " . # note", " .\t", ""])
    return rng.choice(["", " "]) + sep.join([_nt_term(rng, "s"), p, o]) + end


@pytest.mark.parametrize("seed", range(6))
def test_generated_ntriples_read_alike(seed, monkeypatch):
    rng = random.Random(seed)
    lines = [_nt_line(rng) for _ in range(400)]
    ending = rng.choice(["\n", "\r\n"])
    data = (ending.join(lines) + ending).encode()
    columns = parse_bytes("f.nt", data, file_key="k", ts=T0_MS)
    monkeypatch.setattr(collected, "COLUMNS", False)
    rows = parse_bytes("f.nt", data, file_key="k", ts=T0_MS)
    assert columns.table is not None and columns.table.height > 30
    assert columns.table.filter(columns.table.get_column("o").str.starts_with('"')).height
    assert columns.items == rows.items
    assert columns.rejected == rows.rejected
