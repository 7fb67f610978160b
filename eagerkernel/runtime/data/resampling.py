"""`Dataset.rejection_resample` (TensorFlow 2's method, once
`tf.data.experimental.rejection_resample`). `Dataset` inherits it from `ResamplingMethods`; the
dataset it makes is `sampling.RejectionResample`."""

from __future__ import annotations

__all__ = ["ResamplingMethods"]


class ResamplingMethods:
    """Mixed into `Dataset`."""

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):  # fmt: skip
        """``(class, element)`` pairs, resampled so that the classes ``class_func(element)``
        follow ``target_dist`` (follows `tf.data.Dataset.rejection_resample`, with
        TensorFlow's algorithm).

        With ``r = target_dist / initial_dist`` and ``m = min(r)``, each output is taken with
        probability ``m`` from the input as it is, and otherwise from the input filtered by
        rejection, which keeps an element of class ``i`` with probability
        ``(r[i] - m) / (max(r) - m)``; the result stops when the filtered input is exhausted.
        Without ``initial_dist`` it is estimated as TensorFlow does: running class counts
        (starting at 10 per class) updated every 32 elements. The input is iterated once per
        stream (two, or three when ``initial_dist`` is estimated), as in TensorFlow.

        Args:
            class_func: element -> integer scalar class in ``[0, num_classes)``.
            target_dist: the wanted class probabilities, shape ``[num_classes]`` (normalized
                to sum to 1).
            initial_dist: the input's class probabilities if known, shape ``[num_classes]``.
            seed: an int for repeatable draws (the same on every pass).
            name: accepted for TensorFlow compatibility.

        Raises:
            TypeError: ``class_func`` not callable; (while iterating) it did not return an
                integer scalar.
            ValueError: a distribution that is not a vector of non-negative numbers with a
                positive sum, or of another length than ``target_dist``.
            InvalidArgumentError: (while iterating) a class outside ``[0, num_classes)``.

        >>> ds = ek.data.Dataset.range(1000).map(lambda x: ek.cast(x % 10 == 0, ek.int64))
        >>> pairs = ds.rejection_resample(lambda x: x, [0.5, 0.5], [0.9, 0.1], seed=1)
        >>> classes = [int(c) for c, _ in pairs]
        >>> abs(sum(classes) / len(classes) - 0.5) < 0.1
        True
        """
        from .sampling import RejectionResample

        return RejectionResample(self, class_func, target_dist, initial_dist, seed)
