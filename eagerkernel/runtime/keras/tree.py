"""``keras.tree``: nested structures as Keras 3 handles them (follows ``keras.tree``).

Lists, tuples, namedtuples, deques and dicts are structure; everything else, None included, is
a leaf. Dicts flatten in sorted key order, an ``OrderedDict`` in its own order. Unlike
`ek.nest`, whose type check raises TypeError, every mismatch raises ValueError, as Keras 3's
``assert_same_structure`` does.

>>> flatten({100: "world!", 6: "Hello"})
['Hello', 'world!']
>>> map_structure(lambda v: v**2, [[1], [2], [3]])
[[1], [4], [9]]
"""

from __future__ import annotations

import collections
import warnings

__all__ = [
    "MAP_TO_NONE",
    "assert_same_paths",
    "assert_same_structure",
    "flatten",
    "flatten_with_path",
    "is_nested",
    "lists_to_tuples",
    "map_shape_structure",
    "map_structure",
    "map_structure_up_to",
    "pack_sequence_as",
    "traverse",
]

_SEQUENCES = (list, tuple, collections.deque)


class _MapToNone:
    """The value a `traverse` function returns to replace a sub-tree with None."""

    def __repr__(self) -> str:
        return "keras.tree.MAP_TO_NONE"


#: Returned by a `traverse` function: replace this sub-tree with None.
MAP_TO_NONE = _MapToNone()


def is_nested(structure) -> bool:
    """Whether ``structure`` is a list, tuple, namedtuple, deque or dict (a mapping).

    >>> is_nested(42), is_nested({"foo": 42}), is_nested("ab")
    (False, True, False)
    """
    return isinstance(structure, (*_SEQUENCES, collections.abc.Mapping))


def _keys(mapping) -> list:
    """A mapping's keys in flattening order: sorted, an OrderedDict's own order.

    Raises:
        TypeError: keys that do not sort (Keras 3 does not support them either).
    """
    if isinstance(mapping, collections.OrderedDict):
        return list(mapping)
    try:
        return sorted(mapping)
    except TypeError:
        raise TypeError(
            f"keras.tree: dictionaries with non-sortable keys are not supported. Received keys: "
            f"{list(mapping)}."
        ) from None


def _children(structure) -> list:
    if isinstance(structure, collections.abc.Mapping):
        return [structure[k] for k in _keys(structure)]
    return list(structure)


def _rebuild(like, children: list):
    """A structure of ``like``'s type holding ``children`` (in flattening order)."""
    if isinstance(like, collections.abc.Mapping):
        by_key = dict(zip(_keys(like), children))
        if isinstance(like, collections.defaultdict):
            out = collections.defaultdict(like.default_factory)
            out.update((k, by_key[k]) for k in like)
            return out
        return type(like)((k, by_key[k]) for k in like)
    if isinstance(like, tuple) and hasattr(type(like), "_fields"):
        return type(like)(*children)
    if isinstance(like, collections.deque):
        return collections.deque(children, maxlen=like.maxlen)
    return type(like)(children)


def flatten(structure) -> list:
    """The leaves of ``structure``, depth first.

    >>> flatten([[1, 2, 3], [4, [5], [[6]]]]), flatten(None), flatten(1)
    ([1, 2, 3, 4, 5, 6], [None], [1])
    """
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def flatten_with_path(structure) -> list:
    """``(path, leaf)`` pairs, depth first; a path is the tuple of indices and keys leading to
    the leaf.

    >>> flatten_with_path([{"foo": 42}])
    [((0, 'foo'), 42)]
    """
    out: list = []

    def walk(s, path):
        if not is_nested(s):
            out.append((path, s))
            return
        keys = _keys(s) if isinstance(s, collections.abc.Mapping) else range(len(s))
        for key, child in zip(keys, _children(s)):
            walk(child, (*path, key))

    walk(structure, ())
    return out


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence``'s items in the shape of ``structure`` (the inverse of `flatten`).

    Raises:
        TypeError: ``flat_sequence`` is not a sequence.
        ValueError: it has another number of items than ``structure`` has leaves.

    >>> pack_sequence_as((("a", "b"), ("c", "d", "e"), "f"), [1, 2, 3, 4, 5, 6])
    ((1, 2), (3, 4, 5), 6)
    """
    if not isinstance(flat_sequence, (*_SEQUENCES, range)) and not hasattr(
        flat_sequence, "__getitem__"
    ):
        raise TypeError(
            f"keras.tree.pack_sequence_as: flat_sequence must be a sequence. Received: "
            f"{type(flat_sequence).__name__}."
        )
    flat = list(flat_sequence)
    position = 0

    def pack(s):
        nonlocal position
        if not is_nested(s):
            if position >= len(flat):
                raise ValueError(_count_error(structure, flat))
            position += 1
            return flat[position - 1]
        return _rebuild(s, [pack(child) for child in _children(s)])

    result = pack(structure)
    if position != len(flat):
        raise ValueError(_count_error(structure, flat))
    return result


def _count_error(structure, flat) -> str:
    return (
        f"keras.tree.pack_sequence_as: the structure has {len(flatten(structure))} leaves but "
        f"flat_sequence has {len(flat)} items. Structure: {_text(structure)}."
    )


def assert_same_structure(a, b, check_types=None) -> None:
    """Raises unless ``a`` and ``b`` nest the same way with the same container types (dicts
    of any kind match each other; a list, a tuple, a namedtuple and a deque do not).
    ``check_types`` is deprecated in Keras 3 and has no effect (a DeprecationWarning).

    Raises:
        ValueError: the structures differ.

    >>> assert_same_structure([(0, 1)], [(2, 3)])
    """
    if check_types is not None:
        warnings.warn(
            "The `check_types` argument is deprecated and no longer has any effect, please "
            "remove. For a looser check, use `keras.tree.assert_same_paths()`.",
            DeprecationWarning,
            stacklevel=2,
        )
    _check(a, b, strict=True)


def assert_same_paths(a, b) -> None:
    """Raises unless ``a`` and ``b`` have the same leaf paths, whatever their container types
    (a list matches a tuple or a namedtuple of the same length).

    Raises:
        ValueError: names the paths found in one structure only.

    >>> assert_same_paths([0, 1], (2, 3))
    """
    paths_a = {p for p, _ in flatten_with_path(a)}
    paths_b = {p for p, _ in flatten_with_path(b)}
    if paths_a != paths_b:
        raise ValueError(
            "keras.tree.assert_same_paths: the structures don't have the same paths. Paths in "
            f"a but not in b: {sorted(paths_a - paths_b, key=repr)}. Paths in b but not in a: "
            f"{sorted(paths_b - paths_a, key=repr)}."
        )


def _check(a, b, strict: bool) -> None:
    if is_nested(a) != is_nested(b):
        raise ValueError(
            f"The two structures don't have the same nested structure: {_text(a)} and {_text(b)}."
        )
    if not is_nested(a):
        return
    mapping_a = isinstance(a, collections.abc.Mapping)
    mapping_b = isinstance(b, collections.abc.Mapping)
    same_type = (mapping_a and mapping_b) or type(a) is type(b)
    if (strict and not same_type) or mapping_a != mapping_b:
        raise ValueError(
            "The two structures don't have the same nested structure: a "
            f"{type(a).__name__} ({_text(a)}) where the other has a {type(b).__name__} "
            f"({_text(b)})."
        )
    if mapping_a and set(a) != set(b):
        raise ValueError(
            "The two structures don't have the same nested structure: dicts with keys "
            f"{sorted(a, key=repr)} and {sorted(b, key=repr)}."
        )
    if len(a) != len(b):
        raise ValueError(
            "The two structures don't have the same nested structure: "
            f"{len(a)} elements ({_text(a)}) and {len(b)} ({_text(b)})."
        )
    for x, y in zip(_children(a), _children(b)):
        _check(x, y, strict)


def map_structure(func, *structures, none_is_leaf: bool = True):
    """``func`` applied to the corresponding leaves of ``structures``, in the shape of the
    first. With ``none_is_leaf=False``, None leaves stay None and ``func`` does not see them.

    Raises:
        TypeError: no structure, or ``func`` not callable.
        ValueError: structures that differ (`assert_same_structure`).

    >>> import collections
    >>> Foo = collections.namedtuple("Foo", ["a", "b"])
    >>> map_structure(lambda v: v * 2, Foo(a=1, b=2))
    Foo(a=2, b=4)
    """
    if not callable(func):
        raise TypeError(f"keras.tree.map_structure: func must be callable. Received: {func!r}.")
    if not structures:
        raise TypeError("keras.tree.map_structure: must have at least one structure.")
    for other in structures[1:]:
        _check(structures[0], other, strict=True)
    flats = [flatten(s) for s in structures]
    if none_is_leaf:
        values = [func(*xs) for xs in zip(*flats)]
    else:
        values = [None if xs[0] is None else func(*xs) for xs in zip(*flats)]
    return pack_sequence_as(structures[0], values)


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` applied to the sub-trees of ``structures`` found at the leaves of
    ``shallow_structure``; deeper nesting is passed to ``func`` whole.

    Raises:
        TypeError: no structure, or ``func`` not callable.
        ValueError: a structure shallower than ``shallow_structure`` or laid out otherwise.

    >>> map_structure_up_to([None, [None, None]], str, [[1, 1], [2, 2]])
    ['[1, 1]', ['2', '2']]
    """
    if not callable(func):
        raise TypeError(
            f"keras.tree.map_structure_up_to: func must be callable. Received: {func!r}."
        )
    if not structures:
        raise TypeError("keras.tree.map_structure_up_to: must have at least one structure.")

    def walk(shallow, subs):
        if not is_nested(shallow):
            return func(*subs)
        for s in subs:
            if not is_nested(s) or len(s) != len(shallow):
                raise ValueError(
                    "keras.tree.map_structure_up_to: the input structure "
                    f"{_text(s)} does not match the shallow structure {_text(shallow)}."
                )
            if isinstance(shallow, collections.abc.Mapping) and set(s) != set(shallow):
                raise ValueError(
                    "keras.tree.map_structure_up_to: dict keys differ: "
                    f"{sorted(shallow, key=repr)} and {sorted(s, key=repr)}."
                )
        columns = zip(*(_children(s) for s in subs))
        return _rebuild(shallow, [walk(c, group) for c, group in zip(_children(shallow), columns)])

    return walk(shallow_structure, structures)


def traverse(func, structure, top_down: bool = True):
    """Visits every sub-tree of ``structure``, depth first, and returns the structure rebuilt.

    Top down (the default), ``func`` sees a parent before its children; a result other than
    None replaces that sub-tree and stops the descent. Bottom up, a result other than None
    replaces the sub-tree after its children were visited. `MAP_TO_NONE` replaces with None.

    Raises:
        TypeError: ``func`` is not callable.

    >>> v = []
    >>> traverse(v.append, [(1, 2), [3], {"a": 4}])
    [(1, 2), [3], {'a': 4}]
    >>> v
    [[(1, 2), [3], {'a': 4}], (1, 2), 1, 2, [3], 3, {'a': 4}, 4]
    """
    if not callable(func):
        raise TypeError(f"keras.tree.traverse: func must be callable. Received: {func!r}.")

    def result(value, default):
        if value is None:
            return default
        return None if value is MAP_TO_NONE else value

    def walk(s):
        if top_down:
            out = func(s)
            if out is not None:
                return result(out, s)
            if not is_nested(s):
                return s
            return _rebuild(s, [walk(c) for c in _children(s)])
        rebuilt = _rebuild(s, [walk(c) for c in _children(s)]) if is_nested(s) else s
        return result(func(rebuilt), rebuilt)

    return walk(structure)


def lists_to_tuples(structure):
    """``structure`` with every list made a tuple.

    >>> lists_to_tuples([1, [2, {"a": [3]}]])
    (1, (2, {'a': (3,)}))
    """
    if not is_nested(structure):
        return structure
    children = [lists_to_tuples(c) for c in _children(structure)]
    if isinstance(structure, list):
        return tuple(children)
    return _rebuild(structure, children)


def _is_shape(x) -> bool:
    return isinstance(x, (list, tuple)) and all(d is None or isinstance(d, int) for d in x)


def map_shape_structure(func, structure):
    """`map_structure` for shapes: a tuple or list of ints and Nones is a leaf passed to
    ``func`` whole.

    >>> map_shape_structure(len, {"a": (None, 3), "b": [(2,), (4, 5)]})
    {'a': 2, 'b': [1, 2]}
    """
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, c) for c in _children(structure)])


def _text(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
