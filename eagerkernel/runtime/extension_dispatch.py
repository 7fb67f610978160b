"""Dispatch for ExtensionTypes: handlers that TensorFlow's public ops run instead of their own
code when an argument is an `ExtensionType` (follows `tf.experimental.dispatch_for_api`,
`dispatch_for_unary_elementwise_apis`, `dispatch_for_binary_elementwise_apis` and
`unregister_dispatch_for`).

Elementwise handlers are found by `ExtensionType._ek_unary` / `_ek_binary`, which the public
unary and binary ops call on their slow path (`core/dispatch.py`), so an op on Tensors never
looks at them. API handlers run from `dispatchable`, the marker of the public functions they
can target: it tests the arguments for an ExtensionType only while a handler is registered.
"""

from __future__ import annotations

import collections.abc
import inspect
import types
import typing

from .core.composite import CompositeTensor
from .core.tensor import Tensor
from .extension_type import ExtensionType

__all__ = [
    "DISPATCHABLE_APIS",
    "dispatch_for_api",
    "dispatch_for_binary_elementwise_apis",
    "dispatch_for_unary_elementwise_apis",
    "dispatchable",
    "unregister_dispatch_for",
]

_UNIONS = (typing.Union, types.UnionType)

_UNARY: list = []  # (types, handler)
_BINARY: list = []  # (x types, y types, handler)
_API: dict = {}  # api function -> [(parameter name -> types, handler)]


def _type_options(tp) -> tuple:
    if typing.get_origin(tp) in _UNIONS:
        return tuple(o for arg in typing.get_args(tp) for o in _type_options(arg))
    if typing.get_origin(tp) in (list, tuple, collections.abc.Sequence):
        args = typing.get_args(tp)
        return (("seq", tuple(o for a in args if a is not Ellipsis for o in _type_options(a))),)
    return (tp,)


def _matches(value, options) -> bool:
    """Whether ``value`` is one of the dispatch types ``options`` (`Tensor` also takes Python
    numbers and NumPy arrays, which the op would convert)."""
    for tp in options:
        if isinstance(tp, tuple) and tp and tp[0] == "seq":
            if (
                isinstance(value, (list, tuple))
                and value
                and all(_matches(v, tp[1]) for v in value)
            ):
                return True
            continue
        if tp is Tensor:
            if isinstance(value, Tensor):
                return True
            if not isinstance(value, (CompositeTensor, str)) and _convertible(value):
                return True
            continue
        if isinstance(tp, type) and isinstance(value, tp):
            return True
    return False


def _convertible(value) -> bool:
    import numpy as np

    return isinstance(value, (bool, int, float, complex, np.ndarray, np.generic))


def _is_extension(options) -> bool:
    return any(
        (isinstance(tp, type) and issubclass(tp, ExtensionType))
        or (isinstance(tp, tuple) and tp and tp[0] == "seq" and _is_extension(tp[1]))
        for tp in options
    )


def dispatch_for_unary_elementwise_apis(x_type):
    """Decorator: ``handler(api_func, x)`` runs every unary elementwise op (``ek.abs``,
    ``ek.math.exp``, ``ek.ones_like``...) called on an ``x_type`` value (follows
    `tf.experimental.dispatch_for_unary_elementwise_apis`). ``x_type`` is an ExtensionType
    subclass or a Union including one."""
    options = _type_options(x_type)
    if not _is_extension(options):
        raise TypeError(
            "dispatch_for_unary_elementwise_apis: x_type must be an ExtensionType subclass "
            f"(or a Union with one). Received: {x_type!r}."
        )

    def register(handler):
        _UNARY.append((options, handler))
        return handler

    return register


def dispatch_for_binary_elementwise_apis(x_type, y_type):
    """Decorator: ``handler(api_func, x, y)`` runs every binary elementwise op (``ek.add``,
    ``ek.math.maximum``, the operators...) whose arguments are of ``x_type`` and ``y_type``
    (follows `tf.experimental.dispatch_for_binary_elementwise_apis`)."""
    x_options, y_options = _type_options(x_type), _type_options(y_type)
    if not (_is_extension(x_options) or _is_extension(y_options)):
        raise TypeError(
            "dispatch_for_binary_elementwise_apis: x_type or y_type must be an ExtensionType "
            f"subclass (or a Union with one). Received: {x_type!r}, {y_type!r}."
        )

    def register(handler):
        _BINARY.append((x_options, y_options, handler))
        return handler

    return register


def dispatch_for_api(api, *signatures):
    """Decorator: ``handler`` runs instead of ``api`` when its arguments match the handler's
    type annotations (or the ``signatures``: ``{parameter: type}`` dicts), e.g.
    ``@dispatch_for_api(ek.stack) def f(values: List[MaskedTensor], axis=0)`` (follows
    `tf.experimental.dispatch_for_api`). The APIs that dispatch are `DISPATCHABLE_APIS`.

    Raises:
        ValueError: ``api`` does not support dispatch, or the handler's parameters are not the
            API's.
    """
    target = getattr(api, "_ek_dispatch_target", None)
    if target is None:
        names = ", ".join(sorted(DISPATCHABLE_APIS))
        raise ValueError(
            f"dispatch_for_api: {getattr(api, '__name__', api)!r} does not support dispatch. "
            f"Dispatchable APIs: {names}."
        )

    def register(handler):
        api_params = list(inspect.signature(target).parameters)
        handler_params = list(inspect.signature(handler).parameters)
        if handler_params[: len(api_params)] != api_params[: len(handler_params)]:
            raise ValueError(
                f"dispatch_for_api: the handler's parameters {handler_params} must be "
                f"{target.__name__}'s ({api_params})."
            )
        sigs = list(signatures)
        if not sigs:
            hints = typing.get_type_hints(handler)
            sigs = [{k: v for k, v in hints.items() if k != "return"}]
        for sig in sigs:
            if not sig:
                raise ValueError(
                    f"dispatch_for_api: the handler {handler.__name__} gives no parameter type."
                )
            checks = {k: _type_options(v) for k, v in sig.items()}
            _API.setdefault(target, []).append((checks, handler))
        return handler

    return register


def unregister_dispatch_for(handler) -> None:
    """Removes every registration of ``handler`` (follows
    `tf.experimental.unregister_dispatch_for`).

    Raises:
        ValueError: ``handler`` was not registered.
    """
    found = False
    for registry in (_UNARY, _BINARY):
        kept = [entry for entry in registry if entry[-1] is not handler]
        found |= len(kept) != len(registry)
        registry[:] = kept
    for target, entries in list(_API.items()):
        kept = [e for e in entries if e[1] is not handler]
        found |= len(kept) != len(entries)
        _API[target] = kept
    if not found:
        raise ValueError(f"unregister_dispatch_for: {handler!r} was not registered.")


def api_dispatch(target, args: tuple, kwargs: dict):
    """The result of a handler registered for ``target`` whose types the arguments match, or
    `NotImplemented`. The dispatchable APIs call this when an argument is an ExtensionType."""
    entries = _API.get(target)
    if not entries:
        return NotImplemented
    bound = inspect.signature(target).bind_partial(*args, **kwargs)
    arguments = bound.arguments
    for checks, handler in reversed(entries):
        if all(name in arguments and _matches(arguments[name], t) for name, t in checks.items()):
            return handler(*args, **kwargs)
    return NotImplemented


def has_extension(args: tuple, kwargs: dict) -> bool:
    """Whether an ExtensionType is among the arguments (or in a list argument)."""
    for v in (*args, *kwargs.values()):
        if isinstance(v, ExtensionType):
            return True
        if isinstance(v, (list, tuple)) and any(isinstance(x, ExtensionType) for x in v):
            return True
    return False


#: Public APIs that consult `dispatch_for_api` handlers: ``{name: the public function}``,
#: filled by `dispatchable`.
DISPATCHABLE_APIS: dict = {}


def dispatchable(fn):
    """Marks a public API function as one `dispatch_for_api` can target; returns a function
    that runs a registered handler when an argument is an ExtensionType, else ``fn``. The
    check happens only for ExtensionType arguments (a plain call pays one type test per
    argument)."""

    def api(*args, **kwargs):
        if _API and has_extension(args, kwargs):
            result = api_dispatch(fn, args, kwargs)
            if result is not NotImplemented:
                return result
        return fn(*args, **kwargs)

    api.__name__, api.__qualname__, api.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    api.__module__, api.__wrapped__ = fn.__module__, fn
    api.__signature__ = inspect.signature(fn)
    api._ek_dispatch_target = fn
    DISPATCHABLE_APIS[fn.__name__] = api
    return api


def unary_handler(x):
    """The newest unary elementwise handler registered for ``x``'s type, or None."""
    for options, handler in reversed(_UNARY):
        if _matches(x, options):
            return handler
    return None


def binary_handler(x, y):
    """The newest binary elementwise handler registered for the types of ``x`` and ``y``."""
    for x_types, y_types, handler in reversed(_BINARY):
        if _matches(x, x_types) and _matches(y, y_types):
            return handler
    return None
