"""Training callbacks (follow `tf.keras.callbacks`): the `Callback` base with every Keras
hook, `CallbackList`, History, EarlyStopping, ModelCheckpoint, LambdaCallback,
GradientNormLogger and the tqdm progress bar of `fit`, `evaluate` and `predict`
(`ProgbarLogger`); LearningRateScheduler, ReduceLROnPlateau, TerminateOnNaN, CSVLogger,
TensorBoard and BackupAndRestore are in ``callbacks_more.py`` (importable from here).

Logs are dicts of Python floats (``{"loss": 0.31, "accuracy": 0.9, "val_loss": ...}``);
`predict`'s batch logs hold ``{"outputs": <NumPy arrays>}``.
"""

from __future__ import annotations

import math
import os

import numpy as np

from ..core.tensor import Tensor
from .io_utils import is_interactive_logging_enabled, print_msg
from .progbar import format_value

__all__ = [
    "BackupAndRestore",
    "CSVLogger",
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "GradientNormLogger",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "ModelCheckpoint",
    "ProgbarLogger",
    "ReduceLROnPlateau",
    "SwapEMAWeights",
    "TensorBoard",
    "TerminateOnNaN",
]


_HOOKS = (
    "on_train_begin",
    "on_train_end",
    "on_epoch_begin",
    "on_epoch_end",
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_batch_begin",
    "on_batch_end",
    "on_test_begin",
    "on_test_end",
    "on_test_batch_begin",
    "on_test_batch_end",
    "on_predict_begin",
    "on_predict_end",
    "on_predict_batch_begin",
    "on_predict_batch_end",
)


class Callback:
    """Base class: override the hooks you need (follows `tf.keras.callbacks.Callback`).

    `Model.fit` calls ``on_train_begin``; per epoch ``on_epoch_begin``, per batch
    ``on_train_batch_begin``/``on_train_batch_end``, then the validation's test hooks,
    ``on_epoch_end``; finally ``on_train_end``. `Model.evaluate` calls ``on_test_begin``,
    ``on_test_batch_begin``/``on_test_batch_end`` per batch, ``on_test_end``; `Model.predict`
    the ``on_predict_*`` hooks likewise (``on_predict_batch_end`` logs are
    ``{"outputs": <the batch's predictions as NumPy arrays>}``). ``batch`` and ``epoch`` are
    0-based. ``on_batch_begin``/``on_batch_end`` are the TF 1.x names: the default
    ``on_train_batch_*`` hooks call them.

    Attributes:
        model: the model being trained (set by `set_model`); setting
            ``self.model.stop_training = True`` ends training after the current batch.
        params: ``{"verbose", "epochs", "steps"}`` of the running loop (set by `set_params`).

    >>> class Count(ek.keras.callbacks.Callback):
    ...     def on_train_begin(self, logs=None):
    ...         self.batches = 0
    ...     def on_train_batch_end(self, batch, logs=None):
    ...         self.batches += 1
    >>> model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(2,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> count = Count()
    >>> _ = model.fit(np.zeros((10, 2)), np.zeros((10, 1)), batch_size=4, verbose=0,
    ...               callbacks=[count])
    >>> count.batches
    3
    """

    def __init__(self):
        self.model = None
        self.params: dict = {}

    def set_model(self, model) -> None:
        """Sets ``self.model``."""
        self.model = model

    def set_params(self, params: dict) -> None:
        """Sets ``self.params``."""
        self.params = params

    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_batch_begin(self, batch, logs=None): ...
    def on_batch_end(self, batch, logs=None): ...

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs)

    def on_test_begin(self, logs=None): ...
    def on_test_end(self, logs=None): ...
    def on_test_batch_begin(self, batch, logs=None): ...
    def on_test_batch_end(self, batch, logs=None): ...
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...
    def on_predict_batch_begin(self, batch, logs=None): ...
    def on_predict_batch_end(self, batch, logs=None): ...


def pythonify_logs(logs) -> dict:
    """A copy of ``logs`` (None gives ``{}``) with scalar Tensors and NumPy scalars as Python
    floats, keys sorted as Keras 3's ``pythonify_logs`` sorts them (so ``History.history``,
    ``evaluate(return_dict=True)`` and the progress bar list ``accuracy`` before ``loss``);
    other Tensors (a per-sample loss a custom `train_step` returned) become NumPy arrays, as
    Keras converts them with ``convert_to_numpy``; NumPy arrays are kept as they are."""
    out = {}
    for key, value in sorted((logs or {}).items(), key=lambda item: str(item[0])):
        if isinstance(value, (Tensor, np.ndarray, np.generic, int)) and np.ndim(value) == 0:
            value = float(value)
        elif isinstance(value, Tensor):
            value = value.numpy()
        out[key] = value
    return out


class CallbackList(Callback):
    """Calls each hook on every callback, in order (follows `tf.keras.callbacks.CallbackList`).

    Args:
        callbacks: a list of `Callback` objects (None for none).
        add_history: append a `History` unless the list has one; ``model.history`` is set
            to it.
        add_progbar: append a `ProgbarLogger` for ``params["verbose"]`` unless the list has one.
        model: the model, given to every callback with `set_model`.
        **params: given to every callback with `set_params` (``verbose``, ``epochs``,
            ``steps``).

    Raises:
        TypeError: an element is not a `Callback`.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = list(callbacks or [])
        for cb in self.callbacks:
            _check_callback(cb)
        self._history = next((cb for cb in self.callbacks if isinstance(cb, History)), None)
        if add_history and self._history is None:
            self._history = History()
            self.callbacks.append(self._history)
        if add_progbar and not any(isinstance(cb, ProgbarLogger) for cb in self.callbacks):
            self.callbacks.append(ProgbarLogger(params.get("verbose", 1)))
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback) -> None:
        """Adds a callback at the end."""
        _check_callback(callback)
        self.callbacks.append(callback)

    def set_model(self, model) -> None:
        super().set_model(model)
        if self._history is not None:
            model.history = self._history
        for cb in self.callbacks:
            cb.set_model(model)

    def set_params(self, params: dict) -> None:
        super().set_params(params)
        for cb in self.callbacks:
            cb.set_params(params)

    def _call(self, hook: str, *args, logs=None) -> None:
        logs = pythonify_logs(logs)
        for cb in self.callbacks:
            getattr(cb, hook)(*args, logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs=logs)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_batch_begin", batch, logs=logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_batch_end", batch, logs=logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs=logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs=logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs=logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs=logs)


def _check_callback(cb) -> None:
    if not isinstance(cb, Callback):
        raise TypeError(
            "callbacks must be a list of keras.callbacks.Callback objects. Received: "
            f"{cb!r} of type {type(cb).__name__}."
        )


class History(Callback):
    """Records each epoch's logs: ``history.history["loss"]`` is the list of epoch losses and
    ``history.epoch`` the epoch numbers (from ``initial_epoch``).

    `Model.fit` returns it (follows `tf.keras.callbacks.History`).
    """

    def __init__(self):
        super().__init__()
        self.epoch: list[int] = []
        self.history: dict[str, list] = {}

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


def _log_text(logs) -> str:
    # Keras's format: four decimals, e-notation at magnitudes of 1e-3 or less (1.0000e-04)
    return " - ".join(f"{k}: {format_value(v)}" for k, v in (logs or {}).items())


class ProgbarLogger(Callback):
    """Progress output of `fit`, `evaluate` and `predict`: a tqdm bar (verbose=1; a widget in
    notebooks via ``tqdm.auto``, which needs the ``notebook`` extra's ipywidgets), or one line
    at the end (verbose=2) per epoch of `fit`, per `evaluate` (``N/N - loss: ...``) and per
    `predict` (``N/N``). `fit`'s validation shows no bar of its own: its results are in the
    epoch's line. The metrics read as Keras 3 prints them, keys sorted (``accuracy: 0.8812 -
    loss: 0.3281``), during the epoch and at its end alike.
    """

    def __init__(self, verbose: int = 1):
        super().__init__()
        self.verbose = verbose
        self._bar = None
        self._in_fit = False
        self._seen = 0

    def _open(self, desc=None):
        if self.verbose == 1 and is_interactive_logging_enabled():  # else the line, logged
            from tqdm.auto import tqdm

            self._bar = tqdm(total=self.params.get("steps"), desc=desc, unit="step", leave=True)
        self._seen = 0

    def _update(self, logs=None):
        self._seen += 1
        if self._bar is not None:
            self._bar.update(1)
            if logs:  # Keras's format, the same mid-epoch as at the end
                self._bar.set_postfix_str(_log_text(logs), refresh=False)

    def _close(self, text: str, line: str):
        if self._bar is not None:
            if text:
                self._bar.set_postfix_str(text)
            self._bar.close()
            self._bar = None
        elif self.verbose:
            print_msg(line)

    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False

    def on_epoch_begin(self, epoch, logs=None):
        self._open(f"Epoch {epoch + 1}/{self.params.get('epochs', 1)}")

    def on_train_batch_end(self, batch, logs=None):
        self._update(logs)

    def on_epoch_end(self, epoch, logs=None):
        text = _log_text(logs)
        self._close(text, f"Epoch {epoch + 1}/{self.params.get('epochs', 1)} - {text}")

    def on_test_begin(self, logs=None):
        if not self._in_fit:
            self._open()

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit:
            self._update(logs)

    def on_test_end(self, logs=None):
        if not self._in_fit:
            text = _log_text(logs)
            self._close(text, f"{self._seen}/{self._seen} - {text}")

    def on_predict_begin(self, logs=None):
        self._open()

    def on_predict_batch_end(self, batch, logs=None):
        self._update()

    def on_predict_end(self, logs=None):
        self._close("", f"{self._seen}/{self._seen}")


def monitor_mode(monitor: str, mode: str):
    """``np.greater`` or ``np.less``: whether a better ``monitor`` value is larger, from
    ``mode`` ('auto' guesses from the name, as Keras: accuracies and AUCs grow).

    Raises:
        ValueError: a mode other than 'auto', 'min' or 'max'.
    """
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max'. Received: mode={mode!r}")
    if mode == "auto":
        mode = "max" if ("acc" in monitor or monitor.endswith("auc")) else "min"
    return np.greater if mode == "max" else np.less


class EarlyStopping(Callback):
    """Stops training when ``monitor`` stops improving (follows
    `tf.keras.callbacks.EarlyStopping`).

    Args:
        monitor: a log key, default ``"val_loss"``.
        min_delta: smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        mode: ``"min"``, ``"max"`` or ``"auto"`` (max for accuracies).
        baseline: stop if the monitored value does not beat it.
        restore_best_weights: put back the weights of the best epoch when training ends,
            stopped early or not (Keras 3; with ``verbose`` it says "Restoring model weights
            from the end of the best epoch: N.").
        start_from_epoch: epochs (0-based indices below it) not monitored at all, a
            warm-up; default 0.
    """

    def __init__(
        self,
        monitor="val_loss",
        min_delta=0.0,
        patience=0,
        verbose=0,
        mode="auto",
        baseline=None,
        restore_best_weights=False,
        start_from_epoch=0,
    ):
        super().__init__()
        self.monitor = monitor
        self.min_delta = abs(min_delta)
        self.patience = int(patience)
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self._better = monitor_mode(monitor, mode)
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None  # as Keras 3: the first monitored value is an improvement
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        value = (logs or {}).get(self.monitor)
        if value is None:
            import warnings

            warnings.warn(
                f"EarlyStopping: metric {self.monitor!r} is not in the logs "
                f"(available: {sorted(logs or {})}).",
                stacklevel=2,
            )
            return
        if epoch < self.start_from_epoch:  # the warm-up, as Keras: not monitored
            return
        delta = self.min_delta if self._better is np.greater else -self.min_delta
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights, self.best_epoch = self.model.get_weights(), epoch
        self.wait += 1
        if self.best is None or self._better(value - delta, self.best):
            self.best, self.best_epoch = value, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            # as Keras 3: the wait restarts only for a value that also beats the baseline
            if self.baseline is None or self._better(value - delta, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose:
            print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose:
                print_msg(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) after each epoch, or every ``save_freq`` batches
    (follows `tf.keras.callbacks.ModelCheckpoint`).

    Args:
        filepath: may contain ``{epoch:02d}``, ``{batch}`` (with an integer ``save_freq``;
            1-based, as ``epoch``) and log keys (``{val_loss:.2f}``).
        monitor, mode: which log decides "best" with ``save_best_only``.
        save_best_only: save only when ``monitor`` improved.
        save_weights_only: True: `Model.save_weights` (a checkpoint file); False: `Model.save`,
            the whole model, which needs a ``.keras`` path (as Keras 3). Unset (None): the
            whole model for a ``.keras`` path, the weights for any other (a TF 2-style
            ``"cp.ckpt"``, a ``.safetensors`` file), where Keras 2 would have written a
            SavedModel directory, a format eagerkernel does not write.
        save_freq: ``"epoch"`` (default), or an integer: save after every that many training
            batches, counted across epochs (the logs are then the epoch's so far).
        initial_value_threshold: the "best" value ``monitor`` must beat first with
            ``save_best_only`` (default None: the first value counts as an improvement).
        verbose: 1 prints Keras 3's messages, each after an empty line: "Epoch 1: val_loss
            improved from None to 0.81811, saving model to m.keras" (or "did not improve
            from 0.81811") with ``save_best_only``, else "Epoch 1: saving model to m.keras";
            then "Epoch 1: finished saving model to m.keras" (weights files too).

    With ``save_best_only`` and no ``monitor`` in the logs, the model is saved anyway with
    a warning, as Keras 3 does.

    Raises:
        ValueError: ``save_freq`` is neither "epoch" nor a positive integer; a bad ``mode``;
            ``save_weights_only=False`` with a path that does not end in ``.keras``.
    """

    def __init__(
        self,
        filepath,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        save_weights_only=None,
        mode="auto",
        save_freq="epoch",
        initial_value_threshold=None,
    ):
        super().__init__()
        keras_file = os.fspath(filepath).endswith(".keras")
        if save_weights_only is None:
            save_weights_only = not keras_file
        elif not save_weights_only and not keras_file:
            raise ValueError(
                "ModelCheckpoint: with save_weights_only=False the filepath must end in "
                f"`.keras` (the Keras model format). Received: filepath={filepath!r}"
            )
        self.save_weights_only = bool(save_weights_only)
        if save_freq != "epoch" and (
            isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0
        ):
            raise ValueError(
                "save_freq must be 'epoch' or a positive integer (a number of batches). "
                f"Received: save_freq={save_freq!r}"
            )
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_freq = save_freq
        self._better = monitor_mode(monitor, mode)
        self.best = initial_value_threshold  # None: the first value improves (Keras 3)
        self._epoch = 0
        self._since_save = 0
        self._last_batch = None

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        # batch indices restart each epoch (and jump with steps_per_execution), as in Keras
        new_epoch = self._last_batch is None or batch <= self._last_batch
        self._since_save += batch + 1 if new_epoch else batch - self._last_batch
        self._last_batch = batch
        if self._since_save >= self.save_freq:
            self._since_save = 0
            self._save(self._epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _save(self, epoch, batch, logs):
        logs = logs or {}
        where = {} if batch is None or "batch" in logs else {"batch": batch + 1}
        path = self.filepath.format(epoch=epoch + 1, **where, **logs)
        if self.save_best_only:
            value = logs.get(self.monitor)
            if value is None:
                import warnings

                warnings.warn(
                    f"Can save best model only with {self.monitor} available.", stacklevel=2
                )
            else:
                best = "None" if self.best is None else f"{self.best:.5f}"
                if self.best is not None and not self._better(value, self.best):
                    self._say(f"Epoch {epoch + 1}: {self.monitor} did not improve from {best}")
                    return
                self._say(
                    f"Epoch {epoch + 1}: {self.monitor} improved from {best} to "
                    f"{value:.5f}, saving model to {path}"
                )
                self.best = value
        else:
            self._say(f"Epoch {epoch + 1}: saving model to {path}")
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
        self._say(f"Epoch {epoch + 1}: finished saving model to {path}")

    def _say(self, message: str) -> None:
        if self.verbose:  # Keras 3 starts each message with a newline
            print_msg(f"\n{message}")


class LambdaCallback(Callback):
    """A callback made of functions (follows `tf.keras.callbacks.LambdaCallback`), e.g.
    ``LambdaCallback(on_epoch_end=lambda epoch, logs: print(epoch, logs["loss"]))``.

    Each function replaces the hook of its name and takes that hook's arguments: ``(epoch,
    logs)`` for the epoch hooks, ``(batch, logs)`` for the batch hooks, ``(logs)`` for the
    begin/end hooks. ``on_batch_begin``/``on_batch_end`` (TF 2's names) run at every
    training batch, as in Keras.

    Args:
        on_epoch_begin, on_epoch_end, on_train_begin, on_train_end, on_train_batch_begin,
        on_train_batch_end, on_batch_begin, on_batch_end: functions, default None.
        **kwargs: any other hook of `Callback` by name (``on_test_batch_end=...``,
            ``on_predict_end=...``).

    Raises:
        TypeError: a keyword that is not a hook of `Callback`, or a value that is not callable.

    >>> seen = []
    >>> cb = ek.keras.callbacks.LambdaCallback(on_test_end=lambda logs: seen.append(logs))
    >>> model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(2,))])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> model.evaluate(np.zeros((4, 2)), np.zeros((4, 1)), verbose=0, callbacks=[cb])
    0.0
    >>> seen
    [{'loss': 0.0}]
    """

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_train_begin=None,
        on_train_end=None,
        on_train_batch_begin=None,
        on_train_batch_end=None,
        **kwargs,
    ):
        super().__init__()
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
            "on_train_batch_begin": on_train_batch_begin,
            "on_train_batch_end": on_train_batch_end,
        }
        for name, fn in kwargs.items():
            if name not in _HOOKS:
                raise TypeError(
                    f"LambdaCallback got an unexpected keyword argument {name!r}; the hooks "
                    f"are {list(_HOOKS)}."
                )
            hooks[name] = fn
        for name, fn in hooks.items():
            if fn is None:
                continue
            if not callable(fn):
                raise TypeError(
                    f"LambdaCallback: {name} must be a function. Received: {name}={fn!r}"
                )
            setattr(self, name, fn)


def layer_of(variable_name: str) -> str:
    """The layer a weight belongs to, from its name: ``dense_1/kernel:0`` -> ``dense_1``; a
    name without ``/`` is its own layer (``w:0`` -> ``w``).

    >>> layer_of("sequential/conv2d/kernel:0"), layer_of("w:0")
    ('sequential/conv2d', 'w')
    """
    name = variable_name.split(":", 1)[0]
    return name.rsplit("/", 1)[0] if "/" in name else name


class GradientNormLogger(Callback):
    """Records the L2 norm of each layer's gradients at every optimizer update: per layer,
    the norm of all its weights' gradients together (eagerkernel's addition; ``%grad
    --history`` plots it).

    Pass it to `fit` (``callbacks=[logger]``): it watches the model's optimizer while
    training. In a custom training loop, call `watch(optimizer)` before the loop and `stop`
    after. The norms are those of the gradients the optimizer applies (after clipping),
    computed on the host in float64.

    Attributes:
        norms: ``{layer name: [norm per step]}``, layers in order of first appearance; NaN for
            a step in which a layer had no gradient.
        steps: the number of updates recorded.

    >>> w = ek.Variable([3.0, 4.0], name="w")
    >>> opt = ek.keras.optimizers.SGD(0.1)
    >>> logger = GradientNormLogger()
    >>> logger.watch(opt)
    >>> _ = opt.apply_gradients([(ek.constant([3.0, 4.0]), w)])
    >>> logger.stop()
    >>> logger.steps, logger.norms
    (1, {'w': [5.0]})
    """

    def __init__(self):
        super().__init__()
        self.norms: dict[str, list[float]] = {}
        self.steps = 0
        self._optimizer = None

    def watch(self, optimizer) -> None:
        """Records the gradients ``optimizer`` applies from now on (until `stop`)."""
        from .optimizers.base import Optimizer

        self._optimizer = optimizer
        Optimizer.gradient_observers.register(self)

    def stop(self) -> None:
        """Stops recording."""
        from .optimizers.base import Optimizer

        Optimizer.gradient_observers.unregister(self)
        self._optimizer = None

    def on_train_begin(self, logs=None) -> None:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None:
            raise ValueError(
                "GradientNormLogger: the model has no optimizer; compile it before fit."
            )
        self.watch(optimizer)

    def on_train_end(self, logs=None) -> None:
        self.stop()

    def gradients_applied(self, optimizer, pairs: list) -> None:
        """Adds one step's per-layer norms (`GradientObserver`)."""
        if optimizer is not self._optimizer:
            return
        squares: dict[str, float] = {}
        for gradient, variable in pairs:
            a = np.asarray(gradient.get() if hasattr(gradient, "get") else gradient)
            flat = a.astype(np.float64, copy=False).ravel()
            key = layer_of(variable.name)
            squares[key] = squares.get(key, 0.0) + float(flat.dot(flat))
        for key in squares:
            self.norms.setdefault(key, [math.nan] * self.steps)
        for key, series in self.norms.items():
            series.append(math.sqrt(squares[key]) if key in squares else math.nan)
        self.steps += 1


# The learning-rate, NaN, CSV, TensorBoard and backup callbacks.
from .callbacks_ema import SwapEMAWeights  # noqa: E402
from .callbacks_more import (  # noqa: E402
    BackupAndRestore,
    CSVLogger,
    LearningRateScheduler,
    ReduceLROnPlateau,
    TensorBoard,
    TerminateOnNaN,
)
