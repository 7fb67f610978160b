"""TensorFlow docstring examples and oracle numbers for tf.queue, tf.quantization.fake_quant_*,
tf.image.extract_glimpse / *_jpeg_quality / *sample_distorted_bounding_box,
tf.sparse.sampled_addmm, StrategyExtended.variable_created_in_scope and
tf.random.create_rng_state("threefry")."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import eagerkernel as ek
import eagerkernel.compat.v1 as tf1

# -- tf.queue --------------------------------------------------------------------------------


def test_fifo_queue_docstring_examples():
    # tf.compat.v1.QueueBase.enqueue / size / dequeue / dequeue_many docstrings.
    q = ek.queue.FIFOQueue(capacity=3, dtypes=ek.int32)
    assert q.enqueue(1) is None
    q.enqueue(2)
    assert q.size().numpy() == 2 and q.size().dtype == ek.int32
    assert q.dequeue().numpy() == 1 and q.dequeue().numpy() == 2
    q = ek.queue.FIFOQueue(10, ek.int32, shapes=ek.TensorShape(2))
    for pair in ([1, 2], [3, 4], [5, 6], [7, 8]):
        q.enqueue(ek.constant(pair, dtype=ek.int32, shape=(2)))
    out = q.dequeue_many(3)
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [3, 4], [5, 6]])
    assert out.dtype == ek.int32
    q = ek.queue.FIFOQueue(capacity=10, dtypes=ek.int32)
    q.enqueue_many(ek.constant([1, 2, 3, 4, 5], dtype=ek.int32))
    assert q.size().numpy() == 5


def test_queue_close_dequeue_up_to_and_errors_match_tensorflow():
    # QueueBase.close / is_closed / dequeue_up_to docstrings; errors and messages: the oracle.
    q = ek.queue.FIFOQueue(10, ek.int32, shapes=ek.TensorShape(2))
    q.enqueue(ek.constant([1, 2]))
    q.enqueue(ek.constant([3, 4]))
    assert not q.is_closed().numpy()
    q.close()
    assert q.is_closed().numpy() and q.is_closed().dtype == ek.bool
    np.testing.assert_array_equal(q.dequeue_up_to(5).numpy(), [[1, 2], [3, 4]])
    with pytest.raises(ek.errors.OutOfRangeError, match=r"is closed and has insufficient .*5"):
        q.dequeue_up_to(5)
    with pytest.raises(ek.errors.OutOfRangeError, match="requested 1, current size 0"):
        q.dequeue()
    with pytest.raises(ek.errors.CancelledError, match="is closed"):
        q.enqueue(ek.constant([5, 6]))
    with pytest.raises(ValueError, match=r"Shapes \(\) and \(2,\) are incompatible"):
        q.enqueue([5, 6])  # a list is a list of components, as in TensorFlow
    unshaped = ek.queue.FIFOQueue(3, ek.int32)
    unshaped.enqueue(1)
    with pytest.raises(ek.errors.InvalidArgumentError, match="require the components to have"):
        unshaped.dequeue_many(1)
    with pytest.raises(ek.errors.InvalidArgumentError, match="requested -1 < 0"):
        q.dequeue_many(-1)
    with pytest.raises(ValueError, match="must have rank at least 1"):
        unshaped.enqueue_many(1)
    assert q.dequeue_many(0).shape == (0, 2)


def test_queue_names_and_multiple_components():
    q = ek.queue.FIFOQueue(3, [ek.int32, ek.float32], shapes=[[], [2]], names=["a", "b"])
    assert q.names == ["a", "b"] and q.dtypes == [ek.int32, ek.float32]
    q.enqueue({"a": 1, "b": [1.0, 2.0]})
    q.enqueue_many({"a": [3, 4], "b": [[1.0, 2.0], [3.0, 4.0]]})
    first = q.dequeue()
    assert first["a"].numpy() == 1
    np.testing.assert_array_equal(q.dequeue_many(2)["b"].numpy(), [[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="You must enqueue a dictionary"):
        q.enqueue((1, [1.0, 2.0]))
    with pytest.raises(ValueError, match="Keys in dictionary to enqueue do not match"):
        q.enqueue({"a": 1})


def test_padding_priority_and_random_shuffle_queues():
    # Numbers from the oracle (tensorflow 2.21).
    q = ek.queue.PaddingFIFOQueue(5, [ek.int32, ek.string], shapes=[[None], []])
    q.enqueue(([1], "a"))
    q.enqueue(([1, 2, 3], "bb"))
    ints, strs = q.dequeue_many(2)
    np.testing.assert_array_equal(ints.numpy(), [[1, 0, 0], [1, 2, 3]])
    assert strs.numpy().tolist() == [b"a", b"bb"]
    q = ek.queue.PriorityQueue(5, [ek.string], shapes=[[]])
    assert q.dtypes == [ek.int64, ek.string]
    q.enqueue((3, "c"))
    q.enqueue_many(([1, 5, 2], ["a", "e", "b"]))
    prio, value = q.dequeue()
    assert (prio.numpy(), value.numpy()) == (1, b"a")
    prio, value = q.dequeue_many(2)
    assert prio.numpy().tolist() == [2, 3] and value.numpy().tolist() == [b"b", b"c"]
    q = ek.queue.RandomShuffleQueue(10, 2, ek.int32, shapes=[[]], seed=1)
    q.enqueue_many([[1, 2, 3, 4]])
    got = [int(q.dequeue().numpy()), int(q.dequeue().numpy())]  # 2 left = min_after_dequeue
    q.close()  # a closed queue ignores min_after_dequeue
    got += q.dequeue_up_to(5).numpy().tolist()
    assert sorted(got) == [1, 2, 3, 4]


def test_queue_dequeue_blocks_until_another_thread_enqueues():
    q = ek.queue.FIFOQueue(1, ek.int32)
    threading.Timer(0.2, lambda: q.enqueue(7)).start()
    assert q.dequeue().numpy() == 7  # blocks as TensorFlow's does, then returns
    q.enqueue(1)
    threading.Timer(0.2, q.close, kwargs={"cancel_pending_enqueues": True}).start()
    with pytest.raises(ek.errors.CancelledError):
        q.enqueue(2)  # full: waits, then cancelled


def test_queue_tf1_aliases():
    assert tf1.FIFOQueue is ek.queue.FIFOQueue and tf1.QueueBase is ek.queue.QueueBase
    assert tf1.PaddingFIFOQueue is ek.queue.PaddingFIFOQueue
    assert issubclass(ek.queue.RandomShuffleQueue, ek.queue.QueueBase)


def test_constant_accepts_an_int_shape():
    # The QueueBase.dequeue_many docstring calls tf.constant([1, 2], shape=(2)).
    assert ek.constant([1, 2], dtype=ek.int32, shape=(2)).shape == (2,)


# -- tf.quantization -------------------------------------------------------------------------


def test_fake_quant_with_min_max_vars_docstring():
    # tf.compat.v1.fake_quant_with_min_max_vars docstring.
    x = ek.constant([[1.2, -0.3, 0.7], [2.1, 0.5, -1.0]], dtype=ek.float32)
    out = ek.quantization.fake_quant_with_min_max_vars(
        inputs=x, min=-0.5, max=0.8, num_bits=8, narrow_range=False
    )
    np.testing.assert_array_equal(
        out.numpy(),
        np.array([[0.8003921, -0.3007843, 0.6984313], [0.8003921, 0.4996078, -0.4996078]], "f"),
    )
    assert tf1.fake_quant_with_min_max_vars is ek.quantization.fake_quant_with_min_max_vars


X = [-10.0, -3.1, -0.04, 0.0, 0.013, 0.5, 2.7, 5.99, 6.1, 100.0]


def test_fake_quant_args_values_match_the_oracle_bit_for_bit():
    fq = ek.quantization.fake_quant_with_min_max_args
    cases = {
        (): [-6.0235295, -3.1058824, -0.04705882, 0, 0, 0.5176471, 2.682353] + [5.9764705] * 3,
        (-0.3, 2.9, 4, True): [-0.22857143, -0.22857143, 0, 0, 0, 0.45714286, 2.7428572]
        + [2.9714286] * 3,
        (0.2, 2.9, 5): [0, 0, 0, 0, 0, 0.5225806] + [2.7] * 4,
        (-3.2, -0.1, 3): [-3.1000001, -3.1000001] + [0.0] * 8,
    }
    for args, want in cases.items():
        np.testing.assert_allclose(fq(X, *args).numpy(), np.array(want, np.float32), rtol=2e-7)
    with pytest.raises(ek.errors.InvalidArgumentError, match="min has to be smaller than max"):
        fq(X, min=3, max=1)
    with pytest.raises(ek.errors.InvalidArgumentError, match="num_bits must be between 2 and"):
        fq(X, num_bits=1)
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float6"):
        fq(ek.constant([1.0], ek.float64))


def test_fake_quant_gradients_are_tensorflows_straight_through():
    # The oracle: d/dx, d/dmin, d/dmax of sum(fake_quant(x) * range(10)).
    x = ek.constant(X)
    lo, hi = ek.Variable(-0.3), ek.Variable(2.9)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ek.quantization.fake_quant_with_min_max_vars(x, lo, hi, num_bits=4) * ek.range(10.0)
        z = ek.quantization.fake_quant_with_min_max_args(x, -0.3, 2.9, num_bits=4) * ek.range(10.0)
    dx, dlo, dhi = tape.gradient(y, [x, lo, hi])
    np.testing.assert_array_equal(dx.numpy(), [0, 0, 2, 3, 4, 5, 6, 0, 0, 0])
    assert (dlo.numpy(), dhi.numpy()) == (1.0, 24.0)
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [0, 0, 2, 3, 4, 5, 6, 0, 0, 0])
    # min > max: TF's degenerate output (all 2.0), no error.
    np.testing.assert_array_equal(
        ek.quantization.fake_quant_with_min_max_vars(x, 3.0, 1.0).numpy(), [2.0] * 10
    )
    with pytest.raises(ek.errors.InvalidArgumentError, match="`min` must be rank 0 but is rank"):
        ek.quantization.fake_quant_with_min_max_vars(x, [0.0], [1.0])


def test_fake_quant_per_channel_values_and_gradients_match_the_oracle():
    x = ek.reshape(ek.range(-3.0, 3.0, 0.5), [4, 3])
    lo, hi = ek.Variable([-1.0, 0.0, -2.0]), ek.Variable([1.0, 2.0, 0.5])
    with ek.GradientTape() as tape:
        tape.watch(x)
        out = ek.quantization.fake_quant_with_min_max_vars_per_channel(x, lo, hi, num_bits=3)
        y = out * ek.reshape(ek.range(12.0), [4, 3])
    want = [
        [-0.8571429, 0.0, -2.142857],
        [-0.8571429, 0.0, -0.35714287],
        [0.0, 0.5714286, 0.35714287],
        [1.1428572, 2.0, 0.35714287],
    ]
    np.testing.assert_allclose(out.numpy(), want, atol=3e-7)
    dx, dlo, dhi = tape.gradient(y, [x, lo, hi])
    np.testing.assert_array_equal(dx.numpy(), [[0, 0, 2], [0, 0, 5], [6, 7, 0], [0, 10, 0]])
    np.testing.assert_array_equal(dlo.numpy(), [3, 5, 0])
    np.testing.assert_array_equal(dhi.numpy(), [9, 0, 19])


# -- tf.image --------------------------------------------------------------------------------


def test_extract_glimpse_docstring_and_oracle_offsets():
    x = [[[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]], [[6.0], [7.0], [8.0]]]]
    out = ek.image.extract_glimpse(x, size=(2, 2), offsets=[[1, 1]], centered=False,
                                   normalized=False)  # fmt: skip
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[4, 5], [7, 8]])
    assert out.dtype == ek.float32
    # The oracle, noise="zero": normalized centred offsets are centres; other offsets are
    # top-left corners; pixels outside are 0.
    img = np.arange(2 * 5 * 6 * 2, dtype=np.float32).reshape(2, 5, 6, 2)
    got = ek.image.extract_glimpse(img, (3, 2), [[0.0, 0.0], [0.3, -0.5]], noise="zero")
    np.testing.assert_array_equal(got.numpy()[0, :, :, 0], [[16, 18], [28, 30], [40, 42]])
    got = ek.image.extract_glimpse(
        img, (3, 3), [[-1.5, -2.5], [4.5, 5.5]], centered=False, normalized=False, noise="zero"
    )
    np.testing.assert_array_equal(got.numpy()[0, :, :, 0], [[0, 0, 0], [0, 0, 0], [0, 0, 12]])
    uniform = ek.image.extract_glimpse(img, (7, 8), [[0.5, 0.5], [0.1, 0.9]], centered=False)
    np.testing.assert_array_equal(uniform.numpy()[0, :3, :3, 0], [[30, 32, 34], [42, 44, 46],
                                                                  [54, 56, 58]])  # fmt: skip
    assert uniform.numpy()[0, ..., 0].min() >= 0 and uniform.numpy()[0, ..., 0].max() <= 58
    with pytest.raises(ek.errors.InvalidArgumentError, match="first dimension should be batch"):
        ek.image.extract_glimpse(img, (2, 2), [[0, 0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="noise could only be uniform"):
        ek.image.extract_glimpse(img, (2, 2), [[0, 0], [0, 0]], noise="foo")


def test_jpeg_quality_ops_shapes_dtypes_and_errors():
    x = ek.constant([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]], dtype=ek.uint8)
    out = ek.image.stateless_random_jpeg_quality(x, 75, 95, (1, 2))
    assert out.shape == (2, 2, 3) and out.dtype == ek.uint8
    same = ek.image.stateless_random_jpeg_quality(x, 75, 95, (1, 2))
    np.testing.assert_array_equal(out.numpy(), same.numpy())
    # The seed (1, 2) draws quality 75, as TensorFlow's does (the oracle).
    np.testing.assert_array_equal(out.numpy(), ek.image.adjust_jpeg_quality(x, 75).numpy())
    assert ek.image.random_jpeg_quality(x, 75, 95).shape == (2, 2, 3)
    as_float = ek.image.adjust_jpeg_quality(ek.cast(x, ek.float32) / 255.0, 90)
    assert as_float.dtype == ek.float32
    with pytest.raises(ValueError, match="`min_jpeg_quality` must be less than"):
        ek.image.random_jpeg_quality(x, 90, 80)
    with pytest.raises(ValueError, match="jpeg encoding range must be between 0 and 100"):
        ek.image.stateless_random_jpeg_quality(x, -1, 80, (1, 2))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"quality must be in \[0,100\]"):
        ek.image.adjust_jpeg_quality(x, 101)
    with pytest.raises(ek.errors.InvalidArgumentError, match="must have 1 or 3 channels"):
        ek.image.adjust_jpeg_quality(x[:, :, :2], 80)


def test_stateless_sample_distorted_bounding_box_docstring_contract():
    image = np.array([[[1], [2], [3]], [[4], [5], [6]], [[7], [8], [9]]])
    bbox = ek.constant([0.0, 0.0, 1.0, 1.0], dtype=ek.float32, shape=[1, 1, 4])
    begin, size, draw = ek.image.stateless_sample_distorted_bounding_box(
        ek.shape(image), bounding_boxes=bbox, seed=(1, 2)
    )
    again = ek.image.stateless_sample_distorted_bounding_box(ek.shape(image), bbox, (1, 2))
    np.testing.assert_array_equal(begin.numpy(), again[0].numpy())
    assert begin.dtype == ek.int32 and size.numpy()[2] == -1 and begin.numpy()[2] == 0
    assert draw.shape == (1, 1, 4) and draw.dtype == ek.float32
    crop = ek.slice(image, begin, size).numpy()
    h, w = crop.shape[:2]
    assert 0.05 * 9 <= h * w <= 9
    y0, x0 = begin.numpy()[:2]
    np.testing.assert_allclose(draw.numpy()[0, 0], [y0 / 3, x0 / 3, (y0 + h) / 3, (x0 + w) / 3])


def test_sample_distorted_bounding_box_covers_the_object():
    for seed in range(1, 20):
        begin, size, _ = ek.image.sample_distorted_bounding_box(
            [480, 640, 3], [[[0.1, 0.2, 0.5, 0.6]]], seed=seed, min_object_covered=0.5
        )
        (y, x, _), (h, w, _) = begin.numpy(), size.numpy()
        box_y0, box_x0, box_y1, box_x1 = 48, 128, 240, 384
        inter = max(0, min(y + h, box_y1) - max(y, box_y0)) * max(
            0, min(x + w, box_x1) - max(x, box_x0)
        )
        assert inter >= 0.5 * (box_y1 - box_y0) * (box_x1 - box_x0) or (h, w) == (480, 640)
    with pytest.raises(ek.errors.InvalidArgumentError, match="No bounding boxes provided"):
        ek.image.sample_distorted_bounding_box([4, 4, 1], np.zeros([1, 0, 4], np.float32))
    whole = ek.image.sample_distorted_bounding_box(
        [4, 4, 1], np.zeros([1, 0, 4], np.float32), use_image_if_no_bounding_boxes=True
    )
    assert whole[1].numpy()[2] == -1
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"must be in \[0.0, 1.0\]"):
        ek.image.sample_distorted_bounding_box([4, 4, 1], [[[0.0, 0.0, 1.5, 1.0]]])


# -- tf.sparse, tf.distribute, tf.random -----------------------------------------------------


def test_sampled_addmm_docstring_examples():
    # tf.sparse.sampled_addmm docstring: the 2-D and the batch example.
    indices = ek.constant([0, 0, 1, 1], shape=[2, 2])
    mat1 = ek.constant([1, 2, 3, 4, 5, 6], shape=[2, 3], dtype=ek.float32)
    mat2 = ek.constant([7, 8, 9, 10, 11, 12], shape=[3, 2], dtype=ek.float32)
    out_i, out_v, out_s = ek.sparse.sampled_addmm(
        indices, ek.constant([0.5, 0.3]), ek.constant([2, 2]), mat1, mat2, alpha=0.75, beta=0.25
    )
    np.testing.assert_array_equal(out_i.numpy(), [[0, 0], [1, 1]])
    np.testing.assert_allclose(out_v.numpy(), [43.625, 115.575])
    assert out_v.dtype == ek.float32 and out_s.numpy().tolist() == [2, 2]
    indices = ek.constant([0, 1, 1, 0, 0, 0, 1, 0], shape=[2, 2, 2])
    values = ek.constant([3, 5, 2, 7], shape=[2, 2], dtype=ek.float32)
    mat1 = ek.constant(np.arange(1, 13), shape=[2, 2, 3], dtype=ek.float32)
    mat2 = ek.constant(np.arange(13, 25), shape=[2, 3, 2], dtype=ek.float32)
    _, out_v, _ = ek.sparse.sampled_addmm(indices, values, [2, 2], mat1, mat2, 0.25, 0.75)
    np.testing.assert_allclose(out_v.numpy(), [[75.75, 173.0], [381.5, 524.5]])
    with pytest.raises(ValueError, match="does not match output shape"):
        ek.sparse.sampled_addmm(indices, values, [3, 2], mat1, mat2)


def test_variable_created_in_scope_docstring():
    strategy = ek.distribute.MirroredStrategy()
    with strategy.scope():
        v = ek.Variable(1.0)
    assert strategy.extended.variable_created_in_scope(v) is True
    strategy = ek.distribute.MirroredStrategy()
    w = ek.Variable(1.0)
    assert strategy.extended.variable_created_in_scope(w) is False
    # The oracle: the default strategy owns the variables no strategy's scope created.
    default = ek.distribute.get_strategy().extended
    assert default.variable_created_in_scope(w) and not default.variable_created_in_scope(v)


def test_create_rng_state_threefry_docstring():
    state = ek.random.create_rng_state([12, 34], "threefry")
    np.testing.assert_array_equal(state.numpy(), [12, 34])
    assert state.dtype == ek.int64
    np.testing.assert_array_equal(ek.random.create_rng_state(7, 2).numpy(), [7, 0])
    with pytest.raises(NotImplementedError, match='"philox" \\(the default\\) and "auto_se'):
        ek.random.Generator.from_seed(1, alg="threefry")


# -- tf.train.CheckpointView / TrackableView ---------------------------------------------------


class _SimpleModule(ek.Module):
    # The tf.train.CheckpointView docstring's module.
    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_var = ek.Variable(5.0)
        self.b_var = ek.Variable(4.0)
        self.vars = [ek.Variable(1.0), ek.Variable(2.0)]


def _saved_root(tmp_path):
    root = _SimpleModule(name="root")
    leaf = root.leaf = _SimpleModule(name="leaf")
    leaf.leaf3 = ek.Variable(6.0, name="leaf3")
    leaf.leaf4 = ek.Variable(7.0, name="leaf4")
    return ek.train.Checkpoint(root).save(str(tmp_path / "tf_ckpts"))


def test_checkpoint_view_numbers_nodes_as_tensorflow(tmp_path):
    # tf.train.CheckpointView docstring (TF also lists a 'root' self-edge of Checkpoint(root),
    # which eagerkernel's checkpoints do not have).
    view = ek.train.CheckpointView(_saved_root(tmp_path))
    assert view.children(0) == {"a_var": 1, "b_var": 2, "vars": 3, "leaf": 4, "save_counter": 5}
    assert view.children(3) == {"0": 6, "1": 7}
    assert view.descendants() == list(range(15))


def test_checkpoint_view_match_and_diff_docstring(tmp_path):
    # tf.train.CheckpointView.match / .diff docstrings.
    view = ek.train.CheckpointView(_saved_root(tmp_path))
    root2 = _SimpleModule(name="root")
    leaf2 = root2.leaf2 = _SimpleModule(name="leaf2")
    leaf2.leaf3 = ek.Variable(6.0)
    leaf2.leaf4 = ek.Variable(7.0)
    match = view.match(root2)
    assert list(match) == [0, 1, 2, 3, 6, 7]
    assert match[0] is root2 and match[1] is root2.a_var and match[3] is root2.vars
    assert match[7] is root2.vars[1]
    overlap, only_view, only_live = view.diff(root2)
    assert overlap.keys() == match.keys()
    assert only_view == [4, 5, 8, 9, 10, 11, 12, 13, 14]
    values = [float(v.numpy()) for v in only_live if isinstance(v, ek.Variable)]
    assert only_live[0] is leaf2 and values == [5.0, 4.0, 6.0, 7.0, 1.0, 2.0]


def test_trackable_view_children_docstring():
    # tf.train.TrackableView docstring.
    root = _SimpleModule(name="root")
    root.leaf = _SimpleModule(name="leaf")
    children = ek.train.TrackableView(root).children(root)
    assert list(children) == ["a_var", "b_var", "vars", "leaf"]
    assert children["vars"] is root.vars and children["leaf"] is root.leaf
    assert len(ek.train.TrackableView(root).descendants()) == 1 + 4 + 2 + 5


# -- tf.linalg.LinearOperatorTridiag -------------------------------------------------------------


def test_linear_operator_tridiag_docstring():
    # tf.linalg.LinearOperatorTridiag docstring.
    operator = ek.linalg.LinearOperatorTridiag(
        [[3.0, 4.0, 5.0], [1.0, -1.0, 2.0], [6.0, 7.0, 8]], diagonals_format="sequence"
    )
    np.testing.assert_array_equal(operator.to_dense().numpy(), [[1, 3, 0], [7, -1, 4], [0, 8, 2]])
    assert operator.shape == ek.TensorShape([3, 3])
    lad = operator.log_abs_determinant()
    assert lad.shape == () and lad.dtype == ek.float32
    np.testing.assert_allclose(lad.numpy(), 4.3307333)
    diagonals = ek.random.normal(shape=[2, 3, 3, 4])
    operator = ek.linalg.LinearOperatorTridiag(diagonals, diagonals_format="compact")
    assert operator.batch_shape == ek.TensorShape([2, 3])
    assert operator.solve(ek.random.normal(shape=[2, 1, 4, 2])).shape == (2, 3, 4, 2)


def test_linear_operator_tridiag_matches_the_oracle():
    # Against tensorflow 2.21 (same inputs): solve, adjoint solve, matmul, gradients.
    rng = np.random.RandomState(0)
    d = rng.randn(2, 3, 3, 4).astype(np.float32)
    y = rng.randn(2, 1, 4, 2).astype(np.float32)
    op = ek.linalg.LinearOperatorTridiag(d)
    dense = op.to_dense().numpy()
    np.testing.assert_allclose(
        op.solve(y).numpy(), np.linalg.solve(dense, np.broadcast_to(y, (2, 3, 4, 2))), rtol=1e-4
    )
    np.testing.assert_allclose(
        op.solve(y, adjoint=True).numpy(),
        np.linalg.solve(np.swapaxes(dense, -1, -2), np.broadcast_to(y, (2, 3, 4, 2))),
        rtol=1e-4,
    )
    np.testing.assert_allclose(op.matmul(y, adjoint=True).numpy(),
                               np.swapaxes(dense, -1, -2) @ y, rtol=1e-5, atol=1e-6)  # fmt: skip
    np.testing.assert_allclose(op.matvec(y[..., 0]).numpy(), (dense @ y)[..., 0], atol=1e-6)
    np.testing.assert_array_equal(op.adjoint().to_dense().numpy(), np.swapaxes(dense, -1, -2))
    np.testing.assert_allclose(op.trace().numpy(), np.trace(dense, axis1=-2, axis2=-1))
    # "matrix" format: to_dense is the matrix itself (as TF's), products use 3 diagonals.
    m = rng.randn(4, 4)
    op = ek.linalg.LinearOperatorTridiag(m, diagonals_format="matrix")
    np.testing.assert_array_equal(op.to_dense().numpy(), m)
    np.testing.assert_allclose(op.matvec(np.ones(4)).numpy(),
                               np.triu(np.tril(m, 1), -1).sum(axis=1))  # fmt: skip
    dv = ek.Variable(d)
    with ek.GradientTape() as tape:
        s = ek.reduce_sum(ek.linalg.LinearOperatorTridiag(dv).solve(y) ** 2)
    assert tape.gradient(s, dv).shape == (2, 3, 3, 4)
    with pytest.raises(ValueError, match="Diagonals Format must be one of"):
        ek.linalg.LinearOperatorTridiag(d, diagonals_format="banded")
