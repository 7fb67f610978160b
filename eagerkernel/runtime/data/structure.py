"""Element structures of a Dataset: `TensorSpec`, `DatasetSpec`, and tf.data's nesting rules.

tf.data nests differently from `ek.nest`: tuples, namedtuples and dicts are structure, while a
Python *list* is one component, converted to a single tensor (``from_tensor_slices([1, 2, 3])``
has three scalar elements, not one 3-tuple). Functions given to `map` that return a list have
it read as a tuple, as TensorFlow does, since such a list is more likely a set of outputs than
one stackable value.
"""

from __future__ import annotations

import numpy as np

from ..core import dtypes
from ..core.composite import CompositeTensor
from ..core.context import ACTIVE
from ..core.shape import PartialShape, UnknownShape
from ..core.tape import stop_recording
from ..core.tensor import Tensor, convert_to_tensor

__all__ = ["DatasetSpec", "TensorSpec"]


def as_shape(shape, op: str = "TensorSpec", arg: str = "shape") -> PartialShape:
    """A `PartialShape` from None (unknown rank), an int (a vector's length), or a sequence of
    ints, Nones and -1s (unknown dims); raises TypeError for anything else."""
    if isinstance(shape, UnknownShape) or shape is None:
        return UnknownShape()
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    try:
        dims = list(shape)
    except TypeError:
        raise TypeError(
            f"{op}: {arg} must be a shape (a list of ints or None), got "
            f"{type(shape).__name__} {shape!r}."
        ) from None
    out = []
    for d in dims:
        if d is None or (isinstance(d, (int, np.integer)) and int(d) == -1):
            out.append(None)
        elif isinstance(d, (int, np.integer)) and int(d) >= 0:
            out.append(int(d))
        else:
            raise TypeError(f"{op}: {arg} has an invalid dimension {d!r}; got {arg}={shape!r}.")
    return PartialShape(out)


# -- specs --------------------------------------------------------------------------------------


class TensorSpec:
    """The type of one tensor component of a Dataset element (follows `tf.TensorSpec`).

    Args:
        shape: a shape whose dimensions may be None (unknown); None means unknown rank.
        dtype: a `DType` or anything `ek.as_dtype` accepts (default float32).
        name: optional name, unused.

    >>> spec = ek.data.TensorSpec([None, 2], ek.int32)
    >>> spec
    TensorSpec(shape=(None, 2), dtype=ek.int32, name=None)
    >>> spec.is_compatible_with(ek.constant([[1, 2]]))
    True
    """

    __slots__ = ("_dtype", "_name", "_shape")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None) -> TensorSpec:
        """The spec of a concrete tensor (its full shape and dtype)."""
        t = convert_to_tensor(tensor)
        return cls(t.shape, t.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None) -> TensorSpec:
        """A spec with ``spec``'s shape and dtype, named ``name`` (default ``spec.name``)
        (follows `tf.TensorSpec.from_spec`).

        >>> spec = ek.TensorSpec(shape=[8, 3], dtype=ek.int32, name="OriginalName")
        >>> ek.TensorSpec.from_spec(spec, "NewName")
        TensorSpec(shape=(8, 3), dtype=ek.int32, name='NewName')

        Raises:
            AttributeError: ``spec`` has no name (a RaggedTensorSpec, as in TensorFlow).
        """
        return cls(spec.shape, spec.dtype, name or spec.name)

    @property
    def shape(self) -> PartialShape:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def value_type(self) -> type:
        return Tensor

    def is_compatible_with(self, spec_or_value) -> bool:
        """True if a tensor or spec has this dtype and a shape compatible with this one."""
        other = spec_or_value
        if not isinstance(other, TensorSpec):
            if not isinstance(other, Tensor):
                other = convert_to_tensor(other)
            return other.dtype == self._dtype and self._shape.is_compatible_with(other.shape)
        return other._dtype == self._dtype and self._shape.is_compatible_with(other._shape)

    def most_specific_compatible_type(self, other: TensorSpec) -> TensorSpec:
        """A spec both match: unknown dimensions where the shapes differ.

        Raises:
            TypeError: if the dtypes differ.
        """
        if not isinstance(other, TensorSpec) or other._dtype != self._dtype:
            raise TypeError(f"{self!r} and {other!r} have no common type.")
        return TensorSpec(self._shape.most_specific_compatible_shape(other._shape), self._dtype)

    def __eq__(self, other) -> bool:
        return (
            type(other) is type(self)
            and other._dtype == self._dtype
            and tuple(other._shape) == tuple(self._shape)
            and isinstance(other._shape, UnknownShape) == isinstance(self._shape, UnknownShape)
            and other._name == self._name
        )

    def __hash__(self) -> int:
        return hash((tuple(self._shape), self._dtype, self._name))

    def __repr__(self) -> str:
        shape = self._shape
        s = "None" if isinstance(shape, UnknownShape) else repr(tuple(shape))
        return f"TensorSpec(shape={s}, dtype={self._dtype!r}, name={self._name!r})"


class DatasetSpec:
    """The type of a component that is itself a Dataset, as `window` yields (follows
    `tf.data.DatasetSpec`).

    >>> ek.data.Dataset.range(5).window(2).element_spec
    DatasetSpec(TensorSpec(shape=(), dtype=ek.int64, name=None), TensorShape([]))
    """

    __slots__ = ("_element_spec",)

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec

    @staticmethod
    def from_value(value) -> DatasetSpec:
        """The spec of a Dataset (follows `tf.data.DatasetSpec.from_value`).

        >>> ek.data.DatasetSpec.from_value(ek.data.Dataset.range(3))
        DatasetSpec(TensorSpec(shape=(), dtype=ek.int64, name=None), TensorShape([]))
        """
        return DatasetSpec(value.element_spec)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def value_type(self) -> type:
        from .dataset import Dataset

        return Dataset

    def is_compatible_with(self, other) -> bool:
        from .dataset import Dataset

        if isinstance(other, Dataset):
            other = DatasetSpec(other.element_spec)
        return isinstance(other, DatasetSpec) and specs_compatible(
            self._element_spec, other._element_spec
        )

    def __eq__(self, other) -> bool:
        return isinstance(other, DatasetSpec) and other._element_spec == self._element_spec

    def __hash__(self) -> int:
        return hash(("DatasetSpec", repr(self._element_spec)))

    def __repr__(self) -> str:
        return f"DatasetSpec({self._element_spec!r}, TensorShape([]))"


# -- nesting (tuples, namedtuples and dicts; lists are leaves) ----------------------------------


def is_structure(x) -> bool:
    """Tuples, namedtuples and dicts nest; lists, shapes (tuple subclasses) and tensors don't."""
    return type(x) is tuple or isinstance(x, dict) or _is_namedtuple(x)


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten(structure) -> list:
    """The leaves of a tf.data structure, depth first; dict values in sorted key order."""
    if type(structure) is tuple or _is_namedtuple(structure):
        out = []
        for s in structure:
            if isinstance(s, (tuple, dict)) and is_structure(s):
                out.extend(flatten(s))
            else:
                out.append(s)
        return out
    if isinstance(structure, dict):
        out = []
        for k in sorted(structure):
            out.extend(flatten(structure[k]))
        return out
    return [structure]


def pack(structure, flat):
    """Rebuilds ``structure`` (a nested value or spec) from the leaves in ``flat``."""
    it = iter(flat)
    return _pack(structure, it)


def _pack(structure, it):
    if type(structure) is tuple or _is_namedtuple(structure):
        items = [_pack(s, it) for s in structure]
        if type(structure) is not tuple:  # a namedtuple
            return type(structure)(*items)
        return tuple(items)
    if isinstance(structure, dict):
        values = {k: _pack(structure[k], it) for k in sorted(structure)}
        return type(structure)((k, values[k]) for k in structure)
    return next(it)


def packer(structure):
    """A fast function from a flat list of leaves to ``structure``'s shape."""
    if not is_structure(structure):
        return lambda flat: flat[0]
    if type(structure) is tuple and not any(is_structure(s) for s in structure):
        return tuple
    return lambda flat: pack(structure, flat)


def map_structure(fn, *structures):
    """Applies ``fn`` to corresponding leaves; the result has the first structure's shape."""
    flats = [flatten(s) for s in structures]
    return pack(structures[0], [fn(*xs) for xs in zip(*flats)])


def same_structure(a, b) -> bool:
    """True if ``a`` and ``b`` nest the same way (same tuple lengths and dict keys)."""
    a_seq = is_structure(a) and not isinstance(a, dict)
    b_seq = is_structure(b) and not isinstance(b, dict)
    if a_seq or b_seq:
        return (
            a_seq and b_seq and len(a) == len(b) and all(same_structure(x, y) for x, y in zip(a, b))
        )
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and set(a) == set(b)
            and all(same_structure(a[k], b[k]) for k in a)
        )
    return True


def specs_compatible(a, b) -> bool:
    """True if two element specs have the same structure and compatible leaves."""
    if not same_structure(a, b):
        return False
    return all(x.is_compatible_with(y) for x, y in zip(flatten(a), flatten(b)))


def flatten_up_to(shallow, deep, op: str, arg: str) -> list:
    """The subtrees of ``deep`` at the leaves of ``shallow`` (so a shape or a list can be the
    value for one component). A non-structure ``deep`` is repeated for every leaf.

    Raises:
        ValueError: ``deep`` nests differently from ``shallow``.
    """
    if not isinstance(deep, (tuple, dict)) or (
        type(deep) is not tuple and isinstance(deep, tuple) and not hasattr(deep, "_fields")
    ):
        return [deep] * len(flatten(shallow))
    return _up_to(shallow, deep, op, arg)


def _up_to(shallow, deep, op, arg):
    if isinstance(shallow, dict):
        if not isinstance(deep, dict) or set(deep) != set(shallow):
            raise ValueError(
                f"{op}: {arg} must have the structure of the elements. Received: {arg}={deep!r}"
            )
        out = []
        for k in sorted(shallow):
            out.extend(_up_to(shallow[k], deep[k], op, arg))
        return out
    if isinstance(shallow, tuple):
        if not isinstance(deep, (tuple, list)) or len(deep) != len(shallow):
            raise ValueError(
                f"{op}: {arg} must have the structure of the elements. Received: {arg}={deep!r}"
            )
        out = []
        for s, d in zip(shallow, deep):
            out.extend(_up_to(s, d, op, arg))
        return out
    return [deep]


# -- elements -----------------------------------------------------------------------------------


def to_component(value, op: str):
    """One leaf of an element: a Tensor (Variables are read), or a Dataset kept as it is."""
    from .dataset import Dataset

    if type(value) is Tensor or isinstance(value, (Dataset, CompositeTensor)):
        return value  # a RaggedTensor or SparseTensor component is kept as it is
    if value is None:
        raise TypeError(
            f"{op}: an element component is None; tf.data elements are tensors (did the "
            "function forget to return a value?)."
        )
    try:
        return convert_to_tensor(value)
    except TypeError as e:
        raise TypeError(
            f"{op}: cannot use {type(value).__name__} {value!r:.60} as an element component: {e}"
        ) from None


def normalize(value, op: str):
    """A structure of Python values, arrays and tensors -> the same structure of Tensors."""
    if isinstance(value, (tuple, dict)):
        return map_structure(lambda v: to_component(v, op), value)
    return to_component(value, op)


def function_output(value, op: str):
    """A user function's return value as an element: a top-level list is read as a tuple."""
    if isinstance(value, list):
        value = tuple(value)
    return normalize(value, op)


def spec_of(element):
    """The spec of a concrete element: TensorSpecs with full shapes, DatasetSpecs for datasets."""
    from .dataset import Dataset

    def leaf(x):
        if isinstance(x, Dataset):
            return DatasetSpec(x.element_spec)
        if isinstance(x, CompositeTensor):
            from ..extension_type import type_spec_from_value

            return type_spec_from_value(x)  # RaggedTensorSpec, SparseTensorSpec, a Spec
        return TensorSpec(x.shape, x.dtype)

    return map_structure(leaf, element)


def call(fn, element):
    """Calls a user function on an element (unpacked when it is a plain tuple, as tf.data
    does) with this thread's tapes paused: pipeline functions are not recorded, as in TF."""
    if ACTIVE:
        with stop_recording():
            return fn(*element) if type(element) is tuple else fn(element)
    return fn(*element) if type(element) is tuple else fn(element)


def call_args(fn, *args):
    """Calls ``fn(*args)`` with this thread's tapes paused."""
    if ACTIVE:
        with stop_recording():
            return fn(*args)
    return fn(*args)


def to_numpy(element):
    """An element with each tensor replaced by a read-only NumPy value (a NumPy scalar for
    rank 0), as `as_numpy_iterator` yields.

    Raises:
        TypeError: for components that are Datasets (as TensorFlow does).
    """
    from .dataset import Dataset

    def leaf(t):
        if isinstance(t, Dataset):
            raise TypeError(
                "as_numpy_iterator: not supported for datasets whose elements contain "
                "Datasets (e.g. from `window`); iterate the nested datasets instead."
            )
        v = t.numpy()
        if isinstance(v, np.ndarray):
            if v.ndim == 0:
                return v[()]
            v = v.view()
            v.flags.writeable = False
        return v

    if isinstance(element, (tuple, dict)):
        return map_structure(leaf, element)
    return leaf(element)
