"""The driver's facts kept by pane between closes (``paned_facts``): expiry, a step's
changes and the rows of the touched panes give what the one-frame computation gives (the
window filtered, "known less the changed, plus the changed", the panes recomputed from
every origin), on generated facts whose changes renew within a pane, across panes, and
add facts to panes that did not exist."""
from __future__ import annotations

import random

import polars as pl
import pytest

from reasonlake.engine.reason.paned_facts import SCHEMA, PanedFacts

PANE_MS = 100


def pane_of(column: str) -> pl.Expr:
    # a window of slide 100 ms: a fact leaves at the close after its origin's pane
    return (pl.col(column) // PANE_MS + 1) * PANE_MS


def _facts(rng: random.Random, n: int) -> pl.DataFrame:
    keys = {(rng.randrange(30), rng.randrange(3), rng.randrange(30)) for _ in range(n)}
    return pl.DataFrame([(*k, rng.randrange(0, 1000), rng.choice(["explicit", "prp-trp"])) for k in sorted(keys)],
                        schema=SCHEMA, orient="row")


def _changes(rng: random.Random, known: pl.DataFrame, newest: int | None = None) -> pl.DataFrame:
    """Renewals of some known facts (to a later origin, in the same pane or another) and new
    facts; with ``newest``, every change's origin in the pane after it (a window's new pane)."""
    rows = []
    for s, p, o, origin, _ in known.sample(n=min(15, known.height), seed=rng.randrange(1 << 30)).iter_rows():
        later = origin + rng.choice([1, 5, 150, 400]) if newest is None else max(origin + 1, newest + rng.randrange(90))
        rows.append((s, p, o, later, "explicit", origin))
    seen = {tuple(r[:3]) for r in known.iter_rows()}
    while len(rows) < 30:
        key = (rng.randrange(30, 40), rng.randrange(3), rng.randrange(40))
        if key not in seen:
            seen.add(key)
            rows.append((*key, rng.randrange(0, 1400) if newest is None else newest + rng.randrange(90),
                         "cax-sco", None))
    return pl.DataFrame(rows, schema={**SCHEMA, "prev_origin": pl.Int64}, orient="row")


def _same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    a, b = a.select(sorted(a.columns)), b.select(sorted(b.columns))
    assert a.join(b, on=a.columns, how="anti").is_empty() and b.join(a, on=b.columns, how="anti").is_empty()
    assert a.height == b.height


@pytest.mark.parametrize("seed", range(6))
def test_paned_facts_equal_the_one_frame_computation(seed):
    rng = random.Random(seed)
    known = _facts(rng, 300)
    paned = PanedFacts.of(known, pane_of("origin"))
    _same(paned.frame(), known)
    assert paned.height == known.height

    close = 500
    paned, gone = paned.expire(close)
    kept = known.filter(pane_of("origin") > close)
    assert gone == known.height - kept.height > 0
    _same(paned.frame(), kept)

    changes = _changes(rng, kept)
    after, touched = paned.changed(changes, pane_of)
    flat = pl.concat([kept.join(changes.select("s", "p", "o"), on=["s", "p", "o"], how="anti"),
                      changes.select(SCHEMA.keys())])
    _same(after.frame(), flat)
    renewed = changes.filter(pl.col("prev_origin").is_not_null())
    expected = set(changes.select(pane_of("origin")).to_series().to_list()) | set(
        renewed.select(pane_of("prev_origin")).to_series().to_list())
    assert touched == expected
    assert any(p not in PanedFacts.of(kept, pane_of("origin")).frames for p in touched), "no new pane made"
    rows = after.rows_of(touched)
    _same(rows, flat.with_columns(pane_of("origin").alias("exp_pane")).filter(pl.col("exp_pane").is_in(sorted(touched))))
    # panes not touched are the very frames they were
    assert all(after.frames[p] is paned.frames[p] for p in paned.frames if p not in touched)


def test_no_change_and_an_empty_window():
    empty = PanedFacts.of(pl.DataFrame(schema=SCHEMA), pane_of("origin"))
    assert empty.height == 0 and empty.frame().is_empty()
    same, touched = empty.changed(pl.DataFrame(schema={**SCHEMA, "prev_origin": pl.Int64}), pane_of)
    assert same is empty and touched == set()
    assert empty.rows_of({100}).columns == [*SCHEMA, "exp_pane"]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("spread", ["whole window", "new pane"])
def test_look_ups_by_the_index_find_what_a_scan_finds_close_after_close(seed, spread):
    """The index (``fact_index``) made at the first look-up, then given each close's expiry
    and changes (renewals, new facts, a tie won by an explicit item; all over the window, or
    all in its new pane), runs merged as they pile up, or dropped as their panes leave: at
    every close, the facts it finds by subject or object are those of a scan."""
    rng = random.Random(seed)
    dropped = False
    paned = PanedFacts.of(_facts(rng, 300), pane_of("origin"))
    ask = lambda: pl.Series([rng.randrange(40) for _ in range(rng.choice([1, 5, 25]))], dtype=pl.Int64)  # noqa: E731
    merged = False
    for close in range(0, 1400, 100):
        paned.touching("s", ask())  # made at the first close, kept after
        paned, _ = paned.expire(close)
        # a close's changes lie in the window (an item's time, a derivation's oldest premise)
        newest = None if spread == "whole window" else close + 300  # a window of 3 panes
        changes = _changes(rng, paned.frame(), newest).with_columns(pl.col("origin").clip(close + 1))
        ties = paned.frame().head(2).with_columns(pl.lit("explicit").alias("rule"), pl.col("origin").alias("prev_origin"))
        changes = pl.concat([changes.join(ties.select("s", "p", "o"), on=["s", "p", "o"], how="anti"), ties])
        runs = len(paned.index.runs["s"]) + 1
        paned, _ = paned.changed(changes, pane_of)
        merged = merged or len(paned.index.runs["s"]) < close // 100 + 2
        dropped = dropped or len(paned.expire(close + 100)[0].index.runs["s"]) < runs
        flat = paned.frame()
        for column in ("s", "o"):
            for values in (ask(), ask(), pl.Series([], dtype=pl.Int64)):
                _same(paned.touching(column, values).collect(), flat.filter(pl.col(column).is_in(values.implode())))
    assert merged, "no runs were merged"
    assert dropped or spread == "whole window", "no run left with its panes"


def test_an_index_of_an_empty_window_expires_and_takes_changes():
    empty = PanedFacts.of(pl.DataFrame(schema=SCHEMA), pane_of("origin"))
    assert empty.touching("s", pl.Series([1], dtype=pl.Int64)).collect().is_empty()  # the index made, empty
    later, _ = empty.expire(500)
    changes = pl.DataFrame([(1, 0, 2, 700, "explicit", None)], schema={**SCHEMA, "prev_origin": pl.Int64},
                           orient="row")
    after, _ = later.changed(changes, pane_of)
    assert after.touching("s", pl.Series([1], dtype=pl.Int64)).collect().rows() == [(1, 0, 2, 700, "explicit")]
    assert after.expire(800)[0].touching("o", pl.Series([2], dtype=pl.Int64)).collect().is_empty()
