"""Durations and instants as users write them, turned into epoch milliseconds.

Durations: ``500ms``, ``30s``, ``5m``, ``2h``, ``1d`` or ISO 8601 (``PT5M``, ``P1DT2H``, ``P2W``,
``P1Y6M``). A duration is a fixed length of time, not a calendar step: an ISO year counts 365
days and a month 30, whatever the calendar says (a window or a retention must not change
length with the month it falls in). Zero is a duration only where the caller says what it
means (``zero=``), and then in every spelling (``0``, ``0s``, ``0h``, ``PT0S``).
Instants: ISO 8601 with a zone (``2026-11-22T10:00:00Z``) or integer epoch milliseconds.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone

from reasonlake.errors import TimeFormatError

_DAY_MS = 86_400_000
_UNITS_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": _DAY_MS}
_SHORT = re.compile(r"^(\d+)\s*(ms|s|m|h|d)$")
_NUMBER = r"(\d+(?:[.,]\d+)?)"
# PnYnMnWnDTnHnMnS, every part optional but at least one present, and a T only before a time part
_ISO = re.compile(
    rf"^P(?!$)(?:{_NUMBER}Y)?(?:{_NUMBER}M)?(?:{_NUMBER}W)?(?:{_NUMBER}D)?"
    rf"(?:T(?=\d)(?:{_NUMBER}H)?(?:{_NUMBER}M)?(?:{_NUMBER}S)?)?$"
)
# what each part of _ISO counts, in its order: years of 365 days, months of 30
_ISO_PARTS_MS = (365 * _DAY_MS, 30 * _DAY_MS, 7 * _DAY_MS, _DAY_MS, 3_600_000, 60_000, 1_000)
# Bounds that keep every window arithmetic inside what Spark and Delta timestamps hold
# (years 1 to 9999): a longer duration or a later time is a typo, not a window.
MAX_DURATION_MS = 100 * 366 * _DAY_MS
MIN_TIME_MS = -62_135_596_800_000  # 0001-01-01T00:00:00Z
MAX_TIME_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
DURATION_HELP = ("use 500ms, 30s, 5m, 2h, 1d or ISO 8601 such as PT5M, P30D, P1Y "
                 "(an ISO year counts 365 days, a month 30)")
TIME_HELP = "use ISO 8601 with a zone (2026-11-22T10:00:00Z) or integer epoch milliseconds"


def parse_duration(text: str | int, *, what: str = "duration", zero: str | None = None) -> int:
    """A positive duration in milliseconds. ``zero``: what a zero duration means where one is
    allowed (e.g. "only the latest close stays readable"); without it zero is refused."""
    if isinstance(text, bool):
        raise TimeFormatError(f"{what}: {text!r} is not a duration; {DURATION_HELP}")
    if isinstance(text, int):  # from Python or a YAML number: milliseconds
        negative, ms = text < 0, abs(text)
    else:
        raw = str(text).strip()
        negative = raw.startswith("-")
        ms = _milliseconds(raw[1:].strip() if negative else raw)
    if ms is None:
        unitless = isinstance(text, str) and re.fullmatch(r"-?\d+", text.strip())
        raise TimeFormatError(f"{what}: {text!r} {'has no unit' if unitless else 'is not a duration'}; "
                              f"{DURATION_HELP}")
    allowed = f"give 0s ({zero}) or a positive duration" if zero else "give a positive duration"
    if negative and ms:
        raise TimeFormatError(f"{what}: {text!r} is negative; {allowed}; {DURATION_HELP}")
    if ms == 0 and not zero:
        raise TimeFormatError(f"{what}: {text!r} is zero; {allowed}; {DURATION_HELP}")
    if ms > MAX_DURATION_MS:
        raise TimeFormatError(f"{what}: {text!r} is longer than 100 years; {DURATION_HELP}")
    return ms


def _milliseconds(raw: str) -> int | None:
    """The length ``raw`` spells (unsigned), or None when it is not a duration."""
    if re.fullmatch(r"0+", raw):  # zero needs no unit; any other bare number does
        return 0
    short = _SHORT.match(raw)
    if short:
        return int(short.group(1)) * _UNITS_MS[short.group(2)]
    iso = _ISO.match(raw.upper())
    if iso is None:
        return None
    parts = [float(v.replace(",", ".")) if v else 0.0 for v in iso.groups()]
    total = sum(value * unit for value, unit in zip(parts, _ISO_PARTS_MS))
    return round(min(total, MAX_DURATION_MS + 1))  # longer is refused anyway; stays finite


def parse_time(text: str | int, *, what: str = "time") -> int:
    """An instant in epoch milliseconds; a zone is required so no clock setting changes it."""
    if isinstance(text, bool):
        raise TimeFormatError(f"{what}: {text!r} is not a time; {TIME_HELP}")
    if isinstance(text, int):
        return _in_range(text, text, what)
    if isinstance(text, datetime):
        if text.tzinfo is None:
            raise TimeFormatError(f"{what}: {text.isoformat()} has no zone; {TIME_HELP}")
        return _to_ms(text)
    raw = str(text).strip()
    if re.fullmatch(r"-?\d+", raw):
        return _in_range(int(raw), raw, what)
    try:
        parsed = datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise TimeFormatError(f"{what}: {raw!r} is not a time; {TIME_HELP}") from None
    if parsed.tzinfo is None:
        raise TimeFormatError(f"{what}: {raw!r} has no zone; {TIME_HELP}")
    return _to_ms(parsed)


def _in_range(ms: int, text, what: str) -> int:
    if not MIN_TIME_MS <= ms <= MAX_TIME_MS:
        raise TimeFormatError(f"{what}: {text!r} is not between the years 1 and 9999 (as epoch "
                              f"milliseconds); {TIME_HELP}")
    return ms


def _to_ms(moment: datetime) -> int:
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return delta.days * 86_400_000 + delta.seconds * 1_000 + delta.microseconds // 1_000


def format_time(ms: int) -> str:
    """ISO 8601 UTC with milliseconds, as every report prints instants."""
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
