"""Assertions and numeric checks (`ek.debugging`, follows `tf.debugging`).

Everything here runs eagerly, as TensorFlow's functions do in eager mode: a check that holds
returns None (``check_numerics``, ``assert_all_finite`` and ``assert_scalar`` return their
tensor), and one that fails raises at once:

- `InvalidArgumentError` (a ValueError) when a *value* fails: ``assert_equal``,
  ``assert_less``, ``assert_positive``, ``assert_near``, ``Assert``, ``check_numerics``, ...
  The message is TensorFlow's: the condition, then the first ``summarize`` (default 3)
  entries that broke it and the first entries of ``x`` and ``y``.
- ValueError when a *shape or rank* is wrong (``assert_rank``, ``assert_rank_at_least``,
  ``assert_rank_in``, ``assert_shapes``, ``assert_scalar``): TensorFlow checks those
  statically, and every shape is static in eager execution.
- TypeError for a wrong dtype (``assert_type``, ``assert_integer``, non-numeric input).

``message`` is prefixed to the default message. ``name`` is accepted and unused, as in eager
TensorFlow. The traceback filtering switches (`enable_traceback_filtering`, ...) are
re-exported from `traceback_utils`.

>>> x = ek.constant([1, 2, 3])
>>> ek.debugging.assert_less(x, 4)  # holds: returns None
>>> try:
...     ek.debugging.assert_less(x, [4, 4, 3], message="x too large")
... except ek.errors.InvalidArgumentError as exc:
...     print(exc.message)
x too large
Condition x < y did not hold.
Indices of first 1 different values:
[[2]]
Corresponding x values:
[3]
Corresponding y values:
[3]
First 3 elements of x:
[1 2 3]
First 3 elements of y:
[4 4 3]
"""

from __future__ import annotations

import sys

import numpy as np

from .config_optimizer import stripping_debug_ops
from .core import dtypes
from .core.dispatch import Primitive, defvjp, dispatch
from .core.errors import InvalidArgumentError
from .core.tensor import Tensor, convert_to_tensor, to_tensor
from .numerics_check import disable_check_numerics, enable_check_numerics
from .ops import array_ops
from .ops import elementwise as _ew
from .ops import reduction as _reduction
from .ops.graph_compat import inside_function
from .placement_log import get_log_device_placement, set_log_device_placement
from .traceback_utils import (
    disable_traceback_filtering,
    enable_traceback_filtering,
    is_traceback_filtering_enabled,
)

__all__ = [
    "Assert",
    "assert_all_finite",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_integer",
    "assert_less",
    "assert_less_equal",
    "assert_near",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "assert_proper_iterable",
    "assert_rank",
    "assert_rank_at_least",
    "assert_rank_in",
    "assert_same_float_dtype",
    "assert_scalar",
    "assert_shapes",
    "assert_type",
    "check_numerics",
    "disable_check_numerics",
    "disable_traceback_filtering",
    "enable_check_numerics",
    "enable_traceback_filtering",
    "get_log_device_placement",
    "is_numeric_tensor",
    "is_traceback_filtering_enabled",
    "set_log_device_placement",
]

# -- check_numerics: an op, differentiable --------------------------------------------------------

_GRADIENT_MESSAGE = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def _check_numerics_fwd(xp, x, message):
    if not bool(xp.isfinite(x).all()):
        nan, inf = bool(xp.isnan(x).any()), bool(xp.isinf(x).any())
        what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
        raise InvalidArgumentError(None, "CheckNumerics", f"{message} : Tensor had {what} values")
    return x


# `checks`: a graph function runs it even when its result is unused, as TF's stateful op.
_check_numerics = Primitive("CheckNumerics", _check_numerics_fwd, checks=True)
# TensorFlow's gradient checks the cotangent too, with its own message.
defvjp(_check_numerics, lambda g, ans, x, message: check_numerics(g, _GRADIENT_MESSAGE + message))


def check_numerics(tensor, message, name=None) -> Tensor:
    """Returns ``tensor`` unchanged if it holds no NaN or Inf (follows
    `tf.debugging.check_numerics`).

    An op on the tape: its gradient is the incoming gradient, itself checked (a NaN or Inf
    there raises "Not a number (NaN) or infinity (Inf) values detected in gradient. <message>
    : Tensor had NaN values").

    Args:
        tensor: a floating tensor (float16/32/64) of any shape.
        message: text that starts the error message.

    Returns:
        A tensor with ``tensor``'s value, shape, dtype and device.

    Raises:
        InvalidArgumentError: ``"<message> : Tensor had NaN values"`` (or ``Inf values``, or
            ``Inf and NaN values``).
        TypeError: a non-floating tensor.

    >>> ek.debugging.check_numerics(ek.constant([1.0, 2.0]), "ok").numpy()
    array([1., 2.], dtype=float32)
    >>> try:
    ...     ek.debugging.check_numerics(ek.constant([0.0, np.nan]), "after log")
    ... except ek.errors.InvalidArgumentError as exc:
    ...     print(exc)
    after log : Tensor had NaN values
    """
    x = to_tensor(tensor, None, "check_numerics")
    if x._value.dtype.kind != "f":
        raise TypeError(
            f"check_numerics: tensor must be float16, float32 or float64, got {x.dtype.name}."
        )
    if stripping_debug_ops() and inside_function():
        # ``tf.config.optimizer`` debug_stripper: Grappler makes it an Identity in graphs.
        return array_ops.identity(x)
    return dispatch(_check_numerics, (x,), {"message": str(message)})


def assert_all_finite(x, message, name=None) -> Tensor:
    """Returns ``x`` if it holds no NaN or Inf, else raises InvalidArgumentError (follows
    `tf.debugging.assert_all_finite`; the same op as `check_numerics`).

    >>> float(ek.debugging.assert_all_finite(ek.constant(1.0), "loss"))
    1.0
    """
    return check_numerics(x, message)


# -- elementwise comparisons --------------------------------------------------------------------


def _prefix(message) -> str:
    return f"{message}.  " if message else ""


def _summarize(summarize) -> int:
    if summarize is None:
        return 3
    return sys.maxsize if summarize < 0 else int(summarize)


def _pretty(item, summarize: int) -> str:
    """One line of an assertion message: a tensor's first entries, or ``str(item)``."""
    if isinstance(item, Tensor):
        arr = item.numpy()
        if np.isscalar(arr) or np.ndim(arr) == 0:
            return str(arr)
        flat = arr.reshape(-1)
        shown = [str(v) for v in flat[:summarize]]
        return str([*shown, "..."] if len(shown) < flat.size else shown)
    return str(item)


def _numeric(x: Tensor, op: str, kinds: str = "iufc") -> None:
    if x._value.dtype.kind not in kinds:
        what = "numeric" if kinds == "iufc" else "numeric, bool or string"
        raise TypeError(f"{op}: x must be a {what} tensor, got {x.dtype.name}.")


def _default_data(sym: str, x: Tensor, y: Tensor, test, summarize: int) -> list:
    """TensorFlow's eager message: the failing entries, then the first entries of x and y."""
    data = [f"Condition x {sym} y did not hold."]
    if summarize <= 0:
        return data
    xv, yv = x.numpy(), y.numpy()
    if xv.shape == yv.shape and xv.ndim:
        bad = ~np.asarray(test)
        indices = np.argwhere(bad)
        n = min(summarize, indices.shape[0])
        data += [f"Indices of first {n} different values:", indices[:n]]
        data += ["Corresponding x values:", xv[bad].reshape(-1)[:n]]
        data += ["Corresponding y values:", yv[bad].reshape(-1)[:n]]
    xf, yf = np.reshape(xv, -1), np.reshape(yv, -1)
    data += [f"First {min(xf.size, summarize)} elements of x:", xf[:summarize]]
    data += [f"First {min(yf.size, summarize)} elements of y:", yf[:summarize]]
    return data


def _binary_assert(sym, op, compare, x, y, message, summarize, data=None, kinds="iufc") -> None:
    x = to_tensor(x, None, op)
    y = to_tensor(y, x._value.dtype, op)  # Python numbers take x's dtype
    _numeric(x, op, kinds)
    try:
        test = compare(x, y)
    except TypeError:  # different dtypes (DTypeMismatchError, also a ValueError): as it is
        raise
    except ValueError:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: x and y must broadcast to one shape, got x: {tuple(x.shape)} and y: "
            f"{tuple(y.shape)}.",
        ) from None
    # The test as a Tensor's truth (a guard in a graph function, which then checks the values
    # of every call, as TensorFlow's Assert op does), not a read of the array.
    if bool(_reduction.reduce_all(test)):
        return None
    summarize = _summarize(summarize)
    if data is None:
        data = _default_data(sym, x, y, test.numpy(), summarize)
        if message is not None:
            data = [message, *data]
    raise InvalidArgumentError(None, op, "\n".join(_pretty(d, summarize) for d in data))


def assert_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x == y`` elementwise, broadcasting (follows `tf.debugging.assert_equal`).

    Args:
        x, y: numeric, bool or string tensors of one dtype (Python values take the other's
            dtype) whose shapes broadcast; empty tensors pass.
        message: prefixed to the error message.
        summarize: how many entries the message shows (default 3; negative: all).

    Raises:
        InvalidArgumentError: an element differs (the message names the first ones and their
            indices), or the shapes do not broadcast.
        TypeError: different dtypes, or a tensor of another dtype (a variant).

    >>> ek.debugging.assert_equal(ek.constant([1, 2]), [1, 2])
    >>> ek.debugging.assert_equal(ek.constant(["a", "b"]), ["a", "b"])
    """
    if x is y:
        return None
    op = "assert_equal"
    return _binary_assert("==", op, _ew.equal, x, y, message, summarize, kinds="iufcbO")


def assert_none_equal(x, y, summarize=None, message=None, name=None) -> None:
    """Asserts ``x != y`` for every pair of elements (follows `tf.debugging.assert_none_equal`;
    note TensorFlow's argument order, ``summarize`` before ``message``). Errors as
    `assert_equal`.

    >>> ek.debugging.assert_none_equal(ek.constant([1, 2]), 0)
    """
    op = "assert_none_equal"
    return _binary_assert("!=", op, _ew.not_equal, x, y, message, summarize, kinds="iufcbO")


def assert_less(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x < y`` elementwise (follows `tf.debugging.assert_less`; errors as
    `assert_equal`).

    >>> ek.debugging.assert_less(ek.constant([1.0, 2.0]), 3.0)
    """
    return _binary_assert("<", "assert_less", _ew.less, x, y, message, summarize)


def assert_less_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x <= y`` elementwise (follows `tf.debugging.assert_less_equal`; errors as
    `assert_equal`).

    >>> ek.debugging.assert_less_equal(ek.constant([1, 3]), 3)
    """
    return _binary_assert("<=", "assert_less_equal", _ew.less_equal, x, y, message, summarize)


def assert_greater(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x > y`` elementwise (follows `tf.debugging.assert_greater`; errors as
    `assert_equal`).

    >>> ek.debugging.assert_greater(ek.constant([2, 3]), 1)
    """
    return _binary_assert(">", "assert_greater", _ew.greater, x, y, message, summarize)


def assert_greater_equal(x, y, message=None, summarize=None, name=None) -> None:
    """Asserts ``x >= y`` elementwise (follows `tf.debugging.assert_greater_equal`; errors as
    `assert_equal`).

    >>> ek.debugging.assert_greater_equal(ek.constant([1, 3]), 1)
    """
    op = "assert_greater_equal"
    return _binary_assert(">=", op, _ew.greater_equal, x, y, message, summarize)


def _sign_assert(sym, op, compare, x, message, summarize, zero_first) -> None:
    x = to_tensor(x, None, op)
    _numeric(x, op)
    zero = to_tensor(0, x._value.dtype, op, x._device)
    data = [
        f"Condition x {sym} did not hold element-wise:",
        f"x (shape={x.shape} dtype={x.dtype.name}) = ",
        x,
    ]
    if message:
        data.insert(0, _prefix(message))
    a, b = (zero, x) if zero_first else (x, zero)
    return _binary_assert(sym, op, compare, a, b, None, summarize, data)


def assert_positive(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x > 0`` elementwise (follows `tf.debugging.assert_positive`).

    Args:
        x: a numeric tensor; empty tensors pass.

    Raises:
        InvalidArgumentError: an element is not positive (the message shows ``x``'s shape,
            dtype and first ``summarize`` entries). TypeError: a non-numeric tensor.

    >>> try:
    ...     ek.debugging.assert_positive(ek.constant([1, -2, 3]))
    ... except ek.errors.InvalidArgumentError as exc:
    ...     print(exc)
    Condition x > 0 did not hold element-wise:
    x (shape=(3,) dtype=int32) =
    ['1', '-2', '3']
    """
    return _sign_assert("> 0", "assert_positive", _ew.less, x, message, summarize, True)


def assert_negative(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x < 0`` elementwise (follows `tf.debugging.assert_negative`; errors as
    `assert_positive`).

    >>> ek.debugging.assert_negative(ek.constant([-1.0]))
    """
    return _sign_assert("< 0", "assert_negative", _ew.less, x, message, summarize, False)


def assert_non_negative(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x >= 0`` elementwise (follows `tf.debugging.assert_non_negative`; errors as
    `assert_positive`).

    >>> ek.debugging.assert_non_negative(ek.constant([0, 1]))
    """
    op = "assert_non_negative"
    return _sign_assert(">= 0", op, _ew.less_equal, x, message, summarize, True)


def assert_non_positive(x, message=None, summarize=None, name=None) -> None:
    """Asserts ``x <= 0`` elementwise (follows `tf.debugging.assert_non_positive`; errors as
    `assert_positive`).

    >>> ek.debugging.assert_non_positive(ek.constant([0, -1]))
    """
    op = "assert_non_positive"
    return _sign_assert("<= 0", op, _ew.less_equal, x, message, summarize, False)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None) -> None:
    """Asserts ``|x - y| < atol + rtol * |y|`` elementwise (follows `tf.debugging.assert_near`).

    The comparison is strict, as TensorFlow's kernel; the default tolerances are
    ``10 * eps`` of ``x``'s dtype (about 1.2e-6 for float32, 2.2e-15 for float64).

    Args:
        x: a floating or complex tensor. y: converted to ``x``'s dtype.
        rtol, atol: relative and absolute tolerances (non-negative numbers or tensors).

    Raises:
        InvalidArgumentError: some element is not near (the message shows both tensors).
        TypeError: non-floating ``x``, or ``y`` of another dtype.

    >>> ek.debugging.assert_near(ek.constant([1.0, 2.0]), [1.0, 2.0 + 1e-7])
    """
    op = "assert_near"
    x = to_tensor(x, None, op)
    if x._value.dtype.kind not in "fc":
        raise TypeError(f"{op}: x must be a floating or complex tensor, got {x.dtype.name}.")
    y = convert_to_tensor(y, dtype=x.dtype)
    real = np.finfo(x._value.dtype).dtype  # complex64 -> float32
    eps = float(np.finfo(real).eps)
    rtol = to_tensor(10 * eps if rtol is None else rtol, real, op, x._device)
    atol = to_tensor(10 * eps if atol is None else atol, real, op, x._device)
    try:
        holds = bool(np.all(_ew.less(_ew.abs(x - y), atol + rtol * _ew.abs(y)).numpy()))
    except ValueError:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: x and y must broadcast to one shape, got x: {tuple(x.shape)} and y: "
            f"{tuple(y.shape)}.",
        ) from None
    if holds:
        return None
    data = [
        f"x and y not equal to tolerance rtol = {rtol.numpy()}, atol = {atol.numpy()}",
        f"x (shape={x.shape} dtype={x.dtype.name}) = ",
        x,
        f"y (shape={y.shape} dtype={y.dtype.name}) = ",
        y,
    ]
    return Assert(False, [_prefix(message), *data] if message else data, summarize)


# -- Assert ---------------------------------------------------------------------------------------


def _summarize_item(item, summarize) -> str:
    """TensorFlow's eager ``Assert`` rendering: ``"1, 2, 3, ..."``; strings as they are."""
    if isinstance(item, (str, bytes)):
        return item.decode() if isinstance(item, bytes) else item
    arr = np.asarray(to_tensor(item, None, "Assert").numpy())
    n = arr.size if summarize is not None and summarize < 0 else _summarize(summarize)
    if arr.ndim == 0:
        return str(arr) if n else ""
    flat = arr.reshape(-1)
    shown = [str(v) for v in flat[:n]]
    return ", ".join([*shown, "..."] if len(shown) < flat.size else shown)


def Assert(condition, data, summarize=None, name=None) -> None:
    """Raises InvalidArgumentError if ``condition`` is false (follows `tf.debugging.Assert`).

    Args:
        condition: a Python bool or a one-element bool tensor.
        data: a list of tensors (or numbers, or strings) to show when it fails.
        summarize: entries shown per tensor (default 3; negative: all).

    Raises:
        InvalidArgumentError: ``"Expected '<condition>' to be true. Summarized data: ..."``,
            one line per ``data`` item (strings shown as they are, where TensorFlow shows
            them as ``b'...'`` bytes).

    >>> x = ek.constant([1.0, -2.0, 3.0, 4.0])
    >>> try:
    ...     ek.debugging.Assert(ek.reduce_all(x > 0), ["x must be positive:", x])
    ... except ek.errors.InvalidArgumentError as exc:
    ...     print(exc)
    Expected 'Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: x must be positive:
    1.0, -2.0, 3.0, ...
    """
    if condition:
        return None
    lines = "\n".join(_summarize_item(d, summarize) for d in data)
    raise InvalidArgumentError(
        None, "Assert", f"Expected '{condition!s}' to be true. Summarized data: {lines}"
    )


# -- ranks and shapes -----------------------------------------------------------------------------


def _rank_value(rank, op: str) -> int:
    """A rank argument: a scalar int32 (TensorFlow asserts its type; numbers are int32)."""
    r = to_tensor(rank, None, op)
    if r._value.dtype != np.int32:
        raise TypeError(f"{op}: rank must be of type ek.int32; got {r.dtype!r}.")
    if r._value.ndim:
        raise ValueError("Rank must be a scalar.")
    return int(r.numpy())


def assert_rank(x, rank, message=None, name=None) -> None:
    """Asserts that ``x`` has rank ``rank`` (follows `tf.debugging.assert_rank`).

    Raises:
        ValueError: another rank (TensorFlow's static check: every rank is known eagerly),
            or a non-scalar ``rank``. TypeError: ``rank`` not int32.

    >>> ek.debugging.assert_rank(ek.zeros((2, 3)), 2)
    >>> try:
    ...     ek.debugging.assert_rank(ek.zeros(3), 2)
    ... except ValueError as exc:
    ...     print(exc)
    Tensor must have rank 2.  Received rank 1, shape (3,)
    """
    x = to_tensor(x, None, "assert_rank")
    r = _rank_value(rank, "assert_rank")
    if x.ndim != r:
        raise ValueError(
            f"{_prefix(message)}Tensor must have rank {r}.  Received rank {x.ndim}, shape {x.shape}"
        )


def assert_rank_at_least(x, rank, message=None, name=None) -> None:
    """Asserts that ``x`` has rank ``rank`` or more (follows
    `tf.debugging.assert_rank_at_least`; errors as `assert_rank`).

    >>> ek.debugging.assert_rank_at_least(ek.zeros((2, 3)), 1)
    """
    x = to_tensor(x, None, "assert_rank_at_least")
    r = _rank_value(rank, "assert_rank_at_least")
    if x.ndim < r:
        raise ValueError(
            f"{_prefix(message)}Tensor must have rank at least {r}.  Received rank {x.ndim}, "
            f"shape {x.shape}"
        )


def assert_rank_in(x, ranks, message=None, name=None) -> None:
    """Asserts that the rank of ``x`` is one of ``ranks`` (follows
    `tf.debugging.assert_rank_in`; errors as `assert_rank`).

    >>> ek.debugging.assert_rank_in(ek.zeros((2, 3)), (1, 2))
    """
    x = to_tensor(x, None, "assert_rank_in")
    allowed = tuple(_rank_value(r, "assert_rank_in") for r in ranks)
    if x.ndim not in allowed:
        raise ValueError(
            f"{_prefix(message)}Tensor must have rank in {allowed}.  Received rank {x.ndim}, "
            f"shape {x.shape}"
        )


def _describe(x: Tensor) -> str:
    return f"shape={x.shape} dtype={x.dtype.name}"


def _known(size) -> bool:
    """A size given as a number (or a string of digits, as TensorFlow parses it)."""
    if size is None:
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None) -> None:
    """Asserts shapes and the relations between their dimensions (follows
    `tf.debugging.assert_shapes`).

    Args:
        shapes: a list of ``(tensor, shape)`` pairs (or a dict). A shape is an iterable of
            sizes: an int is that size; a name (``"N"``) is the same size wherever it appears,
            in any tensor; None or ``"."`` is any size. A first entry ``...`` or ``"*"``
            allows any number of leading dimensions. Scalars count as shape ``(1,)``. A shape
            of None skips its tensor.
        data, summarize: accepted for TensorFlow's signature (every check is static here).
        message: prefixed to the error message.

    Raises:
        ValueError: a rank or a size that does not match, naming the tensor (its shape and
            dtype), the dimension, the expected and the received size.

    >>> x, y = ek.zeros((10, 3)), ek.zeros((10, 7))
    >>> ek.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N", "D")), (1.0, ())])
    >>> try:
    ...     ek.debugging.assert_shapes([(x, ("N", "D")), (y, ("N", "D"))])
    ... except ValueError as exc:
    ...     print(exc)
    Specified by tensor shape=(10, 3) dtype=float32 dimension 1.  Tensor shape=(10, 7)
    dtype=float32 dimension 1 must have size 3.  Received size 7, shape (10, 7)
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = _prefix(message)
    checks = []
    for x, symbolic in shapes:
        if symbolic is None:
            continue
        x = to_tensor(x, None, "assert_shapes")
        if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
            raise ValueError(
                f"{prefix}Tensor {_describe(x)}.  Specified shape must be an iterable.  An "
                "iterable has the attribute `__iter__` or `__getitem__`.  Received specified "
                f"shape: {symbolic}"
            )
        symbols = tuple(symbolic)
        inner = False
        for i, s in enumerate(symbols):
            if s is Ellipsis or (isinstance(s, str) and s == "*"):
                if i:
                    raise ValueError(
                        f"{prefix}Tensor {_describe(x)} specified shape index {i}.  Symbol "
                        "`...` or `*` for a variable number of unspecified dimensions is only "
                        "allowed as the first entry"
                    )
                inner = True
        symbols = symbols[1:] if inner else symbols
        checks.append((x, inner, symbols or (1,)))
    for x, inner, symbols in checks:
        n = len(symbols)
        if inner:
            if n > 1:
                assert_rank_at_least(x, n, message)
        elif n == 1:
            assert_rank_in(x, (0, 1), message)
        else:
            assert_rank(x, n, message)
    seen: dict = {}
    for x, inner, symbols in checks:
        actual = tuple(x.shape) or (1,)
        for i, s in enumerate(symbols):
            if s is None or (isinstance(s, str) and s == "."):
                continue
            dim = i - len(symbols) if inner else i
            if _known(s):
                expected, why = int(s), "Specified explicitly"
            elif s in seen:
                expected, by, at = seen[s]
                why = f"Specified by tensor {_describe(by)} dimension {at}"
            else:
                seen[s] = (actual[dim], x, dim)
                continue
            if actual[dim] != expected:
                raise ValueError(
                    f"{prefix}{why}.  Tensor {_describe(x)} dimension {dim} must have size "
                    f"{expected}.  Received size {actual[dim]}, shape {x.shape}"
                )


def assert_scalar(tensor, message=None, name=None) -> Tensor:
    """Returns ``tensor`` if it is a scalar (follows `tf.debugging.assert_scalar`).

    Raises:
        ValueError: ``"Expected scalar shape, saw shape: (2,)."``

    >>> int(ek.debugging.assert_scalar(ek.constant(3)))
    3
    """
    t = to_tensor(tensor, None, "assert_scalar")
    if t.ndim:
        raise ValueError(f"{_prefix(message)}Expected scalar shape, saw shape: {t.shape}.")
    return t


# -- dtypes ---------------------------------------------------------------------------------------


def assert_type(tensor, tf_type, message=None, name=None) -> None:
    """Asserts that ``tensor`` has dtype ``tf_type`` (follows `tf.debugging.assert_type`).

    Args:
        tensor: a Tensor, Variable, SparseTensor or RaggedTensor (their values' dtype), or a
            value converted to a Tensor.

    Raises:
        TypeError: another dtype (``"tensor must be of type ek.float32; got ek.int32"``; a
            Variable is named by its name).

    >>> ek.debugging.assert_type(ek.constant(1.0), ek.float32)
    >>> ek.debugging.assert_type(ek.sparse.SparseTensor([[0, 0]], [1], [3, 4]), ek.int32)
    """
    want = dtypes.as_dtype(tf_type)
    composite = not isinstance(tensor, Tensor) and isinstance(
        getattr(tensor, "dtype", None), dtypes.DType
    )  # SparseTensor, RaggedTensor, IndexedSlices: checked by their dtype, as TensorFlow's
    t = tensor if composite else to_tensor(tensor, None, "assert_type")
    if t.dtype != want:
        who = "tensor" if composite else getattr(t, "name", "tensor")
        raise TypeError(f"{_prefix(message)}{who} must be of type {want!r}; got {t.dtype!r}")


def assert_integer(x, message=None, name=None) -> None:
    """Asserts that ``x`` has an integer dtype (follows `tf.debugging.assert_integer`).

    Raises:
        TypeError: a non-integer dtype (bool and floats included).

    >>> ek.debugging.assert_integer(ek.constant([1, 2]))
    """
    t = to_tensor(x, None, "assert_integer")
    if t._value.dtype.kind not in "iu":
        raise TypeError(
            f'{_prefix(message)}Expected "x" to be integer type.  Found: tensor of dtype '
            f"{t.dtype!r}"
        )


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of ``tensors`` (and ``dtype``), float32 if none is given
    (follows `tf.debugging.assert_same_float_dtype`).

    Raises:
        ValueError: tensors of different dtypes, or a non-floating dtype.

    >>> ek.debugging.assert_same_float_dtype([ek.zeros(2), ek.ones(3)])
    ek.float32
    """
    expected = None if dtype is None else dtypes.as_dtype(dtype)
    for i, t in enumerate(tensors or ()):
        if t is None:
            continue
        got = to_tensor(t, None, "assert_same_float_dtype").dtype
        if expected is None:
            expected = got
        elif got != expected:
            raise ValueError(
                f"assert_same_float_dtype: tensors[{i}] has dtype {got!r}, but must be of "
                f"type {expected!r}."
            )
    if expected is None:
        return dtypes.float32
    if not expected.is_floating:
        raise ValueError(f"Expected floating point type, got {expected!r}.")
    return expected


def is_numeric_tensor(tensor) -> bool:
    """True if ``tensor`` is a Tensor (or Variable) of a numeric dtype: integers, floats or
    complex, not bool (follows `tf.debugging.is_numeric_tensor`).

    >>> ek.debugging.is_numeric_tensor(ek.constant(1)), ek.debugging.is_numeric_tensor(1)
    (True, False)
    """
    return isinstance(tensor, Tensor) and tensor._value.dtype.kind in "iufc"


def assert_proper_iterable(values) -> None:
    """Raises TypeError unless ``values`` is an iterable other than a Tensor, a NumPy array,
    a string or bytes (follows `tf.debugging.assert_proper_iterable`).

    >>> ek.debugging.assert_proper_iterable([ek.constant(1)])
    """
    if isinstance(values, (Tensor, np.ndarray, str, bytes)):
        raise TypeError(
            f'Expected argument "values" to be a "proper" iterable.  Found: {type(values)}'
        )
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')
