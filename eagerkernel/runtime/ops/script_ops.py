"""Python functions as ops: `py_function` and `numpy_function` (follow `tf.py_function` and
`tf.numpy_function`).

`py_function` calls the function on eager Tensors, so the ops it runs are dispatched and
recorded like any others and a `GradientTape` differentiates through it, as TensorFlow's
does. `numpy_function` hands the function NumPy arrays and is one op without a gradient
(``PyFunc``), run by the dispatcher so tapes and profilers see it.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp, dispatch, stateful
from ..core.errors import (
    InvalidArgumentError,
    OpError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
    UnknownError,
)
from ..core.string_values import is_string_value, to_bytes_array
from ..core.tensor import Tensor, convert_to_tensor, to_tensor

__all__ = ["numpy_function", "py_function"]


def _tout(Tout, op: str):
    """``(list of DTypes, single)``: ``single`` when ``Tout`` is one dtype, not a list."""
    if isinstance(Tout, (list, tuple)):
        return [dtypes.as_dtype(t) for t in Tout], False
    if Tout is None:
        raise TypeError(f"{op}: Tout must be a dtype or a list of dtypes, got None.")
    return [dtypes.as_dtype(Tout)], True


def _inputs(inp, op: str) -> list:
    if inp is None:
        return []
    if not isinstance(inp, (list, tuple)):
        inp = [inp]
    return [x if isinstance(x, Tensor) else to_tensor(x, None, op) for x in inp]


def _as_error(exc: Exception, op: str) -> OpError:
    """TensorFlow's mapping of a Python exception raised inside the function to an op error."""
    if isinstance(exc, OpError):
        return exc
    if isinstance(exc, (ValueError, TypeError)):
        cls = InvalidArgumentError
    elif isinstance(exc, (StopIteration, IndexError)):
        cls = OutOfRangeError
    elif isinstance(exc, MemoryError):
        cls = ResourceExhaustedError
    elif isinstance(exc, NotImplementedError):
        cls = UnimplementedError
    else:
        cls = UnknownError
    return cls(None, op, f"{op}: {type(exc).__name__}: {exc}")


def py_function(func=None, inp=None, Tout=None, name=None):
    """Calls ``func(*inp)`` on eager Tensors and converts what it returns to ``Tout``
    (follows `tf.py_function`). Differentiable: the ops ``func`` runs are recorded on the
    active tapes.

    Args:
        func: a Python function of Tensors returning a value per entry of ``Tout`` (a list if
            ``Tout`` is a list; None if it is the empty list).
        inp: a list of inputs (Tensors or values convertible to them).
        Tout: a dtype (one output, returned as a Tensor) or a list of dtypes (a list).

    Without ``func`` and ``inp`` it is a decorator (``@ek.py_function(Tout=ek.float32)``),
    as in TensorFlow 2.

    Raises:
        InvalidArgumentError: ``func`` returned a tensor of another dtype, or raised
            ValueError/TypeError; other exceptions of ``func`` become TensorFlow's op errors
            (UnknownError for most), with the original as their cause.

    >>> x = ek.constant(3.0)
    >>> with ek.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = ek.py_function(lambda a: a * a, [x], ek.float32)
    >>> float(y), float(tape.gradient(y, x))
    (9.0, 6.0)
    """
    op = "py_function"
    if func is None and inp is None:  # the decorator form: @ek.py_function(Tout=...)
        _tout(Tout, op)

        def decorator(f):
            @functools.wraps(f)
            def wrapper(*args):
                return py_function(f, list(args), Tout, name)

            return wrapper

        return decorator
    if func is None or not callable(func):
        raise TypeError(f"{op}: func must be callable. Received: func={func!r:.60}")
    outs, single = _tout(Tout, op)
    args = _inputs(inp, op)
    try:
        result = func(*args)
        if single:
            return _convert(result, outs[0], op)
        if not outs:
            return []
        if not isinstance(result, (list, tuple)):
            result = [result]
        if len(result) != len(outs):
            raise ValueError(f"func returned {len(result)} values for {len(outs)} in Tout")
        return [_convert(v, dt, op) for v, dt in zip(result, outs)]
    except Exception as exc:
        raise _as_error(exc, op) from exc


def _convert(value, dt, op):
    if isinstance(value, Tensor):
        if value.dtype != dt:
            raise ValueError(
                f"Tensor conversion requested dtype {dt.name} for Tensor with dtype "
                f"{value.dtype.name}"
            )
        return value if type(value) is Tensor else convert_to_tensor(value)
    return convert_to_tensor(value, dtype=dt)


# -- numpy_function -------------------------------------------------------------------------------


def _as_output(value, dt, i: int):
    if dt == dtypes.string:
        if isinstance(value, np.ndarray) and value.dtype == object:
            return to_bytes_array(value, "numpy_function")
        if is_string_value(value) or isinstance(value, (str, bytes)):
            return to_bytes_array(value, "numpy_function")
    arr = np.asarray(value)
    target = np.dtype(dt.as_numpy_dtype)
    if arr.dtype == target:
        return arr
    if not isinstance(value, (np.ndarray, np.generic)):  # Python values take Tout
        return convert_to_tensor(value, dtype=dt)._value
    raise InvalidArgumentError(
        None,
        "PyFunc",
        f"numpy_function: {i}-th value returned by the function is {arr.dtype}, but Tout "
        f"says {dt.name}.",
    )


def _pyfunc_fwd(xp, *arrays, func, touts, single):
    result = func(*[np.asarray(a) for a in arrays])
    if single:
        return _scalar(_as_output(result, touts[0], 0))
    if not isinstance(result, (list, tuple)):
        result = [result]
    if len(result) != len(touts):
        raise InvalidArgumentError(
            None,
            "PyFunc",
            f"numpy_function: the function returned {len(result)} values, Tout has {len(touts)}.",
        )
    return tuple(_scalar(_as_output(v, dt, i)) for i, (v, dt) in enumerate(zip(result, touts)))


def _scalar(a):
    """Rank-0 numbers as NumPy scalars, as other ops make them (strings stay 0-d arrays)."""
    return a[()] if a.ndim == 0 and a.dtype.kind != "O" else a


_pyfunc = Primitive("PyFunc", _pyfunc_fwd)
_pyfunc_multi = Primitive("PyFunc", _pyfunc_fwd, n_out=0)
defvjp(_pyfunc)  # no input has a gradient (TensorFlow: numpy_function is not differentiable)
defvjp(_pyfunc_multi)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Calls ``func`` on the inputs as NumPy arrays and wraps what it returns as Tensors of
    ``Tout`` (follows `tf.numpy_function`). Not differentiable (gradients are None). String
    inputs arrive as object arrays of bytes.

    Args:
        stateful: accepted; every call runs the function (eager execution never merges or
            skips calls), which is what True promises and False permits.

    Without ``func`` and ``inp`` it is a decorator (``@ek.numpy_function(Tout=ek.float32)``,
    as in the actor-critic tutorial), as in TensorFlow 2.

    Raises:
        InvalidArgumentError: a returned NumPy array whose dtype differs from ``Tout``.
        Exceptions raised by ``func`` propagate unchanged, as in TensorFlow's eager mode.

    >>> ek.numpy_function(lambda a: np.sort(a), [ek.constant([3, 1, 2])], ek.int32).numpy()
    array([1, 2, 3], dtype=int32)
    """
    op = "numpy_function"
    if func is None and inp is None:  # the decorator form: @ek.numpy_function(Tout=...)
        _tout(Tout, op)

        def decorator(f):
            @functools.wraps(f)
            def wrapper(*args):
                return numpy_function(f, list(args), Tout, stateful, name)

            return wrapper

        return decorator
    if func is None or not callable(func):
        raise TypeError(f"{op}: func must be callable. Received: func={func!r:.60}")
    return _numpy_call(func, inp, Tout)


@stateful(undoable=False)  # a graph function calls ``func`` again on every call (PyFunc)
def _numpy_call(func, inp, Tout):
    op = "numpy_function"
    outs, single = _tout(Tout, op)
    args = _inputs(inp, op)
    prim = _pyfunc if single else _pyfunc_multi
    params = {"func": func, "touts": tuple(outs), "single": single}
    if not args:  # nothing to dispatch on: run it directly
        out = _pyfunc_fwd(np, func=func, touts=tuple(outs), single=single)
        return to_tensor(out) if single else [to_tensor(o) for o in out]
    out = dispatch(prim, tuple(args), params)
    return out if single else list(out)
