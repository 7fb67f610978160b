"""More of TensorFlow's top-level array ops: `roll`, `repeat`, `meshgrid`, `sequence_mask`,
`searchsorted`, `histogram_fixed_width`, `unravel_index`, `space_to_depth`,
`depth_to_space`, `dynamic_partition`, `dynamic_stitch`, and the utilities `is_tensor`,
`get_static_value`, `ensure_shape`, `shape_n`, `identity_n` (each follows TF's op of the
name).

Each op is a `Primitive` (or built of primitives) run through the dispatcher; the ones
TensorFlow differentiates have their VJPs next to them, written with eagerkernel ops so
derivatives of any order work. Shape and value errors are `~ek.errors.InvalidArgumentError`
naming the op, dtype errors TypeError, as TensorFlow's kernels raise them.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ._core import apply
from ._core import tensor as _tensor
from .array_ops import axis_arg, identity, int_list, reshape, shape

__all__ = [
    "ensure_shape",
    "get_static_value",
    "histogram_fixed_width",
    "histogram_fixed_width_bins",
    "identity_n",
    "is_tensor",
    "meshgrid",
    "repeat",
    "roll",
    "searchsorted",
    "sequence_mask",
    "shape_n",
    "unravel_index",
]


def _invalid(op: str, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(None, op, f"{op}: {message}")


def _int_dtype(dtype, op: str, arg: str, allowed=("int32", "int64")) -> np.dtype:
    dt = dtypes.as_dtype(dtype)
    if dt.name not in allowed:
        # TensorFlow: "Value for attr 'out_type' of float is not in the list of allowed values"
        raise _invalid(op, f"{arg} must be one of {list(allowed)}, got {dt.name}.")
    return dtypes.numpy_dtype(dt)


def _int_tensor(value, op: str, arg: str) -> Tensor:
    t = _tensor(value, op)
    if t._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be an integer tensor, got {t.dtype.name}.")
    return t


# -- utilities --------------------------------------------------------------------------------


def is_tensor(x) -> bool:
    """True for a Tensor, Variable, RaggedTensor or SparseTensor; False for NumPy arrays and
    Python values (follows `tf.is_tensor`).

    >>> ek.is_tensor(ek.constant(1.0)), ek.is_tensor(np.ones(2)), ek.is_tensor(3)
    (True, False, False)
    """
    return isinstance(x, (Tensor, CompositeTensor))


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` as a NumPy array (follows `tf.get_static_value`).

    TensorFlow constant-folds a graph tensor here; an eager tensor's value is always known, so
    it is returned. A Variable (its value may change) and a RaggedTensor or SparseTensor give
    None, as in TensorFlow; any other value is returned unchanged. Under `ek.function`, the
    read is a guard, as every tensor-to-Python conversion is.

    Args:
        tensor: the value to read.
        partial: accepted, as TensorFlow's (for a partially known graph shape); eager values
            are always complete.

    >>> ek.get_static_value(ek.constant([1, 2]))
    array([1, 2], dtype=int32)
    """
    from ..core.variable import Variable

    if isinstance(tensor, Variable) or (
        isinstance(tensor, CompositeTensor) and not isinstance(tensor, Tensor)
    ):
        return None
    if isinstance(tensor, Tensor):
        return tensor.numpy()
    return tensor


def _shape_dims(shape, op: str):
    """``shape`` as a list of ints and Nones, or None for an unknown rank."""
    if shape is None:
        return None
    if hasattr(shape, "as_list") and getattr(shape, "rank", 0) is None:
        return None
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    dims = []
    for d in shape:
        d = getattr(d, "value", d)  # a TF1-style Dimension
        if d is None or (isinstance(d, (int, np.integer)) and int(d) == -1):
            dims.append(None)
        else:
            try:
                dims.append(operator.index(d))
            except TypeError:
                raise TypeError(f"{op}: shape must hold ints or None, got {shape!r:.80}.") from None
    return dims


def _compatible(dims, actual: tuple) -> bool:
    if dims is None:
        return True
    return len(dims) == len(actual) and all(d is None or d == n for d, n in zip(dims, actual))


def _fmt_dims(dims) -> str:
    if dims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def ensure_shape(x, shape, name=None) -> Tensor:
    """``x`` itself (an identity, gradient included) after checking its shape against
    ``shape`` (follows `tf.ensure_shape`).

    Args:
        x: a Tensor.
        shape: a list/tuple/`TensorShape` of ints, with None (or -1) for any size, or None
            for any shape.

    Raises:
        InvalidArgumentError: the shape is not compatible (TensorFlow's message).

    >>> ek.ensure_shape(ek.zeros((2, 3)), [None, 3]).shape
    TensorShape([2, 3])
    """
    op = "ensure_shape"
    dims = _shape_dims(shape, op)
    if isinstance(x, CompositeTensor) and not isinstance(x, Tensor):
        actual = tuple(x.shape)
        if not _compatible(dims, actual):
            raise _invalid(
                op,
                f"Shape of tensor input {_fmt_dims(list(actual))} is not compatible with "
                f"expected shape {_fmt_dims(dims)}.",
            )
        return x
    t = _tensor(x, op)
    actual = tuple(t._value.shape)
    if not _compatible(dims, actual):
        raise _invalid(
            op,
            f"Shape of tensor input {_fmt_dims(list(actual))} is not compatible with expected "
            f"shape {_fmt_dims(dims)}.",
        )
    return identity(t)


def shape_n(input, out_type=dtypes.int32, name=None) -> list:
    """The shapes of the tensors in ``input``, as a list of 1-D int tensors (follows
    `tf.shape_n`).

    >>> [s.numpy().tolist() for s in ek.shape_n([ek.zeros((2, 3)), ek.zeros(4)])]
    [[2, 3], [4]]
    """
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"shape_n: input must be a list of tensors, got {type(input).__name__}.")
    return [shape(x, out_type=out_type) for x in input]


def identity_n(input, name=None) -> list:
    """Identities of the tensors in ``input`` (gradients pass through), as a list (follows
    `tf.identity_n`). An empty ``input`` raises InvalidArgumentError, as TensorFlow.

    >>> [int(t) for t in ek.identity_n([ek.constant(1), ek.constant(2)])]
    [1, 2]
    """
    if not isinstance(input, (list, tuple)):
        raise TypeError(f"identity_n: input must be a list of tensors, got {type(input).__name__}.")
    if not input:  # TensorFlow: "Length for attr 'T' of 0 must be at least minimum 1"
        raise _invalid("identity_n", "input must hold at least one tensor, got an empty list.")
    return [identity(x) for x in input]


# -- meshgrid, roll, repeat -------------------------------------------------------------------


def meshgrid(*args, **kwargs) -> list:
    """Coordinate grids from 1-D coordinate vectors (follows `tf.meshgrid`, as NumPy's).

    Args:
        *args: N tensors (flattened to 1-D) of one dtype, lengths ``n1 .. nN``.
        indexing: ``"xy"`` (Cartesian, the default: outputs of shape ``(n2, n1, n3, ...)``)
            or ``"ij"`` (matrix: ``(n1, n2, ..., nN)``).
        name: unused.

    Returns:
        A list of N tensors of that shape; differentiable (each output is a broadcast).

    Raises:
        TypeError: an unknown keyword argument, or inputs of different dtypes.
        ValueError: ``indexing`` other than ``"xy"`` or ``"ij"``.

    >>> x, y = ek.meshgrid(ek.constant([1, 2, 3]), ek.constant([4, 5]))
    >>> x.numpy()
    array([[1, 2, 3],
           [1, 2, 3]], dtype=int32)
    >>> y.numpy()
    array([[4, 4, 4],
           [5, 5, 5]], dtype=int32)
    """
    from .array_ops import broadcast_to

    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        key = next(iter(kwargs))
        raise TypeError(f"meshgrid: '{key}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(
            f"meshgrid: Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'"
        )
    if not args:
        return []
    hint = next((a._value.dtype for a in args if isinstance(a, Tensor)), None)
    xs = [reshape(_tensor(a, "meshgrid", hint), [-1]) for a in args]
    for i, x in enumerate(xs):
        if x.dtype != xs[0].dtype:
            raise TypeError(
                f"meshgrid: all inputs must have the same dtype, got args[0]: "
                f"{xs[0].dtype.name} and args[{i}]: {x.dtype.name}."
            )
    n = len(xs)
    sizes = [int(x._value.shape[0]) for x in xs]
    if indexing == "xy" and n > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, x in enumerate(xs):
        axis = i
        if indexing == "xy" and n > 1 and i < 2:
            axis = 1 - i
        view = [1] * n
        view[axis] = -1
        out.append(broadcast_to(reshape(x, view), sizes))
    return out


def _roll_vjp(g, ans, x, shift, axis):
    return apply(_roll, (g,), {"shift": tuple(-s for s in shift), "axis": axis})


_roll = Primitive("Roll", lambda xp, x, shift, axis: xp.roll(x, shift, axis))
defvjp(_roll, _roll_vjp)


def roll(input, shift, axis, name=None) -> Tensor:
    """Rolls elements along axes: element ``i`` moves to ``(i + shift) mod n`` (follows
    `tf.roll`).

    Args:
        input: any shape.
        shift: an int or 1-D ints; negative shifts roll the other way.
        axis: an int or 1-D ints of the same length as ``shift``; an axis named twice rolls
            by the sum of its shifts.

    Raises:
        InvalidArgumentError: ``shift`` and ``axis`` of different lengths or ranks above 1, an
            axis out of range. TypeError: non-integer ``shift`` or ``axis``.

    >>> ek.roll(ek.constant([0, 1, 2, 3, 4]), shift=2, axis=0).numpy()
    array([3, 4, 0, 1, 2], dtype=int32)
    >>> ek.roll(ek.constant([[0, 1, 2], [3, 4, 5]]), shift=[1, -1], axis=[0, 1]).numpy()
    array([[4, 5, 3],
           [1, 2, 0]], dtype=int32)
    """
    op = "roll"
    x = _tensor(input, op)
    for value, arg in ((shift, "shift"), (axis, "axis")):
        if np.ndim(value.numpy() if isinstance(value, Tensor) else value) > 1:
            raise _invalid(op, f"{arg} must be a scalar or a 1-D vector, got {value!r:.60}.")
    shifts = int_list(shift, op, "shift")
    axes = int_list(axis, op, "axis")
    if len(shifts) != len(axes):
        raise _invalid(
            op,
            f"shift and axis must have the same size, got shift {list(shifts)} and axis "
            f"{list(axes)}.",
        )
    nd = x._value.ndim
    total: dict = {}
    for s, a in zip(shifts, axes):
        a = axis_arg(a, nd, op)
        total[a] = total.get(a, 0) + s
    keys = tuple(sorted(total))
    return apply(_roll, (x,), {"shift": tuple(total[a] for a in keys), "axis": keys})


def _repeat_grad_fwd(xp, g, repeats, axis):
    """Sums each element's copies: a segment sum along ``axis``."""
    g = xp.moveaxis(g, axis, 0)
    reps = np.asarray(repeats)
    out = xp.zeros((len(reps), *g.shape[1:]), dtype=g.dtype)
    xp.add.at(out, xp.asarray(np.repeat(np.arange(len(reps)), reps)), g)
    return xp.moveaxis(out, 0, axis)


_repeat = Primitive("Repeat", lambda xp, x, repeats, axis: xp.repeat(x, repeats, axis))
_repeat_grad = Primitive("RepeatGrad", _repeat_grad_fwd)
defvjp(
    _repeat,
    lambda g, ans, x, repeats, axis: apply(_repeat_grad, (g,), {"repeats": repeats, "axis": axis}),
)
defvjp(
    _repeat_grad,
    lambda g, ans, x, repeats, axis: apply(_repeat, (g,), {"repeats": repeats, "axis": axis}),
)


def repeat(input, repeats, axis=None, name=None) -> Tensor:
    """Repeats each element ``repeats`` times along ``axis`` (follows `tf.repeat`, as NumPy's
    ``repeat``).

    Args:
        input: any shape; with ``axis=None`` it is flattened first.
        repeats: a non-negative int, or 1-D non-negative ints, one per element along
            ``axis`` (a length-1 list applies to all).
        axis: an int, or None.

    Returns:
        A tensor of ``input``'s dtype; the gradient sums each element's copies.

    Raises:
        InvalidArgumentError: ``repeats`` of the wrong length or negative, an axis out of
            range. TypeError: non-integer ``repeats``.

    >>> ek.repeat(ek.constant([[1, 2], [3, 4]]), repeats=[2, 3], axis=0).numpy()
    array([[1, 2],
           [1, 2],
           [3, 4],
           [3, 4],
           [3, 4]], dtype=int32)
    >>> ek.repeat(ek.constant([[1, 2], [3, 4]]), repeats=2).numpy()
    array([1, 1, 2, 2, 3, 3, 4, 4], dtype=int32)
    """
    op = "repeat"
    x = _tensor(input, op)
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    if x._value.ndim == 0:
        raise _invalid(op, "input must have rank >= 1 when axis is given, got a scalar.")
    a = axis_arg(axis, x._value.ndim, op)
    if (isinstance(repeats, Tensor) and repeats._value.ndim > 1) or np.ndim(repeats) > 1:
        raise _invalid(op, f"repeats must be a scalar or a 1-D vector, got {repeats!r:.60}.")
    reps = int_list(repeats, op, "repeats")
    n = int(x._value.shape[a])
    if len(reps) == 1:
        reps = reps * n
    if len(reps) != n:
        raise _invalid(
            op,
            f"repeats has {len(reps)} values but axis {a} of shape {tuple(x._value.shape)} has "
            f"length {n}.",
        )
    if any(r < 0 for r in reps):
        raise _invalid(op, f"repeats must be non-negative, got {list(reps)}.")
    return apply(_repeat, (x,), {"repeats": reps, "axis": a})


# -- masks, searches, histograms --------------------------------------------------------------


def _sequence_mask_fwd(xp, lengths, maxlen, dtype):
    if maxlen is None:  # float lengths compare as they are, over ceil(max) positions
        n = int(np.ceil(float(lengths.max()))) if lengths.size else 0
    else:  # TensorFlow casts float lengths to maxlen's integer dtype (truncation)
        n = maxlen
        if lengths.dtype.kind == "f":
            lengths = lengths.astype(np.int64)
    return (xp.arange(max(n, 0)) < lengths[..., None]).astype(dtype)


_sequence_mask = Primitive("SequenceMask", _sequence_mask_fwd)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None) -> Tensor:
    """``mask[i..., j] = j < lengths[i...]`` (follows `tf.sequence_mask`).

    Args:
        lengths: integer tensor of any shape (floats are accepted as TensorFlow does:
            truncated when ``maxlen`` is given, else compared as they are).
        maxlen: scalar int, the size of the last axis; default: the largest length.
        dtype: of the result (bool by default; a float dtype gives 0/1 values, no gradient).

    Returns:
        Shape ``lengths.shape + (maxlen,)``.

    Raises:
        ValueError: a non-scalar ``maxlen``. TypeError: non-numeric ``lengths``, non-integer
            ``maxlen``.

    >>> ek.sequence_mask([1, 3, 2], 5).numpy()
    array([[ True, False, False, False, False],
           [ True,  True,  True, False, False],
           [ True,  True, False, False, False]])
    """
    op = "sequence_mask"
    x = _tensor(lengths, op)
    if x._value.dtype.kind not in "iuf":
        raise TypeError(f"{op}: lengths must be integers (or floats), got {x.dtype.name}.")
    if maxlen is not None:
        m = maxlen.numpy() if isinstance(maxlen, Tensor) else np.asarray(maxlen)
        if m.ndim != 0:
            raise ValueError(
                f"{op}: Argument `maxlen` must be scalar for sequence_mask, received "
                f"`maxlen` = {maxlen!r:.60} with shape '{m.shape}' instead"
            )
        if m.dtype.kind not in "iu":
            raise TypeError(f"{op}: maxlen must be an integer, got {maxlen!r:.60}.")
        maxlen = int(m)
    dt = dtypes.numpy_dtype(dtypes.as_dtype(dtype))
    return apply(_sequence_mask, (x,), {"maxlen": maxlen, "dtype": dt.name})


def _searchsorted_fwd(xp, seq, values, side, out_type):
    n, m = seq.shape[-1], values.shape[-1]
    rows = math.prod(seq.shape[:-1])  # not -1: a 0 in n or m leaves -1 ambiguous
    seq2, val2 = seq.reshape(rows, n), values.reshape(rows, m)
    # TensorFlow's kernel is std::lower_bound / std::upper_bound with `<`; the same binary
    # search, vectorised over all values, gives its answers for NaNs too (NumPy sorts NaN
    # last instead).
    first = xp.zeros(val2.shape, dtype=np.int64)
    count = xp.full(val2.shape, n, dtype=np.int64)
    while n and bool((count > 0).any()):
        step = count // 2
        it = first + step
        a = xp.take_along_axis(seq2, xp.minimum(it, n - 1), axis=1)
        go_right = (a < val2) if side == "left" else ~(val2 < a)
        active = count > 0
        first = xp.where(active & go_right, it + 1, first)
        count = xp.where(active, xp.where(go_right, count - step - 1, step), 0)
    return first.astype(out_type).reshape(values.shape)


_searchsorted = Primitive("SearchSorted", _searchsorted_fwd)


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """For each value, the index in its row of ``sorted_sequence`` where it would be inserted
    to keep the row sorted (follows `tf.searchsorted`).

    Args:
        sorted_sequence: shape ``[..., N]``, each innermost row sorted ascending.
        values: shape ``[..., M]`` with the same leading dimensions.
        side: ``"left"`` (the first suitable index) or ``"right"`` (the last).
        out_type: int32 or int64.

    Raises:
        ValueError: ``side`` other than left/right. InvalidArgumentError: leading dimensions
        that differ, scalar inputs, a bad ``out_type``. TypeError: different dtypes.

    >>> ek.searchsorted(ek.constant([[0., 3., 9., 10.]]), ek.constant([[2., 10.]])).numpy()
    array([[1, 3]], dtype=int32)
    """
    op = "searchsorted"
    if side not in ("left", "right"):
        raise ValueError(
            f"{op}: Argument `side` must be either 'right' or 'left'. Received: `side` = {side!r}."
        )
    out = _int_dtype(out_type, op, "out_type")
    seq = _tensor(sorted_sequence, op)
    if seq._value.dtype.kind in "Oc":  # TensorFlow orders neither strings nor complex numbers
        from ._core import dtype_unsupported

        raise dtype_unsupported("LowerBound", seq, "a real number", "sorted_sequence")
    vals = _tensor(values, op, seq._value.dtype)
    if seq.dtype != vals.dtype:
        raise TypeError(
            f"{op}: sorted_sequence and values must have the same dtype, got "
            f"{seq.dtype.name} and {vals.dtype.name}."
        )
    s, v = tuple(seq._value.shape), tuple(vals._value.shape)
    if not s or not v:
        raise _invalid(op, f"inputs must have rank >= 1, got shapes {s} and {v}.")
    if int(np.prod(s[:-1])) != int(np.prod(v[:-1])):
        raise _invalid(
            op,
            f"Leading dim_size of both tensors must match, got shapes {s} and {v}.",
        )
    return apply(_searchsorted, (seq, vals), {"side": side, "out_type": out.name})


def _histogram_fwd(xp, values, value_range, nbins, dtype):
    lo, hi = value_range[0], value_range[1]
    step = float(hi - lo) / nbins
    v = xp.maximum(values.reshape(-1), lo)
    idx = xp.minimum((v - lo).astype(np.float64) / step, nbins - 1).astype(np.int64)
    return xp.bincount(idx, minlength=nbins).astype(dtype)


_histogram = Primitive("HistogramFixedWidth", _histogram_fwd)


def histogram_fixed_width(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """Counts ``values`` in ``nbins`` equal-width bins over ``value_range`` (follows
    `tf.histogram_fixed_width`): values below the range count in the first bin, values above
    it in the last.

    Args:
        values: numeric tensor of any shape.
        value_range: shape ``[2]``, same dtype as ``values``, ``value_range[0] <
            value_range[1]``.
        nbins: a positive int.
        dtype: int32 or int64 (of the result).

    Returns:
        A 1-D tensor of ``nbins`` counts.

    Raises:
        InvalidArgumentError: ``nbins <= 0``, an empty or reversed range, a range that is not
            of shape ``[2]``, a bad ``dtype`` (as TensorFlow).

    >>> ek.histogram_fixed_width(ek.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15]),
    ...                          ek.constant([0.0, 5.0]), nbins=5).numpy()
    array([2, 1, 1, 0, 2], dtype=int32)
    """
    op = "histogram_fixed_width"
    dt = _int_dtype(dtype, op, "dtype")
    x = _tensor(values, op)
    r = _tensor(value_range, op, x._value.dtype)
    if x._value.dtype.kind not in "iuf":
        raise TypeError(f"{op}: values must be numeric, got {x.dtype.name}.")
    if r.dtype != x.dtype:
        raise TypeError(
            f"{op}: value_range must have the dtype of values ({x.dtype.name}), got {r.dtype.name}."
        )
    n = int(nbins.numpy() if isinstance(nbins, Tensor) else nbins)
    if n <= 0:
        raise _invalid(op, f"nbins should be a positive number, but got '{n}'")
    rv = r.numpy()
    if rv.shape != (2,):
        raise _invalid(op, f"value_range should be a vector of 2 elements, got shape {rv.shape}.")
    if not rv[0] < rv[1]:
        raise _invalid(
            op,
            "value_range should satisfy value_range[0] < value_range[1], but got "
            f"'[{', '.join(f'{v:g}' for v in rv.tolist())}]'",
        )
    return apply(
        _histogram, (x,), {"value_range": tuple(rv.tolist()), "nbins": n, "dtype": dt.name}
    )


def _unravel_fwd(xp, indices, dims):
    coords = xp.unravel_index(indices.reshape(-1), dims)
    out = xp.stack([c.astype(indices.dtype) for c in coords])
    return out.reshape((len(dims), *indices.shape))


_unravel = Primitive("UnravelIndex", _unravel_fwd)


def unravel_index(indices, dims, name=None) -> Tensor:
    """The coordinates of flat ``indices`` in an array of shape ``dims`` (follows
    `tf.unravel_index`, as NumPy's).

    Args:
        indices: int32 or int64, a scalar or 1-D.
        dims: 1-D ints of the same dtype (a list is converted to it), all positive.

    Returns:
        Shape ``[len(dims)]`` for a scalar index, ``[len(dims), n]`` for ``n`` indices.

    Raises:
        InvalidArgumentError: an index outside ``[0, prod(dims))``, ``indices`` of rank > 1,
            ``dims`` not 1-D or not positive. TypeError: non-integer inputs.

    >>> ek.unravel_index(ek.constant([2, 5, 7]), [3, 3]).numpy()
    array([[0, 1, 2],
           [2, 2, 1]], dtype=int32)
    """
    op = "unravel_index"
    i = _int_tensor(indices, op, "indices")
    d = _tensor(dims, op, i._value.dtype)
    if d._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: dims must be integers, got {d.dtype.name}.")
    if i._value.ndim > 1:
        raise _invalid(op, f"The indices can only be scalar or vector, got shape {i.shape}.")
    dv = d.numpy()
    if dv.ndim != 1 or (dv <= 0).any():
        raise _invalid(op, f"dims must be a 1-D tensor of positive ints, got {dv.tolist()}.")
    iv = i.numpy()
    total = int(np.prod(dv.astype(np.int64)))
    if iv.size and (iv.min() < 0 or iv.max() >= total):
        bad = int(iv.min() if iv.min() < 0 else iv.max())
        raise _invalid(
            op, f"index is out of bound as with dims {dv.tolist()}: index {bad}, {total} elements."
        )
    return apply(_unravel, (i,), {"dims": tuple(int(n) for n in dv)})


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype=dtypes.int32, name=None):
    """The bin of each of ``values`` among ``nbins`` equal-width bins over ``value_range``
    (follows `tf.histogram_fixed_width_bins`): ``floor(nbins * (v - lo) / (hi - lo))``,
    computed in the values' dtype and clipped to ``[0, nbins - 1]``, so values below the
    range fall in bin 0 and values above it in the last bin. The result has ``values``'
    shape and is int32 whatever ``dtype`` says, as TensorFlow's (whose implementation
    ignores ``dtype``). Integer values are binned in float64 (TensorFlow's own code fails on
    them, although its documentation accepts any numeric values).

    Raises:
        InvalidArgumentError: ``nbins <= 0``, or a ``value_range`` not of shape ``[2]``.
        TypeError: values that are not numeric.

    >>> ek.histogram_fixed_width_bins(ek.constant([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0]),
    ...                               [0.0, 5.0], nbins=5).numpy()
    array([0, 0, 1, 2, 4, 4], dtype=int32)
    """
    from .elementwise import cast, clip_by_value, floor

    op = "histogram_fixed_width_bins"
    x = _tensor(values, op)
    if x._value.dtype.kind not in "iuf":
        raise TypeError(f"{op}: values must be numeric, got {x.dtype.name}.")
    if x._value.dtype.kind in "iu":
        x = cast(x, dtypes.float64)
    r = cast(_tensor(value_range, op, x._value.dtype), x.dtype)
    if tuple(r.shape) != (2,):
        raise InvalidArgumentError(
            None, op, f"{op}: value_range must have shape [2], got {tuple(r.shape)}."
        )
    n = int(nbins.numpy() if isinstance(nbins, Tensor) else nbins)
    if n <= 0:
        raise InvalidArgumentError(None, op, f"{op}: nbins must be positive, got {n}.")
    nbins_float = np.asarray(n, dtype=x._value.dtype)
    scaled = (x - r[0]) / (r[1] - r[0])
    indices = floor(nbins_float * scaled)
    return cast(clip_by_value(indices, 0, nbins_float - 1), dtypes.int32)
