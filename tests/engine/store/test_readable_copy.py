"""A view's readable copy (``readable_copy: true``) shows outside Spark what `reasonlake sql`
shows: read by delta-rs's default reader, Polars and DuckDB (over Arrow from delta-rs) at
every close, whether delta-rs or Spark wrote the commit; a close writes only the panes it
changed; a copy whose write failed (the close stays published) or that was turned on late
catches up at the next close; a rebuild leaves it equal again; a vacuum cleans it with the
view's tables."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.cli.helpers import ex, jsonl
from tests.conftest import write
from tests.engine.store.test_driver_reads import ONTOLOGY, PREFIXES

VIEW = ("name: d\nstream: s\nontology: [o.ttl]\nprofile: owl2rl\nbackground: [bg.ttl]\n"
        "window: {width: 3s, slide: 1s, start: -3000}\n")


def _rows(frame) -> Counter:
    """Rows as comparable tuples (timestamps as UTC milliseconds)."""
    import pyarrow as pa

    table = frame.select(["subject", "predicate", "object", "origin", "expires", "inferred"])
    cast = {c: table.column(c).cast(pa.timestamp("ms", tz="UTC")).cast(pa.int64()) for c in ("origin", "expires")}
    table = table.set_column(3, "origin", cast["origin"]).set_column(4, "expires", cast["expires"])
    return Counter(tuple(r.values()) for r in table.to_pylist())


def _sql_rows(home, view: str) -> Counter:
    """What `reasonlake sql` names the view, through Spark, as the same tuples."""
    from reasonlake.engine.store import catalog, state

    record = state.lineage(home, view)[-1]
    frame = home.spark.sql(catalog.view_sql(home, view, record, record.version)).selectExpr(
        "subject", "predicate", "object", "unix_millis(origin) AS origin", "unix_millis(expires) AS expires", "inferred")
    return Counter(tuple(r) for r in frame.collect())


def _readers(folder) -> dict[str, Counter]:
    import deltalake
    import duckdb
    import polars as pl

    table = deltalake.DeltaTable(str(folder))
    dataset = table.to_pyarrow_dataset()  # noqa: F841 (DuckDB reads the Python variable by name)
    return {
        "delta-rs": _rows(table.to_pyarrow_table()),
        "Polars": _rows(pl.read_delta(str(folder)).to_arrow()),
        "DuckDB": _rows(duckdb.sql("SELECT * EXCLUDE (exp_pane) FROM dataset").to_arrow_table()),
    }


def _last_commit(folder) -> dict:
    import deltalake

    return deltalake.DeltaTable(str(folder)).history(1)[0]


def _check(home, folder, close: int) -> Counter:
    want = _sql_rows(home, "d")
    assert want, f"close {close}: the view is empty"
    for reader, got in _readers(folder).items():
        assert got == want, f"close {close}, {reader}: extra {got - want}; missing {want - got}"
    assert json.loads(_last_commit(folder)["userMetadata"])["close"] == close
    return want


def test_the_copy_shows_what_sql_shows_to_delta_rs_polars_and_duckdb(cli, spark, tmp_path, monkeypatch):
    from reasonlake.engine.store import readable_copy
    from reasonlake.engine.store.home import Home

    write(tmp_path / "o.ttl", ONTOLOGY)
    write(tmp_path / "bg.ttl", PREFIXES + ":carol a :Person .\n")
    write(tmp_path / "d.yaml", VIEW)  # the copy off at first: turned on after two closes
    cli("view", "create", str(tmp_path / "d.yaml"))
    # a fact renewed at every close (a deletion vector in the view's table), others expiring
    events = [(ex("ann"), ex("hasChild"), ex("bob"), t) for t in range(500, 9001, 1000)]
    events += [(ex(f"p{t}"), ex("hasChild"), ex(f"c{t}"), t) for t in range(700, 9001, 1500)]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    home = Home(spark=spark, root=str(cli.home))
    folder = cli.home / "readable_d"
    cli("slide", "d", "--until", "2000")
    assert not folder.exists()

    write(tmp_path / "d.yaml", VIEW + "readable_copy: true\n")
    cli("view", "create", str(tmp_path / "d.yaml"))  # no rebuild: the copy is not the content
    cli("slide", "d", "--until", "3000")  # caught up: written whole
    _check(home, folder, 3000)
    cli("slide", "d", "--until", "4000")  # by delta-rs: the panes the close changed
    _check(home, folder, 4000)
    commit = _last_commit(folder)
    assert "exp_pane <= 4000" in commit["operationParameters"]["predicate"], commit
    assert int(commit["operationMetrics"]["num_added_files"]) <= 3, commit  # the touched panes, not the view

    monkeypatch.setenv("REASONLAKE_SMALL_TABLES", "0")  # through Spark: the log read and the write
    cli("slide", "d", "--until", "5000")
    monkeypatch.delenv("REASONLAKE_SMALL_TABLES")
    _check(home, folder, 5000)
    assert "exp_pane <= 5000" in _last_commit(folder)["operationParameters"]["predicate"]

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(readable_copy, "_write_in_driver", broken)
    cli("slide", "d", "--until", "7000")  # published all the same, with a warning
    assert "readable copy of view d" in cli.last_err, cli.last_err
    assert json.loads(_last_commit(folder)["userMetadata"])["close"] == 5000
    monkeypatch.undo()
    cli("slide", "d", "--until", "8000")  # the two closes' changes at once
    shown = _check(home, folder, 8000)
    assert any(origin is None for _, _, _, origin, _, _ in shown), "no background fact in the view"

    cli("rebuild", "d")
    _check(home, folder, 8000)
    cli("vacuum", "d")  # the copy vacuumed with the view's tables, and still kept by panes after
    assert _last_commit(folder)["operation"] == "VACUUM END"
    cli("slide", "d", "--until", "12000")  # everything but the background expired
    assert all(origin is None for _, _, _, origin, _, _ in _check(home, folder, 12000))
    assert "exp_pane <= 12000" in _last_commit(folder)["operationParameters"]["predicate"]


@pytest.mark.parametrize("text", ["readable_copy: yes please\n"])
def test_a_readable_copy_that_is_no_boolean_is_refused_naming_the_field(tmp_path, text):
    from reasonlake.declare.view import load_view
    from reasonlake.errors import ViewDeclarationError

    write(tmp_path / "o.ttl", ONTOLOGY)
    write(tmp_path / "bg.ttl", PREFIXES)
    with pytest.raises(ViewDeclarationError, match="readable_copy"):
        load_view(write(tmp_path / "d.yaml", VIEW + text))
