"""The W3C SPARQL 1.1 query test suite through `reasonlake query`: every evaluation test of
the areas ``w3c.AREAS`` answers as the suite says, on the driver (default suite) and on
Spark, and every syntax test is parsed or refused as it says. On Spark, every third test of
each area (and those Spark once failed alone) runs in the slow suite CI runs, in about two
minutes; the rest in the long tier (``.ci/long``): the whole suite takes six and a half.

Each test's data is one view's content at one close: the data files are ingested into one
stream, each test's at its own second, and the view (no ontology, so no rule is active)
slides over a tumbling one-second window, so the close after a test's second holds exactly
that test's data (``_Suite``). Every query runs through the command line
(``reasonlake query VIEW FILE.rq --close C --format json``) and its JSON answer is read back by
rdflib's parser of the W3C results format, so the results writer is held to the suite too.
RDF/XML data (six files of ``subquery/``) is written as N-Triples first: ingest reads the
stream formats (.nt, .ttl, .nq, .trig, .jsonl, .csv), not RDF/XML.

A test that cannot pass sits in ``EXPECTED_FAILURES`` with its reason, as a strict
expected failure: a fixed one fails the run until it leaves the list.
"""
from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
from rdflib import Graph, Variable
from rdflib.query import Result

from tests.query import w3c

# reasons a view cannot hold what the test reads: a view is one default graph
_NAMED_GRAPHS = "reads named graphs (GRAPH, FROM NAMED): a view holds one default graph"
EXPECTED_FAILURES: dict[str, str] = {}

_SECOND = 1000  # each test's data at its own second; the close after it holds only that data


def _cases(kind: str) -> list:
    if not w3c.available():
        return []
    return [c for c in w3c.cases() if (c.kind == "eval") == (kind == "eval")]


def _marks(case) -> list:
    reason = _NAMED_GRAPHS if case.graph_data else EXPECTED_FAILURES.get(case.id)
    return [pytest.mark.xfail(reason=reason, strict=True)] if reason else []


# Spark failed these where the driver passed: they stay in every Spark run
_SPARK_ONCE_FAILED = {"aggregates/agg-group-fn"}


def _spark_marks(case, rank: int) -> list:
    """The slow suite's share: every third test of an area, and the ones in _SPARK_ONCE_FAILED."""
    every_run = rank % 3 == 0 or case.id in _SPARK_ONCE_FAILED
    return _marks(case) + ([] if every_run else [pytest.mark.long])


def _ranked(cases: list) -> list[tuple]:
    seen: dict[str, int] = {}
    out = []
    for c in cases:
        out.append((c, seen.get(c.area, 0)))
        seen[c.area] = seen.get(c.area, 0) + 1
    return out


EVALUATION = [pytest.param(c, id=c.id, marks=_marks(c)) for c in _cases("eval")]
EVALUATION_ON_SPARK = [pytest.param(c, id=c.id, marks=_spark_marks(c, k)) for c, k in _ranked(_cases("eval"))]
SYNTAX = [pytest.param(c, id=c.id) for c in _cases("syntax")]
pytestmark = pytest.mark.skipif(not w3c.available(), reason=f"{w3c.SUITE} is absent (the W3C suite needs "
                                "../shared/data beside the clone)")


class _Cli:
    """`reasonlake --home HOME ...` in this process, for a fixture that outlives one test."""

    def __init__(self, home: Path):
        self.home = home

    def __call__(self, *args: str, expect: int = 0) -> str:
        from reasonlake.cli import main

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["--home", str(self.home), *args])
        assert code == expect, f"exit {code} (wanted {expect})\nstdout:\n{out.getvalue()}\nstderr:\n{err.getvalue()}"
        self.last_err = err.getvalue()
        return out.getvalue()


class _Suite:
    """One view holding every evaluation test's data, each at its own close."""

    def __init__(self, root: Path, initialized_home: Path):
        import shutil

        shutil.copytree(initialized_home, root / "lake")
        self.cli = _Cli(root / "lake")
        (root / "w3c.ttl").write_text("")
        (root / "w3c.yaml").write_text("name: w3c\nstream: w3c\nontology: [w3c.ttl]\nprofile: rdfs\n"
                                       "window: {width: 1s, slide: 1s, start: 0}\n")
        self.cli("view", "create", str(root / "w3c.yaml"))
        self.close: dict[tuple, int] = {}
        slot = 0
        for case in _cases("eval"):
            if case.graph_data or case.data in self.close:
                continue
            slot += 1
            at = slot * _SECOND - _SECOND // 2
            for path in case.data:
                self.cli("ingest", "w3c", str(_ingestible(path, root)), "--ts", str(at), "--allow-duplicate-file",
                         "--quiet")
            self.close[case.data] = slot * _SECOND
        self.close[()] = (slot + 1) * _SECOND  # no data: the close after the last, which holds none
        self.cli("slide", "w3c", "--until", str(self.close[()]), "--quiet")

    def answer(self, case) -> str:
        return self.cli("query", "w3c", str(case.query), "--close", str(self.close[case.data]), "--format", "json")


def _ingestible(path: Path, root: Path) -> Path:
    if path.suffix != ".rdf":
        return path
    target = root / "rdfxml" / f"{path.parent.name}-{path.stem}.nt"
    target.parent.mkdir(exist_ok=True)
    target.write_text(Graph().parse(path, format="xml").serialize(format="nt"))
    return target


@pytest.fixture(scope="module")
def suite(spark, initialized_home, tmp_path_factory):
    return _Suite(tmp_path_factory.mktemp("w3c"), initialized_home)


def _check(suite: _Suite, case) -> None:
    compare(case, suite.answer(case))


def compare(case, out: str) -> None:
    """Our answer ``out`` (the JSON results format, or N-Triples for CONSTRUCT) against the
    case's expected result."""
    expected = w3c.expected(case)
    if expected.form == "CONSTRUCT":
        ours = Graph().parse(data=out, format="nt")
        assert w3c.isomorphic(ours, expected.graph), f"{case.id}: constructed\n{out}"
        return
    doc = json.loads(out)
    if expected.form == "ASK":
        assert doc.get("boolean") is expected.boolean, f"{case.id}: answered {out}"
        return
    result = Result.parse(io.StringIO(out), format="json")
    variables = expected.variables or [str(v) for v in result.vars]
    ours = [tuple(w3c.key(b.get(Variable(v))) for v in variables) for b in result.bindings]
    theirs = [tuple(w3c.key(r.get(v)) for v in variables) for r in expected.rows]
    if case.result.suffix == ".csv":  # CSV keeps only each term's text
        ours = [tuple(None if t is None else w3c.plain_key(t) for t in row) for row in ours]
    assert w3c.same_rows(ours, theirs), f"{case.id}: ours {sorted(map(str, ours))}\nexpected {sorted(map(str, theirs))}"
    if w3c.ordered(case):
        assert w3c.same_order(ours, theirs, w3c.order_keys(case, variables)), f"{case.id}: out of order"


@pytest.mark.parametrize("case", EVALUATION)
def test_evaluation_on_the_driver(suite, case, monkeypatch):
    monkeypatch.delenv("REASONLAKE_DRIVER_READ_MB", raising=False)
    _check(suite, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", EVALUATION_ON_SPARK)
def test_evaluation_on_spark(suite, case, monkeypatch):
    monkeypatch.setenv("REASONLAKE_DRIVER_READ_MB", "0")  # the view does not fit the driver: Spark answers
    _check(suite, case)


@pytest.mark.parametrize("case", SYNTAX)
def test_syntax(case, tmp_path):
    from reasonlake.errors import SparqlError
    from reasonlake.query.parse import algebra

    text = case.query.read_text(encoding="utf-8")
    if case.kind == "positive-syntax":
        algebra(text)
        return
    with pytest.raises(SparqlError) as refused:
        algebra(text)
    assert "\n" not in str(refused.value)  # one line, as the command line prints it (RL195)


def test_the_suite_reaches_every_area_and_its_score():
    """Every area is read (a manifest the reader misses would shrink the suite silently),
    and the evaluation tests expected to fail are only those whose reason stands."""
    cases = w3c.cases() if w3c.available() else pytest.skip("no suite")
    by_area = {a: [c for c in cases if c.area == a and c.kind == "eval"] for a in w3c.AREAS}
    assert all(by_area.values()), [a for a, c in by_area.items() if not c]
    in_scope = [c for c in cases if c.kind == "eval" and not c.graph_data]
    assert len(in_scope) >= 209
    assert set(EXPECTED_FAILURES) <= {c.id for c in in_scope}
