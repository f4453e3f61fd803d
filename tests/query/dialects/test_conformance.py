"""One conformance suite for the query plan's dialects (``reasonlake.query.dialects``): every
method of ``protocol.Frames``, run against the driver's (Polars) and Spark's, each answer
compared with the contract's as a multiset of rows (in order where the method orders)."""
from __future__ import annotations

import inspect
from collections import Counter

import polars as pl
import pytest
from rdflib.plugins.sparql import prepareQuery

from reasonlake.query import aggregates
from reasonlake.query.bound import Bound, QueryBoundError
from reasonlake.query.dialects.polars_frames import PolarsFrames
from reasonlake.query.dialects.protocol import Frames
from reasonlake.query.expressions import Compiler
from reasonlake.query.planner import _filtered

DIALECTS = ["driver", "spark"]
S = pl.String
INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"


@pytest.fixture(params=DIALECTS)
def frames(request) -> Frames:
    if request.param == "driver":
        return PolarsFrames()
    from reasonlake.query.dialects.spark_frames import SparkFrames

    return SparkFrames(request.getfixturevalue("spark"))


def made(frames: Frames, rows: list[tuple], names: list[str], types: dict | None = None):
    schema = {n: (types or {}).get(n, S) for n in names}
    return frames.constant({n: [r[i] for r in rows] for i, n in enumerate(names)}, schema)


def rows(frames: Frames, frame, names: list[str] | None = None) -> Counter:
    out = frames.collect(frame)
    return Counter(out.select(names or sorted(out.columns)).rows())


def ordered(frames: Frames, frame, names: list[str]) -> list[tuple]:
    return frames.collect(frame).select(names).rows()


EDGES = [("a", "b"), ("b", "c"), ("c", "d"), ("x", "y")]


def test_both_dialects_have_every_method_of_the_protocol_with_its_parameters():
    from reasonlake.query.dialects.spark_frames import SparkFrames

    methods = [n for n, v in vars(Frames).items() if inspect.isfunction(v) and not n.startswith("_")]
    assert len(methods) == 28
    for dialect in (PolarsFrames, SparkFrames):
        for name in methods:
            wanted = list(inspect.signature(getattr(Frames, name)).parameters)
            assert list(inspect.signature(getattr(dialect, name)).parameters) == wanted, (dialect.__name__, name)


def test_a_dialect_is_a_frames(frames):
    assert isinstance(frames, Frames)
    assert frames.name in ("driver", "spark")
    assert isinstance(frames.within(Bound(rows=7, mb=1.0)), type(frames))
    assert frames.within(Bound(rows=7, mb=1.0)).bound.rows == 7


def test_source_names_the_triples_and_their_times(frames):
    triples = pl.DataFrame({"subject": ["<s>"], "predicate": ["<p>"], "object": ["<o>"],
                            "$start": [1], "$end": [2]})
    given = triples if frames.name == "driver" else frames.spark.createDataFrame(triples.to_pandas())
    assert sorted(frames.names(frames.source(given.drop("$start", "$end")))) == ["object", "predicate", "subject"]
    timed = frames.source(given, timed=True)
    assert rows(frames, timed, ["subject", "$start", "$end"]) == Counter({("<s>", 1, 2): 1})


def test_constant_and_names(frames):
    f = made(frames, [("1", True)], ["v", "$flag"], {"$flag": pl.Boolean})
    assert frames.names(f) == ["v", "$flag"]
    assert rows(frames, f, ["v", "$flag"]) == Counter({("1", True): 1})
    assert rows(frames, made(frames, [], ["v"])) == Counter()


def test_select_renames_and_makes_unbound_columns(frames):
    f = frames.select(made(frames, EDGES, ["s", "o"]), {"from": "s", "none": None})
    assert sorted(frames.names(f)) == ["from", "none"]
    assert rows(frames, f, ["from", "none"]) == Counter({("a", None): 1, ("b", None): 1, ("c", None): 1,
                                                        ("x", None): 1})


def test_flag_copied_and_fill_false(frames):
    f = frames.flag(made(frames, [("a", None), ("b", "c")], ["s", "o"]), "$f")
    f = frames.copied(frames.copied(f, "s2", "o"), "s3", None)
    assert rows(frames, f, ["s", "$f", "s2", "s3"]) == Counter({("a", True, None, None): 1, ("b", True, "c", None): 1})
    g = made(frames, [("a", None), ("b", True)], ["s", "$m"], {"$m": pl.Boolean})
    assert rows(frames, frames.fill_false(g, "$m"), ["s", "$m"]) == Counter({("a", False): 1, ("b", True): 1})


def test_where_equal_to_a_constant_or_a_column_and_where_not_in(frames):
    f = made(frames, [("a", "a"), ("a", "b"), ("b", "b"), ("c", None)], ["s", "o"])
    assert rows(frames, frames.where_equal(f, [("s", "a", False)]), ["s", "o"]) == Counter({("a", "a"): 1, ("a", "b"): 1})
    assert rows(frames, frames.where_equal(f, [("s", "o", True)]), ["s", "o"]) == Counter({("a", "a"): 1, ("b", "b"): 1})
    assert rows(frames, frames.where_equal(f, []), ["s", "o"]) == Counter(
        {("a", "a"): 1, ("a", "b"): 1, ("b", "b"): 1, ("c", None): 1})
    assert rows(frames, frames.where_not_in(f, "s", ["a", "c"]), ["s", "o"]) == Counter({("b", "b"): 1})


def test_joins_inner_cross_anti_and_left_keep_multiplicities(frames):
    left = made(frames, [("a", "1"), ("a", "1"), ("b", "2"), ("z", "9")], ["s", "n"])
    right = made(frames, [("a", "x"), ("b", "y"), ("b", "w")], ["s", "m"])
    assert rows(frames, frames.join(left, right, ["s"]), ["s", "n", "m"]) == Counter(
        {("a", "1", "x"): 2, ("b", "2", "y"): 1, ("b", "2", "w"): 1})
    assert rows(frames, frames.join(left, right, ["s"], "anti"), ["s", "n"]) == Counter({("z", "9"): 1})
    assert rows(frames, frames.join(left, right, ["s"], "left"), ["s", "n", "m"]) == Counter(
        {("a", "1", "x"): 2, ("b", "2", "y"): 1, ("b", "2", "w"): 1, ("z", "9", None): 1})
    other = made(frames, [("p",), ("q",)], ["t"])
    assert sum(rows(frames, frames.join(left, other, [])).values()) == 8


def test_compatible_rows_merge_sharing_and_not(frames):
    f = made(frames, [("a", "a"), ("a", None), (None, "b"), ("a", "c"), (None, None)], ["v", "$r"])
    assert rows(frames, frames.compatible(f, [("v", "$r")]), ["v"]) == Counter({("a",): 2, ("b",): 1, (None,): 1})
    assert rows(frames, frames.compatible(f, [("v", "$r")], sharing=True), ["v"]) == Counter({("a",): 1})
    kept = frames.compatible(f, [("v", "$r")], merge=False)
    assert rows(frames, kept, ["v", "$r"]) == Counter({("a", "a"): 1, ("a", None): 1, (None, "b"): 1, (None, None): 1})


def test_concat_unbinds_missing_columns_and_unique_keeps_each_row_once(frames):
    f = frames.concat([made(frames, [("a", "1")], ["s", "n"]), made(frames, [("a", "2"), ("a", "2")], ["s", "m"])])
    assert rows(frames, f, ["s", "n", "m"]) == Counter({("a", "1", None): 1, ("a", None, "2"): 2})
    assert rows(frames, frames.unique(f), ["s", "n", "m"]) == Counter({("a", "1", None): 1, ("a", None, "2"): 1})


def test_numbered_rows_keep_their_numbers_when_read_again(frames):
    f = frames.numbered(made(frames, [("a",), ("a",), ("b",)], ["s"]), "$row")
    first, again = frames.collect(f), frames.collect(f)
    assert sorted(first["$row"].to_list()) == sorted(set(first["$row"].to_list()))
    assert Counter(first.select("$row", "s").rows()) == Counter(again.select("$row", "s").rows())
    assert Counter(first["s"].to_list()) == Counter({"a": 2, "b": 1})


def test_kept_held_and_seed_keep_the_rows(frames):
    f = made(frames, EDGES, ["s", "o"])
    expected = Counter(EDGES)
    assert rows(frames, frames.kept(f), ["s", "o"]) == expected
    assert rows(frames, frames.kept_for_rounds(f, True), ["s", "o"]) == expected
    held, counted = frames.held(f)
    assert isinstance(counted, bool) and rows(frames, held, ["s", "o"]) == expected
    triples = made(frames, [(str(i), "p", "o") for i in range(64)], ["subject", "predicate", "object"])
    few = frames.seed(made(frames, [("a", "1"), ("a", "2")], ["s", "n"]), ["s"], triples)
    assert few is not None and rows(frames, few, ["s"]) == Counter({("a",): 1})
    many = made(frames, [(str(i % 20), "n") for i in range(40)], ["s", "n"])
    seeded = frames.seed(many, ["s"], triples)  # the driver declines a seed this large; Spark seeds all
    assert seeded is None or rows(frames, seeded, ["s"]) == Counter({(str(i),): 1 for i in range(20)})
    if frames.name == "driver":
        assert seeded is None


def test_rows_and_filtered_apply_the_compiled_polars_step(frames):
    f = made(frames, [("<a>", '"1"'), ("<b>", '"2"'), ("<c>", None)], ["s", "o"])
    doubled = frames.rows(f, lambda lf: lf.with_columns((pl.col("s") + pl.col("s")).alias("ss")))
    assert rows(frames, doubled, ["ss"]) == Counter({("<a><a>",): 1, ("<b><b>",): 1, ("<c><c>",): 1})
    node = prepareQuery('SELECT * WHERE { ?s <p> ?o FILTER(?o = "2" || !BOUND(?o)) }').algebra
    while node.name != "Filter":
        node = node.p
    compiler = Compiler(["s", "o"])
    truth = compiler.truth(node.expr)
    step = _filtered(list(compiler.prepared), truth, compiler.names)
    assert rows(frames, frames.filtered(f, step, node.expr, ["s", "o"], {}), ["s"]) == Counter({("<b>",): 1, ("<c>",): 1})


def test_sort_puts_unbound_first_and_slice_takes_rows_in_that_order(frames):
    f = made(frames, [("b",), ("a",), (None,), ("c",)], ["s"])
    def keyed(lf):
        return lf.with_columns(pl.col("s").alias("$k"))
    up = frames.sort(f, keyed, ["$k"], [False])
    assert frames.names(up) == ["s"]
    assert ordered(frames, up, ["s"]) == [(None,), ("a",), ("b",), ("c",)]
    down = frames.sort(f, keyed, ["$k"], [True])
    assert ordered(frames, frames.slice(down, 1, 2), ["s"]) == [("c",), ("b",)]  # unbound first in either direction
    assert ordered(frames, frames.slice(up, 2, None), ["s"]) == [("b",), ("c",)]


def test_group_runs_the_compiled_aggregation_per_group_and_counted_groups_agree(frames):
    f = made(frames, [("a", "1"), ("a", "2"), ("a", "2"), ("b", "3")], ["s", "o"])
    def per_group(lf):
        return lf.group_by("s").agg(pl.len().cast(pl.String).alias("n"))
    assert rows(frames, frames.group(f, ["s"], per_group), ["s", "n"]) == Counter({("a", "3"): 1, ("b", "1"): 1})
    node = prepareQuery("SELECT ?s (COUNT(DISTINCT ?o) AS ?n) WHERE { ?s <p> ?o } GROUP BY ?s").algebra
    while node.name != "AggregateJoin":
        node = node.p
    counts = aggregates.counts_only(node.p.expr, node.A, ["s", "o"])
    assert counts is not None
    out = frames.counted_groups(f, *counts, [str(a.res) for a in node.A])
    if out is not None:  # a dialect may decline; where it counts, it counts as SPARQL does
        got = frames.collect(out)
        sample, count = [str(a.res) for a in node.A][1], [str(a.res) for a in node.A][0]
        assert Counter(got.select(sample, count).rows()) == Counter(
            {("a", f'"2"^^{INTEGER}'): 1, ("b", f'"1"^^{INTEGER}'): 1})


def test_collect_stops_one_row_past_the_bound_and_any_row(frames):
    f = made(frames, EDGES, ["s", "o"])
    with pytest.raises(QueryBoundError):
        frames.within(Bound(rows=3, mb=100.0)).collect(f)
    assert frames.within(Bound(rows=4, mb=100.0)).collect(f).height == 4
    assert frames.any_row(f) and not frames.any_row(frames.where_equal(f, [("s", "nowhere", False)]))


def test_fixpoint_reaches_each_pair_once(frames):
    edges = made(frames, EDGES + [("d", "b")], ["s", "o"])
    start = frames.select(edges, {"s": "s", "o": "o"})
    def step(newest):
        joined = frames.join(frames.select(newest, {"s": "s", "m": "o"}), frames.select(edges, {"m": "s", "o": "o"}), ["m"])
        return frames.select(joined, {"s": "s", "o": "o"})
    closed = rows(frames, frames.fixpoint(start, step, ["s", "o"]), ["s", "o"])
    cycle = {"b", "c", "d"}
    expected = {("a", t) for t in cycle} | {(u, t) for u in cycle for t in cycle} | {("x", "y")}
    assert closed == Counter({pair: 1 for pair in expected})
