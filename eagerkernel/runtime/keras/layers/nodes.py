"""What a layer knows of its calls: its calls on KerasTensors in functional graphs (``input``,
``output``, ``get_input_at``), and the name of its first call argument, by which it may be
passed (``layer(logits=x)``, as Keras 3 accepts)."""

from __future__ import annotations

import inspect

__all__ = ["NodesMixin", "first_argument"]

_FIRST: dict = {}  # layer class -> the name of its call's first parameter


def first_argument(layer, kwargs: dict):
    """Pops the input of a layer called with keyword arguments only (``layer(logits=x)``):
    the keyword named as the first parameter of its ``call``, as Keras 3 takes it.

    Raises:
        TypeError: no such keyword (Python's message for a missing argument).
    """
    cls = type(layer)
    name = _FIRST.get(cls)
    if name is None:
        try:
            params = list(inspect.signature(cls.call).parameters.values())[1:]
        except (TypeError, ValueError):
            params = []
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        name = _FIRST[cls] = params[0].name if params and params[0].kind in kinds else ""
    if not name or name not in kwargs:
        raise TypeError(
            f"{cls.__name__}.__call__() missing 1 required positional argument: "
            f"'{name or 'inputs'}'"
        )
    return kwargs.pop(name)


class NodesMixin:
    """``input``/``output`` and ``get_input_at``/``get_output_at`` of `Layer` (follow
    Keras's): read from the layer's inbound nodes, one per call on KerasTensors."""

    def _inbound_node(self, node_index, what: str):
        nodes = self.__dict__.get("_inbound_nodes") or []
        if not nodes:
            raise AttributeError(
                f"Layer {self.name} has never been called on symbolic inputs (ek.keras.Input) "
                f"and thus has no defined {what}."
            )
        if node_index is None:  # Keras 3's `input`/`output`: the first call's, however many
            node_index = 0
        if not 0 <= node_index < len(nodes):
            raise ValueError(
                f"Asked to get {what} at node {node_index}, but the layer has only "
                f"{len(nodes)} inbound nodes."
            )
        return nodes[node_index]

    @property
    def input(self):
        """The KerasTensor(s) this layer was called on in its first call in a functional
        graph (follows Keras 3's `Operation.input`: a layer called several times gives its
        first call's; `get_input_at` gives the others).

        Raises:
            AttributeError: never called on KerasTensors.
        """
        node = self._inbound_node(None, "input")
        return node.call_args[0] if node.call_args else node.outputs

    @property
    def output(self):
        """The KerasTensor(s) this layer returned in its first call in a functional graph
        (follows Keras 3's `Operation.output`: the first call's however many; raises
        AttributeError as `input` does)."""
        return self._inbound_node(None, "output").outputs

    def get_input_at(self, node_index: int):
        """The input KerasTensor(s) of the layer's ``node_index``-th symbolic call."""
        node = self._inbound_node(node_index, "input")
        return node.call_args[0] if node.call_args else node.outputs

    def get_output_at(self, node_index: int):
        """The output KerasTensor(s) of the layer's ``node_index``-th symbolic call."""
        return self._inbound_node(node_index, "output").outputs
