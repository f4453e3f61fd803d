"""Derived facts as event occurrences (decision 0074, "Derived events").

Under a query's entailment regime a basic event pattern matches each item's *so-far
closure* (the thesis, Definition 7.5 and Figure 7.2): the item's statements and every fact
the window's items up to the item's time entail with the ontology through a derivation that
uses the item. A fact "starts to hold when the most recent of [its premises] appears", so a
derived fact occurs at the time of the newest premise of each of its derivations: once per
distinct newest premise, so that a later item deriving it again makes a new occurrence. Its
item is the one at that time: the item consumed when an answer uses the occurrence.

How: the window's view's compiled rules run in Polars (``driver_rules.derive``) over facts
whose origin column holds *minus* the time of their newest premise. A derivation's origin is
the least of its premises' (IMaRS's expiration rule), which is minus the greatest time: the
newest premise. Every (fact, time) pair is kept, where a close keeps one per fact. Background
facts of the ontology carry the engine's NEVER and so never set a time; a fact derived from
them alone is not an event.

EP-SPARQL's event queries over a view (``with_intervals``) read a derived fact over an
*interval*: from the oldest to the newest premise of a derivation (Anicic et al.: a
conjunction of events spans both). The occurrences kept are the *minimal* intervals: [s, e]
such that the window's items within [s, e] entail the fact and those within no shorter
interval inside it do; an item is its own, at its time. The same rules run over origins
that hold an interval (``_hull`` combines a derivation's premises), each round keeping per
fact the intervals that hold no other; a transitive property is joined apart (``_chained``)
with the intervals of the other link that can give a minimal one (decision 0074,
"Derived intervals").
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import polars as pl

from reasonlake.engine.reason.driver_rules import derive, empty, fixpoint, vector_program
from reasonlake.engine.reason.program_tables import CONSTANT, ProgramTables
from reasonlake.engine.store.dictionary import driver_term_id, driver_term_ids
from reasonlake.engine.store.schemas import EXPLICIT, FACT_FRAME_SCHEMA, KEY
from reasonlake.plan.windows import NEVER
from reasonlake.query.solutions import END, START

TS, ITEM = "$ts", "$item"
TERMS = ("subject", "predicate", "object")
_TIMED = [*KEY, "origin"]  # a fact at one time: the key of what a round keeps
_ROUNDS = 10_000  # a guard: the (fact, time) pairs are finite, so the rounds end long before


def can_match(tables: ProgramTables, patterns: Iterable[tuple]) -> bool:
    """Whether a fact the rules derive can match one of the patterns' triples (constants in
    N-Triples, variables as 1-tuples): a window whose events are read only by patterns on
    what no rule derives is not closed (with no ENTAILMENT, no rule derives anything)."""
    heads = _heads(vector_program(tables))
    if heads is None:
        return True
    for _, p, o in patterns:
        if isinstance(p, tuple):
            return True
        predicate = driver_term_id(p)
        if (predicate, None) in heads or (predicate, None if isinstance(o, tuple) else driver_term_id(o)) in heads:
            return True
        if isinstance(o, tuple) and any(head == predicate for head, _ in heads):
            return True
    return False


def _kept_on(program, name: str, make):
    """``make(program)``, kept on the program (compiled once per view), not made again at
    each evaluation."""
    if name not in program.__dict__:
        program.__dict__[name] = make(program)
    return program.__dict__[name]


def _heads(program) -> set[tuple[int, int | None]] | None:
    """What the rules' heads can be: (predicate, object, or None for any); None: anything."""
    return _kept_on(program, "_heads", _walked_heads)


def _walked_heads(program) -> set[tuple[int, int | None]] | None:
    heads = set()
    for rules in (program.by_value, program.by_property):
        for out_p, out_o_from, out_o in rules.select("out_p", "out_o_from", "out_o").iter_rows():
            heads.add((out_p, out_o if out_o_from == CONSTANT else None))
    heads |= {(p, None) for p in program.transitive.get_column("p").to_list()}
    for group in program.joins:
        (p_kind, p_slot), (o_kind, o_slot) = group.head[1], group.head[2]
        if p_kind != "k":
            return None
        for row in group.rows:
            heads.add((row[p_slot + 1], row[o_slot + 1] if o_kind == "k" else None))
    return heads


def with_derived(items: pl.DataFrame, tables: ProgramTables, terms: Iterable[str]) -> pl.DataFrame:
    """``items`` (subject, predicate, object, ``$ts``, ``$item``) and the facts derived from
    them at each of their times, on the item of that time; ``terms``: the rules' constants,
    which a derived fact may hold."""
    if items.height == 0:
        return items
    ids = _term_ids(items, terms)
    seed = _encoded(items.with_columns((-pl.col(TS)).alias("origin")), ids)  # minus the time: the newest wins
    found = _timed_fixpoint(vector_program(tables), seed, tables.driver_background)
    derived = found.filter(pl.col("origin") != NEVER).join(seed, on=_TIMED, how="anti")
    if derived.height == 0:
        return items
    decoded = _named(derived.select(*KEY, (-pl.col("origin")).alias(TS)), ids)
    keys = items.select(TS, ITEM).unique()
    rows = decoded.join(keys, on=TS, how="inner").select(items.columns)
    return pl.concat([items, rows.cast(items.schema)]).unique()


def _term_ids(items: pl.DataFrame, terms: Iterable[str]) -> pl.DataFrame:
    """The ids (``id``, ``term``) of the items' terms and the rules' constants."""
    return driver_term_ids(pl.concat([items.get_column(c) for c in TERMS] + [pl.Series(list(terms), dtype=pl.String)]))


def _encoded(items: pl.DataFrame, ids: pl.DataFrame) -> pl.DataFrame:
    """The items (subject, predicate, object, origin) as facts: term ids."""
    frame = items.select(*TERMS, "origin")
    for name, column in zip(TERMS, KEY):
        frame = frame.join(ids.rename({"term": name, "id": column}), on=name, how="inner")
    return frame.select(*KEY, "origin", pl.lit(EXPLICIT).alias("rule")).cast(FACT_FRAME_SCHEMA).unique(_TIMED)


def _named(facts: pl.DataFrame, ids: pl.DataFrame) -> pl.DataFrame:
    """``facts`` with the terms their ids name (subject, predicate, object): ``_encoded`` undone."""
    for column, name in zip(KEY, TERMS):
        facts = facts.join(ids.select(pl.col("id").alias(column), pl.col("term").alias(name)), on=column, how="inner")
    return facts


def _timed_fixpoint(program, seed: pl.DataFrame, background: pl.DataFrame | None) -> pl.DataFrame:
    """Every (fact, minus newest premise time) reachable from ``seed`` and the background.

    Pairing every time of one premise with every time of another would build, for a
    transitive property restated often, a row per combination (37 million for 100 thousand
    pairs at 3,000 items). It is not needed: a rule instance gives its head the time t of
    one premise exactly when each other premise already holds at t, i.e. its *earliest*
    time is at most t. So the earliest times come first (the engine's own fixpoint, one row
    per fact: the best origin is minus the earliest newest-premise time), and then each new
    (fact, time) pair is joined with the other premises' earliest times only, the least of
    the origins being the pair's own time or the later earliest time, both of them times
    the head holds at."""
    facts = seed if background is None else pl.concat([seed, background.cast(FACT_FRAME_SCHEMA)]).unique(_TIMED)
    earliest = fixpoint(program, empty(), facts).known.select(FACT_FRAME_SCHEMA.keys())
    known = delta = facts
    for _ in range(_ROUNDS):
        candidates = derive(program, delta, earliest.lazy()).collect().unique(_TIMED)
        delta = candidates.join(known, on=_TIMED, how="anti")
        if delta.height == 0:
            return known
        known = pl.concat([known, delta])
    raise RuntimeError("derived events: the rules did not reach a fixpoint")  # unreachable: pairs are finite


# an interval in one origin: the rank of its start, shifted, and of its end; the background's
# facts hold no time: a start after every item and an end before, which a hull ignores
_SHIFT = 1 << 32
_TIMELESS = (_SHIFT // 2 - 1) * _SHIFT
S, E = "$s", "$e"


def _hull(columns: list[str]) -> pl.Expr:
    """A derivation's interval: from its premises' earliest start to their latest end."""
    return (pl.min_horizontal([pl.col(c) // _SHIFT for c in columns]) * _SHIFT
            + pl.max_horizontal([pl.col(c) % _SHIFT for c in columns]))


def with_intervals(occurrences: pl.DataFrame, tables: ProgramTables, terms: Iterable[str]) -> pl.DataFrame:
    """``occurrences`` (subject, predicate, object, ``START``, ``END``: a window's items, each
    at its time) and the facts derived from them over each of their minimal intervals (the
    module's doc); ``terms``: the rules' constants, which a derived fact may hold."""
    if occurrences.height == 0:
        return occurrences
    items = occurrences.select(*TERMS, pl.col(START).alias(TS))
    ids = _term_ids(items, terms)
    times = items.select(pl.col(TS).unique().sort()).with_row_index("rank", offset=1) \
        .with_columns(pl.col("rank").cast(pl.Int64))
    ranked = items.join(times, on=TS).with_columns((pl.col("rank") * _SHIFT + pl.col("rank")).alias("origin"))
    facts = _encoded(ranked, ids)
    background = tables.driver_background
    if background is not None and background.height:
        facts = pl.concat([facts, background.cast(FACT_FRAME_SCHEMA).with_columns(pl.lit(_TIMELESS).alias("origin"))])
    known = delta = _minimal(_split(facts))
    program = vector_program(tables)
    others = _without_transitive(program)
    for _ in range(_ROUNDS):
        candidates = derive(others, _joined(delta), _joined(known).lazy(), combine=_hull).collect()
        candidates = pl.concat([_split(candidates), *_chained(delta, known, program)])
        delta = _not_dominated(_minimal(candidates), known)
        if delta.height == 0:
            break
        known = pl.concat([_not_dominated(known, delta), delta])  # what a new interval lies inside goes
    else:  # unreachable: each round adds intervals of item times, which are finite
        raise RuntimeError("derived intervals: the rules did not reach a fixpoint")
    found = known.filter(pl.col(S) < _SHIFT // 2 - 1)  # a fact of the background alone is no event
    for column, rank in ((START, S), (END, E)):
        found = found.join(times.rename({"rank": rank, TS: column}), on=rank)
    derived = _named(found, ids).select(occurrences.columns).cast(occurrences.schema) \
        .join(occurrences, on=occurrences.columns, how="anti")  # an item is there once per arrival already
    return pl.concat([occurrences, derived])


def _without_transitive(program):
    """The program less its transitive properties (``_chained`` applies them)."""
    return _kept_on(program, "_without_transitive", lambda p: replace(p, transitive=p.transitive.clear()))


def _chained(delta: pl.DataFrame, known: pl.DataFrame, program) -> list[pl.DataFrame]:
    """prp-trp (and eq-trans) over intervals: (a p b) and (b p c) give (a p c), with a
    premise in Δ. The rule engine's join would pair an interval [s, e] with every interval of
    the other link's fact; few can give a minimal hull. That fact's intervals form a chain
    (ends grow with starts): of those starting at or after s, the first (each later one ends
    later); of those starting at or before s, the latest ending by e (the hull ends at e, and
    the earlier ones' hulls hold it) and every later one (hulls [s2, e2], none inside
    another). These are one run of the chain, from the latest ending by e to the first
    starting after s: two as-of joins find its ends, and the pairs grow with the hulls."""
    transitive = program.transitive.select("p")
    d = delta.join(transitive, on="p", how="semi")
    if d.height == 0:
        return []
    group = ["$ps", "p", "$po"]  # the other link's fact
    chains = known.join(transitive, on="p", how="semi").select(
        pl.col("s").alias("$ps"), "p", pl.col("o").alias("$po"), pl.col(S).alias("$s2"), pl.col(E).alias("$e2")
    ).sort([*group, "$s2"]).with_row_index("$i").with_columns(pl.col("$i").min().over(group).alias("$first"))
    ends = chains.group_by(group).agg(pl.col("$first").first(), pl.col("$i").max().alias("$last"))
    # Δ then known: (a p b) in Δ, (b p c) known; known then Δ: (a p b) known, (b p c) in Δ
    after = d.join(ends.rename({"$ps": "o", "$po": "$c"}), on=["p", "o"]).select(
        "s", "p", pl.col("$c").alias("o"), S, E, "$first", "$last")
    before = d.join(ends.rename({"$ps": "$a", "$po": "s"}), on=["p", "s"]).select(
        pl.col("$a").alias("s"), "p", "o", S, E, "$first", "$last")
    pairs = pl.concat([after, before]).filter(~((pl.col("p") == program.same_as_id) & (pl.col("s") == pl.col("o"))))
    # the chain's position of the latest starting by s, and (in the pairs' order) of the latest ending by e;
    # a chain's first position names it (both sides sorted on their key: so within every chain)
    pairs = pairs.sort(S).with_row_index("$pair").join_asof(
        chains.select("$first", "$s2", pl.col("$i").alias("$by_s")), left_on=S, right_on="$s2", by="$first",
        strategy="backward", check_sortedness=False)
    by_e = pairs.select("$pair", E, "$first").sort(E).join_asof(
        chains.select("$first", "$e2", pl.col("$i").alias("$by_e")).sort("$e2"), left_on=E, right_on="$e2",
        by="$first", strategy="backward", check_sortedness=False).sort("$pair").get_column("$by_e")
    latest = pl.col("$by_s")
    last = pl.when(latest.is_null()).then("$first").otherwise(pl.min_horizontal(latest + 1, "$last"))
    first = pl.when(latest.is_null()).then("$first").otherwise(
        pl.min_horizontal(pl.coalesce("$by_e", "$first"), latest))
    runs = pairs.with_columns(by_e).select(
        *KEY, S, E, pl.int_ranges(first, last + 1, dtype=pl.UInt32).alias("$i")).explode("$i")
    s2, e2 = (chains.get_column(c).gather(runs.get_column("$i")) for c in ("$s2", "$e2"))
    return [runs.select(*KEY, pl.min_horizontal(pl.col(S), s2).alias(S), pl.max_horizontal(pl.col(E), e2).alias(E))]


def _split(facts: pl.DataFrame) -> pl.DataFrame:
    return facts.select(*KEY, (pl.col("origin") // _SHIFT).alias(S), (pl.col("origin") % _SHIFT).alias(E))


def _joined(intervals: pl.DataFrame) -> pl.DataFrame:
    return intervals.select(*KEY, (pl.col(S) * _SHIFT + pl.col(E)).alias("origin"), pl.lit(EXPLICIT).alias("rule")
                            ).cast(FACT_FRAME_SCHEMA)


def _minimal(intervals: pl.DataFrame) -> pl.DataFrame:
    """Each fact's intervals that hold none of its others: by start from the latest, an
    interval is kept where it ends before every one starting later (or as late, ending sooner)."""
    soonest = intervals.group_by(*KEY, S).agg(pl.col(E).min())  # of those starting together, the first to end
    ordered = soonest.sort([*KEY, S], descending=[False, False, False, True])
    sooner = pl.col(E).cum_min().shift(1).over(KEY)
    return ordered.filter(sooner.is_null() | (pl.col(E) < sooner))


def _not_dominated(intervals: pl.DataFrame, by: pl.DataFrame) -> pl.DataFrame:
    """``intervals`` less those holding (or equal to) an interval of ``by`` for the same fact.
    ``by`` holds no interval of a fact inside another, so its intervals' ends grow with their
    starts: the first of them starting at or after an interval's start ends soonest."""
    against = by.select(*KEY, pl.col(S).alias("$bs"), pl.col(E).alias("$be")).sort("$bs")
    joined = intervals.sort(S).join_asof(against, left_on=S, right_on="$bs", by=KEY, strategy="forward",
                                                check_sortedness=False)  # sorted above, by S within every group
    return joined.filter(pl.col("$be").is_null() | (pl.col("$be") > pl.col(E))).select(*KEY, S, E)
