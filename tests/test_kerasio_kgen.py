"""Divergences found running keras-io generative examples (helper "kgen")."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel import keras


def test_functional_input_batch_size_is_not_enforced():
    # keras-io pixelcnn: Input(batch_size=...) model then predict() on a smaller batch.
    # Oracle (TF 2.21 + Keras 3.15): m(ones((2, 3))) -> [[3., 3.], [3., 3.]], predict on 5 rows
    # -> shape (5, 2); a wrong feature axis raises "expected shape=(None, 3), found (2, 4)".
    inp = keras.Input(shape=(3,), batch_size=8)
    m = keras.Model(inp, keras.layers.Dense(2, kernel_initializer="ones")(inp))
    assert m.input_shape == (8, 3)
    np.testing.assert_allclose(np.asarray(m(np.ones((2, 3), "float32"))), np.full((2, 2), 3.0))
    assert m.predict(np.ones((5, 3), "float32"), verbose=0).shape == (5, 2)
    with pytest.raises(ValueError, match=r"expected shape=\(None, 3\), found shape=\(2, 4\)"):
        m(np.ones((2, 4), "float32"))


@pytest.mark.parametrize(
    "act, first",
    [
        (lambda z: ek.nn.leaky_relu(z, 0.2), [[0.4, 2.0, 2.0]]),
        (ek.nn.relu, [[0.0, 2.0, 2.0]]),
        (ek.nn.relu6, [[0.0, 2.0, 2.0]]),  # TF's _Relu6GradGrad: zeros for x as well
    ],
)
def test_relu_family_second_order_is_zeros_not_none(act, first):
    # keras-io wgan_gp: the gradient penalty's gradient reaches conv biases only through
    # LeakyReLU's gradient, which TF's ReluGrad/LeakyReluGrad gradients make zeros (not None).
    # Oracle (TF 2.21): first-order [[0.4, 2, 2]] / [[0, 2, 2]], second-order wrt b [0, 0, 0].
    x = ek.constant([[-1.0, 2.0, 0.5]])
    b = ek.Variable([0.1, -3.0, 0.2])
    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_sum(act(x * 2.0 + b))
        g = inner.gradient(y, x)
        s = ek.reduce_sum(g)
    gb = outer.gradient(s, b)
    np.testing.assert_allclose(g.numpy(), first, rtol=1e-6)
    assert gb is not None
    np.testing.assert_array_equal(gb.numpy(), [0.0, 0.0, 0.0])


def test_leaky_relu_second_order_through_the_cotangent():
    # y = leaky_relu(x * w): dy/dx = w * (xw > 0 ? 1 : alpha), so d(dy/dx)/dw = (1 or alpha).
    # Oracle (TF 2.21): dx [0.4, 0.6, -0.2, 0.5], d/dw [0.2, 0.2, 0.2, 1], d/dx [0, 0, -0, 0].
    x = ek.constant([-1.5, 0.0, 0.5, 2.0])
    w = ek.constant([2.0, 3.0, -1.0, 0.5])
    with ek.GradientTape(persistent=True) as outer:
        outer.watch([x, w])
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_sum(ek.nn.leaky_relu(x * w, alpha=0.2))
        dx = inner.gradient(y, x)
        s = ek.reduce_sum(dx)
    np.testing.assert_allclose(dx.numpy(), [0.4, 0.6, -0.2, 0.5], rtol=1e-6)
    np.testing.assert_allclose(outer.gradient(s, w).numpy(), [0.2, 0.2, 0.2, 1.0], rtol=1e-6)
    np.testing.assert_array_equal(outer.gradient(s, x).numpy(), [0.0, 0.0, 0.0, 0.0])


def test_to_categorical_of_a_tensor_is_a_tensor():
    # keras-io conditional_gan one-hot encodes labels. Oracle (Keras 3.15, TF backend):
    # to_categorical(tf.constant([0, 2, 1]), 3) -> EagerTensor float32 [[1,0,0],[0,0,1],[0,1,0]];
    # a (3, 1) tensor drops its trailing axis first.
    out = keras.utils.to_categorical(ek.constant([0, 2, 1]), 3)
    assert isinstance(out, ek.Tensor) and out.dtype == ek.float32
    np.testing.assert_array_equal(out.numpy(), np.eye(3)[[0, 2, 1]])
    col = keras.utils.to_categorical(ek.constant([[1], [0], [2]]), 3)
    assert isinstance(col, ek.Tensor) and tuple(col.shape) == (3, 3)
    np.testing.assert_array_equal(col.numpy(), np.eye(3)[[1, 0, 2]])
    assert isinstance(keras.utils.to_categorical([0, 1], 2), np.ndarray)


def test_count_params_of_an_unbuilt_layer_raises_as_keras_3():
    # Keras 3.15: ValueError "You tried to call `count_params` on layer 'dense', but the layer
    # isn't built. ..."; built, it counts the weights (3 * 2 + 2 = 8).
    dense = ek.keras.layers.Dense(2, name="dense_probe")
    with pytest.raises(ValueError, match=r"`count_params` on layer 'dense_probe'.*isn't built"):
        dense.count_params()
    dense(np.ones((1, 3), "float32"))
    assert dense.count_params() == 8
    model = ek.keras.Sequential([ek.keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="isn't built"):
        model.count_params()
    lines = []
    model.summary(print_fn=lines.append)  # an unbuilt model still has a summary
    assert "0 (unbuilt)" in "\n".join(lines)
