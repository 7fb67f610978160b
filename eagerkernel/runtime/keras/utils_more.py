"""More of `ek.keras.utils` (follows Keras 3's ``keras.utils``): `Config`,
`get_source_inputs`, `split_dataset` and `save_img`."""

from __future__ import annotations

import copy
import difflib
import json

import numpy as np

from .. import nest
from ..core.tensor import Tensor
from .keras_tensor import KerasTensor
from .preprocessing.image import array_to_img

__all__ = ["Config", "get_source_inputs", "save_img", "split_dataset"]


class Config:
    """Named values with attribute access, freezing and JSON (follows `keras.utils.Config`).

    ``config.lr = 0.1`` and ``config["lr"] = 0.1`` set a value; ``config.lr`` and
    ``config["lr"]`` read it; `keys`, `values`, `items`, `get`, `pop` and `update` work as a
    dict's; iterating gives the keys in sorted order.

    Raises:
        ValueError: a change after `freeze` (Keras's message).
        AttributeError: an unknown name (with the closest key, as Keras suggests it).

    >>> config = ek.keras.utils.Config(learning_rate=0.1)
    >>> config.seed = 123
    >>> config.freeze()
    >>> config.to_json(), config.frozen
    ('{"learning_rate": 0.1, "seed": 123}', True)
    """

    _OWN = ("_config", "_frozen")

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self) -> bool:
        """Whether `freeze` was called (and not `unfreeze`)."""
        return self._frozen

    def freeze(self) -> None:
        """Refuses every later change (ValueError)."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self) -> None:
        """Allows changes again."""
        object.__setattr__(self, "_frozen", False)

    def _check_mutable(self) -> None:
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self) -> dict:
        """A shallow copy of the values as a dict."""
        return copy.copy(self._config)

    def to_json(self) -> str:
        """The values as a JSON string (``json.dumps``; TypeError for values JSON cannot hold)."""
        return json.dumps(self._config)

    def keys(self):
        """The names, in insertion order (a dict view)."""
        return self._config.keys()

    def values(self):
        """The values, in insertion order (a dict view)."""
        return self._config.values()

    def items(self):
        """``(name, value)`` pairs, in insertion order (a dict view)."""
        return self._config.items()

    def get(self, keyname, value=None):
        """The value of ``keyname``, or ``value`` if there is none."""
        return self._config.get(keyname, value)

    def pop(self, *args):
        """Removes and returns a value, as `dict.pop` (ValueError when frozen)."""
        self._check_mutable()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        """Sets several values, as `dict.update` (ValueError when frozen)."""
        self._check_mutable()
        return self._config.update(*args, **kwargs)

    def __setattr__(self, name: str, value) -> None:
        if name in Config._OWN or hasattr(type(self), name):
            raise AttributeError(f"Config: '{name}' is a method or property of Config.")
        self._check_mutable()
        self._config[name] = value

    def __getattr__(self, name: str):
        config = self.__dict__.get("_config", {})
        if name in config:
            return config[name]
        msg = f"Unknown attribute: '{name}'."
        close = difflib.get_close_matches(name, list(config), n=1, cutoff=0.7)
        if close:
            msg += f" Did you mean '{close[0]}'?"
        raise AttributeError(msg)

    def __setitem__(self, key, item) -> None:
        self._check_mutable()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __iter__(self):
        return iter(sorted(self._config))

    def __repr__(self) -> str:
        return f"<Config {self._config}>"


def get_source_inputs(tensor) -> list:
    """The `Input` KerasTensors ``tensor`` is computed from, in the order met (follows
    `keras.utils.get_source_inputs`); an Input itself gives ``[tensor]``.

    Raises:
        TypeError: ``tensor`` is not a KerasTensor.

    >>> x = ek.keras.Input((3,))
    >>> y = ek.keras.layers.Dense(2)(x)
    >>> ek.keras.utils.get_source_inputs(y) == [x]
    True
    """
    if not isinstance(tensor, KerasTensor):
        raise TypeError(f"get_source_inputs: expected a KerasTensor. Received: {tensor!r}")
    found: list = []
    seen: set = set()
    stack = [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        history = getattr(t, "_keras_history", None)
        if not history:
            found.append(t)
            continue
        layer, node_index, _ = history
        node = layer._inbound_nodes[node_index]
        if node.is_input:
            found.append(t)
        else:
            stack.extend(reversed(node.parents))
    return found


def _elements(dataset) -> list:
    """The samples of ``dataset`` as a list of nests of NumPy values."""
    from ..data.dataset import Dataset

    if isinstance(dataset, Dataset):
        return [nest.map_structure(lambda t: np.asarray(t), e) for e in dataset]
    flat = nest.flatten(dataset)
    arrays = [np.asarray(a.numpy() if isinstance(a, Tensor) else a) for a in flat]
    lengths = {len(a) for a in arrays}
    if len(lengths) != 1:
        raise ValueError(
            "split_dataset: the arrays must have the same length (the samples). Received "
            f"lengths {sorted(lengths)}."
        )
    n = lengths.pop()
    return [nest.pack_sequence_as(dataset, [a[i] for a in arrays]) for i in range(n)]


def _count(size, total: int, arg: str):
    if size is None:
        return None
    if isinstance(size, float):
        if not 0.0 < size < 1.0:
            raise ValueError(
                f"split_dataset: a float `{arg}` must be in (0, 1). Received: {arg}={size}"
            )
        return round(size * total)
    if isinstance(size, bool) or not isinstance(size, int) or not 0 < size <= total:
        raise ValueError(
            f"split_dataset: `{arg}` must be a float in (0, 1) or an int in [1, {total}] (the "
            f"number of samples). Received: {arg}={size!r}"
        )
    return size


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Splits the samples of ``dataset`` in two `ek.data.Dataset`s (follows
    `keras.utils.split_dataset`).

    Args:
        dataset: an `ek.data.Dataset` of samples (not batched), a NumPy array or Tensor, or
            a tuple/list/dict of them sharing their first dimension.
        left_size, right_size: each a fraction in (0, 1) or a number of samples; a missing
            one is the rest (both missing: 0.5 each).
        shuffle: shuffle the samples first, with ``seed`` (default: a random order).

    Returns:
        ``(left, right)``: Datasets of the samples, in order (or shuffled).

    Raises:
        ValueError: sizes out of range or larger together than the data, or arrays of
            different lengths.

    >>> left, right = ek.keras.utils.split_dataset(np.arange(10), left_size=0.8)
    >>> [int(x) for x in right]
    [8, 9]
    """
    from ..data.dataset import Dataset

    samples = _elements(dataset)
    total = len(samples)
    if left_size is None and right_size is None:
        left_size = 0.5
    left = _count(left_size, total, "left_size")
    right = _count(right_size, total, "right_size")
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total or left < 0 or right < 0:
        raise ValueError(
            f"split_dataset: left_size and right_size ({left} + {right} samples) exceed the "
            f"data's {total} samples."
        )
    if shuffle:
        order = np.random.default_rng(seed).permutation(total)
        samples = [samples[i] for i in order]

    def stacked(part):
        if not part:
            raise ValueError("split_dataset: a split would hold no sample.")
        return nest.map_structure(lambda *xs: np.stack(xs), *part)

    return (
        Dataset.from_tensor_slices(stacked(samples[:left])),
        Dataset.from_tensor_slices(stacked(samples[left : left + right])),
    )


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs) -> None:
    """Saves an image array ``(height, width, 1|3|4)`` to ``path`` with Pillow (follows
    `keras.utils.save_img`): scaled to 0-255 with ``scale``; the format from ``file_format``
    or the file name; an RGBA image saved as JPEG drops its alpha channel, as Keras does.

    Raises:
        ValueError: an array that is not one image (see `array_to_img`).
    """
    image = array_to_img(x, data_format=data_format, scale=scale)
    fmt = file_format or str(path).rsplit(".", 1)[-1]
    if image.mode == "RGBA" and fmt.lower() in ("jpg", "jpeg"):
        image = image.convert("RGB")
    image.save(path, format=file_format, **kwargs)
