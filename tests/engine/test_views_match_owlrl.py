"""Property: at every close of generated streams, each view holds exactly owlrl's closure of
its window, each fact with the origin IMaRS gives it, and (owl2rl) exactly the violations a
brute-force check of that closure finds; the Delta table a close publishes holds no expired
row; a rebuild at the last close gives the same, and an earlier close's Delta version still
reads as it did then.

The cases (``packed``) derive, expire, renew and arrive late; the suites fail when they
stop doing so. Both evaluation paths run in the default suite: the driver on every profile,
Spark on rdfs-plus and owl2rl (a window shape each with two-second slides: a Spark close
costs seconds); each suite checks its rounds ran on the backend it names (``paths``). The
oracle's answers are computed in a process of their own while the engine slides, and the
view is read by delta-rs at each close and through Spark at the last.
"""
from __future__ import annotations

from collections import Counter

import pytest

from tests.engine import packed
from tests.engine.paths import evaluation_path


@pytest.fixture(scope="module")
def lake(spark, tmp_path_factory):
    """One lakehouse for the module's suites (their views and streams are named apart)."""
    from reasonlake.api import Lakehouse

    lake = Lakehouse(str(tmp_path_factory.mktemp("packed") / "lake"), spark=spark)
    lake.init()
    return lake


def run_suite(lake, root, prefix: str, profile: str, shape: tuple[int, ...], *,
              unique_names: bool | None = None, path: str = "driver",
              count: int = packed.EXAMPLES, deep: bool = False) -> packed.Coverage:
    """One view of ``count`` cases with window ``shape`` (ms), checked at every close."""
    cases = packed.generate(profile, count, shapes=(shape,), deep=deep)
    leave_out = frozenset({"fp"}) if unique_names else frozenset()  # prp-fp is a violation there
    extra = f"unique_names: {str(unique_names).lower()}\n" if unique_names is not None else ""
    coverage = packed.Coverage()
    with evaluation_path(path), packed.Oracle(packed.expected_at, cases, profile, leave_out) as oracle:
        views = packed.start(lake, root, cases, profile, prefix, extra)
        view = views[shape]
        before: dict[int, dict[str, int]] = {}
        published: dict[int, set[str]] = {}  # close -> the view's lines then
        late_in = False
        every = packed.closes(cases)
        for close, _ in every:
            last = close == every[-1][0]  # read through Spark too, as `reasonlake sql` does
            if packed.late_due(cases, close) and not late_in:
                packed.ingest_late(lake, root, views)
                late_in = True
            wrong = packed.table_problems(lake, view, lake.slide(view, until=close), through_spark=last)
            assert not wrong, f"{view} close {close}: {'; '.join(wrong)}"
            wants = oracle.at(close)
            published[close] = _compare(lake, view, close, cases, wants, unique_names, through_spark=last)
            for c in cases:
                items = packed.window(c, close)
                coverage.see(c, close, items, wants[c.number], before.get(c.number))
                coverage.late |= {(c.number, x) for x in c.late if x in items}
                if unique_names is not None:
                    facts = {packed.as_triple(line) for line in wants[c.number]}
                    coverage.violations |= {(c.number, v) for v in
                                            packed.brute_force_violations(c, facts, unique_names)}
                before[c.number] = wants[c.number]
        # Time travel: an earlier close's published version still reads as it did then.
        versions = {r.close: r.version for r in lake.history(view)}
        for at in [c for c in published if c in versions][1:3]:
            assert set(lake.export(view, version=versions[at])) == published[at], f"version of close {at}"
        lake.rebuild(view, at=close)  # a from-scratch materialization of the last close agrees too
        _compare(lake, view, close, cases, wants, unique_names, what="rebuild", through_spark=True)
    return coverage


def _compare(lake, view, close, cases, wants, unique_names, what="close", through_spark=False):
    got = packed.view_rows(lake, view, close, through_spark=through_spark)
    stray = got.keys() - {c.number for c in cases}
    assert not stray, f"{view} {what} {close}: facts of no case of this view: {[got[k] for k in stray]}"
    found = packed.violation_sets(lake, view, close, through_spark=through_spark) if unique_names is not None else {}
    problems = []
    for c in cases:
        have: Counter = got.get(c.number, Counter())
        twice = sorted(k for k, n in have.items() if n > 1)
        origins = {line: origin for line, origin in have}
        want = wants[c.number]
        wrong = {line: (origins[line], want[line]) for line in origins.keys() & want.keys()
                 if origins[line] != want[line]}
        lines = []
        if origins.keys() - want.keys():
            lines.append(f"  extra: {sorted(origins.keys() - want.keys())}")
        if want.keys() - origins.keys():
            lines.append(f"  missing: {sorted(want.keys() - origins.keys())}")
        if wrong:
            lines.append(f"  origin (got, want): {wrong}")
        if twice:
            lines.append(f"  rows held twice: {twice}")
        if unique_names is not None:
            facts = {packed.as_triple(line) for line in want}
            expected_v = packed.brute_force_violations(c, facts, unique_names)
            have_v = found.get(c.number, set())
            if have_v != expected_v:
                lines.append(f"  violations extra: {have_v - expected_v}; missing: {expected_v - have_v}")
        if lines:
            problems.append("\n".join([c.describe(), *lines]))
    assert not problems, f"{view} {what} {close}: {len(problems)} case(s) differ from the oracle\n" + \
        "\n\n".join(problems[:3])
    return {line for rows in got.values() for line, _ in rows}


# Each suite its own window shape (width, slide, start in ms): a tumbling window, widths
# that are no multiple of the slide, starts that are no multiple of it, sub-second slides.
# rdfs-plus's cases also chain their classes (9) and properties (6), and every hierarchy is
# kept as jumps (as past REASONLAKE_SATURATE_PAIRS: ancestors 1, 2, 4, ... steps away), so
# the rounds, not the compile, finish each chain; owl2rl's suites check the saturated form.
@pytest.mark.parametrize("profile,shape,deep", [("rdfs", (2000, 2000, 700), False),
                                                ("rdfs-plus", (2500, 1000, 300), True)],
                         ids=["rdfs", "rdfs-plus-deep-hierarchies-as-jumps"])
def test_driver_views_equal_owlrl_with_origins(lake, tmp_path, monkeypatch, profile, shape, deep):
    if deep:
        monkeypatch.setenv("REASONLAKE_SATURATE_PAIRS", "0")
    tumbling = shape[0] == shape[1]  # a late item is never back in a window that does not overlap the last
    run_suite(lake, tmp_path, profile.replace("-", "_"), profile, shape, deep=deep).require(late=not tumbling)


@pytest.mark.parametrize("unique_names,shape", [(True, (4000, 1500, 250)), (False, (3000, 750))],
                         ids=["unique-names", "standard-equality"])
def test_driver_owl2rl_views_equal_owlrl_and_flag_violations(lake, tmp_path, unique_names, shape):
    run_suite(lake, tmp_path, f"owl2rl_{'una' if unique_names else 'eq'}", "owl2rl", shape,
              unique_names=unique_names).require(violations=True)


# Spark's closes cost seconds each: ten cases, the fewest that still meet the coverage guard.
def test_spark_path_rdfs_plus_equals_owlrl_with_origins(lake, tmp_path):
    run_suite(lake, tmp_path, "spark_plus", "rdfs-plus", (3500, 2000, 100), path="spark", count=10).require()


def test_spark_path_owl2rl_equals_owlrl_and_flags_violations(lake, tmp_path):
    run_suite(lake, tmp_path, "spark_owl2rl", "owl2rl", (4000, 2000, 500), unique_names=True,
              path="spark").require(violations=True)


# A window too large for the driver: its rounds in the driver over the facts they fetch
# from the table on Spark (reason/neighbourhood), with expiry and renewal at every close.
# The slow tier (the default suite checks every rule on this path in test_owl2rl_rules.py,
# two closes each). 25 cases: ten on this shape fell short of the coverage guard for 3 of
# seeds 1-40 (derivations at too few closes, no derived fact renewed); 25 met it for all 40.
@pytest.mark.slow
def test_neighbourhood_path_owl2rl_equals_owlrl_and_flags_violations(lake, tmp_path):
    run_suite(lake, tmp_path, "nb_owl2rl", "owl2rl", (3000, 1000, 250), unique_names=True,
              path="neighbourhood").require(violations=True)

