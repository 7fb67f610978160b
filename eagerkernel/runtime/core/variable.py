"""`Variable`: a mutable tensor, the state of models (follows `tf.Variable`).

A Variable is a Tensor whose array can be replaced by `assign`; every op accepts it where a
Tensor goes. Assignments replace the array instead of writing into it, so a tape that recorded
an earlier read keeps the value it read, and `numpy()` results never change under the caller.
"""

from __future__ import annotations

import copy
import enum
import itertools
import threading
from weakref import ref as _weakref

import numpy as np

from . import dtypes, errors
from .context import ACTIVE, variable_created
from .context import context as _thread_context
from .device import current_device
from .dispatch import Primitive, copy_to_device, defvjp, dispatch, pass_through, stateful
from .numpy_methods import STATE as _NUMPY_STATE
from .shape import TensorShape
from .tensor import EQUALITY, Tensor, make, to_tensor
from .variable_scatter import ScatterMethods

__all__ = ["Variable", "VariableAggregation", "VariableSynchronization", "variable_creator_scope"]

_creation_order = itertools.count()
_read = Primitive("ReadVariableOp", lambda xp, x: x)
defvjp(_read, pass_through)


def creation_count() -> int:
    """How many Variables were created so far in this process (the uid the next one gets)."""
    return next(copy.copy(_creation_order))


# TensorFlow's other arguments of tf.Variable, accepted with the value that asks nothing.
_TF_DEFAULTS = {
    "validate_shape": True,
    "caching_device": None,
    "synchronization": None,
    "aggregation": None,
    "import_scope": None,
    "variable_def": None,
    "experimental_enable_variable_lifting": True,
}


class VariableSynchronization(enum.Enum):
    """When a distributed variable's replicas agree (follows `tf.VariableSynchronization`):
    ``ON_WRITE`` (mirrored: every update reaches all replicas; ``AUTO`` means it) or
    ``ON_READ`` (each replica keeps its own; reading outside the replicas aggregates them).
    With one replica (no strategy) they all behave alike."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How an ``ON_READ`` variable's replicas combine when read (follows
    `tf.VariableAggregation`)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


# Accepted with any value of their enum: they matter only to a distribution strategy's variable
# creator (`eagerkernel.runtime.distribute`); with one replica every choice means the same.
_DISTRIBUTION_ARGS = {
    "synchronization": VariableSynchronization,
    "aggregation": VariableAggregation,
}


def _check_tf_arguments(kwargs: dict) -> None:
    for key, value in kwargs.items():
        kind = _DISTRIBUTION_ARGS.get(key)
        if kind is not None:
            if value is not None and not isinstance(value, kind):  # TF: ValueError
                raise ValueError(
                    f"Variable: {key} must be an ek.{kind.__name__} or None, got {value!r}."
                )
            continue
        if key == "validate_shape":  # False: any shape, as shape=TensorShape(None)
            continue
        if key not in _TF_DEFAULTS:
            raise TypeError(f"Variable: unexpected keyword argument {key!r}.")
        default = _TF_DEFAULTS[key]
        if value is not default and value != default:
            raise NotImplementedError(
                f"Variable: {key}={value!r} is not supported (only {default!r}, TensorFlow's "
                "default)."
            )


def _check_arithmetic(variable, op: str) -> None:
    """TF registers AssignAdd/AssignSubVariableOp for numbers only: bool and string variables
    raise InvalidArgumentError (UnsupportedDTypeError here, also a TypeError)."""
    if variable.dtype.is_bool or variable.dtype == dtypes.string:
        raise errors.UnsupportedDTypeError(
            f"Variable.{op}: {variable.name} has dtype {variable.dtype.name}; {op} needs a "
            "numeric variable."
        )


def _scoped_name(name) -> str:
    """TensorFlow's name for a Variable created in this thread's `ek.name_scope`: ``"w"`` in
    scope ``block/`` is ``"block/w"``; a name ending in ``/`` is absolute (``"a/"`` -> ``"a"``)
    and ``""`` stays empty, as `tf.Variable` treats them."""
    name = "Variable" if name is None else str(name)
    if not name:
        return name
    if name.endswith("/"):
        return name[:-1]
    return _thread_context().scope_name + name


def _in_place_error(op: str, use: str) -> RuntimeError:
    return RuntimeError(
        f"`variable {op} value` with Variables is not supported. Use `{use}` to modify the "
        f"variable, or `out = variable {op[:-1]} value` if you need a new Tensor."
    )


def _declared_shape(shape, actual: tuple):
    """The `TensorShape` a Variable declares with ``shape=``, or None when it is fully defined
    (the value's shape then never changes). Raises ValueError if ``actual`` (the initial
    value's shape) is not compatible with it."""
    spec = TensorShape([shape] if isinstance(shape, int) else shape)
    if not spec.is_compatible_with(actual):
        raise ValueError(
            f"Variable: the initial value's shape {tuple(actual)} is not compatible with the "
            f"explicitly supplied `shape` argument {spec}."
        )
    return None if spec.is_fully_defined() else spec


# -- variable creators (follows `tf.variable_creator_scope`) ---------------------------------------
# A creator is ``creator(next_creator, **kwargs) -> Variable``; `Variable(...)` calls the
# innermost one, which may call ``next_creator`` for the next (the last makes a plain Variable).
# Distribution strategies use this to make the variables created in their scope mirrored.
_creators = threading.local()
_VARIABLE_ARGS = ("initial_value", "trainable", "name", "dtype", "constraint", "shape")


class _VariableMeta(type):
    """Routes ``Variable(...)`` through the creators of this thread, if any (TF's
    ``VariableMetaclass``). Subclasses are constructed directly."""

    def __call__(cls, *args, **kwargs):
        stack = getattr(_creators, "stack", None)
        if not stack or cls is not Variable:
            return super().__call__(*args, **kwargs)
        if len(args) > len(_VARIABLE_ARGS):
            raise TypeError(f"Variable: takes at most {len(_VARIABLE_ARGS)} positional arguments.")
        for key, value in zip(_VARIABLE_ARGS, args):
            if key in kwargs:
                raise TypeError(f"Variable: got multiple values for argument {key!r}.")
            kwargs[key] = value

        def chain(i):
            if i < 0:
                return lambda **kw: type.__call__(Variable, **kw)
            return lambda **kw: stack[i](chain(i - 1), **kw)

        return chain(len(stack) - 1)(**kwargs)


class variable_creator_scope:
    """Context manager: ``Variable(...)`` calls ``creator(next_creator, **kwargs)`` in this
    thread while it is active (follows `tf.variable_creator_scope`).

    The creator receives the Variable's arguments as keywords and returns a Variable, usually by
    calling ``next_creator(**kwargs)`` (the next creator, or the plain constructor). Scopes
    nest; the innermost creator runs first.

    >>> names = []
    >>> def log(next_creator, **kwargs):
    ...     names.append(kwargs.get("name"))
    ...     return next_creator(**kwargs)
    >>> with ek.variable_creator_scope(log):
    ...     v = ek.Variable(1.0, name="w")
    >>> names
    ['w']
    """

    def __init__(self, creator):
        if not callable(creator):
            raise TypeError(
                f"variable_creator_scope: creator must be callable, got {type(creator).__name__}."
            )
        self._creator = creator

    def __enter__(self):
        stack = getattr(_creators, "stack", None)
        if stack is None:
            stack = _creators.stack = []
        stack.append(self._creator)
        return self

    def __exit__(self, *exc):
        stack = _creators.stack
        for i in range(len(stack) - 1, -1, -1):
            if stack[i] is self._creator:
                del stack[i]
                break


class Variable(ScatterMethods, Tensor, metaclass=_VariableMeta):
    """A mutable, named tensor (follows `tf.Variable`).

    Args:
        initial_value: a Tensor, array, Python value, or a zero-argument callable giving one.
        trainable: watched automatically by `GradientTape` and listed in
            `trainable_variables` (default True).
        name: shown as ``'name:0'``; default ``"Variable"``. Inside ``ek.name_scope("block")``
            (or a Module's or layer's scope) the scope prefixes it: ``'block/name:0'``.
        dtype: convert ``initial_value`` to this dtype (default: its own, with TensorFlow's
            Python-value rules); a Tensor ``initial_value`` must already have it.
        constraint: optional function applied after optimizer updates (Keras convention).
        shape: optional; the value's shape must be compatible with it (a ``None`` dim
            matches any size). A shape with ``None`` dims (or ``TensorShape(None)``, unknown
            rank) is the variable's `shape`, and `assign` may then change the value's shape
            within it, as TensorFlow's.
        validate_shape: False makes the shape unknown (`assign` then takes a value of any
            shape), as ``shape=TensorShape(None)``; default True.
        synchronization, aggregation: a `VariableSynchronization` / `VariableAggregation`
            (or None), kept as the ``synchronization`` and ``aggregation`` properties; they
            matter to a distribution strategy's variables only.
        caching_device, import_scope, variable_def: accepted for TensorFlow's signature with
            their default values only (None); anything else raises, rather than being
            ignored.

    The variable lives on the current device and stays there: assigned values are copied to it.

    Raises:
        ValueError: ``initial_value`` missing, its shape does not match ``shape``, a Tensor
            of another dtype than ``dtype``; a ``constraint`` that is not callable, a ``name``
            that is not a string.
        RuntimeError: ``v += x`` and the other in-place operators (use `assign_add` ...).
        TypeError: unconvertible value, or an unknown keyword argument.
        NotImplementedError: a TensorFlow argument with a value this runtime does not support.

    >>> v = ek.Variable(5.0, name="weight")
    >>> v
    <Variable 'weight:0' shape=() dtype=float32, numpy=5.0>
    >>> v.assign_add(1.0).numpy()
    np.float32(6.0)
    """

    __slots__ = (
        "_aggregation",
        "_constraint",
        "_name",
        "_path",
        "_read",
        "_shape_spec",
        "_synchronization",
        "_trainable",
        "_uid",
    )

    def __init__(
        self,
        initial_value=None,
        trainable: bool = True,
        name: str | None = None,
        dtype=None,
        constraint=None,
        shape=None,
        **kwargs,
    ):
        _check_tf_arguments(kwargs)
        self._synchronization = kwargs.get("synchronization") or VariableSynchronization.AUTO
        self._aggregation = kwargs.get("aggregation") or VariableAggregation.NONE
        if initial_value is None:
            raise ValueError("Variable: initial_value must be given.")
        if callable(initial_value):
            initial_value = initial_value()
        if constraint is not None and not callable(constraint):
            raise ValueError(
                "Variable: argument `constraint` must be None or a callable. "
                f"Received: constraint={constraint!r:.60}"
            )
        if name is not None and not isinstance(name, str):
            raise ValueError(f"Variable: argument `name` must be a string. Received: name={name!r}")
        if isinstance(initial_value, Tensor):
            value = initial_value
            if dtype is not None and value._value.dtype != dtypes.numpy_dtype(dtype):
                # as TensorFlow's convert_to_tensor: a Tensor is never cast silently (1.5 -> 1)
                raise ValueError(
                    f"Variable: initial_value is a Tensor of dtype {value.dtype.name}, but "
                    f"dtype={dtypes.as_dtype(dtype).name} was requested; cast it first with "
                    "ek.cast."
                )
        elif dtype is not None:
            from .tensor import constant

            value = constant(initial_value, dtype=dtype)
        else:
            value = to_tensor(initial_value, None, "Variable")
        device = current_device()
        value = copy_to_device(value, device)
        arr = value._value
        if not kwargs.get("validate_shape", True):
            shape = TensorShape(None)
        self._shape_spec = None if shape is None else _declared_shape(shape, arr.shape)
        if type(initial_value) is np.ndarray and arr is initial_value:
            arr = arr.copy()
        self._value = arr
        self._device = device
        self._trainable = bool(trainable)
        self._name = _scoped_name(name)
        self._constraint = constraint
        self._uid = next(_creation_order)  # layers list variables in creation order
        self._read = None
        if ACTIVE:  # a graph function being traced checks where variables are created
            variable_created(self)

    @property
    def name(self) -> str:
        return f"{self._name}:0"

    @property
    def path(self) -> str:
        """Keras 3's `Variable.path` (``"sequential/dense/kernel"``): for a layer's weight,
        the scopes and layer it was created in and its name, also when the layer was built
        outside a call; else the name without TensorFlow's ``:0``."""
        return getattr(self, "_path", None) or self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def shape(self) -> TensorShape:
        """The declared shape when ``shape=`` had ``None`` dims (``(None, 2)``, or unknown
        rank), as TensorFlow's; else the value's shape."""
        spec = getattr(self, "_shape_spec", None)
        return super().shape if spec is None else spec

    def set_shape(self, shape) -> None:
        """Narrows the declared shape to its merge with ``shape`` (follows
        `tf.Variable.set_shape`): later assignments must fit it.

        Raises:
            ValueError: ``shape`` is not compatible with the declared shape or the value's.
        """
        spec = getattr(self, "_shape_spec", None)
        if spec is None:
            super().set_shape(shape)  # a fully defined shape: only checked
            return
        try:
            merged = spec.merge_with(shape)
        except ValueError as exc:
            raise ValueError(f"Variable.set_shape: {self.name}: {exc}") from None
        if not merged.is_compatible_with(self._value.shape):  # TF would accept a lie here
            raise ValueError(
                f"Variable.set_shape: {self.name} holds a value of shape "
                f"{tuple(self._value.shape)}, not compatible with {merged}."
            )
        self._shape_spec = None if merged.is_fully_defined() else merged

    @property
    def constraint(self):
        return self._constraint

    @property
    def synchronization(self) -> VariableSynchronization:
        """How a distributed variable's replicas agree, as given (default ``AUTO``)."""
        return getattr(self, "_synchronization", VariableSynchronization.AUTO)

    @property
    def aggregation(self) -> VariableAggregation:
        """How an ``ON_READ`` variable's replicas combine, as given (default ``NONE``)."""
        return getattr(self, "_aggregation", VariableAggregation.NONE)

    def read_value(self) -> Tensor:
        """The current value as a Tensor; recorded on tapes (a TF ``ReadVariableOp``)."""
        return dispatch(_read, (self,))

    value = read_value

    def _checked(self, value, op: str) -> np.ndarray:
        given = value
        if _NUMPY_STATE.promotion is not None:  # the new type promotion: implicit conversion
            from .type_promotion import variable_value

            value = variable_value(self, value, f"Variable.{op}")
        elif (
            type(value) is np.ndarray
            and value.dtype != self._value.dtype
            and value.dtype.kind in "iuf"
            and self._value.dtype.kind in "iufc"
        ):
            value = value.astype(self._value.dtype)  # TF converts NumPy data to its dtype
        t = to_tensor(value, self._value.dtype, f"Variable.{op}")
        if t._value.dtype != self._value.dtype:
            raise ValueError(
                f"Variable.{op}: {self.name} has dtype {self.dtype.name}, the value has dtype "
                f"{t.dtype.name}."
            )
        spec = getattr(self, "_shape_spec", None)
        if spec is not None and op == "assign":
            if not spec.is_compatible_with(t._value.shape):
                raise ValueError(
                    f"Variable.assign: {self.name} has shape {spec}, the value has the "
                    f"incompatible shape {tuple(t._value.shape)}."
                )
        elif t._value.shape != self._value.shape:
            # TF: assign raises ValueError, AssignAddVariableOp InvalidArgumentError (a
            # ValueError here too)
            error = ValueError if op == "assign" else errors.InvalidArgumentError
            raise error(
                f"Variable.{op}: {self.name} has shape {tuple(self._value.shape)}, the value "
                f"has shape {tuple(t._value.shape)}."
            )
        if t._device is not self._device:
            t = copy_to_device(t, self._device)
        arr = t._value
        if arr is given:  # the caller's own array (a converted one is already a new array)
            arr = arr.copy()  # the caller may write into their array later
        return arr

    @stateful
    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Replaces the value (follows `tf.Variable.assign`). A NumPy array of numbers is
        converted to the variable's dtype, as TensorFlow converts it (float64 data into a
        float32 variable: ``bias.assign(np.log([p / n]))``); a Tensor must have its dtype.

        Under the new type promotion (NumPy behavior's "all"/"safe" mode) a value of another
        dtype is converted when it promotes to the variable's dtype (an int16 tensor into an
        int32 variable); one that promotes to another dtype raises TypeError.

        Raises:
            ValueError: if ``value``'s shape or dtype differ (both are named); the variable is
                unchanged.
            TypeError: under the new type promotion, a value that does not promote to the
                variable's dtype.

        Returns:
            The variable (so that ``v.assign(x).numpy()`` works), or None if not read_value.
        """
        self._value = self._checked(value, "assign")
        return self if read_value else None

    @stateful
    def assign_add(self, delta, use_locking=False, name=None, read_value=True):
        """Adds ``delta`` (same shape and dtype) in place of the value."""
        _check_arithmetic(self, "assign_add")
        self._value = self._value + self._checked(delta, "assign_add")
        return self if read_value else None

    @stateful
    def assign_sub(self, delta, use_locking=False, name=None, read_value=True):
        """Subtracts ``delta`` (same shape and dtype) from the value."""
        _check_arithmetic(self, "assign_sub")
        self._value = self._value - self._checked(delta, "assign_sub")
        return self if read_value else None

    def __hash__(self) -> int:
        """Raises TypeError while ``==`` is elementwise (TensorFlow 2's default): use
        ``v.ref()`` as a key. After ``tf.compat.v1.disable_tensor_equality()``, the
        variable's identity (TF 1.x)."""
        if EQUALITY.enabled:
            raise TypeError(
                "Variable is unhashable. Instead, use variable.ref() as the key. "
                f"(Variable: {self!r})"
            )
        return id(self)

    # As tf.Variable: ``v += 1`` would otherwise rebind ``v`` to a new Tensor and leave the
    # variable unchanged, silently; TensorFlow raises RuntimeError and names the method to use.
    def __iadd__(self, other):
        raise _in_place_error("+=", "variable.assign_add(value)")

    def __isub__(self, other):
        raise _in_place_error("-=", "variable.assign_sub(value)")

    def __imul__(self, other):
        raise _in_place_error("*=", "variable.assign(variable * value)")

    def __itruediv__(self, other):
        raise _in_place_error("/=", "variable.assign(variable / value)")

    def __ipow__(self, other):
        raise _in_place_error("**=", "variable.assign(variable ** value)")

    def __repr__(self) -> str:
        shape = self.shape
        shape = tuple(shape) if shape.rank is not None else shape
        from .tensor_format import numpy_repr

        return (
            f"<Variable '{self.name}' shape={shape} dtype={self.dtype.name}"
            f"{self._device_suffix()}, numpy={numpy_repr(self.numpy())}>"
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """``f"{v}"`` is the Variable's repr, as TensorFlow's; ``f"{v:.3f}"`` formats its
        value as a Tensor does (TensorFlow raises TypeError for a Variable with a spec)."""
        return super().__format__(spec) if spec else repr(self)

    def __reduce__(self):
        raise TypeError("Variables cannot be pickled; save them with ek.train.Checkpoint.")

    def __copy__(self) -> Variable:
        """The Variable itself (``copy.copy(v) is v``, as TensorFlow's eager variables)."""
        return self

    def __deepcopy__(self, memo) -> Variable:
        """A new Variable with a copy of the value and the same name, dtype, shape, trainable
        flag and constraint (follows TensorFlow's eager ``copy.deepcopy(v)``)."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        for klass in type(self).__mro__:
            for slot in klass.__dict__.get("__slots__", ()):
                if slot not in ("__weakref__", "__dict__") and hasattr(self, slot):
                    object.__setattr__(new, slot, getattr(self, slot))
        if hasattr(self, "__dict__"):
            new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        new._value = self._value.copy()
        new._uid = next(_creation_order)
        new._read = None
        return new

    def _snapshot(self) -> Tensor:
        """The value as a Tensor that tapes record in place of the Variable (TF's
        ``ReadVariableOp``): the same Tensor for every read while the value is the same array
        and a tape holds the snapshot, so tapes nested around one op agree on it. The Variable
        refers to it weakly: with no tape, nothing but the Variable holds its array (an
        optimizer may then update it in place)."""
        ref = self._read
        snap = None if ref is None else ref()
        if snap is None or snap._value is not self._value:
            snap = make(self._value, self._device)
            self._read = _weakref(snap)
        return snap

    def _as_tensor(self) -> Tensor:
        return make(self._value, self._device)
