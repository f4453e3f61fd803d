"""Brick benchmark: full materialization of 108 real building models by reasonlake, reasonable and owlrl, and reasonlake's per-slide maintenance at 1% change.

TBox: the Brick 1.1 ontology (``../shared/data/brick/Brick.n3``) plus the union of the
models' own vocabulary axioms (the 1.0.2-to-1.1 class and property axioms each model
carries; reasonlake's ingest refuses TBox vocabulary in a stream, so they are ontology).
The split of a model into schema and stream, and the noise filter for comparisons, are
those of ``tests/brick`` (``tests/brick/reference.py``, explained in
``tests/brick/test_brick_models.py``).

Full materialization, per model:

- reasonlake: one ``owl2rl`` view (``unique_names: false``) over one stream in which model
  i is one event at hour i; the view's window is one hour wide and slides by one hour, so
  ``rebuild(at=close i)`` materializes the window holding exactly model i from scratch.
  Timed: the wall clock of the API call (it includes compiling the TBox, about 1-2 s) and
  the engine's own ``seconds``;
- reasonable (``reasonable`` on PyPI, Rust): ``PyReasoner().from_graph(g)`` then
  ``reason()``, on Brick + schema + model already parsed into an rdflib graph. Timed: the
  ``reason()`` call (the reasoning itself) and, in the CSV, the ``from_graph`` load;
- owlrl: ``DeductiveClosure(OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
  datatype_axioms=False).expand(g)`` in a subprocess, cut after ``--owlrl-timeout``
  seconds (then shown as ``>T``). owlrl needs minutes per model on Brick's TBox even for
  the smallest, so by default it runs on the 3 smallest and the largest model only
  (``--owlrl``).

Per-slide maintenance (``--slides`` closes on a large model, default the largest): the
model's instance triples are cut into 100 chunks of about 1% (whole subjects per chunk,
balanced by triple count). Chunk k, version v, arrives at second 100·v + k + 0.5, its
subjects renamed ``<IRI>~v`` for v > 0 (1% of the building's entities replaced by new ones
with the same descriptions). A view 100 s wide sliding by 1 s holds one version of every
chunk: each close expires 1% of the window and admits a new 1%. Timed: ``rebuild`` at the
first full close, then single-close ``slide`` calls; reasonable recomputing the same
window content from scratch is the baseline.

    python bench/brick.py --quick          # 4 models (smallest to largest), 1 slide
    python bench/brick.py                  # all 108 models, 3 slides
    python bench/brick.py --models 20 --owlrl 0
"""
from __future__ import annotations

import argparse
import csv
import gc
import json
import math
import multiprocessing
import os
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
# tests.brick.reference: the model split shared with the test; imars: its content checksum
sys.path[:0] = [str(REPO), str(HERE)]

from imars import checksum

from reasonlake.engine.process import timing
from reasonlake.engine.store import file_list
from tests.brick import reference as ref

DATA = REPO.parent / "shared" / "data" / "brick"
HOUR = 3_600_000
CHUNKS = 100  # 1% each
SLIDE_MS = 1000


# -- results -----------------------------------------------------------------------------------
@dataclass
class ModelResult:
    name: str
    kb: float
    triples: int  # instance triples (the stream part)
    reasonlake_s: float = float("nan")  # wall clock of rebuild
    reasonlake_engine_s: float = float("nan")
    reasonlake_rows: int = 0  # admitted + derived
    rounds: int = 0
    reasonable_s: float = float("nan")  # reason()
    reasonable_load_s: float = float("nan")  # from_graph()
    reasonable_rows: int = 0
    owlrl_s: float | None = None  # None: not run
    owlrl_cut: bool = False
    agree: bool | None = None  # --check: same compared triples as reasonable

    @property
    def vs_reasonable(self) -> float:
        return self.reasonlake_s / self.reasonable_s if self.reasonable_s > 0 else float("nan")

    @property
    def owlrl_vs(self) -> float | None:
        if self.owlrl_s is None or not self.reasonlake_s > 0:
            return None
        return self.owlrl_s / self.reasonlake_s


@dataclass
class SlideResult:
    model: str
    window_triples: int
    rebuild_s: float = float("nan")
    rebuild_engine_s: float = float("nan")
    slide_wall: list[float] = field(default_factory=list)
    slide_engine: list[float] = field(default_factory=list)
    admitted: list[int] = field(default_factory=list)
    expired: list[int] = field(default_factory=list)
    derived: list[int] = field(default_factory=list)
    steps: list[dict] = field(default_factory=list)  # seconds per step of each slide
    reasonable_s: float = float("nan")
    match: bool | None = None
    note: str = ""

    def median(self, name: str) -> float:
        values = getattr(self, name)
        return statistics.median(values) if values else float("nan")

    @property
    def writes(self) -> list[float]:
        """Seconds per slide spent writing to Delta (one commit each step)."""
        return [sum(s.get(name, 0.0) for name in WRITE_STEPS) for s in self.steps]

    @property
    def in_memory(self) -> list[float]:
        """Seconds per slide outside the Delta commits: reading the pane, reasoning,
        looking for violations, the bookkeeping around them."""
        return [wall - w for wall, w in zip(self.slide_wall, self.writes)]


# The steps of a close that are Delta commits (engine/jobs/slide.py names them).
WRITE_STEPS = ("drop expired", "record violations", "publish", "file list: wait", "record close")


# -- streams -----------------------------------------------------------------------------------
def _term(t) -> str:
    return t.n3()


def write_models_stream(models, path: Path) -> None:
    """Model i's instance triples as one event at hour i + 30 min (JSONL carries the time)."""
    with path.open("w") as out:
        for i, m in enumerate(models):
            ts = i * HOUR + HOUR // 2
            for s, p, o in sorted(m.instances):
                out.write(json.dumps({"s": _term(s), "p": _term(p), "o": _term(o), "ts": ts}) + "\n")


def chunks_by_subject(model, n: int) -> list[list]:
    """The model's instance triples in n chunks of whole subjects, balanced by triple count."""
    by_subject: dict = {}
    for t in sorted(model.instances):
        by_subject.setdefault(t[0], []).append(t)
    chunks: list[list] = [[] for _ in range(n)]
    for subject in sorted(by_subject, key=lambda s: (-len(by_subject[s]), str(s))):
        min(chunks, key=len).extend(by_subject[subject])
    return chunks


def versioned(triple, subjects: set, v: int):
    """Version v of a triple: the chunk's subjects renamed <IRI>~v (v > 0)."""
    if v == 0:
        return triple
    from rdflib import URIRef

    return tuple(URIRef(f"{t}~{v}") if t in subjects else t for t in triple)


def write_churn_stream(model, chunks: list[list], versions: int, path: Path) -> None:
    """Chunk k, version v at second 100·v + k + 0.5."""
    with path.open("w") as out:
        for v in range(versions):
            for k, chunk in enumerate(chunks):
                ts = (CHUNKS * v + k) * SLIDE_MS + SLIDE_MS // 2
                subjects = {t[0] for t in chunk}
                for triple in chunk:
                    s, p, o = versioned(triple, subjects, v)
                    out.write(json.dumps({"s": _term(s), "p": _term(p), "o": _term(o), "ts": ts}) + "\n")


def window_content(chunks: list[list], close_index: int) -> set:
    """The explicit triples of the churn window at close CHUNKS + close_index (seconds)."""
    out = set()
    for k, chunk in enumerate(chunks):
        v = 1 if k < close_index else 0
        subjects = {t[0] for t in chunk}
        out.update(versioned(t, subjects, v) for t in chunk)
    return out


def write_view(folder: Path, name: str, stream: str, ontology: list[Path], width: str, slide: str,
               expectations: bool = False) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(
        f"name: {name}\nstream: {stream}\nontology: [{', '.join(str(o) for o in ontology)}]\n"
        f"profile: owl2rl\nunique_names: false\nwindow: {{width: {width}, slide: {slide}, start: 0}}\n"
        + ("expectations: {on_failure: warn}\n" if expectations else "")
    )
    return path


# -- the reasoners ---------------------------------------------------------------------------
def input_graph(brick, schema: Path, triples):
    from rdflib import Graph

    graph = Graph()
    for t in brick:
        graph.add(t)
    graph.parse(schema, format="nt")
    for t in triples:
        graph.add(t)
    return graph


def time_reasonable(graph) -> tuple[float, float, list]:
    import reasonable

    t0 = time.perf_counter()
    reasoner = reasonable.PyReasoner()
    reasoner.from_graph(graph)
    t1 = time.perf_counter()
    out = reasoner.reason()
    return t1 - t0, time.perf_counter() - t1, out


def _owlrl_child(brick_path: str, schema: str, model_path: str, queue) -> None:
    import owlrl

    brick = ref.load_brick(Path(brick_path))
    model = ref.load_model(Path(model_path))
    graph = input_graph(brick, Path(schema), model.schema | model.instances)
    queue.put("parsed")
    t0 = time.perf_counter()
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(graph)
    queue.put(time.perf_counter() - t0)


def time_owlrl(brick_path: Path, schema: Path, model_path: Path, timeout: float) -> tuple[float, bool]:
    """Seconds of owlrl's expand() (input parsing excluded, in a subprocess); (timeout, True)
    when it was cut after ``timeout`` seconds; (nan, False) if the child failed."""
    import queue as queues

    ctx = multiprocessing.get_context("spawn")
    channel = ctx.Queue()
    child = ctx.Process(target=_owlrl_child, args=(str(brick_path), str(schema), str(model_path), channel))
    child.start()
    expanding_since = None
    try:
        while True:
            try:
                message = channel.get(timeout=2)
            except queues.Empty:
                if not child.is_alive():
                    return float("nan"), False
                if expanding_since is not None and time.perf_counter() - expanding_since > timeout:
                    return timeout, True
                continue
            if message == "parsed":
                expanding_since = time.perf_counter()
            else:
                return message, False
    finally:
        if child.is_alive():
            child.terminate()
        child.join()


# -- reporting ----------------------------------------------------------------------------------
def fmt(v: float | None, digits: int = 2) -> str:
    if v is None or math.isnan(v):
        return "-"
    return f"{v:.{digits}f}"


def markdown(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" for _ in headers) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def models_table(results: list[ModelResult]) -> str:
    rows = []
    for r in sorted(results, key=lambda r: r.triples):
        owl = "-" if r.owlrl_s is None else (f">{r.owlrl_s:.0f}" if r.owlrl_cut else fmt(r.owlrl_s, 1))
        owl_x = r.owlrl_vs
        rows.append([
            r.name, f"{r.kb:.0f}", f"{r.triples:,}", fmt(r.reasonlake_s), fmt(r.reasonlake_engine_s),
            fmt(r.reasonable_s, 3), fmt(r.vs_reasonable, 1), owl,
            "-" if owl_x is None else (">" if r.owlrl_cut else "") + f"{owl_x:.1f}",
            {None: "-", True: "yes", False: "NO"}[r.agree],
        ])
    return markdown(["model", "kB", "stream triples", "reasonlake s", "engine s", "reasonable s",
                     "reasonlake/reasonable ×", "owlrl s", "owlrl/reasonlake ×", "agree"], rows)


def slide_table(s: SlideResult) -> str:
    return markdown(
        ["model", "window triples", "change/slide", "slide s (median)", "engine s", "Delta commits s",
         "rest s", "rebuild s", "reasonable from scratch s", "reasonable / slide ×",
         "reasonable / rest ×", "slid = rebuilt"],
        [[s.model, f"{s.window_triples:,}",
          f"+{statistics.median(s.admitted):.0f} −{statistics.median(s.expired):.0f}" if s.admitted else "-",
          fmt(s.median("slide_wall")), fmt(s.median("slide_engine")), fmt(s.median("writes")),
          fmt(s.median("in_memory")), fmt(s.rebuild_s),
          fmt(s.reasonable_s, 3), fmt(s.reasonable_s / s.median("slide_wall"), 2),
          fmt(s.reasonable_s / s.median("in_memory"), 2),
          {None: "-", True: "yes", False: "NO"}[s.match]]],
    )


def steps_table(s: SlideResult) -> str:
    """Median seconds per step of the slides, in the order a close runs them."""
    names = list(dict.fromkeys(name for steps in s.steps for name in steps))
    return markdown(["step", "median s", "Delta commit"],
                    [[name, fmt(statistics.median(steps.get(name, 0.0) for steps in s.steps)),
                      "yes" if name in WRITE_STEPS else ""] for name in names])


def write_csv(path: Path, results: list[ModelResult], churn: SlideResult | None) -> None:
    fields = ["kind", "model", "kb", "stream_triples", "reasonlake_s", "reasonlake_engine_s",
              "reasonlake_rows", "rounds", "reasonable_s", "reasonable_load_s", "reasonable_rows",
              "owlrl_s", "owlrl_cut", "agree", "slide_samples_s", "slide_engine_s", "admitted",
              "expired", "derived", "note"]
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(fields)
        for r in sorted(results, key=lambda r: r.triples):
            out.writerow(["materialize", r.name, f"{r.kb:.1f}", r.triples, f"{r.reasonlake_s:.3f}",
                          f"{r.reasonlake_engine_s:.3f}", r.reasonlake_rows, r.rounds,
                          f"{r.reasonable_s:.4f}", f"{r.reasonable_load_s:.4f}", r.reasonable_rows,
                          "" if r.owlrl_s is None else f"{r.owlrl_s:.2f}", r.owlrl_cut,
                          "" if r.agree is None else r.agree, "", "", "", "", "", ""])
        if churn:
            out.writerow(["slide_1pct", churn.model, "", churn.window_triples, f"{churn.rebuild_s:.3f}",
                          f"{churn.rebuild_engine_s:.3f}", "", "", f"{churn.reasonable_s:.4f}", "", "",
                          "", "", "" if churn.match is None else churn.match,
                          " ".join(f"{v:.3f}" for v in churn.slide_wall),
                          " ".join(f"{v:.3f}" for v in churn.slide_engine),
                          " ".join(map(str, churn.admitted)), " ".join(map(str, churn.expired)),
                          " ".join(map(str, churn.derived)), churn.note])


def plot(path: Path, results: list[ModelResult], churn: SlideResult | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = sorted(results, key=lambda r: r.triples)
    fig, ax = plt.subplots(figsize=(8, 5))
    xs = [max(r.triples, 1) for r in rs]
    ax.plot(xs, [r.reasonlake_s for r in rs], "o", ms=4, label="reasonlake rebuild (wall)")
    ax.plot(xs, [r.reasonlake_engine_s for r in rs], ".", ms=4, alpha=0.6,
            label="reasonlake rebuild (engine seconds)")
    ax.plot(xs, [r.reasonable_s for r in rs], "s", ms=4, label="reasonable reason()")
    done = [r for r in rs if r.owlrl_s is not None and not r.owlrl_cut]
    cut = [r for r in rs if r.owlrl_s is not None and r.owlrl_cut]
    if done:
        ax.plot([max(r.triples, 1) for r in done], [r.owlrl_s for r in done], "^", ms=6, label="owlrl expand()")
    if cut:
        ax.plot([max(r.triples, 1) for r in cut], [r.owlrl_s for r in cut], "^", ms=6, mfc="none",
                label="owlrl, cut at the timeout (lower bound)")
    if churn and churn.slide_wall:
        ax.plot([churn.window_triples], [churn.median("slide_wall")], "*", ms=14,
                label=f"reasonlake slide, 1% change ({churn.model})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("instance triples in the model (stream part)")
    ax.set_ylabel("seconds")
    ax.set_title("Brick: full OWL 2 RL materialization per building model")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- main ------------------------------------------------------------------------------------
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=str(DATA), help="folder with Brick.n3 and buildings/ (default ../shared/data/brick)")
    p.add_argument("--models", type=int, help="how many models, spread over the size range (default all 108)")
    p.add_argument("--quick", action="store_true",
                   help="a smoke run: 4 models (smallest to largest), owlrl on the smallest, 1 slide")
    p.add_argument("--owlrl", type=int, help="owlrl on the N smallest models, plus the largest "
                   "(default 3; with --quick 1 and not the largest; 0: never)")
    p.add_argument("--owlrl-timeout", type=float, default=900, help="seconds before an owlrl run is cut (default 900)")
    p.add_argument("--slides", type=int, help="1%% slides timed on the large model (default 3; 1 with --quick; 0: skip)")
    p.add_argument("--slide-model", help="model for the slides (default: the largest)")
    p.add_argument("--expectations", action="store_true",
                   help="the sliding view runs its built-in expectation suite after every close")
    p.add_argument("--check", action="store_true",
                   help="after each rebuild, export and compare with reasonable (slow: one export per model)")
    p.add_argument("--out", default=str(HERE / "out"), help="output folder (default bench/out)")
    return p.parse_args(argv)


def spread(items: list, n: int) -> list:
    """n items evenly spread over a sorted list, always with the first and the last."""
    if n >= len(items):
        return list(items)
    if n == 1:
        return [items[-1]]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


def main(argv=None) -> int:
    args = parse_args(argv)
    t_start = time.perf_counter()
    data = Path(args.data)
    if not (data / "Brick.n3").is_file() or not (data / "buildings").is_dir():
        print(f"{data}: Brick.n3 or buildings/ is absent (see ../shared/data/README.md)", file=sys.stderr)
        return 1
    n_models = args.models or (4 if args.quick else None)
    owlrl_n = args.owlrl if args.owlrl is not None else (1 if args.quick else 3)
    slides = args.slides if args.slides is not None else (1 if args.quick else 3)

    out = Path(args.out).resolve()
    work = out / "brick-work"
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)

    def log(text: str) -> None:
        print(f"[{time.perf_counter() - t_start:7.1f}s] {text}", flush=True)

    load = os.getloadavg()
    log(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    t0 = time.perf_counter()
    paths = ref.model_paths(data / "buildings")
    all_models = [ref.load_model(p) for p in paths]
    all_models.sort(key=lambda m: (len(m.instances), m.name))
    models = spread(all_models, n_models) if n_models else all_models
    brick = ref.load_brick(data / "Brick.n3")
    schema = work / "models-schema.nt"
    ref.write_schema(all_models, schema)
    log(f"parsed Brick and {len(all_models)} models in {time.perf_counter() - t0:.1f}s; "
        f"{len(models)} selected, {sum(len(m.instances) for m in models):,} stream triples")

    big = next((m for m in all_models if m.name == args.slide_model), None) if args.slide_model else all_models[-1]
    if big is None:
        print(f"--slide-model {args.slide_model}: no such model", file=sys.stderr)
        return 1

    # -- streams and views
    write_models_stream(models, work / "models.jsonl")
    chunks = chunks_by_subject(big, CHUNKS)
    versions = 1 + (slides + CHUNKS - 1) // CHUNKS if slides else 0
    if slides:
        write_churn_stream(big, chunks, versions, work / "churn.jsonl")
    ontology = [data / "Brick.n3", schema]
    views = [write_view(work, "brick_models", "models", ontology, "1h", "1h")]
    if slides:
        views.append(write_view(work, "brick_churn", "churn", ontology, f"{CHUNKS}s", "1s",
                                expectations=args.expectations))

    os.environ.setdefault("REASONLAKE_DRIVER_MEMORY", "6g")
    from reasonlake.api import Lakehouse

    t0 = time.perf_counter()
    lake = Lakehouse(str(work / "lake"))
    lake.init(allow_ontologies=[str(data)])  # Brick's own file, read where the data set keeps it
    log(f"spark session and home ready, {time.perf_counter() - t0:.1f}s")
    t0 = time.perf_counter()
    reports = lake.create_views(views)
    log(f"views created, {time.perf_counter() - t0:.1f}s ({len(reports[0].ignored)} ignored axioms "
        "reported: Brick's tags and other instance assertions, annotations)")
    t0 = time.perf_counter()
    for stream, file in (("models", "models.jsonl"), ("churn", "churn.jsonl")):
        if (work / file).exists():
            rep = lake.ingest(stream, [work / file])[0]
            if rep.quarantined:
                log(f"WARNING: {rep.quarantined} rows of {file} quarantined: {rep.reasons[:3]}")
    log(f"ingested, {time.perf_counter() - t0:.1f}s")

    # untimed warm-up: the first Spark jobs pay class loading and code generation
    t0 = time.perf_counter()
    lake.rebuild("brick_models", at=HOUR)
    file_list.settle(lake.home.spark, lake.home.mat_path("brick_models"))
    log(f"warm-up rebuild, {time.perf_counter() - t0:.1f}s")

    # -- full materialization, model by model
    results = []
    smallest = {m.name for m in sorted(models, key=lambda m: (m.size, m.name))[:owlrl_n]}
    if owlrl_n and not args.quick:
        smallest.add(max(models, key=lambda m: m.size).name)
    for i, m in enumerate(models):
        r = ModelResult(m.name, m.size / 1024, len(m.instances))
        if i:  # a rebuild takes a close already processed: the view slides there first, untimed
            lake.slide("brick_models", until=(i + 1) * HOUR)
            # and the file list that slide left Delta building in the background is built
            file_list.settle(lake.home.spark, lake.home.mat_path("brick_models"))
        t0 = time.perf_counter()
        rec = lake.rebuild("brick_models", at=(i + 1) * HOUR)
        r.reasonlake_s = time.perf_counter() - t0
        r.reasonlake_engine_s = rec.seconds
        r.reasonlake_rows = rec.admitted + rec.derived
        r.rounds = rec.rounds
        graph = input_graph(brick, schema, m.schema | m.instances)
        r.reasonable_load_s, r.reasonable_s, closure = time_reasonable(graph)
        r.reasonable_rows = len(closure)
        if args.check:
            got = ref.parse_export(lake.export("brick_models"))
            mine = set().union(*got.values()) if got else set()
            r.agree = ref.compared(mine, m.terms) == ref.compared(closure, m.terms)
        del graph, closure
        if m.name in smallest:
            r.owlrl_s, r.owlrl_cut = time_owlrl(data / "Brick.n3", schema, m.path, args.owlrl_timeout)
        results.append(r)
        owl = "" if r.owlrl_s is None else f", owlrl {'>' if r.owlrl_cut else ''}{r.owlrl_s:.1f}s"
        log(f"{i + 1}/{len(models)} {m.name}: {r.triples:,} triples, reasonlake {r.reasonlake_s:.2f}s "
            f"(engine {r.reasonlake_engine_s:.2f}s, {r.rounds} rounds, {r.reasonlake_rows:,} rows), "
            f"reasonable {r.reasonable_s:.3f}s{owl}"
            + ("" if r.agree is None else f", agree: {r.agree}"))
        gc.collect()

    # -- per-slide maintenance at 1% change
    churn = None
    if slides:
        churn = SlideResult(big.name, len(big.instances))
        first = CHUNKS * SLIDE_MS
        t0 = time.perf_counter()
        rec = lake.rebuild("brick_churn", at=first)
        churn.rebuild_s, churn.rebuild_engine_s = time.perf_counter() - t0, rec.seconds
        log(f"churn {big.name}: rebuild @{first // 1000}s {churn.rebuild_s:.2f}s (engine {rec.seconds:.2f}s), "
            f"{rec.admitted:,} items, {rec.derived:,} derived")
        close = first
        for _ in range(slides):
            close += SLIDE_MS
            t0 = time.perf_counter()
            with timing.recorded() as steps:
                recs = lake.slide("brick_churn", until=close)
            wall = time.perf_counter() - t0
            churn.steps.append(dict(steps))
            if len(recs) != 1:
                churn.note = f"slide to {close} processed {len(recs)} closes"
            churn.slide_wall.append(wall)
            churn.slide_engine.append(sum(x.seconds for x in recs))
            churn.admitted.append(sum(x.admitted for x in recs))
            churn.expired.append(sum(x.expired for x in recs))
            churn.derived.append(sum(x.derived for x in recs))
            log(f"  slide @{close // 1000}s: {wall:.2f}s (engine {churn.slide_engine[-1]:.2f}s), "
                f"+{churn.admitted[-1]} −{churn.expired[-1]} rows, {churn.derived[-1]} derived")
        slid = checksum(lake, "brick_churn")  # the IMaRS bench's order-free content hash
        lake.rebuild("brick_churn", at=close)
        churn.match = slid == checksum(lake, "brick_churn")
        content = window_content(chunks, (close - first) // SLIDE_MS)
        _, churn.reasonable_s, _ = time_reasonable(input_graph(brick, schema, big.schema | content))
        log(f"  reasonable on the same window from scratch: {churn.reasonable_s:.3f}s; "
            f"slid = rebuilt: {churn.match}")

    out.mkdir(parents=True, exist_ok=True)
    write_csv(out / "brick.csv", results, churn)
    plot(out / "brick.png", results, churn)

    print()
    load_end = os.getloadavg()
    print(f"Brick, full materialization per model (seconds; load average at start {load[0]:.1f}, "
          f"at end {load_end[0]:.1f}, {os.cpu_count()} cores)")
    print(models_table(results))
    if churn:
        print()
        print(f"Per-slide maintenance, 1% change per slide ({len(churn.slide_wall)} slides)")
        print(slide_table(churn))
        print()
        print("Where a slide's time goes (median over the slides; the rest of the wall time is "
              "the view's look-ups around them)")
        print(steps_table(churn))
    print()
    print(summary(results, churn))
    print(f"wrote {out / 'brick.csv'} and {out / 'brick.png'}")
    print(f"total {time.perf_counter() - t_start:.0f}s")
    return 0


def summary(results: list[ModelResult], churn: SlideResult | None) -> str:
    """The performance aims, measured on the largest models (the top tenth, at least one)."""
    largest = sorted(results, key=lambda r: r.triples)[-max(1, len(results) // 10):]
    lines = []
    ratios = [r.vs_reasonable for r in largest]
    lines.append(f"largest {len(largest)} model(s): reasonlake rebuild / reasonable reason() = "
                 f"{min(ratios):.1f}-{max(ratios):.1f}× (aim: within 5×)")
    owl = [r for r in results if r.owlrl_s is not None]
    for r in owl:
        lines.append(f"owlrl / reasonlake on {r.name} ({r.triples:,} triples): "
                     f"{'>' if r.owlrl_cut else ''}{r.owlrl_vs:.1f}× (aim: at least 20× on the largest)")
    if churn and churn.slide_wall:
        lines.append(f"1% slide on {churn.model}: {churn.median('slide_wall'):.2f}s vs reasonable from "
                     f"scratch {churn.reasonable_s:.3f}s (aim: the slide faster); of the slide, "
                     f"{churn.median('writes'):.2f}s are Delta commits and {churn.median('in_memory'):.2f}s "
                     "the rest (reading the pane, reasoning, violations, look-ups)")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
