"""`tf.compat.v1.nn`: TensorFlow 2's `tf.nn` with the TensorFlow 1.x signatures that differ
(``ctc_loss``)."""

from __future__ import annotations

import types

from ..ops import ctc
from ..ops.creation import zeros_like
from ..ops.elementwise import where
from ..ops.math_ops import is_inf

__all__ = ["ctc_loss_v1", "v1_nn_namespace"]


def ctc_loss_v1(
    labels,
    inputs=None,
    sequence_length=None,
    preprocess_collapse_repeated=False,
    ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False,
    time_major=True,
    logits=None,
):
    """TensorFlow 1.x's CTC loss (follows `tf.compat.v1.nn.ctc_loss`): the blank is the last
    class, ``num_classes - 1``, and the labels are sparse.

    Args:
        labels: an int32 `SparseTensor` of dense shape ``[batch, max_label_len]``; its values
            are classes in ``[0, num_classes - 1)``.
        inputs: float logits ``[max_time, batch, num_classes]`` (``[batch, max_time,
            num_classes]`` with ``time_major=False``); ``logits`` is an alias.
        sequence_length: int32 ``[batch]``, the frames of each example.
        preprocess_collapse_repeated, ctc_merge_repeated: only TensorFlow's defaults (False,
            True) are supported.
        ignore_longer_outputs_than_inputs: give a loss of 0 (and zero gradient) to the
            examples whose labels cannot be aligned to their frames, instead of ``inf``.

    Returns:
        float ``[batch]``: each example's negative log-probability, in the logits' dtype.

    Raises:
        ValueError: both or neither of ``inputs`` and ``logits`` given.
        NotImplementedError: ``preprocess_collapse_repeated=True`` or
            ``ctc_merge_repeated=False``.

    >>> import eagerkernel.compat.v1 as tf1
    >>> labels = ek.sparse.SparseTensor([[0, 0]], ek.constant([0], "int32"), [1, 1])
    >>> loss = tf1.nn.ctc_loss(labels, ek.zeros([2, 1, 2]), sequence_length=[2])
    >>> round(float(np.exp(-loss.numpy()[0])), 4)  # "0-", "-0", "00" of 4 paths
    0.75
    """
    if (inputs is None) == (logits is None):
        raise ValueError(
            "tf.compat.v1.nn.ctc_loss: give exactly one of inputs and logits. "
            f"Received: inputs={inputs!r}, logits={logits!r}"
        )
    if preprocess_collapse_repeated or not ctc_merge_repeated:
        raise NotImplementedError(
            "tf.compat.v1.nn.ctc_loss: only preprocess_collapse_repeated=False and "
            "ctc_merge_repeated=True are supported. Received: "
            f"preprocess_collapse_repeated={preprocess_collapse_repeated!r}, "
            f"ctc_merge_repeated={ctc_merge_repeated!r}"
        )
    loss = ctc.ctc_loss_v1_kernel(
        labels,
        inputs if logits is None else logits,
        sequence_length,
        time_major,
        check_time=not ignore_longer_outputs_than_inputs,
    )
    if ignore_longer_outputs_than_inputs:
        loss = where(is_inf(loss), zeros_like(loss), loss)
    return loss


def v1_nn_namespace(nn_module) -> types.SimpleNamespace:
    """``nn_module``'s public names (TensorFlow 2's `tf.nn`) with the TensorFlow 1.x
    functions above in place of their TensorFlow 2 namesakes."""
    names = {k: getattr(nn_module, k) for k in dir(nn_module) if not k.startswith("_")}
    names["ctc_loss"] = ctc_loss_v1
    return types.SimpleNamespace(**names)
