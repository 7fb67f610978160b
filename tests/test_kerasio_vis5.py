"""keras-io vision examples (mobilevit ... attention_mil_classification) run on eagerkernel: the
divergences from TensorFlow 2.21 + Keras 3.15 found by running them, each pinned here with
values computed by that oracle."""

import numpy as np

from eagerkernel import keras


class _Record(keras.layers.Layer):
    def __init__(self, seen, default_true=False, **kwargs):
        super().__init__(**kwargs)
        self.seen, self.default_true = seen, default_true

    def call(self, x, training=None):
        self.seen.append(training)
        return x


class _RecordTrue(_Record):
    def call(self, x, training=True):  # RandomFlip's default: augment unless told otherwise
        self.seen.append(training)
        return x


def _steps_seen(model_cls):
    seen, seen_true = [], []
    model = model_cls(_Record(seen), _RecordTrue(seen_true))
    model.compile("sgd", "mse")
    x, y = np.ones((4, 3), np.float32), np.ones((4, 1), np.float32)
    out = {}
    for name, run in [
        ("fit", lambda: model.fit(x, y, epochs=1, verbose=0)),
        ("evaluate", lambda: model.evaluate(x, y, verbose=0)),
        ("predict", lambda: model.predict(x, verbose=0)),
    ]:
        seen.clear()
        seen_true.clear()
        run()
        out[name] = (seen[-1], seen_true[-1])
    return out


def test_steps_pass_training_only_when_the_models_call_takes_it():
    # perceiver_image_classification: `Preceiver.call(self, inputs)` has no `training`, so
    # Keras 3's train/test/predict steps call `self(x)` (`_call_has_training_arg` False) and
    # every layer runs at its own default: its RandomFlip/RandomZoom augment in predict and
    # evaluate (oracle predictions of one input differed between two `predict` calls).
    # Oracle (run_eagerly=True): fit/evaluate/predict all give (None, True) without the
    # argument; (True, True), (False, False), (False, False) with it.
    class NoTraining(keras.Model):
        def __init__(self, a, b):
            super().__init__()
            self.a, self.b, self.d = a, b, keras.layers.Dense(1)

        def call(self, x):
            return self.d(self.b(self.a(x)))

    class WithTraining(NoTraining):
        def call(self, x, training=None):
            return self.d(self.b(self.a(x)))

    assert _steps_seen(NoTraining) == {
        "fit": (None, True),
        "evaluate": (None, True),
        "predict": (None, True),
    }
    assert _steps_seen(WithTraining) == {
        "fit": (True, True),
        "evaluate": (False, False),
        "predict": (False, False),
    }


def test_dropout_is_inactive_in_fit_when_call_takes_no_training():
    # Keras 3: `Dropout.call(inputs, training=False)` and a model whose call has no training
    # argument, so `fit` leaves dropout off: with rate 0.999 a training step through it still
    # sees the ones (oracle loss 0.0 for y=x=1 and an identity kernel).
    class M(keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = keras.layers.Dropout(0.999)
            self.d = keras.layers.Dense(2, use_bias=False, kernel_initializer="identity")

        def call(self, x):
            return self.d(self.drop(x))

    model = M()
    model.compile(keras.optimizers.SGD(0.0), "mse")
    x = np.ones((8, 2), np.float32)
    history = model.fit(x, x, epochs=1, batch_size=8, verbose=0)
    assert history.history["loss"] == [0.0]


def test_psnr_accepts_images_of_different_dtypes_as_tensorflow():
    # edsr's PSNR metric compares uint8 targets with float32 predictions: tf.image.psnr
    # converts each image on its own (uint8 / 255, floats kept) after casting max_val to a's
    # dtype. Oracle: tf.image.psnr(a, b, max_val=255) with these arrays.
    import eagerkernel as ek

    a = np.array([[[[10, 200, 30]]], [[[0, 255, 7]]]], np.uint8)
    b = np.array([[[[12.0, 190.0, 33.0]]], [[[5.0, 250.0, 9.0]]]], np.float32)
    np.testing.assert_allclose(
        ek.image.psnr(a, b, max_val=255).numpy(), [-40.913956, -43.160156], rtol=1e-6
    )
    np.testing.assert_allclose(
        ek.image.psnr(b, a, max_val=255).numpy(), [7.2168465, 4.970646], rtol=1e-6
    )
    np.testing.assert_allclose(
        ek.image.psnr(a.astype(np.int32), b, max_val=255).numpy(),
        [-179.45749, -181.70273],
        rtol=1e-6,
    )


def test_function_metrics_are_logged_under_their_snake_case_names():
    # edsr compiles metrics=[PSNR] (a function): Keras 3 names it get_object_name(fn), the
    # function name in snake case, and a weighted metric that repeats a name gets
    # "weighted_". Oracle history keys for this compile, sorted:
    # ['lambda', 'loss', 'mean_squared_error', 'my_metric_fn', 'psnr', 'weighted_psnr'].
    from eagerkernel.keras import ops

    def PSNR(y_true, y_pred):
        return ops.mean(y_pred)

    def myMetricFn(y_true, y_pred):
        return ops.mean(y_pred)

    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(
        "sgd",
        "mse",
        metrics=[PSNR, myMetricFn, lambda a, b: b, keras.losses.MeanSquaredError()],
        weighted_metrics=[PSNR],
    )
    history = model.fit(np.ones((2, 2)), np.ones((2, 1)), verbose=0)
    assert sorted(history.history) == [
        "lambda",
        "loss",
        "mean_squared_error",
        "my_metric_fn",
        "psnr",
        "weighted_psnr",
    ]


def test_mutating_the_output_list_of_a_nested_model_keeps_the_graph():
    # fully_convolutional_network: x = fcn_backbone(input); x[-1] = dense_convs(x[-1]).
    # The list a layer call returns is the caller's; the recorded node must not change with
    # it. Oracle: predict shapes (2, 5) and (2, 7).
    i = keras.Input((3,))
    inner = keras.Model(i, [keras.layers.Dense(2)(i), keras.layers.Dense(4)(i)])
    inp = keras.Input((3,))
    x = inner(inp)
    x[-1] = keras.layers.Dense(5)(x[-1])
    a, b = x
    assert keras.Model(inp, b).predict(np.ones((2, 3)), verbose=0).shape == (2, 5)
    both = keras.layers.Concatenate()([a, b])
    assert keras.Model(inp, both).predict(np.ones((2, 3)), verbose=0).shape == (2, 7)


def test_mean_iou_default_name_is_the_snake_cased_class_name():
    # fully_convolutional_network logs MeanIoU as "mean_io_u" (Keras's to_snake_case of
    # "MeanIoU"); oracle: keras.metrics.MeanIoU(4).name == "mean_io_u", IoU(4, [0]) "io_u".
    assert keras.metrics.MeanIoU(num_classes=4).name == "mean_io_u"
    assert keras.metrics.MeanIoU(num_classes=4, name="miou").name == "miou"
    assert keras.metrics.IoU(4, [0]).name == "io_u"


def test_preprocess_input_keeps_float_dtypes():
    # fully_convolutional_network preprocesses float16 (mixed precision) and float64 images
    # with vgg19.preprocess_input; Keras 3 keeps a float input's dtype and uses float32 for
    # integers. Oracle dtypes: float64 array -> float64, float16 tensor -> float16, uint8 ->
    # float32; caffe values 255 - [103.939, 116.779, 123.68] (BGR).
    import eagerkernel as ek

    pre = keras.applications.vgg19.preprocess_input
    x = np.full((1, 1, 1, 3), 255.0)
    out = pre(x)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out[0, 0, 0], [151.061, 138.221, 131.32], rtol=1e-12)
    assert pre(ek.constant(x.astype(np.float16))).dtype == "float16"
    assert pre(x.astype(np.uint8)).dtype == np.float32
    tf_mode = keras.applications.mobilenet_v2.preprocess_input(ek.constant(x))
    assert tf_mode.dtype == "float64"
    np.testing.assert_array_equal(tf_mode.numpy(), np.ones((1, 1, 1, 3)))


def test_bilinear_upsampling_keeps_float16_under_mixed_precision():
    # fully_convolutional_network runs UpSampling2D(interpolation="bilinear") under
    # mixed_float16: Keras keeps the float16 compute dtype (oracle: predict dtype float16);
    # values, oracle: UpSampling2D(2, interpolation="bilinear") of arange(4).reshape(1,2,2,1).
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        x = np.arange(4, dtype=np.float16).reshape(1, 2, 2, 1)
        y = keras.layers.UpSampling2D(2, interpolation="bilinear")(x)
        inp = keras.Input((2, 2, 1))
        up = keras.layers.UpSampling2D(2, interpolation="bilinear")
        model = keras.Model(inp, up(keras.layers.Conv2D(1, 1)(inp)))
        predicted = model.predict(np.ones((1, 2, 2, 1), np.float32), verbose=0)
    finally:
        keras.mixed_precision.set_global_policy(None)
    assert y.dtype == "float16"
    assert predicted.dtype == np.float16
    np.testing.assert_array_equal(
        y.numpy()[0, :, :, 0],
        [
            [0.0, 0.25, 0.75, 1.0],
            [0.5, 0.75, 1.25, 1.5],
            [1.5, 1.75, 2.25, 2.5],
            [2.0, 2.25, 2.75, 3.0],
        ],
    )
