"""Durations and instants as users write them, turned into epoch milliseconds.

Durations: ``500ms``, ``30s``, ``5m``, ``2h``, ``1d`` or ISO 8601 (``PT5M``, ``P1DT2H``).
Instants: ISO 8601 with a zone (``2026-11-22T10:00:00Z``) or integer epoch milliseconds.
"""
from __future__ import annotations

import re
from datetime import datetime, timezone

from reasonlake.errors import TimeFormatError

_UNITS_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_SHORT = re.compile(r"^\s*(\d+)\s*(ms|s|m|h|d)\s*$")
_ISO = re.compile(
    r"^P(?:(?P<d>\d+(?:\.\d+)?)D)?(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<s>\d+(?:\.\d+)?)S)?)?$"
)
# Bounds that keep every window arithmetic inside what Spark and Delta timestamps hold
# (years 1 to 9999): a longer duration or a later time is a typo, not a window.
MAX_DURATION_MS = 100 * 366 * 86_400_000
MIN_TIME_MS = -62_135_596_800_000  # 0001-01-01T00:00:00Z
MAX_TIME_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
DURATION_HELP = "use 500ms, 30s, 5m, 2h, 1d or ISO 8601 such as PT5M"
TIME_HELP = "use ISO 8601 with a zone (2026-11-22T10:00:00Z) or integer epoch milliseconds"


def parse_duration(text: str | int, *, what: str = "duration") -> int:
    """A positive duration in milliseconds."""
    if isinstance(text, bool):
        raise TimeFormatError(f"{what}: {text!r} is not a duration; {DURATION_HELP}")
    if isinstance(text, int):
        ms = text
    else:
        raw = str(text).strip()
        short = _SHORT.match(raw)
        iso = _ISO.match(raw.upper()) if raw.upper().startswith("P") and raw.upper() != "P" else None
        if short:
            ms = int(short.group(1)) * _UNITS_MS[short.group(2)]
        elif iso and any(iso.groupdict().values()):
            parts = {k: float(v) for k, v in iso.groupdict().items() if v}
            ms = round(
                parts.get("d", 0) * 86_400_000
                + parts.get("h", 0) * 3_600_000
                + parts.get("m", 0) * 60_000
                + parts.get("s", 0) * 1_000
            )
        else:
            raise TimeFormatError(f"{what}: {text!r} is not a duration; {DURATION_HELP}")
    if ms <= 0:
        raise TimeFormatError(f"{what}: {text!r} must be positive; {DURATION_HELP}")
    if ms > MAX_DURATION_MS:
        raise TimeFormatError(f"{what}: {text!r} is longer than 100 years; {DURATION_HELP}")
    return ms


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
