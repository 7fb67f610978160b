"""`SwapEMAWeights` (follows `keras.callbacks.SwapEMAWeights`)."""

from __future__ import annotations

from .callbacks import Callback

__all__ = ["SwapEMAWeights"]


class SwapEMAWeights(Callback):
    """Puts the optimizer's moving averages of the weights (``use_ema=True``) into the model
    for evaluation and prediction, and the trained weights back afterwards (follows
    `keras.callbacks.SwapEMAWeights`).

    The averages are the optimizer's ``"average"`` slots; a swap exchanges each trainable
    variable's value with its slot's, so nothing is lost. With ``swap_on_epoch=True`` the
    averages are also in the model from the end of each epoch to the start of the next, so
    callbacks listed after this one (`ModelCheckpoint`, ...) see them; after the last epoch the
    slots take the trained weights, so that `Model.fit`'s final
    `Optimizer.finalize_variable_values` leaves the averages in the model, as Keras does.

    Args:
        swap_on_epoch: also swap at the epoch boundaries (default False).

    Raises:
        ValueError: (at the first swap) the model's optimizer (or a `LossScaleOptimizer`'s
            inner one) does not have ``use_ema=True``.

    Keras's ``on_predict_end`` tests the wrong flag and leaves the averages in the model after
    `Model.predict`; here prediction restores the trained weights, as evaluation does.

    >>> model = ek.keras.Sequential([ek.keras.Input((2,)), ek.keras.layers.Dense(1)])
    >>> model.compile(ek.keras.optimizers.SGD(0.1, use_ema=True), "mse")
    >>> x, y = ek.ones((4, 2)), ek.zeros((4, 1))
    >>> _ = model.fit(x, y, epochs=1, verbose=0, callbacks=[ek.keras.callbacks.SwapEMAWeights()])
    """

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _pairs(self) -> list:
        """``[(variable, average slot)]`` of the model's trainable variables that have one."""
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer
        if not getattr(optimizer, "use_ema", False):
            raise ValueError(
                "SwapEMAWeights must be used when `use_ema=True` is set on the optimizer. "
                f"Received: use_ema={getattr(optimizer, 'use_ema', None)}"
            )
        pairs = []
        for v in self.model.trainable_variables:
            try:
                pairs.append((v, optimizer.get_slot(v, "average")))
            except KeyError:  # not trained yet: no average to swap in
                continue
        return pairs

    def _swap_variables(self) -> None:
        for var, average in self._pairs():
            trained = var.numpy()
            var.assign(average)
            average.assign(trained)

    def _finalize_ema_values(self) -> None:
        for var, average in self._pairs():
            average.assign(var)

    def on_epoch_begin(self, epoch, logs=None) -> None:
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None) -> None:
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True
            # fit's finalize_variable_values copies the slots into the model next: make the
            # slots hold the averages (now in the model) again.
            if epoch == self.params.get("epochs", 0) - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs=None) -> None:
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None) -> None:
        if self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    on_predict_begin = on_test_begin
    on_predict_end = on_test_end
