"""`ek.image` non-max suppression over padded and per-class inputs (follows `tf.image`):
``non_max_suppression_padded`` and ``combined_non_max_suppression``, and `greedy_nms`, the
selection every NMS op here shares (`image_geometry.non_max_suppression` runs it too).

Each op is a primitive: which boxes survive depends on the boxes' and scores' values, so a graph
function (`ek.function`) computes it again on every call. None has a gradient, as in TensorFlow
(indices are integers; a tape differentiating ``combined_non_max_suppression``'s float outputs
raises LookupError, as TensorFlow's registry has no gradient for CombinedNonMaxSuppression).
"""

from __future__ import annotations

import collections

import numpy as np

from ..core.dispatch import Primitive
from ..core.errors import InvalidArgumentError, UnsupportedDTypeError
from ..core.tensor import Tensor
from ._core import dispatch, tensor

__all__ = [
    "CombinedNonMaxSuppression",
    "combined_non_max_suppression",
    "non_max_suppression_padded",
]

CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression",
    ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"],
)

_INT32_MAX = 2**31 - 1


def scalar_int(value, op: str, name: str) -> int:
    """An int32 scalar argument (a Python int or an integer scalar tensor).

    Raises:
        InvalidArgumentError: not 0-D, or outside int32 (TensorFlow's kernels take int32).
        TypeError: not an integer.
    """
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if arr.shape != ():
        raise InvalidArgumentError(
            None, op, f"{op}: '{name}' must be 0-D, got shape {list(arr.shape)}."
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{op}: '{name}' must be an integer, got {value!r}.")
    if not -_INT32_MAX - 1 <= int(arr) <= _INT32_MAX:
        raise InvalidArgumentError(None, op, f"{op}: '{name}' must fit in int32, got {int(arr)}.")
    return int(arr)


def scalar_float(value, op: str, name: str) -> float:
    """A float scalar argument, rounded to float32 as TensorFlow converts it.

    Raises:
        InvalidArgumentError: not 0-D.
        TypeError: not a real number.
    """
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if arr.shape != ():
        raise InvalidArgumentError(
            None, op, f"{op}: '{name}' must be 0-D, got shape {list(arr.shape)}."
        )
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{op}: '{name}' must be a real number, got {value!r}.")
    return float(np.float32(arr))


def _host(x) -> np.ndarray:
    return np.asarray(x.get() if hasattr(x, "get") else x, np.float32)


def greedy_nms(
    boxes: np.ndarray,
    scores: np.ndarray,
    limit: int,
    iou_threshold: float,
    score_threshold: float,
    presorted: bool = False,
) -> np.ndarray:
    """The indices greedy non-max suppression selects, as TensorFlow's NonMaxSuppressionV3
    kernel does, in float32.

    Boxes scoring above ``score_threshold`` are visited by descending score (ties: lower index
    first), or in their given order with ``presorted``; a box is selected unless its IoU with an
    already selected box exceeds ``iou_threshold``, until ``limit`` are selected. Corners are
    ordered per box (``[y1, x1, y2, x2]`` in either corner order); a box of zero area overlaps
    nothing.

    Args:
        boxes: ``[num_boxes, 4]`` array (NumPy's or a device's).
        scores: ``[num_boxes]`` array.

    Returns:
        int32 ``[M]``, ``M <= limit``, in selection order.
    """
    boxes, scores = _host(boxes).reshape(-1, 4), _host(scores).reshape(-1)
    order = np.flatnonzero(scores > np.float32(score_threshold))
    if not presorted:
        order = order[np.argsort(-scores[order], kind="stable")]
    y1, y2 = np.minimum(boxes[:, 0], boxes[:, 2]), np.maximum(boxes[:, 0], boxes[:, 2])
    x1, x2 = np.minimum(boxes[:, 1], boxes[:, 3]), np.maximum(boxes[:, 1], boxes[:, 3])
    area = (y2 - y1) * (x2 - x1)
    threshold, zero = np.float32(iou_threshold), np.float32(0)
    alive = np.ones(order.size, bool)
    selected: list[int] = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for pos in range(order.size):
            if len(selected) >= limit:
                break
            if not alive[pos]:
                continue
            i = order[pos]
            selected.append(int(i))
            rest = order[pos + 1 :]
            if rest.size == 0 or area[i] <= 0:  # TensorFlow's IOU is 0 for a box of no area
                continue
            inter = np.maximum(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), zero)
            inter = inter * np.maximum(
                np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), zero
            )
            iou = inter / (area[i] + area[rest] - inter)
            alive[pos + 1 :] &= ~((iou > threshold) & (area[rest] > 0))
    return np.asarray(selected, np.int32)


def _nms_args(op: str, iou_threshold, score_threshold) -> tuple[float, float]:
    iou = scalar_float(iou_threshold, op, "iou_threshold")
    if not 0.0 <= iou <= 1.0:
        raise InvalidArgumentError(None, op, f"{op}: 'iou_threshold' must be in [0, 1], got {iou}.")
    return iou, scalar_float(score_threshold, op, "score_threshold")


def _padded_fwd(
    xp, boxes, scores, max_output_size, iou_threshold, score_threshold, sorted_input, pad
):
    boxes, scores = _host(boxes), _host(scores)
    batch_shape, num_boxes = scores.shape[:-1], scores.shape[-1]
    n = int(np.prod(batch_shape, dtype=np.int64))
    boxes, scores = boxes.reshape(n, num_boxes, 4), scores.reshape(n, num_boxes)
    idx = np.zeros((n, max_output_size), np.int32)  # TensorFlow pads with index 0
    valid = np.zeros(n, np.int32)
    for b in range(n):
        kept = greedy_nms(
            boxes[b], scores[b], max_output_size, iou_threshold, score_threshold, sorted_input
        )
        idx[b, : kept.size], valid[b] = kept, kept.size
    if not pad:  # one image: the valid indices alone
        return xp.asarray(idx[0, : valid[0]]), xp.asarray(valid.reshape(()))
    return xp.asarray(idx.reshape((*batch_shape, max_output_size))), xp.asarray(
        valid.reshape(batch_shape)
    )


# No gradient: both outputs are integers (TensorFlow's are unconnected to the boxes).
_padded = Primitive("NonMaxSuppressionPadded", _padded_fwd, n_out=0)


def non_max_suppression_padded(
    boxes,
    scores,
    max_output_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_to_max_output_size=False,
    name=None,
    sorted_input=False,
    canonicalized_coordinates=False,
    tile_size=512,
) -> tuple[Tensor, Tensor]:
    """Greedy non-max suppression of one image's boxes or of a batch, with the indices padded
    to ``max_output_size`` (follows `tf.image.non_max_suppression_padded`).

    Each image selects as `non_max_suppression` does, which TensorFlow documents this op to be
    equivalent to: boxes scoring above ``score_threshold`` by descending score (ties: lower
    index first), each kept unless its IoU with a kept box exceeds ``iou_threshold``, corners
    in either order per box, computed in float32.

    Args:
        boxes: ``[..., num_boxes, 4]`` float (or integer, taken as float32), ``[y1, x1, y2,
            x2]``; leading dimensions are batch dimensions.
        scores: ``[..., num_boxes]`` float.
        max_output_size: int32 scalar, ``>= 0``.
        iou_threshold: float scalar in ``[0, 1]`` (default 0.5).
        score_threshold: float scalar; boxes scoring at or below it are never selected
            (default ``-inf``).
        pad_to_max_output_size: pad the indices with zeros to ``max_output_size`` (default
            False); must be True for batched input.
        sorted_input: the caller's statement that boxes come sorted by descending score.
            True: boxes are visited in their given order, not sorted, as TensorFlow does (so
            boxes out of order give TensorFlow's result for that order).
        canonicalized_coordinates: the caller's statement that boxes are ``[y_min, x_min,
            y_max, x_max]``, which lets TensorFlow skip ordering corners. Accepted and
            ignored: every box's corners are ordered anyway, which changes nothing for boxes
            that keep the statement.
        tile_size: a positive integer: TensorFlow's unit of parallel work (default 512); the
            result does not depend on it.

    Returns:
        ``(selected_indices, valid_outputs)``, both int32: ``[..., max_output_size]`` indices
        into each image's boxes, by descending score, the first ``valid_outputs`` of them
        valid and the rest 0, and ``valid_outputs`` of shape ``[...]``; unpadded (one image),
        ``[valid_outputs]`` indices and a scalar.

    Raises:
        ValueError: ``pad_to_max_output_size`` False for batched (rank > 2) boxes
            (TensorFlow's message).
        InvalidArgumentError: boxes not ``[..., num_boxes, 4]``, scores not ``boxes``' shape
            without its last axis, a negative ``max_output_size``, an ``iou_threshold``
            outside ``[0, 1]`` or a ``tile_size`` below 1, a non-scalar argument.
        UnsupportedDTypeError: boxes not real numbers, or scores not floats.
        TypeError: a non-integer ``max_output_size`` or ``tile_size``.

    TensorFlow 2.21 computes this with a tiled algorithm whose results depart from the
    documented selection in corner cases, where eagerkernel keeps to the documentation: it
    suppresses a box whose IoU equals ``iou_threshold`` (``>=``); it never selects a box whose
    four coordinates are all ``<= 0``; it orders every box's corners as those of the first
    box; it raises ValueError for zero boxes (here: nothing selected). It loops forever for a
    negative ``iou_threshold`` and suppresses nothing above 1; both raise here, as TensorFlow's
    other NMS ops do.

    >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
    >>> idx, valid = ek.image.non_max_suppression_padded(
    ...     boxes, [0.9, 0.8, 0.7], 4, pad_to_max_output_size=True)
    >>> idx.numpy(), int(valid)
    (array([0, 2, 0, 0], dtype=int32), 2)
    """
    op = "non_max_suppression_padded"
    boxes_t = tensor(boxes, op, np.float32)
    scores_t = tensor(scores, op, np.float32)
    if boxes_t._value.dtype.kind not in "iuf":
        raise UnsupportedDTypeError(
            None, op, f"{op}: 'boxes' must be real numbers, got a {boxes_t.dtype.name} tensor."
        )
    if scores_t._value.dtype.kind != "f":
        raise UnsupportedDTypeError(
            None, op, f"{op}: 'scores' must be floats, got a {scores_t.dtype.name} tensor."
        )
    shape = tuple(boxes_t.shape)
    if len(shape) < 2 or shape[-1] != 4:
        raise InvalidArgumentError(
            None, op, f"{op}: 'boxes' must have shape [..., num_boxes, 4], got {shape}."
        )
    if tuple(scores_t.shape) != shape[:-1]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: 'scores' must have shape {list(shape[:-1])} (boxes' without its last "
            f"axis), got {tuple(scores_t.shape)}.",
        )
    if not pad_to_max_output_size and len(shape) > 2:
        raise ValueError(
            f"{op}: 'pad_to_max_output_size' (value {pad_to_max_output_size}) must be True for "
            "batched input"
        )
    limit = scalar_int(max_output_size, op, "max_output_size")
    if limit < 0:
        raise InvalidArgumentError(
            None, op, f"{op}: 'max_output_size' must be non-negative, got {limit}."
        )
    iou, floor = _nms_args(op, iou_threshold, score_threshold)
    if scalar_int(tile_size, op, "tile_size") < 1:
        raise InvalidArgumentError(
            None, op, f"{op}: 'tile_size' must be positive, got {tile_size}."
        )
    params = {
        "max_output_size": limit,
        "iou_threshold": iou,
        "score_threshold": floor,
        "sorted_input": bool(sorted_input),
        "pad": bool(pad_to_max_output_size),
    }
    return dispatch(_padded, (boxes_t, scores_t), params)


def _combined_fwd(
    xp,
    boxes,
    scores,
    max_output_size_per_class,
    max_total_size,
    iou_threshold,
    score_threshold,
    pad_per_class,
    clip_boxes,
):
    boxes, scores = _host(boxes), _host(scores)
    batch, num_boxes, q, _ = boxes.shape
    num_classes = scores.shape[2]
    per_class = min(max_output_size_per_class, num_boxes)
    size = max_total_size
    if pad_per_class:
        size = min(max_total_size, max_output_size_per_class * num_classes)
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        index, label = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        for c in range(num_classes):
            own = boxes[b, :, c if q > 1 else 0]
            kept = greedy_nms(own, scores[b, :, c], per_class, iou_threshold, score_threshold)
            index.append(kept.astype(np.int64))
            label.append(np.full(kept.size, c, np.int64))
        index, label = np.concatenate(index), np.concatenate(label)
        found = scores[b, index, label]
        # by descending score; ties keep the class-major order: lower class, then the class's
        # own order (TensorFlow's order of equal scores is its heap's and sort's, unspecified)
        top = np.argsort(-found, kind="stable")[:size]
        n = top.size
        picked = boxes[b, index[top], label[top] if q > 1 else 0]
        out_boxes[b, :n] = np.clip(picked, 0.0, 1.0) if clip_boxes else picked
        out_scores[b, :n], out_classes[b, :n], valid[b] = found[top], label[top], n
    return tuple(xp.asarray(a) for a in (out_boxes, out_scores, out_classes, valid))


# No VJP, as TensorFlow registers none: a tape differentiating through it raises LookupError.
_combined = Primitive("CombinedNonMaxSuppression", _combined_fwd, n_out=0)


def combined_non_max_suppression(
    boxes,
    scores,
    max_output_size_per_class,
    max_total_size,
    iou_threshold=0.5,
    score_threshold=float("-inf"),
    pad_per_class=False,
    clip_boxes=True,
    name=None,
) -> CombinedNonMaxSuppression:
    """Greedy non-max suppression per image and class, then the best detections of each image
    over all classes (follows `tf.image.combined_non_max_suppression`).

    For every image and class, boxes scoring above ``score_threshold`` are selected as
    `non_max_suppression` does (IoU above ``iou_threshold`` suppresses; at most
    ``max_output_size_per_class``); the image's selections of all classes are then ordered by
    descending score (ties: lower class first, then lower box index) and the first
    ``max_detections`` kept, padded with zeros.

    Args:
        boxes: float32 ``[batch_size, num_boxes, q, 4]``, ``[y1, x1, y2, x2]`` in either
            corner order; ``q`` is 1 (the same boxes for every class) or ``num_classes``
            (class ``c`` uses ``boxes[:, :, c]``).
        scores: float32 ``[batch_size, num_boxes, num_classes]``.
        max_output_size_per_class: int32 scalar, ``> 0``.
        max_total_size: int32 scalar, ``> 0``.
        iou_threshold: float scalar in ``[0, 1]`` (default 0.5).
        score_threshold: float scalar; boxes scoring at or below it are never selected
            (default ``-inf``).
        pad_per_class: False (default): ``max_detections = max_total_size``; True:
            ``min(max_total_size, max_output_size_per_class * num_classes)``.
        clip_boxes: clip the output coordinates to ``[0, 1]`` (default True); otherwise they
            are the input's, corner order included.

    Returns:
        ``CombinedNonMaxSuppression(nmsed_boxes, nmsed_scores, nmsed_classes,
        valid_detections)``: float32 ``[batch_size, max_detections, 4]``, float32
        ``[batch_size, max_detections]`` scores, float32 ``[batch_size, max_detections]``
        class indices, and int32 ``[batch_size]`` counts: the first ``valid_detections[i]``
        entries of image ``i`` are detections, the rest zeros. No gradient (LookupError on a
        tape, as TensorFlow's).

    Raises:
        InvalidArgumentError: malformed shapes (boxes not 4-D with 4 columns, scores not 3-D,
            different batch sizes or box counts, ``q`` neither 1 nor ``num_classes``), a
            ``max_output_size_per_class`` or ``max_total_size`` not positive, an
            ``iou_threshold`` outside ``[0, 1]``, a non-scalar size or threshold.
        UnsupportedDTypeError: boxes or scores not float32 (TensorFlow has no other kernel).
        TypeError: a non-integer size.

    Where TensorFlow 2.21's kernel departs from its documentation, eagerkernel keeps to the
    documentation: a class that selects fewer than ``min(max_output_size_per_class,
    num_boxes)`` boxes leaves placeholders (score -1, class -1, a zero box) in TensorFlow's
    kernel, which sorts them above any detection scoring below -1.

    >>> boxes = [[[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0, 2, 1, 3]]]]  # q = 1
    >>> scores = [[[0.9, 0.1], [0.8, 0.7], [0.3, 0.2]]]
    >>> out = ek.image.combined_non_max_suppression(boxes, scores, 2, 4)
    >>> out.nmsed_scores.numpy()
    array([[0.9, 0.7, 0.3, 0.2]], dtype=float32)
    >>> out.nmsed_classes.numpy(), out.valid_detections.numpy()
    (array([[0., 1., 0., 1.]], dtype=float32), array([4], dtype=int32))
    >>> out.nmsed_boxes[0, 1].numpy()  # clipped to [0, 1]
    array([0. , 0.1, 1. , 1. ], dtype=float32)
    """
    op = "combined_non_max_suppression"
    boxes_t = tensor(boxes, op, np.float32)
    scores_t = tensor(scores, op, np.float32)
    for arg, t in (("boxes", boxes_t), ("scores", scores_t)):
        if t._value.dtype != np.float32:
            raise UnsupportedDTypeError(
                None, op, f"{op}: '{arg}' must be float32, got a {t.dtype.name} tensor."
            )
    b_shape, s_shape = tuple(boxes_t.shape), tuple(scores_t.shape)
    if len(b_shape) != 4 or b_shape[3] != 4:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: 'boxes' must have shape [batch_size, num_boxes, q, 4], got {b_shape}.",
        )
    if len(s_shape) != 3:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: 'scores' must have shape [batch_size, num_boxes, num_classes], got {s_shape}.",
        )
    if s_shape[:2] != b_shape[:2]:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: 'boxes' and 'scores' must have the same batch size and number of boxes, "
            f"got boxes {b_shape} and scores {s_shape}.",
        )
    if b_shape[2] not in (1, s_shape[2]):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: the third dimension of 'boxes' (q) must be 1 or num_classes = {s_shape[2]}, "
            f"got {b_shape[2]}.",
        )
    sizes = {}
    for arg, value in (
        ("max_output_size_per_class", max_output_size_per_class),
        ("max_total_size", max_total_size),
    ):
        sizes[arg] = scalar_int(value, op, arg)
        if sizes[arg] <= 0:
            raise InvalidArgumentError(
                None, op, f"{op}: '{arg}' must be positive, got {sizes[arg]}."
            )
    iou, floor = _nms_args(op, iou_threshold, score_threshold)
    params = {
        **sizes,
        "iou_threshold": iou,
        "score_threshold": floor,
        "pad_per_class": bool(pad_per_class),
        "clip_boxes": bool(clip_boxes),
    }
    return CombinedNonMaxSuppression(*dispatch(_combined, (boxes_t, scores_t), params))
