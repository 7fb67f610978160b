"""`ek.ragged`: ragged tensors (follows `tf.ragged`).

>>> print(ek.ragged.constant([[1, 2], [3]]) * 10)
<RaggedTensor [[10, 20], [30]]>
"""

from __future__ import annotations

from .dynamic_ragged_shape import DynamicRaggedShape, RowPartition
from .ragged_cross import cross, cross_hashed
from .ragged_ops import boolean_mask, map_flat_values
from .ragged_ops import constant_ragged as constant
from .ragged_ops import ragged_stack as stack
from .ragged_ops import range_ragged as range
from .ragged_tensor import RaggedTensor, RaggedTensorSpec
from .segment_ids import row_splits_to_segment_ids, segment_ids_to_row_splits
from .stack_partitions import stack_dynamic_partitions

__all__ = [
    "DynamicRaggedShape",
    "RaggedTensor",
    "RaggedTensorSpec",
    "RowPartition",
    "boolean_mask",
    "constant",
    "cross",
    "cross_hashed",
    "map_flat_values",
    "range",
    "row_splits_to_segment_ids",
    "segment_ids_to_row_splits",
    "stack",
    "stack_dynamic_partitions",
]
