"""Shape ops: reshape, transpose, concat, split, tile, pad, ... (follow TF's).

Each `Primitive`'s VJPs follow it and use eagerkernel ops, so derivatives of any order work.
Selections (getitem, gather, ...) live in `indexing.py`. Checks look at shapes only.

Errors are TensorFlow's eager ones: a shape, axis or index that does not fit the tensor is an
`~ek.errors.InvalidArgumentError` (a ValueError) naming the op and the shapes; a dtype problem is
a TypeError; argument checks TensorFlow makes in Python before running the op (``stack``'s and
``unstack``'s axis, ``pad``'s mode) stay plain ValueErrors.
"""

from __future__ import annotations

import builtins
import itertools
import math
import operator

import numpy as np

from ..core import dtypes
from ..core.allocation import check_allocation
from ..core.composite import CompositeTensor
from ..core.conversion import NUMPY_OPERANDS, cast_operand
from ..core.dispatch import Primitive, defjointvjp, defvjp
from ..core.errors import DTypeMismatchError, InvalidArgumentError, UnsupportedDTypeError
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor, make
from ..core.type_promotion import STRONG, weak_unary
from ..extension_dispatch import dispatchable
from ._core import apply
from ._core import tensor as _tensor
from .elementwise import identity_prim

__all__ = [
    "broadcast_to",
    "concat",
    "expand_dims",
    "identity",
    "newaxis",
    "pad",
    "rank",
    "reshape",
    "reverse",
    "shape",
    "size",
    "split",
    "squeeze",
    "stack",
    "tile",
    "transpose",
    "unstack",
]

_Slice = builtins.slice  # `slice` below is TensorFlow's op
newaxis = None


# -- argument helpers ---------------------------------------------------------------------------


def int_list(value, op: str, arg: str) -> tuple:
    """A shape-like argument (int, sequence, NumPy array, int Tensor) as a tuple of ints."""
    if isinstance(value, Tensor):
        if value._value.dtype.kind not in "iu":
            raise UnsupportedDTypeError(
                f"{op}: {arg} must be integers, got a {value.dtype.name} tensor."
            )
        value = value.numpy()
    if isinstance(value, (int, np.integer, np.ndarray)):
        value = np.asarray(value).reshape(-1).tolist()
    try:
        return tuple(map(operator.index, value))
    except TypeError:
        # TensorFlow: InvalidArgumentError ("Value for attr 'Tshape' of float is not in the
        # list of allowed values"); the class is also the TypeError eagerkernel raised before
        raise UnsupportedDTypeError(
            f"{op}: {arg} must be a sequence of ints, got {value!r:.80}."
        ) from None


def axis_arg(axis, ndim: int, op: str, arg: str = "axis", error=InvalidArgumentError) -> int:
    """``axis`` normalized to ``[0, ndim)``; ``error`` outside ``[-ndim, ndim)``."""
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{op}: {arg} must be an int, got {axis!r:.60}.") from None
    if not -ndim <= a < ndim:
        raise invalid(
            op,
            f"{op}: {arg} {a} is out of range [{-ndim}, {ndim}) for a tensor of rank {ndim}.",
            error,
        )
    return a % ndim


def invalid(op: str, message: str, error=InvalidArgumentError) -> Exception:
    """The error for a bad op argument: TensorFlow's `InvalidArgumentError` (or ``error``)."""
    if error is InvalidArgumentError:
        return InvalidArgumentError(None, op, message)
    return error(message)


def _tensors(values, op: str) -> list:
    """Converts a list of values; Python numbers and NumPy arrays take the first Tensor's
    dtype (`cast_operand`), as TensorFlow converts a list with a tensor in it."""
    if isinstance(values, (dict, set, frozenset)):  # unordered, or keys: never meant
        raise TypeError(
            f"{op}: values must be a list or tuple of tensors. Received: {type(values).__name__}"
        )
    values = list(values)
    hint = next((v._value.dtype for v in values if isinstance(v, Tensor)), None)
    if hint is not None:
        values = [cast_operand(v, hint) if type(v) in NUMPY_OPERANDS else v for v in values]
    xs = [_tensor(v, op, hint) for v in values]
    if not xs:
        raise InvalidArgumentError(f"{op}: values must be a non-empty list of tensors.")
    dt = xs[0]._value.dtype
    for i, x in enumerate(xs):
        if x._value.dtype != dt:
            raise DTypeMismatchError(
                f"{op}: all values must have the same dtype, got values[0]: {xs[0].dtype.name} "
                f"and values[{i}]: {x.dtype.name}."
            )
    return xs


def index_tensor(value, like: Tensor, op: str, arg: str = "indices", kinds="iu") -> Tensor:
    """Indices or a mask as a Tensor on ``like``'s device (lists skip TF's dtype inference)."""
    if not isinstance(value, Tensor):
        arr = np.asarray(value)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int32)
        value = make(like._device.xp.asarray(arr), like._device)
    if value._value.dtype.kind not in kinds:
        what = "bool" if kinds == "b" else "an integer tensor"
        raise UnsupportedDTypeError(f"{op}: {arg} must be {what}, got {value.dtype.name}.")
    return value


_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def check_range(op: str, iv, n: int, axis: int, shape: tuple) -> None:
    """InvalidArgumentError unless ``0 <= iv < n`` (TensorFlow's CPU kernels check indices):
    one reduction, negatives viewed as huge unsigned numbers."""
    if iv.size and iv.view(_UNSIGNED[iv.dtype.itemsize]).max() >= n:
        bad = iv.min() if iv.min() < 0 else iv.max()
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: index {int(bad)} is out of range [0, {n}) for axis {axis} of shape "
            f"{tuple(shape)}.",
        )


def _sum(x: Tensor, axis: tuple) -> Tensor:
    from .reduction import reduce_sum  # reduction imports this module: import at call time

    return reduce_sum(x, axis=axis)


# -- reshaping ----------------------------------------------------------------------------------


def _reshape_fwd(xp, x, shape):
    try:
        return x.reshape(shape)
    except TypeError:
        raise TypeError(f"reshape: shape must be ints, got {shape!r:.80}.") from None
    except ValueError:
        raise _reshape_error(tuple(x.shape), x.size, tuple(shape)) from None


def _reshape_error(old: tuple, n: int, shape: tuple) -> InvalidArgumentError:
    head = f"reshape: cannot reshape a tensor of shape {old} ({n} elements) into shape {shape}"
    known = math.prod(d for d in shape if d != -1)
    if shape.count(-1) > 1:
        why = "only one dimension may be -1"
    elif any(d < -1 for d in shape):
        why = "dimensions must be >= 0, or -1 for one inferred dimension"
    elif -1 in shape:
        why = f"{n} elements are not a multiple of the {known} the other dimensions hold"
    else:
        why = f"the requested shape has {known} elements"
    return InvalidArgumentError(None, "reshape", f"{head}: {why}.")


def _reshape_vjp(g, ans, x, shape):
    return reshape(g, x._value.shape)


_reshape = Primitive("Reshape", _reshape_fwd)
defvjp(_reshape, _reshape_vjp)
_squeeze = Primitive("Squeeze", _reshape_fwd)
defvjp(_squeeze, _reshape_vjp)
_expand_dims = Primitive("ExpandDims", _reshape_fwd)
defvjp(_expand_dims, _reshape_vjp)


def reshape(tensor, shape, name=None) -> Tensor:
    """The same elements in a new ``shape``, row-major (follows `tf.reshape`).

    Args:
        tensor: any shape and dtype.
        shape: ints (list, tuple or 1-D int Tensor); one entry may be -1 (inferred).

    Raises:
        InvalidArgumentError: the element counts differ or -1 appears twice (both shapes
            named).
        TypeError: a non-integer ``shape``.

    >>> ek.reshape(ek.range(6), [2, -1]).numpy()
    array([[0, 1, 2], [3, 4, 5]], dtype=int32)
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(reshape, tensor, shape)
    if (type(tensor) is not Tensor and isinstance(tensor, CompositeTensor)) or (
        type(shape) is not tuple
        and type(shape) is not list
        and type(shape).__name__ == "DynamicRaggedShape"
    ):
        return _reshape_ragged(tensor, shape)
    x = tensor if type(tensor) is Tensor else _tensor(tensor, "reshape")
    if type(shape) is not tuple:
        shape = int_list(shape, "reshape", "shape")
    if any(isinstance(d, (int, np.integer)) and d < -1 for d in shape):  # NumPy: any < 0 is -1
        raise _reshape_error(tuple(x.shape), x._value.size, tuple(shape))
    if x._value.size == 0 and 0 in shape and list(shape).count(-1) == 1:
        # TensorFlow's rule: with a 0 in both shapes, -1 is inferred from the non-zero dims
        # alone, so (2, 0) -> (0, 4, -1) gives (0, 4, 0) and (3, 0, 2) -> (0, -1) gives (0, 6).
        known = math.prod(int(d) for d in shape if d not in (0, -1))
        n = math.prod(d for d in x._value.shape if d)
        shape = tuple(n // known if d == -1 else d for d in shape)
    return apply(_reshape, (x,), {"shape": shape})


def expand_dims(input, axis, name=None) -> Tensor:
    """Inserts a length-1 axis at ``axis`` in ``[-rank - 1, rank]`` (follows `tf.expand_dims`).

    Raises InvalidArgumentError if ``axis`` is out of range.

    >>> ek.expand_dims(ek.zeros((2, 3)), -1).shape
    TensorShape([2, 3, 1])
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(expand_dims, input, axis)
    if type(input) is not Tensor and isinstance(input, CompositeTensor):  # a RaggedTensor
        from ..ragged import ragged_ops

        return ragged_ops.expand_dims(input, axis)
    x = _tensor(input, "expand_dims")
    s = x._value.shape
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"expand_dims: axis must be an int, got {axis!r:.60}.") from None
    if not -len(s) - 1 <= a <= len(s):  # the output has one axis more than the input
        raise invalid(
            "expand_dims",
            f"expand_dims: axis {a} is out of range [{-len(s) - 1}, {len(s)}] for a tensor "
            f"of rank {len(s)} (shape {tuple(s)}).",
        )
    a %= len(s) + 1
    return apply(_expand_dims, (x,), {"shape": (*s[:a], 1, *s[a:])})


def squeeze(input, axis=None, name=None) -> Tensor:
    """Removes length-1 axes: all of them, or those in ``axis`` (follows `tf.squeeze`).

    Raises InvalidArgumentError for an ``axis`` out of range or whose length is not 1.

    >>> ek.squeeze(ek.zeros((1, 2, 1)), axis=[0]).shape
    TensorShape([2, 1])
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(squeeze, input, axis)
    x = _tensor(input, "squeeze")
    s = x._value.shape
    axes = () if axis is None else int_list(axis, "squeeze", "axis")
    if not axes:  # TF: None or [] squeezes every length-1 axis
        new = tuple(n for n in s if n != 1)
    else:
        axes = {axis_arg(a, len(s), "squeeze") for a in axes}
        for a in axes:
            if s[a] != 1:
                raise invalid(
                    "squeeze",
                    f"squeeze: cannot squeeze axis {a} of a tensor of shape {tuple(s)}: its "
                    f"length is {s[a]}, not 1.",
                )
        new = tuple(n for i, n in enumerate(s) if i not in axes)
    return apply(_squeeze, (x,), {"shape": new})


def _transpose_fwd(xp, x, perm, conjugate):
    y = x.transpose(perm)
    return xp.conj(y) if conjugate and y.dtype.kind == "c" else y


_transpose = Primitive("Transpose", _transpose_fwd)
defvjp(
    _transpose,
    lambda g, ans, x, perm, conjugate: apply(
        _transpose, (g,), {"perm": tuple(np.argsort(perm).tolist()), "conjugate": conjugate}
    ),
)


def transpose(a, perm=None, conjugate=False, name="transpose") -> Tensor:
    """Permutes the axes: output axis ``i`` is input axis ``perm[i]`` (follows `tf.transpose`).

    Args:
        a: any tensor.
        perm: a permutation of ``range(rank)`` (negative entries count from the end);
            default reverses the axes.
        conjugate: also conjugate complex values.

    Raises:
        InvalidArgumentError: ``perm`` is not a permutation of the axes (perm and shape named).

    >>> ek.transpose(ek.zeros((2, 3, 4)), [1, 2, 0]).shape
    TensorShape([3, 4, 2])
    """
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(transpose, a, perm, conjugate)
    x = _tensor(a, "transpose")
    nd = x._value.ndim
    if perm is None:
        perm = tuple(range(nd - 1, -1, -1))
    else:
        perm = int_list(perm, "transpose", "perm")
        if sorted(perm) != list(range(nd)):
            norm = tuple(p + nd if -nd <= p < 0 else p for p in perm)
            if sorted(norm) != list(range(nd)):
                raise invalid(
                    "transpose",
                    f"transpose: perm {list(perm)} is not a permutation of the axes of a tensor "
                    f"of shape {tuple(x._value.shape)}.",
                )
            perm = norm
    return apply(_transpose, (x,), {"perm": perm, "conjugate": bool(conjugate)})


def _broadcast_fwd(xp, x, shape):
    try:
        return xp.broadcast_to(x, shape)
    except ValueError:
        raise invalid(
            "broadcast_to",
            f"broadcast_to: cannot broadcast a tensor of shape {tuple(x.shape)} to shape {shape}.",
        ) from None


broadcast_to_primitive = Primitive("BroadcastTo", _broadcast_fwd)
defvjp(broadcast_to_primitive, lambda g, ans, x, shape: g)  # the tape sums g down to x's shape


def broadcast_to(input, shape, name=None) -> Tensor:
    """Broadcasts to ``shape`` with NumPy's rules (follows `tf.broadcast_to`).

    Raises InvalidArgumentError if the shapes are not compatible (both are named).

    >>> ek.broadcast_to(ek.constant([1, 2]), [2, 2]).numpy()
    array([[1, 2], [1, 2]], dtype=int32)
    """
    x = _tensor(input, "broadcast_to")
    return apply(broadcast_to_primitive, (x,), {"shape": int_list(shape, "broadcast_to", "shape")})


def identity(input, name=None) -> Tensor:
    """A tensor with the same value (follows `tf.identity`); reads a Variable's value."""
    if _NUMPY_STATE.promotion is not None and name is not STRONG:  # the new type promotion
        return weak_unary(identity, input)
    if type(input) is not Tensor and isinstance(input, CompositeTensor):  # ragged, sparse
        return input._ek_unary(identity)
    return apply(identity_prim, (_tensor(input, "identity"),))


def shape(input, out_type=dtypes.int32, name=None) -> Tensor:
    """The shape as a 1-D int32 (or int64) tensor (follows `tf.shape`); TypeError for others.

    >>> ek.shape(ek.zeros((2, 3))).numpy()
    array([2, 3], dtype=int32)
    """
    return _shape_info(input, out_type, "shape", lambda v: v.shape)


def size(input, out_type=dtypes.int32, name=None) -> Tensor:
    """The number of elements as a scalar int32 (or int64) tensor (follows `tf.size`)."""
    return _shape_info(input, out_type, "size", lambda v: v.size)


def rank(input, name=None) -> Tensor:
    """The number of axes as a scalar int32 tensor (follows `tf.rank`).

    >>> int(ek.rank(ek.zeros((2, 3))))
    2
    """
    return _shape_info(input, dtypes.int32, "rank", lambda v: v.ndim)


def _reshape_ragged(tensor, shape):
    """`reshape` to a `DynamicRaggedShape` (a RaggedTensor), or of a RaggedTensor to a dense
    shape: the values in row-major order, as TensorFlow's ragged reshape."""
    from ..ragged.dynamic_ragged_shape import DynamicRaggedShape, reshape_to
    from ..ragged.ragged_tensor import RaggedTensor

    if isinstance(shape, DynamicRaggedShape):
        return reshape_to(
            tensor if isinstance(tensor, RaggedTensor) else _tensor(tensor, "reshape"), shape
        )
    if not isinstance(tensor, RaggedTensor):
        raise TypeError(f"reshape: cannot reshape a {type(tensor).__name__}.")
    return reshape(tensor.flat_values, shape)


# Shape and Size are ops, not constants made from the shape: a graph function replays them, so
# the shape of a tensor that depends on values (`boolean_mask`, `unique`, a draw of a traced
# shape) is each call's, as TensorFlow's Shape op computes it when the graph runs.
_shape = Primitive("Shape", lambda xp, x, dtype: xp.asarray(x.shape, dtype=dtype))
_size = Primitive("Size", lambda xp, x, dtype: xp.asarray(x.size, dtype=dtype))


def _shape_info(input, out_type, op, what):
    dt = dtypes.numpy_dtype(out_type)
    if dt not in (np.int32, np.int64):
        raise TypeError(f"{op}: out_type must be int32 or int64, got {out_type!r}.")
    if type(input) is not Tensor and isinstance(input, CompositeTensor):
        return _composite_shape_info(input, dt, op)
    x = _tensor(input, op)
    if op == "rank":  # static: no op computes it
        return make(x._device.xp.asarray(what(x._value), dtype=dt), x._device)
    return apply(_shape if op == "shape" else _size, (x,), {"dtype": dt.name})


def _composite_shape_info(x, dt, op):
    """`shape` / `size` / `rank` of a RaggedTensor (shape: a `DynamicRaggedShape`, as TF's
    ragged dispatch) or a SparseTensor (its dense shape)."""
    from ..core.device import current_device
    from ..ragged.dynamic_ragged_shape import DynamicRaggedShape
    from ..ragged.ragged_tensor import RaggedTensor

    if isinstance(x, RaggedTensor):
        if op == "shape":
            return DynamicRaggedShape.from_tensor(x, dtype=dt)
        value = x.ndim if op == "rank" else x.flat_values._value.size
    else:  # a SparseTensor: its dense shape
        dense = np.asarray(x.dense_shape._value)
        value = {"shape": dense, "size": int(np.prod(dense)), "rank": len(dense)}[op]
    return make(np.asarray(value, dtype=dt), current_device())


# -- joining and splitting ----------------------------------------------------------------------


def _concat_vjp(g, ans, *xs, axis):
    cuts = tuple(itertools.accumulate(x._value.shape[axis] for x in xs[:-1]))
    return apply(_split, (g,), {"indices": cuts, "axis": axis})


_concat = Primitive("ConcatV2", lambda xp, *xs, axis: xp.concatenate(xs, axis=axis))
defjointvjp(_concat, _concat_vjp)

_split = Primitive("SplitV", lambda xp, x, indices, axis: tuple(xp.split(x, indices, axis)), 0)
defvjp(_split, lambda g, ans, x, indices, axis: apply(_concat, tuple(g), {"axis": axis}))


@dispatchable
def concat(values, axis, name="concat") -> Tensor:
    """Joins tensors along an existing ``axis`` (follows `tf.concat`).

    Args:
        values: a non-empty list of tensors of one dtype and rank (>= 1), whose shapes agree
            except along ``axis``; a single tensor (or array) is a list of one, so it comes
            back unchanged, as in TensorFlow (``tf.concat(model.predict(ds), axis=0)``).
        axis: in ``[-rank, rank)``.

    Raises:
        InvalidArgumentError: shapes that differ off ``axis`` (both named), scalars, ``axis``
            out of range.
        ValueError: an empty list. TypeError: differing dtypes.

    >>> ek.concat([ek.constant([[1, 2]]), ek.constant([[3, 4]])], axis=0).numpy()
    array([[1, 2], [3, 4]], dtype=int32)
    """
    if isinstance(values, (list, tuple)) and any(isinstance(v, CompositeTensor) for v in values):
        from ..ragged.ragged_ops import concat as ragged_concat

        return ragged_concat(values, axis)
    if hasattr(values, "shape"):  # one tensor or array is a list of one, as TF reads it
        values = [values]
    xs = _tensors(values, "concat")
    s0 = xs[0]._value.shape
    if not s0:
        raise invalid("concat", "concat: cannot concatenate scalars (shape ()); use stack.")
    a = axis_arg(axis, len(s0), "concat")
    for i, x in enumerate(xs):
        s = x._value.shape
        if len(s) != len(s0) or s[:a] != s0[:a] or s[a + 1 :] != s0[a + 1 :]:
            raise invalid(
                "concat",
                f"concat: values[0] and values[{i}] must have the same shape except on axis "
                f"{a}, got shapes {tuple(s0)} and {tuple(s)}.",
            )
    return apply(_concat, tuple(xs), {"axis": a})


def split(value, num_or_size_splits, axis=0, num=None, name="split") -> list:
    """Splits along ``axis`` into equal parts or parts of given sizes (follows `tf.split`).

    Args:
        value: a tensor of rank >= 1.
        num_or_size_splits: an int ``n`` (``n`` equal parts; must divide the axis length) or
            a list of sizes adding up to the axis length, one of which may be -1 (inferred).
        axis: in ``[-rank, rank)``.
        num: optional number of outputs, checked against the sizes.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: sizes that do not add up, an ``n`` that does not divide the axis,
            a scalar, an ``axis`` out of range, a ``num`` that is not the number of parts.

    >>> [t.shape for t in ek.split(ek.zeros((5, 2)), [2, -1])]
    [TensorShape([2, 2]), TensorShape([3, 2])]
    """
    x = _tensor(value, "split")
    s = x._value.shape
    if not s:
        raise invalid("split", "split: cannot split a scalar (shape ()).")
    a = axis_arg(axis, len(s), "split")
    n = s[a]
    count = num_or_size_splits
    if isinstance(count, (int, np.integer)) or (isinstance(count, Tensor) and count.ndim == 0):
        count = int(count)
        if count <= 0 or n % count:
            raise invalid(
                "split",
                f"split: cannot split axis {a} of length {n} (shape {tuple(s)}) into {count} "
                "equal parts.",
            )
        sizes = [n // count] * count
    else:
        given = int_list(count, "split", "num_or_size_splits")
        sizes = list(given)
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or min(sizes, default=0) < 0:
            raise invalid(
                "split",
                f"split: size splits {list(given)} must be non-negative and add up to the "
                f"length {n} of axis {a} (shape {tuple(s)}).",
            )
    if num is not None and num != len(sizes):
        raise invalid("split", f"split: num={num} but the split gives {len(sizes)} parts.")
    cuts = tuple(itertools.accumulate(sizes[:-1]))
    return list(apply(_split, (x,), {"indices": cuts, "axis": a}))


_stack = Primitive("Pack", lambda xp, *xs, axis: xp.stack(xs, axis=axis))
defjointvjp(_stack, lambda g, ans, *xs, axis: tuple(unstack(g, axis=axis)))


@dispatchable
def stack(values, axis=0, name="stack") -> Tensor:
    """Stacks same-shape tensors along a new ``axis`` in ``[-rank - 1, rank]`` (follows `tf.stack`).

    Raises InvalidArgumentError for differing shapes (both named), ValueError for an empty
    list or an ``axis`` out of range (TensorFlow checks it in Python), TypeError for differing
    dtypes.

    >>> ek.stack([ek.constant([1, 2]), ek.constant([3, 4])], axis=1).numpy()
    array([[1, 3], [2, 4]], dtype=int32)
    """
    if isinstance(values, (list, tuple)) and any(isinstance(v, CompositeTensor) for v in values):
        from ..ragged.ragged_ops import stack as ragged_stack

        return ragged_stack(values, axis)
    xs = _tensors(values, "stack")
    s0 = xs[0]._value.shape
    for i, x in enumerate(xs):
        if x._value.shape != s0:
            raise invalid(
                "stack",
                f"stack: all values must have the same shape, got values[0]: {tuple(s0)} and "
                f"values[{i}]: {tuple(x._value.shape)}.",
            )
    a = axis_arg(axis, len(s0) + 1, "stack", error=ValueError)
    return apply(_stack, tuple(xs), {"axis": a})


def _unstack_fwd(xp, x, axis):
    moved = xp.moveaxis(x, axis, 0)
    if x.dtype.kind == "O":  # strings: keep each element an array, not a bare `bytes`
        return tuple(moved[i, ...] for i in range(moved.shape[0]))
    return tuple(moved)


_unstack = Primitive("Unpack", _unstack_fwd, n_out=0)
defvjp(_unstack, lambda g, ans, x, axis: apply(_stack, tuple(g), {"axis": axis}))


def unstack(value, num=None, axis=0, name="unstack") -> list:
    """Splits along ``axis`` into a list of tensors of rank one less (follows `tf.unstack`).

    Raises ValueError for a scalar or an ``axis`` out of range (TensorFlow checks these in
    Python; InvalidArgumentError, also a ValueError, for the axis when ``num`` is given),
    InvalidArgumentError for a ``num`` that is not the axis length.

    >>> [t.numpy().tolist() for t in ek.unstack(ek.constant([[1, 2], [3, 4]]), axis=1)]
    [[1, 3], [2, 4]]
    """
    if type(value) is not Tensor and isinstance(value, CompositeTensor):  # a RaggedTensor
        from ..ragged import ragged_ops

        return ragged_ops.unstack(value, num, axis)
    x = _tensor(value, "unstack")
    s = x._value.shape
    if not s:
        raise ValueError("unstack: cannot unstack a scalar (shape ()).")
    # TensorFlow checks axis in Python only without num; with num its kernel raises
    a = axis_arg(axis, len(s), "unstack", error=ValueError if num is None else InvalidArgumentError)
    if num is not None and num != s[a]:
        raise invalid(
            "unstack", f"unstack: num={num} but axis {a} of shape {tuple(s)} has length {s[a]}."
        )
    if s[a] == 0:
        return []
    return list(apply(_unstack, (x,), {"axis": a}))


def _tile_vjp(g, ans, x, multiples):
    # Output axis i is (multiples[i], shape[i]) in row-major order: sum over the repeats.
    s = x._value.shape
    split_shape = tuple(d for m, n in zip(multiples, s) for d in (m, n))
    return _sum(reshape(g, split_shape), tuple(range(0, 2 * len(s), 2)))


_tile = Primitive("Tile", lambda xp, x, multiples: xp.tile(x, multiples))
defvjp(_tile, _tile_vjp)


@dispatchable
def tile(input, multiples, name=None) -> Tensor:
    """Repeats the tensor ``multiples[i]`` times along axis ``i`` (follows `tf.tile`).

    Raises InvalidArgumentError for ``multiples`` of the wrong length or negative,
    ResourceExhaustedError for an output too large for the device's memory.

    >>> ek.tile(ek.constant([[1, 2]]), [2, 2]).numpy()
    array([[1, 2, 1, 2], [1, 2, 1, 2]], dtype=int32)
    """
    if isinstance(input, CompositeTensor):  # a RaggedTensor
        from ..ragged.ragged_ops import tile as ragged_tile

        return ragged_tile(input, int_list(multiples, "tile", "multiples"))
    x = _tensor(input, "tile")
    m = int_list(multiples, "tile", "multiples")
    s = x._value.shape
    if len(m) != len(s) or min(m, default=0) < 0:
        raise invalid(
            "tile",
            f"tile: multiples must be {len(s)} non-negative ints for a tensor of shape "
            f"{tuple(s)}, got {list(m)}.",
        )
    check_allocation("tile", tuple(n * k for n, k in zip(s, m)), x._value.dtype, x._device)
    return apply(_tile, (x,), {"multiples": m})


# -- padding and reversing ----------------------------------------------------------------------


def _pad_fwd(xp, x, paddings, mode, constant_values):
    if mode != "constant":  # (xp.pad refuses a scalar's empty paddings)
        return xp.pad(x, paddings, mode=mode) if paddings else x.copy()
    # Faster than xp.pad's constant mode: fill, then copy the input into the middle.
    shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, paddings))
    out = xp.full(shape, constant_values, dtype=x.dtype)
    out[tuple(_Slice(lo, lo + n) for n, (lo, _) in zip(x.shape, paddings))] = x
    return out


def _pad_grad_fwd(xp, g, paddings, mode):
    """The adjoint of padding: keep the core, fold mirrored borders back onto it."""
    shift = 1 if mode == "reflect" else 0  # REFLECT does not repeat the edge element
    for ax, (lo, hi) in enumerate(paddings):
        if not (lo or hi):
            continue
        g = xp.moveaxis(g, ax, 0)
        n = g.shape[0] - lo - hi
        core = g[lo : lo + n].copy()
        if mode != "constant":
            if lo:
                core[shift : shift + lo] += xp.flip(g[:lo], 0)
            if hi:
                core[n - shift - hi : n - shift] += xp.flip(g[lo + n :], 0)
        g = xp.moveaxis(core, 0, ax)
    return g


_pad = Primitive("Pad", _pad_fwd)
_pad_grad = Primitive("PadGrad", _pad_grad_fwd)
defvjp(
    _pad,
    lambda g, ans, x, paddings, mode, constant_values: apply(
        _pad_grad, (g,), {"paddings": paddings, "mode": mode}
    ),
)
defvjp(
    _pad_grad,
    lambda g, ans, x, paddings, mode: apply(
        _pad, (g,), {"paddings": paddings, "mode": mode, "constant_values": 0}
    ),
)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None) -> Tensor:
    """Pads axis ``i`` with ``paddings[i] = [before, after]`` entries (follows `tf.pad`).

    Args:
        tensor: any shape.
        paddings: non-negative ints of shape ``[rank, 2]``.
        mode: ``"CONSTANT"`` (fill with ``constant_values``), ``"REFLECT"`` (mirror without
            the edge; paddings < the axis length) or ``"SYMMETRIC"`` (mirror with the edge;
            paddings <= the axis length); case-insensitive.
        constant_values: a scalar of the tensor's dtype (no gradient, as in TensorFlow).

    Raises:
        InvalidArgumentError: bad ``paddings`` shape or values, non-scalar ``constant_values``.
        ValueError: unknown ``mode``. TypeError: non-integer ``paddings``.

    >>> ek.pad(ek.constant([1, 2, 3]), [[2, 1]], "REFLECT").numpy()
    array([3, 2, 1, 2, 3, 2], dtype=int32)
    """
    x = _tensor(tensor, "pad")
    s = tuple(x._value.shape)
    scalar_bad = not s and np.shape(paddings) != (0, 2)  # TF: [] is shape (0,), not (0, 2)
    if isinstance(paddings, (Tensor, np.ndarray)):
        paddings = np.asarray(paddings).tolist()
    m = mode.lower() if isinstance(mode, str) else mode
    if m not in ("constant", "reflect", "symmetric"):
        raise ValueError(f"pad: mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}.")
    msg = f"pad: paddings must be ints >= 0 of shape ({len(s)}, 2) for a tensor of shape {s}"
    msg += {"reflect": " and < the axis lengths", "symmetric": " and <= them"}.get(m, "")
    if scalar_bad:
        raise invalid("pad", f"{msg}, got {paddings!r:.80}.")
    try:
        p = tuple((operator.index(lo), operator.index(hi)) for lo, hi in paddings)
    except TypeError:
        raise TypeError(f"{msg}, got {paddings!r:.80}.") from None
    except ValueError:  # rows that are not pairs
        raise invalid("pad", f"{msg}, got {paddings!r:.80}.") from None
    most = [n - (m == "reflect") if m != "constant" else np.inf for n in s]
    if len(p) != len(s) or any(min(r) < 0 or max(r) > k for r, k in zip(p, most)):
        raise invalid("pad", f"{msg}, got {[list(r) for r in p]}.")
    c = constant_values
    if (type(c) is not float and type(c) is not int) or x._value.dtype.kind not in "fc":
        c = _tensor(c, "pad", x._value.dtype)
        if c.ndim:
            raise invalid("pad", f"pad: constant_values must be a scalar, got shape {c.shape}.")
        c = c.numpy()
    return apply(_pad, (x,), {"paddings": p, "mode": m, "constant_values": c})


_reverse = Primitive("ReverseV2", lambda xp, x, axis: xp.flip(x, axis))
defvjp(_reverse, lambda g, ans, x, axis: apply(_reverse, (g,), {"axis": axis}))


def reverse(tensor, axis, name=None) -> Tensor:
    """Reverses the order of elements along the axes in ``axis`` (follows `tf.reverse`).

    Raises InvalidArgumentError for an axis out of range or repeated.

    >>> ek.reverse(ek.constant([[1, 2], [3, 4]]), [1]).numpy()
    array([[2, 1], [4, 3]], dtype=int32)
    """
    if type(tensor) is not Tensor and isinstance(tensor, CompositeTensor):  # a RaggedTensor
        from ..ragged.ragged_ops import reverse as ragged_reverse

        return ragged_reverse(tensor, axis)
    x = _tensor(tensor, "reverse")
    nd = x._value.ndim
    axes = tuple(axis_arg(a, nd, "reverse") for a in int_list(axis, "reverse", "axis"))
    if len(set(axes)) != len(axes):
        raise invalid("reverse", f"reverse: axis {list(axes)} names an axis twice.")
    return apply(_reverse, (x,), {"axis": axes})
