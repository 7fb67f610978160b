"""Divergences from TensorFlow found by differential fuzzing of the tf.Variable API, checkpoints
and Keras saving (fuzz12). Expected values were computed with TensorFlow 2.21 (tensorflow-cpu,
Keras 3.15) on the same calls, unless a closed form is given."""

import copy

import numpy as np
import pytest

import eagerkernel as ek

# -- Variable: error classes of assign_add / assign_sub --------------------------------------------


@pytest.mark.parametrize("op", ["assign_add", "assign_sub"])
@pytest.mark.parametrize("delta", [2.0, [1.0, 2.0, 3.0], [[1.0, 2.0]]])
def test_assign_add_shape_mismatch_is_invalid_argument(op, delta):
    # TF: InvalidArgumentError "Cannot update variable with shape [2] using a Tensor with
    # shape [...]" (AssignAddVariableOp); assign itself raises ValueError.
    v = ek.Variable([1.0, 2.0])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"Variable\.{op}.*shape") as info:
        getattr(v, op)(delta)
    assert isinstance(info.value, ValueError)  # as before: InvalidArgumentError is one here
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_assign_shape_mismatch_stays_value_error():
    v = ek.Variable([1.0, 2.0])
    with pytest.raises(ValueError, match=r"Variable\.assign") as info:
        v.assign([1.0, 2.0, 3.0])
    assert not isinstance(info.value, ek.errors.InvalidArgumentError)  # TF: plain ValueError


@pytest.mark.parametrize("op", ["assign_add", "assign_sub"])
def test_assign_add_on_bool_variable_raises(op):
    # TF: InvalidArgumentError "No OpKernel was registered to support Op 'AssignAddVariableOp'
    # ... dtype=DT_BOOL"; we used to compute a logical or (assign_add) or a NumPy TypeError.
    v = ek.Variable([False, True])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"Variable\.{op}.*bool"):
        getattr(v, op)([True, False])
    np.testing.assert_array_equal(v.numpy(), [False, True])


@pytest.mark.parametrize(
    "kwargs",
    [{"aggregation": "mean"}, {"synchronization": 5}],
)
def test_bad_aggregation_or_synchronization_is_value_error(kwargs):
    # TF: ValueError "Invalid variable aggregation mode: mean for variable: None".
    (key,) = kwargs
    with pytest.raises(ValueError, match=key):
        ek.Variable(1.0, **kwargs)


# -- Variable: count_up_to, set_shape, copy --------------------------------------------------------


def test_count_up_to():
    # TF: 0, 1, then OutOfRangeError "Reached limit of 2"; the value stays 2.
    v = ek.Variable(0)
    assert v.count_up_to(2).numpy() == 0
    assert v.count_up_to(2).numpy() == 1
    with pytest.raises(ek.errors.OutOfRangeError, match=r"count_up_to.*limit of 2"):
        v.count_up_to(2)
    assert v.numpy() == 2
    w = ek.Variable(0, dtype=ek.int64)
    got = ek.compat.v1.count_up_to(w, 3)
    assert got.dtype == ek.int64 and got.numpy() == 0 and w.numpy() == 1
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"count_up_to.*float32"):
        ek.Variable(0.0).count_up_to(2)


def test_set_shape_narrows_the_declared_shape():
    # TF: Variable([1., 2.], shape=[None]).set_shape([2]) -> shape (2,); then assigning a
    # [3] value raises ValueError.
    v = ek.Variable([1.0, 2.0], shape=[None])
    v.set_shape([2])
    assert v.shape.as_list() == [2]
    with pytest.raises(ValueError, match=r"Variable\.assign"):
        v.assign([1.0, 2.0, 3.0])
    u = ek.Variable([[1.0, 2.0]], shape=ek.TensorShape(None))
    u.set_shape([None, 2])
    assert u.shape.as_list() == [None, 2]
    u.assign([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="set_shape"):
        u.set_shape([None, 3])
    with pytest.raises(ValueError):  # TF: "Shapes (2,) and (3,) are not compatible"
        ek.Variable([1.0, 2.0]).set_shape([3])


def test_deepcopy_and_copy():
    # TF (eager): copy.deepcopy(v) is a new variable with the same name and trainable flag and
    # a copy of the value; copy.copy(v) is v. Pickling stays refused here (deliberate).
    v = ek.Variable([1.0, 2.0], name="a", trainable=False)
    w = copy.deepcopy(v)
    assert w is not v and w.name == "a:0" and not w.trainable and w.dtype == ek.float32
    w.assign([0.0, 0.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])
    assert copy.copy(v) is v
    both = copy.deepcopy({"x": v, "y": v})
    assert both["x"] is both["y"]
    layer = ek.keras.layers.Dense(2)
    layer.build((None, 3))
    clone = copy.deepcopy(layer)
    assert clone.kernel is not layer.kernel
    np.testing.assert_array_equal(clone.kernel.numpy(), layer.kernel.numpy())


# -- Variable scatters -----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [ek.float32, ek.int32, ek.complex64])
def test_scatter_div_refuses_a_zero_update_for_every_dtype(dtype):
    # TF: InvalidArgumentError "updates must not contain 0" (ResourceScatterDiv) for float and
    # complex variables too; we used to divide floats by zero (inf).
    v = ek.Variable(ek.constant([1, 2], dtype))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"scatter_div.*contain 0"):
        v.scatter_div(ek.IndexedSlices(ek.constant([0], dtype), ek.constant([0])))
    np.testing.assert_array_equal(v.numpy(), np.array([1, 2]))
    with pytest.raises(ek.errors.InvalidArgumentError, match="scatter_div"):
        ek.compat.v1.scatter_div(ek.Variable([1.0, 2.0]), [0], [0.0])


def test_scatter_nd_on_a_scalar_or_empty_variable_or_with_zero_depth_indices():
    # TF: "Output must be at least 1-D, got shape: []" for a scalar; "Indices and updates
    # specified for empty output" for index depth 0 or an empty variable (with >= 1 index);
    # no indices at all is a no-op. We used to raise NumPy's reshape ValueError.
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"scatter_nd_update.*scalar"):
        ek.Variable(5.0).scatter_nd_update(ek.zeros([1, 0], ek.int32), [3.0])
    v = ek.Variable([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"scatter_nd_add.*empty output"):
        v.scatter_nd_add(ek.zeros([2, 0], ek.int32), [[1.0, 1.0], [1.0, 1.0]])
    empty = ek.Variable(ek.zeros([3, 0]))
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"scatter_nd_max.*empty output"):
        empty.scatter_nd_max([[1]], ek.zeros([1, 0]))
    assert empty.scatter_nd_add(ek.zeros([0, 1], ek.int32), ek.zeros([0, 0])).shape == (3, 0)


@pytest.mark.parametrize(
    "method", ["scatter_max", "scatter_min", "scatter_nd_max", "scatter_nd_min"]
)
def test_scatter_max_min_refuse_complex(method):
    # TF: InvalidArgumentError "No OpKernel was registered to support Op 'ResourceScatterMax'
    # ... T=DT_COMPLEX64"; we used to compare complex numbers by their real part.
    v = ek.Variable(ek.constant([1, 2], ek.complex64))
    update = ek.constant([3], ek.complex64)
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{method}.*complex64"):
        if "nd" in method:
            getattr(v, method)([[0]], update)
        else:
            getattr(v, method)(ek.IndexedSlices(update, ek.constant([0])))
    np.testing.assert_array_equal(v.numpy(), [1, 2])


def test_gather_nd_of_scalar_params_is_invalid_argument():
    # TF: InvalidArgumentError "params must be at least a vector" (GatherNd, ResourceGatherNd)
    # for any indices; we used to repeat the scalar.
    for indices in (ek.zeros([3, 0], ek.int32), ek.zeros([0], ek.int32)):
        with pytest.raises(ek.errors.InvalidArgumentError, match=r"gather_nd.*params"):
            ek.gather_nd(ek.constant(2.0), indices)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"gather_nd.*params"):
        ek.Variable(2).gather_nd([[]])
    # TF: a vector with depth-0 indices repeats it: [[2.], [2.], [2.]]
    got = ek.gather_nd(ek.constant([2.0]), ek.zeros([3, 0], ek.int32))
    np.testing.assert_array_equal(got.numpy(), [[2.0], [2.0], [2.0]])


# -- Checkpoint --------------------------------------------------------------------------------


def test_checkpoint_with_a_variable_root(tmp_path):
    # TF: tf.train.Checkpoint(v) saves v under the empty object path; list_variables gives
    # ['/.ATTRIBUTES/VARIABLE_VALUE', '_CHECKPOINTABLE_OBJECT_GRAPH',
    # 'save_counter/.ATTRIBUTES/VARIABLE_VALUE'] and restore brings 3.0 back. We used to drop v.
    v = ek.Variable(3.0)
    ckpt = ek.train.Checkpoint(v)
    path = ckpt.save(str(tmp_path / "ck"))
    assert [n for n, _ in ek.train.list_variables(path)] == [
        "/.ATTRIBUTES/VARIABLE_VALUE",
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
    ]
    v.assign(0.0)
    ckpt.restore(path).assert_consumed()
    assert v.numpy() == 3.0
    w = ek.Variable(1.0)
    ek.train.Checkpoint(w).restore(path).assert_consumed()
    assert w.numpy() == 3.0


def test_load_variable(tmp_path):
    # TF: [[1., 2.]] float32, and save_counter 1 (int64); a missing key is NotFoundError.
    ckpt = ek.train.Checkpoint(v=ek.Variable([[1.0, 2.0]]))
    path = ckpt.save(str(tmp_path / "ck"))
    got = ek.train.load_variable(path, "v/.ATTRIBUTES/VARIABLE_VALUE")
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, [[1.0, 2.0]])
    counter = ek.train.load_variable(str(tmp_path), "save_counter/.ATTRIBUTES/VARIABLE_VALUE")
    assert counter.dtype == np.int64 and counter == 1
    with pytest.raises(ek.errors.NotFoundError, match="nope"):
        ek.train.load_variable(path, "nope")


def test_checkpoint_options(tmp_path):
    # TF: save/restore/write/read and CheckpointManager.save take options=; an async save is
    # finished by sync(); an unknown keyword is a TypeError.
    v = ek.Variable(2.0)
    ckpt = ek.train.Checkpoint(v=v)
    options = ek.train.CheckpointOptions(experimental_io_device="/job:localhost")
    path = ckpt.save(str(tmp_path / "ck"), options=options)
    v.assign(0.0)
    ckpt.restore(path, options=options).assert_consumed()
    assert v.numpy() == 2.0
    asynchronous = ek.train.CheckpointOptions(enable_async=True)
    assert ckpt.write(str(tmp_path / "w"), options=asynchronous).endswith("w")
    ckpt.sync()
    ckpt.read(str(tmp_path / "w"), options=asynchronous).assert_consumed()
    manager = ek.train.CheckpointManager(ckpt, str(tmp_path / "m"), max_to_keep=1)
    assert manager.save(options=options).endswith("ckpt-2")
    with pytest.raises(TypeError):
        ek.train.CheckpointOptions(foo=1)
    with pytest.raises(NotImplementedError, match="experimental_skip_slot_variables"):
        ckpt.restore(
            path, options=ek.train.CheckpointOptions(experimental_skip_slot_variables=True)
        )


# -- Keras saving ----------------------------------------------------------------------------------


def test_register_class_without_get_config_is_value_error():
    # Keras 2 and 3: ValueError "Cannot register a class that does not have a get_config()
    # method."
    with pytest.raises(ValueError, match="get_config"):

        @ek.keras.saving.register_keras_serializable(package="fuzz12")
        class NoConfig:
            pass


def test_assert_nontrivial_match_before_the_model_is_built(tmp_path):
    # TF: restoring into an unbuilt Sequential, assert_existing_objects_matched and
    # assert_nontrivial_match pass (the model object matched), assert_consumed raises; after
    # build() all three pass. We used to fail assert_nontrivial_match until the build.
    model = ek.keras.Sequential([ek.keras.layers.Dense(2)])
    model.build((None, 3))
    path = ek.train.Checkpoint(model=model).save(str(tmp_path / "ck"))
    later = ek.keras.Sequential([ek.keras.layers.Dense(2)])
    status = ek.train.Checkpoint(model=later).restore(path)
    status.assert_existing_objects_matched().assert_nontrivial_match()
    with pytest.raises(AssertionError):
        status.assert_consumed()
    later.build((None, 3))
    status.assert_consumed()
    np.testing.assert_array_equal(later.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())
    other = ek.train.Checkpoint(unrelated=ek.Module())  # only the root (and counter) match
    with pytest.raises(AssertionError, match="matched no object"):
        other.restore(path).expect_partial().assert_nontrivial_match()
