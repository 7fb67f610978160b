"""`ek.autograph`, as `tf.autograph`: there is no AutoGraph conversion here. A graph function
runs its Python code as it is, and guards the places where a tensor's value steers Python
control flow (``if x > 0``, ``while i < n``), tracing each branch taken (see
`eagerkernel.runtime.function`). So the functions of `tf.autograph` that convert code return
it unconverted, and the options that steer the conversion have nothing to steer.
"""

from __future__ import annotations

import enum
import inspect
import textwrap

__all__ = [
    "Feature",
    "do_not_convert",
    "set_loop_options",
    "set_verbosity",
    "to_code",
    "to_graph",
    "trace",
]

_TO_CODE_NOTE = (
    "# eagerkernel does no AutoGraph conversion: ek.function runs this Python code as it is\n"
    "# (tensor-dependent `if`/`while` are guarded and retraced), so this is its own source.\n"
)


class Feature(enum.Enum):
    """AutoGraph's optional conversions (follows ``tf.autograph.experimental.Feature``).
    Accepted by ``ek.function(experimental_autograph_options=...)`` and `to_graph`: the
    Python behaviour they convert to graph ops (``==`` on Python values, list ``append``,
    ``assert``, ``print``, ``len``) is what runs here anyway."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERT_STATEMENTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"


def check_features(features, where: str) -> None:
    """Raises TypeError unless ``features`` is None, a `Feature` or a tuple or list of them."""
    items = features if isinstance(features, (tuple, list)) else (features,)
    for f in items:
        if f is not None and not isinstance(f, Feature):
            raise TypeError(
                f"{where}: AutoGraph options must be tf.autograph.experimental.Feature "
                f"values. Received: {f!r}"
            )


def _python_function(entity, where: str):
    func = getattr(entity, "python_function", entity)
    if not (inspect.isfunction(func) or inspect.ismethod(func)):
        raise TypeError(f"{where}: expected a Python function, got {entity!r}.")
    return func


def to_code(entity, recursive=True, experimental_optional_features=None) -> str:
    """The source of ``entity`` (follows `tf.autograph.to_code`), under a two-line comment
    saying so: there is no conversion, so the code is the function's own, dedented (and
    ``recursive`` has nothing to convert).

    Raises:
        TypeError: ``entity`` is not a Python function or method (or ek.function of one).
        OSError: its source is not available (it was defined in code run by ``exec`` or
            typed at a plain Python prompt, where Python keeps no source lines).
    """
    func = _python_function(entity, "autograph.to_code")
    check_features(experimental_optional_features, "autograph.to_code")
    try:
        source = inspect.getsource(func)
    except OSError:
        name = getattr(func, "__qualname__", repr(func))
        where = getattr(getattr(func, "__code__", None), "co_filename", "?")
        raise OSError(
            f"autograph.to_code: the source of {name} is not available: it was defined in "
            f"{where!r}, code Python keeps no source lines for (run by exec, or typed at a plain "
            "Python prompt). eagerkernel does no AutoGraph conversion, so to_code can only "
            "show the function's own source; define it in a file or a notebook cell."
        ) from None
    return _TO_CODE_NOTE + textwrap.dedent(source)


def to_graph(entity, recursive=True, experimental_optional_features=None):
    """``entity`` itself (follows `tf.autograph.to_graph`, whose converted function computes
    what the Python function computes): called eagerly or inside `ek.function`, its Python
    control flow runs as it is. ``recursive`` has nothing to do (the functions it calls are
    not converted either); ``experimental_optional_features`` is checked (`Feature`).

    Raises:
        TypeError: ``entity`` is not a Python function or method, or a feature is not a
            `Feature`.

    >>> def f(x):
    ...     return x * x if x > 0 else -x
    >>> ek.autograph.to_graph(f) is f, float(ek.autograph.to_graph(f)(ek.constant(-3.0)))
    (True, 3.0)
    """
    _python_function(entity, "autograph.to_graph")
    check_features(experimental_optional_features, "autograph.to_graph")
    return entity


def do_not_convert(func=None):
    """``func`` unchanged (follows ``tf.autograph.experimental.do_not_convert``: nothing is
    converted here); a decorator with or without the call."""
    return (lambda f: f) if func is None else func


def set_loop_options(
    parallel_iterations=None, swap_memory=None, maximum_iterations=None, shape_invariants=None
) -> None:
    """Accepted (follows ``tf.autograph.experimental.set_loop_options``): the options tune
    graph ``while`` loops, and loops here are Python loops, as TensorFlow's are in eager mode,
    where this function does nothing either.

    Raises:
        ValueError: ``parallel_iterations`` or ``maximum_iterations`` below 1 (as TensorFlow's
            while_loop checks them).
    """
    for arg, value in (
        ("parallel_iterations", parallel_iterations),
        ("maximum_iterations", maximum_iterations),
    ):
        if value is not None and int(value) < 1:
            raise ValueError(f"set_loop_options: {arg} must be at least 1. Received: {value!r}")


_VERBOSITY = [0]


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Sets the AutoGraph log level (follows `tf.autograph.set_verbosity`); kept, and read
    back by nothing: no conversion happens, so there is nothing to log."""
    _VERBOSITY[0] = int(level)


def trace(*args) -> None:
    """Prints its arguments, as `tf.autograph.trace` does when a function is converted:
    here, every time it runs (eagerly, or while an `ek.function` traces).

    >>> ek.autograph.trace("x is", 3)
    x is 3
    """
    print(*args)
