"""`ek.edit_distance`: the Levenshtein distance between sequences held by SparseTensors
(follows `tf.edit_distance`).

>>> hyp = ek.sparse.SparseTensor([[0, 0], [0, 1], [0, 2]], ["k", "i", "t"], [1, 3])
>>> truth = ek.sparse.SparseTensor([[0, 0], [0, 1], [0, 2], [0, 3]], ["s", "i", "t", "e"],
...                                [1, 4])
>>> ek.edit_distance(hyp, truth, normalize=False).numpy()
array([2.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive, defvjp, dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..sparse.sparse_tensor import SparseTensor

__all__ = ["edit_distance", "levenshtein"]


def levenshtein(a: list, b: list) -> int:
    """The number of insertions, deletions and substitutions turning ``a`` into ``b``.

    >>> levenshtein(list("kitten"), list("sitting"))
    3
    """
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def _sequences(indices: np.ndarray, values: np.ndarray) -> dict:
    """``{group index: [values in order of the last index]}``."""
    out: dict = {}
    order = np.lexsort(indices.T[::-1]) if len(indices) else np.zeros(0, np.int64)
    for k in order.tolist():
        out.setdefault(tuple(indices[k, :-1].tolist()), []).append(values[k])
    return out


def _edit_distance_fwd(xp, h_idx, h_val, h_shape, t_idx, t_val, t_shape, normalize):
    h_idx, t_idx = np.asarray(h_idx), np.asarray(t_idx)
    h_shape, t_shape = np.asarray(h_shape), np.asarray(t_shape)
    if len(h_shape) != len(t_shape):
        raise InvalidArgumentError(
            "edit_distance: hypothesis and truth must have the same rank. Received: ranks "
            f"{len(h_shape)} and {len(t_shape)}"
        )
    out_shape = tuple(np.maximum(h_shape[:-1], t_shape[:-1]).tolist())
    hyp = _sequences(h_idx, np.asarray(h_val).tolist())
    truth = _sequences(t_idx, np.asarray(t_val).tolist())
    out = np.zeros(out_shape, np.float32)
    for g in hyp.keys() | truth.keys():
        h, t = hyp.get(g, []), truth.get(g, [])
        d = float(levenshtein(h, t))
        if normalize:
            # TensorFlow: an empty truth gives inf for a non-empty hypothesis (0 / 0 never
            # occurs: a group is present only when one of them has values).
            d = d / len(t) if t else np.inf
        out[g] = d
    return out


_edit_distance = Primitive("EditDistance", _edit_distance_fwd)
defvjp(_edit_distance, *([None] * 6))  # TensorFlow: NotDifferentiable


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance") -> Tensor:
    """The Levenshtein distance between each sequence of ``hypothesis`` and of ``truth``
    (follows `tf.edit_distance`).

    A rank-``R`` SparseTensor holds one sequence per index of its first ``R - 1`` dimensions:
    its values in the order of their last index.

    Args:
        hypothesis: a SparseTensor of rank ``R >= 1``, the hypothesis sequences.
        truth: a SparseTensor of rank ``R`` and the dtype of ``hypothesis``, the references.
        normalize: divide each distance by the length of its truth sequence; an empty truth
            then gives ``inf`` (and a non-empty truth against an empty hypothesis 1.0).

    Returns:
        float32 of shape ``max(hypothesis.dense_shape[:-1], truth.dense_shape[:-1])``
        (elementwise); 0 where both sequences are empty.

    Raises:
        TypeError: an input that is not a SparseTensor, or different dtypes.
        InvalidArgumentError: different ranks.

    The example of TensorFlow's documentation:

    >>> hypothesis = ek.sparse.SparseTensor([[0, 0, 0], [1, 0, 0]], ["a", "b"], (2, 1, 1))
    >>> truth = ek.sparse.SparseTensor([[0, 1, 0], [1, 0, 0], [1, 0, 1], [1, 1, 0]],
    ...                                ["a", "b", "c", "a"], (2, 2, 2))
    >>> ek.edit_distance(hypothesis, truth).numpy()
    array([[inf, 1. ],
           [0.5, 1. ]], dtype=float32)
    """
    for x, arg in ((hypothesis, "hypothesis"), (truth, "truth")):
        if not isinstance(x, SparseTensor):
            raise TypeError(
                f"edit_distance: {arg} must be a SparseTensor. Received: {arg} of type "
                f"{type(x).__name__}"
            )
    if hypothesis.dtype != truth.dtype:
        raise TypeError(
            "edit_distance: hypothesis and truth must have the same dtype. Received: "
            f"{hypothesis.dtype.name} and {truth.dtype.name}"
        )
    inputs = (
        hypothesis.indices,
        hypothesis.values,
        hypothesis.dense_shape,
        truth.indices,
        truth.values,
        truth.dense_shape,
    )
    return dispatch(_edit_distance, inputs, {"normalize": bool(normalize)})
