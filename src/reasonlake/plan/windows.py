"""Window arithmetic: closes, panes and expiration, all in epoch milliseconds.

Convention (decision 0001): the window at close ``c`` holds items with ``c - width < ts <= c``;
closes fall at ``start + width + k * slide``. A fact with origin ``o`` is visible at the
closes ``c < o + width``, so it leaves the view at the first close ``>= o + width``: its
*expiration pane*, the partition value of the materialization table.
"""
from __future__ import annotations

from dataclasses import dataclass

# Background facts never expire (origin +inf); Long.MAX_VALUE stands for it on Delta.
NEVER = 2**63 - 1
# The width of a landmark window (RSEP-QL, Definition 6.1): at close t it holds the items in
# (start, t], everything since its start; its facts never expire, it closes every slide.
LANDMARK = NEVER


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


@dataclass(frozen=True)
class Window:
    width: int
    slide: int
    start: int = 0

    @property
    def landmark(self) -> bool:
        return self.width >= LANDMARK

    @property
    def first_close(self) -> int:
        return self.start + (self.slide if self.landmark else self.width)

    def is_close(self, t: int) -> bool:
        return t >= self.first_close and (t - self.first_close) % self.slide == 0

    def close_at_or_before(self, t: int) -> int:
        """The latest close <= t (may be before the first close: nothing happens there)."""
        return self.first_close + ((t - self.first_close) // self.slide) * self.slide

    def close_at_or_after(self, t: int) -> int:
        """The earliest close >= t: the close whose pane holds an item at time t."""
        return self.first_close + _ceil_div(t - self.first_close, self.slide) * self.slide

    def expiration_pane(self, origin: int) -> int:
        """The first close at which a fact of this origin is no longer in the window."""
        if origin >= NEVER or self.landmark:
            return NEVER
        return self.close_at_or_after(origin + self.width)

    def expires(self, origin: int) -> int:
        """When a fact of this origin would leave the window, unless renewed (NEVER: never)."""
        return NEVER if origin >= NEVER or self.landmark else origin + self.width

    def opens(self, close: int) -> int:
        """Items in the window at ``close`` have ``ts > opens(close)``."""
        return self.start if self.landmark else close - self.width

    def example_closes(self, near: int, count: int = 2) -> list[int]:
        first = self.close_at_or_before(near)
        return [first + i * self.slide for i in range(count)]
