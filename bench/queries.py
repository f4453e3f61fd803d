"""SPARQL over a view: reasonlake's compiled queries beside pyoxigraph and rdflib on the same content.

The IMaRS stream (``bench/imars.py``: threads of ``ex:discuss`` replies, a transitive property,
with ``ex:discuss rdfs:domain ex:Post``) in one ``rdfs-plus`` view whose window holds
``--triples`` items. At its first close the view's content is exported once (N-Triples) and
four queries are timed on it:

- join: three patterns and a FILTER;
- optional: two levels of OPTIONAL;
- group: GROUP BY with COUNT and HAVING;
- path: ``ex:discuss+``.

Through reasonlake (``Lakehouse.query`` in this warm process: its first run reads the view,
which the process then keeps for that close, and is printed apart; then the median of
``--repeat`` runs of the query alone), through pyoxigraph (a Rust SPARQL
store: its load of the export timed apart, then each query) and through rdflib (load timed
apart, then each query, in a process of its own that is stopped after ``--rdflib-timeout``
seconds a query: a slower one prints as a lower bound). The three answers are compared as
multisets of rows (reasonlake and pyoxigraph term for term, rdflib by row count).
Each query is also answered by reasonlake's Spark backend (decision 0045: the view read and
the query run by Spark, as for a view the driver does not hold; ``REASONLAKE_DRIVER_READ_MB=0``)
in the same process, and its answer compared with the driver's; ``--no-spark`` leaves it out.
With ``--registered``, a 1% slide of the same window with the join registered on the view
beside the same slide without it: what a registered query adds to a close.

    python bench/queries.py                    # the IMaRS 1M-triple window (about 15 min on 2 cores)
    python bench/queries.py --triples 100000   # a 100k window
    python bench/queries.py --quick            # a smoke run: 5000 triples
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import imars  # noqa: E402  (the stream and its view)

PREFIX = "PREFIX ex: <http://ex/>\n"
QUERIES = {
    "join": PREFIX + "SELECT ?a ?b ?c WHERE { ?a ex:discuss ?b . ?b ex:discuss ?c . ?c a ex:Post "
                     "FILTER(STRENDS(STR(?a), \"7\")) }",
    "optional": PREFIX + "SELECT ?a ?b ?c WHERE { ?a a ex:Post FILTER(STRENDS(STR(?a), \"00\")) "
                         "OPTIONAL { ?a ex:discuss ?b OPTIONAL { ?b ex:discuss ?c } } }",
    "group": PREFIX + "SELECT ?b (COUNT(?a) AS ?replies) WHERE { ?a ex:discuss ?b } GROUP BY ?b "
                      "HAVING (COUNT(?a) > 2)",
    "path": PREFIX + "SELECT ?a ?b WHERE { ?a ex:discuss+ ?b FILTER(STRENDS(STR(?a), \"3\")) }",
}


def rows_of_reasonlake(answer) -> Counter:
    return Counter(answer.frame.select(answer.variables).rows())


def rows_of_oxigraph(solutions, variables: list[str]) -> Counter:
    return Counter(tuple(None if s[v] is None else str(s[v]) for v in variables) for s in solutions)


def time_queries(lake, repeat: int, label: str, log):
    """Each query through ``lake`` in this process: the first query's seconds (it reads the
    view, which the process then keeps), each query's timed runs after one untimed run, and
    its rows."""
    first, times, answers = None, {}, {}
    for name, text in QUERIES.items():
        started = time.perf_counter()
        lake.query("plain", text)  # untimed in the medians
        first = first if first is not None else time.perf_counter() - started
        times[name] = []
        for _ in range(repeat):
            started = time.perf_counter()
            answer = lake.query("plain", text)
            times[name].append(time.perf_counter() - started)
        answers[name] = rows_of_reasonlake(answer)
        log(f"  {label} {name}: {statistics.median(times[name]):.3f} s, {sum(answers[name].values())} rows")
    return first, times, answers


def _rdflib_worker(export: str, queries: dict[str, str], out) -> None:
    """In a process of its own: load the export, then answer each query, reporting as it goes."""
    import rdflib

    started = time.perf_counter()
    graph = rdflib.Graph()
    graph.parse(export, format="nt")
    out.put(("load", time.perf_counter() - started, len(graph)))
    for name, text in queries.items():
        started = time.perf_counter()
        rows = sum(1 for _ in graph.query(text))
        out.put((name, time.perf_counter() - started, rows))


def run_rdflib(export: Path, timeout: float, log) -> dict[str, tuple[float, int | None]]:
    """name -> (seconds, rows); rows None where the query was stopped at ``timeout`` seconds
    (seconds is then the timeout: a lower bound). "load" is the parse of the export."""
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    worker = context.Process(target=_rdflib_worker, args=(str(export), QUERIES, out))
    worker.start()
    results: dict[str, tuple[float, int | None]] = {}
    for name in ("load", *QUERIES):
        try:
            step, seconds, rows = out.get(timeout=timeout * (4 if name == "load" else 1))
        except Exception:  # queue.Empty: stopped, what is left is at least the timeout
            worker.kill()
            for left in ("load", *QUERIES):
                results.setdefault(left, (timeout, None))
            log(f"  rdflib: {name} stopped after {timeout:g} s")
            break
        results[step] = (seconds, rows)
        log(f"  rdflib {step}: {seconds:.2f} s, {rows} rows")
    worker.join(timeout=5)
    return results


def main(argv=None) -> int:
    here = Path(__file__).resolve().parent
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--triples", type=int, default=1_000_000, help="window items (default 1,000,000)")
    p.add_argument("--quick", action="store_true", help="a smoke run: 5000 items, rdflib stopped after 20 s a query")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per reasonlake query (median; default 3)")
    p.add_argument("--rdflib-timeout", type=float, default=300, help="seconds per rdflib query (default 300)")
    p.add_argument("--registered", action="store_true", help="also time 1%% slides with the join registered")
    p.add_argument("--slides", type=int, default=2, help="1%% slides timed with --registered (default 2)")
    p.add_argument("--out", default=str(here / "out"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--no-spark", action="store_true", help="leave out the Spark backend's answers")
    args = p.parse_args(argv)
    if args.quick:
        args.triples, args.rdflib_timeout = 5000, 20

    import pyoxigraph

    from reasonlake.api import Lakehouse

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    work = Path(args.out).resolve() / "queries-work"
    shutil.rmtree(work, ignore_errors=True)
    (work / "stream").mkdir(parents=True)
    (work / "imars.ttl").write_text(imars.TBOX + imars.DOMAIN_AXIOM)
    width = args.triples  # one item a millisecond
    slide = max(1, width // 100)  # 1%
    slides = max(1, args.slides) if args.registered else 2
    files = imars.generate_stream(work / "stream", width + slides * slide, 1, 500, args.seed, 200_000)
    lake = Lakehouse(str(work / "lake"))
    lake.init()
    views = ["plain", *(["registered"] if args.registered else [])]
    for name in views:
        queries = f"queries: {json.dumps([{'name': 'join', 'text': QUERIES['join']}])}\n" if name == "registered" else ""
        (work / f"{name}.yaml").write_text(
            f"name: {name}\nstream: {imars.STREAM}\nontology: [imars.ttl]\nprofile: rdfs-plus\n"
            f"window: {{width: {width}ms, slide: {slide}ms, start: 0}}\n{queries}")
        lake.create_views([str(work / f"{name}.yaml")])
    log(f"ingest {len(files)} file(s), {width + slides * slide:,} items")
    lake.ingest(imars.STREAM, [str(f) for f in files])
    for name in views:
        lake.rebuild(name, at=width)

    export = work / "view.nt"
    with export.open("w") as handle:
        for line in lake.export("plain"):
            handle.write(line + "\n")
    facts = sum(1 for _ in export.open())
    log(f"view at close {width}: {facts:,} facts")

    first_driver, ours, answers = time_queries(lake, args.repeat, "reasonlake", log)
    on_spark: dict[str, float] = {}
    first_spark, spark_differs = None, []
    if not args.no_spark:
        import os

        os.environ["REASONLAKE_DRIVER_READ_MB"] = "0"  # the view read and the query run by Spark
        first_spark, times, spark_answers = time_queries(lake, args.repeat, "reasonlake on Spark", log)
        del os.environ["REASONLAKE_DRIVER_READ_MB"]
        on_spark = {name: statistics.median(t) for name, t in times.items()}
        spark_differs = [name for name in QUERIES if spark_answers[name] != answers[name]]
        for name in spark_differs:
            log(f"  reasonlake on Spark {name}: DIFFERENT ROWS from the driver's")

    store = pyoxigraph.Store()
    started = time.perf_counter()
    store.bulk_load(path=str(export), format=pyoxigraph.RdfFormat.N_TRIPLES)
    oxigraph_load = time.perf_counter() - started
    oxigraph: dict[str, float] = {}
    agree: dict[str, str] = {}
    for name, text in QUERIES.items():
        started = time.perf_counter()
        solutions = store.query(text)
        variables = [v.value for v in solutions.variables]
        rows = rows_of_oxigraph(solutions, variables)
        oxigraph[name] = time.perf_counter() - started
        agree[name] = "yes" if rows == answers[name] else f"no ({sum(rows.values())} rows)"
        log(f"  pyoxigraph {name}: {oxigraph[name]:.3f} s, {sum(rows.values())} rows")

    rdflib_results = run_rdflib(export, args.rdflib_timeout, log)

    header = ("query", "rows", "reasonlake s", "pyoxigraph s", "rdflib s", "÷ pyoxigraph", "rdflib ÷", "same rows",
              *(("on Spark s", "Spark ÷ driver") if on_spark else ()))
    table = [header]
    for name in QUERIES:
        mine = statistics.median(ours[name])
        seconds, rows = rdflib_results[name]
        rdflib_text = f"{seconds:.2f}" if rows is not None else f"> {seconds:g}"
        same = agree[name] + ("" if rows is None or rows == sum(answers[name].values()) else f"; rdflib {rows}")
        table.append((name, f"{sum(answers[name].values()):,}", f"{mine:.3f}", f"{oxigraph[name]:.3f}", rdflib_text,
                      f"{mine / oxigraph[name]:.2f}×", f"{'≥ ' if rows is None else ''}{seconds / mine:.0f}×", same,
                      *((f"{on_spark[name]:.3f}{' (rows differ)' if name in spark_differs else ''}",
                         f"{on_spark[name] / mine:.2f}×") if on_spark else ())))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(header))]
    print(f"view: {facts:,} facts (window of {width:,} items); loads: pyoxigraph {oxigraph_load:.2f} s, "
          f"rdflib {rdflib_results['load'][0]:.2f} s{'' if rdflib_results['load'][1] else ' (stopped)'}")
    for row in table:
        print("  ".join(str(c).rjust(w) for c, w in zip(row, widths)))
    print(f"the first query of the process, the view's read included: driver {first_driver:.2f} s"
          + (f", Spark {first_spark:.2f} s" if first_spark is not None else ""))

    if args.registered:
        added = []
        for k in range(1, slides + 1):
            close, seconds = width + k * slide, {}
            for name in (views if k % 2 else views[::-1]):  # each first in turn: a warm cache favours neither
                started = time.perf_counter()
                lake.slide(name, until=close)
                seconds[name] = time.perf_counter() - started
            added.append(seconds["registered"] - seconds["plain"])
            print(f"1% slide to {close}: without a registered query {seconds['plain']:.2f} s, "
                  f"with the join registered {seconds['registered']:.2f} s")
        print(f"a registered query adds {statistics.median(added):.2f} s a close (median of {len(added)}; "
              f"{min(added):+.2f} to {max(added):+.2f} s)")
    return 0 if all(v == "yes" for v in agree.values()) and not spark_differs else 1


if __name__ == "__main__":
    sys.exit(main())
