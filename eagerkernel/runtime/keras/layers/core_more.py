"""Activation and reshaping layers of Keras 3: LeakyReLU, PReLU, ELU, Identity, Permute,
RepeatVector, Dot, Masking, ActivityRegularization (follow the `tf.keras.layers` classes of
those names)."""

from __future__ import annotations

import numbers
import warnings

from ...core.tensor import Tensor, to_tensor
from ...ops import activations as _act
from ...ops import array_ops, elementwise, linalg, reduction
from ...ops import nn as _nn
from .. import initializers, regularizers
from ._utils import check_rank, shape_of
from .base import Layer

__all__ = [
    "ELU",
    "ActivityRegularization",
    "Dot",
    "Identity",
    "LeakyReLU",
    "Masking",
    "PReLU",
    "Permute",
    "RepeatVector",
    "dot",
]


class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, else ``negative_slope * x`` (follows `tf.keras.layers.LeakyReLU`,
    Keras 3).

    Args:
        negative_slope: non-negative float (default 0.3). Keras 2's ``alpha`` is accepted with
            Keras's deprecation warning.

    Raises:
        ValueError: ``negative_slope`` None or negative.

    >>> ek.keras.layers.LeakyReLU()(ek.constant([-10.0, 2.0])).numpy()
    array([-3.,  2.], dtype=float32)
    """

    supports_masking = True

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
            warnings.warn(
                "Argument `alpha` is deprecated. Use `negative_slope` instead.", stacklevel=2
            )
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(
                "The negative_slope value of a Leaky ReLU layer cannot be None or negative "
                f"value. Expected a float. Received: negative_slope={negative_slope}"
            )
        self.negative_slope = float(negative_slope)

    def call(self, inputs):
        return _act.leaky_relu(inputs, alpha=self.negative_slope)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class PReLU(Layer):
    """Leaky ReLU with a learned slope per element: ``max(x, 0) - alpha * max(-x, 0)`` (follows
    `tf.keras.layers.PReLU`).

    Args:
        alpha_initializer: default zeros (the layer starts as a ReLU).
        alpha_regularizer, alpha_constraint: for the ``alpha`` weight.
        shared_axes: 1-based axes along which ``alpha`` is shared (e.g. ``[1, 2]`` for one
            slope per channel of images).

    Weights: ``alpha`` of shape ``input_shape[1:]`` with the shared axes of size 1.

    >>> layer = ek.keras.layers.PReLU(alpha_initializer=ek.keras.initializers.Constant(0.5))
    >>> layer(ek.constant([[-2.0, 3.0]])).numpy()
    array([[-1.,  3.]], dtype=float32)
    """

    supports_masking = True

    def __init__(
        self,
        alpha_initializer="zeros",
        alpha_regularizer=None,
        alpha_constraint=None,
        shared_axes=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer or "zeros")
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = alpha_constraint
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, numbers.Integral):
            self.shared_axes = [int(shared_axes)]
        else:
            self.shared_axes = [int(a) for a in shared_axes]

    def build(self, input_shape) -> None:
        param_shape = list(input_shape[1:])
        for a in self.shared_axes or ():
            if not 1 <= a < len(input_shape):
                raise ValueError(
                    f'Layer "{self.name}": shared_axes must be in [1, {len(input_shape) - 1}]. '
                    f"Received: shared_axes={self.shared_axes}"
                )
            param_shape[a - 1] = 1
        if any(d is None for d in param_shape):
            raise ValueError(
                f'Layer "{self.name}": the non-shared axes of the input must be known. Full '
                f"shape received: {tuple(input_shape)}"
            )
        self.alpha = self.add_weight(
            "alpha",
            shape=tuple(param_shape),
            initializer=self.alpha_initializer,
            regularizer=self.alpha_regularizer,
            constraint=self.alpha_constraint,
        )
        self.built = True

    def call(self, inputs):
        return _act.relu(inputs) - self.alpha * _act.relu(-inputs)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "alpha_initializer": initializers.serialize(self.alpha_initializer),
            "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
            "shared_axes": self.shared_axes,
        }


class ELU(Layer):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)`` (follows `tf.keras.layers.ELU`).

    Args:
        alpha: float (default 1.0), the value approached for very negative inputs is
            ``-alpha``.

    >>> ek.keras.layers.ELU(alpha=2.0)(ek.constant([0.0, 1.0])).numpy()
    array([0., 1.], dtype=float32)
    """

    supports_masking = True

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        out = _act.elu(inputs)
        if self.alpha == 1.0:
            return out
        return elementwise.where(inputs > 0, out, out * self.alpha)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class Identity(Layer):
    """Returns its input unchanged (follows `tf.keras.layers.Identity`); passes masks on.

    >>> ek.keras.layers.Identity()(ek.constant([1.0, 2.0])).numpy()
    array([1., 2.], dtype=float32)
    """

    supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


class Permute(Layer):
    """Permutes the non-batch axes (follows `tf.keras.layers.Permute`).

    Args:
        dims: a permutation of ``1 .. rank - 1`` (the batch axis 0 is not included); e.g.
            ``(2, 1)`` swaps the two axes of a ``(batch, a, b)`` input.

    Raises:
        ValueError: ``dims`` is not such a permutation (Keras's message).

    >>> ek.keras.layers.Permute((2, 1))(ek.zeros((4, 10, 64))).shape
    TensorShape([4, 64, 10])
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                "Invalid permutation argument `dims` for Permute Layer. The set of indices in "
                f"`dims` must be consecutive and start from 1. Received dims={tuple(dims)}"
            )

    def call(self, inputs):
        check_rank(self, shape_of(inputs), len(self.dims) + 1)
        return array_ops.transpose(inputs, (0, *self.dims))

    def compute_output_shape(self, input_shape) -> tuple:
        input_shape = tuple(input_shape)
        check_rank(self, input_shape, len(self.dims) + 1)
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeats a ``(batch, features)`` input ``n`` times: ``(batch, n, features)`` (follows
    `tf.keras.layers.RepeatVector`).

    Raises:
        TypeError: ``n`` not an int (Keras's message). ValueError: an input not of rank 2.

    >>> ek.keras.layers.RepeatVector(3)(ek.constant([[1.0, 2.0]])).numpy()
    array([[[1., 2.],
            [1., 2.],
            [1., 2.]]], dtype=float32)
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")
        self.n = int(n)

    def call(self, inputs):
        check_rank(self, shape_of(inputs), 2)
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])

    def compute_output_shape(self, input_shape) -> tuple:
        check_rank(self, tuple(input_shape), 2)
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}


class Dot(Layer):
    """Dot product of two tensors along ``axes``, per example (follows
    `tf.keras.layers.Dot`, Keras 3's ``batch_dot``).

    Args:
        axes: an int or a pair of ints, the axis of each input that is summed over (axis 0,
            the batch, is not allowed). Negative values count from the end.
        normalize: L2-normalize both inputs along ``axes`` first, giving cosine similarities.

    Input: a list of two tensors of rank >= 2 with equal sizes along their ``axes``.
    Output: ``(batch, *rest_of_x, *rest_of_y)``; a ``(batch, 1)`` result for two rank-2
    inputs.

    Raises:
        ValueError: not a list of two inputs, a batch axis in ``axes``, or mismatched sizes
            along the axes (Keras's messages).

    >>> x = ek.reshape(ek.range(10.0), (1, 5, 2))
    >>> y = ek.reshape(ek.range(10.0, 20.0), (1, 2, 5))
    >>> ek.keras.layers.Dot(axes=(1, 2))([x, y]).numpy()
    array([[[260., 360.],
            [320., 445.]]], dtype=float32)
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axes, numbers.Integral):
            axes = (int(axes), int(axes))
        elif isinstance(axes, (list, tuple)) and len(axes) == 2:
            axes = tuple(int(a) for a in axes)
        else:
            raise TypeError(
                "Invalid type/value for `axes` argument. Expected an int or a list/tuple of "
                f"two ints. Received: axes={axes!r}"
            )
        self.axes = axes
        self.normalize = bool(normalize)

    def _resolved(self, shape1, shape2) -> tuple:
        if len(shape1) < 2 or len(shape2) < 2:
            raise ValueError(
                "A `Dot` layer should be called on inputs of rank >= 2. Received: "
                f"input_shape={[tuple(shape1), tuple(shape2)]}"
            )
        a1 = self.axes[0] % len(shape1)
        a2 = self.axes[1] % len(shape2)
        if a1 == 0 or a2 == 0:
            raise ValueError(
                f"Dot: cannot take the dot product along the batch axis 0. Received: "
                f"axes={self.axes}"
            )
        if shape1[a1] is not None and shape2[a2] is not None and shape1[a1] != shape2[a2]:
            raise ValueError(
                "Incompatible input shapes: "
                f"axis values {shape1[a1]} (at axis {a1}) != {shape2[a2]} (at axis {a2}). "
                f"Full input shapes: {tuple(shape1)}, {tuple(shape2)}"
            )
        return a1, a2

    def _check_list(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(
                "A `Dot` layer should be called on a list of 2 inputs. Received: "
                f"inputs={inputs!r:.100}"
            )

    def call(self, inputs):
        self._check_list(inputs)
        x, y = inputs
        s1, s2 = shape_of(x), shape_of(y)
        a1, a2 = self._resolved(s1, s2)
        if self.normalize:
            x = _nn.l2_normalize(x, axis=a1)
            y = _nn.l2_normalize(y, axis=a2)
        # batch "y", contracted "z", the other axes of x from "a", of y from "l"
        lx = ["y"] + [chr(ord("a") + i) for i in range(len(s1) - 1)]
        ly = ["y"] + [chr(ord("l") + i) for i in range(len(s2) - 1)]
        ly[a2] = lx[a1] = "z"
        out = [c for i, c in enumerate(lx) if i != a1]
        out += [c for i, c in enumerate(ly) if i not in (0, a2)]
        result = linalg.einsum(f"{''.join(lx)},{''.join(ly)}->{''.join(out)}", x, y)
        if len(out) == 1:
            result = array_ops.expand_dims(result, 1)
        return result

    def compute_output_shape(self, input_shape) -> tuple:
        self._check_list(input_shape)
        s1, s2 = (tuple(s) for s in input_shape)
        a1, a2 = self._resolved(s1, s2)
        out = [d for i, d in enumerate(s1) if i != a1] + [
            d for i, d in enumerate(s2) if i not in (0, a2)
        ]
        if len(out) == 1:
            out.append(1)
        return tuple(out)

    def get_config(self) -> dict:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


class Masking(Layer):
    """Masks the timesteps whose features all equal ``mask_value`` (follows
    `tf.keras.layers.Masking`).

    The output is the input with those timesteps zeroed; `compute_mask` gives the
    ``(batch, timesteps)`` boolean mask (True: kept) that the next layers of a Sequential or
    functional model receive (see `eagerkernel.runtime.keras.masking`).

    Args:
        mask_value: the padding value (default 0.0).

    >>> x = ek.constant([[[1.0, 2.0], [0.0, 0.0]]])
    >>> ek.keras.layers.Masking().compute_mask(x).numpy()
    array([[ True, False]])
    """

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def _kept(self, inputs, keepdims: bool) -> Tensor:
        """Whether any feature of each step differs from ``mask_value``; integer inputs are
        compared as float32, as Keras 3 promotes them."""
        x = inputs if isinstance(inputs, Tensor) else to_tensor(inputs, None, "Masking")
        if x._value.dtype.kind not in "fc":
            x = elementwise.cast(x, "float32")
        return reduction.reduce_any(
            elementwise.not_equal(x, self.mask_value), axis=-1, keepdims=keepdims
        )

    def compute_mask(self, inputs, mask=None):
        return self._kept(inputs, keepdims=False)

    def call(self, inputs):
        return inputs * elementwise.cast(self._kept(inputs, keepdims=True), inputs._value.dtype)

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}


class ActivityRegularization(Layer):
    """The identity, adding ``(l1 * sum(|x|) + l2 * sum(x**2)) / batch_size`` of its output to
    the model's losses at each call (follows `keras.layers.ActivityRegularization`).

    Args:
        l1, l2: non-negative floats (default 0.0).

    >>> layer = ek.keras.layers.ActivityRegularization(l1=0.5)
    >>> _ = layer(ek.constant([[1.0, -2.0]]))
    >>> float(layer.losses[0])
    1.5
    """

    supports_masking = True

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        if "activity_regularizer" in kwargs:
            raise TypeError(
                "ActivityRegularization: the activity_regularizer argument is not accepted; "
                "the layer's regularizer is L1L2(l1, l2)."
            )
        super().__init__(**kwargs)
        self.l1 = float(l1)
        self.l2 = float(l2)
        self._penalty = regularizers.L1L2(l1=self.l1, l2=self.l2)

    def call(self, inputs):
        penalty = self._penalty(inputs)
        n = inputs.shape[0] if inputs.shape.rank else None
        if n is not None:  # Keras 3: divided by the batch size, as every activity penalty
            penalty = penalty / n if n else penalty * 0
        self.add_loss(penalty)
        return inputs

    def compute_output_shape(self, input_shape) -> tuple:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "l1": self.l1, "l2": self.l2}


def dot(inputs, axes=-1, **kwargs):
    """``Dot(axes, **kwargs)(inputs)``, the functional form of `Dot` (follows
    `keras.layers.dot`)."""
    return Dot(axes=axes, **kwargs)(inputs)
