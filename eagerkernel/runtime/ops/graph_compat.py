"""TensorFlow's graph-only names as TensorFlow runs them when eager execution is enabled:
`no_op`, `group`, `tuple`, `control_dependencies` (nothing to order: ops run in program
order), `gradients`/`hessians` (raise, as TensorFlow does eagerly), `guarantee_const`,
`parallel_stack`, `inside_function` and `is_symbolic_tensor`, and the gradient helpers
`recompute_grad` and `grad_pass_through`.
"""

from __future__ import annotations

import builtins
import contextlib

# `tuple` is public as `ek.tuple` (eagerkernel/__init__.py imports it by name), not in
# `__all__`, so that star-imports do not shadow the builtin.
__all__ = [
    "control_dependencies",
    "grad_pass_through",
    "gradients",
    "group",
    "guarantee_const",
    "hessians",
    "inside_function",
    "is_symbolic_tensor",
    "no_op",
    "parallel_stack",
    "recompute_grad",
]

_tuple = builtins.tuple  # `tuple` below is TensorFlow's op


# -- graph-only names, as TensorFlow runs them eagerly --------------------------------------


def no_op(name=None) -> None:
    """Does nothing and returns None, as `tf.no_op` does in eager mode."""
    return None


def group(*inputs, **kwargs) -> None:
    """Returns None, as `tf.group` does in eager mode (the ops in ``inputs`` already ran).

    Raises:
        TypeError: a keyword argument other than ``name`` (TensorFlow's check).
    """
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"group: Unknown keyword arguments: {', '.join(kwargs)}.")
    return None


def tuple(tensors, control_inputs=None, name=None):
    """Returns ``tensors`` as they are, as `tf.tuple` does in eager mode (every op has run).

    Raises:
        TypeError: ``control_inputs`` that is not a list or tuple.
    """
    if control_inputs is not None and not isinstance(control_inputs, (list, _tuple)):
        raise TypeError(
            f"tuple: 'control_inputs' must be a list or a tuple, got {type(control_inputs)}."
        )
    return tensors


def control_dependencies(control_inputs):
    """A context manager that does nothing, as `tf.control_dependencies` in eager mode: ops
    run in program order already. Callables in ``control_inputs`` are called first, as
    TensorFlow does eagerly; ``None`` means no dependencies.

    >>> with ek.control_dependencies([ek.no_op()]):
    ...     int(ek.constant(1) + 1)
    2
    """
    if control_inputs:
        for c in control_inputs:
            if callable(c):
                c()
    return contextlib.nullcontext()


_GRADIENTS_MESSAGE = (
    "tf.gradients is not supported when eager execution is enabled. Use tf.GradientTape instead."
)


def gradients(
    ys,
    xs,
    grad_ys=None,
    name="gradients",
    gate_gradients=False,
    aggregation_method=None,
    stop_gradients=None,
    unconnected_gradients=None,
):
    """Raises RuntimeError, as `tf.gradients` does when eager execution is enabled (always,
    here): use `ek.GradientTape`."""
    raise RuntimeError(_GRADIENTS_MESSAGE)


def hessians(ys, xs, gate_gradients=False, aggregation_method=None, name="hessians"):
    """Raises RuntimeError, as `tf.hessians` does when eager execution is enabled: use nested
    `ek.GradientTape`s (``tape.jacobian`` of a gradient)."""
    raise RuntimeError(_GRADIENTS_MESSAGE)


def recompute_grad(f):
    """Wraps ``f`` so that its intermediate values are not kept for the backward pass but
    computed again when the gradient is needed (follows `tf.recompute_grad`).

    The forward call runs ``f`` without recording it on any tape (so its intermediate
    tensors are freed at once); the backward pass runs ``f`` again on the same inputs under a
    tape and differentiates that. The gradients, to the inputs and to the trainable
    variables ``f`` reads, are those of ``f`` itself. ``f`` must be deterministic (a random
    op would draw different numbers the second time, as in TensorFlow).

    Args:
        f: a function of Tensors (positional; keyword arguments are passed through as
            constants) returning a Tensor or a list/tuple of Tensors.

    >>> g = ek.recompute_grad(lambda x: ek.sin(x) * x)
    >>> x = ek.constant(1.0)
    >>> with ek.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = g(x)
    >>> round(float(tape.gradient(y, x)), 6) == round(float(ek.cos(x) + ek.sin(x)), 6)
    True
    """
    from ..autodiff import custom_gradient
    from ..core.tape import GradientTape

    @custom_gradient
    def recomputed(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad(*dys, variables=None):
            variables = list(variables or [])
            with GradientTape(watch_accessed_variables=False) as tape:
                tape.watch(list(args) + variables)
                out = f(*args, **kwargs)
            multi = isinstance(out, (list, _tuple))
            grads = tape.gradient(
                out, list(args) + variables, output_gradients=list(dys) if multi else dys[0]
            )
            return grads[: len(args)], grads[len(args) :]

        return result, grad

    import functools

    return functools.wraps(f)(lambda *args, **kwargs: recomputed(*args, **kwargs))


def grad_pass_through(f):
    """Wraps ``f`` so that its gradient is the identity: the output's cotangent passes to the
    input unchanged (follows `tf.grad_pass_through`), e.g. a straight-through estimator for
    ``ek.round``. ``f`` takes and returns one Tensor per input (its outputs' cotangents are
    the inputs'); variables it reads get no gradient.

    >>> x = ek.constant(2.4)
    >>> with ek.GradientTape() as tape:
    ...     tape.watch(x)
    ...     y = ek.grad_pass_through(ek.round)(x) * 3.0
    >>> float(y), float(tape.gradient(y, x))
    (6.0, 3.0)
    """
    from ..autodiff import custom_gradient

    @custom_gradient
    def passed(*args, **kwargs):
        def grad(*dys, variables=None):
            return list(dys), [None] * len(variables or [])

        return f(*args, **kwargs), grad

    import functools

    return functools.wraps(f)(lambda *args, **kwargs: passed(*args, **kwargs))


def guarantee_const(input, name=None):
    """``input`` itself, promised constant (follows `tf.guarantee_const`, deprecated in
    TensorFlow: a hint to its graph optimizer, which has nothing to do eagerly)."""
    from ._core import tensor

    return tensor(input, "guarantee_const")


def inside_function() -> bool:
    """Whether this thread is tracing an `ek.function` (follows `tf.inside_function`): True
    in the Python body while it is traced, False eagerly (and when a traced program
    replays, which runs no Python).

    >>> ek.inside_function()
    False
    >>> ek.function(lambda: ek.inside_function())()
    <Tensor: shape=(), dtype=bool, numpy=True>
    """
    from ..function.tracing import tracing_keys

    return bool(tracing_keys())


def is_symbolic_tensor(tensor) -> bool:
    """Whether ``tensor`` is a symbolic (graph) tensor (follows `tf.is_symbolic_tensor`):
    False for every tensor here, as for TensorFlow's eager tensors: an `ek.function` traces
    by running its Python code on real tensors.

    >>> ek.is_symbolic_tensor(ek.constant(1.0))
    False
    """
    return False


def parallel_stack(values, name="parallel_stack"):
    """`stack` of tensors of one shape along a new first axis, inside an `ek.function`'s
    trace (follows `tf.parallel_stack`, which TensorFlow refuses eagerly).

    Raises:
        RuntimeError: called eagerly (TensorFlow's message).
    """
    if not inside_function():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")
    from .array_ops import stack

    return stack(values)
