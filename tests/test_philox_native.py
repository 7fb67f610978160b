"""The C twin of Philox and TensorFlow's distributions on it (``native/_philox.c``) against the
NumPy code of ``runtime/philox.py``: the same bits for every kind, size and counter, including
counters that carry across 2**64 and wrap at 2**128. (Both are pinned to TensorFlow's numbers
by tests/test_fuzz_seeds.py, which runs whichever is active.)"""

from __future__ import annotations

import numpy as np
import pytest

from eagerkernel.runtime import philox

pytestmark = pytest.mark.skipif(philox._philox is None, reason="native/_philox.c not built")

KINDS = [
    ("uniform", np.float32),
    ("uniform", np.float64),
    ("normal", np.float32),
    ("normal", np.float64),
    ("truncated_normal", np.float32),
    ("truncated_normal", np.float64),
]
COUNTERS = [0, 12345, 2**64 - 3, (7 << 64) | (2**64 - 1), 2**128 - 2, (2**127) | 99]
SIZES = [0, 1, 3, 4, 5, 9, 64, 257, 1001]


def _numpy_twin(monkeypatch, fn, *args):
    with monkeypatch.context() as m:
        m.setattr(philox, "_philox", None)
        return fn(*args)


@pytest.mark.parametrize("counter", COUNTERS)
@pytest.mark.parametrize("kind,dtype", KINDS)
def test_c_twin_fills_the_numpy_twins_bits(monkeypatch, kind, dtype, counter):
    rng = np.random.default_rng(counter % 1000)
    for n in SIZES:
        key = int(rng.integers(0, 2**63)) * 2 + 1
        got = philox.fill(kind, dtype, key, counter, n)
        want = _numpy_twin(monkeypatch, philox.fill, kind, dtype, key, counter, n)
        assert got.dtype == want.dtype == np.dtype(dtype) and got.shape == (n,)
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
        if kind == "truncated_normal":
            assert np.all(np.abs(got) < 2.0)


@pytest.mark.parametrize("counter", COUNTERS)
def test_c_twin_blocks_are_philox_4x32_10(monkeypatch, counter):
    for n in SIZES:
        got = philox.blocks(0xDEADBEEF12345678, counter, n)
        want = _numpy_twin(monkeypatch, philox.blocks, 0xDEADBEEF12345678, counter, n)
        assert got.dtype == np.uint32 and got.shape == (n, 4)
        np.testing.assert_array_equal(got, want)


def test_philox_known_answer():
    # Random123's known-answer test for philox4x32_10 (kat_vectors): counter and key all
    # ones give 408f276d 41c83b0e a20bc7c6 6d5451fd.
    block = philox.blocks(0xFFFFFFFFFFFFFFFF, 2**128 - 1, 1)[0]
    assert [hex(int(w)) for w in block] == ["0x408f276d", "0x41c83b0e", "0xa20bc7c6", "0x6d5451fd"]


def test_fill_refuses_a_buffer_of_the_wrong_item_size():
    with pytest.raises(ValueError, match="kind n needs a C-contiguous buffer of 4-byte items"):
        philox._philox.fill(np.empty(4, np.float64), "n", 1, 0, 0)
    with pytest.raises(ValueError, match="kind x"):
        philox._philox.fill(np.empty(4, np.float32), "x", 1, 0, 0)
