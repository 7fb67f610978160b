"""The gradient tape (follows `tf.GradientTape`); the profiling tape behind ``%%tape`` is its
subclass in `profiling_tape`.

A tape is a `Recorder`: while it is recording (inside ``with``), `dispatch` hands it every op
its thread runs, and it keeps a `Record` of each op whose input it tracks (a watched tensor,
an accessed trainable Variable, or the output of an op it recorded) and whose output is
floating. Tensors hold nothing of tapes, so no tape keeps a tensor alive unless it recorded
it, and a non-persistent tape drops everything when `gradient` returns.

A Variable an op reads is recorded as a snapshot of its value (TF's ``ReadVariableOp``); the
backward pass keys the snapshot by the Variable's id, so the gradient reaches the Variable,
and ops on the snapshot recorded later (a backward pass under an outer tape) count as reads of
the Variable too (gradient penalties, Hessian-vector products with respect to weights).

The backward pass itself is `backward.backward`.
"""

from __future__ import annotations

import logging
import time
import weakref

import numpy as np

from .. import nest
from ..native import ENABLED as _NATIVE
from . import context as _context
from .backward import backward
from .composite import CompositeTensor
from .context import Recorder
from .records import Record
from .tensor import Tensor, make
from .variable import Variable

try:  # the C twin of `record` (native/_tape.c); the Python methods are the specification
    from ..native._tape import TapeRecorder as _NativeRecord
except ImportError:  # not built (no C compiler at install time)
    _NativeRecord = None

__all__ = ["GradientTape", "UnconnectedGradients", "stop_recording"]

_perf_counter = time.perf_counter


# [True]: tapes made from now on record through the C twin when it is built. Tests set it to
# [False] (or the environment variable EAGERKERNEL_NATIVE=0) to run the Python methods, the
# specification the twin is checked against.
native_recording = [_NATIVE]


class UnconnectedGradients:
    """What `gradient` returns for a source the target does not depend on (follows TF)."""

    NONE = "none"
    ZERO = "zero"


# How many watch() calls of a non-floating tensor logged their warning (TF logs the first 5).
_not_float_warnings = [0]


def _is_float(value) -> bool:
    return value.dtype.kind in "fc"


class GradientTape(Recorder):
    """Records operations for automatic differentiation (follows `tf.GradientTape`).

    Ops on watched tensors are recorded while the tape is active (inside ``with``), on the
    thread that entered it only. Trainable Variables are watched automatically when they are
    read, unless ``watch_accessed_variables=False``. Nest tapes for higher-order derivatives.

    Args:
        persistent: allow several `gradient`/`jacobian` calls; otherwise the tape releases
            everything it holds when the first call returns, and a second call raises
            RuntimeError.
        watch_accessed_variables: watch trainable Variables as they are read.

    >>> x = ek.constant(3.0)
    >>> with ek.GradientTape() as g:
    ...     g.watch(x)
    ...     y = x * x
    >>> g.gradient(y, x)
    <Tensor: shape=(), dtype=float32, numpy=6.0>
    """

    _profile = False  # a profiling tape records every op and tracks every tensor

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._records: list[Record] | None = []
        self._ids: set[int] = set()
        # id(snapshot) -> id(Variable), and the newest snapshot of each Variable read (they
        # keep the snapshots alive, so their ids stay unique while the tape lives).
        self._aliases: dict[int, int] = {}
        self._snapshots: dict[int, Tensor] = {}
        self._watched: list = []  # strong refs: keeps every tracked id unique while we live
        self._variables: list = []  # watched Variables, in order; kept after a release (TF)
        self._recording = False
        self._entered = False  # TF: a tape never entered has no tape to compute from
        self._to_release: list | None = None  # another tape's records, let go of one per op
        self._bind_native()

    def _bind_native(self) -> None:
        """Makes ``self.record`` the C twin of this class's `record` over the current
        ``_ids`` and ``_records`` (after either is replaced); nothing without the extension."""
        if _NativeRecord is None or not native_recording[0]:
            return
        if self._records is None:
            self.__dict__.pop("record", None)
        else:
            self.record = _NativeRecord(
                self._ids,
                self._records,
                self._profile,
                self._aliases,
                type(self).record,
                weakref.ref(self),
                Tensor,
                Variable,
                Record,
                self._to_release,
                **self._native_extra(),
            )
        if self._recording:  # the dispatcher holds the bound `record` of each recorder
            _context.refresh(self)

    def _native_extra(self) -> dict:
        """Further TapeRecorder arguments: a tape that watches the Variables it reads hands
        over the containers of `_watch_one`, so that a Variable's first read is recorded in C
        too (a subclass adds its own: ProfilingTape, where ops are called)."""
        if self._profile or not self._watch_accessed:
            return {}
        return {
            "watched": self._watched,
            "variables": self._variables,
            "snapshots": self._snapshots,
        }

    # -- context ------------------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if self._recording:
            raise ValueError("GradientTape: this tape is already recording (nested `with`).")
        if self._records is None:
            self._records = []
            self._bind_native()
        try:
            self._push()
        except BaseException:  # a Ctrl-C inside the push: leave no recorder behind
            self._recording = False
            _context.discard_recorder(self)
            raise
        return self

    def __exit__(self, *exc) -> None:
        # A Ctrl-C can land as this method is entered, as with any Python context manager
        # (the tape then records on); past that point the tape is always popped.
        if self._recording:
            try:
                self._pop()
            except BaseException:
                self._recording = False
                _context.discard_recorder(self)
                raise

    def _push(self) -> None:
        self._entered = True
        self._recording = True
        _context.push_recorder(self)

    def _pop(self) -> None:
        self._recording = False
        _context.pop_recorder(self)
        if self._to_release is not None:  # what recording did not let go of yet
            rest, self._to_release = self._to_release, None
            self._bind_native()
            del rest[:]

    def stop_recording(self):
        """Context manager: ops inside it are not recorded on this tape (follows TF).

        Raises:
            RuntimeError: if the tape is not recording.
        """
        if not self._recording:
            raise RuntimeError("GradientTape.stop_recording: the tape is not recording.")
        return _Paused((self,))

    def reset(self) -> None:
        """Clears everything recorded; the tape goes on recording, as if its ``with`` block
        were left and entered again with a new tape (follows `tf.GradientTape.reset`).

        Raises:
            ValueError: the tape is not recording (outside its ``with`` block, or inside
                `stop_recording`): TensorFlow's "Tape is not recording."
        """
        if not self._recording:
            raise ValueError(
                "GradientTape.reset: Tape is not recording. Call reset() inside the tape's "
                "`with` block."
            )
        self._clear()

    def _clear(self) -> None:
        self._records = []
        self._ids = set()
        self._aliases = {}
        self._snapshots = {}
        self._watched = []
        self._variables = []
        self._bind_native()

    # -- recording (the Recorder interface) -----------------------------------------------------
    def record(self, prim, inputs: tuple, output, params: dict, saved, seconds) -> None:
        """Keeps a `Record` of the op if it reads a tracked input and its output is floating
        (called by `dispatch`; see `Recorder.record`)."""
        for x in inputs:
            if type(x) is not Tensor:  # a Variable
                self._record_read(prim, inputs, output, params, saved, seconds)
                return
        ids = self._ids
        keys = tuple(map(id, inputs))  # kept on the record: the backward pass reads them
        if ids.isdisjoint(keys):
            return
        if type(output) is tuple:
            floats = [id(o) for o in output if o._value.dtype.kind in "fc"]
            if not floats:
                return
            ids.update(floats)
        elif output._value.dtype.kind in "fc":
            ids.add(id(output))
        else:
            return
        self._records.append(Record(prim, inputs, keys, output, params, saved, seconds))

    def _record_read(self, prim, inputs, output, params, saved, seconds) -> None:
        """`record` for an op that read Variables: each becomes a snapshot of its value."""
        profile = self._profile
        ids = self._ids
        aliases = self._aliases
        snaps = []
        keys = []
        tracked = profile
        for x in inputs:
            key = id(x)
            if type(x) is Tensor:
                snaps.append(x)
            else:
                if (
                    key not in ids
                    and self._watch_accessed
                    and x._trainable
                    and x._value.dtype.kind in "fc"
                ):
                    self._watch_one(x)
                snap = x._snapshot()
                snaps.append(snap)
                if (profile or key in ids) and id(snap) not in aliases:
                    ids.add(id(snap))  # `_alias`, inline: this runs per Variable read
                    aliases[id(snap)] = key
                    self._snapshots[key] = snap
            keys.append(key)
            if not tracked and key in ids:
                tracked = True
        outputs = output if type(output) is tuple else (output,)
        floats = [id(o) for o in outputs if o._value.dtype.kind in "fc"]
        if not profile and (not tracked or not floats):
            return
        ids.update(floats)
        self._records.append(
            Record(prim, tuple(snaps), tuple(keys), output, params, saved, seconds)
        )

    def _alias(self, snap: Tensor, vid: int) -> None:
        self._ids.add(id(snap))
        self._aliases[id(snap)] = vid

    # -- watching -----------------------------------------------------------------------------
    def watch(self, tensor) -> None:
        """Ensures ``tensor`` (a Tensor, Variable, or nested structure of them) is tracked.

        Integer (and string) tensors are accepted and ignored: their gradients are None, and
        the first five such calls log TensorFlow's warning ("The dtype of the watched tensor
        must be floating ...") on the ``eagerkernel`` logger.

        Raises:
            ValueError: if called with something that is not a Tensor or Variable.
        """
        for t in nest.flatten(tensor):
            if isinstance(t, CompositeTensor):  # a RaggedTensor or SparseTensor: its values
                t = _component(t, watch=True)
            if not isinstance(t, Tensor):
                raise ValueError(
                    f"GradientTape.watch: expected Tensors or Variables, got {type(t).__name__}."
                )
            if _is_float(t._value):
                self._watch_one(t)
            elif _not_float_warnings[0] < 5:  # TF logs the first five
                _not_float_warnings[0] += 1
                logging.getLogger("eagerkernel").warning(
                    "The dtype of the watched tensor must be floating (e.g. float32), got %s",
                    t.dtype.name,
                )

    def _watch_one(self, t) -> None:
        tid = id(t)
        if tid in self._ids:
            return
        self._ids.add(tid)
        self._watched.append(t)
        if type(t) is not Tensor:
            self._variables.append(t)
            snap = None if t._read is None else t._read()
            if snap is not None and snap._value is t._value:  # read before it was watched
                self._alias(snap, tid)
                self._snapshots[tid] = snap

    def watched_variables(self) -> tuple:
        """The Variables this tape watches, in the order they were first watched (also after
        a non-persistent tape's `gradient` call, as in TensorFlow)."""
        return tuple(self._variables)

    @property
    def records(self) -> list[Record]:
        """The recorded ops, oldest first (`Record` objects; empty once released)."""
        return list(self._records or ())

    entries = records  # the name earlier releases used

    @property
    def released(self) -> bool:
        """True once a non-persistent tape has been used (`gradient`, `jacobian`, `replay`)
        and let go of its records; it can then compute nothing more."""
        return self._records is None

    # -- gradients ----------------------------------------------------------------------------
    def _check_usable(self, what: str) -> None:
        if not self._entered:
            raise RuntimeError(
                f"GradientTape.{what}: the tape never recorded (use it as `with "
                "ek.GradientTape() as tape:` around the computation); TensorFlow raises "
                "RuntimeError here too."
            )
        if self._records is None:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients"
                f" (or jacobians); {what} was called again. Use GradientTape(persistent=True)."
            )

    def gradient(
        self,
        target,
        sources,
        output_gradients=None,
        unconnected_gradients=UnconnectedGradients.NONE,
    ):
        """Gradients of ``target`` with respect to ``sources`` (follows `tf.GradientTape.gradient`).

        Args:
            target: a Tensor, Variable or nested structure of them; non-scalar targets are
                summed (their cotangent seed is ones), or weighted by ``output_gradients``.
            sources: a Tensor, Variable, or nested structure of them.
            output_gradients: optional cotangents for the targets, same structure and shapes.
            unconnected_gradients: ``"none"`` (default) returns None for a source the target
                does not depend on; ``"zero"`` returns zeros of the source's shape.

        Returns:
            The gradients in the structure of ``sources``; None for unconnected or integer
            sources. A source that is itself a target gets that target's seed (ones), as in
            TensorFlow.

        Raises:
            RuntimeError: second call on a non-persistent tape.
            TypeError: a target or source that is not a Tensor or Variable (None included).
            ValueError: ``output_gradients`` of the wrong structure or shape, or an unknown
                ``unconnected_gradients``.
        """
        self._check_usable("gradient")
        flat_targets = _flat_tensors(target, "target")
        flat_sources = nest.flatten(sources)
        composites = [s if isinstance(s, CompositeTensor) else None for s in flat_sources]
        if any(c is not None for c in composites):  # ragged/sparse sources: their values
            flat_sources = [_component(s) for s in flat_sources]
        flat_sources = _flat_tensors(flat_sources, "sources")
        unconnected = _unconnected(unconnected_gradients)
        if self._recording and not self._persistent:
            self._pop()  # TF: a non-persistent tape stops recording when used
        try:
            grads = self._gradient_flat(
                flat_targets, flat_sources, output_gradients, unconnected, listen=True
            )
        finally:
            if not self._persistent:
                self._release()
        if any(c is not None for c in composites):  # the gradient of a RaggedTensor is one
            grads = [
                g if c is None or g is None else _with_component(c, g)
                for c, g in zip(composites, grads)
            ]
        return nest.pack_sequence_as(sources, grads)

    def _release(self) -> None:
        self._records = None
        self._ids = set()
        self._aliases = {}
        self._snapshots = {}
        self._watched = []
        self._bind_native()

    def _gradient_flat(
        self, targets, sources, output_gradients, unconnected, on_step=None, listen=False
    ):
        from ..ops.creation import ones_like, zeros_like

        if output_gradients is None:
            seeds = [None] * len(targets)
        else:
            seeds = nest.flatten(output_gradients)
            if len(seeds) != len(targets):
                raise ValueError(
                    f"GradientTape.gradient: {len(targets)} targets but {len(seeds)} "
                    "output_gradients."
                )
        seeded = []
        for t, s in zip(targets, seeds):
            if not _is_float(t._value):
                continue
            if s is None:
                s = ones_like(t)
            else:
                from .tensor import to_tensor

                s = to_tensor(s, t._value.dtype)
                if s.shape != t.shape:
                    raise ValueError(
                        "GradientTape.gradient: output_gradients shape "
                        f"{tuple(s.shape)} does not match target shape {tuple(t.shape)}."
                    )
            seeded.append((t, s))
        # Only tracked sources receive gradients (TF: an unwatched source gives None), and a
        # source that is a target receives the target's seed.
        target_ids = {id(t) for t in targets}
        tracked = [
            s if self._profile or id(s) in self._ids or id(s) in target_ids else None
            for s in sources
        ]
        # Every tensor this tape tracks lies downstream of what it watches: when all of that
        # is asked for, the tracked set is the backward pass's reach, without a sweep.
        source_ids = {id(s) for s in sources}
        downstream = None
        if not self._profile and all(id(t) in source_ids for t in self._watched):
            downstream = self._ids
        # A gradient listener of this thread (a distribution strategy's replica) is handed
        # each source's gradient as soon as the sweep has finished it (`GradientListener`).
        session = on_ready = None
        if listen:
            listener = _context.gradient_listener()
            if listener is not None:
                session = listener.begin(tracked)
                if session is not None:
                    keys = {}
                    for i in session.wanted:
                        if tracked[i] is not None:
                            keys.setdefault(id(tracked[i]), i)
                    on_ready = (keys, session.ready)
        # The VJPs' ops run in a "backward" scope, which recorders see (`Recorder.on_scope`).
        thread = _context.context()
        before = thread.scopes
        t0 = _perf_counter()
        grads = None
        try:  # the scope is left even when a Ctrl-C lands at its edge (see `push_scope`)
            _context.push_scope("gradient", "backward")
            grads = backward(
                self._records,
                seeded,
                tracked,
                on_step=on_step,
                aliases=self._aliases,
                downstream=downstream,
                on_ready=on_ready,
            )
        finally:
            thread.scopes = before
            seconds = _perf_counter() - t0
            _context.pop_scope(before)
            if session is not None:
                session.end(None if grads is None else [grads.get(id(s)) for s in sources])
        for recorder in _context.current_recorders():
            recorder.on_backward(seconds)
        out = []
        for s in sources:
            g = grads.get(id(s))
            if g is None and unconnected == UnconnectedGradients.ZERO and _is_float(s._value):
                g = zeros_like(s)
            out.append(g)
        return out

    def replay(self, targets: list, sources: list, on_step=None) -> list:
        """Runs the backward pass from ``targets`` to ``sources`` (flat lists) and returns the
        gradients (None where unconnected), calling ``on_step(record, cotangent, input_grads,
        seconds)`` after each VJP step, newest op first (eagerkernel's addition, used by
        ``%grad``). A persistent tape is not used up; a non-persistent one is.

        Raises:
            RuntimeError: if the tape was already used up.
        """
        self._check_usable("replay")
        try:
            return self._gradient_flat(
                list(targets), list(sources), None, UnconnectedGradients.NONE, on_step=on_step
            )
        finally:
            if not self._persistent:
                self._release()

    def jacobian(
        self,
        target,
        sources,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """Jacobians of ``target`` w.r.t. ``sources`` (follows `tf.GradientTape.jacobian`).

        Returns, for each source, a Tensor of shape ``target.shape + source.shape`` (None if
        unconnected). One backward pass per element of ``target``; ``parallel_iterations``
        and ``experimental_use_pfor`` are accepted for TensorFlow's signature and change
        nothing in the result (TF's own contract: they only trade memory for speed).
        """
        from ..ops.array_ops import reshape, stack
        from ..ops.creation import zeros

        self._check_usable("jacobian")
        (target,) = _flat_tensors(target, "target")
        flat_sources = _flat_tensors(sources, "sources")
        unconnected = _unconnected(unconnected_gradients)
        if self._recording and not self._persistent:
            self._pop()
        try:
            n = int(target._value.size)
            rows: list[list] = [[] for _ in flat_sources]
            for i in range(n):
                row = np.zeros(n, dtype=target._value.dtype)
                row[i] = 1
                seed = make(
                    target._device.xp.asarray(row.reshape(target._value.shape)), target._device
                )
                gs = self._gradient_flat([target], flat_sources, [seed], unconnected)
                for r, g in zip(rows, gs):
                    r.append(g)
        finally:
            if not self._persistent:
                self._release()
        result = []
        for s, r in zip(flat_sources, rows):
            shape = tuple(target.shape) + tuple(s.shape)
            if all(g is None for g in r):
                result.append(
                    None
                    if unconnected == UnconnectedGradients.NONE
                    else zeros(shape, dtype=s.dtype)
                )
                continue
            r = [zeros(s.shape, dtype=s.dtype) if g is None else g for g in r]
            result.append(reshape(stack(r), shape) if n else zeros(shape, dtype=s.dtype))
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(
        self,
        target,
        source,
        unconnected_gradients=UnconnectedGradients.NONE,
        parallel_iterations=None,
        experimental_use_pfor=True,
    ):
        """Per-example Jacobian (follows `tf.GradientTape.batch_jacobian`).

        ``target`` has shape ``[b, ...]`` and row ``i`` must depend only on row ``i`` of
        ``source`` (shape ``[b, ...]``). Returns shape ``[b] + target.shape[1:] +
        source.shape[1:]``. One backward pass per element of a target row.

        Raises:
            ValueError: ``target`` or ``source`` of rank below 2, or batch dimensions that
                differ (TensorFlow's messages).
        """
        from ..ops.array_ops import reshape, stack
        from ..ops.creation import zeros

        self._check_usable("batch_jacobian")
        (target,) = _flat_tensors(target, "target")
        (source,) = _flat_tensors(source, "source")
        unconnected = _unconnected(unconnected_gradients)
        for t in (target, source):
            if t._value.ndim < 2:
                raise ValueError(f"Shape {t.shape} must have rank at least 2")
        if target.shape[0] != source.shape[0]:
            raise ValueError(
                f"Need first dimension of target shape ({target.shape}) and source shape "
                f"({source.shape}) to match."
            )
        if self._recording and not self._persistent:
            self._pop()
        b = target.shape[0]
        per = int(np.prod(target.shape[1:], dtype=np.int64))
        try:
            cols = []
            dt = target._value.dtype
            for j in range(per):
                seed = np.zeros((b, per), dtype=dt)
                seed[:, j] = 1
                seed_t = make(
                    target._device.xp.asarray(seed.reshape(target._value.shape)), target._device
                )
                (g,) = self._gradient_flat([target], [source], [seed_t], unconnected)
                cols.append(g)
        finally:
            if not self._persistent:
                self._release()
        shape = (b, *tuple(target.shape[1:]), *tuple(source.shape[1:]))
        if all(g is None for g in cols):
            if unconnected == UnconnectedGradients.NONE:
                return None
            return zeros(shape, dtype=source.dtype)
        cols = [zeros(source.shape, dtype=source.dtype) if g is None else g for g in cols]
        return reshape(stack(cols, axis=1), shape)


def _component(x, watch: bool = False):
    """The Tensor a RaggedTensor's gradient is taken with respect to: its flat values (as
    TensorFlow's). A SparseTensor is not a gradient source or target in TensorFlow (ValueError);
    watching one watches its values."""
    if isinstance(x, CompositeTensor):
        if hasattr(x, "flat_values"):
            return x.flat_values
        if watch:
            return x.values
        raise ValueError(
            f"Type {type(x).__name__} is not supported as a gradient source or gradient target."
        )
    return x


def _with_component(x, g):
    """The gradient ``g`` of ``_component(x)`` as a RaggedTensor like ``x``."""
    return x.with_flat_values(g)


def _flat_tensors(structure, arg: str) -> list:
    """The Tensors and Variables of a nested ``structure``; TypeError naming ``arg`` otherwise.
    A RaggedTensor counts as its flat values."""
    flat = [_component(t) for t in nest.flatten(structure)]
    for t in flat:
        if not isinstance(t, Tensor):
            raise TypeError(
                f"GradientTape.gradient: argument `{arg}` must be a Tensor, a Variable or a "
                f"nested structure of them, got {type(t).__name__} ({t!r:.60})."
            )
    return flat


def _unconnected(value) -> str:
    v = getattr(value, "value", value)
    if v not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError(
            f"GradientTape.gradient: unconnected_gradients must be 'none' or 'zero', got {value!r}."
        )
    return v


class _Paused:
    """Context manager that pauses recording on some tapes (restores them on exit)."""

    __slots__ = ("_paused", "_tapes")

    def __init__(self, tapes):
        self._tapes = tapes
        self._paused = []

    def __enter__(self):
        for t in self._tapes:
            if t._recording:
                t._pop()
                self._paused.append(t)
        return self

    def __exit__(self, *exc):
        for t in self._paused:
            t._push()
        self._paused = []


def stop_recording():
    """Context manager pausing every recording tape of this thread (as `tape.stop_recording`)."""
    return _Paused(tuple(r for r in _context.current_recorders() if isinstance(r, GradientTape)))
