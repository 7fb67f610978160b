"""Merging layers: Add, Subtract, Multiply, Average, Maximum, Minimum, Concatenate (follow
`tf.keras.layers.Add` and friends), their function forms (``layers.add([a, b])``, ...) and the
layer that records arithmetic on KerasTensors (``x + y`` in a functional model)."""

from __future__ import annotations

import functools

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops, creation, elementwise, linalg, math_more, reduction
from .base import Layer, unique_name

__all__ = [
    "Add",
    "Average",
    "Concatenate",
    "Maximum",
    "Minimum",
    "Multiply",
    "Operator",
    "Subtract",
    "add",
    "average",
    "concatenate",
    "maximum",
    "minimum",
    "multiply",
    "operator_layer",
    "subtract",
]


def _broadcast(a, b, layer: str) -> tuple:
    """Broadcast two shapes with None for unknown sizes (NumPy's rule, aligned at the end)."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(
                f'Layer "{layer}": inputs have incompatible shapes. Received: shapes {a} and {b}'
            )
    return tuple(out)


def _mask_list(layer, inputs, mask) -> list:
    if not isinstance(mask, (list, tuple)) or len(mask) != len(inputs):
        raise ValueError(
            f"Layer {layer.name!r}: `mask` should be a list as long as `inputs` "
            f"({len(inputs)}). Received: mask={mask!r:.200}"
        )
    return [None if m is None else to_tensor(m) for m in mask]


def _promote(inputs) -> list:
    """``inputs`` cast to one dtype as Keras 3's ops promote them: the first floating dtype
    when there is one (``int64`` and ``float32`` give ``float32``), else NumPy's result type
    of the integer dtypes."""
    tensors = [to_tensor(x) for x in inputs]
    floats = [t.dtype for t in tensors if t.dtype.is_floating]
    target = floats[0] if floats else np.result_type(*[t.dtype.as_numpy_dtype for t in tensors])
    return [elementwise.cast(t, target) for t in tensors]


class _Merge(Layer):
    """Base of the elementwise merging layers: a list of at least one tensor (Keras 3; Keras 2
    asked for two), broadcast."""

    _min_inputs = 1

    def _check(self, inputs) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < self._min_inputs:
            raise ValueError(
                f'Layer "{self.name}" ({type(self).__name__}) should be called on a list of at '
                f"least {self._min_inputs} input{'s' if self._min_inputs > 1 else ''}. "
                f"Received: {inputs!r:.200}"
            )
        return list(inputs)

    def build(self, input_shape) -> None:
        self._check(input_shape)
        shape = input_shape[0]
        for s in input_shape[1:]:
            shape = _broadcast(shape, s, self.name)
        self.built = True

    def call(self, inputs):
        inputs = self._check(inputs)
        if len({to_tensor(x).dtype for x in inputs}) > 1:
            inputs = _promote(inputs)
        return functools.reduce(self._merge, inputs[1:], inputs[0])

    def compute_mask(self, inputs, mask=None):
        """The steps any input keeps (Keras 3's OR of the masks); None unless every input
        has a mask."""
        if mask is None:
            return None
        masks = _mask_list(self, inputs, mask)
        if any(m is None for m in masks):
            return None
        return functools.reduce(elementwise.logical_or, masks[1:], masks[0])

    def compute_output_shape(self, input_shape) -> tuple:
        shapes = self._check(input_shape)
        out = tuple(shapes[0])
        for s in shapes[1:]:
            out = _broadcast(out, s, self.name)
        return out


class Add(_Merge):
    """Sums a list of tensors of one shape (broadcasting), e.g. a residual connection (follows
    `tf.keras.layers.Add`).

    Input shape:
        A list of at least one tensor (Keras 3; one tensor is returned as it is), of
        compatible shapes.

    Output shape:
        Their broadcast shape.

    Raises:
        ValueError: not a non-empty list, or incompatible shapes.

    >>> ek.keras.layers.Add()([ek.ones((2, 3)), ek.ones((2, 3))]).numpy()[0]
    array([2., 2., 2.], dtype=float32)
    """

    @staticmethod
    def _merge(a, b):
        return elementwise.add(a, b)


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (follows `tf.keras.layers.Subtract`; exactly two inputs).

    >>> ek.keras.layers.Subtract()([ek.ones((1, 2)), ek.ones((1, 2))]).numpy()
    array([[0., 0.]], dtype=float32)
    """

    def _check(self, inputs) -> list:
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(
                f'Layer "{self.name}" (Subtract) should be called on exactly 2 inputs. '
                f"Received: {inputs!r:.200}"
            )
        return list(inputs)

    @staticmethod
    def _merge(a, b):
        return elementwise.subtract(a, b)


class Multiply(_Merge):
    """Elementwise product of a list of tensors (follows `tf.keras.layers.Multiply`)."""

    @staticmethod
    def _merge(a, b):
        return elementwise.multiply(a, b)


class Maximum(_Merge):
    """Elementwise maximum of a list of tensors (follows `tf.keras.layers.Maximum`)."""

    @staticmethod
    def _merge(a, b):
        return elementwise.maximum(a, b)


class Minimum(_Merge):
    """Elementwise minimum of a list of tensors (follows `tf.keras.layers.Minimum`)."""

    @staticmethod
    def _merge(a, b):
        return elementwise.minimum(a, b)


class Average(_Merge):
    """Elementwise mean of a list of tensors (follows `tf.keras.layers.Average`).

    >>> ek.keras.layers.Average()([ek.ones((1, 2)), ek.zeros((1, 2))]).numpy()
    array([[0.5, 0.5]], dtype=float32)
    """

    def call(self, inputs):
        inputs = self._check(inputs)
        total = functools.reduce(elementwise.add, inputs[1:], inputs[0])
        return total * (1.0 / len(inputs))


class Concatenate(Layer):
    """Concatenates a list of tensors along ``axis`` (follows `tf.keras.layers.Concatenate`).

    Args:
        axis: the axis to join along (default -1); the others must match.

    Input shape:
        A list of at least one tensor (as Keras 3), equal but for ``axis``.

    Output shape:
        The common shape, ``axis`` the sum of the inputs' sizes (None if one is unknown).

    Raises:
        ValueError: fewer than two inputs, different ranks, or other axes that differ.

    >>> ek.keras.layers.Concatenate()([ek.ones((2, 3)), ek.zeros((2, 1))]).shape
    TensorShape([2, 4])
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _check(self, shapes) -> tuple:
        if not isinstance(shapes, (list, tuple)) or len(shapes) < 1:
            raise ValueError(
                "A `Concatenate` layer should be called on a list of at least 1 input. "
                f"Received: input_shape={shapes!r:.200}"
            )
        shapes = [tuple(s) for s in shapes]
        rank = len(shapes[0])
        axis = self.axis % rank if rank else 0
        for s in shapes:
            if len(s) != rank or any(
                i != axis and a is not None and b is not None and a != b
                for i, (a, b) in enumerate(zip(s, shapes[0]))
            ):
                raise ValueError(
                    "A `Concatenate` layer requires inputs with matching shapes except for the "
                    f"concatenation axis. Received: input_shape={shapes}"
                )
        out = list(shapes[0])
        for i in range(rank):
            if i != axis and out[i] is None:
                out[i] = next((s[i] for s in shapes if s[i] is not None), None)
        sizes = [s[axis] for s in shapes]
        out[axis] = None if None in sizes else sum(sizes)
        return tuple(out)

    def build(self, input_shape) -> None:
        self._check(input_shape)
        self.built = True

    def call(self, inputs):
        self._check([tuple(x.shape) for x in inputs])
        if len({x.dtype for x in inputs}) > 1:  # Keras 3 promotes (float32 and int64 inputs)
            from ..ops import concatenate

            return concatenate(list(inputs), axis=self.axis)
        return array_ops.concat(list(inputs), axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        """The inputs' masks joined along ``axis`` (an input without one counts as kept),
        then any over the last axis, as Keras 3; None when no input has a mask."""
        if mask is None:
            return None
        masks = _mask_list(self, inputs, mask)
        if all(m is None for m in masks):
            return None
        full = []
        for x, m in zip(inputs, masks):
            x = to_tensor(x)
            if m is None:
                m = creation.ones_like(x, dtype="bool")
            elif m.ndim < x.ndim:
                m = array_ops.broadcast_to(array_ops.expand_dims(m, -1), x.shape)
            full.append(m)
        return reduction.reduce_any(array_ops.concat(full, axis=self.axis), axis=-1)

    def compute_output_shape(self, input_shape) -> tuple:
        return self._check(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


def _functional(cls, doc: str):
    def merge(inputs, **kwargs):
        return cls(**kwargs)(inputs)

    merge.__name__ = cls.__name__.lower()
    merge.__doc__ = doc
    return merge


add = _functional(Add, "``Add(**kwargs)(inputs)`` (follows `tf.keras.layers.add`).")
subtract = _functional(Subtract, "``Subtract(**kwargs)(inputs)`` (`tf.keras.layers.subtract`).")
multiply = _functional(Multiply, "``Multiply(**kwargs)(inputs)`` (`tf.keras.layers.multiply`).")
average = _functional(Average, "``Average(**kwargs)(inputs)`` (`tf.keras.layers.average`).")
maximum = _functional(Maximum, "``Maximum(**kwargs)(inputs)`` (`tf.keras.layers.maximum`).")
minimum = _functional(Minimum, "``Minimum(**kwargs)(inputs)`` (`tf.keras.layers.minimum`).")


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis, **kwargs)(inputs)`` (follows `tf.keras.layers.concatenate`)."""
    return Concatenate(axis=axis, **kwargs)(inputs)


_OPS = {
    "add": elementwise.add,
    "subtract": elementwise.subtract,
    "multiply": elementwise.multiply,
    "divide": elementwise.truediv,
    "floor_divide": elementwise.floordiv,
    "mod": elementwise.mod,
    "power": elementwise.pow,
    "matmul": linalg.matmul,
    "less": elementwise.less,
    "less_equal": elementwise.less_equal,
    "greater": elementwise.greater,
    "greater_equal": elementwise.greater_equal,
    "not_equal": elementwise.not_equal,
    "logical_and": elementwise.logical_and,
    "logical_or": elementwise.logical_or,
    "logical_xor": math_more.logical_xor,
}
_UNARY = {
    "negative": elementwise.negative,
    "absolute": elementwise.abs,
    "round": elementwise.round,
    "logical_not": elementwise.logical_not,
}

# Where the name of the Keras 3 operation differs from the op (`keras.src.ops.numpy`).
_KERAS_OP_NAMES = {"divide": "true_divide", "getitem": "get_item"}


class Operator(Layer):
    """An operator on KerasTensors as a layer (``x + y``, ``2 * x``, ``-x``, ``x > 0``,
    ``x[:, 1:]`` in a functional model), as Keras records operators on symbolic tensors
    (follows ``keras.KerasTensor``'s operators).

    Args:
        op: a binary op (``"add"``, ``"subtract"``, ``"multiply"``, ``"divide"``,
            ``"floor_divide"``, ``"mod"``, ``"power"``, ``"matmul"``, ``"less"``,
            ``"less_equal"``, ``"greater"``, ``"greater_equal"``, ``"not_equal"``,
            ``"logical_and"``, ``"logical_or"``, ``"logical_xor"``), a unary one
            (``"negative"``, ``"absolute"``, ``"round"``, ``"logical_not"``) or ``"getitem"``.
        constant: a Python number for the other operand, or None when both are inputs.
        reverse: the constant (or second input) is the left operand.
        key: for ``"getitem"``, the index in its JSON form (`encode_key`).

    Raises:
        ValueError: an unknown ``op``.
    """

    def __init__(self, op: str, constant=None, reverse: bool = False, key=None, **kwargs):
        if op not in _OPS and op not in _UNARY and op != "getitem":
            raise ValueError(
                f"Operator: unknown op {op!r}; known: {sorted([*_OPS, *_UNARY, 'getitem'])}"
            )
        if kwargs.get("name") is None:
            # Named after the Keras 3 operation (`x + y` is "add", `x / 2` "true_divide").
            kwargs["name"] = unique_name(_KERAS_OP_NAMES.get(op, op))
        super().__init__(**kwargs)
        self.op = op
        self.constant = constant
        self.reverse = bool(reverse)
        self.key = key

    def call(self, inputs):
        if self.op == "getitem":
            return inputs[decode_key(self.key)]
        if self.op in _UNARY:
            return _UNARY[self.op](inputs)
        fn = _OPS[self.op]
        if self.constant is not None:
            a, b = inputs, self.constant
        else:
            a, b = inputs
        return fn(b, a) if self.reverse else fn(a, b)

    def get_config(self) -> dict:
        config = {
            **super().get_config(),
            "op": self.op,
            "constant": self.constant,
            "reverse": self.reverse,
        }
        if self.op == "getitem":
            config["key"] = self.key
        return config


def encode_key(key):
    """An index (``x[key]``: ints, slices, ``...``, None for a new axis, lists of ints, and
    tuples of those) in a JSON form that `decode_key` turns back into it.

    >>> encode_key((slice(None, -1), Ellipsis, None, 2))
    [{'slice': [None, -1, None]}, '...', {'newaxis': True}, 2]

    Raises:
        TypeError: a part of the index that is none of these (a KerasTensor: an index that
            depends on the data needs a layer, ``ek.gather`` inside a Lambda).
    """
    import numpy as np

    if isinstance(key, tuple):
        return [encode_key(k) for k in key]
    if isinstance(key, slice):
        parts = [key.start, key.stop, key.step]
        if not all(p is None or isinstance(p, (int, np.integer)) for p in parts):
            raise TypeError(f"KerasTensor[...]: slice bounds must be ints. Received: {key!r}")
        return {"slice": [None if p is None else int(p) for p in parts]}
    if key is Ellipsis:
        return "..."
    if key is None:
        return {"newaxis": True}
    if isinstance(key, (bool, np.bool_)):
        raise TypeError(f"KerasTensor[...]: a bool is not an index. Received: {key!r}")
    if isinstance(key, (int, np.integer)):
        return int(key)
    if isinstance(key, (list, np.ndarray)) and np.asarray(key).dtype.kind in "iu":
        return {"indices": np.asarray(key).tolist()}
    raise TypeError(
        "KerasTensor[...]: the index must be made of ints, slices, ..., None and lists of "
        f"ints; an index that depends on the data needs a layer. Received: {key!r}"
    )


def decode_key(encoded):
    """The index that `encode_key` encoded (a list stands for a tuple)."""
    if isinstance(encoded, list):
        return tuple(decode_key(k) for k in encoded)
    if encoded == "...":
        return Ellipsis
    if isinstance(encoded, dict):
        if "slice" in encoded:
            return slice(*encoded["slice"])
        if encoded.get("newaxis"):
            return None
        return list(encoded["indices"])
    return encoded


def operator_layer(op: str, x, other, reverse: bool):
    """Records ``x <op> other`` (or ``<op> x``, ``x[other]``) on KerasTensors as an
    `Operator` layer call (`KerasOpLayer` when the other operand is an array or Tensor)."""
    import numpy as np

    from ...core.tensor import Tensor
    from ..keras_tensor import KerasTensor

    if op in _UNARY:
        return Operator(op)(x)
    if op == "getitem":
        return Operator(op, key=encode_key(other))(x)
    if isinstance(other, KerasTensor):
        return Operator(op, reverse=reverse)([x, other])
    if isinstance(other, np.generic) and other.dtype.kind in "iuf":
        other = np.asarray(other)  # a NumPy scalar is an array operand (x * np.float64(2))
    if isinstance(other, (np.ndarray, Tensor)):
        # An array operand is stored in the config: the op records a `KerasOpLayer`, as
        # Keras 3's operators call `keras.ops`.
        from .. import ops

        fn = getattr(ops, op)
        return fn(other, x) if reverse else fn(x, other)
    if isinstance(other, bool) or not isinstance(other, (int, float)):
        raise TypeError(
            f"KerasTensor {op}: the other operand must be a KerasTensor or a Python number. "
            f"Received: {type(other).__name__}"
        )
    return Operator(op, constant=other, reverse=reverse)(x)
