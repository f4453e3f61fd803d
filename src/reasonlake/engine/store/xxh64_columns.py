"""XXH64 of a whole column of strings at once, with numpy: the hash Spark's ``xxhash64``
gives a string (XXH64 of its UTF-8 bytes), for term ids computed in the driver.

An ingest hashes every distinct term of its items twice (the id and the dictionary's
check): hashed one string at a time in Python that was about 2.5 µs a term, a second of a
200k-item ingest. Strings of one byte length share the algorithm's whole path (stripes,
words, tail), so each length is hashed as one matrix of bytes, row-wise, with numpy's
wrapping unsigned arithmetic; a length held by few strings is hashed one by one, where the
matrix would cost more than the loop.
"""
from __future__ import annotations

import numpy as np
import polars as pl
import pyarrow as pa
import xxhash

_P1 = np.uint64(11400714785074694791)
_P2 = np.uint64(14029467366897019727)
_P3 = np.uint64(1609587929392839161)
_P4 = np.uint64(9650029242287828579)
_P5 = np.uint64(2870177450012600261)

# below this many strings of one length, one xxhash call each is quicker than a matrix
_FEW = 48


def xxh64(strings: pl.Series, seed: int) -> np.ndarray:
    """XXH64 of each string's UTF-8 bytes with ``seed``, as int64 (Spark's signed long), in
    the series' order; the series holds no nulls."""
    if strings.null_count():
        raise ValueError("xxh64: the strings hold nulls")
    array = strings.cast(pl.String).to_arrow().cast(pa.large_string())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    _, offsets_buffer, data_buffer = array.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[array.offset: array.offset + len(array) + 1]
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.zeros(0, dtype=np.uint8))
    starts, lengths = offsets[:-1], np.diff(offsets)
    # every byte offset read as the start of a little-endian 8- and 4-byte word (numpy views
    # with a stride of one byte), so a word of each string is one gather
    padded = np.concatenate([data, np.zeros(8, dtype=np.uint8)])
    bytes_ = _Bytes(padded)
    out = np.empty(len(lengths), dtype=np.uint64)
    order = np.argsort(lengths, kind="stable")
    bounds = np.flatnonzero(np.diff(lengths[order])) + 1
    for rows in np.split(order, bounds):
        if not len(rows):
            continue
        length = int(lengths[rows[0]])
        if len(rows) < _FEW:
            out[rows] = [xxhash.xxh64_intdigest(data[s: s + length].tobytes(), seed=seed) for s in starts[rows]]
        else:
            out[rows] = _hashed(bytes_, starts[rows], length, seed)
    return out.view(np.int64)


class _Bytes:
    """A byte buffer readable at any offset as a byte, a 4-byte or an 8-byte word."""

    def __init__(self, padded: np.ndarray):
        self.u8 = padded
        self.u32 = np.ndarray(buffer=padded, dtype="<u4", shape=(len(padded) - 3,), strides=(1,))
        self.u64 = np.ndarray(buffer=padded, dtype="<u8", shape=(len(padded) - 7,), strides=(1,))


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


def _round(acc: np.ndarray, lane: np.ndarray) -> np.ndarray:
    return _rotl(acc + lane * _P2, 31) * _P1


def _hashed(data: _Bytes, starts: np.ndarray, length: int, seed: int) -> np.ndarray:
    """XXH64 of the strings of ``length`` bytes at ``starts``."""
    n = len(starts)
    seed_ = np.uint64(seed)
    with np.errstate(over="ignore"):
        stripes = length // 32
        if stripes:
            v = [np.full(n, seed_ + _P1 + _P2, dtype=np.uint64), np.full(n, seed_ + _P2, dtype=np.uint64),
                 np.full(n, seed_, dtype=np.uint64), np.full(n, seed_ - _P1, dtype=np.uint64)]
            for stripe in range(stripes):
                for lane in range(4):
                    v[lane] = _round(v[lane], data.u64[starts + (stripe * 32 + lane * 8)])
            h = _rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)
            for lane in range(4):
                h = (h ^ _round(np.zeros(n, dtype=np.uint64), v[lane])) * _P1 + _P4
        else:
            h = np.full(n, seed_ + _P5, dtype=np.uint64)
        h = h + np.uint64(length)
        at = stripes * 32
        while at + 8 <= length:
            h = _rotl(h ^ _round(np.zeros(n, dtype=np.uint64), data.u64[starts + at]), 27) * _P1 + _P4
            at += 8
        if at + 4 <= length:
            h = _rotl(h ^ (data.u32[starts + at].astype(np.uint64) * _P1), 23) * _P2 + _P3
            at += 4
        while at < length:
            h = _rotl(h ^ (data.u8[starts + at].astype(np.uint64) * _P5), 11) * _P1
            at += 1
        h = h ^ (h >> np.uint64(33))
        h = h * _P2
        h = h ^ (h >> np.uint64(29))
        h = h * _P3
        h = h ^ (h >> np.uint64(32))
    return h
