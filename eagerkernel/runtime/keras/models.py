"""`Model` and `Sequential`: layers with a training loop (follow `tf.keras.Model`).

The training API (`compile`, `fit`, `evaluate`, `predict`, the steps) is `trainer.Trainer`;
the batches come from `data_adapter`. This module has the models themselves, `summary` and
the weight files.
"""

from __future__ import annotations

import inspect
import os
import zipfile

import numpy as np

from ..core.context import context as thread_context
from ..module import name_scope
from .argument_errors import KerasArgumentError
from .keras_tensor import KerasTensor
from .layers.base import Layer
from .masking import attach
from .saving import clone_model, load_model, model_from_json, save_model
from .trainer import Trainer

__all__ = [
    "Model",
    "Sequential",
    "clone_model",
    "load_model",
    "model_from_json",
    "save_model",
]


class Model(Trainer, Layer):
    """A layer with `compile`, `fit`, `evaluate`, `predict`, `summary` and weight files
    (follows `tf.keras.Model`, subclassing style).

    Subclass it, create layers in ``__init__`` and write ``call(inputs, training=None)``:

    >>> class MLP(ek.keras.Model):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.hidden = ek.keras.layers.Dense(8, activation="relu")
    ...         self.out = ek.keras.layers.Dense(2)
    ...     def call(self, inputs, training=None):
    ...         return self.out(self.hidden(inputs))
    >>> model = MLP()
    >>> model(np.zeros((3, 4), np.float32)).shape
    TensorShape([3, 2])
    >>> len(model.trainable_variables)
    4

    Override `train_step`, `test_step` or `predict_step` (and `compute_loss`,
    `compute_metrics`, the `metrics` property) to change what `fit`, `evaluate` and `predict`
    do per batch, as in Keras.
    """

    def __new__(cls, *args, **kwargs):
        # Model(inputs, outputs) is the functional API: Keras returns a Functional model.
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            from .functional import Functional

            return super().__new__(Functional)
        return super().__new__(cls)

    def __init__(self, *args, **kwargs):
        if len(args) == 1 and args[0] is self:  # `super().__init__(self)`, as TF's effective
            args = ()  # TF2 guide writes it: Keras 2 ignored the stray positional argument
        if functional_init_arguments(args, kwargs):
            # A subclass whose __init__ hands Model inputs and outputs
            # (``CustomModel(inputs, outputs)``, to override train_step): as Keras does, the
            # model becomes a Functional one of that subclass (`functional_variant`).
            from .functional import Functional

            if not isinstance(self, Functional):
                self.__class__ = functional_variant(type(self))
            Functional.__init__(self, *args, **kwargs)
            return
        if args or "inputs" in kwargs or "outputs" in kwargs:
            raise TypeError(
                f"{type(self).__name__}: a subclassed model takes inputs and outputs only "
                "both together (the functional API: CustomModel(inputs, outputs)). "
                f"Received: {len(args)} positional argument(s) and keywords {sorted(kwargs)}"
            )
        super().__init__(**kwargs)

    @property
    def layers(self) -> list:
        """The direct sublayers, in attribute order (Keras 3's `Model.layers`; a plain `Layer`
        has no `layers`, so ``hasattr(layer, "layers")`` tells models from layers)."""
        return [c for c in self._children() if isinstance(c, Layer)]

    def quantize(self, mode=None, config=None, filters=None, **kwargs) -> None:
        """Keras 3's ``Model.quantize`` (``"int8"``, ``"float8"``, ``"int4"``, ``"gptq"``,
        ``"awq"``) is not supported: NumPy has no float8 or packed int4 dtype and eagerkernel
        has no quantized kernels, so the model would not compute what Keras computes.

        Raises:
            ValueError: ``mode`` is not one of Keras's modes, or neither ``mode`` nor
                ``config`` is given (Keras's messages).
            NotImplementedError: for every valid mode.
        """
        modes = ("int8", "float8", "int4", "gptq", "awq")
        if mode is None and config is None:
            raise ValueError("You must provide either `mode` or `config` to `quantize`.")
        if mode is not None and mode not in modes:
            raise ValueError(
                f"Invalid quantization mode. Expected one of {modes}. Received: mode={mode}"
            )
        raise NotImplementedError(
            f"{type(self).__name__}.quantize: quantization is not supported by eagerkernel "
            "(NumPy has no float8/int4 dtypes and there are no quantized kernels). "
            f"Received: mode={mode!r}"
        )

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """The layer named ``name``, or at position ``index`` of `layers` (follows
        `tf.keras.Model.get_layer`).

        Raises:
            ValueError: both or neither of ``name`` and ``index``; no layer of that name
                (the existing names are listed); an index out of range.
        """
        if (name is None) == (index is None):
            raise ValueError(
                "get_layer: provide only a layer name or a layer index. Received: "
                f"name={name!r}, index={index!r}"
            )
        layers = self.layers
        if index is not None:
            if not -len(layers) <= index < len(layers):
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has "
                    f"{len(layers)} layers."
                )
            return layers[index]
        for layer in layers:
            if layer.name == name:
                return layer
        raise ValueError(
            f"No such layer: {name}. Existing layers are: {[la.name for la in layers]}."
        )

    # -- inspection and weight files ----------------------------------------------------------
    @property
    def input_shape(self):
        """The input's shape as a tuple, batch axis None (a list of them for several inputs),
        once the model has symbolic inputs (functional, or a Sequential given its input
        shape); follows Keras 3's ``Model.input_shape``.

        Raises:
            AttributeError: a model without symbolic inputs (subclassed, or a Sequential
                not given an input shape), as Keras 3 does.
        """
        return self._symbolic_shapes("inputs", "input")

    @property
    def output_shape(self):
        """The output's shape as a tuple (a list for several outputs); as `input_shape`.

        >>> m = ek.keras.Sequential([ek.keras.Input((3,)), ek.keras.layers.Dense(2)])
        >>> m.input_shape, m.output_shape
        ((None, 3), (None, 2))
        """
        return self._symbolic_shapes("outputs", "output")

    def _symbolic_shapes(self, attr: str, what: str):
        tensors = getattr(self, attr, None)
        if not tensors:
            raise AttributeError(
                f"{type(self).__name__} model '{self.name}' has no defined {what} shape yet."
            )
        shapes = [tuple(t.shape) for t in tensors]
        return shapes[0] if len(shapes) == 1 else shapes

    def summary(
        self,
        line_length=None,
        positions=None,
        print_fn=None,
        expand_nested=False,
        show_trainable=False,
        layer_range=None,
    ) -> None:
        """Prints Keras's table: each layer's name (type), output shape and parameter count,
        then total, trainable and non-trainable parameters (of the weights created so far).
        Takes Keras 3's arguments (see `summary_utils.print_summary`).

        A model not built yet is printed as Keras 3 prints it (a Sequential whose first layer
        was adapted or called on its own, TensorFlow's regression tutorial): a layer not built
        shows output shape ``?`` and ``0 (unbuilt)`` parameters; a built one, its own count.
        A functional model shows an input layer's shape as ``[(None, ...)]``, "multiple" for
        a layer called more than once and, when it is not a plain chain, a "Connected to"
        column (``name[node_index][tensor_index]``).

        Args:
            line_length: the table's width (default 80; 98 with "Connected to"; 12 more
                with ``show_trainable``).
            positions: where each column ends: fractions of ``line_length`` (default
                ``[0.45, 0.8, 1.0]``; ``[0.33, 0.55, 0.67, 1.0]`` with "Connected to") or
                character counts, one per column.
            print_fn: called with each line (default `print`).
            expand_nested: list the layers of nested models under them, indented with
                ``└``, as Keras 3 does.
            show_trainable: a "Trainable" column: ``Y`` or ``N`` (``-`` for a layer
                without weights), the other columns shrunk to 90%, as Keras 3 does.
            layer_range: two layer names or regexes (`re.match`): only the layers from the
                first matching the first to the last matching the second are listed; the
                parameter totals stay the whole model's.

        Raises:
            ValueError: a bad ``layer_range`` (Keras's messages), ``positions`` of the wrong
                length, or columns narrower than 4 characters.

        >>> norm = ek.keras.layers.Normalization(axis=-1, name="norm")
        >>> norm.adapt(np.ones((4, 3), "float32"))
        >>> lines = []
        >>> model = ek.keras.Sequential([norm, ek.keras.layers.Dense(2, name="out")])
        >>> model.summary(print_fn=lines.append)
        >>> for line in lines[4:8]:
        ...     print(line)
        norm (Normalization)                ?                           7
        ________________________________________________________________________________
        out (Dense)                         ?                           0 (unbuilt)
        ================================================================================
        """
        from .summary_utils import print_summary

        print_summary(
            self, line_length, positions, print_fn, expand_nested, show_trainable, layer_range
        )

    def _summary_layers(self) -> list:
        return self.layers

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """A model from `get_config`'s output: a functional config (``input_layers``,
        ``output_layers``) rebuilds the graph; otherwise ``cls(**config)``, without the base
        entries (``name``, ``trainable``, ``dtype``) an ``__init__`` with neither them nor
        ``**kwargs`` does not take (as Keras 3's automatic config leaves them out)."""
        if "input_layers" in config and "output_layers" in config:
            from .functional import functional_from_config

            return functional_from_config(cls, config, custom_objects)
        params = inspect.signature(cls.__init__).parameters
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            base = ("name", "trainable", "dtype")
            config = {k: v for k, v in config.items() if k in params or k not in base}
        return cls(**config)

    def to_json(self, **kwargs) -> str:
        """The model's serialized config as a JSON string (follows `tf.keras.Model.to_json`;
        ``kwargs`` go to `json.dumps`); `ek.keras.models.model_from_json` reads it."""
        import json

        from .saving import serialize_keras_object

        return json.dumps(serialize_keras_object(self), **kwargs)

    def save(self, filepath, overwrite: bool = True, zipped=None, **kwargs) -> None:
        """Saves the model to a ``.keras`` file: config, weights, compile arguments and
        optimizer state (follows `tf.keras.Model.save`; see `ek.keras.saving.save_model`).

        Raises:
            ValueError: a path not ending in ``.keras``.
            FileExistsError: the file exists and ``overwrite`` is False.
        """
        from .saving import save_model

        save_model(self, filepath, overwrite=overwrite, zipped=zipped, **kwargs)

    def export(
        self, filepath, format="tf_saved_model", verbose=None, input_signature=None, **kwargs
    ) -> None:
        """Writes the model's inference call as a saved model with the endpoint ``serve``
        (follows Keras 3's `Model.export`; ``ek.saved_model.load(filepath).serve(x)`` runs
        it without the model's code, at any batch size). ``input_signature``: default the
        model's inputs with the batch open. Only ``format="tf_saved_model"`` (this runtime's
        saved model, not TensorFlow's) is written; see `ek.keras.export.ExportArchive`.

        Raises:
            ValueError: an unknown ``format``, or a model that is not built.
            NotImplementedError: ``"onnx"``, ``"openvino"``, ``"litert"`` or ``"torch"``.
        """
        from .export import export_model

        export_model(self, filepath, format, verbose, input_signature, **kwargs)

    def _default_save_signature(self):
        """The ``serving_default`` signature `ek.saved_model.save` gives a model saved
        without signatures (TensorFlow's): its inference call, the inputs' batch open; None
        for a model whose inputs are not known yet."""
        from ..data.structure import TensorSpec
        from ..function.polymorphic_function import Function
        from .export import input_signature_of

        try:
            signature = input_signature_of(self)
        except ValueError:
            return None
        if len(signature) == 1 and isinstance(signature[0], TensorSpec):  # called by "inputs"
            signature = [TensorSpec(signature[0].shape, signature[0].dtype, "inputs")]
        return Function(self.__call__, "serving_default", input_signature=signature)

    def save_weights(
        self, filepath, overwrite: bool = True, save_format=None, options=None
    ) -> None:
        """Writes the model's state as ``Checkpoint(model=self).write(filepath)``: one
        safetensors file (``filepath``, or ``filepath + ".safetensors"``), written atomically,
        whatever name TensorFlow's code gives (a ``"my_checkpoint"`` prefix, Keras 3's
        ``"model.weights.h5"``: the file is then ``model.weights.h5.safetensors``, never HDF5);
        `load_weights` takes the same name back.
        keyed by object path (``model/layer-0/kernel``; the optimizer's too once compiled).
        See `eagerkernel.runtime.io.checkpoint` for the format.

        ``save_format`` (Keras 2's argument): None or ``"tf"`` (a checkpoint, this one);
        ``options``: None only.

        Raises:
            FileExistsError: the file exists and ``overwrite`` is False.
            NotImplementedError: ``save_format="h5"`` (HDF5 is not written here), or
                ``options`` given.
            ValueError: another ``save_format``; a model not built yet (``model.built``
                False: a subclassed model never called, even after a custom ``train_step``),
                as Keras 3.
        """
        from ..io.checkpoint import Checkpoint
        from ..io.checkpoint_format import data_file

        if save_format is not None:
            fmt = str(save_format).lower()
            if fmt in ("h5", "hdf5", "keras"):
                raise NotImplementedError(
                    f"save_weights: save_format={save_format!r}: HDF5 files are not written by "
                    "eagerkernel; save_format='tf' (or None) writes the weights as a checkpoint "
                    "(one safetensors file), which load_weights reads."
                )
            if fmt not in ("tf", "tensorflow"):
                raise ValueError(
                    f"save_weights: unknown save_format {save_format!r}; expected 'tf' or 'h5'."
                )
        if options is not None:
            raise NotImplementedError(
                "save_weights: options (a CheckpointOptions) is not supported."
            )
        if not self.built:  # Keras 3's saving_lib.save_weights_only refuses it too
            raise ValueError(
                "You are saving a model that has not yet been built. Try building the model "
                "first by calling it on some data or by using `build()`."
            )
        filepath = os.fspath(filepath)
        if not overwrite and os.path.exists(data_file(filepath)):
            raise FileExistsError(f"save_weights: {filepath} exists and overwrite=False.")
        Checkpoint(model=self).write(filepath)

    def load_weights(self, filepath):
        """Reads a file written by `save_weights` (or a `Checkpoint` holding ``model``), as
        TensorFlow 2's ``load_weights`` reads its TensorFlow-format checkpoints: by object path,
        so a model that shares only some layers with the saved one (a pretrained body under a
        new head) takes the values it has a path for and keeps its other weights. Values for
        weights not created yet are assigned when the model is built. Either every matched
        value is assigned or none is (a shape or dtype that differs raises first). A
        ``.keras`` file that `save` wrote gives its weights too, as Keras 3 reads it (the
        model must have the saved architecture; nothing is returned then).

        Returns:
            the restore status (see `ek.train.Checkpoint.restore`): ``status.assert_consumed()``
            raises AssertionError naming the weights left without a value and the saved values
            left unused; ``status.assert_existing_objects_matched()`` checks the first alone.

        Raises:
            CheckpointError (a ValueError): missing, corrupt or truncated file, a shape or dtype
                that differs (the file and the object path are named), or a file that shares no
                object path with the model (a checkpoint of a different model).
        """
        from ..io.checkpoint import Checkpoint

        filepath = os.fspath(filepath)
        if filepath.endswith(".keras") and zipfile.is_zipfile(filepath):
            from .saving import load_weights_from_archive

            return load_weights_from_archive(self, filepath)
        return Checkpoint(model=self)._restore(filepath)


def _dims(shape) -> list:
    """The dimensions of a shape given as a tuple, a list or a `TensorShape`."""
    return shape.as_list() if hasattr(shape, "as_list") else list(shape)


def batch_none(shape):
    if isinstance(shape, tuple) and shape and all(isinstance(s, (int, type(None))) for s in shape):
        return (None, *tuple(shape)[1:])
    if isinstance(shape, (list, tuple)):
        return [batch_none(s) for s in shape]
    return shape


def adjust_input_rank(value, ref_shape):
    """``value`` brought to the rank of a model input of shape ``ref_shape``, as Keras's
    functional models do (Keras 3's ``Functional._adjust_input_rank``): one axis too many whose
    size is 1 is squeezed away, one axis too few is added at the end when the input's last size
    is 1 (a ``(batch,)`` column of numbers into an ``Input(shape=(1,))``). Any other value is
    returned as it is, for the model's own shape check to report.

    >>> adjust_input_rank(np.arange(3.0), (None, 1)).shape.as_list()
    [3, 1]
    >>> adjust_input_rank(np.zeros((2, 4, 1)), (None, 4)).shape.as_list()
    [2, 4]
    >>> adjust_input_rank(np.zeros((2, 4)), (None, 5)).shape
    (2, 4)
    """
    from ..ops import array_ops

    array = getattr(value, "_value", value)  # a Tensor's array: its shape without a TensorShape
    shape = getattr(array, "shape", None)
    if shape is None or ref_shape is None:
        return value
    rank, ref = len(shape), tuple(ref_shape)
    if rank == len(ref):  # the common case: nothing to adjust
        return value
    if rank == len(ref) + 1 and shape[-1] == 1:
        return array_ops.squeeze(value, axis=-1)
    if rank == len(ref) - 1 and ref and ref[-1] == 1:
        return array_ops.expand_dims(value, axis=-1)
    return value


def functional_init_arguments(args: tuple, kwargs: dict) -> bool:
    """Whether a model's constructor got the functional API's ``inputs`` and ``outputs``
    (Keras's test: two positional arguments, or one and ``outputs=``, or both keywords)."""
    return (
        len(args) == 2
        or (len(args) == 1 and "outputs" in kwargs)
        or ("inputs" in kwargs and "outputs" in kwargs)
    )


def functional_variant(cls: type) -> type:
    """A class of the same name deriving from ``cls`` and then `Functional`: what
    ``cls(inputs, outputs)`` makes for a Model subclass ``cls`` (Keras builds such a model as
    a functional one whose methods ``cls`` overrides: train_step, test_step, metrics, ...).
    ``isinstance(model, cls)`` holds. Made once per class (kept in the class's own
    ``__dict__``, so a subclass makes its own).
    """
    from .functional import Functional

    variant = cls.__dict__.get("_functional_variant")
    if variant is None:
        variant = type(
            cls.__name__,
            (cls, Functional),
            {
                "__module__": cls.__module__,
                "__qualname__": cls.__qualname__,
                "__doc__": cls.__doc__,
            },
        )
        type.__setattr__(cls, "_functional_variant", variant)
    return variant


def _in_dtype(x, dtype):
    """``x`` (numbers) as a Tensor of ``dtype`` (numeric) when its dtype differs, as Keras 3's
    functional models convert their inputs; anything else as it is."""
    from ..core.tensor import Tensor, to_tensor
    from ..ops.elementwise import cast

    if isinstance(x, (np.ndarray, np.generic)):
        x = to_tensor(x, None, "Sequential")
    if not isinstance(x, Tensor) or x.dtype == dtype:
        return x
    if all(d.is_floating or d.is_integer for d in (x.dtype, dtype)):
        return cast(x, dtype)
    return x


class Sequential(Model):
    """A stack of layers, each feeding the next (follows `tf.keras.Sequential`).

    Give the first layer ``input_shape=(...)`` to build the model at once (so `summary`
    works before any data), or let the first call build it.

    >>> model = ek.keras.Sequential([
    ...     ek.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
    ...     ek.keras.layers.Dense(1),
    ... ])
    >>> model.count_params()
    21
    """

    _inputs_in_variable_dtype = True  # mixed policy: inputs stay float32, as Keras's Inputs

    def __init__(self, layers=None, name=None, trainable=True):
        super().__init__(name=name, trainable=trainable)
        self._stack: list[Layer] = []
        self._input_layer = None
        self._symbolic: list = []  # the KerasTensor after the input and after each layer
        self._building_on_call = False  # inside the first call's implicit build
        self._paths_prefixed = False  # `_prefix_paths` ran over the layers since the last add
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Layer) -> None:
        """Appends a layer; builds the model if its input shape is known (an `Input` or
        `InputLayer` first, or a first layer given ``input_shape``): each layer is then called
        on the previous one's symbolic output, so shapes keep their unknown (None) sizes.

        Raises:
            TypeError: if ``layer`` is not a Layer (or an `Input`).
            ValueError: an input given after layers, or a second input.
        """
        from .keras_tensor import KerasTensor
        from .layers.core import InputLayer

        if isinstance(layer, KerasTensor):
            source = layer._keras_history[0] if layer._keras_history else None
            if not isinstance(source, InputLayer):
                raise TypeError(
                    "Sequential.add: a KerasTensor can only be added as the model's input (an "
                    f"ek.keras.Input). Received: {layer!r}"
                )
            layer = source
        if not isinstance(layer, Layer):
            raise KerasArgumentError(  # Keras 3's ValueError, tf.keras 2's TypeError
                "Sequential.add: only instances of `keras.Layer` can be added to a Sequential "
                f"model. Received: {layer!r:.80} (of type {type(layer).__name__})"
            )
        if isinstance(layer, InputLayer):
            if self._stack or self._input_layer is not None:
                raise ValueError(
                    "Sequential.add: an input (Input or InputLayer) must come first, and only "
                    f"once. Received: {layer.name!r} after {[la.name for la in self.layers]}"
                )
            self._input_layer = layer
            self._symbolic = [layer.output]
            return
        self._stack.append(layer)
        self._paths_prefixed = False
        if not self._symbolic and len(self._stack) == 1:
            shape = getattr(layer, "_batch_input_shape", None)
            dtype = layer._input_dtype or layer.dtype
            inputs = getattr(layer, "inputs", None)  # a model with one Input (Keras 2 and 3)
            if shape is None and isinstance(inputs, list) and len(inputs) == 1:
                shape, dtype = tuple(inputs[0].shape), inputs[0].dtype
            if isinstance(shape, tuple):
                from .layers.core import InputLayer as _Input

                self._input_layer = _Input(batch_shape=shape, dtype=dtype)
                self._symbolic = [self._input_layer.output]
        if self._symbolic:
            with name_scope(""):  # Keras names these weights dense/kernel, as in call()
                out = layer(self._symbolic[-1])
            self._prefix_paths([layer])
            self._symbolic.append(out)
            self.built = True
            self._output_shape = out.shape

    def pop(self) -> Layer:
        """Removes and returns the last layer."""
        if not self._stack:
            raise TypeError("Sequential.pop: there are no layers to remove.")
        if len(self._symbolic) > 1:
            self._symbolic.pop()
            self._output_shape = self._symbolic[-1].shape
        return self._stack.pop()

    @property
    def inputs(self):
        """``[the input KerasTensor]`` once the input shape is known, else None."""
        return self._symbolic[:1] or None

    @property
    def outputs(self):
        """``[the last layer's KerasTensor]`` once built from a known input shape, else None."""
        return self._symbolic[-1:] if len(self._symbolic) > 1 else None

    @property
    def input(self):
        """Keras 3: what its first call in a functional graph took (a Sequential used as a
        layer, e.g. ``data_augmentation(inputs)``); never called so, its own input tensor
        (tf.keras 2), or None before the input shape is known."""
        nodes = self.__dict__.get("_inbound_nodes")
        if nodes:
            return nodes[0].call_args[0] if nodes[0].call_args else nodes[0].outputs
        return self._symbolic[0] if self._symbolic else None

    @property
    def output(self):
        """Keras 3: what its first call in a functional graph returned; never called so, its
        last layer's KerasTensor (tf.keras 2), or None before it is built."""
        nodes = self.__dict__.get("_inbound_nodes")
        if nodes:
            return nodes[0].outputs
        return self._symbolic[-1] if len(self._symbolic) > 1 else None

    @property
    def layers(self) -> list:
        return list(self._stack)

    def get_config(self) -> dict:
        """``{"name", "trainable", "layers"}``: the input (an InputLayer, when known) and each
        layer, serialized (Keras's Sequential config)."""
        from .saving import serialize_keras_object

        stack = ([self._input_layer] if self._input_layer is not None else []) + self._stack
        return {
            "name": self.name,
            "trainable": self.trainable,
            "layers": [serialize_keras_object(la) for la in stack],
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """A Sequential model from `get_config`'s output, its layers made anew."""
        from .saving import deserialize_keras_object

        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for entry in config.get("layers", ()):
            model.add(deserialize_keras_object(entry, custom_objects))
        return model

    def compute_output_spec(self, inputs, training=None, mask=None):
        """The output KerasTensor for symbolic ``inputs``: each layer's, in order (its
        ``compute_output_spec``, ``compute_output_shape`` or a stand-in call of that layer
        alone), as Keras 3 builds a Sequential symbolically. A subclass with its own `call`
        is probed whole."""
        from .functional import compute_output_spec, probe_spec

        if type(self).call is not Sequential.call:
            return probe_spec(self, inputs, (), {"training": training, "mask": mask})
        if not self._symbolic and self._stack and isinstance(inputs, KerasTensor):
            # Called on a KerasTensor before its input shape was known: built for it, as
            # Keras 3 builds (`inputs`, `outputs` and each layer's `output` exist then).
            self._build_for((None, *tuple(inputs.shape)[1:]))
        if self._symbolic and len(self._symbolic) > 1:
            out = self._symbolic[-1]
            return KerasTensor(tuple(out.shape), out.dtype)
        x = inputs
        for layer in self._stack:
            x = compute_output_spec(layer, x)
        return x

    def call(self, inputs, training=None, mask=None):
        """Runs the layers in order, passing ``training`` on. Once the input shape is known
        (an `Input` first, or ``input_shape=``), an input one axis short or long is brought to
        the input's rank as `adjust_input_rank` says, as Keras does. Keras masks (an
        ``Embedding(mask_zero=True)``'s, to the recurrent layers) travel on the tensors
        (`keras.masking`), and ``mask`` is attached to ``inputs`` first, as Keras 3 does.

        The layers run outside any name scope, so the weights they create are named as Keras's
        Sequential names them (``dense/kernel:0``, whatever scope the model runs in).
        """
        x = inputs
        if self._symbolic and not isinstance(inputs, (list, tuple, dict)):
            # a (batch,) column into input_shape=(1,), and numbers in the input's dtype (uint8
            # pixels into an Input's float32), as Keras's Sequential (a functional model once
            # its input is known) takes them
            x = adjust_input_rank(
                _in_dtype(inputs, self._symbolic[0].dtype), self._symbolic[0].shape
            )
        attach(x, mask)  # a mask given for the inputs (Keras 3)
        scope = thread_context().scope_name  # "block/sequential/" in a custom layer's call
        with name_scope(""):
            for layer in self._stack:  # each takes the mask x carries (keras.masking)
                x = layer(x) if training is None else layer(x, training=training)
        if not self._paths_prefixed:
            self._prefix_paths(self._stack, scope)
            self._paths_prefixed = True
        return x

    def _prefix_paths(self, layers, scope: str = "") -> None:
        """Puts this model's name in front of the `Variable.path` of the weights of
        ``layers`` (``sequential/dense/kernel``, Keras 3's paths: its Sequential builds them
        in its own scope), once per weight; their names stay Keras 2's (``dense/kernel:0``).
        ``scope``: the scope the model was called in, which ends with its name; a layer that
        holds the model puts its name first, as in Keras 3 (``block/sequential/dense/kernel``).
        """
        own = f"{self._name}/"
        prefix = scope if scope.endswith(own) else own
        for layer in layers:
            for v in layer.weights:
                path = v.path
                # built by a symbolic call, in the model's own scope: Keras 3 keeps that path
                if not path.startswith(prefix) and not path.startswith(own):
                    v._path = prefix + path

    def build(self, input_shape=None) -> None:
        """Builds every layer for inputs of ``input_shape`` (the batch axis included, e.g.
        ``(None, 4)``), as if the model began with an `Input` of that shape, so that weights
        and `summary` exist before any data (follows Keras's `Sequential.build`). Without a
        shape, only marks the model built: the layers build on the first call.

        Raises:
            ValueError: a model without layers, or a shape other than the input shape the
                model already has.

        >>> model = ek.keras.Sequential([ek.keras.layers.Dense(3)])
        >>> model.build((None, 4))
        >>> model.layers[0].kernel.shape
        TensorShape([4, 3])
        """
        if input_shape is None or self._building_on_call:
            self.built = True
            return
        shape = tuple(None if d is None else int(d) for d in _dims(input_shape))
        if self._symbolic:
            have = tuple(self._symbolic[0].shape)
            if have != shape:
                raise ValueError(
                    f"Sequential model '{self.name}' has already been configured to use input "
                    f"shape {have}. You cannot build it with input_shape {shape}"
                )
            return
        if not self._stack:
            raise ValueError(
                f"Sequential model {self.name} cannot be built because it has no layers. Call "
                "`model.add(layer)`."
            )
        self._build_for(shape)

    def _maybe_build(self, inputs) -> None:
        # The first call's build: the layers build as the call runs them, eagerly, so no
        # symbolic pass is made (`build` with a shape is for a model given no data).
        self._building_on_call = True
        try:
            super()._maybe_build(inputs)
        finally:
            self._building_on_call = False

    def build_from_config(self, config: dict) -> None:
        """Builds the layers for ``config["input_shape"]`` as if the model had been given an
        input of that shape (the batch axis unknown)."""
        shape = config.get("input_shape")
        if shape is None or self._symbolic or not self._stack:
            return
        self._build_for((None, *shape[1:]))
        self._build_input_shape = tuple(shape)

    def _build_for(self, batch_shape: tuple) -> None:
        """Puts an `InputLayer` of ``batch_shape`` first and calls each layer on the previous
        one's symbolic output (`add`), which builds them."""
        from .layers.core import InputLayer

        first = self._stack[0]
        stack, self._stack = self._stack, []
        try:
            from .backend import floatx

            self.add(InputLayer(batch_shape=batch_shape, dtype=first._input_dtype or floatx()))
            for layer in stack:
                self.add(layer)
        except BaseException as exc:
            # Nothing changes: the layers stay as they were, to build on the first call (and,
            # as Keras's, a layer that cannot run symbolically is no error).
            self._stack, self._input_layer, self._symbolic = stack, None, []
            if isinstance(exc, NotImplementedError):
                return
            raise
        self._build_input_shape = batch_shape
