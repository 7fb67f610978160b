"""CTC loss and decoders against TensorFlow 2.21 (fuzz round ctcfix).

Every hard-coded number below was computed with the oracle (tensorflow-cpu 2.21, Keras 3.15)
on the same inputs: dense labels take TensorFlow's ``ctc_loss_dense`` (a large finite loss for
infeasible labels, a label equal to the blank counted for no class in the gradient), sparse
labels its CPU kernel (inf, labels shifted around the blank, the kernel's errors)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

IAE = ek.errors.InvalidArgumentError


def _loss_and_grad(f, z):
    x = ek.constant(z)
    with ek.GradientTape() as tape:
        tape.watch(x)
        loss = f(x)
    return loss.numpy(), tape.gradient(loss, x).numpy()


def test_keras_ctc_blank_column_skips_labels_equal_to_the_blank():
    # keras.losses.ctc: labels [1, 0, 2] (0 is the blank), TF 2.21 / Keras 3.15 values.
    z = np.random.default_rng(11).normal(size=(1, 4, 3)).astype("float32")
    loss, g = _loss_and_grad(lambda x: ek.keras.losses.ctc(np.array([[1, 0, 2]], "int32"), x), z)
    np.testing.assert_allclose(loss, [4.0909467], rtol=1e-5)
    want = [
        [0.0125397, -0.4209318, 0.408392],
        [0.0414499, -0.0898115, 0.3053353],
        [0.0611041, 0.1121366, 0.437512],
        [-0.3641109, 0.818005, 0.1550717],
    ]
    np.testing.assert_allclose(g[0], want, atol=2e-6)


@pytest.mark.parametrize(
    "labels, blank, want_loss, want_grad",
    [
        (
            [[3, 3, 3, 2, 2]],
            0,
            711.7235,
            [
                [-0.1793002, 0.1746174, 0.1283126, -0.123642],
                [-0.0841008, 0.1733195, 0.0706905, -0.1598945],
                [-0.1950217, 0.1197845, 0.0080406, 0.0671774],
                [-0.1692025, 0.4811987, -0.1579433, -0.1540422],
                [-0.1186452, 0.1288905, -0.0692405, 0.0590088],
                [-0.3550518, 0.5821446, -0.1095064, -0.1175746],
            ],
        ),
        (
            [[1, 1, 1, 2, 2]],
            -1,
            710.07544,
            [
                [0.2259769, -0.0459787, -0.0115408, -0.1684324],
                [0.0706595, 0.034242, 0.0514513, -0.1563807],
                [0.2100574, 0.042989, 0.0126621, -0.2657281],
                [0.0585594, 0.2635948, -0.073871, -0.2482717],
                [0.1026171, 0.0576287, 0.0123936, -0.1726495],
                [0.1305453, 0.3268383, -0.1001847, -0.3572115],
            ],
        ),
    ],
)
def test_infeasible_dense_labels_give_tensorflows_large_finite_loss(
    labels, blank, want_loss, want_grad
):
    # 5 labels with 3 repeats need 8 frames; there are 6. TF's "log 0" is log(1e-307).
    z = np.random.default_rng(0).normal(size=(6, 1, 4)).astype("float32")
    loss, g = _loss_and_grad(lambda x: ek.nn.ctc_loss(labels, x, [5], [6], blank_index=blank), z)
    np.testing.assert_allclose(loss, [want_loss], rtol=1e-6)
    # TensorFlow's float32 arithmetic near log(1e-307) loses about 1e-4 here.
    np.testing.assert_allclose(g[:, 0], want_grad, atol=2e-4)


def test_dense_labels_of_width_zero():
    # TF 2.21: with no label column its transition start -> blank has weight 2 (log 2 less).
    z = np.array([[[0.5, -1.0, 2.0]], [[1.0, 0.0, -0.5]]], "float32")
    loss, g = _loss_and_grad(lambda x: ek.nn.ctc_loss(np.zeros((1, 0), "int32"), x, [0], [2]), z)
    np.testing.assert_allclose(loss, [1.512533], rtol=1e-6)
    want = [[[-0.8247096, 0.0391126, 0.785597]], [[-0.3714683, 0.2312239, 0.1402444]]]
    np.testing.assert_allclose(g, want, atol=1e-6)


def _sparse(values, width=None):
    values = np.asarray(values)
    idx = [[0, j] for j in range(len(values))]
    return ek.sparse.SparseTensor(idx, values, [1, width or len(values)])


@pytest.mark.parametrize(
    "values, blank, want",
    [
        ([1, 2], 2, 7.3085923),  # a label equal to the blank reads as class blank - 1
        ([1, 1], 2, 7.3085923),
        ([3, 3], -1, 6.738403),
        ([3, 2], -1, 6.738403),
        ([1, 1], 0, 6.253932),
    ],
)
def test_sparse_labels_shift_around_the_blank(values, blank, want):
    z = np.random.default_rng(3).normal(size=(4, 1, 4)).astype("float32")
    got = ek.nn.ctc_loss(_sparse(np.int32(values)), z, None, [4], blank_index=blank).numpy()
    np.testing.assert_allclose(got, [want], rtol=1e-6)


def test_sparse_labels_infeasible_by_repeats_give_inf():
    z = np.random.default_rng(3).normal(size=(4, 1, 4)).astype("float32")
    got = ek.nn.ctc_loss(_sparse(np.int32([1, 1, 1])), z, None, [4], blank_index=0).numpy()
    assert np.isposinf(got[0])


def test_sparse_label_errors_as_tensorflows_kernel():
    z = np.zeros((4, 1, 4), "float32")
    with pytest.raises(IAE, match="ctc_loss: sparse labels must hold int32 values"):
        ek.nn.ctc_loss(_sparse(np.int64([1])), z, None, [4], blank_index=0)
    with pytest.raises(IAE, match="ctc_loss: Labels length is zero in batch 0"):
        empty = ek.sparse.SparseTensor(np.zeros((0, 2), np.int64), np.int32([]), [1, 2])
        ek.nn.ctc_loss(empty, z, None, [4], blank_index=0)
    with pytest.raises(IAE, match=r"ctc_loss: Not enough time .*required: 5, available: 4"):
        ek.nn.ctc_loss(_sparse(np.int32([1, 2, 3, 1, 2])), z, None, [4], blank_index=0)
    with pytest.raises(IAE, match=r"ctc_loss: All labels must be nonnegative.*blank_index 0"):
        ek.nn.ctc_loss(_sparse(np.int32([2, 0])), z, None, [4], blank_index=0)


def test_compat_v1_keeps_labels_and_ignores_longer_outputs():
    z = np.zeros((2, 1, 3), "float32")
    loss = ek.compat.v1.nn.ctc_loss(
        _sparse(np.int32([1, 0, 1])), z, [2], ignore_longer_outputs_than_inputs=True
    )
    np.testing.assert_allclose(loss.numpy(), [0.0])


def test_decoders_reject_empty_inputs():
    for shape in [(0, 1, 3), (2, 0, 3), (2, 1, 0)]:
        with pytest.raises(IAE, match="ctc_greedy_decoder: inputs must not be empty"):
            ek.nn.ctc_greedy_decoder(np.zeros(shape, "float32"), np.zeros(shape[1], "int32"))
        with pytest.raises(IAE, match="ctc_beam_search_decoder: inputs must not be empty"):
            ek.nn.ctc_beam_search_decoder(np.zeros(shape, "float32"), np.zeros(shape[1], "int32"))


def test_compat_v1_blank_labels_may_only_end_a_row_and_are_dropped():
    # tf.compat.v1.nn.ctc_loss (blank = 3 of 4 classes), TF 2.21 values.
    z = np.random.default_rng(3).normal(size=(4, 1, 4)).astype("float32")
    loss = ek.compat.v1.nn.ctc_loss(_sparse(np.int32([1, 3])), z, [4])
    np.testing.assert_allclose(loss.numpy(), [3.9068825], rtol=1e-6)  # as labels [1]
    with pytest.raises(IAE, match="ctc_loss: Saw a non-null label"):
        ek.compat.v1.nn.ctc_loss(_sparse(np.int32([3, 1])), z, [4])
