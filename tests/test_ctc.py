"""`ek.nn.ctc_loss` and the CTC decoders: the loss against a brute-force sum over every
alignment (tiny cases), its gradient against central finite differences, lengths, blanks and
sparse labels, the decoders against brute force and hand examples, Keras 2's backend functions,
and values printed by TensorFlow 2.21 for the same inputs."""

import itertools

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients


def _collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != blank and c != prev:
            out.append(c)
        prev = c
    return tuple(out)


def _labelings(logits, blank):
    """{labeling: probability} over every path of one example's ``[T, C]`` logits."""
    z = np.asarray(logits, np.float64)
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    out = {}
    for path in itertools.product(range(z.shape[1]), repeat=z.shape[0]):
        key = _collapse(path, blank)
        out[key] = out.get(key, 0.0) + np.prod(p[np.arange(z.shape[0]), path])
    return out


def _brute_loss(logits, labels, blank):
    return -np.log(_labelings(logits, blank).get(tuple(labels), 0.0))


def _loss(labels, logits, label_length, logit_length, **kw):
    return ek.nn.ctc_loss(labels, logits, label_length, logit_length, **kw).numpy()


@pytest.mark.parametrize(
    "n_t, n_c, labels, blank",
    [
        (3, 3, [1], 0),
        (4, 3, [1, 2], 0),
        (4, 3, [1, 1], 0),  # a repeat needs a blank between its copies
        (5, 4, [3, 1, 3], 0),
        (5, 4, [2, 2, 1], 0),
        (5, 4, [0, 1], 3),  # blank last
        (5, 4, [0, 3, 0], 1),  # blank in the middle
        (3, 2, [], 0),  # the empty labeling: every frame blank
    ],
)
def test_loss_equals_the_sum_over_every_alignment(n_t, n_c, labels, blank):
    rng = np.random.default_rng(n_t * 10 + n_c + blank)
    z = rng.normal(size=(n_t, 1, n_c)) * 1.5
    lab = np.asarray([[*labels, 0]], np.int32)  # padded by one entry, which is ignored
    got = _loss(lab, z, [len(labels)], [n_t], blank_index=blank)
    np.testing.assert_allclose(got, [_brute_loss(z[:, 0], labels, blank)], rtol=1e-10)
    assert got.dtype == np.float64
    got32 = _loss(lab, z.astype(np.float32), [len(labels)], [n_t], blank_index=blank)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, got, rtol=1e-5)


def test_batch_with_different_lengths_equals_each_example_alone():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(5, 3, 4))
    labels = np.array([[1, 2, 3], [3, 3, -1], [2, 9, 9]])  # padding may hold anything
    label_length, logit_length = [3, 2, 1], [5, 5, 2]
    got = _loss(labels, z, label_length, logit_length)
    for b in range(3):
        want = _brute_loss(z[: logit_length[b], b], labels[b, : label_length[b]], 0)
        np.testing.assert_allclose(got[b], want, rtol=1e-10)
    # Frames past an example's length change nothing.
    z2 = z.copy()
    z2[2:, 2] = 50.0
    np.testing.assert_allclose(_loss(labels, z2, label_length, logit_length), got)


def test_batch_major_logits_give_the_same_loss():
    z = np.random.default_rng(2).normal(size=(4, 2, 3)).astype(np.float32)
    labels, ll, fl = [[1, 2], [2, 0]], [2, 1], [4, 3]
    a = _loss(labels, z, ll, fl)
    b = _loss(labels, np.transpose(z, (1, 0, 2)), ll, fl, logits_time_major=False)
    np.testing.assert_array_equal(a, b)


def test_tensorflow_values():
    # Printed by TensorFlow 2.21 (tf.nn.ctc_loss and tape.gradient) for these inputs.
    z = np.random.default_rng(0).normal(size=(5, 3, 4)).astype(np.float32)
    labels = np.array([[1, 2, 0], [3, 3, 0], [2, 0, 0]], np.int32)
    zt = ek.constant(z)
    with ek.GradientTape() as tape:
        tape.watch(zt)
        loss = ek.nn.ctc_loss(labels, zt, [2, 2, 1], [5, 4, 3])
    np.testing.assert_allclose(loss.numpy(), [3.297616, 4.4877877, 3.7017522], rtol=1e-5)
    tf_grad = [-0.3083171, -0.2910887, 0.37808725, 0.22131844, -0.0607132, 0.17331946]
    np.testing.assert_allclose(tape.gradient(loss, zt).numpy().ravel()[:6], tf_grad, atol=1e-5)


def test_gradient_matches_central_differences():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(5, 3, 4))
    labels, ll, fl = [[1, 2, 1], [3, 3, 0], [2, 0, 0]], [3, 2, 0], [5, 4, 3]
    w = np.array([0.7, -1.3, 2.0])  # an upstream cotangent per example
    zt = ek.constant(z)
    with ek.GradientTape() as tape:
        tape.watch(zt)
        loss = ek.nn.ctc_loss(labels, zt, ll, fl)
        total = ek.reduce_sum(loss * w)
    got = tape.gradient(total, zt).numpy()
    eps = 1e-6
    num = np.zeros_like(z)
    for i in np.ndindex(z.shape):
        zp, zm = z.copy(), z.copy()
        zp[i] += eps
        zm[i] -= eps
        num[i] = (_loss(labels, zp, ll, fl) @ w - _loss(labels, zm, ll, fl) @ w) / (2 * eps)
    np.testing.assert_allclose(got, num, atol=1e-7)
    assert np.all(got[4, 1] == 0) and np.all(got[3:, 2] == 0)  # past logit_length


def test_gradient_with_a_nonzero_blank_and_batch_major_logits():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(2, 4, 3))  # [batch, frames, classes]

    def f(x):
        return ek.nn.ctc_loss(
            [[0, 1], [1, 1]], x, [2, 2], [4, 4], logits_time_major=False, blank_index=2
        )

    check_gradients(f, z)


def test_impossible_alignment_gives_tensorflows_large_finite_loss():
    # Dense labels: TensorFlow 2.21's ctc_loss_dense, whose "log 0" is log(1e-307) (values
    # below computed with it, on float32 logits). Sparse labels give inf (test_fuzz_ctcfix).
    z = np.random.default_rng(5).normal(size=(3, 2, 3))
    # [1, 1] needs 3 frames (a blank between the copies); [1, 2, 1, 2] needs 4.
    loss = _loss([[1, 1, 0, 0], [1, 2, 1, 2]], z, [2, 4], [2, 3])
    np.testing.assert_allclose(loss, [708.7467, 707.62604], rtol=1e-5)
    assert np.isfinite(_loss([[1, 1]], z[:, :1], [2], [3]))[0]
    zt = ek.constant(z)
    with ek.GradientTape() as tape:
        tape.watch(zt)
        loss = ek.nn.ctc_loss([[1, 1]], zt[:, :1], [2], [2])
    g = tape.gradient(loss, zt).numpy()
    want = [[-0.3276268, -0.19431704, 0.52196115], [-0.3748626, -0.29721642, 0.6720765]]
    np.testing.assert_allclose(g[:2, 0], want, atol=1e-4)  # TF: float32 near log(1e-307)
    assert np.all(g[2] == 0) and np.all(g[:, 1] == 0)


def test_empty_labels_and_zero_frames():
    z = np.zeros((2, 2, 3))
    np.testing.assert_allclose(_loss([[1], [1]], z, [0, 0], [2, 0]), [2 * np.log(3), 0.0])
    # TensorFlow 2.21 (dense labels): -log(1e-307) in float32, not inf.
    np.testing.assert_allclose(_loss([[1]], z[:, :1], [1], [0]), [706.8936], rtol=1e-6)


def test_sparse_labels_equal_dense_labels():
    z = np.random.default_rng(6).normal(size=(5, 3, 4)).astype(np.float32)
    dense = [[1, 2, 3], [3, 3, 0], [2, 0, 0]]
    lengths = [3, 2, 1]
    sparse = ek.sparse.SparseTensor(
        [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [2, 0]], [1, 2, 3, 3, 3, 2], [3, 3]
    )
    want = _loss(dense, z, lengths, [5, 5, 4], blank_index=0)
    np.testing.assert_allclose(_loss(sparse, z, None, [5, 5, 4], blank_index=0), want, rtol=1e-6)
    # With its label_length given, it must match the rows.
    np.testing.assert_allclose(_loss(sparse, z, lengths, [5, 5, 4], blank_index=0), want, rtol=1e-6)
    with pytest.raises(ek.errors.InvalidArgumentError, match="label_length"):
        _loss(sparse, z, [1, 1, 1], [5, 5, 4], blank_index=0)
    with pytest.raises(ValueError, match="blank_index"):
        _loss(sparse, z, None, [5, 5, 4])


def test_dense_default_blank_is_zero_and_negative_blank_counts_from_the_end():
    z = np.random.default_rng(7).normal(size=(4, 1, 3))
    np.testing.assert_array_equal(
        _loss([[1]], z, [1], [4]), _loss([[1]], z, [1], [4], blank_index=0)
    )
    np.testing.assert_array_equal(
        _loss([[1]], z, [1], [4], blank_index=-1), _loss([[1]], z, [1], [4], blank_index=2)
    )


def test_errors_name_the_op_and_argument():
    z = np.zeros((3, 2, 4), np.float32)
    with pytest.raises(NotImplementedError, match="unique"):
        ek.nn.ctc_loss([[1], [1]], z, [1, 1], [3, 3], unique=([1], [0]))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"ctc_loss: labels\[1, 0\] = 4"):
        ek.nn.ctc_loss([[1], [4]], z, [1, 1], [3, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"logit_length\[0\] = 4"):
        ek.nn.ctc_loss([[1], [1]], z, [1, 1], [4, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="batch size"):
        ek.nn.ctc_loss([[1]], z, [1], [3, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="label_length must have one"):
        ek.nn.ctc_loss([[1], [1]], z, [1], [3, 3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="logits must be 3-D"):
        ek.nn.ctc_loss([[1]], z[0], [1], [3])
    with pytest.raises(ek.errors.InvalidArgumentError, match="blank_index"):
        ek.nn.ctc_loss([[1], [1]], z, [1, 1], [3, 3], blank_index=4)
    with pytest.raises(TypeError, match="labels must be int32 or int64"):
        ek.nn.ctc_loss([[1.0], [1.0]], z, [1, 1], [3, 3])
    with pytest.raises(ValueError, match="label_length must be given"):
        ek.nn.ctc_loss([[1], [1]], z, None, [3, 3])


def test_greedy_decoder_on_a_hand_made_example():
    # Frames' best classes (blank = 3): 0 0 3 0 1 1 3 -> "0 0 1" merged, "0 0 0 1 1" not.
    best = [0, 0, 3, 0, 1, 1, 3]
    z = np.full((7, 2, 4), -2.0, np.float32)
    z[np.arange(7), 0, best] = 1.0
    z[:, 1, 2] = 0.5  # second example: class 2 everywhere, 3 frames long
    (dec,), neg = ek.nn.ctc_greedy_decoder(z, [7, 3])
    assert dec.values.numpy().tolist() == [0, 0, 1, 2]
    assert dec.indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2], [1, 0]]
    assert dec.dense_shape.numpy().tolist() == [2, 3]
    assert dec.values.dtype == ek.int64 and dec.indices.dtype == ek.int64
    np.testing.assert_allclose(neg.numpy(), [[-7.0], [-1.5]])
    (dec,), _ = ek.nn.ctc_greedy_decoder(z, [7, 3], merge_repeated=False)
    assert dec.values.numpy().tolist() == [0, 0, 0, 1, 1, 2, 2, 2]
    (dec,), _ = ek.nn.ctc_greedy_decoder(z, [7, 3], blank_index=0)
    assert dec.values.numpy().tolist() == [3, 1, 3, 2]


def test_greedy_decoder_tensorflow_docstring_example():
    inf = float("inf")
    logits = ek.constant(
        [
            [[0.0, -inf, -inf], [-2.3, -inf, -0.1]],
            [[-inf, -0.5, -inf], [-inf, -inf, -0.1]],
            [[-inf, -inf, -inf], [-0.1, -inf, -2.3]],
        ]
    )
    (dec,), neg = ek.nn.ctc_greedy_decoder(logits, ek.constant([2, 3]), blank_index=1)
    assert ek.sparse.to_dense(dec).numpy().tolist() == [[0, 0], [2, 0]]
    np.testing.assert_allclose(neg.numpy(), [[0.5], [0.3]], rtol=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_beam_search_finds_the_most_probable_labeling(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(4, 2, 3)) * 2
    decoded, log_prob = ek.nn.ctc_beam_search_decoder(z, [4, 3], beam_width=50, top_paths=3)
    assert len(decoded) == 3 and log_prob.shape == (2, 3)
    for b, n in enumerate([4, 3]):
        probs = _labelings(z[:n, b], blank=2)
        ranked = sorted(probs.items(), key=lambda kv: -kv[1])[:3]
        for j, (labeling, p) in enumerate(ranked):
            dense = ek.sparse.to_dense(decoded[j], default_value=-1).numpy()[b]
            assert tuple(int(v) for v in dense if v >= 0) == labeling
            np.testing.assert_allclose(log_prob.numpy()[b, j], np.log(p), rtol=1e-10)


def test_beam_search_tensorflow_values():
    # Printed by TensorFlow 2.21's tf.nn.ctc_beam_search_decoder for these inputs.
    logits = np.log(
        [[[0.1, 0.6, 0.3]], [[0.1, 0.6, 0.3]], [[0.2, 0.1, 0.7]], [[0.8, 0.1, 0.1]]]
    ).astype(np.float32)
    decoded, log_prob = ek.nn.ctc_beam_search_decoder(logits, [4], beam_width=10, top_paths=3)
    assert [d.values.numpy().tolist() for d in decoded] == [[1, 0], [0], [1]]
    np.testing.assert_allclose(log_prob.numpy(), [[-0.5138302, -2.542112, -2.6693103]], 1e-6)
    with pytest.raises(ek.errors.InvalidArgumentError, match="top_paths"):
        ek.nn.ctc_beam_search_decoder(logits, [4], beam_width=2, top_paths=3)


def test_keras_ctc_batch_cost_and_decode():
    kb = ek.keras.backend
    rng = np.random.default_rng(8)
    probs = rng.dirichlet(np.ones(4), size=(2, 5)).astype(np.float32)  # [batch, frames, 4]
    y_true = np.array([[1, 2], [0, 0]])
    cost = kb.ctc_batch_cost(y_true, probs, np.array([[5], [4]]), np.array([[2], [1]]))
    assert cost.shape == (2, 1) and cost.dtype == ek.float32
    logits = np.log(probs.astype(np.float64) + 1e-7)
    for b, (lab, n) in enumerate([([1, 2], 5), ([0], 4)]):
        np.testing.assert_allclose(cost.numpy()[b, 0], _brute_loss(logits[b, :n], lab, 3), 1e-5)
    # Gradients reach y_pred.
    p = ek.constant(probs)
    with ek.GradientTape() as tape:
        tape.watch(p)
        c = kb.ctc_batch_cost(y_true, p, np.array([[5], [4]]), np.array([[2], [1]]))
    assert np.all(np.isfinite(tape.gradient(c, p).numpy()))
    dense, log_prob = kb.ctc_decode(probs, [5, 4])
    assert dense[0].shape == (2, 5) and dense[0].dtype == ek.int64
    for b, n in enumerate([5, 4]):
        best = _collapse(probs[b, :n].argmax(axis=1).tolist(), 3)
        row = dense[0].numpy()[b]
        assert tuple(row[: len(best)]) == best and np.all(row[len(best) :] == -1)
    dense, log_prob = kb.ctc_decode(probs, [5, 4], greedy=False, beam_width=10, top_paths=2)
    assert len(dense) == 2 and log_prob.shape == (2, 2)


def test_gradient_inside_a_graph_function_matches_eager():
    z = ek.Variable(np.random.default_rng(9).normal(size=(4, 2, 3)).astype(np.float32))

    def loss():
        return ek.reduce_mean(ek.nn.ctc_loss([[1, 2], [2, 0]], z, [2, 1], [4, 3]))

    @ek.function
    def step():
        with ek.GradientTape() as tape:
            value = loss()
        return value, tape.gradient(value, z)

    with ek.GradientTape() as tape:
        value = loss()
    want = tape.gradient(value, z).numpy()
    for _ in range(2):  # the trace, then a replay
        got_value, got = step()
        np.testing.assert_allclose(got_value.numpy(), value.numpy())
        np.testing.assert_allclose(got.numpy(), want)


def test_second_derivative_raises_lookup_error_naming_the_op():
    x = ek.constant(np.zeros((3, 1, 3)))
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            loss = ek.reduce_sum(ek.nn.ctc_loss([[1]], x, [1], [3]))
        g = inner.gradient(loss, x)
        square = ek.reduce_sum(g * g)
    with pytest.raises(LookupError, match="CTCLossGrad"):
        outer.gradient(square, x)
