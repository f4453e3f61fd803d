"""RSEP-QL's MATCH (the thesis, chapter 6) over the items of a query's windows at one
evaluation time, in Polars on the driver (decision 0074).

An *item* is what a stream received at one time: the window's occurrences (its view's
stream items that the view holds at the close, less what a repair removed) grouped by their
time. An *event mapping* (Definition 6.2) is a row: the pattern's variables, its interval
(``$start``, ``$end``) and the items it used (``$items``, ids of (stream, time)).

Definitions 6.6-6.11 evaluate a pattern inside a *contextual window* and with the bindings of
the later side of a SEQ substituted into its earlier side (mu2(E1) in [0, t3 - 1]). Both are
carried as a *context* frame: one row per place a pattern is evaluated (``$ctx``), the last
time it may read (``$bound``) and the bindings it must agree with. A pattern's mappings keep
their context's id, so that FIRST, LAST and the selection policies choose per context: a
relational form of the definitions' nested evaluation, each operator a join or a window
aggregate over all contexts at once.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import polars as pl

from reasonlake.declare.rsep import Event, EventPattern, First, Last, Match, Seq, events_of
from reasonlake.errors import SparqlError
from reasonlake.query.terms import pattern_term

CTX, BOUND, START, END, ITEMS = "$ctx", "$bound", "$start", "$end", "$items"
_LATER, _E1, _S1, _I1 = "$later", "$e1", "$s1", "$i1"
# the latest time a top-level pattern may read: every item of its windows
_OPEN = 2**62


@dataclass(frozen=True)
class WindowItems:
    """One window's items at the evaluation time: subject, predicate, object, ``$ts`` and
    ``$item`` (the item's id) per statement, those the consumption policy leaves available."""

    frame: pl.DataFrame


@dataclass(frozen=True)
class Matched:
    """A MATCH's answer: its solutions (distinct, Definition 6.9) and the items they used."""

    solutions: pl.DataFrame
    used: frozenset[int]


def match(m: Match, windows: dict[str, WindowItems], prefixes: dict[str, str]) -> Matched:
    """``MATCH E`` at one time over the windows' available items (Definition 6.9)."""
    basic = {id(event): _basic(event, windows[event.window], prefixes) for event in events_of(m.pattern)}
    top = pl.DataFrame({CTX: [0], BOUND: [_OPEN]}, schema={CTX: pl.Int64, BOUND: pl.Int64})
    frame, variables = _evaluate(m.pattern, top, [], basic)
    used = frame.select(pl.col(ITEMS).explode()).to_series().drop_nulls().unique().to_list()
    solutions = frame.select([pl.col(v) for v in m.variables]).unique()
    return Matched(solutions, frozenset(used))


def _evaluate(pattern: EventPattern, ctx: pl.DataFrame, bound: list[str], basic: dict
              ) -> tuple[pl.DataFrame, list[str]]:
    """The event mappings of ``pattern`` in each context of ``ctx`` (whose ``bound``
    variables they must agree with): columns ``$ctx``, the pattern's variables, ``$start``,
    ``$end``, ``$items``."""
    if isinstance(pattern, Event):
        return _in_contexts(*basic[id(pattern)], ctx, bound)
    if isinstance(pattern, First):  # Definition 6.7: no other mapping of the context ends before it starts
        frame, variables = _evaluate(pattern.pattern, ctx, bound, basic)
        return frame.filter(pl.col(START) <= pl.col(END).min().over(CTX)), variables
    if isinstance(pattern, Last):  # no other mapping of the context starts after it ends
        frame, variables = _evaluate(pattern.pattern, ctx, bound, basic)
        return frame.filter(pl.col(END) >= pl.col(START).max().over(CTX)), variables
    if pattern.selection == "naive":
        return _naive(pattern, ctx, bound, basic)
    return _sequence(pattern, ctx, bound, basic)


def _in_contexts(found: pl.DataFrame, variables: list[str], ctx: pl.DataFrame, bound: list[str]
                 ) -> tuple[pl.DataFrame, list[str]]:
    """A basic event pattern's matches in each context: those agreeing with its bindings
    (mu(P), substituted) at or before its last time."""
    shared = [v for v in variables if v in bound]
    context = ctx.select(CTX, BOUND, *shared)
    joined = found.join(context, on=shared, how="inner") if shared else found.join(context, how="cross")
    return joined.filter(pl.col(START) <= pl.col(BOUND)).select(CTX, *variables, START, END, ITEMS), variables


def _sequence(pattern: Seq, ctx: pl.DataFrame, bound: list[str], basic: dict) -> tuple[pl.DataFrame, list[str]]:
    """E1 SEQ E2 (Definition 6.8; 6.10 and 6.11 for the chronological and recent policies):
    each mapping of E2 is a context for E1, bounded by its start less one and binding its
    variables; the pairs keep E1's start and E2's end."""
    later, later_vars = _evaluate(pattern.later, ctx, bound, basic)
    later = later.with_row_index(_LATER).with_columns(pl.col(_LATER).cast(pl.Int64))
    carried = [v for v in bound if v not in later_vars]
    inner_ctx = later.join(ctx.select(CTX, BOUND, *carried), on=CTX).select(
        pl.col(_LATER).alias(CTX), pl.min_horizontal(BOUND, pl.col(START) - 1).alias(BOUND), *later_vars, *carried)
    earlier, earlier_vars = _evaluate(pattern.earlier, inner_ctx, [*bound, *later_vars], basic)
    earlier = earlier.select(pl.col(CTX).alias(_LATER), *[v for v in earlier_vars if v not in later_vars],
                             pl.col(START).alias(_S1), pl.col(END).alias(_E1), pl.col(ITEMS).alias(_I1))
    pairs = earlier.join(later, on=_LATER, how="inner")
    if pattern.selection == "chronological":  # (6.10): the first E2 with an earlier E1, and its first E1
        pairs = pairs.filter(pl.col(START) <= pl.col(END).min().over(CTX)) \
            .filter(pl.col(_S1) <= pl.col(_E1).min().over(_LATER))
    elif pattern.selection == "recent":  # (6.11): the last such E2, and its last E1
        pairs = pairs.filter(pl.col(END) >= pl.col(START).max().over(CTX)) \
            .filter(pl.col(_E1) >= pl.col(_S1).max().over(_LATER))
    variables = list(dict.fromkeys([*earlier_vars, *later_vars]))
    return pairs.select(CTX, *variables, pl.col(_S1).alias(START), END,
                        pl.concat_list(_I1, ITEMS).alias(ITEMS)), variables


def _naive(pattern: Seq, ctx: pl.DataFrame, bound: list[str], basic: dict) -> tuple[pl.DataFrame, list[str]]:
    """(6.9), C-SPARQL's SEQ: the last mapping of each side, kept where the first ends
    before the second starts (and the two agree)."""
    earlier, earlier_vars = _evaluate(Last(pattern.earlier), ctx, bound, basic)
    later, later_vars = _evaluate(Last(pattern.later), ctx, bound, basic)
    shared = [v for v in earlier_vars if v in later_vars]
    earlier = earlier.select(CTX, *earlier_vars, pl.col(START).alias(_S1), pl.col(END).alias(_E1),
                             pl.col(ITEMS).alias(_I1))
    pairs = earlier.join(later, on=[CTX, *shared], how="inner").filter(pl.col(_E1) < pl.col(START))
    variables = list(dict.fromkeys([*earlier_vars, *later_vars]))
    return pairs.select(CTX, *variables, pl.col(_S1).alias(START), END,
                        pl.concat_list(_I1, ITEMS).alias(ITEMS)), variables


def _basic(event: Event, items: WindowItems, prefixes: dict[str, str]) -> tuple[pl.DataFrame, list[str]]:
    """(EVENT w P) over every available item of the window (Definition 6.6): P's triples
    matched within one item (their statements joined on the item), each match an event
    mapping at the item's time."""
    triples_of = triples(event, prefixes)
    found, variables = None, []
    for k, triple in enumerate(triples_of):
        frame, columns = _triple_rows(items.frame, triple, k)
        on = ["$item", *(c for c in columns if c in variables)]
        found = frame if found is None else found.join(frame.drop("$ts"), on=on, how="inner")  # one item, one time
        variables += [c for c in columns if c not in variables]
    if found is None:  # EVENT w { }: the empty pattern matches every item
        found = items.frame.select("$item", "$ts").unique()
    shown = [v for v in variables if not v.startswith("$")]
    return found.select(*shown, pl.col("$ts").alias(START), pl.col("$ts").alias(END),
                        pl.concat_list(pl.col("$item")).alias(ITEMS)), shown


def _triple_rows(items: pl.DataFrame, triple: tuple, k: int) -> tuple[pl.DataFrame, list[str]]:
    """The statements matching one triple pattern: its variables as columns, with the item."""
    frame, seen, columns = items, {}, []
    for position, term in zip(("subject", "predicate", "object"), triple):
        if isinstance(term, str):
            frame = frame.filter(pl.col(position) == term)
        elif term[0] in seen:  # ?x :p ?x: one value in both places
            frame = frame.filter(pl.col(position) == pl.col(seen[term[0]]))
        else:
            seen[term[0]] = position
            columns.append(term[0])
    return frame.select(pl.col("$item"), pl.col("$ts"), *(pl.col(p).alias(v) for v, p in seen.items())), columns


def triples(event: Event, prefixes: dict[str, str]) -> list[tuple]:
    """The event's basic graph pattern as triples: a constant in N-Triples, a variable as
    (name,), a blank node as a hidden variable. Parsed once per pattern and prefixes (rdflib's
    parser takes a tenth of a second, and each evaluation time asks again)."""
    return list(_parsed(event, tuple(sorted(prefixes.items()))))


@lru_cache(maxsize=256)
def _parsed(event: Event, prefix_items: tuple[tuple[str, str], ...]) -> tuple[tuple, ...]:
    prefixes = dict(prefix_items)
    # imported when called: it loads rdflib
    from reasonlake.query.parse import algebra

    prologue = "".join(f"PREFIX {k}: <{v}>\n" for k, v in prefixes.items())
    try:
        root = algebra(f"{prologue}SELECT * WHERE {{ {event.pattern} }}").algebra
    except SparqlError as exc:
        raise SparqlError(f"EVENT {event.window} {{ {event.pattern} }}: {exc}") from None
    node = root.p.p if root.p.name == "Project" else root.p
    if node.name != "BGP":
        raise SparqlError(f"EVENT {event.window} {{ {event.pattern} }}: an event's pattern is triples only (a basic "
                          "graph pattern, Definition 6.6); put a FILTER or OPTIONAL outside the MATCH")

    def term(t):
        try:
            return pattern_term(t)
        except TypeError:
            raise SparqlError(f"EVENT {event.window} {{ {event.pattern} }}: a property path is not an event's "
                              "pattern (an item's triples are matched as they are)") from None
    return tuple(tuple(term(t) for t in triple) for triple in node.triples)
