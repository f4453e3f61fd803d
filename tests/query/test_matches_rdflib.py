"""The compiled queries answer what SPARQL engines answer, as multisets of solutions, over
generated graphs and queries (no Spark): rdflib's own engine and Oxigraph's, each where it
follows SPARQL 1.1 (``generated``'s notes), both where both do, and the two must then agree
(a disagreement is decided by the W3C text and kept in ``test_where_the_oracles_disagree``).
The queries reach every shape ``shapes`` lists with a non-empty answer, or the guard fails
(after a quarter of the cases, the generator draws the shapes none has reached yet first).
``REASONLAKE_PROPERTY_SEED`` picks the cases (the suite's default seed; a failure names it)."""
from __future__ import annotations

import functools
import os
import random
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass

import polars as pl
import pytest
from rdflib.util import from_n3

from reasonlake.query import parse, run
from reasonlake.query.terms import constant
from tests.query import generated, shapes
from tests.query.oracles import Failed, Found, by_oxigraph, by_rdflib, normal, oxigraph_store

__all__ = ["normal"]  # read by other suites (test_csrbench)
QUERIES = 240


def _seed() -> int:
    # the same variable and default as the other property suites (tests/engine/packed.py)
    return int(os.environ.get("REASONLAKE_PROPERTY_SEED", "20261125"))


def ours(frame: pl.DataFrame, variables: list[str]) -> Counter:
    return Counter(tuple(normal(None if t is None else from_n3(t)) for t in row)
                   for row in frame.select(variables).rows())


def _ours_found(answer) -> Found:
    if answer.form == "ASK":
        return Found("ASK", boolean=bool(answer.boolean))
    return Found("SELECT", tuple(answer.variables), ours(answer.frame, answer.variables))


def _frame(triples) -> pl.DataFrame:
    return pl.DataFrame({"subject": [constant(s) for s, _, _ in triples],
                         "predicate": [constant(p) for _, p, _ in triples],
                         "object": [constant(o) for _, _, o in triples]},
                        schema={c: pl.String for c in ("subject", "predicate", "object")})


# -- comparing answers --------------------------------------------------------------------------
def differs(mine: Found, theirs: Found, engine: str, as_set: bool = False, concatenated=None,
            names=("ours", None)) -> str | None:
    """None when the two answers are the same; else what differs. ``engine``: the one that
    answered ``theirs`` (rdflib's answers lack the solutions that bind nothing); ``as_set``:
    compared as sets of solutions; ``concatenated``: GROUP_CONCAT's variables (separator),
    whose values are compared as multisets (their order is open)."""
    first, second = names[0], names[1] or engine
    if mine.form == "ASK" or theirs.form == "ASK":
        return None if mine.boolean == theirs.boolean else f"ASK: {first} {mine.boolean}, {second} {theirs.boolean}"
    a, b = (_comparable(f, engine, as_set, concatenated or {}) for f in (mine, theirs))
    if a == b:
        return None
    return (f"variables {list(mine.variables)}\nonly {first}: {sorted((a - b).items(), key=str)[:8]}\n"
            f"only {second}: {sorted((b - a).items(), key=str)[:8]}")


def _comparable(found: Found, engine: str, as_set: bool, concatenated: dict) -> Counter:
    rows = found.rows
    if concatenated:
        at = {i: concatenated[v] for i, v in enumerate(found.variables) if v in concatenated}
        rows = Counter({tuple(_parts(t, at[i]) if i in at else t for i, t in enumerate(row)): n
                        for row, n in rows.items()})
    if engine == "rdflib":
        # rdflib leaves out a solution that binds none of the selected variables (SPARQL keeps it)
        rows = Counter({row: n for row, n in rows.items() if any(t is not None for t in row)})
    return Counter(set(rows)) if as_set else rows


def _parts(term, separator: str):
    """A GROUP_CONCAT's string as the multiset of the values it joined."""
    if term is None or term[0] != "literal":
        return term
    return ("joined", tuple(sorted(term[1].split(separator))) if term[1] else ())


def compare_answers(graph, query: str, answer, as_set: bool = False) -> str | None:
    """None when ``answer()`` (ours) is what rdflib answers over ``graph``; else what differs.
    rdflib raising is not compared ("SKIP ..."). The other suites' comparison (over a view
    and rdflib's graph of its export), of ``generated.Query(rng)``'s queries."""
    expected = by_rdflib(graph, query)
    if isinstance(expected, Failed):  # rdflib's own failure (see generated's notes): not a case
        return f"SKIP {expected.error.split(':')[0]}"
    mine = _ours_found(answer())
    return differs(mine, expected.over(mine.variables), "rdflib", as_set)


def compare(triples, query: str, as_set: bool = False, answer=run) -> str | None:
    """``compare_answers`` over generated triples, answered over them as a Polars frame."""
    frame = _frame(triples)
    return compare_answers(generated.rdflib_graph(triples), query, lambda: answer(frame, query), as_set)


@dataclass
class Judged:
    """A generated case compared: the engines that judged it (none: not compared, each one
    raised or departs from SPARQL on its shapes), and our answer."""

    engines: tuple[str, ...]
    mine: Found | None
    skipped: str = ""


def judge(triples, query: str, drawn: generated.Query, answer=run, store=None) -> Judged:
    """Our answer against each engine that judges ``drawn`` and did not raise; where both
    do, they must agree. A difference fails, naming the seed."""
    store = store if store is not None else oxigraph_store(triples)
    engines = {}
    if drawn.rdflib_ok:
        engines["rdflib"] = by_rdflib(generated.rdflib_graph(triples), query)
    if drawn.oxigraph_ok:
        engines["oxigraph"] = by_oxigraph(store, query)
    answered = {name: found for name, found in engines.items() if isinstance(found, Found)}
    if not answered:
        return Judged((), None, "; ".join(f.error.split(":")[0] for f in engines.values()) or "neither judges")
    found = answer(_frame(triples), query)
    mine = _ours_found(found)
    shown = _graph_text(triples)
    for name, theirs in answered.items():
        # the columns in our order (a SELECT * may list them otherwise)
        answered[name] = theirs = theirs.over(mine.variables)
        as_set = drawn.as_set_only or (drawn.rdflib_as_set if name == "rdflib" else drawn.oxigraph_as_set)
        found_diff = differs(mine, theirs, name, as_set, drawn.concatenated)
        assert found_diff is None, (f"(REASONLAKE_PROPERTY_SEED={_seed()}) differs from {name}:\n{query}\n"
                                    f"{found_diff}\ngraph:\n{shown}")
    if len(answered) == 2:
        as_set = drawn.as_set or drawn.oxigraph_as_set
        between = differs(answered["rdflib"], answered["oxigraph"], "rdflib", as_set, drawn.concatenated,
                          ("rdflib", "oxigraph"))
        assert between is None, (f"(REASONLAKE_PROPERTY_SEED={_seed()}) rdflib and Oxigraph disagree (decide by "
                                 f"the W3C text, keep it in test_where_the_oracles_disagree):\n{query}\n{between}\n"
                                 f"graph:\n{shown}")
    return Judged(tuple(answered), mine)


def _graph_text(triples) -> str:
    return "\n".join(f"{constant(s)} {constant(p)} {constant(o)} ." for s, p, o in triples)


@contextmanager
def _parsed_once():
    """Each query parsed once for ours and the coverage (rdflib's parser: 0.1 s a query)."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(parse, "algebra", functools.lru_cache(maxsize=4)(parse.algebra))
        yield


def generated_cases(seed: int, count: int, answer=run, tally: shapes.Tally | None = None) -> int:
    """``count`` generated graphs and queries judged (``judge``); the number compared
    (at least nine in ten must be), the shapes each reached counted in ``tally``."""
    with _parsed_once():
        return _generated_cases(seed, count, answer, tally)


def _generated_cases(seed: int, count: int, answer, tally: shapes.Tally | None) -> int:
    rng = random.Random(seed)
    tally = tally if tally is not None else shapes.Tally()  # the shapes still wanted steer the draws
    compared, skipped = 0, Counter()
    for case in range(count):
        triples = generated.case_graph(rng, case)
        store = oxigraph_store(triples)
        # after a quarter of the cases, the shapes none has reached yet are drawn first
        wanted = tally.missing() if case >= count // 4 else ()
        drawn = generated.Query(rng, triples, case, store=store, wanted=wanted)
        query = drawn.query()
        try:
            judged = judge(triples, query, drawn, answer, store)
        except AssertionError as failure:
            raise AssertionError(f"case {case} {failure}") from None
        if not judged.engines:
            skipped[judged.skipped] += 1
            continue
        compared += 1
        tally.judged.update(judged.engines + (("both",) if len(judged.engines) == 2 else ()))
        tally.add(shapes.reached(query, drawn, judged.mine, triples, store))
    assert compared >= count * 0.9, f"only {compared} of {count} compared; not judged: {dict(skipped)}"
    return compared


@pytest.fixture(scope="module")
def tally() -> shapes.Tally:
    """The shapes the suite's cases reached (every case compared, the guard reads them)."""
    found = shapes.Tally()
    generated_cases(_seed(), QUERIES, tally=found)
    return found


def test_generated_queries_match_both_engines(tally):
    # each case matched every engine that judged it (the fixture fails on the first that
    # did not); each engine judged a quarter of the cases or more, both (agreeing) some
    judged = tally.judged
    assert min(judged["rdflib"], judged["oxigraph"]) >= QUERIES // 4 and judged["both"] >= QUERIES // 16, \
        dict(judged)


def test_generated_queries_reach_every_shape_with_an_answer(tally):
    missing = tally.missing()
    assert not missing, (f"(REASONLAKE_PROPERTY_SEED={_seed()}) no generated query reached these shapes with a "
                         f"non-empty answer: {missing}")
