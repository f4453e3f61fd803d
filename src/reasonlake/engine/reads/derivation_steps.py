"""One derivation of a fact as a tree of steps down to stream items and background facts,
and the JSON ``reasonlake explain --why`` prints of it."""
from __future__ import annotations

from dataclasses import dataclass, field

from reasonlake.plan.durations import format_time
from reasonlake.plan.windows import NEVER

Key = tuple[int, int, int]


@dataclass
class Step:
    """One fact of a derivation: a stream item (``item``), a background fact, or the head
    of ``rule`` over ``premises`` with the TBox axioms it instantiates (``tbox``)."""
    key: Key
    origin: int
    rule: str | None  # W3C id; None for a stream item or a background fact
    premises: list["Step"] = field(default_factory=list)
    tbox: list[tuple[str, str, str]] = field(default_factory=list)
    item: dict | None = None  # ts, file, line of a stream item
    background: bool = False
    # every step down to the leaves has its own origin as its oldest premise's
    exact: bool = field(default=True, repr=False, compare=False)


def walk(step: Step, seen=None):
    seen = set() if seen is None else seen
    if id(step) in seen:
        return
    seen.add(id(step))
    yield step
    for premise in step.premises:
        yield from walk(premise, seen)


def to_json(step: Step, terms: dict[int, str]) -> dict:
    """The derivation as JSON: triple, origin, rule (null for a stream item), premises, the
    TBox axioms of the step, and for a stream item its ts, file and line."""
    out = {"triple": " ".join(terms.get(i, str(i)) for i in step.key) + " .",
           "origin": None if step.origin >= NEVER else format_time(step.origin),
           "rule": step.rule}
    if step.background:
        out["background"] = True
    if step.item is not None:
        out["item"] = {"ts": format_time(step.item["ts"]), "file": step.item["file"], "line": step.item["line"]}
    if step.tbox:
        out["tbox"] = [" ".join(axiom) + " ." for axiom in step.tbox]
    out["premises"] = [to_json(p, terms) for p in step.premises]
    return out
