"""`Optimizer`: the base of the Keras optimizers (follows `tf.keras.optimizers.Optimizer`).

An optimizer splits its state from its rule, as Keras does: `build(var_list)` creates the slot
variables of each trained variable (Adam's ``m`` and ``v``), and `update_step(gradient,
variable, learning_rate)` is the update formula for one variable. `apply_gradients` does the
rest, once, for every optimizer:

1. validate: every gradient is converted to an array of its variable's dtype, shape and device
   (a mismatch raises ValueError naming the variable and both shapes), None gradients are
   skipped with a warning, the learning rate (a float or a schedule) is evaluated, missing slots
   are created. Nothing has been modified yet, so an error here leaves every variable, slot and
   `iterations` as they were ("a failed step changes nothing").
2. commit: `update_step` for each variable, then ``iterations += 1``, then the constraints. This
   is array arithmetic on validated arrays, which cannot fail; when it could (a constraint, which
   is user code, or NumPy set to raise on floating-point errors) the old arrays are kept aside
   and put back if anything raises.

Updates are in place and copy-on-write (see `eagerkernel.runtime.keras.optimizers.inplace`):
an update rule writes a variable or slot only through `mutable_array`, and nobody who holds a
read of it sees the value change.
"""

from __future__ import annotations

import inspect
import math
import typing
import warnings

import numpy as np

from ... import nest
from ...core.context import context as _thread_context
from ...core.context import pop_scope as _pop_scope
from ...core.context import push_scope as _push_scope
from ...core.device import CPU
from ...core.device import device as device_scope
from ...core.dispatch import stateful
from ...core.tape import GradientTape
from ...core.tensor import Tensor, make, to_tensor
from ...core.variable import Variable
from ...distribute import context as distribute_context
from ...interrupts import deferred_interrupt
from ...module import name_scope
from ...observers import Observers
from ..argument_errors import unrecognized_arguments
from . import accumulation
from .averaging import averaged_variables, keras_arguments, overwrite_with_averages, update_averages
from .clipping import clip_gradients
from .gradient_checks import gradient_array
from .inplace import CHUNK as CHUNK
from .inplace import mutable_array, on_device, run_parallel, scale_in_place
from .weight_decay import WeightDecayExclusion

__all__ = ["Optimizer", "SlotObserver", "mutable_array"]


# -- the update's policy --------------------------------------------------------------------------

PARALLEL_MIN = 1 << 19  # elements: below this a variable's update runs at once, unsplit
# Subnormal floats. A slot whose gradient stays zero (a dead ReLU's weights, a pixel that is
# always 0) decays geometrically (Adam's m by beta_1 = 0.9 a step) and reaches the subnormal
# range after some 800 steps, where x86 arithmetic takes microcode assists and the update
# becomes several times slower. TensorFlow flushes subnormals to zero in its CPU threads; NumPy
# cannot set the FPU flags, so every FLUSH_EVERY steps the slots' entries below FLUSH_BELOW
# become exact zeros. From 1e-30, 0.9 a step needs about 175 steps to go subnormal (below
# 1.2e-38), so none does; the update they would have made is below lr * 1e-30 / epsilon, far
# under float32's precision.
FLUSH_EVERY = 100
FLUSH_BELOW = 1e-30


class _VariableList(list):
    """A list of Variables that can also be called: Keras 2 has ``optimizer.variables()`` (a
    method), TF 2.11+ and Keras 3 have ``optimizer.variables`` (a property); both work."""

    def __call__(self) -> list:
        return list(self)


def _takes_step(fn) -> bool:
    """Whether a learning-rate callable takes the step (a schedule) or nothing (TF 1.x)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(
        p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL) for p in params
    )


def scalar_variable(value, dtype, name: str) -> Variable:
    """A non-trainable scalar Variable (an optimizer's iterations, a loss scale)."""
    # On the CPU, as in Keras; outside any name scope, as Keras creates them in an init_scope.
    with device_scope(CPU), name_scope(""):
        return Variable(value, trainable=False, name=name, dtype=dtype)


class SlotObserver(typing.Protocol):
    """What `Optimizer.slot_observers` calls; every optimizer notifies it.

    >>> class Log:
    ...     def slot_created(self, optimizer, variable, slot_name, slot):
    ...         print(slot_name, slot.name)
    >>> log = Log()
    >>> ek.keras.optimizers.Optimizer.slot_observers.register(log)
    >>> w = ek.Variable([1.0], name="w")
    >>> _ = ek.keras.optimizers.Adam().apply_gradients([(ek.constant([1.0]), w)])
    m w/m:0
    v w/v:0
    >>> ek.keras.optimizers.Optimizer.slot_observers.unregister(log)
    """

    def slot_created(
        self, optimizer: Optimizer, variable: Variable, slot_name: str, slot: Variable
    ) -> None:
        """``optimizer.add_slot`` created ``slot``, the slot ``slot_name`` of ``variable``;
        called before `add_slot` returns it (so before the update that needed it). An
        exception raised here propagates out of `add_slot` (and `apply_gradients`, before
        any variable changed)."""


class GradientObserver(typing.Protocol):
    """What `Optimizer.gradient_observers` calls; every optimizer notifies it once per update
    (``ek.keras.callbacks.GradientNormLogger`` records gradient norms this way)."""

    def gradients_applied(self, optimizer: Optimizer, pairs: list) -> None:
        """``optimizer`` is about to apply ``pairs``, ``[(gradient array, variable)]``: the
        gradients after conversion and clipping (arrays on the variables' devices; do not
        modify them). An exception raised here propagates out of `apply_gradients`, before
        any variable changed."""


# Keras 3's Optimizer.get_config keys after the name and learning rate, in its order.
_BASE_CONFIG_KEYS = ("weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema")
_BASE_CONFIG_KEYS += ("ema_momentum", "ema_overwrite_frequency", "loss_scale_factor")
_BASE_CONFIG_KEYS += ("gradient_accumulation_steps",)


class Optimizer(WeightDecayExclusion):
    """Base class of optimizers (follows `tf.keras.optimizers.Optimizer`).

    Subclasses implement `build(var_list)` (create slot variables with `add_slot`, after
    calling ``super().build(var_list)``) and `update_step(gradient, variable, learning_rate)`.

    Args:
        learning_rate: a float, a `LearningRateSchedule` or a callable of the step (called
            with the number of steps taken so far, an int), or a zero-argument callable.
        name: the prefix of the optimizer's variable names.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient elementwise to ``[-clipvalue, clipvalue]``.
        global_clipnorm: clip all gradients together to this global L2 norm.
        weight_decay: decoupled weight decay: ``var -= var * weight_decay * lr`` before the
            update (Keras 3's `weight_decay` argument; `exclude_from_weight_decay` exempts
            variables).
        lr: old Keras spelling of ``learning_rate``.
        decay: old Keras 2 time decay: ``lr / (1 + decay * iterations)``.
        use_ema, ema_momentum, ema_overwrite_frequency: Keras's moving average of the
            weights, in an ``average`` slot (see `averaging`; `finalize_variable_values`).
        gradient_accumulation_steps: an int >= 2: the variables are updated every this many
            steps, with the mean of their gradients (see `accumulation`).
        loss_scale_factor: a positive float: `scale_loss` multiplies losses by it and each
            step divides its gradients by it (see `accumulation`).

    Attributes:
        iterations: an int64 non-trainable Variable, the number of steps applied (with
            ``gradient_accumulation_steps = n``, a Tensor: the number of updates, steps // n).
        learning_rate: the current rate, as Keras 3's: a float32 Variable (assign or set it
            to change the rate), or for a schedule or callable given as ``learning_rate``,
            its value now (a float32 Tensor; setting a number then raises TypeError).

    Raises:
        TypeError: for an unknown keyword argument.
        ValueError: for a negative or non-numeric hyperparameter, or more than one of
            clipnorm, clipvalue and global_clipnorm.

    Observing slot creation: ``Optimizer.slot_observers.register(observer)`` makes every
    optimizer call ``observer.slot_created(optimizer, variable, slot_name, slot)`` from
    `add_slot` (see `SlotObserver`); the list holds observers weakly (see
    `eagerkernel.runtime.observers.Observers`). Checkpoints use it to assign slot values
    saved before the slots existed.
    """

    slot_observers: typing.ClassVar[Observers] = Observers()
    #: Told of every update's gradients (`GradientObserver`), held weakly.
    gradient_observers: typing.ClassVar[Observers] = Observers()
    _warn_none_gradients = True

    def __init__(
        self,
        learning_rate=0.001,
        name: str | None = None,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
        weight_decay=None,
        **kwargs,
    ):
        if "lr" in kwargs:
            learning_rate = kwargs.pop("lr")
        decay = kwargs.pop("decay", 0.0)
        options = keras_arguments(type(self).__name__, kwargs)
        self.use_ema, self.ema_momentum, self.ema_overwrite_frequency = options[:3]
        self.loss_scale_factor = options.loss_scale_factor
        self.gradient_accumulation_steps = options.gradient_accumulation_steps
        if kwargs:
            raise unrecognized_arguments(type(self).__name__, kwargs)
        if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:  # as Keras 3
            raise ValueError(
                f"{type(self).__name__}: only one of clipnorm, clipvalue and global_clipnorm can "
                f"be set; received clipnorm={clipnorm}, clipvalue={clipvalue}, "
                f"global_clipnorm={global_clipnorm}."
            )
        self.name = name or type(self).__name__
        self.clipnorm = self._hyper("clipnorm", clipnorm)
        self.clipvalue = self._hyper("clipvalue", clipvalue)
        self.global_clipnorm = self._hyper("global_clipnorm", global_clipnorm)
        self.weight_decay = self._hyper("weight_decay", weight_decay)
        self.decay = self._hyper("decay", decay)
        self._iterations = scalar_variable(0, "int64", f"{self.name}/iter")
        self._learning_rate = None
        self.learning_rate = learning_rate
        self._built: set[int] = set()  # _uid of every variable whose slots exist
        self._slots: dict[int, tuple[Variable, dict[str, Variable]]] = {}
        self._slot_order: list[Variable] = []
        self._scratch: dict = {}
        self._parallel: list | None = None  # the kernels of this step, while one is applied

    def _hyper(self, arg: str, value, lo: float = 0.0, hi: float | None = None):
        """``value`` as a float checked to lie in ``[lo, hi]`` (None stays None)."""
        if value is None:
            return None
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"{type(self).__name__}: {arg} must be a number, received {arg}={value!r}."
            ) from None
        if not (value >= lo and (hi is None or value <= hi)):
            bounds = f"in [{lo}, {hi}]" if hi is not None else f">= {lo}"
            raise ValueError(
                f"{type(self).__name__}: {arg} must be {bounds}, received {arg}={value}."
            )
        return value

    # -- hyperparameters and counters ---------------------------------------------------------
    @property
    def iterations(self) -> Variable | Tensor:
        """The number of steps applied (an int64 non-trainable Variable); with gradient
        accumulation, the number of updates (an int64 Tensor, as Keras's)."""
        if self.gradient_accumulation_steps:
            return make(np.int64(self._update_count()), CPU)
        return self._iterations

    @iterations.setter
    def iterations(self, value) -> None:
        if isinstance(value, Variable):
            self._iterations = value
        else:
            self._iterations.assign(np.int64(value))

    def _update_count(self) -> int:
        """The updates applied so far: the step count of the update rules (Adam's ``t - 1``)
        and of the moving average; steps // ``gradient_accumulation_steps`` if it is set."""
        steps = int(self._iterations._value)
        n = self.gradient_accumulation_steps
        return steps // n if n else steps

    def scale_loss(self, loss):
        """``loss`` times ``loss_scale_factor``, or ``loss`` if it is None (follows Keras 3's
        `Optimizer.scale_loss`; `Model.fit` calls it, and each step divides the gradients by
        the factor)."""
        if self.loss_scale_factor is None:
            return loss
        return to_tensor(loss, None, f"{type(self).__name__}.scale_loss") * self.loss_scale_factor

    @property
    def learning_rate(self):
        """The learning rate (follows Keras 3's ``Optimizer.learning_rate``): the float32
        Variable of a constant rate, or the value of the schedule at `iterations` (of the
        callable: its value now) as a float32 Tensor. Setting a schedule or a callable
        replaces the rate; setting a number assigns it, and raises TypeError when the rate is
        a schedule, as Keras's does."""
        lr = self._learning_rate
        if isinstance(lr, Tensor) or not callable(lr):
            return lr
        return to_tensor(self._current_learning_rate(), "float32", "learning_rate")

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        if isinstance(value, Tensor) and type(value) is Tensor:
            value = float(value)
        if isinstance(value, (Variable, float, int, np.floating, np.integer)):
            from .schedules import LearningRateSchedule

            if isinstance(self._learning_rate, LearningRateSchedule):
                raise TypeError(
                    f"{type(self).__name__}: this optimizer was created with a "
                    "`LearningRateSchedule` object as its `learning_rate` constructor "
                    "argument, hence its learning rate is not settable. If you need the "
                    "learning rate to be settable, you should instantiate the optimizer with a "
                    "float `learning_rate` argument."
                )
            if isinstance(value, Variable):
                self._learning_rate = value
            elif isinstance(self._learning_rate, Variable):
                self._learning_rate.assign(np.float32(value))
            else:
                self._hyper("learning_rate", value, lo=-math.inf)
                self._learning_rate = scalar_variable(
                    np.float32(value), "float32", f"{self.name}/learning_rate"
                )
        elif callable(value):
            self._learning_rate = value
            self._lr_takes_step = _takes_step(value)
        else:
            raise ValueError(
                f"{type(self).__name__}: learning_rate must be a number, a schedule or a "
                f"callable, received learning_rate={value!r}."
            )

    lr = learning_rate

    def _current_learning_rate(self) -> float:
        """The rate for the step about to be applied, a Python float."""
        lr = self._learning_rate
        step = int(self._iterations._value)
        if isinstance(lr, Tensor):
            value = float(lr._value)
        else:
            value = float(lr(step) if self._lr_takes_step else lr())
        if self.decay:
            value /= 1.0 + self.decay * step
        return value

    # -- state ----------------------------------------------------------------------------------
    def build(self, var_list) -> None:
        """Creates the optimizer's state for ``var_list`` (subclasses add slots after this).

        Safe to call again: variables already built keep their slots.
        """
        for v in var_list:
            self._built.add(v._uid)
            if self.use_ema:  # the moving average of the weights (`averaging`)
                self.add_slot(v, "average", initializer=v._value)  # the average starts at v
            if self.gradient_accumulation_steps:
                self.add_slot(v, accumulation.SLOT)

    def add_slot(self, var: Variable, slot_name: str, initializer="zeros", shape=None) -> Variable:
        """Creates (once) the slot ``slot_name`` of ``var``: a non-trainable Variable of its
        shape (or ``shape``: Adafactor's factored moments) and dtype on its device, named
        ``"<var name>/<slot_name>"``.

        Args:
            initializer: ``"zeros"``, ``"ones"``, a number to fill with, or an array of the
                slot's shape to copy (ScheduleFreeAdamW's momentum starts as the variable).

        A new slot is reported to `Optimizer.slot_observers` (``slot_created``) before it is
        returned; a checkpoint restored earlier assigns its saved value then.
        """
        entry = self._slots.get(var._uid)
        if entry is None:
            entry = self._slots[var._uid] = (var, {})
        slots = entry[1]
        if slot_name in slots:
            return slots[slot_name]
        named = {"zeros": 0.0, "ones": 1.0}
        fill = named.get(initializer, initializer) if isinstance(initializer, str) else initializer
        with on_device(var._device):
            size = var._value.shape if shape is None else tuple(shape)
            value = var._device.xp.full(size, fill, dtype=var._value.dtype)
        with device_scope(var._device), name_scope(""):  # named after var, not the scope
            slot = Variable(
                make(value, var._device), trainable=False, name=f"{var._name}/{slot_name}"
            )
        slots[slot_name] = slot
        self._slot_order.append(slot)
        if Optimizer.slot_observers:
            Optimizer.slot_observers.notify("slot_created", self, var, slot_name, slot)
        return slot

    def get_slot(self, var: Variable, slot_name: str) -> Variable:
        """The slot ``slot_name`` of ``var`` (follows `Optimizer.get_slot`).

        Raises:
            KeyError: if ``var`` has no such slot (the slots it has are named).
        """
        entry = self._slots.get(var._uid)
        if entry is None or slot_name not in entry[1]:
            have = sorted(entry[1]) if entry else []
            raise KeyError(
                f"{type(self).__name__}.get_slot: {var.name} has no slot {slot_name!r} "
                f"(slots: {have}; names of this optimizer: {self.get_slot_names()})."
            )
        return entry[1][slot_name]

    def get_slot_names(self) -> list:
        """The names of the slots this optimizer creates per variable."""
        return list(getattr(self, "_slot_names", ()))

    def _slot_items(self) -> list:
        """``[(variable, slot_name, slot)]`` in creation order (for checkpoints)."""
        return [(var, n, s) for var, slots in self._slots.values() for n, s in slots.items()]

    def _all_variables(self) -> list:
        return [self._iterations, *self._slot_order]

    @property
    def variables(self) -> list:
        """``[iterations, *slots]`` in creation order (callable too: ``variables()``)."""
        return _VariableList(self._all_variables())

    @property
    def weights(self) -> list:
        return self._all_variables()

    def get_weights(self) -> list:
        """The values of `variables` as NumPy arrays (Keras 2)."""
        return [v.numpy() for v in self._all_variables()]

    def set_weights(self, weights) -> None:
        """Assigns `variables` from arrays (Keras 2). Raises ValueError on a count mismatch."""
        mine = self._all_variables()
        if len(weights) != len(mine):
            raise ValueError(
                f"{type(self).__name__}.set_weights: expected {len(mine)} arrays, got "
                f"{len(weights)}."
            )
        for v, w in zip(mine, weights):
            v.assign(w)

    def _scratch_for(self, variable):
        """A private buffer of ``variable``'s shape and dtype on its device, reused across
        steps (update rules compute into it instead of allocating temporaries)."""
        value = variable._value
        key = (id(variable._device), value.shape, value.dtype.str)
        buf = self._scratch.get(key)
        if buf is None:
            with on_device(variable._device):
                buf = variable._device.xp.empty(value.shape, dtype=value.dtype)
            self._scratch[key] = buf
        return buf

    def _elementwise(self, kernel, gradient, variable: Variable, slot_names, **scalars) -> None:
        """Runs the elementwise update ``kernel(xp, tmp, g, var, *slots, **scalars)`` on
        ``variable``'s array and its slots ``slot_names``, in place.

        ``tmp`` is a scratch array of the variable's shape; the kernel writes ``var`` and the
        slots through ``out=`` and in-place operators only. Large CPU variables are deferred to
        the end of the step and split over the cores (see the module docstring).
        """
        xp = variable._device.xp
        tmp = self._scratch_for(variable)
        arrays = [mutable_array(variable)]
        arrays += [mutable_array(self.get_slot(variable, name)) for name in slot_names]
        if (
            self._parallel is not None
            and xp is np
            and tmp.size >= PARALLEL_MIN
            and all(a.flags.c_contiguous for a in arrays)
        ):
            g = np.ascontiguousarray(gradient)
            self._parallel.append((kernel, tmp, g, arrays, scalars))
        else:
            kernel(xp, tmp, gradient, *arrays, **scalars)

    # -- the update rule ------------------------------------------------------------------------
    def update_step(self, gradient, variable: Variable, learning_rate: float) -> None:
        """Updates ``variable`` (and its slots) from ``gradient``.

        Args:
            gradient: an array (NumPy or CuPy) of the variable's shape, dtype and device.
            variable: the Variable; write through ``mutable_array(variable)`` and slots through
                ``mutable_array(self.get_slot(variable, name))``.
            learning_rate: this step's rate, a Python float.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement update_step.")

    # -- applying gradients ---------------------------------------------------------------------
    @stateful  # one step of a graph function: every replay updates the variables again
    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Applies one step of the update rule (follows `Optimizer.apply_gradients`).

        Args:
            grads_and_vars: an iterable of ``(gradient, variable)`` pairs, e.g.
                ``zip(grads, model.trainable_variables)``. Gradients may be Tensors, arrays or
                None (skipped, with a warning naming the variables).

        Returns:
            `iterations`, incremented.

        Raises:
            ValueError: all gradients None (``"No gradients provided for any variable"``), a
                gradient whose shape or dtype differs from its variable's (both named; a shape
                mismatch is an ``InvalidArgumentError``, as in TensorFlow), or a variable listed
                twice. Nothing has been modified then.
            TypeError: an item that is not a ``(gradient, Variable)`` pair, or an integer
                variable (see `gradient_checks`).

        >>> v = ek.Variable([1.0, 2.0])
        >>> opt = ek.keras.optimizers.SGD(learning_rate=0.1)
        >>> opt.apply_gradients([(ek.constant([1.0, 1.0]), v)]).numpy()
        np.int64(1)
        >>> v.numpy()
        array([0.9, 1.9], dtype=float32)

        Under an `ek.distribute` strategy whose variables are mirrored, a call in a replica
        context sums the gradients over the replicas first, and every replica's copy of each
        variable is updated (see `eagerkernel.runtime.distribute.context.apply_gradients`).
        """
        if distribute_context.MIRRORED:  # a strategy mirrors variables in this process
            return distribute_context.apply_gradients(self, grads_and_vars)
        return self._apply(grads_and_vars, ())

    def apply(self, grads, trainable_variables=None):
        """Keras 3 spelling: ``apply(grads, trainable_variables)``."""
        if trainable_variables is None:
            raise ValueError(f"{type(self).__name__}.apply: trainable_variables is required.")
        return self.apply_gradients(zip(grads, trainable_variables))

    def _apply(self, grads_and_vars, counters: tuple):
        # The update's ops run in a scope named after the optimizer, which recorders see
        # (`Recorder.on_scope`): %%tape tells them apart from the forward and backward ops.
        # The scope is left even when a Ctrl-C lands at its edge (see `push_scope`).
        ctx = _thread_context()
        before = ctx.scopes
        try:
            _push_scope(self.name, "optimizer")
            return self._apply_in_scope(grads_and_vars, counters)
        finally:
            ctx.scopes = before
            _pop_scope(before)

    def _apply_in_scope(self, grads_and_vars, counters: tuple):
        pairs = self._validated(grads_and_vars)
        if Optimizer.gradient_observers:
            Optimizer.gradient_observers.notify("gradients_applied", self, pairs)
        lr = self._current_learning_rate()
        new = [v for _, v in pairs if v._uid not in self._built]
        if new:
            self._build_all_or_nothing(new)
        variables = [v for _, v in pairs]
        constrained = [v for v in variables if v.constraint is not None]
        backup = None
        if constrained or _fp_errors_raise():
            # Holding the old arrays here also makes them shared (`mutable_array` copies), so the
            # update below copies instead of writing in place and the backup stays intact.
            backup = self._state_arrays(averaged_variables(self, variables), counters)
        with deferred_interrupt():  # Ctrl-C lands between steps, never inside one
            self._commit(pairs, lr, counters, constrained, backup)
        return self._iterations

    def _build_all_or_nothing(self, new: list) -> None:
        """`build` for the variables this step sees first, as part of the all-or-nothing
        step: a Ctrl-C waits until it is done, and if it raises (MemoryError, a slot observer's
        error) the slots it made are dropped and the variables count as unbuilt again, so the
        next step builds them afresh instead of finding a variable without its slots."""
        built, order = set(self._built), len(self._slot_order)
        had = {uid: dict(entry[1]) for uid, entry in self._slots.items()}
        try:
            with deferred_interrupt():
                self.build(new)
        except BaseException:
            with deferred_interrupt():
                self._built.intersection_update(built)
                del self._slot_order[order:]
                for uid in list(self._slots):
                    if uid not in had:
                        del self._slots[uid]
                    else:
                        slots = self._slots[uid][1]
                        slots.clear()
                        slots.update(had[uid])
            raise

    def _commit(self, pairs, lr, counters, constrained, backup) -> None:
        self._parallel = []
        try:
            variables = [v for _, v in pairs]
            if self.gradient_accumulation_steps:  # `accumulation`: the mean every n-th step
                pairs = accumulation.accumulate(self, pairs) or []
                pairs = self._clipped(pairs)
            wd = self.weight_decay
            for g, v in pairs:
                if v._device.xp is not np:  # CuPy: run the kernels on the variable's GPU
                    with on_device(v._device):
                        self._update_one(g, v, lr, wd)
                else:
                    self._update_one(g, v, lr, wd)
            tasks, self._parallel = self._parallel, None
            if tasks:
                run_parallel(tasks)
            for v in variables:
                if not v._value.shape:
                    self._rescalar(v)
            if self.use_ema:
                update_averages(self, averaged_variables(self, variables))
            for counter in (self._iterations, *counters):
                counter._value = counter._value + 1
            if int(self._iterations._value) % FLUSH_EVERY == 0:
                self._flush_tiny_slots()
            if constrained:
                values = [v._checked(v.constraint(v), "constraint") for v in constrained]
                for v, value in zip(constrained, values):
                    v._value = value
        except BaseException:
            self._parallel = None
            if backup is not None:
                for holder, old in backup:
                    holder._value = old
            raise

    def _flush_tiny_slots(self) -> None:
        """Sets slot entries below `FLUSH_BELOW` in magnitude to zero (see `FLUSH_EVERY`)."""
        for _, _, slot in self._slot_items():
            value = slot._value
            if value.dtype.kind != "f" or not value.shape:
                continue
            xp = slot._device.xp
            with on_device(slot._device):
                tiny = xp.abs(value) < FLUSH_BELOW
                if tiny.any():
                    xp.copyto(mutable_array(slot), 0, where=tiny)

    def _update_one(self, g, v: Variable, lr: float, wd) -> None:
        if wd and self.uses_weight_decay(v):
            scale_in_place(v, 1.0 - wd * lr)
        self.update_step(g, v, lr)

    def _rescalar(self, v: Variable) -> None:
        # Rank-0 values are NumPy scalars elsewhere in the runtime (`numpy()` gives
        # np.float32(1.5), not array(1.5)); the in-place update needed a 0-d array.
        entry = self._slots.get(v._uid)
        for holder in (v, *(entry[1].values() if entry else ())):
            holder._value = holder._value[()]

    def _state_arrays(self, variables, counters) -> list:
        out = [(self._iterations, self._iterations._value)]
        out += [(c, c._value) for c in counters]
        for v in variables:
            out.append((v, v._value))
            entry = self._slots.get(v._uid)
            if entry is not None:
                out += [(s, s._value) for s in entry[1].values()]
        return out

    def _validated(self, grads_and_vars) -> list:
        """``[(gradient array, variable)]``: converted, checked, divided by the loss scale
        factor, clipped (at the update step instead, with gradient accumulation); changes
        nothing."""
        op = f"{type(self).__name__}.apply_gradients"
        pairs = []
        for item in grads_and_vars:
            try:
                g, v = item
            except (TypeError, ValueError):
                raise TypeError(
                    f"{op}: expected (gradient, variable) pairs, got {item!r:.80}."
                ) from None
            if not isinstance(v, Variable):
                raise TypeError(f"{op}: expected a Variable, got {type(v).__name__} {v!r:.60}.")
            pairs.append((g, v))
        kept = [(g, v) for g, v in pairs if g is not None]
        if not kept:
            names = [v.name for _, v in pairs]
            raise ValueError(f"No gradients provided for any variable: {names}.")
        if len(kept) < len(pairs) and self._warn_none_gradients:
            missing = [v.name for g, v in pairs if g is None]
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss; "
                "they are left unchanged.",
                stacklevel=4,
            )
        seen = set()
        out = []
        for g, v in kept:
            if v._uid in seen:
                raise ValueError(f"{op}: variable {v.name} appears more than once.")
            seen.add(v._uid)
            out.append((self._gradient_array(g, v, op), v))
        if self.loss_scale_factor is not None:
            out = [(g / self.loss_scale_factor, v) for g, v in out]
        return out if self.gradient_accumulation_steps else self._clipped(out)

    _gradient_array = staticmethod(gradient_array)  # the checks of one pair

    def _clipped(self, pairs: list) -> list:
        return clip_gradients(pairs, self.clipvalue, self.clipnorm, self.global_clipnorm)

    def minimize(self, loss, var_list=None, tape=None, grad_loss=None, name=None):
        """Computes gradients of ``loss`` and applies them (follows `Optimizer.minimize`).

        Args:
            loss: a zero-argument callable returning the loss (run under a `GradientTape`),
                or a Tensor computed under ``tape``.
            var_list: the Variables to train, or a callable returning them; default the
                trainable Variables the loss read.
            tape: the `GradientTape` that recorded a Tensor ``loss``.
            grad_loss: optional cotangent of the loss.

        Returns:
            `iterations`.

        Raises:
            ValueError: a Tensor loss without ``tape``, or no gradient for any variable.

        >>> w = ek.Variable(3.0)
        >>> opt = ek.keras.optimizers.SGD(learning_rate=0.25)
        >>> _ = opt.minimize(lambda: w * w, var_list=[w])  # w -= 0.25 * 2w
        >>> w.numpy()
        np.float32(1.5)
        """
        return self.apply_gradients(self._compute_gradients(loss, var_list, grad_loss, tape))

    def _compute_gradients(self, loss, var_list, grad_loss=None, tape=None) -> list:
        """``[(gradient, variable)]`` of ``loss`` (`minimize`'s arguments and errors): runs a
        callable loss under a new tape, or takes a Tensor loss recorded by ``tape``."""
        where = f"{type(self).__name__}.minimize"
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None and not callable(var_list):
                    tape.watch(var_list)
                loss_value = loss()
        else:
            if tape is None:
                raise ValueError(
                    f"{where}: `tape` is required when a Tensor loss is passed; pass a "
                    "zero-argument callable instead, e.g. lambda: loss_fn(model(x), y)."
                )
            loss_value = loss
        if not isinstance(loss_value, Tensor):
            raise TypeError(
                f"{where}: the loss must be a Tensor, got {type(loss_value).__name__} "
                f"{loss_value!r:.60}."
            )
        if callable(var_list):
            var_list = var_list()
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
        var_list = nest.flatten(var_list)
        if self.loss_scale_factor is not None:  # the step divides the gradients by it
            from ...ops.creation import ones_like

            grad_loss = self.scale_loss(ones_like(loss_value) if grad_loss is None else grad_loss)
        grads = tape.gradient(loss_value, var_list, output_gradients=grad_loss)
        return list(zip(grads, var_list))

    # -- configuration --------------------------------------------------------------------------
    def get_config(self) -> dict:
        """The constructor arguments (follows `Optimizer.get_config`)."""
        lr = self._learning_rate
        if isinstance(lr, Tensor):
            lr = float(lr._value)
        elif hasattr(lr, "get_config"):
            lr = {"class_name": type(lr).__name__, "config": lr.get_config()}
        config = {"name": self.name, "learning_rate": lr}
        # Keras 3's base config: every key, None included, in its order.
        for key in _BASE_CONFIG_KEYS:
            config[key] = getattr(self, key)
        if self.decay:
            config["decay"] = self.decay
        return config

    def finalize_variable_values(self, var_list) -> None:
        """With ``use_ema``, gives the variables their moving averages (follows Keras's
        `Optimizer.finalize_variable_values`, which `Model.fit` calls when training ends);
        nothing otherwise."""
        if self.use_ema:
            overwrite_with_averages(self, [v for v in var_list if v._uid in self._built])

    @classmethod
    def from_config(cls, config: dict):
        """An optimizer made from `get_config`'s output."""
        config = dict(config)
        lr = config.get("learning_rate")
        if isinstance(lr, dict):
            from . import schedules

            config["learning_rate"] = schedules.deserialize(lr)
        return cls(**config)

    def __repr__(self) -> str:
        lr = self._learning_rate
        shown = f"{float(lr._value):g}" if isinstance(lr, Tensor) else repr(lr)
        return f"<{type(self).__name__} learning_rate={shown} iterations={int(self._iterations)}>"


def _fp_errors_raise() -> bool:
    """True if NumPy would raise inside the update (``np.seterr(all="raise")``), so that the
    update must be able to roll back."""
    err = np.geterr()
    return any(err[k] in ("raise", "call") for k in ("over", "invalid", "divide"))
