"""The cases where the two engines that judge the generated queries (``oracles``: rdflib and
Oxigraph) answer differently, each decided by the W3C SPARQL 1.1 text and kept here with
its answer: reasonlake gives that answer, and the engine that departs from it still does
(while it does, ``generated`` leaves the shape out of that engine's comparisons; when it no
longer does, the exclusion can go)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import pyoxigraph
import pytest
import rdflib

from tests.query.oracles import Failed, by_oxigraph, by_rdflib, normal_text
from tests.query.small_graphs import ours

PREFIXES = "@prefix : <http://example.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
QUERY_PREFIXES = "PREFIX : <http://example.org/>\nPREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n"
XSD = "http://www.w3.org/2001/XMLSchema#"


def ex(name: str) -> str:
    return f"<http://example.org/{name}>"


@dataclass(frozen=True)
class Case:
    name: str
    data: str
    query: str
    answer: list[tuple]  # the W3C text's solutions, terms in N-Triples (None: unbound)
    departs: tuple[str, ...]  # the engines that answer otherwise (or raise)
    why: str


CASES = [
    Case("a zero-length path from a constant the graph does not hold", ":a :p :b .",
         "SELECT ?x WHERE { ?x :p* :gone }", [(ex("gone"),)], ("oxigraph",),
         "18.4: eval(Path(X:var, ZeroOrMorePath(P), Y:term)) holds (X, Y), Y held or not"),
    Case("an alternative path keeps each branch's pairs", ":a :p :b . :a :q :b .",
         "SELECT ?x ?y WHERE { ?x :p|:q ?y }", [(ex("a"), ex("b"))] * 2, ("oxigraph",),
         "18.4: eval(Path(X, alt(P,Q), Y)) = Union(eval(Path(X,P,Y)), eval(Path(X,Q,Y))), a multiset"),
    Case("a negated set of IRIs and inverse IRIs over a loop", ":n :r :n .",
         "SELECT ?x ?y WHERE { ?x !(:p|^:p) ?y }", [(ex("n"), ex("n"))] * 2, ("oxigraph", "rdflib"),
         "18.2.2.4: !(:p|^:p) is alt(NPS({:p}), inv(NPS({:p}))): the loop once each way"),
    Case("a literal keeps its lexical form and datatype", ':a :v "4"^^xsd:int , "7.0"^^xsd:decimal .',
         "SELECT (STR(?v) AS ?s) (DATATYPE(?v) AS ?d) WHERE { :a :v ?v }",
         [('"4"', f"<{XSD}int>"), ('"7.0"', f"<{XSD}decimal>")], ("oxigraph",),
         "17.4.2.5 STR: the lexical form; 17.4.2.7 DATATYPE: the datatype IRI (RDF 1.1: as written)"),
    Case("MIN and MAX of IRIs are IRIs", ":a :link :b , :c . :d :link :e .",
         "SELECT (MIN(?y) AS ?lo) (MAX(?y) AS ?hi) WHERE { ?x :link ?y }", [(ex("b"), ex("e"))], ("rdflib",),
         "18.5.1.5-6: Min(S) = S0 and Max(S) = Sn, the terms of the group ordered as ORDER BY orders them"),
    Case("a grouped sub-query of no groups joins nothing", ":a :p :b .",
         "SELECT ?x WHERE { ?x :p ?y . { SELECT ?x (COUNT(*) AS ?n) WHERE { ?x :q ?z } GROUP BY ?x } }", [],
         ("rdflib",), "18.5.1 Group: a group per key of the solutions; no solution, no group"),
    Case("MAX over a group with an unbound value", ":a :k :K ; :v 1 . :b :k :K .",
         "SELECT (MAX(?v) AS ?hi) WHERE { ?s :k :K OPTIONAL { ?s :v ?v } }", [(f'"1"^^<{XSD}integer>',)],
         ("oxigraph",), "18.5.1.6: Max(S) = Sn in ORDER BY's order, where no value comes lowest (15.1)"),
    Case("a zero-or-more path is a set of pairs", ":a :p :a .",
         "SELECT ?y WHERE { :a :p* ?y }", [(ex("a"),)], ("rdflib",),
         "18.4: ZeroOrMorePath's ALP keeps each node once (its visited set)"),
    Case("NOT EXISTS substitutes the row's values into its pattern's FILTER",
         ":adam :c :t4 ; :d :t4 , :t3 . :bob :c :t5 ; :d :t5 .",
         "SELECT ?who WHERE { ?who :c ?post FILTER NOT EXISTS { ?who :d ?older FILTER(?older != ?post) } }",
         [(ex("bob"),)], (),
         "17.4.1.4 and 18.6: exists(P) is evaluated as substitute(P, μ): the inner FILTER reads the row's ?post "
         "(both engines agree; the generated EXISTS patterns hold no FILTER: reasonlake read ?post unbound)"),
    Case("a zero-length path from the empty string", ':a :v "" . :a :next :b .',
         'SELECT ?x WHERE { :a :v ?x . { ?x :next* :b } }', [], ("rdflib",),
         "18.4: eval(Path(X, ZeroOrMorePath(P), Y)) with X bound to \"\" holds only where \"\" reaches :b "
         "(rdflib, joining the group lazily, takes the falsy term for an unbound one, twice; the generator "
         "joins no zero-length path's end)"),
    Case("VALUES rows that repeat, after a sub-query", ":a :next :b ; :size 1 .",
         "SELECT ?x WHERE { ?x :next ?y . { SELECT DISTINCT ?x WHERE { ?x :size ?s } } VALUES ?x { :a :a } }",
         [(ex("a"),)] * 2, ("rdflib",),
         "18.2.4.1 and 18.5: VALUES is a multiset of solutions joined at the group's end (Join: one "
         "solution per compatible pair); rdflib reads a join's right side into a set (evalJoin) "
         "after a sub-query or a UNION: the generator repeats no VALUES row after either where "
         "rdflib judges (the seed 536814012's case 22 on Spark)"),
    Case("an OPTIONAL after a VALUES block", ":a :label 1 . :b :p 2 .",
         "SELECT ?x ?l WHERE { VALUES ?x { :a :b } OPTIONAL { ?x :label ?l } }",
         [(ex("a"), f'"1"^^<{XSD}integer>'), (ex("b"), None)], ("rdflib",),
         "18.2.2.6: the group's elements in order, VALUES joined where it stands, then LeftJoin: :b "
         "stays with ?l unbound (rdflib's evalLeftJoin forgets ?x, which only the block binds, and "
         "finds :a's label for :b; the seed 8's case 151 in test_matches_rdflib)"),
    Case("STR of a blank node", "_:x :p :o .", "SELECT ?o (STR(?s) AS ?t) WHERE { ?s :p ?o }", [(ex("o"), None)], (),
         "17.4.2.5: STR takes a literal or an IRI; of a blank node it is an error, which leaves ?t unbound "
         "(rdflib's own STR gives the label: ``oracles.by_rdflib`` puts SPARQL's in its place, "
         "test_rdflib_alone_gives_a_blank_nodes_label)"),
    # both engines answer; reasonlake keeps to the definition (the generator compares like
    # with like: tests/query/generated.py's "=" and "!=")
    Case("= and != between literals of different types", "",
         'SELECT (("x" = 3) AS ?e) (("cat"@en != 0) AS ?n) WHERE { }', [(None, None)], ("rdflib", "oxigraph"),
         "17.4.1.7 RDFterm-equal: a type error if the arguments are both literals but not the same term"),
]


def _normal(rows) -> Counter:
    return Counter(tuple(normal_text(t) for t in row) for row in rows)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_reasonlake_answers_as_the_w3c_text_says(case):
    found = ours(PREFIXES + case.data, QUERY_PREFIXES + case.query)
    assert _normal(found.elements()) == _normal(case.answer), (case.why, found)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_engine_left_out_there_still_departs_and_the_other_agrees(case):
    data = PREFIXES + case.data
    store = pyoxigraph.Store()
    store.load(data.encode(), pyoxigraph.RdfFormat.TURTLE)
    answers = {"rdflib": by_rdflib(rdflib.Graph().parse(data=data, format="turtle"), QUERY_PREFIXES + case.query),
               "oxigraph": by_oxigraph(store, QUERY_PREFIXES + case.query)}
    for engine, found in answers.items():
        agrees = not isinstance(found, Failed) and found.rows == _normal(case.answer)
        assert agrees != (engine in case.departs), (engine, case.name, found)


def test_rdflib_alone_gives_a_blank_nodes_label():
    # while it does, ``oracles.by_rdflib`` evaluates STR by SPARQL's rule; when it no longer
    # does, that replacement can go
    graph = rdflib.Graph().parse(data=PREFIXES + "_:x :p :o .", format="turtle")
    rows = list(graph.query(QUERY_PREFIXES + "SELECT (STR(?s) AS ?t) WHERE { ?s :p :o }"))
    assert [str(row.t) for row in rows] == [str(next(graph.subjects()))]
