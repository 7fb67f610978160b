"""Object-based checkpoints (follows `tf.train.Checkpoint`): atomic, checksummed, no pickle.

A `Checkpoint` saves the Variables reachable from the objects given to it, each keyed by its
*object path*: the attribute names leading to it, as TensorFlow names them.

- ``Checkpoint(model=m, optimizer=opt, step=v)``: ``model``, ``optimizer``, ``step``.
- A layer's weights made by `add_weight` use their short name (``model/dense/kernel``);
  layers, Modules, Variables, optimizers and metrics held in attributes use the attribute
  name, in lists ``attr/0`` and in dicts ``attr/key``: a plain `ek.Module`'s Variables are
  ``model/dense_1/w``, as TensorFlow keys them. A `Sequential` model's layers are
  ``layer-0``, ``layer-1``, ... (``model/layer-0/kernel``). An object reachable twice is
  saved once, under the first path found (depth first, attribute order).
- Optimizers: ``optimizer/iter`` (the step count), ``optimizer/learning_rate``; a slot
  variable is saved under its variable's path: ``model/layer-0/kernel/.OPTIMIZER_SLOT/
  optimizer/m`` (TensorFlow's naming). Metrics: ``metric/total``, ``metric/count``.
- The `Checkpoint`'s own counter of `save` calls: ``save_counter``.

The file format (safetensors arrays plus a JSON object graph, the state file, atomic writes,
checksums) is documented in `eagerkernel.runtime.io.checkpoint_format`.

Restoring
---------
Reading checks every array's checksum and raises `CheckpointError` (a ValueError) naming the
file and the object path. `restore` is all-or-nothing: every value is validated against its
variable (shape and dtype) before any variable is assigned.

Values for variables that do not exist yet (a model not built, a layer added to a
`Sequential` later, an optimizer without slots) are kept and assigned when the variables
are created (*deferred restoration*, as TensorFlow does): a layer's weight when `add_weight`
creates it, other variables of a layer and its new sublayers after the layer's building
call, a plain Module's Variable when it is assigned to the Module's attribute, a slot variable
when the optimizer creates it. The restoration observes creation through the documented hooks
`Layer.variable_observers`, `Module.attribute_observers` and `Optimizer.slot_observers`,
holds every object weakly (it keeps neither the `Checkpoint` nor a layer alive, and goes on
after the `Checkpoint` object is deleted), and unregisters once no object it waits for is
left. Restoring the same objects again replaces the values still waiting: the newest win.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import weakref

import numpy as np

from ..core.variable import Variable
from ..distribute import context as distribute_context
from ..keras.layers.base import Layer
from ..keras.metrics import Metric
from ..keras.optimizers.base import Optimizer
from ..module import Module, name_scope
from .checkpoint_format import FORMAT as FORMAT
from .checkpoint_format import FORMAT_VERSION as FORMAT_VERSION
from .checkpoint_format import (
    STATE_FILE,
    CheckpointError,
    CheckpointNotFoundError,
    atomic_write,
    data_file,
    encode,
    latest_checkpoint,
    list_variables,
    load_checkpoint_arrays,
    read_checkpoint,
    read_state,
    write_state,
)

__all__ = [
    "Checkpoint",
    "CheckpointError",
    "CheckpointManager",
    "CheckpointNotFoundError",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint_arrays",
]

_SLOT = ".OPTIMIZER_SLOT"

# -- object graph ------------------------------------------------------------------------------


def _is_optimizer(obj) -> bool:
    return hasattr(obj, "_slot_items") and hasattr(obj, "_iterations")


def _trackable(obj) -> bool:
    return isinstance(obj, (Variable, Module, Metric, Checkpoint)) or _is_optimizer(obj)


def _short(variable: Variable, owner_name: str) -> str:
    name = variable._name
    prefix = f"{owner_name}/"
    return name[len(prefix) :] if name.startswith(prefix) else name


def _attribute_children(name: str, value, out: list) -> None:
    if _trackable(value):
        out.append((name, value))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _attribute_children(f"{name}/{i}", item, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            _attribute_children(f"{name}/{key}", item, out)


def _children(obj) -> list:
    """``[(edge name, child)]`` of one object in the graph, in a stable order."""
    out: list = []
    if isinstance(obj, Checkpoint):
        for name, child in obj._objects.items():
            _attribute_children(name, child, out)
        if obj._save_counter is not None:
            out.append(("save_counter", obj._save_counter))
    elif isinstance(obj, Variable):
        pass
    elif _is_optimizer(obj):
        out.append(("iter", obj._iterations))
        lr = getattr(obj, "_learning_rate", None)
        if isinstance(lr, Variable):
            out.append(("learning_rate", lr))
    elif isinstance(obj, Metric):
        out.extend((_short(v, obj.name), v) for v in obj._variables)
    elif isinstance(obj, Layer):
        used: set = set()
        names = getattr(obj, "_weight_names", {})
        for v in obj._tracked:
            name = names.get(id(v)) or _short(v, obj.name)
            base, n = name, 1
            while name in used:  # two weights with one name: keep both
                name, n = f"{base}_{n}", n + 1
            used.add(name)
            out.append((name, v))
        for i, layer in enumerate(getattr(obj, "_stack", ()) or ()):
            out.append((f"layer-{i}", layer))
        for attr, value in vars(obj).items():
            if attr not in ("_tracked", "_stack", "_regularizers"):
                _attribute_children(attr, value, out)
    elif isinstance(obj, Module):
        for attr, value in vars(obj).items():
            _attribute_children(attr, value, out)
    return out


class _Graph:
    """The objects and Variables reachable from a root, by path (first path wins)."""

    def __init__(self, root, prefix: str = ""):
        self.objects: dict[str, object] = {}
        self.variables: dict[str, Variable] = {}
        seen: set = {id(root)}
        todo = [(prefix, root)]
        while todo:
            path, obj = todo.pop()
            if path:
                self.objects[path] = obj
            if isinstance(obj, Variable):
                self.variables[path] = obj
                continue
            kids = []
            for name, child in _children(obj):
                if id(child) not in seen:
                    seen.add(id(child))
                    kids.append((f"{path}/{name}" if path else name, child))
            todo.extend(reversed(kids))  # depth first, in attribute order
        self.path_of = {id(v): p for p, v in self.variables.items()}
        for opath, opt in list(self.objects.items()):
            if not _is_optimizer(opt):
                continue
            for var, slot_name, slot in opt._slot_items():
                vpath = self.path_of.get(id(var))
                if vpath is not None and id(slot) not in seen:
                    seen.add(id(slot))
                    self.variables[f"{vpath}/{_SLOT}/{opath}/{slot_name}"] = slot


# -- deferred restoration ----------------------------------------------------------------------

# Layer or optimizer -> the restoration whose values wait under it. These entries keep a
# restoration alive (the observer lists hold it weakly and it holds everything weakly); a newer
# restore of the same object takes its entry over, so the newest values win, as in TensorFlow.
_WAITING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_ORDER = itertools.count()  # restorations in the order they were made


def _waits_under(pending: dict, path: str, slots: bool = True) -> bool:
    """Whether a pending value belongs inside the object at ``path`` (or, with ``slots``,
    is a slot of the optimizer at ``path``)."""
    start = path + "/"
    return any(
        (k.startswith(start) and f"/{_SLOT}/" not in k) or (slots and f"/{_SLOT}/{start}" in k)
        for k in pending
    )


def _owner(obj) -> _Deferred | None:
    """The restoration waiting under ``obj``, if any."""
    try:
        return _WAITING.get(obj)
    except TypeError:  # unhashable (a class defining __eq__ only): never an anchor
        return None


def _waits(pending: dict, path: str, obj) -> bool:
    """Whether values in ``pending`` wait for variables that ``obj`` (at ``path``) creates:
    weights of a layer or its sublayers, slots of an optimizer."""
    if isinstance(obj, Module):  # a layer, or a plain Module whose Variables come later
        return _waits_under(pending, path, slots=False)
    if _is_optimizer(obj):
        return any(f"/{_SLOT}/{path}/" in k for k in pending)
    return False


class _Deferred:
    """The values of one restore whose variables do not exist yet, assigned at creation.

    Registered with `Layer.variable_observers`, `Module.attribute_observers` and
    `Optimizer.slot_observers` (as a `LayerObserver`, an attribute observer and a
    `SlotObserver`) while values wait. Its *anchors* are the layers and
    optimizers values wait under, with their object paths: those of the restored graph, then
    those found later inside them (a layer added to a `Sequential`, a sublayer made in a
    `build`). A created variable is matched by walking the anchor that holds its layer or
    optimizer, so paths are those of the restored graph even after the `Checkpoint` is gone.
    Objects are referenced weakly; see `_WAITING` for what keeps a restoration alive.
    """

    def __init__(self, graph: _Graph, file: str, pending: dict, status: CheckpointLoadStatus):
        self.file = file
        self.pending = pending
        self.order = next(_ORDER)
        self._status = weakref.ref(status)
        self._anchors: dict[int, tuple[weakref.ref, str]] = {}  # id -> (object, path)
        self._variables: dict[int, tuple[weakref.ref, str]] = {}  # id -> (Variable, path)
        self._learn(graph)
        if self._anchors:
            Layer.variable_observers.register(self)
            Module.attribute_observers.register(self)
            Optimizer.slot_observers.register(self)

    # -- observer methods (LayerObserver, SlotObserver) -------------------------------------------
    def weight_created(self, layer: Layer, variable: Variable) -> None:
        self._restore_under(layer)

    def layer_built(self, layer: Layer) -> None:
        self._restore_under(layer)

    def attribute_set(self, module: Module, name: str, value) -> None:
        self._restore_under(module)

    def slot_created(self, optimizer, variable: Variable, slot_name: str, slot) -> None:
        graph = self._locate(optimizer)
        if graph is None:
            return
        self._learn(graph)
        opath = next(p for p, o in graph.objects.items() if o is optimizer)
        vpath = self._variable_path(variable)
        targets = {p: v for p, v in graph.variables.items() if p in self.pending}
        if vpath is not None:
            targets[f"{vpath}/{_SLOT}/{opath}/{slot_name}"] = slot
        self._apply(targets)
        self._release()

    # -- matching -------------------------------------------------------------------------------
    def _restore_under(self, layer: Module) -> None:
        graph = self._locate(layer)
        if graph is None:
            return
        self._learn(graph)
        self._apply({p: v for p, v in graph.variables.items() if p in self.pending})
        self._release()

    def _locate(self, obj) -> _Graph | None:
        """The graph, with this restoration's paths, of ``obj`` if it is an anchor, else of
        the first anchor holding it; None when no anchor holds it."""
        ref, path = self._anchors.get(id(obj), (None, ""))
        if ref is not None and ref() is obj and _owner(obj) is self:
            return _Graph(obj, path)
        seen: set = set()
        for ref, path in list(self._anchors.values()):
            anchor = ref()
            if anchor is None or id(anchor) in seen or _owner(anchor) is not self:
                continue
            graph = _Graph(anchor, path)
            ids = {id(o) for o in graph.objects.values()}
            if id(obj) in ids:
                return graph
            seen |= ids
        return None

    def _variable_path(self, variable: Variable) -> str | None:
        ref, path = self._variables.get(id(variable), (None, None))
        if ref is None or ref() is not variable:
            graph = self._locate(variable)
            if graph is None:
                return None
            self._learn(graph)
            path = graph.path_of.get(id(variable))
        return path

    def _learn(self, graph: _Graph) -> None:
        """Records the paths of ``graph``'s variables and takes the objects of ``graph``
        that values wait under as anchors (unless a newer restoration has them)."""
        for path, v in graph.variables.items():
            ref, _ = self._variables.get(id(v), (None, None))
            if ref is None or ref() is not v:
                self._variables[id(v)] = (weakref.ref(v), path)
        for path, obj in graph.objects.items():
            if isinstance(obj, Variable) or not _waits(self.pending, path, obj):
                continue
            try:
                owner = _WAITING.get(obj)
            except TypeError:  # unhashable: its values arrive through a hashable ancestor
                continue
            if owner is None or owner is self or owner.order < self.order:
                _WAITING[obj] = self
                self._anchors[id(obj)] = (weakref.ref(obj), path)
                if owner is not None and owner is not self:
                    owner._give_up(obj)

    def _give_up(self, obj) -> None:
        """Drops the values waiting under ``obj``: a newer restoration's replace them."""
        ref, path = self._anchors.pop(id(obj), (None, ""))
        if ref is None or ref() is not obj:
            return
        start = path + "/"
        if isinstance(obj, Module):
            doomed = [k for k in self.pending if k.startswith(start) and f"/{_SLOT}/" not in k]
        else:
            doomed = [k for k in self.pending if f"/{_SLOT}/{start}" in k]
        for key in doomed:
            del self.pending[key]
        self._release()

    def _apply(self, targets: dict) -> None:
        targets = {p: v for p, v in targets.items() if p in self.pending}
        for path, v in targets.items():  # all-or-nothing: validate first
            _check_fits(self.file, path, self.pending[path], v)
        status = self._status()
        for path, v in targets.items():
            v.assign(self.pending.pop(path))
            if status is not None:
                status._consumed.add(path)

    def _release(self) -> None:
        """Drops the anchors that are gone, taken over or no longer waited for; unregisters
        the restoration when none is left."""
        for key, (ref, path) in list(self._anchors.items()):
            obj = ref()
            if obj is None or _owner(obj) is not self:
                del self._anchors[key]
            elif not _waits(self.pending, path, obj):
                del _WAITING[obj]
                del self._anchors[key]
        self._variables = {k: e for k, e in self._variables.items() if e[0]() is not None}
        if not self._anchors:
            Layer.variable_observers.unregister(self)
            Module.attribute_observers.unregister(self)
            Optimizer.slot_observers.unregister(self)


def _check_fits(file: str, path: str, array: np.ndarray, variable: Variable) -> None:
    want_shape, want_dtype = tuple(variable._value.shape), np.dtype(variable._value.dtype)
    if tuple(array.shape) != want_shape or array.dtype != want_dtype:
        raise CheckpointError(
            f"Checkpoint {file}: object path {path!r} holds shape {tuple(array.shape)} "
            f"dtype {array.dtype.name}, the variable {variable.name} has shape {want_shape} "
            f"dtype {want_dtype.name}."
        )


# -- restore status ----------------------------------------------------------------------------


class CheckpointLoadStatus:
    """What a `Checkpoint.restore` matched (follows TensorFlow's `CheckpointLoadStatus`).

    The ``assert_*`` methods raise AssertionError listing the unmatched object paths and
    return the status otherwise, so they chain: ``ckpt.restore(p).assert_consumed()``.
    """

    def __init__(self, root, file: str, keys: list):
        self._root = root
        self.file = file
        self._keys = list(keys)
        self._consumed: set = set()
        self._partial = False

    def _unmatched_existing(self) -> list:
        keys = set(self._keys)
        return sorted(p for p in _Graph(self._root).variables if p not in keys)

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Every saved value was assigned and every existing variable got one."""
        unused = sorted(set(self._keys) - self._consumed)
        missing = self._unmatched_existing()
        if unused or missing:
            raise AssertionError(
                f"Checkpoint {self.file} was not fully consumed. Saved values not assigned "
                f"(no such object, or not created yet): {unused}. Existing variables without "
                f"a saved value: {missing}."
            )
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Every variable that exists now got a saved value (values for objects not created
        yet may wait)."""
        missing = self._unmatched_existing()
        if missing:
            raise AssertionError(
                f"Checkpoint {self.file}: existing variables without a saved value: {missing}."
            )
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """At least one value other than the save counter was assigned."""
        if not self._consumed - {"save_counter"}:
            raise AssertionError(f"Checkpoint {self.file} matched no object: {self._keys}.")
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        """Declares that an incomplete restore is intended (silences nothing else)."""
        self._partial = True
        return self

    def run_restore_ops(self, session=None) -> None:
        """Nothing to run: restoring is eager."""

    def initialize_or_restore(self, session=None) -> None:
        """Nothing to run: restoring is eager."""


# -- Checkpoint --------------------------------------------------------------------------------


class Checkpoint:
    """Saves and restores the Variables reachable from its keyword arguments
    (follows `tf.train.Checkpoint`; the module docstring gives paths and format).

    Args:
        root: optional object whose children become the checkpoint's own (TF 2 argument).
        **kwargs: the objects to track: Variables, layers, models, optimizers, metrics,
            other Checkpoints (and lists/dicts of them).

    >>> import tempfile, os
    >>> v = ek.Variable(1.0)
    >>> ckpt = ek.train.Checkpoint(v=v)
    >>> d = tempfile.mkdtemp()
    >>> path = ckpt.save(os.path.join(d, "ckpt"))
    >>> os.path.basename(path)
    'ckpt-1'
    >>> _ = v.assign(5.0)
    >>> ckpt.restore(path).assert_consumed().file.endswith("ckpt-1.safetensors")
    True
    >>> float(v)
    1.0
    """

    def __init__(self, root=None, **kwargs):
        objects = {}
        if root is not None:
            objects.update(dict(_children(root)))  # TF 2: the root's children become ours
        for name, value in kwargs.items():
            if value is None:
                continue
            if not (_trackable(value) or isinstance(value, (list, tuple, dict))):
                raise ValueError(
                    f"Checkpoint: {name}={value!r} cannot be checkpointed; expected a Variable, "
                    "Module, layer, model, optimizer, metric or Checkpoint."
                )
            objects[name] = value
        object.__setattr__(self, "_objects", objects)
        object.__setattr__(self, "_save_counter", None)

    def __getattr__(self, name: str):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self._objects[name] = value

    @property
    def save_counter(self) -> Variable:
        """The number of `save` calls (an int64 Variable, saved and restored too)."""
        if self._save_counter is None:
            from ..core.device import CPU
            from ..core.device import device as device_scope

            with device_scope(CPU), name_scope(""):  # TF makes it in an init_scope
                counter = Variable(0, trainable=False, name="save_counter", dtype="int64")
            object.__setattr__(self, "_save_counter", counter)
        return self._save_counter

    def write(self, file_prefix) -> str:
        """Writes a checkpoint at ``file_prefix`` (no numbering, no state file); returns it.

        Atomic: a crash leaves the previous file at ``file_prefix`` intact.
        """
        file_prefix = os.fspath(file_prefix)
        if distribute_context.non_chief_worker() is not None:  # only the chief writes files
            with distribute_context.worker_save(file_prefix) as elsewhere:
                self.write(elsewhere)
            return file_prefix
        graph = _Graph(self)
        atomic_write(data_file(file_prefix), encode(graph.variables, graph.objects))
        return file_prefix

    def save(self, file_prefix) -> str:
        """Writes ``<file_prefix>-<N>`` (N: the incremented `save_counter`) and records it as
        the latest in the directory's ``checkpoint`` state file; returns the path."""
        file_prefix = os.fspath(file_prefix)
        if distribute_context.non_chief_worker() is not None:  # only the chief writes files
            with distribute_context.worker_save(file_prefix) as elsewhere:
                path = self.save(elsewhere)
            return os.path.join(os.path.dirname(file_prefix), os.path.basename(path))
        counter = self.save_counter
        n = int(counter.numpy()) + 1
        counter.assign(np.int64(n))
        try:
            path = self.write(f"{file_prefix}-{n}")
        except BaseException:
            counter.assign(np.int64(n - 1))
            raise
        directory = os.path.dirname(os.path.abspath(path))
        _, everything = read_state(directory)
        path_abs = os.path.abspath(path)
        everything = [p for p in everything if p != path_abs and os.path.exists(data_file(p))]
        write_state(directory, path_abs, [*everything, path_abs])
        return path

    def read(self, save_path) -> CheckpointLoadStatus:
        """Restores from ``save_path`` (a prefix from `write` or `save`)."""
        return self._restore(save_path)

    def restore(self, save_path) -> CheckpointLoadStatus:
        """Restores every matching variable from ``save_path``; values for variables not
        created yet are assigned when they are. ``save_path=None`` does nothing (as TF).

        Returns:
            a status with ``assert_consumed()``, ``assert_existing_objects_matched()``,
            ``assert_nontrivial_match()`` and ``expect_partial()``.

        Raises:
            CheckpointNotFoundError: no checkpoint at ``save_path`` (TensorFlow's
                `NotFoundError`, also a `CheckpointError`).
            CheckpointError: unreadable, corrupt or truncated file; a saved shape or dtype
                that differs from its variable's (both named); or a checkpoint with no
                object in common with this one. No variable changes then.
        """
        if save_path is None:
            return CheckpointLoadStatus(self, "<none>", [])
        return self._restore(save_path)

    def _restore(self, save_path, required=()) -> CheckpointLoadStatus:
        file, _, arrays = read_checkpoint(save_path)
        if "save_counter" in arrays:
            self.save_counter  # noqa: B018 - created so that it is matched
        graph = _Graph(self)
        matched = {}
        for path, v in graph.variables.items():
            if path in arrays:
                _check_fits(file, path, arrays[path], v)
                matched[path] = v
        missing = [p for p, v in graph.variables.items() if id(v) in required and p not in arrays]
        if missing:
            raise CheckpointError(
                f"Checkpoint {file} has no value for {missing} (it holds "
                f"{sorted(arrays)[:20]}); is it a checkpoint of a different model?"
            )
        status = CheckpointLoadStatus(self, file, list(arrays))
        pending = {p: a for p, a in arrays.items() if p not in matched}
        real = {p for p in matched if p != "save_counter"}
        could_wait = any(
            _waits_under(pending, p)
            for p, o in graph.objects.items()
            if not isinstance(o, Variable)
        )
        others = [p for p in graph.variables if p != "save_counter"]
        if not real and pending and others and not could_wait:
            raise CheckpointError(
                f"Checkpoint {file} shares no object path with the objects restored into: it "
                f"holds {sorted(arrays)[:10]}, they have {sorted(others)[:10]}; is it a "
                "checkpoint of a different model?"
            )
        for path, v in matched.items():
            v.assign(arrays[path])
            status._consumed.add(path)
        if pending:
            _Deferred(graph, file, pending, status)
        return status


# -- CheckpointManager -------------------------------------------------------------------------


class CheckpointManager:
    """Numbered checkpoints in a directory, keeping the newest ``max_to_keep``
    (follows `tf.train.CheckpointManager`).

    Args:
        checkpoint: the `Checkpoint` to save.
        directory: where the files and the ``checkpoint`` state file go (created).
        max_to_keep: how many to keep (None: all); older ones are deleted after each save.
        checkpoint_name: the prefix of the files (``ckpt-1``, ``ckpt-2``, ...).

    >>> import tempfile
    >>> ckpt = ek.train.Checkpoint(step=ek.Variable(0))
    >>> manager = ek.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
    >>> for _ in range(3):
    ...     _ = ckpt.step.assign_add(1); _ = manager.save()
    >>> [os.path.basename(p) for p in manager.checkpoints]
    ['ckpt-2', 'ckpt-3']
    """

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name: str = "ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
    ):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                f"CheckpointManager: max_to_keep must be positive or None. Received: "
                f"max_to_keep={max_to_keep}"
            )
        self._checkpoint = checkpoint
        self.directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._name = checkpoint_name
        self._prefix = os.path.join(self.directory, checkpoint_name)
        os.makedirs(self.directory, exist_ok=True)
        _, everything = read_state(self.directory)
        self._checkpoints = [p for p in everything if os.path.exists(data_file(p))]

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix, or None."""
        return self._checkpoints[-1] if self._checkpoints else None

    @property
    def checkpoints(self) -> list:
        """The kept checkpoints' prefixes, oldest first."""
        return list(self._checkpoints)

    def save(self, checkpoint_number=None, check_interval: bool = True, options=None) -> str:
        """Saves ``<directory>/<checkpoint_name>-<N>``, updates the state file, then deletes
        the checkpoints beyond ``max_to_keep``; returns the new prefix.

        ``N`` is ``checkpoint_number`` if given, else the incremented save counter.
        """
        counter = self._checkpoint.save_counter
        n = int(counter.numpy()) + 1
        counter.assign(np.int64(n))
        number = n if checkpoint_number is None else int(checkpoint_number)
        try:
            path = self._checkpoint.write(f"{self._prefix}-{number}")
        except BaseException:
            counter.assign(np.int64(n - 1))
            raise
        path = os.path.abspath(path)
        if distribute_context.non_chief_worker() is not None:
            # Not the chief: `write` went to a removed temporary directory; the chief keeps
            # the state file and deletes old checkpoints. This worker only tracks the names.
            self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
            return path
        kept = [p for p in self._checkpoints if p != path] + [path]
        doomed = []
        if self._max_to_keep is not None and len(kept) > self._max_to_keep:
            doomed = kept[: -self._max_to_keep]
            kept = kept[-self._max_to_keep :]
        write_state(self.directory, path, kept)  # before deleting: it never names a gone file
        for old in doomed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(data_file(old))
        self._checkpoints = kept
        self._sweep(number)
        return path

    def _sweep(self, newest: int) -> None:
        """Deletes what a crash may have left: ``<name>-<N>`` files older than the newest
        that the state file no longer names, and temporary files of this manager's names
        (so one process at a time should save into a directory, as with TensorFlow)."""
        pattern = re.compile(rf"^(\.)?{re.escape(self._name)}-(\d+)\.safetensors(\.tmp-.*)?$")
        kept = {os.path.basename(data_file(p)) for p in self._checkpoints}
        for entry in os.listdir(self.directory):
            if entry.startswith(f".{STATE_FILE}.tmp-"):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(self.directory, entry))
                continue
            m = pattern.match(entry)
            if m is None or entry in kept:
                continue
            hidden, number, tmp = m.groups()
            if bool(hidden) != bool(tmp) or (not tmp and int(number) >= newest):
                continue
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(self.directory, entry))

    def restore_or_initialize(self):
        """Restores the latest checkpoint if there is one; returns its path or None."""
        if self.latest_checkpoint is None:
            return None
        self._checkpoint.restore(self.latest_checkpoint)
        return self.latest_checkpoint
