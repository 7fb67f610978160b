"""`Options` (follows `tf.data.Options`): settings of a whole input pipeline, attached with
`Dataset.with_options` and read back with `Dataset.options`.

What they do here:

- ``deterministic`` (``experimental_deterministic``): False lets the parallel `map` and
  `interleave` calls whose own ``deterministic`` is None hand out elements as they finish,
  as TensorFlow's does; None or True keep the input order.
- ``experimental_distribute.auto_shard_policy``: how a multi-worker strategy's
  `experimental_distribute_dataset` shards the pipeline (``AUTO``/``DATA``: each worker keeps
  its slice of every batch; ``OFF``: each worker keeps whole batches; ``FILE`` and ``HINT``
  raise NotImplementedError there).
- Every other option is a performance hint for TensorFlow's runtime (thread pools,
  autotuning budgets, graph rewrites such as ``map_and_batch_fusion``), which never changes
  the elements: they are checked and kept, and `options` returns them, but this pipeline's
  threads and plan do not read them.

Setting an option that does not exist raises AttributeError, a value of the wrong type
TypeError (TensorFlow's messages). Options of a pipeline merge: `Dataset.options` is every
`with_options` of the pipeline merged in order, later ones winning where both set a value.
"""

from __future__ import annotations

import enum
import logging as _logging
from typing import ClassVar

__all__ = [
    "AutoShardPolicy",
    "AutotuneAlgorithm",
    "AutotuneOptions",
    "DistributeOptions",
    "ExternalStatePolicy",
    "OptimizationOptions",
    "Options",
    "ServiceOptions",
    "ThreadingOptions",
    "WithOptions",
    "pipeline_options",
]


class AutoShardPolicy(enum.IntEnum):
    """How a multi-worker strategy shards a dataset (follows
    `tf.data.experimental.AutoShardPolicy`); see the module docstring."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.IntEnum):
    """What saving a pipeline with external state does (follows
    `tf.data.experimental.ExternalStatePolicy`); a hint here."""

    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.IntEnum):
    """TensorFlow's autotuning algorithms (follows ``tf.data.experimental.AutotuneAlgorithm``);
    a hint here."""

    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _OptionGroup:
    """A set of typed options: ``_fields`` maps a name to its type (a nested group's type is
    its class), ``_defaults`` gives the value of an option never set (None otherwise), and
    ``_aliases`` maps an old name to its new one. Only options set explicitly (and nested
    groups) are kept, so that merging tells a set value from a default."""

    _fields: ClassVar[dict] = {}
    _defaults: ClassVar[dict] = {}
    _aliases: ClassVar[dict] = {}

    def __init__(self):
        values = {}
        for name, kind in self._fields.items():
            if isinstance(kind, type) and issubclass(kind, _OptionGroup):
                values[name] = kind()
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str):
        values = self.__dict__.get("_values")
        name = self._aliases.get(name, name)
        if values is None or name not in self._fields:
            raise AttributeError(f"{type(self).__name__} has no option {name!r}.")
        return values.get(name, self._defaults.get(name))

    def __setattr__(self, name: str, value) -> None:
        name = self._aliases.get(name, name)
        if name not in self._fields:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        kind = self._fields[name]
        is_group = isinstance(kind, type) and issubclass(kind, _OptionGroup)
        if (value is not None or is_group) and not _is_of(value, kind):
            raise TypeError(
                f'Property "{name}" must be of type {kind}, got: {value} (type: {type(value)})'
            )
        if value is None:
            self._values.pop(name, None)
        else:
            self._values[name] = value

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other._values == self._values

    __hash__ = None

    def _merged(self, other: _OptionGroup) -> _OptionGroup:
        out = type(self)()
        for name in self._fields:
            mine, theirs = self._values.get(name), other._values.get(name)
            if isinstance(mine, _OptionGroup):
                out._values[name] = mine._merged(theirs)
            elif theirs is None:
                if mine is not None:
                    out._values[name] = mine
            else:
                if mine is not None and mine != theirs:  # TensorFlow logs the same
                    _logging.getLogger("eagerkernel").warning(
                        "Changing the value of option %s from %r to %r.", name, mine, theirs
                    )
                out._values[name] = theirs
        return out

    def __repr__(self) -> str:
        shown = {k: v for k, v in self._values.items() if not isinstance(v, _OptionGroup)}
        shown.update(
            (k, v) for k, v in self._values.items() if isinstance(v, _OptionGroup) and v._values
        )
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


def _is_of(value, kind) -> bool:
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is list:
        return isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)
    return isinstance(value, kind)


class ThreadingOptions(_OptionGroup):
    """``private_threadpool_size``, ``max_intra_op_parallelism`` (ints): hints."""

    _fields: ClassVar[dict] = {"max_intra_op_parallelism": int, "private_threadpool_size": int}


class AutotuneOptions(_OptionGroup):
    """``enabled`` (bool), ``cpu_budget``, ``ram_budget``, ``initial_parallelism``,
    ``min_parallelism`` (ints), ``autotune_algorithm`` (`AutotuneAlgorithm`): hints."""

    _fields: ClassVar[dict] = {
        "autotune_algorithm": AutotuneAlgorithm,
        "cpu_budget": int,
        "enabled": bool,
        "initial_parallelism": int,
        "min_parallelism": int,
        "ram_budget": int,
    }


class DistributeOptions(_OptionGroup):
    """``auto_shard_policy`` (`AutoShardPolicy`, AUTO when unset), ``num_devices`` (int)."""

    _fields: ClassVar[dict] = {"auto_shard_policy": AutoShardPolicy, "num_devices": int}
    _defaults: ClassVar[dict] = {"auto_shard_policy": AutoShardPolicy.AUTO}


class OptimizationOptions(_OptionGroup):
    """TensorFlow's graph rewrites of a pipeline (bools): hints."""

    _fields: ClassVar[dict] = dict.fromkeys(
        (
            "apply_default_optimizations",
            "filter_fusion",
            "filter_parallelization",
            "inject_prefetch",
            "map_and_batch_fusion",
            "map_and_filter_fusion",
            "map_fusion",
            "map_parallelization",
            "noop_elimination",
            "parallel_batch",
            "seq_interleave_prefetch",
            "shuffle_and_repeat_fusion",
        ),
        bool,
    )


class ServiceOptions(_OptionGroup):
    """``pinned`` (bool): tf.data service's, a hint."""

    _fields: ClassVar[dict] = {"pinned": bool}


class Options(_OptionGroup):
    """The options of an input pipeline (follows `tf.data.Options`; see the module docstring
    for what each does here).

    >>> options = ek.data.Options()
    >>> options.deterministic = False
    >>> options.experimental_distribute.auto_shard_policy = (
    ...     ek.data.experimental.AutoShardPolicy.DATA)
    >>> ds = ek.data.Dataset.range(4).with_options(options)
    >>> ds.options().deterministic, ds.options().experimental_distribute.auto_shard_policy
    (False, <AutoShardPolicy.DATA: 2>)
    >>> options.no_such_option = 1
    Traceback (most recent call last):
    ...
    AttributeError: Cannot set the property no_such_option on Options.
    """

    _fields: ClassVar[dict] = {
        "autotune": AutotuneOptions,
        "dataset_name": str,
        "deterministic": bool,
        "experimental_distribute": DistributeOptions,
        "experimental_external_state_policy": ExternalStatePolicy,
        "experimental_optimization": OptimizationOptions,
        "experimental_service": ServiceOptions,
        "experimental_slack": bool,
        "experimental_symbolic_checkpoint": bool,
        "experimental_warm_start": bool,
        "framework_type": list,
        "threading": ThreadingOptions,
    }
    _aliases: ClassVar[dict] = {
        "experimental_deterministic": "deterministic",
        "experimental_threading": "threading",
    }

    def merge(self, options: Options) -> Options:
        """These options with ``options``'s set values over them (a warning where both set
        one differently), as a new `Options` (follows ``Options.merge``).

        Raises:
            TypeError: ``options`` is not an `Options`.
        """
        if not isinstance(options, Options):
            raise TypeError(f"Options.merge: expected an Options, got {options!r}.")
        return self._merged(options)


# The datasets import this module's names; `WithOptions` is bound after Dataset exists.
from .dataset import Dataset  # noqa: E402


class WithOptions(Dataset):
    """`Dataset.with_options`: the input's elements, with ``options`` for the pipeline."""

    def __init__(self, input: Dataset, options: Options):
        if not isinstance(options, Options):
            raise TypeError(
                f"with_options: options must be an ek.data.Options. Received: {options!r}"
            )
        super().__init__(input)
        self._options = options

    def _iter(self, ctx):
        return self._inputs[0]._iter(ctx)

    def _spec(self, peek):
        return self._inputs[0]._spec(peek)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()

    def _plan(self):
        return self._inputs[0]._plan()

    def _cheap(self) -> bool:
        return self._inputs[0]._cheap()


def pipeline_options(dataset) -> Options:
    """The merged `Options` of every `WithOptions` upstream of ``dataset`` and its own, inputs
    first (see the module docstring)."""
    merged = Options()
    seen: set = set()

    def visit(ds) -> None:
        nonlocal merged
        if id(ds) in seen:
            return
        seen.add(id(ds))
        for inp in getattr(ds, "_inputs", ()):
            visit(inp)
        if isinstance(ds, WithOptions):
            merged = merged.merge(ds._options)

    visit(dataset)
    return merged
