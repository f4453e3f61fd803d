"""Answers kept per commit, and the resident materialization, are never served stale: any
commit to the table, by anyone, makes the next read go to the table."""
from __future__ import annotations

from reasonlake.engine.reason import resident
from reasonlake.engine.store import session_marks, table_cache
from tests.cli.helpers import TYPE, ex, jsonl, simple_view


def test_a_kept_answer_is_reused_until_the_table_gets_a_commit(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.createDataFrame([(1,)], "x BIGINT").write.format("delta").save(path)
    reads = []

    def count() -> int:
        reads.append(1)
        return spark.read.format("delta").load(path).count()

    assert table_cache.read(spark, path, ("count",), count) == 1
    assert table_cache.read(spark, path, ("count",), count) == 1
    assert len(reads) == 1  # the second answer came from memory
    spark.createDataFrame([(2,)], "x BIGINT").write.format("delta").mode("append").save(path)
    assert table_cache.read(spark, path, ("count",), count) == 2
    assert len(reads) == 2


def test_a_write_from_elsewhere_makes_the_next_close_read_the_table(cli, spark, tmp_path):
    from reasonlake.api import Lakehouse

    view = simple_view(tmp_path)
    events = [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in range(1, 7)]
    cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    cli("slide", "v", "--until", "5000")
    lake = Lakehouse(str(cli.home), spark=spark)
    fingerprint = lake.home.view("v").fingerprint()
    facts = resident.take(lake.home, "v", fingerprint)
    assert facts is not None and facts.height == 3 * 4  # a2..a5 with their two types
    resident.keep(lake.home, "v", fingerprint, facts)  # put back, as the close left it
    # Another reasonlake writer (another process: its commits carry the mark, so the slide
    # goes on from them) removes a5's Agent type: the kept facts no longer equal the table.
    drop_agent = "DELETE FROM delta.`{}/mat_v` WHERE s = {} AND o = {}"
    with session_marks.marked(spark):
        spark.sql(drop_agent.format(cli.home, _id(lake, "a5"), _id(lake, "Agent")))
    assert resident.take(lake.home, "v", fingerprint) is None
    resident.keep(lake.home, "v", fingerprint, facts)  # even when kept again by mistake ...
    with session_marks.marked(spark):
        spark.sql(drop_agent.format(cli.home, _id(lake, "a4"), _id(lake, "Agent")))
    cli("slide", "v", "--until", "6000")  # ... the close reads the table: both deletions stay
    exported = cli("export", "v")
    assert f"{ex('a5')} {TYPE} {ex('Agent')}" not in exported
    assert f"{ex('a4')} {TYPE} {ex('Agent')}" not in exported
    assert f"{ex('a6')} {TYPE} {ex('Agent')}" in exported  # the close itself ran
    # and what the close keeps for the next one is the table, row for row
    kept = resident.take(lake.home, "v", fingerprint)
    table = {(r.s, r.p, r.o): (r.origin, r.rule, r.exp_pane)
             for r in spark.read.format("delta").load(f"{cli.home}/mat_v").collect()}
    # by pane, each fact in the table's partition
    kept = {(r["s"], r["p"], r["o"]): (r["origin"], r["rule"], r["exp_pane"])
            for r in kept.rows_of(kept.frames).iter_rows(named=True)}
    assert kept == table and len(table) == 3 * 4 - 2


def test_panes_read_ahead_serve_later_closes_until_an_ingest(cli, spark, tmp_path):
    from reasonlake.api import Lakehouse
    from reasonlake.engine.steps import admit

    view = simple_view(tmp_path)
    cli("view", "create", str(view))
    cli("ingest", "s", str(jsonl(tmp_path / "e1.jsonl",
                                 [(ex(f"a{t}"), ex("knows"), ex("b"), t * 1000) for t in (1, 2, 3, 4, 5, 7)])))
    cli("slide", "v", "--until", "5000")  # closes 4000 (from the table, read here) and 5000 (resident)
    lake = Lakehouse(str(cli.home), spark=spark)
    events = lake.home.path("events")
    before = table_cache.latest_commit(spark, events)
    ahead = [v for (path, name), (_, v) in lake.home.cache.answers.items()
             if path == events and name[0] == "panes ahead"]
    # the first close, its table read here and held in the driver (facts_here), admitted its
    # pane there and read the panes after it; the resident close took its pane from them
    assert len(ahead) == 1 and ahead[0].until == 4000 + (admit.READ_AHEAD_PANES - 1) * 1000
    assert sorted(ahead[0].rows["ts"].to_list()) == [5000, 7000]
    # a6 arrives in a pane the kept read-ahead covers: the ingest adds it there
    cli("ingest", "s", str(jsonl(tmp_path / "e2.jsonl", [(ex("a6"), ex("knows"), ex("b"), 6000)])))
    assert table_cache.latest_commit(spark, events) != before
    ahead = table_cache.peek(spark, events, ("panes ahead", "s"))
    assert sorted(ahead.rows["ts"].to_list()) == [5000, 6000, 7000] and ahead.appended[0][1] == 6000
    cli("slide", "v", "--until", "7000")
    exported = cli("export", "v")
    for name in ("a4", "a5", "a6", "a7"):
        assert f"{ex(name)} {TYPE} {ex('Agent')}" in exported
    assert f"{ex('a3')} {TYPE} {ex('Agent')}" not in exported  # expired at 7000 (width 4 s)
    # the warm state dropped: the next close reads the tables again and gives the same view
    cache = lake.home.cache
    assert cache.answers and cache.compiled
    lake.clear_cache()
    assert not (cache.answers or cache.compiled or cache.resident or cache.file_lists)
    cli("ingest", "s", str(jsonl(tmp_path / "e3.jsonl", [(ex("a8"), ex("knows"), ex("b"), 8000)])))
    cli("slide", "v", "--until", "8000")
    exported = cli("export", "v")
    for name in ("a5", "a6", "a7", "a8"):
        assert f"{ex(name)} {TYPE} {ex('Agent')}" in exported
    assert f"{ex('a4')} {TYPE} {ex('Agent')}" not in exported


def _id(lake, name: str) -> int:
    return lake.home.table("terms").where(f"term = '{ex(name)}'").first().id

