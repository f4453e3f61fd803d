"""How the command line prints what the API returns: history lines, derivations, cells."""
from __future__ import annotations

from datetime import datetime

from reasonlake.api import NEVER, format_time


EVALUATED_HEADER = "query                 close                     answers  streamed  seconds"


def evaluated_line(e) -> str:
    """One evaluation of an RSP-QL query (``rspql.advance.Evaluated``)."""
    return f"{e.query:<21} {format_time(e.t):<25} {e.answers:>7}  {e.streamed:>8}  {e.seconds:>7.2f}"


HISTORY_HEADER = ("close                     version  mode     admitted  expired  derived  renewed  rounds  "
                  "late  seconds  violations  repairs")


def history_line(r) -> str:
    return (
        f"{format_time(r.close):<25} {r.version:>7}  {r.mode:<7} {r.admitted:>9} {r.expired:>8} "
        f"{r.derived:>8} {r.renewed:>8} {r.rounds:>7} {r.late:>5} {r.seconds:>8.2f}"
        f"  {'-' if r.violations is None else r.violations:>10}"
        f"  {'-' if r.repairs is None else r.repairs:>7}"
    )


def query_header(counted: dict[str, dict[int, int]]) -> str:
    """`history`'s column per registered query: the rows it streamed out at the close."""
    return "".join(f"  {name:>5}" for name in counted)


def query_counts(counted: dict[str, dict[int, int]], close: int) -> str:
    return "".join(f"  {rows.get(close, 0):>{max(5, len(name))}}" for name, rows in counted.items())


def expectation_note(r) -> str:
    if not r.expectation_failures:
        return ""
    withheld = "withheld: " if r.withheld else ""
    return f"  ({withheld}{r.expectation_failures} expectation(s) failed)"


def duration(ms: int) -> str:
    for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if ms and ms % size == 0:
            return f"{ms // size}{unit}"
    return f"{ms}ms"


def at(ts: int) -> str:
    return "background, never expires" if ts >= NEVER else f"at {format_time(ts)}"


def derivation_lines(step: dict, indent: str, shown: set):
    """A derivation as an indented tree; a fact explained above is not explained again."""
    if step["rule"] is None and "item" in step:
        item = step["item"]
        where = f"{item['file']} line {item['line']}" if item["file"] else "its event is no longer in the stream"
        yield f"{indent}{step['triple']}  stream item at {item['ts']} ({where})"
        return
    if step.get("background"):
        by = f" ({step['rule']})" if step["rule"] else ""
        yield f"{indent}{step['triple']}  background fact{by}, never expires"
        return
    tbox = f"; TBox: {' '.join(step['tbox'])}" if step.get("tbox") else ""
    again = step["triple"] in shown
    yield f"{indent}{step['triple']}  by {step['rule']}, origin {step['origin']}{tbox}" + (
        "  (explained above)" if again and step["premises"] else "")
    if again:
        return
    shown.add(step["triple"])
    for premise in step["premises"]:
        yield from derivation_lines(premise, indent + "  ", shown)


def presence_line(p, view: str, repaired: bool) -> str:
    """Where the fact stands in the view's closes: still there, expired, or gone otherwise."""
    if p.last_close is None:
        return f"{p.triple} : view {view} has no processed close yet"
    if p.seen_close is None:
        return (f"{p.triple} was in none of the last {p.searched} closes of view {view} "
                f"(up to {format_time(p.last_close)})" + ("" if repaired else "; it was never removed by repair"))
    how = "a stream item" if p.rule == "explicit" else f"derived by {p.rule}"
    origin = f"origin {at(p.origin)}"
    if p.left_close is None:
        until = "never expires" if p.expires >= NEVER else f"expires at {format_time(p.expires)} unless renewed"
        return f"{p.triple} is in view {view} at its last close {format_time(p.last_close)}: {how}, {origin}; {until}"
    if p.expired:
        why = (f"it expired: its origin plus the window's width ({format_time(p.expires)}) was past by "
               "that close, and no newer derivation renewed it")
    elif repaired:
        why = "repair removed it or the premises it rested on (above)"
    else:
        why = "its premises left the window or were retracted before it expired, leaving no derivation"
    return (f"{p.triple} was last in view {view} at close {format_time(p.seen_close)} ({how}, {origin}) and "
            f"left at close {format_time(p.left_close)}: {why}")


def cell(value) -> str:
    """A value as SQL prints it: booleans lower case, NULL for nothing."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "NULL" if value is None else str(plain(value))


def plain(value):
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return value
