"""`ek.image.non_max_suppression_padded` and `ek.image.combined_non_max_suppression`.

Expected values are literals checked against TensorFlow 2.21 (tensorflow-cpu) unless a comment
says the case is one where eagerkernel keeps to TensorFlow's documentation and TensorFlow's
implementation departs from it (those are listed in the ops' docstrings).
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

NMS_PADDED = ek.image.non_max_suppression_padded
COMBINED = ek.image.combined_non_max_suppression

# boxes 0-2 overlap (IoU > 0.5 with box 0), boxes 3-4 overlap, box 5 stands alone
BOXES = np.array(
    [
        [0, 0, 1, 1],
        [0, 0.1, 1, 1.1],
        [0, -0.1, 1, 0.9],
        [0, 10, 1, 11],
        [0, 10.1, 1, 11.1],
        [0, 100, 1, 101],
    ],
    np.float32,
)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)


def _np(out):
    return [t.numpy() for t in out]


# -- non_max_suppression_padded ------------------------------------------------------------------


def test_padded_single_image_shapes_dtypes_and_zero_padding():
    idx, valid = NMS_PADDED(BOXES, SCORES, 5)
    assert idx.dtype == ek.int32 and valid.dtype == ek.int32
    assert idx.shape == (3,) and valid.shape == ()
    np.testing.assert_array_equal(idx.numpy(), [3, 0, 5])
    assert int(valid) == 3
    for limit, want, n in (
        (5, [3, 0, 5, 0, 0], 3),
        (10, [3, 0, 5, 0, 0, 0, 0, 0, 0, 0], 3),  # more than num_boxes: still padded to 10
        (2, [3, 0], 2),
        (0, [], 0),
    ):
        idx, valid = NMS_PADDED(BOXES, SCORES, limit, pad_to_max_output_size=True)
        assert idx.shape == (limit,) and valid.shape == ()
        np.testing.assert_array_equal(idx.numpy(), want)
        assert int(valid) == n
    idx, valid = NMS_PADDED(BOXES, SCORES, 0)
    assert idx.shape == (0,) and int(valid) == 0


def test_padded_score_threshold_is_strict():
    idx, valid = NMS_PADDED(BOXES, SCORES, 5, score_threshold=0.55)
    np.testing.assert_array_equal(idx.numpy(), [3, 0])
    idx, valid = NMS_PADDED(BOXES, SCORES, 5, score_threshold=0.55, pad_to_max_output_size=True)
    np.testing.assert_array_equal(idx.numpy(), [3, 0, 0, 0, 0])
    assert int(valid) == 2
    # a box scoring exactly the threshold is dropped: box 2 (0.6)
    np.testing.assert_array_equal(NMS_PADDED(BOXES, SCORES, 6, score_threshold=0.6)[0], [3, 0])


def test_padded_negative_scores_and_iou_threshold():
    idx, _ = NMS_PADDED(BOXES, -SCORES, 6)
    np.testing.assert_array_equal(idx.numpy(), [5, 4, 2])
    idx, _ = NMS_PADDED(BOXES, -SCORES, 6, score_threshold=-0.7)
    np.testing.assert_array_equal(idx.numpy(), [5, 4, 2])
    # hand-computed: IoU(0, 1) = 0.9 / 1.1 = 0.818, so 0.85 keeps box 1 and 0.8 drops it
    np.testing.assert_array_equal(
        NMS_PADDED(BOXES, SCORES, 6, iou_threshold=0.85)[0], [3, 0, 1, 2, 4, 5]
    )
    np.testing.assert_array_equal(NMS_PADDED(BOXES, SCORES, 6, iou_threshold=0.8)[0], [3, 0, 5])


def test_padded_batches():
    boxes = np.stack([BOXES, BOXES[::-1]])
    scores = np.stack([SCORES, SCORES])
    idx, valid = NMS_PADDED(boxes, scores, 4, pad_to_max_output_size=True)
    assert idx.shape == (2, 4) and valid.shape == (2,)
    np.testing.assert_array_equal(idx.numpy(), [[3, 0, 5, 0], [3, 0, 1, 0]])
    np.testing.assert_array_equal(valid.numpy(), [3, 3])
    # several batch dimensions
    idx, valid = NMS_PADDED(
        np.stack([boxes] * 3), np.stack([scores] * 3), 4, pad_to_max_output_size=True
    )
    assert idx.shape == (3, 2, 4) and valid.shape == (3, 2) and valid.dtype == ek.int32
    np.testing.assert_array_equal(idx.numpy()[2], [[3, 0, 5, 0], [3, 0, 1, 0]])
    np.testing.assert_array_equal(valid.numpy(), [[3, 3]] * 3)


def test_padded_ties_sorted_input_and_tile_size():
    disjoint = np.array([[0, 10 * i, 1, 10 * i + 1] for i in range(5)], np.float32)
    idx, _ = NMS_PADDED(disjoint, np.full(5, 0.5, np.float32), 6, pad_to_max_output_size=True)
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 2, 3, 4, 0])  # ties: lower index first
    # sorted_input: the boxes are taken in the given order (TensorFlow's result for unsorted
    # input too)
    np.testing.assert_array_equal(NMS_PADDED(BOXES, SCORES, 5, sorted_input=True)[0], [0, 3, 5])
    for tile_size in (1, 2, 512):
        np.testing.assert_array_equal(
            NMS_PADDED(BOXES, SCORES, 5, tile_size=tile_size)[0], [3, 0, 5]
        )


def test_padded_corner_orders_follow_non_max_suppression():
    flipped = BOXES[:, [2, 3, 0, 1]]
    np.testing.assert_array_equal(NMS_PADDED(flipped, SCORES, 5)[0], [3, 0, 5])
    # canonicalized_coordinates is a promise these boxes break: corners are ordered anyway
    # (TensorFlow would compute with the corners as given)
    np.testing.assert_array_equal(
        NMS_PADDED(flipped, SCORES, 5, canonicalized_coordinates=True)[0], [3, 0, 5]
    )
    # Documented semantics, where TensorFlow 2.21's tiled implementation departs from them:
    # mixed corner orders (TF: [0, 1, 2], ordering every box as the first one),
    mixed = np.array([[0, 0, 1, 1], [1, 1, 0.1, 0.1], [1, 1, 0, 0]], np.float32)
    want = ek.image.non_max_suppression(mixed, [0.9, 0.8, 0.7], 3).numpy()
    np.testing.assert_array_equal(want, [0])
    np.testing.assert_array_equal(NMS_PADDED(mixed, [0.9, 0.8, 0.7], 3)[0], want)
    # an IoU equal to the threshold keeps the box, as non_max_suppression (TF: [0]),
    half = np.array([[0, 0, 1, 1], [0, 0, 1, 0.5], [0, 0, 1, 2]], np.float32)
    np.testing.assert_array_equal(NMS_PADDED(half, [0.9, 0.8, 0.7], 3)[0], [0, 1, 2])
    np.testing.assert_array_equal(
        ek.image.non_max_suppression(half, [0.9, 0.8, 0.7], 3), [0, 1, 2]
    )  # TF 2.21's NonMaxSuppressionV3: [0, 1, 2]
    # boxes at non-positive coordinates are selected (TF: [1]),
    negative = np.array([[-2, -2, -1, -1], [0, 0, 1, 1], [-1, -1, 0, 0]], np.float32)
    np.testing.assert_array_equal(NMS_PADDED(negative, [0.9, 0.8, 0.7], 3)[0], [0, 1, 2])
    # and zero boxes select nothing (TF raises ValueError).
    idx, valid = NMS_PADDED(np.zeros((0, 4)), np.zeros(0), 3, pad_to_max_output_size=True)
    np.testing.assert_array_equal(idx.numpy(), [0, 0, 0])
    assert int(valid) == 0


def test_padded_errors():
    errors = ek.errors
    with pytest.raises(
        ValueError, match=r"'pad_to_max_output_size' \(value False\) must be True for batched"
    ):
        NMS_PADDED(BOXES[None], SCORES[None], 3)
    cases = [
        ((BOXES[:, :3], SCORES, 3), {}, r"'boxes' must have shape \[\.\.\., num_boxes, 4\]"),
        ((BOXES[0], SCORES, 3), {}, r"'boxes' must have shape"),
        ((BOXES, SCORES[:3], 3), {}, r"'scores' must have shape \[6\]"),
        ((BOXES[None], SCORES[None, :3], 3), {"pad_to_max_output_size": True}, "'scores'"),
        ((BOXES, SCORES, -1), {}, r"'max_output_size' must be non-negative, got -1"),
        ((BOXES, SCORES, [2, 3]), {}, r"'max_output_size' must be 0-D, got shape \[2\]"),
        ((BOXES, SCORES, 2**31), {}, r"'max_output_size' must fit in int32"),
        ((BOXES, SCORES, 3), {"iou_threshold": -0.5}, r"'iou_threshold' must be in \[0, 1\]"),
        ((BOXES, SCORES, 3), {"iou_threshold": 1.5}, r"'iou_threshold' must be in \[0, 1\]"),
        ((BOXES, SCORES, 3), {"iou_threshold": np.nan}, r"'iou_threshold' must be in \[0, 1\]"),
        ((BOXES, SCORES, 3), {"iou_threshold": [0.1, 0.2]}, "'iou_threshold' must be 0-D"),
        ((BOXES, SCORES, 3), {"score_threshold": [0.1, 0.2]}, "'score_threshold' must be 0-D"),
        ((BOXES, SCORES, 3), {"tile_size": 0}, r"'tile_size' must be positive, got 0"),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(
            errors.InvalidArgumentError, match="non_max_suppression_padded: " + message
        ):
            NMS_PADDED(*args, **kwargs)
    with pytest.raises(
        TypeError, match="non_max_suppression_padded: 'max_output_size' must be an integer"
    ):
        NMS_PADDED(BOXES, SCORES, 2.5)
    with pytest.raises(TypeError, match="'tile_size' must be an integer"):
        NMS_PADDED(BOXES, SCORES, 2, tile_size=2.5)
    with pytest.raises(errors.UnsupportedDTypeError, match="'scores' must be floats, got a int32"):
        NMS_PADDED(BOXES, SCORES.astype(np.int32), 3)
    with pytest.raises(errors.UnsupportedDTypeError, match="'boxes' must be real numbers"):
        NMS_PADDED(BOXES > 0, SCORES, 3)
    # integer boxes are taken as float32, as TensorFlow casts them
    np.testing.assert_array_equal(NMS_PADDED(BOXES.astype(np.int32), SCORES, 3)[0], [3, 0, 2])


# -- combined_non_max_suppression ----------------------------------------------------------------

# batch 2, 4 boxes, q = 1, 3 classes
CB = np.array(
    [
        [[[0, 0, 1, 1]], [[0, 0.1, 1, 1.1]], [[0.5, 0.5, 1.5, 1.5]], [[-0.2, -0.2, 0.3, 0.3]]],
        [[[0, 0, 0.5, 0.5]], [[0, 0, 0.5, 0.45]], [[0.6, 0.6, 0.9, 0.9]], [[1, 1, 0, 0]]],
    ],
    np.float32,
)
CS = np.array(
    [
        [[0.9, 0.1, 0.3], [0.8, 0.7, 0.05], [0.2, 0.6, 0.4], [0.5, 0.5, 0.5]],
        [[0.3, 0.9, 0.2], [0.35, 0.8, 0.1], [0.6, 0.05, 0.7], [0.2, 0.25, 0.9]],
    ],
    np.float32,
)


def _check(out, boxes, scores, classes, valid):
    assert type(out).__name__ == "CombinedNonMaxSuppression"
    assert out._fields == ("nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections")
    assert [t.dtype for t in out] == [ek.float32, ek.float32, ek.float32, ek.int32]
    np.testing.assert_allclose(out.nmsed_boxes.numpy(), boxes, atol=1e-7)
    np.testing.assert_allclose(out.nmsed_scores.numpy(), scores, atol=1e-7)
    np.testing.assert_array_equal(out.nmsed_classes.numpy(), classes)
    np.testing.assert_array_equal(out.valid_detections.numpy(), valid)


def test_combined_q1_per_class_limits_total_and_clipping():
    _check(
        COMBINED(CB, CS, 2, 5),
        [
            [[0, 0, 1, 1], [0, 0.1, 1, 1], [0.5, 0.5, 1, 1], [0, 0, 0.3, 0.3], [0, 0, 0.3, 0.3]],
            [
                [0, 0, 0.5, 0.5],
                [1, 1, 0, 0],
                [0.6, 0.6, 0.9, 0.9],
                [0.6, 0.6, 0.9, 0.9],
                [0, 0, 0.5, 0.45],
            ],
        ],
        [[0.9, 0.7, 0.6, 0.5, 0.5], [0.9, 0.9, 0.7, 0.6, 0.35]],
        [[0, 1, 1, 0, 2], [1, 2, 2, 0, 0]],
        [5, 5],
    )
    out = COMBINED(CB, CS, 2, 5, clip_boxes=False)  # the input's coordinates and corner order
    np.testing.assert_allclose(
        out.nmsed_boxes.numpy()[0],
        [
            [0, 0, 1, 1],
            [0, 0.1, 1, 1.1],
            [0.5, 0.5, 1.5, 1.5],
            [-0.2, -0.2, 0.3, 0.3],
            [-0.2, -0.2, 0.3, 0.3],
        ],
    )
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[1, 1], [1, 1, 0, 0])
    _check(
        COMBINED(CB, CS, 2, 3),
        [
            [[0, 0, 1, 1], [0, 0.1, 1, 1], [0.5, 0.5, 1, 1]],
            [[0, 0, 0.5, 0.5], [1, 1, 0, 0], [0.6, 0.6, 0.9, 0.9]],
        ],
        [[0.9, 0.7, 0.6], [0.9, 0.9, 0.7]],
        [[0, 1, 1], [1, 2, 2]],
        [3, 3],
    )


def test_combined_pad_per_class():
    # max_detections = min(max_total_size, max_output_size_per_class * num_classes)
    _check(
        COMBINED(CB, CS, 1, 10, pad_per_class=True),
        [
            [[0, 0, 1, 1], [0, 0.1, 1, 1], [0, 0, 0.3, 0.3]],
            [[0, 0, 0.5, 0.5], [1, 1, 0, 0], [0.6, 0.6, 0.9, 0.9]],
        ],
        [[0.9, 0.7, 0.5], [0.9, 0.9, 0.6]],
        [[0, 1, 2], [1, 2, 0]],
        [3, 3],
    )
    out = COMBINED(CB, CS, 1, 2, pad_per_class=True)
    assert out.nmsed_boxes.shape == (2, 2, 4)
    np.testing.assert_allclose(out.nmsed_scores.numpy(), [[0.9, 0.7], [0.9, 0.9]])
    out = COMBINED(CB, CS, 4, 10, pad_per_class=True)
    assert out.nmsed_scores.shape == (2, 10)
    np.testing.assert_allclose(
        out.nmsed_scores.numpy(),
        [
            [0.9, 0.7, 0.6, 0.5, 0.5, 0.5, 0.4, 0.3, 0.2, 0],
            [0.9, 0.9, 0.7, 0.6, 0.35, 0.25, 0.2, 0.2, 0.05, 0],
        ],
    )
    np.testing.assert_array_equal(
        out.nmsed_classes.numpy(), [[0, 1, 1, 0, 1, 2, 2, 2, 0, 0], [1, 2, 2, 0, 0, 1, 0, 2, 1, 0]]
    )
    np.testing.assert_array_equal(out.valid_detections.numpy(), [9, 9])
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[:, 9], 0)
    # the per-class limit counts as given, even above num_boxes: min(20, 10 * 3)
    out = COMBINED(CB, CS, 10, 20, pad_per_class=True)
    assert out.nmsed_boxes.shape == (2, 20, 4)
    np.testing.assert_array_equal(out.valid_detections.numpy(), [9, 9])
    np.testing.assert_array_equal(out.nmsed_scores.numpy()[:, 9:], 0)


def test_combined_thresholds():
    out = COMBINED(CB, CS, 2, 5, score_threshold=0.45)
    np.testing.assert_allclose(
        out.nmsed_scores.numpy(), [[0.9, 0.7, 0.6, 0.5, 0.5], [0.9, 0.9, 0.7, 0.6, 0]]
    )
    np.testing.assert_array_equal(out.valid_detections.numpy(), [5, 4])
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[1, 4], [0, 0, 0, 0])
    # an IoU equal to the threshold does not suppress; a score equal to it is dropped
    half = np.array([[[[0, 0, 1, 1]], [[0, 0, 1, 0.5]], [[0, 0, 1, 2]]]], np.float32)
    s = np.array([[[0.9], [0.8], [0.7]]], np.float32)
    _check(
        COMBINED(half, s, 3, 3, iou_threshold=0.5),
        [[[0, 0, 1, 1], [0, 0, 1, 0.5], [0, 0, 1, 1]]],
        [[0.9, 0.8, 0.7]],
        [[0, 0, 0]],
        [3],
    )
    _check(
        COMBINED(half, s, 3, 3, iou_threshold=1.0, score_threshold=0.8),
        [[[0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]]],
        [[0.9, 0, 0]],
        [[0, 0, 0]],
        [1],
    )


def test_combined_class_specific_boxes():
    # q = num_classes: class c suppresses among boxes[:, :, c]
    bq = np.concatenate([CB, CB[:, :, :, [1, 0, 3, 2]] * 0.5, CB[::-1]], axis=2)
    _check(
        COMBINED(bq, CS, 2, 6),
        [
            [
                [0, 0, 1, 1],
                [0.05, 0, 0.55, 0.5],
                [0.25, 0.25, 0.75, 0.75],
                [0, 0, 0.3, 0.3],
                [1, 1, 0, 0],
                [0.6, 0.6, 0.9, 0.9],
            ],
            [
                [0, 0, 0.25, 0.25],
                [0, 0, 0.3, 0.3],
                [0.5, 0.5, 1, 1],
                [0.6, 0.6, 0.9, 0.9],
                [0, 0, 0.5, 0.45],
                [0.5, 0.5, 0, 0],
            ],
        ],
        [[0.9, 0.7, 0.6, 0.5, 0.5, 0.4], [0.9, 0.9, 0.7, 0.6, 0.35, 0.25]],
        [[0, 1, 1, 0, 2, 2], [1, 2, 2, 0, 0, 1]],
        [6, 6],
    )
    _check(
        COMBINED(bq, CS, 3, 6, pad_per_class=True, clip_boxes=False),
        [
            [
                [0, 0, 1, 1],
                [0.05, 0, 0.55, 0.5],
                [0.25, 0.25, 0.75, 0.75],
                [-0.2, -0.2, 0.3, 0.3],
                [-0.1, -0.1, 0.15, 0.15],
                [1, 1, 0, 0],
            ],
            [
                [0, 0, 0.25, 0.25],
                [-0.2, -0.2, 0.3, 0.3],
                [0.5, 0.5, 1.5, 1.5],
                [0.6, 0.6, 0.9, 0.9],
                [0, 0, 0.5, 0.45],
                [0.5, 0.5, 0, 0],
            ],
        ],
        [[0.9, 0.7, 0.6, 0.5, 0.5, 0.5], [0.9, 0.9, 0.7, 0.6, 0.35, 0.25]],
        [[0, 1, 1, 0, 1, 2], [1, 2, 2, 0, 0, 1]],
        [6, 6],
    )
    # q = 1 is the same as the boxes repeated for every class
    repeated = np.repeat(CB, 3, axis=2)
    for a, b in zip(_np(COMBINED(CB, CS, 2, 7)), _np(COMBINED(repeated, CS, 2, 7))):
        np.testing.assert_array_equal(a, b)


def _columns(n):
    return np.array([[[[0, 10 * i, 1, 10 * i + 1]] for i in range(n)]], np.float32)


def test_combined_ties_and_negative_scores():
    # equal scores: lower class first (TF 2.21 agrees on these small inputs), then lower box
    # index (TensorFlow's order within a class is its heap's, unspecified)
    out = COMBINED(_columns(2), np.full((1, 2, 3), 0.5, np.float32), 3, 6, clip_boxes=False)
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[0, :, 1] / 10, [0, 1, 0, 1, 0, 1])
    np.testing.assert_array_equal(out.nmsed_classes.numpy()[0], [0, 0, 1, 1, 2, 2])
    s = np.array([[[0.5, 0.9], [0.9, 0.5], [0.5, 0.5], [0.7, 0.9]]], np.float32)
    out = COMBINED(_columns(4), s, 4, 8, clip_boxes=False)
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[0, :, 1] / 10, [1, 0, 3, 3, 0, 2, 1, 2])
    np.testing.assert_array_equal(out.nmsed_classes.numpy()[0], [0, 1, 1, 0, 0, 0, 1, 1])
    np.testing.assert_allclose(
        out.nmsed_scores.numpy()[0], [0.9, 0.9, 0.9, 0.7, 0.5, 0.5, 0.5, 0.5]
    )
    out = COMBINED(_columns(5), np.full((1, 5, 1), 0.5, np.float32), 2, 5, clip_boxes=False)
    np.testing.assert_array_equal(out.nmsed_boxes.numpy()[0, :2, 1] / 10, [0, 1])  # TF: [0, 2]
    # negative scores
    s = -np.array([[[0.5, 0.7], [0.7, 0.5], [0.5, 0.5]]], np.float32)
    _check(
        COMBINED(_columns(3), s, 3, 6),
        [[[0, 0, 1, 1], [0, 1, 1, 1], [0, 1, 1, 1], [0, 1, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1]]],
        [[-0.5, -0.5, -0.5, -0.5, -0.7, -0.7]],
        [[0, 0, 1, 1, 0, 1]],
        [6],
    )
    # Scores below -1 when a class selects fewer boxes than its slots: the documented result
    # (TF 2.21's kernel sorts its placeholders, score -1 and class -1, among the detections).
    b = np.array([[[[0, 0, 1, 1]], [[0, 0.05, 1, 1.05]], [[0, 5, 1, 6]]]], np.float32)
    s = np.array([[[-2.0, -3.0], [-2.5, -3.5], [-4.0, 0.2]]], np.float32)
    _check(
        COMBINED(b, s, 3, 6, clip_boxes=False),
        [[[0, 5, 1, 6], [0, 0, 1, 1], [0, 0, 1, 1], [0, 5, 1, 6], [0, 0, 0, 0], [0, 0, 0, 0]]],
        [[0.2, -2.0, -3.0, -4.0, 0, 0]],
        [[1, 0, 1, 0, 0, 0]],
        [4],
    )


def test_combined_empty_inputs():
    out = COMBINED(np.zeros((2, 0, 1, 4), np.float32), np.zeros((2, 0, 3), np.float32), 2, 5)
    _check(out, np.zeros((2, 5, 4)), np.zeros((2, 5)), np.zeros((2, 5)), [0, 0])
    out = COMBINED(np.zeros((0, 3, 1, 4), np.float32), np.zeros((0, 3, 3), np.float32), 2, 5)
    assert [tuple(t.shape) for t in out] == [(0, 5, 4), (0, 5), (0, 5), (0,)]
    no_classes = (np.zeros((2, 3, 1, 4), np.float32), np.zeros((2, 3, 0), np.float32), 2, 5)
    _check(COMBINED(*no_classes), np.zeros((2, 5, 4)), np.zeros((2, 5)), np.zeros((2, 5)), [0, 0])
    out = COMBINED(*no_classes, pad_per_class=True)
    assert [tuple(t.shape) for t in out] == [(2, 0, 4), (2, 0), (2, 0), (2,)]


def test_combined_errors():
    errors = ek.errors
    cases = [
        ((CB, CS, 0, 5), {}, "'max_output_size_per_class' must be positive, got 0"),
        ((CB, CS, -1, 5), {}, "'max_output_size_per_class' must be positive, got -1"),
        ((CB, CS, 2, 0), {}, "'max_total_size' must be positive, got 0"),
        ((CB, CS, 2, 2**31), {}, "'max_total_size' must fit in int32"),
        ((CB, CS, [2], 5), {}, r"'max_output_size_per_class' must be 0-D, got shape \[1\]"),
        ((CB, CS, 2, [5]), {}, r"'max_total_size' must be 0-D, got shape \[1\]"),
        ((CB, CS, 2, 5), {"iou_threshold": 1.5}, r"'iou_threshold' must be in \[0, 1\]"),
        ((CB, CS, 2, 5), {"iou_threshold": -0.1}, r"'iou_threshold' must be in \[0, 1\]"),
        ((CB, CS, 2, 5), {"iou_threshold": [0.5]}, r"'iou_threshold' must be 0-D"),
        ((CB, CS, 2, 5), {"score_threshold": [0.5]}, r"'score_threshold' must be 0-D"),
        ((CB[0], CS, 2, 5), {}, r"'boxes' must have shape \[batch_size, num_boxes, q, 4\]"),
        ((CB[..., :3], CS, 2, 5), {}, r"'boxes' must have shape \[batch_size, num_boxes, q, 4\]"),
        ((CB, CS[0], 2, 5), {}, r"'scores' must have shape \[batch_size, num_boxes, num_classes\]"),
        ((CB[:1], CS, 2, 5), {}, "'boxes' and 'scores' must have the same batch size"),
        ((CB, CS[:, :3], 2, 5), {}, "'boxes' and 'scores' must have the same batch size"),
        (
            (np.concatenate([CB, CB], 2), CS, 2, 5),
            {},
            r"the third dimension of 'boxes' \(q\) must be 1 or num_classes = 3, got 2",
        ),
    ]
    for args, kwargs, message in cases:
        with pytest.raises(
            errors.InvalidArgumentError, match="combined_non_max_suppression: " + message
        ):
            COMBINED(*args, **kwargs)
    with pytest.raises(TypeError, match="'max_output_size_per_class' must be an integer"):
        COMBINED(CB, CS, 2.0, 5)
    with pytest.raises(TypeError, match="'max_total_size' must be an integer"):
        COMBINED(CB, CS, 2, 5.0)
    for args, name in (
        ((CB.astype(np.float64), CS), "boxes"),
        ((CB, CS.astype(np.float64)), "scores"),
    ):
        with pytest.raises(
            errors.UnsupportedDTypeError, match=f"'{name}' must be float32, got a float64"
        ):
            COMBINED(*args, 2, 5)
    with pytest.raises(errors.UnsupportedDTypeError, match="'boxes' must be float32, got a int32"):
        COMBINED(CB.astype(np.int32), CS, 2, 5)
    # Python lists convert to float32; integer scalar tensors are sizes
    out = COMBINED(CB.tolist(), CS.tolist(), ek.constant(2), ek.constant(5, ek.int64))
    np.testing.assert_array_equal(out.valid_detections.numpy(), [5, 5])


# -- no gradients, and graph functions recompute ------------------------------------------------


def test_gradients_are_those_of_tensorflow():
    b, s = ek.constant(CB), ek.constant(CS)
    with ek.GradientTape(persistent=True) as tape:
        tape.watch([b, s])
        out = COMBINED(b, s, 2, 5)
        loss = ek.reduce_sum(out.nmsed_boxes) + ek.reduce_sum(out.nmsed_scores)
        idx, valid = NMS_PADDED(b[0, :, 0], s[0, :, 0], 3, pad_to_max_output_size=True)
    with pytest.raises(LookupError, match="CombinedNonMaxSuppression"):  # TF 2.21: LookupError
        tape.gradient(loss, [b, s])
    assert tape.gradient(idx, b) is None and tape.gradient(valid, s) is None  # TF 2.21: None


def test_graph_functions_recompute_the_selection():
    other_boxes = np.roll(BOXES, 2, axis=0)
    other_scores = SCORES[::-1].copy()
    cases = [
        (
            lambda b, s: NMS_PADDED(b, s, 4, pad_to_max_output_size=True),
            (BOXES, SCORES),
            (other_boxes, other_scores),
        ),
        (lambda b, s: NMS_PADDED(b, s, 4), (BOXES, SCORES), (other_boxes, SCORES)),
        (
            lambda b, s: tuple(COMBINED(b, s, 2, 5, pad_per_class=True)),
            (CB, CS),
            (CB[:, ::-1].copy(), CS[::-1].copy()),
        ),
    ]
    for fn, first, second in cases:
        traced = ek.function(fn)
        first = [ek.constant(v) for v in first]
        second = [ek.constant(v) for v in second]
        for args in (first, second, first):
            got, want = _np(traced(*args)), _np(fn(*args))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
        a, b = _np(fn(*first)), _np(fn(*second))
        assert any(x.shape != y.shape or not np.array_equal(x, y) for x, y in zip(a, b))
