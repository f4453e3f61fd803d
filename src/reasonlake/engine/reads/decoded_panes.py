"""A view's triples decoded from the facts the driver keeps, pane by pane, for SPARQL at
a close (registered queries, ``Lakehouse.query`` in a warm process).

A query reads the view as N-Triples text. Read from the table, that is the whole window
joined three times with the term dictionary at every close (DataFusion: 0.5 s at 300k
facts, most of what a registered query added to a close). In the driver the close has
just left the window's facts in memory, by expiration pane (``paned_facts``), and a close
replaces only the panes it touches: every other pane is the very frame it was at the
previous close. So the decoded text is kept by pane too, beside the frame it was decoded
from, and a close decodes only the panes whose frame is new; expired panes are dropped.
The ids a pane needs are looked up first among the terms already decoded for the view,
and only those not there in the home's dictionary (a new item's terms).

Each call that changes the triples gives them a new ``generation`` (unique in the process)
and keeps the ``change`` from the previous one: the text of the panes it dropped or
replaced and of those it decoded. A registered query carries its solutions across such a
change instead of answering again over the window (``query.incremental``). A pane holds
each of its triples once and a triple sits in one pane, so a dropped pane's triple that is
not among the decoded ones has left the view.

What a reader sees is ``view_decoding``'s: the rows live at the close (panes after it), a
term missing from the dictionary drops its row, and no anonymous class expression.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Callable

import polars as pl

from reasonlake.engine.reason.paned_facts import PanedFacts
from reasonlake.engine.store import view_decoding as decoding

COLUMNS = ["subject", "predicate", "object"]
IDS = ["s", "p", "o"]  # kept beside the text: a registered query joins on them (``query.incremental``)
_TERMS = {"id": pl.Int64, "term": pl.String}
# the kept terms are trimmed to the window's when they outgrow it this many times
_SLACK = 3
_GENERATIONS = itertools.count(1)


@dataclass(frozen=True)
class Change:
    """From the triples of generation ``since`` to the next: the rows (ids and text) of the
    panes dropped or replaced (``removed``) and of the panes decoded in their place or new
    (``added``)."""

    since: int
    removed: pl.DataFrame
    added: pl.DataFrame


@dataclass
class DecodedPanes:
    """The decoded triples of each kept pane, with the facts frame they came from."""

    panes: dict[int, tuple[pl.DataFrame, pl.DataFrame]] = field(default_factory=dict)
    terms: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=_TERMS))
    generation: int = field(default_factory=lambda: next(_GENERATIONS))
    change: Change | None = None  # how the last call changed the triples

    def triples(self, facts: PanedFacts, at: int,
                lookup: Callable[[pl.Series], pl.DataFrame | None]) -> pl.DataFrame | None:
        """The view's triples live at close ``at`` (subject, predicate, object), the panes
        of ``facts`` decoded where they are new; ``lookup(ids)``: (id, term) of those ids
        in the home's dictionary, None where it cannot be read here (then None)."""
        live = {pane: frame for pane, frame in facts.frames.items() if pane > at}
        fresh = {pane: frame for pane, frame in live.items()
                 if pane not in self.panes or self.panes[pane][0] is not frame}
        local = self._terms_of(list(fresh.values()), lookup) if fresh else self.terms.head(0)
        if local is None:
            return None
        decoded = {pane: (frame, _decoded(frame, local)) for pane, frame in fresh.items()}
        dropped = [text for pane, (_, text) in self.panes.items() if pane not in live or pane in decoded]
        if dropped or decoded:
            since, self.generation = self.generation, next(_GENERATIONS)
            self.change = Change(since, _concat(dropped), _concat([text for _, text in decoded.values()]))
        self.panes = {pane: decoded.get(pane) or self.panes[pane] for pane in live}
        if self.terms.height > _SLACK * max(1, sum(frame.height for frame in live.values())):
            self.terms = self._terms_of_window()
        return _concat(self.rows()).select(COLUMNS)

    def rows(self) -> list[pl.DataFrame]:
        """The rows of each pane ``triples`` gave last (ids and text), each the very frame
        it was at the previous call where the pane did not change."""
        return [text for _, text in self.panes.values()]

    def _terms_of(self, frames: list[pl.DataFrame], lookup) -> pl.DataFrame | None:
        """(id, term) of every id ``frames`` name that the dictionary holds: taken from the
        kept terms, the others looked up (and kept); None where the dictionary is not read
        here. Only these terms are joined after: a join with all the kept ones would hash
        the window's every term for each of the pane's three columns."""
        needed = _ids_of(frames).get_column("id")
        local = self.terms.filter(pl.col("id").is_in(needed.implode()))
        if local.height == needed.len():
            return local
        missing = needed.filter(~needed.is_in(local.get_column("id").implode()))
        found = lookup(missing)
        if found is None:
            return None
        found = found.select(pl.col("id").cast(pl.Int64), pl.col("term").cast(pl.String))
        self.terms = pl.concat([self.terms, found])
        return pl.concat([local, found])

    def _terms_of_window(self) -> pl.DataFrame:
        """The kept terms less those no kept pane's facts name any more."""
        frames = [frame for frame, _ in self.panes.values()]
        if not frames:
            return self.terms.head(0)
        return self.terms.join(_ids_of(frames), on="id", how="semi")


def _decoded(frame: pl.DataFrame, terms: pl.DataFrame) -> pl.DataFrame:
    """A pane's facts as text beside their ids, ``terms`` holding theirs: the joins and the
    hidden-term test every reader of the table renders (``view_decoding``), in Polars' SQL;
    a term missing from the dictionary drops the row, as the table's readers do."""
    named = ", ".join(f"{x}.term AS {name}" for x, name in zip(IDS, COLUMNS))
    text = (f"SELECT m.s, m.p, m.o, {named} FROM facts m {decoding.term_joins('terms')} "
            f"WHERE {decoding.visible(decoding.POLARS)}")
    return pl.SQLContext(facts=frame.select(IDS), terms=terms).execute(text, eager=True)


def _concat(parts: list[pl.DataFrame]) -> pl.DataFrame:
    if not parts:
        return pl.DataFrame(schema={**{c: pl.Int64 for c in IDS}, **{c: pl.String for c in COLUMNS}})
    return pl.concat(parts, how="vertical", rechunk=False)


def _ids_of(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """Every id the facts of ``frames`` name (as s, p or o), once."""
    # the columns end to end: a list per row and its explode cost twenty times more
    return pl.concat([frame.get_column(c) for frame in frames for c in IDS]).unique().to_frame("id")
