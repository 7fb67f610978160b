"""``stateful=True`` for the recurrent layers (follows Keras 3's `RNN`; `SimpleRNN`, `LSTM`,
`GRU`, `RNN(cell)` and the `ConvLSTM` layers): the final states of one call are the initial
states of the next, for batches of one fixed size, until `reset_state`.

The states live in non-trainable Variables, one per state, of the shapes the layer gives
(`_carried_shapes`: ``(batch_size, units)`` for the plain layers). As in Keras they are not
among the layer's weights (nothing saves them, no optimizer sees them). Each call reads them
when no ``initial_state`` is given, and assigns them the final states afterwards: Variable
assignments, so a graph function carries them from call to call too, and no gradient flows
from one call into the previous one.
"""

from __future__ import annotations

from ...core.tensor import to_tensor
from ...core.variable import Variable
from ...ops.creation import zeros
from ...ops.elementwise import cast

__all__ = ["CarriedStates", "StatefulRNN"]


class CarriedStates:
    """The Variables a stateful layer carries; a holder the layer's weight tracking does not
    walk (Keras keeps them out of ``layer.weights``)."""

    __slots__ = ("variables",)

    def __init__(self, variables: list):
        self.variables = variables


class StatefulRNN:
    """Mixed into `recurrent._RNN` and `conv_lstm.ConvLSTM` (which define `stateful` and
    `_carried_shapes`)."""

    _carried: CarriedStates | None = None

    def _carried_shapes(self, input_shape) -> list:
        """The shapes of the states for inputs of ``input_shape``."""
        raise NotImplementedError

    @property
    def states(self):
        """The carried state Variables of a stateful layer once built, else None (Keras's
        ``RNN.states``)."""
        return None if self._carried is None else list(self._carried.variables)

    def _build_states(self, input_shape) -> None:
        """Creates the carried states for ``input_shape`` (stateful layers only).

        Raises:
            ValueError: the batch size is unknown (Keras's message).
        """
        if not self.stateful:
            return
        if input_shape[0] is None:
            raise ValueError(
                "When using `stateful=True` in a RNN, the batch size must be static. Found "
                f"dynamic batch size: sequence.shape={tuple(input_shape)}"
            )
        self._carried = CarriedStates(
            [
                Variable(
                    zeros(tuple(int(d) for d in shape), dtype=self.compute_dtype),
                    trainable=False,
                    name=f"{self.name}/rnn_state_{k}",
                )
                for k, shape in enumerate(self._carried_shapes(input_shape))
            ]
        )

    def _carried_initial_states(self, input_shape) -> list:
        """The carried states, as the initial states of a call on ``input_shape``.

        Raises:
            ValueError: the states were made for another batch size (or another spatial shape).
        """
        if self._carried is None:
            self._build_states(input_shape)
        held = self._carried.variables
        expected = [tuple(int(d) for d in s) for s in self._carried_shapes(input_shape)]
        if [tuple(v.shape) for v in held] != expected:
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: if an RNN is stateful, the batch size of "
                "the input sequences must be the same as the batch size of the initial state. "
                f"Expected batch size: {int(held[0].shape[0])}. Received: {input_shape[0]} "
                f"(states {[tuple(v.shape) for v in held]}, this input needs {expected})"
            )
        return [v.read_value() for v in held]

    def _carry(self, states: list) -> None:
        """Keeps a stateful layer's final ``states`` for its next call."""
        if self.stateful and self._carried is not None:
            for held, state in zip(self._carried.variables, states):
                held.assign(cast(state, held.dtype))

    def reset_state(self, states=None) -> None:
        """Sets the carried states back to zeros, or to ``states`` (a list of one tensor per
        state; Keras 2's argument) (follows `RNN.reset_state`); nothing for a layer that is
        not stateful or not built.

        Raises:
            ValueError: ``states`` of the wrong number or shapes.
        """
        if self._carried is None:
            return
        held = self._carried.variables
        if states is None:
            for v in held:
                v.assign(zeros(tuple(v.shape), dtype=v.dtype))
            return
        from .recurrent import flatten_states

        given = [to_tensor(s) for s in flatten_states(states)]
        if len(given) != len(held) or any(
            tuple(g.shape) != tuple(v.shape) for g, v in zip(given, held)
        ):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: reset_state needs {len(held)} states of "
                f"shapes {[tuple(v.shape) for v in held]}. Received: "
                f"{[tuple(g.shape) for g in given]}"
            )
        for v, g in zip(held, given):
            v.assign(cast(g, v.dtype))

    def reset_states(self, states=None) -> None:
        """`reset_state` (Keras's other name)."""
        self.reset_state(states)
