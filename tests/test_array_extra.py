"""TensorFlow's array utilities: roll, repeat, meshgrid, sequence_mask, searchsorted,
histogram_fixed_width, unravel_index, space_to_depth/depth_to_space, dynamic_partition,
dynamic_stitch, is_tensor, get_static_value, ensure_shape, shape_n, identity_n and the
tf.*_initializer classes. Values against NumPy and TensorFlow's documented examples,
gradients against finite differences, errors by type and message (TensorFlow's)."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError
rng = np.random.default_rng(0)


# -- utilities --------------------------------------------------------------------------------


def test_is_tensor():
    assert ek.is_tensor(ek.constant(1.0))
    assert ek.is_tensor(ek.Variable(1.0))
    assert ek.is_tensor(ek.ragged.constant([[1], []]))
    assert not ek.is_tensor(np.ones(2))
    assert not ek.is_tensor([1, 2])
    assert not ek.is_tensor(3.0)


def test_get_static_value():
    v = ek.get_static_value(ek.constant([[1, 2]]))
    assert isinstance(v, np.ndarray) and v.dtype == np.int32
    np.testing.assert_array_equal(v, [[1, 2]])
    assert ek.get_static_value(ek.Variable(1.0)) is None  # mutable: no static value
    assert ek.get_static_value([1, 2]) == [1, 2]


def test_ensure_shape():
    x = ek.zeros((2, 3))
    assert ek.ensure_shape(x, [2, 3]).shape == (2, 3)
    assert ek.ensure_shape(x, [None, 3]).shape == (2, 3)
    assert ek.ensure_shape(x, (-1, 3)).shape == (2, 3)
    assert ek.ensure_shape(x, None).shape == (2, 3)
    assert ek.ensure_shape(x, ek.TensorShape((2, 3))).shape == (2, 3)
    with pytest.raises(
        IAE, match=r"Shape of tensor input \[2,3\] is not compatible with expected shape \[\?,4\]"
    ):
        ek.ensure_shape(x, [None, 4])
    with pytest.raises(IAE, match=r"expected shape \[2\]"):
        ek.ensure_shape(x, [2])
    check_gradients(lambda t: ek.ensure_shape(t, [None, 2]) ** 2, rng.normal(size=(3, 2)))


def test_shape_n_identity_n():
    shapes = ek.shape_n([ek.zeros((2, 3)), ek.zeros(4)], out_type=ek.int64)
    assert [s.numpy().tolist() for s in shapes] == [[2, 3], [4]]
    assert shapes[0].dtype == ek.int64
    check_gradients(
        lambda a, b: ek.identity_n([a, b])[0] * ek.identity_n([a, b])[1], np.ones(2), np.ones(2)
    )
    with pytest.raises(TypeError, match="shape_n: input must be a list"):
        ek.shape_n(ek.zeros(2))


# -- meshgrid ---------------------------------------------------------------------------------


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid_matches_numpy(indexing):
    a, b, c = np.arange(2.0), np.arange(3.0) + 10, np.arange(4.0) - 5
    ours = ek.meshgrid(ek.constant(a), ek.constant(b), ek.constant(c), indexing=indexing)
    for o, t in zip(ours, np.meshgrid(a, b, c, indexing=indexing)):
        np.testing.assert_array_equal(o.numpy(), t)
    # TF's doc example (2-D, xy)
    x, y = ek.meshgrid(ek.constant([1, 2, 3]), ek.constant([4, 5, 6]), indexing=indexing)
    ex, ey = np.meshgrid([1, 2, 3], [4, 5, 6], indexing=indexing)
    np.testing.assert_array_equal(x.numpy(), ex)
    np.testing.assert_array_equal(y.numpy(), ey)
    check_gradients(
        lambda p, q: ek.reduce_sum(
            ek.meshgrid(p, q, indexing=indexing)[0] * ek.meshgrid(p, q, indexing=indexing)[1] ** 2
        ),
        a,
        b,
    )


def test_meshgrid_errors():
    assert ek.meshgrid() == []
    with pytest.raises(ValueError, match="must be either 'xy' or 'ij', got 'zz'"):
        ek.meshgrid(ek.constant([1]), indexing="zz")
    with pytest.raises(TypeError, match="'foo' is an invalid keyword argument"):
        ek.meshgrid(ek.constant([1]), foo=1)
    with pytest.raises(TypeError, match="same dtype"):
        ek.meshgrid(ek.constant([1]), ek.constant([1.0]))


# -- roll -------------------------------------------------------------------------------------


def test_roll_matches_numpy():
    x = np.arange(24).reshape(2, 3, 4)
    cases = [(2, 0), (-1, 2), ([1, -2], [0, 2]), ([1, 1], [1, 1]), (7, -1), ([0], [1])]
    for shift, axis in cases:
        np.testing.assert_array_equal(
            ek.roll(ek.constant(x), shift, axis).numpy(), np.roll(x, shift, axis)
        )
    # TF's doc examples
    np.testing.assert_array_equal(
        ek.roll(ek.constant([0, 1, 2, 3, 4]), shift=2, axis=0).numpy(), [3, 4, 0, 1, 2]
    )
    m = ek.constant([[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]])
    np.testing.assert_array_equal(
        ek.roll(m, shift=[1, -2], axis=[0, 1]).numpy(), [[7, 8, 9, 5, 6], [2, 3, 4, 0, 1]]
    )
    np.testing.assert_array_equal(
        ek.roll(m, shift=[2, -3], axis=[1, 1]).numpy(), [[1, 2, 3, 4, 0], [6, 7, 8, 9, 5]]
    )
    assert ek.roll(ek.constant(x), ek.constant([1]), ek.constant([0])).shape == (2, 3, 4)


def test_roll_gradient_and_errors():
    check_gradients(
        lambda t: ek.roll(t, [1, -2], [0, 1]) * ek.constant(np.arange(12.0).reshape(3, 4)),
        rng.normal(size=(3, 4)),
        order=2,
    )
    with pytest.raises(IAE, match="shift and axis must have the same size"):
        ek.roll(ek.range(5), [1, 2], [0])
    with pytest.raises(IAE, match="axis 1 is out of range"):
        ek.roll(ek.range(5), 1, 1)
    with pytest.raises(IAE, match="must be a scalar or a 1-D vector"):
        ek.roll(ek.range(5), [[1]], [[0]])
    with pytest.raises(TypeError, match="shift must be"):
        ek.roll(ek.range(5), 1.5, 0)


# -- repeat -----------------------------------------------------------------------------------


def test_repeat_matches_numpy():
    x = np.arange(6).reshape(2, 3)
    for repeats, axis in [(2, None), (3, 0), ([1, 0, 2], 1), ([2, 1], 0), ([2], 1), (0, 1)]:
        np.testing.assert_array_equal(
            ek.repeat(ek.constant(x), repeats, axis).numpy(), np.repeat(x, repeats, axis)
        )
    # TF's doc examples
    np.testing.assert_array_equal(
        ek.repeat(ek.constant(["a", "b", "c"]), repeats=[3, 0, 2], axis=0).numpy(),
        [b"a", b"a", b"a", b"c", b"c"],
    )
    np.testing.assert_array_equal(ek.repeat(ek.constant(3), repeats=4).numpy(), [3, 3, 3, 3])


def test_repeat_gradient_sums_copies():
    x = rng.normal(size=(3, 4))
    check_gradients(lambda t: ek.repeat(t, [2, 0, 3], axis=0) ** 2, x, order=2)
    check_gradients(lambda t: ek.repeat(t, 3, axis=1) ** 2, x)
    check_gradients(lambda t: ek.sin(ek.repeat(t, 2)), x)
    # closed form: d sum(repeat(x, r)) / dx = r
    t = ek.constant([1.0, 2.0, 3.0])
    with ek.GradientTape() as tape:
        tape.watch(t)
        y = ek.reduce_sum(ek.repeat(t, [4, 0, 2]))
    np.testing.assert_array_equal(tape.gradient(y, t).numpy(), [4.0, 0.0, 2.0])


def test_repeat_errors():
    with pytest.raises(IAE, match=r"repeats has 2 values but axis 0 of shape \(3,\)"):
        ek.repeat(ek.constant([1, 2, 3]), [1, 2], axis=0)
    with pytest.raises(IAE, match="repeats must be non-negative"):
        ek.repeat(ek.constant([1, 2, 3]), -1, axis=0)
    with pytest.raises(IAE, match="axis 2 is out of range"):
        ek.repeat(ek.constant([1, 2, 3]), 1, axis=2)
    with pytest.raises(TypeError, match="repeats must be"):
        ek.repeat(ek.constant([1, 2, 3]), 1.5, axis=0)


# -- sequence_mask ----------------------------------------------------------------------------


def test_sequence_mask():
    # TF's doc examples
    np.testing.assert_array_equal(
        ek.sequence_mask([1, 3, 2], 5).numpy(),
        [
            [True, False, False, False, False],
            [True, True, True, False, False],
            [True, True, False, False, False],
        ],
    )
    np.testing.assert_array_equal(
        ek.sequence_mask([[1, 3], [2, 0]]).numpy(),
        [[[True, False, False], [True, True, True]], [[True, True, False], [False] * 3]],
    )
    lengths = rng.integers(0, 6, size=(3, 4))
    m = ek.sequence_mask(ek.constant(lengths), maxlen=ek.constant(7), dtype=ek.float32)
    assert m.dtype == ek.float32 and m.shape == (3, 4, 7)
    np.testing.assert_array_equal(m.numpy(), (np.arange(7) < lengths[..., None]).astype(np.float32))
    assert ek.sequence_mask(ek.zeros([0], ek.int32)).shape == (0, 0)
    np.testing.assert_array_equal(ek.sequence_mask([1.5, 2.0], 3).numpy(), [[1, 0, 0], [1, 1, 0]])


def test_sequence_mask_errors():
    with pytest.raises(ValueError, match="Argument `maxlen` must be scalar for sequence_mask"):
        ek.sequence_mask([1, 2], [3])
    with pytest.raises(TypeError, match="maxlen must be an integer"):
        ek.sequence_mask([1, 2], 2.5)
    with pytest.raises(TypeError, match="lengths must be integers"):
        ek.sequence_mask(ek.constant([True]))


# -- searchsorted, histogram_fixed_width, unravel_index ---------------------------------------


def test_searchsorted():
    seq = np.sort(rng.integers(0, 20, size=(3, 8)), axis=1)
    vals = rng.integers(-2, 22, size=(3, 5))
    for side in ("left", "right"):
        out = ek.searchsorted(ek.constant(seq), ek.constant(vals), side=side, out_type=ek.int64)
        assert out.dtype == ek.int64
        expected = np.stack([np.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
        np.testing.assert_array_equal(out.numpy(), expected)
    # TF's doc example
    np.testing.assert_array_equal(
        ek.searchsorted(
            ek.constant([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]]),
            ek.constant([[2, 4, 9], [0, 2, 6]]),
        ).numpy(),
        [[1, 2, 2], [0, 1, 5]],
    )
    np.testing.assert_array_equal(
        ek.searchsorted(ek.constant([1.0, 2.0]), ek.constant([1.5])).numpy(), [1]
    )


def test_searchsorted_errors():
    with pytest.raises(
        ValueError, match=r"must be either 'right' or 'left'. Received: `side` = 'mid'"
    ):
        ek.searchsorted(ek.constant([1, 2]), ek.constant([1]), side="mid")
    with pytest.raises(IAE, match="Leading dim_size of both tensors must match"):
        ek.searchsorted(ek.constant([[1, 2], [3, 4]]), ek.constant([[1]]))
    with pytest.raises(TypeError, match="same dtype"):
        ek.searchsorted(ek.constant([1, 2]), ek.constant([1.5]))
    with pytest.raises(IAE, match="searchsorted: out_type must be one of"):  # as TensorFlow
        ek.searchsorted(ek.constant([1, 2]), ek.constant([1]), out_type=ek.float32)


def test_histogram_fixed_width():
    # TF's doc example
    out = ek.histogram_fixed_width(
        ek.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15]), ek.constant([0.0, 5.0]), nbins=5
    )
    np.testing.assert_array_equal(out.numpy(), [2, 1, 1, 0, 2])
    assert out.dtype == ek.int32
    v = rng.normal(size=1000)
    out = ek.histogram_fixed_width(ek.constant(v), [-1.0, 2.0], nbins=7, dtype=ek.int64)
    idx = np.clip(np.floor((v + 1.0) / (3.0 / 7)), 0, 6).astype(int)
    np.testing.assert_array_equal(out.numpy(), np.bincount(idx, minlength=7))
    assert out.dtype == ek.int64
    np.testing.assert_array_equal(
        ek.histogram_fixed_width(ek.constant([1, 2, 3, 9]), ek.constant([0, 10]), nbins=3),
        [3, 0, 1],
    )


def test_histogram_fixed_width_errors():
    with pytest.raises(IAE, match="nbins should be a positive number, but got '0'"):
        ek.histogram_fixed_width(ek.constant([1.0]), ek.constant([0.0, 1.0]), nbins=0)
    with pytest.raises(IAE, match=r"value_range\[0\] < value_range\[1\], but got '\[1, 0\]'"):
        ek.histogram_fixed_width(ek.constant([1.0]), ek.constant([1.0, 0.0]), nbins=2)
    with pytest.raises(TypeError, match="value_range must have the dtype of values"):
        ek.histogram_fixed_width(ek.constant([1.0]), ek.constant([0, 1]))


def test_unravel_index():
    for dims in ([3, 3], [2, 3, 4], [7]):
        flat = rng.integers(0, int(np.prod(dims)), size=6)
        out = ek.unravel_index(ek.constant(flat.astype(np.int64)), dims)
        assert out.dtype == ek.int64 and out.shape == (len(dims), 6)
        np.testing.assert_array_equal(out.numpy(), np.unravel_index(flat, dims))
    np.testing.assert_array_equal(ek.unravel_index(ek.constant(5), [3, 3]).numpy(), [1, 2])
    with pytest.raises(IAE, match="index is out of bound as with dims"):
        ek.unravel_index(ek.constant([9]), [3, 3])
    with pytest.raises(IAE, match="index is out of bound as with dims"):
        ek.unravel_index(ek.constant([-1]), [3, 3])
    with pytest.raises(TypeError, match="indices must be an integer tensor"):
        ek.unravel_index(ek.constant([1.0]), [3, 3])


# -- space_to_depth / depth_to_space ----------------------------------------------------------


def test_space_to_depth_doc_examples():
    x = ek.constant([[[[1], [2]], [[3], [4]]]])
    np.testing.assert_array_equal(ek.space_to_depth(x, 2).numpy(), [[[[1, 2, 3, 4]]]])
    x = ek.constant([[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]]])
    np.testing.assert_array_equal(ek.nn.space_to_depth(x, 2).numpy(), [[[np.arange(1, 13)]]])
    x = ek.constant(
        [
            [
                [[1], [2], [5], [6]],
                [[3], [4], [7], [8]],
                [[9], [10], [13], [14]],
                [[11], [12], [15], [16]],
            ]
        ]
    )
    y = ek.space_to_depth(x, 2)
    np.testing.assert_array_equal(
        y.numpy(), [[[[1, 2, 3, 4], [5, 6, 7, 8]], [[9, 10, 11, 12], [13, 14, 15, 16]]]]
    )
    np.testing.assert_array_equal(ek.nn.depth_to_space(y, 2).numpy(), x.numpy())


def test_space_to_depth_closed_form_and_nchw():
    x = rng.normal(size=(2, 6, 9, 4))
    s = 3
    y = ek.space_to_depth(ek.constant(x), s).numpy()
    # out[b, i, j, (dy*s + dx)*c + k] = x[b, i*s + dy, j*s + dx, k]
    for dy in range(s):
        for dx in range(s):
            np.testing.assert_array_equal(
                y[..., (dy * s + dx) * 4 : (dy * s + dx + 1) * 4], x[:, dy::s, dx::s, :]
            )
    np.testing.assert_array_equal(ek.depth_to_space(ek.constant(y), s).numpy(), x)
    nchw = ek.space_to_depth(ek.constant(x.transpose(0, 3, 1, 2)), s, data_format="NCHW")
    np.testing.assert_array_equal(nchw.numpy(), y.transpose(0, 3, 1, 2))
    back = ek.depth_to_space(nchw, s, data_format="NCHW")
    np.testing.assert_array_equal(back.numpy(), x.transpose(0, 3, 1, 2))


def test_space_to_depth_gradients():
    w = rng.normal(size=(1, 2, 2, 8))
    check_gradients(lambda t: ek.space_to_depth(t, 2) * w, rng.normal(size=(1, 4, 4, 2)), order=2)
    check_gradients(lambda t: ek.depth_to_space(t, 2) ** 2, rng.normal(size=(1, 2, 3, 8)))


def test_space_to_depth_errors():
    with pytest.raises(IAE, match="Value for attr 'block_size' of 1 must be at least minimum 2"):
        ek.space_to_depth(ek.zeros([1, 4, 4, 1]), 1)
    with pytest.raises(
        IAE, match="Image width 4 and height 5 should be divisible by block_size: 2"
    ):
        ek.space_to_depth(ek.zeros([1, 5, 4, 1]), 2)
    with pytest.raises(IAE, match="Input depth dimension 3 should be divisible by: 4"):
        ek.depth_to_space(ek.zeros([1, 2, 2, 3]), 2)
    with pytest.raises(IAE, match="Input rank should be: 4 instead of: 3"):
        ek.depth_to_space(ek.zeros([2, 2, 4]), 2)
    with pytest.raises(ValueError, match="data_format must be 'NHWC' or 'NCHW'"):
        ek.space_to_depth(ek.zeros([1, 4, 4, 1]), 2, data_format="NCHW_VECT_C")


# -- dynamic_partition / dynamic_stitch -------------------------------------------------------


def test_dynamic_partition():
    # TF's doc examples
    out = ek.dynamic_partition(ek.constant([10, 20, 30, 40, 50]), ek.constant([0, 0, 1, 1, 0]), 2)
    assert [t.numpy().tolist() for t in out] == [[10, 20, 50], [30, 40]]
    out = ek.dynamic_partition(ek.constant([[1, 2], [3, 4], [5, 6]]), ek.constant([1, 0, 1]), 3)
    assert [t.numpy().tolist() for t in out] == [[[3, 4]], [[1, 2], [5, 6]], []]
    assert out[2].shape == (0, 2)
    data = rng.normal(size=(2, 3, 4))
    parts = rng.integers(0, 3, size=(2, 3)).astype(np.int32)  # TF takes int32 partitions only
    out = ek.dynamic_partition(ek.constant(data), ek.constant(parts), 3)
    for i in range(3):
        np.testing.assert_array_equal(out[i].numpy(), data[parts == i])


def test_dynamic_partition_gradient():
    parts = np.array([[0, 2, 1], [2, 2, 0]], np.int32)
    ws = [rng.normal(size=(n, 4)) for n in np.bincount(parts.ravel(), minlength=3)]

    def f(t):
        ps = ek.dynamic_partition(t, ek.constant(parts), 3)
        return ek.add_n([ek.reduce_sum(p * w) ** 2 for p, w in zip(ps, ws)])

    check_gradients(f, rng.normal(size=(2, 3, 4)), order=2)


def test_dynamic_partition_errors():
    with pytest.raises(IAE, match=r"partitions\[1\] = 5 is not in \[0, 2\)"):
        ek.dynamic_partition(ek.constant([1, 2]), ek.constant([0, 5]), 2)
    with pytest.raises(IAE, match=r"data.shape must start with partitions.shape"):
        ek.dynamic_partition(ek.constant([1, 2]), ek.constant([0, 1, 1]), 2)
    with pytest.raises(TypeError, match="partitions must be an integer tensor"):
        ek.dynamic_partition(ek.constant([1, 2]), ek.constant([0.0, 1.0]), 2)
    with pytest.raises(ValueError, match="num_partitions must be at least 1"):
        ek.dynamic_partition(ek.constant([1, 2]), ek.constant([0, 0]), 0)


def test_dynamic_stitch_doc_example():
    indices = [ek.constant(6), ek.constant([4, 1]), ek.constant([[5, 2], [0, 3]])]
    data = [
        ek.constant([61, 62]),
        ek.constant([[41, 42], [11, 12]]),
        ek.constant([[[51, 52], [21, 22]], [[1, 2], [31, 32]]]),
    ]
    np.testing.assert_array_equal(
        ek.dynamic_stitch(indices, data).numpy(),
        [[1, 2], [11, 12], [21, 22], [31, 32], [41, 42], [51, 52], [61, 62]],
    )
    # a repeated index: the last slice wins; unnamed rows are zero
    out = ek.dynamic_stitch(
        [ek.constant([0, 4]), ek.constant([4, 1])],
        [ek.constant([1.0, 2.0]), ek.constant([3.0, 4.0])],
    )
    np.testing.assert_array_equal(out.numpy(), [1.0, 4.0, 0.0, 0.0, 3.0])


def test_dynamic_stitch_is_the_inverse_of_partition():
    data = rng.normal(size=(7, 3))
    parts = ek.constant(rng.integers(0, 3, size=7).astype(np.int32))  # TF: int32 partitions
    positions = ek.dynamic_partition(ek.range(7), parts, 3)
    pieces = ek.dynamic_partition(ek.constant(data), parts, 3)
    np.testing.assert_array_equal(ek.dynamic_stitch(positions, pieces).numpy(), data)


def test_dynamic_stitch_gradient():
    i0, i1 = ek.constant([0, 4, 2]), ek.constant([[4, 1], [3, 2]])  # 4 and 2 repeat
    w = rng.normal(size=(5, 2))

    def f(a, b):
        return ek.reduce_sum(ek.dynamic_stitch([i0, i1], [a, b]) ** 2 * w)

    check_gradients(f, rng.normal(size=(3, 2)), rng.normal(size=(2, 2, 2)), order=2)
    a, b = ek.constant(np.ones((3, 2))), ek.constant(np.ones((2, 2, 2)))
    with ek.GradientTape() as tape:
        tape.watch([a, b])
        y = ek.reduce_sum(ek.dynamic_stitch([i0, i1], [a, b]) * w)
    ga, gb = tape.gradient(y, [a, b])
    np.testing.assert_allclose(ga.numpy(), [w[0], [0, 0], [0, 0]])  # 4 and 2 overwritten
    np.testing.assert_allclose(gb.numpy(), [[w[4], w[1]], [w[3], w[2]]])


def test_dynamic_stitch_errors():
    with pytest.raises(IAE, match="same length"):
        ek.dynamic_stitch([ek.constant([0])], [])
    with pytest.raises(IAE, match=r"data\[0\].shape = \(3,\) does not start with"):
        ek.dynamic_stitch([ek.constant([0, 1])], [ek.constant([1, 2, 3])])
    with pytest.raises(TypeError, match="one dtype"):
        ek.dynamic_stitch(
            [ek.constant([0]), ek.constant([1])], [ek.constant([1]), ek.constant([1.0])]
        )
    with pytest.raises(IAE, match="negative index"):
        ek.dynamic_stitch([ek.constant([-1])], [ek.constant([1])])


def test_ops_replay_under_function():
    def f(x, lengths, parts):
        a = ek.roll(x, [1, -1], [0, 1])
        b = ek.repeat(x, [1, 2, 0], axis=0)
        m = ek.sequence_mask(lengths, 4, dtype=x.dtype)
        d = ek.depth_to_space(ek.space_to_depth(ek.reshape(x, [1, 2, 2, 3]), 2), 2)
        p = ek.dynamic_partition(x, parts, 2)
        s = ek.dynamic_stitch(ek.dynamic_partition(ek.range(3), parts, 2), p)
        h = ek.histogram_fixed_width(x, [-1.0, 1.0], nbins=4)
        return a, b, m, d, s, h, ek.searchsorted(ek.constant([[-1.0, 0.0, 1.0]] * 3), x)

    g = ek.function(f)
    for _ in range(3):  # trace, then replays on new values
        args = (
            ek.constant(rng.normal(size=(3, 4)).astype(np.float32)),
            ek.constant(rng.integers(0, 5, size=3).astype(np.int32)),
            ek.constant([0, 1, 0]),
        )
        for ours, eager in zip(g(*args), f(*args)):
            np.testing.assert_array_equal(ours.numpy(), eager.numpy())
    assert g.experimental_get_tracing_count() == 1


# -- tf.*_initializer -------------------------------------------------------------------------


def test_initializers():
    z = ek.zeros_initializer()([2, 3])
    assert z.dtype == ek.float32 and not z.numpy().any()
    o = ek.ones_initializer()([2], dtype=ek.int32)
    np.testing.assert_array_equal(o.numpy(), [1, 1])
    c = ek.constant_initializer([1, 2, 3, 4])([2, 2])
    assert c.dtype == ek.int32
    np.testing.assert_array_equal(c.numpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(
        ek.constant_initializer(3.0)([3], dtype=ek.float64).numpy(), [3.0, 3.0, 3.0]
    )
    with pytest.raises(ValueError, match="3 elements"):
        ek.constant_initializer([1, 2, 3])([2, 2])
    with pytest.raises(TypeError, match="Invalid type for initial value: dict"):
        ek.constant_initializer({1: 2})
    u = ek.random_uniform_initializer(-1.0, 1.0, seed=3)
    a, b = u([1000]), u([1000])
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # a seed gives the same values
    assert a.numpy().min() >= -1 and a.numpy().max() < 1
    assert ek.random_uniform_initializer(0, 10)([5], dtype=ek.int32).dtype == ek.int32
    n = ek.random_normal_initializer(mean=2.0, stddev=0.5, seed=1)([20000]).numpy()
    assert abs(n.mean() - 2.0) < 0.02 and abs(n.std() - 0.5) < 0.02
    layer = ek.keras.layers.Dense(2, kernel_initializer=ek.constant_initializer(0.5))
    np.testing.assert_allclose(layer(ek.ones((1, 3))).numpy(), [[1.5, 1.5]])


def test_space_to_batch_and_back_give_tensorflows_values():
    # TensorFlow 2.21's outputs for the same calls
    x = ek.reshape(ek.range(16.0), [4, 2, 2, 1])
    got = ek.batch_to_space(x, [2, 2], [[0, 0], [0, 0]]).numpy().ravel()
    np.testing.assert_array_equal(got, [0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15])
    one_d = ek.space_to_batch(ek.reshape(ek.range(12.0), [2, 6, 1]), [3], [[0, 0]])
    assert one_d.shape == (6, 2, 1)
    np.testing.assert_array_equal(one_d.numpy().ravel(), [0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11])
    v = ek.reshape(ek.range(2 * 4 * 6 * 3, dtype=ek.float32), [2, 4, 6, 3])
    blocks = ek.space_to_batch_nd(v, [2, 3], [[1, 1], [0, 3]])
    assert blocks.shape == (12, 3, 3, 3)
    assert float(ek.reduce_sum(blocks)) == float(ek.reduce_sum(v))  # only zeros were added
    back = ek.batch_to_space_nd(blocks, [2, 3], [[1, 1], [0, 3]])
    np.testing.assert_array_equal(back.numpy(), v.numpy())


def test_space_to_batch_gradients_and_errors():
    x = np.random.default_rng(0).standard_normal((2, 4, 3, 2))
    check_gradients(lambda t: ek.space_to_batch(t, [2, 2], [[0, 0], [1, 0]]), x)
    check_gradients(lambda t: ek.batch_to_space(t, [2, 1], [[1, 1], [0, 0]]), x)
    with pytest.raises(ek.errors.InvalidArgumentError, match="not a multiple of its block"):
        ek.space_to_batch(ek.zeros([1, 3, 3, 1]), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"paddings must have shape \[2, 2\]"):
        ek.space_to_batch(ek.zeros([1, 4, 4, 1]), [2, 2], [[0, 0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="not a multiple of prod"):
        ek.batch_to_space(ek.zeros([3, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match="exceed spatial dimension"):
        ek.batch_to_space(ek.zeros([4, 1, 1, 1]), [2, 2], [[2, 1], [0, 0]])
