"""Recurrent layers: SimpleRNN, LSTM, GRU, their cells SimpleRNNCell, LSTMCell, GRUCell and
the generic RNN(cell) (follow `tf.keras.layers.SimpleRNN`, `LSTM`, `GRU`, ..., with Keras's
weights, gate order and defaults).

A layer and its cell share one class for the gate math (`_SimpleRNNMath`, `_LSTMMath`,
`_GRUMath`): the layer owns the weights itself (``lstm/kernel``), a cell owns them as Keras's
cells do (``lstm_cell/kernel``).

The input projection ``x @ kernel`` is computed for all timesteps in one matrix product; the
recurrence then runs step by step with eagerkernel ops, so gradients flow through time by the
tape like any other computation.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...core.tensor import to_tensor
from ...ops import array_ops, elementwise
from .. import activations, initializers, regularizers
from ._utils import cast_to_layer_dtype
from .base import Layer, autocast_weights
from .rnn_cell_view import CellView
from .rnn_dropout import RecurrentDropout
from .rnn_state import StatefulRNN

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "Bidirectional",
    "GRUCell",
    "LSTMCell",
    "SimpleRNN",
    "SimpleRNNCell",
]


def _sequence_shape(layer, input_shape) -> tuple:
    """``input_shape`` as a tuple, checked to be ``(batch, timesteps, features)`` with known
    features (Keras's message otherwise, a ValueError)."""
    shape = tuple(input_shape)
    if len(shape) != 3 or shape[-1] is None:
        raise ValueError(
            f'Input 0 of layer "{layer.name}" is incompatible with the layer: expected '
            f"ndim=3 (batch, timesteps, features) with known features. Full shape "
            f"received: {shape}"
        )
    return shape


def flatten_states(states) -> list:
    """A state, a list of states or a nested list (Keras's stacked cells) as a flat list."""
    if not isinstance(states, (list, tuple)):
        return [states]
    return [s for item in states for s in flatten_states(item)]


class _Recurrent(RecurrentDropout, Layer):
    """The arguments, weights and state layout of one recurrent cell; the gate math comes
    from a `_SimpleRNNMath`/`_LSTMMath`/`_GRUMath` base, the time loop from `_RNN`."""

    _gates = 1

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if isinstance(units, bool) or not isinstance(units, numbers.Integral) or units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, "
                f"got {units!r}."
            )
        self.units = int(units)
        if self._gates == 1:  # Keras's SimpleRNNCell makes its SeedGenerator first
            self._init_dropout(dropout, recurrent_dropout, seed)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = kernel_constraint
        self.recurrent_constraint = recurrent_constraint
        self.bias_constraint = bias_constraint
        if self._gates > 1:  # Keras's LSTM/GRU cells make their SeedGenerator last
            self._init_dropout(dropout, recurrent_dropout, seed)

    def _bias_shape(self) -> tuple:
        return (self._gates * self.units,)

    def _bias_initializer(self):
        return self.bias_initializer

    def _num_states(self) -> int:
        return 1

    def _build_weights(self, features: int) -> None:
        n = self._gates * self.units
        self.kernel = self.add_weight(
            "kernel",
            shape=(features, n),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            shape=(self.units, n),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                shape=self._bias_shape(),
                initializer=self._bias_initializer(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )
        self.built = True

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            **self.dropout_config(),
        }


class _RNN(StatefulRNN, Layer):
    """The time loop and the sequence options (return_sequences, ...) of a recurrent layer:
    `_step(projected_t, states)` advances one step given ``x_t @ kernel``."""

    def __init__(
        self,
        *args,
        activity_regularizer=None,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)  # see `rnn_state`
        self.unroll = bool(unroll)  # the loop is always unrolled here; results are the same
        self.zero_output_for_mask = bool(zero_output_for_mask)

    def build(self, input_shape) -> None:
        shape = _sequence_shape(self, input_shape)
        self._build_weights(shape[-1])
        self._build_states(shape)

    def _state_sizes(self) -> list:
        return [self.units] * self._num_states()

    def _carried_shapes(self, input_shape) -> list:
        return [(input_shape[0], n) for n in self._state_sizes()]

    def _stepper(self, x, training=None):
        """``step(t, states) -> (output, new_states)`` for the input ``x``, with this
        sequence's dropout masks when training (see `rnn_dropout`)."""
        return self.sequence_stepper(x, training)

    def call(self, inputs, mask=None, training=None, initial_state=None):
        x = cast_to_layer_dtype(self, inputs)
        batch, steps = tuple(x.shape)[:2]
        if steps == 0:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the input has 0 timesteps.")
        step = self._stepper(x, training)
        if initial_state is None and self.stateful:
            states = self._carried_initial_states(tuple(x.shape))
        elif initial_state is None:
            from ...ops.creation import zeros

            states = [zeros((batch, n), dtype=x.dtype) for n in self._state_sizes()]
        else:
            states = flatten_states(initial_state)  # a nested list (stacked cells) too
            if len(states) != len(self._state_sizes()):
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: initial_state needs "
                    f"{len(self._state_sizes())} tensors. Received: {len(states)}"
                )
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        keep = None
        if mask is not None:  # (batch, timesteps) bools: masked steps carry the state over
            mask_value = mask._value if hasattr(mask, "_value") else np.asarray(mask)
            if tuple(mask_value.shape) != (batch, steps):
                raise ValueError(
                    f"{type(self).__name__} {self.name!r}: the mask must have shape "
                    f"(batch, timesteps) = {(batch, steps)}. Received: {tuple(mask_value.shape)}"
                )
            keep = elementwise.cast(to_tensor(mask_value), x._value.dtype)
        outputs = []
        previous = None
        for t in order:
            output, new_states = step(t, states)
            if keep is not None:
                m = array_ops.reshape(keep[:, t], (batch, 1))
                if previous is None or self.zero_output_for_mask:
                    previous = output * 0.0
                output = m * output + (1.0 - m) * previous
                new_states = [m * n + (1.0 - m) * o for n, o in zip(new_states, states)]
            states = new_states
            previous = output
            outputs.append(output)
        self._carry(states)
        last = outputs[-1]
        result = array_ops.stack(outputs, axis=1) if self.return_sequences else last
        if self.return_state:
            return [result, *self._nest_states(states)]
        return result

    def _nest_states(self, states: list) -> list:
        """The final states as the layer returns them (flat; `RNN` groups stacked cells')."""
        return states

    def compute_mask(self, inputs, mask=None):
        """The input's mask for the sequence output (``return_sequences``), else None."""
        out = mask if self.return_sequences else None
        return [out] + [None] * len(self._state_sizes()) if self.return_state else out

    def _output_size(self) -> int:
        return self.units

    def compute_output_shape(self, input_shape):
        batch, steps = tuple(input_shape)[:2]
        size = self._output_size()
        out = (batch, steps, size) if self.return_sequences else (batch, size)
        if self.return_state:
            return [out, *self._nest_states([(batch, n) for n in self._state_sizes()])]
        return out

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
        }


class _SimpleRNNMath(_Recurrent):
    """SimpleRNN's step: ``h_t = activation(x_t @ kernel + h @ recurrent_kernel + bias)``."""

    def _step(self, projected_t, states, recurrent_masks=None):
        h = projected_t + self.recurrent_product(states[0], recurrent_masks)
        if self.bias is not None:
            h = h + self.bias
        h = self.activation(h)
        return h, [h]


class SimpleRNN(CellView, _RNN, _SimpleRNNMath):
    """Fully connected recurrence ``h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel
    + bias)`` (follows `tf.keras.layers.SimpleRNN`).

    Args:
        units: the state size.
        activation: default ``"tanh"``.
        use_bias, kernel_initializer (glorot_uniform), recurrent_initializer (orthogonal),
            bias_initializer (zeros), the regularizers and constraints: as in Keras.
        return_sequences: return every step's output ``(batch, timesteps, units)``, not only
            the last ``(batch, units)``.
        return_state: also return the final state: ``[output, h]``.
        go_backwards: process the sequence in reverse (outputs in processing order, as Keras).
        unroll: accepted (the loop always runs step by step here; results do not change).
        activity_regularizer: a penalty on the outputs, added to `losses` at each call.
        dropout, recurrent_dropout: the fractions of input and recurrent features dropped
            while training (see `rnn_dropout`; Keras's masks, once per sequence).
        seed: makes the dropout masks reproducible.
        stateful: the final states of a call are the next call's initial states (a fixed
            batch size; `reset_state` zeros them; see `rnn_state`).

    Call arguments: ``inputs`` ``(batch, timesteps, features)``; ``initial_state`` (a tensor
    or a list of one); ``mask``: ``(batch, timesteps)`` bools (an ``Embedding(mask_zero=True)``
    before the layer in a Sequential or functional model passes its own): at a masked step
    the state and the output stay those of the previous step, as in Keras.

    Weights: ``kernel`` ``(features, units)``, ``recurrent_kernel`` ``(units, units)``,
    ``bias`` ``(units,)``.

    >>> layer = ek.keras.layers.SimpleRNN(4, return_sequences=True)
    >>> layer(ek.ones((2, 5, 3))).shape
    TensorShape([2, 5, 4])
    """


class _LSTMMath(_Recurrent):
    """LSTM's gates (Keras's order ``[i, f, c, o]``), state ``[h, c]`` and forget bias."""

    _gates = 4

    def __init__(self, units, recurrent_activation="sigmoid", unit_forget_bias=True, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)

    def _num_states(self) -> int:
        return 2

    def _bias_initializer(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, units = self.bias_initializer, self.units

        def init(shape, dtype=None):
            parts = [
                base((units,), dtype=dtype),
                initializers.get("ones")((units,), dtype=dtype),
                base((2 * units,), dtype=dtype),
            ]
            return array_ops.concat(parts, axis=0)

        return init

    def _step(self, projected_t, states, recurrent_masks=None):
        h, c = states
        z = projected_t + self.recurrent_product(h, recurrent_masks)
        if self.bias is not None:
            z = z + self.bias
        zi, zf, zc, zo = array_ops.split(z, 4, axis=-1)
        i = self.recurrent_activation(zi)
        f = self.recurrent_activation(zf)
        c = f * c + i * self.activation(zc)
        o = self.recurrent_activation(zo)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "unit_forget_bias": self.unit_forget_bias,
        }


class LSTM(CellView, _RNN, _LSTMMath):
    """Long short-term memory (follows `tf.keras.layers.LSTM`; Hochreiter & Schmidhuber 1997).

    With ``z = x_t @ kernel + h @ recurrent_kernel + bias`` split in four along the last axis
    in Keras's gate order ``[i, f, c, o]``: ``c_t = f * c + i * activation(z_c)``,
    ``h_t = o * activation(c_t)``, the gates through ``recurrent_activation``.

    Args:
        units: the state size.
        activation: default ``"tanh"``. recurrent_activation: default ``"sigmoid"``.
        unit_forget_bias: initialize the forget gate's bias to 1 (default True), as Keras.
        The others: as `SimpleRNN`; ``return_state`` returns ``[output, h, c]``.

    Weights: ``kernel`` ``(features, 4 * units)``, ``recurrent_kernel``
    ``(units, 4 * units)``, ``bias`` ``(4 * units,)``.

    >>> layer = ek.keras.layers.LSTM(4, return_state=True)
    >>> [tuple(t.shape) for t in layer(ek.ones((2, 5, 3)))]
    [(2, 4), (2, 4), (2, 4)]
    """


class _GRUMath(_Recurrent):
    """GRU's gates (Keras's order ``[z, r, h]``), with or without ``reset_after``."""

    _gates = 3

    def __init__(self, units, recurrent_activation="sigmoid", reset_after=True, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _step(self, projected_t, states, recurrent_masks=None):
        h = states[0]
        masks = recurrent_masks
        bias = self.bias
        if bias is not None and self.reset_after:
            x_part = projected_t + bias[0]
        elif bias is not None:
            x_part = projected_t + bias
        else:
            x_part = projected_t
        x_z, x_r, x_h = array_ops.split(x_part, 3, axis=-1)
        if self.reset_after:
            inner = self.recurrent_product(h, masks)
            if bias is not None:
                inner = inner + bias[1]
            r_z, r_r, r_h = array_ops.split(inner, 3, axis=-1)
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            hh = self.activation(x_h + r * r_h)
        else:
            inner = self.recurrent_product(h, masks, 0, 2)
            r_z, r_r = array_ops.split(inner, 2, axis=-1)
            z = self.recurrent_activation(x_z + r_z)
            r = self.recurrent_activation(x_r + r_r)
            h_h = h if masks is None else h * masks[2]
            hh = self.activation(x_h + self.recurrent_product(r * h_h, None, 2, 1))
        h = z * h + (1.0 - z) * hh
        return h, [h]

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "reset_after": self.reset_after,
        }


class GRU(CellView, _RNN, _GRUMath):
    """Gated recurrent unit (follows `tf.keras.layers.GRU`; Cho et al. 2014), Keras's gate
    order ``[z, r, h]``.

    With ``reset_after=True`` (the default, cuDNN's form): ``x_z, x_r, x_h`` from
    ``x_t @ kernel + input_bias`` and ``r_z, r_r, r_h`` from ``h @ recurrent_kernel +
    recurrent_bias``; ``z = sigmoid(x_z + r_z)``, ``r = sigmoid(x_r + r_r)``,
    ``hh = tanh(x_h + r * r_h)``, ``h_t = z * h + (1 - z) * hh``. With ``reset_after=False``
    the reset gate multiplies the state before the product: ``hh = tanh(x_h + (r * h) @
    recurrent_kernel_h)`` and one bias.

    Args:
        units: the state size.
        activation: default ``"tanh"``. recurrent_activation: default ``"sigmoid"``.
        reset_after: default True.
        The others: as `SimpleRNN`; ``return_state`` returns ``[output, h]``.

    Weights: ``kernel`` ``(features, 3 * units)``, ``recurrent_kernel`` ``(units, 3 * units)``,
    ``bias`` ``(2, 3 * units)`` (input and recurrent biases) or ``(3 * units,)`` without
    ``reset_after``.

    >>> ek.keras.layers.GRU(4)(ek.ones((2, 5, 3))).shape
    TensorShape([2, 4])
    """


class _Cell(Layer):
    """One step of a recurrent layer as a layer of its own (Keras's ``*Cell``): called as
    ``cell(inputs, states)`` on ``(batch, features)`` inputs, it returns ``(output,
    new_states)``."""

    def build(self, input_shape) -> None:
        shape = tuple(input_shape)
        if len(shape) != 2 or shape[-1] is None:
            raise ValueError(
                f'Input 0 of layer "{self.name}" is incompatible with the layer: expected '
                f"ndim=2 (batch, features) with known features. Full shape received: {shape}"
            )
        self._build_weights(shape[-1])

    @property
    def state_size(self):
        """The size of each state: an int (one state) or a list (LSTM's ``[h, c]``)."""
        return self.units if self._num_states() == 1 else [self.units] * self._num_states()

    @property
    def output_size(self) -> int:
        return self.units

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        """Zero states ``(batch_size, units)``: a list of one Tensor per state, as Keras 3
        returns (``batch_size`` defaults to ``inputs``' first dimension; ``dtype`` to the
        layer's)."""
        from ...ops.creation import zeros

        if batch_size is None:
            if inputs is None:
                raise ValueError(f"{self.name}.get_initial_state: pass batch_size or inputs.")
            batch_size = next(iter(inputs.shape))
        dt = self.compute_dtype if dtype is None else dtype
        return [zeros((int(batch_size), self.units), dtype=dt) for _ in range(self._num_states())]

    def call(self, inputs, states, training=None):
        x = cast_to_layer_dtype(self, inputs)
        nested = isinstance(states, (list, tuple))
        states = list(states) if nested else [states]
        if len(states) != self._num_states():
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: expected {self._num_states()} states. "
                f"Received: {len(states)}"
            )
        masks, recurrent = self.dropout_masks(  # kept for the next call, as Keras's cache
            (x.shape[0], x.shape[-1]), (x.shape[0], self.units), x.dtype, training, keep=True
        )
        output, new_states = self._step(self.project(x, masks), states, recurrent)
        if self._num_states() == 1 and not nested:
            return output, new_states[0]
        return output, new_states


class SimpleRNNCell(_Cell, _SimpleRNNMath):
    """One step of `SimpleRNN` (follows `tf.keras.layers.SimpleRNNCell`): ``h_t =
    activation(x_t @ kernel + h @ recurrent_kernel + bias)``.

    Args: as `SimpleRNN` without the sequence options. Call: ``cell(inputs, states)`` with
    inputs ``(batch, features)`` and states ``[h]`` (or ``h``) returns ``(h_t, [h_t])`` (or
    ``(h_t, h_t)``). ``state_size`` and ``output_size`` are ``units``.

    >>> cell = ek.keras.layers.SimpleRNNCell(4)
    >>> out, states = cell(ek.ones((2, 3)), cell.get_initial_state(batch_size=2))
    >>> out.shape, len(states)
    (TensorShape([2, 4]), 1)
    """


class LSTMCell(_Cell, _LSTMMath):
    """One step of `LSTM` (follows `tf.keras.layers.LSTMCell`): the same gates and weights.

    Args: as `LSTM` without the sequence options. Call: ``cell(inputs, [h, c])`` with inputs
    ``(batch, features)`` returns ``(h_t, [h_t, c_t])``; ``state_size`` is ``[units, units]``.

    >>> cell = ek.keras.layers.LSTMCell(13)
    >>> out, (h, c) = cell(ek.ones((10, 3)), cell.get_initial_state(batch_size=10))
    >>> out.shape, c.shape
    (TensorShape([10, 13]), TensorShape([10, 13]))
    """


class GRUCell(_Cell, _GRUMath):
    """One step of `GRU` (follows `tf.keras.layers.GRUCell`): the same gates and weights.

    Args: as `GRU` without the sequence options. Call: ``cell(inputs, [h])`` (or ``h``)
    returns ``(h_t, [h_t])`` (or ``(h_t, h_t)``); ``state_size`` is ``units``.

    >>> ek.keras.layers.GRUCell(4)(ek.ones((2, 3)), [ek.zeros((2, 4))])[0].shape
    TensorShape([2, 4])
    """


class RNN(_RNN):
    """Runs a cell over the time axis (follows `tf.keras.layers.RNN`).

    Args:
        cell: a `SimpleRNNCell`, `LSTMCell`, `GRUCell` or any layer whose ``call(inputs,
            states)`` returns ``(output, new_states)`` and that has ``state_size`` (an int or
            a list of ints) and optionally ``output_size`` (default the first state size).
            States reach it as a list. A list of cells is wrapped in `StackedRNNCells`.
        return_sequences, return_state, go_backwards, zero_output_for_mask, unroll,
            activity_regularizer, stateful: as `SimpleRNN`.

    Call arguments: ``inputs`` ``(batch, timesteps, features)``, ``mask``, ``initial_state``
    (a list of one Tensor per state), as `SimpleRNN`. The cell's weights are the layer's.

    Raises:
        ValueError: a cell without ``call``/``state_size``.

    >>> rnn = ek.keras.layers.RNN(ek.keras.layers.LSTMCell(4), return_sequences=True)
    >>> rnn(ek.ones((2, 5, 3))).shape
    TensorShape([2, 5, 4])
    """

    def __init__(self, cell, **kwargs):
        if isinstance(cell, (list, tuple)):  # Keras wraps a list of cells
            from .rnn_stacked import StackedRNNCells

            dtype = kwargs.get("dtype")  # the wrapper computes in the RNN's dtype
            cell = StackedRNNCells(cell) if dtype is None else StackedRNNCells(cell, dtype=dtype)
        if not callable(getattr(cell, "call", None)) or not hasattr(cell, "state_size"):
            raise ValueError(
                "Argument `cell` should have a `call` method and a `state_size` attribute. "
                f"Received: cell={cell!r}"
            )
        super().__init__(**kwargs)
        self.cell = cell

    def _state_sizes(self) -> list:
        return [int(n) for n in flatten_states(self.cell.state_size)]

    def _nest_states(self, states: list) -> list:
        nest = getattr(self.cell, "nest_states", None)  # StackedRNNCells: one list per cell
        return states if nest is None else nest(states)

    def _output_size(self) -> int:
        return int(getattr(self.cell, "output_size", None) or self._state_sizes()[0])

    def build(self, input_shape) -> None:
        shape = _sequence_shape(self, input_shape)
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell._maybe_build_shapes((shape[0], shape[-1]))
        self._build_states(shape)
        self.built = True

    def call(self, inputs, mask=None, training=None, initial_state=None):
        # The parameters are named, as `_RNN.call`'s: a model passes the mask it has (an
        # Embedding's mask_zero) only to a call that declares ``mask``.
        if isinstance(self.cell, _Cell):  # its weights are read here, not in a cell call
            with autocast_weights(self.cell):
                return super().call(inputs, mask, training, initial_state)
        return super().call(inputs, mask, training, initial_state)

    def _stepper(self, x, training=None):
        cell = self.cell
        if isinstance(cell, _Cell):  # all steps' input projection in one product
            return cell.sequence_stepper(x, training)

        def step(t, states):
            output, new_states = cell(x[:, t], list(states))
            return output, flatten_states(new_states)

        return step

    def get_config(self) -> dict:
        from ..saving import serialize_keras_object

        cell = serialize_keras_object(self.cell)
        if isinstance(cell, dict):
            cell.pop("build_config", None)
        return {**super().get_config(), "cell": cell}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        from ..saving import deserialize_keras_object

        config = dict(config)
        config["cell"] = deserialize_keras_object(config["cell"], custom_objects)
        return cls(**config)


# What `Bidirectional` needs of its layer (Keras 3's criteria, besides get_config/from_config).
_SEQUENCE_API = ("go_backwards", "return_sequences", "return_state")


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards and merges the two (follows
    `tf.keras.layers.Bidirectional`).

    Args:
        layer: the forward direction: an RNN (`SimpleRNN`, `LSTM`, `GRU`, `RNN`, `ConvLSTM2D`,
            ...) or any layer with ``go_backwards``, ``return_sequences`` and ``return_state``
            attributes of the same meaning and a ``get_config``/``from_config`` pair, as Keras
            3 accepts.
        merge_mode: ``"concat"`` (default), ``"sum"``, ``"mul"``, ``"ave"`` or None (a list of
            the two outputs).
        backward_layer: optional; default a copy of ``layer`` from its config with
            ``go_backwards`` flipped (fresh weights).

    With ``return_sequences`` the backward outputs are reversed in time before merging, so
    step ``t`` of both refers to input step ``t``; masked steps output zeros then, as in
    Keras. With ``return_state`` the result is ``[output, *forward_states,
    *backward_states]``.

    Weights: the forward layer's, then the backward layer's (layers named ``forward_<name>``
    and ``backward_<name>``).

    Raises:
        ValueError: a layer without that interface, or an unknown ``merge_mode``.

    >>> bi = ek.keras.layers.Bidirectional(ek.keras.layers.LSTM(4))
    >>> bi(ek.ones((2, 5, 3))).shape
    TensorShape([2, 8])
    """

    _MODES = ("concat", "sum", "mul", "ave", None)

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer) or not all(hasattr(layer, a) for a in _SEQUENCE_API):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a recurrent layer: a "
                "`keras.layers.Layer` with `go_backwards`, `return_sequences` and "
                "`return_state` attributes (SimpleRNN, LSTM, GRU, ConvLSTM2D, ...). "
                f"Received: {layer!r}"
            )
        if merge_mode not in self._MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        if weights is not None:
            raise NotImplementedError("Bidirectional: weights= is not supported; use set_weights.")
        super().__init__(**kwargs)
        if backward_layer is None:
            config = {**layer.get_config(), "go_backwards": not layer.go_backwards}
            config["name"] = f"backward_{layer.name}"
            backward_layer = type(layer).from_config(config)
        layer.name = f"forward_{layer.name}"
        self.forward_layer = layer
        self.backward_layer = backward_layer
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        for sub in (layer, backward_layer):
            sub.zero_output_for_mask = self.return_sequences

    def build(self, input_shape) -> None:
        for sub in (self.forward_layer, self.backward_layer):
            if not sub.built:
                sub._maybe_build_shapes(tuple(input_shape))
        self.built = True

    def call(self, inputs, mask=None, training=None, initial_state=None):
        fwd_state = bwd_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fwd_state, bwd_state = initial_state[:half], initial_state[half:]
        y_f = self.forward_layer(inputs, mask=mask, initial_state=fwd_state)
        y_b = self.backward_layer(inputs, mask=mask, initial_state=bwd_state)
        states: list = []
        if self.return_state:
            y_f, *s_f = y_f
            y_b, *s_b = y_b
            states = [*s_f, *s_b]
        if self.return_sequences:
            y_b = array_ops.reverse(y_b, [1])
        if self.merge_mode == "concat":
            out = array_ops.concat([y_f, y_b], axis=-1)
        elif self.merge_mode == "sum":
            out = y_f + y_b
        elif self.merge_mode == "mul":
            out = y_f * y_b
        elif self.merge_mode == "ave":
            out = (y_f + y_b) * 0.5
        else:
            out = [y_f, y_b]
        if self.return_state:
            return [*out, *states] if self.merge_mode is None else [out, *states]
        return out

    def compute_mask(self, inputs, mask=None):
        out = mask if self.return_sequences else None
        if self.return_state:
            sizes = getattr(self.forward_layer, "_state_sizes", None)
            n = 2 * (len(sizes()) if sizes is not None else 2)  # ConvLSTM: h and c
            return [out] * (2 if self.merge_mode is None else 1) + [None] * n
        return [out, out] if self.merge_mode is None else out

    def compute_output_shape(self, input_shape):
        shape = self.forward_layer.compute_output_shape(input_shape)
        first = shape[0] if self.return_state else shape
        if self.merge_mode == "concat":
            first = (*first[:-1], 2 * first[-1])
        outs = [first, first] if self.merge_mode is None else [first]
        if self.return_state:
            return outs + list(shape[1:]) * 2
        return outs if self.merge_mode is None else first

    def get_config(self) -> dict:
        from ..saving import serialize_keras_object

        layer = serialize_keras_object(self.forward_layer)
        layer["config"]["name"] = self.forward_layer.name.removeprefix("forward_")
        layer.pop("build_config", None)  # built after its renaming, as the original was
        return {**super().get_config(), "layer": layer, "merge_mode": self.merge_mode}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        from ..saving import deserialize_keras_object

        config = dict(config)
        config["layer"] = deserialize_keras_object(config["layer"], custom_objects)
        return cls(**config)
