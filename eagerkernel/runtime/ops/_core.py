"""Builders that turn a `Primitive` into a public op with a fast path.

The fast path (no tape recording, no device scope) converts inputs, checks dtypes and devices,
calls the forward function and wraps the array: about half a microsecond of Python on top of
NumPy. Everything else (recording, profiling, placement) is `tape.execute`, taken only while
`state.SLOW` is non-empty, except the %%tape magic's common case (`state.LEAN`: one profiling
tape records, this thread's): one- and two-input ops go through the tape's lean recorder
(`records.lean_recorder`: one C call times the forward, makes the output and appends the
record), which keeps %%tape within a fraction of the fast path.
"""

from __future__ import annotations

from ..core.context import LEAN, SLOW
from ..core.tape import Primitive, _device_mismatch, execute
from ..core.tensor import Tensor, make, to_tensor

_new = object.__new__
_NO_PARAMS: dict = {}


def dtype_error(op: str, tensors, names=("x", "y")) -> TypeError:
    parts = ", ".join(f"{n}: {t.dtype.name}" for n, t in zip(names, tensors))
    return TypeError(
        f"{op}: inputs must have the same dtype, got {parts}. Cast one with ek.cast(...); "
        "eagerkernel, like TensorFlow, does not promote dtypes implicitly."
    )


def shape_error(op: str, tensors, exc: Exception, names=("x", "y")) -> ValueError:
    parts = ", ".join(f"{n}: {tuple(t._value.shape)}" for n, t in zip(names, tensors))
    return ValueError(f"{op}: incompatible shapes {parts} ({exc}).")


def coerce_pair(x, y, op: str):
    """Converts the non-Tensor side of a binary op, taking the Tensor side's dtype as a hint."""
    # The converted side joins the tensor's device, so `1 + gpu_tensor` stays on the GPU.
    if isinstance(x, Tensor):
        y = to_tensor(y, x._value.dtype, op, x._device)
    elif isinstance(y, Tensor):
        x = to_tensor(x, y._value.dtype, op, y._device)
    else:
        x = to_tensor(x, None, op)
        y = to_tensor(y, x._value.dtype, op)
    return x, y


def unary(prim: Primitive, doc: str | None = None, float_only: bool = False):
    """A public one-input op ``op(x, name=None)`` for ``prim``.

    ``float_only`` ops (exp, log, sin, ...) raise TypeError on integer input, as in TensorFlow,
    instead of NumPy's silent switch to float64.
    """
    fwd = prim.fwd

    def op(x, name=None):
        plain = type(x) is Tensor  # not a Variable: %%tape may record it leanly (below)
        if not plain:
            x = to_tensor(x, None, prim.name)
            plain = type(x) is Tensor
        if float_only and x._value.dtype.kind not in "fc":
            float_check(prim.name, x)
        dev = x._device
        if SLOW:
            lean = LEAN[0]
            if lean is not None and plain:
                t = lean[0](prim, fwd, dev.xp, dev, x, x._value, None, None)
                if t is not None:  # None: not the tape's thread
                    return t
            return execute(prim, (x,))
        t = _new(Tensor)
        t._value = fwd(dev.xp, x._value)
        t._device = dev
        return t

    op.__doc__ = doc
    return op


def binary(prim: Primitive, doc: str | None = None):
    """A public two-input broadcasting op ``op(x, y, name=None)`` for ``prim``.

    Inputs must share a dtype (Python numbers take the other side's dtype) and a device.
    """
    fwd = prim.fwd

    def op(x, y, name=None):
        plain = type(x) is Tensor and type(y) is Tensor  # no Variable, no Python value
        if not plain:
            x, y = coerce_pair(x, y, prim.name)
            plain = type(x) is Tensor and type(y) is Tensor
        xv = x._value
        yv = y._value
        if xv.dtype is not yv.dtype and xv.dtype != yv.dtype:
            raise dtype_error(prim.name, (x, y))
        dev = x._device
        if SLOW:
            lean = LEAN[0]
            if lean is not None and plain and dev is y._device:
                try:
                    t = lean[0](prim, fwd, dev.xp, dev, x, xv, y, yv)
                except ValueError as exc:
                    raise shape_error(prim.name, (x, y), exc) from None
                if t is not None:  # None: not the tape's thread
                    return t
            return execute(prim, (x, y))
        if dev is not y._device:
            _device_mismatch(prim, (x, y))
        try:
            out = fwd(dev.xp, xv, yv)
        except ValueError as exc:
            raise shape_error(prim.name, (x, y), exc) from None
        t = _new(Tensor)
        t._value = out
        t._device = dev
        return t

    op.__doc__ = doc
    return op


def apply(prim: Primitive, inputs: tuple, params: dict = _NO_PARAMS):
    """Runs ``prim`` on Tensor ``inputs`` with keyword ``params`` (the generic path)."""
    if SLOW:
        return execute(prim, inputs, params)
    dev = inputs[0]._device
    for x in inputs:
        if x._device is not dev:
            _device_mismatch(prim, inputs)
    out = prim.fwd(dev.xp, *[x._value for x in inputs], **params)
    if prim.n_out == 1:
        return make(out, dev)
    return tuple(make(o, dev) for o in out)


def tensor(x, op: str, dtype_hint=None) -> Tensor:
    """Converts an op argument to a Tensor (Variables pass through, so tapes can see them)."""
    if type(x) is Tensor:
        return x
    return to_tensor(x, dtype_hint, op)


def float_check(op: str, x: Tensor, arg: str = "x") -> None:
    """Raises TypeError unless ``x`` is floating (ops like exp are undefined on integers in TF)."""
    if x._value.dtype.kind not in "fc":
        raise TypeError(
            f"{op}: {arg} must be a floating-point tensor, got {x.dtype.name}. "
            "Cast it first, e.g. ek.cast(x, ek.float32)."
        )
