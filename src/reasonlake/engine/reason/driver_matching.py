"""The compiled rules matched fact by fact in the driver, for the small searches of repair.

Repair's conflict search and over-deletion start from a handful of facts and fetch their
neighbourhood hop by hop: hash indexes over plain tuples answer such probes without the
setup of a vectorized join. Whole closes run in ``driver_rules``. The
semantics are those of ``spark_rounds`` and ``spark_joins`` to the row: derivations take the min
of their premises' origins, facts keep the max over derivations (an explicit item winning
a tie, then the greatest rule id, as ``best_per_fact`` orders them), a candidate enters Δ
only if it beats what is known, and violation rows are deduplicated the same way.

Terms are the same 64-bit ids; a fact is ``(s, p, o, origin)``.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import product
from operator import itemgetter

from reasonlake.engine.reason.program_tables import CONSTANT, FROM_S, ProgramTables
from reasonlake.compile.join_groups import JoinGroup

Fact = tuple[int, int, int, int]  # s, p, o, origin


# Secondary look-ups of an Index, each built the first time a premise needs it (Brick's
# rules only ever probe whole triples and subjects' (P, C) pairs): fact -> key.
_KEYS = {
    "sp": lambda f: (f[0], f[1]),
    "po": lambda f: (f[1], f[2]),
    "p": lambda f: f[1],
    "s": lambda f: f[0],
    "o": lambda f: f[2],
}


class Index:
    """Facts by every bound-position combination a premise look-up needs."""

    def __init__(self, facts=()):
        self._by: dict = {}  # name in _KEYS -> its look-up, once built
        self._pairs: dict | None = None  # s -> {(p, o)}: star groups test rows by subset
        self.every: list = list(facts)
        # one fact per triple is the usual case (a materialization): one comprehension
        self.by_spo: dict = defaultdict(list, {f[:3]: [f] for f in self.every})
        if len(self.by_spo) != len(self.every):
            self.by_spo = defaultdict(list)
            for f in self.every:
                self.by_spo[f[:3]].append(f)

    def add(self, f: Fact) -> None:
        self.every.append(f)
        self.by_spo[f[:3]].append(f)
        if self._by:
            for name, index in self._by.items():
                index[_KEYS[name](f)].append(f)
        if self._pairs is not None:
            self._pairs[f[0]].add((f[1], f[2]))

    def by(self, name: str) -> dict:
        index = self._by.get(name)
        if index is None:
            key = _KEYS[name]
            index = self._by[name] = defaultdict(list)
            for f in self.every:
                index[key(f)].append(f)
        return index

    def pairs_of(self, s) -> set:
        if self._pairs is None:
            self._pairs = defaultdict(set)
            for f in self.every:
                self._pairs[f[0]].add((f[1], f[2]))
        return self._pairs.get(s, frozenset())

    def lookup(self, s, p, o):
        """Facts matching the bound positions (None: free)."""
        if p is not None:
            if s is not None:
                return self.by("sp").get((s, p), ()) if o is None else self.by_spo.get((s, p, o), ())
            if o is not None:
                return self.by("po").get((p, o), ())
            return self.by("p").get(p, ())
        if s is not None:
            found = self.by("s").get(s, ())
            return found if o is None else [f for f in found if f[2] == o]
        if o is not None:
            return self.by("o").get(o, ())
        return self.every


@dataclass
class _Plan:
    """One premise position of a group: the rows indexed by that premise's constants, and
    the order in which the other premises are joined (most bound first, as on Spark)."""

    key: object  # fact -> the key of ``rows``: the fact's terms at the premise's constants
    rows: dict
    order: list[int]
    closed: list[bool]  # premise order[k] has every term known when it is joined: a look-up
    # Star groups (every premise ``x P C`` on one variable, constants elsewhere, as in
    # cls-int1 and cax-dw): per row, the (P, C) pairs the other premises need, so a row is
    # tested with one subset check against the subject's pairs instead of a look-up each.
    star: dict | None = None  # row key -> [(row, frozenset of (P, C))]
    # The one constant predicate of the first join (eq-rep-*: owl:sameAs), if it has one:
    # with no fact of it yet, the position cannot match.
    first_predicate: int | None = None


@dataclass
class LocalGroup:
    group: JoinGroup
    plans: list[_Plan] = field(default_factory=list)


def prepare(group: JoinGroup) -> LocalGroup:
    local = LocalGroup(group)
    for i, atom in enumerate(group.body):
        positions = tuple(k for k, (kind, _) in enumerate(atom) if kind == "k")
        rows: dict = defaultdict(list)
        for row in group.rows:
            rows[tuple(row[1 + atom[k][1]] for k in positions)].append(row)
        bound = {v for kind, v in atom if kind == "v"}
        remaining = [j for j in range(len(group.body)) if j != i]
        order, closed = [], []
        while remaining:
            def score(j):
                a = group.body[j]
                return (sum(1 for kind, v in a if kind == "v" and v in bound),
                        sum(1 for kind, _ in a if kind == "k"))
            j = max(remaining, key=score)
            remaining.remove(j)
            order.append(j)
            variables = {v for kind, v in group.body[j] if kind == "v"}
            closed.append(variables <= bound)
            bound |= variables
        first = group.body[order[0]][1] if order else ("v", None)
        predicates = {row[1 + first[1]] for row in group.rows} if first[0] == "k" else ()
        local.plans.append(_Plan(_fact_key(positions), dict(rows), order, closed, _star_rows(group, i, rows),
                                 next(iter(predicates)) if len(predicates) == 1 else None))
    return local


def _fact_key(positions: tuple[int, ...]):
    if len(positions) > 1:
        return itemgetter(*positions)
    if positions:
        k = positions[0]
        return lambda fact: (fact[k],)
    return lambda fact: ()


def _star_rows(group: JoinGroup, i: int, rows: dict) -> dict | None:
    subjects = {atom[0] for atom in group.body}
    star = len(subjects) == 1 and next(iter(subjects))[0] == "v" and not group.distinct and all(
        kind_p == "k" and kind_o == "k" for _, (kind_p, _), (kind_o, _) in group.body)
    if not star:
        return None
    return {
        key: [(row, frozenset((row[1 + p], row[1 + o]) for j, (_, (_, p), (_, o)) in enumerate(group.body) if j != i))
              for row in matching]
        for key, matching in rows.items()
    }


def _unify(atom, fact: Fact, row: tuple, binding: dict) -> dict | None:
    """The binding extended by matching ``fact`` to ``atom`` under the row's constants."""
    out = binding
    for pos, (kind, value) in enumerate(atom):
        term = fact[pos]
        if kind == "k":
            if row[1 + value] != term:
                return None
        elif value in out:
            if out[value] != term:
                return None
        else:
            if out is binding:
                out = dict(binding)
            out[value] = term
    return out


def _value(term, row: tuple, binding: dict):
    kind, value = term
    return row[1 + value] if kind == "k" else binding.get(value)


class Matcher:
    """Join groups dispatched by predicate: a fact is tried only against the premise
    positions whose predicate it carries (Brick has 72 positions; a fact fits a few)."""

    def __init__(self, groups: list[JoinGroup]):
        self.by_predicate: dict = defaultdict(list)  # p -> positions (x p ?y)
        self.by_value: dict = defaultdict(list)  # (p, o) -> positions (x p C), e.g. (x a C)
        self.any_predicate: list = []
        for group in groups:
            local = prepare(group)
            for i, plan in enumerate(local.plans):
                _, (kind_p, p_slot), (kind_o, o_slot) = group.body[i]
                entry = (local, i, plan)
                if kind_p != "k":
                    self.any_predicate.append(entry)
                elif kind_o == "k":
                    for key in {(row[1 + p_slot], row[1 + o_slot]) for row in group.rows}:
                        self.by_value[key].append(entry)
                else:
                    for p in {row[1 + p_slot] for row in group.rows}:
                        self.by_predicate[p].append(entry)

    def matches(self, delta, full: Index):
        """Every match of a group's body with at least one premise in Δ: (group, row,
        binding, premises in body order)."""
        by_value, by_predicate, any_predicate = self.by_value, self.by_predicate, self.any_predicate
        for fact in delta:
            entries = by_value.get((fact[1], fact[2]), []) + by_predicate.get(fact[1], [])
            if any_predicate:
                entries = (*entries, *any_predicate)
            for local, i, plan in entries:
                key = plan.key(fact)
                if plan.star is not None:
                    if key in plan.star:
                        yield from _star_matches(local, i, plan, fact, key, full)
                    continue
                rows = plan.rows.get(key)
                if not rows or (plan.first_predicate is not None and plan.first_predicate not in full.by("p")):
                    continue
                group = local.group
                # The row key matched the premise's constants; its variables bind the same
                # way for every row.
                binding = _unify(group.body[i], fact, rows[0], {})
                if binding is None:  # a variable twice in the premise (x P x), unequal terms
                    continue
                probe = plan.closed[0] if plan.order else False
                if probe:  # the first join is a look-up: skip the rows it rules out, cheaply
                    (ks, vs), (kp, vp), (ko, vo) = group.body[plan.order[0]]
                    spo = full.by_spo
                for row in rows:
                    if probe and (row[1 + vs] if ks == "k" else binding[vs],
                                  row[1 + vp] if kp == "k" else binding[vp],
                                  row[1 + vo] if ko == "k" else binding[vo]) not in spo:
                        continue
                    premises = [None] * len(group.body)
                    premises[i] = fact
                    for found in _extend(group, plan, 0, row, binding, premises, full):
                        yield (local, *found)


def _star_matches(local: LocalGroup, i: int, plan: _Plan, fact: Fact, key, full: Index):
    x = fact[0]
    pairs = full.pairs_of(x)
    body, spo = local.group.body, full.by_spo
    binding = {body[i][0][1]: x}
    for row, needed in plan.star[key]:
        if not needed <= pairs:
            continue
        found = [[fact] if j == i else spo[(x, row[1 + atom[1][1]], row[1 + atom[2][1]])]
                 for j, atom in enumerate(body)]
        for premises in product(*found):
            yield local, row, binding, premises


def _extend(group: JoinGroup, plan: _Plan, k: int, row, binding, premises, full: Index):
    order = plan.order
    if k == len(order):
        for a, b in group.distinct:
            if _value(a, row, binding) == _value(b, row, binding):
                return
        yield row, binding, tuple(premises)
        return
    j = order[k]
    atom = group.body[j]
    (ks, s), (kp, p), (ko, o) = atom
    s = row[1 + s] if ks == "k" else binding.get(s)
    p = row[1 + p] if kp == "k" else binding.get(p)
    o = row[1 + o] if ko == "k" else binding.get(o)
    if plan.closed[k]:  # every term known: the facts found match as they are
        for fact in full.by_spo.get((s, p, o), ()):
            premises[j] = fact
            yield from _extend(group, plan, k + 1, row, binding, premises, full)
    else:
        for fact in full.lookup(s, p, o):
            extended = _unify(atom, fact, row, binding)
            if extended is None:
                continue
            premises[j] = fact
            yield from _extend(group, plan, k + 1, row, extended, premises, full)
    premises[j] = None


@dataclass
class LocalProgram:
    """The program's tables as Python look-ups (collected once per view compile)."""

    by_value: dict  # (in_p, in_o) -> [(rule, head_s_from_o, out_p, out_o_from, out_o)]
    by_property: dict  # in_p -> [...]
    transitive: dict  # p -> rule
    joins: Matcher
    negative: Matcher
    same_as_id: int


def local_program(tables: ProgramTables) -> LocalProgram:
    if tables.local is not None:
        return tables.local
    by_value: dict = defaultdict(list)
    by_property: dict = defaultdict(list)
    for r in tables.driver_linear.iter_rows(named=True):
        head = (r["rule"], r["head_s_from_o"], r["out_p"], r["out_o_from"], r["out_o"])
        if r["in_o"] is not None:
            by_value[(r["in_p"], r["in_o"])].append(head)
        else:
            by_property[r["in_p"]].append(head)
    transitive = dict(tables.driver_transitive.iter_rows())
    program = LocalProgram(dict(by_value), dict(by_property), transitive,
                           Matcher(tables.joins), Matcher(tables.negative),
                           tables.same_as_id)
    tables.local = program
    return program


def derive(program: LocalProgram, delta: list[Fact], full: Index):
    """Candidates (s, p, o, origin, rule) of one rule application with a premise in Δ."""
    for s, p, o, origin in delta:
        for heads in (program.by_value.get((p, o), ()), program.by_property.get(p, ())):
            for rule, s_from_o, out_p, out_o_from, out_o in heads:
                hs = o if s_from_o else s
                if hs < 0:  # literals (negative ids) never stand in subject position
                    continue
                ho = s if out_o_from == FROM_S else out_o if out_o_from == CONSTANT else o
                yield hs, out_p, ho, origin, rule
        rule = program.transitive.get(p)
        if rule is not None:
            for _, _, z, origin2 in full.lookup(o, p, None):
                if not (rule == "eq-trans" and s == z):
                    yield s, p, z, min(origin, origin2), rule
            for x, _, _, origin2 in full.lookup(None, p, s):
                if not (rule == "eq-trans" and x == o):
                    yield x, p, o, min(origin, origin2), rule
    same_as = program.same_as_id
    for local, row, binding, premises in program.joins.matches(delta, full):
        s, p, o = (_value(t, row, binding) for t in local.group.head)
        if s < 0 or p < 0 or (p == same_as and s == o):
            continue
        yield s, p, o, min(f[3] for f in premises), row[0]


def violations(matcher: Matcher, delta: list[Fact], full: Index, keep_origins: bool = False):
    """Violation rows (rule, bindings, triples, origin), one per rule and set of triples
    (with keep_origins: per set of timed items), the latest origin winning."""
    best: dict = {}
    for local, row, binding, premises in matcher.matches(delta, full):
        triples = tuple(sorted(premises))
        origin = min(f[3] for f in premises)
        key = (row[0], triples if keep_origins else tuple(f[:3] for f in triples))
        current = best.get(key)
        if current is None or origin > current[3]:
            best[key] = (row[0], {v: binding[v] for v in local.group.variables}, list(triples), origin)
    return list(best.values())
