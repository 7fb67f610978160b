"""The one path every op takes: `Primitive`, `dispatch`, and the builders of public ops.

An op is a `Primitive`: a forward function on raw arrays and one VJP per input, registered
side by side in ``ops/``. A public op converts its arguments to Tensors, then calls
``dispatch(prim, inputs, params)``, which

1. tests `context.ACTIVE` (is any recorder or device scope active, in any thread?);
2. if not, runs the forward on the inputs' device and wraps the result: the fast path;
3. otherwise reads this thread's `Context`: moves the inputs into the device scope (a
   differentiable copy), times the forward if a recorder asks, runs it, wraps the result, and
   hands the op to each recorder of this thread (`Recorder.record`): gradient tapes, the
   ``%%tape`` profiler, graph-function tracing.

`unary` and `binary` build the public ops of one and two inputs with step 2 written inline
(one call less per op, the difference that shows on small tensors); anything else they do,
they hand to `dispatch`. Where ``native/_dispatch.c`` was built, a `binary` op with an
``array_op`` is its C twin (``BinaryOp``): the same fast path in one C call for two tensors
of one dtype on one device, the Python op (its ``__wrapped__``) for anything else.

A primitive with ``saves=True`` returns ``(output, saved)`` from its forward: ``saved``
(e.g. conv2d's im2col columns) travels on the recorded op to its VJPs, which receive it as
the ``saved`` keyword, like PyTorch's ``ctx.save_for_backward``. It is dropped when no tape
records the op.
"""

from __future__ import annotations

import functools
import sys
import time
import typing
import weakref

import numpy as np

from ..native import ENABLED as _NATIVE
from .composite import CompositeTensor
from .context import ACTIVE, context
from .conversion import NUMPY_OPERANDS, cast_operand
from .errors import (
    DTypeMismatchError,
    InvalidArgumentError,
    OpError,
    ResourceExhaustedError,
    UnsupportedDTypeError,
)
from .numpy_methods import STATE as _NUMPY_STATE
from .numpy_methods import operator_operands
from .tensor import Tensor, to_tensor
from .type_promotion import STRONG, keep_weak, promote_pair, unary_operand

__all__ = [
    "DeferredError",
    "Primitive",
    "binary",
    "copy_to_device",
    "defjointvjp",
    "defvjp",
    "dispatch",
    "pass_through",
    "record",
    "stateful",
    "unary",
]

_NO_PARAMS: dict = {}
_BOOL = np.dtype(bool)  # a singleton: `unary` refuses bool inputs by identity
_new = object.__new__
_perf_counter = time.perf_counter
_ctx = context()


class Primitive:
    """A differentiable op: a name, a forward function on arrays, and its VJPs.

    Attributes:
        name: TensorFlow's op name, shown by the tape display (e.g. ``"Mul"``).
        fwd: ``fwd(xp, *arrays, **params)`` returning the output array (a tuple of arrays when
            ``n_out != 1``; ``(output, saved)`` when ``saves``). ``xp`` is the device's array
            module (NumPy or CuPy).
        vjps: one function per input, ``vjp(g, ans, *inputs, **params)`` returning the
            cotangent of that input (a Tensor, broadcastable to the input's shape: the tape
            un-broadcasts it), or None for an input without a gradient. ``g`` and ``ans`` are
            Tensors (tuples for multi-output ops).
        joint_vjp: alternatively, one function returning all inputs' cotangents at once, for
            ops whose VJPs share work.
        n_out: 1 for one output Tensor; 0 for a tuple of outputs (of any length).
        moves: True for the device copy: its output lives on ``params["device"]``, and device
            scopes do not re-place its input.
        saves: the forward returns ``(output, saved)``; VJPs get ``saved=`` (None if it was
            not kept).
        array_op: for a two-input op, a C callable of the two arrays computing what ``fwd``
            does (``operator.mul`` for Mul), which dispatch calls without fwd's Python frame;
            set by `binary`.
        checks: a check whose effect is its error (TensorFlow's stateful CheckNumerics): a
            graph function keeps it even when nothing reads its output, and its error is
            raised where it runs, never deferred (`DeferredError`).
    """

    __slots__ = (
        "__weakref__",
        "array_op",
        "checks",
        "fwd",
        "joint_vjp",
        "key",
        "moves",
        "n_out",
        "name",
        "saves",
        "vjps",
    )

    # Every live primitive by `key`, how saved models name the ops of their programs (weak:
    # `custom_gradient` makes one per call).
    registry: typing.ClassVar[weakref.WeakValueDictionary] = weakref.WeakValueDictionary()

    def __init__(
        self,
        name: str,
        fwd,
        n_out: int = 1,
        moves: bool = False,
        saves: bool = False,
        checks: bool = False,
    ):
        module = sys._getframe(1).f_globals.get("__name__", "?")
        key = f"{module}:{name}"
        n = 1
        while key in Primitive.registry:  # a second primitive of the name in one module
            n += 1
            key = f"{module}:{name}#{n}"
        Primitive.registry[key] = self
        self.key = key
        self.name = name
        self.fwd = fwd
        self.vjps = None
        self.joint_vjp = None
        self.n_out = n_out
        self.moves = bool(moves)
        self.saves = bool(saves)
        self.checks = bool(checks)
        self.array_op = None

    def __repr__(self) -> str:
        return f"<Primitive {self.name}>"


def defvjp(prim: Primitive, *vjps) -> None:
    """Registers one VJP per input of ``prim`` (None: no gradient for that input;
    `pass_through`: the cotangent itself)."""
    prim.vjps = vjps


def pass_through(g, ans, *inputs, **params):
    """The VJP of an input whose cotangent is the output's, unchanged (an addend, an identity).
    The backward pass recognizes it and skips the call."""
    return g


def defjointvjp(prim: Primitive, vjp) -> None:
    """Registers a VJP returning a tuple with every input's cotangent (None where there is none)."""
    prim.joint_vjp = vjp


def dispatch(prim: Primitive, inputs: tuple, params: dict = _NO_PARAMS):
    """Runs ``prim`` on the Tensors ``inputs`` with keyword ``params``: every op comes here.

    Returns:
        A Tensor, or a tuple of Tensors for a multi-output primitive, on the inputs' device
        (the scope's, inside ``ek.device``; ``params["device"]`` for a device copy).

    Raises:
        InvalidArgumentError: inputs on different devices (outside a device scope).
        ResourceExhaustedError: the output could not be allocated.
    """
    if ACTIVE:
        return _observe(prim, inputs, params) if params else _observe(prim, inputs)
    dev = inputs[0]._device
    for x in inputs:
        if x._device is not dev:
            raise device_mismatch(prim, inputs)
    try:
        out = prim.fwd(dev.xp, *[x._value for x in inputs], **params)
    except MemoryError as exc:
        raise out_of_memory(prim, inputs, exc) from None
    if prim.saves:
        out = out[0]
    if prim.n_out == 1:
        t = _new(Tensor)
        t._value = out
        t._device = dev
        return t
    return tuple(_wrap(o, dev) for o in out)


def _observed(prim: Primitive, inputs: tuple, params: dict = _NO_PARAMS):
    """`dispatch` while something is active: device scope, timing, recorders.

    ``native/_dispatch.c`` mirrors the common case in C (`_observe`); this function is its
    specification and its fallback.
    """
    scope, timed, sync, records = _ctx.state
    if scope is not None and not prim.moves:
        for x in inputs:
            if x._device is not scope:
                inputs = _place(inputs, scope)
                break
    device = inputs[0]._device
    n = len(inputs)
    if n == 2:
        if inputs[1]._device is not device:
            raise device_mismatch(prim, inputs)
    elif n != 1:
        for x in inputs:
            if x._device is not device:
                raise device_mismatch(prim, inputs)
    fwd = prim.fwd
    xp = device.xp
    try:
        if timed:
            if sync:
                device.synchronize()
            t0 = _perf_counter()
        # Direct calls for one and two inputs without params: the common small ops.
        if params:
            out = fwd(xp, *[x._value for x in inputs], **params)
        elif n == 2:
            array_op = prim.array_op
            if array_op is None:
                out = fwd(xp, inputs[0]._value, inputs[1]._value)
            else:
                out = array_op(inputs[0]._value, inputs[1]._value)
                if type(out) is bytes:  # two 0-d string arrays added: NumPy gives bytes
                    out = object_scalar(out)
        elif n == 1:
            out = fwd(xp, inputs[0]._value)
        else:
            out = fwd(xp, *[x._value for x in inputs])
        if timed:
            if sync:
                device.synchronize()
            seconds = _perf_counter() - t0
        else:
            seconds = None
    except MemoryError as exc:
        raise out_of_memory(prim, inputs, exc) from None
    except InvalidArgumentError as exc:
        if prim.n_out == 0 or prim.checks or not any(r.defers_errors for r in _ctx.recorders):
            raise
        return _deferred(prim, exc, device)
    except ValueError as exc:
        if n != 2 or params or not _mismatched(exc, [x._value for x in inputs]):
            raise
        raise shape_error(prim.name, inputs, exc) from None
    if prim.saves:
        out, saved = out
    else:
        saved = None
    out_device = params["device"] if prim.moves else device
    if prim.n_out == 1:
        output = _new(Tensor)
        output._value = out
        output._device = out_device
    else:
        output = tuple(_wrap(o, out_device) for o in out)
    for record in records:
        record(prim, inputs, output, params, saved, seconds)
    return output


class DeferredError:
    """The value of an op's output whose forward raised while a recorder that defers errors
    recorded (`Recorder.defers_errors`: graph-function tracing). Using it raises the op's
    error: any NumPy operation on it, any attribute read (``.shape``, ``.dtype``), so an op
    that reads the output fails with the error of the op that made it, as does Python code
    that reads its value. An output nothing reads never raises: TensorFlow runs only the ops
    a function's outputs and stateful ops need, so an op whose result is unused cannot fail
    (``tf.gather(x, [1])  # unused`` in the guide "Introduction to graphs").

    Args:
        error: the `InvalidArgumentError` the forward raised.
    """

    __slots__ = ("error",)
    __array_priority__ = 1e9  # NumPy asks it, not the other operand, what an operator does

    def __init__(self, error: InvalidArgumentError):
        object.__setattr__(self, "error", error)

    def _raise(self, *args, **kwargs):
        raise self.error.with_traceback(None)

    __array__ = __array_ufunc__ = __array_function__ = _raise
    __len__ = __iter__ = __getitem__ = __bool__ = __float__ = __int__ = __index__ = _raise

    def __getattr__(self, name: str):
        if name.startswith("__") and name not in ("__array_interface__", "__array_struct__"):
            raise AttributeError(name)
        self._raise()

    def __repr__(self) -> str:
        return f"<DeferredError: {self.error}>"


def _deferred(prim: Primitive, error: InvalidArgumentError, device):
    """The output(s) of ``prim`` holding ``error`` (see `DeferredError`); not recorded."""
    outputs = tuple(_wrap(DeferredError(error), device) for _ in range(prim.n_out))
    return outputs[0] if prim.n_out == 1 else outputs


def record(prim: Primitive, inputs: tuple, output, params: dict = _NO_PARAMS) -> None:
    """Hands an op computed outside `dispatch` to this thread's recorders (``custom_gradient``
    computes its output with its own Python code, then records it as one op)."""
    if ACTIVE:
        for recorder in _ctx.recorders:
            recorder.record(prim, inputs, output, params, None, None)


def stateful(fn=None, *, undoable: bool = True):
    """Marks ``fn`` as a stateful op: one that changes or reads state outside its tensor
    arguments (a Variable assignment, an optimizer update, a random draw, a metric update,
    ``ek.print``). Called normally it just runs. While a graph function is traced
    (`ek.function`), the tracing recorder records the call as one step, which every replay
    performs again by calling ``fn`` (with the replay's tensors), so its effect happens on
    every call, as TensorFlow's stateful ops do.

    ``undoable=False`` (``@stateful(undoable=False)``) marks an effect that restoring the
    Variables and the random generator cannot take back (a Python callback, ``print``, a file
    write, an iterator's next element): a replay that misses a guard after it hands its
    result to the next attempt instead of performing it again (`function.effects`).

    ``fn``'s own ops are not recorded while it is traced: it must not hand internal tensors
    to ops outside it except through its return value.
    """
    if fn is None:
        return functools.partial(stateful, undoable=undoable)
    if not undoable:
        fn.__ek_undoable__ = False

    @functools.wraps(fn)
    def op(*args, **kwargs):
        if ACTIVE:
            for recorder in _ctx.recorders:
                trace_call = getattr(recorder, "trace_call", None)
                if trace_call is not None:
                    return trace_call(fn, args, kwargs)
        return fn(*args, **kwargs)

    return op


def _wrap(value, device) -> Tensor:
    t = _new(Tensor)
    t._value = value
    t._device = device
    return t


def _place(inputs: tuple, device) -> tuple:
    return tuple(x if x._device is device else copy_to_device(x, device) for x in inputs)


# -- device copies: differentiable, the gradient goes back to the source's device ----------


def _copy_fwd(xp, x, device):
    # `xp` is the source device's module; the target's decides the array type. Every copy is a
    # real copy (also NumPy to a virtual GPU), so the two tensors never share memory, as on
    # real devices: an optimizer updating a GPU variable in place cannot touch the CPU source.
    target = device.xp
    if target is np:
        return xp.asnumpy(x) if xp is not np else np.array(x, copy=True)
    with target.cuda.Device(device.ordinal):
        # On the target device: host arrays are uploaded, arrays on another GPU are copied
        # peer to peer (`cupy.array` copies to the current device).
        return target.array(x, copy=True)


_copy = Primitive("CopyToDevice", _copy_fwd, moves=True)
defvjp(_copy, lambda g, ans, x, device: copy_to_device(g, x._device))


def copy_to_device(x, device) -> Tensor:
    """``x`` on ``device`` (a `Device`); ``x`` itself if it is already there.

    The result lives on ``device`` even inside another device's scope, and the copy is
    recorded on tapes, so gradients flow back to the source device.
    """
    if type(x) is not Tensor and not isinstance(x, Tensor):
        x = to_tensor(x, None, "copy_to_device")
    if x._device is device:
        return x
    out = dispatch(_copy, (x,), {"device": device})
    out._device = device
    return out


# -- the builders of public ops ------------------------------------------------------------------


def unary(
    prim: Primitive,
    doc: str | None = None,
    float_only=False,
    real: bool = False,
    signed: bool = False,
    bools: bool = False,
):
    """A public one-input op ``op(x, name=None)`` for ``prim``.

    ``float_only`` ops (exp, log, sin, ...) raise `UnsupportedDTypeError` (TensorFlow's
    InvalidArgumentError, also a TypeError) on integer input, as in TensorFlow, instead of
    NumPy's silent switch to float64; ``float_only="real"`` ops (erf, softplus, ...) also on
    complex input, which TensorFlow's kernels for them do not take; ``real`` ops (relu, round,
    ...) take integers but refuse complex input, for the same reason; ``signed`` ops (abs,
    negative, sign) refuse unsigned integers, which TensorFlow's kernels do not take (NumPy
    would wrap ``-x`` around). Only ``bools`` ops (LogicalNot) take bool tensors: TensorFlow
    registers no bool kernel for Abs, Square, Round, ..., where NumPy would compute. A string
    input that the forward cannot take raises the same error, naming the op, instead of NumPy's
    message.

    Under the new type promotion (NumPy behavior's "all"/"safe" mode) the op takes a weak
    tensor or a Python value to a weak tensor (``-tf.constant(5)``, ``tf.math.abs([1.0])``),
    as TensorFlow's WeakTensor-supporting unary APIs do.
    """
    fwd = prim.fwd
    name = prim.name
    kinds = "f" if float_only == "real" else "fc"

    def op(x, name=None):
        if _NUMPY_STATE.promotion is not None and name is not STRONG:
            x, weak = unary_operand(x, prim.name)  # the new type promotion: weak in, weak out
            if weak:
                return keep_weak(op(x, STRONG), True)
        if type(x) is not Tensor:
            if isinstance(x, CompositeTensor):  # RaggedTensor, SparseTensor: op on values
                return x._ek_unary(op)
            x = to_tensor(x, None, prim.name)
        if float_only and x._value.dtype.kind not in kinds:
            float_check(prim.name, x, real=kinds == "f")
        elif real and x._value.dtype.kind == "c":
            raise complex_error(prim.name, x)
        elif signed and x._value.dtype.kind == "u":
            raise dtype_unsupported(prim.name, x, "a signed number")
        elif x._value.dtype is _BOOL and not bools:
            raise dtype_unsupported(prim.name, x, "a number")
        try:
            if ACTIVE:
                return _observe(prim, (x,))
            t = _new(Tensor)
            t._value = fwd(x._device.xp, x._value)
        except TypeError:
            if x._value.dtype.kind == "O":
                raise dtype_unsupported(prim.name, x, "a number") from None
            raise
        t._device = x._device
        return t

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def binary(
    prim: Primitive,
    doc: str | None = None,
    array_op=None,
    strings: bool = False,
    bools: bool = False,
):
    """A public two-input broadcasting op ``op(x, y, name=None)`` for ``prim``.

    Inputs must share a dtype (Python numbers take the other side's dtype) and a device.
    ``array_op(a, b)``, when given, is what ``prim.fwd(xp, a, b)`` computes, as a C callable
    of the arrays alone (``operator.mul`` for Mul): the fast path calls it without the
    forward's Python frame. Only ``strings`` ops (Add, Equal, NotEqual: TensorFlow's kernels
    that take strings) accept string tensors, and only ``bools`` ops (Equal, NotEqual, the
    logical ops) bool tensors: TensorFlow registers no bool kernel for arithmetic, ordering,
    Maximum or Pow, where NumPy would compute with bools as integers.

    Under the new type promotion (NumPy behavior's "all"/"safe" mode) mixed operands promote
    along TensorFlow's lattice instead (`type_promotion`; `_promoted`).

    The op's ``operator`` attribute is the same op as `Tensor`'s operators call it: under
    NumPy behavior's legacy mode a NumPy operand promotes with the tensor first
    (`operator_operands`), where the op itself converts it to the tensor's dtype, as
    TensorFlow's operators and ops differ. Both share the fast path of two tensors.

    Raises:
        TypeError: the dtypes differ (TensorFlow does not promote); "safe" mode's refusals.
        UnsupportedDTypeError: string or bool inputs to an op that takes none (TensorFlow's
            InvalidArgumentError, also a TypeError).
        InvalidArgumentError: the shapes do not broadcast, or the devices differ.
    """
    fwd = prim.fwd
    prim.array_op = array_op
    public = None  # the op users call: `op`, or its C twin (composite tensors compare it)

    def make(operator: bool):
        """The op, or (``operator``) its variant for Tensor's operators: the same but for a
        NumPy operand under NumPy behavior's legacy mode (`operator_operands`)."""

        def op(x, y, name=None):
            if _NUMPY_STATE.promotion is not None and not (
                isinstance(x, CompositeTensor) or isinstance(y, CompositeTensor)
            ):
                return _promoted(prim, x, y, strings)
            if (type(x) is not Tensor or type(y) is not Tensor) and not (
                isinstance(x, Tensor) and isinstance(y, Tensor)  # a Variable: nothing to convert
            ):
                if isinstance(x, CompositeTensor):  # RaggedTensor, SparseTensor
                    return x._ek_binary(public, x, y)
                if isinstance(y, CompositeTensor):
                    return y._ek_binary(public, x, y)
                if operator and _NUMPY_STATE.enabled:
                    x, y = operator_operands(x, y)
                x, y = coerce_pair(x, y, prim.name)
            xv = x._value
            yv = y._value
            dt = xv.dtype
            if dt is not yv.dtype and dt != yv.dtype:
                raise dtype_error(prim.name, (x, y))
            if (dt.kind == "O" and not strings) or (dt.kind == "b" and not bools):
                raise dtype_unsupported(prim.name, x, "a number")
            if ACTIVE:
                return _observe(prim, (x, y))
            dev = x._device
            if dev is not y._device:
                raise device_mismatch(prim, (x, y))
            try:
                out = fwd(dev.xp, xv, yv) if array_op is None else array_op(xv, yv)
                if type(out) is bytes:  # two 0-d string arrays added: NumPy gives bytes
                    out = object_scalar(out)
            except ValueError as exc:
                if not _mismatched(exc, (xv, yv)):
                    raise
                raise shape_error(prim.name, (x, y), exc) from None
            t = _new(Tensor)
            t._value = out
            t._device = dev
            return t

        op.__name__ = prim.name
        op.__qualname__ = f"{prim.name}.operator" if operator else prim.name
        return op

    op, operator = make(False), make(True)
    op.__doc__ = doc
    native = globals().get("_native_binary") if array_op is not None else None
    if native is None:
        public = op
        op.operator = operator
        return op
    # The C twin of `op`'s fast path (native/_dispatch.c `BinaryOp`); `op` is its
    # specification, and runs for anything but two tensors of one dtype and device.
    fast = native(prim, array_op, op)
    fast.__name__ = fast.__qualname__ = prim.name
    fast.__module__ = op.__module__
    fast.__doc__ = doc
    fast.__wrapped__ = op
    fast.operator = native(prim, array_op, operator)  # the same fast path
    fast.operator.__name__ = prim.name
    public = fast
    return fast


# TensorFlow's "comparison-method" binary ops: their output is never weak.
_NEVER_WEAK = frozenset({"Maximum", "Minimum"})


def _promoted(prim: Primitive, x, y, strings: bool):
    """`binary`'s op under the new type promotion: both operands as the dtype TensorFlow's
    lattice promotes them to (`type_promotion.promote_pair`; "safe" mode raises TypeError for
    an unsafe pair), the op run on them, its output weak when that dtype is weak."""
    x, y, weak = promote_pair(prim.name, x, y)
    if x._value.dtype.kind == "O" and not strings:
        raise dtype_unsupported(prim.name, x, "a number")
    out = _observe(prim, (x, y))
    return keep_weak(out, weak and prim.name not in _NEVER_WEAK)


def object_scalar(value) -> np.ndarray:
    """``value`` (a string ``bytes``) as the 0-d object array a string tensor holds: NumPy
    gives the element itself for a 0-d object result (``0-d + 0-d``)."""
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def coerce_pair(x, y, op: str):
    """Converts the non-Tensor side of a binary op, taking the Tensor side's dtype as a hint;
    a NumPy array on the right is cast to it (`cast_operand`), one on the left keeps its own
    dtype, as in TensorFlow's op conversion (a reflected operator has cast it already).

    The converted side joins the tensor's device, so ``1 + gpu_tensor`` stays on the GPU.
    """
    if isinstance(x, Tensor):
        if isinstance(y, Tensor):  # a Variable on either side: nothing to convert
            return x, y
        if type(y) in NUMPY_OPERANDS:  # cast to the tensor's dtype, as TensorFlow does
            y = cast_operand(y, x._value.dtype)
        y = to_tensor(y, x._value.dtype, op, x._device)
    elif isinstance(y, Tensor):
        x = to_tensor(x, y._value.dtype, op, y._device)
    else:
        x = to_tensor(x, None, op)
        y = to_tensor(y, x._value.dtype, op)
    return x, y


# -- errors, named by op ---------------------------------------------------------------------


def dtype_error(op: str, tensors, names=("x", "y")) -> DTypeMismatchError:
    """The error of an op whose inputs' dtypes differ: `DTypeMismatchError`, TensorFlow's
    InvalidArgumentError that is also a TypeError."""
    parts = ", ".join(f"{n}: {t.dtype.name}" for n, t in zip(names, tensors))
    return DTypeMismatchError(
        f"{op}: inputs must have the same dtype, got {parts}. Cast one with ek.cast(...); "
        "eagerkernel, like TensorFlow, does not promote dtypes implicitly."
    )


def shape_error(op: str, tensors, exc: Exception, names=("x", "y")) -> InvalidArgumentError:
    """The error of an op whose inputs' shapes do not broadcast (TF: InvalidArgumentError).

    >>> try:
    ...     ek.constant([1.0, 2.0]) + ek.constant([1.0, 2.0, 3.0])
    ... except ek.errors.InvalidArgumentError as exc:
    ...     print(exc)
    AddV2: incompatible shapes x: (2,), y: (3,).
    """
    parts = ", ".join(f"{n}: {tuple(t._value.shape)}" for n, t in zip(names, tensors))
    return InvalidArgumentError(f"{op}: incompatible shapes {parts}.")


def _mismatched(exc: Exception, values) -> bool:
    """Whether a forward's ValueError comes from shapes that do not broadcast (and is not an
    error the op raised on purpose)."""
    if isinstance(exc, OpError):
        return False
    try:
        np.broadcast_shapes(*(v.shape for v in values))
    except ValueError:
        return True
    return False


def device_mismatch(prim: Primitive, inputs) -> InvalidArgumentError:
    """The error of an op whose inputs live on different devices."""
    names = ", ".join(f"{x._device.name}" for x in inputs)
    return InvalidArgumentError(
        f"{prim.name}: inputs are on different devices ({names}). Copy them with .cpu()/.gpu() "
        "or run the op inside `with ek.device(...)`."
    )


def out_of_memory(prim: Primitive, inputs, exc: Exception) -> ResourceExhaustedError:
    """The error of an op whose output could not be allocated."""
    shapes = ", ".join(f"{tuple(x._value.shape)} {x._value.dtype}" for x in inputs)
    return ResourceExhaustedError(
        f"{prim.name}: out of memory allocating the output for inputs {shapes} ({exc})."
    )


def complex_error(op: str, x: Tensor, arg: str = "x") -> UnsupportedDTypeError:
    """The error of an op whose TensorFlow kernel takes no complex input (an
    `UnsupportedDTypeError`: TensorFlow's InvalidArgumentError, also a TypeError)."""
    return UnsupportedDTypeError(
        None,
        op,
        f"{op}: {arg} must be a real tensor, got {x.dtype.name} (TensorFlow's kernel takes no "
        "complex input). Use ek.math.real/imag or ek.abs.",
    )


def dtype_unsupported(op: str, x: Tensor, wanted: str, arg: str = "x") -> UnsupportedDTypeError:
    """The error of an op called on a dtype TensorFlow has no kernel of it for: ``wanted``
    says what it takes (``"a number"``, ``"a signed number"``)."""
    return UnsupportedDTypeError(
        None, op, f"{op}: {arg} must be {wanted}, got a {x.dtype.name} tensor."
    )


def float_check(op: str, x: Tensor, arg: str = "x", real: bool = False) -> None:
    """Raises `UnsupportedDTypeError` (TensorFlow's InvalidArgumentError, also a TypeError)
    unless ``x`` is floating (TensorFlow has no integer kernel for exp, floor, ...); with
    ``real``, unless it is real floating (TensorFlow's erf, softplus, softmax, ... have no
    complex kernel)."""
    kind = x._value.dtype.kind
    if real and kind == "c":
        raise complex_error(op, x, arg)
    if kind not in "fc":
        raise UnsupportedDTypeError(
            None,
            op,
            f"{op}: {arg} must be a floating-point tensor, got {x.dtype.name}. "
            "Cast it first, e.g. ek.cast(x, ek.float32).",
        )


def _kernel_clocksource() -> str | None:
    """The clocksource Linux keeps time with (``"tsc"``, ``"kvm-clock"``, ...), or None."""
    try:
        with open("/sys/devices/system/clocksource/clocksource0/current_clocksource") as f:
            return f.read().strip()
    except OSError:
        return None


# `_observe(prim, inputs[, params])`: `_observed`, in C when it was built; and the C
# twin of `binary`'s ops (None: `binary` returns its Python op).
_observe = _observed
_native_binary = None
if _NATIVE:
    try:
        from ..native import _dispatch as _native_dispatch
    except ImportError:  # not built (no C compiler at install time): the Python path runs
        pass
    else:
        from .device import Device

        # Sample arrays on which the C side checks the ndarray layout its dtype test reads.
        _samples = [np.zeros(1, np.float32), np.zeros((2, 3), np.int64)[:, 1:], np.ones(())]
        _native_dispatch.setup(
            _ctx,
            _observed,
            _NO_PARAMS,
            Tensor,
            Primitive,
            Device,
            ACTIVE,
            np.ndarray,
            _samples,
            globals(),  # where BinaryOp reads `_observe`, as the Python op does
            _NUMPY_STATE,  # NumPy behavior's switches: a Python number beside a tensor
        )
        _observe = _native_dispatch.observe
        _native_binary = _native_dispatch.BinaryOp
        # Timed forwards read the CPU's time-stamp counter where Linux itself keeps time with
        # it (so it is invariant and synchronized across cores), CLOCK_MONOTONIC elsewhere.
        _native_dispatch.use_tsc(_kernel_clocksource() == "tsc")
