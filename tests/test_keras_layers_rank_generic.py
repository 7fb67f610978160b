"""Behaviour the 1-D, 2-D and 3-D conv, pooling and shape layers share through their
rank-generic bases (conv_base.py, conv_depthwise.py, pooling.py, reshaping.py): what one rank
had and its siblings lacked, checked against Keras's documented behaviour and NumPy loops."""

from __future__ import annotations

import numpy as np
import pytest
from keras_layer_refs import (
    check_layer_gradients,
    np_conv,
    np_conv_transpose,
    np_pool,
    rand,
    roundtrip,
)

import eagerkernel as ek

layers = ek.keras.layers

CONVS = {1: layers.Conv1D, 2: layers.Conv2D, 3: layers.Conv3D}
TRANSPOSES = {1: layers.Conv1DTranspose, 2: layers.Conv2DTranspose, 3: layers.Conv3DTranspose}
LAYOUTS = {
    1: ("NWC", r"\[0, 2, 1\]"),
    2: ("NHWC", r"\[0, 2, 3, 1\]"),
    3: ("NDHWC", r"\[0, 2, 3, 4, 1\]"),
}


def _shape(rank, n=5, channels=3, batch=2):
    return (batch, *(n,) * rank, channels)


# -- convolutions of every rank ------------------------------------------------------------------
@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize(
    "padding, strides, dilation", [("valid", 1, 1), ("same", 2, 1), ("valid", 1, 2)]
)
def test_conv_of_every_rank_against_numpy_loop(rank, padding, strides, dilation):
    layer = CONVS[rank](
        4, 3, strides=strides, padding=padding, dilation_rate=dilation, bias_initializer="ones"
    )
    x = rand(*_shape(rank))
    y = layer(x).numpy()
    kernel, bias = (w.numpy() for w in layer.weights)
    assert kernel.shape == (*(3,) * rank, 3, 4)
    assert layer.kernel_size == (3,) * rank and layer.strides == (strides,) * rank
    assert layer.dilation_rate == (dilation,) * rank  # Keras keeps rank-long tuples, 1-D too
    ref = np_conv(x, kernel, layer.strides, padding, layer.dilation_rate) + bias
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    assert y.shape == layer.compute_output_shape(x.shape)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_every_conv_checks_the_channels_it_was_built_for(rank):
    # Keras's input spec fixes axis -1 at build: the 2-D layer checked it, now every rank
    # (Conv1D and Conv2DTranspose did not), naming the kernel's shape.
    for layer, kernel in (
        (CONVS[rank](2, 1, name="c"), (*(1,) * rank, 3, 2)),
        (TRANSPOSES[rank](2, 1, name="c"), (*(1,) * rank, 2, 3)),
    ):
        layer(ek.ones(_shape(rank, 2, 3, 1)))
        with pytest.raises(ValueError) as info:
            layer(ek.ones(_shape(rank, 2, 4, 1)))
        message = str(info.value)
        assert 'Input 0 of layer "c" is incompatible with the layer' in message
        assert "expected axis -1 of input shape to have value 3" in message
        assert f"kernel shape {kernel}" in message
        assert f"but received input with shape {_shape(rank, 2, 4, 1)}" in message


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_every_rank_names_its_own_layout_for_channels_first(rank):
    # Conv1D and the 1-D global poolings named NHWC (their 2-D sibling's); each now names its own.
    layout, perm = LAYOUTS[rank]
    makers = [
        lambda: CONVS[rank](2, 3, data_format="channels_first"),
        lambda: TRANSPOSES[rank](2, 3, data_format="channels_first"),
        lambda: {1: layers.MaxPooling1D, 2: layers.MaxPooling2D, 3: layers.MaxPooling3D}[rank](
            data_format="channels_first"
        ),
        lambda: {
            1: layers.GlobalAveragePooling1D,
            2: layers.GlobalAveragePooling2D,
            3: layers.GlobalAveragePooling3D,
        }[rank](data_format="channels_first"),
        lambda: {
            1: layers.GlobalMaxPooling1D,
            2: layers.GlobalMaxPooling2D,
            3: layers.GlobalMaxPooling3D,
        }[rank](data_format="channels_first"),
        lambda: {1: layers.ZeroPadding1D, 2: layers.ZeroPadding2D, 3: layers.ZeroPadding3D}[rank](
            data_format="channels_first"
        ),
    ]
    for make in makers:
        with pytest.raises(ValueError, match=rf"channels_first.*\({layout}\).*{perm}"):
            make()


def test_conv_configs_have_groups_and_transposes_do_not():
    # Keras's Conv1D/2D/3D configs carry `groups` (ours: only Conv3D's did); the transposed,
    # depthwise and separable layers' configs have none.
    for cls in CONVS.values():
        config = roundtrip(cls(2, 3)).get_config()
        assert config["groups"] == 1
        assert cls(2, 3, groups=2).get_config()["groups"] == 2  # Keras's grouped convolution
    for layer in (
        *(cls(2, 3) for cls in TRANSPOSES.values()),
        layers.DepthwiseConv1D(3),
        layers.DepthwiseConv2D(3),
        layers.SeparableConv1D(2, 3),
        layers.SeparableConv2D(2, 3),
    ):
        assert "groups" not in layer.get_config()


def test_causal_padding_is_conv1d_only():
    # Keras accepts "causal" for Conv1D alone; it stays the layer's padding, as in Keras.
    layer = layers.Conv1D(2, 3, padding="causal", dilation_rate=2)
    assert layer.padding == "causal" and roundtrip(layer).padding == "causal"
    assert layer.compute_output_shape((None, 7, 3)) == (None, 7, 2)
    assert layers.Conv1D(2, 3, strides=2, padding="causal").compute_output_shape((1, 7, 3)) == (
        1,
        4,
        2,
    )
    with pytest.raises(ValueError, match=r"'valid', 'same' or 'causal'. Received: padding='full'"):
        layers.Conv1D(2, 3, padding="full")
    for make in (
        lambda: layers.Conv2D(2, 3, padding="causal"),
        lambda: layers.Conv3D(2, 3, padding="causal"),
        lambda: layers.Conv1DTranspose(2, 3, padding="causal"),
        lambda: layers.DepthwiseConv1D(3, padding="causal"),
        lambda: layers.SeparableConv1D(2, 3, padding="causal"),
    ):
        with pytest.raises(ValueError, match=r"'valid' or 'same'. Received: padding='causal'"):
            make()


# -- transposed convolutions: output_padding for every rank --------------------------------------
@pytest.mark.parametrize(
    "kwargs, shape",
    [
        ({"kernel_size": 3, "strides": 2, "output_padding": 1}, (2, 3, 4, 3)),
        ({"kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1}, (1, 4, 3, 2)),
        ({"kernel_size": (2, 3), "strides": (3, 2), "output_padding": (2, 0)}, (1, 2, 3, 1)),
        ({"kernel_size": 1, "strides": 3, "output_padding": (1, 2)}, (1, 2, 2, 2)),
    ],
)
def test_conv2d_transpose_output_padding_against_numpy_loop(kwargs, shape):
    # Conv2DTranspose raised NotImplementedError for output_padding; Conv1D/3DTranspose had it.
    layer = layers.Conv2DTranspose(2, **kwargs, bias_initializer="glorot_uniform")
    x = rand(*shape)
    y = layer(x).numpy()
    kernel, bias = (w.numpy() for w in layer.weights)
    # Keras's deconv_output_length: (n - 1) * s + k - 2 * pad + output_padding
    pads = layer.output_padding
    expected = tuple(
        (n - 1) * s + k - 2 * (k // 2 if layer.padding == "same" else 0) + p
        for n, k, s, p in zip(shape[1:3], layer.kernel_size, layer.strides, pads)
    )
    assert y.shape == (shape[0], *expected, 2) == layer.compute_output_shape(shape)
    ref = np_conv_transpose(x, kernel, expected, layer.strides, layer.padding) + bias
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_conv2d_transpose_output_padding_gradients_and_config():
    layer = layers.Conv2DTranspose(
        2, 3, strides=2, output_padding=1, dtype="float64", bias_initializer="glorot_uniform"
    )
    check_layer_gradients(layer, rand(1, 2, 3, 2).astype(np.float64))
    clone = roundtrip(layers.Conv2DTranspose(3, 2, strides=(2, 3), output_padding=(1, 2)))
    assert clone.output_padding == (1, 2)
    assert layers.Conv2DTranspose(3, 2).get_config()["output_padding"] is None
    with pytest.raises(
        ValueError, match=r"At dimension 1, `output_padding` is 2 but `strides` is 2"
    ):
        layers.Conv2DTranspose(2, 3, strides=2, output_padding=(1, 2))
    with pytest.raises(ValueError, match=r"tuple of 2 integers. Received: output_padding"):
        layers.Conv2DTranspose(2, 3, strides=2, output_padding=(1, 1, 1))


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_transposes_keep_keras_positional_order(rank):
    # Keras: Conv1D/2DTranspose(filters, kernel_size, strides, padding, output_padding, ...),
    # Conv3DTranspose(filters, kernel_size, strides, padding, data_format, output_padding, ...).
    if rank == 3:
        layer = layers.Conv3DTranspose(2, 3, 2, "valid", None, 1)
    else:
        layer = TRANSPOSES[rank](2, 3, 2, "valid", 1)
    assert layer.output_padding == (1,) * rank and layer.strides == (2,) * rank


# -- depthwise and separable ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "make",
    [
        lambda: layers.DepthwiseConv1D(3, kernel_initializer="ones"),
        lambda: layers.DepthwiseConv2D(3, kernel_regularizer="l2"),
        lambda: layers.SeparableConv1D(2, 3, kernel_constraint=None),
        lambda: layers.SeparableConv2D(2, 3, groups=1),
    ],
)
def test_depthwise_layers_refuse_the_kernel_arguments_they_do_not_use(make):
    # These were accepted and ignored; the depthwise kernel takes depthwise_* (Keras's Layer
    # refuses unknown keyword arguments too).
    with pytest.raises(TypeError, match=r"unexpected keyword argument '(kernel_\w+|groups)'"):
        make()


@pytest.mark.parametrize("rank", [1, 2])
def test_depthwise_of_both_ranks_against_numpy(rank):
    cls = {1: layers.DepthwiseConv1D, 2: layers.DepthwiseConv2D}[rank]
    layer = cls(3, depth_multiplier=2, padding="same", bias_initializer="ones")
    x = rand(*_shape(rank, 6, 2, 1))
    y = layer(x).numpy()
    dw, bias = (w.numpy() for w in layer.weights)
    # one conv per input channel c with its own depth_multiplier filters
    parts = [
        np_conv(x[..., c : c + 1], dw[..., c : c + 1, :], (1,) * rank, "same") for c in range(2)
    ]
    np.testing.assert_allclose(y, np.concatenate(parts, axis=-1) + bias, rtol=1e-5, atol=1e-5)
    assert y.shape == layer.compute_output_shape(x.shape) == (1, *(6,) * rank, 4)


# -- pooling -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling1d_keeps_keras_tuples_and_matches_numpy(kind, padding):
    cls = layers.MaxPooling1D if kind == "max" else layers.AveragePooling1D
    layer = cls(3, strides=2, padding=padding)
    # Keras's BasePooling keeps rank-long tuples (1-D too), as the 2-D and 3-D layers did
    assert layer.pool_size == (3,) and layer.strides == (2,)
    assert roundtrip(layer).pool_size == (3,)
    assert cls().pool_size == (2,) and cls().strides == (2,)
    x = rand(2, 7, 3)
    y = layer(x).numpy()
    ref = np_pool(x, (3,), (2,), padding, "max" if kind == "max" else "mean")
    np.testing.assert_allclose(y, ref, rtol=1e-6, atol=1e-6)
    assert y.shape == layer.compute_output_shape(x.shape)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_global_pooling_of_every_rank(rank):
    x = rand(*_shape(rank, 3, 4))
    axes = tuple(range(1, rank + 1))
    for cls, ref in (
        (getattr(layers, f"GlobalAveragePooling{rank}D"), x.mean(axes, keepdims=True)),
        (getattr(layers, f"GlobalMaxPooling{rank}D"), x.max(axes, keepdims=True)),
    ):
        kept = cls(keepdims=True)
        np.testing.assert_allclose(kept(x).numpy(), ref, rtol=1e-5)
        assert kept.compute_output_shape(x.shape) == ref.shape
        np.testing.assert_allclose(cls()(x).numpy(), ref.reshape(x.shape[0], -1), rtol=1e-5)
        with pytest.raises(ValueError, match=rf"expected ndim={rank + 2}, found ndim={rank + 3}"):
            cls()(ek.ones((*x.shape, 1)))


# -- zero padding, cropping, up-sampling ---------------------------------------------------------
@pytest.mark.parametrize(
    "layer, rank",
    [
        (layers.ZeroPadding1D(), 1),
        (layers.ZeroPadding2D(), 2),
        (layers.Cropping1D(), 1),
        (layers.Cropping2D(), 2),
        (layers.UpSampling1D(), 1),
        (layers.UpSampling2D(), 2),
    ],
)
def test_shape_layers_check_the_rank_of_compute_output_shape(layer, rank):
    # The 3-D layers checked it (Keras's input spec); the 1-D and 2-D ones unpacked the shape.
    with pytest.raises(ValueError, match=rf"expected ndim={rank + 2}, found ndim={rank + 3}"):
        layer.compute_output_shape((None, *(6,) * (rank + 1), 2))
    with pytest.raises(ValueError, match=rf"expected ndim={rank + 2}, found ndim={rank + 1}"):
        layer(ek.ones((1, *(6,) * (rank - 1), 2)))


def test_shape_layers_keep_keras_attribute_forms():
    # Keras keeps the 1-D forms flat: one (left, right) pair, an int size; no data_format
    # argument for Cropping1D and UpSampling1D.
    assert layers.ZeroPadding1D((1, 2)).padding == (1, 2)
    assert layers.ZeroPadding2D((1, 2)).padding == ((1, 1), (2, 2))
    assert layers.Cropping1D(2).cropping == (2, 2)
    assert layers.Cropping2D(((1, 0), (0, 2))).cropping == ((1, 0), (0, 2))
    assert layers.UpSampling1D(3).size == 3 and layers.UpSampling2D(3).size == (3, 3)
    assert "data_format" not in layers.Cropping1D().get_config()
    assert "data_format" not in layers.UpSampling1D().get_config()
    assert roundtrip(layers.ZeroPadding1D((1, 2))).padding == (1, 2)
    assert roundtrip(layers.UpSampling2D((2, 3), interpolation="bilinear")).size == (2, 3)
    for make in (
        lambda: layers.Cropping1D(data_format="channels_last"),
        lambda: layers.UpSampling1D(data_format=None),
    ):
        with pytest.raises(TypeError):
            make()


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_up_sampling_and_padding_of_every_rank_against_numpy(rank):
    x = rand(*_shape(rank, 3, 2, 1))
    up = getattr(layers, f"UpSampling{rank}D")(2)
    ref = x
    for axis in range(1, rank + 1):
        ref = ref.repeat(2, axis=axis)
    np.testing.assert_array_equal(up(x).numpy(), ref)
    assert up.compute_output_shape((None, *(3,) * rank, 2)) == (None, *(6,) * rank, 2)
    pad = getattr(layers, f"ZeroPadding{rank}D")(1)
    np.testing.assert_array_equal(pad(x).numpy(), np.pad(x, [(0, 0), *[(1, 1)] * rank, (0, 0)]))
    crop = getattr(layers, f"Cropping{rank}D")(1)
    np.testing.assert_array_equal(crop(x).numpy(), x[(slice(None), *[slice(1, 2)] * rank)])
