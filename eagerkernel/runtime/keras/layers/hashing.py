"""Hashing preprocessing layers (follow Keras 3's `Hashing` and `HashedCrossing`): values, or
crosses of several features, to a fixed number of buckets, with TensorFlow's hashes, so the
buckets are the ones Keras gives for the same inputs. They compute on the host and have no
weights; their outputs carry no gradient, as in Keras."""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import Tensor, to_tensor
from .base import Layer
from .categorical import encode_categorical, host_array, host_tensor

__all__ = ["HashedCrossing", "Hashing"]


def _salt(salt) -> list | None:
    """Keras's ``salt``: None, an int (used twice) or two ints: SipHash's key."""
    if salt is None:
        return None
    if isinstance(salt, numbers.Integral) and not isinstance(salt, bool):
        return [int(salt), int(salt)]
    if (
        isinstance(salt, (tuple, list))
        and len(salt) == 2
        and all(isinstance(s, numbers.Integral) for s in salt)
    ):
        return [int(s) for s in salt]
    raise ValueError(
        "The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a single "
        f"integer. Received: salt={salt}."
    )


class Hashing(Layer):
    """Values to ``num_bins`` buckets by hashing (follows `tf.keras.layers.Hashing`).

    Strings, and integers as their decimal text, are hashed with FarmHash's Fingerprint64
    (TensorFlow's ``strings.to_hash_bucket_fast``; needs pyfarmhash), or, with ``salt``, with
    SipHash-2-4 keyed by the salt (``strings.to_hash_bucket_strong``). ``mask_value`` maps to
    bucket 0 and the other values to ``[1, num_bins)``.

    Args:
        num_bins: the buckets, >= 1.
        mask_value: a value sent to bucket 0 (default None: no mask).
        salt: None, an int, or two ints: the SipHash key (stored as two ints).
        output_mode: ``"int"`` (default: int64 bucket ids), ``"one_hot"``, ``"multi_hot"``
            or ``"count"`` (float32 vectors of ``num_bins``).

    Raises:
        ValueError: ``num_bins`` < 1, a bad ``salt`` or ``output_mode``.
        NotImplementedError: ``sparse=True``.

    >>> ek.keras.layers.Hashing(num_bins=3, salt=133)(ek.constant(["a", "b", "c"])).numpy()
    array([0, 2, 2])
    """

    def __init__(
        self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs
    ):
        if num_bins is None or int(num_bins) < 1:
            raise ValueError(f"Hashing: num_bins must be >= 1. Received: num_bins={num_bins}")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Hashing: unknown output_mode={output_mode!r}.")
        if sparse:
            raise NotImplementedError("Hashing: sparse=True is not supported.")
        self.salt = _salt(salt)
        super().__init__(**kwargs)
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.output_mode = output_mode

    def _buckets(self, text: np.ndarray, bins: int) -> np.ndarray:
        from ...ops.strings import to_hash_bucket_fast
        from ...ops.strings_hash import to_hash_bucket_strong

        if self.salt is None:
            return to_hash_bucket_fast(to_tensor(text), bins).numpy()
        return to_hash_bucket_strong(to_tensor(text), bins, self.salt).numpy()

    def call(self, inputs):
        arr = host_array(inputs)
        text = np.vectorize(
            lambda v: v if isinstance(v, bytes) else str(v).encode("utf-8"), otypes=[object]
        )(np.asarray(arr, dtype=object))
        if self.mask_value is None or self.num_bins == 1:
            out = self._buckets(text, self.num_bins)
        else:
            m = self.mask_value
            if (np.asarray(arr).dtype.kind in "OSU") != isinstance(m, (str, bytes)):
                raise TypeError(  # TF converts it to the inputs' dtype to compare
                    f"Hashing: cannot convert mask_value={m!r} to the dtype of the inputs "
                    f"({np.asarray(arr).dtype})."
                )
            m = m if isinstance(m, bytes) else str(m).encode("utf-8")
            mask = np.vectorize(lambda v: v == m, otypes=[bool])(text)
            out = np.where(mask, 0, self._buckets(text, self.num_bins - 1) + 1)
        out = np.asarray(out, np.int64)
        if self.output_mode == "int":
            return host_tensor(out)
        return host_tensor(encode_categorical(out, self.num_bins, self.output_mode))

    def compute_output_shape(self, input_shape) -> tuple:
        """Keras 3's formula: the input shape for ``"int"``; else the last axis replaced by
        ``num_bins`` (also for ``"one_hot"``, whose call adds an axis to a 2-D input)."""
        if self.output_mode == "int":
            return tuple(input_shape)
        return (*tuple(input_shape)[:-1], self.num_bins)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_bins": self.num_bins,
            "salt": self.salt,
            "mask_value": self.mask_value,
            "output_mode": self.output_mode,
            "sparse": False,
        }


class HashedCrossing(Layer):
    """Crosses two or more categorical features into ``num_bins`` buckets (follows
    `tf.keras.layers.HashedCrossing`): sample ``i``'s bucket hashes the tuple of the inputs'
    ``i``-th values, as `ek.sparse.cross_hashed` (TensorFlow's buckets; needs pyfarmhash).

    Called on a tuple or list of dense integer or string tensors of one shape: ``()``,
    ``(batch,)`` or ``(batch, 1)``; the output has that shape (int64 bucket ids) or, with
    ``output_mode="one_hot"``, one float32 vector of ``num_bins`` per sample.

    Raises:
        ValueError: an ``output_mode`` other than ``"int"``/``"one_hot"`` (when built); fewer
            than two inputs, shapes that differ or are not one of those, ragged or sparse
            inputs, or another dtype (when called). NotImplementedError: ``sparse=True``.

    >>> layer = ek.keras.layers.HashedCrossing(num_bins=5)
    >>> layer((ek.constant(["a", "b"]), ek.constant([1, 2]))).numpy()
    array([0, 2])
    """

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None, **kw):
        if output_mode not in ("int", "one_hot"):
            raise ValueError(
                "Unknown value for `output_mode` argument of HashedCrossing. Allowed values "
                f"are: ('int', 'one_hot'). Received: output_mode={output_mode}"
            )
        if sparse:
            raise NotImplementedError("HashedCrossing: sparse=True is not supported.")
        if num_bins is None or int(num_bins) < 1:
            raise ValueError(
                f"HashedCrossing: num_bins must be >= 1. Received: num_bins={num_bins}"
            )
        if dtype is None:
            dtype = "int64" if output_mode == "int" else "float32"
        kw.setdefault("autocast", False)  # inputs are checked as given, as Keras's
        super().__init__(name=name, dtype=dtype, **kw)
        self.num_bins = int(num_bins)
        self.output_mode = output_mode

    def call(self, inputs):
        from ...core.composite import CompositeTensor
        from ...sparse.cross import cross_hashed

        what = "HashedCrossing"
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                f"`{what}` should be called on a list or tuple of inputs. Received: "
                f"inputs={inputs!r:.80}"
            )
        if len(inputs) < 2:
            raise ValueError(
                f"`{what}` should be called on at least two inputs. Received: inputs={inputs!r:.80}"
            )
        if any(isinstance(x, CompositeTensor) for x in inputs):
            raise ValueError(f"All `{what}` inputs should be dense tensors. Received: {inputs}")
        tensors = [x if isinstance(x, Tensor) else to_tensor(x) for x in inputs]
        shape = tuple(tensors[0].shape)
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise ValueError(
                f"All `{what}` inputs should have shape `()`, `(batch_size)` or `(batch_size, "
                f"1)`. Received: shapes {[tuple(t.shape) for t in tensors]}"
            )
        if any(tuple(t.shape) != shape for t in tensors[1:]):
            raise ValueError(
                f"All `{what}` inputs should have equal shape. Received: shapes "
                f"{[tuple(t.shape) for t in tensors]}"
            )
        if any(not (t.dtype.is_integer or t.dtype.name == "string") for t in tensors):
            raise ValueError(
                f"All `{what}` inputs should have an integer or string dtype. Received: "
                f"dtypes {[t.dtype.name for t in tensors]}"
            )
        columns = [np.asarray(t.numpy()).reshape(-1, 1) for t in tensors]
        crossed = cross_hashed([to_tensor(c) for c in columns], self.num_bins)
        out = crossed.values.numpy().reshape(shape)
        if self.output_mode == "one_hot":
            out = encode_categorical(out.reshape(-1), self.num_bins, "one_hot")
            out = out.reshape(*shape[:1], self.num_bins) if shape else out[0]
        return host_tensor(out)

    def compute_output_shape(self, input_shape) -> tuple:
        shape = tuple(input_shape[0])
        if self.output_mode == "one_hot":
            return (*shape[:1], self.num_bins)
        return shape

    def compute_output_spec(self, inputs):
        """A KerasTensor of `compute_output_shape` in the layer's dtype (int64 ids, float32
        one-hot), as Keras 3, whatever the inputs' integer dtype."""
        from ..keras_tensor import KerasTensor

        return KerasTensor(self.compute_output_shape([tuple(t.shape) for t in inputs]), self.dtype)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_bins": self.num_bins,
            "output_mode": self.output_mode,
            "sparse": False,
        }
