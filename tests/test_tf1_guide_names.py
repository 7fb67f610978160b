"""Names the TF 1.x eager guides and tutorials use (``import tensorflow.compat.v1 as tf``):
base64 ops, the autograph namespace, Keras 2's save_weights arguments; values and messages
are TensorFlow 2.21's."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
import eagerkernel.compat.v1 as tf1


def test_base64_uses_the_web_safe_alphabet_and_optional_padding():
    assert ek.io.encode_base64("hello world").numpy() == b"aGVsbG8gd29ybGQ"
    np.testing.assert_array_equal(
        ek.io.encode_base64(["ab?>", b"\xff\xfe"], pad=True).numpy(),
        np.array([b"YWI_Pg==", b"__4="], object),
    )
    for text in ("aGVsbG8gd29ybGQ", "aGVsbG8gd29ybGQ="):  # padded or not
        assert ek.io.decode_base64(text).numpy() == b"hello world"
    data = ek.constant([[b"", b"\x00\x01\x02\x03"], [b"\xfb\xff", b"eager"]])
    np.testing.assert_array_equal(ek.io.decode_base64(ek.io.encode_base64(data)), data)
    assert tf1.encode_base64("hello world").numpy() == b"aGVsbG8gd29ybGQ"


def test_base64_errors_follow_tensorflow():
    with pytest.raises(ek.errors.InvalidArgumentError, match="cannot be 1 modulo 4"):
        ek.io.decode_base64("a")
    with pytest.raises(ek.errors.InvalidArgumentError, match="Invalid character found"):
        ek.io.decode_base64("ab+/")  # the standard alphabet's + and / are not web-safe
    with pytest.raises(TypeError, match="encode_base64: input must be a string tensor"):
        ek.io.encode_base64(3)


def test_compat_v1_graph_and_version():
    assert tf1.__version__ == ek.__version__ == ek.keras.__version__
    with pytest.raises(NotImplementedError, match=r"tf\.compat\.v1\.Graph: eagerkernel runs"):
        tf1.Graph()


def test_autograph_namespace_converts_nothing(capsys):
    def f(x):
        return x * x if x > 0 else -x

    assert ek.autograph.to_graph(f) is f
    assert float(ek.autograph.to_graph(f)(ek.constant(-3.0))) == 3.0
    with pytest.raises(TypeError, match="to_graph: expected a Python function"):
        ek.autograph.to_graph(3)
    ek.autograph.experimental.set_loop_options(maximum_iterations=10, parallel_iterations=2)
    with pytest.raises(ValueError, match="maximum_iterations must be at least 1"):
        ek.autograph.experimental.set_loop_options(maximum_iterations=0)
    ek.autograph.set_verbosity(3)
    ek.autograph.trace("x is", 3)
    assert capsys.readouterr().out == "x is 3\n"
    Feature = ek.autograph.experimental.Feature
    assert [f.name for f in Feature][:2] == ["ALL", "AUTO_CONTROL_DEPS"]


def test_function_accepts_autograph_options():
    Feature = ek.autograph.experimental.Feature

    @ek.function(experimental_autograph_options=(Feature.EQUALITY_OPERATORS, Feature.LISTS))
    def count(i, n):
        seen = []
        while i < n:
            if i % 3 == 0:
                seen.append(i)
            i += 1
        return i, len(seen)

    i, k = count(ek.constant(10), ek.constant(16))
    assert int(i) == 16 and int(k) == 2  # 12 and 15
    with pytest.raises(TypeError, match=r"must be tf\.autograph\.experimental\.Feature values"):
        ek.function(experimental_autograph_options="LISTS")(lambda: 1)


def test_save_weights_takes_keras2_save_format(tmp_path):
    model = ek.keras.Sequential([ek.keras.layers.Dense(2, input_shape=(3,))])
    model.save_weights(str(tmp_path / "w"), save_format="tf")
    before = [w.numpy() for w in model.weights]
    for w in model.weights:
        w.assign(ek.zeros_like(w))
    model.load_weights(str(tmp_path / "w"))
    for w, b in zip(model.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)
    with pytest.raises(NotImplementedError, match="HDF5 files are not written"):
        model.save_weights(str(tmp_path / "m.h5"), save_format="h5")
    with pytest.raises(ValueError, match="unknown save_format 'pickle'"):
        model.save_weights(str(tmp_path / "w2"), save_format="pickle")
