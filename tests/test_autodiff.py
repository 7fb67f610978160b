"""The tf.contrib.eager function family, custom_gradient and stop_gradient."""

import numpy as np
import pytest

import eagerkernel as ek

tfe = ek.contrib.eager


def test_gradients_function_returns_a_list():
    def f(x, y):
        return x * x * y

    grads = tfe.gradients_function(f)(3.0, 2.0)
    assert isinstance(grads, list)
    assert [float(g) for g in grads] == [12.0, 9.0]


def test_gradients_function_params_by_index_and_name():
    def f(x, y):
        return x * x * y

    (gy,) = tfe.gradients_function(f, params=[1])(3.0, 2.0)
    assert float(gy) == 9.0
    (gx,) = tfe.gradients_function(f, params=["x"])(3.0, 2.0)
    assert float(gx) == 12.0
    with pytest.raises(ValueError, match="no parameter 'z'"):
        tfe.gradients_function(f, params=["z"])(3.0, 2.0)


def test_higher_order_and_third_derivative_of_square_is_none():
    # The TF eager guide's example.
    def square(x):
        return ek.multiply(x, x)

    grad = tfe.gradients_function(square)
    gradgrad = tfe.gradients_function(lambda x: grad(x)[0])
    gradgradgrad = tfe.gradients_function(lambda x: gradgrad(x)[0])
    assert float(square(3.0)) == 9.0
    assert float(grad(3.0)[0]) == 6.0
    assert float(gradgrad(3.0)[0]) == 2.0
    assert gradgradgrad(3.0) == [None]


def test_control_flow_through_abs():
    # The TF eager guide: abs via control flow, its gradient is sign(x).
    def abs_(x):
        return x if float(x) > 0.0 else -x

    grad = tfe.gradients_function(abs_)
    assert float(grad(2.0)[0]) == 1.0
    assert float(grad(-2.0)[0]) == -1.0


def test_value_and_gradients_function():
    value, grads = tfe.value_and_gradients_function(lambda x: ek.exp(x))(0.0)
    assert float(value) == 1.0
    assert float(grads[0]) == 1.0


def test_implicit_gradients_pairs():
    w = ek.Variable(2.0, name="w")
    b = ek.Variable(1.0, name="b")

    def loss(x):
        return (w * x + b - 7.0) ** 2

    pairs = tfe.implicit_gradients(loss)(3.0)
    assert [v.name for _, v in pairs] == ["w:0", "b:0"]
    # d/dw (wx+b-7)^2 = 2(wx+b-7)x = 2*0*3 = 0 at w=2,b=1,x=3 ... choose x=4
    pairs = tfe.implicit_gradients(loss)(4.0)
    assert [float(g) for g, _ in pairs] == [16.0, 4.0]  # 2*2*4, 2*2


def test_implicit_value_and_gradients():
    w = ek.Variable(3.0)
    value, pairs = tfe.implicit_value_and_gradients(lambda: w * w)()
    assert float(value) == 9.0
    assert float(pairs[0][0]) == 6.0 and pairs[0][1] is w


def test_implicit_gradients_without_variables_raises():
    with pytest.raises(ValueError, match="no trainable Variables"):
        tfe.implicit_gradients(lambda x: x * 2.0)(1.0)


def log1pexp_naive(x):
    return ek.math.log(1 + ek.exp(x))


@ek.custom_gradient
def log1pexp(x):
    e = ek.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))

    return ek.math.log(1 + e), grad


def test_log1pexp_nan_and_custom_gradient_fix():
    grad_naive = tfe.gradients_function(log1pexp_naive)
    assert float(grad_naive(0.0)[0]) == 0.5
    assert np.isnan(float(grad_naive(100.0)[0]))
    grad = tfe.gradients_function(log1pexp)
    assert float(grad(0.0)[0]) == 0.5
    assert float(grad(100.0)[0]) == 1.0


def test_custom_gradient_clip_by_norm():
    @ek.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = ek.identity(x)

        def grad_fn(dresult):
            return [ek.clip_by_norm(dresult, norm), None]

        return y, grad_fn

    x = ek.constant([3.0, 4.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = ek.reduce_sum(clip_gradient_by_norm(x, 1.0) * 10.0)
    g = t.gradient(y, x).numpy()
    np.testing.assert_allclose(np.linalg.norm(g), 1.0, rtol=1e-6)


def test_custom_gradient_second_order_uses_grad_fn_ops():
    @ek.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x

        return x * x * x, grad

    x = ek.constant(2.0)
    with ek.GradientTape() as outer:
        outer.watch(x)
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        dy = inner.gradient(y, x)
    assert float(dy) == 12.0
    assert float(outer.gradient(dy, x)) == 12.0  # 6x


def test_custom_gradient_with_variables():
    w = ek.Variable(2.0)

    @ek.custom_gradient
    def scaled(x):
        y = w * x

        def grad(dy, variables=None):
            assert variables == [w]
            return dy * w * 10.0, [dy * x * 100.0]

        return y, grad

    x = ek.constant(3.0)
    with ek.GradientTape() as t:
        t.watch(x)
        y = scaled(x)
    gx, gw = t.gradient(y, [x, w])
    assert float(gx) == 20.0
    assert float(gw) == 300.0


def test_custom_gradient_with_variables_requires_variables_argument():
    w = ek.Variable(2.0)

    @ek.custom_gradient
    def f(x):
        return w * x, lambda dy: dy

    with pytest.raises(TypeError, match="must accept a `variables` keyword"):
        f(ek.constant(1.0))


def test_custom_gradient_multiple_outputs():
    @ek.custom_gradient
    def split_scale(x):
        def grad(da, db):
            return da * 2.0 + db * 3.0

        return (x * 2.0, x * 3.0), grad

    x = ek.constant(1.0)
    with ek.GradientTape() as t:
        t.watch(x)
        a, b = split_scale(x)
        y = a * 5.0 + b
    assert float(t.gradient(y, x)) == 13.0
    with ek.GradientTape() as t:
        t.watch(x)
        a, _ = split_scale(x)
    assert float(t.gradient(a, x)) == 2.0  # the unused output's cotangent is zero


def test_custom_gradient_wrong_count():
    @ek.custom_gradient
    def f(x, y):
        return x * y, lambda dy: dy

    x = ek.constant(1.0)
    with ek.GradientTape() as t:
        t.watch(x)
        z = f(x, ek.constant(2.0))
    with pytest.raises(ValueError, match="returned 1 gradients for 2 inputs"):
        t.gradient(z, x)


def test_stop_gradient():
    x = ek.constant(3.0)
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * ek.stop_gradient(x)
    assert float(t.gradient(y, x)) == 3.0
