"""`ek.compat.v1`, as `tf.compat.v1`: TensorFlow 1.x's names that make sense eagerly.

``train`` (``AdamOptimizer``, ``get_or_create_global_step``, ``Checkpoint``...), ``layers``,
``losses``, ``metrics``, ``logging``, ``random_normal``/``set_random_seed``, ``to_float``,
``div`` and ``enable_eager_execution`` work as in TensorFlow 1.x eager mode; the top-level names
of ops TensorFlow 2 moved (``FixedLenFeature``, ``parse_single_example``,
``truncated_normal``, ``string_to_number``, ``arg_max``...) are the moved ops; any other name
is looked up in
`eagerkernel` (TensorFlow 2's), as ``tf.compat.v1`` also holds most of those. Graph mode is not
supported: ``Session``, ``placeholder``, ``disable_eager_execution``,
``global_variables_initializer`` and ``get_default_graph`` raise NotImplementedError saying so.
``variable_scope``, ``get_variable``, ``make_template`` and the collections
(``get_collection``, ``GraphKeys``) behave as TensorFlow's do when eager execution is on.

>>> import eagerkernel.compat.v1 as tf1
>>> tf1.executing_eagerly(), tf1.train.AdamOptimizer.__name__
(True, 'AdamOptimizer')
>>> tf1.Session()  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
NotImplementedError: tf.compat.v1.Session: eagerkernel runs eagerly only (no graphs, ...
"""

from __future__ import annotations

import logging as _logging
import sys as _sys
import types as _types

from ..runtime.compat import layers
from ..runtime.compat.nn_v1 import v1_nn_namespace as _v1_nn_namespace
from ..runtime.compat.v1 import losses, metrics, train
from ..runtime.compat.v1_ops import (  # TF 1.x's signatures: dtype at init, SparseTensor splits
    constant_initializer,
    ones_initializer,
    string_split,
    to_bfloat16,
    to_complex64,
    to_complex128,
    zeros_initializer,
)
from ..runtime.compat.variable_scope import (  # TF 1.x's scopes as they behave eagerly
    AUTO_REUSE,
    GraphKeys,
    VariableScope,
    add_to_collection,
    add_to_collections,
    get_collection,
    get_collection_ref,
    get_variable,
    get_variable_scope,
    global_variables,
    local_variables,
    make_template,
    model_variables,
    trainable_variables,
    variable_scope,
)
from ..runtime.compat.variable_scope import (
    reset_collections as _reset_collections,
)
from ..runtime.core.shape import Dimension, dimension_at_index, dimension_value
from ..runtime.core.tensor import EQUALITY as _EQUALITY
from ..runtime.core.variable_scatter import (  # TF 1.x's functions of Variable updates
    batch_scatter_update,
    count_up_to,
    scatter_add,
    scatter_div,
    scatter_max,
    scatter_min,
    scatter_mul,
    scatter_nd_add,
    scatter_nd_sub,
    scatter_nd_update,
    scatter_sub,
    scatter_update,
)
from ..runtime.io import gfile as _gfile
from ..runtime.ops.io_ops import decode_base64, encode_base64  # TF 1.x's top-level names

__all__ = [
    "AUTO_REUSE",
    "Dimension",
    "Graph",
    "GraphKeys",
    "InteractiveSession",
    "Session",
    "VariableScope",
    "__version__",
    "add_to_collection",
    "add_to_collections",
    "batch_scatter_update",
    "constant_initializer",
    "control_flow_v2_enabled",
    "count_up_to",
    "decode_base64",
    "dimension_at_index",
    "dimension_value",
    "disable_control_flow_v2",
    "disable_eager_execution",
    "disable_tensor_equality",
    "disable_v2_behavior",
    "disable_v2_tensorshape",
    "div",
    "enable_control_flow_v2",
    "enable_eager_execution",
    "enable_tensor_equality",
    "enable_v2_behavior",
    "enable_v2_tensorshape",
    "encode_base64",
    "get_collection",
    "get_collection_ref",
    "get_default_graph",
    "get_variable",
    "get_variable_scope",
    "gfile",
    "global_variables",
    "global_variables_initializer",
    "layers",
    "local_variables",
    "local_variables_initializer",
    "logging",
    "losses",
    "make_template",
    "metrics",
    "model_variables",
    "ones_initializer",
    "placeholder",
    "placeholder_with_default",
    "random_normal",
    "random_uniform",
    "reset_default_graph",
    "scatter_add",
    "scatter_div",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_nd_add",
    "scatter_nd_sub",
    "scatter_nd_update",
    "scatter_sub",
    "scatter_update",
    "set_random_seed",
    "string_split",
    "to_bfloat16",
    "to_complex64",
    "to_complex128",
    "to_double",
    "to_float",
    "to_int32",
    "to_int64",
    "train",
    "trainable_variables",
    "variable_scope",
    "zeros_initializer",
]

_parent = _sys.modules[__name__.split(".")[0]]


def enable_eager_execution(*args, **kwargs) -> None:
    """Accepted: execution is always eager (follows `tf.compat.v1.enable_eager_execution`)."""


def enable_v2_behavior() -> None:
    """Accepted: the behaviour is always TensorFlow 2's."""


def enable_tensor_equality() -> None:
    """``==`` on Tensors and Variables compares elementwise and gives a bool Tensor, and
    Variables are unhashable (TensorFlow 2's default; follows
    `tf.compat.v1.enable_tensor_equality`). Process-wide, as in TensorFlow."""
    _EQUALITY.enabled = True


def disable_tensor_equality() -> None:
    """``==`` on Tensors and Variables compares identity and gives a Python bool, and
    Variables hash by identity (TensorFlow 1.x; follows
    `tf.compat.v1.disable_tensor_equality`). Eager Tensors stay unhashable, as in
    TensorFlow. Process-wide; `enable_tensor_equality` restores TensorFlow 2's.

    >>> import eagerkernel.compat.v1 as tf1
    >>> x, y = ek.Variable(0.0), ek.Variable(0.0)
    >>> tf1.disable_tensor_equality(); (x == y, x == x, len({x, y}))
    (False, True, 2)
    >>> tf1.enable_tensor_equality(); x == y
    <Tensor: shape=(), dtype=bool, numpy=True>
    """
    _EQUALITY.enabled = False


def enable_v2_tensorshape() -> None:
    """Accepted: a TensorShape's items are ints or None, as in TensorFlow 2 (follows
    `tf.compat.v1.enable_v2_tensorshape`)."""


def disable_v2_tensorshape() -> None:
    """Raises NotImplementedError: TensorShape items that are `Dimension` objects (TF 1.x)
    are not supported; ``shape.dims`` gives the Dimensions."""
    raise NotImplementedError(
        "tf.compat.v1.disable_v2_tensorshape: TensorShape items are ints or None here, as in "
        "TensorFlow 2; use shape.dims (Dimension objects) or tf.compat.v1.dimension_at_index "
        "where TF 1.x code wants Dimensions."
    )


def control_flow_v2_enabled() -> bool:
    """True: there is only TensorFlow 2's control flow (follows
    `tf.compat.v1.control_flow_v2_enabled`)."""
    return True


def enable_control_flow_v2() -> None:
    """Accepted: control flow is always TensorFlow 2's."""


def reset_default_graph() -> None:
    """Empties the collections and forgets the variable-scope names used (there is no graph;
    TensorFlow 1.x code calls it between models)."""
    _reset_collections()


def _graph_only(name: str):
    def raise_(*args, **kwargs):
        raise NotImplementedError(
            f"tf.compat.v1.{name}: eagerkernel runs eagerly only (no graphs, Sessions or "
            "placeholders); run the ops directly, e.g. y = f(x)."
        )

    raise_.__name__ = raise_.__qualname__ = name
    raise_.__doc__ = f"Graph mode only in TensorFlow: raises NotImplementedError here ({name})."
    return raise_


Graph = _graph_only("Graph")
Session = _graph_only("Session")
InteractiveSession = _graph_only("InteractiveSession")
placeholder = _graph_only("placeholder")
placeholder_with_default = _graph_only("placeholder_with_default")
disable_eager_execution = _graph_only("disable_eager_execution")
disable_v2_behavior = _graph_only("disable_v2_behavior")
disable_control_flow_v2 = _graph_only("disable_control_flow_v2")
global_variables_initializer = _graph_only("global_variables_initializer")
local_variables_initializer = _graph_only("local_variables_initializer")
get_default_graph = _graph_only("get_default_graph")


class _Logging:
    """`tf.compat.v1.logging`: TensorFlow 1.x's logging functions on Python's ``logging``
    logger named ``"eagerkernel"``."""

    DEBUG, INFO, WARN, ERROR, FATAL = (
        _logging.DEBUG,
        _logging.INFO,
        _logging.WARNING,
        _logging.ERROR,
        _logging.FATAL,
    )

    @staticmethod
    def _logger():
        return _logging.getLogger("eagerkernel")

    def set_verbosity(self, v) -> None:
        self._logger().setLevel(v)

    def get_verbosity(self) -> int:
        return self._logger().getEffectiveLevel()

    def debug(self, msg, *args, **kwargs) -> None:
        self._logger().debug(msg, *args, **kwargs)

    def info(self, msg, *args, **kwargs) -> None:
        self._logger().info(msg, *args, **kwargs)

    def warning(self, msg, *args, **kwargs) -> None:
        self._logger().warning(msg, *args, **kwargs)

    warn = warning

    def error(self, msg, *args, **kwargs) -> None:
        self._logger().error(msg, *args, **kwargs)

    def fatal(self, msg, *args, **kwargs) -> None:
        self._logger().critical(msg, *args, **kwargs)


logging = _Logging()
gfile = _types.SimpleNamespace(**_gfile.V1_NAMES)  # TF 1.x's `tf.gfile`

# TensorFlow 1.x's top-level names of the linear algebra ops (looked up in `ek.linalg` when
# first used: that module is imported after this one).
_LINALG = {
    "matrix_inverse": "inv",
    "matrix_determinant": "det",
    "matrix_band_part": "band_part",
    "matrix_diag": "diag",
    "matrix_diag_part": "diag_part",
    "matrix_set_diag": "set_diag",
    "matrix_solve": "solve",
    "matrix_triangular_solve": "triangular_solve",
    "cholesky": "cholesky",
    "qr": "qr",
    "svd": "svd",
    "self_adjoint_eig": "eigh",
    "self_adjoint_eigvals": "eigvalsh",
}
__version__ = _parent.__version__
random_normal = _parent.random.normal
random_uniform = _parent.random.uniform
set_random_seed = _parent.random.set_seed
# TF 1.x's top-level names of ops TensorFlow 2 moved into namespaces: {TF 1.x name: TF 2 path},
# looked up on first use (``tf.compat.v1.FixedLenFeature`` is ``tf.io.FixedLenFeature``).
_RENAMED = {
    "truncated_normal": "random.truncated_normal",
    "random_shuffle": "random.shuffle",
    "multinomial": "random.categorical",
    "random_gamma": "random.gamma",
    "random_poisson": "random.poisson",
    "random_crop": "image.random_crop",
    "FixedLenFeature": "io.FixedLenFeature",
    "FixedLenSequenceFeature": "io.FixedLenSequenceFeature",
    "VarLenFeature": "io.VarLenFeature",
    "parse_example": "io.parse_example",
    "parse_single_example": "io.parse_single_example",
    "parse_sequence_example": "io.parse_sequence_example",
    "parse_single_sequence_example": "io.parse_single_sequence_example",
    "decode_raw": "io.decode_raw",
    "serialize_tensor": "io.serialize_tensor",
    "parse_tensor": "io.parse_tensor",
    "read_file": "io.read_file",
    "write_file": "io.write_file",
    "string_to_number": "strings.to_number",
    "string_to_hash_bucket_fast": "strings.to_hash_bucket_fast",
    "string_join": "strings.join",
    "string_strip": "strings.strip",
    "substr": "strings.substr",
    "reduce_join": "strings.reduce_join",
    "arg_max": "math.argmax",
    "arg_min": "math.argmin",
    "log_sigmoid": "math.log_sigmoid",
    "div_no_nan": "math.divide_no_nan",
    "is_nan": "math.is_nan",
    "is_inf": "math.is_inf",
    "is_finite": "math.is_finite",
    "lbeta": "math.lbeta",
    "igamma": "math.igamma",
    "igammac": "math.igammac",
    "polygamma": "math.polygamma",
    "zeta": "math.zeta",
    "betainc": "math.betainc",
    "bincount": "math.bincount",
    "confusion_matrix": "math.confusion_matrix",
    "cumprod": "math.cumprod",
    "segment_sum": "math.segment_sum",
    "unsorted_segment_sum": "math.unsorted_segment_sum",
    "diag": "linalg.tensor_diag",
    "diag_part": "linalg.tensor_diag_part",
    "reverse_v2": "reverse",
    "py_func": "numpy_function",
    "sparse_tensor_to_dense": "sparse.to_dense",
    "sparse_add": "sparse.add",
    "sparse_concat": "sparse.concat",
    "sparse_reorder": "sparse.reorder",
    "sparse_slice": "sparse.slice",
    "sparse_transpose": "sparse.transpose",
    "sparse_reduce_sum": "sparse.reduce_sum",
    "sparse_reduce_max": "sparse.reduce_max",
    "sparse_tensor_dense_matmul": "sparse.sparse_dense_matmul",
    "sparse_reshape": "sparse.reshape",
    "sparse_retain": "sparse.retain",
    "sparse_fill_empty_rows": "sparse.fill_empty_rows",
    "sparse_reset_shape": "sparse.reset_shape",
    "sparse_split": "sparse.split",
    "sparse_maximum": "sparse.maximum",
    "sparse_minimum": "sparse.minimum",
    "sparse_softmax": "sparse.softmax",
    "sparse_to_indicator": "sparse.to_indicator",
    "sparse_mask": "sparse.mask",
    "sparse_segment_sum": "sparse.segment_sum",
    "sparse_segment_mean": "sparse.segment_mean",
    "sparse_segment_sqrt_n": "sparse.segment_sqrt_n",
    "extract_image_patches": "image.extract_patches",
    "glorot_uniform_initializer": "keras.initializers.GlorotUniform",
    "glorot_normal_initializer": "keras.initializers.GlorotNormal",
    "verify_tensor_all_finite": "debugging.check_numerics",
}


def _renamed(name: str):
    obj = _parent
    for part in _RENAMED[name].split("."):
        obj = getattr(obj, part)
    return obj


def to_float(x, name="ToFloat"):
    """``x`` cast to float32 (follows `tf.compat.v1.to_float`)."""
    return _parent.cast(x, _parent.float32)


def to_double(x, name="ToDouble"):
    """``x`` cast to float64 (follows `tf.compat.v1.to_double`)."""
    return _parent.cast(x, _parent.float64)


def to_int32(x, name="ToInt32"):
    """``x`` cast to int32 (follows `tf.compat.v1.to_int32`)."""
    return _parent.cast(x, _parent.int32)


def to_int64(x, name="ToInt64"):
    """``x`` cast to int64 (follows `tf.compat.v1.to_int64`)."""
    return _parent.cast(x, _parent.int64)


def div(x, y, name=None):
    """Python 2's division (follows `tf.compat.v1.div`): floor division for integers, true
    division for floats.

    >>> import eagerkernel.compat.v1 as tf1
    >>> tf1.div(7, 2).numpy(), tf1.div(7.0, 2.0).numpy()
    (np.int32(3), np.float32(3.5))
    """
    x = _parent.convert_to_tensor(x)
    if x.dtype.is_integer:
        return _parent.math.floordiv(x, y)
    return _parent.math.truediv(x, y)


# TF 1.x kept the complex-number ops at top level (looked up in `ek.math` on first use).
_MATH = ("angle", "conj", "imag", "real")
# TF 1.x's top-level FFTs and `tf.spectral` namespace (looked up in `ek.signal` on first use).
_SIGNAL = ("fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d")
_SPECTRAL = (*_SIGNAL, "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d", "irfft3d", "dct", "idct")


# TF 1.x's queues at top level (`tf.compat.v1.FIFOQueue`...), looked up in `ek.queue`.
_QUEUE = ("FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue")


def __getattr__(name: str):
    if name in _QUEUE:
        return getattr(_parent.queue, name)
    if name.startswith("fake_quant_with_min_max_"):  # TF 1.x kept them at top level
        return getattr(_parent.quantization, name)
    if name in _RENAMED:
        return _renamed(name)
    if name in _LINALG:
        return getattr(_parent.linalg, _LINALG[name])
    if name in _MATH:
        return getattr(_parent.math, name)
    if name in _SIGNAL:
        return getattr(_parent.signal, name)
    if name == "spectral":
        spectral = _types.ModuleType(f"{__name__}.spectral", "As `tf.compat.v1.spectral`.")
        for op in _SPECTRAL:
            setattr(spectral, op, getattr(_parent.signal, op))
        globals()["spectral"] = spectral  # made once
        return spectral
    if name == "nn":  # tf.nn with TF 1.x's ctc_loss (sparse labels, last-class blank)
        nn = globals()["nn"] = _v1_nn_namespace(_parent.nn)  # made once
        return nn
    # Every other TensorFlow 2 name, as tf.compat.v1 has most of them.
    if not name.startswith("__") and hasattr(_parent, name):
        return getattr(_parent, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list:
    return sorted(
        set(globals())
        | set(_MATH)
        | set(_SIGNAL)
        | set(_QUEUE)
        | set(_RENAMED)
        | {"spectral"}
        | {n for n in dir(_parent) if not n.startswith("_")}
    )
