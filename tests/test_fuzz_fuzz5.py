"""Differential-fuzz findings on tf.strings / tf.ragged / tf.sparse, pinned to TensorFlow.

Every expected value below was computed with TensorFlow 2.21 (tensorflow-cpu) on the same
call, unless a comment gives a closed form.
"""

import numpy as np
import pytest

import eagerkernel as ek

IAE = ek.errors.InvalidArgumentError


def _sparse_parts(st):
    return st.indices.numpy().tolist(), st.values.numpy().tolist(), st.dense_shape.numpy().tolist()


# -- tf.sparse -------------------------------------------------------------------------------------


def test_sparse_add_threshold_only_prunes_coinciding_entries():
    # TF: an entry present in one operand is kept whatever its magnitude; sums use |s| >= thresh
    a = ek.sparse.from_dense(np.array([0.0, 0.5, 1.0, 0.3], np.float32))
    b = ek.sparse.from_dense(np.array([0.2, 0.0, -0.5, 0.2], np.float32))
    idx, vals, shape = _sparse_parts(ek.sparse.add(a, b, threshold=0.5))
    assert idx == [[0], [1], [2], [3]] and shape == [4]
    np.testing.assert_allclose(vals, [0.2, 0.5, 0.5, 0.5], rtol=1e-6)
    a = ek.sparse.from_dense(np.array([1.0, 0.3], np.float32))
    b = ek.sparse.from_dense(np.array([-0.9, 0.0], np.float32))
    idx, vals, _ = _sparse_parts(ek.sparse.add(a, b, threshold=0.5))
    assert idx == [[1]]
    np.testing.assert_allclose(vals, [0.3], rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs, shape",
    [({}, [1]), ({"minlength": 3}, [3]), ({"maxlength": 0}, [0]), ({"maxlength": 3}, [3])],
)
def test_sparse_bincount_of_nothing_has_one_bin(kwargs, shape):
    out = ek.sparse.bincount(ek.constant(np.zeros(0, np.int32)), **kwargs)
    assert out.dense_shape.numpy().tolist() == shape
    assert out.values.numpy().size == 0


def test_sparse_bincount_empty_rows_axis_last():
    out = ek.sparse.bincount(ek.constant(np.zeros((2, 0), np.int32)), axis=-1)
    assert out.dense_shape.numpy().tolist() == [2, 1]


# -- tf.strings: lengths, substrings, splitting ------------------------------------------------


def test_length_utf8_char_counts_non_continuation_bytes():
    assert int(ek.strings.length(ek.constant(b"  \xed\xa0\x80\x00"), unit="UTF8_CHAR")) == 4
    with pytest.raises(IAE, match=r"length: unit"):
        ek.strings.length(ek.constant("a"), unit="CHAR")


def test_substr_negative_len_and_invalid_utf8():
    x = ek.constant([b"abcdef"])
    assert ek.strings.substr(x, 1, -1).numpy().tolist() == [b"bcdef"]
    assert ek.strings.substr(x, -2, -1).numpy().tolist() == [b"ef"]
    assert ek.strings.substr(x, 0, -1, unit="UTF8_CHAR").numpy().tolist() == [b""]
    y = ek.constant([b"a\xffb\xe4\xb8c", b"\x80\x80x"])
    got = {
        (p, n): ek.strings.substr(y, p, n, unit="UTF8_CHAR").numpy().tolist()
        for p, n in [(0, 2), (1, 2), (-2, 2)]
    }
    assert got == {
        (0, 2): [b"a\xff", b"\x80\x80x"],
        (1, 2): [b"\xffb", b"x"],
        (-2, 2): [b"\xe4\xb8c", b"\x80\x80x"],
    }


def test_bytes_split_keeps_zero_size_dimensions():
    rt = ek.strings.bytes_split(ek.constant(np.zeros((2, 0), object).astype(bytes)))
    assert [s.numpy().tolist() for s in rt.nested_row_splits] == [[0, 0, 0], [0]]


@pytest.mark.parametrize(
    "text, expected",
    [
        (b"  a b  c ", [[b"a", b"b", b"c"], [b"  a b  c "], [b"a", b"b  c "], [b"a", b"b", b"c "]]),
        (b"abc", [[b"abc"], [b"abc"], [b"abc", b""], [b"abc"]]),
        (b"", [[], [b""], [], []]),
        (b"a  b", [[b"a", b"b"], [b"a  b"], [b"a", b"b"], [b"a", b"b", b""]]),
    ],
)
def test_split_on_whitespace_with_maxsplit(text, expected):
    # maxsplit -1, 0, 1, 2 with sep=None and sep="" (the same in TF)
    for sep in (None, ""):
        got = [ek.strings.split(text, sep=sep, maxsplit=m).numpy().tolist() for m in (-1, 0, 1, 2)]
        assert got == expected


def test_reduce_join_over_several_axes():
    x = ek.constant([["a", "b"], ["c", "d"]])
    assert ek.strings.reduce_join(x, axis=(0, 1), separator=",").numpy() == b"a,c,b,d"
    assert ek.strings.reduce_join(x, axis=(1, 0), separator=",").numpy() == b"a,b,c,d"
    assert ek.strings.reduce_join(x, axis=None, separator=",").numpy() == b"a,b,c,d"
    assert ek.strings.reduce_join(x, axis=(0, 1), keepdims=True).numpy().tolist() == [[b"acbd"]]
    with pytest.raises(ek.errors.OutOfRangeError, match="reduce_join: axis 2"):
        ek.strings.reduce_join(x, axis=2)
    with pytest.raises(IAE, match="reduce_join: duplicate"):
        ek.strings.reduce_join(x, axis=(0, 0))


# -- tf.strings: numbers ---------------------------------------------------------------------------


def test_to_number_hex_floats_grouping_and_overflow():
    assert float(ek.strings.to_number("0x10")) == 16.0
    assert float(ek.strings.to_number("0x1p3", ek.float64)) == 8.0
    assert int(ek.strings.to_number("2147483648", ek.int64)) == 2147483648
    for text, dt in [("1_000", ek.float32), ("2147483648", ek.int32), ("0x10", ek.int32)]:
        with pytest.raises(IAE, match="StringToNumberOp could not correctly convert"):
            ek.strings.to_number(text, dt)


@pytest.mark.parametrize(
    "value, kwargs, expected",
    [
        ([1.5, -2.0], {"fill": "+"}, [b"+1.500000", b"-2.000000"]),
        ([1.5, -2.0], {"fill": "-", "width": 9}, [b"1.500000 ", b"-2.000000"]),
        ([1.5, -2.0], {"fill": "#", "precision": 0}, [b"2.", b"-2."]),
        ([1.5, -2.0], {"fill": " ", "width": 10}, [b"  1.500000", b" -2.000000"]),
        ([1.5, -2.0], {"fill": " "}, [b" 1.500000", b"-2.000000"]),
        ([3, -4], {"fill": "+"}, [b"+3", b"-4"]),
        ([True], {"fill": "0", "width": 6}, [b"true"]),
        ([1 + 2j], {}, [b"(1.000000,2.000000)"]),
        ([1 + 2j], {"precision": 2, "width": 5}, [b"( 1.00, 2.00)"]),
        ([1 + 2j], {"shortest": True}, [b"(1,2)"]),
    ],
)
def test_as_string_fill_is_a_printf_flag(value, kwargs, expected):
    dt = ek.complex64 if isinstance(value[0], complex) else None
    assert ek.strings.as_string(ek.constant(value, dtype=dt), **kwargs).numpy().tolist() == expected


@pytest.mark.parametrize(
    "value, kwargs",
    [
        ([1.5], {"fill": "x", "width": 5}),
        ([1.5], {"fill": "ab"}),
        ([1.5], {"scientific": True, "shortest": True}),
        ([3], {"precision": 3}),
        ([3], {"shortest": True}),
        ([True], {"scientific": True}),
    ],
)
def test_as_string_rejected_arguments(value, kwargs):
    with pytest.raises(IAE, match="as_string"):
        ek.strings.as_string(ek.constant(value), **kwargs)


# -- tf.strings: regular expressions, case ----------------------------------------------------


@pytest.mark.parametrize(
    "rewrite, global_, expected",
    [
        (r"\n", True, [b"b", b"xyz"]),
        (r"\n", False, [b"aba", b"xyz"]),
        ("x\\\\y", True, [b"x\\ybx\\y", b"xyz"]),
        (r"\9", True, [b"aba", b"xyz"]),
        (r"\9", False, [b"aba", b"xyz"]),
        (r"<\0>", False, [b"<a>ba", b"xyz"]),
        (r"\10", True, [b"a0ba0", b"xyz"]),
        ("$1", True, [b"$1b$1", b"xyz"]),
    ],
)
def test_regex_replace_re2_rewrite_rules(rewrite, global_, expected):
    out = ek.strings.regex_replace(ek.constant(["aba", "xyz"]), "(a)", rewrite, global_)
    assert out.numpy().tolist() == expected


def test_lower_utf8_replaces_invalid_bytes_and_takes_only_lowercase_name():
    out = ek.strings.lower(ek.constant([b"\x80A", b"\xc3\x89"]), encoding="utf-8")
    assert out.numpy().tolist() == [b"\xef\xbf\xbda", b"\xc3\xa9"]
    with pytest.raises(IAE, match="lower: encoding"):
        ek.strings.lower(ek.constant("A"), encoding="UTF-8")


# -- tf.strings: unicode -----------------------------------------------------------------------


def test_unicode_decode_offsets_with_invalid_bytes():
    x = ek.constant([b"\xe4\xb8X\xffq"])
    cps, offs = ek.strings.unicode_decode_with_offsets(x, "UTF-8", errors="ignore")
    assert cps.to_list() == [[88, 113]] and offs.to_list() == [[2, 4]]
    cps, offs = ek.strings.unicode_decode_with_offsets(x, "UTF-8", errors="replace")
    assert cps.to_list() == [[65533, 88, 65533, 113]] and offs.to_list() == [[0, 2, 3, 4]]


def test_unicode_replace_control_characters():
    x = ek.constant([b"a\x00b\nc"])
    for errors in ("strict", "replace"):
        cps, offs = ek.strings.unicode_decode_with_offsets(
            x, "UTF-8", errors=errors, replacement_char=63, replace_control_characters=True
        )
        assert cps.to_list() == [[97, 63, 98, 63, 99]] and offs.to_list() == [[0, 1, 2, 3, 4]]
    cps, offs = ek.strings.unicode_decode_with_offsets(
        x, "UTF-8", errors="ignore", replace_control_characters=True
    )
    assert cps.to_list() == [[97, 98, 99]] and offs.to_list() == [[0, 2, 4]]
    y = ek.constant([b"a\x00b"])
    tc = ek.strings.unicode_transcode
    assert tc(y, "UTF-8", "UTF-8", "ignore", replace_control_characters=True).numpy().tolist() == [
        b"ab"
    ]
    assert tc(y, "UTF-8", "UTF-8", "replace", 63, True).numpy().tolist() == [b"a?b"]
    with pytest.raises(IAE, match="UnicodeTranscode"):
        tc(y, "UTF-8", "UTF-8", "strict", replace_control_characters=True)


def test_unicode_replacement_char_range_and_surrogates():
    for fn in (ek.strings.unicode_decode, ek.strings.unicode_split):
        with pytest.raises(IAE, match="replacement_char out of unicode codepoint range"):
            fn(ek.constant(["a"]), "UTF-8", replacement_char=-1)
    with pytest.raises(IAE, match="unicode_transcode: replacement_char"):
        ek.strings.unicode_transcode(ek.constant(["a"]), "UTF-8", "UTF-8", replacement_char=-1)
    rows = ek.ragged.constant([[10, 233, -1]])
    out = ek.strings.unicode_encode(rows, "UTF-16-BE", replacement_char=0xD800)
    assert out.numpy().tolist() == [b"\x00\n\x00\xe9\xd8\x00"]
    out = ek.strings.unicode_encode(ek.ragged.constant([[65, 0, -1]]), "UTF-8", "replace", 0xD800)
    assert out.numpy().tolist() == [b"A\x00\xef\xbf\xbd"]


def test_ngrams_of_no_tokens_are_empty_even_padded():
    out = ek.strings.ngrams(ek.ragged.constant([[], []], dtype=ek.string), 2, pad_values="P")
    assert out.to_list() == [[], []]
    dense = ek.strings.ngrams(ek.constant(np.zeros((2, 0), bytes)), 2, pad_values="P")
    assert tuple(dense.shape) == (2, 0)
    out = ek.strings.ngrams(ek.ragged.constant([[], ["a"]]), 2, pad_values="P")
    assert out.to_list() == [[b"P P"], [b"P a", b"a P"]]


# -- tf.ragged ----------------------------------------------------------------------------------


def test_ragged_constant_depth_of_empty_lists():
    rt = ek.ragged.constant([[], [[]]])
    assert rt.ragged_rank == 2 and tuple(rt.flat_values.shape) == (0,)
    rt = ek.ragged.constant([[], [], []], ragged_rank=2)
    lengths = rt.row_lengths(axis=2)
    assert lengths.flat_values.numpy().size == 0
    assert lengths.row_splits.numpy().tolist() == [0, 0, 0, 0]


def test_map_flat_values_without_ragged_arguments_applies_op():
    out = ek.ragged.map_flat_values(ek.ones_like, ek.ragged.constant([], dtype=ek.float32))
    assert isinstance(out, ek.Tensor) and out.dtype == ek.float32 and tuple(out.shape) == (0,)


def test_ragged_gather_rejects_negative_indices():
    rt = ek.ragged.constant([[4]])
    with pytest.raises(IAE, match="gather: indices"):
        ek.gather(rt, np.array([[0, -1], [0, 0]]))
    out = ek.gather(ek.ragged.constant([[1], [2, 3]]), np.zeros((2, 0), np.int64))
    assert out.to_list() == [[], []]


def test_ragged_reduce_mean_of_ints_is_float64():
    rt = ek.ragged.constant([[1, 2], [4]])
    for axis in (None, 0, 1):
        assert ek.reduce_mean(rt, axis=axis).dtype == ek.float64
    assert float(ek.reduce_mean(rt)) == pytest.approx(7 / 3)  # closed form: (1+2+4)/3


def test_ragged_constant_inner_shape():
    rt = ek.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))
    assert rt.ragged_rank == 1 and tuple(rt.flat_values.shape) == (3, 2)
    assert rt.row_splits.numpy().tolist() == [0, 1, 3]
    rt = ek.ragged.constant([[]], ragged_rank=1, inner_shape=(3,))
    assert tuple(rt.flat_values.shape) == (0, 3) and rt.row_splits.numpy().tolist() == [0, 0]
    with pytest.raises(ValueError, match="incompatible with ragged_rank=2"):
        ek.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], ragged_rank=2, inner_shape=(2,))
    with pytest.raises(TypeError):  # 6 values cannot fill shape (3, 3)
        ek.ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(3,))


def test_ragged_argument_errors():
    rt = ek.ragged.constant([[1, 2], [3]])
    with pytest.raises(ValueError, match="to_tensor: shape dimensions"):
        rt.to_tensor(shape=[-1, 3])
    with pytest.raises(IAE, match="to_tensor: shape must have rank 2"):
        rt.to_tensor(shape=[2, 2, 2])
    with pytest.raises(ValueError, match="concat: axis=2 out of bounds"):
        ek.concat([rt, rt], axis=2)
    with pytest.raises(ValueError, match="boolean_mask: mask cannot be scalar"):
        ek.ragged.boolean_mask(ek.constant([1.0, 2.0]), np.bool_(True))


_R2 = [[[1.0, 2.0], [3.0]], [], [[4.0], [], [5.0, 6.0, 7.0]]]


@pytest.mark.parametrize(
    "fn, axis, expected",
    [
        ("reduce_sum", 0, [[5.0, 2.0], [3.0], [5.0, 6.0, 7.0]]),
        ("reduce_sum", 1, [[4.0, 2.0], [], [9.0, 6.0, 7.0]]),
        ("reduce_sum", 2, [[3.0, 3.0], [], [4.0, 0.0, 18.0]]),
        ("reduce_max", 2, [[2.0, 3.0], [], [4.0, float(np.finfo(np.float32).min), 7.0]]),
        ("reduce_sum", (0, 2), [7.0, 3.0, 18.0]),
        ("reduce_sum", (1, 2), [6.0, 0.0, 22.0]),
        ("reduce_mean", (0, 1), [3.25, 4.0, 7.0]),
    ],
)
def test_ragged_rank_2_reductions(fn, axis, expected):
    out = getattr(ek, fn)(ek.ragged.constant(_R2), axis=axis)
    got = out.to_list() if isinstance(out, ek.RaggedTensor) else out.numpy().tolist()
    assert got == expected


@pytest.mark.parametrize(
    "fn, axis, expected",
    [
        ("reduce_max", 0, [0.0, 2.0, 3.0, 1.0, 4.0, 5.0, 6.0]),
        ("reduce_mean", 1, [0.5, 2.0, 0.5, 1.5, 1.5, 4.0, 5.0]),
        ("reduce_sum", (0, 2), [1.0, 1.0, 2.0, 1.0, 3.0, 3.0, 3.0]),
    ],
)
def test_ragged_rank_2_reduction_gradients(fn, axis, expected):
    # d/d(flat values) of sum(reduce(rt) * [1, 2, ...])
    rt = ek.ragged.constant(_R2)
    fv = rt.flat_values
    with ek.GradientTape() as tape:
        tape.watch(fv)
        y = getattr(ek, fn)(rt.with_flat_values(fv), axis=axis)
        y = y.flat_values if isinstance(y, ek.RaggedTensor) else y
        loss = ek.reduce_sum(y * ek.cast(ek.range(1, ek.size(y) + 1), y.dtype))
    np.testing.assert_allclose(tape.gradient(loss, fv).numpy(), expected)


def test_ragged_max_of_no_values_is_the_dtype_lowest():
    rt = ek.ragged.constant([[]], dtype=ek.float32)
    lowest = float(np.finfo(np.float32).min)
    assert ek.reduce_max(rt, axis=1).numpy().tolist() == [lowest]
    assert float(ek.reduce_max(rt, axis=(0, 1))) == lowest
    assert ek.reduce_max(rt, axis=0).numpy().shape == (0,)


def test_ragged_gather_inside_rows():
    rt = ek.ragged.constant([[1, 2, 3], [4, 5], [6]])
    out = ek.gather(rt, [[0, 0], [1, 0], [0, 0]], axis=1, batch_dims=1)
    assert isinstance(out, ek.Tensor) and out.numpy().tolist() == [[1, 1], [5, 4], [6, 6]]
    assert ek.gather(rt, [[0], [1], [0]], batch_dims=1).numpy().tolist() == [[1], [5], [6]]
    assert ek.gather(rt, [0], axis=1).numpy().tolist() == [[1], [4], [6]]
    idx = ek.ragged.constant([[0, 2], [1], []])
    assert ek.gather(rt, idx, axis=1, batch_dims=1).to_list() == [[1, 3], [5], []]
    r2 = ek.ragged.constant([[[1], [2, 3]], [[4]]])
    assert ek.gather(r2, [[1], [0]], axis=1, batch_dims=1).to_list() == [[[2, 3]], [[4]]]
    # TF reads past the row here ([[1], [6], [6]]); an index outside its row is an error
    with pytest.raises(IAE, match=r"gather: indices .* out of range of their rows"):
        ek.gather(rt, [[0], [2], [0]], axis=1, batch_dims=1)


def test_ragged_gather_in_rows_gradient():
    rt = ek.ragged.constant([[1.0, 2.0, 3.0], [4.0, 5.0]])
    fv = rt.flat_values
    with ek.GradientTape() as tape:
        tape.watch(fv)
        y = ek.gather(rt.with_flat_values(fv), [[2, 2], [0, 1]], axis=1, batch_dims=1)
        loss = ek.reduce_sum(y * ek.constant([[1.0, 2.0], [3.0, 4.0]]))
    # closed form: value 3 is taken twice (1 + 2), value 4 once (3), value 5 once (4)
    np.testing.assert_allclose(tape.gradient(loss, fv).numpy(), [0.0, 0.0, 3.0, 3.0, 4.0])


def test_join_broadcasts_scalars_only():
    col = ek.constant([["a"], ["b"]])
    assert ek.strings.join([col, ek.constant("x")]).numpy().tolist() == [[b"ax"], [b"bx"]]
    with pytest.raises(IAE, match="join: input shapes do not match"):
        ek.strings.join([col, ek.constant(["x"])])


def test_from_value_rowids_checks_nrows_without_validate():
    with pytest.raises(ValueError, match="Expected nrows >= value_rowids"):
        ek.RaggedTensor.from_value_rowids([1, 2], [0, 1], nrows=1, validate=False)


_RX = ["b a", "a\n", "x$y", "[]$", "aa"]


@pytest.mark.parametrize(
    "pattern, rewrite, expected",
    [
        ("$", "<\\0>", [b"b a<>", b"a\n<>", b"x$y<>", b"[]$<>", b"aa<>"]),
        ("a*", "<\\0>", [b"<>b<> <a>", b"<a>\n<>", b"<>x<>$<>y<>", b"<>[<>]<>$<>", b"<aa>"]),
        ("[]$]", "D", [b"b a", b"a\n", b"xDy", b"[DD", b"aa"]),
        ("(?m)$", "E", [b"b aE", b"aE\nE", b"x$yE", b"[]$E", b"aaE"]),
        ("a$", "Q", [b"b Q", b"a\n", b"x$y", b"[]$", b"aQ"]),
    ],
)
def test_regex_replace_re2_end_anchor_and_empty_matches(pattern, rewrite, expected):
    assert ek.strings.regex_replace(ek.constant(_RX), pattern, rewrite).numpy().tolist() == expected
