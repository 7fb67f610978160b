"""`ExponentialMovingAverage` (``tf.train.ExponentialMovingAverage``): shadow copies of
Variables that follow them slowly, ``shadow = decay * shadow + (1 - decay) * variable`` at each
`apply`, as TensorFlow keeps them for evaluating with averaged weights.

>>> w = ek.Variable([1.0, 2.0], name="w")
>>> ema = ek.train.ExponentialMovingAverage(decay=0.9)
>>> ema.apply([w])  # creates the shadow, equal to w
>>> _ = w.assign([2.0, 4.0])
>>> ema.apply([w])
>>> ema.average(w).numpy()
array([1.1, 2.2], dtype=float32)
>>> ema.average_name(w)
'w/ExponentialMovingAverage'
"""

from __future__ import annotations

from .core.device import device as device_scope
from .core.dispatch import stateful
from .core.tensor import Tensor
from .core.variable import Variable
from .module import name_scope

__all__ = ["ExponentialMovingAverage"]


class ExponentialMovingAverage:
    """Moving averages of Variables (follows `tf.train.ExponentialMovingAverage`).

    Args:
        decay: the decay, a float (or a scalar Tensor or Variable, read at each `apply`),
            typically close to 1 (0.999, 0.9999).
        num_updates: optional step count (an int, Tensor or Variable, read at each `apply`,
            not incremented by it): the decay used is then
            ``min(decay, (1 + num_updates) / (10 + num_updates))``, so early averages move
            faster.
        zero_debias: accepted as TensorFlow accepts it eagerly: it debiases only the
            averages of non-Variable tensors, which eager `apply` refuses, so it changes
            nothing.
        name: the suffix of the shadow variables' names (default
            ``"ExponentialMovingAverage"``).
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = bool(zero_debias)
        self._name = str(name)
        self._averages: dict = {}  # Variable uid -> (variable, shadow Variable)

    @property
    def name(self) -> str:
        """The name given to the constructor."""
        return self._name

    def _current_decay(self) -> float:
        decay = float(self._decay)
        if self._num_updates is not None:
            n = float(self._num_updates)
            decay = min(decay, (1.0 + n) / (10.0 + n))
        return decay

    @stateful  # a graph function's replays average again
    def apply(self, var_list=None) -> None:
        """Creates the shadow of each Variable seen for the first time (equal to its value),
        then moves every shadow towards its Variable.

        Args:
            var_list: Variables of a floating dtype (float16, float32, float64).

        Raises:
            TypeError: a non-Variable or a non-floating Variable (TensorFlow's messages);
                nothing is created or updated then.
        """
        variables = list(var_list or [])
        for v in variables:
            if not isinstance(v, Variable):
                raise TypeError(
                    "tf.train.ExponentialMovingAverage does not support non-Variable tensors "
                    "when eager execution is enabled."
                )
            if not v.dtype.is_floating:
                raise TypeError(f"The variables must be half, float, or double: {v.name}")
        decay = self._current_decay()
        for v in variables:
            entry = self._averages.get(v._uid)
            if entry is None:
                with device_scope(v._device), name_scope(""):
                    shadow = Variable(v.read_value(), trainable=False, name=self.average_name(v))
                entry = self._averages[v._uid] = (v, shadow)
            shadow = entry[1]  # TensorFlow's assign_moving_average: exact when they agree
            shadow.assign_sub((shadow - v.read_value()) * (1.0 - decay))

    def average(self, var):
        """The shadow Variable of ``var``, or None if `apply` has not seen it."""
        entry = self._averages.get(getattr(var, "_uid", None))
        return None if entry is None else entry[1]

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow: ``"<var's name without :0>/<name>"``."""
        if not isinstance(var, (Variable, Tensor)):
            raise TypeError(f"average_name: expected a Variable, got {type(var).__name__}.")
        base = getattr(var, "name", None) or "Variable:0"
        return f"{base.split(':')[0]}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """``{name: Variable}`` for restoring averaged weights into ``moving_avg_variables``
        (default: the Variables `apply` has seen): each Variable is keyed by its shadow's
        name, as TensorFlow 1.x's Saver takes it."""
        variables = (
            [v for v, _ in self._averages.values()]
            if moving_avg_variables is None
            else list(moving_avg_variables)
        )
        return {self.average_name(v): v for v in variables}
