"""Learning-rate schedules (follows `tf.keras.optimizers.schedules`).

A schedule is called with the step (the optimizer's `iterations` before the update, an int)
and returns the learning rate for that step.
"""

from __future__ import annotations

import math

__all__ = [
    "ExponentialDecay",
    "InverseTimeDecay",
    "LearningRateSchedule",
    "PiecewiseConstantDecay",
    "deserialize",
]


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
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be > 0, got {decay_steps}.")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step) -> float:
        p = float(step) / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return self.initial_learning_rate * self.decay_rate**p

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
    ``staircase``; follows `tf.keras.optimizers.schedules.InverseTimeDecay`)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False, name=None):
        if decay_steps <= 0:
            raise ValueError(f"InverseTimeDecay: decay_steps must be > 0, got {decay_steps}.")
        self.initial_learning_rate = float(initial_learning_rate)
        self.decay_steps = decay_steps
        self.decay_rate = float(decay_rate)
        self.staircase = bool(staircase)
        self.name = name

    def __call__(self, step) -> float:
        p = float(step) / self.decay_steps
        if self.staircase:
            p = math.floor(p)
        return self.initial_learning_rate / (1.0 + self.decay_rate * p)

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

    def __call__(self, step) -> float:
        for b, v in zip(self.boundaries, self.values):
            if step <= b:
                return v
        return self.values[-1]

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
