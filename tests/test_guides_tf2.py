"""TensorFlow 2 guide code run unchanged but for the import (`import eagerkernel as tf`): the
calls of the variable, tensor, autodiff, advanced_autodiff and basics guides and the
customization tutorials, with the values those guides print (worked out by hand where the
published notebook carries no output)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import eagerkernel as tf

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_variable_guide_assign_and_copies():
    a = tf.Variable([2.0, 3.0])
    a.assign([1, 2])  # keeps float32
    assert a.dtype == tf.float32
    with pytest.raises(ValueError):
        a.assign([1.0, 2.0, 3.0])  # resizing is not allowed
    a = tf.Variable([2.0, 3.0])
    b = tf.Variable(a)
    a.assign([5, 6])
    np.testing.assert_array_equal(a.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(a.assign_add([2, 3]).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(a.assign_sub([7, 9]).numpy(), [0.0, 0.0])


def test_variable_guide_device_cells_run_on_a_machine_without_a_gpu():
    # "Placing variables and tensors": CPU:0 explicitly, then GPU:0, which soft placement
    # turns into the CPU (with one warning) where there is no GPU, as in TensorFlow.
    code = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("error")  # only the one expected warning may appear
        import eagerkernel as tf
        with tf.device('CPU:0'):
          a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
          b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
          c = tf.matmul(a, b)
        print(c.numpy().tolist())
        with tf.device('CPU:0'):
          a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
          b = tf.Variable([[1.0, 2.0, 3.0]])
        warnings.simplefilter("ignore")
        with tf.device('GPU:0'):
          k = a * b
        print(k.numpy().tolist(), k.device)
        with tf.device('CPU:0'):
          a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
          b = tf.Variable([[1.0, 2.0, 3.0]])
        print(a.device)
        """
    )
    env_free = {"EAGERKERNEL_VIRTUAL_GPUS": "0"}
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **env_free},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "[[22.0, 28.0], [49.0, 64.0]]"
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount():
            return  # a real GPU: k is placed there
    except Exception:
        pass
    assert lines[1] == f"[[1.0, 4.0, 9.0], [4.0, 10.0, 18.0]] {CPU}"
    assert lines[2] == CPU


def test_tensor_guide_device_and_basics():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert x.device == CPU and x.device.endswith("CPU:0")
    a = tf.constant([[1, 2], [3, 4]])
    b = tf.constant([[1, 1], [1, 1]])
    np.testing.assert_array_equal(tf.add(a, b).numpy(), [[2, 3], [4, 5]])
    np.testing.assert_array_equal(tf.matmul(a, b).numpy(), [[3, 3], [7, 7]])
    c = tf.constant([[4.0, 5.0], [10.0, 1.0]])
    assert float(tf.reduce_max(c)) == 10.0
    np.testing.assert_array_equal(tf.math.argmax(c).numpy(), [1, 0])
    np.testing.assert_allclose(
        tf.nn.softmax(c).numpy(),
        [[2.6894143e-01, 7.3105854e-01], [9.9987662e-01, 1.2339458e-04]],
        rtol=1e-6,
    )


def test_autodiff_guide_no_gradient_for_adjust_contrast():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    try:
        tape.gradient(new_image, [image, delta])
        raise AssertionError("This should not happen.")
    except LookupError as e:
        assert "AdjustContrastv2" in str(e)


def test_autodiff_guide_gradients():
    w = tf.Variable(tf.random.normal((3, 2)), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    dl_dw, dl_db = tape.gradient(loss, [w, b])
    assert dl_dw.shape == w.shape and dl_db.shape == b.shape
    np.testing.assert_allclose(dl_db.numpy(), y.numpy()[0], rtol=1e-5)  # d mean(y^2)/dy = y
    x = tf.constant(3.0)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    assert float(g.gradient(y, x)) == 6.0


def test_advanced_autodiff_guide_jacobian_and_higher_order():
    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    assert float(dy_dx) == 3.0 and float(d2y_dx2) == 6.0
    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x + delta)
    assert tape.jacobian(y, delta).shape == (201,)


def test_basics_guide_linear_solve_and_image_calls():
    # `tf.linalg.solve` and `tf.image` calls as the guides write them
    a = tf.constant([[3.0, 1.0], [1.0, 2.0]])
    np.testing.assert_allclose(tf.linalg.solve(a, [[9.0], [8.0]]).numpy(), [[2.0], [3.0]])
    img = tf.image.convert_image_dtype(tf.constant(np.full((4, 4, 3), 255, np.uint8)), tf.float32)
    small = tf.image.resize(img, [2, 2])
    np.testing.assert_allclose(small.numpy(), np.ones((2, 2, 3)))
    np.testing.assert_allclose(tf.image.flip_left_right(img).numpy(), img.numpy())


def test_tensor_guide_bytes_of_a_string():
    byte_strings = tf.strings.bytes_split(tf.constant("Duck"))
    byte_ints = tf.io.decode_raw(tf.constant("Duck"), tf.uint8)
    assert byte_strings.numpy().tolist() == [b"D", b"u", b"c", b"k"]
    assert byte_ints.numpy().tolist() == [68, 117, 99, 107]


def test_customization_basics_tutorial(tmp_path):
    assert int(tf.math.add(1, 2)) == 3
    assert tf.math.add([1, 2], [3, 4]).numpy().tolist() == [4, 6]
    assert int(tf.math.square(5)) == 25 and int(tf.math.reduce_sum([1, 2, 3])) == 6
    assert int(tf.math.square(2) + tf.math.square(3)) == 13
    x = tf.linalg.matmul([[1]], [[2, 3]])
    assert x.numpy().tolist() == [[2, 3]] and x.shape == (1, 2) and x.dtype == tf.int32
    tensor = tf.math.multiply(np.ones([3, 3]), 42)
    assert tensor.dtype == tf.float64 and np.add(tensor, 1).tolist() == [[43.0] * 3] * 3
    x = tf.random.uniform([3, 3])
    assert x.device.endswith("CPU:0") and not x.device.endswith("GPU:0")
    with tf.device("CPU:0"):
        x = tf.random.uniform([10, 10])
        assert x.device.endswith("CPU:0")
    ds_tensors = tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6])
    filename = tmp_path / "lines.csv"
    filename.write_text("Line 1\nLine 2\nLine 3\n  ")
    ds_file = tf.data.TextLineDataset(str(filename))
    ds_tensors = ds_tensors.map(tf.math.square).shuffle(2).batch(2)
    batches = [b.numpy().tolist() for b in ds_tensors]
    assert [len(b) for b in batches] == [2, 2, 2]
    assert sorted(v for b in batches for v in b) == [1, 4, 9, 16, 25, 36]
    assert [b.numpy().tolist() for b in ds_file.batch(2)] == [
        [b"Line 1", b"Line 2"],
        [b"Line 3", b"  "],
    ]


def test_custom_layers_tutorial():
    layer = tf.keras.layers.Dense(10, input_shape=(None, 5))
    assert layer(tf.zeros([10, 5])).shape == (10, 10)
    assert [v.shape for v in layer.variables] == [(5, 10), (10,)]
    assert layer.kernel is layer.variables[0] and layer.bias is layer.variables[1]

    class MyDenseLayer(tf.keras.layers.Layer):
        def __init__(self, num_outputs):
            super(MyDenseLayer, self).__init__()  # noqa: UP008 (the tutorial's spelling)
            self.num_outputs = num_outputs

        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", shape=[int(input_shape[-1]), self.num_outputs])

        def call(self, inputs):
            return tf.matmul(inputs, self.kernel)

    layer = MyDenseLayer(10)
    _ = layer(tf.zeros([10, 5]))
    names = [var.name for var in layer.trainable_variables]
    assert len(names) == 1 and "kernel" in names[0]

    class ResnetIdentityBlock(tf.keras.Model):
        def __init__(self, kernel_size, filters):
            super(ResnetIdentityBlock, self).__init__(name="")  # noqa: UP008
            filters1, filters2, filters3 = filters
            self.conv2a = tf.keras.layers.Conv2D(filters1, (1, 1))
            self.bn2a = tf.keras.layers.BatchNormalization()
            self.conv2b = tf.keras.layers.Conv2D(filters2, kernel_size, padding="same")
            self.bn2b = tf.keras.layers.BatchNormalization()
            self.conv2c = tf.keras.layers.Conv2D(filters3, (1, 1))
            self.bn2c = tf.keras.layers.BatchNormalization()

        def call(self, input_tensor, training=False):
            x = tf.nn.relu(self.bn2a(self.conv2a(input_tensor), training=training))
            x = tf.nn.relu(self.bn2b(self.conv2b(x), training=training))
            x = self.bn2c(self.conv2c(x), training=training)
            return tf.nn.relu(x + input_tensor)

    block = ResnetIdentityBlock(1, [1, 2, 3])
    assert block(tf.zeros([1, 2, 3, 3])).shape == (1, 2, 3, 3)
    assert len(block.layers) == 6 and len(block.variables) == 18
    my_seq = tf.keras.Sequential(
        [
            tf.keras.layers.Conv2D(1, (1, 1), input_shape=(None, None, 3)),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Conv2D(2, 1, padding="same"),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Conv2D(3, (1, 1)),
            tf.keras.layers.BatchNormalization(),
        ]
    )
    assert my_seq(tf.zeros([1, 2, 3, 3])).shape == (1, 2, 3, 3)


def test_custom_training_walkthrough_on_local_data():
    # the tutorial's model, loss, gradient step, metrics and evaluation loop, on a separable
    # stand-in for the penguins data (the tutorial downloads it)
    rng = np.random.default_rng(0)
    x_all = rng.uniform(size=(300, 4)).astype(np.float32)
    y_all = np.clip((x_all[:, 0] * 3).astype(np.int64), 0, 2)
    ds_train_batch = tf.data.Dataset.from_tensor_slices((x_all[60:], y_all[60:])).batch(32)
    ds_test = tf.data.Dataset.from_tensor_slices((x_all[:60], y_all[:60]))
    tf.random.set_seed(0)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(10, activation=tf.nn.relu, input_shape=(4,)),
            tf.keras.layers.Dense(10, activation=tf.nn.relu),
            tf.keras.layers.Dense(3),
        ]
    )
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss(model, x, y, training):
        return loss_object(y_true=y, y_pred=model(x, training=training))

    def grad(model, inputs, targets):
        with tf.GradientTape() as tape:
            loss_value = loss(model, inputs, targets, training=True)
        return loss_value, tape.gradient(loss_value, model.trainable_variables)

    optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)
    features, labels = next(iter(ds_train_batch))
    loss_value, grads = grad(model, features, labels)
    assert optimizer.iterations.numpy() == 0
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    assert optimizer.iterations.numpy() == 1
    assert loss(model, features, labels, training=True).numpy() < loss_value.numpy()
    accuracies = []
    for _ in range(40):
        epoch_loss_avg = tf.keras.metrics.Mean()
        epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
        for x, y in ds_train_batch:
            loss_value, grads = grad(model, x, y)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            epoch_loss_avg.update_state(loss_value)
            epoch_accuracy.update_state(y, model(x, training=True))
        accuracies.append(float(epoch_accuracy.result()))
    assert accuracies[-1] > 0.8 and accuracies[-1] > accuracies[0]
    test_accuracy = tf.keras.metrics.Accuracy()
    for x, y in ds_test.batch(10):
        logits = model(x, training=False)
        prediction = tf.math.argmax(logits, axis=1, output_type=tf.int64)
        test_accuracy(prediction, y)
    assert float(test_accuracy.result()) > 0.7
    assert tf.stack([y, prediction], axis=1).shape == (10, 2)
    text = "Test set accuracy: {:.3%}".format(test_accuracy.result())  # noqa: UP032
    assert text.startswith("Test set accuracy: ") and text.endswith("%")
