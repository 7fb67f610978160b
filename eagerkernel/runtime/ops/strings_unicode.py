"""The unicode string ops (follow `tf.strings.unicode_*`): decode to code points (with
offsets), encode, split into characters and transcode (the script of code points is in
``strings_script.py``)."""

from __future__ import annotations

import codecs

import numpy as np

from ..core.dispatch import dispatch
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, to_tensor
from ..ragged.ragged_tensor import RaggedTensor
from .strings import (
    OBJECT,
    map_strings,
    ragged_from_pieces,
    string_prim,
    string_tensor,
    unary_string_op,
)

__all__ = [
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_split",
    "unicode_split_with_offsets",
    "unicode_transcode",
]


# -- unicode ------------------------------------------------------------------------------------

_ENCODINGS = {
    "UTF-8": "utf-8",
    "UTF8": "utf-8",
    "UTF-16-BE": "utf-16-be",
    "UTF-32-BE": "utf-32-be",
}


def _codec(encoding: str, op: str, arg: str) -> str:
    """The Python codec of an encoding. Output encodings are TF's three; an input encoding
    may be any one Python knows (TF takes any of ICU's: "US ASCII", "ISO-8859-1", ...)."""
    codec = _ENCODINGS.get(str(encoding).upper())
    if codec is None and arg == "input_encoding":
        try:
            return codecs.lookup(str(encoding)).name
        except LookupError:
            raise InvalidArgumentError(
                None, op, f"Could not create converter for input encoding: {encoding}"
            ) from None
    if codec is None:
        raise ValueError(
            f"{op}: {arg} must be one of {sorted(_ENCODINGS)}. Received: {arg}={encoding!r}"
        )
    return codec


def _check_errors(errors: str, op: str) -> None:
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError(
            f"{op}: errors must be 'strict', 'replace' or 'ignore'. Received: errors={errors!r}"
        )


def _decode_one(v: bytes, codec, errors, replacement_char, op, control=False):
    """``(code points, byte offsets)`` of one string. An invalid sequence (Python's maximal
    subpart, as ICU's) is ``replacement_char`` at its first byte, or nothing for "ignore";
    with ``control``, code points below U+0020 count as invalid too (as TF's ICU callback)."""
    cps, offsets, pos = [], [], 0
    while True:
        try:
            good, bad = v[pos:].decode(codec), None
        except UnicodeDecodeError as e:
            if errors == "strict":
                raise InvalidArgumentError(
                    None, op, f"{op}: invalid {codec} data in string {v!r:.60}: {e.reason}"
                ) from None
            good, bad = v[pos : pos + e.start].decode(codec), (pos + e.start, pos + e.end)
        at = pos
        for c in good:  # each character's byte offset in the input encoding
            if control and ord(c) < 0x20:  # ICU's callback treats it as an invalid sequence
                bad = (at, at + len(c.encode(codec)))
                break
            cps.append(ord(c))
            offsets.append(at)
            at += len(c.encode(codec, errors="surrogatepass"))
        if bad is not None and errors == "strict" and op == "UnicodeTranscode":
            # TF's decode replaces a control character even with strict errors; transcode fails
            raise InvalidArgumentError(
                None, op, f"{op}: control character in string {v!r:.60} (strict errors)."
            )
        if bad is None:
            return cps, offsets
        if errors != "ignore":
            cps.append(replacement_char)
            offsets.append(bad[0])
        pos = bad[1]


def _unicode_decode_fwd(xp, x, codec, errors, replacement_char, as_chars, control=False):
    pieces, lengths, offsets = [], [], []
    for v in np.asarray(x).reshape(-1):
        cps, offs = _decode_one(v, codec, errors, replacement_char, "UnicodeDecode", control)
        if as_chars:
            pieces.extend(chr(c).encode("utf-8", errors="surrogatepass") for c in cps)
        else:
            pieces.extend(cps)
        lengths.append(len(cps))
        offsets.extend(offs)
    values = np.empty(len(pieces), dtype=OBJECT if as_chars else np.int32)
    values[:] = pieces
    return values, np.asarray(lengths, dtype=np.int64), np.asarray(offsets, dtype=np.int64)


_unicode_decode = string_prim("UnicodeDecodeWithOffsets", _unicode_decode_fwd, n_out=0)


def _check_replacement(replacement_char, op: str) -> int:
    rc = int(replacement_char)
    if not 0 <= rc <= 0x10FFFF:
        raise InvalidArgumentError(
            None, op, f"{op}: replacement_char out of unicode codepoint range, got {rc}."
        )
    return rc


def _decode(
    input, input_encoding, errors, replacement_char, as_chars, op, with_offsets=False, rcc=False
):
    _check_errors(errors, op)
    codec = _codec(input_encoding, op, "input_encoding")
    if isinstance(input, RaggedTensor):
        out = _decode(
            input.flat_values,
            input_encoding,
            errors,
            replacement_char,
            as_chars,
            op,
            with_offsets,
            rcc,
        )
        if with_offsets:
            return input.with_flat_values(out[0]), input.with_flat_values(out[1])
        return input.with_flat_values(out)
    x = string_tensor(input, op)
    params = {
        "codec": codec,
        "errors": errors,
        "replacement_char": _check_replacement(replacement_char, op),
        "as_chars": as_chars,
        "control": bool(rcc),
    }
    values, lengths, offsets = dispatch(_unicode_decode, (x,), params)
    if with_offsets:
        return (
            ragged_from_pieces(x, values, lengths),
            ragged_from_pieces(x, offsets, lengths),
        )
    return ragged_from_pieces(x, values, lengths)


def unicode_decode(
    input,
    input_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """The Unicode code points (int32) of each string (follows `tf.strings.unicode_decode`):
    a 1-D Tensor for a scalar, else a RaggedTensor.

    Args:
        input_encoding: "UTF-8", "UTF-16-BE", "UTF-32-BE" or another encoding Python's
            `codecs` knows ("US ASCII", "ISO-8859-1", ...; else InvalidArgumentError).
        errors: "replace" (invalid bytes become ``replacement_char``), "ignore" or "strict"
            (InvalidArgumentError).
        replacement_char: a code point in [0, 0x10FFFF] (else InvalidArgumentError).
        replace_control_characters: if True, code points below U+0020 become
            ``replacement_char`` too.

    >>> ek.strings.unicode_decode(ek.constant("アヒル 🦆"), "UTF-8").numpy()
    array([ 12450,  12498,  12523,     32, 129414], dtype=int32)
    """
    op, rcc = "unicode_decode", replace_control_characters
    return _decode(input, input_encoding, errors, replacement_char, False, op, rcc=rcc)


def unicode_decode_with_offsets(
    input,
    input_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """`unicode_decode`, plus each character's starting byte offset, int64 (follows
    `tf.strings.unicode_decode_with_offsets`).

    >>> cps, offsets = ek.strings.unicode_decode_with_offsets("🎈🎉🎊", "UTF-8")
    >>> offsets.numpy()
    array([0, 4, 8])
    """
    return _decode(
        input,
        input_encoding,
        errors,
        replacement_char,
        False,
        "unicode_decode_with_offsets",
        with_offsets=True,
        rcc=replace_control_characters,
    )


def _transcode_fwd(xp, x, codec_in, codec_out, errors, replacement_char, control=False):
    def one(v):
        cps, _ = _decode_one(v, codec_in, errors, replacement_char, "UnicodeTranscode", control)
        return "".join(map(chr, cps)).encode(codec_out, errors="surrogatepass")

    return map_strings(one, x, OBJECT)


_transcode = string_prim("UnicodeTranscode", _transcode_fwd)


def unicode_transcode(
    input,
    input_encoding,
    output_encoding,
    errors="replace",
    replacement_char=65533,
    replace_control_characters=False,
    name=None,
):
    """Re-encodes each string from ``input_encoding`` to ``output_encoding`` (follows
    `tf.strings.unicode_transcode`; encodings and ``errors`` as `unicode_decode`).

    >>> ek.strings.unicode_transcode(ek.constant("语"), "UTF-8", "UTF-16-BE").numpy()
    b'\x8b\xed'
    """
    _check_errors(errors, "unicode_transcode")
    params = {
        "codec_in": _codec(input_encoding, "unicode_transcode", "input_encoding"),
        "codec_out": _codec(output_encoding, "unicode_transcode", "output_encoding"),
        "errors": errors,
        "replacement_char": _check_replacement(replacement_char, "unicode_transcode"),
        "control": bool(replace_control_characters),
    }
    return unary_string_op(_transcode, input, params, "unicode_transcode")


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):
    """Splits each string into its characters, each UTF-8 encoded (follows
    `tf.strings.unicode_split`; arguments as `unicode_decode`)."""
    return _decode(input, input_encoding, errors, replacement_char, True, "unicode_split")


def unicode_split_with_offsets(
    input, input_encoding, errors="replace", replacement_char=65533, name=None
):
    """`unicode_split`, plus each character's starting byte offset in its string, int64
    (follows `tf.strings.unicode_split_with_offsets`): ``(chars, offsets)`` of one shape, a
    Tensor for a scalar input, else RaggedTensors of rank ``input.ndim + 1``.

    >>> chars, offsets = ek.strings.unicode_split_with_offsets(
    ...     [u"G\u00f6\u00f6dnight", u"\U0001f60a"], "UTF-8")
    >>> chars.to_list()
    [[b'G', b'\xc3\xb6', b'\xc3\xb6', b'd', b'n', b'i', b'g', b'h', b't'], [b'\xf0\x9f\x98\x8a']]
    >>> offsets.to_list()
    [[0, 1, 3, 5, 6, 7, 8, 9, 10], [0]]
    """
    op = "unicode_split_with_offsets"
    return _decode(input, input_encoding, errors, replacement_char, True, op, with_offsets=True)


def _unicode_encode_fwd(xp, values, splits, codec, errors, replacement_char):
    out = np.empty(len(splits) - 1, dtype=OBJECT)
    for i in range(len(splits) - 1):
        chars = []
        for c in values[splits[i] : splits[i + 1]].tolist():
            if not 0 <= c <= 0x10FFFF or 0xD800 <= c <= 0xDFFF:
                if errors == "strict":
                    raise InvalidArgumentError(
                        None, "UnicodeEncode", f"unicode_encode: invalid code point {c}."
                    )
                if errors == "ignore":
                    continue
                c = replacement_char
                if codec == "utf-8" and 0xD800 <= c <= 0xDFFF:
                    c = 0xFFFD  # as TF (ICU): a surrogate replacement is not valid UTF-8
            chars.append(chr(c))
        out[i] = "".join(chars).encode(codec, errors="surrogatepass")
    return out


_unicode_encode = string_prim("UnicodeEncode", _unicode_encode_fwd, n_inputs=2)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):
    """Encodes code points (an int32 Tensor or RaggedTensor; the innermost dimension is one
    string) as strings (follows `tf.strings.unicode_encode`).

    >>> ek.strings.unicode_encode(ek.constant([71, 246, 246]), "UTF-8").numpy()
    b'G\\xc3\\xb6\\xc3\\xb6'
    """
    _check_errors(errors, "unicode_encode")
    codec = _codec(output_encoding, "unicode_encode", "output_encoding")
    params = {"codec": codec, "errors": errors, "replacement_char": int(replacement_char)}
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(
                unicode_encode(input.values, output_encoding, errors, replacement_char)
            )
        return dispatch(_unicode_encode, (input.values, input.row_splits), params)
    x = input if isinstance(input, Tensor) else to_tensor(input, None, "unicode_encode")
    if x._value.dtype.kind not in "iu":
        raise TypeError(f"unicode_encode: input must be int32 code points, got {x.dtype.name}.")
    if x._value.ndim == 0:
        raise ValueError("unicode_encode: input must have rank >= 1.")
    from ..ops.array_ops import reshape

    shape = tuple(x._value.shape)
    n = shape[-1]
    rows = int(np.prod(shape[:-1], dtype=np.int64))
    flat = reshape(x, [-1])
    splits = to_tensor(np.arange(rows + 1, dtype=np.int64) * n, None, "unicode_encode")
    out = dispatch(_unicode_encode, (flat, splits), params)
    return reshape(out, list(shape[:-1]))
