"""EP-SPARQL's event operators over a view's stream items (decision 0046): the paper's
examples on a hand-made stock stream, a registered event query, the syntax's errors, and an
item a repair removed. Generated queries over items and derived facts, against the paper's
definitions at every close on both backends, are in ``test_derived_event_intervals``."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from reasonlake.api import Lakehouse
from reasonlake.errors import SparqlError
from reasonlake.query.events import translate
from tests.cli.helpers import jsonl, simple_view
from tests.query.backends import view_triples

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
PREFIXES = f"PREFIX : <{EX}>\nPREFIX xsd: <{XSD}>\n"
NO_TBOX = f"<{EX}unused> <http://www.w3.org/2000/01/rdf-schema#subClassOf> <{EX}Unused> .\n"


def _integer(n: int) -> str:
    return f'"{n}"^^<{XSD}integer>'


def _iri(name: str) -> str:
    return f"<{EX}{name}>"


def _answers(triples, query: str) -> Counter:
    frame = triples.answer(query).frame
    return Counter(tuple(row) for row in frame.iter_rows())


# -- the paper's examples -------------------------------------------------------------------------
STOCK = [  # (subject, predicate, object, ts): ACME falls by half then rises; BETA only falls a little
    ("acme", "downratedby", _iri("moody"), 500),
    ("acme", "hasStockPrice", _integer(100), 1000),
    ("beta", "hasStockPrice", _integer(100), 1100),
    ("acme", "hasStockPrice", _integer(40), 2000),
    ("beta", "hasStockPrice", _integer(90), 2100),
    ("acme", "hasStockPrice", _integer(60), 3000),
    ("beta", "downratedby", _iri("fitch"), 3500),
]


@pytest.fixture(scope="module")
def stock_home(spark, initialized_home, tmp_path_factory):
    import shutil

    from reasonlake.cli import main

    tmp = tmp_path_factory.mktemp("stock")
    home = tmp / "lake"
    shutil.copytree(initialized_home, home)
    events = [(_iri(s), _iri(p), o, ts) for s, p, o, ts in STOCK]
    view = simple_view(tmp, width="10s", slide="5s", tbox=NO_TBOX)
    falls = PREFIXES + ("SELECT ?company ?d WHERE { { ?company :hasStockPrice ?p1 } SEQ { ?company :hasStockPrice ?p2 } "
                        "FILTER (?p2 < ?p1 * 0.5) BIND (getDURATION() AS ?d) }")
    view.write_text(view.read_text() + f"queries: {json.dumps([{'name': 'falls', 'text': falls}])}\n")
    for args in (("view", "create", str(view)),
                 ("ingest", "s", str(jsonl(tmp / "e.jsonl", events))), ("slide", "v", "--until", "10000")):
        assert main(["--home", str(home), *args]) == 0
    return Lakehouse(str(home), spark=spark).home


# the generated test below runs both backends in the default suite; this one's Spark run is slow's
@pytest.mark.parametrize("backend", ["driver", pytest.param("spark", marks=pytest.mark.slow)])
def test_the_papers_stock_examples(stock_home, backend, monkeypatch):
    triples = view_triples(stock_home, "v", 10000, backend, monkeypatch)
    # (1): a fall by more than 30% and then a rise by more than 5% of the low, within 30 days
    fell_and_rose = PREFIXES + (
        "SELECT ?company WHERE { ?company :hasStockPrice ?price1 } SEQ { ?company :hasStockPrice ?price2 } "
        "SEQ { ?company :hasStockPrice ?price3 } FILTER (?price2 < ?price1 * 0.7 && ?price3 > ?price2 * 1.05 "
        '&& getDURATION() < "P30D"^^xsd:duration)')
    assert _answers(triples, fell_and_rose) == Counter({(_iri("acme"),): 1})
    # the same within one second: the fall and the rise took two
    assert _answers(triples, fell_and_rose.replace("P30D", "PT1S")) == Counter()
    # (2): a drop by more than half, and the agency that downrated the company before it, if any
    dropped = PREFIXES + (
        "SELECT ?company ?agency WHERE { ?company :downratedby ?agency } OPTIONALSEQ "
        "{ { ?company :hasStockPrice ?price1 } SEQ { ?company :hasStockPrice ?price2 } } "
        "FILTER (?price2 < ?price1 * 0.5)")
    assert _answers(triples, dropped) == Counter({(_iri("acme"), _iri("moody")): 1})
    # beta's agency downrated it after its fall: the fall is reported alone
    fell = dropped.replace("0.5", "0.95")
    assert _answers(triples, fell) == Counter({(_iri("acme"), _iri("moody")): 2, (_iri("beta"), None): 1})
    # EQUALS: two patterns over one occurrence; getSTARTTIME / getENDTIME of a pattern
    same = PREFIXES + ("SELECT ?p (getSTARTTIME() AS ?start) (getENDTIME() AS ?end) (getDURATION() AS ?d) "
                       "WHERE { :acme :hasStockPrice ?p } EQUALS { :acme :hasStockPrice ?p }")
    assert _answers(triples, same) == Counter({
        (_integer(100), f'"1970-01-01T00:00:01.000Z"^^<{XSD}dateTime>', f'"1970-01-01T00:00:01.000Z"^^<{XSD}dateTime>',
         f'"PT0S"^^<{XSD}dayTimeDuration>'): 1,
        (_integer(40), f'"1970-01-01T00:00:02.000Z"^^<{XSD}dateTime>', f'"1970-01-01T00:00:02.000Z"^^<{XSD}dateTime>',
         f'"PT0S"^^<{XSD}dayTimeDuration>'): 1,
        (_integer(60), f'"1970-01-01T00:00:03.000Z"^^<{XSD}dateTime>', f'"1970-01-01T00:00:03.000Z"^^<{XSD}dateTime>',
         f'"PT0S"^^<{XSD}dayTimeDuration>'): 1})
    # EQUALSOPTIONAL: every price, with the rating at the very same time (none)
    rated = PREFIXES + ("SELECT ?c ?p ?a WHERE { ?c :hasStockPrice ?p } EQUALSOPTIONAL { ?c :downratedby ?a }")
    assert sum(_answers(triples, rated).values()) == 5
    assert all(a is None for _, _, a in _answers(triples, rated))


def test_a_registered_event_query_reports_at_each_close(stock_home):
    rows = stock_home.spark.read.format("delta").load(stock_home.path("v__falls")).collect()
    assert sorted((r.company, r.d, r.view_version) for r in rows) == [
        (_iri("acme"), f'"PT1S"^^<{XSD}dayTimeDuration>', 1)]


def test_event_syntax_errors_name_the_operator(stock_home, monkeypatch):
    triples = view_triples(stock_home, "v", 10000, "driver", monkeypatch)
    with pytest.raises(SparqlError, match="SEQ stands between two group patterns"):
        triples.answer(PREFIXES + "SELECT ?c WHERE { ?c :hasStockPrice ?p SEQ ?c :downratedby ?a }")
    with pytest.raises(SparqlError, match="property path"):
        triples.answer(PREFIXES + "SELECT ?c WHERE { ?c :hasStockPrice+ ?p } SEQ { ?c :downratedby ?a }")
    # a keyword in a string or an IRI is not an operator
    text, timed = translate(PREFIXES + 'PREFIX seq: <urn:s:>\nSELECT ?seq WHERE { ?seq :says "{a} SEQ {b}" . '
                                       '?seq <urn:x:SEQ> seq:equals . # a comment: { } SEQ { }\n}')
    assert not timed and "GRAPH" not in text


@pytest.mark.parametrize("backend", ["driver", pytest.param("spark", marks=pytest.mark.slow)])
def test_an_item_a_repair_removed_is_no_occurrence_though_its_triple_came_again(spark, cli, tmp_path, monkeypatch,
                                                                                 backend):
    from tests.cli.helpers import ex
    from tests.cli.test_repair_view import REACTOR, _view

    cli("view", "create", str(_view(tmp_path, "v", REACTOR, width="90s", slide="30s", start=-60_000)))
    status = ex("temperatureStatus")
    events = [(ex("reactor"), status, ex("low"), 10_000),   # loses to high at close 60 s
              (ex("reactor"), status, ex("high"), 40_000),  # loses to low's return at close 90 s
              (ex("reactor"), status, ex("low"), 70_000)]
    cli("ingest", "v", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "90000")
    home = Lakehouse(str(cli.home), spark=spark).home
    triples = view_triples(home, "v", 90_000, backend, monkeypatch)
    reactor = ex("reactor")
    query = PREFIXES + (f"SELECT ?s (getSTARTTIME() AS ?t) WHERE {{ {{ {reactor} {status} ?s }} "
                        f"EQUALS {{ {reactor} {status} ?s }} }}")
    assert _answers(triples, query) == Counter({(ex("low"), f'"1970-01-01T00:01:10.000Z"^^<{XSD}dateTime>'): 1})
