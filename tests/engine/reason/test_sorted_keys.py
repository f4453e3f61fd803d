"""``SortedKeys``: the rows of a sorted id column that hold any of the wanted ids, found by
bucket, are exactly numpy's binary search's, whether the ids are spread (xxhash64 ids), few
and hot, or all in one bucket (small ids written by hand)."""
import numpy as np
import pytest

from reasonlake.engine.reason.sorted_keys import ROWS_A_KEY, SortedKeys


def _searched(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """The oracle: each wanted id's rows by numpy's binary search, one id after the other."""
    return np.concatenate([np.arange(np.searchsorted(keys, w, "left"), np.searchsorted(keys, w, "right"))
                           for w in wanted] or [np.zeros(0, np.int64)]).astype(np.int64)


def _columns(rng):
    spread = rng.integers(-2**63, 2**63 - 1, 5_000, dtype=np.int64)
    yield "spread, three rows an id", np.sort(np.repeat(spread, 3))
    yield "spread with hot ids", np.sort(np.concatenate([spread, np.repeat(spread[:3], 2_000)]))
    yield "small ids in one bucket", np.sort(rng.integers(0, 300, 4_000, dtype=np.int64))
    yield "extremes", np.sort(np.array([-2**63, -1, 0, 1, 2**63 - 1] * 2, np.int64))
    yield "one row", np.array([42], np.int64)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_rows_found_are_the_binary_searchs(seed):
    rng = np.random.default_rng(seed)
    for name, keys in _columns(rng):
        index = SortedKeys(keys)
        for size in (0, 1, 7, 300, 4_000):
            if size:  # ids held (the first and last among them), and ids not held
                wanted = np.unique(np.concatenate([rng.choice(keys, size // 2 + 1), keys[:1], keys[-1:],
                                                   rng.integers(-2**63, 2**63 - 1, size // 2, dtype=np.int64)]))
            else:
                wanted = np.zeros(0, np.int64)
            found = index.rows(wanted)
            assert np.array_equal(found, _searched(keys, wanted)), (name, size)
            assert size == 0 or len(found) > 0


def test_long_buckets_fall_back_to_searching():
    """A column of hand-written small ids lies in one bucket: a look-up of a few of them must
    not read the whole bucket for each (it searches instead), and finds the same rows."""
    keys = np.arange(100_000, dtype=np.int64)
    index = SortedKeys(keys)
    wanted = np.array([5, 70_000, 99_999], np.int64)
    buckets = index._bucket(wanted)
    assert len(set(buckets.tolist())) == 1  # the case: every id in one bucket
    assert np.array_equal(index.rows(wanted), wanted)
    assert ROWS_A_KEY * len(wanted) + 1024 < len(keys)  # so the bucket was not read
