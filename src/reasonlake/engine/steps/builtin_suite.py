"""The built-in suite: what the engine guarantees of every published close, declared once and
checked either by great-expectations (``gx_checks``, the engine that runs every user suite)
or, where the close's rows are read in the driver and nothing else asks for
great-expectations, by Polars (``evaluate``), with the very results great-expectations
gives: the same expectation, arguments, success, observed value and unexpected rows
(decision 0044; ``tests/engine/steps/test_builtin_suite.py`` holds the two engines to that).

The checks read one frame: the version's id rows decoded (``s``, ``p``, ``o``, ``subject``,
``predicate``, ``object``), with ``origin``, ``rule``, ``exp_pane`` and three columns that
name what is wrong: ``expected_pane`` (the pane the origin implies), ``literal_subject`` and
``explicit_not_an_item`` (null when all is well).
"""
from __future__ import annotations

import json

import polars as pl

from reasonlake.plan.windows import NEVER

# the columns an unexpected row is shown by (great-expectations' unexpected_index_column_names)
INDEX = ["s", "p", "o", "subject", "predicate", "object"]
EXAMPLES = 5  # unexpected rows kept per failed expectation

IN_WINDOW = "every fact's origin is inside the window at its close"
PANE = "every fact expires at the first close at or after origin + width"
UNIQUE = "no duplicate (s, p, o)"
NO_LITERAL_SUBJECT = "no literal subject"
AN_ITEM = "every explicit fact is an item of the window (same triple, same time)"
VIOLATIONS = "violations live at the close"

Checked = tuple[str, str, bool, "str | None", "str | None"]  # label, kwargs (JSON), success, observed, unexpected


def gx_checks(window, close: int) -> list:
    """The suite as great-expectations expectations (in the order ``evaluate`` reports)."""
    # imported when called: it loads great_expectations
    from great_expectations import expectations as gxe
    from great_expectations.expectations.row_conditions import Column

    return [
        gxe.ExpectColumnValuesToBeBetween(
            column="origin", min_value=window.opens(close) + 1, max_value=close,
            row_condition=Column("origin") < NEVER, description=IN_WINDOW),
        gxe.ExpectColumnPairValuesToBeEqual(column_A="exp_pane", column_B="expected_pane", description=PANE),
        gxe.ExpectCompoundColumnsToBeUnique(column_list=["s", "p", "o"], description=UNIQUE),
        gxe.ExpectColumnValuesToBeNull(column="literal_subject", description=NO_LITERAL_SUBJECT),
        gxe.ExpectColumnValuesToBeNull(column="explicit_not_an_item", description=AN_ITEM),
    ]


def gx_violations_check(bound: int):
    # imported when called: it loads great_expectations
    from great_expectations import expectations as gxe

    return gxe.ExpectTableRowCountToBeBetween(min_value=0, max_value=bound, description=VIOLATIONS)


def evaluate(frame: pl.DataFrame, window, close: int) -> list[Checked]:
    """``gx_checks`` on ``frame`` by Polars, each as great-expectations reports it."""
    low, high = window.opens(close) + 1, close
    considered = frame.filter(pl.col("origin") < NEVER)
    keys = ["s", "p", "o"]
    duplicated = frame.filter(pl.struct(keys).is_duplicated())
    return [
        _map("expect_column_values_to_be_between", IN_WINDOW,
             {"column": "origin", "max_value": float(high), "min_value": float(low),
              "row_condition": {"column": {"name": "origin"}, "operator": "<", "parameter": NEVER,
                                "type": "comparison"}},
             considered.filter(~pl.col("origin").is_between(low, high)), considered.height, ["origin"]),
        _map("expect_column_pair_values_to_be_equal", PANE, {"column_A": "exp_pane", "column_B": "expected_pane"},
             frame.filter(pl.col("exp_pane").ne_missing(pl.col("expected_pane"))), frame.height,
             ["exp_pane"], after=["expected_pane"]),
        _map("expect_compound_columns_to_be_unique", UNIQUE, {"column_list": keys}, duplicated, frame.height, []),
        _map("expect_column_values_to_be_null", NO_LITERAL_SUBJECT, {"column": "literal_subject"},
             frame.filter(pl.col("literal_subject").is_not_null()), frame.height, ["literal_subject"]),
        _map("expect_column_values_to_be_null", AN_ITEM, {"column": "explicit_not_an_item"},
             frame.filter(pl.col("explicit_not_an_item").is_not_null()), frame.height, ["explicit_not_an_item"]),
    ]


def evaluate_violations(count: int, bound: int) -> Checked:
    """``gx_violations_check`` on a table of ``count`` rows."""
    return (_label("expect_table_row_count_to_be_between", VIOLATIONS),
            _kwargs({"max_value": bound, "min_value": 0}), 0 <= count <= bound, json.dumps(count), None)


def _map(kind: str, description: str, kwargs: dict, unexpected: pl.DataFrame, counted: int,
         first: list[str], after: tuple[str, ...] | list[str] = ()) -> Checked:
    """A column map expectation's report: great-expectations observes "N unexpected of M" and
    lists the first unexpected rows by the checked column, then the index columns."""
    columns = [*first, *(c for c in INDEX if c not in first), *after]
    rows = unexpected.head(EXAMPLES).select(columns).to_dicts()
    return (_label(kind, description), _kwargs(kwargs), unexpected.height == 0,
            f"{unexpected.height} unexpected of {counted}", json.dumps(rows) if rows else None)


def _label(kind: str, description: str) -> str:
    return f"{kind} ({description})"


def _kwargs(kwargs: dict) -> str:
    return json.dumps(kwargs, default=str, sort_keys=True)
