"""Why a fact is in a view: one derivation of it, down to stream items, background facts and
the TBox axioms used, computed on demand from the compiled rules over the view's facts at a
close (nothing is stored per fact but its origin and the rule that last derived it).

A derived fact's origin is the oldest origin among its premises, and the view keeps the
newest such origin over its derivations (IMaRS); so the derivation shown is one whose
oldest premise is as new as possible: the one that gives the fact its origin. Premises are
explained the same way; a premise already on the path being explained is not used again
(a fact never rests on itself), so a premise as new as the fact may have no derivation of
its own origin off the path (it owed it to the fact): a derivation is taken where every
step has its own origin (``Step.exact``), and a fact explained so is shared, not
explained twice.
"""
from __future__ import annotations

import polars as pl
from pyspark.sql import functions as F

from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, LinearRule, Program, compile_program
from reasonlake.compile.tbox import load_tbox
from reasonlake.engine.reads import audit, read
from reasonlake.engine.reads.derivation_steps import Key, Step, walk
from reasonlake.engine.steps.admit import events_query, stream_literal
from reasonlake.engine.store import driver_reads
from reasonlake.engine.store.dictionary import driver_term_id
from reasonlake.engine.store.home import Home
from reasonlake.errors import CloseError
from reasonlake.plan.durations import format_time
from reasonlake.plan.windows import NEVER
from reasonlake.vocab import SAME_AS

# Entailed TBox axiom each linear rule instantiates: (subject, predicate, object) of the rule.
_TBOX_PREDICATE = {
    "cax-sco": "<http://www.w3.org/2000/01/rdf-schema#subClassOf>",
    "rdfs9": "<http://www.w3.org/2000/01/rdf-schema#subClassOf>",
    "cax-eqc1": "<http://www.w3.org/2002/07/owl#equivalentClass>",
    "cax-eqc2": "<http://www.w3.org/2002/07/owl#equivalentClass>",
    "prp-spo1": "<http://www.w3.org/2000/01/rdf-schema#subPropertyOf>",
    "rdfs7": "<http://www.w3.org/2000/01/rdf-schema#subPropertyOf>",
    "prp-eqp1": "<http://www.w3.org/2002/07/owl#equivalentProperty>",
    "prp-eqp2": "<http://www.w3.org/2002/07/owl#equivalentProperty>",
    "prp-dom": "<http://www.w3.org/2000/01/rdf-schema#domain>",
    "rdfs2": "<http://www.w3.org/2000/01/rdf-schema#domain>",
    "prp-rng": "<http://www.w3.org/2000/01/rdf-schema#range>",
    "rdfs3": "<http://www.w3.org/2000/01/rdf-schema#range>",
    "prp-inv1": "<http://www.w3.org/2002/07/owl#inverseOf>",
    "prp-inv2": "<http://www.w3.org/2002/07/owl#inverseOf>",
}
_TYPE_RULES = {"cax-sco", "rdfs9", "cax-eqc1", "cax-eqc2"}
_TYPING_RULES = {"prp-dom", "rdfs2", "prp-rng", "rdfs3"}


class Deriver:
    """Derivations over one close's facts (ids: s, p, o, origin, rule) and a view's program."""

    def __init__(self, facts: pl.DataFrame, program: Program, tbox=frozenset()):
        self.facts = facts
        self.program = program
        self.hierarchy = _Hierarchy(tbox)
        self.ids: dict[str, int] = {}
        self.terms: dict[int, str] = {}
        self.linear_by_head: dict[int, list[LinearRule]] = {}
        for rule in program.linear:
            self.linear_by_head.setdefault(self.id(rule.out_p), []).append(rule)
        self.transitive = {self.id(p): p for p in program.transitive}
        self.done: dict[Key, Step] = {}

    def id(self, term: str) -> int:
        if term not in self.ids:
            self.ids[term] = driver_term_id(term)
            self.terms[self.ids[term]] = term
        return self.ids[term]

    def best(self, s: int | None, p: int | None, o: int | None) -> pl.DataFrame:
        """The facts matching a pattern (None: any), newest origin first."""
        found = self.facts
        for column, value in (("s", s), ("p", p), ("o", o)):
            if value is not None:
                found = found.filter(pl.col(column) == value)
        return found.sort("origin", descending=True)

    def explain(self, key: Key, path: frozenset[Key] = frozenset()) -> Step | None:
        if key in self.done:
            return self.done[key]
        rows = self.best(*key)
        if rows.is_empty():
            return None
        origin, rule = rows.row(0)[3], rows.row(0)[4]
        if rule == "explicit":
            step = Step(key, origin, None, background=origin >= NEVER)
        elif origin >= NEVER:
            step = Step(key, origin, rule, background=True)
        else:
            step = self._derived(key, origin, rule, path | {key})
            if not step.exact:
                # every derivation that gives the fact its origin runs through the path: the
                # one found holds here only, and the fact is explained afresh elsewhere
                return step
        self.done[key] = step
        return step

    def _derived(self, key: Key, origin: int, rule: str, path: frozenset[Key]) -> Step:
        """The derivation whose oldest premise is newest, of those whose premises can be
        explained off ``path``, by any rule (the table's ``rule`` names one derivation, and
        the newest may be another rule's when the one it names runs through ``path``); of
        derivations as new, the table's rule first. A step without premises when none can."""
        ranked = sorted(((min(self._origin(p) for p in premises), by == rule, -n, by, premises, tbox)
                         for n, (premises, tbox, by) in enumerate(self._candidates(key, path))), reverse=True)
        fallback = None
        for oldest, _, _, by, premises, tbox in ranked:
            steps = [self.explain(p, path) for p in premises]
            if not all(s is not None and (s.rule is None or s.background or s.premises) for s in steps):
                continue
            # a premise as new as the fact may itself owe its origin to the fact (a cycle
            # through the path): take the derivation whose every step has its own origin
            exact = oldest == origin and all(s.exact for s in steps)
            step = Step(key, origin, by, steps, tbox, exact=exact)
            if exact:
                return step
            fallback = fallback or step
        return fallback or Step(key, origin, rule, exact=False)

    def _origin(self, key: Key) -> int:
        rows = self.best(*key)
        return rows.row(0)[3] if not rows.is_empty() else -(2**63)

    def _candidates(self, key: Key, path: frozenset[Key]):
        """(premises, TBox axioms, rule) of each instantiation of a rule whose head is ``key``
        and whose premises are all in the view and off ``path``."""
        s, p, o = key
        for linear in self.linear_by_head.get(p, ()):
            for premises, tbox in self._linear(linear, s, o, path):
                yield premises, tbox, linear.rule
        if p in self.transitive:
            yield from self._transitive(s, p, o, path)
        for join in self.program.positive():
            for premises, tbox in self._join(join, key, path):
                yield premises, tbox, join.rule

    def _linear(self, rule: LinearRule, s: int, o: int, path):
        bound = {}
        for position, value in ((rule.out_s, s), (rule.out_o, o)):
            if position == FROM_SUBJECT:
                bound["x"] = value
            elif position == FROM_OBJECT:
                bound["y"] = value
            elif self.id(position) != value:
                return
        x, y = bound.get("x"), bound.get("y")
        if rule.in_o is not None:
            if y is not None and y != self.id(rule.in_o):
                return
            y = self.id(rule.in_o)
        tbox = self._axiom(rule)
        for row in self.best(x, self.id(rule.in_p), y).iter_rows():
            premise = (row[0], row[1], row[2])
            if premise not in path:
                yield [premise], tbox

    def _axiom(self, rule: LinearRule) -> list[tuple[str, str, str]]:
        """The ontology's axioms the instantiation rests on: a path of asserted ones through
        the hierarchy when there is one, else the axiom the saturated TBox entails."""
        predicate = _TBOX_PREDICATE.get(rule.rule)
        if predicate is None:
            return []
        if rule.rule in _TYPE_RULES:
            entailed = (rule.in_o, predicate, rule.out_o)
            path = self.hierarchy.path(rule.in_o, rule.out_o)
        elif rule.rule in _TYPING_RULES:
            entailed = (rule.in_p, predicate, rule.out_o)
            path = self.hierarchy.typing(rule.in_p, predicate, rule.out_o)
        else:
            entailed = (rule.in_p, predicate, rule.out_p)
            path = self.hierarchy.path(rule.in_p, rule.out_p) if rule.rule not in (
                "prp-inv1", "prp-inv2") else None
        return path or [entailed]

    def _transitive(self, s: int, p: int, o: int, path):
        left = self.best(s, p, None).select(pl.col("o").alias("mid"), pl.col("origin").alias("a"))
        right = self.best(None, p, o).select(pl.col("s").alias("mid"), pl.col("origin").alias("b"))
        pairs = left.join(right, on="mid").filter((pl.col("mid") != s) & (pl.col("mid") != o))
        pairs = pairs.with_columns(pl.min_horizontal("a", "b").alias("oldest")).sort("oldest", descending=True)
        rule = "eq-trans" if self.transitive[p] == SAME_AS else "prp-trp"
        tbox = [] if rule == "eq-trans" else [
            (self.transitive[p], "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>",
             "<http://www.w3.org/2002/07/owl#TransitiveProperty>")]
        for mid in pairs.get_column("mid").to_list():
            premises = [(s, p, mid), (mid, p, o)]
            if not any(q in path for q in premises):
                yield premises, tbox, rule

    def _join(self, join, key: Key, path):
        """The body's matches with the head bound to ``key``: atoms joined one by one."""
        bindings = {}
        for term, value in zip(join.head, key):
            if term.startswith("?"):
                if bindings.get(term, value) != value:
                    return
                bindings[term] = value
            elif self.id(term) != value:
                return
        matches = pl.DataFrame({v: [x] for v, x in bindings.items()}, schema={v: pl.Int64 for v in bindings}) \
            if bindings else None
        for n, atom in enumerate(join.body):
            rows = self.facts
            names = {}
            for column, term in zip(("s", "p", "o"), atom):
                if term.startswith("?"):
                    if term in names.values():  # a variable twice in one atom
                        rows = rows.filter(pl.col(column) == pl.col(next(c for c, t in names.items() if t == term)))
                    else:
                        names[column] = term
                else:
                    rows = rows.filter(pl.col(column) == self.id(term))
            rows = rows.select(*(pl.col(c).alias(t) for c, t in names.items()),
                               pl.col("s").alias(f"#s{n}"), pl.col("p").alias(f"#p{n}"), pl.col("o").alias(f"#o{n}"),
                               pl.col("origin").alias(f"#origin{n}"))
            shared = [t for t in names.values() if matches is not None and t in matches.columns]
            if matches is None:
                matches = rows
            elif shared:
                matches = matches.join(rows, on=shared)
            else:
                matches = matches.join(rows, how="cross")
            if matches.is_empty():
                return
        for a, b in join.distinct:
            if a in matches.columns and b in matches.columns:
                matches = matches.filter(pl.col(a) != pl.col(b))
        count = len(join.body)
        matches = matches.with_columns(pl.min_horizontal(*(f"#origin{n}" for n in range(count))).alias("#oldest"))
        for row in matches.sort("#oldest", descending=True).head(64).iter_rows(named=True):
            premises = [(row[f"#s{n}"], row[f"#p{n}"], row[f"#o{n}"]) for n in range(count)]
            if not any(q in path for q in premises):
                yield premises, []


_SUB_CLASS = "<http://www.w3.org/2000/01/rdf-schema#subClassOf>"
_SUB_PROPERTY = "<http://www.w3.org/2000/01/rdf-schema#subPropertyOf>"
_EQUIVALENT_CLASS = "<http://www.w3.org/2002/07/owl#equivalentClass>"
_EQUIVALENT_PROPERTY = "<http://www.w3.org/2002/07/owl#equivalentProperty>"


class _Hierarchy:
    """The ontology's asserted class and property edges, to name the axioms behind an
    entailed one (``A ⊑ C`` from ``A ⊑ B``, ``B ⊑ C``)."""
    def __init__(self, tbox):
        self.edges: dict[str, list[tuple[str, tuple[str, str, str]]]] = {}
        self.tbox = tbox
        for s, p, o in tbox:
            if p in (_SUB_CLASS, _SUB_PROPERTY):
                self.edges.setdefault(s, []).append((o, (s, p, o)))
            elif p in (_EQUIVALENT_CLASS, _EQUIVALENT_PROPERTY):
                self.edges.setdefault(s, []).append((o, (s, p, o)))
                self.edges.setdefault(o, []).append((s, (s, p, o)))

    def path(self, start: str, end: str) -> list[tuple[str, str, str]] | None:
        """The axioms of a shortest path from ``start`` up to ``end`` ([] when equal)."""
        if start == end:
            return []
        came: dict[str, tuple[str, tuple]] = {start: None}
        frontier = [start]
        while frontier:
            following = []
            for node in frontier:
                for nxt, axiom in self.edges.get(node, ()):
                    if nxt not in came:
                        came[nxt] = (node, axiom)
                        if nxt == end:
                            out = []
                            while came[nxt] is not None:
                                nxt, axiom = came[nxt]
                                out.append(axiom)
                            return out[::-1]
                        following.append(nxt)
            frontier = following
        return None

    def typing(self, prop: str, predicate: str, cls: str):
        """P ⊑* Q, Q domain (range) C, C ⊑* D: the shortest such chain of asserted axioms."""
        best = None
        for s, p, o in self.tbox:
            if p != predicate:
                continue
            up, down = self.path(prop, s), self.path(o, cls)
            if up is not None and down is not None:
                chain = up + [(s, p, o)] + down
                if best is None or len(chain) < len(best):
                    best = chain
        return best


def why(home: Home, view: str, triple: tuple[str, str, str], close: int | None = None) -> tuple[Step, int, dict]:
    """One derivation of ``triple`` in ``view`` at ``close`` (default: the last processed
    close): its root step, the close, and the terms of every id in it."""
    decl = home.view(view)
    _, at = read.pick(home, view, close, None)
    tbox = load_tbox(decl.ontology)
    program = compile_program(tbox, decl.profile, decl.unique_names)
    facts = read.facts_collected(home, view, at)
    deriver = Deriver(facts, program, tbox)
    key = tuple(deriver.id(t) for t in triple)
    root = deriver.explain(key)
    if root is None:
        raise CloseError(_absent(home, view, triple, at))
    steps = list(walk(root))
    _attach_items(home, decl.stream, [s for s in steps if s.rule is None and not s.background])
    ids = {i for s in steps for i in s.key}
    terms = {**deriver.terms, **_terms(home, ids - set(deriver.terms))}
    return root, at, terms


def _attach_items(home: Home, stream: str, items: list[Step]) -> None:
    """The event behind each stream item: its time, file and line (the newest renewal)."""
    if not items:
        return
    keys = {(*s.key, s.origin) for s in items}
    # read here where the home allows it: the events of those subjects at those times, then the exact keys
    near = events_query(home, f"SELECT s_id, p_id, o_id, ts, file, line FROM events WHERE stream = {stream_literal(stream)} "
                              f"AND ts IN ({', '.join(str(k[3]) for k in keys)}) "
                              f"AND s_id IN ({', '.join(str(k[0]) for k in keys)})")
    if near is not None:
        rows = [r for r in zip(*(near.column(c).to_pylist() for c in ("s_id", "p_id", "o_id", "ts", "file", "line")))
                if r[:4] in keys]
    else:
        wanted = home.spark.createDataFrame(sorted(keys), "s_id BIGINT, p_id BIGINT, o_id BIGINT, ts BIGINT")
        rows = (home.table("events").where(F.col("stream") == stream)
                .join(F.broadcast(wanted), ["s_id", "p_id", "o_id", "ts"])
                .select("s_id", "p_id", "o_id", "ts", "file", "line").collect())
    found = {}
    for s_id, p_id, o_id, ts, file, line in rows:
        found.setdefault((s_id, p_id, o_id, ts), (file, line))
    for s in items:
        file, line = found.get((*s.key, s.origin), (None, None))
        s.item = {"ts": s.origin, "file": file, "line": line}


def _terms(home: Home, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    near = driver_reads.answer(home.spark, {"terms": (home.path("terms"), None)},
                               f"SELECT id, term FROM {{terms}} WHERE id IN ({', '.join(str(int(i)) for i in sorted(ids))})")
    return dict(zip(near.column("id").to_pylist(), near.column("term").to_pylist()))


def _absent(home: Home, view: str, triple, at: int) -> str:
    text = " ".join(triple) + " ."
    seen = audit.presence(home, view, text)
    if seen.seen_close is None:
        return f"{text} is not in view '{view}' at close {format_time(at)}, nor in any of its last {seen.searched} closes"
    return (f"{text} is not in view '{view}' at close {format_time(at)}; it was last there at close "
            f"{format_time(seen.seen_close)} (`reasonlake explain {view} --removed` tells why it left)")


