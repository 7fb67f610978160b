"""String tensors and `ek.strings`, checked against TensorFlow's tensor and unicode guides and
the outputs TensorFlow 2.21 prints for the same calls."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.profiling_tape import ProfilingTape

# -- string tensors (guide/tensor.ipynb, "String tensors") --------------------------------------


def test_scalar_string_tensor_as_in_the_tensor_guide():
    scalar_string_tensor = ek.constant("Gray wolf")
    # TF prints: tf.Tensor(b'Gray wolf', shape=(), dtype=string)
    assert str(scalar_string_tensor) == "Tensor(b'Gray wolf', shape=(), dtype=string)"
    assert repr(scalar_string_tensor) == "<Tensor: shape=(), dtype=string, numpy=b'Gray wolf'>"
    assert scalar_string_tensor.numpy() == b"Gray wolf"
    assert isinstance(scalar_string_tensor.numpy(), bytes)
    assert scalar_string_tensor.shape == () and scalar_string_tensor.dtype == ek.string


def test_vector_of_strings_as_in_the_tensor_guide():
    tensor_of_strings = ek.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    # "Note that the shape is (3,). The string length is not included."
    assert str(tensor_of_strings) == (
        "Tensor([b'Gray wolf' b'Quick brown fox' b'Lazy dog'], shape=(3,), dtype=string)"
    )
    a = tensor_of_strings.numpy()
    assert a.dtype == object and a.tolist() == [b"Gray wolf", b"Quick brown fox", b"Lazy dog"]


def test_unicode_is_utf8_bytes():
    t = ek.constant("🥳👍")
    assert repr(t) == (
        "<Tensor: shape=(), dtype=string, numpy=b'\\xf0\\x9f\\xa5\\xb3\\xf0\\x9f\\x91\\x8d'>"
    )


def test_numpy_string_arrays_and_bytes_convert():
    assert ek.constant(np.array(["a", "bc"])).numpy().tolist() == [b"a", b"bc"]
    assert ek.constant(np.array([b"a", "bc"], dtype=object)).numpy().tolist() == [b"a", b"bc"]
    assert ek.constant(b"ab\xff").numpy() == b"ab\xff"
    assert ek.convert_to_tensor(np.array(["x"])).dtype == ek.string
    assert ek.constant([], dtype=ek.string).shape == (0,)
    assert ek.as_dtype("string") is ek.string and ek.as_dtype(str) is ek.string
    assert ek.as_dtype(np.str_) is ek.string


def test_string_tensor_indexing_iteration_and_shape_ops():
    t = ek.constant([["a", "b"], ["c", "d"]])
    assert t[1, 0].numpy() == b"c" and t[0].numpy().tolist() == [b"a", b"b"]
    assert [r.numpy().tolist() for r in t] == [[b"a", b"b"], [b"c", b"d"]]
    assert ek.reshape(t, [4]).numpy().tolist() == [b"a", b"b", b"c", b"d"]
    assert ek.concat([t[0], ["x"]], 0).numpy().tolist() == [b"a", b"b", b"x"]
    assert ek.zeros([2], ek.string).numpy().tolist() == [b"", b""]
    assert ek.fill([2], "x").numpy().tolist() == [b"x", b"x"]


def test_equality_where_and_concatenation_as_tensorflow():
    t = ek.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    np.testing.assert_array_equal((t == "Lazy dog").numpy(), [False, False, True])
    np.testing.assert_array_equal(ek.equal(t, t).numpy(), [True, True, True])
    assert ek.where([True, False, True], t, "x").numpy().tolist() == [
        b"Gray wolf",
        b"x",
        b"Lazy dog",
    ]
    assert (t + "!").numpy().tolist() == [b"Gray wolf!", b"Quick brown fox!", b"Lazy dog!"]


def test_string_conversion_errors():
    with pytest.raises(ValueError, match="mixed types"):
        ek.constant(["a", 1])
    with pytest.raises(TypeError, match="cannot convert '1' to a Tensor of dtype int32"):
        ek.constant("1", dtype=ek.int32)
    with pytest.raises(TypeError, match="cannot convert 1 to a Tensor of dtype string"):
        ek.constant(1, dtype=ek.string)
    with pytest.raises(ValueError, match=r"ek\.ragged\.constant"):
        ek.constant([["a"], ["b", "c"]])
    t = ek.constant(["1"])
    with pytest.raises(ek.errors.UnimplementedError, match="Cast string to float32"):
        ek.cast(t, ek.float32)
    with pytest.raises(ek.errors.InvalidArgumentError, match="reduce_sum: input_tensor"):
        ek.reduce_sum(t)
    with pytest.raises(TypeError, match="Exp"):
        ek.exp(t)


# -- ek.strings -----------------------------------------------------------------------------------


def test_split_and_to_number_as_in_the_tensor_guide():
    scalar = ek.constant("Gray wolf")
    assert str(ek.strings.split(scalar, sep=" ")) == (
        "Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string)"
    )
    vec = ek.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    # "...but it turns into a `RaggedTensor` if you split up a tensor of strings"
    assert str(ek.strings.split(vec)) == (
        "<RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox'], [b'Lazy', b'dog']]>"
    )
    text = ek.constant("1 10 100")
    assert str(ek.strings.to_number(ek.strings.split(text, " "))) == (
        "Tensor([  1.  10. 100.], shape=(3,), dtype=float32)"
    )
    byte_strings = ek.strings.bytes_split(ek.constant("Duck"))
    assert str(byte_strings) == "Tensor([b'D' b'u' b'c' b'k'], shape=(4,), dtype=string)"


def test_split_separators_and_maxsplit():
    assert ek.strings.split(ek.constant(["a,,b", ""]), sep=",").to_list() == [
        [b"a", b"", b"b"],
        [b""],
    ]
    assert ek.strings.split(ek.constant(["  a  b ", ""])).to_list() == [[b"a", b"b"], []]
    assert ek.strings.split(ek.constant(["a b c"]), maxsplit=1).to_list() == [[b"a", b"b c"]]
    # A 2-D input gives a 3-D ragged result (TF: [[[b'a', b'b']], [[b'c']]]).
    assert ek.strings.split(ek.constant([["a b"], ["c"]])).to_list() == [
        [[b"a", b"b"]],
        [[b"c"]],
    ]


def test_unicode_as_in_the_tensor_guide():
    unicode_bytes = ek.constant("アヒル 🦆")
    chars = ek.strings.unicode_split(unicode_bytes, "UTF-8")
    values = ek.strings.unicode_decode(unicode_bytes, "UTF-8")
    assert chars.numpy().tolist() == [
        b"\xe3\x82\xa2",
        b"\xe3\x83\x92",
        b"\xe3\x83\xab",
        b" ",
        b"\xf0\x9f\xa6\x86",
    ]
    assert str(values) == "Tensor([ 12450  12498  12523     32 129414], shape=(5,), dtype=int32)"
    assert int(ek.strings.length(unicode_bytes)) == 14
    assert int(ek.strings.length(unicode_bytes, unit="UTF8_CHAR")) == 5


def test_unicode_decode_encode_round_trip():
    # guide/text: unicode_encode of code points gives the UTF-8 string.
    assert ek.strings.unicode_encode([71, 246, 246], "UTF-8").numpy() == b"G\xc3\xb6\xc3\xb6"
    rt = ek.ragged.constant([[71, 246], [100]])
    assert ek.strings.unicode_encode(rt, "UTF-8").numpy().tolist() == [b"G\xc3\xb6", b"d"]
    decoded = ek.strings.unicode_decode(ek.constant(["ab", "アヒ"]), "UTF-8")
    assert decoded.to_list() == [[97, 98], [12450, 12498]]
    # invalid bytes: replaced (default), or an error with errors="strict"
    assert ek.strings.unicode_decode(ek.constant(b"a\xff"), "UTF-8").numpy().tolist() == [
        97,
        65533,
    ]
    with pytest.raises(ek.errors.InvalidArgumentError, match="invalid utf-8"):
        ek.strings.unicode_decode(ek.constant(b"a\xff"), "UTF-8", errors="strict")
    # TF 2.21 takes any ICU input encoding: [97] for latin-1; an unknown one is an error
    assert ek.strings.unicode_decode(ek.constant("a"), "latin-1").numpy().tolist() == [97]
    with pytest.raises(ek.errors.InvalidArgumentError, match="input encoding"):
        ek.strings.unicode_decode(ek.constant("a"), "no-such-encoding")


def test_length_join_reduce_join_substr():
    t = ek.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    assert ek.strings.length(t).numpy().tolist() == [9, 15, 8]
    assert ek.strings.join(["a", "b"], separator="-").numpy() == b"a-b"
    assert ek.strings.join([t, "!"]).numpy().tolist() == [
        b"Gray wolf!",
        b"Quick brown fox!",
        b"Lazy dog!",
    ]
    assert ek.strings.reduce_join(t).numpy() == b"Gray wolfQuick brown foxLazy dog"
    grid = ek.constant([["a", "b"], ["c", "d"]])
    assert ek.strings.reduce_join(grid, axis=1, separator=",").numpy().tolist() == [
        b"a,b",
        b"c,d",
    ]
    assert ek.strings.reduce_join(grid, axis=0, keepdims=True).numpy().tolist() == [[b"ac", b"bd"]]
    assert ek.strings.substr(t, 0, 4).numpy().tolist() == [b"Gray", b"Quic", b"Lazy"]
    assert ek.strings.substr(t, -3, 2).numpy().tolist() == [b"ol", b"fo", b"do"]
    assert ek.strings.substr(ek.constant("アヒル 🦆"), 1, 2, unit="UTF8_CHAR").numpy() == (
        "ヒル".encode()
    )
    with pytest.raises(
        ek.errors.InvalidArgumentError, match="pos 5 out of range for string b'abc' at index 0"
    ):
        ek.strings.substr(ek.constant("abc"), 5, 1)
    with pytest.raises(ValueError, match="unit"):
        ek.strings.length(t, unit="CHAR")


def test_to_number_and_as_string():
    assert ek.strings.to_number(["1", "2"], out_type=ek.int32).numpy().tolist() == [1, 2]
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match="StringToNumberOp could not correctly convert string: x1",
    ):
        ek.strings.to_number(["x1"])
    with pytest.raises(TypeError, match="out_type"):
        ek.strings.to_number(["1"], out_type=ek.uint8)
    as_string = ek.strings.as_string
    assert as_string([1.5, 2.0]).numpy().tolist() == [b"1.500000", b"2.000000"]
    assert as_string([1, 22], width=4).numpy().tolist() == [b"   1", b"  22"]
    assert as_string([3.14159], precision=2).numpy().tolist() == [b"3.14"]
    assert as_string([3.14159], scientific=True).numpy().tolist() == [b"3.141590e+00"]
    assert as_string([True, False]).numpy().tolist() == [b"true", b"false"]
    assert as_string([7], width=3, fill="0").numpy().tolist() == [b"007"]
    with pytest.raises(ValueError, match="fill"):
        as_string([7], fill="ab")


def test_regex_case_strip_format():
    t = ek.constant(["Gray wolf", "Quick brown fox", "Lazy dog"])
    assert ek.strings.regex_replace(t, "o", "0").numpy().tolist() == [
        b"Gray w0lf",
        b"Quick br0wn f0x",
        b"Lazy d0g",
    ]
    assert ek.strings.regex_replace(t, "o", "0", replace_global=False).numpy().tolist() == [
        b"Gray w0lf",
        b"Quick br0wn fox",
        b"Lazy d0g",
    ]
    assert ek.strings.regex_replace("ab12", r"(\d)", r"<\1>").numpy() == b"ab<1><2>"
    np.testing.assert_array_equal(
        ek.strings.regex_full_match(ek.constant(["ab", "abc"]), "a.").numpy(), [True, False]
    )
    assert ek.strings.lower(t).numpy().tolist()[0] == b"gray wolf"
    assert ek.strings.upper(t).numpy().tolist()[2] == b"LAZY DOG"
    # Without an encoding only ASCII letters change, as in TensorFlow.
    assert ek.strings.upper("éa").numpy() == b"\xc3\xa9A"
    assert ek.strings.upper("éa", encoding="utf-8").numpy() == b"\xc3\x89A"
    assert ek.strings.strip(["  a b  ", "\tc\n"]).numpy().tolist() == [b"a b", b"c"]
    fmt = ek.strings.format
    assert fmt("x={} y={}", (ek.constant([1, 2]), 3.5)).numpy() == b"x=[1 2] y=3.5"
    assert fmt("{}", ek.constant(["a", "b"])).numpy() == b'["a" "b"]'
    assert fmt("hello {}!", ek.constant("w")).numpy() == b'hello "w"!'
    assert fmt("{}", ek.constant([1.5, 2.25])).numpy() == b"[1.5 2.25]"
    assert fmt("{}", ek.range(10), summarize=2).numpy() == b"[0 1 ... 8 9]"
    with pytest.raises(ValueError, match="placeholders"):
        fmt("{} {}", [1])
    with pytest.raises(TypeError, match="string tensor"):
        ek.strings.length(ek.constant([1, 2]))


def test_string_ops_on_ragged_tensors_keep_the_rows():
    # guide/ragged_tensor.ipynb: tf.strings.substr(words, 0, 2)
    words = ek.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert str(ek.strings.substr(words, 0, 2)) == (
        "<RaggedTensor [[b'So', b'lo'], [b'th', b'fo', b'al', b'th', b'fi']]>"
    )
    assert ek.strings.length(words).to_list() == [[2, 4], [6, 3, 3, 3, 4]]


# -- tapes and the dispatcher ---------------------------------------------------------------------


def test_string_ops_go_through_the_dispatcher():
    with ProfilingTape() as tape:
        n = ek.strings.to_number(ek.strings.split(ek.constant("1 2")))
        ek.strings.upper(ek.constant("a"))
    names = [r.prim.name for r in tape.records]
    assert names == ["StringSplitV2", "StringToNumber", "StringUpper"]
    assert n.numpy().tolist() == [1.0, 2.0]


def test_a_tape_ignores_strings():
    x = ek.constant(2.0)
    s = ek.constant("3.5")
    with ek.GradientTape(persistent=True) as tape:
        tape.watch([x, s])  # watching a string is accepted and ignored, as in TensorFlow
        y = x * ek.strings.to_number(s)
        text = ek.strings.as_string(x)
    assert tape.watched_variables() == ()
    assert float(tape.gradient(y, x)) == 3.5
    assert tape.gradient(y, s) is None
    assert text.numpy() == b"2.000000"
    assert not any(r.prim.name in ("StringToNumber", "AsString") for r in tape._records)


# -- Datasets of strings --------------------------------------------------------------------------


def test_datasets_of_strings_slice_map_and_batch():
    ds = ek.data.Dataset.from_tensor_slices(["Gray wolf", "Quick brown fox", "Lazy dog"])
    assert ds.element_spec == ek.TensorSpec((), ek.string)
    assert [x.numpy() for x in ds] == [b"Gray wolf", b"Quick brown fox", b"Lazy dog"]
    upper = list(ds.map(ek.strings.upper).as_numpy_iterator())
    assert upper == [b"GRAY WOLF", b"QUICK BROWN FOX", b"LAZY DOG"]
    batches = [
        (s.numpy().tolist(), n.numpy().tolist())
        for s, n in ds.map(lambda s: (s, ek.strings.length(s))).batch(2)
    ]
    assert batches == [([b"Gray wolf", b"Quick brown fox"], [9, 15]), ([b"Lazy dog"], [8])]
    assert [x.numpy() for x in ds.batch(2).unbatch()] == [x.numpy() for x in ds]
    padded = [b.numpy().tolist() for b in ds.map(ek.strings.split).padded_batch(2)]
    assert padded == [[[b"Gray", b"wolf", b""], [b"Quick", b"brown", b"fox"]], [[b"Lazy", b"dog"]]]
    shuffled = sorted(x.numpy() for x in ds.shuffle(3, seed=1).map(ek.strings.lower))
    assert shuffled == [b"gray wolf", b"lazy dog", b"quick brown fox"]
    parallel = [int(n) for n in ds.map(ek.strings.length, num_parallel_calls=2)]
    assert parallel == [9, 15, 8]


def test_from_generator_with_string_outputs():
    def gen():
        yield "a"
        yield b"bc"

    ds = ek.data.Dataset.from_generator(
        gen, output_signature=ek.TensorSpec(shape=(), dtype=ek.string)
    )
    assert [x.numpy() for x in ds] == [b"a", b"bc"]
    bad = ek.data.Dataset.from_generator(
        lambda: iter([1]), output_signature=ek.TensorSpec(shape=(), dtype=ek.string)
    )
    with pytest.raises(TypeError, match="type string was expected"):
        list(bad)


def test_to_hash_bucket_fast_gives_tensorflows_buckets():
    pytest.importorskip("farmhash")
    # guide/ragged_tensor.ipynb; TF 2.21 gives these buckets
    sentences = ek.constant(
        [
            "What makes you think she is a witch?",
            "She turned me into a newt.",
            "A newt?",
            "Well, I got better.",
        ]
    )
    hashed_words = ek.strings.to_hash_bucket_fast(ek.strings.split(sentences, " "), 1000)
    assert hashed_words.to_list() == [
        [940, 203, 668, 387, 790, 320, 939, 185],
        [315, 515, 791, 181, 939, 787],
        [564, 205],
        [820, 180, 993, 739],
    ]
    queries = ek.ragged.constant([["Who", "is", "Dan", "Smith"], ["Pause"]])
    assert ek.strings.to_hash_bucket_fast(queries, 1024).to_list() == [[633, 768, 237, 309], [28]]
    with pytest.raises(ValueError, match="num_buckets"):
        ek.strings.to_hash_bucket_fast(queries, 0)


def test_the_unicode_guide():
    # site/en/r1/tutorials/representation/unicode.ipynb, with TF 2.21's outputs
    text_utf8 = ek.constant("语言处理")
    assert text_utf8.numpy() == b"\xe8\xaf\xad\xe8\xa8\x80\xe5\xa4\x84\xe7\x90\x86"
    text_chars = ek.constant([ord(char) for char in "语言处理"])
    decoded = ek.strings.unicode_decode(text_utf8, input_encoding="UTF-8")
    assert decoded.numpy().tolist() == [35821, 35328, 22788, 29702] == text_chars.numpy().tolist()
    assert ek.strings.unicode_encode(text_chars, output_encoding="UTF-8").numpy() == (
        text_utf8.numpy()
    )
    utf16 = ek.strings.unicode_transcode(
        text_utf8, input_encoding="UTF8", output_encoding="UTF-16-BE"
    )
    assert utf16.numpy() == b"\x8b\xed\x8a\x00Y\x04t\x06"
    batch_utf8 = [
        s.encode("UTF-8") for s in ["hÃllo", "What is the weather tomorrow", "Göödnight", "😊"]
    ]
    batch_chars_ragged = ek.strings.unicode_decode(batch_utf8, input_encoding="UTF-8")
    assert batch_chars_ragged.to_list()[0] == [104, 195, 108, 108, 111]
    assert batch_chars_ragged.to_list()[3] == [128522]
    batch_chars_padded = batch_chars_ragged.to_tensor(default_value=-1)
    assert batch_chars_padded.shape == (4, 28)
    assert batch_chars_padded.numpy()[3, :2].tolist() == [128522, -1]
    batch_chars_sparse = batch_chars_ragged.to_sparse()
    cat = ek.strings.unicode_encode([[99, 97, 116], [100, 111, 103], [99, 111, 119]], "UTF-8")
    assert cat.numpy().tolist() == [b"cat", b"dog", b"cow"]
    expected = [b"h\xc3\x83llo", b"What is the weather tomorrow", b"G\xc3\xb6\xc3\xb6dnight",
                b"\xf0\x9f\x98\x8a"]  # fmt: skip
    for chars in (
        batch_chars_ragged,
        ek.RaggedTensor.from_sparse(batch_chars_sparse),
        ek.RaggedTensor.from_tensor(batch_chars_padded, padding=-1),
    ):
        assert ek.strings.unicode_encode(chars, output_encoding="UTF-8").numpy().tolist() == (
            expected
        )
    thanks = "Thanks 😊".encode()
    num_bytes = ek.strings.length(thanks).numpy()
    num_chars = ek.strings.length(thanks, unit="UTF8_CHAR").numpy()
    assert f"{num_bytes} bytes; {num_chars} UTF-8 characters" == "11 bytes; 8 UTF-8 characters"
    assert ek.strings.substr(thanks, pos=7, len=1).numpy() == b"\xf0"
    assert ek.strings.substr(thanks, pos=7, len=1, unit="UTF8_CHAR").numpy() == (
        b"\xf0\x9f\x98\x8a"
    )
    assert ek.strings.unicode_split(thanks, "UTF-8").numpy().tolist()[-1] == b"\xf0\x9f\x98\x8a"
    codepoints, offsets = ek.strings.unicode_decode_with_offsets("🎈🎉🎊", "UTF-8")
    lines = [
        f"At byte offset {offset}: codepoint {codepoint}"
        for codepoint, offset in zip(codepoints.numpy(), offsets.numpy())
    ]
    assert lines == [
        "At byte offset 0: codepoint 127880",
        "At byte offset 4: codepoint 127881",
        "At byte offset 8: codepoint 127882",
    ]
