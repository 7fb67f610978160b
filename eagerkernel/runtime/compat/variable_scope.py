"""TensorFlow 1.x's variable scopes, ``get_variable``, templates and collections, eagerly.

These follow what ``tf.compat.v1`` does when eager execution is on (TensorFlow 2's default):

- ``variable_scope(name)`` prefixes the names of the variables ``get_variable`` creates
  (``"model/dense/kernel:0"``) and opens a name scope of the same name, so ``tf.Variable``'s
  names get the prefix too. ``variable_scope(None, default_name="conv2d")`` makes the name
  unique among its siblings (``conv2d``, ``conv2d_1``, ...), counting every scope opened with
  that name, as TensorFlow's variable-scope store does.
- ``get_variable`` creates a new Variable at each call: eagerly there is no variable store, so
  nothing is shared (``reuse`` is always ``AUTO_REUSE``), except inside a template from
  ``make_template``, whose variables are created at its first call and reused afterwards.
- Collections (``get_collection``, ``add_to_collection``, ``GraphKeys``) are per process;
  ``get_variable`` adds its regularizer's loss to ``REGULARIZATION_LOSSES``, and a template's
  variables go to ``GLOBAL_VARIABLES`` (and ``TRAINABLE_VARIABLES``), as in TensorFlow.

Keras's ``tf.compat.v1.keras.utils.track_tf1_style_variables`` (a layer-owned store) is not
provided.

>>> import eagerkernel.compat.v1 as tf1
>>> with tf1.variable_scope("model"):
...     w = tf1.get_variable("w", shape=[2], initializer=tf1.zeros_initializer())
>>> w.name, w.numpy()
('model/w:0', array([0., 0.], dtype=float32))
"""

from __future__ import annotations

import copy
import enum
import functools
import re
import threading

from ..core.dtypes import as_dtype
from ..core.tensor import Tensor
from ..core.variable import Variable
from ..module import current_name_scope, name_scope

__all__ = [
    "AUTO_REUSE",
    "GraphKeys",
    "Template",
    "VariableScope",
    "add_to_collection",
    "add_to_collections",
    "get_collection",
    "get_collection_ref",
    "get_variable",
    "get_variable_scope",
    "global_variables",
    "local_variables",
    "make_template",
    "model_variables",
    "trainable_variables",
    "variable_scope",
]


class _ReuseMode(enum.Enum):
    """Variable reuse modes (``tf.compat.v1.AUTO_REUSE``)."""

    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


class GraphKeys:
    """The standard collection names (follows `tf.compat.v1.GraphKeys`)."""

    GLOBAL_VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"
    VARIABLES = GLOBAL_VARIABLES


# -- collections ---------------------------------------------------------------------------------

_COLLECTIONS: dict = {}


def add_to_collection(name, value) -> None:
    """Appends ``value`` to the collection ``name`` (follows `tf.compat.v1.add_to_collection`)."""
    _COLLECTIONS.setdefault(name, []).append(value)


def add_to_collections(names, value) -> None:
    """Appends ``value`` to each collection in ``names`` (a name or a list of names)."""
    for name in [names] if isinstance(names, str) else set(names):
        add_to_collection(name, value)


def get_collection_ref(key) -> list:
    """The collection ``key`` itself, created empty if missing (follows
    `tf.compat.v1.get_collection_ref`)."""
    return _COLLECTIONS.setdefault(key, [])


def get_collection(key, scope=None) -> list:
    """A copy of the collection ``key`` (``[]`` if missing), keeping only the items whose
    ``name`` matches ``scope`` from its start (``re.match``) when ``scope`` is given (follows
    `tf.compat.v1.get_collection`)."""
    items = list(_COLLECTIONS.get(key, ()))
    if scope is None:
        return items
    return [x for x in items if getattr(x, "name", None) and re.match(scope, x.name)]


def global_variables(scope=None) -> list:
    """The ``GLOBAL_VARIABLES`` collection (follows `tf.compat.v1.global_variables`): eagerly,
    only templates' variables are added to it."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def trainable_variables(scope=None) -> list:
    """The ``TRAINABLE_VARIABLES`` collection (follows `tf.compat.v1.trainable_variables`)."""
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope=None) -> list:
    """The ``LOCAL_VARIABLES`` collection (follows `tf.compat.v1.local_variables`)."""
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope=None) -> list:
    """The ``MODEL_VARIABLES`` collection (follows `tf.compat.v1.model_variables`)."""
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def reset_collections() -> None:
    """Empties every collection and forgets the variable-scope counts (what
    ``tf.compat.v1.reset_default_graph`` does to them)."""
    _COLLECTIONS.clear()
    _state().counts = {}


# -- scopes --------------------------------------------------------------------------------------


class VariableScope:
    """The settings ``get_variable`` uses inside a `variable_scope` (follows
    `tf.compat.v1.VariableScope`): the name prefix, and the default ``initializer``,
    ``regularizer``, ``dtype`` (float32) and ``constraint`` of the variables created in it.
    Eagerly, ``reuse`` is ``AUTO_REUSE`` (True after `reuse_variables`), as in TensorFlow.
    """

    def __init__(
        self,
        reuse=None,
        name="",
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        name_scope="",
        dtype="float32",
        use_resource=None,
        constraint=None,
    ):
        self._name = name
        self._reuse = AUTO_REUSE  # eagerly, whatever is given (TensorFlow's rule)
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = as_dtype(dtype)
        self._use_resource = True
        self._constraint = constraint

    name = property(lambda self: self._name, doc="The scope's full name (``'outer/inner'``).")
    original_name_scope = property(
        lambda self: self._name_scope, doc="The name scope it opened (``'outer/inner/'``)."
    )
    reuse = property(lambda self: self._reuse, doc="``AUTO_REUSE`` eagerly, or True.")
    initializer = property(lambda self: self._initializer, doc="The default initializer.")
    regularizer = property(lambda self: self._regularizer, doc="The default regularizer.")
    dtype = property(lambda self: self._dtype, doc="The default dtype.")
    constraint = property(lambda self: self._constraint, doc="The default constraint.")
    use_resource = property(lambda self: self._use_resource, doc="True (resource variables).")
    caching_device = property(lambda self: self._caching_device, doc="Accepted, unused.")
    partitioner = property(
        lambda self: self._partitioner,
        doc="The scope's partitioner: get_variable raises NotImplementedError when one is set.",
    )
    custom_getter = property(lambda self: self._custom_getter, doc="The custom getter.")

    def reuse_variables(self) -> None:
        """Sets ``reuse`` to True."""
        self._reuse = True

    def set_initializer(self, initializer) -> None:
        """Sets the default initializer."""
        self._initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        """Sets the default regularizer."""
        self._regularizer = regularizer

    def set_dtype(self, dtype) -> None:
        """Sets the default dtype."""
        self._dtype = as_dtype(dtype)

    def set_constraint(self, constraint) -> None:
        """Sets the default constraint."""
        self._constraint = constraint

    def set_custom_getter(self, custom_getter) -> None:
        """Sets the custom getter: ``custom_getter(getter, name, *args, **kwargs)``."""
        self._custom_getter = custom_getter

    def set_caching_device(self, caching_device) -> None:
        """Accepted, unused (eagerly, TensorFlow ignores it too)."""
        self._caching_device = caching_device

    def set_partitioner(self, partitioner) -> None:
        """Sets the scope's partitioner (`get_variable` then raises: partitioned variables
        are not supported)."""
        self._partitioner = partitioner

    def set_use_resource(self, use_resource) -> None:
        """Accepted: variables are always resource variables."""

    def get_variable(self, name, *args, **kwargs) -> Variable:
        """`get_variable` with this scope's name and defaults."""
        return _get_variable(self, name, *args, **kwargs)

    def global_variables(self) -> list:
        """The ``GLOBAL_VARIABLES`` whose names start with this scope's name."""
        return global_variables(self._name)

    def trainable_variables(self) -> list:
        """The ``TRAINABLE_VARIABLES`` whose names start with this scope's name."""
        return trainable_variables(self._name)

    def __repr__(self) -> str:
        return f"<VariableScope name={self._name!r}>"


_THREAD = threading.local()


def _state():
    st = _THREAD
    if not hasattr(st, "scope"):
        st.scope = VariableScope(name="")
        st.counts = {}
        st.stores = []  # the active templates' {full name: Variable}
    return st


def get_variable_scope() -> VariableScope:
    """This thread's current `VariableScope` (follows `tf.compat.v1.get_variable_scope`)."""
    return _state().scope


def _unique_scope_name(prefix: str) -> str:
    st = _state()
    name = f"{st.scope.name}/{prefix}" if st.scope.name else prefix
    if not st.counts.get(name, 0):
        return prefix
    idx = 1
    while st.counts.get(f"{name}_{idx}", 0):
        idx += 1
    return f"{prefix}_{idx}"


class variable_scope:  # TensorFlow's public name, lower case
    """A context manager for ``get_variable``'s names and defaults (follows
    `tf.compat.v1.variable_scope` in eager mode).

    Args:
        name_or_scope: a str (appended to the current scope's name), a `VariableScope` to
            enter again, or None to use ``default_name`` made unique.
        default_name: used when ``name_or_scope`` is None: ``conv2d``, then ``conv2d_1``...
        initializer, regularizer, dtype, constraint, custom_getter: defaults for the
            variables created in the scope (inherited by sub-scopes).
        reuse: True, None or ``AUTO_REUSE``: accepted; eagerly variables are shared only
            inside a template (`make_template`) and ``scope.reuse`` is ``AUTO_REUSE``.
        auxiliary_name_scope: if False, no name scope is opened.
        values, caching_device, partitioner, use_resource: accepted, unused.

    Entering gives the `VariableScope`.

    Raises:
        TypeError: both ``name_or_scope`` and ``default_name`` are None, or
            ``name_or_scope`` is neither a str nor a VariableScope.
        ValueError: ``reuse=True`` without ``name_or_scope``.
        RuntimeError: scopes exited out of order.

    >>> import eagerkernel.compat.v1 as tf1
    >>> names = []
    >>> for _ in range(2):
    ...     with tf1.variable_scope(None, default_name="conv2d") as scope:
    ...         names.append(scope.name)
    >>> names
    ['conv2d', 'conv2d_1']
    """

    def __init__(
        self,
        name_or_scope,
        default_name=None,
        values=None,
        initializer=None,
        regularizer=None,
        caching_device=None,
        partitioner=None,
        custom_getter=None,
        reuse=None,
        dtype=None,
        use_resource=None,
        constraint=None,
        auxiliary_name_scope=True,
    ):
        if name_or_scope is None and default_name is None:
            raise TypeError("If default_name is None then name_or_scope is required")
        if name_or_scope is not None and not isinstance(name_or_scope, (str, VariableScope)):
            raise TypeError("VariableScope: name_or_scope must be a string or VariableScope.")
        if name_or_scope is None and reuse is True:
            raise ValueError("reuse=True cannot be used without a name_or_scope")
        self._name_or_scope = name_or_scope
        self._default_name = default_name
        self._overrides = {
            "initializer": initializer,
            "regularizer": regularizer,
            "dtype": dtype,
            "constraint": constraint,
            "custom_getter": custom_getter,
            "caching_device": caching_device,
            "partitioner": partitioner,
        }
        self._aux = auxiliary_name_scope
        self._name_scope = None

    def _enter_name_scope(self, name: str) -> str:
        if not self._aux or not name:
            return current_name_scope()
        self._name_scope = name_scope(name)
        return self._name_scope.__enter__()

    def __enter__(self) -> VariableScope:
        st = _state()
        self._old = old = st.scope
        given = self._name_or_scope
        if isinstance(given, VariableScope):
            self._enter_name_scope(given.name.split("/")[-1])
            new = copy.copy(given)
            st.counts[new.name] = st.counts.get(new.name, 0) + 1
            self._old_counts = dict(st.counts)
        else:
            if given is None:
                ns = self._enter_name_scope(self._default_name)
                given = _unique_scope_name(self._default_name)
            else:
                ns = self._enter_name_scope(given)
            name = f"{old.name}/{given}" if old.name else given
            new = copy.copy(old)
            new._name, new._name_scope = name, ns
            st.counts[name] = st.counts.get(name, 0) + 1
            self._old_counts = None
        new._reuse = AUTO_REUSE
        for key, value in self._overrides.items():
            if value is not None:
                setattr(new, f"_{key}", as_dtype(value) if key == "dtype" else value)
        st.scope = self._entered = new
        return new

    def __exit__(self, *exc) -> None:
        st = _state()
        try:
            if st.scope is not self._entered:
                raise RuntimeError("Improper nesting of variable_scope.")
            if self._old_counts is not None:
                st.counts = self._old_counts
            else:
                prefix = self._entered.name + "/"
                for key in st.counts:
                    if key.startswith(prefix):
                        st.counts[key] = 0
            st.scope = self._old
        finally:
            if self._name_scope is not None:
                self._name_scope.__exit__(*exc)
                self._name_scope = None


# -- get_variable --------------------------------------------------------------------------------


def _default_initializer(name: str, dtype):
    from ..keras import initializers

    if dtype.is_floating or dtype.is_complex:
        return initializers.GlorotUniform()
    if dtype.is_integer or dtype.is_bool or dtype.name == "string":
        return initializers.Zeros()
    raise ValueError(f"An initializer for variable {name} of {dtype.name} is required")


def get_variable(
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=None,
    collections=None,
    caching_device=None,
    partitioner=None,
    validate_shape=True,
    use_resource=None,
    custom_getter=None,
    constraint=None,
    synchronization=None,
    aggregation=None,
) -> Variable:
    """A Variable named ``<scope>/<name>`` (follows `tf.compat.v1.get_variable` in eager
    mode): a new one at each call, except inside a template (`make_template`), which reuses the
    variable of that name.

    Args:
        name: the variable's name within the current `variable_scope`.
        shape: its shape (a list); required unless ``initializer`` is a value.
        dtype: default the scope's (float32).
        initializer: an initializer object or class (called with ``(shape, dtype=dtype)``), or
            a value (Tensor, array, Python number; then give no ``shape``). Default: the
            scope's, else Glorot uniform for floats and zeros for integers and bools.
        regularizer: ``regularizer(variable)`` gives a loss added to the
            ``REGULARIZATION_LOSSES`` collection. Default: the scope's.
        trainable: default True. constraint: default the scope's.
        collections: extra collections to add the variable to.
        validate_shape, synchronization, aggregation: as for `Variable`.
        caching_device, use_resource: accepted; they change nothing in eager mode (every
            eager variable is a resource variable on its device), as in TensorFlow.
        partitioner: None only (partitioned variables raise NotImplementedError).
        custom_getter: (or the scope's) is called as
            ``custom_getter(getter, name, shape=..., ...)``.

    Raises:
        ValueError: a value initializer with a ``shape``; no ``shape`` for an initializer
            object; a shared variable whose shape or dtype differs.
    """
    kwargs = dict(
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=collections,
        constraint=constraint,
        caching_device=caching_device,
        partitioner=partitioner,
        validate_shape=validate_shape,
        use_resource=use_resource,
        synchronization=synchronization,
        aggregation=aggregation,
    )
    scope = get_variable_scope()
    if partitioner is None:
        kwargs["partitioner"] = scope.partitioner  # TF: the scope's applies
    return _get_variable(scope, name, custom_getter=custom_getter, **kwargs)


def _get_variable(scope, name, shape=None, dtype=None, custom_getter=None, **kwargs):
    full_name = f"{scope.name}/{name}" if scope.name else name
    dtype = as_dtype(dtype) if dtype is not None else scope.dtype
    getter = functools.partial(_true_getter, scope)
    custom = custom_getter or scope.custom_getter
    if custom is not None:
        return custom(getter, full_name, shape=shape, dtype=dtype, **kwargs)
    return getter(full_name, shape=shape, dtype=dtype, **kwargs)


def _true_getter(
    scope,
    name,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable=None,
    collections=None,
    constraint=None,
    partitioner=None,
    validate_shape=True,
    synchronization=None,
    aggregation=None,
    caching_device=None,  # no effect in eager mode (TensorFlow's eager variables ignore it)
    use_resource=None,  # eager variables are always resource variables
):
    if partitioner is not None:
        raise NotImplementedError(
            f"get_variable: partitioned variables are not supported (variable {name}, "
            f"partitioner={partitioner!r}); give partitioner=None."
        )
    dtype = as_dtype(dtype) if dtype is not None else scope.dtype
    stores = _state().stores
    store = stores[-1] if stores else None
    if store is not None and name in store:
        found = store[name]
        if shape is not None and not found.shape.is_compatible_with(shape):
            raise ValueError(
                f"Trying to share variable {name}, but specified shape {tuple(shape)} and found "
                f"shape {found.shape}."
            )
        if found.dtype != dtype:
            raise ValueError(
                f"Trying to share variable {name}, but specified dtype {dtype.name} and found "
                f"dtype {found.dtype.name}."
            )
        return found
    if initializer is None:
        initializer = scope.initializer or _default_initializer(name, dtype)
    if isinstance(initializer, type):
        initializer = initializer()
    if callable(initializer) and not isinstance(initializer, Tensor):
        if shape is None or None in list(shape):
            raise ValueError(
                "The initializer passed is not valid. It should be a callable with no "
                "arguments and the shape should not be provided or an instance of "
                "`tf.keras.initializers.*' and `shape` should be fully defined."
            )
        shape = [int(d) for d in shape]

        def value(init=initializer, shape=shape):
            return init(shape, dtype=dtype)
    else:
        if shape is not None:
            raise ValueError("If initializer is a constant, do not specify shape.")
        value = initializer
    with name_scope(""):  # the name is already the full one
        var = Variable(
            value,
            trainable=True if trainable is None else trainable,
            name=name,
            dtype=dtype,
            constraint=constraint or scope.constraint,
            validate_shape=validate_shape,
            synchronization=synchronization,
            aggregation=aggregation,
        )
    if store is not None:
        store[name] = var
        add_to_collection(GraphKeys.GLOBAL_VARIABLES, var)
        if var.trainable:
            add_to_collection(GraphKeys.TRAINABLE_VARIABLES, var)
    for key in collections or ():
        add_to_collection(key, var)
    regularizer = regularizer or scope.regularizer
    if regularizer is not None:
        loss = regularizer(var)
        if loss is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var


# -- templates -----------------------------------------------------------------------------------


class Template:
    """A function whose ``get_variable`` calls create variables at the first call and reuse
    them afterwards (follows `tf.compat.v1.make_template`'s eager template).

    The variables live under one `variable_scope`, named (made unique) at the first call, or
    at construction with ``create_scope_now_``.

    Raises:
        ValueError: (at a call) a call after the first created a trainable variable.
    """

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        self._name = name
        self._func = func
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        self._store: dict = {}
        self._variable_scope = None
        self._called = False
        if create_scope_now:
            with variable_scope(unique_name, default_name=name) as vs:
                self._variable_scope = vs

    def __call__(self, *args, **kwargs):
        st = _state()
        if self._variable_scope is None:
            scope = variable_scope(
                self._unique_name, default_name=self._name, custom_getter=self._custom_getter
            )
        else:
            scope = variable_scope(self._variable_scope)
        first_call, self._called = not self._called, True
        before = set(self._store)
        with scope as vs:
            self._variable_scope = vs
            st.stores.append(self._store)
            try:
                out = self._func(*args, **kwargs)
            finally:
                st.stores.pop()
        created = [self._store[k] for k in self._store if k not in before]
        if not first_call and any(v.trainable for v in created):
            raise ValueError(
                "Trainable variable created when calling a template after the first time, "
                "perhaps you used tf.Variable when you meant tf.get_variable: "
                f"{[v for v in created if v.trainable]}"
            )
        return out

    name = property(lambda self: self._name, doc="The name given to `make_template`.")
    variable_scope = property(
        lambda self: self._variable_scope, doc="Its `VariableScope` (None before the 1st call)."
    )
    var_scope = variable_scope

    @property
    def variable_scope_name(self) -> str | None:
        """The full name of its scope ending in ``/`` (``'scale/'``), or None before the
        first call."""
        if self._variable_scope is None:
            return None
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    @property
    def variables(self) -> list:
        """The variables it created, sorted by name (as TensorFlow's eager store lists them)."""
        return sorted(self._store.values(), key=lambda v: v.name)

    global_variables = variables

    @property
    def trainable_variables(self) -> list:
        """Its trainable variables."""
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_variables(self) -> list:
        """Its non-trainable variables."""
        return [v for v in self.variables if not v.trainable]

    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables
    weights = variables


def make_template(
    name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs
) -> Template:
    """A `Template` calling ``func_(*args, **kwargs_given_here, **kwargs)`` that shares its
    variables across calls (follows `tf.compat.v1.make_template`).

    >>> import eagerkernel.compat.v1 as tf1
    >>> def scale(x):
    ...     return x * tf1.get_variable("y", shape=[], initializer=tf1.constant_initializer(1.5))
    >>> t = tf1.make_template("scale_by_y", scale)
    >>> float(t(2.0)), float(t(4.0)), [v.name for v in t.variables]
    (3.0, 6.0, ['scale_by_y/y:0'])
    """
    return Template(
        name_,
        functools.partial(func_, **kwargs) if kwargs else func_,
        create_scope_now=create_scope_now_,
        unique_name=unique_name_,
        custom_getter=custom_getter_,
    )
