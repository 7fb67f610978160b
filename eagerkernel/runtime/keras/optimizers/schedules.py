"""Learning-rate schedules (follows `tf.keras.optimizers.schedules`).

A schedule is called with the step (the optimizer's `iterations` before the update, an int)
and returns the learning rate for that step, a Python float. Called with several steps (an
array or tensor of them, as TensorFlow's overfit_and_underfit tutorial plots a schedule over
``np.linspace(0, 100000)``), it returns a float32 tensor of their learning rates, of the steps'
shape, as TensorFlow's schedules compute elementwise.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "deserialize",
]


def _steps(step) -> np.ndarray:
    """The step(s) as a float64 array (a 0-d one for one step)."""
    steps = np.asarray(step.numpy() if hasattr(step, "numpy") else step, dtype=np.float64)
    return steps


def _result(steps: np.ndarray, rate: np.ndarray):
    """A float for one step; a float32 tensor of the steps' shape for several."""
    if steps.ndim == 0:
        return float(rate)
    from ...core.tensor import constant

    return constant(np.asarray(rate, np.float32))


class LearningRateSchedule:
    """Base class: subclasses implement ``__call__(step) -> float`` and `get_config`."""

    def __call__(self, step) -> float:
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``, the exponent floored
    when ``staircase`` (follows `tf.keras.optimizers.schedules.ExponentialDecay`).

    >>> s = ek.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5)
    >>> s(0), s(10), round(s(5), 6)
    (0.1, 0.05, 0.070711)
    >>> s(np.array([0, 10, 20])).numpy()
    array([0.1  , 0.05 , 0.025], dtype=float32)
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be > 0, got {decay_steps}.")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step):
        steps = _steps(step)
        p = steps / self.decay_steps
        if self.staircase:
            p = np.floor(p)
        return _result(steps, self.initial_learning_rate * self.decay_rate**p)

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (floored ratio when
    ``staircase``; follows `tf.keras.optimizers.schedules.InverseTimeDecay`).

    >>> s = ek.keras.optimizers.schedules.InverseTimeDecay(0.001, decay_steps=10, decay_rate=1)
    >>> s(0), s(10)
    (0.001, 0.0005)
    >>> s(np.array([0.0, 30.0])).numpy()
    array([0.001  , 0.00025], dtype=float32)
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"InverseTimeDecay: decay_steps must be > 0, got {decay_steps}.")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step):
        steps = _steps(step)
        p = steps / self.decay_steps
        if self.staircase:
            p = np.floor(p)
        return _result(steps, self.initial_learning_rate / (1.0 + self.decay_rate * p))

    def get_config(self) -> dict:
        return {
            "initial_learning_rate": self.initial_learning_rate,
            "decay_steps": self.decay_steps,
            "decay_rate": self.decay_rate,
            "staircase": self.staircase,
            "name": self.name,
        }


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[i]`` while ``boundaries[i-1] < step <= boundaries[i]``
    (follows `tf.keras.optimizers.schedules.PiecewiseConstantDecay`).

    >>> s = ek.keras.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    >>> s(10), s(11), s(21)
    (1.0, 0.5, 0.1)
    >>> s(np.array([0, 15, 30])).numpy()
    array([1. , 0.5, 0.1], dtype=float32)
    """

    def __init__(self, boundaries, values, name=None):
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


def deserialize(config: dict) -> LearningRateSchedule:
    """A schedule from ``{"class_name": ..., "config": ...}``.

    Raises:
        ValueError: for an unknown class name.
    """
    classes = {c.__name__: c for c in (ExponentialDecay, InverseTimeDecay, PiecewiseConstantDecay)}
    cls = classes.get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Unknown learning-rate schedule: {config.get('class_name')!r}.")
    return cls.from_config(config["config"])
