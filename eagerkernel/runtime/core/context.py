"""The per-thread execution context: the active recorders and the device scope.

Every op asks one question before its fast path: is anything observing ops or placing them,
in any thread? `ACTIVE` answers it: a process-wide list with one token per active recorder
and per entered device scope that can move tensors (a scope on the only device there is
cannot, and gets its token only when a second device appears), so ``if ACTIVE:`` (one
global load and a truth test) is the whole cost of the fast path's check. Only when it is
non-empty does `dispatch` read this thread's `Context`, which holds:

- ``recorders`` and ``devices``: the recorders this thread pushed (tapes, the profiling tape
  behind ``%%tape``, anything implementing `Recorder`) and the ``ek.device`` scopes it entered,
  innermost last, as tuples replaced (never mutated) on push and pop;
- ``state``: what `dispatch` reads, derived from those on every push and pop: the innermost
  device scope, whether any recorder wants each forward timed (``timed``) and the device
  synchronized around it (``sync``), and the recorders' bound ``record`` methods. The C
  dispatcher (``native/_dispatch.c``) gets the same tuple through ``set_state``.

It also holds ``scope_name``, the thread's current ``ek.name_scope`` (``"block/dense/"``, or
``""`` outside any scope), which prefixes the names of Variables created in it. Ops never read
it: entering a scope costs nothing on the dispatch path.

A recorder or scope belongs to the thread that entered it: thread A's tape never sees thread
B's ops, and a Dataset worker thread sees no recorder of the notebook's thread (the C
dispatcher runs its ops unobserved; the Python one pays one thread-local read).
"""

from __future__ import annotations

import threading

__all__ = [
    "ACTIVE",
    "Context",
    "GradientListener",
    "Recorder",
    "activate_device_scopes",
    "context",
    "current_recorders",
    "default_device",
    "discard_recorder",
    "gradient_listener",
    "pop_device",
    "pop_gradient_listener",
    "pop_recorder",
    "pop_scope",
    "push_device",
    "push_gradient_listener",
    "push_recorder",
    "push_scope",
    "scope",
    "set_default_device",
]

try:  # where native/_dispatch.c keeps each thread's state (see Context._update)
    from ..native import ENABLED as _NATIVE
    from ..native._dispatch import set_state as _native_state

    if not _NATIVE:
        _native_state = None
except ImportError:  # not built: only the Python dispatcher reads the state
    _native_state = None

# One token per active recorder or device scope, in any thread: non-empty means "take the
# observed path". Changed under `_lock` only; read without it (a list's truth is atomic).
ACTIVE: list = []
_lock = threading.Lock()
# Where creation ops place tensors outside any scope (`ek.config.set_default_device`).
_default_device: list = [None]


class Recorder:
    """What observes the ops of one thread: the interface tapes and profilers implement.

    `dispatch` calls `record` after every op the thread runs while the recorder is pushed
    (`push_recorder`), oldest recorder first, with:

    - ``prim``: the `Primitive` that ran;
    - ``inputs``: the input Tensors as the op received them (a Variable is passed as itself:
      snapshot it if its value matters later);
    - ``output``: the output Tensor, or a tuple of Tensors for a multi-output primitive;
    - ``params``: the op's keyword parameters (a dict; do not mutate);
    - ``saved``: what the primitive's forward saved for its VJP (``Primitive.saves``), or None;
    - ``seconds``: the forward's wall time when any pushed recorder has ``timed`` set (with the
      device synchronized before and after when one has ``sync``), else None.

    `on_backward` is called with the wall time of each backward pass (`GradientTape.gradient`,
    `jacobian`, ...) that this thread ran while the recorder was pushed.

    `on_scope` is called with this thread's scope path each time it changes while the
    recorder is pushed (a Keras layer call, a name scope, a backward pass or an optimizer
    update begins or ends; see `push_scope`), so a recorder can tell which layer ran each op
    without any per-op work.

    A recorder must not run ops inside `record` (they would be recorded again).
    """

    timed = False
    sync = False
    # While it records, an InvalidArgumentError from an op's forward does not propagate: the
    # op's output holds it and raises where it is read (`dispatch.DeferredError`). Graph-function
    # tracing asks for it: an op whose output the function never uses must not fail.
    defers_errors = False

    def record(self, prim, inputs: tuple, output, params: dict, saved, seconds) -> None:
        raise NotImplementedError

    def on_backward(self, seconds: float) -> None:
        """Called after each backward pass of this thread (default: nothing)."""

    def on_scope(self, path: tuple) -> None:
        """Called when this thread's scope path changes (default: nothing): ``path`` is the
        new `Context.scopes`, outermost first, each item ``(kind, name)``."""

    def on_value(self, tensor, kind: str, value) -> None:
        """Called when this thread reads a tensor's value into Python: ``kind`` is ``"bool"``,
        ``"int"``, ``"float"``, ``"complex"``, ``"index"`` (``value`` the Python result) or
        ``"array"`` (``.numpy()``, ``np.asarray``; ``value`` the array). Graph-function
        tracing turns these into guards (default: nothing)."""

    def on_variable(self, variable) -> None:
        """Called when this thread creates a Variable (default: nothing)."""

    def on_composite(self, value) -> None:
        """Called when this thread builds a ragged or sparse tensor, whose row partition or
        indices Python code computes from tensor values (default: nothing; graph-function
        tracing cannot replay that code, so the function then runs eagerly)."""


class GradientListener:
    """What wants each source's gradient the moment the backward pass has finished it.

    A thread has at most one listener (`push_gradient_listener`); ``GradientTape.gradient``
    asks it once per call, before the backward pass, which sources it wants
    (`begin`). The backward sweep then calls the returned session's ``ready(index,
    gradient)`` as soon as the gradient of ``sources[index]`` is final (its last contribution
    summed: no record still to be swept reads the source), newest-first, which is what lets a
    distribution strategy start all-reducing a layer's gradients while the earlier layers'
    VJPs still run; ``end(gradients)`` follows the sweep with the gradients the call returns
    (None when it raised). The gradients handed to ``ready`` are the very Tensors the call
    returns. Tapes without a listener pay nothing, and ops never see listeners.
    """

    def begin(self, sources: list):
        """Called with the flat sources of one ``tape.gradient`` call (None entries are
        unwatched sources). Returns None (no interest), or a session with ``wanted`` (the
        indices into ``sources`` it wants), ``ready(index, gradient)`` and
        ``end(gradients)``."""
        return None


class _ThreadTokens:
    """The tokens one thread holds in `ACTIVE` (its pushed recorders and device scopes). It
    lives in the thread's `Context`, so it is freed when the thread ends; a thread that ends
    inside a tape or a device scope (entered without its exit) then takes its tokens out, and
    the other threads' ops go back to the fast path."""

    __slots__ = ("tokens",)

    def __init__(self):
        self.tokens: list = []

    def __del__(self):
        tokens = self.tokens
        if not tokens:
            return
        try:
            with _lock:
                for token in tokens:
                    if not _remove_from(ACTIVE, token):
                        _remove_from(_quiet, token)
        except Exception:  # interpreter shutdown: the module's globals may be gone
            pass


class Context(threading.local):
    """One thread's view: its recorders, its device scope, and what they ask of `dispatch`."""

    def __init__(self):
        self.held = _ThreadTokens()  # this thread's tokens in ACTIVE, let go when it ends
        self.recorders: tuple = ()
        self.devices: tuple = ()  # entered device scopes, innermost last
        # Entered scopes, outermost first, each (kind, name): kind "layer", "name_scope",
        # "backward", "optimizer" or "function". Read by recorders through `on_scope`,
        # never by dispatch.
        self.scopes: tuple = ()
        # (innermost device scope or None, timed, sync, the recorders' bound `record`
        # methods): all that `dispatch` reads, in one thread-local load; derived by `_update`.
        self.state: tuple = (None, False, False, ())
        self.scope_name: str = ""  # the current ek.name_scope, "" or ending with "/"
        self.scope_stack: tuple = ()  # the scope names that entered scopes replaced
        # The `GradientListener` of this thread, or None: read once per `tape.gradient`
        # call, never by dispatch.
        self.gradient_listener = None

    @property
    def device(self):
        """The innermost device scope, or None."""
        return self.state[0]

    def _update(self) -> None:
        recorders = self.recorders
        timed = sync = False
        for r in recorders:  # a loop, not any(): this runs twice per GradientTape
            if r.timed:
                timed = True
            if r.sync:
                sync = True
        self.state = (
            self.devices[-1] if self.devices else None,
            timed,
            sync,
            tuple([r.record for r in recorders]),
        )
        if _native_state is not None:  # native/_dispatch.c reads its own copy
            _native_state(self.state)


_context = Context()


def context() -> Context:
    """This thread's `Context` (the object is shared; its attributes are per thread)."""
    return _context


def current_recorders() -> tuple:
    """The recorders this thread has pushed, oldest first."""
    return _context.recorders


def push_recorder(recorder: Recorder) -> None:
    """Starts sending this thread's ops to ``recorder`` (after those already pushed)."""
    ctx = _context
    with _lock:
        ACTIVE.append(recorder)
        ctx.held.tokens.append(recorder)
    _set_recorders(ctx, (*ctx.recorders, recorder))


def pop_recorder(recorder: Recorder) -> None:
    """Stops sending this thread's ops to ``recorder``.

    Raises:
        ValueError: if this thread did not push ``recorder``.
    """
    ctx = _context
    recorders = ctx.recorders
    if recorder not in recorders:
        raise ValueError(f"pop_recorder: {recorder!r} is not recording on this thread.")
    k = len(recorders) - 1 - recorders[::-1].index(recorder)
    _set_recorders(ctx, recorders[:k] + recorders[k + 1 :])
    with _lock:
        _remove_token(recorder)
        _remove_from(ctx.held.tokens, recorder)


def discard_recorder(recorder: Recorder) -> None:
    """Undoes whatever part of `push_recorder(recorder)` ran on this thread (a push cut short
    by a KeyboardInterrupt); does nothing if none did."""
    ctx = _context
    if recorder in ctx.recorders:
        pop_recorder(recorder)
    elif any(token is recorder for token in ACTIVE):
        with _lock:
            _remove_token(recorder)
            _remove_from(ctx.held.tokens, recorder)


def refresh(recorder: Recorder) -> None:
    """Re-reads ``recorder``'s ``timed``, ``sync`` and ``record`` (after one of them changed
    while it records on this thread)."""
    ctx = _context
    if recorder in ctx.recorders:
        _set_recorders(ctx, ctx.recorders)


def _set_recorders(ctx: Context, recorders: tuple) -> None:
    ctx.recorders = recorders
    ctx._update()


def gradient_listener():
    """This thread's `GradientListener`, or None."""
    return _context.gradient_listener


def push_gradient_listener(listener) -> object:
    """Makes ``listener`` (a `GradientListener`) this thread's; returns the one it replaces,
    which `pop_gradient_listener` puts back."""
    ctx = _context
    before = ctx.gradient_listener
    ctx.gradient_listener = listener
    return before


def pop_gradient_listener(before) -> None:
    """Restores this thread's listener from before `push_gradient_listener`."""
    _context.gradient_listener = before


def push_scope(name: str, kind: str = "name_scope") -> tuple:
    """Enters the scope ``(kind, name)`` on this thread and tells its recorders (`on_scope`).

    Keras layer calls enter a ``"layer"`` scope named after the layer, backward passes a
    ``"backward"`` one, optimizer updates an ``"optimizer"`` one and `ek.function` calls
    under a recorder a ``"function"`` one. Returns the path before the push, which
    `pop_scope` restores. If a recorder's `on_scope` raises, the push is undone.

    A KeyboardInterrupt (Ctrl-C) can land at any function entry, so a caller that must never
    leave a scope entered reads the path itself, pushes inside ``try`` and restores the path
    as the first statement of ``finally`` (an attribute store, where no signal is delivered)::

        before = context().scopes
        try:
            push_scope(name, kind)
            ...
        finally:
            context().scopes = before  # or a Context held in a local
            pop_scope(before)
    """
    ctx = _context
    before = ctx.scopes
    path = ctx.scopes = (*before, (kind, name))
    if ctx.recorders:
        try:
            for recorder in ctx.recorders:
                recorder.on_scope(path)
        except BaseException:
            ctx.scopes = before
            raise
    return before


def pop_scope(before: tuple) -> None:
    """Leaves the scopes entered since `push_scope` returned ``before`` (restores that path)
    and tells this thread's recorders."""
    ctx = _context
    ctx.scopes = before
    if ctx.recorders:
        for recorder in ctx.recorders:
            recorder.on_scope(before)


class scope:
    """``with scope(name, kind):`` runs its body inside the scope ``(kind, name)``
    (`push_scope` on entry, `pop_scope` on exit, also when the body raises).

    A Ctrl-C that lands as ``__exit__`` is entered would leave the scope entered, as with any
    Python context manager; code that must be safe against it uses the ``try``/``finally``
    form shown in `push_scope`.

    >>> with scope("block", "name_scope"):
    ...     context().scopes
    (('name_scope', 'block'),)
    >>> context().scopes
    ()
    """

    __slots__ = ("_before", "_kind", "_name")

    def __init__(self, name: str, kind: str = "name_scope"):
        self._name = name
        self._kind = kind

    def __enter__(self) -> scope:
        self._before = push_scope(self._name, self._kind)
        return self

    def __exit__(self, *exc) -> None:
        pop_scope(self._before)


# The tokens of device scopes that cannot move anything (`push_device` with places=False),
# kept out of ACTIVE until `activate_device_scopes` moves them in.
_quiet: list = []


def push_device(device, places: bool = True) -> None:
    """Enters a device scope on this thread (``with ek.device(...)``).

    ``places=False`` says that no tensor can live anywhere but ``device`` (it is the only
    device there is): the scope is then entered without a token in `ACTIVE`, so ops inside
    it keep the fast path, until `activate_device_scopes` (a second device appeared) gives it
    one. The scope is in this thread's `Context` either way.
    """
    ctx = _context
    ctx.devices = (*ctx.devices, device)
    ctx._update()
    with _lock:
        (ACTIVE if places else _quiet).append(device)
        ctx.held.tokens.append(device)


def pop_device(device) -> None:
    """Leaves the innermost device scope of this thread, which must be ``device``."""
    ctx = _context
    if not ctx.devices or ctx.devices[-1] is not device:
        raise RuntimeError(f"device scopes exited out of order: {device!r} is not innermost.")
    ctx.devices = ctx.devices[:-1]
    ctx._update()
    with _lock:
        # Tokens of one device are interchangeable: any one of them goes.
        if not _remove_from(_quiet, device):
            _remove_from(ACTIVE, device)
        _remove_from(ctx.held.tokens, device)


def activate_device_scopes() -> None:
    """Gives every open quiet device scope, in any thread, its token in `ACTIVE`: called
    when a second device appears, after which a scope can move tensors."""
    with _lock:
        ACTIVE.extend(_quiet)
        _quiet.clear()


def _remove_token(token) -> None:
    _remove_from(ACTIVE, token)


def _remove_from(tokens: list, token) -> bool:
    for k in range(len(tokens) - 1, -1, -1):
        if tokens[k] is token:
            del tokens[k]
            return True
    return False


def value_read(tensor, kind: str, value) -> None:
    """Tells this thread's recorders that ``tensor``'s value was read into Python
    (`Recorder.on_value`); `Tensor` calls it when `ACTIVE`."""
    for recorder in _context.recorders:
        recorder.on_value(tensor, kind, value)


def composite_created(value) -> None:
    """Tells this thread's recorders that a ragged or sparse tensor was built
    (`Recorder.on_composite`); its constructor calls it when `ACTIVE`."""
    for recorder in _context.recorders:
        recorder.on_composite(value)


def variable_created(variable) -> None:
    """Tells this thread's recorders that ``variable`` was created (`Recorder.on_variable`)."""
    for recorder in _context.recorders:
        recorder.on_variable(variable)


class suspended:
    """Context: this thread's recorders see nothing inside it (a stateful op being traced
    runs its own ops unobserved). The device scope stays."""

    def __enter__(self):
        ctx = _context
        self._recorders = ctx.recorders
        _set_recorders(ctx, ())
        return self

    def __exit__(self, *exc) -> None:
        _set_recorders(_context, self._recorders)


def scope_device():
    """This thread's innermost device scope, or None."""
    return _context.device if ACTIVE else None


def default_device():
    """Where creation ops place tensors outside any scope."""
    return _default_device[0]


def set_default_device(device) -> None:
    _default_device[0] = device
