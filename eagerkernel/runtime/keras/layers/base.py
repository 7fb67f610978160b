"""`Layer`: the unit of state and computation (follows `tf.keras.layers.Layer`).

A layer creates its weights in `build(input_shape)` with `add_weight`, the first time it is
called, and computes in `call(inputs, ...)`. It tracks what it holds: Variables and layers
assigned to attributes, directly or inside lists, tuples and dicts, so `variables`,
`trainable_variables` and `non_trainable_variables` find every weight of a model, listed in
Keras 3's order (a layer's or model's own weights, then each sublayer's in turn).

A layer is an `ek.Module` and names its Variables as Keras 2 (``tf.keras``) does: calling a
layer enters a name scope named after it, so the weights that its building call creates are
``dense/kernel:0``, and ``my_model/dense/kernel:0`` for a layer built inside a subclassed
model's call (the enclosing layers' scopes nest). A `Sequential` model's layers are built
outside any scope (``dense/kernel:0``), as Keras's graph networks are.

The ``training`` argument propagates as in Keras: a layer whose `call` accepts ``training``
and is called without it inherits the value its enclosing layer was called with.

Code that must react when layers create variables (checkpoints restoring values saved before
the variables existed) registers a `LayerObserver` with `Layer.variable_observers`; every
layer notifies it, whatever its class and however its `build` is written.
"""

from __future__ import annotations

import inspect
import re
import threading
import typing
from collections import defaultdict

import numpy as np

from ... import nest
from ...core import dtypes
from ...core.context import context as _thread_context
from ...core.context import pop_scope as _pop_scope
from ...core.context import push_scope as _push_scope
from ...core.tensor import Tensor, TensorShape, to_tensor
from ...core.variable import Variable
from ...module import Module, name_scope
from ...observers import Observers
from ...ops.elementwise import cast
from .. import dtype_policies
from .. import masking as _masking
from ..argument_errors import unrecognized_arguments
from ..keras_tensor import KerasTensor, any_symbolic
from .added_metrics import AddedMetricsMixin
from .autocast import autocast_weights, cast_floats, convert_call_args, weights_read_as
from .build_config import (
    BuildConfigMixin,
    build_by_shape_kwargs,
    build_from_shapes_dict,
    call_build,
)
from .input_spec import InputSpecMixin
from .nodes import NodesMixin, first_argument
from .own_variables import OwnVariablesMixin
from .tracking import gather_tracked

__all__ = [
    "Layer",
    "LayerObserver",
    "autocast_weights",
    "unique_name",
]

_name_counts: defaultdict[str, int] = defaultdict(int)
_context = threading.local()  # .training: the value the enclosing layer call received


def _snake(name: str) -> str:
    """Keras's ``to_snake_case``: ``MaxPooling2D`` -> ``max_pooling2d``, ``ConvLSTM2D`` ->
    ``conv_lstm2d``."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", re.sub(r"\W+", "", name))
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def unique_name(base: str) -> str:
    """``base``, then ``base_1``, ``base_2``, ... as Keras names layers (``dense``, ``dense_1``)."""
    n = _name_counts[base]
    _name_counts[base] += 1
    return base if n == 0 else f"{base}_{n}"


def reset_unique_names() -> None:
    """Starts `unique_name`'s counts again (``keras.backend.clear_session``)."""
    _name_counts.clear()


def _accepts(fn, arg: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return arg in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _training_position(fn) -> int | None:
    """Where ``call``'s ``training`` parameter sits among the positional arguments after the
    inputs (``call(self, x, training)`` gives 0), or None when it is not positional."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return names.index("training") - 1 if "training" in names[1:] else None


def _shape_of(x):
    if isinstance(x, KerasTensor):
        return x.shape
    return TensorShape(x._value.shape) if isinstance(x, Tensor) else None


class LayerObserver(typing.Protocol):
    """What `Layer.variable_observers` calls; every layer notifies it (TensorFlow restores
    deferred checkpoint values at the same two moments).

    An observer must not create weights of the layer it is told about; it may assign them.
    An exception it raises propagates out of the `add_weight` or the layer call that
    notified it.

    >>> class Log:
    ...     def weight_created(self, layer, variable):
    ...         print("created", variable.name)
    ...     def layer_built(self, layer):
    ...         print("built", layer.name)
    >>> log = Log()
    >>> ek.keras.layers.Layer.variable_observers.register(log)
    >>> _ = ek.keras.layers.Dense(2, name="d")(ek.ones((1, 3)))
    created d/kernel:0
    created d/bias:0
    built d
    >>> ek.keras.layers.Layer.variable_observers.unregister(log)
    """

    def weight_created(self, layer: Layer, variable: Variable) -> None:
        """``layer.add_weight`` created ``variable`` and tracks it (in ``layer.weights``);
        called before `add_weight` returns it (so within `build`, for weights `build` makes)."""

    def layer_built(self, layer: Layer) -> None:
        """A call of ``layer`` found it unbuilt and ran its `build` (``layer.built`` is now
        True); called before `call` runs. Variables that `build` created without `add_weight`, and
        sublayers it created and built, exist now."""


class Layer(
    AddedMetricsMixin, BuildConfigMixin, InputSpecMixin, NodesMixin, OwnVariablesMixin, Module
):
    """Base class of layers (follows `tf.keras.layers.Layer`, an `ek.Module`).

    Subclasses override `build(input_shape)` (create weights with `add_weight`) and
    `call(inputs, training=None, ...)` (compute with eagerkernel ops). Calling the layer
    builds it on first use with the inputs' shape, then runs `call`.

    Args:
        trainable: whether its weights are trained (listed in `trainable_variables`).
        name: a unique default is derived from the class name (``MyDense`` -> ``my_dense``).
        dtype: its dtype policy (`ek.keras.mixed_precision.Policy`), a policy name
            (``"mixed_float16"``) or a dtype; default the global policy (float32 unless
            `set_global_policy` changed it). Floating inputs are cast to the policy's compute
            dtype and weights are created in its variable dtype. Under a mixed policy the
            layer's floating weights (its attributes) read as the compute dtype inside `call`,
            through a cast the gradient flows back through, as Keras's autocasting does.
        autocast: False: no casting of inputs or weights (default True).

    >>> class Scale(ek.keras.layers.Layer):
    ...     def build(self, input_shape):
    ...         self.w = self.add_weight("w", shape=(input_shape[-1],), initializer="ones")
    ...     def call(self, inputs):
    ...         return inputs * self.w
    >>> layer = Scale()
    >>> layer(ek.ones((2, 3))).shape
    TensorShape([2, 3])
    >>> [v.name for v in layer.trainable_variables]
    ['scale/w:0']
    >>> isinstance(layer, ek.Module)
    True

    Observing variable creation: ``Layer.variable_observers.register(observer)`` makes every
    layer call ``observer.weight_created(layer, variable)`` from `add_weight` and
    ``observer.layer_built(layer)`` after the building call (see `LayerObserver`); the list
    holds observers weakly (see `eagerkernel.runtime.observers.Observers`).
    """

    variable_observers: typing.ClassVar[Observers] = Observers()
    _input_dtype = None  # dtype of a build probe; None: the layer's dtype (Embedding: int32)
    _call_accepts_training: typing.ClassVar[dict] = {}  # per class: (takes training?, where)
    # A subclass whose __init__ skips super().__init__() (TF 2's saving guide) still serializes
    # and checkpoints: its attributes are all it has.
    built = False
    _tracked: typing.ClassVar[tuple] = ()
    # Keras 2 lists a Model's weights after its sublayers', a layer's before (`_weight_lists`).

    def __init__(self, trainable: bool = True, name: str | None = None, dtype=None, **kwargs):
        allowed = {"input_shape", "batch_input_shape", "batch_size", "input_dim", "autocast"}
        allowed.add("activity_regularizer")
        unknown = set(kwargs) - allowed
        if unknown:
            bad = {k: kwargs[k] for k in sorted(unknown)}
            raise unrecognized_arguments(type(self).__name__, bad)
        if name is not None and not isinstance(name, str):
            raise ValueError(
                f"{type(self).__name__}: argument `name` must be a string. Received: "
                f"name={name!r} (of type {type(name).__name__})"
            )
        object.__setattr__(self, "_tracked", [])  # weights made by add_weight, in order
        object.__setattr__(self, "_weight_names", {})  # id(weight) -> its add_weight name
        self._trainable = bool(trainable)
        self._name = name if name is not None else unique_name(_snake(type(self).__name__))
        self._set_dtype_policy(dtype_policies.get(dtype), kwargs.get("autocast", True))
        self.built = False
        if "input_shape" in kwargs:
            self._batch_input_shape = (None, *tuple(kwargs["input_shape"]))
        elif "batch_input_shape" in kwargs:
            self._batch_input_shape = tuple(kwargs["batch_input_shape"])
        elif "input_dim" in kwargs:
            self._batch_input_shape = (None, int(kwargs["input_dim"]))
        if kwargs.get("activity_regularizer") is not None:
            from .. import regularizers

            self.activity_regularizer = regularizers.get(kwargs["activity_regularizer"])

    # The dtype policy. ``_dtype``: what the layer computes in; ``_variable_dtype``: what
    # `add_weight` creates. Under a mixed policy ``_autocast_to`` is the compute dtype the
    # weights are read as during `call`; a layer with ``_computes_in_variable_dtype``
    # (normalization: statistics in float32, as Keras's) instead receives its inputs in the
    # variable dtype and returns outputs cast to the compute dtype (``_output_cast``).
    _autocast_to = None
    _output_cast = None
    _computes_in_variable_dtype: typing.ClassVar[bool] = False
    # Sequential and functional models: inputs cast to the variable dtype (float32 under a
    # mixed policy, the dtype of Keras's Inputs), their layers cast them further.
    _inputs_in_variable_dtype: typing.ClassVar[bool] = False

    def _set_dtype_policy(self, policy, autocast=True) -> None:
        if not isinstance(autocast, (bool, np.bool_)):
            raise TypeError(
                f"{type(self).__name__}: autocast must be True or False. Received: "
                f"autocast={autocast!r}"
            )
        self._dtype_policy = policy
        self._dtype = dtypes.as_dtype(policy.compute_dtype)
        self._variable_dtype = dtypes.as_dtype(policy.variable_dtype)
        self._cast_to = self._dtype if autocast else None  # floating inputs' dtype
        self._autocast_to = self._output_cast = None
        if autocast and self._dtype != self._variable_dtype:
            if self._computes_in_variable_dtype:
                self._cast_to, self._output_cast = self._variable_dtype, self._dtype
            elif self._inputs_in_variable_dtype:
                self._cast_to = self._variable_dtype
            else:
                self._autocast_to = self._dtype

    @property
    def dtype_policy(self) -> dtype_policies.Policy:
        """The layer's `ek.keras.mixed_precision.Policy` (follows `Layer.dtype_policy`)."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value) -> None:  # Keras 3: a policy or a name, for later calls
        self._set_dtype_policy(dtype_policies.get(value), self._cast_to is not None)

    @property
    def compute_dtype(self) -> str:
        """The dtype the layer computes and outputs in (the policy's compute dtype)."""
        return self._dtype.name

    @property
    def variable_dtype(self) -> str:
        """The dtype of the weights the layer creates (the policy's variable dtype)."""
        return self._variable_dtype.name

    # -- the two methods subclasses write ----------------------------------------------------
    def build(self, input_shape) -> None:
        """Creates the weights for inputs of ``input_shape`` (default: none); records the shape
        for `get_build_config` when the layer's own ``build`` calls ``super().build``."""
        if getattr(self, "_build_input_shape", None) is None and input_shape is not None:
            self._build_input_shape = input_shape
        self.built = True

    def call(self, inputs, *args, **kwargs):
        """The computation; the default returns ``inputs`` unchanged."""
        return inputs

    # -- masks (see keras.masking) -------------------------------------------------------------
    @property
    def supports_masking(self) -> bool:
        """Whether the layer gives its output a mask from its input's (follows Keras 3's
        ``Layer.supports_masking``): set by the layer (``self.supports_masking = True``),
        else True when its class overrides `compute_mask`."""
        value = self.__dict__.get("_supports_masking")
        if value is None:
            return type(self).compute_mask is not Layer.compute_mask
        return value

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self.__dict__["_supports_masking"] = bool(value)

    def compute_mask(self, inputs, mask=None):
        """The mask of the output for ``inputs`` whose mask is ``mask`` (a boolean tensor,
        True for the timesteps to use, or None); called after `call` when the layer
        `supports_masking`, and the result is attached to the output as ``_keras_mask``.
        The default passes ``mask`` on (Keras 3)."""
        return mask

    # -- calling --------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        inputs, args = (args[0], args[1:]) if args else (first_argument(self, kwargs), ())
        if not hasattr(self, "_tracked"):
            raise RuntimeError(
                f"{type(self).__name__}: Layer.__init__ was not called; call "
                "super().__init__() in your __init__."
            )
        if self.input_spec is not None:  # Keras 3: checked before build, eager or symbolic
            self._assert_input_compatibility(inputs)
        if any_symbolic(inputs, args, kwargs):  # the functional API: record, do not compute
            from ..functional import symbolic_call

            return symbolic_call(self, inputs, args, kwargs)
        # Keras masks (`keras.masking`): the mask the inputs carry goes to a `mask` argument
        # the caller left out; looked for only once any tensor has had one attached.
        previous = _masking.fill_masks(self, inputs, args, kwargs) if _masking.ATTACHED[0] else None
        first = inputs
        inputs, args, kwargs = convert_call_args(self, inputs, args, kwargs)
        scope = _thread_context()
        outer_scope = scope.scope_name
        entry = False
        try:
            scope.scope_name = f"{outer_scope}{self._name}/"  # Keras's `tf.name_scope(name)`
            entry = Layer._losses_added and getattr(_context, "loss_entry", None) is None
            if entry:  # the outermost call clears the losses `add_loss` gave at the last one
                _context.loss_entry = self
                for layer in self._flatten_layers():
                    layer.__dict__.pop("_added_losses", None)
            outputs = self._scoped_call(scope, inputs, args, kwargs)
        finally:
            scope.scope_name = outer_scope
            if entry:
                _context.loss_entry = None
        # The output's mask: only a layer that overrides compute_mask can make one from none.
        if previous is not None or type(self).compute_mask is not Layer.compute_mask:
            _masking.after_call(self, first, outputs, previous)
        return outputs

    def _scoped_call(self, scope, inputs, args, kwargs):
        cls = type(self)
        accepts = Layer._call_accepts_training.get(cls)
        if accepts is None:
            accepts = (_accepts(self.call, "training"), _training_position(self.call))
            Layer._call_accepts_training[cls] = accepts
        accepts, position = accepts
        outer = getattr(_context, "training", None)
        training = kwargs.pop("training", None)
        # Keras 3 binds a positional training (`self.drop(x, training)`) as the argument
        positional = position is not None and len(args) > position
        if positional and training is None:
            training = args[position]
        if training is None:
            training = outer
        if positional:
            args = (*args[:position], training, *args[position + 1 :])
        elif accepts and training is not None:
            kwargs["training"] = training
        first_call = not self.built
        # The layer's ops run in a scope named after it (TF: the layer's name scope), which
        # recorders see through `Recorder.on_scope` (the %%tape graph's clusters).
        # The scope is left even when a Ctrl-C lands at its edge (see `push_scope`).
        scope_before = scope.scopes
        try:
            _push_scope(self.name, "layer")
            if first_call and not build_by_shape_kwargs(self, inputs, args, kwargs):
                self._maybe_build(inputs)
            _context.training = training
            held, read_as = weights_read_as(self) if self._autocast_to is not None else _NONE
            try:
                if read_as:
                    self.__dict__.update(read_as)
                outputs = self.call(inputs, *args, **kwargs)
            finally:
                _context.training = outer
                if held:
                    self.__dict__.update(held)
        finally:
            scope.scopes = scope_before
            _pop_scope(scope_before)
        if self._output_cast is not None:
            outputs = cast_floats(outputs, self._variable_dtype, self._output_cast)
        if first_call:  # for summary(): the output shape of the building call
            self._output_shape = nest.map_structure(_shape_of, outputs)
        if self.activity_regularizer is not None:  # Keras 3: a penalty on each output,
            for out in nest.flatten(outputs):  # divided by its batch size (0 for none)
                if isinstance(out, Tensor):
                    loss = self.activity_regularizer(out)
                    if out.shape.rank:
                        n = out.shape[0]
                        loss = loss / n if n else loss * 0
                    self.add_loss(loss)
        return outputs

    def _cast_inputs(self, inputs):
        target = self._cast_to._np

        def cast(x):
            if isinstance(x, Tensor):
                if x._value.dtype.kind == "f" and x._value.dtype != target:
                    from ...ops.elementwise import cast as cast_op

                    return cast_op(x, target)
                return x
            # Keras 3's DTypePolicy.convert_input converts anything with __array__ (a pandas
            # DataFrame or Series, the load_data/pandas_dataframe tutorial's inputs)
            if isinstance(x, (np.ndarray, np.generic, list, float, int)) or hasattr(x, "__array__"):
                t = to_tensor(np.asarray(x) if hasattr(x, "__array__") else x, None, self.name)
                if t._value.dtype.kind == "f" and t._value.dtype != target:
                    from ...ops.elementwise import cast as cast_op

                    return cast_op(t, target)
                return t
            return x

        if isinstance(inputs, (list, tuple, dict)):
            return nest.map_structure(cast, inputs)
        return cast(inputs)

    def _maybe_build(self, inputs) -> None:
        if isinstance(inputs, (list, tuple, dict)):
            shapes = nest.map_structure(_shape_of, inputs)
        else:
            shapes = _shape_of(inputs)
        self._build_input_shape = shapes  # for get_build_config (saving)
        self._build_input_dtype = getattr(inputs, "dtype", None)  # a string input: export
        call_build(self, shapes)
        self.built = True
        if Layer.variable_observers:
            Layer.variable_observers.notify("layer_built", self)

    # -- weights --------------------------------------------------------------------------------
    def add_weight(
        self,
        name: str | None = None,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable: bool = True,
        constraint=None,
        autocast: bool = True,
        **kwargs,
    ) -> Variable:
        """Creates a weight Variable owned by this layer (follows `Layer.add_weight`).

        Args:
            name: the weight's name; the Variable is named ``name`` in the current name scope,
                so ``"<layer>/<name>"`` when the layer's call builds it (``"<model>/<layer>/
                <name>"`` inside a subclassed model's call), as Keras 2 names it. None: Keras
                3's unique ``"variable"``, ``"variable_1"``, ... (its path ``"<layer>/
                variable_1"``); checkpoints still key an unnamed weight ``weight``.
            shape: a tuple of ints (default: scalar).
            dtype: default the layer's dtype.
            initializer: a name (``"glorot_uniform"``, ``"zeros"``, ...), an initializer
                object or a callable ``(shape, dtype) -> array``; default glorot_uniform for
                floats, zeros otherwise.
            trainable: listed in `trainable_variables` (default True).
            constraint: applied by optimizers after each update.
            autocast: under a mixed policy, read the weight as the compute dtype inside
                `call` (default True; False keeps it in its own dtype, as Keras 3's
                ``autocast`` argument).

        The new Variable is reported to `Layer.variable_observers` (``weight_created``)
        before it is returned; a checkpoint restored earlier assigns its saved value then.

        Raises:
            ValueError: for a negative dimension in ``shape``; `CheckpointError` (a
                ValueError) when a value restored for this weight has another shape or dtype.
        """
        from .. import constraints, initializers

        shape = () if shape is None else tuple(int(s) for s in shape)
        if any(s < 0 for s in shape):
            raise ValueError(f"{self.name}.add_weight: negative dimension in shape {shape}.")
        dt = dtypes.as_dtype(dtype) if dtype is not None else self._variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if dt.is_floating else "zeros"
        value = initializers.get(initializer)(shape, dtype=dt)
        if isinstance(value, Tensor) and value.dtype != dt:  # Keras converts with a cast;
            value = cast(value, dt)  # ek.Variable, as tf.Variable, refuses a Tensor's dtype change
        given = name  # unnamed: Keras 3's ``auto_name("variable")`` (variable, variable_1, ...)
        name = name or unique_name("variable")
        v = Variable(
            value, trainable=trainable, name=name, dtype=dt, constraint=constraints.get(constraint)
        )
        self._tracked.append(v)
        self._weight_names[id(v)] = given or "weight"  # checkpoint keys (stable, as before)
        scope = _thread_context().scope_name  # Keras 3's path: under the layer's name
        own = scope if scope.endswith(f"{self._name}/") else f"{scope}{self._name}/"
        v._path = own + name
        if not autocast:
            self.__dict__.setdefault("_no_autocast", set()).add(id(v))
        if regularizer is not None:
            self._regularizers = [*getattr(self, "_regularizers", []), (regularizer, v)]
            Layer._regularized = True
        if Layer.variable_observers:
            Layer.variable_observers.notify("weight_created", self, v)
        return v

    def add_variable(self, name=None, shape=None, *args, **kwargs) -> Variable:
        """TensorFlow 1.x name of `add_weight` (``add_variable("kernel", [3, 4])``)."""
        return self.add_weight(name, shape, *args, **kwargs)

    activity_regularizer = None  # a regularizer of the layer's outputs (Keras 3's Layer)
    _losses_added = False  # set once any layer calls add_loss: calls then clear old losses
    _regularized = False  # set once any layer makes a regularized weight

    def add_loss(self, loss) -> None:
        """Adds a scalar loss to `losses` (follows `Layer.add_loss`): a Tensor or number is
        kept until the next outermost call of a layer containing this one (call it inside
        ``call``), as in Keras 3; a zero-argument callable (Keras 2) is called each time
        `losses` is read, and kept.

        Raises:
            TypeError: ``loss`` is a symbolic KerasTensor (the functional API's add_loss is
                not supported) or not a Tensor, number or callable.
        """
        if isinstance(loss, KerasTensor):
            raise TypeError(
                f"{self.name}.add_loss: symbolic (KerasTensor) losses are not supported; add "
                "the loss inside a layer's call() instead."
            )
        if callable(loss) and not isinstance(loss, Tensor):
            self.__dict__.setdefault("_callable_losses", []).append(loss)
            Layer._losses_added = True
            return
        if not isinstance(loss, (Tensor, int, float, np.number)):
            raise TypeError(
                f"{self.name}.add_loss: expected a scalar Tensor, a number or a callable, got "
                f"{type(loss).__name__}."
            )
        Layer._losses_added = True
        self.__dict__.setdefault("_added_losses", []).append(loss)

    @property
    def losses(self) -> list:
        """The losses of this layer and its sublayers, as scalar Tensors: those `add_loss`
        gave during the last call (activity regularization among them), then the weights'
        regularization losses (``kernel_regularizer`` ...), computed from their current
        values (follows `Layer.losses`)."""
        if not (Layer._losses_added or Layer._regularized):  # no layer has any: no walk
            return []
        out = []
        for layer in self._flatten_layers():
            out.extend(layer.__dict__.get("_added_losses", ()))
            out.extend(fn() for fn in layer.__dict__.get("_callable_losses", ()))
        for layer in self._flatten_layers():
            for regularizer, v in getattr(layer, "_regularizers", []):
                out.append(regularizer(v))
        return out

    @property
    def name(self) -> str:
        """The layer's name (unique by default: ``dense``, ``dense_1``, ...)."""
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    @property
    def name_scope(self) -> name_scope:
        """A `name_scope` named after the layer, relative to the scope it is entered in (the
        scope each call of the layer enters)."""
        return name_scope(self._name)

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        """Sets ``trainable`` on this layer and every layer inside it, as Keras does (so a
        frozen model's BatchNormalization layers run in inference mode)."""
        for layer in self._flatten_layers():
            layer._trainable = bool(value)

    @property
    def dtype(self) -> str:
        """The dtype of the layer's weights, its policy's variable dtype (as Keras's
        ``Layer.dtype``; see `compute_dtype`)."""
        return self._variable_dtype.name

    def _children(self) -> list:
        """Layers and Variables this layer holds, in attribute order (lists/dicts walked)."""
        out: list = []
        seen: set = set()
        gather_tracked(self._tracked, out, seen)
        gather_tracked(vars(self).values(), out, seen)
        return out

    def _flatten_layers(self, include_self: bool = True):
        """This layer and every layer inside it, depth first, each once."""
        seen = set()
        todo = [self]
        while todo:
            layer = todo.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            if layer is not self or include_self:
                yield layer
            todo.extend(c for c in layer._children() if isinstance(c, Layer))

    def _collect(self, trainable_only: bool | None) -> list:
        trainable, non_trainable, variables = _weight_lists(self, set())
        if trainable_only is None:
            return variables
        return trainable if trainable_only else non_trainable

    @property
    def variables(self) -> list:
        """Every Variable of this layer and its sublayers, in Keras 3's order: its own
        trainable ones, its own non-trainable ones, then each sublayer's variables in turn."""
        return self._collect(None)

    @property
    def trainable_variables(self) -> list:
        """Variables updated by training: trainable ones of trainable layers; the layer's own
        (made by `add_weight` or assigned to attributes), then its sublayers', as in Keras 3."""
        return self._collect(True)

    @property
    def non_trainable_variables(self) -> list:
        """The other Variables (frozen layers, BatchNormalization's moving statistics), in
        `trainable_variables`' order."""
        return self._collect(False)

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays, in `weights` order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights) -> None:
        """Assigns NumPy arrays to the weights, in `weights` order.

        Raises:
            ValueError: wrong count or a shape mismatch (nothing is assigned then).
        """
        variables = self.weights
        if len(weights) != len(variables):
            raise ValueError(
                f"{self.name}.set_weights: expected {len(variables)} arrays, got {len(weights)}."
            )
        for v, w in zip(variables, weights):
            if tuple(np.shape(w)) != tuple(v.shape):
                raise ValueError(
                    f"{self.name}.set_weights: {v.name} has shape {tuple(v.shape)}, got "
                    f"{tuple(np.shape(w))}."
                )
        for v, w in zip(variables, weights):
            v.assign(np.asarray(w, dtype=v.dtype.as_numpy_dtype))

    def count_params(self) -> int:
        """Number of scalars in the weights (follows Keras 3's ``Layer.count_params``).

        Raises:
            ValueError: the layer is not built (Keras 3's message), even if it made weights
                in ``__init__``.
        """
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the layer isn't "
                "built. You can build it manually via: `layer.build(input_shape)`."
            )
        return int(sum(int(np.prod(v.shape, dtype=np.int64)) for v in self.weights))

    def get_config(self) -> dict:
        """The constructor arguments that rebuild this layer (Keras's serialization)."""
        config = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": dtype_policies.serialize(self._dtype_policy),
        }
        if self._cast_to is None:
            config["autocast"] = False
        from .. import constraints, regularizers

        if self.activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return {**config, **constraints.layer_config(self)}  # kernel_constraint, ...

    @classmethod
    def from_config(cls, config: dict):
        """The layer `get_config`'s output describes: ``cls(**config)`` (Keras's default)."""
        return cls(**config)

    def build_from_config(self, config: dict) -> None:
        """Builds the layer for ``config["input_shape"]`` (what `saving` records for a built
        layer), or ``build(**config["shapes_dict"])`` (Keras 3's record of a ``build`` of
        several shapes); a model whose `build` creates nothing is called once on zeros of
        that shape (unknown sizes 1), off every tape, so that its sublayers create their
        weights."""
        from ...core.tape import stop_recording
        from ...ops.creation import zeros

        shape = config.get("input_shape")
        if shape is None and isinstance(config.get("shapes_dict"), dict):
            build_from_shapes_dict(self, config["shapes_dict"])
            return
        if shape is None:
            return
        if shape and isinstance(shape[0], list):
            shape = [tuple(s) for s in shape]
        else:
            shape = tuple(shape)
        if type(self).build is Layer.build and hasattr(self, "fit"):
            dtype = self._input_dtype or self._dtype

            def stand_in(s):
                return zeros([1 if d is None else d for d in s], dtype=dtype)

            x = [stand_in(s) for s in shape] if isinstance(shape, list) else stand_in(shape)
            with stop_recording():
                self(x, training=False)
            self._build_input_shape = shape
            return
        self._maybe_build_shapes(shape)

    def _maybe_build_shapes(self, shapes) -> None:
        self._build_input_shape = shapes
        call_build(self, shapes)
        self.built = True
        if Layer.variable_observers:
            Layer.variable_observers.notify("layer_built", self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


_NONE = (None, None)


def _created(variable: Variable) -> int:
    return variable._uid


def _dedup(variables: list) -> list:
    if len({id(v) for v in variables}) == len(variables):  # the common case: no repeats
        return variables
    seen: set = set()
    return [v for v in variables if not (id(v) in seen or seen.add(id(v)))]


def _weight_lists(layer: Layer, seen: set) -> tuple[list, list, list]:
    """``(trainable, non_trainable, variables)`` of ``layer`` in Keras 3's order (its
    `Layer.weights`, `trainable_weights` and `non_trainable_weights`, Models included):

    - `variables`: its own trainable weights, its own non-trainable ones, then each
      sublayer's variables in turn;
    - `trainable` and `non_trainable`: the same order, filtered (own first, then each
      sublayer's);
    - a frozen layer (``trainable=False``) has no trainable variables: all go to the
      non-trainable list, in the order of `variables`.

    Its own weights (made by `add_weight` or held in its attributes) come in creation order;
    sublayers (and plain Modules) in attribute order. Each layer is walked once (``seen``),
    so a layer held twice, or a cycle, adds nothing twice."""
    seen.add(id(layer))
    own_t: list = []
    own_n: list = []
    kids_t: list = []
    kids_n: list = []
    kids_v: list = []
    for c in layer._children():
        if isinstance(c, Layer):
            if id(c) in seen:
                continue
            t, n, v = _weight_lists(c, seen)
        elif isinstance(c, Module):  # a plain Module: its variables count, as in Keras
            t, n, v = list(c.trainable_variables), list(c.non_trainable_variables), c.variables
        else:
            (own_t if c.trainable else own_n).append(c)
            continue
        kids_t += t
        kids_n += n
        kids_v += v
    own_t.sort(key=_created)  # Keras tracks own weights as they are made or assigned
    own_n.sort(key=_created)
    if layer._trainable:
        trainable, non_trainable = own_t + kids_t, own_n + kids_n
    else:
        trainable, non_trainable = [], own_t + own_n + kids_v
    variables = own_t + own_n + kids_v
    return _dedup(trainable), _dedup(non_trainable), _dedup(variables)
