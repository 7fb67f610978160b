"""Learning-rate schedules (follows `tf.keras.optimizers.schedules`).

A schedule is called with the step (the optimizer's `iterations` before the update) and
returns the learning rate for that step as a float32 tensor, as TensorFlow's schedules do: a
0-d one for one step (``float(schedule(step))`` is the Python number), and one of the steps'
shape for several (an array or tensor of them, as TensorFlow's overfit_and_underfit tutorial
plots a schedule over ``np.linspace(0, 100000)``), computed elementwise. The arithmetic is in
float64, rounded to float32 at the end, except `CosineDecay`'s, which is float32 in Keras's
order so its rates match Keras's bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "CosineDecay",
    "CosineDecayRestarts",
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "PolynomialDecay",
    "deserialize",
    "serialize",
]


def _steps(step) -> np.ndarray:
    """The step(s) as a float64 array (a 0-d one for one step)."""
    steps = np.asarray(step.numpy() if hasattr(step, "numpy") else step, dtype=np.float64)
    return steps


def _result(steps: np.ndarray, rate: np.ndarray):
    """The rate(s) as a float32 tensor of the steps' shape."""
    from ...core.tensor import constant

    return constant(np.asarray(rate, np.float32).reshape(steps.shape))


def _positive(cls: str, name: str, value) -> None:
    if value <= 0:
        raise ValueError(f"{cls}: {name} must be > 0, got {value}.")


class LearningRateSchedule:
    """Base class: subclasses implement ``__call__(step)`` (the rate, a float32 tensor) and
    `get_config`."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class _RateDecay(LearningRateSchedule):
    """What `ExponentialDecay` and `InverseTimeDecay` share: their arguments (``decay_steps``
    > 0, else ValueError), their config, and the default ``name``, the class's name as Keras's.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"{type(self).__name__}: decay_steps must be > 0, got {decay_steps}.")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = type(self).__name__ if name is None else name

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class ExponentialDecay(_RateDecay):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``, the exponent floored
    when ``staircase`` (follows `tf.keras.optimizers.schedules.ExponentialDecay`).

    >>> s = ek.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> s(5)
    <Tensor: shape=(), dtype=float32, numpy=0.07071068>
    >>> float(s(0)), float(s(10))
    (0.10000000149011612, 0.05000000074505806)
    >>> s(np.array([0, 10, 20])).numpy()
    array([0.1  , 0.05 , 0.025], dtype=float32)
    """

    def __call__(self, step):
        steps = _steps(step)
        p = steps / self.decay_steps
        if self.staircase:
            p = np.floor(p)
        return _result(steps, self.initial_learning_rate * self.decay_rate**p)


class InverseTimeDecay(_RateDecay):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (floored ratio when
    ``staircase``; follows `tf.keras.optimizers.schedules.InverseTimeDecay`).

    >>> s = ek.keras.optimizers.schedules.InverseTimeDecay(0.001, decay_steps=10, decay_rate=1)
    >>> s(0).numpy(), s(10).numpy()
    (np.float32(0.001), np.float32(0.0005))
    >>> s(np.array([0.0, 30.0])).numpy()
    array([0.001  , 0.00025], dtype=float32)
    """

    def __call__(self, step):
        steps = _steps(step)
        p = steps / self.decay_steps
        if self.staircase:
            p = np.floor(p)
        return _result(steps, self.initial_learning_rate / (1.0 + self.decay_rate * p))


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` while ``boundaries[i-1] < step <= boundaries[i]``
    (follows `tf.keras.optimizers.schedules.PiecewiseConstantDecay`).

    >>> s = ek.keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> [float(s(step)) for step in (10, 11, 21)]
    [1.0, 0.5, 0.10000000149011612]
    >>> s(np.array([0, 15, 30])).numpy()
    array([1. , 0.5, 0.1], dtype=float32)
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError(
                "PiecewiseConstantDecay: values must have one more element than boundaries; "
                f"received {len(boundaries)} boundaries and {len(values)} values."
            )
        self.boundaries = list(boundaries)
        self.values = [float(v) for v in values]
        self.name = name

    def __call__(self, step):
        steps = _steps(step)
        # the first boundary >= step picks the value; past the last, the last value
        index = np.searchsorted(np.asarray(self.boundaries, np.float64), steps, side="left")
        return _result(steps, np.asarray(self.values, np.float64)[index])

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """``(initial - end) * (1 - step / decay_steps) ** power + end``, the step held at
    ``decay_steps`` after it; with ``cycle``, ``decay_steps`` grows to the first multiple of it
    at or past the step instead (follows `tf.keras.optimizers.schedules.PolynomialDecay`).

    >>> s = ek.keras.optimizers.schedules.PolynomialDecay(1.0, 10, end_learning_rate=0.1)
    >>> s(np.array([0, 5, 10, 20])).numpy()
    array([1.  , 0.55, 0.1 , 0.1 ], dtype=float32)
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        end_learning_rate=0.0001,
        power=1.0,
        cycle=False,
        name="PolynomialDecay",
    ):
        _positive("PolynomialDecay", "decay_steps", decay_steps)
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.end_learning_rate = float(end_learning_rate)
        self.power = float(power)
        self.cycle = bool(cycle)
        self.name = name

    def __call__(self, step):
        steps = _steps(step)
        decay_steps = np.float64(self.decay_steps)
        if self.cycle:  # the first multiple of decay_steps at or past the step (1 at step 0)
            decay_steps = decay_steps * np.where(steps == 0, 1.0, np.ceil(steps / decay_steps))
            held = steps
        else:
            held = np.minimum(steps, decay_steps)
        p = held / decay_steps
        span = self.initial_learning_rate - self.end_learning_rate
        return _result(steps, span * (1.0 - p) ** self.power + self.end_learning_rate)

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "end_learning_rate": self.end_learning_rate,
            "power": self.power,
            "cycle": self.cycle,
            "name": self.name,
        }


def _cosine(fraction, alpha: float):
    """Half a cosine from 1 to ``alpha`` over ``fraction`` in [0, 1]."""
    return (1.0 - alpha) * 0.5 * (1.0 + np.cos(math.pi * fraction)) + alpha


def _cosine32(fraction, alpha: float):
    """`_cosine` in float32, as Keras's ``CosineDecay._decay_function`` computes it."""
    f32 = np.float32
    half = f32(0.5) * (f32(1.0) + np.cos(f32(math.pi) * fraction.astype(f32)))
    return f32(1.0 - alpha) * half + f32(alpha)


class CosineDecay(LearningRateSchedule):
    """Cosine decay from ``initial_learning_rate`` to ``alpha`` times it over ``decay_steps``,
    held there after; with ``warmup_target``, first a linear warm-up from
    ``initial_learning_rate`` to ``warmup_target`` over ``warmup_steps``, then the decay from
    ``warmup_target`` (follows `tf.keras.optimizers.schedules.CosineDecay`, SGDR without
    restarts, Loshchilov & Hutter 2017).

    >>> s = ek.keras.optimizers.schedules.CosineDecay(1.0, 10)
    >>> s(np.array([0, 5, 10, 20])).numpy()
    array([1.        , 0.49999997, 0.        , 0.        ], dtype=float32)
    >>> warm = ek.keras.optimizers.schedules.CosineDecay(
    ...     0.0, 10, warmup_target=1.0, warmup_steps=4)
    >>> warm(np.array([0, 2, 4, 9])).numpy()
    array([0.        , 0.5       , 1.        , 0.49999997], dtype=float32)
    """

    def __init__(
        self,
        initial_learning_rate,
        decay_steps,
        alpha=0.0,
        name="CosineDecay",
        warmup_target=None,
        warmup_steps=0,
    ):
        _positive("CosineDecay", "decay_steps", decay_steps)
        if warmup_steps < 0:
            raise ValueError(f"CosineDecay: warmup_steps must be >= 0, got {warmup_steps}.")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.alpha = float(alpha)
        self.name = name
        self.warmup_target = None if warmup_target is None else float(warmup_target)
        self.warmup_steps = warmup_steps

    def __call__(self, step):
        # Float32 throughout, in Keras's order of operations, so the rates match
        # `keras.optimizers.schedules.CosineDecay` to the bit (float64 differs in the last ulp).
        f32 = np.float32
        steps = _steps(step)
        held = steps.astype(f32)
        initial, decay_steps = f32(self.initial_learning_rate), f32(self.decay_steps)
        if self.warmup_target is None:
            held = np.minimum(held, decay_steps)
            return _result(steps, initial * _cosine32(held / decay_steps, self.alpha))
        target, warmup_steps = f32(self.warmup_target), f32(self.warmup_steps)
        held = np.minimum(held, decay_steps + warmup_steps)
        with np.errstate(divide="ignore", invalid="ignore"):  # warmup_steps 0: never warming
            warm = (target - initial) * (held / warmup_steps) + initial
        decayed = target * _cosine32((held - warmup_steps) / decay_steps, self.alpha)
        return _result(steps, np.where(held < warmup_steps, warm, decayed))

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "alpha": self.alpha,
            "name": self.name,
            "warmup_target": self.warmup_target,
            "warmup_steps": self.warmup_steps,
        }


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter 2017): a cosine from
    ``initial_learning_rate`` to ``alpha`` times it over ``first_decay_steps``, then again
    from the start, each period ``t_mul`` times longer and ``m_mul`` times higher than the
    last (follows `tf.keras.optimizers.schedules.CosineDecayRestarts`).

    >>> s = ek.keras.optimizers.schedules.CosineDecayRestarts(1.0, 10)
    >>> s(np.array([0, 5, 10, 20, 30])).numpy()
    array([1. , 0.5, 1. , 0.5, 1. ], dtype=float32)
    """

    def __init__(
        self,
        initial_learning_rate,
        first_decay_steps,
        t_mul=2.0,
        m_mul=1.0,
        alpha=0.0,
        name="SGDRDecay",
    ):
        _positive("CosineDecayRestarts", "first_decay_steps", first_decay_steps)
        _positive("CosineDecayRestarts", "t_mul", t_mul)
        self.initial_learning_rate = float(initial_learning_rate)
        self.first_decay_steps = first_decay_steps
        self.t_mul = float(t_mul)
        self.m_mul = float(m_mul)
        self.alpha = float(alpha)
        self.name = name

    def __call__(self, step):
        steps = _steps(step)
        fraction = steps / self.first_decay_steps
        t_mul = self.t_mul
        if t_mul == 1.0:  # periods of equal length
            restart = np.floor(fraction)
            fraction = fraction - restart
        else:  # period i lasts t_mul**i: the restart whose geometric sum passes the fraction
            restart = np.floor(np.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            done = (1.0 - t_mul**restart) / (1.0 - t_mul)
            fraction = (fraction - done) / t_mul**restart
        rate = self.m_mul**restart * _cosine(fraction, 0.0)
        rate = (1.0 - self.alpha) * rate + self.alpha
        return _result(steps, self.initial_learning_rate * rate)

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "first_decay_steps": self.first_decay_steps,
            "t_mul": self.t_mul,
            "m_mul": self.m_mul,
            "alpha": self.alpha,
            "name": self.name,
        }


_SCHEDULES = (
    CosineDecay,
    CosineDecayRestarts,
    ExponentialDecay,
    InverseTimeDecay,
    PiecewiseConstantDecay,
    PolynomialDecay,
)


def serialize(schedule: LearningRateSchedule) -> dict:
    """Keras 3's description of a schedule (what `deserialize` reads): ``{"module":
    "keras.optimizers.schedules", "class_name", "config", "registered_name": None}`` for a
    built-in one; a subclass of the user's has ``module`` None and its class name as
    ``registered_name`` (follows `keras.optimizers.schedules.serialize`).

    >>> serialize(ExponentialDecay(0.1, 10, 0.9))["class_name"]
    'ExponentialDecay'
    """
    name = type(schedule).__name__
    builtin = type(schedule) in _SCHEDULES
    return {
        "module": "keras.optimizers.schedules" if builtin else None,
        "class_name": name,
        "config": schedule.get_config(),
        "registered_name": None if builtin else name,
    }


def deserialize(config: dict, custom_objects: dict | None = None) -> LearningRateSchedule:
    """A schedule from ``{"class_name": ..., "config": ...}`` (Keras 3's ``module`` and
    ``registered_name`` keys may be there too); ``custom_objects`` maps the names of the
    user's schedule classes to them (follows `keras.optimizers.schedules.deserialize`).

    Raises:
        ValueError: for an unknown class name.
    """
    classes = {c.__name__: c for c in _SCHEDULES}
    classes.update(custom_objects or {})
    cls = classes.get(config.get("registered_name")) or classes.get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Unknown learning-rate schedule: {config.get('class_name')!r}.")
    return cls.from_config(config["config"])
