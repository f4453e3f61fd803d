"""Durations as users write them: the short forms, ISO 8601 with every designator, zero
where a caller gives it a meaning (in every spelling alike), and one clear message for
each way a duration can be wrong."""
from __future__ import annotations

import pytest

from reasonlake.plan.durations import MAX_DURATION_MS, parse_duration
from reasonlake.declare.view import parse_retention
from reasonlake.errors import TimeFormatError

DAY = 86_400_000


@pytest.mark.parametrize("text,ms", [
    ("P1Y", 365 * DAY), ("P1M", 30 * DAY), ("P2W", 14 * DAY), ("P30D", 30 * DAY), ("PT1M", 60_000),
    ("P1Y2M3W4DT5H6M7S", (365 + 60 + 21 + 4) * DAY + 5 * 3_600_000 + 6 * 60_000 + 7_000),
    ("p1y", 365 * DAY), ("PT0,5S", 500), ("P1.5D", 36 * 3_600_000), ("P100Y", 36_500 * DAY),
])
def test_iso_8601_durations_count_a_year_as_365_days_and_a_month_as_30(text, ms):
    assert parse_duration(text) == ms


def test_a_duration_past_100_years_is_refused_as_such_not_as_unreadable():
    with pytest.raises(TimeFormatError, match=r"'P200Y' is longer than 100 years") as caught:
        parse_duration("P200Y", what="--retain")
    assert "not a duration" not in str(caught.value)
    assert parse_duration(MAX_DURATION_MS) == MAX_DURATION_MS
    with pytest.raises(TimeFormatError, match="longer than 100 years"):
        parse_duration("P" + "9" * 400 + "Y")  # no overflow on the way


ZEROS = ["0", "0s", "0ms", "0m", "0h", "0d", "PT0S", "P0D", "PT0H0M", "-0s", 0]


@pytest.mark.parametrize("text", ZEROS)
def test_zero_is_the_same_in_every_spelling(text):
    assert parse_retention(text, what="retain") == 0
    assert parse_duration(text, zero="no wait") == 0
    with pytest.raises(TimeFormatError, match=r"^window\.width: .* is zero; give a positive duration; use "):
        parse_duration(text, what="window.width")


@pytest.mark.parametrize("text", ["-1h", "-P1D", " -30s", -5])
def test_a_negative_duration_says_so_and_what_to_give(text):
    with pytest.raises(TimeFormatError) as caught:
        parse_retention(text, what="--retain")
    assert str(caught.value).startswith(
        f"--retain: {text!r} is negative; give 0s (only the latest close stays readable) or a positive duration; use ")
    with pytest.raises(TimeFormatError, match=r"is negative; give a positive duration; use "):
        parse_duration(text)


@pytest.mark.parametrize("text,why", [
    ("5000", "has no unit"), ("P", "is not a duration"), ("PT", "is not a duration"),
    ("P1DT", "is not a duration"), ("P1H", "is not a duration"), ("1h30m", "is not a duration"),
    ("5 minutes", "is not a duration"), (True, "is not a duration"), ("", "is not a duration"),
])
def test_what_is_not_a_duration_names_the_forms_there_are(text, why):
    with pytest.raises(TimeFormatError) as caught:
        parse_duration(text, what="--lateness")
    message = str(caught.value)
    assert message.startswith(f"--lateness: {text!r} {why}; use 500ms, 30s, 5m, 2h, 1d or ISO 8601"), message
    assert "an ISO year counts 365 days, a month 30" in message


def test_the_command_line_hands_a_negative_value_to_its_option():
    """argparse reads ``-1h`` as an option of its own; the parser attaches it to the flag
    before it, so the command's own check answers."""
    from reasonlake.cli.parser import build_parser

    parse = build_parser().parse_args
    assert parse(["vacuum", "--retain", "-1h"]).retain == "-1h"
    assert parse(["vacuum", "--retain=-1h"]).retain == "-1h"
    assert parse(["run", "v", "--source", "in", "--lateness", "-P1D"]).lateness == "-P1D"
    assert parse(["slide", "v", "--until", "-1000"]).until == "-1000"
    assert parse(["vacuum", "--retain", "7d", "v"]).views == ["v"]
    assert parse(["sql", "--", "--retain"]).query == "--retain"  # after --, nothing is an option
