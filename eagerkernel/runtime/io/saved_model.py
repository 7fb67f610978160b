"""Saved models: a module's variables and traced graph functions, loadable without its Python
code (follows `tf.saved_model.save` / `tf.saved_model.load`; not TensorFlow's format).

A saved model is a directory:

- ``saved_model.json``: the format name and version, the variables (name, dtype, shape,
  trainable), and every function: its concrete functions (input specs) and their programs, as
  lists of primitive names with their parameters, variable reads, guards and the few stateful
  ops that can be named (variable assignments, random draws, dropout masks, ``ek.print``);
- ``variables.safetensors``: the variables' values, the programs' constants and array
  parameters.

Nothing in the files is code: loading looks up primitives and stateful ops by name in tables
of this runtime, and refuses any other name. Programs are those `ek.function` traced (see
`eagerkernel.runtime.function`), replayed the same way, so a loaded function gives bit for
bit the results of the original. A call whose guard takes a branch that was never traced
raises `InvalidArgumentError` (there is no Python function to trace it with).

A function whose ``input_signature`` leaves dimensions open (``TensorSpec([None, 4])``) is
also saved as a *template*: traced at a few sizes of the open dimensions, its programs compared
and fitted, so that the loaded function runs at any size of them, as TensorFlow's does (see
`saved_model_shapes`; the template is tried after the shapes the function was called with).
When the program changes with the sizes in a way no template follows (a Python loop over a
dimension, an unknown rank, a custom gradient), `save` warns and keeps the traced shapes only;
a function that was never called is then traced on zeros of its signature, taking an unknown
dimension as 1 and an unknown rank as a scalar. The variables and the random generator are put
back after every trace `save` makes, so saving changes no state.

Custom gradients (``SaveOptions(experimental_custom_gradients=True)``, TensorFlow's default):
for each concrete function that ran an `ek.custom_gradient`, `save` also traces its *gradient
program*: the function run under a `GradientTape` on zeros of its input shapes, then
``tape.gradient(outputs, inputs + trainable variables it reads, output_gradients=dys)``, with
the ``dys`` as further inputs (ones while tracing). The loaded function, called under a tape,
records one op whose gradient replays that program, so the hand-written gradient holds
after loading, as in TensorFlow.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import sys
import tempfile
import typing
import warnings

import numpy as np

from .. import nest
from ..core import dtypes
from ..core.device import CPU, Device
from ..core.tensor import Tensor, make
from ..core.variable import Variable
from ..data.structure import TensorSpec
from ..function import retracing
from ..function.concrete_function import ConcreteFunction
from ..function.polymorphic_function import Function
from ..function.program import Program
from ..function.tracing import TracedArg, TracedObject, TracedParam
from ..ops.indexing import IndexInput
from .checkpoint_format import c_order
from .saved_model_constants import *  # noqa: F403  (tf.saved_model's constants)
from .saved_model_constants import __all__ as _CONSTANTS
from .saved_model_format import (
    ARRAYS_FILE,
    FORMAT,
    JSON_FILE,
    STATEFUL_CALLS,
    VERSION,
    is_local_io_device,
    primitives,
)
from .saved_model_shapes import pinned_signature, polymorphic_entry

__all__ = ["LoadOptions", "SaveOptions", "load", "save", *_CONSTANTS]

# -- saving ------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, variables: list):
        self.variables = variables
        self.var_index = {id(v): k for k, v in enumerate(variables)}
        self.arrays: dict = {}

    def array(self, prefix: str, value) -> dict:
        key = f"{prefix}{len(self.arrays)}"
        a = np.asarray(value.get() if hasattr(value, "get") else value)
        if a.dtype.kind not in "biufc":
            raise ValueError(
                f"saved_model.save: cannot store a {a.dtype} array ({key}): saved programs "
                "hold numeric arrays only, so a function that takes or compares strings (a "
                "TextVectorization or StringLookup model's serve) cannot be saved."
            )
        self.arrays[key] = c_order(a)
        return {"array": key}

    def variable(self, v: Variable) -> int:
        k = self.var_index.get(id(v))
        if k is None:
            k = self.var_index[id(v)] = len(self.variables)
            self.variables.append(v)
        return k

    def value(self, x, where: str):
        """A parameter or template value as JSON."""
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if isinstance(x, TracedObject):
            raise ValueError(f"saved_model.save: {where}: passes an object between stateful ops.")
        if isinstance(x, TracedArg):
            return {"ref": _ref(x.ref)}
        if isinstance(x, TracedParam):
            return {"param": _ref(x.ref)}
        if isinstance(x, Variable):
            return {"variable": self.variable(x)}
        if isinstance(x, dtypes.DType):
            return {"dtype": x.name}
        if isinstance(x, np.dtype) or (isinstance(x, type) and issubclass(x, np.generic)):
            return {"np_dtype": np.dtype(x).str}
        if isinstance(x, Device):
            return {"device": x.name}
        if isinstance(x, (np.ndarray, np.generic)) or hasattr(x, "__cuda_array_interface__"):
            return self.array("param", x)
        if isinstance(x, slice):
            return {
                "slice": [
                    self.value(x.start, where),
                    self.value(x.stop, where),
                    self.value(x.step, where),
                ]
            }
        if x is Ellipsis:
            return {"ellipsis": True}
        if isinstance(x, IndexInput):  # a tensor's place in an indexing key
            return {"index_input": x.i}
        if x is sys.stdout or x is sys.stderr:
            return {"stream": "stdout" if x is sys.stdout else "stderr"}
        if isinstance(x, tuple):
            return {"tuple": [self.value(v, where) for v in x]}
        if isinstance(x, list):
            return [self.value(v, where) for v in x]
        if isinstance(x, dict):
            if not all(isinstance(k, str) for k in x):
                raise ValueError(f"saved_model.save: {where}: a dict with non-string keys.")
            return {"dict": {k: self.value(v, where) for k, v in x.items()}}
        raise ValueError(f"saved_model.save: {where}: cannot store {type(x).__name__} {x!r:.60}.")

    def program(self, program: Program, where: str) -> dict:
        if program.rebuild is not None:
            raise NotImplementedError(
                f"saved_model.save: {where} returns an ExtensionType; this format stores "
                "programs over dense tensors only. Return its fields as tensors."
            )
        ops = []
        for ins in program.ops:
            kind = ins[0]
            if kind == "op":
                _, prim, refs, params, outs, saved = ins
                key = prim.key
                if primitives().get(key) is not prim:
                    raise ValueError(f"saved_model.save: {where}: op {prim.name} has no name.")
                ops.append(
                    {
                        "op": key,
                        "in": [_ref(r) for r in refs],
                        "params": {
                            k: self.value(v, f"{where}: {prim.name}.{k}")
                            for k, v in (params or {}).items()
                        },
                        "out": outs if type(outs) is int else {"tuple": list(outs)},
                        "saved": saved,
                    }
                )
            elif kind == "read":
                ops.append({"read": self.variable(program.variables[ins[1]]), "out": ins[2]})
            elif kind == "guard":
                value = ins[3]
                stored = self.array("guard", value) if ins[2] == "array" else _scalar(value)
                ops.append({"guard": _ref(ins[1]), "kind": ins[2], "value": stored})
            else:
                _, fn, arg_t, out_t = ins
                key = f"{fn.__module__}:{fn.__qualname__}"
                if key not in STATEFUL_CALLS:
                    raise ValueError(
                        f"saved_model.save: {where} calls {fn.__qualname__}, a stateful op that "
                        "a saved model cannot replay (only variable assignments, random draws, "
                        "dropout and ek.print can be saved; optimizers and metrics cannot)."
                    )
                ops.append(
                    {
                        "call": key,
                        "args": self.value(arg_t, where),
                        "out": self.value(out_t, where),
                    }
                )
        consts = {}
        for ins in program.ops:
            for r in _refs_of(ins):
                if type(r) is tuple and r[0] == "c" and r[1] not in consts:
                    value, device = program.consts[r[1]]
                    consts[r[1]] = {**self.array("const", value), "device": device.name}
        for r in program.outputs:
            if r is not None and type(r) is tuple and r[0] == "c" and r[1] not in consts:
                value, device = program.consts[r[1]]
                consts[r[1]] = {**self.array("const", value), "device": device.name}
        slots = []
        for k, device in enumerate(program.devices):
            dt = program._dtypes[k] if k < len(program._dtypes) else None
            shape = program._shapes[k] if k < len(program._shapes) else ()
            slots.append(
                {
                    "device": None if device is None else device.name,
                    "dtype": None if dt is None else dt.name,
                    "shape": list(shape),
                }
            )
        return {
            "n_inputs": program.n_inputs,
            "ops": ops,
            "consts": {str(k): v for k, v in consts.items()},
            "slots": slots,
            "outputs": [None if r is None else _ref(r) for r in program.outputs],
            "structure": self.value(_structure(program.structure), where),
            "leaves": [
                self.value(leaf, where) if r is None else None
                for r, leaf in zip(program.outputs, program.py_leaves)
            ],
            "branches": [
                {
                    "guard": i,
                    "value": self.value(_unhash(v), where),
                    "program": self.program(p, where),
                }
                for (i, v), p in program.branches.items()
            ],
        }


def _scalar(value):
    if isinstance(value, complex):
        return {"complex": [value.real, value.imag]}
    if isinstance(value, float) and value != value:
        return {"nan": True}
    return value


def _unhash(value):
    if isinstance(value, tuple) and len(value) == 3 and isinstance(value[2], bytes):
        shape, dt, raw = value
        return np.frombuffer(raw, dtype=np.dtype(dt)).reshape(shape)
    return _scalar(value)


def _structure(structure):
    """The nesting with `_Leaf` markers (JSON keeps lists, tuples and string-keyed dicts)."""
    if isinstance(structure, (list, tuple)):
        items = [_structure(s) for s in structure]
        return tuple(items) if isinstance(structure, tuple) else items
    if isinstance(structure, dict):
        return {k: _structure(v) for k, v in structure.items()}
    return None  # a leaf


def _ref(r):
    return r if type(r) is int else {"c": r[1]}


def _refs_of(ins) -> list:
    kind = ins[0]
    if kind == "op":
        return list(ins[2]) + [v.ref for v in (ins[3] or {}).values() if isinstance(v, TracedParam)]
    if kind == "guard":
        return [ins[1]]
    if kind == "call":
        out: list = []
        for x in nest.flatten(ins[2]):
            if isinstance(x, TracedArg):
                out.append(x.ref)
        return out
    return []


def _functions_of(obj) -> dict:
    """The `ek.function`s of ``obj``: methods of its class (bound to it) and attributes."""
    found = {}
    for klass in reversed(type(obj).__mro__):
        for name, attr in vars(klass).items():
            if isinstance(attr, Function):
                found[name] = attr.__get__(obj, type(obj))
    for name, attr in getattr(obj, "__dict__", {}).items():
        if isinstance(attr, Function):
            found[name] = attr
    return found


class SaveOptions:
    """Options of `save` (follows `tf.saved_model.SaveOptions`).

    Args:
        experimental_custom_gradients: TensorFlow's default True saves the gradients of
            ``ek.custom_gradient`` functions; this format cannot, so `save` raises for a
            function that uses one unless this is False (then a loaded function
            differentiates through the ops the custom-gradient function ran, as TensorFlow
            does with False).
        experimental_io_device: None or the local host (``"/job:localhost"``), where this
            process does its I/O anyway.
        namespace_whitelist, save_debug_info, function_aliases,
            experimental_variable_policy: accepted with TensorFlow's defaults only.

    Raises:
        NotImplementedError: another value for an option this format has no use for.
    """

    _DEFAULTS: typing.ClassVar[dict] = {
        "namespace_whitelist": None,
        "save_debug_info": False,
        "function_aliases": None,
        "experimental_io_device": None,
        "experimental_variable_policy": None,
        "experimental_image_format": False,
        "experimental_skip_saver": False,
        "experimental_sharding_callback": None,
    }

    def __init__(self, experimental_custom_gradients: bool = True, **kwargs):
        for key, value in kwargs.items():
            if key not in self._DEFAULTS:
                raise TypeError(f"SaveOptions: unexpected keyword argument {key!r}.")
            if key == "experimental_io_device" and is_local_io_device(value):
                continue  # this host does the I/O in any case
            if value != self._DEFAULTS[key]:
                raise NotImplementedError(f"SaveOptions: {key}={value!r} is not supported.")
        self.experimental_custom_gradients = bool(experimental_custom_gradients)


def save(obj, export_dir, signatures=None, options=None) -> None:
    """Writes ``obj``'s variables and the programs of its traced `ek.function`s to the
    directory ``export_dir`` (follows `tf.saved_model.save`; our own format, not TF's).

    Args:
        obj: an `ek.Module`, Keras model, or any object with ``variables`` and
            `ek.function` methods or attributes. Each function is saved with every
            signature it has traced so far (call it, or `get_concrete_function`, first).
        export_dir: a directory, created or replaced whole (a crash leaves the old one).
        signatures: an `ek.function`, a `ConcreteFunction` or a dict of them by name, saved
            as ``loaded.signatures[name]`` (a single one as ``"serving_default"``). None: a
            built Keras model's call (inference, the batch open) is ``"serving_default"``, as
            TensorFlow saves it.
        options: a `SaveOptions` (None: TensorFlow's defaults).

    Raises:
        ValueError: a function has no trace, or calls a stateful op that cannot be saved
            (an optimizer, a metric), or a parameter that cannot be stored.
    """
    if options is not None and not isinstance(options, SaveOptions):
        raise TypeError(f"saved_model.save: options must be a SaveOptions, got {options!r}.")
    custom_gradients = True if options is None else options.experimental_custom_gradients
    functions = _functions_of(obj)
    default = getattr(obj, "_default_save_signature", None)  # a Keras model's call
    if signatures is None and default is not None:
        signature = default()
        signatures = None if signature is None else {"serving_default": signature}
    if signatures is not None:
        if not isinstance(signatures, dict):
            signatures = {"serving_default": signatures}
        sig_functions = {}
        for name, f in signatures.items():
            sig_functions[name] = f._function if isinstance(f, ConcreteFunction) else f
    else:
        sig_functions = {}
    variables = list(getattr(obj, "variables", None) or [])
    writer = _Writer([v for v in variables if isinstance(v, Variable)])
    for name, f in (signatures or {}).items():
        # A signature from get_concrete_function(specs) of a function never called (the
        # ones with an input_signature are traced below, as a template if need be).
        if (
            isinstance(f, ConcreteFunction)
            and f.program is None
            and f._function.input_signature is None
            and not any(c.program is not None for c in f._function.concrete_functions)
        ):
            with _state_kept(variables):
                _trace_concrete(f, name)
    saved_functions = {}
    for group, table in (("functions", functions), ("signatures", sig_functions)):
        for name, f in table.items():
            if not isinstance(f, Function):
                raise TypeError(f"saved_model.save: {name} is not an ek.function: {f!r}.")
            entries = [c for c in f.concrete_functions if c.program is not None]
            requested = getattr(f, "_composite_spec_requests", [])
            if requested:
                raise NotImplementedError(
                    f"saved_model.save: function {name} has a concrete function for "
                    f"{requested[0]!r}; this format stores programs over dense tensors only, "
                    "so ragged, sparse and ExtensionType signatures cannot be saved. Pass "
                    "the components (values, row_splits, the fields) as tensors."
                )
            for c in entries:
                if any(
                    type(x).__name__ in ("RaggedTensorSpec", "SparseTensorSpec")
                    for x in nest.flatten(c.structured_input_signature)
                ):
                    raise NotImplementedError(
                        f"saved_model.save: function {name} was traced with a RaggedTensor or "
                        "SparseTensor argument; this format stores programs over dense "
                        "tensors only. Pass the components (values, row_splits) as tensors."
                    )
            template = reason = None
            if f.input_signature is not None:
                with _state_kept(variables):
                    template, reason = _template_of(f, name, writer)
            if template is None and reason is not None and entries:
                warnings.warn(
                    f"saved_model.save: function {name}'s input_signature leaves dimensions "
                    "open, but its program is saved for the shapes it was called with only: "
                    f"{reason}.",
                    stacklevel=2,
                )
            if not entries and template is None and f.input_signature is not None:
                with _state_kept(variables):
                    _trace_from_signature(f, name, reason)
                entries = [c for c in f.concrete_functions if c.program is not None]
            if group == "signatures" and not entries and template is None:
                raise ValueError(
                    f"saved_model.save: signature {name!r} has no traced concrete function; "
                    "call it (or get_concrete_function with tensors) first."
                )
            saved = []
            for c in entries:
                entry = {
                    "inputs": writer.value(
                        _specs_json(c.structured_input_signature), f"{name} inputs"
                    ),
                    "program": writer.program(c.program, f"function {name}"),
                    "arg_names": _arg_names(f, c.structured_input_signature[0]),
                }
                if custom_gradients and c.program.custom_gradients:
                    with _state_kept(variables):
                        program, wrt = _gradient_program(f, c)
                    entry["gradient"] = {
                        "program": writer.program(program, f"gradient of function {name}"),
                        "variables": [writer.variable(v) for v in wrt],
                    }
                saved.append(entry)
            if template is not None:  # after the exact shapes: tried last at a call
                saved.append(template)
            saved_functions.setdefault(group, {})[name] = saved
    for k, v in enumerate(writer.variables):
        writer.arrays[f"variable{k}"] = c_order(
            v._value.get() if hasattr(v._value, "get") else v._value
        )
    paths = _variable_paths(obj)
    meta = {
        "format": FORMAT,
        "version": VERSION,
        "variables": [
            {
                "name": v._name,
                "trainable": v.trainable,
                "device": v._device.name,
                "path": paths.get(id(v)),
            }
            for v in writer.variables
        ],
        "functions": saved_functions.get("functions", {}),
        "signatures": saved_functions.get("signatures", {}),
    }
    _write(os.fspath(export_dir), meta, writer.arrays)


def _variable_paths(obj) -> dict:
    """``{id(variable): [attribute, ...]}``: a path from ``obj`` to each Variable it holds
    (a Module's attributes, list indices and dict keys, as `Module._flatten` walks them,
    the first without a private attribute; the direct attributes of any other object), for
    the loaded object's attributes."""
    from ..module import Module

    paths: dict = {}
    if isinstance(obj, Module):
        found = obj._flatten(predicate=lambda x: isinstance(x, Variable), with_path=True)
    else:
        found = (
            ((k,), v)
            for k, v in sorted(getattr(obj, "__dict__", {}).items())
            if isinstance(v, Variable)
        )
    for path, v in found:
        if not all(isinstance(p, (str, int)) for p in path):
            continue
        public = not any(isinstance(p, str) and p.startswith("_") for p in path)
        if id(v) not in paths or (public and not paths[id(v)][1]):
            paths[id(v)] = (list(path), public)  # a public path over a private one
    return {k: path for k, (path, _) in paths.items()}


class _state_kept:
    """Puts back the values of ``variables`` and the random generator's state on exit: a
    trace made by `save` changes no state."""

    def __init__(self, variables: list):
        self.variables = [v for v in variables if isinstance(v, Variable)]

    def __enter__(self):
        from .. import random as _random

        self.values = [(v, v._value) for v in self.variables]
        self.rng = _random.generator().bit_generator.state

    def __exit__(self, *exc) -> None:
        from .. import random as _random

        for v, value in self.values:
            v._value = value
        _random.generator().bit_generator.state = self.rng


def _zeros(spec: TensorSpec) -> Tensor:
    shape = () if spec.shape.rank is None else tuple(1 if d is None else d for d in spec.shape)
    if spec.dtype == dtypes.string:
        return make(np.full(shape, b"", dtype=object), CPU)
    return make(np.zeros(shape, dtype=spec.dtype._np), CPU)


def _dense_signature(f: Function, name: str) -> list:
    specs = nest.flatten(f.input_signature)
    if not all(isinstance(s, TensorSpec) for s in specs):
        raise NotImplementedError(
            f"saved_model.save: function {name} has a ragged or sparse input_signature; this "
            "format stores programs over dense tensors only. Pass the components (values, "
            "row_splits) as tensors."
        )
    return specs


def _template_of(f: Function, name: str, writer: _Writer) -> tuple:
    """``(entry, None)``: the saved entry of ``f``'s program for the open dimensions of its
    ``input_signature`` (a template that runs at any size of them, see
    `saved_model_shapes`); ``(None, None)`` when nothing is open; ``(None, reason)`` when
    the program depends on the sizes in a way no template expresses."""
    specs = _dense_signature(f, name)
    if not any(s.shape.rank is None or None in s.shape.as_list() for s in specs):
        return None, None

    def trace(values, scratch: _Writer) -> dict:
        fresh = Function(
            f.python_function, f.name, f.input_signature, f.reduce_retracing, f.jit_compile
        )
        with retracing.not_counted():
            program = fresh.get_concrete_function(*values).program
        if program.custom_gradients:
            raise NotImplementedError("it runs a custom gradient")
        return scratch.program(program, f"function {name}")

    template, symbols = polymorphic_entry(
        trace, f.input_signature, lambda: _scratch_writer(writer), writer
    )
    specs_tree = f.input_signature
    if template is None:  # again with the other dimensions at the sizes of f's calls
        calls = [c.structured_input_signature[0] for c in f.concrete_functions if c.program]
        pinned = pinned_signature(f.input_signature, calls)
        if pinned is None:
            return None, symbols  # the reason
        reason = symbols
        template, symbols = polymorphic_entry(
            trace, pinned, lambda: _scratch_writer(writer), writer
        )
        if template is None:
            return None, reason
        warnings.warn(
            f"saved_model.save: function {name}'s input_signature leaves dimensions open in "
            f"a way no saved program follows ({reason}); it is saved for {list(pinned)}: the "
            "batch dimension open, the others at the sizes it was called with.",
            stacklevel=3,
        )
        specs_tree = pinned
    signature = (tuple(specs_tree), {})
    entry = {
        "inputs": writer.value(_specs_json(signature), f"{name} inputs"),
        "template": {"symbols": symbols, "program": template},
        "arg_names": _arg_names(f, signature[0]),
    }
    return entry, None


def _scratch_writer(writer: _Writer) -> _Writer:
    """A writer of one trace's program: arrays of its own, the variables (and their
    indices) shared with ``writer``, so that a variable only a trace reads gets one index."""
    scratch = _Writer(writer.variables)
    scratch.var_index = writer.var_index
    return scratch


def _trace_from_signature(f: Function, name: str, reason: str | None) -> None:
    """Traces ``f`` on zeros of its ``input_signature`` (see the module docstring)."""
    specs = _dense_signature(f, name)
    _warn_open_shapes(
        specs,
        f"function {name} was never called and its input_signature",
        f" in a way no saved program follows ({reason})",
    )
    values = nest.pack_sequence_as(f.input_signature, [_zeros(s) for s in specs])
    f(*values)


def _warn_open_shapes(specs: list, what: str, why: str = "") -> None:
    """Warns that ``what`` (never called) is saved for the shapes of `_zeros` of ``specs``
    when a spec leaves a dimension or the rank open."""
    open_shapes = [s for s in specs if s.shape.rank is None or None in s.shape.as_list()]
    if open_shapes:
        warnings.warn(
            f"saved_model.save: {what} leaves shapes open ({open_shapes}){why}; it is traced "
            f"and saved for shapes {[tuple(_zeros(s).shape) for s in specs]} (an unknown "
            "dimension as 1, an unknown rank as a scalar). Call it with inputs of the shapes "
            "you need before saving to save those.",
            stacklevel=4,
        )


def _trace_concrete(c: ConcreteFunction, name: str) -> None:
    """Traces a signature given as ``f.get_concrete_function(TensorSpec(...))`` (traced at its
    first call here, where TensorFlow traced it when it was made) on zeros of its specs; an
    open dimension is taken as 1 and an unknown rank as a scalar, with a warning."""
    args, kwargs = c.structured_input_signature
    specs = [s for s in nest.flatten((args, kwargs)) if isinstance(s, TensorSpec)]
    _warn_open_shapes(
        specs, f"signature {name} is a concrete function that was never called, whose specs"
    )
    zeros = nest.map_structure(lambda s: _zeros(s) if isinstance(s, TensorSpec) else s, args)
    kw = nest.map_structure(lambda s: _zeros(s) if isinstance(s, TensorSpec) else s, kwargs)
    c(*zeros, **kw)


def _gradient_program(f: Function, c: ConcreteFunction) -> tuple:
    """``(program, variables)``: the gradient program of one concrete function (see the module
    docstring): inputs its tensor inputs then one ``dy`` per tensor output; outputs the
    gradients of the inputs, then of ``variables`` (the trainable ones it reads)."""
    from ..core.tape import GradientTape, UnconnectedGradients
    from ..ops.array_ops import identity

    args_specs, kwargs_specs = c.structured_input_signature
    flat_specs = nest.flatten((args_specs, kwargs_specs))
    program = c.program
    variables = [v for v in program.variables if v.trainable]

    def forward_backward(xs, dys):
        with GradientTape(watch_accessed_variables=False) as tape:
            for x in (*xs, *variables):
                if x.dtype.is_floating or x.dtype.is_complex:  # no warning for integer inputs
                    tape.watch(x)
            # The function gets copies: an output that is an input itself (a custom gradient
            # returning its argument) must not be mistaken for the source.
            it = iter([identity(x) for x in xs])
            flat = [next(it) if isinstance(s, TensorSpec) else s for s in flat_specs]
            args, kwargs = nest.pack_sequence_as((args_specs, kwargs_specs), flat)
            result = f.python_function(*args, **kwargs)
        outs = [t for t in nest.flatten(result) if isinstance(t, Tensor)]
        outs = [t for t in outs if not isinstance(t, Variable)]
        return tape.gradient(
            outs,
            [*xs, *variables],
            output_gradients=list(dys),
            unconnected_gradients=UnconnectedGradients.ZERO,
        )

    xs = [_zeros(s) for s in flat_specs if isinstance(s, TensorSpec)]
    dys = []
    for r in program.outputs:
        if r is None:
            continue
        value = program.consts[r[1]][0] if type(r) is not int else None
        shape = program._shapes[r] if type(r) is int else np.shape(value)
        dtype = program._dtypes[r] if type(r) is int else dtypes.as_dtype(value.dtype)
        dys.append(make(np.ones(shape, dtype=dtype._np), CPU))
    traced = Function(forward_backward, f"{f.name}_gradient")
    return traced.get_concrete_function(xs, dys).program, variables


def _arg_names(f: Function, args: tuple) -> list:
    """The names a signature's positional arguments are called by (keyword arguments of the
    loaded signature): a `TensorSpec`'s name when it has one, else the Python parameter's,
    else ``args_k`` (TensorFlow's rule)."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        signature = inspect.signature(f.python_function).parameters.values()
        params = [p.name for p in signature if p.kind in kinds]
    except (TypeError, ValueError):
        params = []
    names = []
    for k, a in enumerate(args):
        spec_name = getattr(a, "name", None) if isinstance(a, TensorSpec) else None
        names.append(spec_name or (params[k] if k < len(params) else f"args_{k}"))
    return names


def _specs_json(specs):
    args, kwargs = specs
    return {"args": _spec_tree(args), "kwargs": _spec_tree(kwargs)}


def _spec_tree(x):
    if isinstance(x, TensorSpec):
        shape = None if x.shape.rank is None else list(x.shape.as_list())
        return {"spec": {"shape": shape, "dtype": x.dtype.name}}
    if isinstance(x, tuple):
        return tuple(_spec_tree(v) for v in x)
    if isinstance(x, list):
        return [_spec_tree(v) for v in x]
    if isinstance(x, dict):
        return {k: _spec_tree(v) for k, v in x.items()}
    return x


def _write(export_dir: str, meta: dict, arrays: dict) -> None:
    from safetensors.numpy import save_file

    parent = os.path.dirname(os.path.abspath(export_dir))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".saved_model-", dir=parent)
    try:
        save_file(arrays, os.path.join(tmp, ARRAYS_FILE))
        with open(os.path.join(tmp, JSON_FILE), "w") as f:
            json.dump(meta, f)
            f.flush()
            os.fsync(f.fileno())
        old = None
        if os.path.exists(export_dir):
            old = tempfile.mkdtemp(prefix=".saved_model-old-", dir=parent)
            os.rmdir(old)
            os.replace(export_dir, old)
        os.replace(tmp, export_dir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


from .saved_model_load import LoadOptions, load  # noqa: E402 (loading builds on the format)
