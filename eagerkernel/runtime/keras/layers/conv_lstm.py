"""Convolutional LSTMs: ConvLSTM1D, ConvLSTM2D, ConvLSTM3D (follow `tf.keras.layers.ConvLSTM2D`
and its siblings; Shi et al. 2015), channels last.

An LSTM whose input and recurrent transformations are convolutions: with Keras's gate order
``[i, f, c, o]``, ``z = conv(x_t, kernel) + bias + conv_same(h, recurrent_kernel)``, ``i =
sigmoid(z_i)``, ``f = sigmoid(z_f)``, ``c_t = f * c + i * tanh(z_c)``, ``o = sigmoid(z_o)``,
``h_t = o * tanh(c_t)``. The input convolution runs over all timesteps in one call of the rank's
`ek.nn` op (the frames folded into the batch); the recurrence then runs step by step with
eagerkernel ops, so gradients flow through time by the tape.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops, elementwise, reduction
from ...ops import nn as _nn
from ...ops.creation import zeros
from .. import activations, initializers, regularizers
from ._utils import (
    cast_to_layer_dtype,
    check_rank,
    conv_output_length,
    normalize_data_format,
    normalize_padding,
    normalize_tuple,
    shape_of,
)
from .base import Layer
from .recurrent import flatten_states
from .rnn_dropout import RecurrentDropout
from .rnn_state import StatefulRNN

__all__ = ["ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"]


class ConvLSTM(StatefulRNN, RecurrentDropout, Layer):
    """The N-D convolutional LSTM (Keras's ``ConvLSTM`` base): ``_spatial`` spatial axes and
    the rank's convolution op ``_op``. See `ConvLSTM2D` for the arguments."""

    _spatial = 2
    _op = None

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format=None,
        dilation_rate=1,
        activation="tanh",
        recurrent_activation="sigmoid",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        unit_forget_bias=True,
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        name = type(self).__name__
        if isinstance(filters, bool) or not isinstance(filters, numbers.Integral) or filters <= 0:
            raise ValueError(
                f"{name}: invalid value for argument `filters`, expected a strictly positive "
                f"integer. Received: filters={filters!r}"
            )
        # clipped to [0, 1]; the SeedGenerator made before the initializers, as Keras's
        self._init_dropout(dropout, recurrent_dropout, seed)
        rank = self._spatial
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, rank, "strides", name)
        self.padding = normalize_padding(padding, name)
        self.data_format = normalize_data_format(data_format, name, rank)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"{name}: specifying `strides > 1` is not compatible with `dilation_rate > 1`. "
                f"Received: strides={self.strides} and dilation_rate={self.dilation_rate}"
            )
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.recurrent_constraint = recurrent_constraint
        self.bias_constraint = bias_constraint
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)  # the loop always runs step by step; results are the same
        self.zero_output_for_mask = bool(zero_output_for_mask)

    # -- weights -------------------------------------------------------------------------------

    def _check_input_shape(self, shape) -> tuple:
        shape = tuple(shape)
        check_rank(self, shape, self._spatial + 3)
        if any(d is None for d in shape[2:]):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: ConvLSTM layers only support static "
                f"spatial and channel dimensions. Received: input_shape={shape}"
            )
        return shape

    def build(self, input_shape) -> None:
        shape = self._check_input_shape(input_shape)
        channels, n = shape[-1], 4 * self.filters
        self.kernel = self.add_weight(
            "kernel",
            shape=(*self.kernel_size, channels, n),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            shape=(*self.kernel_size, self.filters, n),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=(n,),
                initializer=self._bias_init(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self._build_states(shape)
        self.built = True

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, f = self.bias_initializer, self.filters

        def init(shape, dtype=None):  # Keras: ones for the forget gate
            parts = [base((f,), dtype=dtype), np.ones((f,)), base((2 * f,), dtype=dtype)]
            return np.concatenate([np.asarray(getattr(p, "_value", p)) for p in parts])

        return init

    # -- call ----------------------------------------------------------------------------------

    def _conv(self, x, kernel, recurrent: bool):
        if recurrent:  # the state keeps its shape: stride 1, "same", no dilation
            return type(self)._op(x, kernel, (1,) * self._spatial, "SAME")
        return type(self)._op(
            x, kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate
        )

    def _gate_conv(self, x, kernel, masks, recurrent: bool):
        """``conv(x, kernel)``, or with dropout masks each gate's ``conv(x * mask_g,
        kernel_g)`` (Keras draws one mask per gate)."""
        if masks is None:
            return self._conv(x, kernel, recurrent)
        kernels = array_ops.split(kernel, 4, axis=-1)
        parts = [self._conv(x * m, k, recurrent) for m, k in zip(masks, kernels)]
        return array_ops.concat(parts, axis=-1)

    def _state_shape(self, shape) -> tuple:
        return (shape[0], *self._out_spatial(shape[2:-1]), self.filters)

    def _initial_states(self, initial_state, shape, dtype) -> list:
        expected = self._state_shape(shape)
        if initial_state is None:
            if self.stateful:  # the carried [h, c] (see `rnn_state`)
                return self._carried_initial_states(shape)
            return [zeros(expected, dtype=dtype), zeros(expected, dtype=dtype)]
        states = [cast_to_layer_dtype(self, to_tensor(s)) for s in flatten_states(initial_state)]
        if len(states) != 2 or any(tuple(s.shape) != expected for s in states):
            got = [tuple(s.shape) for s in states]
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: initial_state must be [h, c], two "
                f"tensors of shape {expected}. Received: shapes {got}"
            )
        return states

    def call(self, inputs, mask=None, training=None, initial_state=None):
        x = cast_to_layer_dtype(self, inputs)
        shape = self._check_input_shape(shape_of(x))
        batch, steps = shape[:2]
        if steps == 0:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the input has 0 timesteps.")
        dtype = x._value.dtype
        frame_shape = (batch, *shape[2:])
        frames = (batch * steps, *shape[2:])
        states = self._initial_states(initial_state, shape, dtype)
        # One mask per gate (Keras's ConvLSTMCell), of a frame's and of the state's shape.
        masks, rec_masks = self.dropout_masks(
            frame_shape, tuple(states[0].shape), dtype, training, count=4, layer=True
        )
        if masks is None:
            projected = self._conv(array_ops.reshape(x, frames), self.kernel, False)
        else:  # each gate sees the input through its own mask, the same at every step
            kernels = array_ops.split(self.kernel, 4, axis=-1)
            one_step = (batch, 1, *shape[2:])
            parts = [
                self._conv(array_ops.reshape(x * array_ops.reshape(m, one_step), frames), k, False)
                for m, k in zip(masks, kernels)
            ]
            projected = array_ops.concat(parts, axis=-1)
        if self.bias is not None:
            projected = _nn.bias_add(projected, self.bias)
        projected = array_ops.reshape(projected, (batch, steps, *shape_of(projected)[1:]))
        keep = None
        if mask is not None:  # (batch, timesteps) bools: masked steps carry the state over
            # With ops, not on the host: a graph function replays them with each call's mask.
            m = to_tensor(mask)
            if m.ndim > 2 and tuple(m.shape[:2]) == (batch, steps):
                # Masking's per-pixel mask: a step counts unless all of it is masked
                m = reduction.reduce_any(array_ops.reshape(m, (batch, steps, -1)), axis=-1)
            if tuple(m.shape) != (batch, steps):
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: the mask must have shape "
                    f"(batch, timesteps) = {(batch, steps)}. Received: {tuple(m.shape)}"
                )
            keep = elementwise.cast(m, dtype)
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        outputs, previous = [], None
        for t in order:
            h, c = states
            z = projected[:, t] + self._gate_conv(h, self.recurrent_kernel, rec_masks, True)
            zi, zf, zc, zo = array_ops.split(z, 4, axis=-1)
            i, f = self.recurrent_activation(zi), self.recurrent_activation(zf)
            c_new = f * c + i * self.activation(zc)
            h_new = self.recurrent_activation(zo) * self.activation(c_new)
            output, new_states = h_new, [h_new, c_new]
            if keep is not None:
                m = array_ops.reshape(keep[:, t], (batch,) + (1,) * (self._spatial + 1))
                if previous is None or self.zero_output_for_mask:
                    previous = output * 0.0
                output = m * output + (1.0 - m) * previous
                new_states = [m * n + (1.0 - m) * o for n, o in zip(new_states, states)]
            states, previous = new_states, output
            outputs.append(output)
        self._carry(states)
        result = array_ops.stack(outputs, axis=1) if self.return_sequences else outputs[-1]
        return [result, *states] if self.return_state else result

    def _carried_shapes(self, input_shape) -> list:
        return [self._state_shape(tuple(input_shape))] * 2  # [h, c]

    def compute_mask(self, inputs, mask=None):
        """The input's mask for the sequence output (``return_sequences``), else None."""
        out = mask if self.return_sequences else None
        return [out, None, None] if self.return_state else out

    # -- shapes and config ---------------------------------------------------------------------

    def _out_spatial(self, spatial) -> tuple:
        return tuple(
            conv_output_length(n, k, self.padding, s, d)
            for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)
        )

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        check_rank(self, shape, self._spatial + 3)
        state = self._state_shape(shape)
        out = (shape[0], shape[1], *state[1:]) if self.return_sequences else state
        return [out, state, state] if self.return_state else out

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "unit_forget_bias": self.unit_forget_bias,
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }


class ConvLSTM1D(ConvLSTM):
    """1-D convolutional LSTM over sequences of ``(steps, channels)`` frames (follows
    `tf.keras.layers.ConvLSTM1D`), with `ek.nn.conv1d`.

    Arguments, weights and errors as `ConvLSTM2D` with one spatial axis: input ``(batch,
    time, rows, channels)``; output ``(batch, new_rows, filters)`` (or ``(batch, time,
    new_rows, filters)`` with ``return_sequences``); ``kernel`` ``(k, channels, 4 *
    filters)``.

    >>> ek.keras.layers.ConvLSTM1D(4, 3)(ek.ones((2, 5, 8, 3))).shape
    TensorShape([2, 6, 4])
    """

    _spatial = 1
    _op = staticmethod(_nn.conv1d)


class ConvLSTM2D(ConvLSTM):
    """2-D convolutional LSTM over sequences of images, channels last (follows
    `tf.keras.layers.ConvLSTM2D`; Shi et al. 2015), with `ek.nn.conv2d`.

    Gates in Keras's order ``[i, f, c, o]``: ``z = conv(x_t, kernel) + bias +
    conv(h_{t-1}, recurrent_kernel)`` (the recurrent convolution with stride 1 and ``"same"``
    padding), ``c_t = f * c_{t-1} + i * activation(z_c)``, ``h_t = o * activation(c_t)``, with
    ``i, f, o = recurrent_activation(z_i, z_f, z_o)``.

    Args:
        filters: positive int, the channels of the state and output.
        kernel_size, strides, dilation_rate: an int or a pair (defaults: strides 1, dilation
            1; strides > 1 and dilation > 1 together raise ValueError, as in Keras).
        padding: ``"valid"`` (default) or ``"same"`` for the input convolution.
        data_format: ``"channels_last"`` (or None); ``"channels_first"`` raises ValueError.
        activation: default ``"tanh"``. recurrent_activation: default ``"sigmoid"``.
        use_bias: default True. unit_forget_bias: default True (the forget gate's bias
            starts at 1).
        kernel_initializer (glorot_uniform), recurrent_initializer (orthogonal),
            bias_initializer (zeros), the regularizers and constraints: as in Keras.
        dropout, recurrent_dropout: floats in [0, 1], the fraction of the input (of the
            state) dropped before each gate's convolution in training; one mask per gate,
            the same for every timestep of a call. seed: the masks' seed.
        return_sequences: every step's output ``(batch, time, rows', cols', filters)``, not
            only the last.
        return_state: also return the final states: ``[output, h, c]``.
        go_backwards: process the sequence in reverse (outputs in processing order).
        stateful: each call starts from the previous call's final states (the batch size
            must stay the same); `reset_states` forgets them.
        unroll: accepted; the loop always runs step by step. zero_output_for_mask: masked
            steps output zeros instead of the previous output.

    Call arguments: ``inputs`` ``(batch, time, rows, cols, channels)`` (any real dtype, cast
    to the layer's, float32 by default); ``mask``: ``(batch, time)`` bools (at a masked step
    the states and output are those of the previous step; a ``(batch, time, ...)`` mask, as
    `Masking` gives, masks a step where all of its entries are False); ``training``: enables
    dropout; ``initial_state``: ``[h, c]``, each ``(batch, rows', cols', filters)``.

    Output shape: ``(batch, rows', cols', filters)``, or ``(batch, time, rows', cols',
    filters)`` with ``return_sequences``; ``rows'``/``cols'`` as `Conv2D` computes them.

    Weights: ``kernel`` ``(kh, kw, channels, 4 * filters)``, ``recurrent_kernel`` ``(kh, kw,
    filters, 4 * filters)``, ``bias`` ``(4 * filters,)``.

    Raises:
        ValueError: bad arguments; an input that is not rank 5 (the message names the layer,
            the expected ndim and the shape received), unknown spatial or channel sizes, a
            mask or initial_state of the wrong shape.

    >>> layer = ek.keras.layers.ConvLSTM2D(4, 3, padding="same", return_sequences=True)
    >>> layer(ek.ones((2, 3, 8, 8, 1))).shape
    TensorShape([2, 3, 8, 8, 4])
    >>> [tuple(w.shape) for w in layer.weights]
    [(3, 3, 1, 16), (3, 3, 4, 16), (16,)]
    """

    _spatial = 2
    _op = staticmethod(_nn.conv2d)


class ConvLSTM3D(ConvLSTM):
    """3-D convolutional LSTM over sequences of volumes (follows
    `tf.keras.layers.ConvLSTM3D`), with `ek.nn.conv3d`.

    Arguments, weights and errors as `ConvLSTM2D` with three spatial axes: input ``(batch,
    time, depth, rows, cols, channels)``; ``kernel`` ``(kd, kh, kw, channels, 4 *
    filters)``.

    >>> ek.keras.layers.ConvLSTM3D(2, 2)(ek.ones((1, 2, 3, 3, 3, 1))).shape
    TensorShape([1, 2, 2, 2, 2])
    """

    _spatial = 3
    _op = staticmethod(_nn.conv3d)
