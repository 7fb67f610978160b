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
# [Device]: where creation ops place tensors outside any scope (`ek.config.set_default_device`).
DEFAULT_DEVICE: list = [None]


def scope_device(thread: int):
    """The innermost `ek.device` scope's Device for ``thread``, or None."""
    for owner, device in reversed(SCOPES):
        if owner == thread:
            return device
    return None


def refresh() -> None:
    """Recomputes SLOW after RECORDING, PROFILING or SCOPES changed."""
    if RECORDING or SCOPES:
        if not SLOW:
            SLOW.append(True)
    else:
        SLOW.clear()
