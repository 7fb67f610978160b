"""eagerkernel: an eager deep-learning runtime on NumPy and CuPy, with a Jupyter kernel.

Import it where TensorFlow's eager guides import TensorFlow::

    import eagerkernel as tf
    tfe = tf.contrib.eager

The public names follow TensorFlow's (``tf.GradientTape``, ``tf.Variable``, ``tf.nn.relu``,
``tfe.gradients_function``, ...). In IPython, ``%load_ext eagerkernel`` adds the ``%%tape``,
``%grad`` and ``%device`` magics.
"""

from __future__ import annotations

import builtins as _builtins
import os as _os
import sys as _sys
import types as _types

if "numpy" not in _sys.modules:  # read by OpenBLAS when NumPy loads it (see native/blas.py)
    _os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "18")

from .runtime import (
    config,
    data,
    distribute,
    dlpack,
    keras,
    lookup,
    nest,
    ragged,
    sparse,
)
from .runtime import extension_dispatch as _extension_dispatch
from .runtime import extension_type as _extension_type
from .runtime import trace_types as _trace_types
from .runtime.autodiff import (
    custom_gradient,
    gradients_function,
    implicit_gradients,
    implicit_value_and_gradients,
    stop_gradient,
    value_and_gradients_function,
)
from .runtime.compat import layers
from .runtime.compat.layers import Network
from .runtime.compat.v1 import losses, metrics, train
from .runtime.config import num_gpus
from .runtime.core import dtypes as _dtypes_module
from .runtime.core import errors
from .runtime.core.conversion import register_tensor_conversion_function
from .runtime.core.device import device
from .runtime.core.dtypes import (
    DType,
    as_dtype,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .runtime.core.indexed_slices import IndexedSlices
from .runtime.core.tape import GradientTape, UnconnectedGradients
from .runtime.core.tensor import Tensor, TensorShape, constant, convert_to_tensor
from .runtime.core.variable import (
    Variable,
    VariableAggregation,
    VariableSynchronization,
    variable_creator_scope,
)
from .runtime.data import Iterator, TensorSpec
from .runtime.data import iterator as _data_iterator
from .runtime.debugging import Assert, assert_equal, assert_greater, assert_less, assert_rank
from .runtime.function import function, init_scope
from .runtime.function import graph as _function_graph
from .runtime.function import print_ as print
from .runtime.init_ops import (
    constant_initializer,
    ones_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    zeros_initializer,
)
from .runtime.io import profiler, saved_model, summary
from .runtime.io.checkpoint import Checkpoint
from .runtime.module import Module, get_current_name_scope, name_scope
from .runtime.ops import *  # noqa: F403
from .runtime.ops.graph_compat import tuple
from .runtime.ragged import RaggedTensor, RaggedTensorSpec
from .runtime.sparse import SparseTensor
from .runtime.sparse.sparse_tensor import SparseTensorSpec
from .runtime.tensor_array import TensorArray
from .runtime.version_info import VERSION as _VERSION

__version__ = _VERSION

from . import debugging, nn, random  # noqa: I001 (before compat, which reads them)
from . import audio, compat, image, io, linalg, math, signal, strings, test, testing, version
from . import quantization, queue, sets
from .runtime.ops.edit_distance import edit_distance
from .runtime.ops.io_ops import fingerprint

log = math.log
scalar_mul = math.scalar_mul
fftnd, ifftnd, rfftnd, irfftnd = signal.fftnd, signal.ifftnd, signal.rfftnd, signal.irfftnd
eig = linalg.eig  # TensorFlow 2 exports tf.eig and tf.eigvals too
Graph = compat.v1.Graph  # tf.Graph: raises NotImplementedError (eager only, no graphs)
eigvals = linalg.eigvals
random_normal = random.normal
random_uniform = random.uniform
set_random_seed = random.set_seed
initializers = keras.initializers  # TensorFlow 2's tf.initializers is Keras's (time_series)
optimizers = keras.optimizers  # and so is tf.optimizers


# `ek.autograph`, as `tf.autograph`: nothing is converted (see its module).
from .runtime.function import autograph as _autograph  # noqa: E402

autograph = _types.SimpleNamespace(
    to_code=_autograph.to_code,
    to_graph=_autograph.to_graph,
    set_verbosity=_autograph.set_verbosity,
    trace=_autograph.trace,
    experimental=_types.SimpleNamespace(
        Feature=_autograph.Feature,
        do_not_convert=_autograph.do_not_convert,
        set_loop_options=_autograph.set_loop_options,
    ),
)


# `ek.bitwise`, as `tf.bitwise`.
from .runtime.ops import bitwise  # noqa: E402

as_string = strings.as_string


def get_logger():
    """The Python logger this package writes to, named ``"eagerkernel"`` (follows
    `tf.get_logger`)."""
    import logging

    return logging.getLogger("eagerkernel")


def timestamp(name=None) -> Tensor:
    """Seconds since the epoch as a float64 scalar tensor (follows `tf.timestamp`)."""
    import time

    return constant(time.time(), dtype=float64)


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The shape two shapes broadcast to, unknown dims allowed (follows
    `tf.broadcast_static_shape`).

    Raises:
        ValueError: shapes that do not broadcast ("Incompatible shapes for broadcasting").

    >>> ek.broadcast_static_shape(ek.TensorShape([None, 1, 3]), ek.TensorShape([4, 1]))
    TensorShape([None, 4, 3])
    """
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    n = max(len(x), len(y))
    a, b = (1,) * (n - len(x)) + _builtins.tuple(x), (1,) * (n - len(y)) + _builtins.tuple(y)
    out = []
    for p, q in zip(a, b):
        if p == 1 or p == q:
            out.append(q)
        elif q == 1:
            out.append(p)
        elif p is None or q is None:
            out.append(p if q is None else q)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {x} and {y}")
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The shape two shapes (1-D int tensors or lists) broadcast to, as a tensor (follows
    `tf.broadcast_dynamic_shape`).

    Raises:
        TypeError: a shape that is not of an integer dtype.
        InvalidArgumentError: a shape that is not a vector, or shapes that do not broadcast.

    >>> ek.broadcast_dynamic_shape([2, 1], [3]).numpy()
    array([2, 3], dtype=int32)
    """
    import numpy as np

    x = convert_to_tensor(shape_x)
    y = convert_to_tensor(shape_y)
    for arg, t in (("shape_x", x), ("shape_y", y)):
        if not t.dtype.is_integer:
            raise TypeError(
                f"broadcast_dynamic_shape: {arg} must be an integer shape (int32 or int64). "
                f"Received: {arg} of dtype {t.dtype.name}."
            )
        if t.shape.rank != 1:
            raise errors.InvalidArgumentError(
                None,
                "BroadcastArgs",
                f"broadcast_dynamic_shape: {arg} must be a vector (rank 1). "
                f"Received: {arg} of shape {t.shape}.",
            )
    try:
        out = np.broadcast_shapes(
            _builtins.tuple(x.numpy().tolist()), _builtins.tuple(y.numpy().tolist())
        )
    except ValueError:
        raise errors.InvalidArgumentError(
            None,
            "BroadcastArgs",
            f"broadcast_dynamic_shape: Incompatible shapes: {x.numpy().tolist()} vs. "
            f"{y.numpy().tolist()}",
        ) from None
    return constant(list(out), dtype=x.dtype)


def executing_eagerly() -> bool:
    """Always True: eagerkernel has no graph mode (follows `tf.executing_eagerly`)."""
    return True


def enable_eager_execution(*args, **kwargs) -> None:
    """Accepted and ignored: execution is always eager (TensorFlow 1.x guides call it)."""


# `ek.experimental.dlpack.from_dlpack` / `to_dlpack`, as `tf.experimental.dlpack`, and
# `ek.experimental.Optional`, as `tf.experimental.Optional`.
experimental = _types.ModuleType(f"{__name__}.experimental", "As `tf.experimental`.")
experimental.dlpack = dlpack
experimental.Optional = _data_iterator.Optional
# `ek.experimental.ExtensionType` and its dispatch decorators, as `tf.experimental`'s.
for _module in (_extension_type, _extension_dispatch):
    for _name in _module.__all__:
        if _name not in ("type_spec_from_value", "dispatchable", "DISPATCHABLE_APIS"):
            setattr(experimental, _name, getattr(_module, _name))
type_spec_from_value = _extension_type.type_spec_from_value
# `ek.experimental.DynamicRaggedShape` / `RowPartition`, as `tf.experimental`'s.
experimental.DynamicRaggedShape = ragged.DynamicRaggedShape
experimental.RowPartition = ragged.RowPartition
# `ek.experimental.numpy`, as `tf.experimental.numpy` (`import eagerkernel.experimental.numpy
# as tnp` works too: both modules are registered in sys.modules).
from .runtime import numpy_ops as _numpy_ops  # noqa: E402

experimental.numpy = _numpy_ops
experimental_enable_numpy_behavior = _numpy_ops.experimental_enable_numpy_behavior
_sys_modules = __import__("sys").modules
_sys_modules.setdefault(f"{__name__}.experimental", experimental)
_sys_modules.setdefault(f"{__name__}.experimental.numpy", _numpy_ops)
_sys_modules.setdefault(f"{__name__}.experimental.numpy.random", _numpy_ops.random)
del _sys_modules
# TF 1.x's `tf.python_io` (TFRecord files), as `tf.compat.v1.python_io`.
python_io = _types.SimpleNamespace(
    TFRecordWriter=io.TFRecordWriter,
    TFRecordOptions=io.TFRecordOptions,
    TFRecordCompressionType=io.TFRecordCompressionType,
    tf_record_iterator=io.tf_record_iterator,
)

# `ek.dtypes`, as `tf.dtypes`: the DType class, `as_dtype`, `cast` and every dtype.
dtypes = _types.SimpleNamespace(
    DType=DType,
    as_dtype=as_dtype,
    cast=cast,  # noqa: F405 (from .runtime.ops)
    saturate_cast=saturate_cast,  # noqa: F405 (from .runtime.ops)
    **{k: v for k, v in vars(_dtypes_module).items() if isinstance(v, DType)},
)

# `ek.types.experimental`, as `tf.types.experimental`: TraceType and the function types.
types = _types.SimpleNamespace(
    experimental=_types.SimpleNamespace(
        TraceType=_trace_types.TraceType,
        TracingContext=_trace_types.TracingContext,
        GenericFunction=_trace_types.GenericFunction,
        PolymorphicFunction=_trace_types.PolymorphicFunction,
        ConcreteFunction=_trace_types.ConcreteFunction,
        FunctionType=_function_graph.FunctionType,
        AtomicFunction=_function_graph.AtomicFunction,
    )
)

# `tfe = tf.contrib.eager` (TF 1.x eager's guides): this namespace, with TF 1.x's Variable.
from . import contrib  # noqa: E402


def _alias_submodules() -> None:
    """Makes ``from eagerkernel.keras.layers import Dense`` (and ``eagerkernel.data``, ...)
    import the same module objects as ``ek.keras.layers``, as ``tensorflow.keras`` does."""
    import sys

    for public in ("keras", "data", "config", "distribute"):
        real = f"{__name__}.runtime.{public}"
        for name, module in list(sys.modules.items()):
            if name == real or name.startswith(real + "."):
                sys.modules.setdefault(f"{__name__}.{public}{name[len(real) :]}", module)


_alias_submodules()


def load_ipython_extension(ipython) -> None:
    """``%load_ext eagerkernel``: registers the magics and rich displays in ``ipython``."""
    from .magics import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython) -> None:
    """``%unload_ext eagerkernel``: removes the magics."""
    from .magics import unload_ipython_extension as _unload

    _unload(ipython)
