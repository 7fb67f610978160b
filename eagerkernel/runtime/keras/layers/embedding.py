"""Embedding layer."""

from __future__ import annotations

import numbers

from ...ops import elementwise
from ...ops import nn as _nn
from .. import initializers, regularizers
from .base import Layer

__all__ = ["Embedding"]


class Embedding(Layer):
    """Maps integer ids to dense vectors (follows `tf.keras.layers.Embedding`).

    ``outputs[..., :] = embeddings[inputs[...]]``, through `ek.nn.embedding_lookup`; the
    gradient scatter-adds into the rows that were looked up.

    Args:
        input_dim: vocabulary size; ids lie in ``[0, input_dim)``.
        output_dim: size of each vector.
        embeddings_initializer: default ``"uniform"`` (uniform in ``[-0.05, 0.05)``).
        embeddings_regularizer, embeddings_constraint: as for `Dense`'s kernel.
        activity_regularizer: as for `Dense`: a penalty on the output, added at each call.
        sparse: only False (True raises NotImplementedError).
        mask_zero: the output then carries ``ids != 0`` as its Keras mask
            (``_keras_mask``), which the layers after it pass on to the recurrent layers, as
            Keras does (see `eagerkernel.runtime.keras.masking`).
        input_length: accepted for compatibility; not needed.

    Input shape:
        ``(batch_size, ...)`` integer ids (floats are cast to int32, as Keras does).

    Output shape:
        ``(batch_size, ..., output_dim)``.

    Raises:
        ValueError: non-positive dimensions.
        InvalidArgumentError: an id outside ``[0, input_dim)`` (as TensorFlow's CPU gather).

    >>> emb = ek.keras.layers.Embedding(10, 4, name="emb")
    >>> emb(ek.constant([[1, 2, 3]])).shape
    TensorShape([1, 3, 4])
    >>> [(v.name, tuple(v.shape)) for v in emb.variables]
    [('emb/embeddings:0', (10, 4))]
    """

    _input_dtype = "int32"  # what Sequential feeds it when building from a shape

    def __init__(
        self,
        input_dim,
        output_dim,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        activity_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        input_length=None,
        sparse=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        for arg, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
                raise ValueError(  # Keras 3's message: a scalar Tensor is refused too
                    f"`{arg}` must be a positive integer. Received: {arg}={value} "
                    f"(of type {type(value).__name__})."
                )
        if sparse:
            raise NotImplementedError("Embedding: sparse=True is not supported.")
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer or "uniform")
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero  # Keras 3
        self.input_length = input_length

    def build(self, input_shape=None) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer,
            regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint,
        )
        self.built = True

    def call(self, inputs):
        ids = inputs
        if ids._value.dtype.kind not in "iu":
            ids = elementwise.cast(ids, "int32")
        return _nn.embedding_lookup(self.embeddings, ids)

    def compute_mask(self, inputs, mask=None):
        """``inputs != 0`` when ``mask_zero``, else None."""
        if not self.mask_zero:
            return None
        return elementwise.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape) -> tuple:
        return (*tuple(input_shape), self.output_dim)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "mask_zero": self.mask_zero,
        }
