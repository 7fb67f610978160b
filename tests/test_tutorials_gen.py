"""Divergences found running TensorFlow's generative tutorials (autoencoder, cvae, dcgan,
adversarial_fgsm, pix2pix, style_transfer, deepdream, integrated_gradients) on eagerkernel.

Expected values were computed with TensorFlow 2.21 (the oracle venv) on the same inputs, or are
closed forms, as each test says.
"""

import numpy as np
import pytest

import eagerkernel as tf


def test_reduce_sum_of_a_list_of_tensors_is_differentiable():
    # deepdream's calc_loss: tf.reduce_sum([reduce_mean(act) for act in activations]).
    # d/dx sum(2x, 3x) = 5; d/dx mean(2x, x*x) at x=2 = (2 + 4) / 2 = 3; TF 2.21 gives the same.
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tf.reduce_sum([x * 2.0, x * 3.0])
        b = tf.reduce_mean([x * 2.0, x * x])
        c = tf.reduce_sum([[x, 1.0], [2.0, x * x]])
    assert float(a) == 10.0 and float(b) == 4.0 and float(c) == 9.0
    assert float(tape.gradient(a, x)) == 5.0
    assert float(tape.gradient(b, x)) == 3.0
    assert float(tape.gradient(c, x)) == 5.0  # 1 + 2x


def test_list_of_variables_packs_differentiably():
    # TF 2.21: gradient of reduce_mean([v*v, 2v]) at v=3 is (6 + 2) / 2 = 4.
    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_mean([v * v, 2 * v])
    assert float(tape.gradient(y, v)) == 4.0


def test_list_packing_takes_the_first_tensor_dtype():
    # TF 2.21: Python numbers take the tensor's dtype (float64 here), sum 3.0.
    r = tf.reduce_sum([tf.constant(1.0, tf.float64), 2.0])
    assert r.dtype == tf.float64 and float(r) == 3.0
    # a shape list holding a scalar tensor (pix2pix-style tf.shape arithmetic) still works
    s = tf.shape(tf.zeros([2, 6]))
    assert tuple(tf.reshape(tf.range(12), [s[0], -1, 3]).shape) == (2, 2, 3)


def test_list_packing_dtype_errors_match_tensorflow():
    x = tf.constant(2.0)
    # TF 2.21 eager: a list of Tensors only goes to the Pack op -> InvalidArgumentError
    with pytest.raises(tf.errors.InvalidArgumentError, match="dtype"):
        tf.reduce_sum([x, tf.constant(1)])
    # a list mixing Python values and a Tensor of another dtype -> TypeError with TF's text
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype"):
        tf.reduce_sum([x, tf.constant(1), 1.0])
    # a Python float that int32 cannot hold -> TypeError (TF: "Cannot convert 1.5 ...")
    with pytest.raises(TypeError):
        tf.reduce_sum([tf.constant(1), 1.5])
    # differing shapes -> InvalidArgumentError (TF: "Shapes of all inputs must match")
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.reduce_sum([x, tf.constant([1.0, 2.0])])


def test_deepdream_style_gradient_inside_function_with_input_signature():
    # The deepdream loop: tape.watch on a tf.function argument, loss = reduce_sum of a list.
    @tf.function(
        input_signature=(
            tf.TensorSpec(shape=[None, None, 3], dtype=tf.float32),
            tf.TensorSpec(shape=[], dtype=tf.int32),
        )
    )
    def ascend(img, steps):
        for _ in tf.range(steps):
            with tf.GradientTape() as tape:
                tape.watch(img)
                loss = tf.reduce_sum([tf.reduce_mean(img * img), tf.reduce_mean(img)])
            img = img + tape.gradient(loss, img)
        return img

    img = np.full((2, 2, 3), 0.5, np.float32)
    # closed form: n = 12 elements, grad = 2 img / n + 1 / n per step; two steps from 0.5
    n = 12.0
    v = 0.5
    for _ in range(2):
        v = v + 2 * v / n + 1 / n
    np.testing.assert_allclose(ascend(img, tf.constant(2)).numpy(), np.full((2, 2, 3), v), 1e-6)


def test_input_signature_fills_python_defaults():
    # deepdream's TiledGradients.__call__(self, img, img_size, tile_size=512) has a 3-spec
    # input_signature and is called with 2 arguments: TF 2.21 uses the default 512.
    @tf.function(input_signature=(tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32)))
    def scale(x, n=3):
        return x * tf.cast(n, tf.float32)

    # values from TF 2.21: [3. 3.], [2. 2. 2.], [4. 4.]
    np.testing.assert_array_equal(scale(tf.ones([2])).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(scale(tf.ones([3]), 2).numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(scale(tf.ones([2]), n=4).numpy(), [4.0, 4.0])

    class Tiles(tf.Module):
        @tf.function(
            input_signature=(tf.TensorSpec([None], tf.float32), tf.TensorSpec([], tf.int32))
        )
        def __call__(self, x, k=512):
            return x + tf.cast(k, tf.float32)

    assert Tiles()(tf.zeros([1])).numpy().tolist() == [512.0]


def test_input_signature_missing_argument_message():
    # TF 2.21: "Binding inputs to tf.function failed due to `missing a required argument: 'x'`"
    @tf.function(input_signature=(tf.TensorSpec([None], tf.float32),))
    def f(x):
        return x

    with pytest.raises(TypeError, match="missing a required argument: 'x'"):
        f()
    with pytest.raises(TypeError, match=r"Binding inputs to tf\.function"):
        f(tf.ones([2]), tf.ones([2]))


def test_conversions_pack_lists_of_tensors_on_the_tape():
    # TF 2.21 (the oracle) at x = 2: d/dx sum(x * [x, 3]) = 2x + 3 = 7; convert_to_tensor packs
    # [x, 2x] (gradient 3); a list beside a tensor in an operator packs too.
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * [x, 3.0]
        z = tf.convert_to_tensor([x, 2 * x])
        w = [[x, 1.0]] + x  # noqa: RUF005 (a list on the left of a Tensor operator)
    np.testing.assert_array_equal(y.numpy(), [4.0, 6.0])
    assert float(tape.gradient(y, x)) == 7.0
    assert float(tape.gradient(z, x)) == 3.0
    np.testing.assert_array_equal(w.numpy(), [[4.0, 3.0]])
    assert float(tape.gradient(w, x)) == 3.0


def test_a_traced_function_packs_a_list_of_its_arguments():
    # The list is an op of the traced program, not a constant baked in at the first call.
    @tf.function
    def f(x):
        return tf.convert_to_tensor([x, 2 * x]) * [x, 1.0]

    np.testing.assert_array_equal(f(tf.constant(1.0)).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(f(tf.constant(3.0)).numpy(), [9.0, 6.0])
    concrete = f.get_concrete_function(tf.TensorSpec([], tf.float32))
    np.testing.assert_array_equal(concrete(tf.constant(5.0)).numpy(), [25.0, 10.0])
