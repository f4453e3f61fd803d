"""RSP-QL as users write it (``declare/rspql``): the thesis's Listing 8.5 and the REGISTER
form read into windows, graphs and the SPARQL left, and that SPARQL answered by the
compiler over the windows' contents as the brute-force oracle of the thesis answers it
(``tests/rspql``) at every evaluation time; mistakes are one line naming the fix."""
from __future__ import annotations

import polars as pl
import pytest
from rdflib import Graph

from reasonlake.declare.rspql import NamedWindow, parse
from reasonlake.errors import SparqlError
from reasonlake.plan.windows import Window as EngineWindow
from reasonlake.query import run
from tests.rspql import test_oracle as thesis
from tests.rspql.oracle import All, GraphDecl, Query, Window, WindowClose, WindowDecl, evaluate, merge

MINUTE = thesis.MINUTE
PROLOGUE = f"PREFIX : <{thesis.EX}>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
# Listing 8.5 with its errata mended ("?" before totalLong and totalShort, the FILTER's
# parenthesis, $threshold$ as -1) and sioc:topic written :isNearby, as the oracle's stream has it
LISTING_8_5 = PROLOGUE + """
REGISTER STREAM :out
AS CONSTRUCT RSTREAM { ?shop a :PopularShop }
FROM NAMED WINDOW :lwin ON :in [RANGE PT60M STEP PT20M]
FROM NAMED WINDOW :swin ON :in [RANGE PT20M STEP PT20M]
FROM GRAPH :shops
WHERE {
  ?shop a :Shop
  WINDOW :lwin { SELECT ?shop (COUNT(*) AS ?totalLong) WHERE { ?m1 :isNearby ?shop . } GROUP BY ?shop }
  WINDOW :swin { SELECT ?shop (COUNT(*) AS ?totalShort) WHERE { ?m2 :isNearby ?shop . } GROUP BY ?shop }
  FILTER(?totalShort - ?totalLong > -1)
}
"""


def _iri(local: str) -> str:
    return f"<{thesis.EX}{local}>"


def test_listing_8_5_reads_as_two_windows_of_one_stream_and_a_static_graph():
    read = parse(LISTING_8_5)
    assert read.output == _iri("out") and read.operator == "rstream"
    assert read.windows == (NamedWindow(_iri("lwin"), _iri("in"), 60 * MINUTE, 20 * MINUTE, None),
                            NamedWindow(_iri("swin"), _iri("in"), 20 * MINUTE, 20 * MINUTE, None))
    assert read.graphs == (_iri("shops"),) and read.named_graphs == () and read.profile is None
    assert "REGISTER" not in read.sparql and "WINDOW" not in read.sparql and read.sparql.count("GRAPH :") == 2


def _frame(graph: Graph) -> pl.DataFrame:
    return pl.DataFrame([(s.n3(), p.n3(), o.n3()) for s, p, o in graph],
                        schema={c: pl.String for c in ("subject", "predicate", "object")}, orient="row")


def test_listing_8_5_answers_as_the_thesis_oracle_at_every_evaluation_time():
    """Each window's content at an evaluation time is the oracle's (Def. 5.3); the compiler
    answers the query read here over them as the oracle answers Listing 8.5."""
    read = parse(LISTING_8_5)
    windows = [WindowDecl(thesis.EX[w.name[len(str(thesis.EX)) + 1:-1]], "in",
                          Window(w.width_ms, w.slide_ms, w.start_ms or 0)) for w in read.windows]
    oracle = evaluate(Query(thesis.LISTING_8_5_RESTATED, windows, All(*(WindowClose(w.name) for w in windows)),
                            graphs=[GraphDecl(thesis.SHOPS)], output="out", prefixes=thesis.PREFIXES),
                      {"in": thesis.STREAM_IN}, until_ms=120 * MINUTE, unit_ms=MINUTE)
    assert oracle.times == [60 * MINUTE, 80 * MINUTE, 100 * MINUTE, 120 * MINUTE]
    found = []
    for t in oracle.times:
        named = {f"<{w.name}>": _frame(merge(w.window.content(thesis.STREAM_IN, t))) for w in windows}
        answer = run(_frame(thesis.SHOPS), read.sparql, named=named)
        found += [(line, t) for line in answer.triples]
    expected = [(f"{s.n3()} {p.n3()} {o.n3()} .", t) for (s, p, o), t in oracle.stream]
    assert sorted(found) == sorted(expected) and len(expected) == 2  # b at 60, c at 80


def test_the_register_form_with_a_start_and_an_entailment_regime():
    read = parse(PROLOGUE + """
        ENTAILMENT rdfs-plus ONTOLOGY <ontologies/shops.ttl>
        REGISTER ISTREAM <http://example.org/trending> AS
        SELECT ?shop (COUNT(*) AS ?n)   # a comment naming WINDOW :nowhere { is not read
        FROM NAMED WINDOW :w ON <http://example.org/in> [RANGE PT10M STEP PT1M FROM 2026-11-22T10:00:00Z]
        FROM NAMED GRAPH :shops
        WHERE { WINDOW :w { ?m :isNearby ?shop FILTER(?shop != <http://example.org/x#WINDOW>) } } GROUP BY ?shop""")
    assert read.operator == "istream" and read.output == "<http://example.org/trending>"
    assert read.windows == (NamedWindow(_iri("w"), "<http://example.org/in>", 600_000, 60_000, 1795341600000),)
    assert read.named_graphs == (_iri("shops"),) and read.profile == "rdfs-plus"
    assert read.ontologies == ("ontologies/shops.ttl",)
    assert "GRAPH :w {" in read.sparql and "WINDOW :nowhere {" in read.sparql  # the comment as written
    # a tumbling window: STEP left out is the range
    tumbling = parse(PROLOGUE + "REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] "
                                "WHERE { WINDOW :w { ?s ?p ?o } }")
    assert tumbling.windows[0].slide_ms == tumbling.windows[0].width_ms == 300_000
    # a landmark window (RSEP-QL, Definition 6.1): everything since its FROM, read every STEP
    landmark = parse(PROLOGUE + "REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE UNBOUNDED STEP 1m "
                                "FROM 1000] WHERE { WINDOW :w { ?s ?p ?o } }")
    window = EngineWindow(landmark.windows[0].width_ms, landmark.windows[0].slide_ms, landmark.windows[0].start_ms)
    assert window.landmark and window.first_close == 61_000 and window.opens(3_601_000) == 1000


@pytest.mark.parametrize("text,says", [
    ("SELECT * WHERE { ?s ?p ?o }", "starts with REGISTER"),
    ("REGISTER RSTREAM :o AS SELECT * WHERE { ?s ?p ?o }", "at least one window"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE UNBOUNDED] WHERE { WINDOW :w { ?s ?p ?o } }",
     "a landmark window [RANGE UNBOUNDED] never closes by itself; give STEP d"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [ROWS 5] WHERE { WINDOW :w { ?s ?p ?o } }",
     "[RANGE duration STEP duration FROM time REPORT"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] WHERE { WINDOW :v { ?s ?p ?o } }",
     "WINDOW :v { ... } reads a window the query does not declare"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] FROM NAMED WINDOW :w ON :s [RANGE 1m] "
     "WHERE { WINDOW :w { ?s ?p ?o } }", "declared twice"),
    ("REGISTER ISTREAM :o AS CONSTRUCT RSTREAM { ?s ?p ?o } FROM NAMED WINDOW :w ON :s [RANGE 5m] "
     "WHERE { WINDOW :w { ?s ?p ?o } }", "name the stream operator once"),
    ("REGISTER RSTREAM x:o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] WHERE { WINDOW :w { ?s ?p ?o } }",
     "the prefix x: is not declared"),
    ("ENTAILMENT owl3 REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] "
     "WHERE { WINDOW :w { ?s ?p ?o } }", "ENTAILMENT owl3: give one of"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] "
     "WHERE { MATCH EVENT :v { ?s ?p ?o } }", "EVENT :v { ... } reads a window the query does not declare"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] "
     "WHERE { MATCH EVENT :w { ?s ?p ?o } SEQ }", "expected an event pattern"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] "
     "WHERE { MATCH { EVENT :w { ?s ?p ?o } ?x ?y ?z } }", "the } closing MATCH { ... }"),
    ("REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] "
     "WHERE { MATCH (EVENT :w { ?s ?p ?o } }", "the ) closing ( E )"),
])
def test_a_mistake_is_one_line_naming_the_fix(text, says):
    with pytest.raises(SparqlError) as refused:
        parse(PROLOGUE + text)
    assert says in str(refused.value) and "\n" not in str(refused.value)


def test_a_bad_duration_names_the_window():
    with pytest.raises(Exception) as refused:
        parse(PROLOGUE + "REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE soon] "
                         "WHERE { WINDOW :w { ?s ?p ?o } }")
    assert "window :w's RANGE" in str(refused.value)


def test_match_reads_event_patterns_with_their_policies():
    """RSEP-QL (``declare.rsep``): SEQ is read left to right, FIRST and LAST bind to the pattern
    after them, a policy word follows SEQ and MATCH; the MATCH leaves a GRAPH node binding its
    variables, and "match" inside a name, a string, an IRI or a variable is no keyword (nor
    is a MATCH after a less-than sign taken for one inside an IRI)."""
    from reasonlake.declare.rsep import Event, First, Seq

    read = parse(PROLOGUE + 'REGISTER RSTREAM :o AS SELECT * FROM NAMED WINDOW :w ON :s [RANGE 5m] '
                            'WHERE { ?match :p "match" . FILTER(?match < 3) <urn:match> :p :match . MATCH RECENT { EVENT :w { ?a :p ?b } SEQ RECENT '
                            'FIRST EVENT :w { ?b :q ?c } SEQ EVENT :w { ?c :r :match } } }')
    (m,) = read.matches
    w = f"<{thesis.EX}w>"
    assert m.consumption == "recent" and m.variables == ("a", "b", "c")
    assert m.pattern == Seq(Seq(Event(w, "?a :p ?b"), First(Event(w, "?b :q ?c")), "recent"),
                            Event(w, "?c :r :match"), "unrestricted")
    assert "MATCH" not in read.sparql and '?match :p "match"' in read.sparql and "<urn:match>" in read.sparql
    assert "GRAPH <urn:reasonlake:match:0> { ?a <urn:reasonlake:match:binds> ?a" in read.sparql
