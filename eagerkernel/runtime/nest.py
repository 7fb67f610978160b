"""Nested structures of tensors: flatten and rebuild (a small `tf.nest`).

Lists, tuples, namedtuples and dicts (flattened in sorted key order, as TensorFlow does) are
structure; everything else, None included, is a leaf.

>>> flatten({"b": [1, 2], "a": (3,)})
[3, 1, 2]
>>> pack_sequence_as({"b": [0, 0], "a": (0,)}, [3, 1, 2])
{'b': [1, 2], 'a': (3,)}
"""

from __future__ import annotations

__all__ = ["flatten", "map_structure", "pack_sequence_as"]


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


_STRUCTURES = (list, tuple, dict)


def flatten(structure) -> list:
    """The leaves of ``structure``, depth first."""
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


def pack_sequence_as(structure, flat):
    """Rebuilds ``structure`` with the leaves taken in order from ``flat``.

    Raises:
        ValueError: if ``flat`` has a different number of leaves.
    """
    flat = list(flat)
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


def map_structure(fn, *structures):
    """Applies ``fn`` to corresponding leaves and rebuilds the first structure."""
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])
