"""What only a classic session can do: reach Delta's log in this process's JVM.

A classic session (the embedded one, a cluster's driver) has the JVM in this process, and
Delta's log classes answer from the driver what a Spark job would otherwise be asked: the
latest version, a commit's actions, the file list. A Spark Connect session has no JVM here;
each function returns None there (or raises what its callers catch), and the callers go
through SQL instead (``delta_sql``). Only this module, the embedded session's launcher
(``session``, ``server``) and the driver's commit writer (``arrow_commit``) touch the JVM;
``tests/engine/test_public_apis.py`` keeps it so.
"""
from __future__ import annotations


def jvm(spark):
    """(the JVM gateway, the JVM session), or None on a session without a JVM here."""
    try:
        gateway, session = spark._jvm, spark._jsparkSession
    except Exception:  # Spark Connect: no JVM in this process
        return None
    return None if gateway is None or session is None else (gateway, session)


# (gateway client, binary class name) -> py4j's JavaClass
_CLASSES: dict = {}


def java_class(gateway, name: str):
    """The JVM class of binary name ``name`` (``scala.None$``, ``a.b.Outer$Inner``), resolved
    once per gateway. Walked as ``gateway.a.b.C``, py4j asks the JVM at every dot whether it
    names a package or a class: 5-6 ms a class on 2 cores, paid by every commit the driver
    writes (a dozen classes each) when they were walked at each use."""
    # imported when called: it loads py4j
    from py4j.java_gateway import JavaClass

    key = (gateway._gateway_client, name)
    if key not in _CLASSES:
        _CLASSES[key] = JavaClass(name, gateway._gateway_client)
    return _CLASSES[key]


def delta_log(spark, path: str):
    """Delta's ``DeltaLog`` of the table at ``path``, or None."""
    found = jvm(spark)
    if found is None:
        return None
    gateway, session = found
    return java_class(gateway, "org.apache.spark.sql.delta.DeltaLog").forTable(session, path)


def is_delta(spark, path: str) -> bool | None:
    """Whether a Delta table is at ``path`` (Delta's own check, from the driver), or None."""
    found = jvm(spark)
    if found is None:
        return None
    gateway, session = found
    # Delta's own check through the JVM, as delta-spark's DeltaTable.isDeltaTable makes it: a
    # cluster's session has Delta's classes without that Python package (the `local` extra)
    return bool(java_class(gateway, "io.delta.tables.DeltaTable").isDeltaTable(session, path))


def snapshot(spark, path: str):
    """The table's latest snapshot (the log read up to its latest commit), or None."""
    log = delta_log(spark, path)
    if log is None:
        return None
    empty = java_class(spark._jvm, "scala.Option").empty()
    return log.update(False, empty, empty)


def changes(spark, path: str, start: int, end: int):
    """The commits ``start``..``end`` as Delta's iterator of (version, actions), or None."""
    log = delta_log(spark, path)
    if log is None:
        return None
    return log.getChanges(start, end, java_class(spark._jvm, "scala.Option").empty(), False)


def default_parallelism(spark) -> int | None:
    """The cores Spark schedules tasks on, or None where the session cannot tell."""
    try:
        return spark.sparkContext.defaultParallelism
    except Exception:  # a Spark Connect session has no SparkContext
        return None


def parsed_plan(spark, statement: str) -> str | None:
    """Spark's parser's unresolved plan of ``statement`` as a tree (nothing analysed or run),
    with every field rendered; None on a session without a JVM here."""
    found = jvm(spark)
    if found is None:
        return None
    # imported when called: it loads py4j, pyspark (the JVM)
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import convert_exception

    _, session = found
    try:
        plan = session.sessionState().sqlParser().parsePlan(statement)
    except Py4JJavaError as exc:  # the ParseException spark.sql(statement) would raise
        raise convert_exception(exc.java_exception) from None
    return plan.treeString(True, False, _ALL_FIELDS, False, False)


_ALL_FIELDS = 1_000_000  # Spark cuts a node's fields at 25 by default: "... 16 more fields"


def name_jobs(spark, group: str, description: str) -> None:
    """The Spark jobs this thread starts from now on carry ``group`` and ``description``
    (the UI shows them; a test counting a step's jobs can leave them out)."""
    spark.sparkContext.setJobGroup(group, description)
