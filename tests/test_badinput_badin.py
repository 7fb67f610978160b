"""Bad input gets TensorFlow's / Keras's exception class and a message naming the op, the
argument and what was received; state is kept. Each case was checked against TensorFlow 2.21
and Keras 3.15 (the class TF raises for the same call)."""

import re

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras

InvalidArgumentError = ek.errors.InvalidArgumentError
c = ek.constant


# -- dtype problems: TF's InvalidArgumentError, also the TypeError eagerkernel raised before ---


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ek.concat([c([1, 2]), c([3.0])], 0), r"concat: .*values\[1\]: float32"),
        (lambda: ek.gather(c([1, 2, 3]), c([1.0])), "gather: indices must be .*float32"),
        (lambda: ek.reduce_any(c([1.0])), "reduce_any: input_tensor must be bool, got float32"),
        (lambda: ek.one_hot(c([1.0]), 3), "one_hot: indices must be integers, got float32"),
        (lambda: ek.reshape(c([1, 2, 3, 4]), [2.0, 2]), r"reshape: shape .*\[2.0, 2\]"),
        (lambda: ek.tile(c([1, 2]), [1.5]), r"tile: multiples .*\[1.5\]"),
        (lambda: ek.linalg.inv(c([[1, 2], [3, 4]])), "inv: input must be .*got int32"),
    ],
)
def test_dtype_errors_are_invalid_argument_and_type_errors(call, match):
    with pytest.raises(InvalidArgumentError, match=match) as info:
        call()
    assert isinstance(info.value, TypeError)


# -- arguments that were truncated or ignored ----------------------------------------------------


def test_reduce_axis_float_is_refused_not_truncated():
    with pytest.raises(TypeError, match=r"reduce_sum: axis must be an int .*got 0.5"):
        ek.reduce_sum(c([[1, 2]]), axis=0.5)
    assert ek.reduce_sum(c([[1, 2]]), axis=np.int64(1)).numpy().tolist() == [3]


def test_one_hot_depth_float_is_refused_not_truncated():
    with pytest.raises(TypeError, match=r"one_hot: depth must be an int, got depth=2.5"):
        ek.one_hot([1], 2.5)
    assert ek.one_hot([1], c(3)).shape == (1, 3)


def test_range_refuses_a_string_dtype():
    with pytest.raises(TypeError, match=r"range: dtype must be an integer or floating.*string"):
        ek.range(3, dtype=ek.string)


def test_batch_drop_remainder_must_be_a_bool():
    with pytest.raises(TypeError, match=r"batch: drop_remainder must be a bool.*'yes'"):
        ek.data.Dataset.range(5).batch(2, drop_remainder="yes")
    ds = ek.data.Dataset.range(5).batch(2, drop_remainder=c(True))
    assert [b.numpy().tolist() for b in ds] == [[0, 1], [2, 3]]


def test_function_input_signature_dict_keys_are_checked():
    spec = {"a": ek.TensorSpec([], ek.float32)}
    f = ek.function(lambda d: d["a"] * 2, input_signature=[spec])
    with pytest.raises(TypeError, match=r"tf.function .*argument 0 .*\['a'\] and \['b'\]"):
        f({"b": c(1.0)})
    assert float(f({"a": c(1.0)})) == 2.0


# -- ValueError -> TF's InvalidArgumentError (a ValueError subclass) -----------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: c([1, 2, 3])[::0], r"getitem: strides\[0\] must be non-zero"),
        (lambda: ek.strided_slice(c([1, 2]), [0], [2], [0]), r"strided_slice: strides\[0\]"),
        (lambda: ek.concat([], 0), "concat: values must be a non-empty list"),
        (lambda: ek.nn.max_pool2d(ek.zeros([1, 3, 3, 1]), 0, 1, "SAME"), "ksize must be pos"),
        (lambda: ek.data.Dataset.range(3).shuffle(0), "shuffle: buffer_size .*buffer_size=0"),
        (lambda: ek.data.Dataset.range(3).prefetch(-5), "prefetch: buffer_size.*=-5"),
        (lambda: ek.data.Dataset.range(3).shard(2, 5), "shard: index .*index=5"),
        (lambda: ek.data.Dataset.range(0, 5, 0), "range: step must not be zero"),
        (
            lambda: ek.data.Dataset.range(3).map(lambda x: x, num_parallel_calls=-5),
            "map: num_parallel_calls .*=-5",
        ),
    ],
)
def test_invalid_arguments_are_invalid_argument_errors(call, match):
    with pytest.raises(InvalidArgumentError, match=match):
        call()


def test_conv2d_channels_not_splitting_into_groups_is_invalid_argument():
    x, w = ek.zeros([1, 3, 3, 2]), ek.zeros([2, 2, 1, 1])  # 2 groups, output depth 1
    with pytest.raises(InvalidArgumentError, match=r"conv2d: input has 2 channels") as info:
        ek.nn.conv2d(x, w, 1, "SAME")
    assert not isinstance(info.value, ek.errors.UnimplementedError)


def test_batch_of_different_shapes_is_invalid_argument():
    sig = ek.TensorSpec([None], ek.int32)
    ds = ek.data.Dataset.from_generator(lambda: iter([[1], [1, 2]]), output_signature=sig)
    with pytest.raises(InvalidArgumentError, match=r"batch: .*shape \(1,\) .*shape \(2,\)"):
        list(ds.batch(2))


def test_convert_to_tensor_dtype_mismatch_is_a_value_error_too():
    with pytest.raises(ValueError, match=r"convert_to_tensor: Tensor has dtype float32.*int32"):
        ek.convert_to_tensor(c(1.5), dtype=ek.int32)


# -- Variables ---------------------------------------------------------------------------------


def test_variable_refuses_a_tensor_of_another_dtype():
    with pytest.raises(ValueError, match=r"Variable: initial_value .*float32.*dtype=int32"):
        ek.Variable(c([1.5]), dtype=ek.int32)  # was silently cast to [1]
    assert ek.Variable(np.array([1.5]), dtype=ek.float32).dtype == ek.float32


def test_keras_weights_still_cast_their_initial_values():
    def init(shape, dtype=None):
        return c(np.ones(shape))  # float64, as Keras's convert_to_tensor casts it

    layer = keras.layers.Dense(2, kernel_initializer=init)
    layer.build((None, 3))
    assert layer.kernel.dtype == ek.float32
    assert keras.Variable(c([1, 2]), dtype="float32").dtype == ek.float32


def test_variable_constraint_and_name_are_checked():
    with pytest.raises(ValueError, match=r"`constraint` must be None or a callable.*=3"):
        ek.Variable(1.0, constraint=3)
    with pytest.raises(ValueError, match=r"`name` must be a string.*name=3"):
        ek.Variable(1.0, name=3)


@pytest.mark.parametrize(("op", "use"), [("+=", "assign_add"), ("-=", "assign_sub"), ("*=", "")])
def test_variable_in_place_operators_raise_and_keep_the_value(op, use):
    v = ek.Variable(2.0)
    w = v
    with pytest.raises(RuntimeError, match=re.escape(f"`variable {op} value`") + f".*{use}"):
        exec(f"w {op} 1.0", {"w": w})
    assert float(v) == 2.0
    t = c(1.0)
    t += 1.0  # a Tensor is immutable: rebinding is fine
    assert float(t) == 2.0


# -- Keras ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: keras.layers.Dense(2, foo=1), r"passed to Dense: \{'foo': 1\}"),
        (lambda: keras.optimizers.SGD(foo=1), r"passed to SGD: \{'foo': 1\}"),
        (lambda: keras.Sequential([3]), r"Sequential.add: only instances .*Received: 3"),
    ],
)
def test_keras_argument_errors_are_value_and_type_errors(call, match):
    with pytest.raises(ValueError, match=match) as info:  # Keras 3
        call()
    assert isinstance(info.value, TypeError)  # tf.keras 2


def test_lambda_needs_a_callable_and_layer_name_a_string():
    with pytest.raises(TypeError, match=r"Lambda: argument `function` must be callable.*=3"):
        keras.layers.Lambda(3)
    with pytest.raises(ValueError, match=r"Dense: argument `name` must be a string.*name=3"):
        keras.layers.Dense(2, name=3)


# -- checkpoints ---------------------------------------------------------------------------------


def test_checkpoint_root_must_be_trackable():
    with pytest.raises(ValueError, match=r"Checkpoint: root=3 cannot be checkpointed"):
        ek.train.Checkpoint(root=3)
    ek.train.Checkpoint(root=ek.Module())


def test_checkpoint_save_under_a_file_is_failed_precondition(tmp_path):
    (tmp_path / "afile").write_text("")
    ckpt = ek.train.Checkpoint(v=ek.Variable(1.0))
    with pytest.raises(ek.errors.FailedPreconditionError, match=r"afile.*is a file, not a dir"):
        ckpt.save(str(tmp_path / "afile" / "ckpt"))
    assert (tmp_path / "afile").read_text() == ""


# -- tf.function retracing -------------------------------------------------------------------


def test_frequent_retracing_logs_tensorflows_warning(caplog):
    @ek.function
    def f(x):
        return x + 1

    with caplog.at_level("WARNING", logger="eagerkernel"):
        for i in range(8):
            f(i)  # a Python int: a new trace per value
    msgs = [r.getMessage() for r in caplog.records if "retracing" in r.getMessage()]
    assert len(msgs) == 2  # at most twice per function, as TensorFlow
    assert msgs[0].startswith("5 out of the last 5 calls to <function ")
    assert "triggered tf.function retracing" in msgs[0] and msgs[1].startswith("6 out of the")


def test_calls_that_reuse_a_trace_do_not_warn(caplog):
    @ek.function
    def f(x):
        return x + 1

    with caplog.at_level("WARNING", logger="eagerkernel"):
        for i in range(30):
            f(i % 3)  # three traces, then cached
        for _ in range(20):
            f(c(1.0))
    assert not [r for r in caplog.records if "retracing" in r.getMessage()]
