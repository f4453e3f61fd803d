"""MIN and MAX over many groups, half of whose values an OPTIONAL leaves unbound (some
groups wholly): each group's least and greatest bound value, the same on every run. The
aggregation sorted each group's values after filtering the unbound out, which made Polars
2.1 read past a group's rows: a crash, or another group's value (found by the generated
queries, ``test_matches_rdflib``)."""
from __future__ import annotations

import random

from tests.query.small_graphs import ours

INTEGER = "<http://www.w3.org/2001/XMLSchema#integer>"
RUNS = 12  # the bad reads came within a few runs of the query


def _items(rng: random.Random):
    """(item, group, value or None): 32 items in 14 groups, half without a value."""
    return [(f"i{k}", f"g{rng.randrange(14)}", None if rng.random() < 0.5 else rng.randint(0, 9))
            for k in range(32)]


def test_min_and_max_of_groups_with_unbound_values_are_each_groups_own():
    items = _items(random.Random(3))
    turtle = "@prefix ex: <http://ex/> .\n" + "".join(
        f"ex:{i} ex:in ex:{g} .\n" + (f"ex:{i} ex:v {v} .\n" if v is not None else "") for i, g, v in items)
    query = ("PREFIX ex: <http://ex/> SELECT ?g (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) "
             "WHERE { ?i ex:in ?g OPTIONAL { ?i ex:v ?v } } GROUP BY ?g")
    values: dict[str, list[int]] = {}
    for _, g, v in items:
        values.setdefault(g, []).extend([] if v is None else [v])
    expected = {(f"<http://ex/{g}>", *((f'"{min(vs)}"^^{INTEGER}', f'"{max(vs)}"^^{INTEGER}') if vs else (None, None))):
                1 for g, vs in values.items()}
    assert any(not vs for vs in values.values()) and any(len(vs) > 1 for vs in values.values())
    for _ in range(RUNS):
        assert dict(ours(turtle, query)) == expected
