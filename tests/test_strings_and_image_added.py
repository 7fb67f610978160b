"""tf.strings.ngrams, tf.strings.unsorted_segment_join, and tf.image's YIQ/YUV conversions and
draw_bounding_boxes, found missing by a sweep of TensorFlow 2.21's namespaces; expected values
are TensorFlow's."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

D = ek.constant(["a", "b", "c", "d"])


def texts(t):
    return [v.decode() for v in np.asarray(t.numpy()).reshape(-1)]


@pytest.mark.parametrize(
    "kwargs, expected",
    [
        ({"ngram_width": 2}, ["a b", "b c", "c d"]),
        ({"ngram_width": (1, 3)}, ["a", "b", "c", "d", "a b c", "b c d"]),
        (
            {"ngram_width": 3, "pad_values": ("<s>", "</s>")},
            ["<s> <s> a", "<s> a b", "a b c", "b c d", "c d </s>", "d </s> </s>"],
        ),
        (
            {"ngram_width": 3, "pad_values": "#", "padding_width": 1},
            ["# a b", "a b c", "b c d", "c d #"],
        ),
        ({"ngram_width": 2, "separator": "_"}, ["a_b", "b_c", "c_d"]),
        ({"ngram_width": 5}, []),
    ],
)
def test_ngrams_of_a_sequence(kwargs, expected):
    assert texts(ek.strings.ngrams(D, **kwargs)) == expected


def test_ngrams_of_dense_rows_and_ragged_rows():
    got = ek.strings.ngrams(ek.constant([["a", "b", "c"], ["d", "e", "f"]]), 2, separator="_")
    assert tuple(got.shape) == (2, 2)
    assert texts(got) == ["a_b", "b_c", "d_e", "e_f"]
    r = ek.ragged.constant([["a", "b", "c"], ["d"], []])
    got = ek.strings.ngrams(r, 2)
    assert [texts(row) for row in got] == [["a b", "b c"], [], []]
    got = ek.strings.ngrams(r, 2, preserve_short_sequences=True)
    assert [texts(row) for row in got] == [["a b", "b c"], ["d"], []]
    got = ek.strings.ngrams(r, 2, pad_values=("<", ">"))
    assert [texts(row) for row in got] == [["< a", "a b", "b c", "c >"], ["< d", "d >"], ["< >"]]
    short = ek.strings.ngrams(ek.constant(["a", "b"]), 3, preserve_short_sequences=True)
    assert texts(short) == ["a b"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"ngram_width": 0}, "All ngram_widths must be greater than 0. Got 0"),
        ({"ngram_width": 2, "pad_values": "#", "padding_width": 0}, "padding_width must be"),
        ({"ngram_width": 2, "padding_width": 1}, "pad_values must be provided"),
        ({"ngram_width": 2, "pad_values": 3}, "pad must be a string, tuple, or None"),
    ],
)
def test_ngrams_errors_as_tensorflow(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ek.strings.ngrams(D, **kwargs)


def test_unsorted_segment_join():
    got = ek.strings.unsorted_segment_join(["this", "is", "a", "test"], [0, 0, 1, 1], 3, " ")
    assert texts(got) == ["this is", "a test", ""]
    rows = [["Y", "q", "c"], ["Y", "6", "6"], ["p", "G", "a"]]
    got = ek.strings.unsorted_segment_join(rows, [1, 0, 1], 2, separator=":")
    assert tuple(got.shape) == (2, 3)
    assert texts(got) == ["Y", "6", "6", "Y:p", "q:G", "c:a"]
    with pytest.raises(ek.errors.InvalidArgumentError, match="not allowed to exceed"):
        ek.strings.unsorted_segment_join(["a", "b"], [0, 5], 2)
    with pytest.raises(ek.errors.InvalidArgumentError, match="must be a prefix"):
        ek.strings.unsorted_segment_join(["a", "b"], [0, 1, 1], 2)


X = np.array([[[0.2, 0.5, 0.9], [1.0, 0.0, 0.3]]], np.float32)
COLOR = {  # TensorFlow 2.21 on X
    "rgb_to_yiq": [[[0.4559, -0.30730775, 0.06101149], [0.3332, 0.49949741, 0.30485988]]],
    "yiq_to_rgb": [[[1.23673546, -0.5184902, 1.18043733], [1.18624747, 0.8058387, 1.51126921]]],
    "rgb_to_yuv": [[[0.4559, 0.21854648, -0.22449671], [0.3332, -0.01633807, 0.58497232]]],
    "yuv_to_rgb": [[[1.22589469, -0.51988077, 1.21603096], [1.34196496, 0.82581341, 1.0]]],
}


@pytest.mark.parametrize("name", list(COLOR))
def test_yiq_and_yuv_conversions_match_tensorflow(name):
    got = getattr(ek.image, name)(ek.constant(X))
    np.testing.assert_allclose(got.numpy(), COLOR[name], rtol=1e-6, atol=1e-7)


def test_yiq_yuv_round_trips_gradient_and_errors():
    x = ek.constant(X)
    np.testing.assert_allclose(ek.image.yiq_to_rgb(ek.image.rgb_to_yiq(x)).numpy(), X, atol=1e-4)
    np.testing.assert_allclose(ek.image.yuv_to_rgb(ek.image.rgb_to_yuv(x)).numpy(), X, atol=1e-4)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ek.image.rgb_to_yiq(x) ** 2)
    np.testing.assert_allclose(  # TensorFlow's gradient
        tape.gradient(y, x).numpy(),
        [[[-0.06781366, 0.64018762, 0.33942166], [0.92351097, -0.20182645, -0.05530682]]],
        rtol=1e-5,
        atol=1e-7,
    )
    with pytest.raises(ValueError, match="3 channels"):
        ek.image.rgb_to_yuv(ek.constant([[1.0, 2.0]]))
    with pytest.raises(TypeError, match="must be float16"):
        ek.image.rgb_to_yuv(ek.constant([[1, 2, 3]]))


def test_draw_bounding_boxes_matches_tensorflow_pixel_for_pixel():
    img = np.zeros((1, 6, 8, 3), np.float32)
    boxes = [
        [
            [0.1, 0.2, 0.8, 0.9],
            [0.0, 0.0, 1.0, 1.0],  # drawn over the first one
            [0.5, -0.2, 1.3, 0.5],  # partly outside: only its top and right sides
            [0.7, 0.7, 0.2, 0.9],  # reversed: skipped
        ]
    ]
    colors = [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 1.0]]
    out = ek.image.draw_bounding_boxes(img, boxes, colors).numpy()
    red = [
        [0, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 0, 1, 0],
        [1, 1, 1, 1, 0, 0, 1, 0],
        [0, 1, 0, 1, 0, 0, 1, 0],
        [0, 1, 1, 1, 1, 1, 1, 0],
        [0, 0, 0, 1, 0, 0, 0, 0],
    ]
    green = [
        [1, 1, 1, 1, 1, 1, 1, 1],
        [1, 0, 0, 0, 0, 0, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 0, 0, 1],
        [1, 1, 1, 0, 1, 1, 1, 1],
    ]
    np.testing.assert_array_equal(out[0, :, :, 0], red)
    np.testing.assert_array_equal(out[0, :, :, 1], green)
    assert not out[0, :, :, 2].any() and not img.any()  # a copy: the input is unchanged
    as_uint8 = ek.image.draw_bounding_boxes(np.zeros((1, 6, 8, 1), np.uint8), boxes, colors)
    assert as_uint8.dtype == ek.float32  # as TensorFlow's result
    with pytest.raises(ek.errors.InvalidArgumentError, match="equal or more channels"):
        ek.image.draw_bounding_boxes(img, boxes, [[1.0, 0.0]])
    x = ek.constant(img)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ek.image.draw_bounding_boxes(x, boxes, colors))
    with pytest.raises(LookupError, match="DrawBoundingBoxesV2"):  # no gradient, as TF
        tape.gradient(y, x)
