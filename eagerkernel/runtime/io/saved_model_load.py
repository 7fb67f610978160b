"""`ek.saved_model.load` (follows `tf.saved_model.load`): reads a directory written by
`saved_model.save` and rebuilds the object tree, its Variables (under their attribute paths)
and its functions, whose saved programs replay without the Python code that traced them.
"""

from __future__ import annotations

import importlib
import json
import os
import sys

import numpy as np

from .. import nest
from ..core import context as _context
from ..core import dtypes
from ..core.context import ACTIVE
from ..core.device import CPU
from ..core.device import device as device_scope
from ..core.dispatch import Primitive
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from ..core.variable import Variable
from ..data.structure import TensorSpec
from ..function.guards import GuardMiss
from ..function.program import Program
from ..function.signature import bind_by_name, hashable_value
from ..function.tracing import TracedArg, TracedParam
from ..ops.indexing import IndexInput
from .saved_model_format import (
    ARRAYS_FILE,
    FORMAT,
    JSON_FILE,
    STATEFUL_CALLS,
    VERSION,
    device_named,
    is_local_io_device,
    primitives,
)
from .saved_model_shapes import instantiate

__all__ = ["LoadOptions", "load"]


class LoadOptions:
    """Options of `load` (follows `tf.saved_model.LoadOptions`); only the defaults, which
    ask for nothing, are accepted, and ``experimental_io_device="/job:localhost"`` (the local
    host, where this process reads anyway).

    Raises:
        NotImplementedError: any other value."""

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            if key == "experimental_io_device" and is_local_io_device(value):
                continue
            if value not in (None, False):
                raise NotImplementedError(f"LoadOptions: {key}={value!r} is not supported.")


# -- loading ----------------------------------------------------------------------------------


class _Reader:
    def __init__(self, path: str, arrays: dict, variables: list):
        self.path = path
        self.arrays = arrays
        self.variables = variables
        self.prims = primitives()

    def fail(self, message: str) -> ValueError:
        return ValueError(f"saved_model.load: {self.path}: {message}")

    def array(self, obj) -> np.ndarray:
        key = obj["array"]
        if key not in self.arrays:
            raise self.fail(f"array {key!r} is missing from {ARRAYS_FILE}.")
        return self.arrays[key]

    def value(self, x):
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        if isinstance(x, list):
            return [self.value(v) for v in x]
        if not isinstance(x, dict) or len(x) == 0:
            raise self.fail(f"unreadable value {x!r:.60}.")
        if "ref" in x:
            return TracedArg(_unref(x["ref"]))
        if "param" in x:
            return TracedParam(_unref(x["param"]))
        if "variable" in x:
            k = x["variable"]
            if not isinstance(k, int) or not 0 <= k < len(self.variables):
                raise self.fail(f"variable index {k!r} out of range.")
            return self.variables[k]
        if "dtype" in x:
            return dtypes.as_dtype(x["dtype"])
        if "np_dtype" in x:
            return np.dtype(x["np_dtype"])
        if "device" in x and len(x) == 1:
            return device_named(x["device"])
        if "array" in x:
            return self.array(x)
        if "slice" in x:
            return slice(*[self.value(v) for v in x["slice"]])
        if "ellipsis" in x:
            return Ellipsis
        if "index_input" in x:
            return IndexInput(int(x["index_input"]))
        if "stream" in x:
            return sys.stdout if x["stream"] == "stdout" else sys.stderr
        if "tuple" in x:
            return tuple(self.value(v) for v in x["tuple"])
        if "dict" in x:
            return {k: self.value(v) for k, v in x["dict"].items()}
        if "complex" in x:
            return complex(*x["complex"])
        if "nan" in x:
            return float("nan")
        raise self.fail(f"unreadable value {x!r:.60}.")

    def program(self, p: dict) -> Program:
        try:
            slots = p["slots"]
            devices = [None if s["device"] is None else device_named(s["device"]) for s in slots]
            shapes = [tuple(s["shape"]) for s in slots]
            dts = [None if s["dtype"] is None else dtypes.as_dtype(s["dtype"]) for s in slots]
            consts_json = p["consts"]
            n_consts = 1 + max((int(k) for k in consts_json), default=-1)
            consts = [(None, CPU)] * n_consts
            for k, c in consts_json.items():
                consts[int(k)] = (self.array(c), device_named(c["device"]))
            variables = []
            var_index = {}
            ops = []
            for op in p["ops"]:
                if "op" in op:
                    prim = self.prims.get(op["op"])
                    if prim is None:
                        raise self.fail(f"unknown primitive {op['op']!r}.")
                    outs = op["out"]
                    outs = tuple(outs["tuple"]) if isinstance(outs, dict) else int(outs)
                    params = {k: self.value(v) for k, v in op["params"].items()}
                    refs = tuple(_unref(r) for r in op["in"])
                    ops.append(("op", prim, refs, params or None, outs, op["saved"]))
                elif "read" in op:
                    v = self.value({"variable": op["read"]})
                    if id(v) not in var_index:
                        var_index[id(v)] = len(variables)
                        variables.append(v)
                    ops.append(("read", var_index[id(v)], int(op["out"])))
                elif "guard" in op:
                    kind = op["kind"]
                    value = self.value(op["value"])
                    ops.append(("guard", _unref(op["guard"]), kind, value))
                elif "call" in op:
                    key = op["call"]
                    if key not in STATEFUL_CALLS:
                        raise self.fail(f"unknown stateful op {key!r}.")
                    ops.append(
                        ("call", _resolve(key), self.value(op["args"]), self.value(op["out"]))
                    )
                else:
                    raise self.fail(f"unreadable instruction {op!r:.60}.")
            outputs = [None if r is None else _unref(r) for r in p["outputs"]]
            program = Program(
                ops, outputs, int(p["n_inputs"]), variables, consts, devices, shapes, dts
            )
            program.structure = self.value(p["structure"])
            program.py_leaves = [self.value(v) for v in p["leaves"]]
            for b in p["branches"]:
                value = self.value(b["value"])
                key = (int(b["guard"]), hashable_value(value))
                program.branches[key] = self.program(b["program"])
            return program
        except (KeyError, TypeError, IndexError) as exc:
            raise self.fail(f"a program is damaged ({type(exc).__name__}: {exc}).") from None


def _unref(r):
    if isinstance(r, int):
        return r
    if isinstance(r, dict) and "c" in r:
        return ("c", int(r["c"]))
    raise ValueError(f"saved_model.load: unreadable reference {r!r:.60}.")


def _resolve(key: str):
    module, qualname = key.split(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return getattr(obj, "__wrapped__", obj)


class LoadedFunction:
    """A function of a loaded saved model: its concrete functions' programs, replayed as
    `ek.function` replays them; called under a tape, op by op through the dispatcher so
    the tape can differentiate it."""

    def __init__(self, name: str, entries: list):
        self.name = name
        self._entries = entries  # [(flat input specs, args structure, Program)]

    def __repr__(self) -> str:
        return f"<saved_model function {self.name}: {len(self._entries)} signature(s)>"

    @property
    def concrete_functions(self) -> list:
        return [specs for specs, *_ in self._entries]

    @property
    def structured_outputs(self):
        """The outputs' structure with a `TensorSpec` per tensor (follows a TensorFlow
        signature's ``structured_outputs``).

        Raises:
            ValueError: the function was saved with several concrete functions (the outputs
                differ between them: ask ``concrete_functions`` instead).
        """
        if len(self._entries) != 1:
            raise ValueError(
                f"{self.name}: structured_outputs is that of one concrete function; this one "
                f"was saved with {len(self._entries)}."
            )
        return self._entries[0][2].output_specs()

    def __call__(self, *args, **kwargs):
        flat = nest.flatten((args, kwargs))
        tensors = []
        for x in flat:
            if isinstance(x, (Tensor, np.ndarray, float, int)) and not isinstance(x, bool):
                tensors.append(x if isinstance(x, Tensor) else None)
        for specs, _, program, gradient in self._entries:
            if isinstance(program, ProgramTemplate):
                converted, program = program.match(flat)
            else:
                converted = _match(flat, specs)
            if converted is not None:
                if gradient is not None and ACTIVE and _context.context().recorders:
                    return self._run_with_gradient(program, gradient, converted)
                return self._run(program, converted)
        raise InvalidArgumentError(
            None,
            self.name,
            f"{self.name}: no saved concrete function matches the arguments "
            f"{[_describe_arg(x) for x in flat]}; saved: "
            f"{[[repr(s) for s in specs] for specs, *_ in self._entries]}.",
        )

    def _run_with_gradient(self, program: Program, gradient: tuple, tensors: list):
        """Runs the forward program unobserved and records one op whose VJP replays the
        saved gradient program (the function's custom gradients)."""
        from ..core.dispatch import defjointvjp, record

        gprogram, variables = gradient
        with _context.suspended():
            result = self._run(program, tensors, observed=False)
        flat = nest.flatten(result)
        outs = [t for t in flat if isinstance(t, Tensor) and not isinstance(t, Variable)]
        if not outs:
            return result
        n_in = len(tensors)

        def vjp(g, ans, *xs):
            dys = g if type(g) is tuple else (g,)
            dys = [
                make(np.zeros(o._value.shape, o._value.dtype), o._device) if d is None else d
                for d, o in zip(dys, outs)
            ]
            grads = nest.flatten(self._run(gprogram, [*xs[:n_in], *dys]))
            return tuple(grads[: n_in + len(variables)])

        multi = len(outs) > 1
        prim = Primitive(f"SavedFunction:{self.name}", None, n_out=0 if multi else 1)
        defjointvjp(prim, vjp)
        record(prim, (*tensors, *variables), tuple(outs) if multi else outs[0])
        return result

    def _run(self, program: Program, tensors: list, observed: bool | None = None):
        if observed is None:
            observed = bool(ACTIVE and _context.context().recorders)
        while True:
            try:
                if observed:
                    values = program.run_observed(tensors)
                else:
                    values = program.run([t._value for t in tensors])
                break
            except GuardMiss as miss:
                nxt = program.branches.get((miss.index, hashable_value(miss.value)))
                if nxt is None:
                    raise InvalidArgumentError(
                        None,
                        self.name,
                        f"{self.name}: the arguments take a branch (guard {miss.index} gave "
                        f"{miss.value!r:.60}) that was not traced before saving.",
                    ) from None
                program = nxt
        flat = []
        for r, value, leaf in zip(program.outputs, values, program.py_leaves):
            if r is None:
                flat.append(leaf)
            elif isinstance(value, Tensor):
                flat.append(value)
            elif type(r) is int:
                flat.append(make(value, program.devices[r]))
            else:
                flat.append(make(value, program.consts[r[1]][1]))
        return nest.pack_sequence_as(program.structure, flat)


class LoadedSignature(LoadedFunction):
    """A loaded signature (``loaded.signatures[name]``): called with its tensors
    positionally or by their names, it returns a dict of outputs, as TensorFlow's
    signatures do: a dict result as is, any other result's flat tensors as ``output_0``,
    ``output_1``, ..."""

    def __init__(self, name: str, entries: list, arg_names: list | None):
        super().__init__(name, entries)
        self._arg_names = list(arg_names or [])

    def __call__(self, *args, **kwargs):
        """Runs the signature on its tensors (positionally or by name) and returns the
        outputs' dict.

        Raises:
            TypeError: an unknown, repeated or missing argument (see `bind_by_name`).
            InvalidArgumentError: tensors no saved program takes.
        """
        if self._arg_names:
            given = bind_by_name(self.name, self._arg_names, args, kwargs)
            args = tuple(given[n] for n in self._arg_names)
        return _output_dict(super().__call__(*args))

    @property
    def structured_outputs(self):
        """The outputs' dict with a `TensorSpec` per tensor (see `LoadedFunction`)."""
        specs = _output_dict(super().structured_outputs)
        return {  # each spec named by its key, as TensorFlow's signatures name them
            k: TensorSpec(v.shape, v.dtype, name=k) if type(v) is TensorSpec else v
            for k, v in specs.items()
        }


def _output_dict(result) -> dict:
    if isinstance(result, dict):
        return result
    return {f"output_{k}": v for k, v in enumerate(nest.flatten(result))}


class ProgramTemplate:
    """A saved program for the open dimensions of an input signature: `match` finds a
    call's sizes and gives the program for them, made once per sizes (see
    `saved_model_shapes`)."""

    def __init__(self, reader: _Reader, saved: dict, specs: list):
        self._reader = reader
        self._template = saved["program"]
        self._symbols = [[tuple(d) for d in dims] for dims in saved["symbols"]]
        self._specs = specs
        self._programs: dict = {}

    def program(self, sizes: tuple) -> Program:
        """The program at ``sizes`` (one per symbol).

        Raises:
            InvalidArgumentError: the template gives no program at these sizes.
        """
        program = self._programs.get(sizes)
        if program is None:
            arrays = dict(self._reader.arrays)
            try:
                form = instantiate(self._template, sizes, arrays)
            except ValueError as exc:
                raise InvalidArgumentError(
                    None, "saved_model", f"saved_model: no program for these sizes: {exc}"
                ) from None
            reader = _Reader(self._reader.path, arrays, self._reader.variables)
            program = self._programs[sizes] = reader.program(form)
        return program

    def match(self, flat: list) -> tuple:
        """``(tensors, program)`` for a call's flat arguments, or ``(None, None)`` when they
        do not fit the signature (the dimensions of one symbol must agree)."""
        if len(flat) != len(self._specs):
            return None, None
        out = []
        for x, s in zip(flat, self._specs):
            if isinstance(s, TensorSpec):
                if not isinstance(x, Tensor):
                    try:
                        x = make(np.asarray(x, dtype=s.dtype._np), CPU)
                    except (TypeError, ValueError):
                        return None, None
                if not s.is_compatible_with(x):
                    return None, None
            elif x != s:
                return None, None
            out.append(x)
        sizes = []
        for dims in self._symbols:
            found = {int(out[i]._value.shape[axis]) for i, axis in dims}
            if len(found) != 1:
                return None, None
            sizes.append(found.pop())
        return [x for x in out if isinstance(x, Tensor)], self.program(tuple(sizes))

    def output_specs(self):
        """The outputs' structure with a `TensorSpec` per tensor, ``None`` where a dimension
        follows the open sizes."""
        from .saved_model_shapes import BASE, CHANGED

        n = len(self._symbols)
        a = nest.flatten(self.program((BASE,) * n).output_specs())
        b = nest.flatten(self.program((CHANGED,) * n).output_specs())
        flat = []
        for x, y in zip(a, b):
            if isinstance(x, TensorSpec) and x.shape.rank is not None:
                dims = [d if d == e else None for d, e in zip(x.shape.as_list(), y.shape)]
                x = TensorSpec(dims, x.dtype, x.name)
            flat.append(x)
        structure = self.program((BASE,) * n).output_specs()
        return nest.pack_sequence_as(structure, flat)


def _describe_arg(x) -> str:
    if isinstance(x, Tensor):
        return repr(TensorSpec(tuple(x._value.shape), x.dtype))
    return repr(x)


def _match(flat: list, specs: list):
    if len(flat) != len(specs):
        return None
    out = []
    for x, s in zip(flat, specs):
        if isinstance(s, TensorSpec):
            if not isinstance(x, Tensor):
                try:
                    x = make(np.asarray(x, dtype=s.dtype._np), CPU)
                except (TypeError, ValueError):
                    return None
            if not s.is_compatible_with(x) or tuple(x._value.shape) != tuple(s.shape.as_list()):
                return None
            out.append(x)
        elif x != s:
            return None
    return out


class _LoadedObject:
    """An object of the saved object's tree on the path to a Variable (``loaded.dense``),
    holding its attributes; list indices and dict keys are items (``loaded.blocks[0]``)."""

    def __init__(self):
        self._items: dict = {}

    def __getitem__(self, key):
        return self._items[key]

    def __repr__(self) -> str:
        names = sorted(k for k in vars(self) if not k.startswith("_")) or sorted(self._items)
        return f"<loaded object: {', '.join(map(str, names))}>"


def _as_lists(node: _LoadedObject) -> None:
    """Makes every child of ``node`` whose items are indexed 0..n-1 (a saved list) a list."""
    for key, child in list(node._items.items()):
        if not isinstance(child, _LoadedObject):
            continue
        _as_lists(child)
        keys = list(child._items)
        if keys and all(type(k) is int for k in keys) and sorted(keys) == list(range(len(keys))):
            value = [child._items[k] for k in range(len(keys))]
            node._items[key] = value
            if isinstance(key, str) and getattr(node, key, None) is child:
                setattr(node, key, value)


_LOADED_NAMES = frozenset({"variables", "trainable_variables", "signatures"})


class _Loaded(_LoadedObject):
    """What `load` returns: the saved variables and functions, as attributes; each Variable
    also under its attribute path in the saved object (``loaded.v``, ``loaded.dense.kernel``),
    as TensorFlow's loaded objects keep the object graph."""

    def __init__(self, path: str, variables: list, functions: dict, signatures: dict, paths=None):
        super().__init__()
        self._path = path
        self.variables = variables
        self.trainable_variables = [v for v in variables if v.trainable]
        self.signatures = signatures
        for v, where in zip(variables, paths or [None] * len(variables)):
            if where:
                self._place(list(where), v)
        _as_lists(self)
        for name, f in functions.items():
            setattr(self, name, f)
        self._functions = functions

    def _place(self, path: list, value) -> None:
        # A path does not tell an attribute from a dict key: a name is both (loaded.dense,
        # loaded.blocks[1]["a"] and loaded.blocks[1].a); an index is an item only.
        node = self
        for k, step in enumerate(path):
            last = k == len(path) - 1
            child = value if last else node._items.get(step)
            if not last and not isinstance(child, _LoadedObject):
                child = _LoadedObject()
            node._items[step] = child
            if (
                isinstance(step, str)
                and step.isidentifier()
                and not step.startswith("_")
                and not (node is self and step in _LOADED_NAMES)
            ):
                setattr(node, step, child)
            node = child

    def __call__(self, *args, **kwargs):
        f = self._functions.get("__call__")
        if f is None:
            raise TypeError(f"The saved model at {self._path} has no __call__ function.")
        return f(*args, **kwargs)

    def __repr__(self) -> str:
        return (
            f"<loaded saved model {self._path}: {len(self.variables)} variables, "
            f"functions {sorted(self._functions)}>"
        )


def load(export_dir, tags=None, options=None):
    """Loads a saved model written by `save` (follows `tf.saved_model.load`).

    Returns:
        An object with ``variables``, ``trainable_variables`` (new Variables holding the
        saved values: they train like any other), each saved function as an attribute (and
        ``obj(...)`` for ``__call__``), and ``signatures``.

    Raises:
        FileNotFoundError: no saved model at ``export_dir``.
        ValueError: a damaged file, an unknown format version, primitive or stateful op;
            the message names the file.
    """
    if options is not None and not isinstance(options, LoadOptions):
        raise TypeError(f"saved_model.load: options must be a LoadOptions, got {options!r}.")
    path = os.fspath(export_dir)
    meta_path = os.path.join(path, JSON_FILE)
    arrays_path = os.path.join(path, ARRAYS_FILE)
    for p in (meta_path, arrays_path):
        if not os.path.isfile(p):
            raise FileNotFoundError(f"saved_model.load: {p} does not exist.")
    try:
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"saved_model.load: {meta_path} is damaged: {exc}.") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ValueError(f"saved_model.load: {meta_path} is not an eagerkernel saved model.")
    if meta.get("version") != VERSION:
        raise ValueError(
            f"saved_model.load: {meta_path} has format version {meta.get('version')!r}; this "
            f"eagerkernel reads version {VERSION}."
        )
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    try:
        arrays = load_file(arrays_path)
    except (SafetensorError, OSError, ValueError) as exc:
        raise ValueError(f"saved_model.load: {arrays_path} is damaged: {exc}.") from None
    reader = _Reader(meta_path, arrays, [])
    try:
        for k, v in enumerate(meta["variables"]):
            key = f"variable{k}"
            if key not in arrays:
                raise reader.fail(f"variable {v['name']!r} is missing from {ARRAYS_FILE}.")
            with device_scope(device_named(v["device"]).name):
                reader.variables.append(
                    Variable(arrays[key].copy(), trainable=bool(v["trainable"]), name=v["name"])
                )
        groups = {}
        for group in ("functions", "signatures"):
            table = {}
            for name, entries in meta[group].items():
                loaded = []
                for e in entries:
                    specs_tree = reader.value(e["inputs"])
                    specs = _specs_from(specs_tree)
                    gradient = None
                    if "gradient" in e:  # saved models before it have none
                        wrt = [reader.value({"variable": k}) for k in e["gradient"]["variables"]]
                        gradient = (reader.program(e["gradient"]["program"]), wrt)
                    if "template" in e:  # open dimensions (see saved_model_shapes)
                        program = ProgramTemplate(reader, e["template"], specs)
                    else:
                        program = reader.program(e["program"])
                    loaded.append((specs, specs_tree, program, gradient))
                if group == "signatures":
                    names = entries[0].get("arg_names") if entries else None
                    table[name] = LoadedSignature(name, loaded, names)
                else:
                    table[name] = LoadedFunction(name, loaded)
            groups[group] = table
    except (KeyError, TypeError) as exc:
        raise reader.fail(f"damaged ({type(exc).__name__}: {exc}).") from None
    paths = [v.get("path") for v in meta["variables"]]
    return _Loaded(path, reader.variables, groups["functions"], groups["signatures"], paths)


def _specs_from(tree) -> list:
    """The flat input specs of ``{"args": ..., "kwargs": ...}`` as `TensorSpec`s and values."""

    def build(x):
        if isinstance(x, dict) and "spec" in x:
            return TensorSpec(x["spec"]["shape"], dtypes.as_dtype(x["spec"]["dtype"]))
        if isinstance(x, dict) and "dict" in x:
            return {k: build(v) for k, v in x["dict"].items()}
        if isinstance(x, dict):
            return {k: build(v) for k, v in x.items()}
        if isinstance(x, tuple):
            return tuple(build(v) for v in x)
        if isinstance(x, list):
            return [build(v) for v in x]
        return x

    args = build(tree["args"])
    kwargs = build(tree["kwargs"])
    return nest.flatten((args, kwargs))
