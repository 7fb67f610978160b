"""keras.applications MobileNet, DenseNet121/169/201, InceptionV3 and MobileNetV3Small/Large
against Keras 3's: parameter counts, model names, layer names and output shapes, their
arguments and errors, preprocess_input, and small forward passes (a DenseNet ``conv_block`` and
MobileNet's first blocks against NumPy references).

The constants come from Keras 3.15.1 (TensorFlow 2.21) ``model.count_params()``, ``model.name``,
``model.output_shape`` and ``[l.name for l in model.layers]`` with ``weights=None`` (default
input 224x224x3, InceptionV3 299x299x3). The forward outputs of these architectures were also
compared once with Keras's on identical weights (copied in ``model.weights`` order, random
BatchNormalization statistics): relative differences under 5e-7; that check needs TensorFlow,
so it is not repeated here.
"""

import re

import numpy as np
import pytest

import eagerkernel as ek

A = ek.keras.applications

V3S, V3L = A.MobileNetV3Small, A.MobileNetV3Large
MINIMAL, MINIMAL_125 = {"minimalistic": True}, {"minimalistic": True, "alpha": 1.25}

# name: (builder, kwargs, Keras 3's count_params(), model name, len(layers), output_shape)
KERAS = {
    "MobileNet": (A.MobileNet, {}, 4253864, "mobilenet_1.00_224", 91, (None, 1000)),
    "DenseNet121": (A.DenseNet121, {}, 8062504, "densenet121", 429, (None, 1000)),
    "DenseNet169": (A.DenseNet169, {}, 14307880, "densenet169", 597, (None, 1000)),
    "DenseNet201": (A.DenseNet201, {}, 20242984, "densenet201", 709, (None, 1000)),
    "InceptionV3": (A.InceptionV3, {}, 23851784, "inception_v3", 313, (None, 1000)),
    # Keras 3's squeeze-and-excite ``+ 3`` and ``* (1 / 6)`` are operations, not layers.
    "MobileNetV3Small": (V3S, {}, 2554968, "MobileNetV3Small", 164, (None, 1000)),
    "MobileNetV3Large": (V3L, {}, 5507432, "MobileNetV3Large", 194, (None, 1000)),
    "V3Small-minimalistic": (V3S, MINIMAL, 2056848, "MobileNetV3Small", 110, (None, 1000)),
    "V3Large-minimalistic": (V3L, MINIMAL_125, 5788928, "MobileNetV3Large", 145, (None, 1000)),
}

# Smaller configurations, from Keras 3 in the same way:
# (builder, kwargs, count_params(), len(layers), output_shape, last layer's name)
KERAS_SMALL = [
    (A.MobileNet, dict(alpha=0.5, depth_multiplier=2, include_top=False,
                       input_shape=(32, 32, 3), pooling="avg"),
     1646672, 87, (None, 512), "global_average_pooling2d"),
    (A.MobileNet, dict(alpha=0.25, include_top=False, input_shape=(64, 48, 3), pooling="max"),
     218544, 87, (None, 256), "global_max_pooling2d"),
    (A.MobileNet, dict(input_shape=(32, 32, 3), classes=10, alpha=0.75),
     1840666, 91, (None, 10), "predictions"),
    (A.DenseNet121, dict(include_top=False, input_shape=(32, 32, 3)),
     7037504, 427, (None, 1, 1, 1024), "relu"),
    (A.DenseNet121, dict(include_top=False, input_shape=(32, 32, 3), pooling="max"),
     7037504, 428, (None, 1024), "max_pool"),
    (A.InceptionV3, dict(include_top=False, input_shape=(75, 75, 3)),
     21802784, 311, (None, 1, 1, 2048), "mixed10"),
    (A.InceptionV3, dict(include_top=False, pooling="avg"),
     21802784, 312, (None, 2048), "global_average_pooling2d"),
    (A.MobileNetV3Small, dict(alpha=0.75, include_top=False, input_shape=(32, 32, 3),
                              pooling="avg", include_preprocessing=False),
     583160, 157, (None, 432), "avg_pool"),
    (A.MobileNetV3Large, dict(include_top=False, input_shape=(224, 224, 3)),
     2996352, 187, (None, 7, 7, 960), "activation"),
    (A.MobileNetV3Large, dict(classes=10, dropout_rate=0.0, input_shape=(64, 64, 3)),
     4239242, 193, (None, 10), "predictions"),
]  # fmt: skip


def _base(name):
    """A layer's name without the ``_<n>`` a second unnamed layer of its class gets."""
    return re.sub(r"_\d+$", "", name)


@pytest.fixture(scope="module")
def models():
    return {key: b(weights=None, **kw) for key, (b, kw, *_) in KERAS.items()}


@pytest.mark.parametrize("key", list(KERAS))
def test_counts_names_and_shapes_are_keras_3s(models, key):
    _, _, params, name, n_layers, output_shape = KERAS[key]
    model = models[key]
    assert (model.count_params(), model.name, len(model.layers)) == (params, name, n_layers)
    assert model.output_shape == output_shape
    assert model.layers[-1].name == "predictions"


def test_layer_names_are_keras_3s(models):
    names = {key: [la.name for la in m.layers] for key, m in models.items()}
    assert names["MobileNet"][1:8] == [
        "conv1", "conv1_bn", "conv1_relu", "conv_dw_1", "conv_dw_1_bn", "conv_dw_1_relu",
        "conv_pw_1",
    ]  # fmt: skip
    assert names["MobileNet"][-4:] == ["dropout", "conv_preds", "reshape_2", "predictions"]
    assert "conv_pad_2" in names["MobileNet"] and "conv_pw_13_relu" in names["MobileNet"]
    assert names["DenseNet121"][2:11] == [
        "conv1_conv", "conv1_bn", "conv1_relu", names["DenseNet121"][5], "pool1",
        "conv2_block1_0_bn", "conv2_block1_0_relu", "conv2_block1_1_conv", "conv2_block1_1_bn",
    ]  # fmt: skip
    assert names["DenseNet121"][-6:] == [
        "conv5_block16_2_conv", "conv5_block16_concat", "bn", "relu", "avg_pool", "predictions"
    ]  # fmt: skip
    for stage in (2, 3, 4):
        assert [f"pool{stage}_{s}" for s in ("bn", "relu", "conv", "pool")] == [
            n for n in names["DenseNet121"] if n.startswith(f"pool{stage}_")
        ]
    assert "conv4_block32_concat" in names["DenseNet169"]
    assert "conv4_block48_concat" in names["DenseNet201"]
    mixed = [n for n in names["InceptionV3"] if n.startswith("mixed")]
    assert mixed == [f"mixed{i}" for i in range(9)] + ["mixed9_0", "mixed9", "mixed9_1",
                                                       "mixed10"]  # fmt: skip
    assert names["InceptionV3"][-3:] == ["mixed10", "avg_pool", "predictions"]
    small = names["MobileNetV3Small"]  # its Rescaling layer is auto-named, as in Keras
    assert [_base(small[1]), *small[2:4]] == ["rescaling", "conv", "conv_bn"]
    assert [_base(n) for n in small[-5:]] == ["activation", "dropout", "logits", "flatten",
                                              "predictions"]  # fmt: skip
    assert small[-6] == "conv_2"
    for n in ("expanded_conv_depthwise_pad", "expanded_conv_squeeze_excite_conv_1",
              "expanded_conv_10_add", "conv_1_bn", "conv_2"):  # fmt: skip
        assert n in small
    assert "expanded_conv_14_project_bn" in names["MobileNetV3Large"]
    assert not any("squeeze_excite" in n for n in names["V3Small-minimalistic"])


@pytest.mark.parametrize("builder, kwargs, params, n_layers, output_shape, last", KERAS_SMALL)
def test_small_configurations_are_keras_3s(builder, kwargs, params, n_layers, output_shape,
                                           last):  # fmt: skip
    model = builder(weights=None, **kwargs)
    assert (model.count_params(), len(model.layers), model.output_shape) == (
        params, n_layers, output_shape,
    )  # fmt: skip
    assert _base(model.layers[-1].name) == last  # unnamed layers: Keras's name, numbered


def test_pooling_and_classes_with_and_without_top():
    for builder, size in ((A.MobileNet, 32), (A.DenseNet121, 32), (A.InceptionV3, 75),
                          (A.MobileNetV3Small, 32)):  # fmt: skip
        shape = (size, size, 3)
        top = builder(weights=None, input_shape=shape, classes=7, classifier_activation=None)
        assert top.output_shape == (None, 7)
        assert builder(weights=None, include_top=False, input_shape=shape).output_shape[:1] == (
            None,
        )
        for pooling in ("avg", "max"):
            pooled = builder(weights=None, include_top=False, input_shape=shape, pooling=pooling)
            assert len(pooled.output_shape) == 2
    # MobileNetV3 ends in global pooling: Keras's default input (None, None, 3) takes the top.
    assert A.MobileNetV3Large(weights=None).input_shape == (None, None, None, 3)
    assert A.MobileNet(weights=None, include_top=False).name == "mobilenet_1.00_None"
    assert A.MobileNet(weights=None, input_shape=(128, 128, 3)).name == "mobilenet_1.00_128"


def test_forward_passes_in_float32():
    ek.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    cases = [
        (A.MobileNet(weights=None, alpha=0.25, input_shape=(32, 32, 3), classes=3), 32),
        (A.DenseNet121(weights=None, include_top=False, input_shape=(32, 32, 3),
                       pooling="avg"), 32),
        (A.InceptionV3(weights=None, include_top=False, input_shape=(75, 75, 3)), 75),
        (A.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), classes=4), 32),
        (A.MobileNetV3Large(weights=None, minimalistic=True, include_top=False,
                            input_shape=(40, 48, 3), pooling="max"), (40, 48)),
    ]  # fmt: skip
    for model, size in cases:
        hw = size if isinstance(size, tuple) else (size, size)
        x = rng.uniform(0, 255, (2, *hw, 3)).astype(np.float32)
        y = model(x, training=False).numpy()
        assert y.dtype == np.float32 and y.shape == (2, *model.output_shape[1:])
        assert np.isfinite(y).all()
    np.testing.assert_allclose(cases[0][0](x[:, :32, :32]).numpy().sum(1), 1.0, rtol=1e-5)


def test_weights_file_loads(tmp_path):
    model = A.MobileNetV3Small(weights=None, input_shape=(32, 32, 3), classes=2)
    path = str(tmp_path / "small.weights.h5")
    model.save_weights(path)
    saved = str(next(tmp_path.iterdir()))
    again = A.MobileNetV3Small(weights=saved, input_shape=(32, 32, 3), classes=2)
    for a, b in zip(again.weights, model.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_arguments_and_errors_as_keras():
    for builder in (A.MobileNet, A.DenseNet121, A.InceptionV3, A.MobileNetV3Small):
        with pytest.raises(FileNotFoundError, match="downloads nothing at run time"):
            builder()  # Keras's default weights="imagenet"
        with pytest.raises(ValueError, match="`classes` should be 1000"):
            builder(classes=10)
    for builder, minimum in ((A.MobileNet, 32), (A.DenseNet169, 32), (A.InceptionV3, 75),
                             (A.MobileNetV3Large, 32)):  # fmt: skip
        small = (minimum - 1, minimum + 8, 3)
        with pytest.raises(
            ValueError, match=rf"^\w+: Input size must be at least {minimum}x{minimum}"
        ):
            builder(weights=None, include_top=False, input_shape=small)
    with pytest.raises(ValueError, match="depth multiplier must be 1"):
        A.MobileNet(depth_multiplier=2)
    with pytest.raises(ValueError, match="alpha can be one of"):
        A.MobileNet(alpha=0.3)
    with pytest.raises(ValueError, match="alpha can be one of"):
        A.MobileNetV3Small(alpha=0.5)
    with pytest.raises(ValueError, match="specify a static `input_shape`"):
        A.DenseNet121(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="pooling must be None, 'avg' or 'max'"):
        A.InceptionV3(weights=None, include_top=False, pooling="mean")
    inputs = ek.keras.Input((96, 96, 3))
    headless = A.DenseNet201(weights=None, include_top=False, input_tensor=inputs)
    assert headless.inputs[0] is inputs and headless.output_shape == (None, 3, 3, 1920)


def test_preprocess_input_per_module():
    x = np.array([[[[255.0, 0.0, 127.5]]]], np.float32)
    for module in (A.mobilenet, A.inception_v3):  # 'tf' mode: x / 127.5 - 1
        np.testing.assert_allclose(module.preprocess_input(x), [[[[1.0, -1.0, 0.0]]]])
    torch_mode = (x / 255.0 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    np.testing.assert_allclose(A.densenet.preprocess_input(x), torch_mode, rtol=1e-6)
    assert A.mobilenet_v3.preprocess_input(x) is x  # the models rescale their input
    for module in (A.mobilenet, A.densenet, A.inception_v3, A.mobilenet_v3):
        assert module.decode_predictions is A.imagenet_utils.decode_predictions


def _bn(x, gamma, beta, mean, var, eps):
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def _conv(x, kernel, stride=1, pad=((0, 0), (0, 0)), depthwise=False):
    """NHWC convolution (HWIO kernel) or depthwise convolution (kernel HW, in, multiplier)."""
    x = np.pad(x, ((0, 0), *pad, (0, 0)))
    kh, kw = kernel.shape[:2]
    oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = 0.0
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i : i + stride * oh : stride, j : j + stride * ow : stride]
            if depthwise:
                term = (patch[..., None] * kernel[i, j]).reshape(*patch.shape[:3], -1)
            else:
                term = patch @ kernel[i, j]
            out = out + term
    return out


def _random_weights(model, rng):
    values = []
    for w in model.weights:
        shape = tuple(w.shape)
        low = 0.5 if "variance" in w.name or "gamma" in w.name else -0.5
        values.append(rng.uniform(low, 1.5 if low > 0 else 0.5, shape).astype(np.float32))
    model.set_weights(values)
    return values


def test_densenet_conv_block_against_numpy():
    rng = np.random.default_rng(1)
    inputs = ek.keras.Input((6, 5, 8))
    block = ek.keras.Model(inputs, A.densenet.conv_block(inputs, 4, name="t"))
    assert block.output_shape == (None, 6, 5, 12)
    g0, b0, m0, v0, k1, g1, b1, m1, v1, k2 = _random_weights(block, rng)
    x = rng.normal(size=(2, 6, 5, 8)).astype(np.float32)
    h = np.maximum(_bn(x, g0, b0, m0, v0, 1.001e-5), 0) @ k1[0, 0]
    h = np.maximum(_bn(h, g1, b1, m1, v1, 1.001e-5), 0)
    expected = np.concatenate([x, _conv(h, k2, pad=((1, 1), (1, 1)))], axis=-1)
    np.testing.assert_allclose(block(x, training=False).numpy(), expected, rtol=1e-4, atol=1e-5)


def test_mobilenet_first_blocks_against_numpy():
    rng = np.random.default_rng(2)
    model = A.MobileNet(weights=None, alpha=0.25, depth_multiplier=2, include_top=False,
                        input_shape=(32, 32, 3))  # fmt: skip
    values = iter(_random_weights(model, rng))
    x = rng.normal(size=(2, 32, 32, 3)).astype(np.float32)
    head = ek.keras.Model(model.input, model.get_layer("conv_pw_2_relu").output)

    def bn_relu6(h):
        return np.clip(_bn(h, *(next(values) for _ in range(4)), 1e-3), 0, 6)

    h = bn_relu6(_conv(x, next(values), 2, ((0, 1), (0, 1))))  # conv1: "same", stride 2
    h = bn_relu6(_conv(h, next(values), 1, ((1, 1), (1, 1)), depthwise=True))  # conv_dw_1
    h = bn_relu6(h @ next(values)[0, 0])  # conv_pw_1
    h = bn_relu6(_conv(h, next(values), 2, ((0, 1), (0, 1)), depthwise=True))  # conv_dw_2
    h = bn_relu6(h @ next(values)[0, 0])  # conv_pw_2
    assert h.shape == (2, 8, 8, 32)
    np.testing.assert_allclose(head(x, training=False).numpy(), h, rtol=1e-4, atol=1e-4)


# EfficientNetB0..B7 from Keras 3 in the same way: (count_params(), len(layers), input size);
# the counts include the Normalization layer's mean, variance and count (7 values).
EFFICIENTNET = {
    0: (5330571, 240, 224),
    1: (7856239, 342, 240),
    2: (9177569, 342, 260),
    3: (12320535, 387, 300),
    4: (19466823, 477, 380),
    5: (30562527, 579, 456),
    6: (43265143, 669, 528),
    7: (66658687, 816, 600),
}


@pytest.mark.parametrize("variant", list(EFFICIENTNET))
def test_efficientnet_counts_are_keras_3s(variant):
    params, n_layers, size = EFFICIENTNET[variant]
    model = getattr(A, f"EfficientNetB{variant}")(weights=None)
    assert (model.count_params(), len(model.layers)) == (params, n_layers)
    assert (model.name, model.input_shape) == (f"efficientnetb{variant}", (None, size, size, 3))
    names = [la.name for la in model.layers]
    assert [_base(n) for n in names[1:3]] == ["rescaling", "normalization"]
    assert names[3:6] == ["stem_conv_pad", "stem_conv", "stem_bn"]
    assert names[-3:] == ["avg_pool", "top_dropout", "predictions"]
    assert "block1a_se_excite" in names and "block7a_project_bn" in names


def test_efficientnet_small_configurations_and_forward():
    model = A.EfficientNetB0(weights=None, include_top=False, input_shape=(32, 32, 3))
    assert (model.count_params(), len(model.layers)) == (4049571, 237)
    assert model.output_shape == (None, 1, 1, 1280) and model.layers[-1].name == "top_activation"
    names = [la.name for la in model.layers]
    assert names[6:10] == ["stem_activation", "block1a_dwconv", "block1a_bn", "block1a_activation"]
    assert "block2b_drop" in names and "block2b_add" in names and "block2a_add" not in names
    pooled = A.EfficientNetB3(weights=None, include_top=False, input_shape=(64, 64, 3),
                              pooling="max")  # fmt: skip
    assert (pooled.count_params(), pooled.output_shape) == (10783535, (None, 1536))
    assert pooled.layers[-1].name == "max_pool"
    top = A.EfficientNetB1(weights=None, input_shape=(32, 32, 3), classes=10)
    assert (top.count_params(), top.output_shape) == (6588049, (None, 10))
    x = np.random.default_rng(3).uniform(0, 255, (2, 32, 32, 3)).astype(np.float32)
    probs = top(x, training=False).numpy()
    assert probs.dtype == np.float32 and np.isfinite(probs).all()
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    assert A.efficientnet.preprocess_input(x) is x  # the models rescale their input
    assert A.efficientnet.decode_predictions is A.imagenet_utils.decode_predictions
    with pytest.raises(FileNotFoundError, match="downloads nothing at run time"):
        A.EfficientNetB0()
    with pytest.raises(ValueError, match="at least 32x32"):
        A.EfficientNetB0(weights=None, include_top=False, input_shape=(16, 16, 3))
