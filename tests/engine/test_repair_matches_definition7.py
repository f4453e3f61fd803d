"""Property: a newest-wins view, slid close by close over generated streams and ontologies
with disjointness and functional properties, keeps at every close exactly the explicit items
of Proost & Bonte's window repair (Definition 7, computed here by brute force: every subset
of the items, consistency decided by owlrl), materializes exactly the owlrl closure of those
items with the origins IMaRS gives them, and owlrl finds that closure consistent. A rebuild
at the last close gives the same facts and origins (delete and re-derive).

The cases are packed into one view (``packed``: a namespace each, no rule joins two), each
checked against the brute force of its own window; two are written out (derived conflicts
with old items, a functional property whose old value loses), the rest generated. Every
case asserts two disjoint classes of one individual inside one window, so there is
something to repair besides what the generated items add.

Consistency oracle: owlrl's closure has no error message and, under unique names, no
owl:sameAs between two different names."""
from __future__ import annotations

import itertools
import random
from collections import Counter
from functools import lru_cache

import owlrl
import pytest
from owlrl.Closure import ERRNS
from rdflib import Graph, URIRef
from rdflib.namespace import OWL as OWL_NS
from rdflib.namespace import RDF

from tests.engine import packed
from tests.engine.paths import evaluation_path

RDFS = packed.RDFS
OWL = packed.OWL
TYPE = packed.TYPE
WIDTH, SLIDE = 3000, 1000


def _axioms(r: random.Random, c, p, i):
    def pair():
        return r.sample(c, 2)
    return [
        lambda: f"{r.choice(c)} <{RDFS}subClassOf> {r.choice(c)} .",
        lambda: "{} <{}disjointWith> {} .".format(*(lambda x: (x[0], OWL, x[1]))(pair())),
        lambda: f"{r.choice(p)} a <{OWL}FunctionalProperty> .",
        lambda: f"{r.choice(p)} <{RDFS}domain> {r.choice(c)} .",
        lambda: f"{r.choice(p)} <{RDFS}range> {r.choice(c)} .",
        lambda: (f"{r.choice(c)} <{OWL}equivalentClass> [ a <{OWL}Restriction> ; <{OWL}onProperty> {r.choice(p)} ; "
                 f"<{OWL}hasValue> {r.choice(i)} ] ."),
        lambda: f"{r.choice(c)} <{OWL}equivalentClass> [ <{OWL}intersectionOf> ( {r.choice(c)} {r.choice(c)} ) ] .",
    ]


def generate(count: int = packed.EXAMPLES, seed: int = packed.SEED) -> list[packed.Case]:
    """Two written cases, then generated ones; few names each, so streams contradict themselves.

    Items fall on whole seconds and on the window's edges and between them (0, 1 or 500 ms
    past a second: closes and openings are whole seconds); every third case also
    holds a conflict of three items at three times inside one window: pairwise (a functional
    property with three values, three pairwise disjoint classes: the two older ones lose) or
    together (two classes whose intersection is disjoint with a third: the oldest loses).
    An ontology whose conflicts cannot all be found from the assertions (a recursive
    negative inclusion, which a view refuses without ``repair_depth``) is drawn again."""
    r = random.Random(f"repair:{seed}")
    cases = []
    for n in range(count):
        three = r.choice(("functional", "disjoint", "intersection")) if n % 3 == 2 else None
        c, p, i = packed.vocabulary(n, 4 if three == "intersection" else 3, 2, 3 if n > 1 else 2)
        case = packed.Case(n, c, p, i, shape=(WIDTH, SLIDE))
        if n == 0:  # C0 via a hasValue restriction and a subclass, re-derived after repair
            tbox = [f"{c[0]} <{OWL}disjointWith> {c[1]} .",
                    f"{c[2]} <{OWL}equivalentClass> [ a <{OWL}Restriction> ; <{OWL}onProperty> {p[0]} ; "
                    f"<{OWL}hasValue> {i[1]} ] .",
                    f"{c[2]} <{RDFS}subClassOf> {c[0]} ."]
            events = [((i[0], p[0], i[1]), 1000), ((i[0], TYPE, c[2]), 2000), ((i[0], TYPE, c[1]), 3000),
                      ((i[0], p[0], i[1]), 4000), ((i[1], TYPE, c[0]), 4000), ((i[1], TYPE, c[1]), 5000)]
        elif n == 1:  # a functional property whose old value loses; a repeated item renews a
            # derived type (i0 a C0 from 3000 to 4000), so every seed renews a derived fact
            tbox = [f"{p[1]} a <{OWL}FunctionalProperty> .", f"{p[1]} <{RDFS}range> {c[0]} ."]
            events = [((i[0], p[1], i[0]), 1000), ((i[0], p[1], i[1]), 2000), ((i[1], p[1], i[0]), 2000),
                      ((i[0], p[1], i[0]), 3000), ((i[1], p[1], i[0]), 4000)]
        else:
            tbox, events, planted = _drawn(r, c, p, i, three)
            while _recursive(tbox):
                tbox, events, planted = _drawn(r, c, p, i, three)
            case.planted = planted
        case.tbox = packed.declarations(c, p) + [("", line) for line in tbox]
        case.events = sorted(set(events), key=lambda e: (e[1], e[0]))
        cases.append(case)
    return cases


def _drawn(r: random.Random, c, p, i, three: str | None):
    """A generated case's ontology, items (ms) and planted three-way conflict (or none)."""
    def when(low: int, high: int) -> int:  # a whole second, an edge's next ms or a half
        return r.randint(low, high) * 1000 + r.choice((0, 0, 1, 500))

    a, b = r.sample(c, 2)
    pool = _axioms(r, c, p, i)
    tbox = [f"{a} <{OWL}disjointWith> {b} .", *(r.choice(pool)() for _ in range(r.randint(2, 5)))]
    if r.random() < 0.5:
        tbox.append(f"{r.choice(p)} a <{OWL}FunctionalProperty> .")
    x = r.choice(i)
    t1 = when(1, 4)  # the first window, at close 3 s, holds (0 s, 3 s]
    t2 = r.randint(t1 // 1000 + 1, t1 // 1000 + WIDTH // 1000 - 1) * 1000  # both inside one window
    events = [((x, TYPE, a), t1), ((x, TYPE, b), t2)]
    planted = []
    if three:  # three items at three times inside one window, in conflict pairwise or together
        if three == "functional":  # pairwise: one property, three values
            prop = r.choice(p)
            tbox.append(f"{prop} a <{OWL}FunctionalProperty> .")
            members = [(x, prop, y) for y in r.sample(i, 3)]
        elif three == "disjoint":  # pairwise: three disjoint classes
            tbox += [f"{u} <{OWL}disjointWith> {v} ." for u, v in itertools.combinations(c[:3], 2)]
            members = [(x, TYPE, k) for k in r.sample(c[:3], 3)]
        else:  # together: the fourth class is the first two's intersection, disjoint with the third
            tbox += [f"{c[3]} <{OWL}equivalentClass> [ <{OWL}intersectionOf> ( {c[0]} {c[1]} ) ] .",
                     f"{c[3]} <{OWL}disjointWith> {c[2]} ."]
            members = [(x, TYPE, k) for k in r.sample(c[:3], 3)]
        start = r.randint(1, 4) * 1000 + r.choice((1, 500))
        planted = [(t, start + k * 600) for k, t in enumerate(members)]
        events += planted
    for _ in range(r.randint(1, 7)):
        item = ((r.choice(i), r.choice(p), r.choice(i)) if r.random() < 0.5
                else (r.choice(i), TYPE, r.choice(c)))
        events.append((item, when(1, 6)))
    for _ in range(r.randint(1, 2)):  # an item again, later: it and what it derives renewed
        item, t = r.choice(events[2 + len(planted):])
        events.append((item, t + r.choice((1000, 1500, 2000))))
    return tbox, events, planted


def _recursive(tbox: list[str]) -> bool:
    """The view would refuse this ontology without ``repair_depth`` (RL160), or refuses it
    outright (a rewriting past its bound of patterns)."""
    from reasonlake.compile.program import compile_program
    from reasonlake.compile.tbox import load_tbox
    from reasonlake.declare.view import OntologySource
    from reasonlake.repair.normal_form import RecursiveNegativeInclusion, rewrite

    program = compile_program(load_tbox((OntologySource("case.ttl", "\n".join(tbox), "turtle"),)), "owl2rl")
    try:
        rewrite(program, None)
    except (RecursiveNegativeInclusion, ValueError):
        return True
    return False


def _node(term: str) -> URIRef:
    return URIRef(term[1:-1])


@lru_cache(maxsize=None)
def _consistent(ttl: str, triples: frozenset, people: tuple[str, ...]) -> bool:
    graph = Graph()
    graph.parse(data=ttl, format="turtle")
    for s, pr, o in triples:
        graph.add((_node(s), _node(pr), _node(o)))
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics, rdfs_closure=False, axiomatic_triples=False,
                           datatype_axioms=False).expand(graph)
    if any(True for _ in graph.subjects(RDF.type, ERRNS.ErrorMessage)):
        return False
    names = {_node(x) for x in people}
    return not any(s != o and s in names and o in names for s, o in graph.subject_objects(OWL_NS.sameAs))


def _consistent_items(ttl: str, items, people) -> bool:
    return _consistent(ttl, frozenset(t for t, _ in items), people)


def _maximal_consistent(ttl: str, items: frozenset, people: tuple[str, ...]) -> list[frozenset]:
    """The inclusion-maximal consistent subsets of ``items``, every subset considered, largest
    first; owlrl decides only the subsets neither inside a consistent one nor around an
    inconsistent one (consistency is inherited by subsets, inconsistency by supersets)."""
    ordered = sorted(items, key=lambda x: (x[1], x[0]))
    found: list[frozenset] = []
    inconsistent: list[frozenset] = []
    for n in range(len(ordered), -1, -1):
        for subset in map(frozenset, itertools.combinations(ordered, n)):
            if any(subset <= f for f in found) or any(bad <= subset for bad in inconsistent):
                continue
            (found if _consistent_items(ttl, subset, people) else inconsistent).append(subset)
    return found


def _preferred_intersection(ttl: str, items: frozenset, people: tuple[str, ...]) -> frozenset:
    """The intersection of all maximal consistent subsets under the window order: compare
    two subsets at the newest time where they differ; the one holding more there wins."""
    consistent = _maximal_consistent(ttl, items, people)
    times = sorted({t for _, t in items}, reverse=True)

    def better(a: frozenset, b: frozenset) -> bool:  # b above a in the window order
        for t in times:
            at, bt = {x for x in a if x[1] == t}, {x for x in b if x[1] == t}
            if at != bt:
                return at < bt
        return False

    # Only inclusion-maximal subsets can be maximal in the window order (a consistent proper
    # superset is above its subset), and whatever is above a subset has such a superset above it.
    maximal = [a for a in consistent if not any(better(a, b) for b in consistent)]
    return frozenset.intersection(*maximal) if maximal else frozenset()


def window_repair(ttl: str, items: set, people: tuple[str, ...]) -> frozenset:
    """Definition 7: add the items of each time in order, keep the intersection of the
    preferred repairs of what is kept so far plus them."""
    kept: frozenset = frozenset()
    for t in sorted({t for _, t in items}):
        kept = _preferred_intersection(ttl, kept | {x for x in items if x[1] == t}, people)
    return kept


def run_suite(spark, root, prefix: str, count: int = packed.EXAMPLES) -> packed.Coverage:
    from reasonlake.api import Lakehouse

    cases = generate(count)
    lake = Lakehouse(str(root / "lake"), spark=spark)
    lake.init()
    views = packed.start(lake, root, cases, "owl2rl", prefix, "repair: newest-wins\n")
    view = views[(WIDTH, SLIDE)]
    coverage = packed.Coverage()
    before: dict[int, dict[str, int]] = {}
    with packed.Oracle(repair_oracle_at, cases) as oracle:
        every = packed.closes(cases)
        for close, _ in every:
            last = close == every[-1][0]  # read through Spark too, as `reasonlake sql` does
            wrong = packed.table_problems(lake, view, lake.slide(view, until=close), through_spark=last)
            assert not wrong, f"close {close}: {'; '.join(wrong)}"
            surviving = _surviving(lake, view, close)
            got = packed.view_rows(lake, view, close, through_spark=last)
            answers = oracle.at(close)
            problems = []
            for c in cases:
                window = packed.window(c, close)
                kept, want, consistent = answers[c.number]
                have = got.get(c.number, Counter())
                origins = {line: origin for line, origin in have}
                explicit = {t for t, _ in kept}
                lines = []
                if surviving.get(c.number, set()) != explicit:
                    lines.append(f"  kept {surviving.get(c.number, set()) - explicit}, "
                                 f"removed {explicit - surviving.get(c.number, set())}")
                if origins != want or any(n > 1 for n in have.values()):
                    lines.append(f"  extra: {sorted(origins.keys() - want.keys())}; missing: "
                                 f"{sorted(want.keys() - origins.keys())}; origin (got, want): "
                                 f"{ {k: (origins[k], want[k]) for k in origins.keys() & want.keys() if origins[k] != want[k]} }")
                if not consistent:
                    lines.append("  owlrl finds the repair inconsistent")
                if lines:
                    problems.append("\n".join([c.describe(), *lines]))
                coverage.see(c, close, window, want, before.get(c.number))
                coverage.removals |= {(c.number, t, when) for t, when in window if t not in explicit}
                if c.planted and set(c.planted) <= window:
                    coverage.three_way.add(c.number)
                before[c.number] = want
            assert not problems, f"close {close}: {len(problems)} case(s) differ from Definition 7\n" + \
                "\n\n".join(problems[:3])
    # A rebuild of the last close: the same facts and origins (delete and re-derive agree).
    last = packed.view_rows(lake, view, close)
    lake.rebuild(view, at=close)
    assert packed.view_rows(lake, view, close) == last, "the rebuild differs from the repaired view"
    return coverage


def repair_oracle_at(cases: list[packed.Case], close: int) -> dict[int, tuple[frozenset, dict[str, int], bool]]:
    """case number -> (Definition 7's repair of its window at ``close``, owlrl's closure of
    that repair with IMaRS origins, whether owlrl finds the repair consistent): an
    ``Oracle``'s work."""
    out = {}
    for c in cases:
        ttl, people = c.ttl(), tuple(c.people)
        kept = window_repair(ttl, packed.window(c, close), people)
        out[c.number] = (kept, packed.expected(c, kept, "owl2rl"), _consistent(ttl, frozenset(t for t, _ in kept), people))
    return out


def _surviving(lake, view: str, close: int) -> dict[int, set]:
    """case number -> the window's explicit triples that repair did not tombstone, decoded."""
    from reasonlake.engine.steps import repair_step as repair
    from reasonlake.engine.store import repair_tables
    from reasonlake.engine.store import state
    from pyspark.sql import functions as F

    home = lake.home
    decl = home.view(view)
    items = repair.window_items(home, decl.stream, decl.window, close, state.latest_ingest_seq(home),
                                repair_tables.tombstones(home, view))
    named = items.select("s", "p", "o").distinct()
    for column, name in (("s", "subject"), ("p", "predicate"), ("o", "object")):  # decoded by hand: the test's own join
        terms = home.table("terms").select(F.col("id").alias(column), F.col("term").alias(name))
        named = named.join(terms, on=column, how="left")
    out: dict[int, set] = {}
    for r in named.select("subject", "predicate", "object").collect():
        out.setdefault(packed.owner(r.subject), set()).add((r.subject, r.predicate, r.object))
    return out


# The brute force costs about a second a case: half as many cases as the other suites, and
# on Spark (whose closes cost seconds each) the fewest that still meet the coverage guard.
CASES = {"driver": max(10, packed.EXAMPLES // 2), "spark": 10}


# The conflict search and the rounds, in the driver and on Spark. Repair is about conflicts:
# derivations are asked of an eighth of the closes (10 cases of seeds 100-140 and 200-208
# derive at 16-58% of theirs), and the streams have no late file.
@pytest.mark.parametrize("path", ["driver", "spark"])
def test_newest_wins_equals_window_repair_and_owlrl_closure(spark, tmp_path, path):
    with evaluation_path(path):
        run_suite(spark, tmp_path, f"rep_{path}", CASES[path]).require(removals=True, late=False, deriving=0.125)


# Seeds that once failed, kept as fixed cases. 777 drew a case whose disjointness depends on
# itself (a recursive negative inclusion): the view refused the whole joint ontology (RL160).
@pytest.mark.parametrize("seed", [777])
def test_a_seed_that_failed_draws_an_ontology_the_view_takes(seed):
    cases = generate(CASES["driver"], seed=seed)
    assert not _recursive([line for c in cases for _, line in c.tbox])
