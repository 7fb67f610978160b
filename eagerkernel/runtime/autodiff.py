"""Function-style differentiation and custom gradients.

`gradients_function`, `value_and_gradients_function`, `implicit_gradients` and
`implicit_value_and_gradients` follow `tf.contrib.eager` (TensorFlow 1.x eager), including its
return formats: lists of gradients, and ``(gradient, variable)`` pairs. Each is a thin layer
over `GradientTape`, so they compose: ``gradients_function(lambda x: df(x)[0])`` is the second
derivative.

`custom_gradient` follows `tf.custom_gradient`: the decorated function returns its output and
a ``grad_fn``; the ops inside it are not recorded, one op with ``grad_fn`` as its VJP is.
"""

from __future__ import annotations

import functools
import inspect

from . import nest
from .core.dispatch import Primitive, defjointvjp, defvjp, dispatch, record
from .core.tape import GradientTape, stop_recording
from .core.tensor import Tensor, convert_to_tensor, to_tensor

__all__ = [
    "custom_gradient",
    "gradients_function",
    "implicit_gradients",
    "implicit_value_and_gradients",
    "stop_gradient",
    "value_and_gradients_function",
]


def _param_indices(f, params, nargs: int) -> list[int]:
    if params is None:
        return list(range(nargs))
    names = None
    out = []
    for p in params:
        if isinstance(p, int):
            out.append(p)
            continue
        if names is None:
            names = list(inspect.signature(f).parameters)
        if p not in names:
            raise ValueError(f"gradients_function: {f.__name__} has no parameter {p!r}.")
        out.append(names.index(p))
    return out


def value_and_gradients_function(f, params=None):
    """Returns a function computing ``f``'s value and its gradients (follows `tfe`'s).

    Args:
        f: a function of tensors returning a tensor (non-scalar outputs are summed).
        params: indices or names of the arguments to differentiate; default all.

    Returns:
        ``g(*args) -> (value, [gradient per param])``; a gradient is None where ``f`` does not
        depend on the argument.

    >>> vg = ek.value_and_gradients_function(lambda x: x * x)
    >>> value, (grad,) = vg(3.0)
    >>> float(value), float(grad)
    (9.0, 6.0)
    """

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        idx = _param_indices(f, params, len(args))
        args = list(args)
        for i in idx:
            if i >= len(args):
                raise ValueError(
                    f"gradients_function: parameter {i} of {f.__name__} was not passed "
                    f"({len(args)} positional arguments given)."
                )
            args[i] = convert_to_tensor(args[i]) if not isinstance(args[i], Tensor) else args[i]
        with GradientTape() as tape:
            for i in idx:
                tape.watch(args[i])
            value = f(*args, **kwargs)
        if value is None:
            raise ValueError(f"gradients_function: {f.__name__} returned None.")
        value = to_tensor(value, None, "gradients_function")
        grads = tape.gradient(value, [args[i] for i in idx])
        return value, grads

    return decorated


def gradients_function(f, params=None):
    """Returns a function computing the gradients of ``f`` (follows `tfe.gradients_function`).

    Args:
        f: a function of tensors returning a tensor (non-scalar outputs are summed).
        params: indices or names of the arguments to differentiate; default all.

    Returns:
        ``g(*args) -> [gradient per param]``, None where ``f`` does not depend on it.

    >>> square = lambda x: x * x
    >>> df = ek.gradients_function(square)
    >>> d2f = ek.gradients_function(lambda x: df(x)[0])
    >>> d3f = ek.gradients_function(lambda x: d2f(x)[0])
    >>> float(df(3.0)[0]), float(d2f(3.0)[0]), d3f(3.0)
    (6.0, 2.0, [None])
    """
    vg = value_and_gradients_function(f, params)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return vg(*args, **kwargs)[1]

    return decorated


def implicit_value_and_gradients(f):
    """Returns ``g(*args) -> (value, [(gradient, variable)])`` over the trainable Variables
    that ``f`` reads (follows `tfe.implicit_value_and_gradients`).

    Raises:
        ValueError: if ``f`` reads no trainable Variable.
    """

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        with GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError(
                f"implicit_gradients: no trainable Variables were accessed while {f.__name__} "
                "was computed."
            )
        value = to_tensor(value, None, "implicit_gradients")
        grads = tape.gradient(value, list(variables))
        return value, list(zip(grads, variables))

    return decorated


def implicit_gradients(f):
    """Returns ``g(*args) -> [(gradient, variable)]`` for the trainable Variables ``f`` reads
    (follows `tfe.implicit_gradients`).

    >>> w = ek.Variable(2.0)
    >>> [(float(g), v.name) for g, v in ek.implicit_gradients(lambda x: w * x)(3.0)]
    [(3.0, 'Variable:0')]
    """
    vg = implicit_value_and_gradients(f)

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        return vg(*args, **kwargs)[1]

    return decorated


def stop_gradient(input, name=None) -> Tensor:
    """The same values, but no gradient flows through (follows `tf.stop_gradient`).

    The result is a new tensor that no tape tracks. It is an op of its own (TensorFlow's
    ``StopGradient``), with an array object of its own, so that a graph function's trace
    keeps it apart from its input: a replay under a tape must not differentiate through it.
    """
    x = to_tensor(input, None, "stop_gradient")
    return dispatch(_stop_gradient, (x,))


# A view, not the array itself: traces tell values apart by array identity.
_stop_gradient = Primitive("StopGradient", lambda xp, x: x.view())
defvjp(_stop_gradient, None)


def custom_gradient(f=None):
    """Decorator defining a function's gradient by hand (follows `tf.custom_gradient`).

    ``f(*x)`` must return ``(y, grad_fn)``: ``y`` a Tensor or a list/tuple of Tensors, and
    ``grad_fn(*dy)`` the cotangents of ``x`` (one per input) given those of ``y``. If ``f``
    reads trainable Variables, ``grad_fn`` must accept ``variables=`` and return
    ``(input_grads, variable_grads)``, one per variable in ``variables`` (the ones ``f`` read,
    in reading order).

    The ops run inside ``f`` are not recorded; one op whose VJP is ``grad_fn`` is. ``grad_fn``
    itself runs as ordinary ops, so it can be differentiated again.

    Raises:
        TypeError: if ``f`` reads variables and ``grad_fn`` has no ``variables`` argument.
        ValueError: if ``grad_fn`` returns the wrong number of cotangents.

    >>> @ek.custom_gradient
    ... def log1pexp(x):
    ...     e = ek.exp(x)
    ...     def grad(dy):
    ...         return dy * (1 - 1 / (1 + e))
    ...     return ek.math.log(1 + e), grad
    >>> x = ek.constant(100.0)
    >>> with ek.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = log1pexp(x)
    >>> float(tape.gradient(y, x))
    1.0
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        inputs = [
            to_tensor(a, None, "custom_gradient") if not isinstance(a, Tensor) else a for a in args
        ]
        watcher = GradientTape(watch_accessed_variables=True)
        with stop_recording(), watcher:
            result, grad_fn = f(*inputs, **kwargs)
        variables = list(watcher.watched_variables())
        watcher._release()
        multi = isinstance(result, (list, tuple))
        outs = tuple(to_tensor(r, None, "custom_gradient") for r in nest.flatten(result))
        takes_vars = "variables" in inspect.signature(grad_fn).parameters
        if variables and not takes_vars:
            raise TypeError(
                f"custom_gradient: {f.__name__} reads the trainable variables "
                f"{[v.name for v in variables]}, so its grad_fn must accept a `variables` "
                "keyword argument and return (input_grads, variable_grads)."
            )
        n_in = len(inputs)

        def vjp(g, ans, *xs):
            dys = g if type(g) is tuple else (g,)
            if takes_vars:
                in_grads, var_grads = grad_fn(*dys, variables=variables)
                in_grads, var_grads = list(nest.flatten(in_grads)), list(var_grads)
                if len(var_grads) != len(variables):
                    raise ValueError(
                        f"custom_gradient: grad_fn of {f.__name__} returned {len(var_grads)} "
                        f"variable gradients for {len(variables)} variables."
                    )
            else:
                in_grads, var_grads = grad_fn(*dys), []
                in_grads = list(in_grads) if isinstance(in_grads, (list, tuple)) else [in_grads]
            if len(in_grads) != n_in:
                raise ValueError(
                    f"custom_gradient: grad_fn of {f.__name__} returned {len(in_grads)} "
                    f"gradients for {n_in} inputs."
                )
            cots = [
                None if c is None else to_tensor(c, x._value.dtype, "custom_gradient")
                for c, x in zip(in_grads + var_grads, xs)
            ]
            return tuple(cots)

        prim = Primitive(f"CustomGradient:{f.__name__}", None, n_out=0 if multi else 1)
        defjointvjp(prim, vjp)
        output = outs if multi else outs[0]
        record(prim, (*inputs, *variables), output)
        return type(result)(outs) if multi else outs[0]

    return decorated
