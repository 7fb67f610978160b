"""`Model.summary`'s table (follows Keras 3's ``keras.src.utils.summary_utils``).

Keras 3's arguments and rules (``show_trainable``'s "Trainable" column, ``expand_nested``'s
indented sublayers, ``layer_range``'s first and last layer by name or regex, and its errors),
drawn in the plain Keras 2 style this package prints: columns separated by spaces, rows by
``_`` lines, the header and the table's end by ``=`` lines.
"""

from __future__ import annotations

import re

import numpy as np

from .. import nest
from ..core.tensor import TensorShape

__all__ = ["layer_index_bounds", "print_summary"]


def print_summary(
    model,
    line_length=None,
    positions=None,
    print_fn=None,
    expand_nested=False,
    show_trainable=False,
    layer_range=None,
) -> None:
    """Prints ``model``'s summary table through ``print_fn`` (default `print`), one line a
    call; see `Model.summary` for the arguments.

    Raises:
        ValueError: ``positions`` with a count other than the table's columns (without the
            "Trainable" one), a column narrower than 4 characters, or a bad ``layer_range``
            (see `layer_index_bounds`).
    """
    from .functional import Functional

    print_fn = print_fn or print
    functional = isinstance(model, Functional)
    chain = not functional or model._sequential_like()
    header = ["Layer (type)", "Output Shape", "Param #"]
    if chain:
        default_length, default_positions = 80, [0.45, 0.8, 1.0]
    else:
        default_length, default_positions = 98, [0.33, 0.55, 0.67, 1.0]
        header.append("Connected to")
    if positions is not None and len(positions) != len(header):
        raise ValueError(
            f"summary: `positions` must give {len(header)} column ends (one per column of "
            f"{header}). Received: positions={list(positions)}"
        )
    positions = list(positions or default_positions)
    if show_trainable:  # Keras 3: 12 more characters, the other columns shrunk to 90%
        default_length += 12
        header.append("Trainable")
    line_length = line_length or default_length
    if positions[-1] <= 1:  # fractions of the line
        if show_trainable:
            positions = [p * 0.9 for p in positions] + [1.0]
        positions = [int(line_length * p) for p in positions]
    elif show_trainable:
        positions.append(max(line_length, positions[-1] + 12))
        line_length = positions[-1]
    if any(b - a < 4 for a, b in zip([0, *positions], positions)):
        raise ValueError("Insufficient console width to print summary.")

    def line(cells) -> str:
        text = ""
        for cell, stop in zip(cells, positions):
            text = (text + cell).ljust(stop - 1)[: stop - 1] + " "
        return text.rstrip()

    layers = model._graph_layers if functional else model._summary_layers()
    start, stop = layer_index_bounds(layers, layer_range)
    groups = []  # the lines of each layer's row, separated by "_" lines
    options = (chain, expand_nested, show_trainable)
    for layer in layers[start:stop]:
        groups.extend(_layer_rows(model, model, layer, 0, options))

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_fn(line(header))
    print_fn("=" * line_length)
    for i, group in enumerate(groups):
        for cells in group:
            print_fn(line(cells))
        print_fn(("_" if i < len(groups) - 1 else "=") * line_length)
    if not groups:
        print_fn("=" * line_length)
    trainable = sum(int(np.prod(v.shape, dtype=np.int64)) for v in model.trainable_variables)
    total = sum(int(np.prod(v.shape, dtype=np.int64)) for v in model.weights)
    print_fn(f"Total params: {total:,}")
    print_fn(f"Trainable params: {trainable:,}")
    print_fn(f"Non-trainable params: {total - trainable:,}")
    print_fn("_" * line_length)


def layer_index_bounds(layers, layer_range=None) -> tuple:
    """``(start, stop)``: the slice of ``layers`` from the first layer whose name matches
    ``layer_range[0]`` (`re.match`: a name or a regex) to the last matching ``layer_range[1]``,
    both included (all of them for None), as Keras 3's ``get_layer_index_bound_by_layer_name``.

    Raises:
        ValueError: ``layer_range`` not of length 2, not two strings, or a pattern no layer
            name matches (Keras's messages).
    """
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2:
        raise ValueError(
            "layer_range must be a list or tuple of length 2. Received: "
            f"layer_range = {layer_range} of length {len(layer_range)}"
        )
    if not isinstance(layer_range[0], str) or not isinstance(layer_range[1], str):
        raise ValueError(f"layer_range should contain string type only. Received: {layer_range}")
    lower = [i for i, la in enumerate(layers) if re.match(layer_range[0], la.name)]
    upper = [i for i, la in enumerate(layers) if re.match(layer_range[1], la.name)]
    if not lower or not upper:
        raise ValueError(
            f"Passed layer_names do not match the layer names in the model. Received: {layer_range}"
        )
    if min(lower) > max(upper):
        return min(upper), max(lower) + 1
    return min(lower), max(upper) + 1


def _layer_rows(outer, parent, layer, level: int, options: tuple) -> list:
    """The row groups for ``layer`` (a layer of ``parent``, ``level`` models deep in
    ``outer``): its own (with a line per extra connection) and, with ``expand_nested``, its
    sublayers', each indented by ``"   " * level + "└ "`` as Keras 3 prints them."""
    from .models import Model

    chain, expand_nested, show_trainable = options
    prefix = "   " * level + "└ " if level else ""
    shape, params = _shape_and_params(parent, layer)
    cells = [f"{prefix}{layer.name} ({type(layer).__name__})", shape, params]
    connections = [] if chain or level else outer._connections(layer)
    if not chain:
        cells.append(connections[0] if connections else "")
    if show_trainable:  # Keras 3: "-" for a layer without weights
        cells.append(("Y" if layer.trainable else "N") if layer.weights else "-")
    group = [cells] + [["", "", "", extra] for extra in connections[1:]]
    groups = [group]
    if expand_nested and isinstance(layer, Model):  # Keras 3 expands what has `layers`
        for sub in layer.layers:
            groups.extend(_layer_rows(outer, layer, sub, level + 1, options))
    return groups


def _shape_and_params(parent, layer) -> tuple:
    """``layer``'s output shape and parameter count texts in ``parent``'s summary."""
    from .functional import Functional
    from .layers.core import InputLayer
    from .models import batch_none

    if not isinstance(parent, Functional):
        # a layer of a model not built yet shows "?" and, if not built either, "0 (unbuilt)"
        shape = getattr(layer, "_output_shape", None)
        if not parent.built and not getattr(layer, "_symbolic", None):
            shape_text = "?"
        else:
            shape_text = "multiple" if shape is None else str(batch_none(shape))
        return shape_text, str(layer.count_params()) if layer.built else "0 (unbuilt)"
    nodes = [n for n in layer.__dict__.get("_inbound_nodes", ()) if n in parent._run_order]
    if (nodes and nodes[0].is_input) or (not nodes and isinstance(layer, InputLayer)):
        shape_text = str([tuple(layer._batch_input_shape)])
    elif len(nodes) == 1:
        shape_text = _shape_text(nest.map_structure(lambda t: t.shape, nodes[0].outputs))
    elif not nodes:
        shape_text = _shape_text(parent._input_node_shape(layer))
    else:
        shape_text = "multiple"
    return shape_text, str(layer.count_params())


def _shape_text(shape) -> str:
    from .models import batch_none

    if shape is None:
        return "multiple"
    if isinstance(shape, TensorShape):
        return str(tuple(shape))
    if isinstance(shape, dict):
        return str({k: tuple(v) for k, v in shape.items()})
    if isinstance(shape, (list, tuple)):
        return str([tuple(s) for s in shape])
    return str(batch_none(shape))
