"""`ek.queue`: TensorFlow's queues, as `tf.queue` (they run eagerly; see the module
`eagerkernel.runtime.queues`)."""

from __future__ import annotations

from .runtime.queues import (
    FIFOQueue,
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]
