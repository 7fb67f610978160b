"""`ek.strings.unicode_script` (follows `tf.strings.unicode_script`), its ICU table
(`uscript_codes`) and the generator of that table (``tools/gen_uscript.py``).

Expected numbers are read from the generated table by ICU enumerator name, not typed in; the
only literal numbers are those TensorFlow's API page and "Unicode strings" tutorial print.
"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.core.profiling_tape import ProfilingTape
from eagerkernel.runtime.ops import uscript_codes
from eagerkernel.runtime.ops.strings_script import scripts_of

ICU = uscript_codes.NAMES
TOOL = Path(__file__).resolve().parent.parent / "tools" / "gen_uscript.py"


def script(values):
    return ek.strings.unicode_script(values).numpy().tolist()


# -- TensorFlow's examples ----------------------------------------------------------------------


def test_the_api_page_and_tutorial_example():
    # tf.strings.unicode_script([33464, 1041]) -> [17, 8]: '芸' Han, 'Б' Cyrillic.
    out = ek.strings.unicode_script([33464, 1041])
    assert out.dtype == ek.int32 and out.shape == (2,)
    assert out.numpy().tolist() == [17, 8] == [ICU["USCRIPT_HAN"], ICU["USCRIPT_CYRILLIC"]]


def test_on_the_code_points_unicode_decode_gives_as_in_the_tutorial():
    batch_utf8 = [
        s.encode("UTF-8") for s in ["hÃllo", "What is the weather tomorrow", "Göödnight", "😊"]
    ]
    batch_chars_ragged = ek.strings.unicode_decode(ek.constant(batch_utf8), "UTF-8")
    batch_scripts = ek.strings.unicode_script(batch_chars_ragged)
    assert isinstance(batch_scripts, ek.RaggedTensor)
    np.testing.assert_array_equal(
        batch_scripts.row_splits.numpy(), batch_chars_ragged.row_splits.numpy()
    )
    latin, common = ICU["USCRIPT_LATIN"], ICU["USCRIPT_COMMON"]
    rows = batch_scripts.to_list()
    assert rows[0] == [latin] * 5
    assert rows[1] == [latin if c != " " else common for c in "What is the weather tomorrow"]
    assert rows[2] == [latin] * 9
    assert rows[3] == [common]  # emoji are Common


# -- values -------------------------------------------------------------------------------------

SAMPLES = {
    "A": "USCRIPT_LATIN",
    "z": "USCRIPT_LATIN",
    "é": "USCRIPT_LATIN",
    "α": "USCRIPT_GREEK",
    "Ω": "USCRIPT_GREEK",
    "ع": "USCRIPT_ARABIC",
    "क": "USCRIPT_DEVANAGARI",
    "あ": "USCRIPT_HIRAGANA",
    "カ": "USCRIPT_KATAKANA",
    "한": "USCRIPT_HANGUL",
    "ก": "USCRIPT_THAI",
    "芸": "USCRIPT_HAN",
    "Б": "USCRIPT_CYRILLIC",
    "א": "USCRIPT_HEBREW",
    "ა": "USCRIPT_GEORGIAN",
}


@pytest.mark.parametrize(("char", "enumerator"), SAMPLES.items())
def test_scripts_of_letters(char, enumerator):
    assert script([ord(char)]) == [ICU[enumerator]]


def test_digits_punctuation_and_spaces_are_common():
    chars = "0123456789!?,. \t-+()[]@#"
    assert script([ord(c) for c in chars]) == [ICU["USCRIPT_COMMON"]] * len(chars)


def test_combining_marks_are_inherited():
    # U+0301 COMBINING ACUTE ACCENT, U+0300 grave, U+20D7 combining right arrow above
    assert script([0x301, 0x300, 0x20D7]) == [ICU["USCRIPT_INHERITED"]] * 3


def test_unassigned_private_use_and_surrogates_are_unknown():
    # U+0378 unassigned (Greek block), U+E000 private use, U+D800 a surrogate, U+10FFFF
    # a noncharacter: ICU's uscript_getScript gives USCRIPT_UNKNOWN (Zzzz) for them.
    assert script([0x378, 0xE000, 0xD800, 0x10FFFF]) == [ICU["USCRIPT_UNKNOWN"]] * 4


def test_out_of_range_values_are_invalid_code():
    invalid = ICU["USCRIPT_INVALID_CODE"]
    assert invalid == -1
    values = [-5, 0x110000, -(2**31), 2**31 - 1, -1, 0, 0x10FFFF]
    out = script(values)
    assert out[:5] == [invalid] * 5
    assert out[5:] == [ICU["USCRIPT_COMMON"], ICU["USCRIPT_UNKNOWN"]]


def test_every_script_in_the_table_maps_from_its_first_code_point():
    # fontTools' ranges: the first code point of each script's first range gives that script's
    # ICU number (scripts newer than the table's ICU give UNKNOWN, as in that ICU).
    from fontTools.unicodedata import Scripts

    first = {}
    for start, iso in zip(Scripts.RANGES, Scripts.VALUES):
        first.setdefault(iso, start)
    isos = sorted(first)
    out = script([first[i] for i in isos])
    expected = [uscript_codes.BY_ISO15924.get(i, ICU["USCRIPT_UNKNOWN"]) for i in isos]
    assert out == expected
    assert len(set(out)) > 150  # the scripts really are told apart


# -- shapes, dtypes, ragged ---------------------------------------------------------------------


def test_shapes_are_kept():
    x = ek.constant([[ord("a"), ord("Б"), 0x301], [-5, ord("芸"), ord(" ")]])
    out = ek.strings.unicode_script(x)
    assert out.shape == (2, 3) and out.dtype == ek.int32
    assert out.numpy().tolist() == [
        [ICU["USCRIPT_LATIN"], ICU["USCRIPT_CYRILLIC"], ICU["USCRIPT_INHERITED"]],
        [ICU["USCRIPT_INVALID_CODE"], ICU["USCRIPT_HAN"], ICU["USCRIPT_COMMON"]],
    ]
    scalar = ek.strings.unicode_script(ord("ก"))
    assert scalar.shape == () and scalar.dtype == ek.int32
    assert int(scalar.numpy()) == ICU["USCRIPT_THAI"]
    for shape in [(0,), (2, 0), (1, 2, 3)]:
        out = ek.strings.unicode_script(ek.constant(np.full(shape, 65, np.int32)))
        assert out.shape == shape and out.dtype == ek.int32


def test_ragged_in_ragged_out_with_the_same_partition():
    rt = ek.ragged.constant([[[65, 1041]], [], [[33464], [-1, 0x378, 32]]])
    out = ek.strings.unicode_script(rt)
    assert isinstance(out, ek.RaggedTensor) and out.dtype == ek.int32
    for a, b in zip(out.nested_row_splits, rt.nested_row_splits):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert out.to_list() == [
        [[ICU["USCRIPT_LATIN"], ICU["USCRIPT_CYRILLIC"]]],
        [],
        [[ICU["USCRIPT_HAN"]], [-1, ICU["USCRIPT_UNKNOWN"], ICU["USCRIPT_COMMON"]]],
    ]


def test_a_large_tensor_matches_per_element_lookups():
    rng = np.random.default_rng(0)
    x = rng.integers(-10, 0x3000, size=(200, 50)).astype(np.int32)
    out = ek.strings.unicode_script(ek.constant(x)).numpy()
    again = ek.strings.unicode_script(ek.constant(x)).numpy()  # from the cached table
    one_by_one = np.array([scripts_of(np.array([v]))[0] for v in x.reshape(-1)[:500]])
    np.testing.assert_array_equal(out, again)
    np.testing.assert_array_equal(out.reshape(-1)[:500], one_by_one)
    assert out.shape == x.shape and (out[x < 0] == -1).all()


@pytest.mark.parametrize(
    "bad",
    [ek.constant([65.0]), ek.constant(["A"]), ek.constant([65], dtype=ek.int64)],
    ids=["float32", "string", "int64"],
)
def test_a_tensor_of_another_dtype_is_refused(bad):
    with pytest.raises(ek.errors.InvalidArgumentError) as info:
        ek.strings.unicode_script(bad)
    assert isinstance(info.value, TypeError)
    assert "unicode_script: input" in str(info.value) and bad.dtype.name in str(info.value)


@pytest.mark.parametrize("bad", [[1.5], ["A"], "A", [b"A"]])
def test_values_that_are_not_int32_code_points_are_refused(bad):
    with pytest.raises(TypeError, match="unicode_script: input must be int32"):
        ek.strings.unicode_script(bad)


def test_a_ragged_tensor_of_floats_is_refused():
    with pytest.raises(TypeError, match="unicode_script: input"):
        ek.strings.unicode_script(ek.ragged.constant([[1.0], [2.0, 3.0]]))


def test_numpy_integer_arrays_convert_to_int32():
    assert script(np.array([ord("Б")], np.int64)) == [ICU["USCRIPT_CYRILLIC"]]


def test_goes_through_the_dispatcher_and_has_no_gradient():
    x = ek.Variable([65.0])
    with ProfilingTape() as tape:
        ek.strings.unicode_script([65])
    assert [r.prim.name for r in tape.records] == ["UnicodeScript"]
    with ek.GradientTape() as g:
        y = ek.cast(ek.strings.unicode_script(ek.cast(x, ek.int32)), ek.float32) * x
    assert y.numpy().tolist() == [ICU["USCRIPT_LATIN"] * 65.0]
    grad = g.gradient(y, x)
    assert grad.numpy().tolist() == [float(ICU["USCRIPT_LATIN"])]  # only through the product


# -- the table and its generator ----------------------------------------------------------------


def test_the_table_agrees_with_icu_names_and_aliases():
    assert uscript_codes.ICU_VERSION and uscript_codes.ICU_VERSION[0].isdigit()
    by_iso = uscript_codes.BY_ISO15924
    assert by_iso["Latn"] == ICU["USCRIPT_LATIN"] and by_iso["Hani"] == ICU["USCRIPT_HAN"]
    assert by_iso["Zyyy"] == ICU["USCRIPT_COMMON"] and by_iso["Zinh"] == ICU["USCRIPT_INHERITED"]
    assert by_iso["Zzzz"] == ICU["USCRIPT_UNKNOWN"]
    assert ICU["USCRIPT_UCAS"] == ICU["USCRIPT_CANADIAN_ABORIGINAL"]  # an alias
    assert "USCRIPT_CODE_LIMIT" not in ICU
    assert len(set(by_iso.values())) == len(by_iso)  # one code per value


SAMPLE_HEADER = """\
/* Copyright (C) ICU */
#include "unicode/utypes.h"
typedef enum UScriptCode {
    /*
     * It matches lines like
     *     USCRIPT_<Unicode Script value name> = <integer>,  / * <ISO script code> * /
     */
      /** @stable ICU 2.2 */
      USCRIPT_INVALID_CODE = -1,
      USCRIPT_COMMON       =  0,  /* Zyyy */
      USCRIPT_INHERITED    =  1,  /* Zinh */ /* "Code for inherited script"; also Qaai */
      /** Canadian_Aboriginal script. @stable ICU 2.6 */
      USCRIPT_CANADIAN_ABORIGINAL = 40,  /* Cans */
      USCRIPT_UCAS         = USCRIPT_CANADIAN_ABORIGINAL,
      USCRIPT_KATAKANA_OR_HIRAGANA = 54,/*Hrkt */
      USCRIPT_HAN_AGAIN    = 55, /* Cans */
#ifndef U_HIDE_DEPRECATED_API
    USCRIPT_CODE_LIMIT    = 56
#endif  // U_HIDE_DEPRECATED_API
} UScriptCode;

typedef enum UScriptUsage {
    USCRIPT_USAGE_NOT_ENCODED = 7, /* Xxxx */
} UScriptUsage;
"""

EXPECTED_OUTPUT = """\
# Generated by tools/gen_uscript.py from a sample header; do not edit.
\"\"\"ICU's script codes (enum ``UScriptCode`` in ``unicode/uscript.h``): the numbers
`ek.strings.unicode_script` returns, by enumerator name and by ISO 15924 code.\"\"\"

ICU_VERSION = "1.2"

# Every enumerator, aliases included, in header order.
NAMES = {
    "USCRIPT_INVALID_CODE": -1,
    "USCRIPT_COMMON": 0,
    "USCRIPT_INHERITED": 1,
    "USCRIPT_CANADIAN_ABORIGINAL": 40,
    "USCRIPT_UCAS": 40,  # alias of USCRIPT_CANADIAN_ABORIGINAL
    "USCRIPT_KATAKANA_OR_HIRAGANA": 54,
    "USCRIPT_HAN_AGAIN": 55,
}

# ISO 15924 code (as fontTools.unicodedata.script names scripts) -> value.
BY_ISO15924 = {
    "Zyyy": 0,
    "Zinh": 1,
    "Cans": 40,
    "Hrkt": 54,
}
"""


def test_the_generator_on_a_sample_header(tmp_path):
    header = tmp_path / "uscript.h"
    header.write_text(SAMPLE_HEADER, encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            str(TOOL),
            str(header),
            "--icu-version",
            "1.2",
            "--source",
            "a sample header",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout == EXPECTED_OUTPUT
    assert "Cans given twice; USCRIPT_HAN_AGAIN = 55 ignored" in run.stderr
    namespace: dict = {}
    exec(run.stdout, namespace)
    assert namespace["BY_ISO15924"]["Hrkt"] == namespace["NAMES"]["USCRIPT_KATAKANA_OR_HIRAGANA"]


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("int x;", "no `typedef enum UScriptCode"),
        ("typedef enum UScriptCode {\n USCRIPT_A = USCRIPT_B,\n} UScriptCode;", "unknown"),
        ("typedef enum UScriptCode {\n} UScriptCode;", "no enumerators"),
    ],
)
def test_the_generator_refuses_malformed_headers(tmp_path, header, message):
    path = tmp_path / "uscript.h"
    path.write_text(header, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(TOOL), str(path)], capture_output=True, text=True, check=False
    )
    assert run.returncode != 0 and message in run.stderr
