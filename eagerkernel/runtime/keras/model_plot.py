"""`model_to_dot` and `plot_model` (follow ``keras.utils.model_to_dot`` / ``plot_model``): a
model's layers as a Graphviz graph, one node per layer and an edge per tensor passed between
layers, drawn by Graphviz's ``dot`` (the ``graphviz`` Python package, a dependency, and
Debian's ``graphviz``, which the Makefile installs).

A Sequential model is its chain of layers; a functional model its graph of layer calls; a
subclassed model, whose connections are Python code, one node. With ``expand_nested``, a
Sequential or functional model used as a layer is drawn as a cluster of its own layers.
"""

from __future__ import annotations

import html
import os

from .. import nest

__all__ = ["ModelImage", "model_to_dot", "plot_model"]


def _shape_text(tensors) -> str:
    shapes = nest.map_structure(lambda t: tuple(t.shape), tensors)
    return str(shapes).replace("{", "").replace("}", "")


def _label(layer, inputs, outputs, options) -> str:
    """The node's HTML-like label: name and class, then the optional rows (``options``:
    `model_to_dot`'s flags; ``inputs``/``outputs``: the call's KerasTensors, or None)."""
    show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable = options
    cls = type(layer).__name__
    title = f"<b>{html.escape(layer.name)}</b> ({cls})" if show_layer_names else f"<b>{cls}</b>"
    rows = [f'<tr><td bgcolor="black"><font color="white" point-size="14">{title}</font></td></tr>']
    activation = getattr(layer, "activation", None)
    if show_layer_activations and activation is not None:
        name = getattr(activation, "__name__", str(activation))
        rows.append(f"<tr><td>Activation: <b>{html.escape(name)}</b></td></tr>")
    cells = []
    if show_shapes:
        if cls != "InputLayer":
            text = _shape_text(inputs) if inputs is not None else "?"
            cells.append(f"Input shape: <b>{html.escape(text)}</b>")
        text = _shape_text(outputs) if outputs is not None else "?"
        cells.append(f"Output shape: <b>{html.escape(text)}</b>")
    if show_dtype:
        dtypes = None if outputs is None else nest.map_structure(lambda t: t.dtype.name, outputs)
        dtype = "?" if dtypes is None else str(dtypes)
        cells.append(f"Output dtype: <b>{html.escape(dtype)}</b>")
    if show_trainable and layer.weights:
        cells.append("<b>Trainable</b>" if layer.trainable else "<b>Non-trainable</b>")
    if cells:
        rows.append("<tr><td>" + "<br/>".join(cells) + "</td></tr>")
    return '<<table border="0" cellborder="1" cellpadding="6">' + "".join(rows) + "</table>>"


def _calls(model):
    """``(layer, parent layers, input KerasTensors, output KerasTensors)`` per layer call of a
    Sequential or functional model, in order; None for a subclassed model."""
    from .functional import Functional
    from .models import Sequential

    if isinstance(model, Functional):
        calls = []
        for t in model.inputs:
            layer = t._keras_history[0]
            calls.append((layer, [], None, t))
        for node in model._run_order:
            parents = [p._keras_history[0] for p in node.parents]
            inputs = node.call_args[0] if node.call_args else None
            calls.append((node.layer, parents, inputs, node.outputs))
        return calls
    if isinstance(model, Sequential):
        layers = list(model.layers)
        first = getattr(model, "_input_layer", None)
        chain = ([first] if first is not None else []) + layers
        return [(layer, chain[k - 1 : k], None, None) for k, layer in enumerate(chain)]
    return None


def model_to_dot(
    model,
    show_shapes: bool = False,
    show_dtype: bool = False,
    show_layer_names: bool = True,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 200,
    subgraph: bool = False,
    show_layer_activations: bool = False,
    show_trainable: bool = False,
    **kwargs,
):
    """The model as a ``graphviz.Digraph`` (follows ``keras.utils.model_to_dot``, which
    returns a pydot graph: this one has the same nodes and edges; ``.source`` is its dot
    text).

    Args:
        model: a built Keras model.
        show_shapes, show_dtype: each node shows its layer's input and output shapes, or the
            output dtype (known for the layers of Sequential and functional models).
        show_layer_names: node titles read "name (Class)" (else the class).
        rankdir: ``"TB"`` (top to bottom) or ``"LR"``.
        expand_nested: draw nested Sequential and functional models as clusters of layers.
        dpi: the picture's resolution.
        subgraph: return a cluster (``graphviz.Digraph`` named ``cluster_...``) to embed.
        show_layer_activations, show_trainable: rows for the activation and trainability.

    Raises:
        ValueError: the model is not built, an unknown ``rankdir``, or an unknown keyword
            (Keras's ``layer_range`` is no longer supported there either).
    """
    import graphviz

    if kwargs:
        raise ValueError(f"model_to_dot: unrecognized keyword arguments: {sorted(kwargs)}")
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"model_to_dot: rankdir must be 'TB' or 'LR'. Received: {rankdir!r}")
    if not model.built:
        raise ValueError(
            "model_to_dot: the model has not been built yet; call it on data, or give it an Input."
        )
    options = (show_shapes, show_dtype, show_layer_names, show_layer_activations, show_trainable)
    name = f"cluster_{model.name}" if subgraph else model.name
    dot = graphviz.Digraph(name=name)
    if subgraph:
        dot.attr(label=model.name, style="dashed")
    else:
        dot.attr(rankdir=rankdir, dpi=str(dpi), concentrate="true")
    dot.attr("node", shape="plaintext", fontname="Helvetica")
    _draw(dot, model, options, expand_nested, dpi)
    return dot


def _draw(dot, model, options, expand_nested, dpi) -> tuple[str, str]:
    """Adds ``model``'s layers to ``dot``; returns the ids of its entry and exit nodes."""
    calls = _calls(model)
    if calls is None:  # subclassed: its connections are Python code
        dot.node(str(id(model)), label=_label(model, None, None, options))
        return str(id(model)), str(id(model))
    ends: dict = {}  # id(layer) -> (entry id, exit id)
    for layer, parents, inputs, outputs in calls:
        if expand_nested and _calls(layer) is not None and layer is not model:
            sub = graphviz_cluster(layer)
            entry, exit_ = _draw(sub, layer, options, True, dpi)
            dot.subgraph(sub)
        else:
            entry = exit_ = str(id(layer))
            dot.node(entry, label=_label(layer, inputs, outputs, options))
        ends[id(layer)] = (entry, exit_)
        for parent in parents:
            if ends[id(parent)][1] != entry:  # a nested model sharing its Input: no loop
                dot.edge(ends[id(parent)][1], entry)
    first, last = calls[0][0], calls[-1][0]
    return ends[id(first)][0], ends[id(last)][1]


def graphviz_cluster(model):
    """An empty cluster subgraph labelled with ``model``'s name (a nested model's frame)."""
    import graphviz

    sub = graphviz.Digraph(name=f"cluster_{model.name}_{id(model)}")
    sub.attr(label=model.name, style="dashed")
    return sub


class ModelImage:
    """The picture `plot_model` wrote: a notebook shows it (``_repr_png_`` or
    ``_repr_svg_``), as Keras returns an ``IPython.display.Image``.

    Attributes:
        filename: the file written.
    """

    def __init__(self, filename: str):
        self.filename = filename

    def _read(self, ext):
        if os.path.splitext(self.filename)[1].lower() != ext:
            return None
        with open(self.filename, "rb") as f:
            return f.read()

    def _repr_png_(self):
        return self._read(".png")

    def _repr_svg_(self):
        data = self._read(".svg")
        return None if data is None else data.decode("utf-8")

    def __repr__(self) -> str:
        return f"<ModelImage {self.filename}>"


def plot_model(
    model,
    to_file: str = "model.png",
    show_shapes: bool = False,
    show_dtype: bool = False,
    show_layer_names: bool = False,
    rankdir: str = "TB",
    expand_nested: bool = False,
    dpi: int = 200,
    show_layer_activations: bool = False,
    show_trainable: bool = False,
    **kwargs,
) -> ModelImage:
    """Draws the model with Graphviz into ``to_file`` (its extension picks the format: png,
    svg, pdf, ...; none means png) and returns a `ModelImage` that a notebook displays
    (follows ``keras.utils.plot_model``; the arguments are `model_to_dot`'s). The file is
    written whole or not at all.

    Raises:
        ValueError: as `model_to_dot`.
        ImportError: Graphviz's ``dot`` program is not installed (``apt-get install
            graphviz``; the Makefile does it).
    """
    import graphviz

    dot = model_to_dot(
        model,
        show_shapes=show_shapes,
        show_dtype=show_dtype,
        show_layer_names=show_layer_names,
        rankdir=rankdir,
        expand_nested=expand_nested,
        dpi=dpi,
        show_layer_activations=show_layer_activations,
        show_trainable=show_trainable,
        **kwargs,
    )
    to_file = os.fspath(to_file)
    ext = os.path.splitext(to_file)[1][1:].lower() or "png"
    try:
        data = dot.pipe(format=ext)
    except graphviz.ExecutableNotFound:
        raise ImportError(
            "plot_model: Graphviz's `dot` program is not installed; install it (Debian: "
            "apt-get install graphviz) to draw models."
        ) from None
    tmp = f"{to_file}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, to_file)
    return ModelImage(to_file)
