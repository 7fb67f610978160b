"""The `Dataset` methods that fold, stop or group elements: `scan`, `take_while`, `unique`,
`group_by_window` and `bucket_by_sequence_length` (TensorFlow 2's methods of those names, once
`tf.data.experimental` transformations). `Dataset` inherits them from `GroupingMethods`; the
datasets they make are in `grouping.py`."""

from __future__ import annotations

__all__ = ["GroupingMethods"]


class GroupingMethods:
    """Mixed into `Dataset`."""

    def scan(self, initial_state, scan_func, name=None):
        """A running fold: ``state, output = scan_func(state, element)`` from
        ``initial_state``, yielding each output (follows `tf.data.Dataset.scan`).

        Raises:
            TypeError: ``scan_func`` not callable. ValueError: (while iterating) it did not
                return a ``(new_state, output)`` pair.

        >>> ds = ek.data.Dataset.range(5).scan(ek.constant(0, ek.int64), lambda s, x: (s + x, s))
        >>> [int(v) for v in ds]
        [0, 0, 1, 3, 6]
        """
        from .grouping import Scan

        return Scan(self, initial_state, scan_func)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which ``predicate`` (a bool scalar) is False
        (follows `tf.data.Dataset.take_while`).

        >>> [int(v) for v in ek.data.Dataset.range(10).take_while(lambda x: x < 3)]
        [0, 1, 2]
        """
        from .grouping import TakeWhile

        return TakeWhile(self, predicate)

    def unique(self, name=None):
        """Each distinct element once, in order of first appearance (follows
        `tf.data.Dataset.unique`); the element must be one int32, int64 or string tensor.

        Raises:
            TypeError: another dtype (when made, if the spec is known without running the
                pipeline; else when iterating). InvalidArgumentError: several components.

        >>> [int(v) for v in ek.data.Dataset.from_tensor_slices([1, 2, 2, 3, 1]).unique()]
        [1, 2, 3]
        """
        from .grouping import Unique

        return Unique(self)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):  # fmt: skip
        """Groups elements by ``key_func(element)`` (an int64 scalar) into windows of
        ``window_size`` (or ``window_size_func(key)``) elements, and yields the elements of
        ``reduce_func(key, window_dataset)`` for each full window, then for each incomplete
        window at the end, in order of key (follows `tf.data.Dataset.group_by_window`).

        Raises:
            ValueError: both or neither of ``window_size`` and ``window_size_func``; a window
                size that is not positive.

        >>> ds = ek.data.Dataset.range(10).group_by_window(
        ...     lambda x: x % 2, lambda key, w: w.batch(3), window_size=3)
        >>> [v.numpy().tolist() for v in ds]
        [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
        """
        from .grouping import GroupByWindow

        return GroupByWindow(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(
        self,
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes=None,
        padding_values=None,
        pad_to_bucket_boundary=False,
        no_padding=False,
        drop_remainder=False,
        name=None,
    ):
        """Batches elements of similar length together (follows
        `tf.data.Dataset.bucket_by_sequence_length`): an element of length ``n`` (by
        ``element_length_func``) goes to bucket ``i`` where ``boundaries[i-1] <= n <
        boundaries[i]``, and each bucket is padded-batched by ``bucket_batch_sizes[i]`` (one
        more size than boundaries). ``pad_to_bucket_boundary`` pads the None dimensions of
        ``padded_shapes`` to the bucket's boundary minus one; ``no_padding`` batches without
        padding.

        Raises:
            ValueError: ``bucket_batch_sizes`` not one longer than ``bucket_boundaries``.
            NotImplementedError: ``pad_to_bucket_boundary`` without ``padded_shapes`` (element
                specs here come from a first element, so no dimension is unknown).

        >>> ds = ek.data.Dataset.range(1, 6).map(lambda x: ek.fill([x], x))
        >>> buckets = ds.bucket_by_sequence_length(lambda x: ek.shape(x)[0], [3], [2, 2])
        >>> [b.shape[1] for b in buckets]
        [2, 4, 5]
        """
        from .grouping import bucket_by_sequence_length

        return bucket_by_sequence_length(
            self,
            element_length_func,
            bucket_boundaries,
            bucket_batch_sizes,
            padded_shapes,
            padding_values,
            pad_to_bucket_boundary,
            no_padding,
            drop_remainder,
        )
