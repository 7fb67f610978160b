"""TensorFlow 2.15's new type promotion (follows
``tf.experimental.numpy.experimental_enable_numpy_behavior(dtype_conversion_mode="all"|"safe")``
and TensorFlow's guide "TF-NumPy Type Promotion"): the JAX-like promotion lattice, weak types,
and the conversion of an op's operands to the dtype they promote to.

Off by default, and off in the "legacy" mode: `numpy_methods.STATE.promotion` is None then, and
nothing here runs. In "all" and "safe" mode (STATE.promotion ``"all"`` / ``"safe"``):

- The result dtype of two operands is their least upper bound in the lattice below ("the first
  common child"), so promotion is commutative and associative and never widens more than it
  must: int8 and float16 give float16, int32 and float32 float32, uint8 and int8 int16.
- Python numbers are *weak*: an int is ``i32*``, a float ``f32*``, a complex ``c128*`` (a bool
  is plain bool); a weak type defers to the other operand (int16 + 1 stays int16, float16 +
  1.5 float16). Nested lists of numbers take the join of their elements. NumPy arrays and
  scalars, `DType`s and tensors are not weak: they keep their dtype.
- A tensor made from a Python value without a dtype (``tf.constant(5)``) is weak itself (a
  *WeakTensor*: a `Tensor` whose ``_weak`` slot is set; its repr ends with ``, weak=True>``),
  and so is the result of an op whose operands promote to a weak type.
- "safe" mode refuses the promotions TensorFlow's table marks unsafe (`UNSAFE`: those that lose
  precision, such as int32 + float32, or widen beyond both inputs, such as int8 + uint32) with
  a TypeError asking for an explicit dtype; "all" mode allows every pair.

The weak dtypes are int32, int64, float32, float64 and complex128 (``i32* i64* f32* f64*
c128*``). Python ints outside int32 raise OverflowError, as in TensorFlow. ``bf16`` is in the
lattice, as in TensorFlow's table, but eagerkernel has no bfloat16 tensors.

>>> result_type_of("i8", "f16"), result_type_of("u8", "i8"), result_type_of("f32*", "f16")
('f16', 'i16', 'f16')
>>> result_type_of("i32", "f32*"), is_unsafe("i32", "f32"), is_unsafe("i8", "f16")
('f64*', True, False)
"""

from __future__ import annotations

import numpy as np

from . import dtypes
from .numpy_methods import STATE
from .tensor import Tensor, to_tensor

__all__ = [
    "LATTICE",
    "STRONG",
    "UNSAFE",
    "WEAK_DTYPES",
    "constant_dtype",
    "is_unsafe",
    "is_weak",
    "keep_weak",
    "operand_type",
    "promote_pair",
    "result_type",
    "result_type_of",
    "unary_operand",
    "variable_value",
    "weak_unary",
]

# The promotion lattice: each type and the types just above it (JAX's lattice, with
# TensorFlow's five weak types where JAX has i*, f* and c*). "*" marks a weak type.
LATTICE = {
    "b": ("i32*",),
    "i32*": ("i64*",),
    "i64*": ("u8", "i8", "f32*"),
    "u8": ("u16", "i16"),
    "u16": ("u32", "i32"),
    "u32": ("u64", "i64"),
    "u64": ("f64*",),
    "i8": ("i16",),
    "i16": ("i32",),
    "i32": ("i64",),
    "i64": ("f64*",),
    "f32*": ("f64*",),
    "f64*": ("bf16", "f16", "c128*"),
    "bf16": ("f32",),
    "f16": ("f32",),
    "f32": ("f64", "c64"),
    "c128*": ("c64",),
    "f64": ("c128",),
    "c64": ("c128",),
    "c128": (),
}

# The pairs TensorFlow's promotion table allows in "all" mode only ("safe" mode raises): a
# promotion that loses precision or widens beyond both inputs' bits.
_UNSAFE_ROWS = {
    "u8": "i8 f32*",
    "u16": "i8 i16 bf16 f16 f32*",
    "u32": "i8 i16 i32 bf16 f16 f32 c64 f32*",
    "u64": "i8 i16 i32 i64 bf16 f16 f32 f64 c64 c128 f32* f64* c128*",
    "i8": "f32*",
    "i16": "bf16 f16 f32*",
    "i32": "bf16 f16 f32 c64 f32*",
    "i64": "bf16 f16 f32 f64 c64 c128 f32* f64* c128*",
    "bf16": "f16 c128*",
    "f16": "c128*",
    "f32": "c128*",
    "f64": "c64",
}
UNSAFE = frozenset(frozenset((a, b)) for a, row in _UNSAFE_ROWS.items() for b in row.split())

_NAMES = {
    "b": np.bool_,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "i8": np.int8,
    "i16": np.int16,
    "i32": np.int32,
    "i64": np.int64,
    "f16": np.float16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
}
_DTYPE_OF = {name: np.dtype(t) for name, t in _NAMES.items()}
_DTYPE_OF.update({f"{name}*": _DTYPE_OF[name] for name in ("i32", "i64", "f32", "f64", "c128")})
_DTYPE_OF["str"] = np.dtype(object)  # `ek.string`
_NODE_OF = {np.dtype(t): name for name, t in _NAMES.items()}
_NODE_OF[np.dtype(object)] = "str"
_WEAK_NODE = {np.dtype(np.int32): "i32*", np.dtype(np.int64): "i64*"}
_WEAK_NODE.update({np.dtype(np.float32): "f32*", np.dtype(np.float64): "f64*"})
_WEAK_NODE[np.dtype(np.complex128)] = "c128*"
#: The dtypes a weak tensor can have (TensorFlow's ``_ALLOWED_WEAK_DTYPES``).
WEAK_DTYPES = frozenset(_WEAK_NODE)


def _upper_sets() -> dict:
    up = {}

    def visit(node):
        if node not in up:
            up[node] = frozenset({node}).union(*(visit(n) for n in LATTICE[node]))
        return up[node]

    for node in LATTICE:
        visit(node)
    return up


def _join_table() -> dict:
    """Every pair's least upper bound: the one common upper type below all the others."""
    up = _upper_sets()
    table = {}
    for a in LATTICE:
        for b in LATTICE:
            common = up[a] & up[b]
            (least,) = [n for n in common if up[n] >= common]
            table[a, b] = least
    table["str", "str"] = "str"
    return table


_JOIN = _join_table()


def result_type_of(a: str, b: str) -> str:
    """The lattice join of two type names (``"i8"``, ``"f32*"``...): what ``a`` and ``b``
    promote to in "all" mode. Raises KeyError for a name outside the lattice."""
    return _JOIN[a, b]


def is_unsafe(a: str, b: str) -> bool:
    """Whether "safe" mode refuses to promote ``a`` with ``b`` (type names as in `LATTICE`)."""
    return frozenset((a, b)) in UNSAFE


# -- operands -----------------------------------------------------------------------------------


def is_weak(x) -> bool:
    """Whether ``x`` is a weak tensor (made from a Python value while the new promotion was on).

    >>> is_weak(ek.constant(1.0))
    False
    """
    return isinstance(x, Tensor) and getattr(x, "_weak", False) is True


def keep_weak(t: Tensor, weak: bool) -> Tensor:
    """``t`` (an op's fresh output) marked weak when ``weak`` and its dtype can be weak
    (`WEAK_DTYPES`: a comparison's bool output never is); ``t`` itself either way."""
    if weak and t._value.dtype in WEAK_DTYPES and type(t) is Tensor:
        t._weak = True
    return t


def _python_type(x, op: str) -> str | None:
    """The weak type of a Python scalar (None for anything else)."""
    kind = type(x)
    if kind is bool:
        return "b"
    if kind is int:
        if not -(2**31) <= x < 2**31:
            raise OverflowError(
                f"{op}: Python int {x} is too large to convert to int32 (the new type promotion "
                "reads Python ints as weak int32); give the value a dtype, e.g. "
                f"tf.constant({x}, tf.int64)."
            )
        return "i32*"
    if kind is float:
        return "f32*"
    if kind is complex:
        return "c128*"
    return None


def operand_type(x, op: str = "result_type") -> str:
    """The lattice type of one operand: a Tensor's dtype (weak for a weak tensor), a NumPy
    array's or scalar's dtype, a `DType`, a Python number's weak type, the join of a nested
    list's elements, ``"str"`` for strings.

    Raises:
        TypeError: a value that cannot become a Tensor, or a dtype outside the lattice.
        OverflowError: a Python int outside int32.
    """
    if isinstance(x, Tensor):
        dt = x._value.dtype
        if getattr(x, "_weak", False) is True:
            return _WEAK_NODE[dt]
        return _node(dt, op)
    if isinstance(x, (np.ndarray, np.generic)):  # before Python floats: np.float64 is one
        return "str" if x.dtype.kind in "OSUV" else _node(x.dtype, op)
    if isinstance(x, dtypes.DType):
        return _node(x._np, op)
    python = _python_type(x, op)
    if python is not None:
        return python
    if isinstance(x, (str, bytes)):
        return "str"
    if isinstance(x, (list, tuple)):
        kinds = {operand_type(v, op) for v in _leaves(x)}
        if not kinds:
            return "f32*"  # an empty list: TensorFlow's float32
        return _fold(sorted(kinds), op)
    if x is int or x is float or x is complex or x is bool:  # Python's types as dtypes
        return {int: "i32*", float: "f32*", complex: "c128*", bool: "b"}[x]
    if isinstance(x, type) and issubclass(x, np.generic):
        return _node(np.dtype(x), op)
    dtype = getattr(x, "dtype", None)
    if isinstance(dtype, (np.dtype, dtypes.DType)):
        return _node(dtypes.numpy_dtype(dtype), op)
    return _node(to_tensor(x, None, op)._value.dtype, op)  # raises for what no op takes


def _leaves(x):
    stack = [x]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        else:
            yield v


def _node(dt: np.dtype, op: str) -> str:
    node = _NODE_OF.get(dt)
    if node is None:
        node = "str" if dt.kind in "OSUV" else None
    if node is None:
        raise TypeError(f"{op}: dtype {dt} has no place in the type promotion lattice.")
    return node


def _fold(nodes, op: str) -> str:
    """The join of ``nodes``, left to right; "safe" mode checks each step as TensorFlow does."""
    out = nodes[0]
    for other in nodes[1:]:
        if out == "str" or other == "str":
            if out != other:
                raise TypeError(
                    f"{op}: implicit conversion between a string and a number is not allowed "
                    f"(got {_DTYPE_OF[out if out != 'str' else other].name} and a string)."
                )
            continue
        if STATE.promotion == "safe" and is_unsafe(out, other):
            raise TypeError(
                f"{op}: in promotion mode SAFE, implicit dtype promotion between "
                f"({_label(out)}) and ({_label(other)}) is disallowed (it may lose precision "
                "or widen the result): explicitly specify the dtype or switch to ALL mode."
            )
        out = _JOIN[out, other]
    return out


def _label(node: str) -> str:
    return f"{_DTYPE_OF[node].name}, weak={node.endswith('*')}"


def result_type(*values, op: str = "result_type") -> tuple[np.dtype, bool]:
    """``(dtype, weak)``: the NumPy dtype the values promote to and whether it is weak (follows
    TensorFlow's ``flexible_dtypes.result_type``). None values are skipped; no values at all
    give weak float32.

    Raises:
        TypeError: "safe" mode and an unsafe pair, or a string with a number.
        OverflowError: a Python int outside int32.

    >>> result_type(np.int8(1), 2.5)
    (dtype('float64'), True)
    >>> result_type(ek.constant(1, ek.int16), [1.0, 2])
    (dtype('float64'), True)
    """
    nodes = [operand_type(v, op) for v in values if v is not None]
    node = _fold(nodes, op) if nodes else "f32*"
    return _DTYPE_OF[node], node.endswith("*")


# -- an op's operands ---------------------------------------------------------------------------


def _as_tensor(v, target: np.dtype, op: str, device) -> Tensor:
    """One operand as a Tensor of ``target``: tensors cast (differentiably) only when their
    dtype differs, so a tape still sees the operand itself; other values converted."""
    if isinstance(v, Tensor):
        if v._value.dtype == target:
            return v
        from ..ops.elementwise import cast

        return cast(v, target)
    if isinstance(v, (np.ndarray, np.generic)):
        return to_tensor(np.asarray(v).astype(target, copy=False), None, op, device)
    if isinstance(v, (list, tuple)) and any(isinstance(e, Tensor) for e in _leaves(v)):
        return _as_tensor(to_tensor(v, None, op, device), target, op, device)
    return to_tensor(v, target, op, device)


def promote_pair(op: str, x, y) -> tuple[Tensor, Tensor, bool]:
    """A binary op's operands as Tensors of the dtype they promote to, and whether that dtype
    is weak (the op's output is then weak too). A converted operand goes to the other's device.

    Raises:
        TypeError: "safe" mode and a pair TensorFlow's table marks unsafe, or a string with a
            number; a value that cannot become a Tensor.
    """
    target, weak = result_type(x, y, op=op)
    device = x._device if isinstance(x, Tensor) else y._device if isinstance(y, Tensor) else None
    return _as_tensor(x, target, op, device), _as_tensor(y, target, op, device), weak


def unary_operand(x, op: str):
    """``(x, weak)`` for a one-input op: a weak tensor stays itself (weak); a Python number or
    list becomes a Tensor of its weak dtype (weak); anything else is returned unchanged and is
    not weak (its op converts it as usual)."""
    if isinstance(x, Tensor):
        return x, getattr(x, "_weak", False) is True
    if type(x) in (int, float, complex) or (
        isinstance(x, (list, tuple)) and not any(isinstance(e, Tensor) for e in _leaves(x))
    ):
        try:
            node = operand_type(x, op)
        except TypeError:  # strings, ragged lists: the op's own conversion error
            return x, False
        if node.endswith("*"):
            return to_tensor(x, _DTYPE_OF[node], op), True
    return x, False


def constant_dtype(value, dtype):
    """``(dtype, weak)`` for ``tf.constant(value, dtype)`` under the new type promotion (follows
    TensorFlow's handling of `tf.constant` there): without ``dtype``, a Python value takes its
    weak dtype and gives a weak tensor (a weak tensor stays weak); with ``dtype``, the result is
    never weak, and a Tensor converts to ``dtype`` only when its dtype promotes to it.

    Raises:
        TypeError: a Tensor whose dtype does not promote to ``dtype``; "safe" mode and an
            unsafe pair.
    """
    if dtype is None:
        if isinstance(value, Tensor):
            return None, is_weak(value)
        node = operand_type(value, "constant")
        if node.endswith("*"):
            return _DTYPE_OF[node], True
        return None, False
    wanted = dtypes.as_dtype(dtype)
    target, _ = result_type(value, wanted, op="constant")
    if isinstance(value, Tensor) and target != wanted._np:
        raise TypeError(
            f"constant: a {value.dtype.name} tensor does not convert implicitly to "
            f"{wanted.name} (it promotes to {dtypes.from_numpy(target).name}); cast it with "
            "tf.cast."
        )
    return dtype, False


def variable_value(variable, value, op: str) -> Tensor:
    """The value of ``variable.assign``/``assign_add``/``assign_sub`` under the new type
    promotion (follows TensorFlow's Variable methods there): ``value`` converted to the
    variable's dtype when the pair promotes to it.

    Raises:
        TypeError: the pair promotes to another dtype (a Variable's dtype cannot change), or
            "safe" mode refuses it.
    """
    dt = variable._value.dtype
    target, _ = result_type(variable, value, op=op)
    if target != dt:
        got = value.dtype.name if isinstance(value, Tensor) else repr(value)[:60]
        raise TypeError(
            f"{op}: Variable dtype is immutable. {op} of a Variable of dtype "
            f"{dtypes.from_numpy(dt).name} on {got} requires converting it to "
            f"{dtypes.from_numpy(target).name}, which the current promotion semantics do not "
            "do. Convert the value to the Variable's dtype before calling it."
        )
    return _as_tensor(value, dt, op, variable._device)


#: The ``name`` a WeakTensor-supporting op passes to itself when it runs on the operand of a
#: weak input (`weak_unary`): that call skips the weak handling, the caller marks its output.
STRONG = object()


def weak_unary(fn, x, *args, **kwargs):
    """``fn(x, *args, **kwargs)`` for a one-input API TensorFlow lists as WeakTensor-supporting
    (``tf.reshape``, ``tf.reduce_sum``...), under the new type promotion: its output is weak
    when ``x`` is a weak tensor or a Python value (converted to its weak dtype first). ``fn``
    must call this only while its own ``name`` is not `STRONG`, and ignore ``name`` otherwise.
    """
    x, weak = unary_operand(x, getattr(fn, "__name__", "op"))
    out = fn(x, *args, name=STRONG, **kwargs)
    return keep_weak(out, True) if weak else out  # `out` is fresh, or `x` (weak or fresh)
