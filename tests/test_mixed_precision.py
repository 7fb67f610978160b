"""Keras mixed precision: dtype policies, autocasting layers, LossScaleOptimizer, fit."""

import numpy as np
import pytest

import eagerkernel as ek

layers = ek.keras.layers
mixed_precision = ek.keras.mixed_precision


@pytest.fixture(autouse=True)
def _float32_after():
    yield
    mixed_precision.set_global_policy(None)


# -- policies ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, compute, variable",
    [
        ("float32", "float32", "float32"),
        ("float64", "float64", "float64"),
        ("float16", "float16", "float16"),
        ("mixed_float16", "float16", "float32"),
    ],
)
def test_policy_dtypes(name, compute, variable):
    policy = mixed_precision.Policy(name)
    assert (policy.name, policy.compute_dtype, policy.variable_dtype) == (name, compute, variable)
    assert repr(policy) == f'<DTypePolicy "{name}">'  # Keras 3.15's repr
    assert mixed_precision.Policy.from_config(policy.get_config()) == policy


@pytest.mark.parametrize("name", ["mixed_float32", "float", "", "Float32", "f4"])
def test_bad_policy_name_raises_value_error_naming_it(name):
    with pytest.raises(
        ValueError, match=r"Cannot convert value .* to a mixed precision Policy"
    ) as e:
        mixed_precision.Policy(name)
    assert f"Received: name={name!r}" in str(e.value)


def test_policy_type_errors_and_bfloat16():
    with pytest.raises(TypeError, match=r"not a DType\. Instead, pass DType\.name"):
        mixed_precision.Policy(ek.float32)
    with pytest.raises(TypeError, match="'name' must be a string"):
        mixed_precision.Policy(16)
    for name in ("bfloat16", "mixed_bfloat16"):
        with pytest.raises(NotImplementedError, match=f"Policy '{name}'.*no bfloat16"):
            mixed_precision.Policy(name)


def test_global_policy_set_and_reset():
    assert mixed_precision.global_policy() == mixed_precision.Policy("float32")
    mixed_precision.set_global_policy("mixed_float16")
    assert repr(mixed_precision.global_policy()) == '<DTypePolicy "mixed_float16">'
    assert layers.Dense(2).dtype_policy.name == "mixed_float16"
    policy = mixed_precision.Policy("float64")
    mixed_precision.set_global_policy(policy)
    assert mixed_precision.global_policy() is policy
    mixed_precision.set_global_policy(None)
    assert mixed_precision.global_policy().name == "float32"
    with pytest.raises(ValueError, match=r"floating-point policies.*got policy: int32"):
        mixed_precision.set_global_policy("int32")
    with pytest.raises(ValueError, match="Received: name='mixed'"):
        mixed_precision.set_global_policy("mixed")
    with pytest.raises(TypeError, match="Received: policy=3"):
        mixed_precision.set_global_policy(3)
    assert mixed_precision.global_policy().name == "float32"  # failed calls changed nothing


def test_tensorflow_and_keras3_names():
    from eagerkernel.keras import mixed_precision as imported

    assert imported is ek.keras.mixed_precision
    assert mixed_precision.DTypePolicy is mixed_precision.Policy
    assert mixed_precision.dtype_policy is mixed_precision.global_policy
    assert mixed_precision.set_dtype_policy is mixed_precision.set_global_policy
    assert ek.keras.optimizers.LossScaleOptimizer is mixed_precision.LossScaleOptimizer


# -- layers -----------------------------------------------------------------------------------


def test_dense_under_mixed_float16():
    mixed_precision.set_global_policy("mixed_float16")
    dense = layers.Dense(3)
    y = dense(ek.ones((2, 4)))
    assert y.dtype == ek.float16
    assert dense.kernel.dtype == ek.float32 and dense.bias.dtype == ek.float32
    assert (dense.dtype, dense.compute_dtype, dense.variable_dtype) == (
        "float32",
        "float16",
        "float32",
    )
    assert isinstance(dense.kernel, ek.Variable)  # the cast read is undone after the call
    expected = np.ones((2, 4), np.float16) @ dense.kernel.numpy().astype(np.float16)
    np.testing.assert_array_equal(y.numpy(), expected)
    out = layers.Activation("softmax", dtype="float32")(y)
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy().sum(axis=1), 1.0, rtol=1e-6)


def test_layer_dtype_argument_forms():
    assert layers.Dense(2, dtype="mixed_float16").dtype_policy.name == "mixed_float16"
    policy = mixed_precision.Policy("mixed_float16")
    assert layers.Dense(2, dtype=policy).dtype_policy is policy
    d64 = layers.Dense(2, dtype=ek.float64)
    assert d64.dtype_policy.name == "float64" and d64.dtype == "float64"
    assert d64(ek.ones((1, 3))).dtype == ek.float64
    assert layers.Dense(2, dtype="double").dtype_policy.name == "float64"  # as_dtype spellings
    half = layers.Dense(2, dtype="float16")
    assert half(ek.ones((1, 3))).dtype == ek.float16 and half.kernel.dtype == ek.float16
    with pytest.raises(ValueError, match="Received: name='mixed_float8'"):
        layers.Dense(2, dtype="mixed_float8")
    with pytest.raises(TypeError, match="autocast must be True or False"):
        layers.Dense(2, autocast="no")


def test_functional_model_dtypes_follow_the_guide():
    mixed_precision.set_global_policy("mixed_float16")
    inputs = ek.keras.Input(shape=(6,))
    dense1 = layers.Dense(5, activation="relu", name="dense_1")
    x = dense1(inputs)
    assert x.dtype.name == "float16" and dense1.kernel.dtype.name == "float32"
    assert str(dense1.dtype_policy) == '<DTypePolicy "mixed_float16">'
    wrong = layers.Dense(3, activation="softmax")(x)
    assert wrong.dtype.name == "float16"
    logits = layers.Dense(3, name="dense_logits")(x)
    outputs = layers.Activation("softmax", dtype="float32", name="predictions")(logits)
    assert outputs.dtype.name == "float32"
    model = ek.keras.Model(inputs, outputs)
    y = model(np.random.default_rng(0).normal(size=(4, 6)).astype(np.float32))
    assert y.dtype == ek.float32
    assert all(v.dtype == ek.float32 for v in model.trainable_variables)


def test_autocast_false_keeps_inputs_and_weights():
    mixed_precision.set_global_policy("mixed_float16")

    class Gain(layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w

    assert Gain()(ek.ones((2, 3))).dtype == ek.float16
    assert Gain(autocast=False)(ek.ones((2, 3))).dtype == ek.float32
    with pytest.raises(TypeError, match="same dtype"):  # float64 input, float32 weight
        Gain(autocast=False)(ek.constant(np.ones((2, 3))))


def test_add_weight_autocast_false_stays_float32():
    mixed_precision.set_global_policy("mixed_float16")
    seen = {}

    class Mixed(layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight("a", shape=(), initializer="ones")
            self.b = self.add_weight("b", shape=(), initializer="ones", autocast=False)

        def call(self, x):
            seen["a"], seen["b"] = self.a.dtype, self.b.dtype
            return x * self.a

    layer = Mixed()
    layer(ek.ones((2,)))
    assert seen == {"a": ek.float16, "b": ek.float32}
    assert isinstance(layer.a, ek.Variable) and layer.a.dtype == ek.float32


_X4 = np.random.default_rng(5).random((2, 6, 6, 3)).astype(np.float32)
_X3 = np.random.default_rng(6).random((2, 5, 4)).astype(np.float32)


@pytest.mark.parametrize(
    "make, x",
    [
        (lambda: layers.Conv2D(4, 3), _X4),
        (lambda: layers.SeparableConv2D(4, 3), _X4),
        (lambda: layers.LSTM(3), _X3),
        (lambda: layers.GRU(3, return_sequences=True), _X3),
        (lambda: layers.RNN(layers.LSTMCell(3)), _X3),
        (lambda: layers.Bidirectional(layers.SimpleRNN(2)), _X3),
        (lambda: layers.Embedding(5, 3), np.array([[1, 2], [4, 0]])),
        (lambda: layers.LayerNormalization(), _X3),
        (lambda: layers.EinsumDense("abc,cd->abd", output_shape=(None, 3)), _X3),
        (lambda: layers.TimeDistributed(layers.Dense(2)), _X3),
    ],
)
def test_layers_autocast_and_train_float32_weights(make, x):
    mixed_precision.set_global_policy("mixed_float16")
    layer = make()
    with ek.GradientTape() as tape:
        y = layer(x, training=True)
        loss = ek.reduce_sum(ek.cast(y, ek.float32))
    assert y.dtype == ek.float16
    assert layer.variables and all(v.dtype == ek.float32 for v in layer.variables)
    grads = tape.gradient(loss, layer.trainable_variables)
    assert all(g is not None and g.dtype == ek.float32 for g in grads)
    assert all(isinstance(v, ek.Variable) for v in vars(layer).values() if isinstance(v, ek.Tensor))


def test_multi_head_attention_under_mixed_float16():
    mixed_precision.set_global_policy("mixed_float16")
    mha = layers.MultiHeadAttention(2, 4)
    with ek.GradientTape() as tape:
        y = mha(_X3, _X3)
        loss = ek.reduce_sum(ek.cast(y, ek.float32))
    assert y.dtype == ek.float16
    grads = tape.gradient(loss, mha.trainable_variables)
    assert grads and all(g.dtype == ek.float32 for g in grads)


def _mlp(seed, dtype=None):
    ek.keras.utils.set_random_seed(seed)
    return ek.keras.Sequential(
        [
            layers.Dense(16, activation="tanh", dtype=dtype),
            layers.Dense(4, dtype=dtype),
            layers.Activation("linear", dtype="float32"),
        ]
    )


def test_mixed_gradients_match_float32_within_float16_tolerance():
    x = np.random.default_rng(1).normal(size=(8, 5)).astype(np.float32)
    y = np.random.default_rng(2).normal(size=(8, 4)).astype(np.float32)
    grads = {}
    for dtype in ("float32", "mixed_float16"):
        model = _mlp(3, dtype)
        model(x[:1])
        if dtype == "float32":
            weights = model.get_weights()
        else:
            model.set_weights(weights)
        with ek.GradientTape() as tape:
            loss = ek.reduce_mean(ek.square(model(x) - y))
        assert loss.dtype == ek.float32
        grads[dtype] = tape.gradient(loss, model.trainable_variables)
    for g32, g16 in zip(grads["float32"], grads["mixed_float16"]):
        assert g16.dtype == ek.float32  # the cast's VJP brings them back to the variable dtype
        np.testing.assert_allclose(g16.numpy(), g32.numpy(), rtol=2e-2, atol=2e-3)


def test_batch_normalization_keeps_float32_statistics():
    mixed_precision.set_global_policy("mixed_float16")
    bn = layers.BatchNormalization(momentum=0.5)
    x = np.random.default_rng(0).normal(3.0, 2.0, size=(64, 3)).astype(np.float32)
    y = bn(x, training=True)
    assert y.dtype == ek.float16
    for v in (bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance):
        assert v.dtype == ek.float32
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * x.mean(axis=0), rtol=1e-3)
    np.testing.assert_allclose(y.numpy().mean(axis=0), 0.0, atol=5e-3)
    ln = layers.LayerNormalization()
    assert ln(x).dtype == ek.float16 and ln.gamma.dtype == ek.float32


def test_losses_and_metrics_compute_in_float32():
    p = ek.constant(np.array([[0.2, 0.8], [0.6, 0.4]], np.float16))
    y = ek.constant([1, 0])
    loss = ek.keras.losses.SparseCategoricalCrossentropy()(y, p)
    assert loss.dtype == ek.float32
    probs = p.numpy().astype(np.float32)
    probs /= probs.sum(axis=1, keepdims=True)  # Keras normalizes probabilities first
    expected = -np.mean(np.log(probs[[0, 1], [1, 0]]))
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-6)
    metric = ek.keras.metrics.SparseCategoricalAccuracy()
    metric.update_state(y, p)
    assert metric.result().dtype == ek.float32 and float(metric.result()) == 1.0


def test_policy_survives_get_config_and_keras_files(tmp_path):
    dense = layers.Dense(3, dtype="mixed_float16")
    config = dense.get_config()
    assert config["dtype"] == {"class_name": "Policy", "config": {"name": "mixed_float16"}}
    assert layers.Dense.from_config(config).dtype_policy.name == "mixed_float16"
    assert layers.Dense(3).get_config()["dtype"] == "float32"  # float32 configs unchanged
    keras3 = {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "mixed_float16"}}
    assert layers.Dense(3, dtype=keras3).compute_dtype == "float16"
    assert layers.Dense.from_config({**config, "autocast": False}).get_config()["autocast"] is False
    mixed_precision.set_global_policy("mixed_float16")
    model = _mlp(0)
    model(np.ones((2, 5), np.float32))
    path = str(tmp_path / "m.keras")
    model.save(path)
    mixed_precision.set_global_policy(None)
    loaded = ek.keras.models.load_model(path)
    assert [layer.dtype_policy.name for layer in loaded.layers] == [
        "mixed_float16",
        "mixed_float16",
        "float32",
    ]
    x = np.random.default_rng(0).normal(size=(3, 5)).astype(np.float32)
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())


# -- LossScaleOptimizer ------------------------------------------------------------------------


def test_scaled_loss_and_unscaled_gradients():
    opt = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.SGD(0.1))
    assert opt.dynamic and opt.initial_scale == 2.0**15 and opt.dynamic_growth_steps == 2000
    assert float(opt.loss_scale) == 32768.0 and opt.loss_scale.dtype == ek.float32
    half = ek.constant(np.float16(0.5))
    assert opt.get_scaled_loss(half).dtype == ek.float16
    assert float(opt.get_scaled_loss(half)) == 16384.0
    assert float(opt.scale_loss(ek.constant(2.0))) == 65536.0
    assert float(opt.get_scaled_loss(lambda: ek.constant(1.0))()) == 32768.0
    g = opt.get_unscaled_gradients([ek.constant([32768.0, 65536.0]), None])
    np.testing.assert_array_equal(g[0].numpy(), [1.0, 2.0])
    assert g[1] is None
    assert opt.inner_optimizer.learning_rate is opt.learning_rate


def test_nan_gradient_skips_step_and_halves_scale():
    v = ek.Variable([1.0, 2.0])
    w = ek.Variable(3.0)
    opt = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.Adam(0.1), initial_scale=8.0)
    opt.apply_gradients([(ek.constant([1.0, 1.0]), v), (ek.constant(1.0), w)])
    before = [v.numpy(), w.numpy(), *[s.numpy() for s in opt.inner_optimizer.variables]]
    assert int(opt.dynamic_counter) == 1
    opt.apply_gradients([(ek.constant([np.nan, 1.0]), v), (ek.constant(1.0), w)])
    after = [v.numpy(), w.numpy(), *[s.numpy() for s in opt.inner_optimizer.variables[1:]]]
    for old, new in zip(before[:2] + before[3:], after):
        np.testing.assert_array_equal(old, new)  # variables and slots untouched
    assert float(opt.loss_scale) == 4.0
    assert int(opt.dynamic_counter) == 0
    assert int(opt.iterations) == 2  # TensorFlow counts the skipped step
    opt.apply_gradients([(ek.constant([1.0, np.inf]), v), (ek.constant(1.0), w)])
    assert float(opt.loss_scale) == 2.0
    for _ in range(3):
        opt.apply_gradients([(ek.constant([np.inf, 0.0]), v), (None, w)])
    assert float(opt.loss_scale) == 1.0  # never below 1


def test_scale_doubles_after_dynamic_growth_steps():
    v = ek.Variable([1.0])
    opt = mixed_precision.LossScaleOptimizer(
        ek.keras.optimizers.SGD(0.5), initial_scale=4.0, dynamic_growth_steps=3
    )
    scales = []
    for _ in range(7):
        opt.apply_gradients([(ek.constant([0.25]), v)])
        scales.append(float(opt.loss_scale))
    assert scales == [4.0, 4.0, 8.0, 8.0, 8.0, 16.0, 16.0]
    assert int(opt.dynamic_counter) == 1 and int(opt.iterations) == 7
    np.testing.assert_allclose(v.numpy(), [1.0 - 7 * 0.125])


def test_static_scale_and_constructor_errors():
    sgd = ek.keras.optimizers.SGD(1.0)
    static = mixed_precision.LossScaleOptimizer(sgd, dynamic=False, initial_scale=128)
    assert float(static.loss_scale) == 128.0 and static.dynamic_counter is None
    assert static.dynamic_growth_steps is None
    v = ek.Variable([1.0])
    static.apply_gradients([(ek.constant([0.5]), v)])
    assert float(static.loss_scale) == 128.0 and v.numpy()[0] == 0.5
    with pytest.raises(ValueError, match='"initial_scale" must be specified'):
        mixed_precision.LossScaleOptimizer(sgd, dynamic=False)
    with pytest.raises(ValueError, match='"dynamic_growth_steps" must be None'):
        mixed_precision.LossScaleOptimizer(
            sgd, dynamic=False, initial_scale=2, dynamic_growth_steps=5
        )
    with pytest.raises(ValueError, match="Received: dynamic_growth_steps=0"):
        mixed_precision.LossScaleOptimizer(sgd, dynamic_growth_steps=0)
    with pytest.raises(ValueError, match="Received: initial_scale=-1"):
        mixed_precision.LossScaleOptimizer(sgd, initial_scale=-1)
    with pytest.raises(TypeError, match=r'"dynamic" argument .* must be a bool'):
        mixed_precision.LossScaleOptimizer(sgd, dynamic="yes")
    with pytest.raises(TypeError, match="must be an instance of"):
        mixed_precision.LossScaleOptimizer("sgd")
    with pytest.raises(TypeError, match="cannot wrap another LossScaleOptimizer"):
        mixed_precision.LossScaleOptimizer(mixed_precision.LossScaleOptimizer(sgd))
    with pytest.raises(ValueError, match="does not support arguments: \\['clipnorm'\\]"):
        mixed_precision.LossScaleOptimizer(sgd, clipnorm=1.0)


def test_guide_training_loop_and_keras3_apply_agree():
    x = np.random.default_rng(0).normal(size=(16, 5)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(16, 4)).astype(np.float32)
    results = []
    for style in ("tf2", "keras3", "minimize"):
        mixed_precision.set_global_policy("mixed_float16")
        model = _mlp(7)
        opt = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.SGD(0.1))
        for _ in range(3):
            with ek.GradientTape() as tape:
                loss = ek.reduce_mean(ek.square(model(x) - y))
                scaled = opt.get_scaled_loss(loss) if style == "tf2" else opt.scale_loss(loss)
            if style == "tf2":
                grads = opt.get_unscaled_gradients(tape.gradient(scaled, model.trainable_variables))
                opt.apply_gradients(zip(grads, model.trainable_variables))
            elif style == "keras3":
                opt.apply(
                    tape.gradient(scaled, model.trainable_variables), model.trainable_variables
                )
            else:
                opt.minimize(loss, model.trainable_variables, tape=tape)
        results.append(model.get_weights())
    # Reference: the same steps in float32 arithmetic on the same initial weights.
    mixed_precision.set_global_policy(None)
    ref = _mlp(7)
    sgd = ek.keras.optimizers.SGD(0.1)
    for _ in range(3):
        with ek.GradientTape() as tape:
            loss = ek.reduce_mean(ek.square(ref(x) - y))
        sgd.apply_gradients(
            zip(tape.gradient(loss, ref.trainable_variables), ref.trainable_variables)
        )
    for weights in results:
        for a, b in zip(weights, ref.get_weights()):
            np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)
    for a, b in zip(results[0], results[1]):
        np.testing.assert_array_equal(a, b)


def test_loss_scale_state_round_trips_through_checkpoints(tmp_path):
    v = ek.Variable([1.0, 2.0])
    opt = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.Adam(0.01), initial_scale=64.0)
    opt.apply_gradients([(ek.constant([1.0, 1.0]), v)])
    opt.apply_gradients([(ek.constant([np.nan, 1.0]), v)])
    opt.apply_gradients([(ek.constant([1.0, 1.0]), v)])
    path = ek.train.Checkpoint(v=v, optimizer=opt).save(str(tmp_path / "ckpt"))
    names = [name for name, _ in ek.train.list_variables(path)]
    assert "optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE" in names
    assert "optimizer/inner_optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE" in names
    v2 = ek.Variable([0.0, 0.0])
    opt2 = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.Adam(0.01), initial_scale=64.0)
    status = ek.train.Checkpoint(v=v2, optimizer=opt2).restore(path)
    assert float(opt2.loss_scale) == 32.0 and int(opt2.dynamic_counter) == 1
    assert int(opt2.iterations) == 3
    opt2.apply_gradients([(ek.constant([1.0, 1.0]), v2)])  # builds Adam's slots: restored
    status.assert_consumed()
    opt.apply_gradients([(ek.constant([1.0, 1.0]), v)])
    np.testing.assert_array_equal(v2.numpy(), v.numpy())


def _digits_like(n=256, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(4, 8)).astype(np.float32) * 2
    labels = rng.integers(0, 4, n)
    x = centers[labels] + rng.normal(size=(n, 8)).astype(np.float32) * 0.5
    return x.astype(np.float32), labels


def test_fit_trains_under_mixed_float16(tmp_path):
    mixed_precision.set_global_policy("mixed_float16")
    x, y = _digits_like()
    inputs = ek.keras.Input(shape=(8,))
    h = layers.Dense(32, activation="relu")(inputs)
    h = layers.BatchNormalization()(h)
    logits = layers.Dense(4)(h)
    outputs = layers.Activation("softmax", dtype="float32")(logits)
    model = ek.keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    assert isinstance(model.optimizer, mixed_precision.LossScaleOptimizer)
    history = model.fit(x, y, batch_size=32, epochs=8, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < 0.5 * losses[0]
    assert history.history["accuracy"][-1] > 0.9
    assert np.isfinite(float(model.optimizer.loss_scale))
    assert int(model.optimizer.iterations) == 8 * 8
    assert all(v.dtype == ek.float32 for v in model.variables)
    path = str(tmp_path / "trained.keras")
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    assert isinstance(loaded.optimizer, mixed_precision.LossScaleOptimizer)
    assert float(loaded.optimizer.loss_scale) == float(model.optimizer.loss_scale)
    assert int(loaded.optimizer.dynamic_counter) == int(model.optimizer.dynamic_counter)
    np.testing.assert_array_equal(loaded.predict(x[:8], verbose=0), model.predict(x[:8], verbose=0))


def test_compile_does_not_wrap_for_float32_or_when_asked_not_to():
    model = _mlp(0)
    model.compile(optimizer="sgd", loss="mse")
    assert isinstance(model.optimizer, ek.keras.optimizers.SGD)
    mixed_precision.set_global_policy("mixed_float16")
    model = _mlp(0)
    model.compile(optimizer="sgd", loss="mse", auto_scale_loss=False)
    assert isinstance(model.optimizer, ek.keras.optimizers.SGD)
    lso = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.SGD())
    model.compile(optimizer=lso, loss="mse")
    assert model.optimizer is lso


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_fit_skips_a_non_finite_step_and_keeps_weights():
    mixed_precision.set_global_policy("mixed_float16")
    model = _mlp(0)
    model.compile(optimizer=ek.keras.optimizers.SGD(0.01), loss="mse")
    x = np.ones((4, 5), np.float32)
    model.fit(x, np.zeros((4, 4), np.float32), epochs=1, verbose=0)
    before = model.get_weights()
    scale = float(model.optimizer.loss_scale)
    # A target of 6e4 makes the float16 cotangent of the output, times the scale, overflow.
    model.fit(x, np.full((4, 4), 6e4, np.float32), epochs=1, verbose=0)
    assert float(model.optimizer.loss_scale) == scale / 2
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_compile_refuses_loss_scaling_under_a_strategy():
    mixed_precision.set_global_policy("mixed_float16")
    with ek.distribute.MirroredStrategy().scope():
        model = _mlp(0)
        with pytest.raises(NotImplementedError, match="auto_scale_loss=False"):
            model.compile(optimizer="sgd", loss="mse")
        assert model.optimizer is None  # the failed compile changed nothing
        model.compile(optimizer="sgd", loss="mse", auto_scale_loss=False)
        assert isinstance(model.optimizer, ek.keras.optimizers.SGD)


def test_input_layer_stays_float32_under_mixed_policy():
    mixed_precision.set_global_policy("mixed_float16")
    inputs = ek.keras.Input(shape=(3,))
    assert inputs.dtype == ek.float32
    layer = ek.keras.layers.InputLayer(input_shape=(3,))
    assert layer.dtype_policy.name == "float32"
    model = ek.keras.Sequential([ek.keras.Input(shape=(3,)), layers.Dense(2)])
    assert model(np.ones((1, 3), np.float32)).dtype == ek.float16


def test_float16_products_accumulate_in_float32():
    rng = np.random.default_rng(0)
    a = rng.random((64, 784)).astype(np.float16)
    b = rng.random((784, 64)).astype(np.float16)
    out = ek.matmul(a, b)
    assert out.dtype == ek.float16
    expected = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out.numpy(), expected)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(out.numpy(), exact, rtol=1e-3)  # one float16 rounding


def _guide_loop(use_function: bool) -> list:
    """The guide's custom training loop (TF's mixed_precision guide), eagerly or traced."""
    mixed_precision.set_global_policy("mixed_float16")
    ek.keras.utils.set_random_seed(0)
    x, y = _digits_like(128, seed=3)
    inputs = ek.keras.Input(shape=(8,))
    h = layers.Dense(16, activation="relu")(inputs)
    outputs = layers.Activation("softmax", dtype="float32")(layers.Dense(4)(h))
    model = ek.keras.Model(inputs, outputs)
    optimizer = mixed_precision.LossScaleOptimizer(
        ek.keras.optimizers.RMSprop(0.01), dynamic_growth_steps=5
    )
    loss_object = ek.keras.losses.SparseCategoricalCrossentropy()

    def train_step(x, y):
        with ek.GradientTape() as tape:
            predictions = model(x)
            loss = loss_object(y, predictions)
            scaled_loss = optimizer.get_scaled_loss(loss)
        scaled_gradients = tape.gradient(scaled_loss, model.trainable_variables)
        gradients = optimizer.get_unscaled_gradients(scaled_gradients)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    if use_function:
        train_step = ek.function(train_step)
    trace = []
    for _ in range(6):
        for i in range(0, 128, 32):
            loss = float(train_step(x[i : i + 32], y[i : i + 32]))
            trace.append((loss, float(optimizer.loss_scale), int(optimizer.dynamic_counter)))
    assert int(optimizer.iterations) == 24
    return trace


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_guide_custom_loop_under_ek_function():
    eager = _guide_loop(False)
    traced = _guide_loop(True)
    assert traced == eager  # replays check the gradients and move the scale as eager steps do
    losses = [loss for loss, _, _ in eager]
    assert np.mean(losses[-4:]) < 0.5 * np.mean(losses[:4])
    scales = [scale for _, scale, _ in eager]
    assert scales[:5] == [2.0**15] * 4 + [2.0**16]  # doubled after 5 finite steps
    counters = [counter for _, _, counter in eager]
    assert counters[:6] == [1, 2, 3, 4, 0, 1]


def test_apply_gradients_refuses_mirrored_variables_only():
    ek.config.experimental.set_virtual_gpus(2)
    strategy = ek.distribute.MirroredStrategy()
    with strategy.scope():
        mirrored = ek.Variable(1.0)
    opt = mixed_precision.LossScaleOptimizer(ek.keras.optimizers.SGD(0.5))
    with pytest.raises(NotImplementedError, match="under a distribution strategy"):
        opt.apply_gradients([(ek.constant(1.0), mirrored)])
    assert float(mirrored) == 1.0
    plain = ek.Variable([1.0])  # a strategy exists, but this variable is not mirrored
    opt.apply_gradients([(ek.constant([1.0]), plain)])
    assert plain.numpy()[0] == 0.5


def test_sequential_and_functional_models_do_not_round_inputs_to_float16():
    mixed_precision.set_global_policy("mixed_float16")
    x = np.full((1, 3), 1.0 / 3.0)  # float64: rounding it to float16 would lose digits
    seq = ek.keras.Sequential([layers.Activation("linear", dtype="float32")])
    inputs = ek.keras.Input(shape=(3,))
    fn = ek.keras.Model(inputs, layers.Activation("linear", dtype="float32")(inputs))
    for model in (seq, fn):
        assert model.dtype_policy.name == "mixed_float16"
        out = model(x)
        assert out.dtype == ek.float32
        np.testing.assert_array_equal(out.numpy(), x.astype(np.float32))
