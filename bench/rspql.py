"""An RSP-QL query over two windows of one stream, kept incrementally, beside re-evaluating both
windows from scratch at every evaluation time.

The thesis's trending shops (Listing 8.5), on a stream of mentions ``:m<i> :isNearby :shop<j>``
(one item a millisecond; a shop's share of the mentions drifts, so shops trend and fade), under
an ontology (``:isNearby rdfs:subPropertyOf :near``: the query counts ``:near``, which only the
entailment gives):

    REGISTER RSTREAM :trending AS CONSTRUCT { ?shop a :PopularShop }
    FROM NAMED WINDOW :lwin ON :mentions [RANGE W STEP W/100]      # --items W: the long window
    FROM NAMED WINDOW :swin ON :mentions [RANGE W/5 STEP W/100]    # the short one, a fifth of it
    FROM GRAPH <shops.nt>
    WHERE { ?shop a :Shop
            WINDOW :lwin { SELECT ?shop (COUNT(*) AS ?long) WHERE { ?m :near ?shop } GROUP BY ?shop }
            WINDOW :swin { SELECT ?shop (COUNT(*) AS ?short) WHERE { ?m :near ?shop } GROUP BY ?shop }
            FILTER(?short * 5 > ?long * 3 / 2) }

Each evaluation time is a 1% slide of the long window (and 5% of the short one). reasonlake:
the query registered, both windows built at the first evaluation time (``rebuild``, timed apart),
then ``Lakehouse.advance`` to each next time, timed whole: both views slid and the query
answered over them. The peers at the same times, from scratch: pyoxigraph (a Rust SPARQL store)
given both windows' items with the one entailment rule applied in Python (it has no reasoner),
loaded into named graphs and queried; rdflib over owlrl's closure of each window, in a process
of its own stopped after ``--rdflib-timeout`` seconds (a lower bound then), at the first time
only. The answers are compared shop for shop.

    python bench/rspql.py                  # a 1M-item long window, 5 slides (about 15 min on 2 cores)
    python bench/rspql.py --items 100000   # a 100k window
    python bench/rspql.py --quick          # a smoke run: 20,000 items, 3 slides
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import shutil
import statistics
import sys
import time
from pathlib import Path

EX = "http://example.org/"
SHOPS = 200


def query(long: int, short: int, step: int) -> str:
    return f"""PREFIX : <{EX}>
ENTAILMENT rdfs-plus ONTOLOGY <shops.ttl>
REGISTER RSTREAM :trending AS CONSTRUCT {{ ?shop a :PopularShop }}
FROM NAMED WINDOW :lwin ON :mentions [RANGE {long}ms STEP {step}ms]
FROM NAMED WINDOW :swin ON :mentions [RANGE {short}ms STEP {step}ms]
FROM GRAPH <shops.nt>
WHERE {{ ?shop a :Shop
  WINDOW :lwin {{ SELECT ?shop (COUNT(*) AS ?long) WHERE {{ ?m :near ?shop }} GROUP BY ?shop }}
  WINDOW :swin {{ SELECT ?shop (COUNT(*) AS ?short) WHERE {{ ?m :near ?shop }} GROUP BY ?shop }}
  FILTER(?short * 5 > ?long * 3 / 2) }}
"""


# the same query over named graphs, for the peers (they know no WINDOW)
PEER_QUERY = f"""PREFIX : <{EX}>
SELECT ?shop WHERE {{ ?shop a :Shop
  GRAPH :lwin {{ SELECT ?shop (COUNT(*) AS ?long) WHERE {{ ?m :near ?shop }} GROUP BY ?shop }}
  GRAPH :swin {{ SELECT ?shop (COUNT(*) AS ?short) WHERE {{ ?m :near ?shop }} GROUP BY ?shop }}
  FILTER(?short * 5 > ?long * 3 / 2) }}"""
ONTOLOGY = f"<{EX}isNearby> <http://www.w3.org/2000/01/rdf-schema#subPropertyOf> <{EX}near> .\n"


def shop_of(rng: random.Random, ts: int, total: int) -> int:
    """A shop drawn with a share that drifts over the stream: every shop's weight follows its
    own slow wave, so some trend while others fade."""
    phase = ts / max(1, total)
    while True:
        shop = rng.randrange(SHOPS)
        if rng.random() < 0.2 + 0.8 * ((shop * 7919 % 97) / 97 + phase) % 1.0:
            return shop


def generate(folder: Path, items: int, seed: int, per_file: int = 200_000) -> list[Path]:
    """The mentions of times 1..items (one a millisecond), ``per_file`` JSONL rows a file."""
    rng = random.Random(seed)
    files = []
    for first in range(1, items + 1, per_file):
        files.append(folder / f"mentions-{len(files):04d}.jsonl")
        files[-1].write_text("".join(
            json.dumps({"s": f"<{EX}m{ts}>", "p": f"<{EX}isNearby>", "o": f"<{EX}shop{shop_of(rng, ts, items)}>",
                        "ts": ts}) + "\n" for ts in range(first, min(first + per_file, items + 1))))
    return files


def window_items(files: list[Path], opens: int, closes: int) -> list[tuple[str, str]]:
    """(mention, shop) of the items in (opens, closes]: one item a millisecond, numbered by time."""
    found = []
    for file in files:
        for line in file.open():
            row = json.loads(line)
            if opens < row["ts"] <= closes:
                found.append((row["s"][1:-1], row["o"][1:-1]))
    return found


def oxigraph_answer(lwin: list, swin: list) -> tuple[set[str], float]:
    """pyoxigraph from scratch: both windows' items and what the subproperty axiom entails
    (the one rule, applied here) loaded into named graphs, the shops in the default graph."""
    import pyoxigraph as ox

    started = time.perf_counter()
    store = ox.Store()
    quads = []
    near, nearby, shop_class = ox.NamedNode(f"{EX}near"), ox.NamedNode(f"{EX}isNearby"), ox.NamedNode(f"{EX}Shop")
    for name, items in (("lwin", lwin), ("swin", swin)):
        graph = ox.NamedNode(f"{EX}{name}")
        for mention, shop in items:
            m, s = ox.NamedNode(mention), ox.NamedNode(shop)
            quads += [ox.Quad(m, nearby, s, graph), ox.Quad(m, near, s, graph)]
    rdf_type = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    quads += [ox.Quad(ox.NamedNode(f"{EX}shop{j}"), rdf_type, shop_class, ox.DefaultGraph()) for j in range(SHOPS)]
    store.bulk_extend(quads)
    shops = {solution["shop"].value for solution in store.query(PEER_QUERY)}
    return shops, time.perf_counter() - started


def _rdflib_worker(lwin: list, swin: list, out) -> None:
    """rdflib over owlrl's closure of each window, from scratch, in a process of its own."""
    import owlrl
    from rdflib import RDF, Dataset, Graph, URIRef

    started = time.perf_counter()
    dataset = Dataset()
    for name, items in (("lwin", lwin), ("swin", swin)):
        graph = Graph()
        graph.parse(data=ONTOLOGY, format="nt")
        for mention, shop in items:
            graph.add((URIRef(mention), URIRef(f"{EX}isNearby"), URIRef(shop)))
        owlrl.DeductiveClosure(owlrl.RDFS_Semantics, axiomatic_triples=False, datatype_axioms=False).expand(graph)
        target = dataset.graph(URIRef(f"{EX}{name}"))
        for triple in graph:
            target.add(triple)
    for j in range(SHOPS):
        dataset.default_graph.add((URIRef(f"{EX}shop{j}"), RDF.type, URIRef(f"{EX}Shop")))
    shops = {str(row.shop) for row in dataset.query(PEER_QUERY)}
    out.put((sorted(shops), time.perf_counter() - started))


def rdflib_answer(lwin: list, swin: list, timeout: float) -> tuple[set[str] | None, float]:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    worker = context.Process(target=_rdflib_worker, args=(lwin, swin, out))
    worker.start()
    try:
        shops, seconds = out.get(timeout=timeout)
    except Exception:  # queue.Empty: stopped, a lower bound
        worker.kill()
        return None, timeout
    worker.join(timeout=5)
    return set(shops), seconds


def our_answer(home: Path, t: int) -> set[str]:
    import deltalake
    import polars as pl

    table = pl.from_arrow(deltalake.DeltaTable(str(home / "rspql_trending")).to_pyarrow_table())
    return {s[1:-1] for s in table.filter(pl.col("close") == t).get_column("subject")}


def main(argv=None) -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=1_000_000, help="items in the long window (default 1,000,000)")
    p.add_argument("--slides", type=int, default=5, help="1%% slides timed (default 5)")
    p.add_argument("--rdflib-timeout", type=float, default=600, help="seconds for rdflib's one evaluation")
    p.add_argument("--quick", action="store_true", help="a smoke run: 20,000 items, 3 slides")
    p.add_argument("--out", default=str(here / "out"))
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    if args.quick:
        args.items, args.slides, args.rdflib_timeout = 20_000, 3, 60
    from reasonlake.api import Lakehouse

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    long_width = args.items
    step, short_width = max(1, long_width // 100), max(1, long_width // 5)
    work = Path(args.out).resolve() / "rspql-work"
    shutil.rmtree(work, ignore_errors=True)
    (work / "stream").mkdir(parents=True)
    (work / "shops.ttl").write_text(ONTOLOGY)
    (work / "shops.nt").write_text("".join(f"<{EX}shop{j}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                                           f"<{EX}Shop> .\n" for j in range(SHOPS)))
    (work / "trending.rspql").write_text(query(long_width, short_width, step))
    total = long_width + args.slides * step
    files = generate(work / "stream", total, args.seed)
    lake = Lakehouse(str(work / "lake"))
    lake.init()
    registered = lake.register(work / "trending.rspql")
    views = [view for _, view, _ in registered.views]
    started = time.perf_counter()
    lake.ingest("mentions", [str(f) for f in files])
    log(f"ingest of {total:,} items: {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    for view in views:
        lake.rebuild(view, at=long_width)
    first = lake.advance("trending", until=long_width)
    build = time.perf_counter() - started
    log(f"both windows built at {long_width} and the query answered: {build:.1f} s ({len(first)} evaluation)")
    rows, agree = [], True
    for k in range(0, args.slides + 1):
        t = long_width + k * step
        seconds = query_seconds = None
        if k:
            started = time.perf_counter()
            done = lake.advance("trending", until=t)
            seconds = time.perf_counter() - started
            query_seconds = sum(e.seconds for e in done)
        ours = our_answer(work / "lake", t)
        lwin, swin = window_items(files, t - long_width, t), window_items(files, t - short_width, t)
        theirs, oxigraph_seconds = oxigraph_answer(lwin, swin)
        rdflib_shops, rdflib_seconds = rdflib_answer(lwin, swin, args.rdflib_timeout) if k == 0 else (None, None)
        same = ours == theirs and (rdflib_shops is None or rdflib_shops == ours)
        agree &= same
        rows.append((t, len(ours), seconds, query_seconds, oxigraph_seconds, rdflib_seconds, rdflib_shops, same))
        log(f"t={t}: {len(ours)} trending shops; reasonlake {seconds or 0:.2f} s, pyoxigraph {oxigraph_seconds:.2f} s"
            + (f", rdflib {rdflib_seconds:.1f} s" if rdflib_seconds is not None else ""))
    header = ("time", "trending", "reasonlake s", "of which query s", "pyoxigraph s", "rdflib s", "÷ pyoxigraph",
              "same answer")
    table = [header]
    for t, n, seconds, query_seconds, ox_s, rd_s, rd_shops, same in rows:
        rdflib_text = "-" if rd_s is None else (f"{rd_s:.1f}" if rd_shops is not None else f"> {rd_s:g}")
        table.append((str(t), str(n), "build" if seconds is None else f"{seconds:.2f}",
                      "-" if query_seconds is None else f"{query_seconds:.2f}", f"{ox_s:.2f}", rdflib_text,
                      "-" if seconds is None else f"{ox_s / seconds:.1f}×", "yes" if same else "NO"))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    print(f"long window {long_width:,} items, short {short_width:,}, a slide {step:,} items (1%); "
          f"both windows built at the first time in {build:.1f} s")
    for row in table:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
    slides = [r[2] for r in rows if r[2] is not None]
    peers = [r[4] for r in rows if r[2] is not None]
    if slides:
        print(f"a 1% slide, both windows and the query: median {statistics.median(slides):.2f} s; pyoxigraph from "
              f"scratch median {statistics.median(peers):.2f} s ({statistics.median(peers) / statistics.median(slides):.1f}×)")
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
