"""`ek.strings`: ops on string tensors (follows `tf.strings`).

String tensors hold `bytes` in NumPy object arrays (`ek.string`). Every op here is a
`Primitive` run by the dispatcher, so tapes and profilers see it, and none has a gradient:
strings are not differentiable, and a tape never tracks a string tensor (TensorFlow's rule).
Ops that take one string tensor accept a `RaggedTensor` too and keep its row partition.

>>> ek.strings.length(ek.constant(["Gray wolf", "Lazy dog"])).numpy()
array([9, 8], dtype=int32)
>>> print(ek.strings.split(ek.constant(["Gray wolf", "Quick brown fox"])))
<RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', b'fox']]>
"""

from __future__ import annotations

import itertools
import re

import numpy as np

from ..core import dtypes
from ..core.dispatch import Primitive, defvjp, dispatch
from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.tensor import Tensor, to_tensor
from ..core.tensor_format import format_array
from ..ragged.ragged_tensor import RaggedTensor

__all__ = [
    "as_string",
    "bytes_split",
    "format",
    "join",
    "length",
    "lower",
    "ngrams",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "to_number",
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_script",
    "unicode_split",
    "unicode_split_with_offsets",
    "unicode_transcode",
    "unsorted_segment_join",
    "upper",
]

OBJECT = np.dtype(object)


def string_prim(name: str, fwd, n_inputs: int = 1, n_out: int = 1) -> Primitive:
    """A string primitive: no input has a gradient (TensorFlow: NotDifferentiable)."""
    prim = Primitive(name, fwd, n_out=n_out)
    defvjp(prim, *([None] * n_inputs))
    return prim


def map_strings(fn, arr: np.ndarray, dtype) -> np.ndarray:
    """``fn`` applied to each element of ``arr``; an array of ``dtype`` and the same shape."""
    arr = np.asarray(arr)
    out = np.empty(arr.shape, dtype=dtype)
    flat = out.reshape(-1)
    for i, v in enumerate(arr.reshape(-1)):
        flat[i] = fn(v)
    if out.ndim == 0 and out.dtype != OBJECT:
        return out[()]  # a rank-0 number is a NumPy scalar, as other ops make it
    return out


def string_tensor(x, op: str, arg: str = "input") -> Tensor:
    """``x`` as a string Tensor; TypeError naming ``op`` for any other dtype."""
    t = x if isinstance(x, Tensor) else to_tensor(x, None, op)
    if t._value.dtype != OBJECT:
        raise TypeError(f"{op}: {arg} must be a string tensor, got dtype {t.dtype.name}.")
    return t


def unary_string_op(prim: Primitive, x, params: dict, op: str):
    """Runs a one-input string op; on a RaggedTensor, on its flat values."""
    if isinstance(x, RaggedTensor):
        return x.with_flat_values(unary_string_op(prim, x.flat_values, params, op))
    return dispatch(prim, (string_tensor(x, op),), params)


def _check_unit(unit: str, op: str) -> None:
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise InvalidArgumentError(
            None, op, f"{op}: unit must be 'BYTE' or 'UTF8_CHAR'. Received: unit={unit!r}"
        )


# -- length -------------------------------------------------------------------------------------


def _length_fwd(xp, x, unit):
    if unit == "BYTE":
        return map_strings(len, x, np.int32)
    # TF counts the bytes that are not UTF-8 continuation bytes (10xxxxxx), valid or not.
    return map_strings(lambda v: sum((b & 0xC0) != 0x80 for b in v), x, np.int32)


_length = string_prim("StringLength", _length_fwd)


def length(input, unit="BYTE", name=None):
    """The length of each string, int32: in bytes (``unit="BYTE"``) or in Unicode code points
    (``"UTF8_CHAR"``) (follows `tf.strings.length`).

    >>> ek.strings.length(ek.constant("アヒル 🦆"), unit="UTF8_CHAR").numpy()
    np.int32(5)
    """
    _check_unit(unit, "length")
    return unary_string_op(_length, input, {"unit": unit}, "length")


# -- case, whitespace ---------------------------------------------------------------------------


def _case_fwd(fn):
    def fwd(xp, x, encoding):
        if encoding:
            # invalid UTF-8 becomes U+FFFD, as TF's ICU conversion
            return map_strings(
                lambda v: fn(v.decode(encoding, "replace")).encode(encoding), x, OBJECT
            )
        return map_strings(lambda v: getattr(v, fn.__name__)(), x, OBJECT)  # ASCII only, as TF

    return fwd


_lower = string_prim("StringLower", _case_fwd(str.lower))
_upper = string_prim("StringUpper", _case_fwd(str.upper))


def _encoding(encoding, op):
    if encoding not in ("", None, "utf-8"):  # exactly these, as TF's kernel
        raise InvalidArgumentError(
            None, op, f"{op}: encoding must be '' or 'utf-8'. Received: encoding={encoding!r}"
        )
    return encoding or ""


def lower(input, encoding="", name=None):
    """Lowercase: ASCII letters only, or every letter with ``encoding="utf-8"`` (follows
    `tf.strings.lower`)."""
    return unary_string_op(_lower, input, {"encoding": _encoding(encoding, "lower")}, "lower")


def upper(input, encoding="", name=None):
    """Uppercase: ASCII letters only, or every letter with ``encoding="utf-8"`` (follows
    `tf.strings.upper`).

    >>> ek.strings.upper(ek.constant("éa"), encoding="utf-8").numpy().decode()
    'ÉA'
    """
    return unary_string_op(_upper, input, {"encoding": _encoding(encoding, "upper")}, "upper")


_strip = string_prim("StringStrip", lambda xp, x: map_strings(bytes.strip, x, OBJECT))


def strip(input, name=None):
    """Removes leading and trailing whitespace (follows `tf.strings.strip`)."""
    return unary_string_op(_strip, input, {}, "strip")


# -- substr -------------------------------------------------------------------------------------


def _utf8_chars(v: bytes) -> list:
    """TF's UTF-8 characters of ``v``, valid or not: a byte and the continuation bytes
    (10xxxxxx) after it."""
    cuts = [0] + [i for i in range(1, len(v)) if (v[i] & 0xC0) != 0x80] + [len(v)]
    return [v[a:b] for a, b in itertools.pairwise(cuts) if b > a]


def _substr_fwd(xp, x, pos, length, unit):
    x, pos, length = np.broadcast_arrays(x, pos, length)
    out = np.empty(x.shape, dtype=OBJECT)
    flat = out.reshape(-1)
    for i, (v, p, n) in enumerate(zip(x.reshape(-1), pos.reshape(-1), length.reshape(-1))):
        s = v if unit == "BYTE" else _utf8_chars(v)
        p, n = int(p), int(n)
        if not -len(s) <= p <= len(s):
            raise InvalidArgumentError(
                None, "Substr", f"Substr: pos {p} out of range for string {v!r} at index {i}"
            )
        if p < 0:
            p += len(s)
        # a negative len, as TF: the rest of the string in bytes, nothing in characters
        piece = s[p : p + n] if n >= 0 else (s[p:] if unit == "BYTE" else [])
        flat[i] = piece if unit == "BYTE" else b"".join(piece)
    return out


_substr = string_prim("Substr", _substr_fwd, n_inputs=3)


def substr(input, pos, len, unit="BYTE", name=None):
    """``len`` bytes (or UTF-8 characters) from position ``pos`` of each string; a negative
    ``pos`` counts from the end (follows `tf.strings.substr`). ``pos`` and ``len`` broadcast
    against ``input``.

    Raises:
        InvalidArgumentError: ``pos`` outside ``[-length, length]`` of a string.

    >>> ek.strings.substr(ek.constant(["Gray wolf", "Lazy dog"]), 0, 4).numpy()
    array([b'Gray', b'Lazy'], dtype=object)
    """
    _check_unit(unit, "substr")
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(substr(input.flat_values, pos, len, unit))
    x = string_tensor(input, "substr")
    p = to_tensor(pos, np.dtype(np.int32), "substr")
    n = to_tensor(len, p._value.dtype, "substr")
    for t, arg in ((p, "pos"), (n, "len")):
        if t._value.dtype.kind not in "iu":
            raise TypeError(f"substr: {arg} must be an integer tensor, got {t.dtype.name}.")
    return dispatch(_substr, (x, p, n), {"unit": unit})


# -- hashing ------------------------------------------------------------------------------------


def _hash_fwd(xp, x, num_buckets):
    try:
        import farmhash
    except ImportError:  # pragma: no cover - the `text` extra is not installed
        raise ImportError(
            "to_hash_bucket_fast needs FarmHash's Fingerprint64, as TensorFlow uses: "
            "pip install 'eagerkernel[text]' (the pyfarmhash package)."
        ) from None
    return map_strings(lambda v: farmhash.fingerprint64(v) % num_buckets, x, np.int64)


_hash_fast = string_prim("StringToHashBucketFast", _hash_fwd)


def to_hash_bucket_fast(input, num_buckets, name=None):
    """Each string's bucket in ``[0, num_buckets)``: FarmHash's Fingerprint64 modulo
    ``num_buckets``, the same buckets as TensorFlow's (follows
    `tf.strings.to_hash_bucket_fast`). int64.

    Raises:
        ValueError: ``num_buckets`` < 1. ImportError: the pyfarmhash package is missing.

    >>> ek.strings.to_hash_bucket_fast(ek.constant(["Who", "Who+is"]), 1024).numpy()
    array([633, 196])
    """
    n = int(num_buckets)
    if n < 1:
        raise ValueError(f"to_hash_bucket_fast: num_buckets must be >= 1. Received: {n}")
    return unary_string_op(_hash_fast, input, {"num_buckets": n}, "to_hash_bucket_fast")


# -- numbers <-> strings ------------------------------------------------------------------------


def _parse_float(s: str) -> float:
    try:
        return float(s)
    except ValueError:  # strtod's hexadecimal floats ("0x1p3"), which TF accepts
        return float.fromhex(s)


def _to_number_fwd(xp, x, out_type):
    is_int = np.dtype(out_type).kind in "iu"
    info = np.iinfo(out_type) if is_int else None

    def one(v):
        try:
            s = v.decode("utf-8")
            if "_" in s:  # Python's digit grouping, not C's
                raise ValueError(s)
            n = int(s) if is_int else _parse_float(s)
            if is_int and not info.min <= n <= info.max:
                raise ValueError(s)
            return n
        except (ValueError, UnicodeDecodeError):
            raise InvalidArgumentError(
                None,
                "StringToNumber",
                "StringToNumberOp could not correctly convert string: "
                + v.decode("utf-8", "replace"),
            ) from None

    return map_strings(one, x, out_type)


_to_number = string_prim("StringToNumber", _to_number_fwd)


def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Parses each string as a number of ``out_type`` (float32, float64, int32 or int64)
    (follows `tf.strings.to_number`).

    Raises:
        InvalidArgumentError: a string that is not a number. TypeError: another ``out_type``.

    >>> ek.strings.to_number(ek.constant(["1", "10", "100"])).numpy()
    array([  1.,  10., 100.], dtype=float32)
    """
    dt = dtypes.as_dtype(out_type)
    if dt not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError(
            "to_number: out_type must be float32, float64, int32 or int64. "
            f"Received: out_type={dt!r}"
        )
    return unary_string_op(_to_number, string_tensor, {"out_type": dt.as_numpy_dtype}, "to_number")


def _as_string_fwd(xp, x, precision, scientific, shortest, width, fill):
    # TF's AsString kernel builds one printf format: "%" fill width .precision conversion,
    # where fill is a printf flag (" " pads a positive number with a space, "-" left-aligns).
    kind = x.dtype.kind
    spec = "%" + fill + (str(width) if width > -1 else "")
    if kind not in "iub" and precision > -1:
        spec += f".{precision}"
    spec += "d" if kind in "iu" else ("e" if scientific else ("g" if shortest else "f"))

    def one(v):
        if kind == "b":
            return b"true" if v else b"false"
        if kind == "c":
            return f"({spec % v.real},{spec % v.imag})".encode("ascii")
        return (spec % v).encode("ascii")

    return map_strings(one, x, OBJECT)


_as_string = string_prim("AsString", _as_string_fwd)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):
    """Formats each number as a string (follows `tf.strings.as_string`): floats as ``%f``
    (``precision`` digits, ``scientific`` ``%e``, ``shortest`` ``%g``), integers as ``%d``,
    bools as ``true``/``false``; ``width`` pads on the left with ``fill`` (spaces by default).

    Raises:
        InvalidArgumentError: ``fill`` other than "", " ", "+", "-", "0", "#" (a printf flag,
            as TF); ``scientific`` and ``shortest`` together; ``scientific``, ``shortest`` or
            ``precision`` for an integer or bool input. TypeError: a string input.

    >>> ek.strings.as_string(ek.constant([1.5, 2.0])).numpy()
    array([b'1.500000', b'2.000000'], dtype=object)
    """

    def invalid(msg):
        return InvalidArgumentError(None, "AsString", f"as_string: {msg}")

    if fill not in ("", " ", "+", "-", "0", "#"):
        raise invalid(f"fill must be '', ' ', '+', '-', '0' or '#'. Received: fill={fill!r}")
    if scientific and shortest:
        raise invalid("cannot select both scientific and shortest notation.")
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(
            as_string(input.flat_values, precision, scientific, shortest, width, fill)
        )
    x = input if isinstance(input, Tensor) else to_tensor(input, None, "as_string")
    if x._value.dtype == OBJECT:
        raise TypeError("as_string: input must be numeric or bool, got a string tensor.")
    if x._value.dtype.kind in "iub" and (scientific or shortest or int(precision) > -1):
        raise invalid(
            f"scientific, shortest and precision are not supported for {x.dtype.name}. "
            f"Received: scientific={scientific}, shortest={shortest}, precision={precision}"
        )
    params = {
        "precision": int(precision),
        "scientific": bool(scientific),
        "shortest": bool(shortest),
        "width": int(width),
        "fill": fill,
    }
    return dispatch(_as_string, (x,), params)


# -- regular expressions ------------------------------------------------------------------------


def _re2_dollar(pattern: str) -> str:
    """RE2's ``$`` (without the m flag) matches at the end of the text only, Python's also
    before a final newline: a ``$`` outside a character class becomes ``\\Z``."""
    if re.search(r"\(\?[a-zA-Z]*m", pattern):
        return pattern
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            c = pattern[i : i + 2]
        elif in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            j = i + 1 + (pattern[i + 1 : i + 2] == "^")
            if pattern[j : j + 1] == "]":  # a "]" first in a class is literal
                c = pattern[i : j + 1]
        elif c == "$":
            out.append("\\Z")
            i += 1
            continue
        out.append(c)
        i += len(c)
    return "".join(out)


def _regex(pattern, op: str) -> re.Pattern:
    # RE2 (TF's engine) matches UTF-8 text by code point, with ASCII-only \\w, \\d, \\s and \\b;
    # a str pattern with re.ASCII does the same (a bytes pattern would split "¿" into 2 bytes).
    if isinstance(pattern, Tensor):
        pattern = pattern.numpy()
    if isinstance(pattern, bytes):
        pattern = pattern.decode("utf-8", "surrogateescape")
    try:
        return re.compile(_re2_dollar(pattern), re.ASCII)
    except re.error as e:
        raise InvalidArgumentError(None, op, f"{op}: invalid pattern {pattern!r}: {e}") from None


def _rewrite(rewrite) -> tuple[str, bool, int]:
    if isinstance(rewrite, Tensor):
        rewrite = rewrite.numpy()
    if isinstance(rewrite, bytes):
        rewrite = rewrite.decode("utf-8", "surrogateescape")
    # RE2's rewrite syntax as a Python template: \0..\9 name groups, \\ is a backslash;
    # any other escape is invalid, and RE2 keeps the rewrite up to it.
    out, max_ref, valid, i = [], 0, True, 0
    while i < len(rewrite):
        c, n = rewrite[i], rewrite[i + 1 : i + 2]
        if c == "\\" and n in "0123456789" and n:
            max_ref = max(max_ref, int(n))
            c, i = f"\\g<{n}>", i + 1
        elif c == "\\" and n == "\\":
            c, i = "\\\\", i + 1
        elif c == "\\":
            valid = False
        if valid:
            out.append(c)
        i += 1
    return "".join(out), valid, max_ref


def _text(v) -> str:
    # Bytes that are not UTF-8 round-trip as lone surrogates (only `.` treats them unlike RE2).
    return v.decode("utf-8", "surrogateescape") if isinstance(v, bytes) else v


def _re2_sub(pattern: re.Pattern, rewrite: str, text: str, count: int) -> str:
    """``pattern.sub`` as RE2 replaces: no empty match right where a match ended."""
    last = -1

    def one(m):
        nonlocal last
        if m.start() == m.end() == last:
            return ""
        if m.end() > m.start():
            last = m.end()
        return m.expand(rewrite)

    return pattern.sub(one, text, count=count)


_regex_replace = string_prim(
    "StaticRegexReplace",
    lambda xp, x, pattern, rewrite, count: map_strings(
        lambda v: _re2_sub(pattern, rewrite, _text(v), count).encode("utf-8", "surrogateescape"),
        x,
        OBJECT,
    ),
)


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):
    """Replaces matches of the regular expression ``pattern`` by ``rewrite`` (``\\1`` names a
    group, ``\\0`` the whole match); only the first match unless ``replace_global`` (follows
    `tf.strings.regex_replace`; Python's `re` syntax, which agrees with RE2 on common
    patterns). As RE2 does, the text is matched by UTF-8 code point (``"[¿!]"`` strips
    "¿" whole) and ``\\w``, ``\\d``, ``\\s``, ``\\b`` are ASCII-only; bytes that are not
    UTF-8 pass through unchanged.

    >>> ek.strings.regex_replace(ek.constant("ab12"), r"(\\d)", r"<\\1>").numpy()
    b'ab<1><2>'
    """
    compiled = _regex(pattern, "regex_replace")
    template, valid, max_ref = _rewrite(rewrite)
    # As TF (RE2): a rewrite naming a group the pattern lacks leaves every string unchanged;
    # an invalid escape does too unless replace_global, which uses the rewrite up to it.
    unchanged = max_ref > compiled.groups or not (valid or replace_global)
    params = {
        "pattern": re.compile("(?!)") if unchanged else compiled,
        "rewrite": "" if unchanged else template,
        "count": 0 if replace_global else 1,
    }
    return unary_string_op(_regex_replace, input, params, "regex_replace")


_regex_full_match = string_prim(
    "StaticRegexFullMatch",
    lambda xp, x, pattern: map_strings(
        lambda v: pattern.fullmatch(_text(v)) is not None, x, np.bool_
    ),
)


def regex_full_match(input, pattern, name=None):
    """True where the whole string matches ``pattern`` (follows `tf.strings.regex_full_match`).

    >>> ek.strings.regex_full_match(ek.constant(["ab", "abc"]), "a.").numpy()
    array([ True, False])
    """
    return unary_string_op(
        _regex_full_match,
        input,
        {"pattern": _regex(pattern, "regex_full_match")},
        "regex_full_match",
    )


# -- join -----------------------------------------------------------------------------------------


def _join_fwd(xp, *xs, separator):
    arrays = np.broadcast_arrays(*xs)
    out = np.empty(arrays[0].shape, dtype=OBJECT)
    flat = out.reshape(-1)
    columns = [a.reshape(-1) for a in arrays]
    for i in range(flat.shape[0]):
        flat[i] = separator.join(c[i] for c in columns)
    return out


_join = string_prim("StringJoin", _join_fwd, n_inputs=0)  # variadic: no input has a gradient


def join(inputs, separator="", name=None):
    """Joins the strings of several tensors elementwise, with ``separator`` between them
    (follows `tf.strings.join`: the inputs have one shape, scalars aside; RaggedTensors must
    share their row partition).

    Raises:
        InvalidArgumentError: non-scalar inputs of different shapes. TypeError: a non-string
            input.

    >>> ek.strings.join([ek.constant(["a", "b"]), "!"], separator="-").numpy()
    array([b'a-!', b'b-!'], dtype=object)
    """
    if isinstance(inputs, (Tensor, str, bytes, dict, set, frozenset)):
        raise TypeError(
            f"join: inputs must be a list of string tensors. Received: {type(inputs).__name__}"
        )
    inputs = list(inputs)
    if any(isinstance(x, RaggedTensor) for x in inputs):
        from ..ragged.ragged_ops import map_flat_values

        return map_flat_values(lambda *flat: join(list(flat), separator), *inputs)
    xs = tuple(string_tensor(x, "join", f"inputs[{i}]") for i, x in enumerate(inputs))
    if not xs:
        raise ValueError("join: inputs must not be empty.")
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    if len({x._value.shape for x in xs if x._value.ndim}) > 1:  # TF broadcasts scalars only
        shapes = ", ".join(str(tuple(x._value.shape)) for x in xs)
        raise InvalidArgumentError(
            None, "StringJoin", f"join: input shapes do not match: {shapes}."
        )
    return dispatch(_join, xs, {"separator": sep})


def _reduce_join_fwd(xp, x, axis, keepdims, separator):
    x = np.asarray(x)
    axes = tuple(reversed(range(x.ndim))) if axis is None else axis  # None: row-major
    kept = [a for a in range(x.ndim) if a not in axes]
    # TF joins with the first listed axis varying fastest
    moved = np.transpose(x, kept + list(reversed(axes)))
    lead = moved.shape[: len(kept)]
    n = int(np.prod(lead, dtype=np.int64))
    rows = moved.reshape(n, int(np.prod(moved.shape[len(kept) :], dtype=np.int64)))
    out = np.empty(n, dtype=OBJECT)
    for i in range(n):
        out[i] = separator.join(rows[i].tolist())
    if keepdims:
        return out.reshape([1 if a in axes else d for a, d in enumerate(x.shape)])
    return out.reshape(lead)


_reduce_join = string_prim("ReduceJoin", _reduce_join_fwd)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Joins the strings along ``axis`` (an int, a list of them, the first varying fastest,
    or None for all) with ``separator`` (follows `tf.strings.reduce_join`).

    Raises:
        OutOfRangeError: an axis outside ``[-rank, rank)``. InvalidArgumentError: a repeated
            axis.

    >>> ek.strings.reduce_join(ek.constant([["a", "b"], ["c", "d"]]), axis=1,
    ...                        separator=",").numpy()
    array([b'a,b', b'c,d'], dtype=object)
    """
    x = string_tensor(inputs, "reduce_join", "inputs")
    if axis is not None:
        axes = [int(a) for a in (np.asarray(axis).reshape(-1).tolist())]
        for a in axes:
            if not -x.ndim <= a < x.ndim:
                raise OutOfRangeError(
                    None, "ReduceJoin", f"reduce_join: axis {a} is out of range for rank {x.ndim}."
                )
        axis = tuple(a % x.ndim for a in axes)
        if len(set(axis)) != len(axis):
            raise InvalidArgumentError(
                None, "ReduceJoin", f"reduce_join: duplicate reduction axis in {axes}."
            )
    sep = separator.encode("utf-8") if isinstance(separator, str) else bytes(separator)
    params = {"axis": axis, "keepdims": bool(keepdims), "separator": sep}
    return dispatch(_reduce_join, (x,), params)


# -- split --------------------------------------------------------------------------------------


def _split_whitespace(v: bytes, maxsplit: int) -> list:
    """TF's whitespace split: once ``maxsplit`` tokens are out, the rest after the whitespace
    that follows the last one is one more piece, empty at the end of the string."""
    if maxsplit < 0:
        return v.split()
    if maxsplit == 0:
        return [v]
    out, pos = [], len(v) - len(v.lstrip())
    while pos < len(v):
        end = pos + len(v[pos:].split(None, 1)[0])
        out.append(v[pos:end])
        pos = len(v) - len(v[end:].lstrip())
        if len(out) == maxsplit:
            out.append(v[pos:])
            break
    return out


def _split_fwd(xp, x, sep, maxsplit):
    pieces, lengths = [], []
    for v in np.asarray(x).reshape(-1):
        parts = v.split(sep, maxsplit) if sep else _split_whitespace(v, maxsplit)
        pieces.extend(parts)
        lengths.append(len(parts))
    values = np.empty(len(pieces), dtype=OBJECT)
    values[:] = pieces
    return values, np.asarray(lengths, dtype=np.int64)


_split = string_prim("StringSplitV2", _split_fwd, n_out=0)


def ragged_from_pieces(x: Tensor, values: Tensor, lengths: Tensor):
    """The pieces of each element of ``x`` (``lengths[i]`` of ``values`` each): a Tensor for a
    scalar ``x``, else a RaggedTensor with one more dimension than ``x`` (its dimensions are
    stored as ragged ones)."""
    if x._value.ndim == 0:
        return values
    result = RaggedTensor.from_row_lengths(values, lengths, validate=False)
    shape = x._value.shape
    for i in range(len(shape) - 1, 0, -1):  # row counts from the shape: a 0-size dim is fine
        n = int(np.prod(shape[:i], dtype=np.int64))
        lengths = np.full(n, shape[i], np.int64)
        result = RaggedTensor.from_row_lengths(result, lengths, validate=False)
    return result


def split(input, sep=None, maxsplit=-1, name=None):
    """Splits each string at ``sep`` (at runs of whitespace when None or empty), at most
    ``maxsplit`` times (follows `tf.strings.split`): a 1-D Tensor for a scalar, else a
    RaggedTensor with one more dimension.

    >>> print(ek.strings.split(ek.constant("Gray wolf"), sep=" "))
    Tensor([b'Gray' b'wolf'], shape=(2,), dtype=string)
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(split(input.flat_values, sep, maxsplit))
    x = string_tensor(input, "split")
    if isinstance(sep, Tensor):
        sep = sep.numpy()
    sep = sep.encode("utf-8") if isinstance(sep, str) else sep
    values, lengths = dispatch(_split, (x,), {"sep": sep or None, "maxsplit": int(maxsplit)})
    return ragged_from_pieces(x, values, lengths)


def _bytes_split_fwd(xp, x):
    pieces, lengths = [], []
    for v in np.asarray(x).reshape(-1):
        pieces.extend(v[i : i + 1] for i in range(len(v)))
        lengths.append(len(v))
    values = np.empty(len(pieces), dtype=OBJECT)
    values[:] = pieces
    return values, np.asarray(lengths, dtype=np.int64)


_bytes_split = string_prim("StringBytesSplit", _bytes_split_fwd, n_out=0)


def bytes_split(input, name=None):
    """Splits each string into its bytes (follows `tf.strings.bytes_split`).

    >>> ek.strings.bytes_split(ek.constant("Duck")).numpy()
    array([b'D', b'u', b'c', b'k'], dtype=object)
    """
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(bytes_split(input.flat_values))
    x = string_tensor(input, "bytes_split")
    values, lengths = dispatch(_bytes_split, (x,), {})
    return ragged_from_pieces(x, values, lengths)


# -- format -------------------------------------------------------------------------------------


def _format_fwd(xp, *xs, template, placeholder, summarize):
    pieces = template.split(placeholder)
    out = pieces[0]
    for x, piece in zip(xs, pieces[1:]):
        out += format_array(x, summarize) + piece
    return np.asarray(out.encode("utf-8"), dtype=OBJECT)


_format = string_prim("StringFormat", _format_fwd, n_inputs=0)


def format(template, inputs, placeholder="{}", summarize=3, name=None):
    """A scalar string: ``template`` with each ``placeholder`` replaced by one of ``inputs``
    printed as TensorFlow prints tensors (strings quoted; at most ``summarize`` elements from
    each end of every dimension, -1 for all) (follows `tf.strings.format`).

    Raises:
        TypeError: ``template`` or ``placeholder`` is not a Python string.
        ValueError: the number of placeholders differs from the number of inputs.

    >>> ek.strings.format("x={} y={}", (ek.constant([1, 2]), 3.5)).numpy()
    b'x=[1 2] y=3.5'
    """
    for arg, value in (("template", template), ("placeholder", placeholder)):
        if not isinstance(value, str):
            raise TypeError(
                f"format: {arg} must be a Python string. Received: {arg}={value!r} "
                f"of type {type(value).__name__}."
            )
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    xs = tuple(x if isinstance(x, Tensor) else to_tensor(x, None, "format") for x in inputs)
    if template.count(placeholder) != len(xs):
        raise ValueError(
            f"format: {template.count(placeholder)} placeholders in the template for "
            f"{len(xs)} inputs. Received: template={template!r}"
        )
    params = {"template": template, "placeholder": placeholder, "summarize": int(summarize)}
    if not xs:
        return to_tensor(template.encode("utf-8"), None, "format")
    return dispatch(_format, xs, params)


from .strings_hash import to_hash_bucket, to_hash_bucket_strong  # noqa: E402
from .strings_ngrams import ngrams, unsorted_segment_join  # noqa: E402
from .strings_script import unicode_script  # noqa: E402
from .strings_unicode import (  # noqa: E402
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_split,
    unicode_split_with_offsets,
    unicode_transcode,
)
