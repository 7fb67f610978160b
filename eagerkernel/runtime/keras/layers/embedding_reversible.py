"""ReversibleEmbedding: an Embedding that also projects hidden states back to vocabulary
logits (follows `keras.layers.ReversibleEmbedding`, Keras 3)."""

from __future__ import annotations

import numbers

import numpy as np

from ...ops import elementwise, linalg
from .embedding import Embedding

__all__ = ["ReversibleEmbedding"]


class ReversibleEmbedding(Embedding):
    """An `Embedding` whose ``call(inputs, reverse=True)`` maps ``(..., output_dim)`` hidden
    states to ``(..., input_dim)`` logits (follows `keras.layers.ReversibleEmbedding`).

    ``logits = inputs @ embeddings.T`` when ``tie_weights`` (the default), else
    ``inputs @ reverse_embeddings`` with a separate trainable ``(output_dim, input_dim)``
    weight made by ``embeddings_initializer``. With ``logit_soft_cap = c`` the logits become
    ``tanh(logits / c) * c``. There is no bias.

    Args:
        input_dim, output_dim: vocabulary size and vector size, as `Embedding`.
        tie_weights: reuse the transposed ``embeddings`` for the reverse projection
            (default True).
        embeddings_initializer, embeddings_regularizer, embeddings_constraint, mask_zero: as
            `Embedding` (the reverse call gives no mask).
        reverse_dtype: a dtype both operands are cast to for the reverse matmul (default None:
            the layer's compute dtype).
        logit_soft_cap: None (default) or a number, see above (Keras takes any; 0 raises
            here rather than dividing by zero).
        **kwargs: `Embedding`'s other arguments (``name``, ``dtype``, ``trainable``...).

    Call arguments:
        inputs: integer ids ``(batch, ...)``, or float hidden states ``(batch, ..., output_dim)``
            with ``reverse=True``.
        reverse: project back to logits instead of looking up (default False).

    Output shape:
        ``(batch, ..., output_dim)``, or ``(batch, ..., input_dim)`` with ``reverse=True``.

    Raises:
        ValueError: non-positive dimensions (as `Embedding`), a ``logit_soft_cap`` of 0 or
            not a number.
        InvalidArgumentError: an id outside ``[0, input_dim)``; a reverse input whose last
            axis is not ``output_dim`` (the matmul's error).

    >>> emb = ek.keras.layers.ReversibleEmbedding(10, 4, tie_weights=False, name="rev")
    >>> hidden = emb(ek.constant([[1, 2, 3]]))
    >>> emb(hidden, reverse=True).shape
    TensorShape([1, 3, 10])
    >>> [(v.name, tuple(v.shape)) for v in emb.variables]
    [('rev/embeddings:0', (10, 4)), ('rev/reverse_embeddings:0', (4, 10))]
    """

    def __init__(
        self,
        input_dim,
        output_dim,
        tie_weights=True,
        embeddings_initializer="uniform",
        embeddings_regularizer=None,
        embeddings_constraint=None,
        mask_zero=False,
        reverse_dtype=None,
        logit_soft_cap=None,
        **kwargs,
    ):
        super().__init__(
            input_dim,
            output_dim,
            embeddings_initializer=embeddings_initializer,
            embeddings_regularizer=embeddings_regularizer,
            embeddings_constraint=embeddings_constraint,
            mask_zero=mask_zero,
            **kwargs,
        )
        if logit_soft_cap is not None and (
            isinstance(logit_soft_cap, bool)
            or not isinstance(logit_soft_cap, numbers.Real)
            or logit_soft_cap == 0
        ):
            raise ValueError(
                "ReversibleEmbedding: `logit_soft_cap` must be None or a nonzero number. "
                f"Received: logit_soft_cap={logit_soft_cap!r}"
            )
        self.tie_weights = bool(tie_weights)
        self.reverse_dtype = reverse_dtype
        self.logit_soft_cap = logit_soft_cap

    def build(self, input_shape=None) -> None:
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                "reverse_embeddings",
                shape=(self.output_dim, self.input_dim),
                initializer=self.embeddings_initializer,
            )

    def call(self, inputs, reverse=False):
        if not reverse:
            return super().call(inputs)
        if self.tie_weights:
            logits_kernel, transpose_b = self.embeddings, True
        else:
            logits_kernel, transpose_b = self.reverse_embeddings, False
        if self.reverse_dtype is not None:
            inputs = elementwise.cast(inputs, self.reverse_dtype)
            logits_kernel = elementwise.cast(logits_kernel, self.reverse_dtype)
        logits = linalg.matmul(inputs, logits_kernel, transpose_b=transpose_b)
        if self.logit_soft_cap is not None:
            cap = self.logit_soft_cap
            logits = elementwise.tanh(logits / cap) * cap
        return logits

    def compute_mask(self, inputs, mask=None):
        """``inputs != 0`` for integer ids when ``mask_zero``; None for the float hidden states
        of a reverse call (Keras gives reverse outputs no mask)."""
        if np.dtype(getattr(inputs.dtype, "as_numpy_dtype", inputs.dtype)).kind == "f":
            return None
        return super().compute_mask(inputs, mask)

    def compute_output_shape(self, input_shape, reverse=False) -> tuple:
        if reverse:
            return (*tuple(input_shape)[:-1], self.input_dim)
        return super().compute_output_shape(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "tie_weights": self.tie_weights,
            "reverse_dtype": self.reverse_dtype,
            "logit_soft_cap": self.logit_soft_cap,
        }
