"""Training callbacks (follow `tf.keras.callbacks`): History, EarlyStopping, ModelCheckpoint,
LambdaCallback, and the tqdm progress bar that `fit(verbose=1)` shows.

Logs are dicts of Python floats (``{"loss": 0.31, "accuracy": 0.9, "val_loss": ...}``).
"""

from __future__ import annotations

import math
import os

import numpy as np

__all__ = [
    "Callback",
    "CallbackList",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "ModelCheckpoint",
    "ProgbarLogger",
]


class Callback:
    """Base class: override the hooks you need (follows `tf.keras.callbacks.Callback`).

    ``self.model`` is the model being trained; setting ``self.model.stop_training = True``
    ends training after the current epoch.
    """

    def __init__(self):
        self.model = None
        self.params: dict = {}

    def set_model(self, model) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_train_batch_begin(self, batch, logs=None): ...
    def on_train_batch_end(self, batch, logs=None): ...
    def on_test_begin(self, logs=None): ...
    def on_test_end(self, logs=None): ...
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...


class CallbackList:
    """Calls each hook on every callback in order."""

    def __init__(self, callbacks, model, params: dict):
        self.callbacks = list(callbacks)
        for cb in self.callbacks:
            cb.set_model(model)
            cb.set_params(params)

    def __getattr__(self, hook: str):
        if not hook.startswith("on_"):
            raise AttributeError(hook)

        def call(*args, **kwargs):
            for cb in self.callbacks:
                getattr(cb, hook)(*args, **kwargs)

        return call


class History(Callback):
    """Records each epoch's logs: ``history.history["loss"]`` is the list of epoch losses.

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


class ProgbarLogger(Callback):
    """Progress output of `fit`: a tqdm bar per epoch (verbose=1; a widget in notebooks via
    ``tqdm.auto``) or one line per epoch (verbose=2)."""

    def __init__(self, verbose: int = 1):
        super().__init__()
        self.verbose = verbose
        self._bar = None

    def on_epoch_begin(self, epoch, logs=None):
        if self.verbose == 1:
            from tqdm.auto import tqdm

            epochs = self.params.get("epochs", 1)
            self._bar = tqdm(
                total=self.params.get("steps"),
                desc=f"Epoch {epoch + 1}/{epochs}",
                unit="step",
                leave=True,
            )

    def on_train_batch_end(self, batch, logs=None):
        if self._bar is not None:
            self._bar.update(1)
            self._bar.set_postfix({k: f"{v:.4f}" for k, v in (logs or {}).items()}, refresh=False)

    def on_epoch_end(self, epoch, logs=None):
        text = " - ".join(f"{k}: {v:.4f}" for k, v in (logs or {}).items())
        if self._bar is not None:
            self._bar.set_postfix_str(text)
            self._bar.close()
            self._bar = None
        elif self.verbose == 2:
            print(f"Epoch {epoch + 1}/{self.params.get('epochs', 1)} - {text}")


def _monitor_mode(monitor: str, mode: str):
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
        restore_best_weights: put back the weights of the best epoch when stopping.
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
    ):
        super().__init__()
        self.monitor = monitor
        self.min_delta = abs(min_delta)
        self.patience = int(patience)
        self.verbose = verbose
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self._better = _monitor_mode(monitor, mode)
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = (
            self.baseline
            if self.baseline is not None
            else (-math.inf if self._better is np.greater else math.inf)
        )
        self.best_weights = None

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
        delta = self.min_delta if self._better is np.greater else -self.min_delta
        if self._better(value - delta, self.best):
            self.best = value
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)
            if self.verbose:
                print(f"Epoch {epoch + 1}: early stopping")


class ModelCheckpoint(Callback):
    """Saves the model's weights after each epoch (follows `tf.keras.callbacks.ModelCheckpoint`).

    Args:
        filepath: may contain ``{epoch:02d}`` and log keys (``{val_loss:.2f}``).
        monitor, mode: which log decides "best" with ``save_best_only``.
        save_best_only: save only when ``monitor`` improved.
        save_weights_only: accepted; eagerkernel always saves weights (`Model.save_weights`).
    """

    def __init__(
        self,
        filepath,
        monitor="val_loss",
        verbose=0,
        save_best_only=False,
        save_weights_only=True,
        mode="auto",
        save_freq="epoch",
    ):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self._better = _monitor_mode(monitor, mode)
        self.best = -math.inf if self._better is np.greater else math.inf

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            value = logs.get(self.monitor)
            if value is None or not self._better(value, self.best):
                return
            self.best = value
        self.model.save_weights(path)
        if self.verbose:
            print(f"Epoch {epoch + 1}: saved weights to {path}")


class LambdaCallback(Callback):
    """A callback made of functions (follows `tf.keras.callbacks.LambdaCallback`), e.g.
    ``LambdaCallback(on_epoch_end=lambda epoch, logs: print(epoch, logs["loss"]))``."""

    def __init__(
        self,
        on_epoch_begin=None,
        on_epoch_end=None,
        on_batch_begin=None,
        on_batch_end=None,
        on_train_begin=None,
        on_train_end=None,
        **kwargs,
    ):
        super().__init__()
        hooks = {
            "on_epoch_begin": on_epoch_begin,
            "on_epoch_end": on_epoch_end,
            "on_train_batch_begin": on_batch_begin or kwargs.pop("on_train_batch_begin", None),
            "on_train_batch_end": on_batch_end or kwargs.pop("on_train_batch_end", None),
            "on_train_begin": on_train_begin,
            "on_train_end": on_train_end,
        }
        if kwargs:
            raise TypeError(f"LambdaCallback: unexpected arguments {sorted(kwargs)}.")
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)
