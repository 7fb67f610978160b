"""Differences found by differential fuzzing of control flow and functional ops against
TensorFlow 2.21 (helper fuzz11). Expected values were computed with TensorFlow 2.21's eager
mode (`tf.TensorArray`, `tf.searchsorted`, ...) unless a comment gives a closed form."""

import numpy as np
import pytest

import eagerkernel as ek

IAE = ek.errors.InvalidArgumentError


# -- TensorArray: TensorFlow's eager TensorArray (`_EagerTensorArray`) --------------------------


def test_tensor_array_out_of_range_reads_and_writes_raise_out_of_range_error():
    ta = ek.TensorArray(ek.float32, size=2)
    with pytest.raises(ek.errors.OutOfRangeError, match=r"TensorArray.read: .*index 5.*size is: 2"):
        ta.read(5)
    with pytest.raises(ek.errors.OutOfRangeError, match=r"TensorArray.read: .*negative.*-1"):
        ta.read(-1)
    with pytest.raises(ek.errors.OutOfRangeError, match=r"TensorArray.write: .*not resizeable"):
        ta.write(2, 1.0)
    with pytest.raises(ek.errors.OutOfRangeError, match=r"TensorArray.write: .*negative"):
        ta.write(-1, 1.0)
    with pytest.raises(ek.errors.OutOfRangeError, match=r"TensorArray.write: .*index 2"):
        ta.scatter([2], [1.0])


def test_tensor_array_size_is_required():
    with pytest.raises(ValueError, match=r"TensorArray: Size must be declared"):
        ek.TensorArray(ek.float32)


def test_tensor_array_unwritten_elements_read_as_zeros():
    # TF 2.21: read(1) -> [0., 0.]; stack -> [[1, 2], [0, 0], [0, 0]]
    ta = ek.TensorArray(ek.float32, size=3).write(0, [1.0, 2.0])
    np.testing.assert_array_equal(ta.read(1).numpy(), [0.0, 0.0])
    ta = ek.TensorArray(ek.float32, size=3).write(0, [1.0, 2.0])
    np.testing.assert_array_equal(ta.stack().numpy(), [[1, 2], [0, 0], [0, 0]])
    ta = ek.TensorArray(ek.float32, size=3, element_shape=[2])
    np.testing.assert_array_equal(ta.gather([1]).numpy(), [[0.0, 0.0]])
    with pytest.raises(ValueError, match=r"element shape .* not fully known"):
        ek.TensorArray(ek.float32, size=2, element_shape=[None, 2]).stack()


def test_tensor_array_clear_after_read():
    ta = ek.TensorArray(ek.float32, size=2).write(0, 1.0).write(1, 2.0)
    assert float(ta.read(0)) == 1.0
    with pytest.raises(IAE, match=r"TensorArray.read: Could not read index 0 twice"):
        ta.read(0)
    # TF 2.21: a cleared element stacks as zeros.
    ta = ek.TensorArray(ek.float32, size=2).write(0, 1.0).write(1, 2.0)
    ta.read(0)
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0, 2.0])
    ta = ek.TensorArray(ek.float32, size=2, clear_after_read=False).write(0, 1.0)
    assert float(ta.read(0)) == float(ta.read(0)) == 1.0


def test_tensor_array_write_errors():
    with pytest.raises(ValueError, match=r"TensorArray.write: Incompatible shape .*\(2,\)"):
        ek.TensorArray(ek.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0])
    with pytest.raises(ValueError, match=r"TensorArray.write: Incompatible shape"):
        ek.TensorArray(ek.float32, size=2, element_shape=[3]).write(0, [1.0])
    with pytest.raises(IAE, match=r"TensorArray.write: .*dtype is int32 .* dtype float32"):
        ek.TensorArray(ek.int32, size=2).write(0, 1.5)
    ta = ek.TensorArray(ek.float32, size=2, infer_shape=False).write(0, [1.0]).write(1, [2.0, 3])
    np.testing.assert_array_equal(ta.concat().numpy(), [1.0, 2.0, 3.0])
    assert ta.element_shape.rank is None  # TF: <unknown>


def test_tensor_array_unstack_scatter_gather():
    with pytest.raises(ValueError, match=r"TensorArray.unstack: Cannot unstack 3 tensors"):
        ek.TensorArray(ek.float32, size=2).unstack([1.0, 2.0, 3.0])
    assert int(ek.TensorArray(ek.float32, size=4).unstack([1.0, 2.0, 3.0]).size()) == 3
    ta = ek.TensorArray(ek.float32, size=3).scatter([0, 1, 2], [5.0, 6.0])  # zip, as TF
    np.testing.assert_array_equal(ta.stack().numpy(), [5.0, 6.0, 0.0])
    ta = ek.TensorArray(ek.float32, size=3).unstack([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ta.gather([-1]).numpy(), [3.0])  # TF: Python indexing
    with pytest.raises(IndexError, match=r"TensorArray.gather: index 3"):
        ta.gather([3])


def test_tensor_array_split_and_concat():
    ta = ek.TensorArray(ek.float32, size=2).split([1.0, 2.0, 3.0], [1, 2])
    np.testing.assert_array_equal(ta.read(1).numpy(), [2.0, 3.0])
    with pytest.raises(IAE, match=r"TensorArray.split: Expected sum of lengths"):
        ek.TensorArray(ek.float32, size=2).split([1.0, 2.0, 3.0], [1, 1])
    with pytest.raises(IAE, match=r"TensorArray.split: TensorArray's size is not equal"):
        ek.TensorArray(ek.float32, size=2).split([1.0, 2.0, 3.0], [3])
    with pytest.raises(IAE, match=r"TensorArray.split: Expected lengths to be a vector"):
        ek.TensorArray(ek.float32, size=1).split([1.0], [[1]])
    assert (
        int(ek.TensorArray(ek.float32, size=1, dynamic_size=True).split([1, 2, 3.0], [1, 2]).size())
        == 2
    )
    with pytest.raises(IAE, match=r"TensorArray.concat: Concat saw a scalar shape at index 0"):
        ek.TensorArray(ek.float32, size=2).write(0, 1.0).write(1, 2.0).concat()


def test_tensor_array_identity_flow_and_gradients():
    ta = ek.TensorArray(ek.float32, size=1).write(0, 1.0)
    assert ta.identity() is ta
    assert int(ta.flow) == 0 and ta.flow.dtype == ek.int32
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as t:
        t.watch(x)
        a = ek.TensorArray(ek.float32, size=2, infer_shape=False).split(
            ek.concat([x, x * x], 0), [1, 3]
        )
        y = ek.reduce_sum(a.read(1) * [1.0, 2.0, 3.0])
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [4.0, 13.0])  # TF 2.21


# -- searchsorted: TensorFlow's lower/upper bound with `<`, NaNs included ------------------------


def test_searchsorted_nan_values_and_sequences_follow_tensorflow():
    a = ek.constant([[1.0, 2.0, 3.0]])
    v = ek.constant([[np.nan, 2.0, -np.inf, np.inf]])
    # TF 2.21 values
    np.testing.assert_array_equal(ek.searchsorted(a, v, side="left").numpy(), [[0, 1, 0, 3]])
    np.testing.assert_array_equal(ek.searchsorted(a, v, side="right").numpy(), [[3, 2, 0, 3]])
    a = ek.constant([[1.0, np.nan, 3.0]])
    v = ek.constant([[0.0, 2.0, 4.0, np.nan]])
    np.testing.assert_array_equal(ek.searchsorted(a, v, side="left").numpy(), [[0, 1, 1, 0]])
    np.testing.assert_array_equal(ek.searchsorted(a, v, side="right").numpy(), [[2, 2, 3, 3]])
    out = ek.searchsorted(ek.zeros([2, 0]), ek.ones([2, 3]), out_type=ek.int64)
    assert out.dtype == ek.int64 and out.numpy().tolist() == [[0, 0, 0], [0, 0, 0]]


# -- attribute errors: TensorFlow raises InvalidArgumentError ------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: ek.searchsorted([1, 2], [1], out_type=ek.float32), "searchsorted: out_type"),
        (lambda: ek.unique([1, 2], out_idx=ek.float32), "unique: out_idx"),
        (lambda: ek.unique_with_counts([1, 2], out_idx=ek.float32), "unique_with_counts: out_idx"),
        (
            lambda: ek.histogram_fixed_width([1.0], [0.0, 3.0], dtype=ek.float32),
            "histogram_fixed_width: dtype",
        ),
        (lambda: ek.identity_n([]), "identity_n: input"),
    ],
)
def test_bad_attributes_raise_invalid_argument_error(call, message):
    with pytest.raises(IAE, match=message):
        call()


def test_bincount_per_row_of_no_rows():
    # TF 2.21: shape (0, 4) float32 and (0, 0) int32.
    x = ek.constant(np.zeros((0, 3), np.int32))
    out = ek.math.bincount(x, minlength=9, maxlength=4, dtype=ek.float32, axis=-1)
    assert out.dtype == ek.float32 and tuple(out.shape) == (0, 4)
    assert tuple(ek.math.bincount(x, axis=-1).shape) == (0, 0)


def test_tensor_array_concat_of_one_element_and_gather_of_none():
    # TF 2.21: concat of a single (even scalar) element is that element; gather([]) is
    # TensorFlow's stack of an empty list, float32 of shape (0,).
    ta = ek.TensorArray(ek.int32, size=1).write(0, 3)
    assert int(ta.concat()) == 3
    out = ek.TensorArray(ek.int32, size=1).gather([])
    assert out.dtype == ek.float32 and tuple(out.shape) == (0,)


def test_map_fn_over_no_elements_has_shape_zero_unless_the_signature_gives_one():
    # TF 2.21 (eager): (0,) for fn_output_signature None, a DType or TensorSpec(None);
    # the TensorSpec's shape when it gives one.
    x = ek.zeros([0, 2, 3])
    assert tuple(ek.map_fn(lambda e: e * e, x).shape) == (0,)
    assert tuple(ek.map_fn(ek.reduce_sum, x, fn_output_signature=ek.float32).shape) == (0,)
    spec = ek.TensorSpec([2, 3], ek.float32)
    assert tuple(ek.map_fn(lambda e: e, x, fn_output_signature=spec).shape) == (0, 2, 3)
    out = ek.map_fn(lambda e: ek.cast(e, ek.int32), x, fn_output_signature=ek.int32)
    assert out.dtype == ek.int32 and tuple(out.shape) == (0,)


def test_vectorized_map_over_no_rows_has_fn_result_shapes():
    # TF 2.21 traces fn on a symbolic row: (0, 2, 3), (0,), and fn's dtypes.
    x = ek.zeros([0, 2, 3], ek.float64)
    assert tuple(ek.vectorized_map(lambda e: e * e, x).shape) == (0, 2, 3)
    assert tuple(ek.vectorized_map(ek.reduce_sum, x).shape) == (0,)
    a, b = ek.vectorized_map(lambda t: (t[0] + t[1], ek.cast(t[0], ek.int32)), (x, x))
    assert tuple(a.shape) == tuple(b.shape) == (0, 2, 3)
    assert a.dtype == ek.float64 and b.dtype == ek.int32


def test_dynamic_partition_takes_int32_partition_tensors_only():
    # TF 2.21: InvalidArgumentError for an int64 Tensor; NumPy int64 arrays are converted.
    x = ek.constant([1.0, 2.0])
    with pytest.raises(IAE, match=r"dynamic_partition: partitions must be an int32"):
        ek.dynamic_partition(x, ek.constant([0, 1], ek.int64), 2)
    parts = ek.dynamic_partition(x, np.array([0, 1]), 2)
    assert [p.numpy().tolist() for p in parts] == [[1.0], [2.0]]
