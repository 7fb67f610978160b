"""`Model.compiled_loss` for a model compiled with one loss: the loss, callable as tf.keras 2's
``LossesContainer`` (and Keras 3's deprecated ``Model.compiled_loss``) is from a custom
``train_step``: ``self.compiled_loss(y, y_pred, sample_weight=None,
regularization_losses=self.losses)``.
"""

from __future__ import annotations

__all__ = ["CompiledLoss", "add_regularization"]


def add_regularization(total, regularization_losses):
    """``total`` plus the sum of ``regularization_losses`` (a list of scalar tensors; None or
    empty adds nothing), as tf.keras 2's ``LossesContainer`` adds them to the compiled loss."""
    for extra in regularization_losses or ():
        total = extra if total is None else total + extra
    return total


class CompiledLoss:
    """The compiled loss ``loss`` (a `keras.losses.Loss` or a loss function wrapped by
    `losses.to_loss`), called as ``(y_true, y_pred, sample_weight=None,
    regularization_losses=None)``: the loss of the batch (reduced by the loss's own
    reduction) plus the sum of ``regularization_losses``.

    Keras 3's ``Model.compiled_loss`` ignores ``regularization_losses`` and always adds the
    model's ``losses``; the two agree for the documented call, which passes
    ``regularization_losses=self.losses``. Every other attribute is the loss's own.

    Args:
        loss: the callable ``loss(y_true, y_pred, sample_weight=None)``.
    """

    def __init__(self, loss):
        self.loss = loss

    def __call__(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        total = self.loss(y_true, y_pred, sample_weight=sample_weight)
        return add_regularization(total, regularization_losses)

    def __getattr__(self, name):
        if name == "loss":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.loss, name)

    def __repr__(self) -> str:
        return f"CompiledLoss({self.loss!r})"
