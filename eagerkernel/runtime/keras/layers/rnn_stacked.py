"""StackedRNNCells (follows `tf.keras.layers.StackedRNNCells`): several RNN cells run as one
cell, each feeding its output to the next."""

from __future__ import annotations

from .base import Layer
from .recurrent import flatten_states

__all__ = ["StackedRNNCells"]


def _sizes(size) -> list:
    return [int(n) for n in size] if isinstance(size, (list, tuple)) else [int(size)]


class StackedRNNCells(Layer):
    """Wraps a list of RNN cells so that `RNN` runs them as one cell (follows
    `tf.keras.layers.StackedRNNCells`): at each step the first cell reads the input, each
    later cell the output of the one before, and the last cell's output is the step's output.

    Args:
        cells: a non-empty list of cells (`SimpleRNNCell`, `LSTMCell`, `GRUCell` or any layer
            with ``call(inputs, states)`` returning ``(output, new_states)`` and a
            ``state_size``).

    Attributes:
        state_size: one entry per cell, its ``state_size`` (``[3, [2, 2], 2]`` for a
            SimpleRNNCell(3), an LSTMCell(2) and a GRUCell(2)), as in Keras.
        output_size: the last cell's output size.

    Call: ``cell(inputs, states)`` with inputs ``(batch, features)`` and the states (one list
    per cell, or all of them flat, in cell order) returns ``(output, new_states)`` with
    ``new_states`` one list per cell. In an `RNN` with ``return_state=True`` the final
    states come the same way, one list per cell, as Keras returns them.

    Raises:
        ValueError: an empty list, or an element without ``call`` and ``state_size``
            (Keras's message); a call with the wrong number of states.

    >>> cells = [ek.keras.layers.LSTMCell(4), ek.keras.layers.GRUCell(3)]
    >>> ek.keras.layers.RNN(ek.keras.layers.StackedRNNCells(cells))(ek.ones((2, 5, 6))).shape
    TensorShape([2, 3])
    >>> ek.keras.layers.StackedRNNCells(cells).state_size
    [[4, 4], 3]
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        cells = list(cells) if isinstance(cells, (list, tuple)) else [cells]
        if not cells:
            raise ValueError("StackedRNNCells: `cells` must be a non-empty list. Received: []")
        for cell in cells:
            if not callable(getattr(cell, "call", None)) or not hasattr(cell, "state_size"):
                raise ValueError(
                    "All cells must have a `call` method and a `state_size` attribute. "
                    f"Received cells={cells!r}"
                )
        self.cells = cells

    @property
    def state_size(self) -> list:
        return [cell.state_size for cell in self.cells]

    def nest_states(self, flat: list) -> list:
        """A flat list of states (or of their shapes) grouped into one list per cell."""
        out, start = [], 0
        for cell in self.cells:
            n = len(_sizes(cell.state_size))
            out.append(list(flat[start : start + n]))
            start += n
        return out

    @property
    def output_size(self) -> int:
        last = self.cells[-1]
        return int(getattr(last, "output_size", None) or _sizes(last.state_size)[0])

    def build(self, input_shape) -> None:
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                with cell.name_scope:  # distinct weight names: "rnn/lstm_cell/kernel:0"
                    cell._maybe_build_shapes(shape)
            out = getattr(cell, "output_size", None) or _sizes(cell.state_size)[0]
            shape = (*shape[:-1], int(out))
        self.built = True

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None) -> list:
        """Zero states ``(batch_size, n)`` for every state of every cell, one list per cell."""
        from ...ops.creation import zeros

        if batch_size is None:
            if inputs is None:
                raise ValueError(f"{self.name}.get_initial_state: pass batch_size or inputs.")
            batch_size = next(iter(inputs.shape))
        dt = self.compute_dtype if dtype is None else dtype
        flat = [zeros((int(batch_size), int(n)), dtype=dt) for n in flatten_states(self.state_size)]
        return self.nest_states(flat)

    def call(self, inputs, states, training=None):
        states = flatten_states(states)
        sizes = flatten_states(self.state_size)
        if len(states) != len(sizes):
            raise ValueError(
                f"StackedRNNCells {self.name!r}: expected {len(sizes)} states (state_size "
                f"{self.state_size}). Received: {len(states)}"
            )
        x = inputs
        new_states: list = []  # one list per cell
        start = 0
        for cell in self.cells:
            n = len(_sizes(cell.state_size))
            x, cell_states = cell(x, states[start : start + n])
            start += n
            cell_states = (
                list(cell_states) if isinstance(cell_states, (list, tuple)) else [cell_states]
            )
            new_states.append(cell_states)
        return x, new_states

    def get_config(self) -> dict:
        from ..saving import serialize_keras_object

        cells = []
        for cell in self.cells:
            config = serialize_keras_object(cell)
            if isinstance(config, dict):
                config.pop("build_config", None)
            cells.append(config)
        return {**super().get_config(), "cells": cells}

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        from ..saving import deserialize_keras_object

        config = dict(config)
        config["cells"] = [deserialize_keras_object(c, custom_objects) for c in config["cells"]]
        return cls(**config)
