"""Keras 3's audio preprocessing layers (keras/layers/audio_preprocessing.py):
MelSpectrogram and STFTSpectrogram values against Keras 3.15 / TensorFlow 2.21 on small
signals (literals below), their output shapes, weights, configs and errors, and graph
functions that recompute them for new inputs."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

L = ek.keras.layers


def _values(text: str, shape) -> np.ndarray:
    """Whitespace-separated numbers as an array of ``shape``."""
    return np.array(text.split(), np.float64).reshape(shape)


SIGNAL = _values(
    """
        0.01999999955 0.8999999762 -0.7099999785 0.8999999762 -0.3799999952 -0.150000006
        0.6600000262 -0.1800000072 0.1000000015 -0.9399999976 0.5099999905 0.07999999821
        -0.3400000036 0.5799999833 -0.3899999857 -0.09000000358 0.9200000167 0.4499999881
        0.07999999821 -0.4499999881 -0.6800000072 0.9399999976 0.02999999933 -0.7699999809 0.25
        0.5500000119 0.2300000042 0.8299999833 -0.9200000167 0.05999999866 -0.07999999821
        -0.8799999952
    """,
    (2, 16),
).astype(np.float32)
STEREO = SIGNAL.reshape(2, 8, 2)[:1]  # (batch 1, 8 samples, 2 channels)

# Keras 3.15 (TensorFlow 2.21) outputs, rounded to 4 decimals; checked against Keras 3 / TF 2.21.
MEL = {
    "db": (
        {
            "fft_length": 16,
            "sequence_stride": 8,
            "sampling_rate": 800,
            "num_mel_bins": 4,
        },
        _values(
            """
                0.5318 -2.618 -5.2606 -2.9589 2.9663 -2.475 3.2188 3.7118 2.7088 7.7397 6.7752
                4.4883 6.8436 0.9457 3.3675 7.9406 6.4702 -2.2187 -3.724 6.4756 5.7734 0.7649 6.6997
                8.0684
            """,
            (2, 4, 3),
        ),
    ),
    "magnitude": (
        {
            "fft_length": 16,
            "sequence_stride": 6,
            "sequence_length": 10,
            "window": "hamming",
            "sampling_rate": 1000,
            "num_mel_bins": 3,
            "power_to_db": False,
            "mag_exp": 1.0,
        },
        _values(
            """
                1.5042 0.9069 0.5409 1.4365 1.6987 0.9573 2.1234 2.4413 2.7204 3.081 0.6824 1.8266
                1.6513 3.1185 1.8981 0.6804 3.2636 3.3733
            """,
            (2, 3, 3),
        ),
    ),
    "top_db": (
        {
            "fft_length": 8,
            "sequence_stride": 4,
            "sampling_rate": 100,
            "num_mel_bins": 2,
            "top_db": 10.0,
            "ref_power": 2.0,
            "min_power": 0.0001,
            "window": None,
        },
        _values(
            """
                -4.9062 0.078 -0.1524 -1.0634 -4.5686 -4.9062 5.0938 -2.2854 3.6879 -4.9062
            """,
            (1, 2, 5),
        ),
    ),
}

STFT = {
    "log": (
        {"mode": "log", "frame_length": 4, "frame_step": 2},
        _values(
            """
                -0.2604 -0.5631 -1.4552 -0.6343 -0.4382 -0.2978 -0.621 -0.7507 -0.9264 -0.2332
                -0.3904 -0.621 -2.1185 -0.8361 -0.5091 -0.7621 -0.8819 -1.0397
            """,
            (1, 3, 6),
        ),
    ),
    "magnitude": (
        {
            "mode": "magnitude",
            "frame_length": 6,
            "frame_step": 3,
            "fft_length": 8,
            "window": "hamming",
            "padding": "same",
            "scaling": "spectrum",
        },
        _values(
            """
                0.2618 0.2679 0.2592 0.2086 0.1661 0.564 0.54 0.4366 0.2413 0.0163 0.2378 0.2555
                0.1905 0.2282 0.3005 0.3349 0.3671 0.3186 0.2565 0.2915 0.1637 0.2089 0.2312 0.157
                0.0537 0.1452 0.1775 0.2212 0.2107 0.1813
            """,
            (1, 3, 10),
        ),
    ),
    "psd": (
        {
            "mode": "psd",
            "frame_length": 4,
            "frame_step": 2,
            "periodic": True,
            "scaling": None,
        },
        _values(
            """
                0.164 1.2272 0.126 0.0441 0.6282 0.2601 0.4692 0.0313 0.2352 0.9801 1.801 0.7921
                0.0784 0.6362 0.16 0.3306 0.6872 0.3422
            """,
            (1, 3, 6),
        ),
    ),
    "stft": (
        {"mode": "stft", "frame_length": 4, "frame_step": 4, "expand_dims": True},
        _values(
            """
                -0.7707 0.5303 0.2687 0.1061 0.2333 -0.7425 0 0 0.502 -0.6364 0 0 0.1202 0.4667
                0.2404 -0.4101 -0.601 0.3536 0 0 -0.3606 -0.0566 0 0
            """,
            (1, 2, 6, 2),
        ),
    ),
    "angle": (
        {"mode": "angle", "frame_length": 4, "frame_step": 3},
        _values(
            """
                3.1416 1.0794 0 0 -1.4056 3.1416 0 -2.948 0 3.1416 1.6557 0
            """,
            (1, 2, 6),
        ),
    ),
    "channels_first": (
        {
            "mode": "imag",
            "frame_length": 4,
            "frame_step": 2,
            "data_format": "channels_first",
        },
        _values(
            """
                0 0 0 0.502 -0.4667 -0.3606 0 0 0 0 0 0 -0.6364 0.1273 -0.0566 0 0 0
            """,
            (1, 6, 3),
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(MEL))
def test_mel_spectrogram_matches_keras(name):
    kwargs, expected = MEL[name]
    signal = SIGNAL[: len(expected)]
    layer = L.MelSpectrogram(**kwargs)
    out = layer(signal)
    assert out.dtype == ek.float32
    np.testing.assert_allclose(out.numpy(), expected, atol=2e-4)
    assert tuple(layer.compute_output_shape(signal.shape)) == tuple(out.shape)
    assert tuple(layer.compute_output_shape((None, 16))) == (None, out.shape[1], out.shape[2])
    if name == "magnitude":  # one signal: its row of the batch (top_db depends on the batch)
        np.testing.assert_allclose(layer(signal[1]).numpy(), out.numpy()[1], atol=1e-5)


def test_mel_spectrogram_config_and_errors():
    layer = L.MelSpectrogram(fft_length=64, sequence_stride=16, num_mel_bins=8)
    config = layer.get_config()
    assert config["sequence_length"] == 64 and config["max_freq"] == 8000
    again = L.MelSpectrogram.from_config(config)
    assert again.get_config() == config
    x = np.random.default_rng(0).normal(size=(2, 200)).astype(np.float32)
    np.testing.assert_array_equal(again(x).numpy(), layer(x).numpy())
    assert layer(x).shape == (2, 8, 13)
    with pytest.raises(ValueError, match="`fft_length` must be greater than or equal to"):
        L.MelSpectrogram(fft_length=16, sequence_length=32)
    assert L.MelSpectrogram(64, 16, dtype="float64")(x).dtype == ek.float64


@pytest.mark.parametrize("name", sorted(STFT))
def test_stft_spectrogram_matches_keras(name):
    kwargs, expected = STFT[name]
    x = STEREO if "data_format" not in kwargs else np.transpose(STEREO, (0, 2, 1))
    layer = L.STFTSpectrogram(**kwargs)
    out = layer(x).numpy()
    difference = out - np.asarray(expected)
    if name == "angle":  # pi and -pi are one angle (the imaginary part rounds to +-1e-8)
        difference = np.angle(np.exp(1j * difference))
    np.testing.assert_allclose(difference, 0.0, atol=2e-4)
    assert layer.compute_output_shape(x.shape) == out.shape
    assert layer.compute_output_shape((None, *x.shape[1:]))[1:] == out.shape[1:]


def test_stft_weights_shapes_and_training():
    layer = L.STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4)
    x = np.random.default_rng(1).normal(size=(3, 32, 2)).astype(np.float32)
    out = layer(x)
    assert out.shape == (3, 7, 2 * 5)
    assert [(w.name.split("/")[-1], tuple(w.shape)) for w in layer.trainable_weights] == [
        ("real_kernel:0", (8, 1, 5)),
        ("imag_kernel:0", (8, 1, 5)),
    ]
    assert len(L.STFTSpectrogram(mode="real", frame_length=4)(x).shape) == 3
    assert [w.name for w in L.STFTSpectrogram(mode="imag", frame_length=4).weights] == []
    frozen = L.STFTSpectrogram(frame_length=8, trainable=False)
    frozen(x)
    assert frozen.trainable_weights == [] and len(frozen.non_trainable_weights) == 2
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(layer(x))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert all(g is not None and np.isfinite(g.numpy()).all() for g in grads)
    # expand_dims: one spectrogram per channel; same values as the stacked bins
    expanded = L.STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4, expand_dims=True)
    values = expanded(x).numpy()
    assert values.shape == (3, 7, 5, 2)
    np.testing.assert_allclose(np.transpose(values, (0, 1, 3, 2)).reshape(3, 7, 10), out.numpy())
    # the window's norm scales the kernels: a rectangular window with spectrum scaling gives
    # the frames' means at the DC bin
    real = L.STFTSpectrogram("real", frame_length=4, frame_step=4, window=None)
    np.testing.assert_allclose(
        real(x).numpy()[:, :, 0],
        x[:, 0::4, 0] + x[:, 1::4, 0] + x[:, 2::4, 0] + x[:, 3::4, 0],
        rtol=1e-5,
    )
    mean = L.STFTSpectrogram("real", 4, 4, window=np.ones(4), scaling="spectrum")(x).numpy()
    np.testing.assert_allclose(mean[:, :, 0], real(x).numpy()[:, :, 0] / 4, rtol=1e-5)


def test_stft_config_and_errors():
    layer = L.STFTSpectrogram(mode="psd", frame_length=10, padding="same", periodic=True)
    config = layer.get_config()
    assert config["frame_step"] is None and config["fft_length"] is None
    assert (layer._frame_step, layer._fft_length) == (5, 16)
    assert L.STFTSpectrogram.from_config(config).get_config() == config
    cases = [
        ({"frame_length": 4, "frame_step": 5}, "`frame_step` should be a positive integer"),
        ({"frame_length": 8, "fft_length": 4}, "`fft_length` should be not less than"),
        ({"mode": "power"}, "Output mode is invalid"),
        ({"scaling": "l2"}, "Scaling is invalid"),
        ({"padding": "causal"}, "Padding is invalid"),
        ({"data_format": "NCW"}, "`data_format` argument must be one of"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            L.STFTSpectrogram(**kwargs)
    with pytest.warns(UserWarning, match="recommended to be a power of two"):
        L.STFTSpectrogram(frame_length=4, fft_length=6)
    with pytest.raises(TypeError, match="Expected `float16`, `float32` or `float64`"):
        L.STFTSpectrogram(frame_length=4)(np.ones((1, 8, 1), np.int32))
    with pytest.raises(ValueError, match="ndim"):
        L.STFTSpectrogram(frame_length=4)(np.ones((8, 1), np.float32))
    with pytest.raises(ValueError, match=r"shape of `window` must be equal to \[frame_length\]"):
        L.STFTSpectrogram(frame_length=4, window=np.ones(3))(np.ones((1, 8, 1), np.float32))


def test_graph_functions_recompute_spectrograms():
    rng = np.random.default_rng(2)
    a, b = (rng.normal(size=(2, 64)).astype(np.float32) for _ in range(2))
    mel = L.MelSpectrogram(fft_length=32, sequence_stride=8, sampling_rate=1000, num_mel_bins=6)
    stft = L.STFTSpectrogram(frame_length=16, frame_step=8)
    f = ek.function(lambda x: (mel(x), stft(ek.expand_dims(x, -1))))
    for x in (a, b, a):
        m, s = f(x)
        np.testing.assert_allclose(m.numpy(), mel(x).numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(s.numpy(), stft(x[..., None]).numpy(), rtol=1e-5)
