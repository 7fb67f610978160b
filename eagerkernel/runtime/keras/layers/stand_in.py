"""Whether the running layer call is a shape-inference call on stand-in inputs.

A custom layer called on KerasTensors is run on zero-filled stand-ins (`functional.probe_spec`)
to find its output shapes. Layers that would reject those stand-in values, such as a
`StringLookup` with ``num_oov_indices=0`` given the empty string, ask `in_stand_in_call` and
return a value of the right shape and dtype instead. TensorFlow never evaluates a layer while
tracing it symbolically, so no error can come from a stand-in there either.
"""

from __future__ import annotations

import threading

__all__ = ["in_stand_in_call", "stand_in_call"]

_state = threading.local()  # .depth: how many stand-in calls enclose this thread's code


class stand_in_call:
    """Marks the code inside it as running on stand-in inputs (nests; per thread)."""

    def __enter__(self) -> stand_in_call:
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc) -> None:
        _state.depth -= 1


def in_stand_in_call() -> bool:
    """True inside `stand_in_call` on this thread."""
    return getattr(_state, "depth", 0) > 0
