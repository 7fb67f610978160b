"""``%eager_timing on|off``: after each cell, how many ops it ran, their time by device, and the
time spent in backward passes, shown with ``display`` (never printed), so nbval can ignore it.

How it is measured: while timing is on, each cell runs inside a `ProfilingTape` pushed by
IPython's ``pre_run_cell`` event and popped by ``post_run_cell``; the tape times every op the
cell runs on the notebook's thread (ops of the backward passes included; Dataset worker
threads are not seen). Backward time is the wall time spent inside the runtime's backward sweep
(``tape.gradient``, ``jacobian``, ``%grad``), which the tape receives through the recorder
interface's ``on_backward`` hook. The cost: the tape keeps the cell's
tensors alive until the cell ends, and every op takes the profiling path, so a cell runs
somewhat slower and holds more memory. With timing off nothing is registered and ops run as
usual.
"""

from __future__ import annotations

import time

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_magic, magics_class
from IPython.display import display

from ..runtime.core.profiling_tape import ProfilingTape
from ..runtime.core.records import Records
from .formatting import format_seconds, html_table, text_table

__all__ = ["CellTiming", "TimingMagics"]


class CellTiming:
    """What one cell ran: op count, forward op time by device, backward passes and their time.

    Each op is counted once: the ops a backward pass ran (its VJPs' ops, told apart by the
    backward scope they ran in) are in the backward row, with the pass's wall time, and not
    in the per-device rows.

    Attributes:
        ops: number of ops run (forward and backward).
        by_device: ``{device name: (ops, seconds)}`` of the ops outside backward passes.
        backward_ops: number of ops the backward passes ran.
        backward_passes: number of backward sweeps.
        backward_seconds: wall time inside them.
        wall: wall time of the cell.
    """

    def __init__(self, entries: list, backward_passes: int, backward_seconds: float, wall: float):
        # ``entries``: `Record` objects, or a tape's `Records`.
        records = entries if isinstance(entries, Records) else Records(entries)
        self.ops = len(records)
        by_device: dict[str, list] = {}
        backward = [any(kind == "backward" for kind, _ in path) for path in records.scopes()]
        self.backward_ops = sum(backward)
        for out, seconds, in_backward in zip(*records.fields("output", "seconds"), backward):
            if in_backward:
                continue
            if type(out) is tuple:
                out = out[0] if out else None
            device = getattr(getattr(out, "_device", None), "name", "?")
            slot = by_device.setdefault(device, [0, 0.0])
            slot[0] += 1
            slot[1] += seconds or 0.0
        self.by_device = {k: (n, s) for k, (n, s) in by_device.items()}
        self.backward_passes = backward_passes
        self.backward_seconds = backward_seconds
        self.wall = wall

    def _rows(self) -> list[list[str]]:
        rows = [[f"ops on {d}", str(n), format_seconds(s)] for d, (n, s) in self.by_device.items()]
        rows.append(
            [
                f"backward passes ({self.backward_passes})",
                str(self.backward_ops) if self.backward_passes else "",
                format_seconds(self.backward_seconds) if self.backward_passes else "—",
            ]
        )
        return rows

    def _title(self) -> str:
        return (
            f"Cell timing: {self.ops} op{'' if self.ops == 1 else 's'} run, "
            f"cell wall time {format_seconds(self.wall)}"
        )

    def __repr__(self) -> str:
        return self._title() + "\n" + text_table(["", "ops", "time"], self._rows())

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))

    def _repr_html_(self) -> str:
        return html_table(["", "ops", "time"], self._rows(), caption=self._title())


class _CellTape(ProfilingTape):
    """The profiling tape of one timed cell; it also counts the cell's backward passes and
    their time (the recorder interface's `on_backward`)."""

    def __init__(self):
        super().__init__()
        self.backward_passes = 0
        self.backward_seconds = 0.0

    def on_backward(self, seconds: float) -> None:
        self.backward_passes += 1
        self.backward_seconds += seconds


@magics_class
class TimingMagics(Magics):
    """The ``%eager_timing`` line magic and its cell events."""

    def __init__(self, shell=None):
        super().__init__(shell)
        self.enabled = False
        self._tape: ProfilingTape | None = None
        self._depth = 0  # %%tape runs a nested cell: only the outermost one is timed
        self._start = 0.0

    @line_magic
    def eager_timing(self, line: str):
        """``%eager_timing on|off``: after each cell, display the number of ops it ran, their
        time by device and the time spent in backward passes (off by default).

        The summary is a display (text and HTML), not printed output. While on, every cell
        runs on a profiling tape, which times each op and keeps the cell's tensors alive until
        the cell ends; see `eagerkernel.magics.timing` for what exactly is measured.
        Without an argument, says whether timing is on.
        """
        arg = line.strip().lower()
        if arg == "on":
            self.start()
        elif arg == "off":
            self.stop()
        elif arg:
            raise UsageError(f"%eager_timing: expected `on` or `off`. Received: {line.strip()!r}.")
        else:
            print(f"eager timing is {'on' if self.enabled else 'off'}")

    # -- events -------------------------------------------------------------------------------
    def start(self) -> None:
        if self.enabled:
            return
        self.enabled = True
        self.shell.events.register("pre_run_cell", self._pre)
        self.shell.events.register("post_run_cell", self._post)

    def stop(self) -> None:
        if not self.enabled:
            return
        self.enabled = False
        self.shell.events.unregister("pre_run_cell", self._pre)
        self.shell.events.unregister("post_run_cell", self._post)
        self._finish()
        self._depth = 0

    def _pre(self, info=None) -> None:
        self._depth += 1
        if self._depth > 1:
            return
        self._tape = _CellTape()
        self._tape.__enter__()
        self._start = time.perf_counter()

    def _finish(self) -> CellTiming | None:
        tape = self._tape
        if tape is None:
            return None
        wall = time.perf_counter() - self._start
        self._tape = None
        tape.__exit__(None, None, None)
        return CellTiming(Records(tape), tape.backward_passes, tape.backward_seconds, wall)

    def _post(self, result=None) -> None:
        if self._depth == 0:  # the cell that turned timing on
            return
        self._depth -= 1
        if self._depth > 0:
            return
        timing = self._finish()
        if timing is not None:
            display(timing)
