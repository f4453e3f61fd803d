"""Spark's dialect of the query plan (``reasonlake.query.dialects.polars_frames`` is the driver's):
multisets of solutions as Spark DataFrames, for a view the driver should not hold, a
cluster, Spark Connect (decision 0045).

Joins, unions, MINUS, DISTINCT, ORDER BY, LIMIT/OFFSET, GROUP BY's shuffle and the paths'
fixpoint are Spark's. A row-wise step (FILTER, BIND, an ORDER BY key, an aggregate's inputs,
a group's aggregates) is the very Polars function the driver runs, applied by
``mapInArrow`` to each Arrow batch on the executors: SPARQL's expressions have one
compilation, and one set of value rules, whichever backend answers. A group's aggregates run
over a partition that holds the whole group (the frame is shuffled by the group's keys
first; no GROUP BY: one partition, which a marker row keeps from being empty, so COUNT(*) of
no rows is 0).

Column names: a SPARQL variable may be any case and the plan's hidden columns hold ``$`` and
``.``; Spark resolves names without case and reads a dot as a field. Each column is stored
as ``_physical(name)`` (hex, one case, no dot) and named back at the edges.

Order: ORDER BY numbers the rows (``$rank``, increasing in the order it sorts them); DISTINCT keeps a
row's first rank and LIMIT/OFFSET take the rows by rank, so ``SELECT DISTINCT ... ORDER BY
... LIMIT n`` is the first n distinct solutions, as SPARQL's order of modifiers says. Every
other operator lets the rank go: a sub-query's order does not reach the query around it.

Bounds (``query.bound``, decision 0070): the answer is collected one row past the bound at
most, so a query too large stops there, the server's driver holding no more; a join of
sides that share no variable holds and counts both first, and stops before it runs when
every pair of their rows would pass the bound. An equi-join is not counted before it runs
(a job of its own a join): the executors spill what does not fit, and only the answer comes
to the driver.
"""
from __future__ import annotations

import weakref
from functools import reduce

import polars as pl
import pyarrow as pa
from pyspark.sql import functions as F
from pyspark.sql import types as T

from reasonlake.query import bound as query_bound
from reasonlake.query.aggregates import integer_column
from reasonlake.query.dialects.protocol import TIMES, UNIT
from reasonlake.query.dialects.spark_conditions import condition
from reasonlake.query.terms import XSD_INTEGER
from reasonlake.spark import observed

RANK = "$rank"
_PAD = "$pad"
# an OPTIONAL's seed of at most this many left rows is broadcast (``seed``): some 16 MB of
# N-Triples keys at the IMaRS window's 60 bytes a key
SEED_BROADCAST_ROWS = 250_000
# a fixpoint's rounds read as a union of their checkpoints up to this many, then held as one:
# a search of many short rounds (a long chain) would otherwise plan a union of them all
_ROUNDS_HELD_APART = 8

_SPARK_TYPES = {pl.String: T.StringType(), pl.Boolean: T.BooleanType(), pl.Int8: T.ByteType(),
                pl.Int16: T.ShortType(), pl.Int32: T.IntegerType(), pl.Int64: T.LongType(),
                pl.UInt8: T.ShortType(), pl.UInt16: T.IntegerType(), pl.UInt32: T.LongType(),
                pl.UInt64: T.LongType(), pl.Float32: T.FloatType(), pl.Float64: T.DoubleType(),
                pl.Null: T.StringType()}
_ARROW_TYPES = {T.StringType: pa.string(), T.BooleanType: pa.bool_(), T.ByteType: pa.int8(),
                T.ShortType: pa.int16(), T.IntegerType: pa.int32(), T.LongType: pa.int64(),
                T.FloatType: pa.float32(), T.DoubleType: pa.float64()}
_POLARS_TYPES = {T.StringType: pl.String, T.BooleanType: pl.Boolean, T.ByteType: pl.Int8,
                 T.ShortType: pl.Int16, T.IntegerType: pl.Int32, T.LongType: pl.Int64,
                 T.FloatType: pl.Float32, T.DoubleType: pl.Float64}


# a frame held by a checkpoint here -> its rows, counted by the job that made it
# (``observed.checkpointed``): a count asked after is two jobs of its own under adaptive
# execution, and a plan's held frames are counted to decide its broadcasts (decision 0067);
# a constant made from rows here (``constant``) is held as it is, its rows counted as made
_HELD: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _physical(name: str) -> str:
    return "c" + name.encode("utf-8").hex()


def _logical(column: str) -> str:
    return bytes.fromhex(column[1:]).decode("utf-8")


def _col(name: str):
    return F.col(_physical(name))


class SparkFrames:
    name = "spark"

    def __init__(self, spark, bound: query_bound.Bound | None = None):
        self.spark = spark
        self.bound = bound if bound is not None else query_bound.configured()

    def within(self, bound: query_bound.Bound) -> SparkFrames:
        """This dialect with the bound of one query."""
        return SparkFrames(self.spark, bound)

    def source(self, frame, timed: bool = False):
        """A Spark frame of subject, predicate, object (N-Triples text), and with ``timed``
        the occurrences' ``START`` and ``END``, in this dialect's names."""
        columns = ("subject", "predicate", "object", *(TIMES if timed else ()))
        return frame.select([F.col(f"`{c}`").alias(_physical(c)) for c in columns])

    # -- making frames ------------------------------------------------------------------------
    def constant(self, columns: dict[str, list], schema: dict[str, pl.DataType]):
        names = list(schema)
        struct = T.StructType([T.StructField(_physical(n), _SPARK_TYPES[schema[n]]) for n in names])
        rows = list(zip(*(columns[n] for n in names))) if names else []
        made = self.spark.createDataFrame(rows, struct)
        _HELD[made] = {"rows": len(rows)}  # counted as made: a join with it asks no count
        return made

    def names(self, frame) -> list[str]:
        return [_logical(c) for c in frame.columns if c != _physical(RANK)]

    # -- columns ------------------------------------------------------------------------------
    def select(self, frame, columns: dict[str, str | None]):
        chosen = [(_col(c) if c is not None else F.lit(None).cast("string")).alias(_physical(n))
                  for n, c in columns.items()]
        if _physical(RANK) in frame.columns and RANK not in columns:
            chosen.append(_col(RANK))  # the projection of ordered solutions keeps their order
        return frame.select(chosen)

    def flag(self, frame, name: str):
        return _unranked(frame).withColumn(_physical(name), F.lit(True))

    def where_equal(self, frame, tests: list[tuple[str, str, bool]]):
        if not tests:
            return frame
        return frame.where(reduce(lambda a, b: a & b, [_col(c) == (_col(o) if is_col else F.lit(o))
                                                        for c, o, is_col in tests]))

    def where_not_in(self, frame, column: str, values: list[str]):
        return frame.where(~_col(column).isin(values)) if values else frame

    # -- joins and sets -----------------------------------------------------------------------
    def join(self, left, right, on: list[str], how: str = "inner"):
        left, right = _unranked(left), _unranked(right)
        if not on and how == "inner":
            return self._bounded_cross(left, right)
        keys = {_physical(k): f"on{i}" for i, k in enumerate(on)}
        right = right.select([F.col(c).alias(keys.get(c, c)) for c in right.columns])
        joined = left.join(right, _equal_keys(list(keys), list(keys.values())), {"inner": "inner", "anti": "left_anti", "left": "left_outer"}[how])
        return joined if how == "anti" else joined.drop(*keys.values())

    def _bounded_cross(self, left, right):
        """Every pair of rows of ``left`` and ``right``, stopped before it runs where their
        counts pass the bound. A side of one row (the empty solution, a constant) pairs no
        more rows than the other holds; else both sides are held and counted by the jobs that
        hold them (a cross product is rare, and reads each side where it lies after)."""
        counts = [_HELD.get(left), _HELD.get(right)]
        if any(c is not None and int(c["rows"]) <= 1 for c in counts):
            return left.crossJoin(right)
        left, right = self.kept(left), self.kept(right)
        sizes = _rows(left), _rows(right)
        what = (f"the join of {_shown(left)} ({sizes[0]:,} rows) and {_shown(right)} ({sizes[1]:,} rows), "
                "which share no variable")
        self.bound.check(what, sizes[0] * sizes[1])
        return left.crossJoin(right)

    def compatible(self, frame, pairs: list[tuple[str, str]], sharing: bool = False, merge: bool = True):
        if not pairs:
            return frame
        keep = reduce(lambda a, b: a & b, [_col(a).isNull() | _col(b).isNull() | (_col(a) == _col(b))
                                           for a, b in pairs])
        if sharing:
            keep = keep & reduce(lambda a, b: a | b, [_col(a).isNotNull() & _col(b).isNotNull() for a, b in pairs])
        out = _unranked(frame).where(keep)
        if merge:
            merged = {_physical(a): F.coalesce(_col(a), _col(b)).alias(_physical(a)) for a, b in pairs}
            gone = {_physical(b) for _, b in pairs}
            out = out.select([merged.get(c, F.col(c)) for c in out.columns if c not in gone])
        return out

    def concat(self, frames: list):
        return reduce(lambda a, b: a.unionByName(b, allowMissingColumns=True), [_unranked(f) for f in frames])

    def unique(self, frame):
        if _physical(RANK) not in frame.columns:
            return frame.distinct()
        # each distinct solution at its first place in the order
        others = [c for c in frame.columns if c != _physical(RANK)]
        return frame.groupBy(*others).agg(F.min(_physical(RANK)).alias(_physical(RANK)))

    def numbered(self, frame, name: str):
        """``frame`` with a row number computed once (a local checkpoint): the plan reads it
        twice after, and a plan run again may number its rows otherwise."""
        return _held(_unranked(frame).withColumn(_physical(name), F.monotonically_increasing_id()))

    def kept(self, frame):
        """``frame`` held by a checkpoint (a frame held already is itself), its rows counted
        by the job that makes it."""
        return frame if frame in _HELD else _held(frame)

    def kept_for_rounds(self, frame, scanned: bool):
        """``frame`` for a fixpoint that reads it each round: ``scanned`` (one predicate's
        triples, a filter of the view's checkpoint) it is read again each round, where a copy
        cost a pass over every match (the IMaRS path query's 2.1M pairs: 1.1 s of task time
        against some 0.15 s a round to scan them; decision 0067); a computed frame is held."""
        return frame if scanned else self.kept(frame)

    def held(self, frame):
        """A basic graph pattern's filtered start, or its join with a pattern while its rows stay
        few (``planner._BGP``), held by a checkpoint and counted, marked to be broadcast when
        its rows are few (and whether they are): the next join then reads the other
        pattern's matches where they lie, where the adaptive plan shuffles both sides (their
        map stages run before the start's size is known). The IMaRS join query's 210k
        filtered matches met 2.1M ``ex:discuss`` matches that way (decision 0066), and their
        166k joined rows the 1M ``a ex:Post`` ones (task time 2.7 -> 1.7 s; decision 0067)."""
        kept = self.kept(frame)
        rows = _rows(kept)
        return _broadcast_when_few(kept, rows), rows <= SEED_BROADCAST_ROWS

    def seed(self, rows, keys: list[str], triples):
        """The distinct ``keys`` of ``rows`` (an OPTIONAL's left side, held by a checkpoint,
        numbered or not, which counted them: ``_held``), marked to be
        broadcast when ``rows`` are few. Left to the adaptive plan, the join of a seed with a
        pattern's matches is planned as a shuffle of both: the matches' map stage runs
        before the seed's size is known, so the IMaRS "optional" query shuffled its 2.1M
        ``ex:discuss`` matches twice to meet 10k and 21k seed rows (8.9 s; 5.3 s broadcast)."""
        return _broadcast_when_few(self.unique(self.select(rows, {k: k for k in keys})), _rows(rows))

    def copied(self, frame, name: str, source: str | None):
        return frame.withColumn(_physical(name), _col(source) if source is not None else F.lit(None).cast("string"))

    def fill_false(self, frame, name: str):
        return frame.withColumn(_physical(name), F.coalesce(_col(name), F.lit(False)))

    # -- row-wise steps and the modifiers -----------------------------------------------------
    def rows(self, frame, step):
        """``step`` (a Polars function of a frame, row by row) on each Arrow batch."""
        ranked = _physical(RANK) in frame.columns
        schema = _polars_schema(frame)
        out = _spark_schema(step(pl.LazyFrame(schema=schema)).collect_schema())
        if ranked:
            out = T.StructType([*out.fields, T.StructField(_physical(RANK), T.LongType())])
        return frame.mapInArrow(_batchwise(step, out, ranked), out)

    def filtered(self, frame, step, expr, variables, integers: dict[str, str]):
        """The rows that pass a FILTER (``expr``, compiled as ``step``). Where Spark's own
        expressions decide it (``spark_conditions``), the rows they reject are dropped in the
        JVM, before the Polars step sees the rest: only the rows that pass (and those with an
        escape, which it alone decides) cross to Python. The step stays the one judge of what
        passes; the rows are not split into two plans, which would compute ``frame`` twice
        (a group's Python step, say)."""
        found = condition(expr, variables, _physical, integers)
        if found is not None and found.complete:  # a HAVING on counts: no row needs Python
            return frame.where(F.coalesce(found.truth, F.lit(False)))
        if found is not None:
            frame = frame.where(~found.decided | F.coalesce(found.truth, F.lit(False)))
        return self.rows(frame, step)

    def sort(self, frame, keys, names: list[str], descending: list[bool]):
        keyed = self.rows(_unranked(frame), keys)
        order = [(_col(n).desc_nulls_first() if down else _col(n).asc_nulls_first()) for n, down in zip(names, descending)]
        # a global sort leaves each partition after the one before it in the order, and a row's
        # id grows with its partition and its place in it: the id is the row's rank (with gaps),
        # with no window moving every row to one partition
        ranked = keyed.orderBy(*order).withColumn(_physical(RANK), F.monotonically_increasing_id())
        return ranked.drop(*[_physical(n) for n in names])

    def slice(self, frame, start: int, length: int | None):
        if _physical(RANK) in frame.columns:
            frame = frame.orderBy(_physical(RANK))
        if start:
            frame = frame.offset(start)
        return frame.limit(length) if length is not None else frame

    def group(self, frame, keys: list[str], per_group):
        frame = _unranked(frame)
        schema = _polars_schema(frame)
        out = _spark_schema(per_group(pl.LazyFrame(schema=schema)).collect_schema())
        if keys:
            shuffled = frame.repartition(*[_col(k) for k in keys])
        else:  # one group of every row, even of none: a marker row keeps its one partition from being empty
            pad = self.spark.createDataFrame([(True,)], T.StructType([T.StructField(_physical(_PAD), T.BooleanType())]))
            shuffled = frame.withColumn(_physical(_PAD), F.lit(False)).unionByName(pad, allowMissingColumns=True)
            shuffled = shuffled.repartition(1)
        return shuffled.mapInArrow(_partitionwise(per_group, out, schema, padded=not keys), out)

    def counted_groups(self, frame, keys: list[str], counts, names: list[str]):
        """GROUP BY the variables ``keys`` with only COUNT and SAMPLE of variables
        (``aggregates.counts_only``), by Spark's own aggregation: a partial count on each
        partition before the shuffle, and no Python pass (the generic group sends every row
        to Python twice, its inputs and its groups: 9 s for the IMaRS "group" query). A
        count's term is written as ``terms.integer_term`` writes it, its value beside it
        (``aggregates.integer_column``); with no GROUP BY, one group even of no rows."""
        frame = _unranked(frame)
        made, shown = [], []
        for i, ((kind, variable, distinct), name) in enumerate(zip(counts, names)):
            value = F.lit(1) if variable is None else _col(variable)
            if kind == "sample" and variable in keys:  # the group's key is its one value
                shown.append(_col(variable).alias(_physical(name)))
                continue
            if kind == "sample":  # a string buffer: Spark sorts to aggregate it (no hash aggregate)
                made.append(F.first(value, ignorenulls=True).alias(f"a{i}"))
                shown.append(F.col(f"a{i}").alias(_physical(name)))
                continue
            made.append((F.countDistinct(value) if distinct else F.count(value)).alias(f"a{i}"))
            shown += [F.concat(F.lit('"'), F.col(f"a{i}").cast("string"), F.lit(f'"^^<{XSD_INTEGER}>'))
                      .alias(_physical(name)), F.col(f"a{i}").cast("long").alias(_physical(integer_column(name)))]
        if not made:  # the keys' SAMPLEs alone (GROUP BY (xsd:integer(?o) AS ?i), rdflib's SAMPLE of ?i): no aggregate
            grouped = frame.select(*[_col(k) for k in keys]).distinct()
        else:
            grouped = frame.groupBy(*[_col(k) for k in keys]).agg(*made) if keys else frame.agg(*made)
        return grouped.select(F.lit(True).alias(_physical(UNIT)), *shown)

    # -- answers ------------------------------------------------------------------------------
    def collect(self, frame) -> pl.DataFrame:
        """The answer, one row past the bound at most. Ordered solutions are taken with their
        rank and sorted here: under a limit Spark's sort would become a top-k that keeps up to
        the limit's rows per partition in the driver, and the rows are all here anyway."""
        bound = self.bound
        try:
            table = frame.limit(bound.rows + 1).toArrow()
        except Exception as exc:  # the answer's bytes passed the Spark driver's own bound on results
            if "maxResultSize" not in str(exc):
                raise
            raise query_bound.QueryBoundError(
                "the query stopped at the answer: more bytes than the Spark driver takes from a job "
                "(spark.driver.maxResultSize); narrow the query (fewer rows or variables), or raise that "
                "setting of the session") from None
        if table.num_rows > bound.rows:
            raise bound.rows_past("the answer", f"more than {bound.rows:,}")
        bound.check("the answer", table.num_rows, table.nbytes)
        out = pl.from_arrow(table) if table.num_columns else pl.DataFrame()
        if _physical(RANK) in out.columns:
            out = out.sort(_physical(RANK)).drop(_physical(RANK))
        return out.rename({c: _logical(c) for c in out.columns})

    def any_row(self, frame) -> bool:
        return len(frame.limit(1).collect()) > 0

    def fixpoint(self, reached, step, on: list[str]):
        """Rounds of ``step`` over the rows the round before found, until none is new. A
        round's new rows are held by a checkpoint and counted by the job that makes it (the
        count also says whether there are any): when they are few they are broadcast to the
        step's join, which then reads the edges where they lie instead of shuffling them
        every round (the IMaRS path query's 2.1M pairs; decision 0066). The rows reached are
        the union of the rounds' checkpoints, a set (each round's rows are distinct and new),
        with no copy of them all made each round (decision 0067)."""
        newest = _held(reached)
        rounds = [newest]
        found = _rows(newest)
        while found:
            joined = step(_broadcast_when_few(newest, found))
            # the rows reached so far are the union of the rounds' checkpoints, read where they
            # lie: copying them into one each round rewrote every row found before
            newest = _held(self.join(joined.distinct(), _union(rounds), on, "anti"))
            found = _rows(newest)
            if found:
                rounds.append(newest)
            if len(rounds) > _ROUNDS_HELD_APART:  # a long search: its plan kept short
                rounds = [_held(_union(rounds))]
        return _union(rounds)


def _union(frames: list):
    """The rows of ``frames`` (of the same columns) together, read where they lie."""
    return reduce(lambda a, b: a.unionByName(b), frames)


def _held(frame):
    """``frame`` held by a local checkpoint, its rows counted by the job that makes it."""
    out, counted = observed.checkpointed(frame, rows=F.count(F.lit(1)))
    _HELD[out] = counted
    return out


def _rows(frame) -> int:
    """The rows of a frame: counted when it was held here (``_held``), else by a count."""
    counted = _HELD.get(frame)
    return frame.count() if counted is None else int(counted["rows"])


def _broadcast_when_few(frame, rows: int):
    """``frame`` marked to be broadcast to the joins that read it when ``rows`` (counted by the
    caller) are at most ``SEED_BROADCAST_ROWS``; else left to the adaptive plan. The mark
    of a held frame is held as it is (an OPTIONAL keeps its left rows: not copied again)."""
    if rows > SEED_BROADCAST_ROWS:
        return frame
    marked = F.broadcast(frame)
    if frame in _HELD:
        _HELD[marked] = _HELD[frame]
    return marked


def _equal_keys(left: list[str], right: list[str]):
    """``left`` equal to ``right``, column for column, as a join condition whose shuffle and
    sort keys are one 64-bit hash of the columns, the terms themselves compared only on the
    rows whose hashes meet. A sort-merge join on the N-Triples text sorts each side by
    strings; on 2 cores a 2M-row join of the IMaRS window took 11-12 s that way and 3.5 s
    on the hash (decision 0054). The comparison is written as ``>= and <=`` so that Spark
    keeps it a condition on the matched rows, not a second join key; a null never matches
    (it fails both), as in an equi-join."""
    hashed = F.xxhash64(*[F.col(c) for c in left]) == F.xxhash64(*[F.col(c) for c in right])
    return reduce(lambda a, b: a & b, [(F.col(c) >= F.col(k)) & (F.col(c) <= F.col(k)) for c, k in zip(left, right)],
                  hashed)


def _shown(frame) -> str:
    """A frame's variables, as the bound's error names them."""
    names = [_logical(c) for c in frame.columns if c != _physical(RANK)]
    return "{" + (" ".join(f"?{n}" for n in names if not n.startswith("$")) or "the empty solution") + "}"


def _unranked(frame):
    return frame.drop(_physical(RANK)) if _physical(RANK) in frame.columns else frame


def _polars_schema(frame) -> dict[str, pl.DataType]:
    return {_logical(f.name): _POLARS_TYPES[type(f.dataType)] for f in frame.schema.fields
            if f.name != _physical(RANK)}


def _spark_schema(schema) -> T.StructType:
    fields = []
    for name, dtype in schema.items():
        base = dtype.base_type() if hasattr(dtype, "base_type") else dtype
        fields.append(T.StructField(_physical(name), _SPARK_TYPES[base]))
    return T.StructType(fields)


def _arrow_schema(schema: T.StructType) -> pa.Schema:
    return pa.schema([pa.field(f.name, _ARROW_TYPES[type(f.dataType)]) for f in schema.fields])


def _to_arrow(frame: pl.DataFrame, target: pa.Schema) -> pa.Table:
    frame = frame.rename({c: _physical(c) for c in frame.columns})
    columns = [frame.get_column(f.name).to_arrow().cast(f.type) if frame.height else pa.array([], f.type)
               for f in target]
    return pa.Table.from_arrays(columns, schema=target)


def _batchwise(step, out: T.StructType, ranked: bool):
    """The function ``mapInArrow`` runs on each partition: ``step`` on each batch (the rank,
    when there is one, carried beside it)."""
    target = _arrow_schema(out)

    def run(batches):
        for batch in batches:
            frame = pl.from_arrow(pa.Table.from_batches([batch]))
            frame = frame.rename({c: _logical(c) for c in frame.columns})
            if ranked:  # a row-wise step keeps every row's place: the rank goes through as a column
                frame = frame.with_columns(pl.col(RANK).cast(pl.Int64))
            yield from _to_arrow(step(frame.lazy()).collect(), target).to_batches()
    return run


def _partitionwise(per_group, out: T.StructType, schema: dict, padded: bool):
    """The function ``mapInArrow`` runs on each partition: ``per_group`` over all of the
    partition's rows at once (every group is whole in one partition)."""
    target = _arrow_schema(out)

    def run(batches):
        tables = [pa.Table.from_batches([b]) for b in batches if b.num_rows]
        if not tables:  # no group here (a marker row keeps the one group of no GROUP BY)
            return
        frame = pl.concat([pl.from_arrow(t) for t in tables], how="vertical_relaxed")
        frame = frame.rename({c: _logical(c) for c in frame.columns})
        if padded:
            frame = frame.filter(~pl.col(_PAD).fill_null(False)).drop(_PAD)
        frame = frame.select([pl.col(n).cast(t) for n, t in schema.items()])
        yield from _to_arrow(per_group(frame.lazy()).collect(), target).to_batches()
    return run
