"""The view's table read in this process (``driver_reads``: delta-rs) gives what Spark gives:
`export`'s lines and `sql`'s view rows at every close of a view whose table has partitions,
background facts and hidden anonymous terms; a table with deletion vectors (a Spark MERGE
at volume writes them) at each of its versions; and a fresh `reasonlake` process answers
`history`, `export`, `rules` and `explain --why` of a local home without starting Spark."""
from __future__ import annotations

import re

import pyarrow as pa

from tests.cli.helpers import TYPE, ex, jsonl, run_without_java
from tests.conftest import write

PREFIXES = ("@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .\n"
            "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n")
# a someValuesFrom class: its anonymous restriction is an internal term readers never see
ONTOLOGY = PREFIXES + (":Parent owl:equivalentClass [ a owl:Restriction ; owl:onProperty :hasChild ; "
                       "owl:someValuesFrom :Person ] .\n:hasChild rdfs:range :Person .\n:Person rdfs:subClassOf :Agent .\n")


def _view(cli, tmp_path):
    write(tmp_path / "o.ttl", ONTOLOGY)
    write(tmp_path / "bg.ttl", PREFIXES + ":carol a :Person .\n")
    write(tmp_path / "d.yaml", "name: d\nstream: s\nontology: [o.ttl]\nprofile: owl2rl\nbackground: [bg.ttl]\n"
          "window: {width: 3s, slide: 1s, start: -3000}\n")
    cli("view", "create", str(tmp_path / "d.yaml"))
    # a fact renewed at every close (its row updated in place: a deletion vector), others expiring
    events = [(ex("ann"), ex("hasChild"), ex("bob"), t) for t in range(500, 6001, 1000)]
    events += [(ex(f"p{t}"), ex("hasChild"), ex(f"c{t}"), t) for t in range(700, 6001, 1500)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))


def _home(cli, spark):
    from reasonlake.engine.store.home import Home

    return Home(spark=spark, root=str(cli.home))


def _same_rows(a, b):
    extra, missing = a.exceptAll(b), b.exceptAll(a)
    assert extra.isEmpty() and missing.isEmpty(), f"only driver: {extra.collect()}\nonly Spark: {missing.collect()}"


def test_export_and_sql_rows_read_in_the_driver_equal_spark_at_every_close(cli, spark, tmp_path, monkeypatch):
    from reasonlake.engine.reads import read
    from reasonlake.engine.store import catalog, driver_reads, state

    _view(cli, tmp_path)
    home = _home(cli, spark)
    seen_hidden = seen_background = False
    for close in (1000, 3000, 4000, 6000):
        cli("slide", "d", "--until", str(close))
        record = state.lineage(home, "d")[-1]
        monkeypatch.delenv("REASONLAKE_SMALL_TABLES", raising=False)
        assert driver_reads.view_rows(home, "d", None, close, "1 AS one") is not None, \
            "the driver did not read the view's table"
        in_driver = list(read.ntriples(home, "d"))
        frame = read.view_frame(home, "d", record)
        monkeypatch.setenv("REASONLAKE_SMALL_TABLES", "0")  # the same through Spark
        _same_rows(read.view_frame(home, "d", record), frame)
        assert driver_reads.view_rows(home, "d", None, close, "1 AS one") is None
        through_spark = list(read.ntriples(home, "d"))
        assert in_driver == through_spark, f"close {close}"
        assert any(f"{ex('ann')} {TYPE} {ex('Parent')} ." == line for line in in_driver), in_driver
        _same_rows(frame, home.spark.sql(catalog.view_sql(home, "d", record, None)))
        seen_background |= frame.where("origin IS NULL").count() > 0
        everything = home.table("terms").where("term LIKE '<urn:reasonlake:anon:%'").count()
        seen_hidden |= everything > 0
    assert seen_hidden and seen_background, "the view never held a hidden term or a background fact"
    assert "exp_pane=" in "".join(p.read_text() for p in (cli.home / "mat_d" / "_delta_log").glob("*.json"))

    # past closes through time travel, and a limit that sends the read to Spark
    monkeypatch.delenv("REASONLAKE_SMALL_TABLES")
    for close in (3000, 5000):
        from_driver = list(read.ntriples(home, "d", close=close))
        monkeypatch.setenv("REASONLAKE_SMALL_TABLES", "0")
        assert from_driver == list(read.ntriples(home, "d", close=close)), f"close {close}"
        monkeypatch.delenv("REASONLAKE_SMALL_TABLES")
    monkeypatch.setenv("REASONLAKE_DRIVER_READ_MB", "0")
    assert driver_reads.query(home.spark, {"m": (home.mat_path("d"), None)}, "SELECT count(*) FROM m") is None


def test_a_fresh_process_answers_history_and_export_without_starting_spark(cli, tmp_path):
    """No JVM can start (JAVA_HOME points nowhere): export, history and rules answer all the
    same, from the home's files; one that needs Spark says so."""
    _view(cli, tmp_path)
    cli("slide", "d", "--until", "4000")
    expected = cli("export", "d")

    def run(*args):
        return run_without_java(cli.home, tmp_path, *args)

    export = run("export", "d")
    assert export.returncode == 0 and export.stdout == expected, export.stderr[-2000:]
    history = run("history", "d")
    assert history.returncode == 0 and history.stdout == cli("history", "d"), history.stderr[-2000:]
    assert "1970-01-01T00:00:04" in history.stdout
    rules = run("rules", "d")  # the view's definition from the registry, compiled here
    assert rules.returncode == 0 and rules.stdout == cli("rules", "d"), rules.stderr[-2000:]
    assert "active rules" in rules.stdout
    # explain --why of a fact not in the view: where it was last, searched here too
    for triple in (f"{ex('ann')} {ex('hasChild')} {ex('nobody')}", f"{ex('p700')} {ex('hasChild')} {ex('c700')}"):
        absent = run("explain", "d", "--why", triple)
        cli("explain", "d", "--why", triple, expect=1)
        assert absent.returncode == 1 and absent.stderr == cli.last_err, absent.stderr[-2000:]
    assert "last there at close 1970-01-01T00:00:03" in absent.stderr, absent.stderr
    sql = run("sql", "SELECT count(*) FROM d")
    assert sql.returncode == 1 and "RL200" in sql.stderr, "`sql` (Spark SQL's dialect) answered without Spark?"


def _timeless(out: str) -> str:
    """A slide's or history's lines without the seconds each close took."""
    return re.sub(r"(?m)^(\S+\s+\d+\s+\S+(?:\s+\d+){6})\s+[\d.]+", r"\1", out)


def test_ingest_and_slide_without_a_jvm_write_what_the_spark_path_writes(cli, spark, tmp_path, capsys):
    """A fresh process ingests and slides a local home without starting Spark (delta-rs
    commits, decision 0071): its output, the view at every close, the events and the
    quarantine equal the same commands' on the in-process Spark path, Spark reads what
    delta-rs committed, and a Spark command goes on from it."""
    import shutil

    from tests.conftest import CliRunner

    _view(cli, tmp_path)
    cli("slide", "d", "--until", "4000")
    twin = CliRunner(tmp_path / "twin", capsys)
    shutil.copytree(cli.home, twin.home)
    more = [(ex("x"), ex("hasChild"), ex("y"), 4500), (ex("ann"), ex("hasChild"), ex("bob"), 5200),
            (ex("y"), TYPE, ex("Parent"), 6100)]
    stream = jsonl(tmp_path / "more.jsonl", more)
    with stream.open("a") as handle:
        handle.write('{"s": "<http://example.org/z>", "p": "not a term", "o": "<http://example.org/w>", "ts": 4700}\n')
    outputs = []
    for args in (("ingest", "s", str(stream)), ("slide", "d", "--until", "7000")):
        alone = run_without_java(twin.home, tmp_path, *args)
        assert alone.returncode == 0, alone.stderr[-2000:]
        assert _timeless(alone.stdout) == _timeless(cli(*args)), args
        outputs.append(alone.stdout)
    assert "3 items, 1 quarantined" in outputs[0] and "1970-01-01T00:00:07" in outputs[1], outputs
    def marks(home, table):
        return [h.userMetadata for h in spark.sql(f"DESCRIBE HISTORY delta.`{home / table}`").orderBy("version").collect()]

    for table in ("mat_d", "events", "view_state"):  # delta-rs's commits carry the marks Spark's do (foreign_commits)
        assert marks(twin.home, table) == marks(cli.home, table), table
    assert marks(twin.home, "mat_d")[-1].startswith("reasonlake slide close=7000"), marks(twin.home, "mat_d")
    for close in ("5000", "6000", "7000"):
        assert twin("export", "d", "--close", close) == cli("export", "d", "--close", close), close
    assert _timeless(twin("history", "d")) == _timeless(cli("history", "d"))
    for table in ("events", "quarantine", "ingests", "terms"):
        ours = spark.read.format("delta").load(str(twin.home / table)).drop("at")
        theirs = spark.read.format("delta").load(str(cli.home / table)).drop("at")
        assert ours.count() > 0 and ours.exceptAll(theirs).isEmpty() and theirs.exceptAll(ours).isEmpty(), table
    # Spark's own commands go on from delta-rs's commits
    more = jsonl(tmp_path / "last.jsonl", [(ex("bob"), ex("hasChild"), ex("cy"), 7300)])
    for args in (("ingest", "s", str(more)), ("slide", "d", "--until", "8000")):
        assert _timeless(twin(*args)) == _timeless(cli(*args)), args
    assert twin("export", "d") == cli("export", "d")


def test_a_table_with_deletion_vectors_reads_as_spark_reads_it_at_each_version(spark, tmp_path):
    from reasonlake.engine.store import driver_reads

    path = str(tmp_path / "dv")
    spark.sql(f"CREATE TABLE delta.`{path}` (s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING, "
              "exp_pane BIGINT) USING DELTA PARTITIONED BY (exp_pane) TBLPROPERTIES (delta.enableDeletionVectors = true)")
    spark.range(0, 3000).selectExpr("id AS s", "id % 7 AS p", "id * 3 AS o", "id AS origin", "'explicit' AS rule",
                                    "id % 3 AS exp_pane").write.format("delta").mode("append").save(path)
    spark.sql(f"DELETE FROM delta.`{path}` WHERE s % 10 = 0")
    spark.sql(f"UPDATE delta.`{path}` SET rule = 'renewed', origin = origin + 1 WHERE s % 100 = 1")
    log = "".join(p.read_text() for p in (tmp_path / "dv" / "_delta_log").glob("*.json"))
    assert '"deletionVector":{' in log, "Spark wrote no deletion vector: the case this test is for is gone"
    for version in (1, 2, 3, None):
        found = driver_reads.query(spark, {"t": (path, version)}, "SELECT * FROM t")
        assert found is not None, f"version {version} not read in the driver"
        reader = spark.read.format("delta")
        expected = (reader if version is None else reader.option("versionAsOf", version)).load(path)
        plain = found.cast(found.schema.set(4, found.schema.field(4).with_type(pa.string())))  # string_view
        _same_rows(spark.createDataFrame(plain).select(*expected.columns), expected)


def test_a_closes_facts_read_here_equal_sparks_live_rows_with_deletion_vectors(spark, tmp_path, monkeypatch):
    """``facts_here`` (a close that does not hold the table reads it here): its count, its
    streamed chunks (several), one pane and the look-up filter over them give the rows
    Spark reads live after the close, deletion vectors applied."""
    import polars as pl

    from reasonlake.engine.reason.neighbourhood import FilesHere
    from reasonlake.engine.store import facts_here
    from reasonlake.engine.store.home import Home

    home = Home(spark=spark, root=str(tmp_path / "home"))
    path = home.mat_path("v")
    spark.sql(f"CREATE TABLE delta.`{path}` (s BIGINT, p BIGINT, o BIGINT, origin BIGINT, rule STRING, "
              "exp_pane BIGINT) USING DELTA PARTITIONED BY (exp_pane) TBLPROPERTIES (delta.enableDeletionVectors = true)")
    spark.range(0, 3000).selectExpr("id AS s", "id % 7 AS p", "id * 3 AS o", "id AS origin", "'explicit' AS rule",
                                    "id % 3 AS exp_pane").write.format("delta").mode("append").save(path)
    spark.sql(f"DELETE FROM delta.`{path}` WHERE s % 10 = 0")
    log = "".join(p.read_text() for p in (tmp_path / "home" / "mat_v" / "_delta_log").glob("*.json"))
    assert '"deletionVector":{' in log, "Spark wrote no deletion vector: the case this test is for is gone"
    monkeypatch.setattr(facts_here, "CHUNK_ROWS", 500)

    here = facts_here.at_close(home, "v", close=0)
    assert here is not None, "a local home's table was not read here"
    live = spark.read.format("delta").load(path).where("exp_pane > 0").select("s", "p", "o", "origin", "rule")
    assert here.rows == live.count() == 1800
    chunks = list(here.chunks())
    assert len(chunks) > 1, "one chunk: the streaming this test is for is not exercised"
    _same_rows(spark.createDataFrame(pl.concat(chunks).to_arrow()), live)
    _same_rows(spark.createDataFrame(here.all(10_000).to_arrow()), live)
    assert here.all(1799) is None, "a read past its limit was not refused"
    _same_rows(spark.createDataFrame(here.panes([2], 10_000).to_arrow()), live.where("o % 9 = 6"))
    assert here.panes([1, 2], 1000) is None
    terms, predicates = pl.Series([3, 33, 1500, 2997]), pl.Series([5])
    looked_up = FilesHere(here).touching(terms, predicates, 10_000)
    expected = live.where("s IN (3, 33, 1500, 2997) OR o IN (3, 33, 1500, 2997) OR p = 5")
    assert not expected.isEmpty()
    _same_rows(spark.createDataFrame(looked_up.to_arrow()), expected)


def test_an_answer_is_the_same_read_here_or_by_spark(cli, spark, tmp_path, monkeypatch):
    """``driver_reads.answer`` always answers: by delta-rs in this process where the access
    mode reads the home's files, else by Spark over the same SQL; the two agree, at a version
    and at the latest, and so do the store's small answers built on it."""
    from reasonlake.engine.reads import audit
    from reasonlake.engine.store import access, driver_reads, materialization, state

    _view(cli, tmp_path)
    home = _home(cli, spark)
    cli("slide", "d", "--until", "4000")
    version = state.lineage(home, "d")[-2].version
    tables = {"mat": (home.mat_path("d"), version), "terms": (home.path("terms"), None)}
    sql = ("SELECT t.term, count(*) AS n, min(m.exp_pane) AS e FROM {mat} m JOIN {terms} t ON t.id = m.p "
           "GROUP BY t.term")
    answers = {}
    for small_tables in ("1", "0"):
        monkeypatch.setenv("REASONLAKE_SMALL_TABLES", small_tables)
        assert access.of(spark, home.mat_path("d")).reads_here == (small_tables == "1")
        grouped = sorted(driver_reads.answer(spark, tables, sql).to_pylist(), key=str)
        key = driver_reads.answer(spark, {"mat": (home.mat_path("d"), version)},
                                  "SELECT s, p, o FROM {mat} ORDER BY s, p, o LIMIT 1").to_pylist()[0]
        answers[small_tables] = (grouped, materialization.expiring(home, "d", 10**12),
                                 materialization.next_expiry(home, "d", 0),
                                 audit._rows_of(home, "d", version, (key["s"], key["p"], key["o"]), -10**12))
    assert answers["1"][0] and answers["1"][1] > 0 and answers["1"][2] is not None and answers["1"][3]
    assert answers["1"] == answers["0"]


def test_a_read_described_once_gives_the_same_rows_here_and_on_spark(cli, spark, tmp_path, monkeypatch):
    """A read written once as SQL for both dialects (``driver_reads.rows`` and ``frame``): an
    event query's occurrences and the expectations' decoded rows give the same multiset by
    DataFusion in this process, by Spark collected, and as Spark's planned frame. The view
    holds anonymous class expressions and background facts, which the expectations' rows
    keep and decode alike in each dialect; the occurrences are the window's arrivals."""
    import polars as pl

    from reasonlake.engine.jobs import expectations
    from reasonlake.engine.reads import query_read
    from reasonlake.engine.store import driver_reads, state
    from reasonlake.query.solutions import END, START

    _view(cli, tmp_path)
    home = _home(cli, spark)
    cli("slide", "d", "--until", "4000")
    record = state.lineage(home, "d")[-1]
    reads = {"occurrences": query_read._occurrences(home, "d", record.version, 4000, record.events_seq),
             "expectations": expectations._joined(home, home.view("d"), 4000, record.version, record.events_seq)}
    for name, (tables, render) in reads.items():
        answers = {}
        for small_tables in ("1", "0"):
            monkeypatch.setenv("REASONLAKE_SMALL_TABLES", small_tables)
            rows = pl.from_arrow(driver_reads.rows(spark, tables, render))
            answers[small_tables] = sorted(rows.cast({c: pl.String for c in rows.columns}).rows(), key=str)
        planned = driver_reads.frame(spark, tables, render)
        on_spark = sorted((tuple(None if v is None else str(v) for v in r) for r in planned.collect()), key=str)
        assert answers["1"], name
        assert answers["1"] == answers["0"] == on_spark, name
    # the expectations' rows keep the anonymous class expressions (``x a [restriction]``)
    assert any("urn:reasonlake:anon" in str(row) for row in answers["1"]), answers["1"]
    # the window (1000, 4000]'s items, once per arrival, each at its time
    occurrences = query_read.occurrences_in_driver(home, "d", record.version, 4000, record.events_seq)
    assert sorted(occurrences.select("subject", START, END).rows()) == sorted(
        [(ex("ann"), t, t) for t in (1500, 2500, 3500)] + [(ex(f"p{t}"), t, t) for t in (2200, 3700)])
