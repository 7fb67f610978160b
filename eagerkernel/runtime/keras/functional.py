"""The functional API (follows `tf.keras.Input` and `tf.keras.Model(inputs, outputs)`).

``Input(shape)`` returns a `KerasTensor`. Calling a layer on KerasTensors (`symbolic_call`,
reached from `Layer.__call__`) builds the layer from the symbolic shapes, infers its output
shapes and dtypes, records a `Node` and returns new KerasTensors. Shape inference runs the
layer's `compute_output_shape` when it has one; otherwise (custom layers) it calls the layer on
two small zero-filled stand-ins, with every unknown dimension 2 and then 3, off every tape and
in inference mode, and marks the output dimensions that differ as unknown.

`Functional` (what ``Model(inputs=..., outputs=...)`` returns) orders the recorded nodes as
Keras 2 does (by depth from the outputs) and runs them on real tensors; called on KerasTensors
it becomes one node of a larger graph.
"""

from __future__ import annotations

import numpy as np

from .. import nest
from ..core.tensor import Tensor, TensorShape, to_tensor
from . import masking
from .keras_tensor import KerasHistory, KerasTensor, Node, spec_between
from .layers.base import Layer
from .layers.deferred import deferred_updates
from .layers.stand_in import stand_in_call
from .models import Model, adjust_input_rank
from .output_shape_args import build_shape_kwargs, build_sublayers_by_probe, output_shape_kwargs

__all__ = ["Functional", "Input", "compute_output_spec", "probe_spec", "symbolic_call"]


def Input(
    shape=None,
    batch_size=None,
    dtype=None,
    sparse=None,
    batch_shape=None,
    name=None,
    tensor=None,
    optional=False,
    ragged=None,
    type_spec=None,
):
    """A symbolic input of a functional model (follows `tf.keras.Input`).

    Args:
        shape: the shape of one example, without the batch axis; None for an unknown size
            (``(None, 3)``: sequences of any length).
        batch_size: optional fixed batch size (default None: any).
        dtype: default float32.
        sparse: True for an input fed `ek.sparse.SparseTensor`s (a following Dense layer
            multiplies them with `ek.sparse.sparse_dense_matmul`, as Keras does).
        ragged, tensor: accepted only with their defaults (no ragged or wrapped-tensor
            inputs); anything else raises NotImplementedError.
        type_spec: tf.keras 2's argument, accepted as None only (Keras 3 has none: TypeError).
        batch_shape: the full shape, batch axis included (instead of ``shape``).
        name: the input layer's name (default ``input_layer``, ``input_layer_1``, ...); a model
            called with a dict finds this input under it.
        optional: accepted as False only.

    Returns:
        A `KerasTensor` of shape ``(batch_size, *shape)``.

    Raises:
        ValueError: neither or both of ``shape`` and ``batch_shape``, or a negative size.
        NotImplementedError: ``ragged``, ``tensor`` or ``optional``.
        TypeError: a ``type_spec``, as Keras 3's ``Input()`` (which has no such argument).

    >>> x = ek.keras.Input(shape=(28, 28, 1), name="img")
    >>> x.shape, x.dtype.name
    ((None, 28, 28, 1), 'float32')
    """
    from .layers.core import InputLayer

    if type_spec is not None:  # tf.keras 2's argument; Keras 3's Input has none
        raise TypeError(
            "Input() got an unexpected keyword argument 'type_spec' (Keras 3 has no "
            f"type_spec inputs). Received: type_spec={type_spec!r}"
        )
    for arg, value in (("ragged", ragged), ("tensor", tensor), ("optional", optional)):
        if value not in (None, False):
            raise NotImplementedError(
                f"Input: {arg}= is not supported (dense inputs only). Received: {arg}={value!r}"
            )
    if (shape is None) == (batch_shape is None):
        raise ValueError(
            "Input: give exactly one of `shape` (without the batch axis) and `batch_shape`. "
            f"Received: shape={shape!r}, batch_shape={batch_shape!r}"
        )
    given = shape if batch_shape is None else batch_shape
    if batch_shape is None:
        shape = (shape,) if isinstance(shape, (int, np.integer)) else shape
        if not isinstance(shape, (tuple, list, TensorShape)):
            raise ValueError(f"Input: cannot convert {shape!r} to a shape (a tuple of sizes).")
        batch_shape = (batch_size, *tuple(shape))
    batch_shape = [getattr(d, "value", d) for d in batch_shape]  # TF 1.x Dimensions
    if any(d is not None and not isinstance(d, (int, np.integer)) for d in batch_shape):
        raise ValueError(f"Input: cannot convert {given!r} to a shape: sizes are integers or None.")
    batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
    if any(d is not None and d < 0 for d in batch_shape):
        raise ValueError(f"Input: negative dimension in shape. Received: shape={batch_shape}")
    layer = InputLayer(batch_shape=batch_shape, dtype=dtype, name=name, sparse=bool(sparse))
    return layer.output


def make_input_tensor(layer) -> KerasTensor:
    """The KerasTensor an InputLayer stands for (recorded as the layer's node 0)."""
    kt = KerasTensor(
        layer._batch_input_shape,
        layer.dtype,
        name=layer.name,
        history=KerasHistory((layer, 0, 0)),
        sparse=getattr(layer, "sparse", False),
    )
    Node(layer, (), {}, kt)
    return kt


def _is_shape(s) -> bool:
    return isinstance(s, (tuple, list)) and all(
        d is None or isinstance(d, (int, np.integer)) for d in s
    )


def _map_shapes(fn, structure):
    if _is_shape(structure):
        return fn(structure)
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map_shapes(fn, s) for s in structure)
    if isinstance(structure, dict):
        return {k: _map_shapes(fn, v) for k, v in structure.items()}
    raise TypeError(f"compute_output_shape returned {structure!r}, not a shape or shapes.")


def _output_dtype(layer: Layer, inputs):
    """Keras's autocasting rule for a call whose shapes come from `compute_output_shape`:
    floating inputs and layers with weights compute in the layer's dtype; other layers pass
    the input's dtype through. Of several inputs, a floating one decides (Keras 3's ops
    promote ``int64`` and ``float32`` to ``float32``: a Concatenate of both is float32)."""
    symbolic = [t for t in nest.flatten(inputs) if isinstance(t, KerasTensor)]
    first = next((t for t in symbolic if t.dtype.is_floating), symbolic[0] if symbolic else None)
    if first is not None and first.dtype.is_floating and layer._cast_to is None:
        return first.dtype  # autocast=False: floating inputs are not cast
    if first is None or first.dtype.is_floating or layer._tracked or layer._input_dtype:
        return layer._dtype
    return first.dtype


def compute_output_spec(layer: Layer, inputs, args=(), kwargs=None):
    """KerasTensors (without history) for ``layer(inputs, *args, **kwargs)`` on KerasTensors.

    Uses the layer's own ``compute_output_spec`` if it has one (functional models do), else
    its `compute_output_shape` (given ``foo_shape`` per tensor argument ``foo`` when the call
    has several), else two stand-in calls (module docstring).
    """
    kwargs = kwargs or {}
    own = getattr(layer, "compute_output_spec", None)
    if own is not None:
        return own(inputs, *args, **kwargs)
    plain = not args and not (set(kwargs) - {"training", "mask"})
    if plain and hasattr(type(layer), "compute_output_shape"):
        shapes = nest.map_structure(
            lambda t: tuple(t.shape) if isinstance(t, KerasTensor) else t, inputs
        )
        if isinstance(inputs, KerasTensor):
            shapes = tuple(inputs.shape)
        try:
            out = layer.compute_output_shape(shapes)
        except NotImplementedError:
            out = None
        if out is not None:
            dtype = _output_dtype(layer, inputs)
            return _map_shapes(lambda s: KerasTensor(tuple(s), dtype), out)
    elif hasattr(type(layer), "compute_output_shape"):  # several tensor arguments
        shape_kwargs = output_shape_kwargs(layer, inputs, args, kwargs)
        try:
            out = None if shape_kwargs is None else layer.compute_output_shape(**shape_kwargs)
        except NotImplementedError:
            out = None
        if out is not None:
            dtype = _output_dtype(layer, inputs)
            return _map_shapes(lambda s: KerasTensor(tuple(s), dtype), out)
    return probe_spec(layer, inputs, args, kwargs)


def probe_spec(layer: Layer, inputs, args=(), kwargs=None):
    """The output KerasTensors of ``layer(inputs, *args, **kwargs)``, found by calling it
    twice on stand-in zeros (each unknown dimension 2, then 3; a dimension that differs is
    unknown), not recorded and with NumPy's floating-point warnings silenced (``log(0)`` of a
    stand-in is no error).

    Raises:
        the layer's own error, its message saying it came from a stand-in call; TypeError if
        the layer returns something other than Tensors.
    """
    from ..core.tape import stop_recording

    kwargs = dict(kwargs or {})
    if "training" in kwargs or Layer._call_accepts_training.get(type(layer)):
        kwargs["training"] = False
    results = []
    for size in (2, 3):
        a_inputs, a_args, a_kwargs = nest.map_structure(
            lambda t, size=size: masking.stand_in(t, size), (inputs, list(args), kwargs)
        )
        try:
            # moving statistics: never committed
            with (
                stop_recording(),
                deferred_updates(),
                stand_in_call(),
                np.errstate(all="ignore"),
            ):
                results.append(layer(a_inputs, *a_args, **a_kwargs))
        except Exception as e:
            shapes = ", ".join(
                str(tuple(t.shape))
                for t in nest.flatten((inputs, list(args), kwargs))
                if isinstance(t, KerasTensor)
            )
            raise type(e)(
                f"{e}\n(while inferring the output shape of layer {layer.name!r} "
                f"({type(layer).__name__}) on symbolic inputs of shapes {shapes}: it ran on "
                f"stand-in inputs with each unknown dimension set to {size}; give the layer a "
                "compute_output_shape method if its output shape cannot be found that way)"
            ) from e

    def spec(a, b):
        if not isinstance(a, Tensor):
            raise TypeError(
                f"Layer {layer.name!r} returned {type(a).__name__}, not a Tensor, on symbolic "
                "inputs."
            )
        return spec_between(a, b)

    return nest.map_structure(spec, results[0], results[1])


def symbolic_call(layer: Layer, inputs, args: tuple, kwargs: dict):
    """``layer(inputs, *args, **kwargs)`` with KerasTensors among the arguments: builds the
    layer, records a `Node` and returns the output KerasTensors (see the module docstring).

    The outputs carry the layer's output mask as ``_keras_mask`` (a KerasTensor) when it gives
    one (`keras.masking`); the Node does not record it: the model computes the real mask as it
    runs."""
    if not layer.built:
        with layer.name_scope:  # its weights are named as an eager call names them
            shape_kwargs = build_shape_kwargs(layer, inputs, args, kwargs) if args else None
            if shape_kwargs is None:
                layer._maybe_build(inputs)
            else:  # build(query_shape, value_shape, ...): every input's shape, as Keras 3
                layer._build_input_shape = shape_kwargs  # get_build_config's input_shape
                layer.build(**shape_kwargs)
                layer.built = True
        build_sublayers_by_probe(layer, inputs, args, kwargs, probe_spec)
    spec = compute_output_spec(layer, inputs, args, kwargs)
    node_index = len(layer.__dict__.get("_inbound_nodes", ()))
    flat = nest.flatten(spec)
    outs = []
    for i, s in enumerate(flat):
        suffix = "" if len(flat) == 1 else f"_{i}"
        outs.append(
            KerasTensor(
                s.shape,
                s.dtype,
                name=f"{layer.name}{suffix}" if node_index == 0 else f"{layer.name}_{node_index}",
                history=KerasHistory((layer, node_index, i)),
            )
        )
    outputs = nest.pack_sequence_as(spec, outs)
    masking.attach_symbolic(layer, inputs, kwargs, outputs)
    # The node keeps containers of its own: the caller may mutate the list it gets back
    # (keras-io's FCN: ``x = backbone(inp); x[-1] = convs(x[-1])``), as Keras 3 allows.
    Node(
        layer,
        nest.map_structure(_same, (inputs, *args)),
        dict(kwargs),
        nest.map_structure(_same, outputs),
    )
    if node_index == 0 or getattr(layer, "_output_shape", None) is None:
        layer._output_shape = nest.map_structure(lambda t: t.shape, outputs)
    return outputs


def _same(x):
    return x


def _source_node(t: KerasTensor) -> Node:
    layer, node_index, _ = t._keras_history
    return layer._inbound_nodes[node_index]


def build_graph(inputs: list, outputs: list):
    """Keras 2's ``_map_graph_network``: the nodes between ``inputs`` and ``outputs`` in an
    order to run them (decreasing depth), and the layers in Keras's order.

    Raises:
        ValueError: an output that is not a KerasTensor, a cycle, or a tensor that cannot be
            computed from ``inputs`` ("Graph disconnected").
    """
    input_ids = {id(t) for t in inputs}
    finished: set = set()
    in_progress: set = set()
    post_order: list[Node] = []
    layer_indices: dict[int, int] = {}
    layers_by_id: dict[int, Layer] = {}

    def visit(tensor: KerasTensor) -> None:
        if id(tensor) in input_ids:
            node = _source_node(tensor)
            if node.is_input:  # an Input: its InputLayer belongs to the model
                layer_indices.setdefault(id(node.layer), len(layer_indices))
                layers_by_id[id(node.layer)] = node.layer
            return
        node = _source_node(tensor)
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError(
                f"Tensor {tensor!r} from layer {node.layer.name!r} is part of a cycle."
            )
        if node.is_input:
            accessed = [layers_by_id[k].name for k in layer_indices]
            raise ValueError(
                f"Graph disconnected: cannot obtain value for tensor {tensor!r} at layer "
                f'"{node.layer.name}". The following previous layers were accessed without '
                f"issue: {accessed}"
            )
        layer_indices.setdefault(id(node.layer), len(layer_indices))
        layers_by_id[id(node.layer)] = node.layer
        in_progress.add(id(node))
        for parent in node.parents:
            visit(parent)
        in_progress.discard(id(node))
        finished.add(id(node))
        post_order.append(node)

    for t in outputs:
        if not isinstance(t, KerasTensor):
            raise ValueError(
                "Model: all `outputs` must be KerasTensors (the outputs of layers called on "
                f"ek.keras.Input). Received: {t!r}"
            )
        visit(t)

    node_depth: dict[int, int] = {}
    layer_depth: dict[int, int] = {}
    for node in reversed(post_order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = depth
        node_depth[id(node)] = depth
        for parent in node.parents:
            p = _source_node(parent)
            if id(parent) in input_ids and not p.is_input:
                continue  # an intermediate tensor given as a model input: no layer behind it
            node_depth[id(p)] = max(depth + 1, node_depth.get(id(p), 0))
            if p.is_input:
                layer_depth[id(p.layer)] = max(depth + 1, layer_depth.get(id(p.layer), 0))
    for t in inputs:  # an input no output depends on sits at depth 0, first (Keras 2)
        node = _source_node(t)
        if node.is_input and id(node.layer) not in layer_depth:
            layer_depth[id(node.layer)] = 0
            layer_indices[id(node.layer)] = -1
            layers_by_id[id(node.layer)] = node.layer
    run_order = sorted(post_order, key=lambda n: -node_depth[id(n)])  # stable: post-order ties
    ordered = sorted(
        layers_by_id.values(), key=lambda la: (-layer_depth[id(la)], layer_indices[id(la)])
    )
    names: dict[str, int] = {}
    for la in ordered:
        names[la.name] = names.get(la.name, 0) + 1
    for n, count in names.items():
        if count > 1:
            raise ValueError(
                f'The name "{n}" is used {count} times in the model. All layer names should be '
                "unique."
            )
    return run_order, ordered


class Functional(Model):
    """A model defined by a graph of layer calls (follows Keras's ``Functional``; made by
    ``ek.keras.Model(inputs=..., outputs=...)``).

    Args:
        inputs: a KerasTensor from `Input`, or a list or dict of them.
        outputs: KerasTensors computed from ``inputs`` (one, a list or a dict).
        name: the model's name (default ``model``, ``model_1``, ...).
        trainable: as for layers.

    Calling the model runs the recorded layer calls on real tensors (inputs as the ``inputs``
    structure, or a dict keyed by the Inputs' names; values are converted to each Input's
    dtype and checked against its shape) and returns the ``outputs`` structure. Called on
    KerasTensors it is one layer of a larger graph. `layers` lists the input layers and every
    layer called (each once, shared ones included), in Keras's order.

    Raises:
        ValueError: "Graph disconnected" when an output needs an Input not in ``inputs``; two
            layers with one name; outputs that are not KerasTensors.

    >>> inputs = ek.keras.Input(shape=(3,))
    >>> hidden = ek.keras.layers.Dense(4, activation="relu")(inputs)
    >>> model = ek.keras.Model(inputs=inputs, outputs=ek.keras.layers.Dense(1)(hidden))
    >>> model(np.ones((2, 3), np.float32)).shape
    TensorShape([2, 1])
    >>> [type(la).__name__ for la in model.layers]
    ['InputLayer', 'Dense', 'Dense']
    """

    _inputs_in_variable_dtype = True  # mixed policy: inputs stay float32, as Keras's Inputs

    def __init__(self, inputs, outputs, name=None, trainable=True, **kwargs):
        Model.__init__(self, name=name, trainable=trainable, **kwargs)
        flat_inputs = nest.flatten(inputs)
        for t in flat_inputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(
                    "Model: all `inputs` must be KerasTensors made by ek.keras.Input. "
                    f"Received: {t!r}"
                )
        flat_outputs = nest.flatten(outputs)
        self._input_struct = inputs
        self._output_struct = outputs
        self.inputs = flat_inputs
        self.outputs = flat_outputs
        self._run_order, self._graph_layers = build_graph(flat_inputs, flat_outputs)
        self.built = True
        self._output_shape = nest.map_structure(lambda t: t.shape, outputs)

    # -- structure ------------------------------------------------------------------------------
    @property
    def layers(self) -> list:
        """The model's layers in run order, the InputLayers first; the operators recorded on
        KerasTensors (``x + y``) and the ``keras.ops`` calls on them (`KerasOpLayer`) are not
        layers (see `operations`), as in Keras 3."""
        from .layers.merging import Operator
        from .ops import KerasOpLayer

        ops = (Operator, KerasOpLayer)
        return [la for la in self._graph_layers if not isinstance(la, ops)]

    @property
    def operations(self) -> list:
        """Every node of the graph in run order: the layers and the recorded operators
        (``x + y`` as ``add``), as Keras 3's ``Functional.operations``."""
        return list(self._graph_layers)

    @property
    def input(self):
        """The input KerasTensor (the ``inputs`` structure as given)."""
        return self._input_struct

    @property
    def output(self):
        """The output KerasTensor (the ``outputs`` structure as given)."""
        return self._output_struct

    @property
    def input_shape(self):
        s = nest.map_structure(lambda t: tuple(t.shape), self._input_struct)
        return s

    @property
    def output_shape(self):
        return nest.map_structure(lambda t: tuple(t.shape), self._output_struct)

    @property
    def input_names(self) -> list:
        return [_source_node(t).layer.name for t in self.inputs]

    @property
    def output_names(self) -> list:
        return [t._keras_history[0].name for t in self.outputs]

    # -- running --------------------------------------------------------------------------------
    def _flatten_call_inputs(self, inputs) -> list:
        n = len(self.inputs)
        if isinstance(inputs, dict):
            if isinstance(self._input_struct, dict):
                missing = [k for k in self._input_struct if k not in inputs]
                if not missing:
                    return nest.flatten({k: inputs[k] for k in self._input_struct})
            names = self.input_names
            missing = [k for k in names if k not in inputs]
            if missing:
                raise ValueError(
                    f'Model "{self.name}": missing data for input(s) {missing}; the model '
                    f"expects keys {names}. Received keys: {sorted(inputs)}"
                )
            return [inputs[k] for k in names]
        if isinstance(inputs, (list, tuple)) and (n > 1 or len(inputs) == 1):
            flat = list(inputs)  # a list of one tensor for a one-input model, as Keras allows
        else:
            flat = [inputs]
        if len(flat) != n:
            raise ValueError(
                f'Layer "{self.name}" expects {n} input(s), but it received {len(flat)} input '
                "tensors."
            )
        return flat

    def _standardize(self, i: int, value, spec: KerasTensor) -> Tensor:
        from ..ops.elementwise import cast
        from ..sparse.sparse_tensor import SparseTensor

        if isinstance(value, SparseTensor):
            if not spec.sparse:
                raise ValueError(
                    f'Input {i} of layer "{self.name}" is dense; it received a SparseTensor. '
                    "Declare it with ek.keras.Input(..., sparse=True)."
                )
            if value.dtype != spec.dtype:
                value = value.with_values(cast(value.values, spec.dtype._np))
            t = value
            shape = tuple(int(d) for d in np.asarray(value.dense_shape._value))
        else:
            t = (
                value
                if isinstance(value, Tensor)
                else to_tensor(np.asarray(value), None, self.name)
            )
            if t._value.dtype != spec.dtype._np:
                t = cast(t, spec.dtype._np)
            t = adjust_input_rank(t, spec.shape)  # (batch,) into Input(shape=(1,)), as Keras
            shape = tuple(t._value.shape)
        # Keras 3 checks inputs against the Input's shape with the batch axis set to None
        # (`Functional._compute_input_spec`), so Input(batch_size=8) accepts any batch.
        expected = (None, *tuple(spec.shape)[1:]) if len(spec.shape) else ()
        if len(shape) != len(expected) or any(
            e is not None and e != s for e, s in zip(expected, shape)
        ):
            raise ValueError(
                f'Input {i} of layer "{self.name}" is incompatible with the layer: expected '
                f"shape={expected}, found shape={shape}"
            )
        return t

    def call(self, inputs, training=None, mask=None):
        """Runs the graph on real tensors; returns the ``outputs`` structure."""
        flat = self._flatten_call_inputs(inputs)
        values = {
            id(spec): self._standardize(i, v, spec)
            for i, (v, spec) in enumerate(zip(flat, self.inputs))
        }

        def lookup(x):
            return values[id(x)] if isinstance(x, KerasTensor) else x

        if mask is not None:  # masks given for the inputs (Keras 3)
            masking.attach([values[id(spec)] for spec in self.inputs], nest.flatten(mask))
        # Each layer takes the masks its inputs carry and gives its outputs theirs.
        for node in self._run_order:
            args, kwargs = nest.map_structure(lookup, (list(node.call_args), node.call_kwargs))
            if training is not None and kwargs.get("training") is None:
                # ``call(x, training=True)`` called directly (a custom train_step's
                # ``self.call``): each layer gets it, unless the graph fixed its own.
                kwargs["training"] = training
            out = node.layer(*args, **kwargs)
            for kt, o in zip(node.flat_outputs, nest.flatten(out)):
                values[id(kt)] = o
        return _unpack_singleton(
            nest.pack_sequence_as(self._output_struct, [values[id(t)] for t in self.outputs])
        )

    def compute_output_spec(self, inputs, training=None, mask=None):
        """The output KerasTensors for symbolic ``inputs``: shapes propagated node by node."""
        flat = self._flatten_call_inputs(inputs)
        values = {}
        for i, (v, spec) in enumerate(zip(flat, self.inputs)):
            shape = tuple(v.shape)
            if len(shape) != len(spec.shape):
                raise ValueError(
                    f'Input {i} of layer "{self.name}" is incompatible with the layer: expected '
                    f"shape={tuple(spec.shape)}, found shape={shape}"
                )
            values[id(spec)] = v

        def lookup(x):
            return values[id(x)] if isinstance(x, KerasTensor) else x

        for node in self._run_order:
            args, kwargs = nest.map_structure(lookup, (list(node.call_args), node.call_kwargs))
            out = compute_output_spec(node.layer, args[0], tuple(args[1:]), kwargs)
            for kt, o in zip(node.flat_outputs, nest.flatten(out)):
                values[id(kt)] = o
        return _unpack_singleton(
            nest.pack_sequence_as(
                self._output_struct,
                [KerasTensor(values[id(t)].shape, values[id(t)].dtype) for t in self.outputs],
            )
        )

    def build(self, input_shape=None) -> None:
        """Nothing to build: the graph's layers were built when it was defined."""
        self.built = True

    def get_config(self) -> dict:
        """Keras 3's functional config: each layer's config and ``inbound_nodes`` (its calls,
        tensors as ``keras_history`` ``[layer name, node index, tensor index]``), and the
        ``input_layers`` and ``output_layers`` structures.

        Raises:
            NotImplementedError: a layer call with an argument that is not a tensor or a
                Python constant, or a layer without ``get_config`` (Lambda).
        """
        return _functional_get_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """The model `get_config` describes, its layers made anew (follows
        `tf.keras.Model.from_config`); see `saving.deserialize_keras_object`."""
        return functional_from_config(cls, config, custom_objects)

    # -- summary --------------------------------------------------------------------------------
    def _connections(self, layer: Layer) -> list:
        ours = {id(n) for n in self._run_order}
        out = []
        for node in layer.__dict__.get("_inbound_nodes", ()):
            if id(node) not in ours:
                continue
            for t in node.parents:
                la, node_index, tensor_index = t._keras_history
                out.append(f"{la.name}[{node_index}][{tensor_index}]")
        return out

    def _sequential_like(self) -> bool:
        for layer in self._graph_layers:
            nodes = [n for n in layer.__dict__.get("_inbound_nodes", ()) if n in self._run_order]
            if len(nodes) > 1 or (nodes and len(nodes[0].parents) > 1):
                return False
        return len(self.inputs) == 1 and len(self.outputs) == 1

    def _input_node_shape(self, layer):
        for t in self.inputs:
            if t._keras_history[0] is layer:
                return t.shape
        return None


# -- serialization (Keras 3's functional config) ----------------------------------------------
def _functional_get_config(model: Functional) -> dict:
    from .saving import serialize_keras_object

    ours = {id(n) for n in model._run_order}
    node_ids: dict[int, int] = {}  # id(node) -> its index among the layer's nodes in the model
    for layer in model._graph_layers:
        k = 0
        for node in layer.__dict__.get("_inbound_nodes", ()):
            if id(node) in ours or (node.is_input and layer in model._graph_layers):
                node_ids[id(node)] = k
                k += 1

    def history(t: KerasTensor) -> list:
        layer, node_index, tensor_index = t._keras_history
        return [layer.name, node_ids[id(layer._inbound_nodes[node_index])], tensor_index]

    def arg(x):
        if isinstance(x, KerasTensor):
            return {
                "class_name": "__keras_tensor__",
                "config": {
                    "shape": [None if d is None else int(d) for d in x.shape],
                    "dtype": x.dtype.name,
                    "keras_history": history(x),
                },
            }
        if isinstance(x, (list, tuple)):
            return [arg(v) for v in x]
        if isinstance(x, dict):
            return {k: arg(v) for k, v in x.items()}
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        raise NotImplementedError(
            f"Cannot serialize the functional model {model.name!r}: a layer call has the "
            f"argument {x!r}, which is not a tensor or a Python constant."
        )

    layers = []
    for layer in model._graph_layers:
        entry = serialize_keras_object(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = [
            {"args": arg(list(node.call_args)), "kwargs": arg(node.call_kwargs)}
            for node in layer.__dict__.get("_inbound_nodes", ())
            if id(node) in ours
        ]
        layers.append(entry)

    def ends(struct):
        if isinstance(struct, KerasTensor):
            return history(struct)
        if isinstance(struct, dict):
            return {k: ends(v) for k, v in struct.items()}
        return [ends(t) for t in struct]

    return {
        "name": model.name,
        "trainable": model.trainable,
        "layers": layers,
        "input_layers": ends(model._input_struct),
        "output_layers": ends(model._output_struct),
    }


def functional_from_config(cls, config: dict, custom_objects=None):
    """A Functional model of class ``cls`` rebuilt from its `get_config` (the layers, then
    the graph of calls between them)."""
    from .saving import deserialize_keras_object

    created: dict[str, Layer] = {}
    outputs: dict[tuple, list] = {}  # (layer name, node index) -> flat outputs
    pending = []
    for entry in config["layers"]:
        layer = deserialize_keras_object(entry, custom_objects)
        created[entry["name"]] = layer
        if type(layer).__name__ == "InputLayer" and not entry.get("inbound_nodes"):
            outputs[(entry["name"], 0)] = [layer.output]
        for node_data in entry.get("inbound_nodes", ()):
            pending.append((layer, entry["name"], node_data))

    def ready(x) -> bool:
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            name, node_index, _ = x["config"]["keras_history"]
            return (name, node_index) in outputs
        if isinstance(x, list):
            return all(ready(v) for v in x)
        if isinstance(x, dict):
            return all(ready(v) for v in x.values())
        return True

    def value(x):
        if isinstance(x, dict) and x.get("class_name") == "__keras_tensor__":
            name, node_index, tensor_index = x["config"]["keras_history"]
            return outputs[(name, node_index)][tensor_index]
        if isinstance(x, list):
            return [value(v) for v in x]
        if isinstance(x, dict):
            return {k: value(v) for k, v in x.items()}
        return x

    counts: dict[str, int] = {}
    while pending:
        progress = False
        rest = []
        for layer, name, node_data in pending:
            # A layer's nodes must be made in order: node k only after node k - 1.
            if any(p[1] == name for p in rest) or not ready(node_data):
                rest.append((layer, name, node_data))
                continue
            args = value(node_data["args"])
            kwargs = value(node_data["kwargs"])
            out = layer(*args, **kwargs)
            index = counts.get(name, 0)
            counts[name] = index + 1
            outputs[(name, index)] = nest.flatten(out)
            progress = True
        if not progress:
            names = sorted({name for _, name, _ in rest})
            raise ValueError(
                f"Functional.from_config: cannot rebuild the calls of layers {names}: their "
                "inputs are never produced (a corrupt or inconsistent config)."
            )
        pending = rest

    def ends(struct):
        if isinstance(struct, dict):
            return {k: ends(v) for k, v in struct.items()}
        if len(struct) == 3 and isinstance(struct[0], str):
            name, node_index, tensor_index = struct
            return outputs[(name, node_index)][tensor_index]
        return [ends(s) for s in struct]

    return cls(
        inputs=ends(config["input_layers"]),
        outputs=ends(config["output_layers"]),
        name=config.get("name"),
        trainable=config.get("trainable", True),
    )


def _unpack_singleton(outputs):
    """A model built with ``outputs=[x]`` returns ``x`` itself (Keras's ``unpack_singleton``)."""
    if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
        return outputs[0]
    return outputs
