"""`LossScaleOptimizer`: loss scaling for float16 training (follows
`tf.keras.mixed_precision.LossScaleOptimizer`, with Keras 3's `scale_loss` and `apply`).

float16 gradients underflow to zero below about 6e-8. Multiplying the loss by a large *loss
scale* multiplies every gradient on the way back by it, which lifts small gradients into
float16's range; dividing the (float32) variable gradients by the same scale undoes it before
the update. With dynamic loss scaling (TensorFlow's default) the scale adapts:

- a step whose gradients contain an Inf or NaN (the scale was too high) is skipped: no variable
  changes, the scale is halved (never below 1) and the count of good steps restarts;
- after ``dynamic_growth_steps`` steps in a row with finite gradients the scale doubles.

The scale and the count of good steps are Variables (``loss_scale/current_loss_scale`` and
``loss_scale/good_steps`` under the optimizer in a checkpoint, the wrapped optimizer under
``inner_optimizer``), so `ek.train.Checkpoint` and ``.keras`` files keep them.
"""

from __future__ import annotations

import numpy as np

from ...core.dispatch import stateful
from ...core.tensor import Tensor, to_tensor
from ...distribute import context as distribute_context
from ...interrupts import deferred_interrupt
from .base import Optimizer, scalar_variable

__all__ = ["LossScaleOptimizer"]

_DEFAULT_INITIAL_SCALE = 2.0**15
_DEFAULT_GROWTH_STEPS = 2000


class _DynamicLossScaleState:
    """The dynamic loss scale's two Variables, one object in the checkpoint graph (TF's
    ``_DynamicLossScaleState``)."""

    def __init__(self, initial_scale: float, growth_steps: int, name: str):
        self.current_loss_scale = scalar_variable(
            np.float32(initial_scale), "float32", f"{name}/current_loss_scale"
        )
        self.counter = scalar_variable(np.int64(0), "int64", f"{name}/good_steps")
        self.growth_steps = growth_steps

    def _checkpoint_children(self) -> list:
        return [("current_loss_scale", self.current_loss_scale), ("good_steps", self.counter)]

    def update(self, finite: bool) -> None:
        """TF's rule, after a step with finite (True) or non-finite gradients."""
        scale = float(self.current_loss_scale._value)
        if not finite:
            self.current_loss_scale.assign(np.float32(max(scale / 2.0, 1.0)))
            self.counter.assign(np.int64(0))
        elif int(self.counter._value) + 1 >= self.growth_steps:
            doubled = np.float32(scale * 2.0)
            if np.isfinite(doubled):
                self.current_loss_scale.assign(doubled)
            self.counter.assign(np.int64(0))
        else:
            self.counter.assign(self.counter._value + 1)


class LossScaleOptimizer(Optimizer):
    """An optimizer that scales the loss to keep float16 gradients from underflowing (follows
    `tf.keras.mixed_precision.LossScaleOptimizer`; see the module docstring for the rule).

    Args:
        inner_optimizer: the optimizer to wrap (an `ek.keras.optimizers.Optimizer`).
        dynamic: adapt the scale (default True); False keeps ``initial_scale`` fixed.
        initial_scale: the first loss scale; default ``2 ** 15`` when dynamic, required when
            not.
        dynamic_growth_steps: finite steps after which the scale doubles; default 2000 (must
            be None when ``dynamic`` is False).
        name: default ``"LossScaleOptimizer"``.

    Attributes:
        inner_optimizer: the wrapped optimizer.
        loss_scale: the current scale, a float32 scalar Tensor.
        dynamic: whether the scale adapts.
        dynamic_counter: the number of finite steps since the scale last changed (an int64
            Variable; None when not dynamic).
        iterations, learning_rate: the inner optimizer's.

    Raises:
        TypeError: ``inner_optimizer`` is not an optimizer or is itself a
            LossScaleOptimizer; ``dynamic`` is not a bool.
        ValueError: a scale that is not a positive finite number, a growth step count below
            1, ``initial_scale`` missing or ``dynamic_growth_steps`` given with
            ``dynamic=False``, or another keyword argument.

    Two ways to train with it, which differ in who divides the gradients by the scale:

    - TensorFlow 2.x: ``scaled_loss = opt.get_scaled_loss(loss)`` under the tape, then
      ``opt.apply_gradients(zip(opt.get_unscaled_gradients(tape.gradient(scaled_loss, vars)),
      vars))``: `apply_gradients` takes *unscaled* gradients.
    - Keras 3: ``opt.apply(tape.gradient(opt.scale_loss(loss), vars), vars)`` or
      ``opt.apply_gradients(zip(grads, vars))``: after `scale_loss`, both take the *scaled*
      gradients and unscale them themselves (until `get_scaled_loss` or
      `get_unscaled_gradients` is called again, which mark TF 2.x's way).

    `minimize` and `Model.fit` scale and unscale themselves. A step with a non-finite gradient
    changes no trained variable; it halves the scale and, as in TensorFlow, still counts in
    ``iterations``.

    >>> opt = ek.keras.mixed_precision.LossScaleOptimizer(ek.keras.optimizers.SGD(0.5))
    >>> v = ek.Variable([1.0, 2.0])
    >>> with ek.GradientTape() as tape:
    ...     loss = ek.reduce_sum(v * v)
    ...     scaled_loss = opt.get_scaled_loss(loss)
    >>> float(scaled_loss / loss)
    32768.0
    >>> grads = opt.get_unscaled_gradients(tape.gradient(scaled_loss, [v]))
    >>> _ = opt.apply_gradients(zip(grads, [v]))
    >>> v.numpy()
    array([0., 0.], dtype=float32)
    >>> _ = opt.apply_gradients([(ek.constant([np.nan, 1.0]), v)])  # skipped, scale halved
    >>> v.numpy(), float(opt.loss_scale)
    (array([0., 0.], dtype=float32), 16384.0)
    """

    def __init__(
        self,
        inner_optimizer,
        dynamic: bool = True,
        initial_scale=None,
        dynamic_growth_steps=None,
        name: str | None = None,
        **kwargs,
    ):
        if kwargs:
            raise ValueError(
                f"LossScaleOptimizer does not support arguments: {sorted(kwargs)}. Set them on "
                "the inner_optimizer instead."
            )
        if isinstance(inner_optimizer, LossScaleOptimizer):
            raise TypeError(
                "LossScaleOptimizer cannot wrap another LossScaleOptimizer, but got: "
                f"{inner_optimizer!r}"
            )
        if not isinstance(inner_optimizer, Optimizer):
            raise TypeError(
                '"inner_optimizer" must be an instance of ek.keras.optimizers.Optimizer, but '
                f"got: {inner_optimizer!r}"
            )
        if not isinstance(dynamic, (bool, np.bool_)):
            raise TypeError(
                '"dynamic" argument to LossScaleOptimizer.__init__ must be a bool, but got: '
                f"{dynamic!r}"
            )
        self._optimizer = inner_optimizer
        self.name = name or "LossScaleOptimizer"
        self._dynamic = bool(dynamic)
        if self._dynamic:
            initial_scale = _DEFAULT_INITIAL_SCALE if initial_scale is None else initial_scale
            if dynamic_growth_steps is None:
                dynamic_growth_steps = _DEFAULT_GROWTH_STEPS
            if (
                isinstance(dynamic_growth_steps, bool)
                or not isinstance(dynamic_growth_steps, (int, np.integer))
                or dynamic_growth_steps < 1
            ):
                raise ValueError(
                    "dynamic_growth_steps must be a positive integer. Received: "
                    f"dynamic_growth_steps={dynamic_growth_steps!r}"
                )
            dynamic_growth_steps = int(dynamic_growth_steps)
        else:
            if initial_scale is None:
                raise ValueError('"initial_scale" must be specified if "dynamic" is False')
            if dynamic_growth_steps is not None:
                raise ValueError(
                    '"dynamic_growth_steps" must be None if "dynamic" is False, but got: '
                    f"{dynamic_growth_steps}"
                )
        try:
            scale = float(initial_scale)
        except (TypeError, ValueError):
            scale = float("nan")
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(
                f"initial_scale must be a positive finite number. Received: "
                f"initial_scale={initial_scale!r}"
            )
        self._initial_scale = scale
        self._growth_steps = dynamic_growth_steps
        self._loss_scale = (
            _DynamicLossScaleState(scale, dynamic_growth_steps, self.name)
            if self._dynamic
            else None
        )
        # Which API scaled the loss last: Keras 3's `scale_loss` (then `apply_gradients`
        # gets scaled gradients and unscales them, as Keras 3's does) or TF 2.x's
        # `get_scaled_loss`/`get_unscaled_gradients` (then it gets unscaled ones).
        self._scaled_by_keras3 = False

    # -- what a checkpoint sees (TF: ``inner_optimizer`` and ``loss_scale``) ------------------
    def _checkpoint_children(self) -> list:
        out: list = [("inner_optimizer", self._optimizer)]
        if self._loss_scale is not None:
            out.append(("loss_scale", self._loss_scale))
        return out

    # -- properties ---------------------------------------------------------------------------
    @property
    def inner_optimizer(self) -> Optimizer:
        """The wrapped optimizer."""
        return self._optimizer

    @property
    def dynamic(self) -> bool:
        """Whether the loss scale adapts (dynamic loss scaling)."""
        return self._dynamic

    @property
    def loss_scale(self) -> Tensor:
        """The current loss scale, a float32 scalar Tensor."""
        if self._loss_scale is None:
            return to_tensor(np.float32(self._initial_scale), None, "LossScaleOptimizer")
        return self._loss_scale.current_loss_scale.read_value()

    @property
    def initial_scale(self) -> float:
        """The loss scale the optimizer started with."""
        return self._initial_scale

    @property
    def dynamic_growth_steps(self):
        """Finite steps after which the scale doubles (None when not dynamic)."""
        return self._growth_steps

    @property
    def dynamic_counter(self):
        """Finite steps since the scale last changed, an int64 Variable (None when not
        dynamic)."""
        return None if self._loss_scale is None else self._loss_scale.counter

    @property
    def dynamic_scale(self):
        """Keras 3's name of the scale: the float32 scalar Variable `loss_scale` reads (None
        when not dynamic)."""
        return None if self._loss_scale is None else self._loss_scale.current_loss_scale

    @property
    def step_counter(self):
        """Keras 3's name of `dynamic_counter`: finite steps since the scale last changed."""
        return self.dynamic_counter

    @property
    def iterations(self):
        """The inner optimizer's step count."""
        return self._optimizer.iterations

    @iterations.setter
    def iterations(self, value) -> None:
        self._optimizer.iterations = value

    @property
    def learning_rate(self):
        """The inner optimizer's learning rate."""
        return self._optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        self._optimizer.learning_rate = value

    lr = learning_rate

    @property
    def variables(self) -> list:
        """The loss scale's Variables, then the inner optimizer's."""
        own = (
            []
            if self._loss_scale is None
            else [
                self._loss_scale.current_loss_scale,
                self._loss_scale.counter,
            ]
        )
        return type(self._optimizer.variables)(own + list(self._optimizer.variables))

    def __getattr__(self, name: str):
        # Public attributes the wrapper does not define are the inner optimizer's
        # (``clipnorm``, ``get_slot``, ...), as TensorFlow's wrapper delegates them.
        if name.startswith("_") or "_optimizer" not in self.__dict__:
            raise AttributeError(name)
        return getattr(self._optimizer, name)

    # -- scaling ------------------------------------------------------------------------------
    def get_scaled_loss(self, loss):
        """``loss`` times the loss scale (in the loss's dtype); a callable ``loss`` gives a
        callable (follows `LossScaleOptimizer.get_scaled_loss`)."""
        if callable(loss) and not isinstance(loss, Tensor):

            def scaled_loss():
                return self._scaled(loss())

            return scaled_loss
        self._scaled_by_keras3 = False
        return self._scaled(loss)

    def scale_loss(self, loss):
        """``loss`` times the loss scale (follows Keras 3's `LossScaleOptimizer.scale_loss`):
        the gradients of the result go to `apply` or `apply_gradients` as they are, which
        then unscale them."""
        loss = self.get_scaled_loss(loss)
        self._scaled_by_keras3 = True
        return loss

    def _scaled(self, loss):
        from ...ops.elementwise import cast

        loss = to_tensor(loss, None, "LossScaleOptimizer.get_scaled_loss")
        return loss * cast(self.loss_scale, loss._value.dtype)

    def get_unscaled_gradients(self, grads) -> list:
        """Each gradient divided by the loss scale (None stays None), in its own dtype
        (follows `LossScaleOptimizer.get_unscaled_gradients`)."""
        from ...ops.elementwise import cast

        self._scaled_by_keras3 = False
        reciprocal = 1.0 / self.loss_scale
        out = []
        for g in grads:
            if g is None:
                out.append(None)
                continue
            g = to_tensor(g, None, "LossScaleOptimizer.get_unscaled_gradients")
            out.append(g * cast(reciprocal, g._value.dtype))
        return out

    # -- applying -----------------------------------------------------------------------------
    @stateful  # one step of a graph function: every replay checks and updates again
    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Applies *unscaled* gradients with the inner optimizer, unless one of them has an
        Inf or NaN: then nothing but the loss scale (halved), the good-step count (reset)
        and ``iterations`` (+1, as TensorFlow's) changes (follows
        `LossScaleOptimizer.apply_gradients`). After `scale_loss` (Keras 3's way) the
        gradients are the scaled ones and are unscaled first, as Keras 3's method does.

        Returns:
            The inner optimizer's `iterations`.

        Raises:
            NotImplementedError: in a replica context of a strategy with several replicas, or
                for mirrored variables.
            The inner optimizer's errors for bad pairs (nothing changes then).
        """
        pairs = list(grads_and_vars)
        if self._scaled_by_keras3:
            grads = self.get_unscaled_gradients([g for g, _ in pairs])
            self._scaled_by_keras3 = True  # the next step scales the same way
            pairs = list(zip(grads, [v for _, v in pairs]))
        if distribute_context.MIRRORED and _distributed(pairs):
            raise NotImplementedError(
                "LossScaleOptimizer.apply_gradients under a distribution strategy is not "
                "supported: the replicas would have to agree on skipping a step."
            )
        if self._loss_scale is None:
            return self._optimizer.apply_gradients(pairs)
        if not _all_finite(g for g, _ in pairs):
            with deferred_interrupt():  # scale, counter and step count change together
                self._loss_scale.update(False)
                steps = self._optimizer._iterations  # every step (`iterations` may count updates)
                steps.assign(steps._value + 1)
            return self._optimizer.iterations
        result = self._optimizer.apply_gradients(pairs)
        self._loss_scale.update(True)
        return result

    def apply(self, grads, trainable_variables=None):
        """Keras 3's spelling, which takes the *scaled* gradients of `scale_loss`: unscales
        them, then `apply_gradients`."""
        if trainable_variables is None:
            raise ValueError("LossScaleOptimizer.apply: trainable_variables is required.")
        grads = list(grads)
        return self.apply_gradients(zip(self.get_unscaled_gradients(grads), trainable_variables))

    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None) -> list:
        """`minimize`'s gradients, computed from the scaled loss and unscaled: a callable
        loss is scaled where it is computed, a Tensor loss through the cotangent the tape
        starts from (``grad_loss`` times the scale)."""
        if callable(loss) and not isinstance(loss, Tensor):
            pairs = super()._compute_gradients(self.get_scaled_loss(loss), var_list, grad_loss)
        else:
            from ...ops.creation import ones_like

            loss = to_tensor(loss, None, "LossScaleOptimizer.minimize")
            start = ones_like(loss) if grad_loss is None else to_tensor(grad_loss, None)
            pairs = super()._compute_gradients(loss, var_list, self._scaled(start), tape)
        grads = self.get_unscaled_gradients([g for g, _ in pairs])
        return list(zip(grads, [v for _, v in pairs]))

    def build(self, var_list) -> None:
        """Builds the inner optimizer's slots for ``var_list``."""
        self._optimizer.build(var_list)

    # -- configuration --------------------------------------------------------------------------
    def get_config(self) -> dict:
        """The inner optimizer's serialized config and the scaling arguments."""
        from ..saving import serialize_keras_object

        return {
            "name": self.name,
            "inner_optimizer": serialize_keras_object(self._optimizer),
            "dynamic": self._dynamic,
            "initial_scale": self._initial_scale,
            "dynamic_growth_steps": self._growth_steps,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None):
        """The optimizer `get_config` describes (its inner optimizer made anew)."""
        from ..saving import deserialize_keras_object

        config = dict(config)
        inner = config.pop("inner_optimizer")
        if isinstance(inner, dict):
            inner = deserialize_keras_object(inner, custom_objects)
        return cls(inner, **config)

    def __repr__(self) -> str:
        scale = float(self.loss_scale._value)
        return f"<LossScaleOptimizer loss_scale={scale:g} inner_optimizer={self._optimizer!r}>"


def _all_finite(grads) -> bool:
    """Whether no gradient (Tensors or arrays; None skipped) holds an Inf or NaN."""
    for g in grads:
        if g is None:
            continue
        if isinstance(g, Tensor):
            value, xp = g._value, g._device.xp
        else:
            value = np.asarray(g)
            xp = np
        if value.dtype.kind in "fc" and not bool(xp.isfinite(value).all()):
            return False
    return True


def _distributed(pairs: list) -> bool:
    """Whether applying ``pairs`` involves a strategy's replicas: a replica context of a
    strategy with several of them, or a mirrored variable."""
    from ...distribute.values import MirroredVariable

    replica = distribute_context.current_replica()
    if replica is not None and replica.strategy.extended.replicated:
        return True
    return any(isinstance(p, (tuple, list)) and isinstance(p[-1], MirroredVariable) for p in pairs)
