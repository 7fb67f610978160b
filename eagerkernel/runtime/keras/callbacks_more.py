"""Keras's learning-rate, NaN, CSV, TensorBoard and backup callbacks (follow
`tf.keras.callbacks`): LearningRateScheduler, ReduceLROnPlateau, TerminateOnNaN, CSVLogger,
TensorBoard, BackupAndRestore."""

from __future__ import annotations

import math
import numbers
import os

import numpy as np

from ..core.tensor import Tensor
from .callbacks import Callback, monitor_mode, pythonify_logs

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "LearningRateScheduler",
    "ReduceLROnPlateau",
    "TensorBoard",
    "TerminateOnNaN",
]


# -- learning rate, NaN, CSV and TensorBoard callbacks --------------------------------------------


def _optimizer_of(model, who: str):
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not hasattr(optimizer, "learning_rate"):
        raise ValueError(f"{who}: the model has no optimizer with a learning rate; compile it.")
    return optimizer


def _current_lr(model, who: str) -> float:
    """The optimizer's learning rate as a float (TypeError for a schedule, as Keras)."""
    lr = _optimizer_of(model, who).learning_rate
    if isinstance(lr, Tensor):
        return float(np.asarray(lr.numpy()))
    if callable(lr):
        raise TypeError(
            f"{who}: the optimizer was created with a learning-rate schedule ({lr!r}) as its "
            "`learning_rate`, so its learning rate is not settable by a callback."
        )
    return float(lr)


def _set_lr(model, value: float, who: str) -> None:
    _current_lr(model, who)  # raises for a schedule
    model.optimizer.learning_rate = float(value)


class LearningRateScheduler(Callback):
    """Sets the learning rate at the start of each epoch (follows
    `tf.keras.callbacks.LearningRateScheduler`).

    Args:
        schedule: a function ``schedule(epoch, lr) -> new lr`` (``epoch`` counts from 0, ``lr``
            the current rate, a float); a one-argument ``schedule(epoch)`` (Keras's old API)
            works too.
        verbose: 0 quiet, 1 prints the new rate each epoch.

    The epoch's logs get ``"learning_rate"``, the rate used.

    Raises:
        ValueError: the schedule returns something that is not a float (at the epoch's start,
            before the rate changes).
        TypeError: the optimizer's learning rate is a schedule (it cannot be set).

    >>> model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer=ek.keras.optimizers.SGD(0.1), loss="mse")
    >>> halve = ek.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr / 2)
    >>> h = model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=2, verbose=0, callbacks=[halve])
    >>> [round(x, 6) for x in h.history["learning_rate"]]
    [0.05, 0.025]
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        if not callable(schedule):
            raise TypeError(
                f"LearningRateScheduler: schedule must be a function. Received: "
                f"schedule={schedule!r}"
            )
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = _current_lr(self.model, "LearningRateScheduler")
        try:  # Keras's API: schedule(epoch, lr)
            new = self.schedule(epoch, lr)
        except TypeError:  # the old API: schedule(epoch)
            new = self.schedule(epoch)
        if isinstance(new, Tensor) and new.shape.rank == 0:
            new = new.numpy()
        if not isinstance(new, (float, np.floating)):
            raise ValueError(
                f"LearningRateScheduler: the output of the `schedule` function should be a "
                f"float. Got: {new}"
            )
        _set_lr(self.model, float(new), "LearningRateScheduler")
        if self.verbose > 0:
            print(
                f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {float(new)}."
            )

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _current_lr(self.model, "LearningRateScheduler")


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` has not improved for
    ``patience`` epochs (follows `tf.keras.callbacks.ReduceLROnPlateau`).

    Keras's rule, at each epoch's end: during a cooldown the wait stays 0; an improvement
    (below ``best - min_delta`` in "min" mode, above ``best + min_delta`` in "max" mode)
    resets the wait; otherwise, outside the cooldown, the wait grows and when it reaches
    ``patience`` the rate becomes ``max(lr * factor, min_lr)`` (if above ``min_lr``) and the
    cooldown of ``cooldown`` epochs starts.

    Args:
        monitor: a log key (default ``"val_loss"``).
        factor: the multiplier, < 1 (default 0.1).
        patience: epochs without improvement before a reduction (default 10).
        verbose: 1 prints each reduction.
        mode: ``"auto"`` (max for accuracies and AUC, as `EarlyStopping`), ``"min"`` or
            ``"max"``.
        min_delta: the smallest change that counts as an improvement (default 1e-4).
        cooldown: epochs to wait after a reduction before counting again (default 0).
        min_lr: the lower bound of the rate (default 0).

    The epoch's logs get ``"learning_rate"``.

    Raises:
        ValueError: ``factor >= 1`` or an unknown ``mode``.
        TypeError: an unknown keyword (Keras 2's ``epsilon`` is ``min_delta``).
    """

    def __init__(
        self,
        monitor="val_loss",
        factor=0.1,
        patience=10,
        verbose=0,
        mode="auto",
        min_delta=1e-4,
        cooldown=0,
        min_lr=0.0,
        **kwargs,
    ):
        super().__init__()
        if "epsilon" in kwargs:  # Keras 2's name of min_delta
            min_delta = kwargs.pop("epsilon")
        if kwargs:
            raise TypeError(f"ReduceLROnPlateau: unexpected keyword arguments {sorted(kwargs)}.")
        if factor >= 1.0:
            raise ValueError(
                f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}"
            )
        self.monitor = monitor
        self.factor = float(factor)
        self.patience = int(patience)
        self.verbose = verbose
        self.mode = mode
        self.min_delta = float(min_delta)
        self.cooldown = int(cooldown)
        self.min_lr = float(min_lr)
        self._maximize = monitor_mode(monitor, mode) is np.greater  # ValueError: bad mode
        self._reset()

    def _reset(self) -> None:
        self.best = -math.inf if self._maximize else math.inf
        self.cooldown_counter = 0
        self.wait = 0

    def _improved(self, current, best) -> bool:
        if self._maximize:
            return current > best + self.min_delta
        return current < best - self.min_delta

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["learning_rate"] = _current_lr(self.model, "ReduceLROnPlateau")
        current = logs.get(self.monitor)
        if current is None:
            import warnings

            warnings.warn(
                f"ReduceLROnPlateau: learning rate reduction is conditioned on metric "
                f"{self.monitor!r}, which is not in the logs (available: {sorted(logs)}).",
                stacklevel=2,
            )
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old = logs["learning_rate"]
                if old > np.float32(self.min_lr):
                    new = max(old * self.factor, self.min_lr)
                    _set_lr(self.model, new, "ReduceLROnPlateau")
                    if self.verbose > 0:
                        print(
                            f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate "
                            f"to {new}."
                        )
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


class TerminateOnNaN(Callback):
    """Stops training when a batch's loss is NaN or infinite (follows
    `tf.keras.callbacks.TerminateOnNaN`).

    Args:
        raise_error: False (default): set ``model.stop_training``, so the epoch ends after
            that batch, no other epoch starts and every callback's ``on_train_end`` runs.
            True: raise RuntimeError at once, so no ``on_train_end`` runs (a
            `BackupAndRestore` keeps its backup).

    Raises:
        RuntimeError: with ``raise_error=True``, naming the batch and the loss.
    """

    def __init__(self, raise_error: bool = False):
        super().__init__()
        self.raise_error = bool(raise_error)

    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None:
            return
        loss = float(np.asarray(loss.numpy() if isinstance(loss, Tensor) else loss))
        if not math.isfinite(loss):
            if self.raise_error:
                raise RuntimeError(
                    f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. "
                    "Terminating training immediately."
                )
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file (follows `tf.keras.callbacks.CSVLogger`).

    The columns are ``epoch`` (from 0) then the log keys, sorted, fixed by the first epoch;
    if that epoch has no ``val_`` keys, ``val_<key>`` columns are added (Keras does so that
    validating every few epochs still fits the header); a key missing from an epoch is
    written ``NA``. The file is flushed after each row and closed at the end of training.

    Args:
        filename: the CSV file's path.
        separator: the field delimiter (default ``","``).
        append: append to an existing file (its header is kept; a header is written only if
            the file is empty or new) instead of overwriting it.

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
    >>> model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(1,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> model.fit(np.ones((2, 1)), np.ones((2, 1)), epochs=2, verbose=0,
    ...           callbacks=[ek.keras.callbacks.CSVLogger(path)]) and None
    >>> print(open(path).read().splitlines()[0])
    epoch,loss,val_loss
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = bool(append)
        self.keys = None
        self.writer = None
        self.csv_file = None
        self.append_header = True

    def on_train_begin(self, logs=None):
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename, encoding="utf-8") as f:
                    self.append_header = not f.readline()
            mode = "a"
        else:
            mode = "w"
        self.keys = None
        self.writer = None
        self.csv_file = open(self.filename, mode, newline="", encoding="utf-8")  # noqa: SIM115

    def on_epoch_end(self, epoch, logs=None):
        import csv

        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                self.keys += [f"val_{k}" for k in self.keys]
        if self.writer is None:
            sep = self.sep

            class Dialect(csv.excel):
                delimiter = sep

            self.writer = csv.DictWriter(
                self.csv_file, fieldnames=["epoch", *self.keys], dialect=Dialect
            )
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((k, _csv_value(logs.get(k, "NA"))) for k in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None:
            self.csv_file.close()
        self.csv_file = None
        self.writer = None


def _csv_value(value):
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)) and np.ndim(value) > 0:
        return f'"[{", ".join(map(str, value))}]"'
    return value


class TensorBoard(Callback):
    """Writes TensorBoard event files during training (follows `tf.keras.callbacks.TensorBoard`),
    with `ek.summary`'s writer.

    Two runs under ``log_dir``: ``train`` and ``validation``. At each epoch's end the train
    run gets ``epoch_<key>`` for every log key (plus ``epoch_learning_rate``, and
    ``epoch_steps_per_second`` with ``write_steps_per_second``) at step ``epoch``; the
    validation run gets the ``val_`` keys without their prefix (``epoch_loss``), and each
    evaluation (fit's validation, or ``evaluate(callbacks=[tb])``) writes
    ``evaluation_<key>_vs_iterations`` there at the optimizer's step count. With an
    integer ``update_freq`` (or ``"batch"``, i.e. 1) the train run also gets ``batch_<key>``
    every that many batches, at the step counted over the whole training (from 1).

    Args:
        log_dir: the directory of the runs (default ``"logs"``).
        histogram_freq: every this many epochs (0 never, the default), a histogram of each
            weight, tagged ``<weight.path>/histogram`` (``sequential/dense/kernel/histogram``,
            as Keras 3), in the train run.
        write_graph: write the model's JSON config as the ``keras`` text summary (what
            TensorBoard's Keras model view shows for an eager model; there is no graph).
        write_images, write_steps_per_second, update_freq, profile_batch, embeddings_freq,
            embeddings_metadata: as Keras; ``write_images=True``, a nonzero ``profile_batch``
            or ``embeddings_freq`` and ``embeddings_metadata`` raise NotImplementedError.

    Raises:
        NotImplementedError: for the arguments above.
        ValueError: ``update_freq`` neither "epoch", "batch" nor a positive integer.
        ImportError: tensorboardX is not installed (at the start of training).
    """

    def __init__(
        self,
        log_dir="logs",
        histogram_freq=0,
        write_graph=True,
        write_images=False,
        write_steps_per_second=False,
        update_freq="epoch",
        profile_batch=0,
        embeddings_freq=0,
        embeddings_metadata=None,
    ):
        super().__init__()
        for arg, value, default in (
            ("write_images", write_images, False),
            ("profile_batch", profile_batch, 0),
            ("embeddings_freq", embeddings_freq, 0),
            ("embeddings_metadata", embeddings_metadata, None),
        ):
            if value != default:
                raise NotImplementedError(
                    f"TensorBoard: {arg}={value!r} is not supported by eagerkernel (only "
                    f"{arg}={default!r})."
                )
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (
            isinstance(update_freq, bool) or not isinstance(update_freq, int) or update_freq < 1
        ):
            raise ValueError(
                "TensorBoard: update_freq must be 'epoch', 'batch' or a positive integer. "
                f"Received: update_freq={update_freq!r}"
            )
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_graph = bool(write_graph)
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq = update_freq
        self._writers: dict = {}
        self._global_train_batch = 0
        self._in_fit = False

    def _writer(self, run: str):
        writer = self._writers.get(run)
        if writer is None:
            from ..io import summary

            writer = self._writers[run] = summary.create_file_writer(
                os.path.join(self.log_dir, run)
            )
        return writer

    def _scalars(self, run: str, values: dict, step: int) -> None:
        from ..io import summary

        with self._writer(run).as_default():
            for name, value in values.items():
                if isinstance(value, (int, float, np.number)) or (
                    isinstance(value, Tensor) and value.shape.rank == 0
                ):
                    summary.scalar(name, value, step=step)

    def on_train_begin(self, logs=None):
        import time

        self._in_fit = True
        self._global_train_batch = 0
        self._epoch_start = time.monotonic()
        self._epoch_batches = 0
        writer = self._writer("train")
        if self.write_graph and hasattr(self.model, "to_json"):
            from ..io import summary

            with writer.as_default():
                summary.text("keras", self.model.to_json(), step=0)

    def on_epoch_begin(self, epoch, logs=None):
        import time

        self._epoch_start = time.monotonic()
        self._epoch_batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self._global_train_batch += 1
        self._epoch_batches += 1
        if self.update_freq == "epoch" or self._global_train_batch % self.update_freq:
            return
        batch_logs = {f"batch_{k}": v for k, v in pythonify_logs(logs or {}).items()}
        self._scalars("train", batch_logs, self._global_train_batch)

    def on_epoch_end(self, epoch, logs=None):
        import time

        logs = pythonify_logs(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        optimizer = getattr(self.model, "optimizer", None)
        lr = getattr(optimizer, "learning_rate", None)
        if isinstance(lr, Tensor):
            train.setdefault("learning_rate", float(np.asarray(lr.numpy())))
        elif callable(lr) and hasattr(optimizer, "_current_learning_rate"):  # a schedule
            train.setdefault("learning_rate", optimizer._current_learning_rate())
        if self.write_steps_per_second:
            elapsed = time.monotonic() - self._epoch_start
            train["steps_per_second"] = self._epoch_batches / elapsed if elapsed > 0 else 0.0
        self._scalars("train", {f"epoch_{k}": v for k, v in train.items()}, epoch)
        if val:
            self._scalars("validation", {f"epoch_{k}": v for k, v in val.items()}, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def on_test_end(self, logs=None):
        # evaluate() and fit's validation: the results against the optimizer's step count
        iterations = getattr(getattr(self.model, "optimizer", None), "iterations", None)
        if iterations is None or not logs:
            return
        step = int(np.asarray(iterations.numpy()))
        values = {f"evaluation_{k}_vs_iterations": v for k, v in pythonify_logs(logs).items()}
        self._scalars("validation", values, step)
        if not self._in_fit:  # evaluate() alone: nothing else will close the file
            self._writers.pop("validation").close()

    def _log_weights(self, epoch: int) -> None:
        from ..io import summary

        with self._writer("train").as_default():
            for weight in self.model.weights:
                # Keras 3 tags by the weight's path ("sequential/dense/kernel")
                tag = weight.path.replace(":", "_") + "/histogram"
                summary.histogram(tag, weight, step=epoch)

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
        self._in_fit = False


class BackupAndRestore(Callback):
    """Backs up the training state during `fit` and resumes from it when `fit` starts again
    after an interruption (follows `tf.keras.callbacks.BackupAndRestore`, Keras 3).

    The backup is one `ek.train.Checkpoint` of the model, its optimizer (slots and
    iterations) and the number of finished epochs, written atomically to
    ``<backup_dir>/backup``: an interruption while saving leaves the previous backup whole.
    When `fit` begins and a backup exists, it is restored and training continues at the epoch
    after the last finished one (``fit(..., epochs=N)`` then runs only the remaining epochs).
    A backup made in the middle of an epoch (an integer ``save_freq``) holds that batch's
    weights and optimizer state, and training restarts that epoch from its first batch, as in
    Keras. When `fit` finishes normally the backup is deleted (unless
    ``delete_checkpoint=False``).

    Args:
        backup_dir: the directory of the backup (created if needed); one per training job.
        save_freq: ``"epoch"`` (default): at the end of each epoch; an int N: every N
            batches (counted across epochs, as Keras counts them); False: never (Keras's
            setting for preemption checkpointing, which has no equivalent here).
        delete_checkpoint: delete the backup at the end of a completed training (default
            True).
        double_checkpoint: keep the previous backup too (``backup.bkp``), and restore it when
            the latest one cannot be read (a corrupted file), as Keras does (default False).

    Raises:
        ValueError: an empty ``backup_dir``, a ``save_freq`` that is not "epoch" or an int
            (Keras's message), or a model without an optimizer at the start of training.
    """

    def __init__(
        self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True
    ):
        super().__init__()
        if not backup_dir:
            raise ValueError("BackupAndRestore: empty `backup_dir` argument passed.")
        if save_freq != "epoch" and not isinstance(save_freq, numbers.Integral):
            raise ValueError(
                "Invalid value for argument `save_freq`. "
                f"Received: save_freq={save_freq}. "
                "Expected either 'epoch' or an integer value."
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._prefix = os.path.join(self.backup_dir, "backup")
        self._previous = self._prefix + ".bkp"
        self._checkpoint = None
        self._epoch = None
        self._epochs_done = 0
        self._batches_since_save = 0
        self._last_batch = 0

    def _make_checkpoint(self):
        from ..core.variable import Variable
        from ..io.checkpoint import Checkpoint

        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None:
            raise ValueError("BackupAndRestore: the model has no optimizer; compile it first.")
        self._epoch = Variable(0, trainable=False, name="backup_epoch", dtype="int64")
        self._checkpoint = Checkpoint(model=self.model, optimizer=optimizer, epoch=self._epoch)

    def on_train_begin(self, logs=None):
        from ..io.checkpoint_format import CheckpointError, data_file

        self._make_checkpoint()
        self._epochs_done = self._batches_since_save = self._last_batch = 0
        if not os.path.exists(data_file(self._prefix)):
            return
        try:
            self._checkpoint.read(self._prefix)
        except (OSError, CheckpointError):
            if not os.path.exists(data_file(self._previous)):
                raise
            # The latest backup is unreadable: the one before it (double_checkpoint).
            self._checkpoint.read(self._previous)
        # fit reads this after on_train_begin: the epochs already done are skipped
        self._epochs_done = int(self._epoch.numpy())
        self.model._initial_epoch = self._epochs_done

    def on_epoch_end(self, epoch, logs=None):
        self._epochs_done = epoch + 1
        self._last_batch = 0
        if self.save_freq == "epoch":
            self._save()

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch" or self.save_freq is False:
            return
        # Keras's count: batches since the last backup, across the epochs' boundaries.
        self._batches_since_save += (
            batch + 1 if batch <= self._last_batch else batch - self._last_batch
        )
        self._last_batch = batch
        if self._batches_since_save >= self.save_freq:
            self._batches_since_save = 0
            self._save()

    def _save(self):
        import shutil

        from ..io.checkpoint_format import data_file

        os.makedirs(self.backup_dir, exist_ok=True)
        latest = data_file(self._prefix)
        if self.double_checkpoint and os.path.exists(latest):
            shutil.copyfile(latest, data_file(self._previous))
        self._epoch.assign(np.int64(self._epochs_done))
        self._checkpoint.write(self._prefix)

    def on_train_end(self, logs=None):
        import shutil

        if self.delete_checkpoint and os.path.isdir(self.backup_dir):
            shutil.rmtree(self.backup_dir)
