"""keras-io vision examples (integrated_gradients ... cct) run on eagerkernel: the divergences
from TensorFlow 2.21 + Keras 3.15 found by running them, each pinned here with values computed
by that oracle."""

import warnings

import numpy as np

from eagerkernel import keras


def test_compiled_metrics_update_state_updates_the_loss_tracker_with_y_pred():
    # keras-io's knowledge_distillation calls self.compiled_metrics.update_state(y, y_pred) in a
    # custom train_step. Keras 3's shim updates every tracker in model.metrics: the loss
    # tracker (a Mean) with y_pred alone, so "loss" logs mean(y_pred); oracle: 1.0 weighted by
    # [1, 0], 2.0 unweighted, and a UserWarning.
    inputs = keras.Input((2,))
    model = keras.Model(inputs, keras.layers.Dense(2, kernel_initializer="identity")(inputs))
    model.compile(loss="mse", metrics=["mae"], weighted_metrics=["mse"])
    y, y_pred = np.zeros((2, 2), np.float32), np.array([[1.0, 1.0], [3.0, 3.0]], np.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.compiled_metrics.update_state(y, y_pred, sample_weight=np.array([1.0, 0.0]))
    assert any("compiled_metrics()` is deprecated" in str(w.message) for w in caught)
    logs = {m.name: float(m.result()) for m in model.metrics}
    assert logs == {"loss": 1.0, "mae": 2.0, "mse": 1.0}
    model.reset_metrics()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.compiled_metrics.update_state(y, y_pred)
    assert {m.name: float(m.result()) for m in model.metrics} == {
        "loss": 2.0,
        "mae": 2.0,
        "mse": 5.0,
    }


def test_xla_dynamic_update_slice_clamps_its_start_like_xla():
    # keras-io's forwardforward: `from tensorflow.compiler.tf2xla.python import xla` and
    # xla.dynamic_update_slice(X_zeros, max_sample, [y_sample]). Values from the oracle
    # (TF 2.21): a start of 4 for a 2-long update in a 5-long operand is clamped to 3.
    import eagerkernel as ek
    from eagerkernel.compiler.tf2xla.python import xla

    out = xla.dynamic_update_slice(ek.zeros([5]), ek.ones([2]), [4])
    np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0, 1.0, 1.0])
    x = np.arange(12.0).reshape(3, 4)
    out = xla.dynamic_update_slice(x, np.full((2, 2), 7.0), [ek.constant(1), 5])
    np.testing.assert_array_equal(out.numpy(), [[0, 1, 2, 3], [4, 5, 7, 7], [8, 9, 7, 7]])
    zeros = ek.zeros([10], "float64")
    out = xla.dynamic_update_slice(zeros, ek.constant([0.5], "float64"), [ek.constant(3)])
    assert out.dtype == ek.float64 and out.numpy().tolist() == [0, 0, 0, 0.5] + [0] * 6
    np.testing.assert_array_equal(xla.dynamic_slice(ek.range(5), [4], [2]).numpy(), [3, 4])
    np.testing.assert_array_equal(
        xla.dynamic_slice(x, ek.constant([2, 1]), [2, 3]).numpy(), [[5, 6, 7], [9, 10, 11]]
    )


def test_xla_dynamic_update_slice_is_differentiable():
    # TF has no gradient for XlaDynamicUpdateSlice; here the operand gets the cotangent outside
    # the block and the update the cotangent inside it (closed form).
    import eagerkernel as ek
    from eagerkernel.compiler.tf2xla.python import xla

    x, u = ek.Variable(np.arange(12.0).reshape(3, 4)), ek.Variable(np.ones((2, 2)))
    weights = np.arange(12.0).reshape(3, 4)
    with ek.GradientTape() as tape:
        s = ek.reduce_sum(xla.dynamic_update_slice(x, u, [1, 2]) * weights)
    gx, gu = tape.gradient(s, [x, u])
    expected = weights.copy()
    expected[1:, 2:] = 0
    np.testing.assert_array_equal(gx.numpy(), expected)
    np.testing.assert_array_equal(gu.numpy(), [[6, 7], [10, 11]])


def test_model_layers_leave_out_keras_ops_and_preprocess_input_steps():
    # keras-io's siamese_network: Model(inputs, DistanceLayer()(embedding(
    # resnet.preprocess_input(x)), ...)) has 5 layers in Keras 3 (3 Inputs, the embedding,
    # the DistanceLayer): keras.ops calls and preprocess_input's steps are operations, not
    # layers. Oracle: layers == [InputLayer, InputLayer], 7+ operations.
    from eagerkernel.keras.applications import imagenet_utils, resnet

    a, b = keras.Input((2, 2, 3), name="a"), keras.Input((2, 2, 3), name="b")
    z = keras.ops.square(keras.ops.add(resnet.preprocess_input(a), b) * 2.0)
    model = keras.Model([a, b], z)
    assert [type(la).__name__ for la in model.layers] == ["InputLayer", "InputLayer"]
    assert len(model.operations) > 2
    # Values from the oracle (Keras 3.15) for pixel [0, 0, 1] of arange(24).reshape(2,2,2,3)*10.
    x = np.arange(24, dtype="float32").reshape(2, 2, 2, 3) * 10
    expected = {
        "caffe": [-53.939, -76.779, -93.68],
        "torch": [-1.6042, -1.3354, -0.933],
        "tf": [-0.7647, -0.6863, -0.6078],
    }
    for mode, want in expected.items():
        inputs = keras.Input((2, 2, 3))
        m = keras.Model(inputs, imagenet_utils.preprocess_input(inputs, mode=mode))
        assert len(m.layers) == 1
        np.testing.assert_allclose(np.asarray(m(x))[0, 0, 1], want, atol=1e-4)


def test_a_model_with_preprocess_input_saves_and_loads(tmp_path):
    from eagerkernel.keras.applications import resnet

    inputs = keras.Input((2, 2, 3), dtype="uint8")
    model = keras.Model(inputs, resnet.preprocess_input(inputs))
    x = (np.arange(24).reshape(2, 2, 2, 3) * 10).astype("uint8")
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    # float32 (Keras 3.15 gives uint8 wrapped values here; the float result is the documented
    # one: BGR minus the ImageNet means).
    np.testing.assert_allclose(
        np.asarray(loaded(x))[0, 0, 1], [-53.939, -76.779, -93.68], atol=1e-4
    )


def test_activity_regularization_is_divided_by_the_batch_size():
    # keras-io's pointnet: Dense(activity_regularizer=OrthogonalRegularizer(...)); Keras 3
    # divides each activity penalty by the output's batch size (layer.py, divide_no_nan).
    # Oracle values for x = (arange(12).reshape(3, 4) - 5) / 4.
    x = (np.arange(12, dtype="float32").reshape(3, 4) - 5) / 4
    layer = keras.layers.ActivityRegularization(l1=0.1, l2=0.01)
    layer(x)
    np.testing.assert_allclose([float(v) for v in layer.losses], [0.33041668], rtol=1e-6)
    dense = keras.layers.Dense(2, kernel_initializer="ones", activity_regularizer="l2")
    dense(x)
    np.testing.assert_allclose([float(v) for v in dense.losses], [0.21833332], rtol=1e-6)
    empty = keras.layers.Dense(2, kernel_initializer="ones", activity_regularizer="l2")
    empty(x[:0])
    assert [float(v) for v in empty.losses] == [0.0]
    model = keras.Sequential([keras.Input((4,)), keras.layers.ActivityRegularization(l2=0.5)])
    model(x)
    np.testing.assert_allclose([float(v) for v in model.losses], [1.52083337], rtol=1e-6)


def test_image_dataset_from_directory_without_labels_lists_every_file(tmp_path, capsys):
    # keras-io's super_resolution_sub_pixel: label_mode=None. Keras 3 then indexes with
    # labels=None: it prints "Found 3 files." (no classes) and takes the files under the root
    # too, not only those in class subdirectories.
    from PIL import Image

    (tmp_path / "a").mkdir()
    for name in ("a/0.png", "a/1.png", "2.png"):
        Image.fromarray(np.zeros((4, 4, 3), np.uint8)).save(tmp_path / name)
    ds = keras.utils.image_dataset_from_directory(
        tmp_path, image_size=(4, 4), label_mode=None, shuffle=False, batch_size=8
    )
    assert capsys.readouterr().out.splitlines()[0] == "Found 3 files."
    assert tuple(next(iter(ds)).shape) == (3, 4, 4, 3)


def test_embedding_refuses_a_tensor_dim_with_keras_3s_message():
    # keras-io's cct (tf.keras version): Embedding(input_dim=tf.shape(x)[1], ...). Keras 3.15:
    # "`input_dim` must be a positive integer. Received: input_dim=64 (of type EagerTensor)."
    import pytest

    import eagerkernel as ek

    with pytest.raises(ValueError, match=r"`input_dim` must be a positive integer\. Received: "):
        keras.layers.Embedding(input_dim=ek.constant(64), output_dim=8)
    with pytest.raises(ValueError, match=r"output_dim=0 \(of type int\)"):
        keras.layers.Embedding(input_dim=4, output_dim=0)
    assert keras.layers.Embedding(np.int64(4), 2).input_dim == 4


def test_a_sequential_used_as_a_layer_gives_its_outer_call_as_output():
    # keras-io's cct: data_augmentation = keras.Sequential([...]) called on the model's Input;
    # Keras 3's Sequential.output/input are those of that first call (oracle: `is` holds and
    # Model(x, seq.output) builds), so probing models over layer outputs connect.
    seq = keras.Sequential([keras.layers.Dense(2, kernel_initializer="ones")])
    x = keras.Input((3,))
    y = seq(x)
    assert seq.output is y and seq.input is x
    probe = keras.Model(x, seq.output)
    np.testing.assert_allclose(probe(np.ones((1, 3), np.float32)).numpy(), [[3.0, 3.0]])
    built = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    assert tuple(built.output.shape) == (None, 2)  # never called: its own output, tf.keras 2
    x2 = keras.Input((3,))
    y2 = built(x2)
    assert built.output is y2 and built.input is x2
