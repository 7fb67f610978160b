"""`Tensor`: an immutable array on one device, and conversion of Python values to tensors.

A Tensor is three slots: the array (``numpy.ndarray``, a NumPy scalar, or a CuPy array), its
`Device`, and a weak-reference slot. Shape and dtype are read off the array when asked for, so
making a tensor costs one allocation and two slot stores. Tensors know nothing about tapes:
a `GradientTape` remembers which tensors it watches, so a tensor that nothing references is
freed at once, whether or not a tape is active.

Python operators (``+ - * / // % ** @``, comparisons, ``~ & |``, indexing) are declared in the
class body; each calls the public op of ``ops/`` (``x * y`` is ``ek.multiply(x, y)``), so it is
dispatched and recorded like any op.
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .context import ACTIVE, value_read
from .conversion import (
    CONVERSIONS,
    NUMPY_OPERANDS,
    ConversionError,
    cast_python,
    infer_numpy,
    is_np_strings,
    np_value,
    registered_conversion,
    unsupported_type,
)
from .device import CPU, Device, current_device
from .numpy_methods import STATE as _NUMPY_STATE
from .numpy_methods import NumpyMethods
from .numpy_methods import numpy_operator as _numpy_operator
from .numpy_methods import promoted as _promoted
from .shape import ShapeMethods, TensorShape
from .string_values import to_bytes_array
from .tensor_format import numpy_repr, numpy_str

__all__ = [
    "EQUALITY",
    "ConversionError",
    "Tensor",
    "TensorShape",
    "constant",
    "convert_to_tensor",
]


class _Equality:
    """Whether ``==`` on Tensors and Variables is elementwise (TensorFlow 2, the default) or
    identity (TF 1.x): `tf.compat.v1.enable_tensor_equality` / ``disable_tensor_equality``
    set it, for the whole process as in TensorFlow."""

    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


EQUALITY = _Equality()

_new = object.__new__


_shape = tuple.__new__  # a concrete shape without TensorShape.__new__'s checks (Tensor.shape)


class Tensor(ShapeMethods, NumpyMethods):
    """An immutable multi-dimensional array on one device (follows `tf.Tensor` in eager mode).

    Make tensors with `ek.constant`, `ek.convert_to_tensor` or any op; the constructor is
    internal. Arithmetic operators accept tensors, NumPy arrays and Python numbers on either
    side; a Python number takes the tensor's dtype (``x * 2`` stays float32).

    Attributes:
        shape: a `TensorShape` (a tuple of ints).
        dtype: a `DType`, e.g. ``ek.float32``.
        device: TensorFlow's fully qualified device name,
            ``"/job:localhost/replica:0/task:0/device:CPU:0"``.
        ndim: the rank.

    >>> t = constant([[1.0, 2.0], [3.0, 4.0]])
    >>> t.shape, t.dtype
    (TensorShape([2, 2]), ek.float32)
    >>> t.device
    '/job:localhost/replica:0/task:0/device:CPU:0'
    >>> print(constant([[4.0]]))
    Tensor([[4.]], shape=(1, 1), dtype=float32)
    >>> constant(6.0)
    <Tensor: shape=(), dtype=float32, numpy=6.0>
    """

    # `_keras_mask`: the Keras mask a layer attached to its output (unset: no mask, and
    # reading it raises AttributeError, as on a TensorFlow tensor); see `keras.masking`.
    # `_weak`: True on a weak tensor of the new type promotion (`type_promotion`); else unset.
    __slots__ = ("__weakref__", "_device", "_keras_mask", "_value", "_weak")
    # NumPy's binary operators defer to ours, so `np_array * tensor` gives a Tensor.
    __array_priority__ = 100

    def __init__(self, value, device: Device | None = None):
        self._value = value
        self._device = CPU if device is None else device

    # -- array access -------------------------------------------------------------------------
    def numpy(self):
        """A copy of the value as a NumPy array (a NumPy scalar for rank 0), copied off a GPU
        if needed (follows `tf.Tensor.numpy`, which copies too).

        Writing into the array never changes the tensor, a Variable, or a gradient a tape
        computes from the tensor.

        >>> v = ek.Variable([1.0, 2.0])
        >>> a = v.numpy()
        >>> a += 100
        >>> v.numpy()
        array([1., 2.], dtype=float32)
        """
        v = self._value
        a = self._device.xp.asnumpy(v) if self._device.xp is not np else v.copy()
        if ACTIVE:  # a graph function being traced guards on the value
            value_read(self, "array", a)
        if a.ndim == 0:  # a NumPy scalar (a string scalar: `bytes`), as TensorFlow gives it
            return a[()]
        return a

    def __array__(self, dtype=None, copy=None):
        """The value for NumPy (``np.asarray(t)``): a read-only view on CPU, so that NumPy
        functions read big tensors without a copy and cannot write into them; a writable copy
        when ``copy=True`` or a ``dtype`` conversion is asked for."""
        v = self._value
        if ACTIVE:
            value_read(self, "array", v)
        if self._device.xp is not np:
            a = self._device.xp.asnumpy(v)
        elif copy or (dtype is not None and v.dtype != dtype):
            a = np.array(v, copy=True)
        else:
            a = np.asarray(v).view()
            a.flags.writeable = False
            return a
        if dtype is not None and a.dtype != dtype:
            a = a.astype(dtype)
        return a

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Exports the value as a DLPack capsule, zero-copy (the array API protocol).

        ``np.from_dlpack(t)``, ``torch.from_dlpack(t)``, ``cupy.from_dlpack(t)`` and
        ``jax.dlpack.from_dlpack(t)`` then share the tensor's memory; treat it as read-only.
        A virtual GPU's data is host memory, so it is exported as a CPU array.
        """
        value = self._value
        if self._device.xp is np:
            value = np.asarray(value)  # rank-0 values may be NumPy scalars
        kwargs = {"stream": stream}
        if max_version is not None:
            kwargs["max_version"] = max_version
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return value.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple:
        """``(device type, device id)`` in DLPack's codes: (1, 0) for host memory, (2, N) CUDA."""
        value = self._value
        if self._device.xp is np:
            value = np.asarray(value)
        return value.__dlpack_device__()

    @property
    def shape(self) -> TensorShape:
        return _shape(TensorShape, self._value.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.from_numpy(self._value.dtype)

    @property
    def device(self) -> str:
        return self._device.full_name

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return int(self._value.size)

    # -- Python protocol ----------------------------------------------------------------------
    def __len__(self) -> int:
        if self._value.ndim == 0:
            raise TypeError("len() of a scalar Tensor (shape ()) is undefined.")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("iteration over a scalar Tensor (shape ()) is not possible.")
        from ..ops.array_ops import unstack

        return iter(unstack(self))

    def _scalar(self, what: str, convert):
        v = self._value
        if v.size != 1:
            raise TypeError(f"{what}() needs a one-element Tensor, got shape {tuple(v.shape)}.")
        if self._device.xp is not np:
            v = self._device.xp.asnumpy(v)
        value = convert(v.reshape(()).item())
        if ACTIVE:  # a graph function being traced guards on the value
            value_read(self, what, value)
        return value

    def __bool__(self) -> bool:
        return self._scalar("bool", bool)

    def __float__(self) -> float:
        return self._scalar("float", float)

    def __int__(self) -> int:
        return self._scalar("int", int)

    def __index__(self) -> int:
        if self._value.dtype.kind not in "iub":
            raise TypeError(f"only integer Tensors can be used as an index, got {self.dtype!r}.")
        return self._scalar("index", int)

    def __complex__(self) -> complex:
        return self._scalar("complex", complex)

    def __format__(self, spec: str) -> str:
        """Formats the value through NumPy, as TensorFlow does (``f"{loss}"`` of a float32 0.1
        is ``0.10000000149011612``); an array formats each element with ``spec``."""
        if self._value.ndim == 0:
            return format(np.asarray(self.numpy())[()], spec)  # a NumPy scalar (or bytes)
        if spec:
            return np.array2string(
                np.asarray(self.numpy()), formatter={"all": lambda v: format(v, spec)}
            )
        return str(np.asarray(self.numpy()))

    def __hash__(self):
        """Raises TypeError: ``==`` is elementwise (TensorFlow 2), so a Tensor is no dict key;
        use ``t.ref()``. A Variable is hashable by identity after
        ``tf.compat.v1.disable_tensor_equality()``; an eager Tensor never is (TensorFlow's)."""
        raise TypeError("Tensor is unhashable. Instead, use tensor.ref() as the key.")

    def ref(self) -> _Ref:
        """A hashable reference to this object, for use as a dict key (follows `Tensor.ref`)."""
        return _Ref(self)

    def experimental_ref(self) -> _Ref:
        """Deprecated TensorFlow spelling of `ref`."""
        return _Ref(self)

    # -- display ------------------------------------------------------------------------------
    def _device_suffix(self) -> str:
        d = self._device
        if d is CPU:
            return ""
        return f", device={d.name}{' (virtual)' if d.virtual else ''}"

    def _shown(self):
        """The value as `numpy` gives it, for display: showing a tensor (``print`` inside a
        graph function's trace, a Python side effect) does not make the trace guard on it."""
        v = self._value
        a = self._device.xp.asnumpy(v) if self._device.xp is not np else v
        return a[()] if a.dtype.kind == "O" and a.ndim == 0 else a

    def __str__(self) -> str:
        """``Tensor(values, shape=..., dtype=...)``, the values on lines of their own when they
        take several, as TensorFlow prints a tensor."""
        shape = tuple(self._value.shape)
        weak = ", weak=True" if getattr(self, "_weak", False) is True else ""
        values = numpy_str(self._shown())
        if "\n" in values:
            values = "\n" + values
        return f"Tensor({values}, shape={shape}, dtype={self.dtype.name}" + (
            f"{self._device_suffix()}{weak})"
        )

    def __repr__(self) -> str:
        """``<Tensor: shape=(), dtype=float32, numpy=6.0>``; a weak tensor of the new type
        promotion ends with ``, weak=True>``, as TensorFlow's WeakTensor."""
        shape = tuple(self._value.shape)
        weak = ", weak=True" if getattr(self, "_weak", False) is True else ""
        return (
            f"<Tensor: shape={shape}, dtype={self.dtype.name}{self._device_suffix()}, "
            f"numpy={numpy_repr(self._shown())}{weak}>"
        )

    # -- Python operators: the public ops ----------------------------------------------------------
    # The ops made by `dispatch.binary` are called as their ``operator`` variant (bound below),
    # which under NumPy behavior promotes a NumPy operand with the tensor where the op function
    # converts it to the tensor's dtype (TensorFlow's operators and ops differ so); the other
    # operators hand a NumPy operand to `_numpy_operator`.
    def __add__(self, other):
        try:
            return _add(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _add, self, other)

    def __radd__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_add, other, self)
        try:
            return _add(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _add, other, self)

    def __sub__(self, other):
        try:
            return _subtract(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _subtract, self, other)

    def __rsub__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_subtract, other, self)
        try:
            return _subtract(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _subtract, other, self)

    def __mul__(self, other):
        try:
            return _multiply(self, other)
        except TypeError as exc:  # bools, as TF's operator; NumPy behavior; else the error
            return _mul_fallback(exc, self, other)

    def __rmul__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_multiply, other, self)
        try:
            return _multiply(other, self)
        except TypeError as exc:  # bools, as TF's operator; NumPy behavior; else the error
            return _mul_fallback(exc, other, self)

    def __truediv__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_truediv, self, other)
        try:
            return _truediv(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _truediv, self, other)

    def __rtruediv__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_truediv, other, self)
        try:
            return _truediv(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _truediv, other, self)

    def __floordiv__(self, other):
        try:
            return _floordiv(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _floordiv, self, other)

    def __rfloordiv__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_floordiv, other, self)
        try:
            return _floordiv(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _floordiv, other, self)

    def __mod__(self, other):
        try:
            return _mod(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _mod, self, other)

    def __rmod__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_mod, other, self)
        try:
            return _mod(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _mod, other, self)

    def __pow__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_pow, self, other)
        try:
            return _pow(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _pow, self, other)

    def __rpow__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_pow, other, self)
        try:
            return _pow(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _pow, other, self)

    def __matmul__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_matmul, self, other)
        try:
            return _matmul(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _matmul, self, other)

    def __rmatmul__(self, other):
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(_matmul, other, self)
        try:
            return _matmul(other, self)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _matmul, other, self)

    def __neg__(self):
        return _negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _abs(self)

    # ``~ & | ^``: logical on bool tensors, bitwise on integer ones (TensorFlow's ``invert_``,
    # ``and_``, ``or_``, ``xor_``); any other dtype gets the bitwise op's error.
    def __invert__(self):
        return _logical_not(self) if self._value.dtype.kind == "b" else _invert(self)

    def __and__(self, other):
        fn = _logical_and if self._value.dtype.kind == "b" else _bitwise_and
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(fn, self, other)
        return fn(self, other)

    def __rand__(self, other):
        fn = _logical_and if self._value.dtype.kind == "b" else _bitwise_and
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(fn, other, self)
        return fn(other, self)

    def __or__(self, other):
        fn = _logical_or if self._value.dtype.kind == "b" else _bitwise_or
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(fn, self, other)
        return fn(self, other)

    def __ror__(self, other):
        fn = _logical_or if self._value.dtype.kind == "b" else _bitwise_or
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(fn, other, self)
        return fn(other, self)

    def __xor__(self, other):
        fn = _logical_xor if self._value.dtype.kind == "b" else _bitwise_xor
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(fn, self, other)
        return fn(self, other)

    def __rxor__(self, other):
        fn = _logical_xor if self._value.dtype.kind == "b" else _bitwise_xor
        if type(other) in NUMPY_OPERANDS:
            return _numpy_operator(fn, other, self)
        return fn(other, self)

    def __lt__(self, other):
        try:
            return _less(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _less, self, other)

    def __le__(self, other):
        try:
            return _less_equal(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _less_equal, self, other)

    def __gt__(self, other):
        try:
            return _greater(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _greater, self, other)

    def __ge__(self, other):
        try:
            return _greater_equal(self, other)
        except TypeError as exc:  # NumPy behavior promotes; else the op's error
            return _promoted(exc, _greater_equal, self, other)

    def __eq__(self, other):
        """Elementwise equality (a bool Tensor), as in TF 2; ``t == None`` is False. After
        ``tf.compat.v1.disable_tensor_equality()``: identity (``t is other``), as in TF 1.x."""
        if other is None:
            return False
        if not EQUALITY.enabled:
            return self is other
        try:
            return _equal(self, other)
        except TypeError as exc:
            return _promoted(exc, _equal, self, other)

    def __ne__(self, other):
        if other is None:
            return True
        if not EQUALITY.enabled:
            return self is not other
        try:
            return _not_equal(self, other)
        except TypeError as exc:
            return _promoted(exc, _not_equal, self, other)

    def __getitem__(self, key):
        """NumPy-style basic and advanced indexing, differentiable (``ek.Tensor.__getitem__``
        follows `tf.Tensor.__getitem__`)."""
        return _getitem(self, key)

    # -- devices ------------------------------------------------------------------------------
    def cpu(self) -> Tensor:
        """A copy on the CPU (differentiable); the tensor itself if it is already there."""
        from .dispatch import copy_to_device

        return copy_to_device(self, CPU)

    def gpu(self, index: int = 0) -> Tensor:
        """A copy on GPU ``index`` (differentiable). Raises RuntimeError if there is no such GPU."""
        from .device import get_device
        from .dispatch import copy_to_device

        return copy_to_device(self, get_device(f"/gpu:{index}"))


class _Ref:
    """Hashable identity wrapper returned by `Tensor.ref()`."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self) -> int:
        return id(self._obj)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Ref) and other._obj is self._obj

    def __repr__(self) -> str:
        return f"<Reference wrapping {self._obj!r}>"


def make(value, device: Device) -> Tensor:
    """Wraps an array in a Tensor without any checks (the ops' constructor)."""
    t = _new(Tensor)
    t._value = value
    t._device = device
    return t


# -- conversion ---------------------------------------------------------------------------------


_PLAIN_TYPES = frozenset({int, float, complex, bool, list, tuple, str, bytes, np.ndarray})


def _array_like(value):
    """A pandas Series or Index (any object with ``__array__`` that is not an array, a
    tensor or a device array) as a NumPy array, so that its strings become `ek.string`
    bytes; a ``range`` as the list of its ints (TensorFlow converts it); anything else
    unchanged."""
    if type(value) is range:
        return list(value)
    if (
        hasattr(value, "__array__")
        and not isinstance(value, (Tensor, np.ndarray, np.generic))
        and not hasattr(value, "__cuda_array_interface__")
    ):
        return np.asarray(value)
    return value


def to_tensor(value, dtype_hint=None, op: str = "convert_to_tensor", device=None) -> Tensor:
    """Internal conversion used by ops: returns Tensors *and Variables* unchanged.

    Python numbers and lists take ``dtype_hint`` (a NumPy dtype) when they can without losing
    information, as TensorFlow's binary operators do; NumPy arrays keep their own dtype; a list
    holding Tensors is packed (`ops.autopack`) unless the hint differs from their dtype. New
    tensors go to ``device`` (the other operand's, for binary ops), else the current one."""
    if isinstance(value, Tensor):
        return value
    if CONVERSIONS and type(value) not in _PLAIN_TYPES:  # a type the user registered
        converted = registered_conversion(value, dtype_hint, op, Tensor)
        if converted is not None:
            return converted
    if type(value) in (list, tuple) and (p := _autopack.packed(value, op, dtype_hint)) is not None:
        return p  # a list holding Tensors, packed by a recorded op (TF's auto-packing)
    value = _array_like(value)
    if device is None:
        device = current_device()
    # Python numbers (np.float64 is a float subclass, as in TF) and lists are "weak": they
    # take the hint. Other NumPy scalars and arrays keep their dtype.
    if isinstance(value, (int, float, complex, list, tuple, str, bytes)):
        arr = infer_numpy(value) if dtype_hint is None else cast_python(value, dtype_hint, op)
    elif isinstance(value, (np.ndarray, np.generic)):
        arr = value if value.dtype.kind not in "USVTO" else np_value(value, op)
    elif hasattr(value, "__cuda_array_interface__"):
        from .device import device_of_array

        return make(value, device_of_array(value))
    elif hasattr(value, "__array__"):
        arr = np.asarray(value)
    elif hasattr(type(value), "__tf_tensor__"):  # TensorFlow's conversion protocol
        t = value.__tf_tensor__()
        if not isinstance(t, Tensor):
            raise TypeError(
                f"{op}: {type(value).__name__}.__tf_tensor__ returned "
                f"{type(t).__name__}, not a Tensor."
            )
        return t
    else:
        raise unsupported_type(value, op)
    if device.xp is not np:
        arr = device.xp.asarray(arr)
    return make(arr, device)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """Converts a value to a Tensor (follows `tf.convert_to_tensor`).

    Args:
        value: a Tensor, Variable (its current value is read), NumPy array or scalar, Python
            number or nested list.
        dtype: required dtype; a Tensor of another dtype raises TypeError, a Python value is
            converted to it.
        dtype_hint: preferred dtype for Python values, used only when the conversion is exact.

    Returns:
        A Tensor on its own device (NumPy arrays and Python values go to the current device).

    Raises:
        TypeError: for unsupported values or a dtype mismatch.

    >>> convert_to_tensor([1, 2]).dtype, convert_to_tensor(np.arange(2)).dtype
    (ek.int32, ek.int64)
    """
    np_dtype = dtypes.numpy_dtype(dtype)
    value = _array_like(value)
    if isinstance(value, Tensor):
        if type(value) is not Tensor:  # a Variable: a snapshot of its current value
            value = value.read_value()
        if np_dtype is not None and value._value.dtype != np_dtype:
            raise ConversionError(  # TensorFlow's ValueError (also the TypeError it was here)
                f"convert_to_tensor: Tensor has dtype {value.dtype.name}, requested "
                f"{dtypes.from_numpy(np_dtype).name}."
            )
        return value
    if np_dtype is not None:
        if isinstance(value, (np.ndarray, np.generic)) and is_np_strings(value):
            value = to_bytes_array(np.asarray(value), "convert_to_tensor")
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype != np_dtype:
                if not np.can_cast(value.dtype, np_dtype, casting="same_kind"):
                    raise TypeError(
                        f"convert_to_tensor: cannot convert array of dtype {value.dtype} "
                        f"to {np.dtype(np_dtype).name}."
                    )
                value = value.astype(np_dtype)
            return to_tensor(value)
        out = to_tensor(value, np_dtype)
        if out._value.dtype != np_dtype:  # a registered conversion function's result
            raise TypeError(
                f"convert_to_tensor: the conversion of {type(value).__name__} gave dtype "
                f"{out.dtype.name}, requested {dtypes.from_numpy(np_dtype).name}."
            )
        return out
    hint = dtypes.numpy_dtype(dtype_hint)
    if hint is not None:
        try:
            return to_tensor(value, hint)
        except TypeError:
            pass
    return to_tensor(value)


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """Creates a constant tensor (follows `tf.constant`).

    Args:
        value: a Python number or nested list, a NumPy array, or a Tensor (an eager Tensor,
            with no ``shape`` and no other ``dtype``, is returned as is: it keeps its gradient).
        dtype: optional; Python values are converted to it (float values to an integer dtype
            raise TypeError), NumPy arrays and Tensors are cast.
        shape: optional; a scalar value is broadcast to it, a value with the same number of
            elements is reshaped to it.

    Returns:
        A Tensor on the current device: Python floats give float32, ints int32, and under the
        new type promotion a Python value without ``dtype`` gives a weak tensor (``weak=True``).

    Raises:
        TypeError: unsupported value or lossy conversion; under the new type promotion, a
            Tensor whose dtype does not promote to ``dtype`` ("safe" mode: also an unsafe
            pair). ValueError: incompatible ``shape``.

    >>> constant(1.0).dtype, constant([1, 2]).dtype, constant(0, shape=(2,)).numpy()
    (ek.float32, ek.int32, array([0, 0], dtype=int32))
    """
    weak = False
    if _NUMPY_STATE.promotion is not None:
        from .type_promotion import constant_dtype

        dtype, weak = constant_dtype(value, dtype)
    np_dtype = dtypes.numpy_dtype(dtype)
    if type(value) is Tensor and shape is None and np_dtype in (None, value._value.dtype):
        return value  # as TF's: an eager Tensor passes through (a Variable is read)
    value = value.numpy() if isinstance(value, Tensor) else _array_like(value)
    if isinstance(value, (np.ndarray, np.generic)) and is_np_strings(value):
        value = to_bytes_array(np.asarray(value), "constant")  # NumPy strings: `ek.string`
    if np_dtype is not None and isinstance(value, (np.ndarray, np.generic)):
        if (np.asarray(value).dtype.kind == "O") != (np_dtype.kind == "O"):
            raise TypeError(
                f"constant: cannot convert an array of dtype {np.asarray(value).dtype} to "
                f"{dtypes.from_numpy(np_dtype).name}."
            )
        arr = np.asarray(value).astype(np_dtype, copy=False)
    elif np_dtype is not None:
        arr = cast_python(value, np_dtype, "constant")
    else:
        arr = infer_numpy(value, "constant") if not isinstance(value, np.ndarray) else value
    if shape is not None:
        shape = _constant_shape(shape)
        if arr.size == 1:
            arr = np.broadcast_to(arr.reshape(()), shape).copy()
        elif arr.size == int(np.prod(shape, dtype=np.int64)):
            arr = arr.reshape(shape)
        else:
            raise ConversionError(  # TensorFlow's TypeError (also a ValueError here)
                f"constant: value of shape {arr.shape} ({arr.size} elements) cannot take "
                f"shape {shape} ({int(np.prod(shape, dtype=np.int64))} elements)."
            )
    elif isinstance(value, np.ndarray) and arr is value:
        arr = arr.copy()  # a constant must not change when the caller's array does
    device = current_device()
    if device.xp is not np:
        arr = device.xp.asarray(arr)
    out = make(arr, device)
    if weak:
        out._weak = True
    return out


def _constant_shape(shape) -> tuple:
    """`constant`'s ``shape``: non-negative ints (an int: one dim), else TF's error classes."""
    import operator

    from .errors import InvalidArgumentError

    try:
        dims = tuple(
            operator.index(d) for d in np.atleast_1d(getattr(shape, "numpy", lambda: shape)())
        )
    except TypeError:
        raise TypeError(
            f"constant: shape must be a sequence of ints. Received: shape={shape!r:.60}"
        ) from None
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(
            None, "constant", f"constant: shape must be non-negative. Received: shape={dims}"
        )
    return dims


# The operators' ops, bound to module globals (one lookup per operator call). Imported last:
# the op modules build on `Tensor` (through `dispatch`). The ops of `dispatch.binary` are bound
# as their ``operator`` variant (see the operators above).
from ..ops import autopack as _autopack  # noqa: E402
from ..ops import elementwise as _ew  # noqa: E402
from ..ops.bitwise import invert as _invert  # noqa: E402
from ..ops.bool_product import multiply_fallback as _mul_fallback  # noqa: E402
from ..ops.elementwise import abs as _abs  # noqa: E402
from ..ops.elementwise import logical_and as _logical_and  # noqa: E402
from ..ops.elementwise import logical_not as _logical_not  # noqa: E402
from ..ops.elementwise import logical_or as _logical_or  # noqa: E402
from ..ops.elementwise import negative as _negative  # noqa: E402
from ..ops.elementwise import pow as _pow  # noqa: E402
from ..ops.elementwise import truediv as _truediv  # noqa: E402
from ..ops.indexing import getitem as _getitem  # noqa: E402
from ..ops.math_more import logical_xor as _logical_xor  # noqa: E402
from ..ops.numpy_operators import bitwise_and as _bitwise_and  # noqa: E402
from ..ops.numpy_operators import bitwise_or as _bitwise_or  # noqa: E402
from ..ops.numpy_operators import bitwise_xor as _bitwise_xor  # noqa: E402
from ..ops.numpy_operators import matmul as _matmul  # noqa: E402

_add, _subtract, _multiply = _ew.add.operator, _ew.subtract.operator, _ew.multiply.operator
_floordiv, _mod = _ew.floordiv.operator, _ew.mod.operator
_less, _less_equal = _ew.less.operator, _ew.less_equal.operator
_greater, _greater_equal = _ew.greater.operator, _ew.greater_equal.operator
_equal, _not_equal = _ew.equal_operator, _ew.not_equal_operator  # shape-tolerant
