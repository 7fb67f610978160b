"""`ek.strings.unicode_script`: the ICU script code of each Unicode code point (follows
`tf.strings.unicode_script`).

TensorFlow's kernel calls ICU's ``uscript_getScript``. Here the script of a code point (its
Unicode ``Script`` property, an ISO 15924 code such as ``"Latn"``) comes from
``fontTools.unicodedata.script``, and its number from ICU's enum ``UScriptCode``, generated
into `uscript_codes` from ICU's ``uscript.h`` by ``tools/gen_uscript.py``. The Unicode
version is therefore fontTools' (its ``Scripts.txt``), not that of the ICU TensorFlow was
built with: a code point assigned in a later Unicode version than that ICU knows is
USCRIPT_UNKNOWN in TensorFlow and has its script here.
"""

from __future__ import annotations

import functools

import numpy as np

from ..core.conversion import NUMPY_OPERANDS, cast_operand
from ..core.dispatch import dispatch
from ..core.errors import UnsupportedDTypeError
from ..core.tensor import Tensor, to_tensor
from ..ragged.ragged_tensor import RaggedTensor
from . import uscript_codes
from .strings import string_prim

__all__ = ["unicode_script"]

MAX_CODE_POINT = 0x10FFFF
INVALID_CODE = uscript_codes.NAMES["USCRIPT_INVALID_CODE"]
UNKNOWN = uscript_codes.NAMES["USCRIPT_UNKNOWN"]
_NOT_LOOKED_UP = INVALID_CODE - 1  # below every UScriptCode value


@functools.cache
def _table() -> np.ndarray:
    """Code point -> UScriptCode (int32), ``_NOT_LOOKED_UP`` until a code point is first seen.

    Filled lazily because a full table costs a fontTools call per code point (1.1 million);
    the values are facts of the Unicode data, so one table serves every thread and call (two
    threads filling the same entry write the same value).
    """
    return np.full(MAX_CODE_POINT + 1, _NOT_LOOKED_UP, dtype=np.int32)


def _look_up(code_points: np.ndarray) -> np.ndarray:
    """The UScriptCode of each of the distinct valid ``code_points`` (1-D), from fontTools.

    A script ICU's enum does not have (one newer than the ICU version of `uscript_codes`) is
    USCRIPT_UNKNOWN, as that ICU's ``uscript_getScript`` gives for code points it does not
    know; fontTools' Unknown ("Zzzz": unassigned, private-use, surrogates) is UNKNOWN too.
    """
    from fontTools.unicodedata import script

    codes = uscript_codes.BY_ISO15924
    return np.array([codes.get(script(chr(c)), UNKNOWN) for c in code_points.tolist()], np.int32)


def scripts_of(code_points: np.ndarray) -> np.ndarray:
    """The UScriptCode (int32) of each element of the integer array ``code_points``, same
    shape; INVALID_CODE (-1) outside [0, 0x10FFFF]. Each code point not seen before is looked
    up once (`np.unique` over the new ones), then read from the table."""
    cps = np.asarray(code_points)
    shape, cps = cps.shape, cps.reshape(-1)
    valid = (cps >= 0) & (cps <= MAX_CODE_POINT)
    index = np.where(valid, cps, 0)
    table = _table()
    out = table[index]
    new = valid & (out == _NOT_LOOKED_UP)
    if new.any():
        distinct, inverse = np.unique(index[new], return_inverse=True)
        found = _look_up(distinct)
        table[distinct] = found
        out[new] = found[inverse.reshape(-1)]
    out[~valid] = INVALID_CODE
    return out.reshape(shape)


def _unicode_script_fwd(xp, x):
    out = scripts_of(x if xp is np else xp.asnumpy(x))
    if out.ndim == 0:
        out = out[()]  # a rank-0 number is a NumPy scalar, as other ops make it
    return out if xp is np else xp.asarray(out)


_unicode_script = string_prim("UnicodeScript", _unicode_script_fwd)  # not differentiable


def unicode_script(input, name=None):
    """The ICU script code (``UScriptCode``) of each Unicode code point (follows
    `tf.strings.unicode_script`).

    Args:
        input: an int32 Tensor of code points, any shape, or a RaggedTensor of them; Python
            lists and NumPy integer arrays are converted to int32.

    Returns:
        An int32 Tensor of ``input``'s shape (a RaggedTensor with ``input``'s row partition
        for a RaggedTensor): ICU's numbers, e.g. 25 USCRIPT_LATIN, 17 USCRIPT_HAN, 8
        USCRIPT_CYRILLIC, 0 USCRIPT_COMMON (digits, punctuation, spaces), 1 USCRIPT_INHERITED
        (combining marks), 103 USCRIPT_UNKNOWN (unassigned code points), -1
        USCRIPT_INVALID_CODE for values outside [0, 0x10FFFF]. All the numbers are in
        `eagerkernel.runtime.ops.uscript_codes.NAMES`. Not differentiable.

    Raises:
        UnsupportedDTypeError: (an InvalidArgumentError and a TypeError) a Tensor whose dtype
            is not int32. TypeError: a value that does not convert to int32 (floats with a
            fractional part, strings).

    >>> ek.strings.unicode_script([33464, 1041]).numpy()  # '芸' is Han, 'Б' Cyrillic
    array([17,  8], dtype=int32)
    >>> cps = ek.strings.unicode_decode(ek.constant(["Ab!", "語"]), "UTF-8")
    >>> print(ek.strings.unicode_script(cps))
    <RaggedTensor [[25, 25, 0], [17]]>
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_script(input.flat_values))
    if isinstance(input, Tensor):
        x = input
    else:
        if type(input) in NUMPY_OPERANDS:  # an integer array: int32, as TensorFlow converts it
            input = cast_operand(input, np.dtype(np.int32))
        try:
            x = to_tensor(input, np.int32, "unicode_script")
        except (TypeError, ValueError):
            raise TypeError(
                "unicode_script: input must be int32 Unicode code points. "
                f"Received: input={input!r:.60}"
            ) from None
    if x._value.dtype != np.int32:
        raise UnsupportedDTypeError(
            None,
            "UnicodeScript",
            f"unicode_script: input must be an int32 tensor of Unicode code points, "
            f"got {x.dtype.name}.",
        )
    return dispatch(_unicode_script, (x,))
