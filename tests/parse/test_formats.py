"""Reading stream files: every format, skolemization, and every reason a row is rejected."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reasonlake.errors import IngestError
from reasonlake.parse.formats import ParsedFile, Rejected, StreamItem, parse_file

E = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
SUBCLASS = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
OWL_CLASS = "<http://www.w3.org/2002/07/owl#Class>"
SAME_AS = "<http://www.w3.org/2002/07/owl#sameAs>"
PROV = "<http://www.w3.org/ns/prov#generatedAtTime>"
T0 = "2026-11-22T10:00:00Z"
T0_MS = 1795341600000
KEY = "abc123"
PREFIXES = (
    f"@prefix : <{E}> .\n"
    "@prefix prov: <http://www.w3.org/ns/prov#> .\n"
    f"@prefix xsd: <{XSD}> .\n"
    "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
    "@prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
)


def e(name: str) -> str:
    return f"<{E}{name}>"


def skolem(event: int, label: str) -> str:
    return f"<urn:reasonlake:genid:{KEY}:{event}:{label}>"


def parse(tmp_path: Path, name: str, text: str | bytes, **kwargs) -> ParsedFile:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return parse_file(path, file_key=KEY, **kwargs)


def jsonl(*rows: dict | str) -> str:
    return "\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n"


def row(s=e("a"), p=e("p"), o=e("o"), ts=T0, **extra) -> dict:
    return {"s": s, "p": p, "o": o, "ts": ts, **extra}


def only_reason(parsed: ParsedFile) -> str:
    assert len(parsed.rejected) == 1, parsed.rejected
    return parsed.rejected[0].reason


# ---- .jsonl -------------------------------------------------------------------------------


def test_jsonl_rows_become_items(tmp_path):
    parsed = parse(tmp_path, "s.jsonl", jsonl(
        row(o='"5"^^<http://www.w3.org/2001/XMLSchema#int>'),
        "",
        row(o='"text"@en', ts=1700000000000),
        row(ts="1700000000001", extra="ignored"),
    ))
    assert parsed.rejected == []
    assert parsed.items == [
        StreamItem(e("a"), e("p"), f'"5"^^<{XSD}int>', T0_MS, 1, 0),
        StreamItem(e("a"), e("p"), '"text"@en', 1700000000000, 3, 1),
        StreamItem(e("a"), e("p"), e("o"), 1700000000001, 4, 2),
    ]


def test_jsonl_iso_times_with_offsets(tmp_path):
    parsed = parse(tmp_path, "s.jsonl", jsonl(row(ts="2026-11-22T11:00:00+01:00"), row(ts="2026-11-22T10:00:00.250Z")))
    assert [item.ts for item in parsed.items] == [T0_MS, T0_MS + 250]


def test_jsonl_terms_are_canonical(tmp_path):
    parsed = parse(tmp_path, "s.jsonl", jsonl(
        row(s="<http://example.org/\\u0061>", o='"05"^^<http://www.w3.org/2001/XMLSchema#int>'),
        row(o='"x"@EN'),
        row(o='"x"^^<http://www.w3.org/2001/XMLSchema#string>'),
    ))
    assert [(i.s, i.o) for i in parsed.items] == [
        (e("a"), f'"05"^^<{XSD}int>'), (e("a"), '"x"@en'), (e("a"), '"x"'),
    ]


@pytest.mark.parametrize(
    "line, fragment",
    [
        ("not json", "invalid JSON"),
        ('{"s": "<http://example.org/a>",', "invalid JSON"),
        ("[1, 2]", "expected a JSON object"),
        (json.dumps({"s": e("a"), "p": e("p"), "o": e("o")}), "missing field 'ts'"),
        (json.dumps({"p": e("p"), "o": e("o"), "ts": T0}), "missing field 's'"),
        (json.dumps(row(s="")), "field 's' is empty"),
        (json.dumps(row(o=5)), "field 'o': expected a string"),
        (json.dumps(row(o=None)), "got null"),
        (json.dumps(row(s='"lit"')), "field 's': a literal cannot be a subject"),
        (json.dumps(row(p='"lit"')), "field 'p': a literal cannot be a predicate"),
        (json.dumps(row(p="_:b")), "field 'p': a blank node cannot be a predicate"),
        (json.dumps(row(p="rdf:type")), "field 'p': 'rdf:type' is not an N-Triples term"),
        (json.dumps(row(o="<http://example.org/a b>")), "field 'o': bad IRI <http://example.org/a b>: contains ' '"),
        (json.dumps(row(o="<relative>")), "field 'o': bad IRI <relative>: relative"),
        (json.dumps(row(o='"open')), "field 'o': literal \"open has no closing"),
        (json.dumps(row(ts="2026-13-01")), "field 'ts': '2026-13-01' is not a time; use ISO 8601 with a zone"),
        (json.dumps(row(ts="2026-11-22T10:00:00")), "field 'ts': '2026-11-22T10:00:00' has no zone"),
        (json.dumps(row(ts="")), "field 'ts' is empty"),
        (json.dumps(row(ts=1.5)), "field 'ts': number 1.5 is not a time"),
        (json.dumps(row(ts=True)), "field 'ts': boolean true is not a time"),
    ],
)
def test_jsonl_rejections_name_the_field(tmp_path, line, fragment):
    parsed = parse(tmp_path, "s.jsonl", jsonl(row(), line, row()))
    assert len(parsed.items) == 2
    assert parsed.rejected == [Rejected(2, line, parsed.rejected[0].reason)]
    assert fragment in parsed.rejected[0].reason


def test_jsonl_row_with_several_problems_lists_them_all(tmp_path):
    reason = only_reason(parse(tmp_path, "s.jsonl", jsonl(row(s='"lit"', ts="never"))))
    assert "field 's'" in reason and "field 'ts'" in reason


def test_jsonl_event_numbers_count_rejected_rows(tmp_path):
    parsed = parse(tmp_path, "s.jsonl", jsonl(row(), "oops", row()))
    assert [(i.line, i.event) for i in parsed.items] == [(1, 0), (3, 2)]


def test_jsonl_line_that_is_not_utf8(tmp_path):
    data = jsonl(row()).encode() + b'{"s": "\xff"}\n' + jsonl(row()).encode()
    parsed = parse(tmp_path, "s.jsonl", data)
    assert len(parsed.items) == 2
    assert parsed.rejected[0].line == 2
    assert "not valid UTF-8" in parsed.rejected[0].reason


def test_jsonl_crlf_and_bom(tmp_path):
    parsed = parse(tmp_path, "s.jsonl", ("\ufeff" + jsonl(row(), row())).replace("\n", "\r\n").encode())
    assert parsed.rejected == []
    assert [i.line for i in parsed.items] == [1, 2]


# ---- TBox vocabulary ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "triple",
    [
        (e("A"), SUBCLASS, e("B")),
        (e("A"), RDF_TYPE, OWL_CLASS),
        (e("p"), "<http://www.w3.org/2000/01/rdf-schema#domain>", e("A")),
        (e("p"), RDF_TYPE, "<http://www.w3.org/2002/07/owl#TransitiveProperty>"),
    ],
)
def test_tbox_triples_are_rejected(tmp_path, triple):
    s, p, o = triple
    reason = only_reason(parse(tmp_path, "s.jsonl", jsonl(row(s=s, p=p, o=o))))
    assert reason.startswith("TBox vocabulary")
    assert reason.endswith("; put axioms in the view's ontology file, not in the stream")


@pytest.mark.parametrize(
    "triple",
    [
        (e("a"), SAME_AS, e("b")),
        (e("a"), RDF_TYPE, e("Sensor")),
        (e("a"), RDF_TYPE, "<http://www.w3.org/2002/07/owl#NamedIndividual>"),
        (e("a"), "<http://www.w3.org/2000/01/rdf-schema#label>", '"a"'),
    ],
)
def test_abox_triples_in_owl_and_rdfs_vocabulary_are_accepted(tmp_path, triple):
    s, p, o = triple
    parsed = parse(tmp_path, "s.jsonl", jsonl(row(s=s, p=p, o=o)))
    assert parsed.rejected == []
    assert (parsed.items[0].s, parsed.items[0].p, parsed.items[0].o) == triple


# ---- skolemization ------------------------------------------------------------------------


def test_same_blank_node_label_in_two_rows_is_two_nodes(tmp_path):
    parsed = parse(tmp_path, "s.jsonl", jsonl(row(s="_:x", o="_:y"), row(s="_:x")))
    first, second = parsed.items
    assert first.s == skolem(0, "x") and first.o == skolem(0, "y")
    assert second.s == skolem(1, "x")
    assert first.s != second.s


def test_file_key_keeps_files_apart(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(jsonl(row(s="_:x")))
    one = parse_file(path, file_key="k1").items[0].s
    two = parse_file(path, file_key="k2").items[0].s
    assert one == "<urn:reasonlake:genid:k1:0:x>" and two == "<urn:reasonlake:genid:k2:0:x>"


# ---- .csv ---------------------------------------------------------------------------------


def test_csv_any_column_order_extra_columns_and_quoting(tmp_path):
    # the literal "hello, \"world\""@en as a spreadsheet writes it: quoted, quotes doubled
    hello = '"hello, \\"world\\""@en'
    assert csv_cell(hello) == '"""hello, \\""world\\""""@en"'
    text = (
        "note,ts,o,s,p\n"
        f'first,{T0},{csv_cell(hello)},{e("a")},{e("p")}\n'
        "\n"
        f'second,1700000000000,"""a,b""^^<{XSD}string>",_:x,{e("p")}\n'
    )
    parsed = parse(tmp_path, "s.csv", text)
    assert parsed.rejected == []
    assert parsed.items == [
        StreamItem(e("a"), e("p"), '"hello, \\"world\\""@en', T0_MS, 2, 0),
        StreamItem(skolem(1, "x"), e("p"), '"a,b"', 1700000000000, 4, 1),
    ]


def csv_cell(value: str) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow([value])
    return buffer.getvalue()


def test_csv_header_is_trimmed_and_case_insensitive(tmp_path):
    parsed = parse(tmp_path, "s.csv", f" S , P ,O,TS\n{e('a')},{e('p')},{e('o')},{T0}\n")
    assert len(parsed.items) == 1


def test_csv_missing_column_is_an_error_for_the_file(tmp_path):
    with pytest.raises(IngestError, match=r"s\.csv.*no column 'ts'"):
        parse(tmp_path, "s.csv", f"s,p,o\n{e('a')},{e('p')},{e('o')}\n")


def test_csv_empty_file_is_an_error(tmp_path):
    with pytest.raises(IngestError, match="empty CSV"):
        parse(tmp_path, "s.csv", "")


def test_csv_row_rejections(tmp_path):
    text = (
        "s,p,o,ts\n"
        f"{e('a')},{e('p')},{e('o')},{T0}\n"
        f"{e('a')},{e('p')}\n"
        f'{e("a")},{e("p")},"a"b,{T0}\n'
        f"{e('a')},{e('p')},{e('o')},2026-13-01\n"
        f'"lit",{e("p")},{e("o")},{T0}\n'
        f"{e('A')},{SUBCLASS},{e('B')},{T0}\n"
        f"{e('a')},{e('p')},{e('o')},{T0}\n"
    )
    parsed = parse(tmp_path, "s.csv", text)
    assert [i.line for i in parsed.items] == [2, 8]
    lines = {r.line: r for r in parsed.rejected}
    assert sorted(lines) == [3, 4, 5, 6, 7]
    assert "missing field 'o'" in lines[3].reason and "missing field 'ts'" in lines[3].reason
    assert lines[3].raw == f"{e('a')},{e('p')}"
    assert lines[4].reason.startswith("cannot parse the CSV row")
    assert lines[5].reason.startswith("field 'ts': '2026-13-01' is not a time")
    assert "field 's'" in lines[6].reason
    assert lines[7].reason.startswith("TBox vocabulary")


def test_csv_multi_line_field_keeps_its_raw_text_and_first_line(tmp_path):
    text = f's,p,o,ts\n{e("a")},{e("p")},"""two\nlines""",{T0}\n{e("a")},{e("p")},{e("o")},{T0}\n'
    parsed = parse(tmp_path, "s.csv", text)
    bad = parsed.rejected[0]
    assert bad.line == 2 and bad.raw == f'{e("a")},{e("p")},"""two\nlines""",{T0}'
    assert "raw line break" in bad.reason
    assert [i.line for i in parsed.items] == [4]


# ---- .nq ----------------------------------------------------------------------------------


def quad(s, p, o, g=None) -> str:
    return f"{s} {p} {o}{' ' + g if g else ''} .\n"


def stamp(graph: str, value: str = f'"{T0}"^^<{XSD}dateTime>') -> str:
    return quad(graph, PROV, value)


def test_nq_named_graphs_are_events(tmp_path):
    text = (
        stamp(e("g1"))
        + quad(e("a"), e("p"), "_:b", e("g1"))
        + quad("_:b", e("q"), '"x"', e("g1"))
        + stamp(e("g2"), f'"1700000000000"^^<{XSD}long>')
        + quad(e("a"), e("p"), "_:b", e("g2"))
        + quad(e("c"), e("p"), e("d"), e("g1"))
    )
    parsed = parse(tmp_path, "s.nq", text)
    assert parsed.rejected == []
    assert parsed.items == [
        StreamItem(e("a"), e("p"), skolem(0, "b"), T0_MS, 2, 0),
        StreamItem(skolem(0, "b"), e("q"), '"x"', T0_MS, 3, 0),
        StreamItem(e("c"), e("p"), e("d"), T0_MS, 6, 0),
        StreamItem(e("a"), e("p"), skolem(1, "b"), 1700000000000, 5, 1),
    ]


@pytest.mark.parametrize(
    "value, ms",
    [
        (f'"{T0}"^^<{XSD}dateTime>', T0_MS),
        (f'"2026-11-22T11:00:00+01:00"^^<{XSD}dateTimeStamp>', T0_MS),
        (f'"1700000000000"^^<{XSD}long>', 1700000000000),
        (f'"1700000000000"^^<{XSD}integer>', 1700000000000),
    ],
)
def test_nq_time_forms(tmp_path, value, ms):
    parsed = parse(tmp_path, "s.nq", stamp(e("g"), value) + quad(e("a"), e("p"), e("o"), e("g")))
    assert parsed.rejected == []
    assert parsed.items[0].ts == ms


@pytest.mark.parametrize(
    "value, fragment",
    [
        (f'"2026-11-22T10:00:00"^^<{XSD}dateTime>', "has no zone"),
        (f'"2026-13-01T00:00:00Z"^^<{XSD}dateTime>', "is not a time"),
        (f'"{T0}"', "is not a time"),
        (e("t"), "is not a literal"),
    ],
)
def test_nq_bad_time_rejects_the_time_and_the_graph(tmp_path, value, fragment):
    parsed = parse(tmp_path, "s.nq", stamp(e("g"), value) + quad(e("a"), e("p"), e("o"), e("g")))
    assert parsed.items == []
    time_row, graph_row = parsed.rejected
    assert time_row.line == 1 and fragment in time_row.reason
    assert graph_row.line == 2 and "no usable prov:generatedAtTime" in graph_row.reason


def test_nq_graph_without_time(tmp_path):
    parsed = parse(tmp_path, "s.nq", quad(e("a"), e("p"), e("o"), e("g")) + quad(e("b"), e("p"), e("o"), e("g")))
    assert parsed.items == []
    assert len(parsed.rejected) == 2
    for rejected in parsed.rejected:
        assert rejected.reason.startswith(
            f"named graph {e('g')} has no prov:generatedAtTime in the default graph; add"
        )


def test_nq_default_graph_triples_are_rejected(tmp_path):
    parsed = parse(tmp_path, "s.nq", stamp(e("g")) + quad(e("x"), e("y"), e("z")) + quad(e("a"), e("p"), e("o"), e("g")))
    assert len(parsed.items) == 1
    assert parsed.rejected == [
        Rejected(2, quad(e("x"), e("y"), e("z")).strip(),
                 "triple outside a named graph: every stream item must be in a timestamped named graph")
    ]


def test_nq_two_different_times_reject_the_graph(tmp_path):
    text = stamp(e("g")) + stamp(e("g"), f'"1"^^<{XSD}long>') + quad(e("a"), e("p"), e("o"), e("g"))
    parsed = parse(tmp_path, "s.nq", text)
    assert parsed.items == []
    assert len(parsed.rejected) == 3
    assert all("2 different prov:generatedAtTime values" in r.reason for r in parsed.rejected)


def test_nq_time_for_a_graph_that_is_not_there(tmp_path):
    parsed = parse(tmp_path, "s.nq", stamp(e("typo")))
    assert "no named graph <http://example.org/typo>" in only_reason(parsed)


def test_nq_bad_line_costs_only_that_line(tmp_path):
    text = (
        stamp(e("g"))
        + quad(e("a"), e("p"), "<bad iri>", e("g"))
        + quad(e("a"), e("p"), e("o"), e("g"))
        + f"{e('a')} {e('p')} .\n"
        + quad('"lit"', e("p"), e("o"), e("g"))
    )
    parsed = parse(tmp_path, "s.nq", text)
    assert [i.line for i in parsed.items] == [3]
    reasons = {r.line: r.reason for r in parsed.rejected}
    assert reasons[2].startswith("object: bad IRI <bad iri>")
    assert reasons[4].startswith("found 2 terms")
    assert reasons[5].startswith("subject: a literal cannot be a subject")


def test_nq_tbox_inside_a_graph_is_rejected_and_same_as_kept(tmp_path):
    text = stamp(e("g")) + quad(e("A"), RDF_TYPE, OWL_CLASS, e("g")) + quad(e("a"), SAME_AS, e("b"), e("g"))
    parsed = parse(tmp_path, "s.nq", text)
    assert [(i.p, i.o) for i in parsed.items] == [(SAME_AS, e("b"))]
    assert only_reason(parsed).startswith("TBox vocabulary: rdf:type")


# ---- .trig --------------------------------------------------------------------------------


TRIG = PREFIXES + f"""
:g1 prov:generatedAtTime "{T0}"^^xsd:dateTime .
:g2 prov:generatedAtTime 1700000000000 .
:g1 {{ :a :p _:c . _:c :q [ :r "x"@EN ] . :a owl:sameAs :b . :A rdfs:subClassOf :B . }}
:g2 {{ :a :p _:c . }}
:g3 {{ :a :p :o . }}
:x :y :z .
"""


def test_trig_named_graphs_are_events(tmp_path):
    parsed = parse(tmp_path, "s.trig", TRIG)
    by_event: dict[int, list[StreamItem]] = {}
    for item in parsed.items:
        by_event.setdefault(item.event, []).append(item)
    assert sorted(by_event) == [0, 1]
    first = by_event[0]
    assert {i.ts for i in first} == {T0_MS}
    assert {i.line for i in first} == {0}
    c = next(i.o for i in first if i.p == e("p"))
    nested = next(i.o for i in first if i.p == e("q"))
    # one blank node of one graph is one IRI; _:c of :g2 is another
    assert next(i.s for i in first if i.p == e("q")) == c
    assert next(i.s for i in first if i.p == e("r")) == nested
    assert c.startswith(f"<urn:reasonlake:genid:{KEY}:0:")
    assert by_event[1] == [StreamItem(e("a"), e("p"), by_event[1][0].o, 1700000000000, 0, 1)]
    assert by_event[1][0].o.startswith(f"<urn:reasonlake:genid:{KEY}:1:")
    assert ('"x"@en') in {i.o for i in first}
    assert (e("a"), SAME_AS, e("b")) in {(i.s, i.p, i.o) for i in first}


def test_trig_rejections(tmp_path):
    reasons = [r.reason for r in parse(tmp_path, "s.trig", TRIG).rejected]
    assert any(r.startswith("TBox vocabulary: predicate <http://www.w3.org/2000/01/rdf-schema#subClassOf>") for r in reasons)
    assert any(r.startswith(f"named graph {e('g3')} has no prov:generatedAtTime") for r in reasons)
    assert any(r.startswith("triple outside a named graph") for r in reasons)
    assert len(reasons) == 3


def test_trig_reading_is_repeatable(tmp_path):
    first = parse(tmp_path, "s.trig", TRIG)
    second = parse(tmp_path, "s.trig", TRIG)
    assert first == second


def test_trig_relative_iri_is_rejected(tmp_path):
    text = PREFIXES + f':g prov:generatedAtTime "{T0}"^^xsd:dateTime .\n:g {{ <thing> :p :o . :a :p :o . }}\n'
    parsed = parse(tmp_path, "s.trig", text)
    assert len(parsed.items) == 1
    assert "bad IRI <thing>: relative" in only_reason(parsed)
    assert parsed.rejected[0].raw.startswith("<thing>")


def test_trig_bad_graph_block_costs_only_that_block(tmp_path):
    text = PREFIXES + ':h { :b :p :o . }\n:h prov:generatedAtTime "2026-11-22T10:00:00Z"^^xsd:dateTime .\n' \
        ':g { :a :p :o .\n:a :p "open\n'
    parsed = parse(tmp_path, "s.trig", text)
    assert [i.s for i in parsed.items] == [e("b")]
    bad = parsed.rejected[0]
    assert len(parsed.rejected) == 1
    assert bad.reason.startswith("cannot parse the statement as TriG")
    assert bad.line == 8


# ---- .nt ----------------------------------------------------------------------------------


def test_nt_needs_a_time(tmp_path):
    with pytest.raises(IngestError, match=r"\.nt/\.ttl files carry no time; pass --ts TIME"):
        parse(tmp_path, "s.nt", quad(e("a"), e("p"), e("o")))


def test_nt_whole_file_is_one_event_and_bad_lines_are_rejected(tmp_path):
    text = (
        "# a comment\n"
        + quad(e("a"), e("p"), "_:b")
        + "\n"
        + quad("_:b", e("q"), '"x\\ty"')
        + f"{e('a')} {e('p')} .\n"
        + quad(e("a"), e("p"), e("o"), e("g"))
        + quad(e("A"), SUBCLASS, e("B"))
        + quad(e("a"), e("p"), "_:b")
    )
    parsed = parse(tmp_path, "s.nt", text, ts=42)
    assert parsed.items == [
        StreamItem(e("a"), e("p"), skolem(0, "b"), 42, 2, 0),
        StreamItem(skolem(0, "b"), e("q"), '"x\\ty"', 42, 4, 0),
    ]
    reasons = {r.line: r.reason for r in parsed.rejected}
    assert reasons[5].startswith("found 2 terms")
    assert "use a .nq file" in reasons[6]
    assert reasons[7].startswith("TBox vocabulary")


# ---- .ttl ---------------------------------------------------------------------------------


def test_ttl_whole_file_is_one_event(tmp_path):
    text = PREFIXES + ':a :p _:c . _:c :q "x"@EN, 5 .\n:a owl:sameAs :b .\n:A a owl:Class .\n'
    parsed = parse(tmp_path, "s.ttl", text, ts=7)
    triples = {(i.s, i.p, i.o) for i in parsed.items}
    c = next(i.o for i in parsed.items if i.p == e("p"))
    assert triples == {
        (e("a"), e("p"), c),
        (c, e("q"), '"x"@en'),
        (c, e("q"), f'"5"^^<{XSD}integer>'),
        (e("a"), SAME_AS, e("b")),
    }
    assert c == skolem(0, "b0")
    assert {(i.ts, i.event, i.line) for i in parsed.items} == {(7, 0, 0)}
    assert only_reason(parsed).startswith("TBox vocabulary: rdf:type <http://www.w3.org/2002/07/owl#Class>")


def test_ttl_needs_a_time(tmp_path):
    with pytest.raises(IngestError, match="pass --ts TIME"):
        parse(tmp_path, "s.ttl", PREFIXES)


def test_ttl_bad_statement_costs_only_itself(tmp_path):
    parsed = parse(tmp_path, "s.ttl", PREFIXES + ":a :p :o .\n:a :p :o extra .\n", ts=1)
    assert [(i.s, i.line) for i in parsed.items] == [(e("a"), 6)]
    assert parsed.rejected == [Rejected(7, ":a :p :o extra .", parsed.rejected[0].reason)]
    assert parsed.rejected[0].reason.startswith("cannot parse the statement as Turtle")


def test_ttl_500_good_statements_survive_an_unclosed_literal(tmp_path):
    good = "".join(f':s{n} :p "v{n}" ;\n  :q _:shared .\n' for n in range(250))
    text = PREFIXES + good + ':bad :p "never closed .\n:after :p """multi\nline . "with" dots.""" .\n'
    parsed = parse(tmp_path, "s.ttl", text, ts=1)
    assert len(parsed.items) == 501
    assert {i.o for i in parsed.items if i.p == e("q")} == {parsed.items[1].o}  # one blank node
    assert parsed.items[-1].s == e("after")
    assert [r.line for r in parsed.rejected] == [506]


def test_ttl_fallback_keeps_each_statement_under_its_own_prefixes(tmp_path):
    # split in halves, s and t would be parsed together: each must keep its own x:
    text = ("@prefix x: <http://a/> .\nx:s x:p x:o .\n@prefix x: <http://b/> .\nx:t x:p x:o .\n"
            'x:v x:p x:o .\nx:u x:p "never closed .\n')
    parsed = parse(tmp_path, "s.ttl", text, ts=1)
    assert [i.s for i in parsed.items] == ["<http://a/s>", "<http://b/t>", "<http://b/v>"]
    assert [r.line for r in parsed.rejected] == [6]


def test_ttl_with_a_bom_is_read(tmp_path):
    parsed = parse(tmp_path, "s.ttl", b"\xef\xbb\xbf" + (PREFIXES + ":a :p :o .\n").encode(), ts=1)
    assert [i.s for i in parsed.items] == [e("a")] and parsed.rejected == []


def test_ttl_not_utf8_costs_only_its_statement(tmp_path):
    parsed = parse(tmp_path, "s.ttl", b'<http://e/a> <http://e/p> "\xff" .\n<http://e/b> <http://e/p> "ok" .\n', ts=1)
    assert [i.s for i in parsed.items] == ["<http://e/b>"]
    assert only_reason(parsed).startswith("the line is not valid UTF-8")
    assert parsed.rejected[0].line == 1
    assert parsed.rejected[0].raw


@pytest.mark.parametrize("value", [
    f'"05"^^<{XSD}int>', f'"yes"^^<{XSD}boolean>', f'"1e400"^^<{XSD}double>',
    f'"2026-11-22T10:00:00.123456789Z"^^<{XSD}dateTime>',
    f'" abc  123 "^^<{XSD}token>',  # rdflib collapses token whitespace unless told not to
])
def test_same_literal_is_the_same_string_as_written_in_every_format(tmp_path, value):
    from_jsonl = parse(tmp_path, "s.jsonl", jsonl(row(o=value))).items[0].o
    from_nt = parse(tmp_path, "s.nt", quad(e("a"), e("p"), value), ts=1).items[0].o
    from_ttl = parse(tmp_path, "s.ttl", f'{e("a")} {e("p")} {value} .\n', ts=1).items[0].o
    assert from_jsonl == from_nt == from_ttl == value


# ---- files --------------------------------------------------------------------------------


def test_unsupported_suffix(tmp_path):
    with pytest.raises(IngestError, match=r"s\.xml: unsupported file type '.xml'; use one of .jsonl, .csv"):
        parse(tmp_path, "s.xml", "<rdf/>")


def test_missing_file(tmp_path):
    with pytest.raises(IngestError, match="cannot read"):
        parse_file(tmp_path / "absent.jsonl", file_key=KEY)


def test_reading_does_not_load_pyspark():
    code = "import sys, reasonlake.parse.formats; assert 'pyspark' not in sys.modules"
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_nq_blank_node_graph_names(tmp_path):
    text = stamp("_:g", f'"5"^^<{XSD}long>') + quad(e("a"), e("p"), "_:g", "_:g")
    parsed = parse(tmp_path, "s.nq", text)
    assert parsed.rejected == []
    assert parsed.items == [StreamItem(e("a"), e("p"), skolem(0, "g"), 5, 2, 0)]


def test_csv_header_that_cannot_be_parsed(tmp_path):
    with pytest.raises(IngestError, match="cannot parse the CSV header"):
        parse(tmp_path, "s.csv", 's,"p"x,o,ts\n')


def test_turtle_numeric_shorthand_keeps_the_form_written(tmp_path):
    """007, +12, .5 and +1.50 are Turtle's shorthand for typed literals: their lexical form is
    the text (rdflib reads them as numbers and would write "7", "12", "0.5", "1.50"); and a
    library user's own parse keeps rdflib's behaviour."""
    import rdflib

    written = {"007": "integer", "+12": "integer", "-0": "integer", ".5": "decimal", "+1.50": "decimal",
               "-0.0": "decimal", "1.0": "decimal", "1e3": "double", "-1.5E-3": "double"}
    text = f"{e('a')} {e('p')} {' , '.join(written)} .\n"
    parsed = parse(tmp_path, "s.ttl", text, ts=1)
    assert sorted(i.o for i in parsed.items) == sorted(f'"{v}"^^<{XSD}{t}>' for v, t in written.items())
    mine = rdflib.Graph().parse(data="<http://e/a> <http://e/p> 007, .5 .", format="turtle")
    assert sorted(str(o) for o in mine.objects()) == ["0.5", "7"]


def test_rdflib_rewrites_token_whitespace_again_after_a_parse(tmp_path):
    """as_written switches rdflib's rewriting off for our parses only: a library user's own
    Literal() keeps rdflib's behaviour."""
    from rdflib import Literal, URIRef

    parse(tmp_path, "s.ttl", f'{e("a")} {e("p")} " a  b "^^<{XSD}token> .\n', ts=1)
    assert str(Literal(" a  b ", datatype=URIRef(f"{XSD}token"))) == "a b"


def test_ill_typed_literals_are_kept_without_log_noise(tmp_path, caplog):
    value = f'"abc"^^<{XSD}int>'
    parsed = parse(tmp_path, "s.ttl", f"{e('a')} {e('p')} {value} .\n", ts=1)
    assert parsed.items[0].o == value
    assert not [r for r in caplog.records if r.name.startswith("rdflib")]


def test_csv_literal_without_its_own_quotes_is_told_how_to_write_them(tmp_path):
    text = f"s,p,o,ts\n{e('a')},{e('p')},\"hello, world\",1000\n{e('a')},{e('p')},\"\"\"hello, world\"\"\",1000\n"
    parsed = parse(tmp_path, "s.csv", text)
    assert [i.o for i in parsed.items] == ['"hello, world"']
    assert only_reason(parsed).endswith('write """hello, world""" for the literal "hello, world"')


def test_jsonl_nested_too_deeply_costs_only_its_row(tmp_path):
    text = jsonl(row(), "[" * 100_000 + "]" * 100_000, row(o=e("c")))
    parsed = parse(tmp_path, "s.jsonl", text)
    assert len(parsed.items) == 2
    assert only_reason(parsed).startswith("the JSON nests too deeply")
