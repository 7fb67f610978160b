"""``layer.cell`` of SimpleRNN, LSTM and GRU, and their weights' Keras 3 paths.

A recurrent layer here owns its weights itself (``lstm/kernel:0``, tf.keras's names) and runs
its own step; Keras 3 builds it around a cell, so code reads ``layer.cell`` (its config, its
``state_size``, its weights) and weight paths name the cell (``lstm/lstm_cell/kernel``, what
``Variable.path`` gives and what `MultiOptimizer` maps and Muon's ``exclude_layers`` match).
`CellView` gives both: ``cell`` is a cell of the layer's configuration whose weights are the
layer's own Variables (assigning to one changes the other; calling the cell runs one step).
"""

from __future__ import annotations

__all__ = ["CellView"]

_CELL_NAMES = {"SimpleRNNCell": "simple_rnn_cell", "LSTMCell": "lstm_cell", "GRUCell": "gru_cell"}

_CELL_KEYS: dict = {}  # cell class -> the keys of its config (taken from the layer's)


class CellView:
    """Mixin of SimpleRNN, LSTM and GRU (see the module docstring)."""

    def build(self, input_shape) -> None:
        super().build(input_shape)
        cell = f"{_CELL_NAMES[self._cell_type().__name__]}/"
        for v in (self.kernel, self.recurrent_kernel, self.bias):
            if v is not None and cell not in v.path:
                head, _, name = v.path.rpartition("/")
                v._path = f"{head}/{cell}{name}"

    def _cell_type(self) -> type:
        from . import recurrent

        for klass in type(self).__mro__:  # the first of SimpleRNN, LSTM, GRU in the MRO
            cell = getattr(recurrent, f"{klass.__name__}Cell", None)
            if cell is not None:
                return cell
        raise TypeError(f"{type(self).__name__}: no cell class.")

    @property
    def cell(self):
        """A cell of this layer's configuration sharing its weights (follows Keras 3's
        ``LSTM.cell``, ...); made on first access, and again once the layer is built."""
        held = self.__dict__.get("_cell_view")
        if held is not None and held.cell.built == self.built:
            return held.cell
        klass = self._cell_type()
        keys = _CELL_KEYS.get(klass)
        if keys is None:
            probe = klass(1, name=_CELL_NAMES[klass.__name__])
            keys = _CELL_KEYS[klass] = set(probe.get_config()) - {"name", "trainable"}
        config = {k: v for k, v in self.get_config().items() if k in keys}
        cell = klass.from_config({**config, "name": _CELL_NAMES[klass.__name__]})
        if self.built:
            cell.kernel, cell.recurrent_kernel, cell.bias = (
                self.kernel,
                self.recurrent_kernel,
                self.bias,
            )
            cell._tracked[:] = [
                v for v in (self.kernel, self.recurrent_kernel, self.bias) if v is not None
            ]
            cell.built = True
        self.__dict__["_cell_view"] = _Held(cell)  # not a sublayer: saved with the layer
        return cell


class _Held:
    """Holds the cell out of the layer tracking's sight (checkpoints, ``.keras`` files and
    weight lists see the layer's Variables once, under the layer)."""

    __slots__ = ("cell",)

    def __init__(self, cell):
        self.cell = cell
