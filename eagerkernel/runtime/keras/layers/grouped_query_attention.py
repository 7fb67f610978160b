"""Grouped-query attention (follows Keras 3's `keras.layers.GroupQueryAttention`, also exported
as ``GroupedQueryAttention``): Ainslie et al. 2023, "GQA: Training Generalized Multi-Query
Transformer Models from Multi-Head Checkpoints"."""

from __future__ import annotations

import math

from ...ops import array_extra, elementwise, linalg
from .. import initializers, masking, regularizers
from .attention import AttentionProjections, combined_attention_mask
from .core import Dropout
from .preprocessing import Softmax

__all__ = ["GroupedQueryAttention"]


class GroupedQueryAttention(AttentionProjections):
    """Attention whose ``num_query_heads`` query heads share ``num_key_value_heads`` key and
    value heads, each shared by ``num_query_heads // num_key_value_heads`` query heads
    (follows Keras 3's `keras.layers.GroupQueryAttention`). One key/value head is multi-query
    attention; as many as query heads, multi-head attention.

    ``query`` is projected to ``(B, T, num_query_heads, head_dim)``, ``key`` and ``value`` to
    ``(B, S, num_key_value_heads, head_dim)``; the key and value heads are repeated to match
    the query heads; per head, ``softmax(q k^T / sqrt(head_dim))`` (masked) weighs the values;
    the heads are projected back to the query's last dimension.

    Args:
        head_dim: the size of each head.
        num_query_heads: the number of query heads, a multiple of ``num_key_value_heads``.
        num_key_value_heads: the number of key and value heads (groups).
        dropout: dropout rate on the attention probabilities, in training only (default 0).
        use_bias: whether the projections have biases (default True).
        sliding_window: None (default: full attention) or a positive int: each query
            position attends only to key positions less than ``sliding_window`` away, on
            either side (with ``use_causal_mask``, the causal sliding window of Mistral).
        flash_attention: accepted as None or False only (no flash kernel here).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
            activity_regularizer, kernel_constraint, bias_constraint: for the projections
            (each gets its own copy of the initializers, as in Keras).
        use_gate: gated attention (Qiu et al. 2025): a ``gate`` projection of the query with
            a sigmoid multiplies the attention output before the output projection.
        seed: seed of the dropout.

    Call arguments:
        query: ``(B, T, dim)``. value: ``(B, S, dim)``. key: ``(B, S, dim_k)``, default
        ``value``. attention_mask: boolean ``(B, T, S)``, True where a query position may
        attend to a key position. query_mask, value_mask, key_mask: the inputs' padding
        masks, filled from their Keras masks. return_attention_scores: also return the
        ``(B, num_query_heads, T, S)`` probabilities (before dropout). training: dropout on
        or off. use_causal_mask: each query position attends only to key positions up to
        its own.

    Output: ``(B, T, dim)`` in the query's last dimension (and the scores).

    Weights (in order): ``query/kernel (dim, num_query_heads, head_dim)``, ``query/bias``,
    ``key/kernel (dim_k, num_key_value_heads, head_dim)``, ``key/bias``, with ``use_gate``
    ``gate/kernel`` and ``gate/bias``, then ``value/kernel``, ``value/bias``,
    ``attention_output/kernel (num_query_heads, head_dim, dim)``, ``attention_output/bias``:
    Keras's order, so ``set_weights(keras_layer.get_weights())`` carries a Keras layer over.

    Raises:
        ValueError: ``num_query_heads`` not a multiple of ``num_key_value_heads``, a bad
            ``sliding_window``, query and value of different last dimensions (Keras's
            messages).
        NotImplementedError: ``flash_attention=True``.

    >>> gqa = ek.keras.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
    ...                                           num_key_value_heads=2)
    >>> out, scores = gqa(ek.ones((1, 5, 8)), ek.ones((1, 3, 8)), return_attention_scores=True)
    >>> out.shape, scores.shape
    (TensorShape([1, 5, 8]), TensorShape([1, 4, 5, 3]))
    """

    supports_masking = True  # the output carries the query's mask on, as in Keras 3

    def __init__(
        self,
        head_dim,
        num_query_heads,
        num_key_value_heads,
        dropout=0.0,
        use_bias=True,
        sliding_window=None,
        flash_attention=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        activity_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        use_gate=False,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if flash_attention:
            raise NotImplementedError("GroupQueryAttention: flash_attention is not supported.")
        self.head_dim = int(head_dim)
        self.num_query_heads = int(num_query_heads)
        self.num_key_value_heads = int(num_key_value_heads)
        if self.num_key_value_heads < 1 or self.num_query_heads % self.num_key_value_heads:
            raise ValueError("`num_query_heads` must be divisible by `num_key_value_heads`.")
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        if sliding_window is not None and (
            not isinstance(sliding_window, int)
            or isinstance(sliding_window, bool)
            or sliding_window <= 0
        ):
            raise ValueError(
                "`sliding_window` must be `None` or a positive integer. "
                f"Received: sliding_window={sliding_window}"
            )
        self.sliding_window = sliding_window
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        self.use_gate = bool(use_gate)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.sublayer_activity_regularizer = regularizers.get(activity_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.seed = seed
        self._query_dense = None

    def build(self, query_shape, value_shape=None, key_shape=None) -> None:
        """Creates the projections for these input shapes (Keras 3's signature). Called with
        the query's shape alone (a first call), building waits for the call."""
        if value_shape is None:
            return
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        shapes = {"query_shape": query_shape, "value_shape": value_shape}
        if key_shape is not None:  # get_build_config's shapes_dict: the shapes passed
            shapes["key_shape"] = tuple(key_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        self.compute_output_shape(query_shape, value_shape, key_shape)  # Keras's checks
        hq, hkv, d = self.num_query_heads, self.num_key_value_heads, self.head_dim
        dense = [
            (self.projection("bqm,muh->bquh", (None, hq, d), "uh", "query"), query_shape),
            (self.projection("bkm,mvh->bkvh", (None, hkv, d), "vh", "key"), key_shape),
        ]
        if self.use_gate:
            gate = self.projection("bqm,muh->bquh", (None, hq, d), "uh", "gate", "sigmoid")
            dense.append((gate, query_shape))
        dense += [
            (self.projection("bkm,mvh->bkvh", (None, hkv, d), "vh", "value"), value_shape),
            (
                self.projection("bquh,uhm->bqm", (None, query_shape[-1]), "m", "attention_output"),
                (None, None, hq, d),
            ),
        ]
        for layer, shape in dense:  # built in Keras's order, each under its own name
            with layer.name_scope:
                layer._maybe_build_shapes(shape)
        layers = [layer for layer, _ in dense]
        self._query_dense, self._key_dense = layers[0], layers[1]
        self._gate_dense = layers[2] if self.use_gate else None
        self._value_dense, self._output_dense = layers[-2], layers[-1]
        self._softmax = Softmax(axis=-1, dtype=self._dtype_policy)
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=self._dtype_policy)
        self._build_input_shape = shapes
        self.built = True

    def call(
        self,
        query,
        value,
        key=None,
        query_mask=None,
        value_mask=None,
        key_mask=None,
        attention_mask=None,
        return_attention_scores=False,
        training=None,
        use_causal_mask=False,
    ):
        value, key = self.built_for(query, value, key)
        mask = combined_attention_mask(
            query,
            value,
            query_mask,
            value_mask,
            key_mask,
            attention_mask,
            use_causal_mask,
            window=self.sliding_window,
        )
        masking.detach(query, value, key)  # the masks are in `mask` now (see Keras 3)
        gate = self._gate_dense(query) if self.use_gate else None
        q = self._query_dense(query)
        k = array_extra.repeat(self._key_dense(key), self.num_repeats, axis=2)
        v = array_extra.repeat(self._value_dense(value), self.num_repeats, axis=2)
        q = q * (1.0 / math.sqrt(float(self.head_dim)))
        scores = linalg.einsum("bquh,bkuh->buqk", q, k)  # (B, heads, T, S)
        fused = not (self.dropout > 0 or return_attention_scores)  # Keras 3's fused path
        out, scores = self.attend(scores, v, mask, "buqk,bkuh->bquh", -3, training, fused)
        if gate is not None:
            out = elementwise.multiply(out, gate)
        out = self._output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def compute_output_shape(self, query_shape, value_shape, key_shape=None) -> tuple:
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if query_shape[-1] != value_shape[-1]:
            raise ValueError(
                "The last dimension of `query_shape` and `value_shape` must be equal, but are "
                f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={query_shape}, "
                f"value_shape={value_shape}"
            )
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}"
            )
        return query_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "head_dim": self.head_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "use_bias": self.use_bias,
            "use_gate": self.use_gate,
            "sliding_window": self.sliding_window,
            "dropout": self.dropout,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.sublayer_activity_regularizer),
            "seed": self.seed,
        }
