"""Attention layers of Keras 3: MultiHeadAttention, Attention (Luong) and AdditiveAttention
(Bahdanau) (follow the `tf.keras.layers` classes of those names), and what GroupQueryAttention
shares with MultiHeadAttention (`AttentionProjections`, `combined_attention_mask`)."""

from __future__ import annotations

import math
import numbers
import string

import numpy as np

from ...core.tensor import Tensor, to_tensor
from ...ops import array_ops, elementwise, linalg, reduction
from ...ops import nn as _nn
from .. import initializers, masking, regularizers
from .. import random as keras_random
from ._utils import shape_of
from .base import Layer
from .core import Dropout
from .einsum_dense import EinsumDense
from .preprocessing import Softmax

__all__ = [
    "AdditiveAttention",
    "Attention",
    "AttentionProjections",
    "MultiHeadAttention",
    "combined_attention_mask",
]


# -- MultiHeadAttention ------------------------------------------------------------------------
def _proj_equation(free_dims: int, bound_dims: int, output_dims: int) -> tuple[str, str, int]:
    """Keras's ``_build_proj_equation``: an EinsumDense equation keeping ``free_dims`` axes,
    contracting ``bound_dims`` and producing ``output_dims``; with its bias axes."""
    letters = string.ascii_lowercase
    free = letters[:free_dims]
    bound = letters[free_dims : free_dims + bound_dims]
    outs = letters[free_dims + bound_dims : free_dims + bound_dims + output_dims]
    return f"{free}{bound},{bound}{outs}->{free}{outs}", outs, free_dims + output_dims


def _attention_equations(rank: int, attn_axes: tuple) -> tuple[str, str, int]:
    """Keras's ``_build_attention_equation`` for projected tensors of rank ``rank``
    (``(batch, *attention axes, heads, depth)``): the key-query product giving the scores
    ``(batch, heads, *query axes, *key axes)``, and the scores-value combination."""
    letters = string.ascii_lowercase
    target = letters[:rank]
    batch_dims = [i for i in range(rank) if i not in attn_axes and i != rank - 1]
    source = list(target)
    offset = rank
    for i in range(rank):
        if i not in batch_dims and i != rank - 1:
            source[i] = letters[offset]
            offset += 1
    source = "".join(source)
    product = "".join(
        [target[i] for i in batch_dims]
        + [target[i] for i in attn_axes]
        + [source[i] for i in attn_axes]
    )
    return f"{source},{target}->{product}", f"{product},{source}->{target}", len(product)


def _as_bool(mask, what: str) -> Tensor:
    t = mask if isinstance(mask, Tensor) else to_tensor(mask, None, f"MultiHeadAttention {what}")
    return t if t._value.dtype == np.bool_ else elementwise.cast(t, np.bool_)


def _causal_mask(q_len: int, v_len: int) -> Tensor:
    """``(1, q_len, v_len)``, True where the key position is not after the query's (Keras's
    ``_compute_causal_mask``: row index >= column index)."""
    return to_tensor(np.tril(np.ones((q_len, v_len), dtype=bool))[None], None, "causal mask")


def combined_attention_mask(
    query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask, window=None
):
    """The boolean ``(B, T, S)`` mask of which query positions may attend to which key
    positions, as Keras 3's attention layers combine it (``_compute_attention_mask``):
    ``query_mask`` ``(B, T)`` as ``(B, T, 1)``, ``value_mask`` and ``key_mask`` ``(B, S)`` as
    ``(B, 1, S)``, the causal mask ``(1, T, S)`` and, with ``window`` (GroupedQueryAttention's
    ``sliding_window``), the band ``|t - s| < window``, ANDed with ``attention_mask``. None
    when there is no mask at all."""
    auto = None
    if query_mask is not None:
        auto = array_ops.expand_dims(_as_bool(query_mask, "query_mask"), -1)  # (B, T, 1)
    for name, m in (("value_mask", value_mask), ("key_mask", key_mask)):
        if m is not None:
            m = array_ops.expand_dims(_as_bool(m, name), -2)  # (B, 1, S)
            auto = m if auto is None else elementwise.logical_and(auto, m)
    q_len, v_len = shape_of(query)[1], shape_of(value)[1]
    if use_causal_mask:
        m = _causal_mask(q_len, v_len)
        auto = m if auto is None else elementwise.logical_and(auto, m)
    if window is not None:
        rows, cols = np.arange(q_len)[:, None], np.arange(v_len)[None, :]
        m = to_tensor((np.abs(rows - cols) < window)[None], None, "sliding window mask")
        auto = m if auto is None else elementwise.logical_and(auto, m)
    if attention_mask is not None:
        attention_mask = _as_bool(attention_mask, "attention_mask")
    if auto is not None:
        attention_mask = (
            auto if attention_mask is None else elementwise.logical_and(attention_mask, auto)
        )
    return attention_mask


def _shape(rank: int, last: tuple) -> list:
    """An EinsumDense ``output_shape`` of ``rank`` (the batch axis included) ending in
    ``last``, the other sizes unknown."""
    return [None] * (rank - 1 - len(last)) + list(last)


class AttentionProjections(Layer):
    """What MultiHeadAttention and GroupQueryAttention share: their `EinsumDense`
    projections (each with its own copy of the layer's initializers, as Keras makes them),
    building on the first call, and `build_from_config`. A subclass sets the attributes
    ``use_bias``, ``kernel_initializer``, ``bias_initializer``, ``kernel_regularizer``,
    ``bias_regularizer``, ``kernel_constraint`` and ``bias_constraint``, ``_query_dense`` to
    None until built, and implements ``build(query_shape, value_shape, key_shape)``."""

    sublayer_activity_regularizer = None  # GroupQueryAttention's, given to the projections

    def projection(self, equation, output_shape, bias_axes, name, activation=None):
        """An `EinsumDense` sublayer named ``name`` with this layer's settings."""

        def clone(init):  # a fresh initializer per projection, as Keras makes
            return (
                type(init).from_config(init.get_config()) if hasattr(init, "get_config") else init
            )

        return EinsumDense(
            equation,
            output_shape=output_shape,
            activation=activation,
            bias_axes=bias_axes if self.use_bias else None,
            kernel_initializer=clone(self.kernel_initializer),
            bias_initializer=clone(self.bias_initializer),
            kernel_regularizer=self.kernel_regularizer,
            bias_regularizer=self.bias_regularizer,
            activity_regularizer=self.sublayer_activity_regularizer,
            kernel_constraint=self.kernel_constraint,
            bias_constraint=self.bias_constraint,
            name=name,
            dtype=self._dtype_policy,
        )

    def built_for(self, query, value, key) -> tuple:
        """``(value, key)`` as Tensors (``key`` defaults to ``value``), the projections built
        for the three inputs' shapes if they are not yet."""
        value = value if isinstance(value, Tensor) else to_tensor(value, None, self.name)
        given = key is not None  # Keras 3 records a key shape only for a key passed
        if key is None:
            key = value
        elif not isinstance(key, Tensor):
            key = to_tensor(key, None, self.name)
        if self._query_dense is None:
            self.build(shape_of(query), shape_of(value), shape_of(key) if given else None)
        return value, key

    def attend(
        self, scores, value, mask, combine_equation: str, mask_axis: int, training, fused=False
    ):
        """``(weighed values, probabilities)``: the softmax of ``scores`` where ``mask``
        allows (the mask broadcast over the heads by inserting axes at ``mask_axis``, as
        Keras expands it), dropout in training, then ``combine_equation`` over the values.

        ``fused``: Keras 3 computes an attention with no dropout, no returned scores and a
        4-D projected query by `ops.dot_product_attention`, which sets masked scores to a
        large negative number and does not zero them after the softmax: a query row whose
        keys are all masked (a padded query) weighs every key equally. Otherwise the
        `Softmax` layer zeroes the masked weights, such a row's output being the bias."""
        if mask is not None:
            while len(mask.shape) < len(scores.shape):  # (B, T, S) -> (B, 1, T, S)
                mask = array_ops.expand_dims(mask, mask_axis)
            mask = array_ops.broadcast_to(mask, scores.shape)
        if fused and mask is not None:
            neg = -3e4 if scores.dtype == "float16" else -1e9  # Keras's large negatives
            scores = _nn.softmax(elementwise.where(mask, scores, neg), axis=-1)
        else:
            scores = self._softmax(scores, mask=mask)
        dropped = self._dropout_layer(scores, training=training) if self.dropout else scores
        return linalg.einsum(combine_equation, dropped, value), scores

    def build_from_config(self, config: dict) -> None:
        """Builds for the ``query_shape``/``value_shape``/``key_shape`` a saved model's build
        config holds under ``"shapes_dict"`` (Keras 3; earlier files: ``"input_shape"``;
        nothing when it has no value shape: built on the first call)."""
        shapes = config.get("shapes_dict") or config.get("input_shape")
        if isinstance(shapes, dict) and shapes.get("value_shape") is not None:
            with self.name_scope:
                self.build(**{k: None if v is None else tuple(v) for k, v in shapes.items()})


class MultiHeadAttention(AttentionProjections):
    """Multi-head (scaled dot-product) attention, "Attention Is All You Need" (follows
    `tf.keras.layers.MultiHeadAttention`, Keras 3).

    ``query``, ``key`` and ``value`` are projected by `EinsumDense` sublayers named
    ``query``, ``key`` and ``value`` to ``num_heads`` heads of sizes ``key_dim``, ``key_dim``
    and ``value_dim``; per head, ``softmax(q k^T / sqrt(key_dim))`` (masked) weighs the
    values; the heads are projected back by ``attention_output`` to ``output_shape``.

    Args:
        num_heads: number of heads. key_dim: size of each query/key head.
        value_dim: size of each value head (default ``key_dim``).
        dropout: dropout rate on the attention probabilities, in training only (default 0).
        use_bias: whether the projections have biases (default True).
        output_shape: the output's last dimension(s) (default: the query's last dimension).
        attention_axes: the axes attention runs over (default None: every axis but batch,
            heads and features, e.g. the sequence axis 1).
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
            kernel_constraint, bias_constraint: for the four projections.
        seed: seed of the dropout.
        flash_attention: accepted as None or False only.

    Call arguments:
        query: ``(B, T, dim)``. value: ``(B, S, dim_v)``. key: ``(B, S, dim_k)``, default
        ``value``. attention_mask: boolean ``(B, T, S)`` (broadcast over heads), True where a
        query may attend to a key. query_mask, value_mask, key_mask: boolean ``(B, T)`` /
        ``(B, S)`` padding masks, combined into the attention mask as Keras combines the
        inputs' masks. return_attention_scores: also return the ``(B, heads, T, S)``
        probabilities (before dropout). training: dropout on or off. use_causal_mask: each
        query position attends only to key positions up to its own.

    Output: ``(B, T, output_shape)`` (and the scores).

    Weights (in order): ``query/kernel (dim, heads, key_dim)``, ``query/bias``,
    ``key/kernel``, ``key/bias``, ``value/kernel``, ``value/bias``,
    ``attention_output/kernel (heads, value_dim, out)``, ``attention_output/bias``.

    Raises:
        ValueError: a bad ``attention_axes`` (Keras's message).
        NotImplementedError: ``flash_attention=True``.

    >>> mha = ek.keras.layers.MultiHeadAttention(num_heads=2, key_dim=4)
    >>> out, scores = mha(ek.ones((1, 8, 16)), ek.ones((1, 4, 16)), return_attention_scores=True)
    >>> out.shape, scores.shape
    (TensorShape([1, 8, 16]), TensorShape([1, 2, 8, 4]))
    """

    supports_masking = True  # the output carries the query's mask on, as in Keras 3

    def __init__(
        self,
        num_heads,
        key_dim,
        value_dim=None,
        dropout=0.0,
        use_bias=True,
        output_shape=None,
        attention_axes=None,
        flash_attention=None,
        kernel_initializer="glorot_uniform",
        bias_initializer="zeros",
        kernel_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        bias_constraint=None,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if flash_attention:
            raise NotImplementedError("MultiHeadAttention: flash_attention is not supported.")
        self.num_heads = int(num_heads)
        self.key_dim = int(key_dim)
        for arg, value in (("num_heads", self.num_heads), ("key_dim", self.key_dim)):
            if value < 1:
                raise ValueError(
                    f"MultiHeadAttention: {arg} must be a positive integer. Received: {arg}={value}"
                )
        self.value_dim = int(value_dim) if value_dim is not None else self.key_dim
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if output_shape:
            if isinstance(output_shape, numbers.Integral):
                output_shape = (int(output_shape),)
            try:
                output_shape = tuple(int(d) for d in output_shape)
            except (TypeError, ValueError):
                raise ValueError(
                    f"Invalid `output_shape`: {output_shape}. When specified, the "
                    "`output_shape` should be of type tuple, list, or int."
                ) from None
        self.output_shape = output_shape or None
        if isinstance(attention_axes, numbers.Integral):
            attention_axes = (int(attention_axes),)
        elif attention_axes is not None and not isinstance(attention_axes, (list, tuple)):
            raise ValueError(
                "`attention_axes` must be an int, list, or tuple."
                f"Received: attention_axes={attention_axes}"
            )
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.bias_constraint = bias_constraint
        self.seed = seed
        self._query_dense = None

    # -- building ------------------------------------------------------------------------
    def build(self, query_shape, value_shape=None, key_shape=None) -> None:
        """Creates the four projections for these input shapes (Keras 3's signature). Called
        with the query's shape alone (a first call), building waits for the call, which
        knows the value's shape."""
        if value_shape is None:
            return
        query_shape, value_shape = tuple(query_shape), tuple(value_shape)
        shapes = {"query_shape": query_shape, "value_shape": value_shape}
        if key_shape is not None:  # get_build_config's shapes_dict: the shapes passed
            shapes["key_shape"] = tuple(key_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        if value_shape[1:-1] != key_shape[1:-1]:
            raise ValueError(
                "All dimensions of `value` and `key`, except the last one, must be equal. "
                f"Received: value_shape={value_shape} and key_shape={key_shape}"
            )
        eq, bias, rank = _proj_equation(len(query_shape) - 1, 1, 2)
        query_dense = self.projection(
            eq, _shape(rank, (self.num_heads, self.key_dim)), bias, "query"
        )
        eq, bias, rank = _proj_equation(len(key_shape) - 1, 1, 2)
        key_dense = self.projection(eq, _shape(rank, (self.num_heads, self.key_dim)), bias, "key")
        eq, bias, rank = _proj_equation(len(value_shape) - 1, 1, 2)
        value_dense = self.projection(
            eq, _shape(rank, (self.num_heads, self.value_dim)), bias, "value"
        )
        axes = self.attention_axes
        if axes is None:
            self._attention_axes = tuple(range(1, rank - 2))
        else:  # negative axes count from the projected rank without the heads (Keras)
            self._attention_axes = tuple(a if a >= 0 else (rank - 1) + a for a in axes)
        self._dot_equation, self._combine_equation, scores_rank = _attention_equations(
            rank, self._attention_axes
        )
        n = len(self._attention_axes)
        self._softmax = Softmax(
            axis=tuple(range(scores_rank - n, scores_rank)), dtype=self._dtype_policy
        )
        self._dropout_layer = Dropout(rate=self.dropout, seed=self.seed, dtype=self._dtype_policy)
        out_last = self.output_shape or (query_shape[-1],)
        eq, bias, out_rank = _proj_equation(len(query_shape) - 1, 2, len(out_last))
        output_dense = self.projection(eq, _shape(out_rank, out_last), bias, "attention_output")
        # built in Keras's order, each under its own name (layer scope "mha/query/...")
        projected = list(query_dense.compute_output_shape(query_shape))
        projected[-1] = self.value_dim
        for dense, shape in (
            (query_dense, query_shape),
            (key_dense, key_shape),
            (value_dense, value_shape),
            (output_dense, tuple(projected)),
        ):
            with dense.name_scope:
                dense._maybe_build_shapes(shape)
        self._query_dense, self._key_dense = query_dense, key_dense
        self._value_dense, self._output_dense = value_dense, output_dense
        self._build_input_shape = shapes
        self.built = True

    # -- calling -------------------------------------------------------------------------
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
            query, value, query_mask, value_mask, key_mask, attention_mask, use_causal_mask
        )
        # The masks are in `mask` now: Keras 3 takes them off the tensors, so that the
        # projections below do not warn that they drop them (the output gets query's).
        masking.detach(query, value, key)
        q = self._query_dense(query)
        k = self._key_dense(key)
        v = self._value_dense(value)
        q = q * (1.0 / math.sqrt(float(self.key_dim)))
        scores = linalg.einsum(self._dot_equation, k, q)
        axis = -len(self._attention_axes) * 2 - 1  # where the heads' axis is missing in mask
        fused = not (self.dropout > 0 or return_attention_scores or len(q.shape) != 4)
        out, scores = self.attend(scores, v, mask, self._combine_equation, axis, training, fused)
        out = self._output_dense(out)
        if return_attention_scores:
            return out, scores
        return out

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None) -> tuple:
        query_shape = tuple(query_shape)
        if value_shape is not None:
            key_shape = value_shape if key_shape is None else key_shape
            if tuple(value_shape)[1:-1] != tuple(key_shape)[1:-1]:
                raise ValueError(
                    "All dimensions of `value` and `key`, except the last one, must be equal. "
                    f"Received: value_shape={tuple(value_shape)} and key_shape="
                    f"{tuple(key_shape)}"
                )
        if self.output_shape:
            return query_shape[:-1] + tuple(self.output_shape)
        return query_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
            "output_shape": None if self.output_shape is None else list(self.output_shape),
            "attention_axes": None if self.attention_axes is None else list(self.attention_axes),
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "seed": self.seed,
        }


# -- Attention, AdditiveAttention ---------------------------------------------------------------
class Attention(Layer):
    """Dot-product (Luong-style) attention (follows `tf.keras.layers.Attention`, Keras 3).

    For ``query`` ``(B, T, dim)``, ``value`` ``(B, S, dim)`` and ``key`` (default ``value``):
    ``scores = query @ key^T`` (``score_mode="dot"``; times a learned scalar ``scale`` with
    ``use_scale``) or ``concat_score_weight * sum(tanh(scale * (q + k)), -1)`` with
    ``score_mode="concat"``; ``distribution = softmax(scores)`` over the keys (masked keys get
    ``-1e9`` first); output ``distribution @ value``, ``(B, T, dim)``, zeroed at masked query
    positions.

    Args:
        use_scale: learn a scalar ``scale`` (initialized to 1). score_mode: "dot" or "concat".
        dropout: rate on the distribution in training (default 0). seed: of the dropout.

    Call arguments:
        inputs: ``[query, value]`` or ``[query, value, key]``. mask: ``[query_mask,
        value_mask]`` boolean ``(B, T)``, ``(B, S)`` (either may be None; in a model, the
        inputs' Keras masks). training, return_attention_scores (also return the
        distribution), use_causal_mask (position i attends to keys <= i).

    Raises:
        ValueError: a bad ``score_mode``, or inputs/mask that are not lists of 2 or 3
            (Keras's messages).

    >>> q = ek.constant([[[1.0, 0.0]]]); v = ek.constant([[[1.0, 0.0], [0.0, 1.0]]])
    >>> out, w = ek.keras.layers.Attention()([q, v], return_attention_scores=True)
    >>> w.numpy().round(4)
    array([[[0.7311, 0.2689]]], dtype=float32)
    """

    _score_modes = ("dot", "concat")

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in self._score_modes:
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                f"Received: score_mode={score_mode}"
            )
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        # Keras's: a SeedGenerator made now (unseeded: from Python's `random`)
        self.seed_generator = keras_random.SeedGenerator(seed) if self.dropout > 0 else None

    def _validate(self, inputs, mask=None) -> None:
        cls = type(self).__name__
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(
                f"{cls} layer must be called on a list of inputs, namely [query, value] or "
                f"[query, value, key]. Received: inputs={inputs!r:.100}."
            )
        if not 2 <= len(inputs) <= 3:
            raise ValueError(
                f"{cls} layer accepts inputs list of length 2 or 3, namely [query, value] or "
                f"[query, value, key]. Received length: {len(inputs)}."
            )
        if mask is not None:
            if not isinstance(mask, (list, tuple)):
                raise ValueError(
                    f"{cls} layer mask must be a list, namely [query_mask, value_mask]. "
                    f"Received: mask={mask!r:.100}."
                )
            if not 2 <= len(mask) <= 3:
                raise ValueError(
                    f"{cls} layer accepts mask list of length 2 or 3. Received: mask={mask!r:.100}."
                )

    def build(self, input_shape) -> None:
        self._validate(input_shape)
        self.scale = self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight("scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(
                "concat_score_weight", shape=(), initializer="ones"
            )
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = linalg.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        q = array_ops.expand_dims(query, -2)
        k = array_ops.expand_dims(key, -3)
        s = q + k if self.scale is None else self.scale * (q + k)
        return self.concat_score_weight * reduction.reduce_sum(elementwise.tanh(s), axis=-1)

    def call(
        self,
        inputs,
        mask=None,
        training=False,
        return_attention_scores=False,
        use_causal_mask=False,
    ):
        self._validate(inputs, mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._scores(q, k)
        score_mask = None
        if v_mask is not None:
            score_mask = array_ops.expand_dims(_as_bool(v_mask, "value mask"), -2)
        if use_causal_mask:
            s = shape_of(scores)
            causal = _causal_mask(s[-2], s[-1])
            score_mask = (
                causal if score_mask is None else elementwise.logical_and(score_mask, causal)
            )
        if score_mask is not None:
            padding = elementwise.cast(elementwise.logical_not(score_mask), scores.dtype)
            scores = scores - 1.0e9 * padding
        weights = _nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = keras_random.dropout(weights, self.dropout, seed=self.seed_generator)
        result = linalg.matmul(weights, v)
        if q_mask is not None:
            keep = array_ops.expand_dims(_as_bool(q_mask, "query mask"), -1)
            result = result * elementwise.cast(keep, result.dtype)
        if return_attention_scores:
            return result, weights
        return result

    def compute_mask(self, inputs, mask=None):
        self._validate(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return _as_bool(mask[0], "query mask")

    def compute_output_shape(self, input_shape) -> tuple:
        self._validate(input_shape)
        return (*tuple(input_shape[0])[:-1], tuple(input_shape[1])[-1])

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "use_scale": self.use_scale,
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention (follows `tf.keras.layers.AdditiveAttention`).

    As `Attention`, with ``scores = sum(scale * tanh(q[:, :, None] + k[:, None]), -1)``,
    ``scale`` a learned vector of the feature size (glorot-uniform initialized) with
    ``use_scale`` (default True), else 1.

    >>> layer = ek.keras.layers.AdditiveAttention(use_scale=False)
    >>> layer([ek.zeros((1, 3, 2)), ek.ones((1, 4, 2))]).shape
    TensorShape([1, 3, 2])
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape) -> None:
        self._validate(input_shape)
        dim = tuple(input_shape[0])[-1]
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight("scale", shape=(dim,), initializer="glorot_uniform")
        self.built = True

    def _scores(self, query, key):
        t = elementwise.tanh(array_ops.expand_dims(query, -2) + array_ops.expand_dims(key, -3))
        if self.scale is not None:
            t = t * self.scale
        return reduction.reduce_sum(t, axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["score_mode"]
        return config
