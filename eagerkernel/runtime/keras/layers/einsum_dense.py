"""`EinsumDense` (follows `tf.keras.layers.EinsumDense`, Keras 3): a dense layer whose product is
an einsum equation; the projections of the attention layers."""

from __future__ import annotations

import numbers
import re
import string

from ...ops import elementwise, linalg
from .. import activations, initializers, regularizers
from ._utils import shape_of
from .base import Layer

__all__ = ["EinsumDense"]


def _split_equation(equation: str) -> tuple[str, str, str, str]:
    """``(input_spec, kernel_spec, output_spec, ellipsis)`` of an EinsumDense equation;
    ``ellipsis`` is "left", "right" or "" (Keras's three accepted forms)."""
    if not isinstance(equation, str):
        raise TypeError(
            f"EinsumDense: equation must be a string such as 'ab,bc->ac'. Received: "
            f"equation={equation!r}"
        )
    eq = equation.replace(" ", "")
    for pattern, where in (
        (r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)", ""),
        (r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)", "left"),
        (r"([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\.", "right"),
    ):
        m = re.fullmatch(pattern, eq)
        if m:
            return m.group(1), m.group(2), m.group(3), where
    raise ValueError(
        f"Invalid einsum equation '{equation}'. Equations must be in the form [X],[Y]->[Z], "
        "...[X],[Y]->...[Z], or [X]...,[Y]->[Z]...."
    )


def _analyze_einsum(
    equation: str, bias_axes, input_shape: tuple, output_shape, keep_none: bool = False
) -> tuple:
    """``(kernel_shape, bias_shape, full_output_shape, expanded_equation)`` for an input of
    ``input_shape`` (Keras's ``_analyze_einsum_string``; the ellipsis is expanded into letters
    since `ek.einsum` takes none). ``keep_none``: the None entries of ``output_shape`` stay
    None in ``full_output_shape`` (as Keras's ``compute_output_shape`` gives them) instead of
    taking the input's sizes."""
    in_spec, w_spec, out_spec, where = _split_equation(equation)
    elided = len(input_shape) - len(in_spec)
    if elided < 0 or (elided > 0 and not where):
        raise ValueError(
            f"EinsumDense: the equation '{equation}' expects inputs of rank {len(in_spec)}, "
            f"received input_shape={tuple(input_shape)}"
        )
    out = [output_shape] if isinstance(output_shape, numbers.Integral) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided and where == "left":
        for i in range(1, elided):
            out.insert(1, input_shape[i])
        # the leading elided axes lie in front of both specs
        in_pos = {c: i + elided for i, c in enumerate(in_spec)}
        out_pos = {c: i + elided for i, c in enumerate(out_spec)}
    else:
        if elided:
            out.extend(input_shape[len(input_shape) - elided :])
        in_pos = {c: i for i, c in enumerate(in_spec)}
        out_pos = {c: i for i, c in enumerate(out_spec)}
    for c in in_spec:
        if c in out_pos:
            have, want = input_shape[in_pos[c]], out[out_pos[c]]
            if want is None:
                out[out_pos[c]] = None if keep_none else have
            elif have is not None and want != have:
                raise ValueError(
                    f"Input shape and output shape do not match at shared dimension '{c}'. "
                    f"Input shape is {have}, and output shape is {want}."
                )
    for c in out_spec:
        if c not in in_spec and c not in w_spec:
            raise ValueError(
                f"Dimension '{c}' was specified in the output '{out_spec}' but has no "
                f"corresponding dim in the input spec '{in_spec}' or weight spec '{w_spec}'"
            )
    kernel_shape = []
    for c in w_spec:
        if c in in_pos:
            kernel_shape.append(input_shape[in_pos[c]])
        elif c in out_pos:
            kernel_shape.append(out[out_pos[c]])
        else:
            raise ValueError(
                f"Weight dimension '{c}' did not have a match in either the input spec "
                f"'{in_spec}' or the output spec '{out_spec}'. For this layer, the weight must "
                "be fully specified."
            )
    bias_shape = None
    if bias_axes is not None:
        for c in bias_axes:
            if c not in out_spec:
                raise ValueError(
                    f"Bias dimension '{c}' was requested, but is not part of the output spec "
                    f"'{out_spec}'"
                )
        first = min(out_spec.find(c) for c in bias_axes)
        bias_shape = [out[out_pos[c]] if c in bias_axes else 1 for c in out_spec[first:]]
        if where != "left":
            bias_shape.extend([1] * elided)
    # `ek.einsum` takes no ellipsis: spell the elided axes with unused letters
    free = [c for c in string.ascii_letters if c not in in_spec + w_spec + out_spec][:elided]
    dots = "".join(free)
    if where == "left":
        expanded = f"{dots}{in_spec},{w_spec}->{dots}{out_spec}"
    else:
        expanded = f"{in_spec}{dots},{w_spec}->{out_spec}{dots}"
    return kernel_shape, bias_shape, tuple(out), expanded


class EinsumDense(Layer):
    """A dense layer whose contraction is an einsum equation (follows
    `tf.keras.layers.EinsumDense`).

    Computes ``activation(einsum(equation, inputs, kernel) + bias)``. The kernel's shape is
    read from the equation: each kernel letter takes the size of the same letter in the input
    or in ``output_shape``.

    Args:
        equation: ``"ab,bc->ac"``-style, with the input first and the kernel second; a leading
            (``"...b,bc->...c"``) or trailing ellipsis stands for axes passed through.
        output_shape: the output's shape without the batch axis (an int for rank 2); None
            entries take the input's size on a shared letter.
        activation: applied last (default None).
        bias_axes: letters of the output that the bias spans (default None: no bias).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
            kernel_constraint, bias_constraint: as for `Dense`.
        lora_rank: not supported (NotImplementedError).

    Raises:
        ValueError: a malformed equation, mismatched sizes, or bias axes not in the output
            (Keras's messages).

    >>> layer = ek.keras.layers.EinsumDense("ab,bc->ac", output_shape=64, bias_axes="c")
    >>> layer(ek.ones((2, 32))).shape
    TensorShape([2, 64])
    >>> layer.kernel.shape, layer.bias.shape
    (TensorShape([32, 64]), TensorShape([64]))
    """

    def __init__(
        self,
        equation,
        output_shape,
        activation=None,
        bias_axes=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        lora_rank=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if lora_rank is not None:
            raise NotImplementedError("EinsumDense: lora_rank is not supported.")
        _split_equation(equation)  # refuse a malformed equation at once, as Keras does
        self.equation = equation
        if isinstance(output_shape, numbers.Integral):
            self.partial_output_shape = (int(output_shape),)
        else:
            self.partial_output_shape = tuple(output_shape)
        self.activation = activations.get(activation)
        self.bias_axes = bias_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint

    def build(self, input_shape) -> None:
        kernel_shape, bias_shape, full, expanded = _analyze_einsum(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape
        )
        if any(d is None for d in kernel_shape) or (bias_shape and None in bias_shape):
            raise ValueError(
                f'Layer "{self.name}": the kernel shape {tuple(kernel_shape)} of equation '
                f"'{self.equation}' is not fully known for input_shape={tuple(input_shape)}."
            )
        self.full_output_shape = full
        self._expanded = expanded
        self.kernel = self.add_weight(
            "kernel",
            shape=tuple(kernel_shape),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight(
                "bias",
                shape=tuple(bias_shape),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def call(self, inputs):
        if inputs._value.dtype != self._dtype._np:
            inputs = elementwise.cast(inputs, self._dtype._np)
        *_, expanded = _analyze_einsum(
            self.equation, self.bias_axes, shape_of(inputs), self.partial_output_shape
        )
        x = linalg.einsum(expanded, inputs, self.kernel)
        if self.bias is not None:
            x = x + self.bias
        if self.activation is not None:
            x = self.activation(x)
        return x

    def compute_output_shape(self, input_shape) -> tuple:
        return _analyze_einsum(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape, True
        )[2]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "equation": self.equation,
            "output_shape": list(self.partial_output_shape),
            "activation": activations.serialize(self.activation),
            "bias_axes": self.bias_axes,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
        }
