"""Reading views: content at a close or version, decoded to N-Triples strings."""
from __future__ import annotations

import polars as pl
import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, StringType, StructField, StructType, TimestampType

from reasonlake.engine.store import catalog, driver_reads, retention, rspql_registry, state
from reasonlake.engine.store import view_decoding as decoding
from reasonlake.engine.store.home import Home
from reasonlake.errors import CloseError
from reasonlake.plan.durations import format_time


def check_close(view: str, window, close: int) -> None:
    """``close`` is one of the view's window closes, or the error says which are."""
    if close < window.first_close:
        raise CloseError(
            f"{format_time(close)} is before the first close {format_time(window.first_close)} of "
            f"view '{view}' (start + width)"
        )
    if not window.is_close(close):
        near = ", ".join(format_time(c) for c in window.example_closes(close))
        raise CloseError(
            f"{format_time(close)} is not a window close of view '{view}'; closes fall at "
            f"start + width + k·slide, e.g. {near}"
        )


def pick(home: Home, view: str, close: int | None, version: int | None) -> tuple[state.Published, int]:
    decl = home.view(view)
    processed = state.lineage(home, view)
    if not processed:
        raise CloseError(f"view '{view}' has no processed close yet; run `reasonlake slide {view}`")
    history = [r for r in processed if not r.withheld]  # a withheld close is read only by --version
    if not history:
        raise CloseError(f"view '{view}' has no close that passed its expectations yet; "
                         f"`reasonlake history {view}` lists the withheld ones (read them with --version)")
    if version is not None:
        for record in processed:
            if record.version == version:
                return record, record.close
        versions = ", ".join(str(r.version) for r in history[-10:])
        raise CloseError(
            f"version {version} of view '{view}' is not a published close; published versions "
            f"(latest): {versions}"
        )
    if close is None:
        return history[-1], history[-1].close
    check_close(view, decl.window, close)
    if close > history[-1].close:
        raise CloseError(
            f"close {format_time(close)} is after the last processed close "
            f"{format_time(history[-1].close)}; run `reasonlake slide {view} --until ...` first"
        )
    earlier = [r for r in history if r.close <= close]
    if not earlier:
        raise CloseError(
            f"close {format_time(close)} is before the first processed close "
            f"{format_time(history[0].close)} of view '{view}'"
        )
    return earlier[-1], close


def facts(home: Home, view: str, close: int | None = None, version: int | None = None) -> DataFrame:
    """The view's facts as ids (s, p, o, origin, rule) at a close or published version."""
    record, at, latest = picked(home, view, close, version)
    return facts_of_version(home, view, version_read(home, view, record, latest), at)


def facts_collected(home: Home, view: str, close: int | None = None, version: int | None = None):
    """``facts`` as a Polars frame in the driver: read by delta-rs in this process where it
    may read the table, else collected from Spark."""
    record, at, latest = picked(home, view, close, version)
    return pl.from_arrow(driver_reads.answer(
        home.spark, {"mat": (home.mat_path(view), version_read(home, view, record, latest))},
        "SELECT s, p, o, origin, rule FROM {mat} WHERE " + decoding.in_window(home.view(view).window, at, "origin")))


def picked(home: Home, view: str, close: int | None, version: int | None) -> tuple[state.Published, int, bool]:
    """``pick``, whether the record is the latest, and (when it is not) checked readable."""
    record, at = pick(home, view, close, version)
    latest = record == state.lineage(home, view)[-1]
    if not latest:  # a past close: still there after vacuums?
        retention.check_readable(home, view, record.version, at)
    return record, at, latest


def facts_of_version(home: Home, view: str, version: int | None, at: int) -> DataFrame:
    """The facts live at close ``at`` in the table's ``version`` (None: the latest)."""
    window = home.view(view).window
    reader = home.spark.read.format("delta")
    table = (reader if version is None else reader.option("versionAsOf", version)).load(home.mat_path(view))
    # A skipped close is the previous published one minus what expired in between.
    return table.where(F.col("origin") > window.opens(at)).select("s", "p", "o", "origin", "rule")


def decoded(home: Home, view: str, close: int | None = None, version: int | None = None) -> DataFrame:
    """subject, predicate, object (N-Triples), origin, expires (timestamps), inferred, rule:
    ``view_decoding``'s description planned on Spark (``driver_reads.frame``)."""
    record, at, latest = picked(home, view, close, version)
    columns = [*decoding.reader_columns(decoding.SPARK, home.view(view).window), "m.rule AS rule"]
    return driver_reads.frame(home.spark, *driver_reads.view_read(
        home, view, version_read(home, view, record, latest), at, columns))


def reader_columns(named: DataFrame, window) -> DataFrame:
    """What readers see of decoded rows (subject, predicate, object, origin, rule): the
    columns ``view_decoding`` describes, and the rule."""
    terms = ("subject", "predicate", "object")
    return named.where(decoding.visible(decoding.SPARK, terms)).selectExpr(
        *decoding.reader_columns(decoding.SPARK, window, terms=terms, origin="origin", rule="rule"), "rule")


def ntriples(home: Home, view: str, close: int | None = None, version: int | None = None):
    """Sorted N-Triples lines: read in this process where the home is local and small
    enough (``driver_reads.view_rows``), else through Spark, streamed to the driver partition by
    partition."""
    record, at, latest = picked(home, view, close, version)
    # both engines order strings by their UTF-8 bytes
    yield from driver_reads.view_values(home, view, version_read(home, view, record, latest), at,
                                        f"{decoding.line()} AS line", order="line")


def view_frame(home: Home, view: str, record: state.Published) -> DataFrame:
    """What `reasonlake sql` names ``view`` (``catalog.view_sql``'s rows) as a Spark frame:
    read by delta-rs in this process and handed to Spark as a local relation where the home
    allows it, else Spark's plan of the same description (``driver_reads.frame``)."""
    window = home.view(view).window
    tables = {"mat": (home.mat_path(view), version_read(home, view, record, True)), "terms": (home.path("terms"), None)}

    def render(dialect: decoding.Dialect) -> str:
        return decoding.select(dialect, window, record.close, table="{mat}", terms="{terms}",
                               columns=decoding.reader_columns(dialect, window))

    return driver_reads.frame(home.spark, tables, render,
                              local=(lambda rows: pa.table(decoding.reader_arrow(rows)), _view_columns()))


def _view_columns():
    """The columns of ``catalog.view_sql``, built here: a DDL string is parsed by the JVM."""
    return StructType([*(StructField(c, StringType()) for c in ("subject", "predicate", "object")),
                       StructField("origin", TimestampType()), StructField("expires", TimestampType()),
                       StructField("inferred", BooleanType())])


def version_read(home: Home, view: str, record: state.Published, latest: bool) -> int | None:
    """The table version a picked ``record`` is read at: its own, or for the latest close
    the latest snapshot unless data commits followed it (``retention.pinned``)."""
    return retention.pinned(home, home.mat_path(view), record.version) if latest else record.version


# The session remembers which temporary tables the last registration made, so a table of
# another home (or of a view since removed) never answers a query by its old name.
_REGISTERED = "reasonlake.sql.tables"


def register_sql_views(home: Home, query: str | None = None) -> list[str]:
    """Each view as a temporary table named after it, its violations and repairs as
    <view>_violations and <view>_repairs, its registered queries' rows as <view>__<query>,
    system tables as rl_<name>; the names, sorted.
    With ``query``, only the names it mentions: in a fresh process each table a name
    resolves costs a Delta log read, and a query over one view needs none of the others."""
    words = None if query is None else {w.lower() for w in catalog.IDENTIFIER.findall(query)}

    def wanted(*names: str) -> bool:
        return words is None or any(n.lower() in words for n in names)

    registered: list[str] = []
    for name in home.view_names():
        if not wanted(name, f"{name}_violations", f"{name}_repairs",
                      *(q.table(name) for q in home.view(name).queries)):
            continue
        history = state.readable(home, name)
        if not history:
            continue
        # the same SQL as the view's catalog names (catalog.definitions)
        for table, sql in catalog.definitions(home, name, history[-1]).items():
            if not wanted(table):  # a query over the view need not read its violations
                continue
            # a one-shot query reads the views it names here; registering every view (a
            # session's `Lakehouse.sql`, a list of names after a mistake) stays lazy in Spark
            one_shot = table == name and words is not None
            (view_frame(home, name, history[-1]) if one_shot else home.spark.sql(sql)).createOrReplaceTempView(table)
            registered.append(table)
    for name, decl in rspql_registry.registered(home).items():  # RSP-QL queries' answers
        sql = rspql_registry.answers_sql(home, decl) if wanted(name) else None
        if sql is not None:
            home.spark.sql(sql).createOrReplaceTempView(name)
            registered.append(name)
    for table in catalog.SYSTEM_TABLES:
        if not wanted(f"rl_{table}"):
            continue
        home.table(table).createOrReplaceTempView(f"rl_{table}")
        registered.append(f"rl_{table}")
    before = home.spark.conf.get(_REGISTERED, "")
    for stale in set(filter(None, before.split(","))) - set(registered):
        home.spark.catalog.dropTempView(stale)
    home.spark.conf.set(_REGISTERED, ",".join(sorted(registered)))
    return sorted(registered)


def repairs_decoded(home: Home, view: str) -> DataFrame:
    """The repair log with triples as N-Triples: close, version, mode, rule, removed,
    removed_at, conflict (the conflict set) and winners (its newer members that stay): the
    rows `reasonlake sql` names <view>_repairs (``catalog.repairs_sql``)."""
    return home.spark.sql(catalog.repairs_sql(home, view))
