"""TensorFlow 1.x training names: ``ek.train``, ``ek.losses`` and ``ek.metrics``.

Code from the TensorFlow 1.x eager guides runs unchanged::

    optimizer = tf.train.AdamOptimizer(learning_rate=1e-3)
    global_step = tf.train.get_or_create_global_step()
    loss = lambda: tf.losses.sparse_softmax_cross_entropy(labels=y, logits=model(x))
    optimizer.minimize(loss, global_step=global_step)

The ``tf.train.*Optimizer`` classes share the Keras optimizers' machinery (validation, slot
variables, all-or-nothing in-place updates) with TensorFlow 1.x's formulas, defaults, slot
names and ``global_step`` argument. ``ek.losses`` holds TF 1.x's loss functions (weighted,
reduced by ``SUM_BY_NONZERO_WEIGHTS``) next to the Keras loss classes, as ``tf.losses`` does
in TF 1.13+; ``ek.metrics`` is ``ek.keras.metrics``.
"""

from __future__ import annotations

import types

from ..core.device import CPU
from ..core.device import device as device_scope
from ..core.tensor import Tensor, to_tensor
from ..core.variable import Variable
from ..keras import losses as _klosses
from ..keras import metrics as _kmetrics
from ..keras.optimizers.adagrad import Adagrad as _Adagrad
from ..keras.optimizers.adam import Adam as _Adam
from ..keras.optimizers.base import Optimizer as _KerasOptimizer
from ..keras.optimizers.base import mutable_array
from ..keras.optimizers.rmsprop import RMSprop as _RMSprop
from ..module import name_scope
from ..ops import nn
from ..ops.array_ops import squeeze
from ..ops.elementwise import abs as _abs
from ..ops.elementwise import cast, log, minimum, square
from ..ops.reduction import reduce_sum
from .session_run_hook import SessionRunArgs, SessionRunContext, SessionRunHook, SessionRunValues

__all__ = ["losses", "metrics", "train"]


# -- optimizers ---------------------------------------------------------------------------------


class _TF1Optimizer:
    """The TF 1.x optimizer interface (mixed into the classes below; follows
    `tf.compat.v1.train.Optimizer`)."""

    _warn_none_gradients = False  # TF 1.x skips None gradients silently

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Applies the gradients; increments ``global_step`` (an int Variable) if given.

        Raises:
            ValueError: no gradient for any variable, or a gradient whose shape or dtype
                differs from its variable's. Nothing (``global_step`` included) changes then.
        """
        if global_step is not None and not isinstance(global_step, Variable):
            raise TypeError(
                f"{type(self).__name__}.apply_gradients: global_step must be a Variable, got "
                f"{type(global_step).__name__}."
            )
        self._apply(grads_and_vars, () if global_step is None else (global_step,))
        return global_step if global_step is not None else self._iterations

    def compute_gradients(self, loss, var_list=None, **kwargs) -> list:
        """``[(gradient, variable)]`` for a loss callable (follows TF 1.x in eager mode).

        Args:
            loss: a zero-argument callable returning the loss.
            var_list: default the trainable Variables the loss read.

        Raises:
            RuntimeError: if ``loss`` is not callable (eager TF 1.x requires a function).
        """
        if not callable(loss):
            raise RuntimeError(
                f"{type(self).__name__}.compute_gradients: `loss` should be a function when "
                "eager execution is enabled, e.g. lambda: loss_fn(model(x), y)."
            )
        return self._compute_gradients(loss, var_list, kwargs.get("grad_loss"))

    def minimize(self, loss, global_step=None, var_list=None, name=None, **kwargs):
        """`compute_gradients` then `apply_gradients` (follows TF 1.x ``minimize``).

        Raises:
            ValueError: if no variable gets a gradient (the variables are named).
        """
        pairs = self.compute_gradients(loss, var_list=var_list, **kwargs)
        if all(g is None for g, _ in pairs):
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[v.name for _, v in pairs]} and loss."
            )
        return self.apply_gradients(pairs, global_step=global_step)

    def get_name(self) -> str:
        return self.name


class GradientDescentOptimizer(_TF1Optimizer, _KerasOptimizer):
    """``var -= learning_rate * g`` (follows `tf.compat.v1.train.GradientDescentOptimizer`).

    >>> w = ek.Variable(2.0)
    >>> step = get_or_create_global_step()  # ek.train.get_or_create_global_step()
    >>> opt = GradientDescentOptimizer(0.25)  # ek.train.GradientDescentOptimizer
    >>> _ = opt.minimize(lambda: w * w, global_step=step)
    >>> float(w), int(step) >= 1
    (1.0, True)
    """

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        _KerasOptimizer.__init__(self, learning_rate=learning_rate, name=name)
        self._slot_names = ()

    def update_step(self, gradient, variable, learning_rate) -> None:
        tmp = self._scratch_for(variable)
        variable._device.xp.multiply(gradient, learning_rate, out=tmp)
        var = mutable_array(variable)
        var -= tmp


class MomentumOptimizer(_TF1Optimizer, _KerasOptimizer):
    """Momentum, TF 1.x's form (follows `tf.compat.v1.train.MomentumOptimizer`)::

        accumulation = momentum * accumulation + g
        var -= lr * accumulation                              (use_nesterov=False)
        var -= lr * (g + momentum * accumulation)             (use_nesterov=True)

    With a constant learning rate this is Keras's SGD momentum (whose velocity is
    ``-lr * accumulation``). Slot: ``"momentum"``.
    """

    def __init__(
        self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False
    ):
        _KerasOptimizer.__init__(self, learning_rate=learning_rate, name=name)
        self.momentum = self._hyper("momentum", momentum)
        self.use_nesterov = bool(use_nesterov)
        self._slot_names = ("momentum",)

    def build(self, var_list) -> None:
        super().build(var_list)
        for v in var_list:
            self.add_slot(v, "momentum")

    def update_step(self, gradient, variable, learning_rate) -> None:
        xp = variable._device.xp
        tmp = self._scratch_for(variable)
        acc = mutable_array(self.get_slot(variable, "momentum"))
        acc *= self.momentum
        acc += gradient
        if self.use_nesterov:
            xp.multiply(acc, self.momentum, out=tmp)
            tmp += gradient
            tmp *= learning_rate
        else:
            xp.multiply(acc, learning_rate, out=tmp)
        var = mutable_array(variable)
        var -= tmp


class AdamOptimizer(_TF1Optimizer, _Adam):
    """Adam with TF 1.x's arguments (follows `tf.compat.v1.train.AdamOptimizer`): the same
    update as `ek.keras.optimizers.Adam` (bias correction in the step size, epsilon added
    to ``sqrt(v)``) with ``epsilon=1e-8``. Slots: ``"m"``, ``"v"``."""

    def __init__(
        self,
        learning_rate=0.001,
        beta1=0.9,
        beta2=0.999,
        epsilon=1e-8,
        use_locking=False,
        name="Adam",
    ):
        _Adam.__init__(self, learning_rate, beta_1=beta1, beta_2=beta2, epsilon=epsilon, name=name)


class RMSPropOptimizer(_TF1Optimizer, _RMSprop):
    """RMSProp with TF 1.x's arguments (follows `tf.compat.v1.train.RMSPropOptimizer`)::

        rms = decay * rms + (1 - decay) * g**2                 (rms starts at 1, not 0)
        mg = decay * mg + (1 - decay) * g                      (centered)
        mom = momentum * mom + lr * g / sqrt(rms [- mg**2] + epsilon)
        var -= mom

    Slots: ``"rms"``, ``"mg"`` (centered), ``"momentum"``.
    """

    _rms_initial = 1.0
    _always_momentum_slot = True

    def __init__(
        self,
        learning_rate,
        decay=0.9,
        momentum=0.0,
        epsilon=1e-10,
        use_locking=False,
        centered=False,
        name="RMSProp",
    ):
        _RMSprop.__init__(
            self,
            learning_rate,
            rho=decay,
            momentum=momentum,
            epsilon=epsilon,
            centered=centered,
            name=name,
        )


class AdagradOptimizer(_TF1Optimizer, _Adagrad):
    """Adagrad, TF 1.x's form (follows `tf.compat.v1.train.AdagradOptimizer`)::

        accumulator += g**2                    (starts at initial_accumulator_value)
        var -= lr * g / sqrt(accumulator)

    Slot: ``"accumulator"``.
    """

    def __init__(
        self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"
    ):
        _Adagrad.__init__(
            self,
            learning_rate,
            initial_accumulator_value=initial_accumulator_value,
            epsilon=0.0,
            name=name,
        )


_GLOBAL_STEP: list = [None]


def get_or_create_global_step(graph=None) -> Variable:
    """The process-wide step counter: an int64 non-trainable Variable named ``global_step``,
    created on the first call (follows `tf.compat.v1.train.get_or_create_global_step`)."""
    if _GLOBAL_STEP[0] is None:
        with device_scope(CPU), name_scope(""):  # named global_step in any scope, as in TF
            _GLOBAL_STEP[0] = Variable(0, trainable=False, name="global_step", dtype="int64")
    return _GLOBAL_STEP[0]


def get_global_step(graph=None) -> Variable | None:
    """The global step Variable, or None if none was created."""
    return _GLOBAL_STEP[0]


def create_global_step(graph=None) -> Variable:
    """Creates the global step (follows TF 1.x).

    Raises:
        ValueError: if it already exists.
    """
    if _GLOBAL_STEP[0] is not None:
        raise ValueError('"global_step" already exists.')
    return get_or_create_global_step()


def exponential_decay(
    learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None
):
    """A zero-argument callable giving ``learning_rate * decay_rate ** (global_step /
    decay_steps)`` for the current value of ``global_step`` (what TF 1.x returns in eager
    mode; pass it as an optimizer's learning rate).

    Raises:
        ValueError: if ``global_step`` is None.
    """
    if global_step is None:
        raise ValueError("exponential_decay: global_step is required.")
    from ..keras.optimizers.schedules import ExponentialDecay

    schedule = ExponentialDecay(learning_rate, decay_steps, decay_rate, staircase)
    return lambda: schedule(int(global_step))


def polynomial_decay(
    learning_rate,
    global_step,
    decay_steps,
    end_learning_rate=0.0001,
    power=1.0,
    cycle=False,
    name=None,
):
    """A zero-argument callable giving ``(learning_rate - end_learning_rate) * (1 -
    min(global_step, decay_steps) / decay_steps) ** power + end_learning_rate`` for the current
    value of ``global_step`` (what `tf.compat.v1.train.polynomial_decay` returns in eager mode);
    with ``cycle``, ``decay_steps`` grows to the first multiple of it at or past the step.

    >>> step = ek.Variable(3, dtype=ek.int64)
    >>> lr = ek.compat.v1.train.polynomial_decay(1e-3, step, 1000, end_learning_rate=0.0)
    >>> round(float(lr()), 7)
    0.000997

    Raises:
        ValueError: if ``global_step`` is None.
    """
    if global_step is None:
        raise ValueError("global_step is required for polynomial_decay.")
    from ..keras.optimizers.schedules import PolynomialDecay

    schedule = PolynomialDecay(learning_rate, decay_steps, end_learning_rate, power, cycle)
    return lambda: schedule(int(global_step))


_TRAIN_NAMES = {
    "Optimizer": _KerasOptimizer,
    "GradientDescentOptimizer": GradientDescentOptimizer,
    "MomentumOptimizer": MomentumOptimizer,
    "AdamOptimizer": AdamOptimizer,
    "RMSPropOptimizer": RMSPropOptimizer,
    "AdagradOptimizer": AdagradOptimizer,
    "get_or_create_global_step": get_or_create_global_step,
    "get_global_step": get_global_step,
    "create_global_step": create_global_step,
    "exponential_decay": exponential_decay,
    "polynomial_decay": polynomial_decay,
    "SessionRunArgs": SessionRunArgs,
    "SessionRunContext": SessionRunContext,
    "SessionRunHook": SessionRunHook,
    "SessionRunValues": SessionRunValues,
}


def _train_getattr(name: str):
    # The checkpoint names live in runtime/io/checkpoint.py.
    if name == "ExponentialMovingAverage":
        from ..moving_averages import ExponentialMovingAverage

        return ExponentialMovingAverage
    if name == "Saver":  # TF 1.x's name-based checkpoints, eager mode
        from ..io.saver import Saver

        return Saver
    if name in ("CheckpointView", "TrackableView"):
        from ..io import checkpoint_view

        return getattr(checkpoint_view, name)
    if name in ("CheckpointOptions", "load_variable"):
        from ..io import checkpoint_options

        return getattr(checkpoint_options, name)
    if name == "ClusterSpec":  # tf.train.ClusterSpec, as multi_worker_with_ctl builds one
        from ..distribute.multi_worker import ClusterSpec

        return ClusterSpec
    if name in (
        "Checkpoint",
        "CheckpointManager",
        "latest_checkpoint",
        "get_checkpoint_state",
        "list_variables",
        "load_checkpoint",
    ):
        try:
            from ..io import checkpoint
        except ImportError as exc:
            raise AttributeError(f"ek.train.{name} is not available: {exc}") from None
        return getattr(checkpoint, name)
    # The protocol-buffer messages (tf.train.Example, ...) live in runtime/io/example.py; a
    # missing `protobuf` raises its ImportError, which names the package.
    from ..io import example

    if name in example.MESSAGE_NAMES:
        return getattr(example, name)
    raise AttributeError(f"module 'eagerkernel.train' has no attribute {name!r}")


train = types.ModuleType("eagerkernel.train", "TensorFlow 1.x `tf.train` names.")
train.__dict__.update(_TRAIN_NAMES)
train.__getattr__ = _train_getattr


# -- losses (TF 1.x functions) ------------------------------------------------------------------


class Reduction:
    """Loss reductions of TF 1.x's ``tf.losses`` (and Keras's ``AUTO``)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS
    AUTO = "auto"

    @classmethod
    def all(cls) -> tuple:
        return (
            cls.NONE,
            cls.SUM,
            cls.MEAN,
            cls.SUM_OVER_BATCH_SIZE,
            cls.SUM_OVER_NONZERO_WEIGHTS,
            cls.SUM_BY_NONZERO_WEIGHTS,
        )


_KERAS_TO_TF1 = {"sum": Reduction.SUM, "sum_over_batch_size": Reduction.SUM_OVER_BATCH_SIZE}


def compute_weighted_loss(
    losses, weights=1.0, scope=None, loss_collection=None, reduction=None
) -> Tensor:
    """Weights ``losses`` and reduces them (follows `tf.compat.v1.losses.compute_weighted_loss`).

    ``weights`` broadcast to ``losses``. Reductions: ``SUM_BY_NONZERO_WEIGHTS`` (default:
    the weighted sum over the number of losses with a nonzero weight), ``MEAN`` (over the
    sum of the weights), ``SUM_OVER_BATCH_SIZE`` (over the number of losses), ``SUM``,
    ``NONE``. A zero denominator gives 0.

    Raises:
        ValueError: unknown reduction, or weights that do not broadcast to the losses.
    """
    reduction = Reduction.SUM_BY_NONZERO_WEIGHTS if reduction is None else reduction
    reduction = _KERAS_TO_TF1.get(reduction, reduction)
    if reduction not in Reduction.all():
        raise ValueError(f"Invalid reduction {reduction!r}; expected one of {Reduction.all()}.")
    losses = to_tensor(losses, None, "compute_weighted_loss")
    w = to_tensor(weights, losses._value.dtype, "compute_weighted_loss")
    if w._value.dtype != losses._value.dtype:
        w = cast(w, losses._value.dtype)
    xp = losses._device.xp
    try:
        w_full = xp.broadcast_to(w._value, losses._value.shape)
    except ValueError:
        raise ValueError(
            f"compute_weighted_loss: weights of shape {tuple(w.shape)} do not broadcast to the "
            f"losses of shape {tuple(losses.shape)}."
        ) from None
    weighted = losses * w
    if reduction == Reduction.NONE:
        return weighted
    total = reduce_sum(weighted)
    if reduction == Reduction.SUM:
        return total
    if reduction == Reduction.MEAN:
        denom = float(xp.sum(w_full))
    elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
        denom = float(losses._value.size)
    else:
        denom = float(xp.count_nonzero(w_full))
    return total / denom if denom else total * 0.0


def _check_shapes(op: str, a: Tensor, b: Tensor, names=("labels", "predictions")) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(
            f"{op}: {names[0]} of shape {tuple(a.shape)} and {names[1]} of shape "
            f"{tuple(b.shape)} are incompatible."
        )


def _pair(labels, predictions, op: str):
    p = _klosses.pred_tensor(predictions, op)
    return _klosses.true_tensor(labels, p, op), p


def sparse_softmax_cross_entropy(
    labels, logits, weights=1.0, scope=None, loss_collection=None, reduction=None
) -> Tensor:
    """Mean cross-entropy of integer ``labels`` (shape ``[N]`` or ``[N, 1]``) against
    ``logits`` ``[N, num_classes]`` (follows `tf.compat.v1.losses.sparse_softmax_cross_entropy`).

    >>> float(sparse_softmax_cross_entropy(labels=[0, 1], logits=[[0.0, 0.0]] * 2))
    0.693147...
    """
    logits = to_tensor(logits, None, "sparse_softmax_cross_entropy")
    labels = to_tensor(labels, None, "sparse_softmax_cross_entropy")
    if labels.ndim == logits.ndim and labels.ndim and labels.shape[-1] == 1:
        labels = squeeze(labels, -1)
    losses = nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, reduction=reduction)


def softmax_cross_entropy(
    onehot_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=None,
    reduction=None,
) -> Tensor:
    """Mean cross-entropy of one-hot labels against ``logits`` (follows
    `tf.compat.v1.losses.softmax_cross_entropy`); ``label_smoothing`` gives
    ``labels * (1 - ls) + ls / num_classes``.

    Raises:
        ValueError: if the shapes differ.
    """
    op = "softmax_cross_entropy"
    labels, logits = _pair(onehot_labels, logits, op)
    _check_shapes(op, labels, logits, ("onehot_labels", "logits"))
    if label_smoothing:
        labels = labels * (1.0 - label_smoothing) + label_smoothing / logits.shape[-1]
    losses = nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, reduction=reduction)


def sigmoid_cross_entropy(
    multi_class_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=None,
    reduction=None,
) -> Tensor:
    """Mean logistic loss (follows `tf.compat.v1.losses.sigmoid_cross_entropy`);
    ``label_smoothing`` gives ``labels * (1 - ls) + 0.5 * ls``."""
    op = "sigmoid_cross_entropy"
    labels, logits = _pair(multi_class_labels, logits, op)
    _check_shapes(op, labels, logits, ("multi_class_labels", "logits"))
    if label_smoothing:
        labels = labels * (1.0 - label_smoothing) + 0.5 * label_smoothing
    losses = nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, reduction=reduction)


def mean_squared_error(
    labels, predictions, weights=1.0, scope=None, loss_collection=None, reduction=None
) -> Tensor:
    """Mean of ``(predictions - labels)**2`` over all elements (follows
    `tf.compat.v1.losses.mean_squared_error`).

    Raises:
        ValueError: if the shapes differ.

    >>> float(mean_squared_error([0.0, 1.0], [1.0, 1.0]))  # ek.losses.mean_squared_error
    0.5
    """
    labels, predictions = _pair(labels, predictions, "mean_squared_error")
    _check_shapes("mean_squared_error", labels, predictions)
    losses = square(predictions - labels)
    return compute_weighted_loss(losses, weights, reduction=reduction)


def absolute_difference(
    labels, predictions, weights=1.0, scope=None, loss_collection=None, reduction=None
) -> Tensor:
    """Mean of ``|predictions - labels|`` (follows `tf.compat.v1.losses.absolute_difference`)."""
    labels, predictions = _pair(labels, predictions, "absolute_difference")
    _check_shapes("absolute_difference", labels, predictions)
    losses = _abs(predictions - labels)
    return compute_weighted_loss(losses, weights, reduction=reduction)


def huber_loss(
    labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=None, reduction=None
) -> Tensor:
    """Mean Huber loss (follows `tf.compat.v1.losses.huber_loss`)."""
    labels, predictions = _pair(labels, predictions, "huber_loss")
    _check_shapes("huber_loss", labels, predictions)
    err = _abs(predictions - labels)
    quadratic = minimum(err, delta)
    losses = 0.5 * square(quadratic) + delta * (err - quadratic)
    return compute_weighted_loss(losses, weights, reduction=reduction)


def log_loss(
    labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=None, reduction=None
) -> Tensor:
    """Mean of ``-labels log(p + eps) - (1 - labels) log(1 - p + eps)`` (follows
    `tf.compat.v1.losses.log_loss`)."""
    labels, predictions = _pair(labels, predictions, "log_loss")
    _check_shapes("log_loss", labels, predictions)
    losses = -labels * log(predictions + epsilon) - (1.0 - labels) * log(
        1.0 - predictions + epsilon
    )
    return compute_weighted_loss(losses, weights, reduction=reduction)


def _make_losses_module() -> types.ModuleType:
    mod = types.ModuleType(
        "eagerkernel.losses",
        "Losses: TF 1.x functions (weighted, reduced) and the Keras loss classes.",
    )
    # Keras names first (tf.losses in TF 2 is tf.keras.losses); the TF 1.x functions win
    # where a name is shared (mean_squared_error), as the TF 1.x eager guides expect.
    for name in _klosses.__all__:
        setattr(mod, name, getattr(_klosses, name))
    tf1 = {
        "Reduction": Reduction,
        "compute_weighted_loss": compute_weighted_loss,
        "sparse_softmax_cross_entropy": sparse_softmax_cross_entropy,
        "softmax_cross_entropy": softmax_cross_entropy,
        "sigmoid_cross_entropy": sigmoid_cross_entropy,
        "mean_squared_error": mean_squared_error,
        "absolute_difference": absolute_difference,
        "huber_loss": huber_loss,
        "log_loss": log_loss,
    }
    mod.__dict__.update(tf1)
    mod.__all__ = sorted(set(_klosses.__all__) | set(tf1))
    return mod


losses = _make_losses_module()
metrics = _kmetrics  # TF 1.x eager's tfe.metrics.Mean/Accuracy and TF 2's tf.metrics
