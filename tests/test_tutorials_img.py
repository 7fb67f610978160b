"""Divergences found by running TensorFlow's image/audio/RL/time-series tutorials on
eagerkernel; every expected number was computed with TensorFlow 2.21 (the oracle venv)."""

import numpy as np
import pytest

import eagerkernel as ek


def test_resize_bilinear_uses_float32_coordinates_like_tf():
    # tf.image.resize(np.arange(7.)*1000 as [1,1,7,1], [1,3]) in TF 2.21: the source
    # coordinates are float32, so the ends are not exactly 2000/3 and 16000/3.
    x = (np.arange(7, dtype=np.float32) * 1000).reshape(1, 1, 7, 1)
    got = ek.image.resize(x, [1, 3]).numpy().ravel().tolist()
    assert got == [666.6666259765625, 3000.0, 5333.3330078125]
    x = (np.arange(6, dtype=np.float32) * 1000).reshape(1, 6, 1, 1)
    got = ek.image.resize(x, [5, 1]).numpy().ravel().tolist()
    assert got == [100.0000228881836, 1300.0, 2500.0, 3700.000244140625, 4900.0]


def test_resize_bilinear_rows_then_columns_like_tf():
    # TF 2.21: tf.image.resize((arange(12.)**2).reshape(3, 4, 1), [2, 3]).
    y = np.arange(12, dtype=np.float32).reshape(3, 4, 1) ** 2
    got = ek.image.resize(y, [2, 3]).numpy().ravel().tolist()
    assert got == [4.5, 9.5, 17.833335876464844, 54.5, 75.5, 99.83333587646484]


def test_resize_nearest_matches_tf():
    # TF 2.21: tf.image.resize(arange(7.)*1000 as [1,1,7,1], [1,3], method="nearest").
    x = (np.arange(7, dtype=np.float32) * 1000).reshape(1, 1, 7, 1)
    got = ek.image.resize(x, [1, 3], method="nearest").numpy().ravel().tolist()
    assert got == [1000.0, 3000.0, 5000.0]


_PIXELS = np.array(
    [[[0.2, 0.5, 0.9], [0.7, 0.1, 0.3], [0.4, 0.4, 0.1], [0.25, 0.6, 0.6]]], np.float32
)


def test_adjust_saturation_uint8_rounds_like_tf():
    # TF 2.21: tf.image.adjust_saturation(u, 3) (data_augmentation tutorial); HSVToRGB's
    # formula instead of AdjustSaturation's gives 72, 203, 199, 83 in the first channels.
    u = np.array([[[74, 85, 8], [225, 109, 255], [206, 117, 212], [102, 180, 34]]], np.uint8)
    got = ek.image.adjust_saturation(u, 3).numpy().ravel().tolist()
    assert got == [73, 85, 0, 202, 0, 255, 198, 0, 212, 84, 180, 0]


def test_adjust_saturation_float_matches_tf_bitwise():
    # TF 2.21: tf.image.adjust_saturation(_PIXELS, 1.7).
    got = ek.image.adjust_saturation(_PIXELS, 1.7).numpy().ravel().tolist()
    assert got == [
        0.0, 0.3857142925262451, 0.8999999761581421, 0.699999988079071, 0.0,
        0.23333343863487244, 0.4000000059604645, 0.3999999761581421, 0.0,
        0.004999935626983643, 0.6000000238418579, 0.6000000238418579,
    ]  # fmt: skip


def test_adjust_hue_matches_tf_bitwise():
    # TF 2.21: tf.image.adjust_hue(_PIXELS, 0.37) and (_PIXELS, -0.9).
    got = ek.image.adjust_hue(_PIXELS, 0.37).numpy().ravel().tolist()
    assert got == [
        0.8999999761581421, 0.20000000298023224, 0.3460000157356262, 0.1680002212524414,
        0.699999988079071, 0.10000000149011612, 0.10000000149011612, 0.33399999141693115,
        0.4000000059604645, 0.6000000238418579, 0.25, 0.5229998826980591,
    ]  # fmt: skip
    got = ek.image.adjust_hue(_PIXELS, -0.9).numpy().ravel().tolist()
    assert got == [
        0.3200000822544098, 0.20000000298023224, 0.8999999761581421, 0.699999988079071,
        0.2600001394748688, 0.10000000149011612, 0.21999989449977875, 0.4000000059604645,
        0.10000000149011612, 0.25, 0.3899998664855957, 0.6000000238418579,
    ]  # fmt: skip


def test_rgb_to_hsv_matches_tf_bitwise():
    # TF 2.21: tf.image.rgb_to_hsv(_PIXELS).
    got = ek.image.rgb_to_hsv(_PIXELS).numpy().ravel().tolist()
    assert got == [
        0.5952380895614624, 0.7777777910232544, 0.8999999761581421, 0.9444444179534912,
        0.8571428060531616, 0.699999988079071, 0.1666666865348816, 0.75,
        0.4000000059604645, 0.5, 0.5833333730697632, 0.6000000238418579,
    ]  # fmt: skip


def test_random_flip_casts_uint8_masks_to_float32_in_both_modes():
    # segmentation tutorial: Augment flips a uint8 mask; TF 2.21 / Keras 3.15 return float32
    # (transform_images casts to the compute dtype first), training or not.
    mask = np.array([[[[1], [2]]]], np.uint8)
    flip = ek.keras.layers.RandomFlip("horizontal", seed=42)
    out = flip(mask, training=False)
    assert out.dtype == ek.float32 and out.numpy().ravel().tolist() == [1.0, 2.0]
    assert flip(mask).dtype == ek.float32
    rot = ek.keras.layers.RandomRotation(0.2, seed=1)(mask, training=False)
    assert rot.dtype == ek.float32 and rot.numpy().ravel().tolist() == [1.0, 2.0]


def test_loss_objects_compute_in_floatx_for_float64_numpy_inputs():
    # segmentation tutorial's sample-weight example; TF 2.21 gives float32
    # [3.0485873222351074, 30.48587417602539].
    loss = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)
    got = loss(np.array([0, 0]), np.array([[-3.0, 0], [-3, 0]]), [1, 10])
    assert got.dtype == ek.float32
    assert got.numpy().tolist() == [3.0485873222351074, 30.48587417602539]
    # TF 2.21: MeanSquaredError()(float64 [[1, 2]], float64 [[.5, .25]]) -> float32 1.65625
    got = ek.keras.losses.MeanSquaredError()(np.array([[1.0, 2.0]]), np.array([[0.5, 0.25]]))
    assert got.dtype == ek.float32 and float(got) == 1.65625


def test_mobilenet_v2_preprocess_input_on_a_functional_input():
    # transfer_learning tutorial: x = preprocess_input(inputs) inside a functional model
    # (Keras 3 records TrueDivide and Subtract op layers); 255 -> 1, 0 -> -1 (closed form).
    inputs = ek.keras.Input(shape=(1, 2, 3))
    outputs = ek.keras.applications.mobilenet_v2.preprocess_input(inputs)
    model = ek.keras.Model(inputs, outputs)
    x = np.array([[[[255.0, 0.0, 127.5], [51.0, 204.0, 25.5]]]], np.float32)
    got = model(x).numpy().ravel().tolist()
    np.testing.assert_allclose(got, [1.0, -1.0, 0.0, -0.6, 0.6, -0.8], atol=1e-7)
    # the other modes, inside a model, equal the eager function
    caffe_in = ek.keras.Input(shape=(1, 2, 3))
    caffe = ek.keras.Model(
        caffe_in, ek.keras.applications.imagenet_utils.preprocess_input(caffe_in, mode="caffe")
    )
    eager = ek.keras.applications.imagenet_utils.preprocess_input(x, mode="caffe")
    np.testing.assert_array_equal(caffe(x).numpy(), eager)


def test_numpy_function_decorator_form():
    # actor_critic tutorial: @tf.numpy_function(Tout=[...]) decorates env_step (TF 2.21
    # returns a list of EagerTensors of those dtypes).
    @ek.numpy_function(Tout=[ek.float32, ek.int32])
    def step(action):
        return np.full(2, action, np.float32), np.array(int(action) + 1, np.int32)

    state, reward = step(np.int64(3))
    assert state.dtype == ek.float32 and state.numpy().tolist() == [3.0, 3.0]
    assert reward.dtype == ek.int32 and int(reward) == 4


def test_numpy_function_runs_on_every_graph_function_call():
    # TF 2.21 runs a PyFunc on every call of a tf.function: the counter reaches 3, 3, 3.
    calls = {"n": 0}

    @ek.numpy_function(Tout=ek.int32)
    def tick(x):
        calls["n"] += 1
        return np.array(calls["n"], np.int32)

    @ek.function
    def three_ticks(x):
        return tick(x) + tick(x) + tick(x)

    for expected_sum in (6, 15, 24):  # 1+2+3, 4+5+6, 7+8+9
        assert int(three_ticks(ek.constant(0))) == expected_sum
    assert calls["n"] == 9


def _write_wavs(root):
    import wave

    clips = {"no": [[1000, -2000, 3000], [16384]], "yes": [[-32768, 32767]]}
    for name, rows in clips.items():
        (root / name).mkdir()
        for i, clip in enumerate(rows):
            with wave.open(str(root / name / f"{i}.wav"), "wb") as w:
                w.setnchannels(1)
                w.setsampwidth(2)
                w.setframerate(16000)
                w.writeframes(np.asarray(clip, "<i2").tobytes())


def test_audio_dataset_from_directory_pads_or_cuts_like_keras(tmp_path):
    # simple_audio tutorial; numbers from TF 2.21 / Keras 3.15 on the same three files.
    _write_wavs(tmp_path)
    ds = ek.keras.utils.audio_dataset_from_directory(tmp_path, batch_size=2, shuffle=False)
    assert ds.class_names == ["no", "yes"]
    got = [(tuple(a.shape), a.dtype, b.numpy().tolist(), a.numpy().ravel().tolist()) for a, b in ds]
    assert got == [
        (
            (2, 3, 1),
            ek.float32,
            [0, 0],
            [0.030517578125, -0.06103515625, 0.091552734375, 0.5, 0, 0],
        ),
        ((1, 2, 1), ek.float32, [1], [-1.0, 0.999969482421875]),
    ]
    ds = ek.keras.utils.audio_dataset_from_directory(
        tmp_path, batch_size=3, shuffle=False, output_sequence_length=2, label_mode="categorical"
    )
    ((audio, labels),) = list(ds)
    assert tuple(audio.shape) == (3, 2, 1)
    assert labels.numpy().tolist() == [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert audio.numpy().ravel().tolist() == [
        0.030517578125, -0.06103515625, 0.5, 0.0, -1.0, 0.999969482421875,
    ]  # fmt: skip


def test_audio_dataset_from_directory_refuses_ragged_with_a_length(tmp_path):
    # Keras 3.15's message for ragged=True with output_sequence_length.
    _write_wavs(tmp_path)
    with pytest.raises(ValueError, match="Cannot set both `ragged` and `output_sequence_length`"):
        ek.keras.utils.audio_dataset_from_directory(tmp_path, ragged=True, output_sequence_length=2)


def test_an_empty_mapped_dataset_is_still_a_dataset():
    # simple_audio tutorial: val_ds.shard(2, 1) of one batch is empty; asking its
    # element_spec raises, so fit's data check must not (it then reports the empty data).
    from eagerkernel.runtime.keras.data_adapter import is_dataset

    empty = ek.data.Dataset.range(4).batch(4).shard(2, 1).map(lambda x: x * 2)
    assert is_dataset(empty)


def test_rfft_of_numpy_float64_data_is_complex64_like_tf():
    # time_series tutorial: tf.signal.rfft(df['T (degC)']) (a float64 pandas Series) is
    # complex64 in TF 2.21 (preferred dtype float32); a float64 *Tensor* stays complex128.
    x = np.array([1.0, 2.0, 3.0])
    got = ek.signal.rfft(x)
    assert got.dtype == ek.complex64
    assert got.numpy().tolist() == [(6 + 0j), (-1.5 + 0.8660253882408142j)]  # TF 2.21's
    assert ek.signal.rfft(ek.constant(x)).dtype == ek.complex128
    assert ek.signal.rfft(np.zeros(4, np.int64)).dtype == ek.complex64
    assert ek.signal.fft(np.zeros(4, np.complex128)).dtype == ek.complex128  # TF keeps it
    assert ek.signal.irfft(np.ones(3, np.complex128)).dtype == ek.float32


def test_tf_initializers_is_keras_initializers():
    # time_series tutorial: kernel_initializer=tf.initializers.zeros()
    assert ek.initializers is ek.keras.initializers
    assert ek.initializers.zeros()((2, 2)).numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_random_split_of_a_pair_of_int64_tensors_keeps_int64():
    # data_augmentation tutorial: seed = (counter, counter) of int64 scalars;
    # TF 2.21: tf.random.split((a, a), num=1) with a = tf.constant(0, tf.int64).
    a = ek.constant(0, ek.int64)
    got = ek.random.split((a, a), num=1)
    assert got.dtype == ek.int64
    assert got.numpy().tolist() == [[-6856063536328932722, -6061095977527908230]]


def test_tf_optimizers_and_keras_legacy_optimizers_name_the_keras_classes():
    # TF 2.21: ek.optimizers is Keras's module. ek.keras 2.11-2.15's optimizers.legacy names make
    # the current classes here (Keras 3 raises ImportError for them), with Keras 2's decay.
    assert ek.optimizers.Adam is ek.keras.optimizers.Adam
    from eagerkernel.keras.optimizers.legacy import SGD

    opt = SGD(learning_rate=1.0, decay=1.0)
    v = ek.Variable(0.0)
    for _ in range(2):
        opt.apply_gradients([(ek.constant(1.0), v)])
    assert float(v) == pytest.approx(-(1.0 + 1.0 / 2.0))  # lr / (1 + decay * iterations)


def test_numpy_scalars_are_operands_of_keras_tensors():
    # Keras 3.15: x / np.float32(2) is float32 and x * np.float64(2) float64 (an array operand,
    # promoted); here the NumPy scalar raised TypeError.
    x = ek.keras.Input((3,))
    half = x / np.float32(2)
    assert half.dtype == ek.float32 and (x * np.float64(2)).dtype == ek.float64
    model = ek.keras.Model(x, half)
    np.testing.assert_array_equal(model(np.ones((1, 3), np.float32)).numpy(), [[0.5] * 3])
