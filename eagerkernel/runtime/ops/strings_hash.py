"""`ek.strings.to_hash_bucket` and `ek.strings.to_hash_bucket_strong`: the buckets of
TensorFlow's ``StringToHashBucket`` (its legacy ``Hash64``, a MurmurHash64A variant seeded with
``0xDECAFCAFFE``) and ``StringToHashBucketStrong`` (SipHash-2-4 keyed with two uint64s).

Both hashes are computed on Python integers, one string at a time, so the buckets are the ones
TensorFlow's kernels give for the same bytes (tested against the values in TensorFlow's
``string_to_hash_bucket_op_test.py`` and the SipHash paper's test vectors).

>>> ek.strings.to_hash_bucket(ek.constant(["a", "b", "c"]), 10).numpy()
array([8, 0, 7])
>>> ek.strings.to_hash_bucket_strong(ek.constant(["Hello", "TF"]), 3, [1, 2]).numpy()
array([2, 0])
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InvalidArgumentError
from .strings import map_strings, string_prim, unary_string_op

__all__ = ["hash64", "siphash24", "to_hash_bucket", "to_hash_bucket_strong"]

_M64 = 0xFFFFFFFFFFFFFFFF
_MURMUR_M = 0xC6A4A7935BD1E995
_HASH64_SEED = 0xDECAFCAFFE  # TensorFlow's default seed of Hash64 (core/platform/hash.h)


def hash64(data: bytes, seed: int = _HASH64_SEED) -> int:
    """TensorFlow's ``Hash64(data, n, seed)`` (``core/platform/hash.cc``) as an unsigned int.

    >>> hash64(b"a")
    2996632905371535868
    """
    m, r, n = _MURMUR_M, 47, len(data)
    h = (seed ^ (n * m)) & _M64
    full = n - n % 8
    for k in np.frombuffer(data[:full], dtype="<u8").tolist():
        k = (k * m) & _M64
        k ^= k >> r
        k = (k * m) & _M64
        h = ((h ^ k) * m) & _M64
    if n % 8:
        h ^= int.from_bytes(data[full:], "little")  # the switch's fall-through, byte by byte
        h = (h * m) & _M64
    h ^= h >> r
    h = (h * m) & _M64
    return h ^ (h >> r)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M64


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` with the 128-bit key ``(k0, k1)`` (two little-endian uint64
    halves), as an unsigned 64-bit int (Aumasson and Bernstein, 2012).

    >>> hex(siphash24(0x0706050403020100, 0x0F0E0D0C0B0A0908, bytes(range(15))))
    '0xa129ca6149be45e5'
    """
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rounds(v0, v1, v2, v3, count):
        for _ in range(count):
            v0 = (v0 + v1) & _M64
            v1 = _rotl(v1, 13) ^ v0
            v0 = _rotl(v0, 32)
            v2 = (v2 + v3) & _M64
            v3 = _rotl(v3, 16) ^ v2
            v0 = (v0 + v3) & _M64
            v3 = _rotl(v3, 21) ^ v0
            v2 = (v2 + v1) & _M64
            v1 = _rotl(v1, 17) ^ v2
            v2 = _rotl(v2, 32)
        return v0, v1, v2, v3

    n = len(data)
    full = n - n % 8
    words = np.frombuffer(data[:full], dtype="<u8").tolist()
    # The last word: the remaining bytes, with the length's low byte on top.
    words.append(int.from_bytes(data[full:], "little") | ((n & 0xFF) << 56))
    for m in words:
        v3 ^= m
        v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 2)
        v0 ^= m
    v2 ^= 0xFF
    v0, v1, v2, v3 = rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def _legacy_fwd(xp, x, num_buckets):
    return map_strings(lambda v: hash64(v) % num_buckets, x, np.int64)


_legacy = string_prim("StringToHashBucket", _legacy_fwd)


def _strong_fwd(xp, x, num_buckets, key):
    k0, k1 = key
    return map_strings(lambda v: siphash24(k0, k1, v) % num_buckets, x, np.int64)


_strong = string_prim("StringToHashBucketStrong", _strong_fwd)


def _num_buckets(num_buckets, op: str) -> int:
    n = int(num_buckets)
    if n < 1:
        raise ValueError(f"{op}: num_buckets must be >= 1. Received: num_buckets={n}")
    return n


def to_hash_bucket(string_tensor, num_buckets, name=None):
    """Each string's bucket in ``[0, num_buckets)``: TensorFlow's legacy ``Hash64`` of its
    bytes modulo ``num_buckets`` (follows `tf.strings.to_hash_bucket`, kernel
    ``StringToHashBucket``).

    Args:
        string_tensor: a string Tensor of any shape, or a RaggedTensor of strings.
        num_buckets: int >= 1.

    Returns:
        int64, the shape of ``string_tensor``.

    Raises:
        ValueError: ``num_buckets`` < 1. TypeError: a non-string input.

    >>> ek.strings.to_hash_bucket(ek.constant([["Hello", "TensorFlow"]]), 1000).shape
    TensorShape([1, 2])
    """
    op = "to_hash_bucket"
    params = {"num_buckets": _num_buckets(num_buckets, op)}
    return unary_string_op(_legacy, string_tensor, params, op)


def to_hash_bucket_strong(input, num_buckets, key, name=None):
    """Each string's bucket in ``[0, num_buckets)``: SipHash-2-4 of its bytes keyed with
    ``key`` modulo ``num_buckets`` (follows `tf.strings.to_hash_bucket_strong`).

    Args:
        input: a string Tensor of any shape, or a RaggedTensor of strings.
        num_buckets: int >= 1.
        key: two ints, the SipHash key's two uint64 halves (negative ints are taken modulo
            2**64, as TensorFlow's int64 attribute is reinterpreted).

    Returns:
        int64, the shape of ``input``.

    Raises:
        InvalidArgumentError: ``key`` does not have 2 elements (TensorFlow's "Key must have 2
            elements"). ValueError: ``num_buckets`` < 1. TypeError: a non-string input.

    >>> ek.strings.to_hash_bucket_strong(ek.constant(["a", "b", "c"]), 10, [98765, 132]).numpy()
    array([4, 2, 8])
    """
    op = "to_hash_bucket_strong"
    k = [int(v) & _M64 for v in np.asarray(key).reshape(-1).tolist()]
    if len(k) != 2:
        raise InvalidArgumentError(
            f"{op}: Key must have 2 elements. Received: key={list(np.asarray(key).ravel())}"
        )
    params = {"num_buckets": _num_buckets(num_buckets, op), "key": (k[0], k[1])}
    return unary_string_op(_strong, input, params, op)
