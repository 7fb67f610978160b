"""Public names common TensorFlow/Keras code uses: newer activations, Progbar, InputSpec."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import eagerkernel as ek

A = ek.keras.activations
_X = np.array([-2.5, -1.2, -0.3, 0.4, 0.8, 1.7, 3.5], dtype=np.float64)


def _sp(x):
    return np.log1p(np.exp(x))


_CLOSED = {
    "mish": (A.mish, lambda x: x * np.tanh(_sp(x))),
    "hard_silu": (A.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hard_swish": (A.hard_swish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "log_sigmoid": (A.log_sigmoid, lambda x: -_sp(-x)),
    "celu": (
        lambda x: A.celu(x, alpha=1.5),
        lambda x: np.where(x >= 0, x, 1.5 * np.expm1(x / 1.5)),
    ),
    "hard_tanh": (A.hard_tanh, lambda x: np.clip(x, -1, 1)),
    "hard_shrink": (A.hard_shrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    "soft_shrink": (
        lambda x: A.soft_shrink(x, threshold=1.0),
        lambda x: np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0)),
    ),
    "tanh_shrink": (A.tanh_shrink, lambda x: x - np.tanh(x)),
    "squareplus": (lambda x: A.squareplus(x, b=2), lambda x: (x + np.sqrt(x * x + 2)) / 2),
    "sparse_plus": (
        A.sparse_plus,
        lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4)),
    ),
    "threshold": (lambda x: A.threshold(x, 0.5, -3.0), lambda x: np.where(x > 0.5, x, -3.0)),
}


@pytest.mark.parametrize("name", sorted(_CLOSED))
def test_activation_values_and_gradients(name):
    fn, closed = _CLOSED[name]
    x = ek.constant(_X)
    np.testing.assert_allclose(fn(x).numpy(), closed(_X), rtol=1e-6, atol=1e-9)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(fn(x))
    grad = tape.gradient(y, x).numpy()
    h = 1e-6  # no point of _X sits on a kink, so central differences are exact enough
    numeric = (closed(_X + h) - closed(_X - h)) / (2 * h)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_glu_splits_the_axis_and_rejects_odd_sizes():
    x = np.array([[1.0, -2.0, 0.3, -0.7], [0.5, 2.0, 1.0, 3.0]])
    got = A.glu(ek.constant(x)).numpy()
    np.testing.assert_allclose(got, x[:, :2] / (1 + np.exp(-x[:, 2:])), rtol=1e-6)
    assert A.glu(ek.constant(x), axis=0).shape == (1, 4)
    with pytest.raises(ValueError, match="divisible by 2"):
        A.glu(ek.ones((2, 3)))


def test_invalid_arguments_raise():
    with pytest.raises(ValueError, match="alpha"):
        A.celu(ek.ones(2), alpha=0)
    with pytest.raises(ValueError, match="b must be non-negative"):
        A.squareplus(ek.ones(2), b=-1)


@pytest.mark.parametrize(
    "name",
    [
        "mish",
        "hard_silu",
        "hard_swish",
        "log_sigmoid",
        "celu",
        "glu",
        "hard_tanh",
        "hard_shrink",
        "soft_shrink",
        "tanh_shrink",
        "squareplus",
        "sparse_plus",
    ],
)
def test_activation_by_name(name):
    assert A.get(name) is getattr(A, name)
    layer = ek.keras.layers.Dense(4, activation=name)
    assert layer(ek.ones((2, 3))).shape == ((2, 2) if name == "glu" else (2, 4))
    expected = "hard_silu" if name == "hard_swish" else name
    assert A.serialize(layer.activation) == expected
    assert layer.get_config()["activation"] == expected
    clone = ek.keras.layers.Dense.from_config(layer.get_config())
    assert clone.activation is getattr(A, expected)


# -- keras.utils.Progbar ------------------------------------------------------------------------


def test_progbar_verbose2_averages_values_and_keeps_stateful_ones(capsys):
    bar = ek.keras.utils.Progbar(6, verbose=2, stateful_metrics=["acc"])
    bar.update(2, values=[("loss", 3.0), ("acc", 0.1)])  # weighs 2 steps
    bar.add(1, values=[("loss", 0.0), ("acc", 0.2)])
    assert capsys.readouterr().out == ""  # nothing until the target is reached
    bar.update(6, values=[("loss", 1.0), ("acc", 0.9), ("tiny", 1e-5)])
    # Keras 3.15 prints "6/6 - 0s - 6us/step - loss: 1.0000 - acc: 0.9000 - tiny: 1.0000e-05":
    # the finalizing update's values as given; small values in Keras's e-notation
    assert capsys.readouterr().out == "6/6 - loss: 1.0000 - acc: 0.9000 - tiny: 1.0000e-05\n"


def test_progbar_averages_values_until_the_final_update(capsys):
    bar = ek.keras.utils.Progbar(4, verbose=2)
    bar.update(2, values=[("loss", 3.0)])  # weighs 2 steps
    bar.add(1, values=[("loss", 0.0)])
    assert bar._text() == "loss: 2.0000"  # (3*2 + 0*1) / 3
    bar.add(1, values=[("loss", 0.5)])
    assert capsys.readouterr().out == "4/4 - loss: 0.5000\n"


def test_progbar_unknown_target_finalizes_on_request(capsys):
    bar = ek.keras.utils.Progbar(None, verbose=2)
    bar.add(3)
    bar.add(1, values=[("loss", 2.0)])
    assert capsys.readouterr().out == ""
    bar.update(4, finalize=True)
    assert capsys.readouterr().out == "4/4 - loss: 2.0000\n"


def test_progbar_verbose1_draws_fits_bar(capsys):
    # A fresh interpreter: tqdm.auto picks its terminal bar there (in this test process an
    # earlier test may have made it pick the notebook widget, whose updates are not text).
    code = (
        "import eagerkernel as ek\n"
        "bar = ek.keras.utils.Progbar(4, width=10, unit_name='batch')\n"
        "for step in range(1, 5):\n"
        "    bar.update(step, values=[('loss', float(step))])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    final = done.stderr.rsplit("\r", 1)[-1]  # the bar's last drawing, on stderr
    # Keras 3 shows the final update's value as given (before it, the running mean)
    assert "4/4" in final and "batch" in final and "loss: 4.0000" in final, done.stderr
    assert done.stdout == ""
    ek.keras.utils.Progbar(4, verbose=0).update(4, values=[("loss", 1.0)])
    assert capsys.readouterr() == ("", "")


def test_progbar_rejects_bad_arguments():
    with pytest.raises(ValueError, match="verbose"):
        ek.keras.utils.Progbar(3, verbose=3)
    with pytest.raises(ValueError, match="width"):
        ek.keras.utils.Progbar(3, width=0)


# -- keras.layers.InputSpec ---------------------------------------------------------------------


class _Spec(ek.keras.layers.Layer):
    def __init__(self, spec, **kwargs):
        super().__init__(**kwargs)
        self.input_spec = spec
        self.builds = 0

    def build(self, input_shape):
        self.builds += 1

    def call(self, x):
        return x


def test_input_spec_ndim_error_is_keras_message_before_build():
    layer = _Spec(ek.keras.layers.InputSpec(ndim=4), name="conv")
    with pytest.raises(ValueError) as err:
        layer(ek.ones((2, 5, 5)))
    assert str(err.value) == (
        'Input 0 of layer "conv" is incompatible with the layer: expected ndim=4, found ndim=3. '
        "Full shape received: (2, 5, 5)"
    )
    assert layer.builds == 0
    assert layer(ek.ones((1, 2, 2, 3))).shape == (1, 2, 2, 3)
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=2"):  # symbolic too
        _Spec(ek.keras.layers.InputSpec(ndim=4))(ek.keras.Input((3,)))


@pytest.mark.parametrize(
    ("spec", "shape", "message"),
    [
        ({"min_ndim": 3}, (2, 3), "expected min_ndim=3, found ndim=2"),
        ({"max_ndim": 2}, (2, 3, 4), "expected max_ndim=2, found ndim=3"),
        ({"axes": {-1: 4}}, (2, 3), "expected axis -1 of input shape to have value 4"),
        ({"shape": (None, 4)}, (2, 3), r"expected shape=\(None, 4\), found shape=\(2, 3\)"),
        ({"dtype": "int32"}, (2, 3), "expected dtype=int32, found dtype=float32"),
    ],
)
def test_input_spec_checks(spec, shape, message):
    layer = _Spec(ek.keras.layers.InputSpec(**spec))
    with pytest.raises(ValueError, match=message):
        layer(ek.ones(shape))


def test_input_spec_accepts_matches_and_squeezable_last_axis():
    spec = ek.keras.layers.InputSpec(shape=(None, 3, 1), allow_last_axis_squeeze=True)
    assert spec.ndim == 3
    assert _Spec(spec)(ek.ones((5, 3))).shape == (5, 3)  # ndim not checked, trailing 1 dropped
    ok = ek.keras.layers.InputSpec(dtype="float32", min_ndim=2, axes={1: 3})
    assert _Spec(ok)(ek.ones((4, 3, 2))).shape == (4, 3, 2)


def test_input_spec_lists_dicts_and_config():
    two = [ek.keras.layers.InputSpec(ndim=2, name="a"), ek.keras.layers.InputSpec(ndim=1, name="b")]
    with pytest.raises(ValueError, match="expects 2 input\\(s\\), but it received 1"):
        _Spec(two, name="pair")([ek.ones((1, 2))])
    with pytest.raises(ValueError, match='Missing data for input "b"'):
        _Spec(two)({"a": ek.ones((1, 2))})
    with pytest.raises(ValueError, match='Input 1 of layer "pair2"'):
        _Spec(two, name="pair2")({"b": ek.ones((1, 2)), "a": ek.ones((1, 2))})
    with pytest.raises(TypeError, match="axes"):
        ek.keras.layers.InputSpec(axes={"x": 1})
    with pytest.raises(ValueError, match="greater than the maximum allowed value: 1"):
        ek.keras.layers.InputSpec(ndim=2, axes={2: 1})
    spec = ek.keras.layers.InputSpec(dtype="float32", max_ndim=3, axes={1: 2})
    again = ek.keras.layers.InputSpec.from_config(spec.get_config())
    assert repr(again) == repr(spec) == "InputSpec(dtype=float32, max_ndim=3, axes={1: 2})"


def test_keras_utils_normalize_standardize_dtype_and_backend_aliases():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(ek.keras.utils.normalize(x), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(
        ek.keras.utils.normalize(x, axis=0, order=1), [[1.0, 1.0], [0.0, 0.0]]
    )
    t = ek.keras.utils.normalize(ek.constant(x.astype(np.float32)))
    assert isinstance(t, ek.Tensor)
    np.testing.assert_allclose(t.numpy(), [[0.6, 0.8], [0.0, 0.0]], rtol=1e-6)
    su = ek.keras.utils.standardize_dtype
    assert (su(np.float64), su(ek.int32), su(None), su(int), su("bool")) == (
        "float64",
        "int32",
        "float32",
        "int64",
        "bool",
    )
    with pytest.raises(ValueError, match="standardize_dtype: invalid dtype"):
        su("nope")
    assert ek.keras.utils.is_keras_tensor(ek.keras.Input(shape=(2,)))
    assert ek.keras.utils.clear_session is ek.keras.backend.clear_session
