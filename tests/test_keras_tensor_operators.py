"""Operators on KerasTensors record `Operator` layers, as Keras 3's KerasTensor does: each
model's output is checked against the same expression run eagerly, and a model with an
index survives save/load."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras.layers.merging import decode_key, encode_key

X = np.array([[-1.5, 0.0, 0.4, 2.7], [3.2, -0.6, 1.0, -2.2]], np.float32)

CASES = {
    "x[:, 1:]": lambda x: x[:, 1:],
    "x[:, 0]": lambda x: x[:, 0],
    "x[..., None]": lambda x: x[..., None],
    "x[:, ::-2]": lambda x: x[:, ::-2],
    "x[:, [0, 2]]": lambda x: x[:, [0, 2]],
    "x // 2": lambda x: x // 2,
    "7 // x": lambda x: 7.0 // (abs(x) + 1.0),
    "x % 2": lambda x: x % 2.0,
    "3 % x": lambda x: 3.0 % (abs(x) + 1.0),
    "2 ** x": lambda x: 2.0**x,
    "abs(x)": lambda x: abs(x),
    "round(x)": lambda x: round(x),
    "x > 0": lambda x: x > 0.0,
    "x <= 1": lambda x: x <= 1.0,
    "x != 0": lambda x: x != 0.0,
    "(x > 0) & (x < 1)": lambda x: (x > 0.0) & (x < 1.0),
    "(x > 0) | (x < -1)": lambda x: (x > 0.0) | (x < -1.0),
    "(x > 0) ^ (x > 1)": lambda x: (x > 0.0) ^ (x > 1.0),
    "~(x > 0)": lambda x: ~(x > 0.0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_operator_model_matches_the_eager_expression(name):
    fn = CASES[name]
    inputs = ek.keras.Input((4,))
    model = ek.keras.Model(inputs, fn(inputs))
    got = model(X)
    # round() of an eager Tensor is not TensorFlow's (it raises there): tf.round is
    want = ek.round(ek.constant(X)) if name == "round(x)" else fn(ek.constant(X))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    out = model.outputs[0]
    assert out.dtype == want.dtype
    assert list(out.shape)[1:] == list(want.shape)[1:]


def test_eager_bitwise_operators_follow_tensorflow():
    # TensorFlow's and_/or_/xor_/invert_: logical on bool tensors, bitwise on integer ones.
    a, b = ek.constant([1, 2, 6]), ek.constant([3, 3, 3])
    np.testing.assert_array_equal((a ^ b).numpy(), [2, 1, 5])
    np.testing.assert_array_equal((a & b).numpy(), [1, 2, 2])
    np.testing.assert_array_equal((a | 4).numpy(), [5, 6, 6])
    np.testing.assert_array_equal((6 & a).numpy(), [0, 2, 6])
    np.testing.assert_array_equal((~a).numpy(), [-2, -3, -7])
    p, q = ek.constant([True, True, False]), ek.constant([True, False, False])
    np.testing.assert_array_equal((p ^ q).numpy(), [False, True, False])
    np.testing.assert_array_equal((True ^ q).numpy(), [False, True, True])
    f = ek.constant([1.0])
    for expr in (lambda: f & f, lambda: f ^ f, lambda: ~f):
        with pytest.raises(ek.errors.InvalidArgumentError, match="must be integer tensors"):
            expr()


def test_indexing_model_saves_and_loads(tmp_path):
    inputs = ek.keras.Input((4, 3))
    h = ek.keras.layers.Dense(2)(inputs[:, -2:, ::2])
    model = ek.keras.Model(inputs, h[..., 0] > 0.0)
    x = np.random.default_rng(0).normal(size=(5, 4, 3)).astype(np.float32)
    model.save(tmp_path / "m.keras")
    loaded = ek.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    assert loaded.outputs[0].shape.as_list() == [None, 2]


def test_keys_round_trip_and_bad_keys_raise():
    for key in [(slice(None, -1), Ellipsis, None, 2), 3, [0, 2], slice(1, None, 2)]:
        assert decode_key(encode_key(key)) == key
    inputs = ek.keras.Input((4,))
    with pytest.raises(TypeError, match="an index that depends on the data needs a layer"):
        inputs[:, inputs]
    with pytest.raises(TypeError, match="slice bounds must be ints"):
        inputs[:, 0.5:]
    with pytest.raises(NotImplementedError, match="only rounding to an integer"):
        round(inputs, 2)
    with pytest.raises(TypeError, match="cannot be iterated over"):
        list(inputs)
