"""Algorithm 3 and Definition 7 on Proost & Bonte's examples and the edge cases around them
(pure Python: no Spark)."""
from __future__ import annotations

from reasonlake.plan.windows import NEVER
from reasonlake.repair.preferred import Conflict, Item, decide, minimal


def item(name: int, ts: int) -> Item:
    return Item(1, 2, name, ts)


def conflict(*items: Item, rule: str = "cax-dw") -> Conflict:
    return Conflict(rule, frozenset(items))


def test_example1_both_older_items_lose():
    a, b, c = item(0, 1), item(1, 1), item(2, 2)
    decision = decide([conflict(a, c), conflict(b, c)])
    assert decision.losers == {a, b}
    assert {r.winners for r in decision.removals} == {(c,)}


def test_example6_only_the_shared_item_loses():
    a, b, c, d = item(0, 1), item(1, 2), item(2, 3), item(3, 3)
    decision = decide([conflict(a, b, c, rule="cls-nothing2"), conflict(b, d)])
    assert decision.losers == {b}
    assert decision.removals[0].conflict.rule == "cax-dw"


def test_tie_of_oldest_members_removes_them_all():
    a, b, c = item(0, 1), item(1, 1), item(2, 2)
    assert decide([conflict(a, b, c)]).losers == {a, b}


def test_tie_is_left_alone_when_a_smaller_tie_lies_inside_it():
    a, b, x, c = item(0, 1), item(1, 1), item(9, 1), item(2, 2)
    # {a,b} inside {a,b,x}: every repair drops a or b, which resolves the bigger set too
    decision = decide([conflict(a, b, c), conflict(a, b, x, c)])
    assert decision.losers == {a, b}


def test_timestamps_are_added_one_at_a_time():
    # old gas@1; brake@31 and gas@35 in one pane: brake beats gas@1, then gas@35 beats brake
    gas1, brake, gas35 = Item(5, 5, 5, 1), Item(6, 6, 6, 31), Item(5, 5, 5, 35)
    decision = decide([conflict(gas1, brake), conflict(brake, gas35)])
    assert decision.losers == {gas1, brake}
    assert [r.step for r in decision.removals] == [31, 35]


def test_a_removed_item_does_not_count_again():
    # a@1 loses to b@2; {a, c@3} is resolved already, so c stays and nothing else goes
    a, b, c = item(0, 1), item(1, 2), item(2, 3)
    assert decide([conflict(a, b), conflict(a, c)]).losers == {a}


def test_background_never_loses_and_an_all_background_conflict_is_unresolved():
    bg1, bg2, x = item(0, NEVER), item(1, NEVER), item(2, 5)
    decision = decide([conflict(bg1, x), conflict(bg1, bg2)])
    assert decision.losers == {x}
    assert [c.items for c in decision.unresolved] == [frozenset({bg1, bg2})]


def test_non_minimal_sets_are_dropped():
    a, b, c = item(0, 1), item(1, 2), item(2, 3)
    kept = minimal([conflict(a, b, c), conflict(a, b), conflict(a, b, rule="prp-fp")])
    assert [k.items for k in kept] == [frozenset({a, b})]


def test_a_conflict_of_three_times_loses_its_oldest_member_alone():
    # the three-way conflicts Definition 7's suite plants (C3 ≡ C0 ⊓ C1, C3 disjoint with C2):
    # the newest two stay, whichever order the set lists its members in
    a, b, c = item(0, 1000), item(1, 1500), item(2, 2000)
    for members in ((a, b, c), (c, b, a), (b, c, a)):
        decision = decide([conflict(*members)])
        assert decision.losers == {a}
        assert set(decision.removals[0].winners) == {b, c}
