"""A view's facts held in the driver between closes, one frame per expiration pane.

A close changes few panes: the window's oldest leave it, and the step's changes land in
the panes of their origins (and leave those of the origins they renew). Kept as one frame,
every close copied the whole window twice (the expiry's filter, the step's "known less the
changed"), and found the panes to write again by computing the pane of every fact: at 10M
facts, seconds of a close whose change is 10k items. By pane, expiry drops whole frames,
a step's changes rewrite only the frames they touch, and the panes to publish are at hand:
the close's copying follows the change, not the window (issue 45, item 1). The rounds look
facts up by subject and object through an index kept beside the panes (``fact_index``,
made on the first look-up, then given each close's expiry and changes); what else they
read of every fact, they read through ``frame``: a concatenation that copies nothing.

The panes are the table's partitions (``exp_pane``, ``Window.expiration_pane`` of the
origin), so a pane here is the very set of rows the table holds in that partition.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from reasonlake.engine.reason.fact_index import PANE, FactIndex
from reasonlake.engine.store.schemas import FACT_COLUMNS as COLUMNS
from reasonlake.engine.store.schemas import FACT_FRAME_SCHEMA as SCHEMA
from reasonlake.engine.store.schemas import KEY


@dataclass(frozen=True)
class PanedFacts:
    frames: dict[int, pl.DataFrame]  # expiration pane -> its facts (s, p, o, origin, rule)
    index: FactIndex | None = field(default=None, compare=False)  # made on the first look-up

    @classmethod
    def of(cls, facts: pl.DataFrame, pane: pl.Expr) -> PanedFacts:
        """``facts`` (s, p, o, origin, rule) split by ``pane``, an expression of their
        columns (the table's ``exp_pane`` column, or the window's pane of ``origin``)."""
        if facts.is_empty():
            return cls({})
        split = facts.with_columns(pane.alias(PANE)).partition_by(PANE, as_dict=True, include_key=False)
        return cls({int(key[0]): frame.select(COLUMNS) for key, frame in split.items()})

    @property
    def height(self) -> int:
        return sum(frame.height for frame in self.frames.values())

    def frame(self) -> pl.DataFrame:
        """Every fact, as one frame over the panes' own memory."""
        if not self.frames:
            return pl.DataFrame(schema=SCHEMA)
        return pl.concat(list(self.frames.values()), how="vertical", rechunk=False)

    def expire(self, upto: int) -> tuple[PanedFacts, int]:
        """Without the panes at or before ``upto`` (those a close at ``upto`` drops from the
        table), and how many facts they held."""
        gone = [pane for pane in self.frames if pane <= upto]
        kept = {pane: frame for pane, frame in self.frames.items() if pane > upto}
        index = None if self.index is None else self.index.expire(upto)
        return PanedFacts(kept, index), sum(self.frames[pane].height for pane in gone)

    def changed(self, changes: pl.DataFrame, pane_of) -> tuple[PanedFacts, set[int]]:
        """The facts after a step's ``changes`` (s, p, o, origin, rule, prev_origin: each new
        or renewed fact, with the origin it had, null when new), and the panes that differ.
        ``pane_of(column)``: the pane of an origin column, as an expression."""
        if changes.is_empty():
            return self, set()
        frames = dict(self.frames)
        renewed = changes.filter(pl.col("prev_origin").is_not_null())
        leaving = renewed.select(*KEY, pane_of("prev_origin").alias(PANE))
        for (pane,), keys in leaving.partition_by(PANE, as_dict=True, include_key=False).items():
            if pane in frames:
                frames[pane] = frames[pane].join(keys, on=KEY, how="anti")
        arriving = changes.select(*COLUMNS, pane_of("origin").alias(PANE)).cast(SCHEMA)
        touched = set(leaving.get_column(PANE).unique().to_list())
        for (pane,), rows in arriving.partition_by(PANE, as_dict=True, include_key=False).items():
            touched.add(pane)
            frames[pane] = pl.concat([frames[pane], rows]) if pane in frames else rows
        index = None if self.index is None else self.index.changed(arriving)
        return PanedFacts({pane: frame for pane, frame in frames.items() if not frame.is_empty()}, index), touched

    def touching(self, column: str, values: pl.Series) -> pl.LazyFrame:
        """The facts whose ``column`` (s or o) is one of ``values``, found by the index."""
        if self.index is None:
            rows = self.rows_of(self.frames).rename({"exp_pane": PANE})
            object.__setattr__(self, "index", FactIndex.of(rows))
        return self.index.touching(column, values).lazy()

    def rows_of(self, panes) -> pl.DataFrame:
        """The facts of ``panes`` with their pane as ``exp_pane`` (the table's columns)."""
        parts = [self.frames[pane].with_columns(pl.lit(pane, pl.Int64).alias("exp_pane"))
                 for pane in sorted(panes) if pane in self.frames]
        if not parts:
            return pl.DataFrame(schema={**SCHEMA, "exp_pane": pl.Int64})
        return pl.concat(parts, how="vertical")
