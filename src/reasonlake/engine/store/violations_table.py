"""The violations table of a view (`violations_<view>`): inconsistencies found at closes.

A violation is a match of a rule with a `false` head (cax-dw, prp-irp, ..., and the
sameAs-producing rules under unique names): its rule id, the variable bindings, and the
triples involved with their origins. Like a derived fact, it has an origin (the min over
its triples) and leaves the window with its oldest triple; found again with a later origin,
it is renewed. One MERGE per close keeps the table idempotent under re-runs.
"""
from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from reasonlake.engine.store import delta_sql, table_log
from reasonlake.engine.store import view_decoding as decoding
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.materialization import expiration_pane
from reasonlake.plan.windows import Window

SCHEMA = (
    "key STRING, rule STRING, bindings MAP<STRING, BIGINT>, "
    "triples ARRAY<STRUCT<s: BIGINT, p: BIGINT, o: BIGINT, origin: BIGINT>>, "
    "origin BIGINT, exp_pane BIGINT, first_close BIGINT, close BIGINT"
)


def path(home: Home, view: str) -> str:
    return home.path(f"violations_{view}")


def exists(home: Home, view: str) -> bool:
    """Whether the view has a violations table (a program without negative rules has none)."""
    return table_log.is_delta(home.spark, path(home, view))


def create(home: Home, view: str) -> None:
    home.spark.sql(f"CREATE TABLE IF NOT EXISTS delta.`{path(home, view)}` ({SCHEMA}) USING DELTA")


def _rows(found: DataFrame, window: Window, close: int) -> DataFrame:
    return found.select(
        "key", "rule", "bindings", "triples", "origin",
        expiration_pane("origin", window).alias("exp_pane"),
        F.lit(close).cast("long").alias("first_close"), F.lit(close).cast("long").alias("close"),
    )


def record(home: Home, view: str, window: Window, found: DataFrame | None, close: int) -> None:
    """Insert new violations, renew the ones found again with a later origin."""
    if found is None:
        return
    delta_sql.merge(
        path(home, view), _rows(found, window, close), "t.key = u.key",
        update_when="u.origin > t.origin OR t.exp_pane <= u.close",
        update={"origin": "u.origin", "exp_pane": "u.exp_pane", "triples": "u.triples",
                "bindings": "u.bindings", "close": "u.close",
                # a violation that had left the window and is back starts a new episode
                "first_close": "CASE WHEN t.exp_pane <= u.close THEN u.close ELSE t.first_close END"},
    )


def replace(home: Home, view: str, window: Window, found: DataFrame | None, close: int) -> None:
    """A rebuild: the table becomes exactly the violations found at ``close``."""
    rows = _rows(found, window, close) if found is not None else home.spark.createDataFrame([], SCHEMA)
    rows.write.format("delta").mode("overwrite").save(path(home, view))


def holds_none(home: Home, view: str) -> bool:
    """Whether the table holds no row, read by delta-rs in this process (False: some, or
    this process cannot read it)."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import driver_reads

    counted = driver_reads.query(home.spark, {"v": (path(home, view), None)}, "SELECT count(*) AS n FROM v")
    return counted is not None and counted.column("n")[0].as_py() == 0


def version(home: Home, view: str) -> int:
    """The table's latest Delta version: the one a close records as holding its violations."""
    return table_log.latest_version(home.spark, path(home, view))


def live_at(close: int) -> str:
    """The SQL condition a violation row meets while it is live at ``close``: found at or
    before it, its pane not yet expired (every reader of the table asks this one)."""
    return f"first_close <= {int(close)} AND exp_pane > {int(close)}"


def live(home: Home, view: str, close: int, at_version: int | None = None) -> DataFrame:
    """The violations live at ``close``, read at the table version that close recorded (a
    later rebuild or renewal rewrites rows), or at the latest when it recorded none."""
    reader = home.spark.read.format("delta")
    if at_version is not None:
        reader = reader.option("versionAsOf", at_version)
    table = reader.load(path(home, view))
    return table.where(live_at(close))


def count_live(home: Home, view: str, close: int, at_version: int | None = None) -> int:
    """How many violations are live at ``close`` (read at ``at_version``, as ``live``): counted
    by delta-rs in this process where the home allows (a Spark count is a job, about a second
    a close), else by Spark (``driver_reads.answer``)."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import driver_reads

    counted = driver_reads.answer(home.spark, {"v": (path(home, view), at_version)},
                                  f"SELECT count(*) AS n FROM {{v}} WHERE {live_at(close)}")
    return counted.column("n")[0].as_py()


def decoded_sql(home: Home, view: str, close: int, at_version: int | None = None) -> str:
    """The violations live at ``close`` read at ``at_version`` (``live``), decoded, as Spark
    SQL: rule, since (the first close of its episode), bindings (variable -> term), triples
    (N-Triples with their origins, in the rule's order), origin, key. What `reasonlake sql`
    names <view>_violations and what `violations` prints."""
    at = "" if at_version is None else f" VERSION AS OF {at_version}"
    terms = f"delta.`{home.path('terms')}`"
    triple, joins = decoding.named_triple("t", "e", terms)
    moment = decoding.moment_or_null
    return (
        f"WITH live AS (SELECT * FROM delta.`{path(home, view)}`{at} "
        f"WHERE {live_at(close)}), "
        "exploded AS (SELECT key, i, t.s, t.p, t.o, t.origin FROM live LATERAL VIEW posexplode(triples) x AS i, t), "
        f"named AS (SELECT e.key, struct(e.i AS i, {triple} AS triple, {moment('e.origin')} AS origin) AS t "
        f"FROM exploded e {joins}), "
        "triples AS (SELECT key, transform(sort_array(collect_list(t)), x -> struct(x.triple AS triple, "
        "x.origin AS origin)) AS triples FROM named GROUP BY key), "
        "bound AS (SELECT b.key, map_from_entries(collect_list(struct(b.var, n.term))) AS bindings FROM "
        f"(SELECT key, var, id FROM live LATERAL VIEW explode(bindings) x AS var, id) b LEFT JOIN {terms} n "
        "ON b.id = n.id GROUP BY b.key) "
        f"SELECT l.rule, timestamp_millis(l.first_close) AS since, b.bindings, t.triples, {moment('l.origin')} "
        "AS origin, l.key FROM live l JOIN triples t ON l.key = t.key LEFT JOIN bound b ON l.key = b.key"
    )


def decoded(home: Home, view: str, close: int, at_version: int | None = None) -> DataFrame:
    """``decoded_sql``'s rows, by rule and key."""
    return home.spark.sql(decoded_sql(home, view, close, at_version)).orderBy("rule", "key")
