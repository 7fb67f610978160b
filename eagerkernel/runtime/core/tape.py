"""The gradient tape: primitives, recording, and the backward pass (follows `tf.GradientTape`).

Every differentiable op is a `Primitive`: a forward function on raw arrays,
``fwd(xp, *arrays, **params) -> array``, and one vector-Jacobian product (VJP) per input,
``vjp(g, ans, *inputs, **params) -> cotangent`` written with eagerkernel ops on Tensors, so
that an outer tape records the backward pass and derivatives of any order come for free.
A VJP of ``None`` marks an input without a gradient (an index, a condition).

Recording is TensorFlow's: a tape is a Wengert list. While it is recording, an op whose input
the tape tracks (a watched tensor, an accessed trainable variable, or the output of an op the
tape recorded) appends an `Entry` (the primitive, its inputs, its output, its params) to the
tape. The tape holds these entries; tensors hold nothing, so no tape keeps a tensor alive
unless it recorded it, and a non-persistent tape drops everything when `gradient` returns.
A profiling tape (``%%tape``) recording alone keeps cheaper lean records instead, turned
into entries when they are needed (see `records.py`).

The backward pass walks the entries once, newest first (the recording order is a topological
order, so no sort is needed), pops each output's cotangent, runs the VJPs of the inputs that
lie on a path from a source, un-broadcasts each result to its input's shape and accumulates
it. Un-broadcasting, skipping of untracked inputs and accumulation live here, once; a VJP is
a line of math.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from .. import nest
from . import context as state
from .records import Entry, lean_entries, lean_recorder
from .tensor import Tensor, make

__all__ = [
    "GradientTape",
    "Primitive",
    "ProfilingTape",
    "UnconnectedGradients",
    "defvjp",
    "execute",
    "stop_recording",
]

_NO_PARAMS: dict = {}
_new = object.__new__
_perf_counter = time.perf_counter
_get_ident = threading.get_ident
# The state's lists, bound once: `state.refresh` changes them in place.
_RECORDING = state.RECORDING
_PROFILING = state.PROFILING
_SCOPES = state.SCOPES
_SYNC = state.SYNC
_LEAN = state.LEAN


class Primitive:
    """A differentiable op: a name, a forward function on arrays, and its VJPs.

    Attributes:
        name: TensorFlow's op name, shown by the tape display (e.g. ``"Mul"``).
        fwd: ``fwd(xp, *arrays, **params)`` returning the output array (or a tuple of arrays
            when ``n_out > 1``).
        vjps: one function per input, ``vjp(g, ans, *inputs, **params)``, or None for an input
            without a gradient. ``g`` and ``ans`` are Tensors (tuples for multi-output ops).
        joint_vjp: alternatively, one function returning all inputs' cotangents at once, for
            ops whose VJPs share work.
        n_out: 1 for one output Tensor; 0 for a tuple of outputs (of any length).
    """

    __slots__ = ("fwd", "joint_vjp", "moves", "n_out", "name", "vjps")

    def __init__(self, name: str, fwd, n_out: int = 1, moves: bool = False):
        self.name = name
        self.fwd = fwd
        self.vjps = None
        self.joint_vjp = None
        self.n_out = n_out
        # True for the device copy: its output lives on params["device"], and device scopes
        # must not re-place its input.
        self.moves = moves

    def __repr__(self) -> str:
        return f"<Primitive {self.name}>"


def defvjp(prim: Primitive, *vjps) -> None:
    """Registers one VJP per input of ``prim`` (None: no gradient for that input)."""
    prim.vjps = vjps


def defjointvjp(prim: Primitive, vjp) -> None:
    """Registers a VJP returning a tuple with every input's cotangent (None where there is none)."""
    prim.joint_vjp = vjp


def _is_float(value) -> bool:
    return value.dtype.kind in "fc"


def execute(prim: Primitive, inputs: tuple, params: dict = _NO_PARAMS):
    """Runs ``prim`` on Tensor ``inputs`` on the slow path: device scopes, recording, profiling.

    Ops call this instead of their fast path whenever `state.SLOW` is non-empty. Inputs on
    another device than the current scope's are copied there (differentiably).
    """
    # Every op under a tape or %%tape pays for each line here: flags are precomputed by
    # `state.refresh`, and the common cases call nothing they do not need.
    if _SCOPES and not prim.moves:
        scope = state.scope_device(_get_ident())
        if scope is not None:
            inputs = _place(inputs, scope)
    device = inputs[0]._device
    n = len(inputs)
    if n == 2:
        if inputs[1]._device is not device:
            _device_mismatch(prim, inputs)
    elif n != 1:
        for x in inputs:
            if x._device is not device:
                _device_mismatch(prim, inputs)
    try:
        if _SYNC and _PROFILING:
            out, seconds = _timed_sync(prim, device, [x._value for x in inputs], params)
        else:
            # Direct calls for one and two inputs: `fwd(xp, *values, **params)` costs ~0.2 µs
            # more.
            xp = device.xp
            t0 = _perf_counter() if _PROFILING else None
            if params:
                out = prim.fwd(xp, *[x._value for x in inputs], **params)
            elif n == 2:
                out = prim.fwd(xp, inputs[0]._value, inputs[1]._value)
            elif n == 1:
                out = prim.fwd(xp, inputs[0]._value)
            else:
                out = prim.fwd(xp, *[x._value for x in inputs])
            seconds = None if t0 is None else _perf_counter() - t0
    except ValueError as exc:
        # A broadcasting op's shape error reads as on the fast path (ops/_core.py), naming the
        # op and both shapes, not as NumPy's bare message.
        if n != 2 or params or inputs[0]._value.shape == inputs[1]._value.shape:
            raise
        from ..ops._core import shape_error

        raise shape_error(prim.name, inputs, exc) from None
    out_device = params["device"] if prim.moves else device
    if prim.n_out == 1:
        output = _new(Tensor)
        output._value = out
        output._device = out_device
        lean = _LEAN[0]
        if (
            lean is not None
            and n <= 2
            and not params
            and type(inputs[0]) is Tensor
            and type(inputs[-1]) is Tensor  # not a Variable (recorded as a snapshot, in an Entry)
            and lean[1] == _get_ident()
        ):
            lean[2]((prim, output, seconds, inputs[0], inputs[1] if n == 2 else None))
            return output
        differentiable = out.dtype.kind in "fc"
    else:
        output = tuple(make(o, out_device) for o in out)
        differentiable = any(o.dtype.kind in "fc" for o in out)
    if _RECORDING:
        _record(prim, inputs, output, params, seconds, differentiable)
    return output


def _record(prim, inputs: tuple, output, params: dict, seconds, differentiable: bool) -> None:
    """Appends one `Entry` to every tape of this thread that tracks an input of the op (every
    profiling tape records every op); the differentiable outputs become tracked."""
    has_variable = False
    for x in inputs:
        if type(x) is not Tensor:
            has_variable = True
            break
    ids = None
    entry = None
    me = _get_ident()
    for tape in _RECORDING:
        if tape._thread != me:
            continue
        # Reading a Variable watches it, whatever the op (TF), on profiling tapes too.
        watched_var = has_variable and tape._watch_accessed and _watch_variables(tape, inputs)
        profile = tape._profile
        if profile:
            pass
        elif not differentiable:
            continue
        elif not watched_var:
            if ids is None:
                ids = tuple(map(id, inputs))
            if tape._ids.isdisjoint(ids):
                continue
        if tape._lean:
            tape._flush()  # the tape's lean records come first
        if entry is None:
            if has_variable:
                entry = _make_entry(prim, inputs, output, params, seconds)
            else:  # inline `Entry(...)`: this runs for every op a tape records
                entry = _new(Entry)
                entry.prim = prim
                entry.inputs = inputs
                entry._ids = ids  # kept for the backward pass when at hand
                entry.output = output
                entry.params = params
                entry.seconds = seconds
        tape._entries.append(entry)
        if has_variable:
            _alias_snapshots(tape, entry)
        if differentiable and not profile:  # a profiling tape treats every tensor as tracked
            if type(output) is not tuple:
                tape._ids.add(id(output))
            else:
                tape._ids.update(id(o) for o in output if o._value.dtype.kind in "fc")


def _alias_snapshots(tape, entry: Entry) -> None:
    """Tracks the snapshots of the watched Variables ``entry`` read, as reads of them: ops on a
    snapshot (a later backward pass's VJPs) are recorded, and their gradients reach the
    Variable (gradient penalties, Hessian-vector products with respect to weights)."""
    for x, xid in zip(entry.inputs, entry._ids):
        if id(x) != xid and (tape._profile or xid in tape._ids):
            tape._ids.add(id(x))
            tape._aliases[id(x)] = xid


def _watch_variables(tape, inputs) -> bool:
    """Watches the trainable float Variables among ``inputs``; True if there was one."""
    hit = False
    for x in inputs:
        if type(x) is not Tensor and x._trainable and x._value.dtype.kind in "fc":
            tape._watch_one(x)
            hit = True
    return hit


def _timed_sync(prim, device, values, params):
    """Runs and times the forward with the device synchronized before and after (--sync)."""
    device.synchronize()
    t0 = _perf_counter()
    out = prim.fwd(device.xp, *values, **params)
    device.synchronize()
    return out, _perf_counter() - t0


def _make_entry(prim, inputs, output, params, seconds) -> Entry:
    """The `Entry` of an op that read Variables: each is replaced by a snapshot of its value
    (the value it has now, not the Variable) and keeps its own id in ``ids``."""
    ids = tuple(map(id, inputs))
    inputs = tuple(x if type(x) is Tensor else make(x._value, x._device) for x in inputs)
    return Entry(prim, inputs, ids, output, params, seconds)


def _place(inputs: tuple, device) -> tuple:
    if all(x._device is device for x in inputs):
        return inputs
    from ..ops.placement import copy_to_device

    return tuple(x if x._device is device else copy_to_device(x, device) for x in inputs)


def _device_mismatch(prim, inputs):
    names = ", ".join(f"{x._device.name}" for x in inputs)
    raise ValueError(
        f"{prim.name}: inputs are on different devices ({names}). Copy them with .cpu()/.gpu() "
        "or run the op inside `with ek.device(...)`."
    )


# -- the tape -----------------------------------------------------------------------------------


class UnconnectedGradients:
    """What `gradient` returns for a source the target does not depend on (follows TF)."""

    NONE = "none"
    ZERO = "zero"


def _sum_to_shape(g: Tensor, shape: tuple) -> Tensor:
    """Reduces a broadcast cotangent back to the input's shape (the one place this happens)."""
    from ..ops.array_ops import reshape
    from ..ops.reduction import reduce_sum

    gshape = g._value.shape
    lead = len(gshape) - len(shape)
    if lead < 0:  # a VJP may return a broadcastable cotangent of lower rank (e.g. a scalar)
        from ..ops.array_ops import broadcast_to

        return broadcast_to(g, shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, n in enumerate(shape) if n == 1 and gshape[i + lead] != 1
    )
    if axes:
        g = reduce_sum(g, axis=axes)
    if tuple(g._value.shape) != tuple(shape):
        g = reshape(g, shape)
    return g


class GradientTape:
    """Records operations for automatic differentiation (follows `tf.GradientTape`).

    Ops on watched tensors are recorded while the tape is active (inside ``with``). Trainable
    Variables are watched automatically when they are read, unless
    ``watch_accessed_variables=False``. Nest tapes for higher-order derivatives.

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

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._entries: list[Entry] | None = []
        self._lean: list = []  # lean records after ``_entries`` (see `records.py`)
        self._recorder = None  # what appends to ``_lean`` (`_lean_recorder`)
        self._to_release: list | None = None  # records to let go of while recording
        self._ids: set[int] = set()
        # id(snapshot) -> id(Variable): the values of Variables that recorded ops read. VJPs
        # compute with these snapshots, so a gradient that reaches one (through the ops of a
        # backward pass this tape recorded) belongs to its Variable: TF's ReadVariableOp.
        self._aliases: dict[int, int] = {}
        self._watched: list = []  # strong refs: keeps every tracked id unique while we live
        self._recording = False
        self._thread = None
        self._profile = False  # record every op (the %%tape magic)
        self._sync = False  # synchronize the device around timed ops

    # -- context ------------------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if self._recording:
            raise ValueError("GradientTape: this tape is already recording (nested `with`).")
        if self._entries is None:
            self._entries = []
        self._push()
        return self

    def __exit__(self, *exc) -> None:
        if self._recording:
            self._pop()

    def _push(self) -> None:
        self._thread = _get_ident()
        self._recording = True
        state.RECORDING.append(self)
        if self._profile:
            state.PROFILING.append(self)
        state.refresh()

    def _pop(self) -> None:
        self._recording = False
        state.RECORDING.remove(self)
        if self in state.PROFILING:
            state.PROFILING.remove(self)
        state.refresh()
        if self._to_release is not None:  # what the recorder did not let go of yet
            release, self._to_release = self._to_release, None
            if self._recorder is not None and hasattr(self._recorder, "release"):
                self._recorder.release = None
            del release[:]

    def stop_recording(self):
        """Context manager: ops inside it are not recorded on this tape (follows TF).

        Raises:
            RuntimeError: if the tape is not recording.
        """
        if not self._recording:
            raise RuntimeError("GradientTape.stop_recording: the tape is not recording.")
        return _Paused((self,))

    def reset(self) -> None:
        """Clears everything recorded; the tape keeps recording if it was (follows TF)."""
        self._entries = []
        self._lean = []
        self._ids = set()
        self._aliases = {}
        self._watched = []
        if self._recording:
            state.refresh()  # lean records go to the new list

    # -- watching -----------------------------------------------------------------------------
    def watch(self, tensor) -> None:
        """Ensures ``tensor`` (a Tensor, Variable, or nested structure of them) is tracked.

        Integer tensors are accepted and ignored: their gradients are None, as in TensorFlow.

        Raises:
            ValueError: if called with something that is not a Tensor or Variable.
        """
        for t in nest.flatten(tensor):
            if not isinstance(t, Tensor):
                raise ValueError(
                    f"GradientTape.watch: expected Tensors or Variables, got {type(t).__name__}."
                )
            if _is_float(t._value):
                self._watch_one(t)

    def _watch_one(self, t) -> None:
        if id(t) not in self._ids:
            self._ids.add(id(t))
            self._watched.append(t)

    @property
    def entries(self) -> list:
        """The recorded ops, oldest first (`Entry` objects; empty once released)."""
        self._flush()
        return list(self._entries or ())

    def _flush(self) -> None:
        """Turns the lean records into `Entry` objects at the end of ``_entries``."""
        if self._lean:
            if self._entries is not None:
                self._entries += lean_entries(self._lean)
            del self._lean[:]  # the same list: `state.LEAN` appends to it
            reset_stats = getattr(self._recorder, "reset_stats", None)
            if reset_stats is not None:  # its counts were of the records just moved
                reset_stats()

    def _lean_recorder(self):
        """What ops of this tape's thread append their lean records with (`state.LEAN`):
        `records.lean_recorder` on ``_lean``, kept while the list and the thread are the same,
        so that its running counts cover a persistent tape's records from cell to cell."""
        rec = self._recorder
        if rec is None or rec.records is not self._lean or rec.thread != self._thread:
            rec = self._recorder = lean_recorder(self._lean, self._thread)
        if self._to_release is not None:
            if hasattr(rec, "release"):  # the C recorder lets go of five items per op
                rec.release = self._to_release
            else:
                release, self._to_release = self._to_release, None
                del release[:]
        return rec

    def watched_variables(self) -> tuple:
        """The Variables this tape watches, in the order they were first watched."""
        return tuple(t for t in self._watched if type(t) is not Tensor)

    # -- gradients ----------------------------------------------------------------------------
    def _check_usable(self, what: str) -> None:
        if self._entries is None:
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
            target: a Tensor or nested structure of Tensors; non-scalar targets are summed
                (their cotangent seed is ones), or weighted by ``output_gradients``.
            sources: a Tensor, Variable, or nested structure of them.
            output_gradients: optional cotangents for the targets, same structure and shapes.
            unconnected_gradients: ``"none"`` (default) returns None for a source the target
                does not depend on; ``"zero"`` returns zeros of the source's shape.

        Returns:
            The gradients in the structure of ``sources``; None for unconnected or integer
            sources.

        Raises:
            RuntimeError: second call on a non-persistent tape.
            ValueError: ``output_gradients`` of the wrong structure or shape.
        """
        self._check_usable("gradient")
        if self._recording and not self._persistent:
            self._pop()  # TF: a non-persistent tape stops recording when used
        try:
            flat_sources = nest.flatten(sources)
            grads = self._gradient_flat(
                nest.flatten(target), flat_sources, output_gradients, unconnected_gradients
            )
        finally:
            if not self._persistent:
                self._release()
        return nest.pack_sequence_as(sources, grads)

    def _release(self) -> None:
        self._entries = None
        self._lean = []
        self._ids = set()
        self._aliases = {}
        self._watched = []

    def _gradient_flat(self, targets, sources, output_gradients, unconnected, on_step=None):
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
            if t is None or not _is_float(t._value):
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
        # Ops run by the backward pass are recorded on outer tapes (higher-order derivatives)
        # and, for a persistent tape used inside its own `with`, on this tape too.
        # Only tracked sources can receive gradients (TF: an unwatched source gives None).
        tracked = [
            s if s is not None and (self._profile or id(s) in self._ids) else None for s in sources
        ]
        self._flush()
        grads = backward(self._entries, seeded, tracked, on_step=on_step, aliases=self._aliases)
        out = []
        for s in sources:
            g = grads.get(id(s))
            if g is None and unconnected == UnconnectedGradients.ZERO and _is_float(s._value):
                g = zeros_like(s)
            out.append(g)
        return out

    def replay(self, targets: list, sources: list, on_step=None) -> list:
        """Runs the backward pass from ``targets`` to ``sources`` (flat lists) and returns the
        gradients (None where unconnected), calling ``on_step(entry, cotangent, input_grads,
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
        unconnected). One backward pass per element of ``target``.
        """
        from ..ops.array_ops import reshape, stack
        from ..ops.creation import zeros

        self._check_usable("jacobian")
        if self._recording and not self._persistent:
            self._pop()
        flat_sources = nest.flatten(sources)
        try:
            n = int(target._value.size)
            rows: list[list] = [[] for _ in flat_sources]
            for i in range(n):
                row = np.zeros(n, dtype=target._value.dtype)
                row[i] = 1
                seed = make(
                    target._device.xp.asarray(row.reshape(target._value.shape)), target._device
                )
                gs = self._gradient_flat([target], flat_sources, [seed], unconnected_gradients)
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
                    if unconnected_gradients == UnconnectedGradients.NONE
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
            ValueError: if the batch dimensions differ.
        """
        from ..ops.array_ops import reshape, stack
        from ..ops.creation import zeros

        self._check_usable("batch_jacobian")
        if target.shape[0] != source.shape[0]:
            raise ValueError(
                "batch_jacobian: target and source batch sizes differ: "
                f"{tuple(target.shape)} vs {tuple(source.shape)}."
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
                (g,) = self._gradient_flat([target], [source], [seed_t], unconnected_gradients)
                cols.append(g)
        finally:
            if not self._persistent:
                self._release()
        shape = (b, *tuple(target.shape[1:]), *tuple(source.shape[1:]))
        if all(g is None for g in cols):
            if unconnected_gradients == UnconnectedGradients.NONE:
                return None
            return zeros(shape, dtype=source.dtype)
        cols = [zeros(source.shape, dtype=source.dtype) if g is None else g for g in cols]
        return reshape(stack(cols, axis=1), shape)


class ProfilingTape(GradientTape):
    """A persistent tape that records every op with its forward time (the ``%%tape`` magic's).

    Unlike a plain tape it records all ops, integer ones included, and treats every float
    tensor used as tracked, so gradients can be asked with respect to any of them afterwards.
    Each `Entry` has ``seconds``, the forward time measured with ``time.perf_counter``.

    Args:
        sync: synchronize the device before and after each op, so that GPU times measure the
            kernels rather than their launch.
        watch_accessed_variables: as for `GradientTape`.
    """

    def __init__(self, sync: bool = False, watch_accessed_variables: bool = True):
        super().__init__(persistent=True, watch_accessed_variables=watch_accessed_variables)
        self._profile = True
        self._sync = bool(sync)

    def release_while_recording(self, old: ProfilingTape) -> None:
        """Takes ``old``'s lean records away from it, to let go of them while this tape
        records: before each op it records, the C lean recorder drops one of them, and the
        rest go when this tape stops recording. ``old`` is left without them, so call this
        only for a tape nothing will read again: the ``%%tape`` magic does, for the tape a
        re-run cell replaces when nothing else refers to it.

        Dropped all at once when the new cell starts, the old records' memory is touched a
        last time to be freed, and the new cell's outputs then take fresh memory. Dropped as
        the new ops run, each old output's memory goes straight to a new one, as a plain cell
        reuses its temporaries' (on a 2000-op cell, `benchmarks/tape_magic.py` measured
        ``%%tape`` at 1.44x the plain cell this way, against 1.52x). Without the C recorder
        they are let go of at once.
        """
        records, old._lean, old._recorder = old._lean, [], None
        if self._to_release is not None:
            del self._to_release[:]
        self._to_release = records
        if self._recording:
            state.refresh()  # hands them to the recorder

    @property
    def sync(self) -> bool:
        return self._sync

    @sync.setter
    def sync(self, value: bool) -> None:
        self._sync = bool(value)
        if self._recording:
            state.refresh()


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
    me = _get_ident()
    return _Paused(tuple(t for t in state.RECORDING if t._thread == me))


# -- backward pass ------------------------------------------------------------------------------


def backward(
    entries: list[Entry], seeded, sources, on_step=None, aliases=None
) -> dict[int, Tensor]:
    """Reverse-mode sweep over recorded ``entries``.

    Args:
        entries: the tape, oldest first.
        seeded: ``[(target, cotangent seed)]``.
        sources: Tensors/Variables whose cotangents the caller wants; they are kept, not popped.
        on_step: optional ``on_step(entry, g, input_grads, seconds)`` callback per VJP step
            (the %grad display).
        aliases: ``{id(snapshot): id(Variable)}``: a cotangent reaching a snapshot of a source
            Variable's value is added to the Variable's.

    Returns:
        ``{id(source): cotangent}`` for every source reached.
    """
    source_ids = {id(s) for s in sources if s is not None}
    wanted = source_ids
    if aliases:
        reads = {sid: vid for sid, vid in aliases.items() if vid in source_ids}
        if reads:
            source_ids = source_ids | reads.keys()
    else:
        reads = None
    # Forward sweep: which tensors lie downstream of a source. VJPs run only towards these.
    reach = set(source_ids)
    for e in entries:
        ids = e._ids
        if not reach.isdisjoint(map(id, e.inputs) if ids is None else ids):
            out = e.output
            if type(out) is tuple:
                reach.update(map(id, out))
            else:
                reach.add(id(out))

    grads: dict[int, Tensor] = {}
    for t, s in seeded:
        _accumulate(grads, id(t), s)

    for idx in range(len(entries) - 1, -1, -1):
        e = entries[idx]
        out = e.output
        if type(out) is tuple:
            g = _multi_cotangent(grads, out, source_ids)
            if g is None:
                continue
        else:
            oid = id(out)
            if oid not in reach:
                continue
            g = grads.get(oid) if oid in source_ids else grads.pop(oid, None)
            if g is None:
                continue
        inputs = e.inputs
        ids = e._ids
        if ids is None:
            ids = tuple(map(id, inputs))
        prim = e.prim
        if on_step is not None:
            t0 = _perf_counter()
            step: list | None = []
        else:
            step = None
        if prim.joint_vjp is not None:
            in_grads = prim.joint_vjp(g, out, *inputs, **e.params)
        elif prim.vjps is None:
            raise LookupError(
                f"No gradient defined for op {prim.name!r}: it has no registered VJP "
                "(register one with defvjp, or wrap the computation in ek.custom_gradient)."
            )
        else:
            in_grads = None
            params = e.params
            for k, vjp in enumerate(prim.vjps):
                xid = ids[k]
                if vjp is not None and xid in reach:
                    gk = vjp(g, out, *inputs, **params) if params else vjp(g, out, *inputs)
                    if gk is not None:
                        x = inputs[k]
                        if gk._value.shape != x._value.shape:
                            gk = _sum_to_shape(gk, x._value.shape)
                        prev = grads.get(xid)
                        grads[xid] = gk if prev is None else prev + gk
                else:
                    gk = None
                if step is not None:
                    step.append(gk)
        if in_grads is not None:  # joint VJPs: the same un-broadcast and accumulation
            for k, gk in enumerate(in_grads):
                if gk is None or ids[k] not in reach:
                    continue
                x = inputs[k]
                if gk._value.shape != x._value.shape:
                    gk = _sum_to_shape(gk, x._value.shape)
                _accumulate(grads, ids[k], gk)
            step = list(in_grads) if step is not None else None
        if on_step is not None:
            on_step(e, g, step, _perf_counter() - t0)
    if reads:
        for sid, vid in reads.items():
            if sid in grads:
                _accumulate(grads, vid, grads[sid])
    return {i: grads[i] for i in wanted if i in grads}


def _accumulate(grads: dict, key: int, g: Tensor) -> None:
    prev = grads.get(key)
    grads[key] = g if prev is None else prev + g


def _multi_cotangent(grads, outputs, source_ids):
    from ..ops.creation import zeros_like

    gs = [grads.get(id(o)) if id(o) in source_ids else grads.pop(id(o), None) for o in outputs]
    if all(g is None for g in gs):
        return None
    return tuple(
        (zeros_like(o) if o._value.dtype.kind in "fc" else None) if g is None else g
        for o, g in zip(outputs, gs)
    )


def record_custom(prim: Primitive, inputs: tuple, output, params: dict = _NO_PARAMS) -> None:
    """Records an already computed op (used by `custom_gradient`) on the recording tapes."""
    if state.RECORDING:
        outs = output if type(output) is tuple else (output,)
        _record(prim, inputs, output, params, None, any(_is_float(o._value) for o in outs))
