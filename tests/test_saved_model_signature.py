"""Saving an `ek.function` that has an input_signature but was never called (TensorFlow traces
it from the signature), and saving custom gradients: the advanced_autodiff guide's cells."""

import warnings

import numpy as np
import pytest

import eagerkernel as ek


@ek.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return ek.clip_by_norm(dy, 0.5)

    return y, backward


class MyModule(ek.Module):
    @ek.function(input_signature=[ek.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


def test_the_guides_saved_custom_gradient(tmp_path):
    model = MyModule()
    with pytest.warns(UserWarning, match="an unknown rank as a scalar"):
        ek.saved_model.save(
            model,
            str(tmp_path / "saved_model"),
            options=ek.saved_model.SaveOptions(experimental_custom_gradients=True),
        )
    # The loaded gradients will be the same as the above example.
    v = ek.Variable(2.0)
    loaded = ek.saved_model.load(str(tmp_path / "saved_model"))
    with ek.GradientTape() as t:
        output = loaded.call_custom_grad(v * v)
    assert float(output) == 4.0
    assert str(t.gradient(output, v)) == "Tensor(2.0, shape=(), dtype=float32)"  # the guide: 2.0


class Stable(ek.Module):
    """TensorFlow's custom_gradient example: log(1 + exp(x)) with a gradient that stays
    finite for large x, where the gradient through the ops is inf / inf = nan."""

    def __init__(self):
        super().__init__()
        self.scale = ek.Variable(1.0)

    @ek.function(input_signature=[ek.TensorSpec([3], ek.float32)])
    def __call__(self, x):
        @ek.custom_gradient
        def log1pexp(x):
            e = ek.exp(x)

            def grad(dy):
                return dy * (1 - 1 / (1 + e))

            return ek.math.log(1 + e), grad

        return log1pexp(x) * self.scale


def test_a_fully_specified_signature_traces_without_warning_and_keeps_state(tmp_path):
    m = Stable()
    m.scale.assign(3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ek.saved_model.save(m, str(tmp_path / "m"))
    assert float(m.scale) == 3.0 and m.__call__.experimental_get_tracing_count() == 1
    loaded = ek.saved_model.load(str(tmp_path / "m"))
    x = ek.constant([0.0, 1.0, 100.0])
    with ek.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = loaded(x)
    expected = np.log1p(np.exp(np.array([0.0, 1.0], np.float32)))
    np.testing.assert_allclose(y.numpy()[:2], 3 * expected, rtol=1e-6)
    dx = tape.gradient(y, x).numpy()
    sigmoid = 1 / (1 + np.exp(-np.array([0.0, 1.0, 100.0])))
    np.testing.assert_allclose(dx, 3 * sigmoid, rtol=1e-6)  # finite at 100: the custom one
    # The variable's gradient: d(scale * f)/d scale = sum f (inf at 100, as in TensorFlow).
    [scale] = loaded.trainable_variables
    dscale = tape.gradient(y, scale).numpy()
    assert dscale == np.float32(np.inf)
    with pytest.raises(ek.errors.InvalidArgumentError, match="no saved concrete function"):
        loaded(ek.constant([1.0, 2.0]))  # shape (2,): not the signature's


def test_second_order_through_a_loaded_function_uses_the_saved_gradient_program(tmp_path):
    class Square(ek.Module):
        @ek.function(input_signature=[ek.TensorSpec([], ek.float32)])
        def __call__(self, x):
            @ek.custom_gradient
            def square(x):
                return x * x, lambda dy: dy * 2.0 * x

            return square(x)

    ek.saved_model.save(Square(), str(tmp_path / "s"))
    loaded = ek.saved_model.load(str(tmp_path / "s"))
    x = ek.constant(3.0)
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = loaded(x)
        dy = inner.gradient(y, x)
    assert float(y) == 9.0 and float(dy) == 6.0
    assert float(outer.gradient(dy, x)) == 2.0
