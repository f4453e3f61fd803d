"""The built-in suite checked by Polars in the driver reports what great-expectations reports
on the same rows: expectation, arguments, success, observed value and unexpected rows, on
frames that break each invariant a few times, none, or hold no row."""
from __future__ import annotations

import json
import random

import polars as pl
import pytest


from reasonlake.engine.steps import builtin_suite
from reasonlake.engine.jobs import expectations
from reasonlake.plan.windows import NEVER, Window

WINDOW = Window(width=3000, slide=1000, start=0)
CLOSE = 10_000
SCHEMA = {"s": pl.Int64, "p": pl.Int64, "o": pl.Int64, "subject": pl.String, "predicate": pl.String,
          "object": pl.String, "origin": pl.Int64, "rule": pl.String, "exp_pane": pl.Int64,
          "expected_pane": pl.Int64, "literal_subject": pl.String, "explicit_not_an_item": pl.String}


def _frame(seed: int, rows: int) -> pl.DataFrame:
    """Rows of a close, with at most a few of each fault: a duplicate triple, an origin out of
    the window, a wrong pane, a literal subject, an explicit fact that is no item."""
    draw = random.Random(seed)
    out = []
    for n in range(rows):
        origin = NEVER if draw.random() < 0.1 else draw.randint(WINDOW.opens(CLOSE) + 1, CLOSE)
        pane = WINDOW.expiration_pane(origin)
        out.append({"s": n, "p": draw.randint(1, 3), "o": draw.randint(1, 50), "subject": f"<http://ex/{n}>",
                    "predicate": "<http://ex/p>", "object": f"<http://ex/o{n % 7}>", "origin": origin,
                    "rule": draw.choice(["explicit", "prp-trp", "cax-sco"]), "exp_pane": pane,
                    "expected_pane": pane, "literal_subject": None, "explicit_not_an_item": None})
    for _ in range(draw.randint(0, 2)):  # duplicates: at most 2 pairs, 4 rows
        if out:
            out.append(dict(draw.choice(out)))
    for row in draw.sample(out, min(len(out), draw.randint(0, 3))):
        row["origin"] = draw.choice([WINDOW.opens(CLOSE), CLOSE + 1, -5])
    for row in draw.sample(out, min(len(out), draw.randint(0, 3))):
        row["exp_pane"] = row["expected_pane"] + WINDOW.slide if row["origin"] < NEVER else 7
    for row in draw.sample(out, min(len(out), draw.randint(0, 3))):
        row["subject"] = row["literal_subject"] = '"a literal"'
    for row in draw.sample(out, min(len(out), draw.randint(0, 3))):
        row["explicit_not_an_item"] = f"{row['s']} {row['p']} {row['o']} {row['origin']}"
    return pl.DataFrame(out, schema=SCHEMA)


def _as_reported(results) -> list[tuple]:
    """Each result with its unexpected rows as a sorted list (the engines list them in the
    frame's order, which a check may visit differently)."""
    return sorted((r[0], r[1], r[2], r[3], sorted(json.dumps(u, sort_keys=True) for u in json.loads(r[4] or "[]")))
                  for r in results)


@pytest.mark.parametrize("seed,rows", [(1, 40), (2, 60), (3, 25), (4, 0), (5, 12)])
def test_polars_reports_what_great_expectations_reports(spark, seed, rows):
    frame = _frame(seed, rows)
    ours = builtin_suite.evaluate(frame, WINDOW, CLOSE)
    runner = expectations._Runner("pandas", None)
    data = spark.createDataFrame(frame.to_pandas() if rows else [], expectations_schema())
    theirs = runner.validate(f"oracle_{seed}", data, builtin_suite.gx_checks(WINDOW, CLOSE), "builtin")
    assert _as_reported([(r.expectation, r.kwargs, r.success, r.observed, r.unexpected) for r in theirs]) == \
        _as_reported(ours)
    assert [r[0] for r in ours] == [r.expectation for r in theirs]  # the same order of report, too
    if rows:
        assert not all(r[2] for r in ours), "the generated frame broke nothing: the comparison proves little"


@pytest.mark.parametrize("count,bound", [(0, 0), (3, 2), (2, 2)])
def test_the_violations_bound_is_reported_alike(spark, count, bound):
    live = spark.createDataFrame([(f"k{n}",) for n in range(count)], "key STRING")
    theirs = expectations._Runner("pandas", None).validate(
        f"bound_{count}_{bound}", live, [builtin_suite.gx_violations_check(bound)], "builtin")
    [r] = theirs
    assert (r.expectation, r.kwargs, r.success, r.observed, r.unexpected) == \
        builtin_suite.evaluate_violations(count, bound)


def expectations_schema() -> str:
    kinds = {pl.Int64: "BIGINT", pl.String: "STRING"}
    return ", ".join(f"{name} {kinds[kind]}" for name, kind in SCHEMA.items())
