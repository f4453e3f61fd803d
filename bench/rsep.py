"""RSEP-QL's MATCH evaluator (``engine/jobs/rspql/matching.py``) on windows of growing size, beside
an evaluator that enumerates the thesis's definitions (``tests/rspql/events.py``, the test
oracle: one rdflib query per item and basic event pattern, Python sets of event mappings).

The window holds ``n`` items, one a millisecond, each one statement: a person likes a shop
(``:u<i> :likes :s<j>``) or visits one (``:u<i> :visits :s<j>``), 200 people and 50 shops.
The patterns:

    likes SEQ visits       EVENT :w { ?x :likes ?shop } SEQ <policy> EVENT :w { ?y :visits ?shop }
    first like             FIRST EVENT :w { ?x :likes ?shop }

under the unrestricted, chronological and recent selection policies; and the *derived
events* of a window under an ontology (``engine/reason/derived_events.py``: each fact at the
time of each of its derivations' newest premise), beside the test oracle's so-far closure
(``tests/rspql/so_far.py``), over items that say who likes a shop and who follows whom in
groups of ten (``:likes rdfs:domain :Fan``, ``:Fan rdfs:subClassOf :Person``, ``:follows``
transitive); and over the same items EP-SPARQL's *derived intervals* (``with_intervals``:
each fact over each minimal span of items that entails it), beside the definition applied
as written (``so_far.minimal_intervals``: the closure of every span). The evaluator gets the
window's items as the engine hands them (a Polars frame); reading the window from its view is
bench/rspql.py's part. The enumerator is run at a size where its time at the size before,
scaled by the square of the growth (it pairs every item with every item), stays under
``--peer-limit`` seconds. The answers (the MATCH's solutions) are compared.

    python bench/rsep.py                   # 300 to 30,000 items (about 5 min on 2 cores)
    python bench/rsep.py --quick           # 200 and 2,000 items
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from rdflib import URIRef  # noqa: E402

from reasonlake.declare import rsep  # noqa: E402
from reasonlake.engine.jobs.rspql import matching  # noqa: E402

EX = "http://example.org/"
WINDOW = f"<{EX}w>"


def items(n: int, seed: int = 7) -> list[tuple[str, str, str, int]]:
    rng = random.Random(seed)
    return [(f"u{rng.randrange(200)}", rng.choice(["likes", "visits"]), f"s{rng.randrange(50)}", ts + 1)
            for ts in range(n)]


def patterns() -> dict[str, tuple[rsep.EventPattern, object]]:
    """Each pattern, in the engine's form and the enumerator's."""
    from tests.rspql import events

    likes, visits = "?x :likes ?shop", "?y :visits ?shop"
    found = {}
    for policy in ("unrestricted", "chronological", "recent"):
        found[f"likes SEQ {policy} visits"] = (
            rsep.Seq(rsep.Event(WINDOW, likes), rsep.Event(WINDOW, visits), policy),
            events.Seq(events.Event(WINDOW.strip("<>"), likes), events.Event(WINDOW.strip("<>"), visits), policy))
    found["first like"] = (rsep.First(rsep.Event(WINDOW, likes)), events.First(events.Event(WINDOW.strip("<>"), likes)))
    return found


def item_frame(stream: list) -> pl.DataFrame:
    """The items as the engine hands them to the evaluator: one row a statement, its time and item."""
    return pl.DataFrame({"subject": [f"<{EX}{s}>" for s, _, _, _ in stream],
                         "predicate": [f"<{EX}{p}>" for _, p, _, _ in stream],
                         "object": [f"<{EX}{o}>" for _, _, o, _ in stream],
                         "$ts": [ts for *_, ts in stream], "$item": list(range(len(stream)))},
                        schema={"subject": pl.String, "predicate": pl.String, "object": pl.String,
                                "$ts": pl.Int64, "$item": pl.Int64})


def ours(pattern: rsep.EventPattern, stream: list) -> tuple[float, set]:
    frame = item_frame(stream)
    variables = tuple(dict.fromkeys(v for e in rsep.events_of(pattern) for v in ("x", "y", "shop")
                                    if f"?{v} " in f"{e.pattern} "))
    match = rsep.Match(pattern, "unrestricted", "<urn:m>", variables)
    started = time.perf_counter()
    found = matching.match(match, {WINDOW: matching.WindowItems(frame)}, {"": EX})
    seconds = time.perf_counter() - started
    return seconds, {tuple(sorted(row.items())) for row in found.solutions.iter_rows(named=True)}


def enumerated(pattern, stream: list) -> tuple[float, set]:
    from tests.rspql import events
    from tests.rspql.oracle import LandmarkWindow, WindowDecl

    triples = [((URIRef(EX + s), URIRef(EX + p), URIRef(EX + o)), ts) for s, p, o, ts in stream]
    window = WindowDecl(WINDOW.strip("<>"), "s", LandmarkWindow(0))
    scope = events.EventScope({window.name: window}, {"s": triples}, len(stream) + 1, {"": EX})
    started = time.perf_counter()
    found = events.match(pattern, scope)
    seconds = time.perf_counter() - started
    return seconds, {tuple(sorted((k, v.n3()) for k, v in mu)) for mu in found}


TBOX = (f"@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix owl: <http://www.w3.org/2002/07/owl#> . "
        f"@prefix : <{EX}> . :likes rdfs:domain :Fan . :Fan rdfs:subClassOf :Person . "
        ":follows a owl:TransitiveProperty .")


def social_items(n: int, seed: int = 7) -> list[tuple[str, str, str, int]]:
    """n items, one statement each: a like, or a follow within a group of ten people."""
    rng = random.Random(seed)
    found = []
    for ts in range(1, n + 1):
        one = rng.randrange(200)
        if rng.random() < 0.5:
            found.append((f"u{one}", "likes", f"s{rng.randrange(50)}", ts))
        else:
            found.append((f"u{one}", "follows", f"u{one // 10 * 10 + rng.randrange(10)}", ts))
    return found


def ours_derived(stream: list) -> tuple[float, set]:
    from rdflib import Graph

    from reasonlake.compile.program import compile_program
    from reasonlake.engine.reason.program_tables import encode_program
    from reasonlake.engine.reason import derived_events

    tbox = frozenset(tuple(t.n3() for t in triple) for triple in Graph().parse(data=TBOX, format="turtle"))
    program = compile_program(tbox, "rdfs-plus")
    tables, terms = encode_program(None, program), program.terms()
    frame = item_frame(stream)
    started = time.perf_counter()
    found = derived_events.with_derived(frame, tables, terms)
    seconds = time.perf_counter() - started
    return seconds, set(found.select("subject", "predicate", "object", "$ts").iter_rows())


def so_far_derived(stream: list) -> tuple[float, set]:
    from rdflib import Graph

    from tests.rspql.events import items_of
    from tests.rspql.so_far import Tbox, so_far_closures

    tbox = Tbox(Graph().parse(data=TBOX, format="turtle"))
    items = items_of("s", [((URIRef(EX + s), URIRef(EX + p), URIRef(EX + o)), ts) for s, p, o, ts in stream])
    started = time.perf_counter()
    closures = so_far_closures(items, tbox)
    seconds = time.perf_counter() - started
    return seconds, {(*(t.n3() for t in triple), item.timestamp) for item, graph in zip(items, closures)
                     for triple in graph}


def ours_intervals(stream: list) -> tuple[float, set]:
    from rdflib import Graph

    from reasonlake.compile.program import compile_program
    from reasonlake.engine.reason.program_tables import encode_program
    from reasonlake.engine.reason import derived_events

    tbox = frozenset(tuple(t.n3() for t in triple) for triple in Graph().parse(data=TBOX, format="turtle"))
    program = compile_program(tbox, "rdfs-plus")
    tables, terms = encode_program(None, program), program.terms()
    frame = item_frame(stream).select("subject", "predicate", "object", pl.col("$ts").alias("$start"),
                                      pl.col("$ts").alias("$end"))
    started = time.perf_counter()
    found = derived_events.with_intervals(frame, tables, terms)
    seconds = time.perf_counter() - started
    return seconds, set(found.iter_rows())


def definition_intervals(stream: list) -> tuple[float, set]:
    from rdflib import Graph

    from tests.rspql.so_far import Tbox, minimal_intervals

    tbox = Tbox(Graph().parse(data=TBOX, format="turtle"))
    items = [((URIRef(EX + s), URIRef(EX + p), URIRef(EX + o)), ts) for s, p, o, ts in stream]
    started = time.perf_counter()
    found = minimal_intervals(items, tbox)
    seconds = time.perf_counter() - started
    return seconds, {(*(t.n3() for t in fact), start, end) for fact, start, end in found}


def derived_rows(title: str, counted: str, ours, peer, power: int, sizes: list[int], peer_limit: float) -> None:
    """One table: ``ours`` and ``peer`` (each a stream to (seconds, answers)) at each size, the
    peer where its time, scaled by the growth to the ``power``, stays under ``peer_limit``."""
    print(f"\n{title:<32} {'items':>8} {counted:>8} {'reasonlake s':>13} {'peer s':>15} {'x':>7}  same")
    estimate = 0.0
    for k, n in enumerate(sizes):
        stream = social_items(n)
        seconds, found = ours(stream)
        row = f"{'likes, follows (rdfs-plus)':<32} {n:>8} {len(found):>8} {seconds:>13.3f}"
        if estimate < peer_limit:
            peer_time, expected = peer(stream)
            row += f" {peer_time:>15.2f} {peer_time / seconds:>7.1f}  {'yes' if found == expected else 'NO'}"
            if k + 1 < len(sizes):
                estimate = peer_time * (sizes[k + 1] / n) ** power
        else:
            row += f" {'(skipped)':>15} {'':>7}  -"
        print(row, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--peer-limit", type=float, default=60.0,
                        help="run the enumerator where its estimated time is under this")
    args = parser.parse_args()
    sizes = [200, 2000] if args.quick else [300, 3000, 30_000]
    print(f"{'pattern':<32} {'items':>8} {'answers':>8} {'reasonlake s':>13} {'enumerator s':>13} {'x':>7}  same")
    for name, (pattern, peer) in patterns().items():
        estimate = 0.0
        for k, n in enumerate(sizes):
            stream = items(n)
            seconds, found = ours(pattern, stream)
            row = f"{name:<32} {n:>8} {len(found):>8} {seconds:>13.3f}"
            if estimate < args.peer_limit:
                peer_time, expected = enumerated(peer, stream)
                row += f" {peer_time:>13.2f} {peer_time / seconds:>7.1f}  {'yes' if found == expected else 'NO'}"
                if k + 1 < len(sizes):
                    estimate = peer_time * (sizes[k + 1] / n) ** 2
            else:
                row += f" {'(skipped)':>13} {'':>7}  -"
            print(row, flush=True)
    # the so-far closure's transitive step pairs every new fact with every one: about n^5 here
    derived_rows("derived events", "events", ours_derived, so_far_derived, 5, sizes, args.peer_limit)
    # the definition: a closure per span of times (n^2), each about n^2 here
    derived_rows("derived intervals (EP-SPARQL)", "occurr.", ours_intervals, definition_intervals, 4,
                 [60, *sizes], args.peer_limit)


if __name__ == "__main__":
    main()
