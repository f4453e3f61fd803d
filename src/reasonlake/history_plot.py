"""`reasonlake history VIEW --plot FILE.png`: a view's closes as a picture. A table of
thousands of closes shows no trend; a plot shows at a glance how the stream's load and the
view's work moved, and which closes got slow.

Per close: the items admitted, the facts expired and the facts derived on one panel, with
violations, repairs and expectation failures when a close has any, and the close's seconds
on a panel below. matplotlib is imported here only, when a plot is asked for, and draws
with Agg (no display needed): every other verb starts as fast as it did without it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from reasonlake.plan.durations import format_time
from reasonlake.errors import CloseError, UsageError

COUNTS = ("admitted", "expired", "derived")
# drawn only when a close has any: (the record's field, the name in the legend)
WHEN_PRESENT = (("violations", "violations"), ("repairs", "repairs"),
                ("expectation_failures", "expectation failures"))


@dataclass(frozen=True)
class Series:
    """What is drawn: one value per close, in the order of the view's history."""
    closes: list[int]  # epoch ms
    counts: dict[str, list[float]]  # legend name -> value (NaN: not recorded at that close)
    seconds: list[float]


def series(records) -> Series:
    """The plotted values of ``history`` records (``state.Published``)."""
    counts = {name: [getattr(r, name) for r in records] for name in COUNTS}
    for field, name in WHEN_PRESENT:
        values = [getattr(r, field, None) for r in records]
        if any(values):
            counts[name] = [math.nan if v is None else v for v in values]
    return Series([r.close for r in records], counts, [r.seconds for r in records])


def image_format(path: str) -> str:
    """The format ``path`` is written in (its suffix; png without one), checked before any
    work: the folder exists and matplotlib writes that format."""
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"--plot {path}: is a folder; give a file name, e.g. {target / 'history.png'}")
    if not target.resolve().parent.is_dir():
        raise UsageError(f"--plot {path}: the folder {target.resolve().parent} does not exist; create it first")
    fmt = target.suffix.lstrip(".").lower() or "png"
    # imported when called: it loads matplotlib
    from matplotlib.backend_bases import FigureCanvasBase

    supported = FigureCanvasBase.get_supported_filetypes()
    if fmt not in supported:
        raise UsageError(f"--plot {path}: no image format .{fmt}; name a .png file (or one of "
                         f"{', '.join('.' + f for f in sorted(supported))})")
    return fmt


def figure(data: Series, title: str):
    """The figure of ``data``: counts above, seconds below, closes along (in UTC)."""
    # imported when called: it loads matplotlib
    from matplotlib import dates
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    when = [datetime.fromtimestamp(ms / 1000, tz=timezone.utc) for ms in data.closes]
    fig = Figure(figsize=(10, 6), layout="constrained")
    FigureCanvasAgg(fig)
    counts, seconds = fig.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    for name, values in data.counts.items():
        counts.plot(when, values, marker=".", label=name)
    counts.set_ylim(bottom=0)
    counts.set_ylabel("items per close")
    counts.legend(loc="upper left")
    counts.grid(alpha=0.3)
    seconds.plot(when, data.seconds, marker=".", color="tab:gray", label="seconds")
    seconds.set_ylim(bottom=0)
    seconds.set_ylabel("seconds")
    seconds.set_xlabel("close (UTC)")
    seconds.grid(alpha=0.3)
    if len(set(when)) == 1:  # matplotlib would widen one instant to years around it
        seconds.set_xlim(when[0] - timedelta(minutes=1), when[0] + timedelta(minutes=1))
    locator = dates.AutoDateLocator(tz=timezone.utc)
    seconds.xaxis.set_major_locator(locator)
    seconds.xaxis.set_major_formatter(dates.ConciseDateFormatter(locator, tz=timezone.utc))
    fig.suptitle(title)
    return fig


def plot(view: str, records, path: str):
    """Write the plot of a view's ``history`` records to ``path``; the figure drawn."""
    fmt = image_format(path)
    if not records:
        raise CloseError(f"view '{view}' has no processed close yet, nothing to plot; run `reasonlake slide {view}`")
    first, last = format_time(records[0].close), format_time(records[-1].close)
    title = f"view {view}: {len(records)} closes, {first} to {last}" if len(records) > 1 else f"view {view}: close {first}"
    fig = figure(series(records), title)
    fig.savefig(path, format=fmt)
    return fig
