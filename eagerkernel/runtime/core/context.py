"""Process-wide runtime state, kept in mutable module-level lists.

Ops import these lists once and test them with a plain truth test (``if SLOW:``), which is the
cheapest check Python offers: the fast path of an op costs one global load and one test for
all of tapes, profiling and device scopes together.

Threads: Dataset workers run ops too. Tapes and scopes are per thread in TensorFlow; here they
are recorded only by the thread that entered them (`GradientTape` checks its owner thread on
the slow path), so a worker thread never writes to the notebook's tape.
"""

from __future__ import annotations

# Tapes currently recording, innermost last.
RECORDING: list = []
# Tapes that also time every op (the %%tape magic's); a subset of RECORDING.
PROFILING: list = []
# Device scopes entered with `ek.device`, innermost last, as (thread ident, Device): a scope
# applies to the thread that entered it only (Dataset workers keep their own placement).
SCOPES: list = []
# Non-empty while any of the above is: the single flag an op tests before its fast path.
SLOW: list = []
# Derived by `refresh` too, so that an op tests a flag instead of looping over the tapes:
# non-empty while a profiling tape synchronizes the device around each op (--sync) ...
SYNC: list = []
# ... and [(record, thread ident, extend)] while the one recording tape is a profiling tape,
# with no device scope and no --sync: one- and two-input ops then run through ``record``
# (`records.lean_recorder`), which times them and adds their lean record to the tape, and
# `tape.execute` adds the records of the ops it ran with ``record.extend``; [None] otherwise.
# A tuple, swapped in one store, so that another thread never sees half of it.
LEAN: list = [None]
# [Device]: where creation ops place tensors outside any scope (`ek.config.set_default_device`).
DEFAULT_DEVICE: list = [None]


def scope_device(thread: int):
    """The innermost `ek.device` scope's Device for ``thread``, or None."""
    for owner, device in reversed(SCOPES):
        if owner == thread:
            return device
    return None


def refresh() -> None:
    """Recomputes SLOW, SYNC and LEAN after RECORDING, PROFILING, SCOPES, a tape's record list
    or a profiling tape's ``sync`` changed."""
    _set(SLOW, bool(RECORDING or SCOPES))
    _set(SYNC, any(tape._sync for tape in PROFILING))
    lean = None
    if len(RECORDING) == 1 and not SCOPES and not SYNC:
        tape = RECORDING[0]
        if tape._profile and tape._entries is not None:
            record = tape._lean_recorder()
            lean = (record, tape._thread, record.extend)
    LEAN[0] = lean


def _set(flag: list, on: bool) -> None:
    if not on:
        flag.clear()
    elif not flag:
        flag.append(True)
