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

What a reader sees is ``view_decoding``'s: the rows live at the close (panes after it), a
term missing from the dictionary drops its row, and no anonymous class expression.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import polars as pl

from reasonlake.compile.tbox import ANONYMOUS_PREFIX
from reasonlake.engine.reason.paned_facts import PanedFacts

COLUMNS = ["subject", "predicate", "object"]
_TERMS = {"id": pl.Int64, "term": pl.String}
# the kept terms are trimmed to the window's when they outgrow it this many times
_SLACK = 3


@dataclass
class DecodedPanes:
    """The decoded triples of each kept pane, with the facts frame they came from."""

    panes: dict[int, tuple[pl.DataFrame, pl.DataFrame]] = field(default_factory=dict)
    terms: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=_TERMS))

    def triples(self, facts: PanedFacts, at: int,
                lookup: Callable[[pl.Series], pl.DataFrame | None]) -> pl.DataFrame | None:
        """The view's triples live at close ``at`` (subject, predicate, object), the panes
        of ``facts`` decoded where they are new; ``lookup(ids)``: (id, term) of those ids
        in the home's dictionary, None where it cannot be read here (then None)."""
        live = {pane: frame for pane, frame in facts.frames.items() if pane > at}
        fresh = {pane: frame for pane, frame in live.items()
                 if pane not in self.panes or self.panes[pane][0] is not frame}
        if fresh and not self._know_terms_of(list(fresh.values()), lookup):
            return None
        decoded = {pane: (frame, self._decode(frame)) for pane, frame in fresh.items()}
        self.panes = {pane: decoded.get(pane) or self.panes[pane] for pane in live}
        if self.terms.height > _SLACK * max(1, sum(frame.height for frame in live.values())):
            self.terms = self._terms_of_window()
        parts = [text for _, text in self.panes.values()]
        if not parts:
            return pl.DataFrame(schema={c: pl.String for c in COLUMNS})
        return pl.concat(parts, how="vertical", rechunk=False)

    def _know_terms_of(self, frames: list[pl.DataFrame], lookup) -> bool:
        missing = _ids_of(frames).join(self.terms.select("id"), on="id", how="anti").get_column("id")
        if missing.is_empty():
            return True
        found = lookup(missing)
        if found is None:
            return False
        self.terms = pl.concat([self.terms, found.select(pl.col("id").cast(pl.Int64), pl.col("term").cast(pl.String))])
        return True

    def _decode(self, frame: pl.DataFrame) -> pl.DataFrame:
        # inner joins: a term missing from the dictionary drops the row, as the table's readers do
        decoded = frame.lazy().select("s", "p", "o")
        for column, name in zip("spo", COLUMNS):
            decoded = decoded.join(self.terms.lazy().rename({"id": column, "term": name}), on=column, how="inner")
        hidden = pl.any_horizontal(pl.col(c).str.starts_with(f"<{ANONYMOUS_PREFIX}") for c in COLUMNS)
        return decoded.filter(~hidden).select(COLUMNS).collect()

    def _terms_of_window(self) -> pl.DataFrame:
        """The kept terms less those no kept pane's facts name any more."""
        frames = [frame for frame, _ in self.panes.values()]
        if not frames:
            return self.terms.head(0)
        return self.terms.join(_ids_of(frames), on="id", how="semi")


def _ids_of(frames: list[pl.DataFrame]) -> pl.DataFrame:
    """Every id the facts of ``frames`` name (as s, p or o), once."""
    return pl.concat([frame.select(pl.concat_list("s", "p", "o").alias("id")).explode("id")
                      for frame in frames]).unique()
