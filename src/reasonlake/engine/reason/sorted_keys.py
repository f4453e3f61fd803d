"""A sorted column of term ids, looked up by bucket instead of by binary search.

Term ids are xxhash64 values, spread evenly over the 64-bit range, so the top bits of an id
say nearly where it sits in a sorted column. Each column keeps where every bucket of top
bits starts; a look-up reads its key's bucket (a row or two on average) and keeps the rows
equal to the key. A binary search over a 2M-row column touched some 20 cache lines a key,
and the look-ups of one IMaRS 1M-window close (about 85k keys) cost 0.05 s of its 0.22 s;
by bucket they cost a sixth of that.

Ids that are not spread (a few hot objects such as a class, or small numbers written by
hand) make some buckets long: a look-up whose buckets hold many more rows than it could
match falls back to numpy's binary search, so no input makes it slower than that.
"""
from __future__ import annotations

import numpy as np

# at most 2^22 buckets (16 MB of starts): a 21M-fact window has about five rows a bucket
MAX_BITS = 22
# a look-up that would read more than this many bucket rows a key searches instead
ROWS_A_KEY = 16


class SortedKeys:
    def __init__(self, keys: np.ndarray):
        """``keys``: int64 ids, sorted ascending (a frame's column, not copied)."""
        self.keys = keys
        self.bits = max(1, min(len(keys).bit_length() - 1, MAX_BITS))
        self._shift = np.int64(64 - self.bits)
        buckets = self._bucket(keys)
        counts = np.bincount(buckets, minlength=1 << self.bits)
        self._starts = np.zeros(len(counts) + 1, np.int64 if len(keys) >= 2**31 else np.int32)
        np.cumsum(counts, out=self._starts[1:])

    def _bucket(self, ids: np.ndarray) -> np.ndarray:
        # an arithmetic shift keeps the order of signed ids; the offset makes buckets from 0
        return (ids >> self._shift) + (1 << (self.bits - 1))

    def rows(self, wanted: np.ndarray) -> np.ndarray:
        """The row numbers holding any of ``wanted`` (distinct int64 ids, ascending), ascending."""
        bucket = self._bucket(wanted)
        first = self._starts[bucket].astype(np.int64)
        sizes = self._starts[bucket + 1] - first
        total = int(sizes.sum())
        if total > ROWS_A_KEY * len(wanted) + 1024:
            return self._searched(wanted)
        at = _spans(first, sizes, total)  # every row of every key's bucket
        return at[self.keys[at] == np.repeat(wanted, sizes)]

    def _searched(self, wanted: np.ndarray) -> np.ndarray:
        lo = np.searchsorted(self.keys, wanted, "left").astype(np.int64)
        lengths = np.searchsorted(self.keys, wanted, "right") - lo
        return _spans(lo, lengths, int(lengths.sum()))


def _spans(starts: np.ndarray, lengths: np.ndarray, total: int) -> np.ndarray:
    """The numbers of every range [start, start + length), one range after the other."""
    return np.arange(total) + np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
