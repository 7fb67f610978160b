"""`ek.data.experimental.from_list` and `get_structure` (follow TensorFlow's)."""

from __future__ import annotations

from .dataset import Dataset
from .iterator import Iterator
from .sources import Elements
from .structure import (
    TensorSpec,
    flatten,
    normalize,
    pack,
    same_structure,
    spec_of,
)

__all__ = ["from_list", "get_structure"]


def from_list(elements, name=None) -> Dataset:
    """A dataset of the items of ``elements``, one by one (follows
    `tf.data.experimental.from_list`).

    Each item is a structure (tuples, dicts; a list is one tensor) whose components are
    converted to Tensors; unlike `Dataset.from_tensor_slices` the items need not be
    rectangular together. The element spec has, per component, the dimensions all items agree
    on and None elsewhere (unknown rank where the ranks differ).

    Args:
        elements: a non-empty Python list of items of one nested structure.
        name: ignored (TensorFlow's op name).

    Raises:
        ValueError: ``elements`` empty or not a list; items of different structures.
        TypeError: a component whose dtype differs between items.

    >>> ds = ek.data.experimental.from_list([(1, 'a'), (2, 'b'), (3, 'c')])
    >>> [(n.item(), s) for n, s in ds.as_numpy_iterator()]
    [(1, b'a'), (2, b'b'), (3, b'c')]
    >>> ds = ek.data.experimental.from_list([[1], [2, 3]])
    >>> list(ds.as_numpy_iterator())
    [array([1], dtype=int32), array([2, 3], dtype=int32)]
    >>> ds.element_spec
    TensorSpec(shape=(None,), dtype=ek.int32, name=None)
    """
    if not elements:
        raise ValueError(
            "Invalid `elements`. `elements` should not be empty. If you want an empty dataset, "
            "use `tf.data.Dataset.range(0)`."
        )
    if not isinstance(elements, list):
        raise ValueError("Invalid `elements`. `elements` must be a list.")
    items = [normalize(e, "from_list") for e in elements]
    specs = [spec_of(e) for e in items]
    for i, s in enumerate(specs[1:], 1):
        if not same_structure(specs[0], s):
            raise ValueError(
                "from_list: the elements must have the same nested structure; element 0 is "
                f"{specs[0]!r} and element {i} is {s!r}."
            )
    flat = [flatten(s) for s in specs]
    common = [_common(i, [f[i] for f in flat]) for i in range(len(flat[0]))]
    return Elements(items, pack(specs[0], common))


def _common(index: int, specs: list):
    """The most specific spec matching all of ``specs`` (one component of every item)."""
    first = specs[0]
    for s in specs[1:]:
        if type(s) is not type(first) or getattr(s, "dtype", None) != getattr(first, "dtype", None):
            raise TypeError(
                f"from_list: component {index} has spec {first!r} in one element and {s!r} "
                "in another; the types must agree."
            )
        if isinstance(first, TensorSpec):
            first = first.most_specific_compatible_type(s)
    return first


def get_structure(dataset_or_iterator):
    """The element spec of a Dataset or Iterator: a structure of `TensorSpec` etc. (follows
    `tf.data.experimental.get_structure`).

    Raises:
        TypeError: the argument is neither a Dataset nor an Iterator.

    >>> ds = ek.data.Dataset.from_tensor_slices([1, 2, 3])
    >>> ek.data.experimental.get_structure(ds)
    TensorSpec(shape=(), dtype=ek.int32, name=None)
    >>> ek.data.experimental.get_structure(iter(ds))
    TensorSpec(shape=(), dtype=ek.int32, name=None)
    """
    if isinstance(dataset_or_iterator, (Dataset, Iterator)):
        return dataset_or_iterator.element_spec
    raise TypeError(
        "Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a `tf.data.Dataset` or "
        f"tf.data.Iterator object, but got {type(dataset_or_iterator)}."
    )
