"""Many generated cases through a few views, each checked against its own oracle.

A Spark close costs the same for one small case as for fifty, so the property suites put
every case in a namespace of its own (``http://example.org/k007/...``: its classes,
properties and individuals), join the cases' ontologies into one TBox and their streams
into one stream, and slide one view per window shape. No rule joins two cases (they share
no term but the RDF/RDFS/OWL vocabulary), so the view at a close is the union of the
cases' views, and each case is compared with the independent oracle of its own window:
owlrl's closure for the facts, and for each fact the origin IMaRS gives it, which is the
newest time ``t`` such that the window's items at ``t`` or later still entail it (the
newest derivation, each derivation as old as its oldest premise).

Cases are drawn from a seeded generator (``REASONLAKE_PROPERTY_SEED``, default fixed;
``random`` with ``scripts/test.sh`` draws a new one and prints it; a failure names the seed
with the command that replays it), ``REASONLAKE_PROPERTY_EXAMPLES`` of them
per suite, and ``Coverage`` counts what they exercised, so a suite fails when its streams
stop deriving, expiring or renewing.
"""
from __future__ import annotations

import json
import os
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from tests.oracle import closure

RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
# At least 10: fewer cases cannot meet the coverage guard.
EXAMPLES = max(10, int(os.environ.get("REASONLAKE_PROPERTY_EXAMPLES", "25")))
SEED = int(os.environ.get("REASONLAKE_PROPERTY_SEED", "20261125"))
_OWNER = re.compile(r"^<http://example\.org/k(\d+)/")

Triple = tuple[str, str, str]


@dataclass
class Case:
    """One generated case: its own vocabulary, ontology lines and timed items (ms)."""

    number: int
    classes: list[str]
    props: list[str]
    people: list[str]
    tbox: list[tuple[str, str]] = field(default_factory=list)  # (kind, Turtle line)
    events: list[tuple[Triple, int]] = field(default_factory=list)
    late: list[tuple[Triple, int]] = field(default_factory=list)  # ingested at ARRIVAL
    shape: tuple[int, int] = (3000, 1000)  # width, slide in ms

    def ttl(self, leave_out: frozenset[str] = frozenset()) -> str:
        return "".join(line + "\n" for kind, line in self.tbox if kind not in leave_out)

    def describe(self) -> str:
        lines = [f"case {self.number} (width {self.shape[0]} ms, slide {self.shape[1]} ms)", "ontology:"]
        lines += [f"  {line}" for _, line in self.tbox]
        lines += ["items:"] + [f"  {t} {' '.join(x)}" for x, t in sorted(self.events, key=lambda e: e[1])]
        lines += ["late items (arrive at the close of ARRIVAL):"] + [f"  {t} {' '.join(x)}" for x, t in self.late]
        return "\n".join(lines)


def owner(term: str) -> int | None:
    match = _OWNER.match(term)
    return int(match.group(1)) if match else None


def vocabulary(number: int, classes: int, props: int, people: int) -> tuple[list[str], list[str], list[str]]:
    ns = f"http://example.org/k{number:03d}/"
    return ([f"<{ns}C{i}>" for i in range(classes)], [f"<{ns}p{i}>" for i in range(props)],
            [f"<{ns}i{i}>" for i in range(people)])


# ---- ontologies: the axioms each profile's rules read ----------------------------------------


def _chain(r: random.Random, kind: str, terms: list[str], relation: str) -> list[tuple[str, str]]:
    order = r.sample(terms, len(terms))
    return [(kind, f"{a} <{RDFS}{relation}> {b} .") for a, b in zip(order, order[1:])]


def _rdfs_axioms(r: random.Random, c, p):
    return [
        ("sco", lambda: f"{r.choice(c)} <{RDFS}subClassOf> {r.choice(c)} ."),
        ("spo", lambda: f"{r.choice(p)} <{RDFS}subPropertyOf> {r.choice(p)} ."),
        ("dom", lambda: f"{r.choice(p)} <{RDFS}domain> {r.choice(c)} ."),
        ("rng", lambda: f"{r.choice(p)} <{RDFS}range> {r.choice(c)} ."),
    ]


def _plus_axioms(r: random.Random, c, p):
    return _rdfs_axioms(r, c, p) + [
        ("eqc", lambda: f"{r.choice(c)} <{OWL}equivalentClass> {r.choice(c)} ."),
        ("eqp", lambda: f"{r.choice(p)} <{OWL}equivalentProperty> {r.choice(p)} ."),
        ("inv", lambda: f"{r.choice(p)} <{OWL}inverseOf> {r.choice(p)} ."),
        ("trp", lambda: f"{r.choice(p)} a <{OWL}TransitiveProperty> ."),
        ("symp", lambda: f"{r.choice(p)} a <{OWL}SymmetricProperty> ."),
    ]


def _owl2rl_axioms(r: random.Random, c, p, i):
    def restriction(kind, filler):
        return f"[ a <{OWL}Restriction> ; <{OWL}onProperty> {r.choice(p)} ; <{OWL}{kind}> {filler} ]"

    def dw():
        a, b = r.sample(c, 2)
        return f"{a} <{OWL}disjointWith> {b} ."

    return [
        ("sco", lambda: f"{r.choice(c)} <{RDFS}subClassOf> {r.choice(c)} ."),
        ("dom", lambda: f"{r.choice(p)} <{RDFS}domain> {r.choice(c)} ."),
        ("int", lambda: f"{r.choice(c)} <{OWL}equivalentClass> [ <{OWL}intersectionOf> ( {r.choice(c)} {r.choice(c)} ) ] ."),
        ("uni", lambda: f"[ <{OWL}unionOf> ( {r.choice(c)} {r.choice(c)} ) ] <{RDFS}subClassOf> {r.choice(c)} ."),
        ("svf", lambda: f"{r.choice(c)} <{OWL}equivalentClass> {restriction('someValuesFrom', r.choice(c))} ."),
        ("avf", lambda: f"{r.choice(c)} <{RDFS}subClassOf> {restriction('allValuesFrom', r.choice(c))} ."),
        ("hv", lambda: f"{r.choice(c)} <{OWL}equivalentClass> {restriction('hasValue', r.choice(i))} ."),
        ("chain", lambda: f"{r.choice(p)} <{OWL}propertyChainAxiom> ( {r.choice(p)} {r.choice(p)} ) ."),
        ("inv", lambda: f"{r.choice(p)} <{OWL}inverseOf> {r.choice(p)} ."),
        ("trp", lambda: f"{r.choice(p)} a <{OWL}TransitiveProperty> ."),
        ("fp", lambda: f"{r.choice(p)} a <{OWL}FunctionalProperty> ."),
        ("dw", dw),
    ]


def generate(profile: str, count: int = EXAMPLES, seed: int = SEED,
             shapes=((3000, 1000), (4000, 2000), (2000, 1000)), deep: bool = False) -> list[Case]:
    """``count`` cases for a profile, deterministic in ``seed``.

    Items fall at whole seconds 1..8 (so on window boundaries too), some repeat an earlier
    item later (renewal), most use the terms the ontology names (so rules fire), and about
    one in five arrives late, in a second file. ``deep``: each case's classes and properties
    also form one chain each, in a random order (ancestors up to 8 and 5 steps away)."""
    r = random.Random(f"{profile}:{seed}{':deep' if deep else ''}")
    cases = []
    for n in range(count):
        if profile == "owl2rl":
            c, p, i = vocabulary(n, 9 if deep else 5, 6 if deep else 4, 4)
            pool = _owl2rl_axioms(r, c, p, i)
            # a disjointness and a functional property in most cases: violations to find
            tbox = [(k, make()) for k, make in (pool[-1], pool[-2]) if r.random() < 0.7]
            tbox += [(k, make()) for k, make in (r.choice(pool) for _ in range(r.randint(3, 7)))]
        else:
            c, p, i = vocabulary(n, 9 if deep else 5, 6 if deep else 4, 5)
            pool = _rdfs_axioms(r, c, p) if profile == "rdfs" else _plus_axioms(r, c, p)
            tbox = [(k, make()) for k, make in (r.choice(pool) for _ in range(r.randint(2, 8)))]
        if deep:
            tbox = _chain(r, "sco", c, "subClassOf") + _chain(r, "spo", p, "subPropertyOf") + tbox
        case = Case(n, c, p, i, tbox=tbox, shape=shapes[n % len(shapes)])
        named = " ".join(line for _, line in tbox)
        # mostly the terms the ontology names, so that its rules fire
        used_c = [x for x in c if x in named] or c
        used_p = [x for x in p if x in named] or p
        items: list[tuple[Triple, int]] = []  # times in whole seconds here, in ms below
        for _ in range(r.randint(4, 12)):
            if items and r.random() < 0.25:  # the same item again, later: renewal
                x, t = r.choice(items)
                items.append((x, min(8, t + r.randint(1, 3))))
                continue
            if r.random() < 0.6:
                x = (r.choice(i), r.choice(used_p if r.random() < 0.8 else p), r.choice(i))
            else:
                x = (r.choice(i), TYPE, r.choice(used_c if r.random() < 0.8 else c))
            items.append((x, r.randint(1, 8)))
        items = sorted({(x, t * 1000) for x, t in items}, key=lambda e: (e[1], e[0]))
        for item in items:
            if item[1] <= ARRIVAL and r.random() < 0.2:
                case.late.append(item)
            else:
                case.events.append(item)
        cases.append(case)
    return cases


ARRIVAL = 5000  # the late items are ingested just before the closes at this time


# ---- running the engine ----------------------------------------------------------------------


def view_name(prefix: str, shape: tuple[int, int]) -> str:
    return f"{prefix}_w{shape[0] // 1000}_s{shape[1] // 1000}"


def start(lake, root: Path, cases: list[Case], profile: str, prefix: str,
          extra: str = "") -> dict[tuple[int, int], str]:
    """Write the joint ontology, one view and one stream per shape (a view sees only its
    cases) and the first stream files; ingest them."""
    root.mkdir(parents=True, exist_ok=True)
    (root / f"{prefix}.ttl").write_text("".join(c.ttl() for c in cases))
    views = {}
    for shape in sorted({c.shape for c in cases}):
        name = view_name(prefix, shape)
        (root / f"{name}.yaml").write_text(
            f"name: {name}\nstream: {name}\nontology: [{prefix}.ttl]\nprofile: {profile}\n"
            f"window: {{width: {shape[0]}ms, slide: {shape[1]}ms, start: 0}}\n{extra}")
        views[shape] = name
    lake.create_views([root / f"{name}.yaml" for name in views.values()])
    for shape, name in views.items():
        _write_events(root / f"{name}-0.jsonl", [e for c in cases if c.shape == shape for e in c.events])
        _write_events(root / f"{name}-1.jsonl", [e for c in cases if c.shape == shape for e in c.late])
        lake.ingest(name, [root / f"{name}-0.jsonl"])
    return views


def ingest_late(lake, root: Path, views: dict) -> None:
    for name in views.values():
        lake.ingest(name, [root / f"{name}-1.jsonl"])


def _write_events(path: Path, events) -> None:
    path.write_text("".join(json.dumps({"s": s, "p": p, "o": o, "ts": t}) + "\n" for (s, p, o), t in events))


def closes(cases: list[Case]) -> list[tuple[int, tuple[int, int]]]:
    """(close, shape) in time order: every close of every shape until the items are gone."""
    last = max((t for c in cases for _, t in c.events + c.late), default=0)
    out = []
    for width, slide in sorted({c.shape for c in cases}):
        close = width
        while close <= last + width:
            out.append((close, (width, slide)))
            close += slide
    return sorted(out)


def arrived(case: Case, close: int) -> list[tuple[Triple, int]]:
    return case.events + case.late if close >= ARRIVAL else case.events


def window(case: Case, close: int) -> set[tuple[Triple, int]]:
    return {(x, t) for x, t in arrived(case, close) if close - case.shape[0] < t <= close}


# ---- the oracle ------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _closure(ttl: str, items: frozenset, profile: str, people: tuple, props: tuple, classes: tuple) -> frozenset:
    return frozenset(closure(ttl, set(items), profile, set(people), set(props), set(classes)))


def expected(case: Case, items: set[tuple[Triple, int]], profile: str,
             leave_out: frozenset[str] = frozenset()) -> dict[str, int]:
    """N-Triples line -> origin (ms): each fact of the closure of ``items`` with the newest
    time whose suffix of the window still entails it."""
    ttl = case.ttl(leave_out)
    out: dict[str, int] = {}
    for t in sorted({t for _, t in items}, reverse=True):
        suffix = frozenset(x for x, tt in items if tt >= t)
        for line in _closure(ttl, suffix, profile, tuple(case.people), tuple(case.props), tuple(case.classes)):
            out.setdefault(line, t)
    return out


def view_rows(lake, view: str, close: int) -> dict[int, Counter]:
    """case number -> Counter of (N-Triples line, origin ms) of the view at a close."""
    rows = lake.view(view, close=close).selectExpr(
        "concat_ws(' ', subject, predicate, object, '.') AS line", "unix_millis(origin) AS origin").collect()
    out: dict[int, Counter] = {}
    for row in rows:
        out.setdefault(owner(row.line.split(" ", 1)[0]), Counter())[(row.line, row.origin)] += 1
    return out


def table_problems(lake, view: str, published) -> list[str]:
    """What is wrong with the materialization as Delta holds it at the version a close
    published: rows that left the window by then (readers of reasonlake filter by origin,
    so only the table itself shows an expiry that did not happen, and other engines read
    the table), and rows labelled as explicit items that no item of the stream gives at
    their origin (a derivation carrying the wrong rule)."""
    from pyspark.sql import functions as F

    if not published:
        return []
    record = published[-1]
    home = lake.home
    decl = home.view(view)
    table = home.spark.read.format("delta").option("versionAsOf", record.version).load(home.mat_path(view))
    problems = []
    stale = table.where(F.col("origin") <= decl.window.opens(record.close)).count()
    if stale:
        problems.append(f"the table still holds {stale} expired rows")
    events = home.table("events").where(F.col("stream") == decl.stream).select(
        F.col("s_id").alias("s"), F.col("p_id").alias("p"), F.col("o_id").alias("o"), F.col("ts").alias("origin"))
    items = table.where((F.col("rule") == "explicit") & (F.col("origin") < 2**63 - 1))  # not background
    unexplained = items.join(events, ["s", "p", "o", "origin"], "left_anti").count()
    if unexplained:
        problems.append(f"{unexplained} rows are labelled explicit but no item has their triple at their origin")
    return problems


def violation_sets(lake, view: str, close: int) -> dict[int, set]:
    """case number -> {(rule, frozenset of triples)} of the violations live at a close."""
    rows, _ = lake.violations(view, close=close)
    out: dict[int, set] = {}
    for r in rows.collect() if rows is not None else []:
        triples = frozenset(tuple(t.triple[:-2].split(" ")) for t in r.triples)
        out.setdefault(owner(next(iter(triples))[0]), set()).add((r.rule, triples))
    return out


def brute_force_violations(case: Case, facts: set[Triple], unique_names: bool) -> set:
    """(rule, frozenset of triples) for cax-dw and, with unique names, prp-fp over a closure."""
    out = set()
    types: dict[str, set] = {}
    for s, pr, o in facts:
        if pr == TYPE:
            types.setdefault(s, set()).add(o)
    for kind, line in case.tbox:
        if kind == "dw":
            a, _, b, _ = line.split(" ")
            for x, cs in types.items():
                if a in cs and b in cs:
                    out.add(("cax-dw", frozenset({(x, TYPE, a), (x, TYPE, b)})))
        if kind == "fp" and unique_names:
            prop = line.split(" ")[0]
            objs: dict[str, set] = {}
            for s, pr, o in facts:
                if pr == prop:
                    objs.setdefault(s, set()).add(o)
            for x, ys in objs.items():
                ys_sorted = sorted(ys)
                for k, y1 in enumerate(ys_sorted):
                    for y2 in ys_sorted[k + 1:]:
                        out.add(("prp-fp", frozenset({(x, prop, y1), (x, prop, y2)})))
    return out


def as_triple(line: str) -> Triple:
    s, p, o = line[:-2].split(" ")
    return s, p, o


# ---- coverage --------------------------------------------------------------------------------


@dataclass
class Coverage:
    """What the generated cases exercised, summed over a run (from the oracle's side)."""

    case_closes: int = 0  # (case, close) pairs with items in the window
    deriving: int = 0  # ... of which the closure holds a fact that is no item
    derived: int = 0
    expired: int = 0  # facts of the previous close gone at this one
    renewed: int = 0  # facts kept with a newer origin than at the previous close
    late: int = 0  # late items admitted while in their window
    violations: int = 0
    removals: int = 0

    def see(self, items: set, facts: dict[str, int], before: dict[str, int] | None) -> None:
        if items:
            self.case_closes += 1
            asserted = {f"{s} {p} {o} ." for (s, p, o), _ in items}
            inferred = set(facts) - asserted
            self.deriving += bool(inferred)
            self.derived += len(inferred)
        if before is not None:
            self.expired += len(set(before) - set(facts))
            self.renewed += sum(1 for line, t in facts.items() if line in before and t > before[line])

    def require(self, *, violations: bool = False, removals: bool = False, late: bool = True,
                deriving: float = 0.5) -> None:
        summary = str(self)
        assert self.case_closes >= 20, f"too few closes with items: {summary}"
        assert self.deriving > deriving * self.case_closes, f"derivations at too few closes: {summary}"
        assert self.expired >= 10 and self.renewed >= 5, f"too little expiry or renewal: {summary}"
        if late:
            assert self.late > 0, f"no late item admitted: {summary}"
        if violations:
            assert self.violations >= 5, f"too few violations: {summary}"
        if removals:
            assert self.removals >= 5, f"too few repairs: {summary}"
