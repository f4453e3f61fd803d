"""A view's rows as readers see them, described once and rendered for each engine that reads
the table: Spark SQL (the catalog's views, `reasonlake sql`, and DataFrame reads through
``selectExpr``) and DataFusion (delta-rs, the reads in this process, ``driver_reads``).

What a reader sees of the view's table at a published close:
- the rows of that close's window: ``origin`` after the window's opening (a close the view
  skipped is the previous published one minus what expired in between);
- the ids decoded through the term dictionary, by left joins: a term missing from it makes
  the hidden-term test null, which drops the row in both engines alike;
- no anonymous class expression of the ontology (``x rdf:type [a restriction]``): those are
  the engine's intermediate facts, nothing a reader can name;
- ``origin`` and ``expires`` as moments, null for background facts (origin ``NEVER``), and
  ``inferred``, whether a rule other than ``explicit`` gave the row.

Spark renders the moments as timestamps; DataFusion leaves them as milliseconds, which the
caller casts to UTC timestamps in Arrow (one type on every DataFusion version delta-rs ships).
"""
from __future__ import annotations

from dataclasses import dataclass

from reasonlake.compile.tbox import ANONYMOUS_PREFIX
from reasonlake.plan.windows import NEVER

TERMS = ("s.term", "p.term", "o.term")  # the decoded terms in ``select``'s joins
COLUMNS = ("subject", "predicate", "object", "origin", "expires", "inferred")


@dataclass(frozen=True)
class Dialect:
    starts_with: str  # the prefix test's function name
    timestamps: bool  # milliseconds rendered as timestamps (else left as numbers)

    def moment(self, millis: str) -> str:
        return f"timestamp_millis({millis})" if self.timestamps else millis


SPARK = Dialect("startswith", timestamps=True)
DATAFUSION = Dialect("starts_with", timestamps=False)
POLARS = Dialect("starts_with", timestamps=False)  # Polars' SQL, over frames the driver holds


def term_joins(terms: str, ids: str = "m.{}", alias: str = "") -> str:
    """The left joins that decode an id triple through the dictionary ``terms``, aliased
    ``alias`` + s, p, o; ``ids``: the id column of each position, ``{}`` standing for s, p
    or o. A term missing from the dictionary leaves its text null, which the hidden-term
    test (``visible``) drops in every dialect alike."""
    return " ".join(f"LEFT JOIN {terms} {alias}{x} ON {ids.format(x)} = {alias}{x}.id" for x in "spo")


def visible(dialect: Dialect, terms: tuple[str, str, str] = TERMS) -> str:
    """The condition that keeps a row no anonymous term is part of."""
    prefix = f"'<{ANONYMOUS_PREFIX}'"
    return "NOT (" + " OR ".join(f"{dialect.starts_with}({t}, {prefix})" for t in terms) + ")"


def expiration_pane(window, origin: str) -> str:
    """The close at which a fact of ``origin`` (a column) leaves the window, as
    ``Window.expiration_pane``: the first close at or after ``origin + width``; background
    facts (``NEVER``) never leave. One text for Spark SQL, DataFusion and Polars
    (``pl.sql_expr``)."""
    if window.landmark:  # a landmark window's facts never leave it
        return f"CASE WHEN {origin} IS NULL THEN NULL ELSE {NEVER} END"
    return (f"CASE WHEN {origin} >= {NEVER} THEN {NEVER} ELSE {int(window.first_close)} + "
            f"CAST(CEIL(CAST({origin} - {int(window.start)} AS DOUBLE) / {int(window.slide)}) AS BIGINT) "
            f"* {int(window.slide)} END")


def in_window(window, close: int, origin: str = "m.origin") -> str:
    """The condition that keeps the rows live at ``close``."""
    return f"{origin} > {int(window.opens(close))}"


def reader_columns(dialect: Dialect, window, *, terms: tuple[str, str, str] = TERMS, origin: str = "m.origin",
                   rule: str = "m.rule") -> list[str]:
    """``COLUMNS`` as select expressions over decoded terms, the row's origin and its rule."""
    kept = f"CASE WHEN {origin} < {NEVER} THEN {origin} END"  # background first, so the sum cannot overflow
    # a landmark window's facts never expire: null, as a background fact's
    expires = f"CASE WHEN {origin} IS NULL THEN {origin} END" if window.landmark else f"{kept} + {int(window.width)}"
    return [*term_columns(terms), f"{dialect.moment(kept)} AS origin", f"{dialect.moment(expires)} AS expires",
            f"{rule} <> 'explicit' AS inferred"]


def term_columns(terms: tuple[str, str, str] = TERMS) -> list[str]:
    """The decoded terms as subject, predicate, object (the same in both engines)."""
    return [f"{t} AS {name}" for t, name in zip(terms, COLUMNS[:3])]


def line(terms: tuple[str, str, str] = TERMS) -> str:
    """The row's N-Triples line (the same function in both engines)."""
    return f"concat_ws(' ', {', '.join(terms)}, '.')"


def named_triple(alias: str, item: str, terms: str) -> tuple[str, str]:
    """(the N-Triples line of the id triple ``item`` (a struct of s, p, o), the left joins
    through ``terms`` that decode it, aliased ``alias`` + s/p/o): how the violations and the
    repair log name the triples they hold."""
    joins = term_joins(terms, item + ".{}", alias)
    return line(tuple(f"{alias}{x}.term" for x in "spo")), joins


def moment_or_null(column: str) -> str:
    """Milliseconds as a Spark timestamp; background facts (origin ``NEVER``) have none."""
    return f"CASE WHEN {column} < {NEVER} THEN timestamp_millis({column}) END"


def select(dialect: Dialect, window, close: int, *, table: str, terms: str, columns: list[str] | str,
           order: str | None = None, where: str | None = None) -> str:
    """``columns`` of the view's rows live at ``close`` as readers see them: ``table`` (the
    view's table, aliased ``m``) decoded through ``terms`` (aliased ``s``, ``p``, ``o``);
    ``where``: a condition of the caller's on top.

    DataFusion is given the hidden-term test as columns (``VISIBLE``) for the caller to apply
    after the read (``visible_rows``), not as a condition: a condition on the decoded terms
    made its planner build each join's hash table on the window's side (3.1M rows keyed by
    a dozen predicates) and a read of a 3.1M-fact view grew past 12 GB, where the same joins
    without it take 2 s and 0.8 GB."""
    listed = columns if isinstance(columns, str) else ", ".join(columns)
    joins = term_joins(terms)
    shown, hidden = hidden_test(dialect)
    conditions = " AND ".join(filter(None, (in_window(window, close), hidden, f"({where})" if where else "")))
    return f"SELECT {listed}{shown} FROM {table} m {joins} WHERE {conditions}" + (f" ORDER BY {order}" if order else "")


VISIBLE = ("_visible_s", "_visible_p", "_visible_o")  # DataFusion's decoded terms, for ``visible_rows``


def hidden_test(dialect: Dialect, terms: tuple[str, str, str] = TERMS) -> tuple[str, str]:
    """How a read of decoded ``terms`` leaves out rows with an anonymous or undecoded term:
    (columns added to its SELECT, a condition added to its WHERE). Spark tests them in the
    WHERE; DataFusion selects them (``VISIBLE``) for ``visible_rows`` to test after the read
    (``select`` says why)."""
    if dialect is DATAFUSION:
        return ", " + ", ".join(f"{t} AS {name}" for t, name in zip(terms, VISIBLE)), ""
    return "", visible(dialect, terms)


def visible_rows(found):
    """DataFusion's rows of ``select`` (Arrow) that ``visible`` keeps, without the
    ``VISIBLE`` columns: every term found in the dictionary (a missing one drops the row, as
    the null test does in SQL) and none anonymous."""
    # imported when called: it loads pyarrow
    import pyarrow as pa
    import pyarrow.compute as pc

    # DataFusion's strings are views, which this pyarrow cannot filter: as plain strings
    found = found.cast(pa.schema([pa.field(f.name, pa.large_string() if f.type == pa.string_view() else f.type)
                                  for f in found.schema]))
    keep = None
    for name in VISIBLE:
        terms = found.column(name).cast(pa.string())
        named = pc.and_(pc.is_valid(terms), pc.invert(pc.starts_with(terms, f"<{ANONYMOUS_PREFIX}")))
        keep = named if keep is None else pc.and_(keep, named)
    return found.filter(keep).drop_columns(list(VISIBLE))


def reader_arrow(found, unit: str = "ms") -> dict:
    """DataFusion's ``reader_columns`` as the columns readers get: the terms as strings, the
    moments (milliseconds) as UTC timestamps of ``unit``, ``inferred`` as booleans."""
    # imported when called: it loads pyarrow
    import pyarrow as pa

    moment = pa.timestamp(unit, tz="UTC")
    return {**{c: found.column(c).cast(pa.string()) for c in COLUMNS[:3]},
            **{c: found.column(c).cast(pa.timestamp("ms", tz="UTC")).cast(moment) for c in ("origin", "expires")},
            "inferred": found.column("inferred").cast(pa.bool_())}
