"""The `Dataset` methods `rebatch`, `ignore_errors` and `random` (TensorFlow 2's methods of
those names). `Dataset` inherits them from `MoreMethods`; the datasets they make are in
`more_datasets.py`."""

from __future__ import annotations

import numpy as np

__all__ = ["MoreMethods"]

_DEFAULT_GRAPH_SEED = 87654321  # TensorFlow's seed when only the op seed is set


class MoreMethods:
    """Mixed into `Dataset`."""

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The same elements in batches of ``batch_size`` (follows `tf.data.Dataset.rebatch`):
        as ``unbatch().batch(batch_size, drop_remainder)``; a vector ``batch_size`` gives
        batches of its sizes in turn, 0 included (an empty batch).

        Raises:
            ValueError: elements with a scalar component (nothing to rebatch), a negative
                size, or sizes that are all 0.

        >>> ds = ek.data.Dataset.range(8).batch(4).rebatch([2, 1, 1])
        >>> [b.numpy().tolist() for b in ds]
        [[0, 1], [2], [3], [4, 5], [6], [7]]
        """
        from ..core.tensor import Tensor
        from .structure import flatten

        sizes = batch_size.numpy() if isinstance(batch_size, Tensor) else batch_size
        sizes = [int(s) for s in np.atleast_1d(np.asarray(sizes)).reshape(-1)]
        if not sizes or min(sizes) < 0 or max(sizes) == 0:
            raise ValueError(
                "rebatch: batch_size must be a positive integer or a vector of non-negative "
                f"integers, not all 0. Received: batch_size={batch_size!r}"
            )
        if any(getattr(s, "shape", None) is not None and s.shape.rank == 0
               for s in flatten(self.element_spec)):  # fmt: skip
            raise ValueError(
                "Invalid `batch_sizes`. Expected dataset with rank of >= 1 but found a dataset "
                "with scalar elements. Fix the issue by adding the `batch` transformation to "
                "the dataset."
            )
        from .more_datasets import CyclicBatch

        return CyclicBatch(self, sizes, bool(drop_remainder))

    def ignore_errors(self, log_warning=False, name=None):
        """The elements, without those whose `map` or `filter` function raised (follows
        `tf.data.Dataset.ignore_errors`; the same dataset as
        `ek.data.experimental.ignore_errors`, which documents which stages it covers);
        ``log_warning``: log each ignored error as a warning.

        >>> ds = ek.data.Dataset.from_tensor_slices([1.0, 0.0, 2.0])
        >>> ds = ds.map(lambda x: ek.debugging.check_numerics(1 / x, "inf"))
        >>> [float(v) for v in ds.ignore_errors()]
        [1.0, 0.5]
        """
        from .error_checks import IgnoreErrors

        return IgnoreErrors(self, log_warning)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """An infinite dataset of pseudorandom int64 scalars in ``[0, 2**32)`` (follows
        `tf.data.Dataset.random`): Philox-4x32-10's outputs one by one, TensorFlow's numbers
        when ``seed`` is given (with the global seed of `ek.random.set_seed`, or TensorFlow's
        default graph seed). Each iteration repeats the sequence unless
        ``rerandomize_each_iteration``; without any seed, the sequence is drawn once, at
        creation.

        >>> ek.random.set_seed(None)  # no global seed: TensorFlow's default graph seed
        >>> [int(v) for v in ek.data.Dataset.random(seed=4).take(3)]
        [3128586565, 2023892699, 452966358]
        >>> ek.random.set_seed(1)  # a global seed takes part, as in TensorFlow
        >>> [int(v) for v in ek.data.Dataset.random(seed=4).take(2)]
        [3140572256, 1890473413]
        >>> ek.random.set_seed(None)
        """
        from .. import random as _random

        global_seed = _random.get_seed()
        if seed is None:
            seeds = (int(_random.generator().integers(1 << 63)),) * 2
        else:
            seeds = (_DEFAULT_GRAPH_SEED if global_seed is None else global_seed, int(seed))
        if seeds == (0, 0):  # TensorFlow's get_seed avoids the pair meaning "nondeterministic"
            seeds = (0, 2**31 - 1)
        from .more_datasets import RandomSource

        return RandomSource(seeds, bool(rerandomize_each_iteration))
