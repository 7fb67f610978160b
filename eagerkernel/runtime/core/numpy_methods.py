"""The NumPy methods `ek.experimental.numpy.experimental_enable_numpy_behavior` gives Tensors
(follows TensorFlow's list: ``T``, ``data``, ``tolist``, ``transpose``, ``flatten``,
``reshape``, ``ravel``, ``clip``, ``astype``, ``round``, ``max``, ``mean``, ``min``), and the
switch behind them (`STATE`). `Tensor` inherits `NumpyMethods`: while the behavior is off each
method raises AttributeError, so ``hasattr`` is False, as on TensorFlow's tensors. This module
imports only `conversion` of the runtime at load time, which does not import `Tensor` (built on
this module).
"""

from __future__ import annotations

import typing

from .conversion import NUMPY_OPERANDS, cast_operand

if typing.TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["STATE", "NumpyMethods", "numpy_operator", "operator_operands", "promoted"]


class _State:
    """NumPy behavior's switches: ``enabled`` (the methods and promotion in operators),
    ``prefer_float32``, and ``promotion``: None for NumPy's promotion ("legacy" mode, and while
    the behavior is off), ``"all"`` or ``"safe"`` for TensorFlow 2.15's new type promotion
    (`type_promotion`)."""

    __slots__ = ("enabled", "prefer_float32", "promotion")

    def __init__(self) -> None:
        self.enabled = False
        self.prefer_float32 = False
        self.promotion = None


STATE = _State()  # NumPy behavior: on for the rest of the process once enabled


class NoNumpyMethod(AttributeError, TypeError):
    """A NumPy method looked up while NumPy behavior is off: an AttributeError (so hasattr()
    is False) that is also the TypeError Python's ``round()`` gives a type without
    ``__round__``."""


class NumpyAttribute:
    """A Tensor method (or property) of NumPy behavior, declared in the class body: looked up
    while the behavior is off it raises AttributeError, as TensorFlow's tensors do."""

    __slots__ = ("func", "is_property", "name")

    def __init__(self, func, is_property: bool = False):
        self.func = func
        self.name = func.__name__
        self.is_property = is_property

    def __get__(self, obj, owner=None):
        if not STATE.enabled:
            cls = (owner or type(obj)).__name__
            missing = (
                f"type {cls} doesn't define {self.name} method"  # round(t): TypeError
                if self.name.startswith("__")
                else f"'{cls}' object has no attribute '{self.name}'"
            )
            raise NoNumpyMethod(
                f"{missing}. If you are looking for numpy-related methods, please run the "
                "following: ek.experimental.numpy.experimental_enable_numpy_behavior()"
            )
        if obj is None:
            return self.func
        if self.is_property:
            return self.func(obj)
        return self.func.__get__(obj, owner)


def numpy_method(func) -> NumpyAttribute:
    return NumpyAttribute(func)


def numpy_property(func) -> NumpyAttribute:
    return NumpyAttribute(func, is_property=True)


def tnp():
    """The `ek.experimental.numpy` functions behind the NumPy methods (imported when first
    used: the module builds on the ops, which build on Tensor)."""
    from .. import numpy_ops

    return numpy_ops


def varargs(args: tuple):
    """``f(2, 3)`` and ``f((2, 3))`` alike (NumPy's ``reshape``/``transpose`` methods)."""
    from .tensor import Tensor

    if len(args) == 1 and (args[0] is None or isinstance(args[0], (list, tuple, Tensor))):
        return args[0]
    return args if args else None


def operator_operands(x, y):
    """``(x, y)`` as a binary operator of `Tensor` hands them to its op: under NumPy behavior's
    legacy mode a NumPy array or scalar beside a tensor first
    promotes with it to NumPy's result type, as TensorFlow's operators do
    (``maybe_promote_tensors``), where the op functions convert it to the tensor's dtype
    (``t + np.float64(2)`` is float64 for a float32 ``t``, ``tf.add(t, np.float64(2))`` float32);
    otherwise, or when promotion changes nothing, ``(x, y)`` unchanged."""
    if (
        STATE.enabled
        and STATE.promotion is None
        and (type(x) in NUMPY_OPERANDS or type(y) in NUMPY_OPERANDS)
    ):
        from .numpy_behavior import promote_operands

        operands = promote_operands(x, y)
        if operands is not None:
            return operands
    return x, y


def numpy_operator(op, x, y):
    """An operator of `Tensor` on a tensor and a NumPy array or scalar (either side): under
    NumPy behavior both promoted together first (`operator_operands`: legacy mode; the new
    type promotion promotes inside the op), otherwise the NumPy value cast to the tensor's
    dtype (`cast_operand`), as TensorFlow converts it; then ``op``, promoting on a dtype
    mismatch as the other operators do (`promoted`)."""
    if STATE.enabled:
        x, y = operator_operands(x, y)
    elif type(y) in NUMPY_OPERANDS:
        y = cast_operand(y, x._value.dtype)
    else:
        x = cast_operand(x, y._value.dtype)
    try:
        return op(x, y)
    except TypeError as exc:
        return promoted(exc, op, x, y)


def promoted(exc: TypeError, op, x, y):
    """A binary operator whose op raised ``exc`` (a TypeError): under NumPy behavior's legacy
    mode, the op on both operands promoted to NumPy's result type; otherwise, or when promotion
    changes nothing, ``exc`` itself (the new type promotion has promoted inside the op already:
    its TypeError is "safe" mode's refusal)."""
    if not STATE.enabled or STATE.promotion is not None:
        raise exc
    from .numpy_behavior import promote_operands

    operands = promote_operands(x, y)
    if operands is None:
        raise exc
    return op(*operands)


class NumpyMethods:
    """The NumPy methods of `Tensor` (present while NumPy behavior is on)."""

    __slots__ = ()

    # -- NumPy methods: present while NumPy behavior is on -------------------------------------
    # The methods `tf.experimental.numpy.experimental_enable_numpy_behavior` gives tf.Tensor
    # (TensorFlow's list); while it is off they raise AttributeError, so hasattr() is False.

    @numpy_property
    def T(self) -> Tensor:
        """The transpose (all axes reversed), as ``ndarray.T``."""
        return tnp().transpose(self)

    @numpy_property
    def data(self) -> Tensor:
        """The tensor itself (TensorFlow's `ndarray.data`)."""
        return self

    @numpy_method
    def tolist(self):
        """The value as nested Python lists (a Python scalar for rank 0), as ``ndarray.tolist``."""
        return self.numpy().tolist()

    @numpy_method
    def transpose(self, *axes) -> Tensor:
        """``tnp.transpose(self, axes)``; ``t.transpose(1, 0)`` and ``t.transpose((1, 0))``."""
        return tnp().transpose(self, varargs(axes))

    @numpy_method
    def flatten(self, order="C") -> Tensor:
        """A 1-D copy (``tnp.ravel``): ``order`` "C" or "F"."""
        return tnp().ravel(self, order)

    @numpy_method
    def reshape(self, *shape, order="C") -> Tensor:
        """``tnp.reshape(self, shape, order)``; ``t.reshape(2, 3)`` and ``t.reshape((2, 3))``."""
        return tnp().reshape(self, varargs(shape), order=order)

    @numpy_method
    def ravel(self, order="C") -> Tensor:
        """``tnp.ravel(self, order)``."""
        return tnp().ravel(self, order)

    @numpy_method
    def clip(self, a_min=None, a_max=None) -> Tensor:
        """``tnp.clip(self, a_min, a_max)``."""
        return tnp().clip(self, a_min, a_max)

    @numpy_method
    def astype(self, dtype) -> Tensor:
        """This tensor cast to ``dtype`` (a NumPy type, `DType` or name; follows `tf.cast`)."""
        return tnp().asarray(self, dtype=dtype)

    @numpy_method
    def __round__(self, ndigits=None) -> Tensor:
        """``round(t, ndigits)``: ``tnp.around`` (half to even)."""
        return tnp().around(self, 0 if ndigits is None else ndigits)

    @numpy_method
    def max(self, axis=None, out=None, keepdims=None) -> Tensor:
        """``tnp.amax(self, axis, out, keepdims)``."""
        return tnp().amax(self, axis=axis, out=out, keepdims=keepdims)

    @numpy_method
    def mean(self, axis=None, dtype=None, out=None, keepdims=None) -> Tensor:
        """``tnp.mean(self, axis, dtype, out, keepdims)``."""
        return tnp().mean(self, axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    @numpy_method
    def min(self, axis=None, out=None, keepdims=None) -> Tensor:
        """``tnp.amin(self, axis, out, keepdims)``."""
        return tnp().amin(self, axis=axis, out=out, keepdims=keepdims)
