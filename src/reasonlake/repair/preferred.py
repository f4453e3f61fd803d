"""Which items lose: "new is always better" (Proost & Bonte, Definition 7 and Algorithm 3).

Input: the conflict sets (minimal sets of explicit items whose union entails ``false``)
that involve the items entering the window. The window is repaired the way Definition 7
builds a window repair: timestamp by timestamp, the items of one timestamp are added to
the repaired items before them and the result is replaced by the intersection of its
preferred repairs. At each timestamp that intersection is what Algorithm 3 computes: the
conflict sets are taken from the most recent oldest-member down; a set whose oldest members
are one item loses that item; a set whose oldest members are several items (a tie) loses all
of them when no other set's oldest members lie inside them (Lemma 1), which is the
intersection of all repairs. An item removed at one timestamp stays removed: a conflict set
holding it is already resolved ("disproving a disproof is not a proof").

Pure Python over small inputs: the conflict sets of one close, collected to the driver.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import groupby

from reasonlake.plan.windows import NEVER  # background items: +inf, they never lose


@dataclass(frozen=True, order=True)
class Item:
    s: int
    p: int
    o: int
    ts: int


@dataclass(frozen=True)
class Conflict:
    rule: str
    items: frozenset[Item]

    @property
    def latest(self) -> int:
        return max(i.ts for i in self.items)

    @property
    def oldest(self) -> int:
        return min(i.ts for i in self.items)

    def oldest_members(self) -> frozenset[Item]:
        t = self.oldest
        return frozenset(i for i in self.items if i.ts == t)


@dataclass(frozen=True)
class Removal:
    item: Item
    conflict: Conflict  # the conflict set that decided it
    winners: tuple[Item, ...]  # the newer members of that set
    step: int  # the timestamp at which it was decided


@dataclass(frozen=True)
class Decision:
    removals: tuple[Removal, ...]
    unresolved: tuple[Conflict, ...]  # only background items: nothing may be removed

    @property
    def losers(self) -> frozenset[Item]:
        return frozenset(r.item for r in self.removals)


def minimal(conflicts) -> list[Conflict]:
    """Drop duplicates and sets that strictly contain another set (not minimal)."""
    unique = {}
    for c in conflicts:
        unique.setdefault(c.items, c)
    ordered = sorted(unique.values(), key=lambda c: (len(c.items), c.rule, sorted(c.items)))
    kept: list[Conflict] = []
    for c in ordered:
        if not any(k.items < c.items for k in kept):
            kept.append(c)
    return kept


def decide(conflicts) -> Decision:
    """The items that every window repair removes, step by step (Definition 7)."""
    removals: list[Removal] = []
    unresolved: list[Conflict] = []
    removed: set[Item] = set()
    sets = [c for c in minimal(conflicts)]
    for c in sets:
        if c.oldest >= NEVER:
            unresolved.append(c)
    sets = sorted((c for c in sets if c.oldest < NEVER), key=lambda c: c.latest)
    for step, group in groupby(sets, key=lambda c: c.latest):
        active = [c for c in group if not (c.items & removed)]
        for removal in _algorithm3(active, step):
            removed.add(removal.item)
            removals.append(removal)
    return Decision(tuple(removals), tuple(unresolved))


def _algorithm3(conflicts: list[Conflict], step: int) -> list[Removal]:
    """Algorithm 3's loop: D (single oldest members) and N (minimal tied oldest members)."""
    out: list[Removal] = []
    pending = list(conflicts)
    lost: set[Item] = set()  # D
    ties: list[tuple[frozenset[Item], Conflict]] = []  # N, with the set that put it there
    while pending:
        newest = max(c.oldest for c in pending)
        recent = [c for c in pending if c.oldest == newest]  # C1
        for c in recent:
            mins = c.oldest_members()
            if len(mins) == 1 and not (mins & lost):
                (item,) = mins
                lost.add(item)
                out.append(_removal(item, c, step))
        pending = [c for c in pending if not (c.items & lost)]
        recent = [c for c in recent if not (c.items & lost)]
        for c in recent:
            mins = c.oldest_members()
            known = [m for m, _ in ties]
            if not any(o.oldest_members() < mins for o in recent) and mins not in known:
                ties.append((mins, c))
        pending = [c for c in pending if not any(m <= c.items for m, _ in ties)]
    # A tie loses all its members: no repair keeps all of them, some repair drops each one.
    for mins, c in ties:
        for item in sorted(mins - lost):
            lost.add(item)
            out.append(_removal(item, c, step))
    return out


def _removal(item: Item, conflict: Conflict, step: int) -> Removal:
    losers_ts = item.ts
    winners = tuple(sorted(i for i in conflict.items if i.ts > losers_ts))
    return Removal(item, conflict, winners, step)
