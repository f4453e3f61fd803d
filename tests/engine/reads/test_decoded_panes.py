"""The view's triples a query reads, decoded pane by pane from the facts the driver keeps
(``decoded_panes``), are the table's rows as its readers see them (``driver_reads``),
close after close of a generated stream that derives, expires and renews; panes a close
did not touch are not decoded again; each close's recorded change (panes removed, panes
added) takes the previous close's triples to this close's."""
from __future__ import annotations

from collections import Counter

import polars as pl

from reasonlake.api import Lakehouse
from reasonlake.engine.reads import query_read
from reasonlake.engine.store import driver_reads
from reasonlake.engine.store import view_decoding as decoding
from tests.cli.helpers import jsonl, simple_view
from tests.engine.packed import generate


def _rows(frame) -> Counter:
    return Counter(frame.select("subject", "predicate", "object").iter_rows())


def test_triples_decoded_by_pane_are_the_tables_rows_at_every_close(cli, spark, tmp_path):
    cases = generate("rdfs-plus", count=6, shapes=((3000, 1000),))
    view = simple_view(tmp_path, width="3s", slide="1s", tbox="".join(c.ttl() for c in cases))
    cli("view", "create", str(view))
    events = [(s, p, o, t) for c in cases for (s, p, o), t in c.events + c.late]
    cli("ingest", "s", str(jsonl(tmp_path / "e.jsonl", events)))
    lake = Lakehouse(str(cli.home), spark=spark)
    home = lake.home
    decoded_at, reused, previous, before, changed = [], 0, {}, None, 0
    for close in range(3000, 10000, 1000):
        cli("slide", "v", "--until", str(close))
        version = lake.history("v")[-1].version
        found = query_read._decoded_here(home, "v", version, close)
        if found is None:
            continue
        found, panes_now = found
        decoded_at.append(close)
        table = driver_reads.view_rows(home, "v", version, close, decoding.term_columns())
        assert table is not None
        expected = _rows(pl.from_arrow(table).select(pl.col(c).cast(pl.String) for c in ("subject", "predicate", "object")))
        got = _rows(found)
        assert got - expected == Counter() and expected - got == Counter(), close
        assert max(got.values(), default=1) == 1  # each triple once: the queries read them as a set
        if before is not None and panes_now.change is not None and panes_now.change.since == before[0]:
            removed, added = (set(_rows(f)) for f in (panes_now.change.removed, panes_now.change.added))
            assert removed <= before[1], close
            assert (before[1] - (removed - added)) | added == set(got), close
            changed += 1
        before = (panes_now.generation, set(got))
        panes = home.cache.decoded_panes[home.mat_path("v")].panes
        reused += sum(1 for pane, (_, text) in panes.items() if previous.get(pane) is text)
        previous = {pane: text for pane, (_, text) in panes.items()}
    assert len(decoded_at) >= 4, decoded_at  # the closes ran in the driver, from the kept facts
    assert reused > 0  # a pane no close touched kept its decoded text
    assert changed >= 3  # closes whose change was checked
    totals = {k: sum(getattr(r, k) for r in lake.history("v")) for k in ("derived", "expired", "renewed")}
    assert all(totals.values()), totals
