"""Divergences found by running TensorFlow's guides (random_numbers, graph_optimization,
saved_model, mixed_precision, extension_type) against TF 2.21 / Keras 3.15. Expected values
are those the oracle printed for the same code (noted on each test)."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras


# -- tf.function returning a Variable (random_numbers guide: ``return self.g.state``) --------
def test_a_function_returning_a_variable_returns_its_value_as_a_tensor():
    # TF 2.21: type(f()) is EagerTensor on every call, dict/list leaves too.
    v = ek.Variable([1, 2])

    @ek.function
    def f():
        return {"a": v, "b": [v]}

    for _ in range(3):  # the trace, then replays
        out = f()
        assert type(out["a"]) is ek.Tensor and type(out["b"][0]) is ek.Tensor
        np.testing.assert_array_equal(out["a"].numpy(), [1, 2])


def test_a_returned_variable_is_read_after_the_functions_assignments():
    # TF 2.21 printed 2.0 3.0 4.0, then the gradient 2.0 and an argument returned as 5.0.
    v = ek.Variable(1.0)

    @ek.function
    def step():
        v.assign_add(1.0)
        return v

    assert [float(step()) for _ in range(3)] == [2.0, 3.0, 4.0]
    with ek.GradientTape() as tape:
        y = step() * 2.0
    assert float(tape.gradient(y, v)) == 2.0

    @ek.function
    def identity(x):
        return x

    out = identity(v)
    assert type(out) is ek.Tensor and float(out) == 5.0


# -- tf.config.optimizer (graph_optimization guide) -----------------------------------------
def test_optimizer_experimental_options_are_reported_as_tensorflow_does():
    opt = ek.config.optimizer
    before = opt.get_experimental_options()
    assert before["disable_model_pruning"] is False
    assert before["disable_meta_optimizer"] is False
    opt.set_experimental_options({"constant_folding": False})
    opt.set_experimental_options({"min_graph_nodes": 3, "bogus": True})
    opt.set_experimental_options({})  # an update: nothing changes
    # TF 2.21: keys in RewriterConfig's order, unknown keys ignored
    got = opt.get_experimental_options()
    assert list(got) == [
        "constant_folding",
        *(["debug_stripper"] if "debug_stripper" in got else []),
        "disable_model_pruning",
        "disable_meta_optimizer",
        "min_graph_nodes",
    ]
    assert got["constant_folding"] is False and got["min_graph_nodes"] == 3
    opt.set_experimental_options({"constant_folding": True, "min_graph_nodes": 0})
    assert "min_graph_nodes" not in opt.get_experimental_options()
    assert opt.get_jit() == ""  # TF 2.21's default
    opt.set_jit("autoclustering")
    assert opt.get_jit() == "autoclustering"
    opt.set_jit(False)
    assert opt.get_jit() == ""


def test_debug_stripper_removes_check_numerics_from_functions_only():
    # TF 2.21: with debug_stripper the function returns inf, the eager call still raises.
    opt = ek.config.optimizer

    def body(x):
        ek.debugging.check_numerics(x, "Bad!")
        return x

    inf = ek.constant(float("inf"))
    with pytest.raises(ek.errors.InvalidArgumentError, match="Bad! : Tensor had Inf values"):
        ek.function(body)(inf)
    opt.set_experimental_options({"debug_stripper": True})
    try:
        assert float(ek.function(body)(inf)) == float("inf")
        returned = ek.function(lambda x: ek.debugging.check_numerics(x, "Bad!"))
        assert float(returned(inf)) == float("inf")
        with pytest.raises(ek.errors.InvalidArgumentError):
            ek.debugging.check_numerics(inf, "Bad!")
    finally:
        opt.set_experimental_options({"debug_stripper": False})
    with pytest.raises(ek.errors.InvalidArgumentError):
        ek.function(body)(inf)


# -- DepthwiseConv's kernel (saved_model guide's MobileNet) ----------------------------------
def test_depthwise_conv_kernel_is_named_kernel_as_in_keras_3():
    # Keras 3.15: depthwise_conv2d/kernel; SeparableConv keeps depthwise_kernel.
    layer = keras.layers.DepthwiseConv2D(3)
    layer.build((1, 8, 8, 3))
    assert layer.name.startswith("depthwise_conv2d")  # a suffix once the name is taken
    assert [w.path for w in layer.weights] == [f"{layer.name}/kernel", f"{layer.name}/bias"]
    assert layer.depthwise_kernel is layer.kernel  # tf.keras 2's attribute
    layer1 = keras.layers.DepthwiseConv1D(3, name="dw1")
    layer1.build((1, 8, 3))
    assert layer1.kernel.path == "dw1/kernel" and tuple(layer1.kernel.shape) == (3, 3, 1)
    sep = keras.layers.SeparableConv2D(4, 3, name="sep")
    sep.build((1, 8, 8, 3))
    assert [w.path for w in sep.weights] == [
        "sep/depthwise_kernel",
        "sep/pointwise_kernel",
        "sep/bias",
    ]
    x = np.arange(2 * 5 * 5 * 3, dtype=np.float32).reshape(2, 5, 5, 3) / 10
    layer.kernel.assign(np.ones((3, 3, 3, 1), np.float32))
    y = layer(x).numpy()  # each channel's 3x3 window sum
    np.testing.assert_allclose(y[0, 0, 0], x[0, :3, :3].sum(axis=(0, 1)), rtol=1e-6)


def test_mobilenet_depthwise_weights_are_named_kernel():
    # TF 2.21 / Keras 3.15: MobileNet(weights=None).weights[5].path == "conv_dw_1/kernel"
    model = keras.applications.MobileNet(weights=None, input_shape=(32, 32, 3), alpha=0.25)
    paths = [w.path for w in model.weights]
    assert paths[5] == "conv_dw_1/kernel" and "conv_dw_1/depthwise_kernel" not in paths


# -- Keras 3 reprs and arguments -----------------------------------------------------------
def test_dtype_policy_repr_is_keras_3s():
    # Keras 3.15: <DTypePolicy "mixed_float16">, also through mixed_precision.Policy
    assert repr(keras.mixed_precision.Policy("mixed_float16")) == '<DTypePolicy "mixed_float16">'
    assert repr(keras.DTypePolicy("float32")) == '<DTypePolicy "float32">'


def test_input_with_a_type_spec_raises_type_error_as_keras_3():
    # Keras 3.15: TypeError "Input() got an unexpected keyword argument 'type_spec'"
    with pytest.raises(TypeError, match="unexpected keyword argument 'type_spec'"):
        keras.Input(type_spec=ek.TensorSpec([None, 2], ek.float32))
    assert keras.Input(shape=(2,), type_spec=None).shape.as_list() == [None, 2]


# -- LossScaleOptimizer: Keras 3's scale_loss + apply_gradients (mixed_precision guide) ------
def test_apply_gradients_unscales_after_keras3_scale_loss():
    # Keras 3.15: apply_gradients of the gradients of scale_loss(loss) unscales them, so
    # SGD(0.5) on sum(v * v) takes v to v - 0.5 * 2v = 0 (closed form); the TF 2.x calls
    # (get_scaled_loss, get_unscaled_gradients) keep apply_gradients taking unscaled ones.
    opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.5))
    assert float(opt.dynamic_scale) == 32768.0 and int(opt.step_counter) == 0
    v = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as tape:
        scaled = opt.scale_loss(ek.reduce_sum(v * v))
    grads = tape.gradient(scaled, [v])
    np.testing.assert_array_equal(grads[0].numpy(), [65536.0, 131072.0])
    opt.apply_gradients(zip(grads, [v]))
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0])
    assert int(opt.step_counter) == 1 and int(opt.iterations) == 1

    w = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as tape:
        scaled = opt.get_scaled_loss(ek.reduce_sum(w * w))
    opt.apply_gradients(zip(opt.get_unscaled_gradients(tape.gradient(scaled, [w])), [w]))
    np.testing.assert_array_equal(w.numpy(), [0.0, 0.0])

    u = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as tape:  # scale_loss, then the TF 2.x unscaling: once only
        scaled = opt.scale_loss(ek.reduce_sum(u * u))
    opt.apply_gradients(zip(opt.get_unscaled_gradients(tape.gradient(scaled, [u])), [u]))
    np.testing.assert_array_equal(u.numpy(), [0.0, 0.0])


def test_keras3_loss_scaling_loop_in_a_function_matches_tensorflow():
    # The same code under TF 2.21 / Keras 3.15 printed losses [2.37601, 2.3308, 2.33107],
    # dynamic_scale 32768.0, iterations 3 and sum(|kernel 0|) 82.4779 (float16: to 1e-4).
    rng = np.random.default_rng(0)
    x = rng.random((384, 32), dtype=np.float32)
    y = rng.integers(0, 10, 384)
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        inputs = keras.Input(shape=(32,))
        h = keras.layers.Dense(10)(keras.layers.Dense(16, activation="relu")(inputs))
        model = keras.Model(inputs, keras.layers.Activation("softmax", dtype="float32")(h))
    finally:
        keras.mixed_precision.set_global_policy(None)
    for w in model.weights:
        w.assign(rng.normal(size=tuple(w.shape)).astype(np.float32) * 0.2)
    opt = keras.mixed_precision.LossScaleOptimizer(keras.optimizers.SGD(0.5))
    loss_fn = keras.losses.SparseCategoricalCrossentropy()

    @ek.function
    def step(xb, yb):
        with ek.GradientTape() as tape:
            loss = loss_fn(yb, model(xb))
            scaled = opt.scale_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    losses = [float(step(x[i * 128 : (i + 1) * 128], y[i * 128 : (i + 1) * 128])) for i in range(3)]
    np.testing.assert_allclose(losses, [2.37601, 2.3308, 2.33107], atol=1e-4)
    assert float(opt.dynamic_scale) == 32768.0 and int(opt.iterations) == 3
    assert abs(float(np.abs(model.get_weights()[0]).sum()) - 82.4779) < 2e-3
