"""TF 1.x's `Dimension` (what ``TensorShape.dims`` returns) and the tensor-equality switch of
the TF1-vs-TF2 migration guide; the expected values are TensorFlow 2.21's."""

from __future__ import annotations

import pickle

import pytest

import eagerkernel as ek
import eagerkernel.compat.v1 as tf1

D = tf1.Dimension


def test_dims_are_dimensions_and_items_are_ints():
    shape = ek.TensorShape([16, None, 256])
    assert [type(d) for d in shape.dims] == [D, D, D]
    assert [d.value for d in shape.dims] == [16, None, 256]
    assert list(shape) == [16, None, 256] and shape[1] is None
    assert ek.TensorShape(shape.dims) == shape  # Dimensions make a shape back
    assert ek.TensorShape(None).dims is None


def test_unknown_dimension_answers_none_or_unknown():
    d = D(None)
    assert repr(d) == "Dimension(None)" and str(d) == "?"
    assert d.is_compatible_with(16) and d.merge_with(16).value == 16
    assert (d == 4) is None and (d != 4) is None and (d < 8) is None and (d >= 1) is None
    for result in (d + 3, 3 + d, d * 2, d - 1, 10 // d, d % 3):
        assert isinstance(result, D) and result.value is None


def test_known_dimension_arithmetic_and_comparison():
    assert (D(3) + D(4)).value == 7 and str(D(3) + 4) == "7"
    assert (D(3) * 2).value == 6 and (10 - D(3)).value == 7
    assert (D(7) // 2).value == 3 and (D(7) % 3).value == 1 and (9 // D(2)).value == 4
    assert D(4) == 4 and 4 == D(4) and D(4) != D(5) and D(7) < 8 and not D(7) > 8  # noqa: SIM300
    assert int(D(5)) == 5 and [0, 1, 2, 3][D(2)] == 2 and not D(0) and D(1)
    assert pickle.loads(pickle.dumps(D(3))).value == 3
    with pytest.raises(TypeError, match="please use // instead"):
        D(3) / 2
    with pytest.raises(TypeError, match="unhashable"):
        hash(D(3))


def test_incompatible_and_invalid_dimensions_raise_tensorflows_errors():
    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        D(3).assert_is_compatible_with(D(4))
    with pytest.raises(ValueError, match="Dimensions 3 and 4 are not compatible"):
        D(3).merge_with(4)
    with pytest.raises(ValueError, match="Dimension -1 must be >= 0"):
        D(-1)
    with pytest.raises(TypeError, match="must be integer or None"):
        D("a")


def test_dimension_value_and_at_index():
    shape = ek.TensorShape([3, None])
    assert tf1.dimension_value(shape.dims[0]) == 3 and tf1.dimension_value(None) is None
    assert ek.compat.dimension_value(7) == 7
    assert tf1.dimension_at_index(shape, 0).value == 3
    assert str(tf1.dimension_at_index(shape, 1)) == "?"
    assert tf1.dimension_at_index(ek.TensorShape(None), 5).value is None


@pytest.fixture
def restore_equality():
    yield
    tf1.enable_tensor_equality()


def test_disabled_tensor_equality_compares_identity(restore_equality):
    x, y = ek.Variable(0.0), ek.Variable(0.0)
    c = ek.constant(1.0)
    tf1.disable_tensor_equality()
    assert (x == y) is False and (x == x) is True and (x != y) is True
    assert (c == c) is True and (c == 1.0) is False and (x == 0.0) is False
    assert len({x, y, x}) == 2 and hash(x) == id(x)
    with pytest.raises(TypeError, match="Tensor is unhashable"):
        hash(c)  # an eager tensor never hashes, as in TensorFlow
    tf1.enable_tensor_equality()
    assert bool(x == y) and (x == y).dtype == ek.bool


def test_enabled_tensor_equality_refuses_hashing_with_tensorflows_message():
    x = ek.Variable(0.0)
    with pytest.raises(TypeError, match=r"Variable is unhashable\. Instead, use variable\.ref"):
        {x, ek.constant(2.0)}
    with pytest.raises(TypeError, match=r"Tensor is unhashable\. Instead, use tensor\.ref"):
        {ek.constant(2.0)}
    refs = {x.ref(), ek.constant(2.0).ref()}
    assert x.ref() in refs and x.ref().deref() is x


def test_v2_switches():
    assert tf1.control_flow_v2_enabled() is True
    tf1.enable_control_flow_v2()
    tf1.enable_v2_tensorshape()
    with pytest.raises(NotImplementedError, match="disable_v2_tensorshape"):
        tf1.disable_v2_tensorshape()
    with pytest.raises(NotImplementedError, match="disable_control_flow_v2"):
        tf1.disable_control_flow_v2()
