"""Variable updates held back until a training step has succeeded.

BatchNormalization's moving statistics are assigned during the forward pass; a training step
that then fails (a NaN check, an optimizer error, Ctrl-C) must leave them as they were. The
step runs its forward pass inside `deferred_updates` and commits after the optimizer update.
"""

from __future__ import annotations

import threading

from ...core.variable import Variable

__all__ = ["assign_later", "deferred_updates"]

_pending = threading.local()  # .pending: the list the innermost deferred_updates collects


class deferred_updates:
    """Collects `assign_later` updates (BatchNormalization's moving statistics) made inside it.

    A training step runs its forward pass inside this context and calls `commit` only after
    the optimizer update succeeded, so a step that raises leaves every variable unchanged.
    """

    def __enter__(self) -> deferred_updates:
        self.pending: list = []
        self._outer = getattr(_pending, "pending", None)
        _pending.pending = self.pending
        return self

    def __exit__(self, *exc) -> None:
        _pending.pending = self._outer

    def commit(self) -> None:
        """Applies the collected assignments in order (they were validated when collected)."""
        for variable, value in self.pending:
            variable.assign(value)
        self.pending.clear()


def assign_later(variable: Variable, value) -> None:
    """``variable.assign(value)`` now, or at the end of the enclosing training step."""
    pending = getattr(_pending, "pending", None)
    if pending is None:
        variable.assign(value)
    else:
        variable._checked(value, "assign")  # fail now, inside the step, not at commit time
        pending.append((variable, value))
