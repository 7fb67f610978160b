"""`MultiOptimizer` and `OptimizerMap` (follow `keras.optimizers.MultiOptimizer` and
`keras.optimizers.OptimizerMap`, Keras 3): each variable trained by the optimizer its path
selects, in one step."""

from __future__ import annotations

import re
import warnings
from collections.abc import MutableMapping

from ...core.dispatch import stateful
from ...core.tensor import to_tensor
from ...core.variable import Variable
from ...distribute import context as distribute_context
from ...interrupts import deferred_interrupt
from .base import Optimizer, scalar_variable
from .loss_scale_optimizer import LossScaleOptimizer

__all__ = ["MultiOptimizer", "OptimizerMap"]


def _check_inner(optimizer, what: str) -> None:
    if not isinstance(optimizer, Optimizer):
        raise ValueError(f"{what} must be a Keras Optimizer instance. Received: {optimizer}")
    if isinstance(optimizer, LossScaleOptimizer):
        raise ValueError(f"{what} cannot be LossScaleOptimizer.")
    if isinstance(optimizer, MultiOptimizer):
        raise ValueError(f"{what} cannot be MultiOptimizer.")


class OptimizerMap(MutableMapping):
    """Variable paths (or regular expressions of them) to optimizers, with a default (follows
    `keras.optimizers.OptimizerMap`).

    ``map[key]`` is the optimizer of the exact key, else of the one pattern that
    ``re.fullmatch``-es the key (``"encoder/.*"`` for everything under ``encoder``; ``"encoder"``
    matches that path only), else the default; ``map(variable)`` looks up `Variable.path`.

    Args:
        default_optimizer: the optimizer of the variables no key matches.
        optimizer_map: an initial ``{key: optimizer}`` dict.

    Raises:
        TypeError: a default that is not an optimizer, a map that is not a dict.
        ValueError: (on lookup) a key two patterns match; (on assignment) a key already
            there, a key that is not a string, or an optimizer that is not a plain Keras
            optimizer (a LossScaleOptimizer or MultiOptimizer).

    >>> opt_map = ek.keras.optimizers.OptimizerMap(ek.keras.optimizers.SGD(name="sgd"))
    >>> opt_map["encoder/.*"] = ek.keras.optimizers.Adam(name="adam")
    >>> opt_map["encoder/dense/kernel"].name, opt_map["head/kernel"].name
    ('adam', 'sgd')
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError(
                "default_optimizer must be a Keras Optimizer instance. "
                f"Received: {default_optimizer}"
            )
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map: dict = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self) -> Optimizer:
        """The optimizer of the variables no key matches."""
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [p for p in self._optimizer_map if re.fullmatch(p, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer) -> None:
        if key in self._optimizer_map:
            raise ValueError(
                f"'{key}' already exists in the OptimizerMap with value "
                f"{self._optimizer_map[key]}. Please make sure to not use duplicated keys."
            )
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        _check_inner(optimizer, "optimizer")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key) -> None:
        del self._optimizer_map[key]

    def __len__(self) -> int:
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable) -> Optimizer:
        return self[variable.path]

    def get_config(self) -> dict:
        """``{"default_optimizer", "optimizer_map"}``, each optimizer as `serialize` gives it."""
        from . import serialize

        return {
            "default_optimizer": serialize(self._default_optimizer),
            "optimizer_map": {k: serialize(v) for k, v in self._optimizer_map.items()},
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> OptimizerMap:
        """The map `get_config` describes (each optimizer made anew)."""
        from . import deserialize

        default = deserialize(config["default_optimizer"], custom_objects)
        mapping = {k: deserialize(v, custom_objects) for k, v in config["optimizer_map"].items()}
        return cls(default, mapping)


class MultiOptimizer(Optimizer):
    """Trains each variable with its own optimizer (follows `keras.optimizers.MultiOptimizer`):
    the one an `OptimizerMap` gives for its path, or a callable ``optimizer_map(variable)``
    returns (asked once per variable, at its first step).

    One `apply_gradients` applies every group's step with its optimizer, then counts one step
    of its own `iterations`. The step is all or nothing: every group's slots are made first,
    and if any optimizer then raises, every variable, slot and step count is put back. As in
    Keras, there is no ``learning_rate`` (each optimizer has its own: `optimizers`).

    Args:
        optimizer_map: an `OptimizerMap`, or a callable from a Variable to an optimizer.
        loss_scale_factor: set on every optimizer (`scale_loss` multiplies losses by it and
            each optimizer divides its gradients by it); default None.
        name: default ``"multi_optimizer"``.

    Attributes:
        optimizers: the optimizers, in the order met (the map's values and its default first).
        iterations: the steps applied (an int64 Variable of its own).

    Checkpoints keep the step count (``iter``) and each optimizer (``optimizer-0``, ...); an
    optimizer a callable map first returns after the checkpoint was restored is not restored.

    Raises:
        TypeError: ``optimizer_map`` neither an OptimizerMap nor callable.
        ValueError: (at the first step) a map giving something other than a plain Keras
            optimizer (Keras's messages).
        AttributeError: reading or setting ``learning_rate`` (Keras's message).
        NotImplementedError: a step under a strategy with several replicas.

    >>> head = ek.Variable([1.0], name="head/kernel")
    >>> body = ek.Variable([1.0], name="body/kernel")
    >>> opt = ek.keras.optimizers.MultiOptimizer(ek.keras.optimizers.OptimizerMap(
    ...     ek.keras.optimizers.SGD(0.1), {"head/.*": ek.keras.optimizers.SGD(0.5)}))
    >>> _ = opt.apply_gradients([(ek.constant([1.0]), head), (ek.constant([1.0]), body)])
    >>> head.numpy(), body.numpy(), int(opt.iterations)
    (array([0.5], dtype=float32), array([0.9], dtype=float32), 1)
    """

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        if not isinstance(optimizer_map, OptimizerMap) and not callable(optimizer_map):
            raise TypeError(
                "optimizer_map must be an OptimizerMap or a callable returning an optimizer "
                f"for a variable. Received: {optimizer_map!r}"
            )
        self.name = name or "multi_optimizer"
        self._optimizer_map = optimizer_map
        self._inner: list = []
        self._assigned: dict = {}  # Variable _uid -> index in `_inner`
        self._iterations = scalar_variable(0, "int64", f"{self.name}/iter")
        if isinstance(optimizer_map, OptimizerMap):
            for optimizer in [*optimizer_map.values(), optimizer_map.default_optimizer]:
                if optimizer not in self._inner:
                    self._inner.append(optimizer)
        self.loss_scale_factor = loss_scale_factor

    # -- what the optimizer exposes -----------------------------------------------------------
    @property
    def optimizers(self) -> list:
        """The optimizers, in the order met."""
        return list(self._inner)

    @property
    def iterations(self):
        """The steps applied, an int64 Variable of its own."""
        return self._iterations

    @property
    def learning_rate(self):
        raise AttributeError(
            "Learning rate cannot be accessed on a MultiOptimizer. Access the learning rate "
            "on the individual sub-optimizers instead."
        )

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        raise AttributeError(
            "Learning rate cannot be set on a MultiOptimizer. Set the learning rate on the "
            "individual sub-optimizers instead."
        )

    @property
    def loss_scale_factor(self):
        """The factor `scale_loss` applies; setting it sets every optimizer's."""
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value) -> None:
        self.__dict__["_loss_scale_factor"] = value
        for optimizer in self._inner:
            optimizer.loss_scale_factor = value

    gradient_accumulation_steps = None  # each optimizer's own
    use_ema = False

    def _checkpoint_children(self) -> list:
        return [("iter", self._iterations)] + [
            (f"optimizer-{i}", optimizer) for i, optimizer in enumerate(self._inner)
        ]

    def _slot_items(self) -> list:
        return []  # the optimizers keep the slots (a checkpoint finds them there)

    def _all_variables(self) -> list:
        return [self._iterations] + [v for opt in self._inner for v in opt.variables]

    def scale_loss(self, loss):
        """``loss`` times `loss_scale_factor` (``loss`` itself if it is None)."""
        if self.loss_scale_factor is None:
            return loss
        return to_tensor(loss, None, "MultiOptimizer.scale_loss") * self.loss_scale_factor

    # -- assigning and building -----------------------------------------------------------------
    def _index_of(self, variable) -> int:
        index = self._assigned.get(variable._uid)
        if index is None:
            optimizer = self._optimizer_map(variable)
            if not isinstance(optimizer, Optimizer):
                raise ValueError(f"Optimizer for variable {variable} is not an Optimizer instance.")
            if isinstance(optimizer, LossScaleOptimizer):
                raise ValueError("LossScaleOptimizer cannot be used inside an MultiOptimizer.")
            if isinstance(optimizer, MultiOptimizer):
                raise ValueError("MultiOptimizer cannot be used inside an MultiOptimizer.")
            if optimizer not in self._inner:
                optimizer.loss_scale_factor = self.loss_scale_factor
                self._inner.append(optimizer)
            index = self._assigned[variable._uid] = self._inner.index(optimizer)
        return index

    def _groups(self, variables) -> dict:
        groups: dict = {}
        for v in variables:
            groups.setdefault(self._index_of(v), []).append(v)
        return groups

    def build(self, var_list) -> None:
        """Assigns each variable its optimizer and builds that optimizer's slots for it."""
        for index, variables in self._groups(var_list).items():
            self._inner[index].build(variables)

    # -- applying -------------------------------------------------------------------------------
    @stateful  # one step of a graph function: every replay applies again
    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Applies each group of ``(gradient, variable)`` pairs with its optimizer, then counts
        one step; all or nothing (see the class). Returns `iterations`.

        Raises:
            The optimizers' errors for bad pairs (nothing changes then); ValueError (Keras's
            messages) for a map that gives something other than a plain Keras optimizer.
        """
        from ...distribute.values import MirroredVariable

        pairs = list(grads_and_vars)
        replica = distribute_context.current_replica()
        if (replica is not None and replica.strategy.extended.replicated) or any(
            isinstance(p, (tuple, list)) and isinstance(p[-1], MirroredVariable) for p in pairs
        ):
            raise NotImplementedError(
                "MultiOptimizer.apply_gradients under a distribution strategy with several "
                "replicas is not supported."
            )
        for item in pairs:
            if not isinstance(item, (tuple, list)) or len(item) != 2:
                raise TypeError(
                    "MultiOptimizer.apply_gradients: expected (gradient, variable) pairs, got "
                    f"{item!r:.80}."
                )
            if not isinstance(item[1], Variable):
                raise TypeError(
                    "MultiOptimizer.apply_gradients: expected a Variable, got "
                    f"{type(item[1]).__name__} {item[1]!r:.60}."
                )
        if all(g is None for g, _ in pairs):
            names = [v.name for _, v in pairs]
            raise ValueError(f"No gradients provided for any variable: {names}.")
        missing = [v.name for g, v in pairs if g is None]
        if missing:
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss; "
                "they are left unchanged.",
                stacklevel=3,
            )
        groups: dict = {}
        for g, v in pairs:
            if g is not None:
                groups.setdefault(self._index_of(v), []).append((g, v))
        for index, group in groups.items():  # slots first: building cannot leave half a step
            self._inner[index].build([v for _, v in group])
        held = [self._iterations, *(v for _, v in pairs)]
        for index in groups:
            held.append(self._inner[index]._iterations)
            held.extend(self._inner[index].variables)
        backup = [(holder, holder._value) for holder in held]
        try:
            for index, group in sorted(groups.items()):
                self._inner[index].apply_gradients(group)
            with deferred_interrupt():
                self._iterations.assign(self._iterations._value + 1)
        except BaseException:
            with deferred_interrupt():
                for holder, value in backup:
                    holder._value = value
            raise
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Keras 3's spelling: ``apply(grads, trainable_variables)``."""
        if trainable_variables is None:
            raise ValueError("MultiOptimizer.apply: trainable_variables is required.")
        return self.apply_gradients(zip(grads, trainable_variables))

    def finalize_variable_values(self, var_list) -> None:
        """Each optimizer's `finalize_variable_values` for its variables."""
        for index, variables in self._groups(var_list).items():
            self._inner[index].finalize_variable_values(variables)

    # -- configuration --------------------------------------------------------------------------
    def get_config(self) -> dict:
        """``{"optimizer_map", "loss_scale_factor", "name"}``; the map as an OptimizerMap's
        config (a callable map cannot be serialized: ValueError)."""
        if not isinstance(self._optimizer_map, OptimizerMap):
            raise ValueError(
                "MultiOptimizer.get_config: a callable optimizer_map cannot be serialized; use "
                "an OptimizerMap."
            )
        return {
            "optimizer_map": {
                "class_name": "OptimizerMap",
                "config": self._optimizer_map.get_config(),
            },
            "loss_scale_factor": self.loss_scale_factor,
            "name": self.name,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> MultiOptimizer:
        """The MultiOptimizer `get_config` describes (its optimizers made anew)."""
        config = dict(config)
        mapping = config["optimizer_map"]
        config["optimizer_map"] = OptimizerMap.from_config(mapping["config"], custom_objects)
        return cls(**config)

    def __repr__(self) -> str:
        names = ", ".join(type(opt).__name__ for opt in self._inner)
        return f"<MultiOptimizer optimizers=[{names}] iterations={int(self._iterations)}>"
