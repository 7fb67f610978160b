"""Nested structures of tensors: flatten, rebuild and compare (follows `tf.nest`).

Lists, tuples, namedtuples and dicts (flattened in sorted key order, as TensorFlow does) are
structure; everything else, None included, is a leaf. With ``expand_composites=True`` a
`RaggedTensor` is its components ``(flat_values, *nested_row_splits)`` and a `SparseTensor`
``(indices, values, dense_shape)``, as TensorFlow expands them.

>>> flatten({"b": [1, 2], "a": (3,)})
[3, 1, 2]
>>> pack_sequence_as({"b": [0, 0], "a": (0,)}, [3, 1, 2])
{'b': [1, 2], 'a': (3,)}
"""

from __future__ import annotations

__all__ = [
    "assert_same_structure",
    "flatten",
    "is_nested",
    "map_structure",
    "pack_sequence_as",
]


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


_STRUCTURES = (list, tuple, dict)


def is_nested(seq) -> bool:
    """Whether ``seq`` is a structure (a list, tuple, namedtuple or dict), not a leaf (follows
    `tf.nest.is_nested`; a string, a tensor and a composite tensor are leaves).

    >>> is_nested([1]), is_nested({}), is_nested("ab")
    (True, True, False)
    """
    return isinstance(seq, _STRUCTURES)


def _components(value):
    """A composite tensor's component Tensors, as TensorFlow expands it; None for others."""
    from .ragged.ragged_tensor import RaggedTensor
    from .sparse.sparse_tensor import SparseTensor

    if isinstance(value, RaggedTensor):
        return [value.flat_values, *value.nested_row_splits]
    if isinstance(value, SparseTensor):
        return [value.indices, value.values, value.dense_shape]
    return None


def _from_components(like, parts: list):
    """A composite of ``like``'s type from its components (`_components` reversed)."""
    from .ragged.ragged_tensor import RaggedTensor
    from .sparse.sparse_tensor import SparseTensor

    if isinstance(like, RaggedTensor):
        return RaggedTensor.from_nested_row_splits(parts[0], parts[1:])
    return SparseTensor(*parts)


def flatten(structure, expand_composites: bool = False) -> list:
    """The leaves of ``structure``, depth first (composite tensors expanded into their
    components with ``expand_composites``)."""
    if expand_composites:
        return _flatten_expanded(structure)
    if isinstance(structure, (list, tuple)):
        out = []
        for s in structure:
            if isinstance(s, _STRUCTURES):
                out.extend(flatten(s))
            else:  # a leaf, appended without a call (a list of tensors is the common case)
                out.append(s)
        return out
    if isinstance(structure, dict):
        out = []
        for k in sorted(structure):
            out.extend(flatten(structure[k]))
        return out
    return [structure]


def _flatten_expanded(structure) -> list:
    out = []
    for leaf in flatten(structure):
        parts = _components(leaf)
        out.extend(parts if parts is not None else (leaf,))
    return out


def pack_sequence_as(structure, flat_sequence, expand_composites: bool = False):
    """Rebuilds ``structure`` with the leaves taken in order from ``flat_sequence`` (with
    ``expand_composites``, each composite tensor of ``structure`` from as many values as it
    has components).

    Raises:
        ValueError: if ``flat_sequence`` has a different number of leaves.
    """
    flat = list(flat_sequence)
    if expand_composites:
        leaves, rebuilt, i = flatten(structure), [], 0
        for leaf in leaves:
            parts = _components(leaf)
            if parts is None:
                rebuilt.append(flat[i] if i < len(flat) else None)
                i += 1
            else:
                rebuilt.append(_from_components(leaf, flat[i : i + len(parts)]))
                i += len(parts)
        if i != len(flat):
            raise ValueError(
                f"pack_sequence_as: structure has {i} expanded leaves but {len(flat)} values "
                "were given."
            )
        flat = rebuilt
    result, used = _pack(structure, flat, 0)
    if used != len(flat):
        raise ValueError(
            f"pack_sequence_as: structure has {used} leaves but {len(flat)} values were given."
        )
    return result


def _pack(structure, flat, i):
    if isinstance(structure, (list, tuple)):
        items = []
        for s in structure:
            if isinstance(s, _STRUCTURES):
                v, i = _pack(s, flat, i)
            elif i < len(flat):  # a leaf, taken without a call
                v, i = flat[i], i + 1
            else:
                raise ValueError("pack_sequence_as: not enough values for the structure.")
            items.append(v)
        if _is_namedtuple(structure):
            return type(structure)(*items), i
        return type(structure)(items), i
    if isinstance(structure, dict):
        values = {}
        for k in sorted(structure):
            values[k], i = _pack(structure[k], flat, i)
        return type(structure)((k, values[k]) for k in structure), i
    if i >= len(flat):
        raise ValueError("pack_sequence_as: not enough values for the structure.")
    return flat[i], i + 1


def map_structure(func, *structure, check_types: bool = True, expand_composites: bool = False):
    """Applies ``func`` to corresponding leaves of the structures and rebuilds the first one
    (follows `tf.nest.map_structure`; several structures must match:
    `assert_same_structure`).

    Raises:
        ValueError: no structure given, or structures that do not match.
        TypeError: sequences of different types (a list and a tuple) with ``check_types``.
    """
    if not structure:
        raise ValueError("map_structure: must have at least one structure.")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types, expand_composites)
    flats = [flatten(s, expand_composites) for s in structure]
    return pack_sequence_as(
        structure[0], [func(*xs) for xs in zip(*flats)], expand_composites=expand_composites
    )


def assert_same_structure(nest1, nest2, check_types: bool = True, expand_composites=False):
    """Raises unless ``nest1`` and ``nest2`` have the same nesting (follows
    `tf.nest.assert_same_structure`).

    Raises:
        ValueError: a different number of elements somewhere, or dicts with other keys.
        TypeError: with ``check_types``, sequences of different types (a list and a tuple, two
            namedtuple classes), or composite tensors of different types.

    >>> assert_same_structure([1, (2,)], ["a", ("b",)])
    >>> assert_same_structure([1, (2,)], [3, [4]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: The two structures don't have the same nested structure: a tuple ((2,)) ...
    """
    _check_same(nest1, nest2, check_types, expand_composites)


def _check_same(a, b, check_types: bool, expand: bool) -> None:
    nested_a, nested_b = is_nested(a), is_nested(b)
    if nested_a != nested_b:
        raise ValueError(
            "The two structures don't have the same nested structure: "
            f"{_text(a)} is {'' if nested_a else 'not '}a structure, {_text(b)} is "
            f"{'' if nested_b else 'not '}one."
        )
    if not nested_a:
        if expand and check_types:
            ca, cb = _components(a), _components(b)
            if (ca is None) != (cb is None) or (ca is not None and type(a) is not type(b)):
                raise TypeError(
                    "The two structures don't have the same nested structure: "
                    f"{type(a).__name__} and {type(b).__name__} are not the same composite."
                )
        return
    if check_types and type(a) is not type(b) and not (isinstance(a, dict) and isinstance(b, dict)):
        raise TypeError(
            "The two structures don't have the same nested structure: a "
            f"{type(a).__name__} ({_text(a)}) where the other has a {type(b).__name__} "
            f"({_text(b)})."
        )
    if isinstance(a, dict) != isinstance(b, dict):
        raise ValueError(
            f"The two structures don't have the same nested structure: {_text(a)} and {_text(b)}."
        )
    if isinstance(a, dict):
        if sorted(a, key=repr) != sorted(b, key=repr):
            raise ValueError(
                "The two structures don't have the same nested structure: dicts with keys "
                f"{sorted(a, key=repr)} and {sorted(b, key=repr)}."
            )
        for k in a:
            _check_same(a[k], b[k], check_types, expand)
        return
    if len(a) != len(b):
        raise ValueError(
            "The two structures don't have the same nested structure: "
            f"{len(a)} elements ({_text(a)}) and {len(b)} ({_text(b)})."
        )
    for x, y in zip(a, b):
        _check_same(x, y, check_types, expand)


def _text(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"
