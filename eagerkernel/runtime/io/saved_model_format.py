"""What an eagerkernel saved model is made of, for `saved_model.save` (``saved_model.py``) and
`saved_model.load` (``saved_model_load.py``): the format's name and version, its two files,
the stateful calls a saved program may make, and how primitives and devices are found again.
"""

from __future__ import annotations

from ..core.device import CPU, Device
from ..core.dispatch import Primitive
from ..core.errors import InvalidArgumentError

__all__ = [
    "ARRAYS_FILE",
    "FORMAT",
    "JSON_FILE",
    "STATEFUL_CALLS",
    "VERSION",
    "device_named",
    "is_local_io_device",
    "primitives",
]

FORMAT = "eagerkernel.saved_model"
VERSION = 1
JSON_FILE = "saved_model.json"
ARRAYS_FILE = "variables.safetensors"

# The stateful ops a saved program may call, by "module:qualname" of the function `stateful`
# wraps. Loading resolves only these names.
STATEFUL_CALLS = {
    "eagerkernel.runtime.core.variable:Variable.assign",
    "eagerkernel.runtime.core.variable:Variable.assign_add",
    "eagerkernel.runtime.core.variable:Variable.assign_sub",
    "eagerkernel.runtime.random:normal",
    "eagerkernel.runtime.random:uniform",
    "eagerkernel.runtime.random:truncated_normal",
    "eagerkernel.runtime.random:shuffle",
    "eagerkernel.runtime.random_generator:_read_and_skip",
    "eagerkernel.runtime.ops.nn:_dropout_keep",
    "eagerkernel.runtime.ops.pooling_fractional:_draw_sequences",
    "eagerkernel.runtime.ops.io_ops:read_file",
    "eagerkernel.runtime.ops.io_ops:write_file",
    "eagerkernel.runtime.ops.io_ops:matching_files",
    "eagerkernel.runtime.function.api:print_",
    # The same print_ under the key that saved models of the single-module function.py
    # carry (the package eagerkernel.runtime.function exports it under that name).
    "eagerkernel.runtime.function:print_",
}


def primitives() -> dict:
    """Every Primitive of the runtime, by its `Primitive.key` ("module:name")."""
    return Primitive.registry


def device_named(name: str) -> Device:
    """The device named ``name``, or the CPU when this machine lacks it (TensorFlow's soft
    placement)."""
    from ..core.device import get_device

    try:
        return get_device(name)
    except (ValueError, RuntimeError, InvalidArgumentError):  # a device this machine lacks:
        return CPU  # run on the CPU (TensorFlow's soft placement)


def is_local_io_device(value) -> bool:
    """Whether ``experimental_io_device`` (of `SaveOptions` / `LoadOptions`) names this
    process's host: None, or a device string of job ``localhost`` (``"/job:localhost"``, as
    TensorFlow's distribute/save_and_load tutorial passes). Files are always read and written
    by this process, so such a value asks for what happens anyway; any other device would
    need a remote worker, which eagerkernel does not have.
    """
    if value is None:
        return True
    return isinstance(value, str) and value.lower().split("/replica:")[0] == "/job:localhost"
