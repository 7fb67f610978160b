"""`ek.train.CheckpointManager` (follows `tf.train.CheckpointManager`): numbered saves of a
`Checkpoint`, the newest ``max_to_keep`` kept (and those of ``keep_checkpoint_every_n_hours``),
the ``checkpoint`` state file listing them, and restores of the latest."""

from __future__ import annotations

import contextlib
import os
import re
import time
import warnings

import numpy as np

from ..distribute import context as distribute_context
from .checkpoint import Checkpoint, numpy_value
from .checkpoint_format import (
    STATE_FILE,
    data_file,
    get_checkpoint_state,
    state_lock,
    write_state,
)
from .checkpoint_options import check_options

__all__ = ["CheckpointManager"]


# -- CheckpointManager -------------------------------------------------------------------------


class CheckpointManager:
    """Numbered checkpoints in a directory, keeping the newest ``max_to_keep``
    (follows `tf.train.CheckpointManager`, whose documentation is the specification).

    Args:
        checkpoint: the `Checkpoint` to save.
        directory: where the files and the ``checkpoint`` state file go (created).
        max_to_keep: how many checkpoints to keep in the *active set* (None: all); after each
            save the oldest beyond it leave the set and are deleted, unless
            ``keep_checkpoint_every_n_hours`` preserves them.
        keep_checkpoint_every_n_hours: a checkpoint leaving the active set is preserved (kept
            on disk, no longer listed in `checkpoints`) if it was written at least this many
            hours after the last preserved one. None: none is preserved.
        checkpoint_name: the prefix of the files (``ckpt-1``, ``ckpt-2``, ...).
        step_counter: a Variable (or Tensor) holding the training step; needed with
            ``checkpoint_interval``.
        checkpoint_interval: the least number of steps between two saves: `save` returns None
            without saving until ``step_counter`` has advanced that far since the last save.
        init_fn: called by `restore_or_initialize` when the directory has no checkpoint.

    Raises:
        ValueError: ``max_to_keep`` not positive, or ``checkpoint_interval`` without
            ``step_counter`` (TensorFlow's messages).
        TypeError: ``init_fn`` not callable.

    The manager's state (the kept checkpoints, when each was written, the last preserved
    time) lives in the state file, so a new manager on the directory goes on where the last
    one stopped. A damaged state file is ignored with a warning, as in TensorFlow. Saves
    through any number of managers, in threads or processes, take turns through the
    directory's lock file: each gets its own number and the state file names them all. A save
    whose number (the save counter's) names a checkpoint the state file lists, written by
    another saver or by an earlier run that was not restored, takes the next free number
    instead of overwriting it (TensorFlow would overwrite it), and the save counter follows.
    The manager deletes files inside ``directory`` only.

    >>> import tempfile
    >>> ckpt = ek.train.Checkpoint(step=ek.Variable(0))
    >>> manager = ek.train.CheckpointManager(ckpt, tempfile.mkdtemp(), max_to_keep=2)
    >>> for _ in range(3):
    ...     _ = ckpt.step.assign_add(1); _ = manager.save()
    >>> [os.path.basename(p) for p in manager.checkpoints]
    ['ckpt-2', 'ckpt-3']
    """

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory,
        max_to_keep: int | None = 5,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name: str = "ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
    ):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(
                f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}."
            )
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError(
                "`step_counter` should be passed if `checkpoint_interval` is not None."
            )
        if init_fn is not None and not callable(init_fn):
            raise TypeError(
                f"CheckpointManager: init_fn must be callable. Received: init_fn={init_fn!r}"
            )
        if keep_checkpoint_every_n_hours is not None:
            keep_checkpoint_every_n_hours = float(keep_checkpoint_every_n_hours)
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = checkpoint_name
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = None
        self._init_fn = init_fn
        self._others: set = set()  # checkpoints other savers recorded while we ran
        os.makedirs(self._directory, exist_ok=True)
        state = get_checkpoint_state(self._directory)
        now = time.time()
        self._maybe_delete: dict[str, float] = {}
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0  # TF: avoids a race on quick re-creation
            return
        self._latest_checkpoint = self._key(state.model_checkpoint_path)
        preserved = state.last_preserved_timestamp
        if preserved is None:
            preserved = now - 1.0
        if now < preserved:
            warnings.warn(
                f"time.time() returned a value {preserved - now:f} seconds behind the last "
                "preserved checkpoint timestamp.",
                RuntimeWarning,
                stacklevel=2,
            )
            preserved = now
        self._last_preserved_timestamp = preserved
        stamps = state.all_model_checkpoint_timestamps or [
            # A state file without times (an older eagerkernel's) keeps its checkpoints in
            # the active set; TensorFlow would stop managing them.
            preserved + 1e-3 * (i + 1)
            for i in range(len(state.all_model_checkpoint_paths))
        ]
        for path, stamp in zip(state.all_model_checkpoint_paths, stamps):
            stamp = min(stamp, now)
            path = self._key(path)
            if stamp > preserved and self._managed(path):
                self._maybe_delete[path] = stamp

    def _key(self, path: str) -> str:
        """``path`` in the one form this manager lists and compares: joined to the directory
        as given (``./ckpts/ckpt-3``, as TensorFlow returns it) when it lies in the directory,
        else as it is. The state file's names and a save's prefix then compare equal."""
        inside = os.path.realpath(self._directory)
        real = os.path.realpath(path)
        if os.path.dirname(real) == inside:
            return os.path.join(self._directory, os.path.basename(real))
        return path

    def _managed(self, path: str) -> bool:
        """Whether the state file's ``path`` is a checkpoint of this directory that exists;
        one outside the directory is left alone, with a warning."""
        inside = os.path.realpath(self._directory)
        if os.path.commonpath([inside, os.path.realpath(path)]) != inside:
            warnings.warn(
                f"CheckpointManager: the state file of {self._directory} names {path}, which is "
                "outside the directory; it is not managed (and never deleted).",
                RuntimeWarning,
                stacklevel=3,
            )
            return False
        return os.path.exists(data_file(path))

    @property
    def directory(self) -> str:
        """The directory the checkpoints are written to."""
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        """The managed `Checkpoint`."""
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        """The ``checkpoint_interval`` given (None: every `save` saves)."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix, or None (as `ek.train.latest_checkpoint`)."""
        latest = self._latest_checkpoint
        if latest is not None and os.path.exists(data_file(latest)):
            return latest
        return next(reversed(self._maybe_delete), None)

    @property
    def checkpoints(self) -> list:
        """The prefixes of the active set, oldest first (checkpoints preserved by
        ``keep_checkpoint_every_n_hours`` are not listed, as in TensorFlow)."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval: bool = True, options=None):
        """Saves ``<directory>/<checkpoint_name>-<N>``, records it in the state file, then
        deletes the checkpoints that leave the active set (see the class docstring).

        Args:
            checkpoint_number: an int, or an integer Variable or Tensor, to number the
                checkpoint; None: the incremented ``save_counter``. The save counter is
                incremented either way; a given number is used as it is.
            check_interval: with ``checkpoint_interval``, whether to save only once the step
                counter moved at least the interval since the last save; False saves unless a
                checkpoint exists for the current step already.
            options: a `tf.train.CheckpointOptions` (see its docstring) or None.

        Returns:
            The new checkpoint's prefix, or None if nothing was saved (the interval).

        Raises:
            NotImplementedError: ``options`` that ask for callbacks or skipped slots.
            TypeError: ``checkpoint_number`` not an integer.
        """
        check_options(options, "CheckpointManager.save")
        if self._checkpoint_interval is not None:
            step = int(np.asarray(numpy_value(self._step_counter)))
            last = self._last_checkpoint_step
            if last is not None:
                if step == last:
                    return None
                if check_interval and step < last + self._checkpoint_interval:
                    return None
        number = None if checkpoint_number is None else _integer(checkpoint_number)
        with state_lock(self._directory), self._checkpoint._save_lock:
            self._merge_others()
            counter = self._checkpoint.save_counter
            n = int(counter.numpy()) + 1
            if number is None:
                # A listed checkpoint (another saver's, or an earlier run's that was not
                # restored) is never overwritten: the save takes the next free number.
                taken = {_number_of(p, self._prefix) for p in self._maybe_delete} - {None}
                if n in taken:
                    n = max(taken) + 1
            counter.assign(np.int64(n))
            try:
                path = self._checkpoint.write(f"{self._prefix}-{n if number is None else number}")
            except BaseException:
                counter.assign(np.int64(n - 1))
                raise
            path = self._key(path)
            if distribute_context.non_chief_worker() is not None:
                # Not the chief: `write` went to a removed temporary directory; the chief
                # keeps the state file and deletes old checkpoints. This worker only tracks
                # the names.
                self._maybe_delete.pop(path, None)
                self._maybe_delete[path] = time.time()
                self._latest_checkpoint = path
                return path
            # As TensorFlow: record the new checkpoint before deleting any, so that a crash
            # while deleting leaves a state file naming it; then record again without them.
            self._maybe_delete.pop(path, None)
            self._maybe_delete[path] = time.time()
            self._latest_checkpoint = path
            self._record_state()
            self._sweep()
            self._record_state()
            self._remove_temporaries()
        if self._checkpoint_interval is not None:
            self._last_checkpoint_step = step
        return path

    def _merge_others(self) -> None:
        """Takes in the checkpoints that other savers recorded in the state file, and drops
        those another saver deleted."""
        self._maybe_delete = {
            p: t for p, t in self._maybe_delete.items() if os.path.exists(data_file(p))
        }
        state = get_checkpoint_state(self._directory)
        if state is None:
            return
        if state.last_preserved_timestamp is not None:
            self._last_preserved_timestamp = max(
                self._last_preserved_timestamp, state.last_preserved_timestamp
            )
        stamps = state.all_model_checkpoint_timestamps or [time.time()] * len(
            state.all_model_checkpoint_paths
        )
        added = False
        for path, stamp in zip(state.all_model_checkpoint_paths, stamps):
            path = self._key(path)
            if path in self._maybe_delete or path in self._others:
                continue
            if stamp > self._last_preserved_timestamp and self._managed(path):
                self._maybe_delete[path] = stamp
                self._others.add(path)
                added = True
        if added:
            self._maybe_delete = dict(sorted(self._maybe_delete.items(), key=lambda e: e[1]))

    def _record_state(self) -> None:
        write_state(
            self._directory,
            self._latest_checkpoint,
            list(self._maybe_delete),
            list(self._maybe_delete.values()),
            self._last_preserved_timestamp,
        )

    def _sweep(self) -> None:
        """Deletes the oldest checkpoints beyond ``max_to_keep``, or preserves those that
        ``keep_checkpoint_every_n_hours`` keeps (TensorFlow's rule)."""
        if not self._max_to_keep:
            return
        hours = self._keep_checkpoint_every_n_hours
        while len(self._maybe_delete) > self._max_to_keep:
            path = next(iter(self._maybe_delete))
            stamp = self._maybe_delete.pop(path)
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            inside = os.path.realpath(self._directory)
            if os.path.commonpath([inside, os.path.realpath(path)]) == inside:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(data_file(path))

    def _remove_temporaries(self) -> None:
        """Deletes temporary files that a crashed save of this directory left (no other
        saver writes now: the caller holds the directory's lock)."""
        pattern = re.compile(rf"^\.{re.escape(self._name)}-\d+\.safetensors\.tmp-")
        for entry in os.listdir(self._directory):
            if entry.startswith(f".{STATE_FILE}.tmp-") or pattern.match(entry):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(self._directory, entry))

    def restore_or_initialize(self):
        """Restores the latest checkpoint if there is one and returns its path; otherwise
        calls ``init_fn`` (if given) and returns None (follows TensorFlow)."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = int(np.asarray(numpy_value(self._step_counter)))
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None


def _integer(value) -> int:
    """``checkpoint_number`` as an int (an int, or an integer Variable/Tensor/array)."""
    a = np.asarray(numpy_value(value))
    if a.shape != () or a.dtype.kind not in "iu":
        raise TypeError(
            "CheckpointManager.save: checkpoint_number must be an integer or an integer "
            f"scalar Variable or Tensor. Received: checkpoint_number={value!r:.60}"
        )
    return int(a)


def _number_of(path: str, prefix: str) -> int | None:
    """N of ``<prefix>-N``, else None."""
    head = os.path.abspath(prefix) + "-"
    tail = path[len(head) :] if path.startswith(head) else ""
    return int(tail) if tail.isdigit() else None
