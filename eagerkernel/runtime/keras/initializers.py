"""Weight initializers (`ek.keras.initializers`), with Keras's names, defaults and formulas.

An initializer is called as ``init(shape, dtype=None)`` and returns a Tensor of that shape and
dtype (float32 by default) on the current device. Random initializers draw as Keras 3's do
(`ek.keras.random` on the seed ``[seed, 0]``: the same values at every call); one without a
``seed`` takes one from Python's `random` module when it is made, so
``keras.utils.set_random_seed`` makes a model's weights Keras's.

Fans follow Keras: a kernel of shape ``(..., in, out)`` has ``fan_in = in * receptive`` and
``fan_out = out * receptive``, ``receptive`` being the product of the leading (spatial) sizes,
so a Conv2D kernel ``(3, 3, 16, 32)`` has fan_in 144 and fan_out 288.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import dtypes
from ..core.device import current_device
from ..core.tensor import Tensor, make
from . import random as _keras_random

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "IdentityInitializer",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "OrthogonalInitializer",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "deserialize",
    "get",
    "serialize",
]


def _shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"initializer: negative dimension in shape {shape}.")
    return shape


def _floatx() -> str:
    from .backend import floatx

    return floatx()


def _float_dtype(dtype, name: str) -> np.dtype:
    dt = np.dtype(_floatx()) if dtype is None else dtypes.numpy_dtype(dtype)
    if dt.kind != "f":
        raise TypeError(f"{name}: expected a floating dtype, got {dt.name}.")
    return dt


def _place(arr: np.ndarray) -> Tensor:
    device = current_device()
    return make(arr if device.xp is np else device.xp.asarray(arr), device)


def compute_fans(shape) -> tuple[float, float]:
    """``(fan_in, fan_out)`` of a weight shape, as Keras computes them."""
    shape = tuple(shape)
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    receptive = math.prod(shape[:-2])
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class Initializer:
    """Base class: subclasses implement ``__call__(shape, dtype=None)`` and `get_config`."""

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class Zeros(Initializer):
    """All zeros (any dtype).

    >>> ek.keras.initializers.Zeros()((2,)).numpy()
    array([0., 0.], dtype=float32)
    """

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        return _place(np.zeros(_shape(shape), dtype=dtypes.numpy_dtype(dtype or _floatx())))


class Ones(Initializer):
    """All ones (any dtype).

    >>> ek.keras.initializers.Ones()((2,), dtype="int32").numpy()
    array([1, 1], dtype=int32)
    """

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        return _place(np.ones(_shape(shape), dtype=dtypes.numpy_dtype(dtype or _floatx())))


class Constant(Initializer):
    """Fills with ``value`` (a scalar, or an array broadcastable to the shape).

    Raises:
        ValueError: a ``value`` that does not broadcast to the requested shape.

    >>> ek.keras.initializers.Constant(3.0)((2,)).numpy()
    array([3., 3.], dtype=float32)
    """

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        shape = _shape(shape)
        value = np.asarray(self.value.numpy() if isinstance(self.value, Tensor) else self.value)
        try:
            arr = np.broadcast_to(value, shape)
        except ValueError:
            raise ValueError(
                f"Constant: value of shape {value.shape} does not broadcast to shape {shape}."
            ) from None
        return _place(np.array(arr, dtype=dtypes.numpy_dtype(dtype or _floatx())))

    def get_config(self) -> dict:
        v = self.value
        return {"value": v.tolist() if isinstance(v, np.ndarray) else v}


class _Random(Initializer):
    """Shared seeding (Keras's ``RandomInitializer``): an int or a
    `ek.keras.random.SeedGenerator`, or, for None, `make_default_seed`'s draw when made."""

    def __init__(self, seed=None):
        self.seed = seed
        self._draw_seed = _keras_random.make_default_seed() if seed is None else seed

    def get_config(self) -> dict:
        return {"seed": self.seed}


def _normal(seed, shape, dt, mean, stddev):
    return _place(_keras_random.initializer_values("normal", shape, dt, seed, mean, stddev))


def _truncated(seed, shape, dt, mean, stddev):
    """Normal samples within two standard deviations (`ek.keras.random.truncated_normal`)."""
    values = _keras_random.initializer_values("truncated_normal", shape, dt, seed, mean, stddev)
    return _place(values)


def _uniform(seed, shape, dt, minval, maxval):
    return _place(_keras_random.initializer_values("uniform", shape, dt, seed, minval, maxval))


class RandomNormal(_Random):
    """Samples from N(mean, stddev²).

    >>> float(ek.keras.initializers.RandomNormal(stddev=0.0, mean=1.0)((3,)).numpy().mean())
    1.0
    """

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        dt = _float_dtype(dtype, "RandomNormal")
        return _normal(self._draw_seed, _shape(shape), dt, self.mean, self.stddev)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    """Samples from N(mean, stddev²), redrawing those more than two stddevs from the mean.

    >>> bool((abs(ek.keras.initializers.TruncatedNormal(stddev=1.0)((1000,)).numpy()) <= 2).all())
    True
    """

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        dt = _float_dtype(dtype, "TruncatedNormal")
        return _truncated(self._draw_seed, _shape(shape), dt, self.mean, self.stddev)


class RandomUniform(_Random):
    """Samples uniformly from ``[minval, maxval)``; integer dtypes give integers.

    >>> x = ek.keras.initializers.RandomUniform(-1.0, 1.0, seed=3)((100,)).numpy()
    >>> bool((x >= -1).all() and (x < 1).all())
    True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        dt = dtypes.numpy_dtype(dtype or _floatx())
        shape = _shape(shape)
        if dt.kind in "iu":
            lo, hi = int(self.minval), int(self.maxval)
            return _keras_random.randint(shape, lo, hi, dt, self._draw_seed)
        dt = _float_dtype(dt, "RandomUniform")
        return _uniform(self._draw_seed, shape, dt, self.minval, self.maxval)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class VarianceScaling(_Random):
    """Scales its distribution to the weight's fans (follows Keras's `VarianceScaling`).

    With ``n`` the fan chosen by ``mode`` (``"fan_in"``, ``"fan_out"`` or ``"fan_avg"``):
    ``"truncated_normal"`` draws N(0, s²) truncated at 2s with ``s = sqrt(scale / n) /
    0.8796...`` (so the truncated variance is ``scale / n``), ``"untruncated_normal"`` uses
    ``s = sqrt(scale / n)``, and ``"uniform"`` draws from ``[-l, l)`` with ``l = sqrt(3 * scale /
    n)``.

    Raises:
        ValueError: a non-positive ``scale``, unknown ``mode`` or ``distribution``.

    >>> init = ek.keras.initializers.VarianceScaling(2.0, "fan_in", "uniform")
    >>> w = init((400, 10)).numpy()
    >>> bool(abs(w).max() <= (3 * 2.0 / 400) ** 0.5)
    True
    """

    _MODES = ("fan_in", "fan_out", "fan_avg")
    _DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform", "normal")

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if not scale > 0:
            raise ValueError(f"VarianceScaling: scale must be positive. Received: scale={scale}")
        if mode not in self._MODES:
            raise ValueError(
                f"VarianceScaling: mode must be one of {self._MODES}. Received: mode={mode!r}"
            )
        distribution = distribution.lower()
        if distribution not in self._DISTRIBUTIONS:
            raise ValueError(
                f"VarianceScaling: distribution must be one of {self._DISTRIBUTIONS}. "
                f"Received: distribution={distribution!r}"
            )
        if distribution == "normal":  # Keras's old name
            distribution = "truncated_normal"
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        dt = _float_dtype(dtype, type(self).__name__)
        shape = _shape(shape)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[self.mode]
        variance = self.scale / max(1.0, n)
        seed = self._draw_seed
        if self.distribution == "truncated_normal":
            # 0.8796... is the stddev of a unit normal truncated to [-2, 2].
            stddev = math.sqrt(variance) / 0.87962566103423978
            return _truncated(seed, shape, dt, 0.0, stddev)
        if self.distribution == "untruncated_normal":
            return _normal(seed, shape, dt, 0.0, math.sqrt(variance))
        limit = math.sqrt(3.0 * variance)
        return _uniform(seed, shape, dt, -limit, limit)

    def get_config(self) -> dict:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
        }


def _preset(name: str, scale: float, mode: str, distribution: str, doc: str):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}

    cls = type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config})
    cls.__doc__ = doc
    cls.__module__ = __name__
    return cls


GlorotUniform = _preset(
    "GlorotUniform",
    1.0,
    "fan_avg",
    "uniform",
    """Uniform in ``[-l, l)``, ``l = sqrt(6 / (fan_in + fan_out))`` (Keras's default kernel).

    >>> w = ek.keras.initializers.GlorotUniform()((20, 30)).numpy()
    >>> bool(abs(w).max() <= (6 / 50) ** 0.5)
    True
    """,
)
GlorotNormal = _preset(
    "GlorotNormal",
    1.0,
    "fan_avg",
    "truncated_normal",
    "Truncated normal with variance ``2 / (fan_in + fan_out)``.",
)
HeNormal = _preset(
    "HeNormal", 2.0, "fan_in", "truncated_normal", "Truncated normal with variance ``2 / fan_in``."
)
HeUniform = _preset(
    "HeUniform", 2.0, "fan_in", "uniform", "Uniform in ``[-l, l)``, ``l = sqrt(6 / fan_in)``."
)
LecunNormal = _preset(
    "LecunNormal", 1.0, "fan_in", "truncated_normal", "Truncated normal, variance ``1 / fan_in``."
)
LecunUniform = _preset(
    "LecunUniform", 1.0, "fan_in", "uniform", "Uniform in ``[-l, l)``, ``l = sqrt(3 / fan_in)``."
)


class Orthogonal(_Random):
    """A (semi-)orthogonal matrix times ``gain``, from the QR decomposition of a normal one.

    Shapes of rank > 2 are flattened to ``(prod(shape[:-1]), shape[-1])``.

    Raises:
        ValueError: for shapes of rank below 2.

    >>> w = ek.keras.initializers.Orthogonal()((4, 4)).numpy()
    >>> np.allclose(w @ w.T, np.eye(4), atol=1e-5)
    True
    """

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        dt = _float_dtype(dtype, "Orthogonal")
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: shape must have rank >= 2. Received: shape={shape}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        a = _normal(self._draw_seed, flat, dt, 0.0, 1.0).numpy()
        q, r = np.linalg.qr(a.astype(np.float32) if a.dtype == np.float16 else a)  # no f16 QR
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return _place((self.gain * q).reshape(shape).astype(dt))

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only).

    >>> ek.keras.initializers.Identity()((2, 2)).numpy()
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs) -> Tensor:
        shape = _shape(shape)
        if len(shape) != 2:
            raise ValueError(f"Identity: shape must have rank 2. Received: shape={shape}")
        dt = dtypes.numpy_dtype(dtype or _floatx())
        return _place((self.gain * np.eye(*shape)).astype(dt))

    def get_config(self) -> dict:
        return {"gain": self.gain}


# Keras's function-style and snake_case names.
zeros = Zeros
ones = Ones
constant = Constant
random_normal = RandomNormal
random_uniform = RandomUniform
truncated_normal = TruncatedNormal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_normal = HeNormal
he_uniform = HeUniform
lecun_normal = LecunNormal
lecun_uniform = LecunUniform
orthogonal = Orthogonal
identity = Identity
OrthogonalInitializer = Orthogonal  # Keras 3's other names of these two
IdentityInitializer = Identity
variance_scaling = VarianceScaling

_ALIASES = {
    "zeros": Zeros,
    "zero": Zeros,
    "ones": Ones,
    "one": Ones,
    "constant": Constant,
    "random_normal": RandomNormal,
    "normal": RandomNormal,
    "random_uniform": RandomUniform,
    "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "xavier_uniform": GlorotUniform,
    "xavier_normal": GlorotNormal,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform,
    "orthogonal": Orthogonal,
    "identity": Identity,
    "variance_scaling": VarianceScaling,
}
_ALIASES.update({cls.__name__.lower(): cls for cls in set(_ALIASES.values())})


def serialize(initializer) -> dict:
    """``{"class_name": ..., "config": ...}`` for an initializer (Keras's format); a plain
    function (``kernel_initializer=ek.random.normal``) as `saving.serialize_function` writes
    it (a named function by its module and name)."""
    if not isinstance(initializer, Initializer) and callable(initializer):
        from .saving import serialize_function

        return serialize_function(initializer, f"initializer {initializer!r:.60}")
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config: dict) -> Initializer:
    """The initializer a `serialize` dict describes."""
    return get(config)


def get(identifier):
    """An initializer from a name, a config dict, a class, an instance or a callable.

    Names are Keras's (``"glorot_uniform"``, ``"he_normal"``, ``"zeros"``, ``"ones"``,
    ``"random_normal"``, ``"constant"``, ``"GlorotUniform"``, ...). A callable is returned as
    is and must accept ``(shape, dtype=...)``. None gives None.

    Raises:
        ValueError: for an unknown name or an object that is not an initializer.

    >>> ek.keras.initializers.get("he_normal")
    HeNormal(seed=None)
    """
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, str):
        cls = _ALIASES.get(identifier.lower()) or _ALIASES.get(identifier.replace("_", "").lower())
        if cls is None:
            raise ValueError(
                f"Unknown initializer: {identifier!r}. Known names: {sorted(set(_ALIASES))}."
            )
        return cls()
    if isinstance(identifier, dict) and identifier.get("class_name") in ("function", "__lambda__"):
        from .saving import deserialize_function

        return deserialize_function(identifier)
    if isinstance(identifier, dict) and "class_name" in identifier:
        cls = get(identifier["class_name"])
        return type(cls).from_config(dict(identifier.get("config", {})))
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}.")
