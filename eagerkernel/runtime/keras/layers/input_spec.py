"""`InputSpec` and the check `Layer.__call__` makes with a layer's ``input_spec``
(follow Keras 3's ``keras.layers.InputSpec`` and ``assert_input_compatibility``).

A layer that sets ``self.input_spec`` (one `InputSpec`, or a list of them for several inputs)
has every input it is called with, eager or symbolic, checked before ``build`` and ``call``;
a mismatch raises Keras's ValueError, e.g. ``Input 0 of layer "conv" is incompatible with the
layer: expected ndim=4, found ndim=3. Full shape received: (2, 5, 5)``.
"""

from __future__ import annotations

import numpy as np

from ... import nest
from ...core import dtypes

__all__ = ["InputSpec", "InputSpecMixin", "assert_input_compatibility"]


def _dtype_name(dtype) -> str:
    try:
        return dtypes.as_dtype(dtype).name
    except (TypeError, ValueError):
        return str(dtype)


def _shape_tuple(shape) -> tuple:
    if hasattr(shape, "as_list"):
        shape = shape.as_list()
    return tuple(None if d is None else int(d) for d in shape)


class InputSpec:
    """The rank, dtype and shape a layer accepts for one input (follows
    `keras.layers.InputSpec`). Every argument left as None (or empty) is not checked.

    Args:
        dtype: the expected dtype (compared by name, ``"float32"``).
        shape: the expected shape; None entries match any size. Sets ``ndim`` to its length.
        ndim: the expected rank (ignored when ``shape`` is given, as Keras does).
        max_ndim: the largest rank accepted.
        min_ndim: the smallest rank accepted.
        axes: dict of ``{axis: size}`` the input must have (negative axes count from the end).
        allow_last_axis_squeeze: a trailing axis of size 1 may be missing or extra: ``ndim``
            is then not checked and ``shape`` is compared without a trailing 1.
        name: the input's name, used to pick it from a dict of inputs.
        optional: a None input is accepted.

    Raises:
        TypeError: ``axes`` is not a dict with integer keys.
        ValueError: an axis in ``axes`` beyond ``ndim`` (or ``max_ndim``).

    >>> ek.keras.layers.InputSpec(ndim=4, axes={-1: 3})
    InputSpec(ndim=4, axes={-1: 3})
    """

    def __init__(
        self,
        dtype=None,
        shape=None,
        ndim=None,
        max_ndim=None,
        min_ndim=None,
        axes=None,
        allow_last_axis_squeeze=False,
        name=None,
        optional=False,
    ):
        self.dtype = _dtype_name(dtype) if dtype is not None else None
        if shape is not None:
            self.shape = _shape_tuple(shape)
            self.ndim = len(self.shape)
        else:
            self.ndim = ndim
            self.shape = None
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = optional
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        try:
            axes = axes or {}
            self.axes = {int(k): axes[k] for k in axes}
        except (ValueError, TypeError):
            raise TypeError(
                f"Argument `axes` must be a dict with integer keys. Received: axes={axes}"
            ) from None
        if self.axes and (self.ndim is not None or self.max_ndim is not None):
            max_dim = (self.ndim if self.ndim else self.max_ndim) - 1
            max_axis = max(self.axes)
            if max_axis > max_dim:
                raise ValueError(
                    f"Axis {max_axis} is greater than the maximum allowed value: {max_dim}"
                )

    def __repr__(self) -> str:
        spec = [
            f"dtype={self.dtype}" if self.dtype else "",
            f"shape={self.shape}" if self.shape else "",
            f"ndim={self.ndim}" if self.ndim else "",
            f"max_ndim={self.max_ndim}" if self.max_ndim else "",
            f"min_ndim={self.min_ndim}" if self.min_ndim else "",
            f"axes={self.axes}" if self.axes else "",
        ]
        return f"InputSpec({', '.join(x for x in spec if x)})"

    def get_config(self) -> dict:
        """The arguments that rebuild this spec with `from_config` (Keras's keys)."""
        return {
            "dtype": self.dtype,
            "shape": self.shape,
            "ndim": self.ndim,
            "max_ndim": self.max_ndim,
            "min_ndim": self.min_ndim,
            "axes": self.axes,
        }

    @classmethod
    def from_config(cls, config: dict) -> InputSpec:
        return cls(**config)


def _incompatible(index: int, layer_name: str, detail: str) -> ValueError:
    return ValueError(
        f'Input {index} of layer "{layer_name}" is incompatible with the layer: {detail}'
    )


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raises Keras's ValueError when ``inputs`` do not match ``input_spec`` (one `InputSpec`,
    a list of them, or None).

    Raises:
        ValueError: a missing named input in a dict, a different number of inputs, an input
            without a shape, or a rank, dtype, axis size or shape that does not match.
    """
    if not input_spec:
        return
    specs = nest.flatten(input_spec)
    if isinstance(inputs, dict):
        names = [spec.name for spec in specs]
        if all(names):
            for name in names:
                if name not in inputs:
                    raise ValueError(
                        f'Missing data for input "{name}". You passed a data dictionary with '
                        f"keys {list(inputs.keys())}. Expected the following keys: {names}"
                    )
            inputs = [inputs[name] for name in names]
    flat = nest.flatten(inputs)
    if len(flat) != len(specs):
        raise ValueError(
            f'Layer "{layer_name}" expects {len(specs)} input(s), but it received '
            f"{len(flat)} input tensors. Inputs received: {inputs}"
        )
    for index, (x, spec) in enumerate(zip(flat, specs)):
        if spec is None or (x is None and spec.optional):
            continue
        if not hasattr(x, "shape"):
            raise ValueError(
                f"Inputs to a layer should be tensors. Got '{x}' (of type {type(x)}) as input "
                f"for layer '{layer_name}'."
            )
        shape = _shape_tuple(x.shape)
        ndim = len(shape)
        if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
            raise _incompatible(
                index,
                layer_name,
                f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}",
            )
        if spec.max_ndim is not None and ndim > spec.max_ndim:
            raise _incompatible(
                index, layer_name, f"expected max_ndim={spec.max_ndim}, found ndim={ndim}"
            )
        if spec.min_ndim is not None and ndim < spec.min_ndim:
            raise _incompatible(
                index,
                layer_name,
                f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                f"Full shape received: {shape}",
            )
        if spec.dtype is not None:
            dtype = _dtype_name(getattr(x, "dtype", np.asarray(x).dtype))
            if dtype != spec.dtype:
                raise _incompatible(
                    index, layer_name, f"expected dtype={spec.dtype}, found dtype={dtype}"
                )
        for axis, value in spec.axes.items():
            if value is None:
                continue
            if not -ndim <= axis < ndim or shape[axis] not in {value, None}:
                raise _incompatible(
                    index,
                    layer_name,
                    f"expected axis {axis} of input shape to have value {value}, "
                    f"but received input with shape {shape}",
                )
        if spec.shape is not None:
            spec_shape, got = spec.shape, shape
            if spec.allow_last_axis_squeeze:
                if got and got[-1] == 1:
                    got = got[:-1]
                if spec_shape and spec_shape[-1] == 1:
                    spec_shape = spec_shape[:-1]
            for spec_dim, dim in zip(spec_shape, got):
                if spec_dim is not None and dim is not None and spec_dim != dim:
                    raise _incompatible(
                        index,
                        layer_name,
                        f"expected shape={spec.shape}, found shape={shape}",
                    )


class InputSpecMixin:
    """Adds ``input_spec`` (None: inputs are not checked) to `Layer`; `Layer.__call__` calls
    `_assert_input_compatibility` on the first argument when it is set."""

    input_spec = None

    def _assert_input_compatibility(self, inputs) -> None:
        assert_input_compatibility(self.input_spec, inputs, layer_name=self.name)
