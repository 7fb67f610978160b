"""Argument checks and shape arithmetic shared by the layers (Keras's ``conv_utils``)."""

from __future__ import annotations

import math
import numbers

from ... import nest
from ...core.tensor import Tensor
from ...ops import elementwise
from .. import constraints, initializers, regularizers


def normalize_tuple(value, n: int, name: str, layer: str, allow_zero: bool = False) -> tuple:
    """An int or a sequence of ``n`` ints as a tuple of ``n`` positive ints.

    Raises:
        ValueError: Keras's message, ending with ``Received: name=value``.
    """
    if isinstance(value, numbers.Integral):
        out = (int(value),) * n
    else:
        try:
            out = tuple(int(v) for v in value)
        except (TypeError, ValueError):
            out = ()
        if len(out) != n:
            raise ValueError(
                f"{layer}: the `{name}` argument must be a tuple of {n} integers. "
                f"Received: {name}={value!r}"
            )
    low = 0 if allow_zero else 1
    if any(v < low for v in out):
        raise ValueError(
            f"{layer}: the `{name}` argument must be {'non-negative' if allow_zero else 'positive'}"
            f" integers. Received: {name}={value!r}"
        )
    return out


def normalize_padding(value, layer: str, allow_causal: bool = False) -> str:
    """``"valid"`` or ``"same"`` (any case), and ``"causal"`` with ``allow_causal`` (Keras
    allows it for Conv1D only).

    Raises:
        ValueError: another value (the message names the accepted ones and the value).
    """
    padding = str(value).lower()
    allowed = ("valid", "same", "causal") if allow_causal else ("valid", "same")
    if padding not in allowed:
        names = "'valid', 'same' or 'causal'" if allow_causal else "'valid' or 'same'"
        raise ValueError(
            f"{layer}: the `padding` argument must be {names}. Received: padding={value!r}"
        )
    return padding


def normalize_data_format(value, layer: str, spatial_dims: int = 2) -> str:
    """``"channels_last"`` (also for None); channels_first is refused, as TF's CPU kernels do
    (the message names the layout and transpose for ``spatial_dims`` spatial axes)."""
    fmt = "channels_last" if value is None else str(value).lower()
    if fmt == "channels_first":
        layout = {1: "NWC", 2: "NHWC", 3: "NDHWC"}.get(spatial_dims, "NHWC")
        perm = [0, *range(2, spatial_dims + 2), 1]
        raise ValueError(
            f"{layer}: data_format='channels_first' is not supported; only channels_last "
            f"({layout}) runs on CPU, as in TensorFlow. Transpose the input with "
            f"ek.transpose(x, {perm})."
        )
    if fmt != "channels_last":
        raise ValueError(
            f"{layer}: data_format must be 'channels_last' or 'channels_first'. Received: "
            f"data_format={value!r}"
        )
    return fmt


def conv_output_length(length, kernel: int, padding: str, stride: int, dilation: int = 1):
    """Output length of a convolution or pool along one axis (None stays None)."""
    if length is None:
        return None
    dilated = (kernel - 1) * dilation + 1
    if padding == "same":
        return -(-length // stride)
    return max(-(-(length - dilated + 1) // stride), 0)


def cast_to_layer_dtype(layer, x: Tensor) -> Tensor:
    """``x`` cast to ``layer``'s dtype (any input dtype, integers too), as Keras's Dense and
    Conv layers cast; ``x`` itself when it already has it.

    Raises:
        ValueError: ``x`` a list, tuple or dict (several arrays given to a single-input
            model or layer; see `check_single_input`).
    """
    check_single_input(layer, x)
    if x._value.dtype != layer._dtype._np:
        return elementwise.cast(x, layer._dtype._np)
    return x


def check_single_input(layer, inputs) -> None:
    """Keras's input-count check for a layer that takes one tensor: ValueError naming the
    layer and the structure received (each array as ``'Tensor(shape=...)'``, as Keras 3's
    functional models show a mismatched structure), e.g. for a list of two arrays given to
    `fit` of a Sequential model with one input.

    >>> try:
    ...     check_single_input(ek.keras.layers.Dense(1, name="d"), [np.ones((2, 3))] * 2)
    ... except ValueError as e:
    ...     print(e)
    Layer "d" expects 1 input(s), but it received 2 input tensors. Inputs received: \
['Tensor(shape=(2, 3))', 'Tensor(shape=(2, 3))']
    """
    if not isinstance(inputs, (list, tuple, dict)):
        return

    def describe(t) -> str:
        shape = getattr(t, "shape", None)
        return repr(t) if shape is None else f"Tensor(shape={tuple(shape)})"

    n = len(nest.flatten(inputs))
    received = f"{n} input tensors" if n != 1 else f"its input inside a {type(inputs).__name__}"
    raise ValueError(
        f'Layer "{layer.name}" expects 1 input(s), but it received {received}. Inputs '
        f"received: {nest.map_structure(describe, inputs)}"
    )


def check_rank(layer, shape, rank: int) -> None:
    """Keras's input-spec check: a rank-``rank`` input, or ValueError naming the shape."""
    if len(shape) != rank:
        raise ValueError(
            f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected '
            f"ndim={rank}, found ndim={len(shape)}. Full shape received: {tuple(shape)}"
        )


def check_channels(layer, shape, rank: int) -> tuple:
    """`check_rank`, then Keras's check that the channel (last) axis is known; returns the
    shape as a tuple.

    Raises:
        ValueError: another rank, or a None channel dimension (Keras's messages).
    """
    shape = tuple(shape)
    check_rank(layer, shape, rank)
    if shape[-1] is None:
        raise ValueError(
            f'Layer "{layer.name}": the channel dimension of the inputs should be defined. '
            f"Full shape received: {shape}"
        )
    return shape


def check_last_axis(layer, shape, expected: int, built_for, kernel_shape=None) -> None:
    """ValueError naming both shapes (and ``kernel_shape`` when given) when the last axis
    differs from the one built for (``built_for`` None: weights the code assigned itself)."""
    if shape[-1] != expected:
        kernel = "" if kernel_shape is None else f", kernel shape {tuple(kernel_shape)}"
        built = "its weights" if built_for is None else f"input shape {tuple(built_for)}"
        raise ValueError(
            f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected axis -1 '
            f"of input shape to have value {expected} (the layer was built for {built}"
            f"{kernel}), but received input with shape {tuple(shape)}"
        )


def shape_of(x) -> tuple:
    return tuple(x._value.shape) if isinstance(x, Tensor) else tuple(x.shape)


def num_elements(dims) -> int | None:
    return None if any(d is None for d in dims) else math.prod(dims)


def set_weight_args(
    layer, name: str, initializer, regularizer, constraint, default="glorot_uniform"
) -> None:
    """Stores a Keras layer's arguments for its weight ``name``: ``layer.<name>_initializer``
    (``default`` for None, as TF 1.x's tf.layers took None), ``<name>_regularizer`` and
    ``<name>_constraint``."""
    setattr(layer, f"{name}_initializer", initializers.get(initializer or default))
    setattr(layer, f"{name}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{name}_constraint", constraints.get(constraint))


def add_named_weight(layer, name: str, shape: tuple, args: str | None = None):
    """``layer.add_weight(name, shape)`` with the initializer, regularizer and constraint that
    `set_weight_args` stored for ``args`` (default: ``name``)."""
    args = name if args is None else args
    return layer.add_weight(
        name,
        shape=shape,
        initializer=getattr(layer, f"{args}_initializer"),
        regularizer=getattr(layer, f"{args}_regularizer"),
        constraint=getattr(layer, f"{args}_constraint"),
    )


def add_kernel_and_bias(layer, kernel_shape: tuple, units: int) -> None:
    """Creates ``layer.kernel`` (``kernel_shape``) and, with ``use_bias``, ``layer.bias``
    (``(units,)``) from the layer's initializer, regularizer and constraint arguments, as
    Dense and the Conv layers do."""
    layer.kernel = add_named_weight(layer, "kernel", kernel_shape)
    layer.bias = add_named_weight(layer, "bias", (units,)) if layer.use_bias else None


def add_gamma_and_beta(layer, shape: tuple, scale: bool, center: bool) -> None:
    """Creates ``layer.gamma`` (with ``scale``) then ``layer.beta`` (with ``center``), each of
    ``shape``, or sets them to None, as the normalization layers do."""
    layer.gamma = add_named_weight(layer, "gamma", shape) if scale else None
    layer.beta = add_named_weight(layer, "beta", shape) if center else None
