"""Property paths with constant ends (SPARQL 1.1, 18.4): a zero-length path gives its
constant end itself, held by the graph or not; a path between two constants answers one
solution that binds nothing; the inverse of a repeated path searches from the constant at
its far end; a negated property set may hold inverse IRIs. Each case answered in the
driver, with the W3C suite's own cases where ``../shared/data`` holds them."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import rdflib
from rdflib.query import Result

from reasonlake.query import run
from tests.query.small_graphs import ours, triples_of

P = "PREFIX : <http://example.org/>\n"
SUITE = Path(__file__).resolve().parents[3] / "shared" / "data" / "w3c-sparql11" / "property-path"
# :p symmetric, as a view that reasons over owl:SymmetricProperty holds it; :q a chain
GRAPH = """@prefix : <http://example.org/> .
:a :p :c . :c :p :a . :b :p :b .
:q1 :q :q2 . :q2 :q :q3 . :q3 :q :q4 .
"""


def ex(name: str) -> str:
    return f"<http://example.org/{name}>"


def _column(query: str) -> Counter:
    return Counter(row[0] for row in ours(GRAPH, P + query))


def _solutions(turtle: str, query: str) -> Counter:
    """The answer's solutions over its variables alone (a solution of none is ``()``)."""
    answer = run(triples_of(rdflib.Graph().parse(data=turtle, format="turtle")), query)
    return Counter(tuple(row[v] for v in answer.variables) for row in answer.frame.iter_rows(named=True))


@pytest.mark.parametrize("query, expected", [
    ("SELECT ?x WHERE { ?x :p* :c }", ["a", "c"]),
    ("SELECT ?x WHERE { :c :p* ?x }", ["c", "a"]),
    ("SELECT ?x WHERE { ?x ^:p* :c }", ["a", "c"]),
    ("SELECT ?x WHERE { :c ^:p* ?x }", ["c", "a"]),
    ("SELECT ?x WHERE { ?x :p? :c }", ["a", "c"]),
    ("SELECT ?x WHERE { ?x :q* :q3 }", ["q1", "q2", "q3"]),
    ("SELECT ?x WHERE { :q2 :q* ?x }", ["q2", "q3", "q4"]),
    # a constant the graph does not hold: the zero-length path still gives it (18.4's
    # ZeroLengthPath: eval(Path(X:term, ZeroLengthPath, Y:var)) = { { (Y, X) } })
    ("SELECT ?x WHERE { ?x :p* :gone }", ["gone"]),
    ("SELECT ?x WHERE { :gone :p* ?x }", ["gone"]),
    ("SELECT ?x WHERE { ?x ^:p? :gone }", ["gone"]),
    ("SELECT ?x WHERE { ?x :p+ :gone }", []),
])
def test_a_zero_length_path_gives_its_constant_end(query, expected):
    assert _column(query) == Counter(ex(n) for n in expected)


@pytest.mark.parametrize("query, expected", [
    ("ASK { :gone :p* :gone }", True),
    ("ASK { :gone :p* :a }", False),
    ("ASK { :a :p* :a }", True),
    ("ASK { :q1 (:q)* :q4 }", True),
    ("ASK { :q4 (:q)* :q1 }", False),
])
def test_a_path_between_two_constants(query, expected):
    graph = rdflib.Graph().parse(data=GRAPH, format="turtle")
    assert run(triples_of(graph), P + query).boolean is expected


@pytest.mark.parametrize("query, expected", [
    ("SELECT * WHERE { :q1 (:q)* :q4 }", 1),  # the W3C suite's pp36, on a chain
    ("SELECT * WHERE { :q1 :q+ :q3 }", 1),
    ("SELECT * WHERE { :q4 :q* :q1 }", 0),
    ("SELECT * WHERE { { :q1 :q :q2 } UNION { :gone :p* :gone } }", 2),
])
def test_a_path_between_two_constants_answers_solutions_that_bind_nothing(query, expected):
    found = _solutions(GRAPH, P + query)
    assert found == (Counter({(): expected}) if expected else Counter())


@pytest.mark.parametrize("query, expected", [
    # ^(q+) from a constant: the pairs of q+ searched from the constant at ^'s far end
    ("SELECT ?x WHERE { ?x ^(:q+) :q1 }", ["q2", "q3", "q4"]),
    ("SELECT ?x WHERE { :q4 ^(:q+) ?x }", ["q1", "q2", "q3"]),
    ("SELECT ?x WHERE { ?x ^(:q*) :q2 }", ["q2", "q3", "q4"]),
    ("SELECT ?x WHERE { :q3 ^(:q*) ?x }", ["q3", "q2", "q1"]),
    ("SELECT ?x WHERE { :q4 ^(^(:q+)) ?x }", []),
    ("SELECT ?x WHERE { :q2 ^(^(:q+)) ?x }", ["q3", "q4"]),
])
def test_the_inverse_of_a_repeated_path_searches_from_its_far_end(query, expected):
    assert _column(query) == Counter(ex(n) for n in expected)


@pytest.mark.parametrize("path, expected", [
    # the triples of no listed predicate, each read backwards (18.2.2.4: ^NPS(...))
    ("!^:p", [("q2", "q1"), ("q3", "q2"), ("q4", "q3")]),
    # NPS(:p) | ^NPS(:q): forwards the triples that are not :p, backwards those not :q
    ("!(:p|^:q)", [("q1", "q2"), ("q2", "q3"), ("q3", "q4"), ("c", "a"), ("a", "c"), ("b", "b")]),
    ("!(^:p|^:q)", []),
])
def test_a_negated_property_set_with_inverse_iris(path, expected):
    found = ours(GRAPH, P + f"SELECT ?x ?y WHERE {{ ?x {path} ?y }}")
    assert found == Counter((ex(x), ex(y)) for x, y in expected)


def test_a_negated_inverse_rdf_type():
    graph = GRAPH + ":t a :Kind .\n"
    found = ours(graph, P + "SELECT ?x ?y WHERE { ?x !^a ?y . FILTER(?x = :Kind || ?y = :t) }")
    assert found == Counter()  # the type triple read backwards is the one left out
    found = ours(graph, P + "SELECT ?x WHERE { :q2 !^a ?x }")
    assert found == Counter({(ex("q1"),): 1})


@pytest.mark.skipif(not SUITE.is_dir(), reason=f"the W3C SPARQL suite is not at {SUITE}")
@pytest.mark.parametrize("name, data", [("pp36", "clique3"), ("nps_inverse", "nps_inverse"),
                                        ("nps_direct_and_inverse", "nps_direct_and_inverse"),
                                        ("nps_a_inverse", "nps_a_inverse")])
def test_the_w3c_suites_cases(name, data):
    query = (SUITE / f"{name}.rq").read_text()
    with open(SUITE / f"{name}.srx", "rb") as source:
        result = Result.parse(source, format="xml")
    variables = [str(v) for v in result.vars]
    expected = Counter(tuple(None if b.get(rdflib.Variable(v)) is None else b[rdflib.Variable(v)].n3()
                             for v in variables) for b in result.bindings)
    found = _solutions((SUITE / f"{data}.ttl").read_text(), query)
    assert found == expected, (name, found, expected)


def test_a_zero_length_path_gives_its_constant_end_on_spark(spark):
    """The same on Spark's dialect, which a view too large for the driver answers with."""
    from tests.query.small_graphs import on_spark

    for query, expected in [("SELECT ?x WHERE { ?x :p* :c }", ["a", "c"]),
                            ("SELECT ?x WHERE { :c ^:p* ?x }", ["c", "a"]),
                            ("SELECT ?x WHERE { ?x :p* :gone }", ["gone"]),
                            ("SELECT ?x WHERE { ?x ^(:q+) :q1 }", ["q2", "q3", "q4"])]:
        assert on_spark(spark, GRAPH, P + query) == Counter((ex(n),) for n in expected), query
