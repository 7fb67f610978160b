"""The state part of a ``.keras`` file: each layer's store and assets, as Keras 3's
``saving_lib`` lays them out (``_save_state``, ``_load_state``, ``H5IOStore``, ``DiskIOStore``).

Inside the zip (next to ``config.json`` and ``metadata.json``)::

    model.weights.safetensors     what each layer's save_own_variables wrote: the entry
                                  "<layer path>/vars/<key>" ("vars/<key>" for the model
                                  itself), Keras's H5 groups flattened into safetensors keys
    model.checkpoint.safetensors  an eagerkernel checkpoint (`ek.train.Checkpoint(model=...)`)
                                  of the state no layer store holds: the optimizer (its
                                  iterations and slot variables, keyed by their variable's
                                  object path), metric variables, variables of plain Modules
    assets/<layer path>/...       the files save_assets(dir) wrote, for layers defining it

A layer's path is Keras's: a Sequential or functional model's layers are under ``layers/``
by snake-cased class name (``layers/dense``, ``layers/dense_1``, ...), then each attribute
holding a layer gives a path element (``encoder/dense1``; a list or dict attribute: its
layers by class name, ``blocks/conv2d_1``), public attributes in name order before private
ones. Each layer is visited once, at its first path.

Files written before this layout hold one eagerkernel checkpoint named
``model.weights.safetensors`` and no ``model.checkpoint.safetensors``; `load_state` restores
them as before (no layer hook is called for them).
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Mapping

import numpy as np

__all__ = ["ASSETS", "CHECKPOINT", "WEIGHTS", "load_state", "walk", "write_state"]

WEIGHTS = "model.weights.safetensors"
CHECKPOINT = "model.checkpoint.safetensors"
ASSETS = "assets"
_FORMAT = "eagerkernel-keras-weights"
_FORMAT_VERSION = "1"


# -- layer paths ------------------------------------------------------------------------------
def _name_key(name: str) -> str:
    return "~" + name if name.startswith("_") else name  # private attributes last, as Keras


def _snake_case(name: str) -> str:
    """Keras's ``naming.to_snake_case``: ``MaxPooling2D`` -> ``max_pooling2d``."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def _layers_in(value, out: list) -> None:
    """The layers in an attribute's value (lists, tuples, sets and dict values walked)."""
    from .layers.base import Layer

    if isinstance(value, Layer):
        out.append(value)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _layers_in(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _layers_in(item, out)


def _children(layer) -> list:
    """``[(path element, layer)]`` of one layer, in Keras's order (``_walk_saveable``)."""
    from .functional import Functional
    from .layers.base import Layer
    from .models import Sequential

    attributes = []
    if isinstance(layer, (Sequential, Functional)):
        attributes.append(("layers", list(layer.layers)))
    attributes += sorted(vars(layer).items(), key=lambda item: _name_key(item[0]))
    out = []
    for attr, value in attributes:
        if attr.startswith("__"):
            continue
        if isinstance(value, Layer):
            out.append((attr, value))
            continue
        found: list = []
        _layers_in(value, found)
        used: dict = {}
        for child in found:  # by class name: layer names are not reproducible
            name = _snake_case(type(child).__name__)
            used[name] = used.get(name, -1) + 1
            out.append((f"{attr}/{name}_{used[name]}" if used[name] else f"{attr}/{name}", child))
    return out


def walk(model) -> list:
    """``[(path, layer)]`` of ``model`` and every layer inside it, each once at its first
    path, parents before their sublayers (Keras 3's ``_save_state`` order); the model's own
    path is ``""``.

    >>> import eagerkernel as ek
    >>> model = ek.keras.Sequential([ek.keras.layers.Dense(2), ek.keras.layers.Dense(1)])
    >>> [path for path, _ in walk(model)]
    ['', 'layers/dense', 'layers/dense_1']
    """
    seen: set = set()
    out: list = []
    todo = [("", model)]
    while todo:
        path, layer = todo.pop()
        if id(layer) in seen:
            continue
        seen.add(id(layer))
        out.append((path, layer))
        kids = [(f"{path}/{name}" if path else name, child) for name, child in _children(layer)]
        todo.extend(reversed(kids))  # depth first, in attribute order
    return out


# -- the stores -------------------------------------------------------------------------------
class _WriteStore(dict):
    """The dict `save_model` gives one layer's ``save_own_variables``: string keys (no
    ``"/"``), values kept as NumPy arrays of a numeric or bool dtype."""

    def __init__(self, layer, path: str):
        super().__init__()
        self._where = f"layer {layer.name!r} (path {path or '<model>'!r})"

    def __setitem__(self, key, value) -> None:
        if not isinstance(key, str) or not key or "/" in key:
            raise ValueError(
                f"save_own_variables of {self._where}: a store key must be a non-empty string "
                f"without '/'. Received: key={key!r}"
            )
        array = np.array(value.numpy() if hasattr(value, "numpy") else value, order="C")
        if array.dtype.kind not in "biuf":
            raise TypeError(
                f"save_own_variables of {self._where}: store[{key!r}] must be an array of "
                f"numbers or bools (the weights file is safetensors); received dtype "
                f"{array.dtype} ({type(value).__name__}). Write text or other files with "
                "save_assets(dir_path)."
            )
        super().__setitem__(key, array)  # a C-ordered copy: later changes do not leak in


class _ReadStore(Mapping):
    """The read-only mapping `load_model` gives one layer's ``load_own_variables``: the
    keys its ``save_own_variables`` wrote, in that order, to NumPy arrays."""

    def __init__(self, path: str, arrays: dict):
        self._path, self._arrays = path, arrays

    def __getitem__(self, key):
        try:
            return self._arrays[key]
        except KeyError:
            raise KeyError(
                f"load_own_variables: the weights file has no entry {key!r} for the layer at "
                f"path {self._path or '<model>'!r}; it holds {list(self._arrays)}."
            ) from None

    def __iter__(self):
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __repr__(self) -> str:
        return f"<store {self._path or '<model>'!r}: {list(self._arrays)}>"


def _key(path: str, key: str) -> str:
    return f"{path}/vars/{key}" if path else f"vars/{key}"


def _encode(stores: dict) -> bytes:
    from safetensors.numpy import save

    arrays = {_key(p, k): a for p, store in stores.items() for k, a in store.items()}
    index = {p: list(store) for p, store in stores.items()}
    metadata = {"format": _FORMAT, "format_version": _FORMAT_VERSION, "layers": json.dumps(index)}
    return save(arrays, metadata=metadata)


def _decode(data: bytes, filepath: str) -> dict:
    """``{path: {key: array}}`` of a weights file, checked against its index."""
    from safetensors.numpy import load

    def bad(why: str) -> ValueError:
        return ValueError(f"load_model({filepath!r}): its {WEIGHTS} is damaged: {why}.")

    try:
        (n,) = np.frombuffer(data[:8], dtype="<u8")
        header = json.loads(data[8 : 8 + int(n)])
        metadata = header["__metadata__"]
        index = json.loads(metadata["layers"])
        arrays = load(data)
    except Exception as e:  # safetensors raises its own error types
        raise bad(f"{type(e).__name__}: {e}"[:300]) from None
    if metadata.get("format") != _FORMAT:
        raise bad(f"format {metadata.get('format')!r}, expected {_FORMAT!r}")
    stores = {}
    for path, keys in index.items():
        missing = [k for k in keys if _key(path, k) not in arrays]
        if missing:
            raise bad(f"the layer at path {path!r} lists {missing}, which it does not hold")
        stores[path] = {k: arrays[_key(path, k)] for k in keys}
    return stores


# -- saving -----------------------------------------------------------------------------------
def write_state(model, directory: str) -> list:
    """Writes the state files of ``model`` into ``directory`` (see the module docstring);
    returns ``[(name in the zip, file)]``, the weights and checkpoint first."""
    from ..io.checkpoint import Checkpoint, ObjectGraph
    from ..io.checkpoint_format import encode

    stores: dict = {}
    covered: set = set()
    assets = os.path.join(directory, ASSETS)
    entries = []
    for path, layer in walk(model):
        store = stores[path] = _WriteStore(layer, path)
        layer.save_own_variables(store)
        covered.update(id(v) for v in layer._own_variables())
        if hasattr(layer, "save_assets"):
            target = os.path.join(assets, *path.split("/")) if path else assets
            os.makedirs(target, exist_ok=True)
            layer.save_assets(target)
    with open(os.path.join(directory, WEIGHTS), "wb") as f:
        f.write(_encode(stores))
    graph = ObjectGraph(Checkpoint(model=model))  # the rest: optimizer, metrics, Modules
    rest = {p: v for p, v in graph.variables.items() if id(v) not in covered}
    objects = {p: o for p, o in graph.objects.items() if id(o) not in covered}
    with open(os.path.join(directory, CHECKPOINT), "wb") as f:
        f.write(encode(rest, objects, graph.alias_map()))
    entries += [(WEIGHTS, os.path.join(directory, WEIGHTS))]
    entries += [(CHECKPOINT, os.path.join(directory, CHECKPOINT))]
    for root, dirs, files in os.walk(assets):
        dirs.sort()
        for name in sorted(files):
            local = os.path.join(root, name)
            entries.append((os.path.relpath(local, directory).replace(os.sep, "/"), local))
    return entries


# -- loading ----------------------------------------------------------------------------------
def _extract_assets(zf: zipfile.ZipFile, directory: str, filepath: str) -> str:
    """Extracts the ``assets/`` members into ``directory``; a member that would land outside
    it (an absolute path, ``..``) is refused."""
    root = os.path.realpath(os.path.join(directory, ASSETS))
    os.makedirs(root, exist_ok=True)
    for info in zf.infolist():
        if not info.filename.startswith(ASSETS + "/") or info.is_dir():
            continue
        target = os.path.realpath(os.path.join(directory, info.filename))
        if not target.startswith(root + os.sep):
            raise ValueError(
                f"load_model({filepath!r}): the asset {info.filename!r} points outside the "
                "assets directory; the file is not a model written by save_model."
            )
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with zf.open(info) as src, open(target, "wb") as dst:
            dst.write(src.read())
    return root


def load_state(
    model, zf: zipfile.ZipFile, filepath: str, directory: str, partial: bool, op: str = "load_model"
):
    """Restores the state of ``model`` from the open ``.keras`` zip ``zf``: each layer's
    ``load_own_variables`` with its store, then the checkpoint of the rest, then each
    ``load_assets(dir)`` with the layer's extracted assets directory (``directory`` is a
    scratch directory). ``partial``: the optimizer's state is not expected (not compiled).
    ``op`` names the call in the errors (``load_model``, ``load_weights``).

    Raises:
        ValueError: a damaged file, or a layer whose state does not fit (the message names
            the file, and the layer with what it expected and received).
    """
    from ..io.checkpoint import Checkpoint

    names = set(zf.namelist())
    new = CHECKPOINT in names
    checkpoint = os.path.join(directory, CHECKPOINT if new else WEIGHTS)
    with open(checkpoint, "wb") as f:
        f.write(zf.read(CHECKPOINT if new else WEIGHTS))
    required = {id(v) for v in model.weights}
    layers = walk(model)
    if new:
        stores = _decode(zf.read(WEIGHTS), filepath)
        for path, layer in layers:
            try:
                layer.load_own_variables(_ReadStore(path, stores.get(path, {})))
            except (ValueError, KeyError) as e:
                message = e.args[0] if isinstance(e, KeyError) and e.args else e
                raise type(e)(f"{op}({filepath!r}): {message}") from e
            required.difference_update(id(v) for v in layer._own_variables())
    try:
        status = Checkpoint(model=model)._restore(checkpoint, required=required)
    except ValueError as e:  # CheckpointError: name the .keras file, not the extracted copy
        raise type(e)(f"{op}({filepath!r}): {e}") from e
    if partial:
        status.expect_partial()
    if not new:
        return
    assets = _extract_assets(zf, directory, filepath)
    for path, layer in layers:
        if hasattr(layer, "load_assets"):
            source = os.path.join(assets, *path.split("/")) if path else assets
            os.makedirs(source, exist_ok=True)
            layer.load_assets(source)
