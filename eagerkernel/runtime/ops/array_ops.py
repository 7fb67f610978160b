"""Shape ops: reshape, stack, unstack, expand_dims, ... (follow TensorFlow's)."""

from __future__ import annotations

from ..tape import Primitive, defjointvjp, defvjp
from ..tensor import Tensor
from ._core import apply, tensor

__all__ = ["expand_dims", "reshape", "stack", "unstack"]


def _reshape_fwd(xp, x, shape):
    try:
        return xp.reshape(x, shape)
    except ValueError:
        raise ValueError(
            f"reshape: cannot reshape a tensor of shape {tuple(x.shape)} ({x.size} elements) "
            f"into shape {tuple(shape)}."
        ) from None


_reshape = Primitive("Reshape", _reshape_fwd)
defvjp(_reshape, lambda g, ans, x, shape: reshape(g, x._value.shape))


def reshape(tensor_, shape, name=None) -> Tensor:
    """Same elements in a new shape; one dimension may be -1 (follows `tf.reshape`).

    Raises:
        ValueError: if the element counts differ (both shapes are named).
    """
    x = tensor(tensor_, "reshape")
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
    return apply(_reshape, (x,), {"shape": shape})


def expand_dims(input, axis, name=None) -> Tensor:  # noqa: A002
    """Inserts a length-1 axis at ``axis`` (follows `tf.expand_dims`)."""
    x = tensor(input, "expand_dims")
    nd = x.ndim
    if not -nd - 1 <= axis <= nd:
        raise ValueError(f"expand_dims: axis {axis} out of range for rank {nd}.")
    axis = axis % (nd + 1)
    shape = (*x._value.shape[:axis], 1, *x._value.shape[axis:])
    return reshape(x, shape)


_stack = Primitive("Pack", lambda xp, *xs, axis: xp.stack(xs, axis=axis))
defjointvjp(_stack, lambda g, ans, *xs, axis: tuple(unstack(g, axis=axis)))


def stack(values, axis=0, name="stack") -> Tensor:
    """Stacks same-shape tensors along a new ``axis`` (follows `tf.stack`).

    Raises:
        ValueError: for an empty list or differing shapes (all shapes are listed).
        TypeError: for differing dtypes.
    """
    xs = [tensor(v, "stack") for v in values]
    if not xs:
        raise ValueError("stack: values must be a non-empty list of tensors.")
    shapes = {tuple(x._value.shape) for x in xs}
    if len(shapes) > 1:
        raise ValueError(f"stack: all values must have the same shape, got {sorted(shapes)}.")
    dts = {x._value.dtype for x in xs}
    if len(dts) > 1:
        raise TypeError(f"stack: all values must have the same dtype, got {sorted(map(str, dts))}.")
    nd = xs[0].ndim
    if not -nd - 1 <= axis <= nd:
        raise ValueError(f"stack: axis {axis} out of range for rank {nd + 1} output.")
    return apply(_stack, tuple(xs), {"axis": axis % (nd + 1)})


def _unstack_fwd(xp, x, axis):
    return tuple(xp.moveaxis(x, axis, 0))


def unstack(value, num=None, axis=0, name="unstack") -> list:
    """Splits along ``axis`` into a list of tensors of rank one less (follows `tf.unstack`).

    Raises:
        ValueError: if ``num`` is given and differs from the axis length.
    """
    x = tensor(value, "unstack")
    if x.ndim == 0:
        raise ValueError("unstack: cannot unstack a scalar.")
    nd = x.ndim
    if not -nd <= axis < nd:
        raise ValueError(f"unstack: axis {axis} out of range for rank {nd}.")
    axis %= nd
    n = x._value.shape[axis]
    if num is not None and num != n:
        raise ValueError(f"unstack: num={num} but axis {axis} has length {n}.")
    if n == 0:
        return []
    return list(apply(_unstack, (x,), {"axis": axis}))


_unstack = Primitive("Unpack", _unstack_fwd, n_out=0)
defvjp(_unstack, lambda g, ans, x, axis: stack(list(g), axis=axis))


def _getitem_fwd(xp, x, key):
    return x[key]


def _scatter_fwd(xp, g, shape, key):
    out = xp.zeros(shape, dtype=g.dtype)
    xp.add.at(out, key, g)
    return out


_getitem = Primitive("StridedSlice", _getitem_fwd)
_scatter = Primitive("ScatterAdd", _scatter_fwd)
defvjp(_getitem, lambda g, ans, x, key: apply(_scatter, (g,), {"shape": x._value.shape, "key": key}))
defvjp(_scatter, lambda g, ans, x, shape, key: apply(_getitem, (g,), {"key": key}))


def getitem(x, key) -> Tensor:
    """NumPy-style indexing, differentiable (``t[1:, ::2]``, ``t[..., None]``, ``t[[0, 2]]``)."""
    x = tensor(x, "getitem")
    if isinstance(key, Tensor):
        key = key.numpy()
    elif isinstance(key, tuple):
        key = tuple(k.numpy() if isinstance(k, Tensor) else k for k in key)
    return apply(_getitem, (x,), {"key": key})
