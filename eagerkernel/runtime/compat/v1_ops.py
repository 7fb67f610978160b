"""TensorFlow 1.x names of `tf.compat.v1` whose signature or home differs from TensorFlow 2's:
the ``to_*`` casts, the initializers that take ``dtype`` when built (``zeros_initializer(
dtype=tf.float32)``), and `string_split` (a SparseTensor by default).
"""

from __future__ import annotations

import re

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, constant, convert_to_tensor
from ..init_ops import constant_initializer as _v2_constant_initializer
from ..keras.initializers import Ones, Zeros
from ..ops.elementwise import cast
from ..ragged.ragged_tensor import RaggedTensor

__all__ = [
    "constant_initializer",
    "ones_initializer",
    "string_split",
    "to_bfloat16",
    "to_complex64",
    "to_complex128",
    "zeros_initializer",
]


def to_complex64(x, name="ToComplex64") -> Tensor:
    """``x`` cast to complex64 (follows `tf.compat.v1.to_complex64`).

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.to_complex64(ek.constant(1.0 + 2.0j, dtype=ek.complex128))
    <Tensor: shape=(), dtype=complex64, numpy=(1+2j)>
    """
    return cast(x, dtypes.complex64)


def to_complex128(x, name="ToComplex128") -> Tensor:
    """``x`` cast to complex128 (follows `tf.compat.v1.to_complex128`).

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.to_complex128([1.0, 2.0]).dtype
    ek.complex128
    """
    return cast(x, dtypes.complex128)


def to_bfloat16(x, name="ToBFloat16"):
    """TensorFlow's cast to bfloat16 (`tf.compat.v1.to_bfloat16`).

    Raises:
        NotImplementedError: always. NumPy has no bfloat16 dtype, so eagerkernel has no
            ``ek.bfloat16``; cast to float16 or float32 instead.
    """
    raise NotImplementedError(
        "to_bfloat16: eagerkernel has no bfloat16 dtype (NumPy lacks one); cast to float16 or "
        "float32 instead, e.g. ek.cast(x, ek.float16)."
    )


class _DTypeAtInit:
    """TF 1.x's initializers: ``dtype`` (default float32) is given when built and used when
    the call gives none; ``partition_info`` is accepted and ignored, as eagerly it is."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None, **kwargs) -> Tensor:
        return super().__call__(shape, dtype=self.dtype if dtype is None else dtype)

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class zeros_initializer(_DTypeAtInit, Zeros):
    """All zeros (follows `tf.compat.v1.zeros_initializer`: ``dtype`` at construction).

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.zeros_initializer(dtype=ek.int32)(shape=[2]).numpy()
    array([0, 0], dtype=int32)
    """


class ones_initializer(_DTypeAtInit, Ones):
    """All ones (follows `tf.compat.v1.ones_initializer`: ``dtype`` at construction).

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.ones_initializer(ek.float64)(shape=[2]).numpy()
    array([1., 1.])
    """


class constant_initializer(_v2_constant_initializer):
    """Fills with ``value`` (follows `tf.compat.v1.constant_initializer`): as TF 2's
    `ek.constant_initializer`, but of ``dtype`` (float32 by default) when the call gives none.

    Args:
        value: a Python scalar, list or tuple of values, or a NumPy array; a list or array must
            have as many elements as the shape. dtype: the default dtype of the result.
        verify_shape: accepted, as TensorFlow 1.x; the element count is always checked.

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.constant_initializer([1, 2])(shape=[2]).numpy()
    array([1., 2.], dtype=float32)
    """

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        super().__init__(value)
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None, **kwargs) -> Tensor:
        return super().__call__(shape, dtype=self.dtype if dtype is None else dtype)

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name}


def string_split(
    source, sep=None, skip_empty=True, delimiter=None, result_type="SparseTensor", name=None
):
    """Splits each string of ``source`` at ``sep`` (follows `tf.compat.v1.string_split`).

    Unlike TF 2's `ek.strings.split`, the default separator is one space, each character of a
    longer ``sep`` is a separator of its own, an empty ``sep`` splits into single bytes, and
    empty tokens are dropped unless ``skip_empty=False``.

    Args:
        source: a 1-D string tensor (or list). sep: a string (default ``" "``);
            ``delimiter`` is its deprecated alias.
        result_type: ``"SparseTensor"`` (int64 indices ``[row, position]``, dense shape
            ``[len(source), most tokens]``) or ``"RaggedTensor"``.

    Raises:
        InvalidArgumentError: ``source`` not of rank 1. TypeError: a non-string ``sep``.
        ValueError: another ``result_type``.

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.string_split(["hello world", "a b c"], result_type="RaggedTensor")
    <RaggedTensor [[b'hello', b'world'], [b'a', b'b', b'c']]>
    """
    if result_type not in ("SparseTensor", "RaggedTensor"):
        raise ValueError("result_type must be 'RaggedTensor' or 'SparseTensor'.")
    sep = delimiter if sep is None else sep
    sep = " " if sep is None else sep
    if isinstance(sep, Tensor):
        sep = sep.numpy().item()
    if isinstance(sep, str):
        sep = sep.encode()
    if not isinstance(sep, bytes):
        raise TypeError(f"string_split: sep must be a string, got {sep!r}.")
    src = convert_to_tensor(source, dtype=dtypes.string)
    if src.ndim != 1:
        raise InvalidArgumentError(
            None,
            "StringSplit",
            f"string_split: input must be a vector, got shape {list(src.shape)}.",
        )
    pattern = re.compile(b"[" + re.escape(sep) + b"]") if sep else None
    rows = [[bytes([b]) for b in s] if pattern is None else pattern.split(s) for s in src.numpy()]
    if skip_empty:
        rows = [[t for t in r if t] for r in rows]
    values = np.empty(sum(map(len, rows)), dtype=object)
    values[:] = [t for r in rows for t in r]
    lengths = np.asarray([len(r) for r in rows], dtype=np.int64)
    out = RaggedTensor.from_row_lengths(constant(values, dtype=dtypes.string), lengths)
    return out if result_type == "RaggedTensor" else out.to_sparse()
