"""`Model.export` and `keras.export.ExportArchive` (Keras 3's inference artifacts): the
reloaded endpoints give the model's numbers at any batch size, without its Python code."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

keras = ek.keras
L = keras.layers


def _cnn():
    return keras.Sequential(
        [
            keras.Input((8, 8, 1)),
            L.Conv2D(4, 3, activation="relu"),
            L.MaxPooling2D(),
            L.BatchNormalization(),
            L.Dropout(0.5),
            L.Flatten(),
            L.Dense(3),
        ]
    )


@pytest.mark.parametrize("batch", [1, 2, 13])
def test_a_sequential_export_serves_any_batch_with_the_models_numbers(tmp_path, batch, capsys):
    model = _cnn()
    model.export(tmp_path / "cnn")
    printed = capsys.readouterr().out
    assert f"Saved artifact at '{tmp_path / 'cnn'}'" in printed
    assert "* Endpoint 'serve'" in printed and "shape=(None, 8, 8, 1)" in printed
    reloaded = ek.saved_model.load(tmp_path / "cnn")
    x = np.random.default_rng(batch).random((batch, 8, 8, 1), dtype=np.float32)
    expected = model.predict(x, verbose=0)  # inference: dropout off, moving statistics
    np.testing.assert_allclose(reloaded.serve(x).numpy(), expected, rtol=1e-6, atol=1e-6)
    outputs = reloaded.signatures["serving_default"](x)  # a signature: a dict, as TF's
    np.testing.assert_allclose(outputs["output_0"].numpy(), expected, rtol=1e-6, atol=1e-6)
    assert reloaded.serve.structured_outputs == ek.TensorSpec([None, 3], ek.float32)


def test_functional_dict_inputs_and_subclassed_models_export(tmp_path):
    a, b = keras.Input((3,), name="a"), keras.Input((2,), name="b")
    out = L.Dense(1)(L.Concatenate()([a, b]))
    functional = keras.Model({"a": a, "b": b}, out)
    functional.export(tmp_path / "f", verbose=False)
    x = {"a": np.ones((5, 3), np.float32), "b": np.full((5, 2), 2.0, np.float32)}
    reloaded = ek.saved_model.load(tmp_path / "f")
    np.testing.assert_allclose(reloaded.serve(x).numpy(), functional(x).numpy(), rtol=1e-6)

    class Twice(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = L.Dense(2)

        def call(self, x):
            return self.dense(x) * 2.0

    sub = Twice()
    with pytest.raises(ValueError, match="has not yet been built"):
        sub.export(tmp_path / "s", verbose=False)
    sub(np.ones((2, 6), np.float32))
    sub.export(tmp_path / "s", verbose=False)
    x = np.random.default_rng(0).random((9, 6), dtype=np.float32)
    np.testing.assert_allclose(
        ek.saved_model.load(tmp_path / "s").serve(x).numpy(), sub(x).numpy(), rtol=1e-6
    )


def test_export_formats_follow_keras():
    model = _cnn()
    with pytest.raises(ValueError, match=r"Unrecognized format=h5\. Supported formats are"):
        model.export("x", format="h5")
    with pytest.raises(NotImplementedError, match="format='onnx'"):
        model.export("x", format="onnx")
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        model.export("x", opset_version=17)


def test_an_archive_with_two_endpoints_and_a_variable_collection(tmp_path, capsys):
    model = keras.Sequential([keras.Input((4,)), L.Dense(3), L.Dropout(0.9), L.Dense(2)])
    archive = keras.export.ExportArchive()
    archive.track(model)
    assert [v.name for v in archive.variables] == [v.name for v in model.variables]
    spec = [keras.InputSpec(shape=(None, 4), dtype="float32")]
    archive.add_endpoint("infer", lambda x: model(x, training=False), input_signature=spec)
    archive.add_endpoint("doubled", lambda x: 2.0 * model(x, training=False), spec)
    archive.add_variable_collection("kernels", [model.layers[0].kernel, model.layers[2].kernel])
    archive.write_out(tmp_path / "a")
    assert "* Endpoint 'infer'" in capsys.readouterr().out
    reloaded = ek.saved_model.load(tmp_path / "a")
    x = np.random.default_rng(1).random((6, 4), dtype=np.float32)
    expected = model(x, training=False).numpy()
    np.testing.assert_allclose(reloaded.infer(x).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(reloaded.doubled(x).numpy(), 2 * expected, rtol=1e-6)
    # The first endpoint is also TF-Serving's default signature.
    np.testing.assert_allclose(
        reloaded.signatures["serving_default"](x)["output_0"].numpy(), expected, rtol=1e-6
    )
    kernels = reloaded.kernels
    assert isinstance(kernels, list) and [tuple(k.shape) for k in kernels] == [(4, 3), (3, 2)]
    np.testing.assert_array_equal(kernels[1].numpy(), model.layers[2].kernel.numpy())


def test_an_archive_endpoint_from_a_called_function(tmp_path):
    model = keras.Sequential([keras.Input((2,)), L.Dense(1)])

    @ek.function
    def serve(x):
        return model(x)

    archive = keras.export.ExportArchive()
    with pytest.raises(ValueError, match="has never been called"):
        archive.add_endpoint("serve", serve)
    serve(ek.ones((3, 2)))
    archive.add_endpoint("serve", serve)
    archive.write_out(tmp_path / "a", verbose=False)
    reloaded = ek.saved_model.load(tmp_path / "a")
    np.testing.assert_allclose(
        reloaded.serve(ek.ones((3, 2))).numpy(), model(ek.ones((3, 2))).numpy(), rtol=1e-6
    )


def test_archive_errors_name_the_problem():
    archive = keras.export.ExportArchive()
    with pytest.raises(ValueError, match="Unsupported format: neptune"):
        keras.export.ExportArchive(format="neptune")
    with pytest.raises(ValueError, match="has not yet been built"):
        archive.track(L.Dense(2))
    with pytest.raises(ValueError, match="Invalid resource type"):
        archive.track(object())
    with pytest.raises(ValueError, match="must provide an `input_signature`"):
        archive.add_endpoint("f", lambda x: x)
    with pytest.raises(ValueError, match="only supported with the jax backend"):
        archive.add_endpoint("f", lambda x: x, [ek.TensorSpec([None])], is_static=True)
    with pytest.raises(ValueError, match="No endpoints have been set yet"):
        archive.write_out("unused")
    archive.add_endpoint("f", lambda x: x, [ek.TensorSpec([None])])
    with pytest.raises(ValueError, match="Endpoint name 'f' is already taken"):
        archive.add_endpoint("f", lambda x: x, [ek.TensorSpec([None])])
    with pytest.raises(ValueError, match="Expected `variables` to be a list/tuple/set"):
        archive.add_variable_collection("v", ek.Variable(1.0))
    with pytest.raises(ValueError, match="Expected all elements in `variables`"):
        archive.add_variable_collection("v", [1.0])
    with pytest.raises(ValueError, match="`shape` and `dtype` must be provided"):
        archive.add_endpoint("g", lambda x: x, [keras.InputSpec(ndim=2)])


def test_saving_a_model_without_signatures_gives_its_call_as_serving_default(tmp_path):
    model = _cnn()
    ek.saved_model.save(model, tmp_path / "m")  # TensorFlow's tf.saved_model.save(model, path)
    infer = ek.saved_model.load(tmp_path / "m").signatures["serving_default"]
    x = np.random.default_rng(3).random((4, 8, 8, 1), dtype=np.float32)
    out = infer(inputs=x)
    np.testing.assert_allclose(out["output_0"].numpy(), model.predict(x, verbose=0), rtol=1e-6)
    spec = ek.TensorSpec([None, 3], ek.float32, name="output_0")  # TF names it by its key
    assert infer.structured_outputs == {"output_0": spec}
