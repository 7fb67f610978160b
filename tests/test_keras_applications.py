"""keras.applications: the architectures against Keras 3.15's (parameter counts, layer names
and weight shapes measured with `keras.applications` on TensorFlow 2.21, weights=None), their
arguments and errors, weights files, preprocess_input and decode_predictions."""

import json

import numpy as np
import pytest

import eagerkernel as ek

A = ek.keras.applications


def test_parameter_counts_and_names_are_keras_3s():
    resnet = A.ResNet50(weights=None)
    assert (resnet.count_params(), len(resnet.layers), resnet.name) == (25636712, 177, "resnet50")
    assert [la.name for la in resnet.layers[1:8]] == [
        "conv1_pad", "conv1_conv", "conv1_bn", "conv1_relu", "pool1_pad", "pool1_pool",
        "conv2_block1_1_conv",
    ]  # fmt: skip
    assert [tuple(w.shape) for w in resnet.weights[:3]] == [(7, 7, 3, 64), (64,), (64,)]
    mobile = A.MobileNetV2(weights=None)
    assert (mobile.count_params(), len(mobile.layers)) == (3538984, 156)
    assert mobile.name == "mobilenetv2_1.00_224"
    assert [la.name for la in mobile.layers[-6:-2]] == ["block_16_project_BN", "Conv_1",
                                                          "Conv_1_bn", "out_relu"]  # fmt: skip
    vgg = A.VGG16(weights=None, input_shape=(32, 32, 3), classes=10)
    assert (vgg.count_params(), vgg.output_shape) == (33638218, (None, 10))
    small = A.MobileNetV2(
        weights=None, alpha=0.5, input_shape=(96, 96, 3), include_top=False, pooling="avg"
    )
    assert small.output_shape == (None, 1280)


def test_a_small_resnet_trains_and_its_weights_file_loads(tmp_path):
    ek.keras.utils.set_random_seed(0)
    model = A.ResNet50(weights=None, input_shape=(32, 32, 3), classes=3)
    x = np.random.default_rng(0).random((2, 32, 32, 3)).astype(np.float32)
    probs = model(x).numpy()
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)  # softmax top
    model.compile(ek.keras.optimizers.SGD(1e-4), "sparse_categorical_crossentropy")
    before = [w.numpy().copy() for w in model.trainable_weights]
    history = model.fit(x, np.array([0, 2]), epochs=1, verbose=0).history
    assert np.isfinite(history["loss"][0])
    assert any(not np.allclose(a, w.numpy()) for a, w in zip(before, model.trainable_weights))
    assert all(np.isfinite(w.numpy()).all() for w in model.weights)
    path = str(tmp_path / "resnet.weights.h5")
    model.save_weights(path)
    saved = next(tmp_path.iterdir())
    again = A.ResNet50(weights=str(saved), input_shape=(32, 32, 3), classes=3)
    for a, b in zip(again.weights, model.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # (After one step on two images the moving statistics make inference overflow, in Keras
    # 3 too: the outputs are NaN there as here.)


def test_arguments_and_errors_as_keras():
    with pytest.raises(FileNotFoundError, match="downloads nothing at run time"):
        A.VGG16()  # Keras's default weights="imagenet"
    with pytest.raises(ValueError, match="`classes` should be 1000"):
        A.ResNet50(classes=10)
    with pytest.raises(ValueError, match="should be either `None`"):
        A.MobileNetV2(weights="/no/such/file")
    with pytest.raises(ValueError, match="specify a static `input_shape`"):
        A.VGG19(weights=None, input_shape=(None, None, 3))
    with pytest.raises(ValueError, match="at least 32x32"):
        A.ResNet50(weights=None, input_shape=(16, 16, 3), include_top=False)
    with pytest.raises(ValueError, match="pooling must be None, 'avg' or 'max'"):
        A.VGG16(weights=None, include_top=False, pooling="mean")
    inputs = ek.keras.Input((64, 64, 3))
    headless = A.VGG16(weights=None, include_top=False, input_tensor=inputs)
    assert headless.inputs[0] is inputs and headless.output_shape == (None, 2, 2, 512)


def test_preprocess_input_modes():
    x = np.array([[[[255.0, 0.0, 127.5]]]], np.float32)
    np.testing.assert_allclose(A.mobilenet_v2.preprocess_input(x), [[[[1.0, -1.0, 0.0]]]])
    caffe = A.resnet50.preprocess_input(x)  # BGR minus the ImageNet means
    np.testing.assert_allclose(caffe, [[[[127.5 - 103.939, -116.779, 255.0 - 123.68]]]], rtol=1e-6)
    torch_mode = A.imagenet_utils.preprocess_input(ek.constant(x), mode="torch")
    expected = (x / 255.0 - [0.485, 0.456, 0.406]) / [0.229, 0.224, 0.225]
    np.testing.assert_allclose(torch_mode.numpy(), expected, rtol=1e-6)
    assert isinstance(torch_mode, ek.Tensor)
    images = ek.constant(x)  # a Tensor goes through tensor ops: differentiable
    with ek.GradientTape() as tape:
        tape.watch(images)
        total = ek.reduce_sum(A.mobilenet_v2.preprocess_input(images))
    np.testing.assert_allclose(tape.gradient(total, images).numpy(), 1 / 127.5, rtol=1e-6)
    with pytest.raises(ValueError, match="mode must be"):
        A.imagenet_utils.preprocess_input(x, mode="bogus")


def test_decode_predictions_reads_keras_class_index(tmp_path, monkeypatch):
    preds = np.zeros((1, 1000), np.float32)
    preds[0, [3, 7]] = [0.25, 0.75]
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"imagenet_class_index\.json"):
        A.vgg16.decode_predictions(preds)
    (tmp_path / "models").mkdir()
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    (tmp_path / "models" / "imagenet_class_index.json").write_text(json.dumps(index))
    top = A.vgg16.decode_predictions(preds, top=2)
    assert top == [[("n00000007", "class_7", 0.75), ("n00000003", "class_3", 0.25)]]
    with pytest.raises(ValueError, match=r"shape \(samples, 1000\)"):
        A.vgg16.decode_predictions(np.zeros((2, 10)))
