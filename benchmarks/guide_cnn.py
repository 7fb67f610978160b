"""The Fashion-MNIST CNN of TensorFlow's eager guide, built in each framework the benchmarks
compare: Conv2D 32 5x5 same ReLU, MaxPool 2, Conv2D 64 5x5 same ReLU, MaxPool 2, Flatten,
Dense 1024 ReLU, Dropout 0.5, Dense 10 (logits). Inputs are 28x28x1 images (NHWC for
eagerkernel and TensorFlow, NCHW for PyTorch)."""

from __future__ import annotations


def eagerkernel_cnn(ek, input_shape=(28, 28, 1)):
    """``ek.keras.Sequential`` of the guide's CNN; built at once when ``input_shape`` is given."""
    L = ek.keras.layers
    first = {"input_shape": input_shape} if input_shape is not None else {}
    return ek.keras.Sequential(
        [
            L.Conv2D(32, 5, padding="same", activation="relu", **first),
            L.MaxPooling2D(2),
            L.Conv2D(64, 5, padding="same", activation="relu"),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dense(1024, activation="relu"),
            L.Dropout(0.5),
            L.Dense(10),
        ]
    )


def tensorflow_cnn(tf):
    """``tf.keras.Sequential`` of the guide's CNN (built on first call)."""
    L = tf.keras.layers
    return tf.keras.Sequential(
        [
            L.Conv2D(32, 5, padding="same", activation="relu"),
            L.MaxPooling2D(2),
            L.Conv2D(64, 5, padding="same", activation="relu"),
            L.MaxPooling2D(2),
            L.Flatten(),
            L.Dense(1024, activation="relu"),
            L.Dropout(0.5),
            L.Dense(10),
        ]
    )


def torch_cnn(torch):
    """``torch.nn.Sequential`` of the guide's CNN, for NCHW inputs."""
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 32, 5, padding=2),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(7 * 7 * 64, 1024),
        nn.ReLU(),
        nn.Dropout(0.5),
        nn.Linear(1024, 10),
    )
