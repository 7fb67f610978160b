"""`Module` and `name_scope` (follow `tf.Module` and `tf.name_scope`).

A `Module` is a named container of Variables, other Modules and the functions that use them.
It finds what it holds by walking its attributes (``vars(self)``) in the order of their names,
looking inside lists, tuples and dicts, and then, breadth first, inside the Modules it found:

    class Dense(ek.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = ek.Variable(ek.random.normal([in_features, out_features]), name="w")
            self.b = ek.Variable(ek.zeros([out_features]), name="b")

    Dense(3, 2).variables        # (b, w): attributes in name order, as TensorFlow lists them

`name_scope` is the per-thread prefix of Variable names: ``ek.Variable(1.0, name="w")`` inside
``with ek.name_scope("block"):`` is ``block/w:0``. A Module captures the scope it was created in
(``block/dense/``) and re-enters it with ``with module.name_scope:`` or the `with_name_scope`
decorator. Keras layers are Modules too, with Keras's rules on top (`keras.layers.Layer`).

A checkpoint (`ek.train.Checkpoint(model=module)`) saves a Module's Variables under their
attribute paths (``model/dense_1/w``), as TensorFlow does. Modules tell
`Module.attribute_observers` when a Variable or Module is assigned to one of their attributes,
so that a restore made before the Variables existed assigns them as they appear.
"""

from __future__ import annotations

import contextlib
import functools
import re
import typing
from collections.abc import Callable, Iterator, Mapping

from .core.context import context as _thread_context
from .core.context import pop_scope as _pop_scope
from .core.context import push_scope as _push_scope
from .core.variable import Variable
from .observers import Observers

__all__ = [
    "Module",
    "camel_to_snake",
    "current_name_scope",
    "get_current_name_scope",
    "name_scope",
    "valid_identifier",
]

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def camel_to_snake(value: str) -> str:
    """TensorFlow's default module name: ``MyModule`` -> ``my_module``, ``HTTPServer`` ->
    ``http_server``, ``ResNet50V2`` -> ``res_net50_v2``.

    >>> camel_to_snake("SequentialModule")
    'sequential_module'
    """
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


def valid_identifier(name: str) -> bool:
    """Whether ``name`` is a valid Module name: ASCII letters, digits and ``_``, not starting
    with a digit (TensorFlow's rule)."""
    return bool(_VALID_IDENTIFIER.match(name))


class name_scope:  # TensorFlow's public name, lower case
    """A context manager that prefixes the names of Variables created inside it (follows TF 2's
    `tf.name_scope`).

    ``with ek.name_scope("block"):`` appends ``block/`` to this thread's current scope;
    a name ending in ``/`` (a scope string that ``__enter__`` returned, ``"block/"``) replaces
    the current scope instead, and ``""`` clears it. Scopes nest, are per thread and may be
    entered again (also while entered). Entering returns the full scope string.

    Args:
        name: the scope's name (a str). Any characters are accepted, as TensorFlow accepts
            them in eager mode.

    Raises:
        ValueError: ``name`` is not a string (TensorFlow's type and message).

    >>> with ek.name_scope("block") as scope:
    ...     with ek.name_scope("dense"):
    ...         w = ek.Variable(1.0, name="kernel")
    >>> scope, w.name
    ('block/', 'block/dense/kernel:0')
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        if not isinstance(name, str):
            raise ValueError("name for name_scope must be a string.")
        self._name = name

    @property
    def name(self) -> str:
        """The name given to the constructor."""
        return self._name

    def __enter__(self) -> str:
        ctx = _thread_context()
        old = ctx.scope_name
        name = self._name
        if not name:
            scope = ""
        elif name[-1] == "/":
            scope = name
        else:
            scope = f"{old}{name}/"
        ctx.scope_stack = (*ctx.scope_stack, old)
        ctx.scope_name = scope
        # Recorders see the scope too (`Recorder.on_scope`: %%tape's clusters and columns);
        # clearing the scope ("") is no scope of its own.
        if name:
            _push_scope(name.rstrip("/"), "name_scope")
        return scope

    def __exit__(self, *exc) -> None:
        ctx = _thread_context()
        stack = ctx.scope_stack
        ctx.scope_name = stack[-1]
        ctx.scope_stack = stack[:-1]
        if self._name:
            _pop_scope(ctx.scopes[:-1])  # scopes nest: the innermost is this one

    def __repr__(self) -> str:
        return f"name_scope({self._name!r})"


def current_name_scope() -> str:
    """This thread's scope string (``"block/dense/"``, or ``""`` outside any scope)."""
    return _thread_context().scope_name


def get_current_name_scope() -> str:
    """The current name scope without its trailing ``/`` (follows
    `tf.get_current_name_scope`).

    >>> with ek.name_scope("outer"), ek.name_scope("inner"):
    ...     ek.get_current_name_scope()
    'outer/inner'
    >>> ek.get_current_name_scope()
    ''
    """
    return _thread_context().scope_name.rstrip("/")


def _is_variable(obj) -> bool:
    return isinstance(obj, Variable)


def _is_trainable_variable(obj) -> bool:
    return isinstance(obj, Variable) and obj.trainable


def _is_non_trainable_variable(obj) -> bool:
    return isinstance(obj, Variable) and not obj.trainable


def _is_module(obj) -> bool:
    return isinstance(obj, Module)


class Module:
    """Base class of models and their parts (follows `tf.Module`).

    Subclass it, assign Variables and other Modules to attributes (directly or in lists,
    tuples and dicts), and define ``__call__`` or any method.

    Args:
        name: the module's name, a valid Python identifier; default: the class name in snake
            case (``SequentialModule`` -> ``sequential_module``). Names need not be unique.

    Raises:
        ValueError: ``name`` is not a valid identifier (TensorFlow's message).
        TypeError: ``name`` is not a string.

    The collections (`variables`, `trainable_variables`, `non_trainable_variables`,
    `submodules`) are tuples, recomputed at each access: this module's attributes in the order
    of their names (lists, tuples and dicts walked; dict keys sorted), then those of its
    submodules, breadth first; each object once.

    >>> class Dense(ek.Module):
    ...     def __init__(self, in_features, out_features, name=None):
    ...         super().__init__(name=name)
    ...         self.w = ek.Variable(ek.ones([in_features, out_features]), name="w")
    ...         self.b = ek.Variable(ek.zeros([out_features]), name="b")
    ...     def __call__(self, x):
    ...         return ek.nn.relu(ek.matmul(x, self.w) + self.b)
    >>> class MLP(ek.Module):
    ...     def __init__(self, sizes, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.layers = [Dense(a, b) for a, b in zip(sizes, sizes[1:])]
    ...     @ek.Module.with_name_scope
    ...     def __call__(self, x):
    ...         for layer in self.layers:
    ...             x = layer(x)
    ...         return x
    >>> mlp = MLP([3, 4, 2])
    >>> mlp(ek.ones([1, 3])).numpy()
    array([[12., 12.]], dtype=float32)
    >>> [v.name for v in mlp.trainable_variables]
    ['mlp/b:0', 'mlp/w:0', 'mlp/b:0', 'mlp/w:0']
    >>> [m.name_scope.name for m in mlp.submodules]
    ['mlp/dense/', 'mlp/dense/']
    """

    # Attributes `_flatten` skips (TensorFlow's hook for subclasses keeping back-references).
    _TF_MODULE_IGNORED_PROPERTIES: typing.ClassVar[frozenset] = frozenset()
    # Told ``attribute_set(module, name, value)`` when a Variable, Module, list, tuple or dict
    # is assigned to a Module's attribute (checkpoints restore waiting values then).
    attribute_observers: typing.ClassVar[Observers] = Observers()

    def __init__(self, name: str | None = None):
        if name is None:
            name = camel_to_snake(type(self).__name__)
        elif not isinstance(name, str):
            raise TypeError(
                f"{type(self).__name__}: name must be a string. Received: name={name!r} "
                f"of type {type(name).__name__}"
            )
        elif not valid_identifier(name):
            raise ValueError(
                f"{name!r} is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name)."
            )
        self._name = name
        with name_scope(name) as scope:
            self._name_scope = name_scope(scope)

    def __setattr__(self, name: str, value) -> None:
        # Plain assignment; then, while a checkpoint restore waits for Variables, tell it.
        object.__setattr__(self, name, value)
        if Module.attribute_observers and isinstance(value, _TRACKED_TYPES):
            Module.attribute_observers.notify("attribute_set", self, name, value)

    @property
    def name(self) -> str:
        """The name given to (or derived by) the constructor; not the scope, which also names
        the enclosing scopes."""
        return self._name

    @property
    def name_scope(self) -> name_scope:
        """The `name_scope` this module was created in, plus its name (``"mlp/dense/"``);
        ``with self.name_scope:`` re-enters it wherever it is entered."""
        return self._name_scope

    @property
    def variables(self) -> tuple:
        """Every Variable of this module and its submodules (see the class docstring's
        order)."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The Variables with ``trainable=True``, in `variables` order."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self) -> tuple:
        """The Variables with ``trainable=False``, in `variables` order."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self) -> tuple:
        """Every Module held by this one, or by those, and so on (not this module).

        >>> a, b, c = ek.Module(), ek.Module(), ek.Module()
        >>> a.b = b
        >>> b.c = c
        >>> list(a.submodules) == [b, c], list(b.submodules) == [c], list(c.submodules)
        (True, True, [])
        """
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(
        self,
        recursive: bool = True,
        predicate: Callable | None = None,
        attribute_traversal_key: Callable | None = None,
        with_path: bool = False,
        expand_composites: bool = False,
    ) -> Iterator:
        """The values held by this module's attributes, in attribute-name order (follows
        `tf.Module._flatten`), then, with ``recursive``, those of the Modules among them,
        breadth first.

        Args:
            recursive: also walk the Modules found.
            predicate: yield only values for which it is true (default: all leaves).
            attribute_traversal_key: sort key for attribute names (default: the names).
            with_path: yield ``(path, value)``, the path a tuple of attribute names, list
                indices and dict keys; values are then not deduplicated.
            expand_composites: accepted as False only (no composite tensors here).

        Raises:
            NotImplementedError: ``expand_composites=True``.
        """
        if expand_composites:
            raise NotImplementedError(
                "Module._flatten: expand_composites=True is not supported (eagerkernel has no "
                "composite tensors to expand)."
            )
        return _flatten_module(
            self,
            recursive=recursive,
            predicate=predicate or (lambda _: True),
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=self._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
        )

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorates a method so that it runs in the module's `name_scope` (follows
        `tf.Module.with_name_scope`); Variables it creates are named ``<scope>/<name>``.

        >>> class Lazy(ek.Module):
        ...     @ek.Module.with_name_scope
        ...     def __call__(self, x):
        ...         if not hasattr(self, "w"):
        ...             self.w = ek.Variable(ek.ones([x.shape[1], 3]))
        ...         return ek.matmul(x, self.w)
        >>> lazy = Lazy()
        >>> lazy(ek.ones([1, 2])).shape
        TensorShape([1, 3])
        >>> lazy.w.name
        'lazy/Variable:0'
        """

        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


_TRACKED_TYPES = (Variable, Module, list, tuple, dict)


def _leaves(value, path: tuple) -> Iterator:
    """``(path, leaf)`` for the leaves of one attribute value, as TensorFlow's
    `nest.flatten_with_tuple_paths` walks it: lists and tuples by index, mappings by sorted
    key (insertion order when the keys cannot be sorted)."""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, (*path, i))
    elif isinstance(value, Mapping):
        keys = list(value)
        with contextlib.suppress(TypeError):
            keys = sorted(keys)
        for key in keys:
            yield from _leaves(value[key], (*path, key))
    else:
        yield path, value


def _flatten_module(
    module,
    recursive: bool,
    predicate: Callable,
    attribute_traversal_key,
    attributes_to_ignore,
    with_path: bool,
    module_path: tuple = (),
    seen: set | None = None,
) -> Iterator:
    """`Module._flatten`'s walk: this module's attributes first, then each Module found among
    them, in the order found. Without ``with_path`` each leaf comes once (``seen`` is shared by
    the whole walk); with it, ``seen`` holds the modules on the current path only, so a value
    reachable twice comes twice and a cycle (``a.b = b; b.a = a``) ends instead of recursing
    forever."""
    if seen is None:
        seen = {id(module)}
    attributes = vars(module)
    submodules = []
    for key in sorted(attributes, key=attribute_traversal_key):
        if key in attributes_to_ignore:
            continue
        for leaf_path, leaf in _leaves(attributes[key], (key,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (module_path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module) and not (with_path and id(leaf) in seen):
                submodules.append((module_path + leaf_path, leaf))
    for sub_path, sub in submodules:
        yield from _flatten_module(
            sub,
            recursive=recursive,
            predicate=predicate,
            attribute_traversal_key=attribute_traversal_key,
            attributes_to_ignore=sub._TF_MODULE_IGNORED_PROPERTIES,
            with_path=with_path,
            module_path=sub_path,
            seen=seen | {id(sub)} if with_path else seen,
        )
