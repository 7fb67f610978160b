"""Small TensorFlow API gaps from the guides: tensor_scatter_nd_*, regularizers, RNN cells,
ek.version, cross-device ops. Values are TensorFlow's documented outputs or closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError

# -- tensor_scatter_nd_* (TF's tensor slicing guide, cells 18-21) ---------------------------------

T11 = [[2, 7, 0], [9, 0, 1], [0, 3, 8]]
T14 = [[-2, -7, 0], [-9, 0, 1], [0, -3, -8]]
DIAG_ANTI = [[0, 2], [1, 1], [2, 0]]


def test_tensor_scatter_nd_guide_values():
    t12 = ek.tensor_scatter_nd_add(ek.constant(T11), indices=DIAG_ANTI, updates=[6, 5, 4])
    np.testing.assert_array_equal(t12.numpy(), [[2, 7, 6], [9, 5, 1], [4, 3, 8]])
    assert t12.dtype == ek.int32
    t13 = ek.tensor_scatter_nd_sub(
        ek.constant(T11),
        indices=[[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]],
        updates=[1, 7, 9, -1, 1, 3, 7],
    )
    np.testing.assert_array_equal(t13.numpy(), np.eye(3, dtype=np.int32))
    t15 = ek.tensor_scatter_nd_min(ek.constant(T14), indices=DIAG_ANTI, updates=[-6, -5, -4])
    np.testing.assert_array_equal(t15.numpy(), [[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]])
    t16 = ek.tensor_scatter_nd_max(ek.constant(T14), indices=DIAG_ANTI, updates=[6, 5, 4])
    np.testing.assert_array_equal(t16.numpy(), [[-2, -7, 6], [-9, 5, 1], [4, -3, -8]])


def test_tensor_scatter_nd_api_doc_examples():
    # tf.tensor_scatter_nd_update's and _add's API docs: element and slice updates.
    t = ek.tensor_scatter_nd_update(
        ek.constant([0, 0, 0, 0, 0, 0, 0, 0]), [[1], [3], [4], [7]], [9, 10, 11, 12]
    )
    np.testing.assert_array_equal(t.numpy(), [0, 9, 0, 10, 11, 0, 0, 12])
    t = ek.tensor_scatter_nd_add(
        ek.constant([1, 2, 3, 4, 5, 6, 7, 8]), [[4], [3], [1], [7]], [9, 10, 11, 12]
    )
    np.testing.assert_array_equal(t.numpy(), [1, 13, 3, 14, 14, 6, 7, 20])
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    rows = np.ones((2, 4), np.float32)
    out = ek.tensor_scatter_nd_update(base, [[1, 2], [0, 0]], rows * 5)
    want = base.copy()
    want[1, 2] = 5
    want[0, 0] = 5
    np.testing.assert_array_equal(out.numpy(), want)
    # Repeated indices accumulate for add/sub and combine for min/max.
    np.testing.assert_array_equal(
        ek.tensor_scatter_nd_sub(ek.constant([5, 5]), [[1], [1]], [1, 2]).numpy(), [5, 2]
    )
    np.testing.assert_array_equal(
        ek.tensor_scatter_nd_max(ek.constant([0, 0]), [[0], [0]], [3, 7]).numpy(), [7, 0]
    )


@pytest.mark.parametrize(
    "fn",
    [
        ek.tensor_scatter_nd_update,
        ek.tensor_scatter_nd_add,
        ek.tensor_scatter_nd_sub,
        ek.tensor_scatter_nd_min,
        ek.tensor_scatter_nd_max,
    ],
)
def test_tensor_scatter_nd_gradients(fn):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3))
    u = rng.standard_normal((2, 3))  # slices: distinct values, so no min/max ties
    check_gradients(lambda a, b: fn(a, [[3], [1]], b) ** 2, x, u)
    xe = rng.standard_normal((3, 3))
    ue = rng.standard_normal(3)
    check_gradients(lambda a, b: fn(a, DIAG_ANTI, b) ** 3, xe, ue, order=2)


def test_tensor_scatter_nd_closed_form_gradients():
    x = ek.Variable([1.0, 2.0, 3.0])
    u = ek.Variable([2.0, 0.5])
    w = ek.constant([1.0, 10.0, 100.0])
    want = {
        ek.tensor_scatter_nd_update: ([0, 10, 0], [1, 100]),
        ek.tensor_scatter_nd_add: ([1, 10, 100], [1, 100]),
        ek.tensor_scatter_nd_sub: ([1, 10, 100], [-1, -100]),
        ek.tensor_scatter_nd_min: ([1, 10, 0], [0, 100]),
        ek.tensor_scatter_nd_max: ([0, 10, 100], [1, 0]),
    }
    for fn, (gx, gu) in want.items():
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(fn(x, [[0], [2]], u) * w)
        dx, du = tape.gradient(loss, [x, u])
        np.testing.assert_allclose(dx.numpy(), gx, err_msg=fn.__name__)
        np.testing.assert_allclose(du.numpy(), gu, err_msg=fn.__name__)
    # Ties split the cotangent evenly between the tensor's element and the equal update.
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(ek.tensor_scatter_nd_max(x, [[1]], [2.0]) * w)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [1, 5, 100])


def test_tensor_scatter_nd_errors():
    t = ek.constant(T11)
    with pytest.raises(IAE, match=r"tensor_scatter_nd_add: index 3 is out of range \[0, 3\)"):
        ek.tensor_scatter_nd_add(t, [[3, 0]], [1])
    with pytest.raises(IAE, match=r"tensor_scatter_nd_min: index -1 is out of range"):
        ek.tensor_scatter_nd_min(t, [[0, -1]], [1])
    with pytest.raises(IAE, match=r"tensor_scatter_nd_sub: updates must have shape \(1,\)"):
        ek.tensor_scatter_nd_sub(t, [[0, 0]], [1, 2])
    with pytest.raises(IAE, match=r"tensor_scatter_nd_update: indices must have shape"):
        ek.tensor_scatter_nd_update(t, [[0, 0, 0]], [1])
    with pytest.raises(IAE, match=r"updates must have the dtype of tensor \(int32\), got float32"):
        ek.tensor_scatter_nd_max(t, [[0, 0]], ek.constant([1.0]))
    with pytest.raises(TypeError, match=r"tensor_scatter_nd_add: indices must be an integer"):
        ek.tensor_scatter_nd_add(t, ek.constant([[0.0, 0.0]]), [1])
