"""RSEP-QL's MATCH evaluator (``engine/rspql/matching.py``) on windows of growing size, beside
an evaluator that enumerates the thesis's definitions (``tests/rspql/events.py``, the test
oracle: one rdflib query per item and basic event pattern, Python sets of event mappings).

The window holds ``n`` items, one a millisecond, each one statement: a person likes a shop
(``:u<i> :likes :s<j>``) or visits one (``:u<i> :visits :s<j>``), 200 people and 50 shops.
The patterns:

    likes SEQ visits       EVENT :w { ?x :likes ?shop } SEQ <policy> EVENT :w { ?y :visits ?shop }
    first like             FIRST EVENT :w { ?x :likes ?shop }

under the unrestricted, chronological and recent selection policies. The evaluator gets the
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
from reasonlake.engine.rspql import matching  # noqa: E402

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


def ours(pattern: rsep.EventPattern, stream: list) -> tuple[float, set]:
    frame = pl.DataFrame({"subject": [f"<{EX}{s}>" for s, _, _, _ in stream],
                          "predicate": [f"<{EX}{p}>" for _, p, _, _ in stream],
                          "object": [f"<{EX}{o}>" for _, _, o, _ in stream],
                          "$ts": [ts for *_, ts in stream], "$item": list(range(len(stream)))},
                         schema={"subject": pl.String, "predicate": pl.String, "object": pl.String,
                                 "$ts": pl.Int64, "$item": pl.Int64})
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


if __name__ == "__main__":
    main()
