"""Catalog names for a home: each view as a SQL view, the system tables as Delta tables.

A view's table holds term ids, expired rows until their pane is dropped, and may hold a
version no close has published yet (a slide between its commit and its record); a reader
of the catalog must see what `reasonlake sql` shows instead. So a view's catalog name is a
SQL view over its Delta table pinned at the version its last close published, filtered to
that close's window and decoded through the term dictionary, written again each time a
close is published (and after a vacuum, whose retention can make an old version unreadable).
The system tables (events, quarantine, ...) hold no ids a reader needs decoded: they are
registered as external Delta tables at their locations.

Which catalog and schema a home uses is kept in the home (`settings`), so every process and
job that writes the home keeps the names current. Locally, `spark_catalog` is a Hive
metastore in the home (`_metastore/`), which a plain pyspark session opens too.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from reasonlake.engine.store import query_tables, retention, settings, state, table_log
from reasonlake.engine.store import view_decoding as decoding
from reasonlake.engine.store.home import Home
from reasonlake.engine.store.inputs import is_uri
from reasonlake.errors import UsageError

SYSTEM_TABLES = ("events", "quarantine", "late", "view_state", "ingests", "views", "expectations")
METASTORE = "_metastore"
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def metastore_conf(root: str) -> dict[str, str]:
    """Session settings for a Hive metastore kept in a local home (Derby, one process at a time)."""
    folder = Path(root) / METASTORE
    return {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={folder / 'db'};create=true",
        "spark.sql.warehouse.dir": str(folder / "warehouse"),
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={folder}",
    }


def local_metastore(root: str) -> bool:
    """The home keeps its own metastore (``init --catalog spark_catalog`` made it)."""
    return not is_uri(root) and (Path(root) / METASTORE).is_dir()


def configure(home: Home, catalog: str, schema: str) -> list[str]:
    """Keep ``catalog.schema`` in the home and register every name there; the names."""
    for part, flag in ((catalog, "--catalog"), (schema, "--schema")):
        if not IDENTIFIER.fullmatch(part):
            raise UsageError(f"{flag} {part!r}: use letters, digits and '_' (not starting with a digit)")
    spark = home.spark
    if catalog == "spark_catalog" and spark.conf.get("spark.sql.catalogImplementation", "in-memory") != "hive":
        raise UsageError("--catalog spark_catalog needs a session with a Hive metastore: the embedded session "
                         "keeps one in the home when `init --catalog spark_catalog` starts it; on a cluster, "
                         "name the cluster's catalog")
    settings.put(home, {"catalog": catalog, "schema": schema})
    return refresh_all(home)


def target(home: Home) -> str | None:
    """``catalog.schema`` the home registers its names in, None when it has none."""
    kept = settings.read(home)
    return f"`{kept['catalog']}`.`{kept['schema']}`" if "catalog" in kept and "schema" in kept else None


def refresh_all(home: Home) -> list[str]:
    """Register the schema, the system tables and every view with a published close."""
    where = target(home)
    if where is None:
        return []
    spark = home.spark
    spark.sql(f"CREATE SCHEMA IF NOT EXISTS {where}")
    names = []
    for table in SYSTEM_TABLES:
        spark.sql(f"CREATE TABLE IF NOT EXISTS {where}.`rl_{table}` USING DELTA LOCATION '{home.path(table)}'")
        names.append(f"rl_{table}")
    for view in home.view_names():
        history = state.readable(home, view)
        if history:
            refresh(home, view, history[-1], where)
            names.append(view)
    return sorted(names)


def refresh(home: Home, view: str, record, where: str | None = None, *, published: bool = False) -> None:
    """Point the view's catalog names at the close ``record`` published. ``published``: the
    close was just recorded, its version is the table's latest; else (after a vacuum, at
    init) the version is pinned only when data commits followed it (``retention.pinned``)."""
    where = where or target(home)
    if where is None:
        return
    for name, sql in definitions(home, view, record, published=published).items():
        home.spark.sql(f"CREATE OR REPLACE VIEW {where}.`{name}` AS {sql}")


def show(home: Home, view: str, record) -> None:
    """Point the view's names, and its copy for readers outside Spark (``readable_copy``),
    at a close just recorded (``state.append``); a withheld close leaves them on the last
    close that passed. The close is published whatever happens here: a name that could not
    be re-pointed is a warning, and `reasonlake init` re-points every name; a copy that
    could not be written catches up at the next close."""
    # imported when called: it loads pyarrow
    from reasonlake.engine.store import readable_copy

    if record.withheld:
        return
    try:
        refresh(home, view, record, published=True)
    except Exception as exc:  # a stale catalog name must not undo a published close
        _warn(f"the catalog name of view {view} still shows an earlier close ({_first_line(exc)}); "
              "`reasonlake init` re-points every name")
    try:
        readable_copy.show(home, view, record)
    except Exception as exc:  # as stale names: the next close brings the copy up to date
        _warn(f"the readable copy of view {view} ({readable_copy.path(home, view)}) still shows an "
              f"earlier close ({_first_line(exc)}); the next close brings it up to date")


def _first_line(exc: Exception) -> str:
    return str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__


def _warn(text: str) -> None:

    print(f"reasonlake: warning: {text}", file=sys.stderr)


def after_vacuum(home: Home, view: str) -> None:
    """Re-point the view's names at its latest close: they may pin a version the vacuum made
    unreadable (``retention.pinned`` then gives the latest snapshot)."""
    history = state.lineage(home, view)
    if history:
        refresh(home, view, history[-1])


def definitions(home: Home, view: str, record, *, published: bool = False) -> dict[str, str]:
    """The SQL of each name a view has at a published close (``record``): the view, and its
    violations and repairs when it has them, its registered queries' rows; the catalog's views and `reasonlake sql`'s
    temporary ones are made from these, so both show the same."""
    # imported when called: it loads pyspark (the JVM)
    from reasonlake.engine.store import violations_table as violations

    # Pinned even when it is the latest: a later slide's table commit is not a published close
    # until it is recorded. Delta refuses time travel past the file retention, so a vacuum
    # re-points a name whose version only maintenance commits followed at the latest snapshot.
    version = record.version if published else retention.pinned(home, home.mat_path(view), record.version)
    out = {view: view_sql(home, view, record, version)}
    if table_log.is_delta(home.spark, violations.path(home, view)):
        out[f"{view}_violations"] = violations_sql(home, view, record)
    if table_log.is_delta(home.spark, home.repairs_path(view)):
        out[f"{view}_repairs"] = repairs_sql(home, view)
    for query in home.view(view).queries:  # a query's table is made by the first close it answers
        if query_tables.exists(home, view, query):
            out[query.table(view)] = query_tables.sql(home, view, query, record)
    return out


def violations_sql(home: Home, view: str, record) -> str:
    """The violations live at a published close, as SQL (``violations.decoded_sql``), read at
    the version the close recorded."""
    # imported when called: it loads pyspark (the JVM)
    from reasonlake.engine.store import violations_table as violations

    return violations.decoded_sql(home, view, record.close, record.violations_version)


def repairs_sql(home: Home, view: str) -> str:
    """The repair log as SQL (``read.repairs_decoded``): close, version, mode, rule, removed,
    removed_at, conflict and winners as sorted N-Triples."""
    terms = f"delta.`{home.path('terms')}`"
    member, member_joins = decoding.named_triple("m", "x.item", terms)
    removed, removed_joins = decoding.named_triple("r", "l.removed", terms)
    return (
        f"WITH log AS (SELECT *, monotonically_increasing_id() AS rid FROM delta.`{home.repairs_path(view)}`), "
        "members AS (SELECT rid, 'conflict' AS kind, item FROM log LATERAL VIEW explode(conflict) c AS item "
        "UNION ALL SELECT rid, 'winner' AS kind, item FROM log LATERAL VIEW explode(winners) w AS item), "
        f"named AS (SELECT x.rid, x.kind, {member} AS triple FROM members x {member_joins}), "
        "grouped AS (SELECT rid, sort_array(collect_list(CASE WHEN kind = 'conflict' THEN triple END)) AS conflict, "
        "sort_array(collect_list(CASE WHEN kind = 'winner' THEN triple END)) AS winners FROM named GROUP BY rid) "
        f"SELECT timestamp_millis(l.close) AS close, l.version, l.mode, l.rule, {removed} AS removed, "
        "timestamp_millis(l.removed.ts) AS removed_at, coalesce(g.conflict, array()) AS conflict, "
        f"coalesce(g.winners, array()) AS winners FROM log l {removed_joins} LEFT JOIN grouped g ON l.rid = g.rid"
    )


def view_sql(home: Home, view: str, record, version: int | None) -> str:
    """The view's content at a published close, read at ``version`` (None: the latest
    snapshot), as SQL: what `reasonlake sql` names ``view`` (``view_decoding``'s columns),
    over the table's paths only."""
    window = home.view(view).window
    at = "" if version is None else f" VERSION AS OF {version}"
    return decoding.select(decoding.SPARK, window, record.close, table=f"delta.`{home.mat_path(view)}`{at}",
                           terms=f"delta.`{home.path('terms')}`",
                           columns=decoding.reader_columns(decoding.SPARK, window))
