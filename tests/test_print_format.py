"""`ek.print` and `ek.strings.format` show tensors in TensorFlow's format: the expected texts
are what TensorFlow 2.21's ``tf.print`` and ``tf.strings.format`` wrote for the same calls."""

from __future__ import annotations

import io
import logging

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.tensor_format import format_array


def printed(*inputs, **kwargs) -> str:
    out = io.StringIO()
    ek.print(*inputs, output_stream=out, **kwargs)
    return out.getvalue()


@pytest.mark.parametrize(
    "value, dtype, want",
    [
        ([2.0, 4.0], None, "[2 4]"),
        (2.5, None, "2.5"),
        ([0.1, 1 / 3, 1e-8, 123456789.0], None, "[0.1 0.333333343 1e-08 123456792]"),
        ([[1.0, 2.0], [3.0, 4.0]], None, "[[1 2]\n [3 4]]"),
        (np.arange(8.0).reshape(2, 2, 2), None, "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"),
        ([True, False], None, "[1 0]"),
        (["a", "b"], None, '["a" "b"]'),
        (3, ek.int64, "3"),
        ([np.inf, -np.inf, np.nan, -0.0], None, "[inf -inf nan -0]"),
        ([-np.nan, np.nan], None, "[-nan nan]"),
        ([1.5, 2.25], ek.float64, "[1.5 2.25]"),
        (1 / 3, ek.float64, "0.33333333333333331"),
        ([1e-5, 1e5, 1e6, 1e16, 123456.7], ek.float64, "[1e-05 100000 1000000 1e+16 123456.7]"),
        ([1e-5, 1e5, 1e6, 1e16, 123456.7], None, "[1e-05 100000 1e+06 1e+16 123456.703]"),
        ([1e20, 1e-20, 12345678.0], None, "[1e+20 1e-20 12345678]"),
        (3.4028235e38, None, "3.40282347e+38"),
        ([1.5, 2], ek.float16, "[1.5 2]"),
        ([1, 2], ek.uint8, "[1 2]"),
        (-7, ek.int8, "-7"),
        (["it's", "a\\b\tc\x7f", "é"], None, '["it\\\'s" "a\\\\b\\tc\\177" "é"]'),
        ([b"\x01z"], None, '["\\001z"]'),
        (np.zeros((0,)), None, "[]"),
        (np.zeros((2, 0)), None, "[\n ...]"),
    ],
)
def test_tensors_print_as_tensorflow_prints_them(value, dtype, want):
    assert printed(ek.constant(value, dtype)) == want + "\n"


def test_long_dimensions_are_summarized_at_both_ends():
    assert printed(ek.range(20)) == "[0 1 2 ... 17 18 19]\n"
    grid = printed(ek.constant(np.arange(100).reshape(10, 10)))
    assert grid == (
        "[[0 1 2 ... 7 8 9]\n [10 11 12 ... 17 18 19]\n [20 21 22 ... 27 28 29]\n ...\n"
        " [70 71 72 ... 77 78 79]\n [80 81 82 ... 87 88 89]\n [90 91 92 ... 97 98 99]]\n"
    )
    assert printed(ek.range(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]\n"
    assert printed(ek.range(10), summarize=2) == "[0 1 ... 8 9]\n"
    assert printed(ek.range(10), summarize=None) == "[0 1 2 ... 7 8 9]\n"
    assert printed(ek.range(5), summarize=0) == "[ ...]\n"
    cube = printed(ek.constant(np.arange(24).reshape(2, 3, 4)), summarize=1)
    assert cube == ("[[[0 ... 3]\n  ...\n  [8 ... 11]]\n\n [[12 ... 15]\n  ...\n  [20 ... 23]]]\n")


def test_structures_and_python_values_print_as_tensorflow_prints_them():
    assert printed("tensors:", ek.range(10), {2: ek.range(10) * 2}) == (
        "tensors: [0 1 2 ... 7 8 9] {2: [0 2 4 ... 14 16 18]}\n"
    )
    assert printed([ek.constant(1), "s", 3.5, (ek.constant([1.0, 2.0]),)]) == (
        "[1, 's', 3.5, ([1 2],)]\n"
    )
    assert printed({"b": ek.constant([1, 2]), "a": "s"}) == "{'a': 's', 'b': [1 2]}\n"
    assert printed([ek.constant("a")], {"k": ek.constant(1.5)}) == "[\"a\"] {'k': 1.5}\n"
    assert printed(ek.constant("hello")) == "hello\n"  # a scalar string: raw
    assert printed(ek.Variable([1.0, 2.0])) == "[1 2]\n"
    assert printed(ek.constant([[1, 2]]), 1.0, None, True) == "[[1 2]] 1.0 None True\n"
    assert printed(ek.range(2), ek.range(2) * 2, sep=",", end="!\n") == "[0 1],[0 2]!\n"


def test_strings_format_uses_the_same_text_with_quoted_scalar_strings():
    f = ek.strings.format
    assert f("x={}", ek.constant("ab")).numpy() == b'x="ab"'
    assert f("x={} y={}", (ek.constant([1.0, 2.5]), 3.5)).numpy() == b"x=[1 2.5] y=3.5"
    assert f("{}", ek.constant(1 / 3)).numpy() == b"0.333333343"
    assert f("{}", ek.constant(np.arange(20)), summarize=2).numpy() == b"[0 1 ... 18 19]"
    cube = f("{}", ek.constant(np.arange(8.0).reshape(2, 2, 2))).numpy()
    assert cube == b"[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"
    assert f("{}", ek.constant(["a'b", "c"])).numpy() == b'["a\\\'b" "c"]'


def test_print_inside_a_function_prints_on_every_call():
    out = io.StringIO()

    @ek.function
    def f(x):
        ek.print("x =", x, output_stream=out)
        return x + 1

    f(ek.constant([1.0, 2.0]))
    f(ek.constant([3.0, 4.5]))
    assert out.getvalue() == "x = [1 2]\nx = [3 4.5]\n"


def test_output_streams_logging_functions_and_files(tmp_path, caplog):
    with caplog.at_level(logging.INFO, logger="ek-print-test"):
        ek.print("v:", ek.constant([1, 2]), output_stream=logging.getLogger("ek-print-test").info)
    assert [r.getMessage() for r in caplog.records] == ["v: [1 2]"]
    path = tmp_path / "out.txt"
    ek.print("a", ek.constant(1.5), output_stream=f"file://{path}")
    ek.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a 1.5\nb\n"


def test_bad_arguments_raise_naming_them():
    with pytest.raises(TypeError, match="summarize must be an int or None, got '3'"):
        ek.print(ek.constant(1), summarize="3")
    with pytest.raises(TypeError, match="sep must be a string, got int"):
        ek.print(1, 2, sep=0)
    with pytest.raises(TypeError, match="output_stream must be a file-like object"):
        ek.print(1, output_stream=42)


def test_format_array_follows_the_float_round_trip_rule():
    # 6 significant digits where they read back as the same float32, else 9
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(2000) * 10.0 ** rng.integers(-30, 30, 2000)).astype(np.float32)
    for v in values:
        text = format_array(np.array(v), 3)
        assert np.float32(text) == v
        six = f"{float(v):.6g}"
        assert text == (six if np.float32(six) == v else f"{float(v):.9g}")


def test_format_of_tensors_and_variables_follows_tensorflow():
    # What TensorFlow 2.21 (NumPy 2.4) wrote for the same calls: str.format goes through the
    # NumPy scalar, and a Variable without a spec formats as its repr.
    assert "{}".format(ek.constant(-538.0582)) == "-538.0582275390625"  # noqa: UP032
    assert f"{ek.constant(0.1)}" == "0.10000000149011612"
    assert f"{ek.constant(2.5, ek.float16)}" == "2.5"
    assert f"{ek.constant(3):>8}" == "       3"
    assert f"{ek.constant(True)}" == "True"
    assert f"{ek.constant('ab')}" == "b'ab'"
    assert f"{ek.constant(0.1):.3f}" == "0.100"
    assert f"{ek.constant([0.1, 0.2])}" == "[0.1 0.2]"
    v = ek.Variable(0.5, name="v")
    assert f"{v}" == repr(v) and f"{v}".startswith("<Variable 'v:0' shape=() dtype=float32")
    assert f"{v:.2f}" == "0.50"  # TensorFlow raises TypeError here; the value is formatted
