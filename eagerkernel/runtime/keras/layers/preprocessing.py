"""Preprocessing and activation layers the guides use: Normalization (with `adapt`),
Rescaling and Softmax (follow `tf.keras.layers.Normalization`, `Rescaling`, `Softmax`)."""

from __future__ import annotations

import numpy as np

from ...core.tensor import Tensor, to_tensor
from ...ops import elementwise, reduction
from ...ops.array_ops import reshape
from ...ops.elementwise import cast
from .. import activations
from ._utils import cast_to_layer_dtype
from .base import Layer

__all__ = ["Normalization", "Rescaling", "Softmax"]

_EPSILON = 1e-7  # Keras's backend.epsilon()


class Softmax(Layer):
    """Softmax over ``axis`` (follows `tf.keras.layers.Softmax`).

    Args:
        axis: an int or a tuple of ints (default -1).

    Call arguments:
        inputs: a float tensor. mask: optional bool tensor broadcastable to ``inputs``;
            masked-out entries get probability 0 (Keras adds -1e9 before the softmax and
            multiplies by the mask after).

    Input shape:
        Any. Output shape: the same.

    >>> ek.keras.layers.Softmax()(ek.constant([[1.0, 1.0]])).numpy()
    array([[0.5, 0.5]], dtype=float32)
    >>> mask = ek.constant([[True, False]])
    >>> ek.keras.layers.Softmax()(ek.constant([[1.0, 1.0]]), mask=mask).numpy()
    array([[1., 0.]], dtype=float32)
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = tuple(int(a) for a in axis) if isinstance(axis, (list, tuple)) else int(axis)

    def call(self, inputs, mask=None):
        if mask is not None:
            m = elementwise.cast(to_tensor(mask), inputs._value.dtype)
            shape, mshape = tuple(inputs.shape), tuple(m.shape)
            if len(mshape) > len(shape):
                raise ValueError(  # Keras 3's checks and messages
                    "The `mask` must be broadcastable to `inputs` and must not have more "
                    f"dimensions. Received: inputs.shape={shape}, mask.shape={mshape}"
                )
            if any(b not in (1, a) for a, b in zip(shape[::-1], mshape[::-1])):
                raise ValueError(
                    "The `mask` must be broadcastable to `inputs`. Each mask dimension must be "
                    "1 or match the corresponding input dimension. Received: "
                    f"inputs.shape={shape}, mask.shape={mshape}"
                )
            inputs = inputs + (1.0 - m) * -1e9
        if isinstance(self.axis, tuple) and len(self.axis) > 1:
            lse = reduction.reduce_logsumexp(inputs, axis=list(self.axis), keepdims=True)
            outputs = elementwise.exp(inputs - lse)
        else:
            axis = self.axis[0] if isinstance(self.axis, tuple) else self.axis
            outputs = activations.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = outputs * m
        return outputs

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        axis = list(self.axis) if isinstance(self.axis, tuple) else self.axis
        return {**super().get_config(), "axis": axis}


class Rescaling(Layer):
    """``inputs * scale + offset``, in the layer's dtype (follows `tf.keras.layers.Rescaling`).

    Args:
        scale: a float (``1 / 255`` maps pixels to [0, 1]).
        offset: a float (default 0.0).

    Input shape:
        Any; integer inputs are cast to the layer's dtype. Output shape: the same.

    >>> ek.keras.layers.Rescaling(1 / 255)(ek.constant([[0, 255]])).numpy()
    array([[0., 1.]], dtype=float32)
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        for arg, value in (("scale", scale), ("offset", offset)):
            try:
                numeric = np.asarray(value).dtype.kind in "biuf"
            except (TypeError, ValueError):
                numeric = False
            if not numeric:
                raise TypeError(
                    f"Rescaling: {arg} must be a number or a list of numbers (one per "
                    f"channel). Received: {arg}={value!r}"
                )
        self.scale = scale
        self.offset = offset

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        dt = self._dtype._np
        return x * np.asarray(self.scale, dt) + np.asarray(self.offset, dt)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class Normalization(Layer):
    """Feature-wise standardization ``(x - mean) / max(sqrt(variance), 1e-7)`` with statistics
    given or learned by `adapt` (follows `tf.keras.layers.Normalization`).

    Args:
        axis: the axis or axes that keep their own mean and variance (default -1: one per
            feature of the last axis); the others are reduced over. None: one scalar mean and
            variance.
        mean, variance: given statistics (broadcast to the kept axes); both or neither.
        invert: apply the inverse, ``mean + x * max(sqrt(variance), 1e-7)``.

    Input shape:
        Any rank above the largest kept axis; kept axes must have a known size. Output shape:
        the same.

    Weights (after `adapt` or the first call, without ``mean``/``variance``): non-trainable
    ``mean``, ``variance`` (shape: the kept axes' sizes) and ``count`` (always 0), the attributes
    ``adapt_mean``, ``adapt_variance`` and ``count``. The attributes ``mean`` and ``variance``
    are the statistics in use shaped to broadcast against the inputs (the kept axes' sizes,
    1 elsewhere: ``(1, 3)`` for inputs ``(None, 3)``), in the compute dtype, or None before
    the layer is built, as Keras's.

    Raises:
        ValueError: only one of ``mean`` and ``variance``; a kept axis of unknown size; data
            for `adapt` whose kept axes differ from the built shape.

    >>> layer = ek.keras.layers.Normalization(axis=None)
    >>> layer.adapt(np.array([1.0, 2.0, 3.0, 4.0, 5.0], np.float32))
    >>> layer(np.array([1.0, 2.0, 3.0], np.float32)).numpy()
    array([-1.4142135 , -0.70710677,  0.        ], dtype=float32)
    >>> layer = ek.keras.layers.Normalization(mean=3.0, variance=2.0)
    >>> layer(np.array([[0.0, 7.0, 4.0]], np.float32)).numpy()
    array([[-2.1213205 ,  2.828427  ,  0.70710677]], dtype=float32)
    """

    supports_masking = True  # passes a Keras mask on (see keras.masking)

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, (int, np.integer)):
            axis = (int(axis),)
        else:
            axis = tuple(int(a) for a in axis)
        self.axis = axis
        if (mean is None) != (variance is None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self._keep: tuple = ()
        self._broadcast_shape: tuple | None = None
        self._keras_shape: tuple = ()  # the kept axes' sizes, 1 elsewhere (Keras's `mean`)

    def _plan(self, input_shape) -> None:
        shape = tuple(input_shape)
        ndim = len(shape)
        keep = tuple(sorted(a % ndim if ndim else a for a in self.axis))
        if any(not -ndim <= a < ndim for a in self.axis):
            raise ValueError(
                f"Normalization: axis {self.axis} out of range for an input of rank {ndim} "
                f"(shape {shape})."
            )
        for a in keep:
            if shape[a] is None:
                raise ValueError(
                    "All `axis` values to be kept must have a known shape. Received axis="
                    f"{self.axis}, inputs.shape={shape}, with unknown axis at index {a}"
                )
        self._keep = keep
        # No kept axis: scalar statistics, which broadcast against inputs of any rank.
        self._keras_shape = tuple(shape[d] if d in keep else 1 for d in range(ndim))
        self._broadcast_shape = self._keras_shape if keep else ()
        self._stat_shape = tuple(shape[d] for d in keep)

    def build(self, input_shape) -> None:
        self._plan(input_shape)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(
                "mean", shape=self._stat_shape, initializer="zeros", trainable=False
            )
            self.adapt_variance = self.add_weight(
                "variance", shape=self._stat_shape, initializer="ones", trainable=False
            )
            self.count = self.add_weight(
                "count", shape=(), dtype="int64", initializer="zeros", trainable=False
            )
        self.built = True

    @property
    def mean(self):
        """The mean in use, shaped to broadcast against the inputs (see the class docstring);
        None before the layer is built."""
        return self._public_stat(0)

    @property
    def variance(self):
        """The variance in use, shaped as `mean`; None before the layer is built."""
        return self._public_stat(1)

    def _public_stat(self, index: int):
        if not self.built:
            return None
        stat = self._stats()[index]
        return reshape(cast(to_tensor(stat), self.compute_dtype), self._keras_shape)

    @property
    def is_adapted(self) -> bool:
        """Whether `adapt` has set the statistics."""
        return getattr(self, "_adapted", False)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Computes the mean and (population) variance of ``data`` over the reduced axes.

        Args:
            data: a NumPy array, a Tensor, or a Dataset (of batches, or of ``(x, ...)``
                tuples whose first element is used).
            batch_size: for arrays, accepted and unused: the statistics are exact either way.
            steps: for a Dataset, the number of batches to read (default: all).

        Raises:
            ValueError: the layer was given ``mean``/``variance``; a Dataset with no
                elements; data whose kept axes differ from the built shape.
        """
        if self.input_mean is not None:
            raise ValueError(
                f"Normalization {self.name!r}: adapt() cannot be used when mean and variance "
                "were given to the constructor."
            )
        from ..data_adapter import is_dataset

        if is_dataset(data):
            batches = []
            for i, element in enumerate(data):
                if steps is not None and i >= steps:
                    break
                x = element[0] if isinstance(element, tuple) else element
                batches.append(np.asarray(x.numpy() if isinstance(x, Tensor) else x))
            if not batches:
                raise ValueError(f"Normalization {self.name!r}: adapt() got an empty Dataset.")
            arr = np.concatenate([b.reshape(-1, *b.shape[1:]) for b in batches], axis=0)
        else:
            arr = np.asarray(data.numpy() if isinstance(data, Tensor) else data)
        arr = arr.astype(np.float64)
        if not self.built:
            self._plan((None, *arr.shape[1:]) if arr.ndim else ())
            self._maybe_build_from(arr.shape)
        else:
            stat_shape = tuple(arr.shape[d] for d in self._keep if d < arr.ndim)
            if stat_shape != self._stat_shape:
                raise ValueError(
                    f"Normalization {self.name!r}: adapt() data of shape {arr.shape} does not "
                    f"match the kept axes {self._keep} of the built shape (sizes "
                    f"{self._stat_shape})."
                )
        reduce_axes = tuple(d for d in range(arr.ndim) if d not in self._keep)
        mean = arr.mean(axis=reduce_axes)
        variance = arr.var(axis=reduce_axes)
        dt = self._dtype._np
        self.adapt_mean.assign(np.asarray(mean, dt).reshape(self._stat_shape))
        self.adapt_variance.assign(np.asarray(variance, dt).reshape(self._stat_shape))
        self._adapted = True  # ``count`` stays 0: Keras 3 keeps it only for old saved models

    def _maybe_build_from(self, shape) -> None:
        self.build((None, *shape[1:]) if len(shape) else ())
        if Layer.variable_observers:
            Layer.variable_observers.notify("layer_built", self)

    def _stats(self):
        if self.input_mean is not None:
            dt = self._dtype._np
            mean = np.broadcast_to(np.asarray(self.input_mean, dt), self._stat_shape)
            var = np.broadcast_to(np.asarray(self.input_variance, dt), self._stat_shape)
            return (
                np.reshape(mean, self._broadcast_shape),
                np.reshape(var, self._broadcast_shape),
            )
        shape = self._broadcast_shape
        return reshape(self.adapt_mean, shape), reshape(self.adapt_variance, shape)

    def call(self, inputs):
        x = cast_to_layer_dtype(self, inputs)
        if self._keep and len(x.shape) != len(self._broadcast_shape):
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim={len(self._broadcast_shape)}, found ndim={len(x.shape)}. Full shape "
                f"received: {tuple(x.shape)}"
            )
        mean, variance = self._stats()
        std = elementwise.maximum(elementwise.sqrt(to_tensor(variance)), _EPSILON)
        if self.invert:
            return mean + x * std
        return (x - mean) / std

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        def plain(v):
            return np.asarray(v).tolist() if v is not None else None

        axis = list(self.axis) if self.axis else None
        if axis is not None and len(axis) == 1:
            axis = axis[0]
        return {
            **super().get_config(),
            "axis": axis,
            "mean": plain(self.input_mean),
            "variance": plain(self.input_variance),
            "invert": self.invert,
        }
