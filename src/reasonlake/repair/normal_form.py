"""Inconsistency-normal form (Proost & Bonte §6): negative rules over explicit assertions.

Every negative rule of a program (a join whose head is ``false``) is rewritten into the
patterns over *explicit* items that entail its body through the TBox: each body atom is
either asserted or the head of a positive rule whose body is, recursively, rewritten the
same way (backward chaining over the compiled rules, TBox folded in). A match of a
rewritten pattern in the window's items is a conflict set candidate, found before any
reasoning, so the repair never materializes facts it would have to take back.

A negative rule whose rewriting does not terminate is *recursive* (Proost & Bonte,
Example 5): its body depends on a cycle of rules through a multi-premise rule (a
transitive property, ``∃R.B ⊑ B``, a property chain through itself). Such a view needs an
explicit ``repair_depth``: the number of times a recursive rule may be unfolded.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from reasonlake.compile.owl2rl import JoinRule
from reasonlake.compile.program import FROM_OBJECT, FROM_SUBJECT, Program
from reasonlake.compile.tbox import ANONYMOUS_PREFIX
from reasonlake.errors import RecursiveRepairError
from reasonlake.vocab import SAME_AS, TYPE

Atom = tuple[str, str, str]
# Above this many patterns for one negative rule the rewriting is refused: it would make
# every slide's conflict search a plan of that many joins.
MAX_PATTERNS = 20_000


@dataclass(frozen=True)
class PositiveRule:
    rule: str
    body: tuple[Atom, ...]
    head: Atom


@dataclass(frozen=True)
class Recursion:
    negative: JoinRule
    cycle: tuple[str, ...]  # rule ids on the cycle


@dataclass(frozen=True)
class NormalForm:
    patterns: tuple[JoinRule, ...]  # over explicit items; rule = the negative rule's id
    recursive: tuple[Recursion, ...]  # rewritten to repair_depth only
    sources: dict  # negative rule id -> how many patterns it became


class RecursiveNegativeInclusion(Exception):
    def __init__(self, recursions: tuple[Recursion, ...]):
        self.recursions = recursions
        super().__init__(describe(recursions[0]))


def describe(r: Recursion) -> str:
    body = " . ".join(" ".join(_short(t) for t in atom) for atom in r.negative.body)
    return f"{r.negative.rule} ({body} ⇒ false) depends on itself through {' → '.join(r.cycle)}"


def _short(term: str) -> str:
    if term == TYPE:
        return "a"
    if term.startswith("<") and term.endswith(">"):
        tail = term[1:-1].replace("#", "/").rsplit("/", 1)[-1]
        return ":" + tail if tail else term
    return term


def positive_rules(program: Program) -> list[PositiveRule]:
    """Every positive rule of the program as a (body, head) pair over atoms."""
    out = []
    for r in program.linear:
        obj = r.in_o if r.in_o is not None else "?y"
        body = (("?x", r.in_p, obj),)
        s = "?x" if r.out_s == FROM_SUBJECT else obj
        o = {FROM_SUBJECT: "?x", FROM_OBJECT: obj}.get(r.out_o, r.out_o)
        out.append(PositiveRule(r.rule, body, (s, r.out_p, o)))
    for p in program.transitive:
        rule = "eq-trans" if p == SAME_AS else "prp-trp"
        out.append(PositiveRule(rule, (("?x", p, "?y"), ("?y", p, "?z")), ("?x", p, "?z")))
    for j in program.positive():
        # a premise listed twice (cls-int1 for C ≡ A ⊓ A) is one: not a multi-premise rule
        out.append(PositiveRule(j.rule, tuple(dict.fromkeys(j.body)), j.head))
    return out


def _var(t: str) -> bool:
    return t.startswith("?")


def _key(atom: Atom):
    """The predicate an atom is about: ("type", C), or ("prop", P)."""
    _, p, o = atom
    if _var(p):
        return ("any",)
    if p == TYPE and not _var(o):
        return ("type", o)
    return ("prop", p)


class _Index:
    """Positive rules by the key of their head; an atom finds the rules that can produce it."""
    def __init__(self, rules: list[PositiveRule]):
        self.by_key: dict[tuple, list[PositiveRule]] = defaultdict(list)
        self.types: list[PositiveRule] = []
        for r in rules:
            self.by_key[_key(r.head)].append(r)
            if r.head[1] == TYPE:
                self.types.append(r)
        self.ids = {id(r): n for n, r in enumerate(rules)}
        self.names = [r.rule for r in rules]

    def producers(self, atom: Atom) -> list[PositiveRule]:
        key = _key(atom)
        if key == ("any",):
            raise ValueError("a pattern with a variable predicate cannot be rewritten")
        if key == ("prop", TYPE):  # x rdf:type ?c: any class
            return self.types
        return self.by_key.get(key, [])


def rewrite(program: Program, depth: int | None) -> NormalForm:
    """The inconsistency-normal form of the program's negative rules.

    Raises RecursiveNegativeInclusion when a negative rule is recursive and depth is None."""
    index = _Index(positive_rules(program))
    patterns, sources, recursions = [], {}, []
    conflicts = tuple((tuple(dict.fromkeys(n.body)), n.distinct) for n in program.negative())
    for negative in program.negative():
        found, cycle = _unfold(negative, index, depth or 1, conflicts)
        if cycle:
            recursions.append(Recursion(negative, cycle))
        sources[negative.rule] = sources.get(negative.rule, 0) + len(found)
        patterns.extend(found)
    if recursions and depth is None:
        raise RecursiveNegativeInclusion(tuple(recursions))
    return NormalForm(tuple(dict.fromkeys(patterns)), tuple(recursions), sources)


@dataclass(frozen=True)
class _Atom:
    """A pattern atom with the rules it was unfolded through (to see a rule come back)."""
    atom: Atom
    lineage: tuple[int, ...] = ()  # ids of the positive rules, in order
    repeats: int = 0  # how often a multi-premise rule came back on this atom's path


@dataclass(frozen=True)
class _Query:
    atoms: tuple[_Atom, ...]
    distinct: tuple[tuple[str, str], ...]
    parent: "_Query | None" = None

    def key(self):
        return _canonical(tuple(a.atom for a in self.atoms), self.distinct)

    def ancestors(self):
        q = self.parent
        while q is not None:
            yield q
            q = q.parent


def _unfold(negative: JoinRule, index: _Index, depth: int,
            conflicts: tuple = ()) -> tuple[list[JoinRule], tuple[str, ...]]:
    """Backward chaining from the negative rule's body, breadth first. A rule coming back on
    an atom's own path is recursion: allowed ``depth`` times, reported (with the cycle).

    ``conflicts`` are the bodies of every negative rule: a pattern holding one of them in
    fewer atoms than its own is never a minimal conflict (the repair keeps minimal sets
    only, and that rule's own rewriting finds the smaller one), so it is not unfolded. Without
    this, an unsatisfiable class (C ≡ A ⊓ B with A, B disjoint) reached through a fresh
    individual (a range, a hasValue) multiplies every other atom's rewritings by its own."""
    ids, names = index.ids, index.names
    start = _Query(*_core(tuple(_Atom(a) for a in negative.body), negative.distinct))
    seen = {start.key(): 0}
    todo, cycle, fresh = [start], (), 0
    while todo:
        query = todo.pop()
        for i, item in enumerate(query.atoms):
            for rule in index.producers(item.atom):
                rid = ids[id(rule)]
                fresh += 1
                renamed = _rename(rule, fresh)
                theta = _unify(item.atom, renamed.head)
                if theta is None:
                    continue
                distinct = _apply_distinct(query.distinct, theta)
                if distinct is None:
                    continue
                comes_back = len(rule.body) > 1 and rid in item.lineage
                lineage = item.lineage + (rid,)
                repeats = item.repeats + comes_back
                born = tuple(_Atom(_apply(a, theta), lineage, repeats) for a in renamed.body)
                kept = tuple(_Atom(_apply(a.atom, theta), a.lineage, a.repeats)
                             for j, a in enumerate(query.atoms) if j != i)
                # A conjunction: atoms made equal (or foldable onto others) by the
                # unification are one atom, else unfolding one copy leaves the other and
                # the ancestor check below prunes every unfolding of it.
                atoms, distinct = _core(kept + born, distinct)
                new = _Query(atoms, distinct, query)
                body = tuple(a.atom for a in new.atoms)
                # Subsumed by a pattern it came from (A ⊓ B ⊑ A through cls-int1/2): its
                # matches are never minimal, and its unfoldings are the ancestor's.
                if any(_maps_into((tuple(a.atom for a in q.atoms), q.distinct), (body, distinct))
                       for q in (query, *query.ancestors())):
                    continue
                if _holds_smaller_conflict((body, distinct), conflicts):
                    continue
                if comes_back and not cycle:
                    start_at = lineage.index(rid)
                    cycle = tuple(names[r] for r in lineage[start_at:])
                if repeats >= depth:  # depth K: a recursive rule unfolds K times on a path
                    continue
                key = new.key()
                if key in seen and seen[key] <= repeats:
                    continue
                seen[key] = repeats
                if len(seen) > MAX_PATTERNS:
                    raise ValueError(
                        f"{negative.rule} rewrites into more than {MAX_PATTERNS} patterns; "
                        "lower repair_depth or simplify the ontology's hierarchy under it"
                    )
                todo.append(new)
    out = []
    for body, distinct in _minimal(list(seen)):
        if any(ANONYMOUS_PREFIX in t for atom in body for t in atom):
            continue  # a class expression: streams cannot assert it
        out.append(JoinRule(negative.rule, body, None, distinct))
    return sorted(out, key=lambda r: (len(r.body), r.body, r.distinct)), cycle


def _rename(rule: PositiveRule, n: int) -> PositiveRule:
    def r(t: str) -> str:
        return f"?r{n}_{t[1:]}" if _var(t) else t

    return PositiveRule(rule.rule, tuple(tuple(r(t) for t in a) for a in rule.body), tuple(r(t) for t in rule.head))


def _walk(t: str, theta: dict) -> str:
    while _var(t) and t in theta:
        t = theta[t]
    return t


def _unify(a: Atom, b: Atom) -> dict | None:
    theta: dict[str, str] = {}
    for x, y in zip(a, b):
        x, y = _walk(x, theta), _walk(y, theta)
        if x == y:
            continue
        if _var(y):
            theta[y] = x
        elif _var(x):
            theta[x] = y
        else:
            return None
    return theta


def _apply(atom: Atom, theta: dict) -> Atom:
    return tuple(_walk(t, theta) for t in atom)


def _apply_distinct(distinct, theta) -> tuple | None:
    out = []
    for a, b in distinct:
        x, y = _walk(a, theta), _walk(b, theta)
        if x == y:
            return None  # must differ and cannot: the pattern never matches
        if _var(x) or _var(y):
            out.append((x, y))
    return tuple(out)


def _canonical(body, distinct) -> tuple:
    """Atoms deduplicated and sorted, variables renamed by first appearance (twice, so the
    names do not depend on the order the atoms arrived in)."""
    atoms = tuple(sorted(set(body), key=lambda a: tuple("?" if _var(t) else t for t in a)))
    for _ in range(2):
        names: dict[str, str] = {}
        for atom in atoms:
            for t in atom:
                if _var(t) and t not in names:
                    names[t] = f"?v{len(names)}"
        atoms = tuple(sorted({tuple(names.get(t, t) for t in a) for a in atoms}))
        distinct = tuple(sorted(tuple(sorted((names.get(a, a), names.get(b, b)))) for a, b in distinct))
    return atoms, distinct


def _minimal(patterns: list[tuple]) -> list[tuple]:
    """Drop patterns another one subsumes (maps into it): their matches are never minimal."""
    by_size = sorted(patterns, key=lambda p: len(p[0]))
    keys = [frozenset(_key(a) for a in p[0]) for p in by_size]
    kept: list[int] = []
    for i, p in enumerate(by_size):
        subsumed = any(
            len(by_size[j][0]) < len(p[0]) and keys[j] <= keys[i] and _maps_into(by_size[j], p)
            for j in kept
        )
        if not subsumed:
            kept.append(i)
    return [by_size[i] for i in kept]


def _core(atoms: tuple[_Atom, ...], distinct: tuple) -> tuple[tuple[_Atom, ...], tuple]:
    """The query's core: duplicate atoms merged (keeping the path with the fewest
    recursive unfoldings), then atoms dropped while the query maps into the rest (a fresh
    ``?x :p ?y2`` beside ``?x :p ?y`` is the same condition). Equivalent patterns, but
    unfolding one copy of an atom no longer leaves a copy the query itself maps into."""
    merged: dict[Atom, _Atom] = {}
    for a in atoms:
        had = merged.get(a.atom)
        if had is None or (a.repeats, len(a.lineage)) < (had.repeats, len(had.lineage)):
            merged[a.atom] = a
    atoms = tuple(merged.values())
    folded = True
    while folded and len(atoms) > 1:
        folded = False
        for k, a in enumerate(atoms):
            rest = tuple(b.atom for j, b in enumerate(atoms) if j != k)
            # cheap test first: the atom must map onto one of the others
            if not any(_maps_into(((a.atom,), ()), ((b,), ())) for b in rest):
                continue
            theta = _homomorphism((tuple(b.atom for b in atoms), distinct), (rest, distinct))
            if theta is None:
                continue
            image = {tuple(theta.get(t, t) for t in b.atom) for b in atoms}
            atoms = tuple(b for b in atoms if b.atom in image)
            distinct = tuple(dict.fromkeys(
                (theta.get(x, x), theta.get(y, y)) for x, y in distinct
                if _var(theta.get(x, x)) or _var(theta.get(y, y))))
            folded = True
            break
    return atoms, distinct


def _holds_smaller_conflict(pattern: tuple, conflicts: tuple) -> bool:
    """A negative rule's body maps into the pattern onto fewer atoms than the pattern has."""
    body = pattern[0]
    for conflict in conflicts:
        if len(conflict[0]) >= len(body):
            continue
        theta = _homomorphism(conflict, pattern)
        if theta is not None and len({tuple(theta.get(t, t) for t in a) for a in conflict[0]}) < len(body):
            return True
    return False


def _maps_into(small: tuple, big: tuple) -> bool:
    """A homomorphism from small's atoms into big's that keeps its distinct pairs distinct."""
    return _homomorphism(small, big) is not None


def _homomorphism(small: tuple, big: tuple) -> dict | None:
    """The variable mapping of a homomorphism from small into big (see _maps_into), or None."""
    atoms, distinct = small
    target, target_distinct = big
    pairs = {frozenset(d) for d in target_distinct}

    def extend(i: int, theta: dict) -> dict | None:
        if i == len(atoms):
            ok = all(
                (not _var(theta.get(a, a)) and not _var(theta.get(b, b)) and theta.get(a, a) != theta.get(b, b))
                or frozenset((theta.get(a, a), theta.get(b, b))) in pairs
                for a, b in distinct
            )
            return theta if ok else None
        for candidate in target:
            t2 = dict(theta)
            ok = True
            for x, y in zip(atoms[i], candidate):
                if _var(x):
                    if t2.setdefault(x, y) != y:
                        ok = False
                        break
                elif x != y:
                    ok = False
                    break
            if ok:
                found = extend(i + 1, t2)
                if found is not None:
                    return found
        return None

    return extend(0, {})


def for_view(decl, program: Program) -> NormalForm:
    """A view's normal form; a recursive negative inclusion without ``repair_depth`` is a
    declaration error naming it and the rules it cycles through."""
    try:
        return rewrite(program, decl.repair_depth)
    except RecursiveNegativeInclusion as exc:
        listed = "; ".join(describe(r) for r in exc.recursions)
        raise RecursiveRepairError(
            f"view '{decl.name}': negative inclusion {listed}, so its conflicts cannot all be "
            "found from the assertions (Proost & Bonte, Example 5); set repair_depth: K in the "
            "view to rewrite it K levels deep (deeper conflicts are reported as violations)"
        ) from None
