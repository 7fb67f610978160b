"""SpectralNormalization: a wrapper that rescales a layer's kernel by its largest singular
value, estimated by power iteration (follows `tf.keras.layers.SpectralNormalization`; Miyato
et al. 2018)."""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tape import stop_recording
from ...ops import elementwise
from .. import initializers
from .wrappers import Wrapper

__all__ = ["SpectralNormalization"]


def _l2_normalize(x: np.ndarray) -> np.ndarray:
    """``x / max(||x||, 1e-12)`` over all entries (Keras's ``normalize(x, axis=None)``)."""
    return x / max(float(np.sqrt(np.sum(x * x))), 1e-12)


class SpectralNormalization(Wrapper):
    """Divides the wrapped layer's kernel by its spectral norm at each training call (follows
    `tf.keras.layers.SpectralNormalization`), which bounds the layer's Lipschitz constant
    (GAN discriminators).

    The kernel is viewed as a matrix ``W`` of shape ``(prod(kernel.shape[:-1]),
    kernel.shape[-1])``. With ``training=True`` each call runs ``power_iterations`` steps of
    ``v = normalize(u @ W.T)``, ``u = normalize(v @ W)`` from the stored ``vector_u``, then
    assigns ``kernel / sigma`` with ``sigma = v @ W @ u.T`` to the kernel Variable and the new
    ``u`` to ``vector_u`` (as Keras does: the update is an assignment, so gradients see the
    kernel as the layer uses it, not the division). An all-zero kernel is left as it is.
    Without training the layer runs with its kernel unchanged.

    Args:
        layer: a `Layer` with a ``kernel`` (`Dense`, `Conv2D`, ...) or ``embeddings``
            (`Embedding`) weight.
        power_iterations: positive int (default 1), the power-iteration steps per call.

    Weights: the wrapped layer's, then ``vector_u`` ``(1, kernel.shape[-1])`` (non-trainable,
    the kernel's dtype, initialized from ``TruncatedNormal(stddev=0.02)``).

    Input and output shapes: those of the wrapped layer; a floating output is cast to a
    floating input's dtype.

    Raises:
        ValueError: ``power_iterations`` <= 0, ``layer`` not a Layer, or a layer with neither
            ``kernel`` nor ``embeddings`` (at build).

    >>> sn = ek.keras.layers.SpectralNormalization(ek.keras.layers.Dense(4), power_iterations=30)
    >>> _ = sn(ek.ones((2, 3)), training=True)
    >>> round(float(np.linalg.svd(sn.layer.kernel.numpy(), compute_uv=False)[0]), 4)
    1.0
    >>> [w.name.split("/")[-1] for w in sn.non_trainable_weights]
    ['vector_u:0']
    """

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if (
            isinstance(power_iterations, bool)
            or not isinstance(power_iterations, numbers.Integral)
            or power_iterations <= 0
        ):
            raise ValueError(
                "SpectralNormalization: `power_iterations` should be greater than zero. "
                f"Received: power_iterations={power_iterations!r}"
            )
        self.power_iterations = int(power_iterations)

    def build(self, input_shape) -> None:
        super().build(input_shape)
        if hasattr(self.layer, "kernel") and self.layer.kernel is not None:
            self.kernel = self.layer.kernel
        elif hasattr(self.layer, "embeddings"):
            self.kernel = self.layer.embeddings
        else:
            raise ValueError(
                f"SpectralNormalization: {type(self.layer).__name__} object has no attribute "
                "'kernel' nor 'embeddings'"
            )
        self.kernel_shape = tuple(self.kernel.shape)
        self.vector_u = self.add_weight(
            "vector_u",
            shape=(1, self.kernel_shape[-1]),
            initializer=initializers.TruncatedNormal(stddev=0.02),
            trainable=False,
            dtype=self.kernel.dtype,
        )
        self.built = True

    def normalized_weights(self) -> tuple:
        """``(vector_u, kernel)`` after ``power_iterations`` steps: the new ``u`` and the
        kernel divided by its estimated spectral norm (NumPy arrays, not assigned)."""
        kernel = np.asarray(self.kernel.numpy(), np.float64)
        w = kernel.reshape(-1, self.kernel_shape[-1])
        u = np.asarray(self.vector_u.numpy(), np.float64)
        for _ in range(self.power_iterations):
            v = _l2_normalize(u @ w.T)
            u = _l2_normalize(v @ w)
        sigma = float((v @ w @ u.T)[0, 0])
        dtype = self.kernel.dtype.as_numpy_dtype
        return u.astype(self.vector_u.dtype.as_numpy_dtype), (kernel / sigma).astype(dtype)

    def call(self, inputs, training=None):
        if training:
            with stop_recording():
                if np.any(self.kernel.numpy() != 0):
                    u, kernel = self.normalized_weights()
                    self.vector_u.assign(u)
                    self.kernel.assign(kernel)
        output = self.layer(inputs)
        in_dtype = getattr(inputs, "dtype", None)
        if (
            in_dtype is not None
            and getattr(in_dtype, "is_floating", False)
            and output.dtype.is_floating
            and output.dtype != in_dtype
        ):
            output = elementwise.cast(output, in_dtype)
        return output

    def get_config(self) -> dict:
        return {**super().get_config(), "power_iterations": self.power_iterations}
