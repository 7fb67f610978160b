"""Object-based checkpoints (follows `tf.train.Checkpoint`): atomic, checksummed, no pickle.

A `Checkpoint` saves the Variables reachable from the objects given to it, each keyed by its
*object path*: the attribute names leading to it, as TensorFlow names them.

- ``Checkpoint(model=m, optimizer=opt, step=v)``: ``model``, ``optimizer``, ``step``.
- A layer's weights made by `add_weight` use their short name (``model/dense/kernel``);
  layers, Modules, Variables, optimizers and metrics held in attributes use the attribute
  name, in lists ``attr/0`` and in dicts ``attr/key``: a plain `ek.Module`'s Variables are
  ``model/dense_1/w``, as TensorFlow keys them. A `Sequential` model's layers are
  ``layer-0``, ``layer-1``, ... (``model/layer-0/kernel``). An object reachable twice is
  saved once, under the first path found (depth first, attribute order); its other paths are
  recorded as aliases of that one, so a restore finds it by any of them (TensorFlow's object
  graph keeps every edge the same way).
- Optimizers: ``optimizer/iter`` (the step count), ``optimizer/learning_rate``; a slot
  variable is saved under its variable's path: ``model/layer-0/kernel/.OPTIMIZER_SLOT/
  optimizer/m`` (TensorFlow's naming). Metrics: ``metric/total``, ``metric/count``.
- The `Checkpoint`'s own counter of `save` calls: ``save_counter``.
- A Dataset iterator (``iter(dataset)``): ``iterator/position`` (elements given) and
  ``iterator/shuffles`` (each shuffle's seed key and epoch); restoring it replays the pass to
  the same element, as tf.data resumes (see `eagerkernel.runtime.data.iterator.Iterator`).
- Each edge is escaped as TensorFlow escapes it: ``.`` becomes ``..`` and ``/`` becomes
  ``.S`` (``Checkpoint(d={"a/b": v})`` saves ``d/a.Sb``), so two objects never share a path.

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
call, a plain Module's Variable when it is assigned to the Module's attribute, a Checkpoint's
when it is assigned to the Checkpoint's attribute or added to a list or dict the Checkpoint
holds (a `tracking.ListWrapper` / `DictWrapper`), a slot variable when the optimizer
creates it. The restoration observes creation through the documented hooks
`Layer.variable_observers`, `Module.attribute_observers` and `Optimizer.slot_observers`,
holds every object weakly (it keeps neither the `Checkpoint` nor a layer alive, and goes on
after the `Checkpoint` object is deleted), and unregisters once no object it waits for is
left. Restoring the same objects again replaces the values still waiting: the newest win.
"""

from __future__ import annotations

import itertools
import os
import threading
import weakref

import numpy as np

from ..core.variable import Variable
from ..data.iterator import Iterator
from ..distribute import context as distribute_context
from ..interrupts import deferred_interrupt
from ..keras.layers.base import Layer
from ..keras.metrics import Metric
from ..keras.optimizers.base import Optimizer
from ..module import Module, name_scope
from . import tracking
from .checkpoint_format import FORMAT as FORMAT
from .checkpoint_format import FORMAT_VERSION as FORMAT_VERSION
from .checkpoint_format import (
    CheckpointError,
    CheckpointNotFoundError,
    atomic_write,
    data_file,
    encode,
    get_checkpoint_state,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_checkpoint_arrays,
    read_checkpoint,
    resolve_alias,
    state_lock,
    write_state,
)

__all__ = [
    "Checkpoint",
    "CheckpointError",
    "CheckpointManager",
    "CheckpointNotFoundError",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_checkpoint_arrays",
]

_SLOT = ".OPTIMIZER_SLOT"

# -- object graph ------------------------------------------------------------------------------


def _is_optimizer(obj) -> bool:
    return hasattr(obj, "_slot_items") and hasattr(obj, "_iterations")


def _trackable(obj) -> bool:
    return (
        isinstance(obj, (Variable, Module, Metric, Checkpoint, Iterator))
        or _is_optimizer(obj)
        or hasattr(type(obj), "_checkpoint_children")  # e.g. ek.random.Generator
    )


def escape_local_name(name: str) -> str:
    """One edge of an object path as TensorFlow writes it: ``.`` becomes ``..`` and ``/``
    becomes ``.S``, so an edge never contains the separator and two edges never meet.

    >>> escape_local_name("a/b"), escape_local_name("v1.2")
    ('a.Sb', 'v1..2')
    """
    return name.replace(".", "..").replace("/", ".S")


def _short(variable: Variable, owner_name: str) -> str:
    name = variable._name
    prefix = f"{owner_name}/"
    return name[len(prefix) :] if name.startswith(prefix) else name


def _holds_trackable(value) -> bool:
    if _trackable(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_trackable(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_trackable(item) for item in value.values())
    return False


def _attribute_children(name: str, value, out: list) -> None:
    """Appends ``(path, object)`` for the trackable objects in ``value`` (an attribute named
    ``name``, already escaped); lists and dicts are objects of their own, as in TensorFlow,
    whose edges are the indices and the (escaped) keys.

    Raises:
        ValueError: a dict with a non-string key that maps to a trackable object (TensorFlow's
            ``_DictWrapper`` refuses to save it: ``{0: a, "0": b}`` would give one path).
    """
    if _trackable(value):
        out.append((name, value))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _attribute_children(f"{name}/{i}", item, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                if _holds_trackable(item):
                    raise ValueError(
                        f"Unable to save the object {name!r} (a dictionary): it contains a "
                        f"non-string key {key!r} which maps to a trackable object or data "
                        "structure. Use string keys (TensorFlow's _DictWrapper refuses the "
                        "same)."
                    )
                continue
            _attribute_children(f"{name}/{escape_local_name(key)}", item, out)


def _children(obj) -> list:
    """``[(edge name, child)]`` of one object in the graph, in a stable order."""
    out: list = []
    if isinstance(obj, Checkpoint):
        out.extend(obj._root_children)  # paths already escaped
        for name, child in obj._objects.items():
            _attribute_children(escape_local_name(name), child, out)
        if obj._save_counter is not None:
            out.append(("save_counter", obj._save_counter))
    elif isinstance(obj, Variable):
        pass
    elif isinstance(obj, Iterator):  # its position and shuffle state (see `Iterator`)
        out.extend(obj._checkpoint_variables().items())
    elif hasattr(type(obj), "_checkpoint_children"):  # e.g. ek.random.Generator
        out.extend(obj._checkpoint_children())
    elif _is_optimizer(obj):
        out.append(("iter", obj._iterations))
        lr = getattr(obj, "_learning_rate", None)
        if isinstance(lr, Variable):
            out.append(("learning_rate", lr))
    elif isinstance(obj, Metric):
        out.extend((escape_local_name(_short(v, obj.name)), v) for v in obj._variables)
    elif isinstance(obj, Layer):
        used: set = set()
        names = getattr(obj, "_weight_names", {})
        for v in obj._tracked:
            name = names.get(id(v)) or _short(v, obj.name)
            base, n = name, 1
            while name in used:  # two weights with one name: keep both
                name, n = f"{base}_{n}", n + 1
            used.add(name)
            out.append((escape_local_name(name), v))
        for i, layer in enumerate(getattr(obj, "_stack", ()) or ()):
            out.append((f"layer-{i}", layer))
        for attr, value in vars(obj).items():
            if attr not in ("_tracked", "_stack", "_regularizers"):
                _attribute_children(escape_local_name(attr), value, out)
    elif isinstance(obj, Module):
        for attr, value in vars(obj).items():
            _attribute_children(escape_local_name(attr), value, out)
    return out


class ObjectGraph:
    """The objects and Variables reachable from a root, by path (first path wins).

    ``aliases`` maps each object path to the other paths of the same object, so that a
    checkpoint that stored an object under another of its paths still restores it.

    Raises:
        ValueError: two different objects would get one path (e.g. two edges of one object
            with the same name); nothing is saved then.
    """

    def __init__(self, root, prefix: str = ""):
        self.root, self.prefix = root, prefix
        self.objects: dict[str, object] = {}
        self.variables: dict[str, Variable] = {}
        self.aliases: dict[str, list] = {}
        first: dict[int, str] = {id(root): prefix}
        todo = [(prefix, root)]
        while todo:
            path, obj = todo.pop()
            if path:
                self.objects[path] = obj
            if isinstance(obj, Variable):
                self.variables[path] = obj
                continue
            kids = []
            names: dict[str, object] = {}
            for name, child in _children(obj):
                other = names.setdefault(name, child)
                if other is not child:
                    where = f"{path}/{name}" if path else name
                    raise ValueError(
                        f"Checkpoint: two objects would be saved under the object path "
                        f"{where!r} ({type(other).__name__} and {type(child).__name__}); "
                        "rename one of them."
                    )
                child_path = f"{path}/{name}" if path else name
                seen_at = first.get(id(child))
                if seen_at is None:
                    first[id(child)] = child_path
                    kids.append((child_path, child))
                elif seen_at != child_path:
                    self.aliases.setdefault(seen_at, []).append(child_path)
            todo.extend(reversed(kids))  # depth first, in attribute order
        seen = set(first)
        self.path_of = {id(v): p for p, v in self.variables.items()}
        for opath, opt in list(self.objects.items()):
            if not _is_optimizer(opt):
                continue
            for var, slot_name, slot in opt._slot_items():
                vpath = self.path_of.get(id(var))
                if vpath is not None and id(slot) not in seen:
                    seen.add(id(slot))
                    key = f"{vpath}/{_SLOT}/{opath}/{escape_local_name(slot_name)}"
                    self.variables[key] = slot

    def alias_map(self) -> dict:
        """``{other path: stored path}`` of every object reachable by several paths."""
        return {o: first for first, others in self.aliases.items() for o in others}

    def stored_key(self, path: str, keys, aliases: dict) -> str | None:
        """The key in ``keys`` (a checkpoint's paths, with its ``aliases``) that holds the
        variable at ``path`` of this graph, trying each of its paths; None if none does."""
        for candidate in (path, *self.alternatives(path)):
            for key in (candidate, resolve_alias(candidate, aliases)):
                if key in keys:
                    return key
        return None

    def alternatives(self, path: str) -> list:
        """The other object paths of the variable at ``path``: ``path`` with a prefix that
        names an object reachable by several paths replaced by each of its other paths."""
        out = []
        parts = path.split("/")
        for i in range(len(parts), 0, -1):
            head = "/".join(parts[:i])
            for other in self.aliases.get(head, ()):
                out.append("/".join([other, *parts[i:]]))
        return out


# -- deferred restoration ----------------------------------------------------------------------

# Layer or optimizer -> the restoration whose values wait under it. These entries keep a
# restoration alive (the observer lists hold it weakly and it holds everything weakly); a newer
# restore of the same object takes its entry over, so the newest values win, as in TensorFlow.
_WAITING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_ORDER = itertools.count()  # restorations in the order they were made


def _waits_under(pending: dict, path: str, slots: bool = True) -> bool:
    """Whether a pending value belongs inside the object at ``path`` (or, with ``slots``,
    is a slot of the optimizer at ``path``)."""
    start = path + "/" if path else ""  # "": a root Checkpoint, above every path
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
    if isinstance(obj, (Module, Checkpoint)):  # a layer, a Module, a Checkpoint: attributes
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

    def __init__(
        self,
        graph: ObjectGraph,
        file: str,
        pending: dict,
        status: CheckpointLoadStatus,
        aliases: dict | None = None,
    ):
        self.file = file
        self.pending = pending
        self.aliases = aliases or {}  # the checkpoint's: {other path: stored path}
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
        targets = self._match(graph)
        if vpath is not None:
            key = f"{vpath}/{_SLOT}/{opath}/{escape_local_name(slot_name)}"
            targets[resolve_alias(key, self.aliases) if key not in self.pending else key] = slot
        self._apply(targets)
        self._release()

    # -- matching -------------------------------------------------------------------------------
    def _restore_under(self, layer: Module) -> None:
        graph = self._locate(layer)
        if graph is None:
            return
        self._learn(graph)
        self._apply(self._match(graph))
        self._release()

    def _match(self, graph: ObjectGraph) -> dict:
        """``{pending key: variable}`` for the variables of ``graph`` whose values wait."""
        out = {}
        for path, v in graph.variables.items():
            key = graph.stored_key(path, self.pending, self.aliases)
            if key is not None:
                out[key] = v
        return out

    def _forms(self):
        """The pending keys, each also under the other paths the checkpoint recorded for its
        objects (so that an object restored under an alias is waited for)."""
        if not self.aliases:
            return self.pending
        forms = set(self.pending)
        for other, stored in self.aliases.items():
            start = stored + "/"
            for key in self.pending:
                if key == stored or key.startswith(start):
                    forms.add(other + key[len(stored) :])
        return forms

    def _locate(self, obj) -> ObjectGraph | None:
        """The graph, with this restoration's paths, of ``obj`` if it is an anchor, else of
        the first anchor holding it; None when no anchor holds it."""
        ref, path = self._anchors.get(id(obj), (None, ""))
        if ref is not None and ref() is obj and _owner(obj) is self:
            return ObjectGraph(obj, path)
        seen: set = set()
        for ref, path in list(self._anchors.values()):
            anchor = ref()
            if anchor is None or id(anchor) in seen or _owner(anchor) is not self:
                continue
            if isinstance(anchor, Checkpoint):
                # A Checkpoint hears of its own attributes and lists; what it already holds
                # is an anchor of its own when values wait under it (`_learn`), so a weight
                # created anywhere does not cost a walk of the whole checkpoint.
                continue
            graph = ObjectGraph(anchor, path)
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

    def _learn(self, graph: ObjectGraph) -> None:
        """Records the paths of ``graph``'s variables and takes the objects of ``graph``
        that values wait under as anchors (unless a newer restoration has them)."""
        for path, v in graph.variables.items():
            ref, _ = self._variables.get(id(v), (None, None))
            if ref is None or ref() is not v:
                self._variables[id(v)] = (weakref.ref(v), path)
        forms = self._forms()
        for path, obj in [(graph.prefix, graph.root), *graph.objects.items()]:
            if isinstance(obj, Variable) or not _waits(forms, path, obj):
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
        start = path + "/" if path else ""
        if isinstance(obj, (Module, Checkpoint)):
            doomed = [k for k in self.pending if k.startswith(start) and f"/{_SLOT}/" not in k]
        else:
            doomed = [k for k in self.pending if f"/{_SLOT}/{start}" in k]
        for key in doomed:
            del self.pending[key]
        self._release()

    def _apply(self, targets: dict) -> None:
        targets = {p: v for p, v in targets.items() if p in self.pending}
        try:
            staged = _stage(self.file, {p: (v, self.pending[p]) for p, v in targets.items()})
        except CheckpointError:
            # A value that cannot fit its variable is reported once and dropped, so that the
            # creation that found it (an optimizer's first step, a layer's build) can be
            # retried instead of failing on the same value for good.
            for path in targets:
                self.pending.pop(path, None)
            raise
        status = self._status()
        _commit(staged)
        for path in targets:
            del self.pending[path]
            if status is not None:
                status._consumed.add(path)

    def _release(self) -> None:
        """Drops the anchors that are gone, taken over or no longer waited for; unregisters
        the restoration when none is left."""
        forms = self._forms()
        for key, (ref, path) in list(self._anchors.items()):
            obj = ref()
            if obj is None or _owner(obj) is not self:
                del self._anchors[key]
            elif not _waits(forms, path, obj):
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


def _stage(file: str, items: dict) -> list:
    """``[(variable, new array)]`` for ``{path: (variable, saved array)}``: every value
    checked and converted (copied to the variable's device) before any variable changes."""
    staged = []
    for path, (v, array) in items.items():
        _check_fits(file, path, array, v)
        staged.append((v, v._checked(array, "assign")))
    return staged


def _commit(staged: list) -> None:
    """Assigns the staged values, all of them or (a failure before the block) none: a
    Ctrl-C that arrives meanwhile is delivered after the last one."""
    with deferred_interrupt():
        for v, value in staged:
            if type(v).assign is Variable.assign:
                v._value = value
            else:  # a Variable that assigns more than its value (a mirrored variable)
                v.assign(value)


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
        if root is not None and not _trackable(root):  # else its state would be silently lost
            raise ValueError(
                f"Checkpoint: root={root!r:.60} cannot be checkpointed; expected a Variable, "
                "Module, layer, model, optimizer, metric or Checkpoint."
            )
        # TF 2: the root's children become ours (their edges are escaped paths already).
        root_children = _children(root) if root is not None else []
        if isinstance(root, Variable):  # TF saves a Variable root under the empty object path
            root_children = [("", root)]
        for name, value in kwargs.items():
            if name == "save_counter":
                raise AttributeError(
                    "Checkpoint: save_counter is the Checkpoint's own counter of saves (a "
                    "read-only property, as in TensorFlow), so it cannot name a tracked object; "
                    f"choose another name. Received: save_counter={value!r:.60}"
                )
            if value is None:
                continue
            if not (_trackable(value) or isinstance(value, (list, tuple, dict))):
                raise ValueError(
                    f"Checkpoint: {name}={value!r} cannot be checkpointed; expected a Variable, "
                    "Module, layer, model, optimizer, metric or Checkpoint."
                )
            objects[name] = value
        object.__setattr__(self, "_objects", objects)
        for name, value in objects.items():  # lists and dicts report what is added to them
            objects[name] = tracking.wrap(self, name, value)
        object.__setattr__(self, "_root_children", root_children)
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_save_lock", threading.RLock())

    def __getattr__(self, name: str):
        objects = self.__dict__.get("_objects", {})
        if name in objects:
            return objects[name]
        for edge, child in self.__dict__.get("_root_children", ()):
            if edge == escape_local_name(name):
                return child
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        elif name == "save_counter":
            raise AttributeError(
                "Checkpoint: save_counter is a read-only property (the counter of saves)."
            )
        else:
            value = tracking.wrap(self, name, value)
            self._objects[name] = value
            if Module.attribute_observers:  # a restore may wait for what it holds
                Module.attribute_observers.notify("attribute_set", self, name, value)

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

    def write(self, file_prefix, options=None) -> str:
        """Writes a checkpoint at ``file_prefix`` (no numbering, no state file); returns it.

        Atomic: a crash leaves the previous file at ``file_prefix`` intact. ``options``: see
        `CheckpointOptions` (for all four methods).
        """
        check_options(options, "Checkpoint.write")
        file_prefix = os.fspath(file_prefix)
        if distribute_context.non_chief_worker() is not None:  # only the chief writes files
            with distribute_context.worker_save(file_prefix) as elsewhere:
                self.write(elsewhere)
            return file_prefix
        graph = ObjectGraph(self)
        data = encode(graph.variables, graph.objects, graph.alias_map())
        atomic_write(data_file(file_prefix), data)
        return file_prefix

    def save(self, file_prefix, options=None) -> str:
        """Writes ``<file_prefix>-<N>`` (N: the incremented `save_counter`) and records it as
        the latest in the directory's ``checkpoint`` state file; returns the path.

        Concurrent saves (threads, processes) take turns through the directory's lock file
        (`checkpoint_format.state_lock`), so each gets its own number and the state file
        names them all. A damaged state file is replaced, with a warning (as TensorFlow)."""
        check_options(options, "Checkpoint.save")
        file_prefix = os.fspath(file_prefix)
        if distribute_context.non_chief_worker() is not None:  # only the chief writes files
            with distribute_context.worker_save(file_prefix) as elsewhere:
                path = self.save(elsewhere)
            return os.path.join(os.path.dirname(file_prefix), os.path.basename(path))
        directory = os.path.dirname(os.path.abspath(file_prefix))
        with state_lock(directory), self._save_lock:  # savers in threads and processes
            state = get_checkpoint_state(directory)  # a damaged one: a warning, then None
            counter = self.save_counter
            n = int(counter.numpy()) + 1
            counter.assign(np.int64(n))
            try:
                path = self.write(f"{file_prefix}-{n}")
            except BaseException:
                counter.assign(np.int64(n - 1))
                raise
            path_abs = os.path.abspath(path)
            everything = state.all_model_checkpoint_paths if state is not None else []
            everything = [p for p in everything if p != path_abs and os.path.exists(data_file(p))]
            write_state(directory, path_abs, [*everything, path_abs])
        return path

    def read(self, save_path, options=None) -> CheckpointLoadStatus:
        """Restores from ``save_path`` (a prefix from `write` or `save`)."""
        check_options(options, "Checkpoint.read")
        return self._restore(save_path)

    def sync(self) -> None:
        """Waits for asynchronous saves (follows `tf.train.Checkpoint.sync`): every save
        here is synchronous, so there is none to wait for."""

    def restore(self, save_path, options=None) -> CheckpointLoadStatus:
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
        check_options(options, "Checkpoint.restore")
        if save_path is None:
            return CheckpointLoadStatus(self, "<none>", [])
        return self._restore(save_path)

    def _restore(self, save_path, required=()) -> CheckpointLoadStatus:
        file, meta, arrays = read_checkpoint(save_path)
        if meta.get("name_based") is True:  # a TF 1.x Saver's checkpoint: match by name
            return restore_by_name(ObjectGraph(self).variables.values(), file, arrays)
        aliases = meta["aliases"]
        if "save_counter" in arrays:
            self.save_counter  # noqa: B018 - created so that it is matched
        graph = ObjectGraph(self)
        # Each variable by any of its paths (here or in the checkpoint): {stored key: variable};
        # two variables of this graph that are one object in the checkpoint both get its value.
        matched, staged = {}, []
        for path, v in graph.variables.items():
            key = graph.stored_key(path, arrays, aliases)
            if key is not None:
                staged += _stage(file, {key: (v, arrays[key])})
                matched.setdefault(key, v)
        found = {id(v) for v, _ in staged}
        missing = [
            p for p, v in graph.variables.items() if id(v) in required and id(v) not in found
        ]
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
        _commit(staged)
        status._consumed.update(matched)
        restored = found
        for obj in graph.objects.values():
            if isinstance(obj, Iterator) and id(obj._state["position"]) in restored:
                obj._restored()  # replays its pass up to the saved element
        if pending:
            _Deferred(graph, file, pending, status, aliases)
        return status


def numpy_value(value):
    """``value.numpy()`` for a tensor or Variable, ``value`` itself otherwise."""
    return value.numpy() if hasattr(value, "numpy") else value


from .checkpoint_manager import CheckpointManager  # noqa: E402 (it builds on Checkpoint)
from .checkpoint_options import check_options  # noqa: E402
from .checkpoint_status import CheckpointLoadStatus  # noqa: E402
from .saver import restore_by_name  # noqa: E402
