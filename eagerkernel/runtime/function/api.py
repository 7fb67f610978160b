"""The public entry points of graph functions: `function` (the `tf.function` decorator),
`init_scope` and `print_` (``ek.print``, which prints on every call of a function too)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import trace_types as _trace_types
from ..core import context as _context
from ..core.dispatch import stateful
from ..core.tensor import Tensor
from ..core.tensor_format import format_array
from ..core.variable import Variable
from .autograph import check_features
from .concrete_function import ConcreteFunction
from .polymorphic_function import Function

__all__ = ["function", "init_scope", "print_"]

_ctx = _context.context()


class init_scope:
    """Context: the code inside runs once, while a graph function is traced, and is not part
    of its program (follows `tf.init_scope`, which lifts it out of the graph). Outside a
    trace it does nothing.

    >>> v = ek.Variable(0)
    >>> @ek.function
    ... def once():
    ...     with ek.init_scope():
    ...         v.assign_add(1)  # at trace time only
    ...     return v.read_value()
    >>> [int(once()) for _ in range(3)]
    [1, 1, 1]
    """

    def __enter__(self) -> init_scope:
        self._tracers = [r for r in _ctx.recorders if hasattr(r, "trace_call")]
        for tracer in self._tracers:
            _context.pop_recorder(tracer)
        return self

    def __exit__(self, *exc) -> None:
        for tracer in self._tracers:
            _context.push_recorder(tracer)


def function(
    func=None,
    input_signature=None,
    autograph: bool = True,
    jit_compile=None,
    reduce_retracing: bool = False,
    experimental_relax_shapes=None,
    experimental_compile=None,
    name: str | None = None,
    **kwargs,
):
    """Compiles ``func`` into a graph function: traced once per input signature, replayed
    afterwards (follows `tf.function`; decorator with or without arguments).

    Args:
        func: the Python function (or method: each instance gets its own traces).
        input_signature: a list of `TensorSpec` (nested as the arguments are), one per
            positional argument: calls are converted to and checked against it (TypeError
            "Binding inputs to tf.function ... failed" otherwise); ``None`` dimensions accept
            any size. `RaggedTensorSpec` and `SparseTensorSpec` accept RaggedTensors and
            SparseTensors of their dtype, rank and ragged rank.
        autograph: accepted (True or False): Python control flow on tensor values works
            without AutoGraph, through guards (see below). ``experimental_autograph_options``
            (`Feature` values) is accepted for the same reason; the other ``experimental_*``
            keywords of TensorFlow's signature take None or False only.
        jit_compile: None/False, or True: there is no XLA here; True compiles to the same
            program as always, with a warning.
        reduce_retracing (``experimental_relax_shapes``): accepted; programs are specialized
            on concrete shapes, so every new shape is traced once either way.

    A stateful op that returns a RaggedTensor or SparseTensor (``next`` on a Dataset of ragged
    elements) makes its signature run the Python code on every call: a trace cannot follow
    the component tensors read from it.

    A RaggedTensor (SparseTensor) argument is part of the signature by its row partition
    (indices and dense shape), its values are the program's inputs: calls with the same
    partition replay the program, a new partition is traced once, as a new shape is. A
    function that returns a RaggedTensor or SparseTensor runs its Python code on every call
    (the result is built around its values' ops, which a program cannot rebuild).

    What is traced and replayed: every primitive op (the VJPs of a tape inside too), every
    stateful op (``Variable.assign*``, ``optimizer.apply_gradients``, random draws, dropout
    masks, metric updates, `print`) and every guard: each place where a tensor's value
    becomes a Python value (``if x > 0``, ``int(n)``, ``.numpy()``). A replay checks each
    guard; when one differs, the call runs the Python function eagerly once more and records
    that branch, so results always equal the eager ones. Python side effects (``print``,
    appending to a list) happen while tracing only, as in TensorFlow; `ek.print` happens on
    every call. Creating a Variable is allowed on the first trace only (ValueError, with
    TensorFlow's message, on a later one). A first trace that created Variables runs the
    Python code once more, as TensorFlow traces such a function twice: a Variable created
    again raises then, on the first call; that run's stateful ops are not performed again
    (`VerifyingTracer`), its Python side effects are, and it counts as a trace. A call made
    while a tape (or ``%%tape``) records replays the program op by op through the
    dispatcher, inside a ``"function"`` scope (one row in ``%%tape``), so gradients through
    it are the eager ones, to any order; inside another function's trace, the Python code
    runs.

    Outputs: a Python number, string or NumPy value returned becomes a constant tensor, as
    TensorFlow converts a function's outputs. An object whose class defines
    ``__tf_tracing_type__`` enters the signature through the `ek.types.experimental.TraceType`
    it returns (equal trace types share a trace), as in TensorFlow. A tensor computed while
    tracing that escapes the function other than by being returned (a global, an attribute)
    raises TypeError ("out of scope") when a later trace captures it; a function that calls
    itself with its own input signature while being traced raises RecursionError (recursion
    on Python values traces a new signature per level and works).

    Differences from TensorFlow that follow from tracing on real values: an op that fails
    while tracing raises, even if nothing uses its output (TensorFlow prunes unused ops from
    the graph, so ``tf.gather(x, [1])`` out of range and unused raises nothing there);
    `ek.print` inside a function whose first trace created Variables prints during that
    trace (TensorFlow prints after both traces); a Python loop of many steps inside one
    function (``for x in dataset:`` around a training step, a graph loop in TensorFlow) is
    unrolled into the trace, and past `Tracer.MAX_OPS` ops or `Tracer.MAX_BYTES` of values
    the trace is given up with a warning and the signature runs eagerly; printing a tensor
    while tracing shows its value, not a symbolic tensor.

    Raises:
        TypeError: an ``input_signature`` that is not TensorSpecs, or an unknown argument.

    >>> @ek.function
    ... def f(x):
    ...     return x * x + 1.0 if x > 0 else -x
    >>> f(ek.constant(3.0)).numpy(), f(ek.constant(-2.0)).numpy(), f(ek.constant(5.0)).numpy()
    (np.float32(10.0), np.float32(2.0), np.float32(26.0))
    >>> f.experimental_get_tracing_count()  # one signature, two branches
    2
    """
    for key in kwargs:
        if key not in (
            "experimental_implements",
            "experimental_autograph_options",
            "experimental_attributes",
            "experimental_follow_type_hints",
        ):
            raise TypeError(f"function: unexpected keyword argument {key!r}.")
        if key == "experimental_autograph_options":  # nothing is converted: see autograph.py
            check_features(kwargs[key], "function: experimental_autograph_options")
            continue
        if kwargs[key] not in (None, False):
            raise NotImplementedError(f"function: {key}={kwargs[key]!r} is not supported.")
    if experimental_compile is not None and jit_compile is None:
        jit_compile = experimental_compile
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes)
    if jit_compile:
        warnings.warn(
            "function: jit_compile=True: there is no XLA in eagerkernel; the function is "
            "compiled to its replay program as always.",
            stacklevel=2,
        )

    def wrap(fn):
        if isinstance(fn, Function):
            return fn
        return Function(fn, name, input_signature, reduce_retracing, jit_compile)

    return wrap if func is None else wrap(func)


@stateful(undoable=False)
def print_(
    *inputs,
    output_stream=None,
    summarize: int | None = 3,
    sep: str = " ",
    end: str = "\n",
    name=None,
) -> None:
    """Prints tensors and Python values on every call, also inside `function` (follows
    `tf.print`).

    Tensors and variables show their values in TensorFlow's format (`core.tensor_format`:
    ``[2 4]``, ``0.333333343``, ``["a" "b"]``, at most ``summarize`` items at each end of each
    dimension); a scalar string tensor shows its raw text. Lists, tuples and dicts print as
    Python prints them with their tensors' values in place; other values as ``str`` does.

    Args:
        *inputs: what to print, joined by ``sep``.
        output_stream: a file-like object (default ``sys.stderr``), a logging function such as
            ``logging.info`` or ``tf.compat.v1.logging.info`` (called with the text), or a
            string ``"file://path"`` (the text is appended to that file).
        summarize: items shown at each end of each dimension; None for 3, -1 for all.
        sep, end: the separator between inputs and the text after the last one.
        name: accepted for TensorFlow's signature (there is no graph op to name).

    Raises:
        TypeError: ``summarize`` is not an int or None; ``sep`` or ``end`` is not a string;
            ``output_stream`` is none of the above.

    >>> import sys
    >>> ek.print("x:", ek.constant([1.0, 2.5]), {"n": ek.constant(3)}, output_stream=sys.stdout)
    x: [1 2.5] {'n': 3}
    """
    import sys

    if summarize is None:
        summarize = 3
    if isinstance(summarize, bool) or not isinstance(summarize, (int, np.integer)):
        raise TypeError(f"print: summarize must be an int or None, got {summarize!r}.")
    for arg, value in (("sep", sep), ("end", end)):
        if not isinstance(value, str):
            raise TypeError(f"print: {arg} must be a string, got {type(value).__name__}.")
    stream = sys.stderr if output_stream is None else output_stream
    if not (
        hasattr(stream, "write")
        or callable(stream)
        or (isinstance(stream, str) and stream.startswith("file://"))
    ):
        raise TypeError(
            "print: output_stream must be a file-like object, a logging function or a "
            f"'file://' path, got {stream!r}."
        )
    text = sep.join(_print_text(x, int(summarize)) for x in inputs)
    if hasattr(stream, "write"):
        stream.write(text + end)
    elif isinstance(stream, str):
        with open(stream[len("file://") :], "a", encoding="utf-8") as f:
            f.write(text + end)
    else:  # a logging function: one message, its own line ending
        stream(text + end.rstrip("\n"))


class _Shown(str):
    """A tensor's printed text inside a printed structure (``repr`` without quotes)."""

    def __repr__(self) -> str:
        return str(self)


def _print_text(x, summarize: int) -> str:
    if isinstance(x, (Tensor, Variable)):
        a = np.asarray(x.numpy())
        if a.ndim == 0 and isinstance(a.item(), bytes):  # a scalar string: its raw text
            return a.item().decode("utf-8", errors="replace")
        return format_array(a, summarize)
    if isinstance(x, (list, tuple, dict)):
        return str(_shown_structure(x, summarize))
    return str(x)


def _shown_structure(x, summarize: int):
    """``x`` with its tensors replaced by their printed text, dicts in sorted key order (as
    TensorFlow's nest rebuilds them)."""
    if isinstance(x, (Tensor, Variable)):
        return _Shown(format_array(np.asarray(x.numpy()), summarize))
    if isinstance(x, dict):
        try:
            keys = sorted(x)
        except TypeError:  # keys that do not compare: their own order
            keys = list(x)
        return {k: _shown_structure(x[k], summarize) for k in keys}
    if isinstance(x, (list, tuple)):
        items = [_shown_structure(v, summarize) for v in x]
        if hasattr(type(x), "_fields"):  # a namedtuple
            return type(x)(*items)
        return type(x)(items)
    return x


# `isinstance(f, ek.types.experimental.PolymorphicFunction)` and the like, as in TensorFlow.
_trace_types.PolymorphicFunction.register(Function)
_trace_types.ConcreteFunction.register(ConcreteFunction)
