"""Linear algebra: matmul, tensordot, einsum, norms and norm clipping, trace.

The VJPs of the contractions are contractions again, written as `einsum` calls with a
rewritten equation, so derivatives of any order come for free.

Shapes that do not fit (inner dimensions, einsum sizes, contracted axes) raise TensorFlow's
`~ek.errors.InvalidArgumentError` naming the op and every shape; malformed arguments that
TensorFlow checks in Python (an einsum equation, tensordot's ``axes``, a norm's ``ord``) raise
ValueError.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from ..core.conversion import NUMPY_OPERANDS, cast_operand
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.numpy_methods import STATE as _NUMPY_STATE
from ..core.tensor import Tensor, make
from ..core.type_promotion import keep_weak, promote_pair
from ..extension_dispatch import dispatchable
from ..native import blas
from ._core import apply, dtype_error, tensor
from .complex_ops import conj_if_complex as _conj

_tensor = tensor  # `norm` has an argument named `tensor` (TensorFlow's name)

__all__ = [
    "clip_by_global_norm",
    "clip_by_norm",
    "einsum",
    "global_norm",
    "matmul",
    "matrix_transpose",
    "norm",
    "tensordot",
    "trace",
]

# The names TensorFlow also exposes under `tf.linalg` (for an `ek.linalg` namespace).
LINALG_NAMES = (
    "einsum",
    "global_norm",
    "matmul",
    "matrix_transpose",
    "norm",
    "solve",
    "tensordot",
    "trace",
)


def _matmul_fwd(xp, a, b, transpose_a, transpose_b):
    if transpose_a:
        a = xp.swapaxes(a, -1, -2)
    if transpose_b:
        b = xp.swapaxes(b, -1, -2)
    if xp is np:
        return blas.matmul(a, b)  # one BLAS thread for small products
    return xp.matmul(a, b)


_matmul = Primitive("MatMul", _matmul_fwd)


def matmul_op(a: Tensor, b: Tensor, transpose_a: bool = False, transpose_b: bool = False):
    """The MatMul op itself on operands the caller has already checked (a VJP's, or a Dense
    layer's after its own shape and dtype checks): `matmul` without its conversion and checks.

    Args:
        a, b: Tensors or Variables of one dtype, rank >= 2, shapes ``[..., m, k]`` and
            ``[..., k, n]`` (each transposed on its last two axes when asked).
        transpose_a, transpose_b: bools, as for `matmul`.

    Returns:
        ``[..., m, n]`` of the operands' dtype, recorded as TensorFlow's ``MatMul``.

    Raises:
        Nothing of its own: operands that do not fit give NumPy's ValueError (the public
        `matmul` names both shapes instead).
    """
    return apply(_matmul, (a, b), {"transpose_a": transpose_a, "transpose_b": transpose_b})


_product = matmul_op  # the VJPs' name for it


defvjp(
    _matmul,
    # A complex operand enters conjugated (TensorFlow's MatMulGrad uses adjoints).
    lambda g, ans, a, b, transpose_a, transpose_b: (
        _product(_conj(b), g, transpose_b, True)
        if transpose_a
        else _product(g, _conj(b), False, not transpose_b)
    ),
    lambda g, ans, a, b, transpose_a, transpose_b: (
        _product(g, _conj(a), True, transpose_a)
        if transpose_b
        else _product(_conj(a), g, not transpose_a, False)
    ),
)


@dispatchable
def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
) -> Tensor:
    """Matrix product of the last two axes, batched over leading axes (follows `tf.linalg.matmul`).

    Args:
        a: shape ``[..., m, k]`` (``[..., k, m]`` with ``transpose_a`` or ``adjoint_a``).
        b: shape ``[..., k, n]`` (``[..., n, k]`` with ``transpose_b`` or ``adjoint_b``); same
            dtype as ``a``.
        adjoint_a, adjoint_b: conjugate and transpose (a transpose for real tensors).
        a_is_sparse, b_is_sparse, grad_a, grad_b: TensorFlow's hints for choosing a kernel;
            the product is the same dense one either way.
        output_type: the result's dtype: None (``a``'s), ``a``'s own, or int32 for int8 and
            uint8 inputs (the products summed in int32, as TensorFlow's int8 kernel does).

    Returns:
        Shape ``[..., m, n]``; leading axes broadcast.

    Raises:
        InvalidArgumentError: rank below 2, inner dimensions that differ or batch dimensions
            that do not broadcast (both shapes are named).
        TypeError: different dtypes (under the new type promotion: dtypes that "safe" mode
            does not promote), or an ``output_type`` the inputs cannot give.
        ValueError: both ``transpose_a`` and ``adjoint_a`` (or both for ``b``).

    >>> ek.matmul(ek.ones((2, 3)), ek.ones((3, 4))).shape
    TensorShape([2, 4])
    """
    weak = False
    if _NUMPY_STATE.promotion is not None:  # the new type promotion: the lattice's dtype
        a, b, weak = promote_pair("matmul", a, b)
    a = tensor(a, "matmul")
    if type(b) in NUMPY_OPERANDS:  # cast to a's dtype, as TensorFlow converts b
        b = cast_operand(b, a._value.dtype)
    b = tensor(b, "matmul", a._value.dtype)
    if a._value.dtype != b._value.dtype:
        raise dtype_error("matmul", (a, b), ("a", "b"))
    if adjoint_a or adjoint_b:
        if (transpose_a and adjoint_a) or (transpose_b and adjoint_b):
            raise ValueError(
                "matmul: only one of transpose_a and adjoint_a (and of transpose_b and "
                "adjoint_b) can be True."
            )
        if adjoint_a:
            a, transpose_a = _conj(a), True
        if adjoint_b:
            b, transpose_b = _conj(b), True
    if output_type is not None:
        from ..core import dtypes

        out = dtypes.as_dtype(output_type)
        if out.as_numpy_dtype != a._value.dtype:
            if a._value.dtype.kind in "iu" and a._value.dtype.itemsize == 1 and out.name == "int32":
                from .elementwise import cast

                a, b = cast(a, out), cast(b, out)
            else:
                raise TypeError(
                    f"matmul: output_type {out.name} is not available for {a.dtype.name} "
                    "inputs (only int32 for int8 or uint8 inputs, or the inputs' own dtype)."
                )
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    if len(sa) < 2 or len(sb) < 2:
        raise InvalidArgumentError(
            None, "MatMul", f"matmul: inputs must have rank >= 2, got shapes a: {sa} and b: {sb}."
        )
    ka = sa[-2] if transpose_a else sa[-1]
    kb = sb[-1] if transpose_b else sb[-2]
    if ka != kb:
        raise InvalidArgumentError(
            None,
            "MatMul",
            f"matmul: inner dimensions differ: a has shape {sa}"
            f"{' (transposed)' if transpose_a else ''} and b has shape {sb}"
            f"{' (transposed)' if transpose_b else ''} ({ka} != {kb}).",
        )
    if (len(sa) > 2 or len(sb) > 2) and sa[:-2] != sb[:-2]:
        try:
            np.broadcast_shapes(sa[:-2], sb[:-2])
        except ValueError:
            raise InvalidArgumentError(
                None,
                "MatMul",
                f"matmul: batch dimensions {sa[:-2]} and {sb[:-2]} do not broadcast (a has "
                f"shape {sa}, b has shape {sb}).",
            ) from None
    out = apply(
        _matmul, (a, b), {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    )
    return keep_weak(out, True) if weak else out


# -- einsum -------------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Above this many multiply-adds, NumPy's contraction-path search (~15 µs) pays for itself by
# handing the work to BLAS; below it the plain C loop is faster.
_OPTIMIZE_FLOPS = 1 << 15


@functools.lru_cache(maxsize=512)
def _parse_einsum(equation: str, n: int) -> tuple[tuple[str, ...], str]:
    """``"ij,jk->ik"`` -> ``(("ij", "jk"), "ik")``, with NumPy's implicit output if no ``->``."""
    eq = equation.replace(" ", "")
    if "." in eq:
        raise ValueError(f"einsum: misplaced '.' (an ellipsis is '...') in {equation!r}.")
    if eq.count("->") > 1:
        raise ValueError(f"einsum: more than one '->' in {equation!r}.")
    if "->" in eq:
        lhs, out = eq.split("->")
    else:
        lhs = eq
        out = "".join(sorted(c for c in set(lhs) if c != "," and lhs.count(c) == 1))
    ins = tuple(lhs.split(","))
    if len(ins) != n:
        raise ValueError(
            f"einsum: equation {equation!r} has {len(ins)} operand(s) but {n} were given."
        )
    bad = [c for c in lhs + out if c != "," and c not in _LETTERS]
    if bad:
        raise ValueError(f"einsum: subscripts must be letters, got {bad[0]!r} in {equation!r}.")
    if len(set(out)) != len(out):
        raise ValueError(f"einsum: output subscripts repeat a letter in {equation!r}.")
    missing = set(out) - set(lhs)
    if missing:
        raise ValueError(
            f"einsum: output subscript(s) {''.join(sorted(missing))!r} appear in no input of "
            f"{equation!r}."
        )
    return ins, out


def _expand_ellipsis(equation: str, ranks: list[int]) -> tuple[str, str]:
    """Spells out each ``...`` as letters for the operand's leading axes (aligned from the
    right, as NumPy and TensorFlow broadcast them); the implicit output puts them first.
    Returns the equation and the letters that stand for the ellipsis."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(ranks) or "->" in out:
        return eq, ""  # `_parse_einsum` names the problem
    for sub in (*ins, out):
        if sub.replace("...", "", 1).count(".") or (sub.count(".") and "..." not in sub):
            raise ValueError(
                f"einsum: each subscript may hold one ellipsis ('...') and no other '.', got "
                f"{equation!r}."
            )
    extra = [r - (len(sub) - 3) for sub, r in zip(ins, ranks) if "..." in sub]
    n = max([0, *extra])
    fresh = [c for c in _LETTERS if c not in eq]
    if n > len(fresh):
        raise ValueError(f"einsum: too many axes under the ellipsis in {equation!r}.")
    ell = "".join(fresh[:n])
    ins = [sub.replace("...", ell[n - max(r - (len(sub) - 3), 0) :]) for sub, r in zip(ins, ranks)]
    if not arrow:
        plain = lhs.replace("...", "").replace(",", "")
        out = ell + "".join(sorted(c for c in set(plain) if plain.count(c) == 1))
    elif "..." in out:
        out = out.replace("...", ell)
    elif n:
        raise ValueError(
            f"einsum: the output of {equation!r} has no '...' for the {n} axes under the "
            "inputs' ellipsis."
        )
    return ",".join(ins) + "->" + out, ell


def _broadcast_ellipsis(xs: list, ins: tuple, ell: str) -> list:
    """Broadcasts the length-1 axes under an ellipsis to the other operands' length, as
    TensorFlow does (a differentiable `broadcast_to`: the tape sums the cotangent back)."""
    from .array_ops import broadcast_to

    target: dict[str, int] = {}
    for x, sub in zip(xs, ins):
        for c, n in zip(sub, x._value.shape):
            if c in ell and n != 1:
                target.setdefault(c, n)  # lengths that differ are named by the size check
    out = []
    for x, sub in zip(xs, ins):
        old = tuple(x._value.shape)
        new = tuple(target.get(c, n) if c in ell and n == 1 else n for c, n in zip(sub, old))
        out.append(x if new == old else broadcast_to(x, new))
    return out


def _einsum_fwd(xp, *operands, equation, optimize):
    return xp.einsum(equation, *operands, optimize=optimize)


def _einsum_vjp(k: int):
    """The VJP for operand ``k``: contract the cotangent with the other operands."""

    def vjp(g, ans, *operands, equation, optimize):
        ins, out = _parse_einsum(equation, len(operands))
        x = operands[k]
        xp, dev, dt = g._device.xp, g._device, g._value.dtype
        others = [s for j, s in enumerate(ins) if j != k]
        available = set(out).union(*others)
        fresh = iter(c for c in _LETTERS if c not in equation)
        target, extra_subs, extra = [], [], []
        seen: dict[str, int] = {}
        for c, n in zip(ins[k], x._value.shape):
            if c in seen:
                # A repeated index (a diagonal): the cotangent lives on the diagonal only.
                new = next(fresh)
                target.append(new)
                extra_subs.append(c + new)
                extra.append(make(xp.eye(n, dtype=dt), dev))
                continue
            seen[c] = n
            target.append(c)
            if c not in available:
                # Summed only inside this operand: the cotangent is broadcast along it.
                extra_subs.append(c)
                extra.append(make(xp.ones(n, dtype=dt), dev))
        subs = [out, *others, *extra_subs]
        # The other operands conjugated, as TensorFlow's gradient takes them (complex inputs).
        rest = [_conj(o) for j, o in enumerate(operands) if j != k]
        return einsum(",".join(subs) + "->" + "".join(target), g, *rest, *extra)

    return vjp


@functools.cache
def _einsum_prim(n: int) -> Primitive:
    """One primitive per operand count, so each operand has its own VJP."""
    prim = Primitive("Einsum", _einsum_fwd)
    defvjp(prim, *[_einsum_vjp(k) for k in range(n)])
    return prim


def einsum(equation: str, *inputs, name=None, **kwargs) -> Tensor:
    """Einstein summation (follows `tf.einsum`).

    Args:
        equation: subscripts such as ``"ij,jk->ik"``, ``"bij,bjk->bik"``, ``"ij->ji"``,
            ``"ii->i"`` or ``"ij,ij->"``. Without ``->`` the output holds the letters that
            appear once, sorted (NumPy's rule). An ellipsis (``"...ij,...jk->...ik"``)
            stands for the leading axes of each operand, aligned from the right; they
            broadcast (length 1 against any length), as in TensorFlow.
        *inputs: one tensor per operand, all of the same dtype.

    Returns:
        The contraction, with one axis per output letter.

    Raises:
        ValueError: a malformed equation or a number of operands it does not name.
        InvalidArgumentError: a subscript count that differs from an operand's rank, or one
            letter bound to different sizes (all shapes are named).
        TypeError: operands of different dtypes.

    >>> ek.einsum("ij,jk->ik", ek.ones((2, 3)), ek.ones((3, 4))).numpy()[0]
    array([3., 3., 3., 3.], dtype=float32)
    """
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)):
        inputs = tuple(inputs[0])
    if not inputs:
        raise ValueError(f"einsum: no operands given for {equation!r}.")
    xs = [tensor(inputs[0], "einsum")]
    xs += [tensor(v, "einsum", xs[0]._value.dtype) for v in inputs[1:]]
    ell, given = "", equation
    if "." in equation:
        equation, ell = _expand_ellipsis(equation, [x.ndim for x in xs])
    ins, out = _parse_einsum(equation, len(xs))
    dt = xs[0]._value.dtype
    sizes: dict[str, int] = {}
    shapes = ", ".join(str(tuple(x._value.shape)) for x in xs)
    if ell and len(xs) > 1:
        xs = _broadcast_ellipsis(xs, ins, ell)
    for x, sub in zip(xs, ins):
        if x._value.dtype != dt:
            raise TypeError(
                f"einsum: inputs must have the same dtype, got "
                f"{', '.join(x.dtype.name for x in xs)}. Cast one with ek.cast(...)."
            )
        shape = x._value.shape
        if len(sub) != len(shape):
            raise InvalidArgumentError(
                None,
                "Einsum",
                f"einsum: subscripts {sub!r} name {len(sub)} axes but the operand has shape "
                f"{tuple(shape)} (equation {given!r}, shapes {shapes}).",
            )
        for c, n in zip(sub, shape):
            if sizes.setdefault(c, n) != n:
                raise InvalidArgumentError(
                    None,
                    "Einsum",
                    f"einsum: {'an axis under ...' if c in ell else f'index {c!r}'} has sizes "
                    f"{sizes[c]} and {n} in {given!r} (shapes {shapes}).",
                )
    flops = math.prod(sizes.values())
    optimize = len(xs) > 1 and flops > _OPTIMIZE_FLOPS
    canonical = ",".join(ins) + "->" + out  # explicit output, no spaces
    return apply(_einsum_prim(len(xs)), tuple(xs), {"equation": canonical, "optimize": optimize})


# -- tensordot ----------------------------------------------------------------------------------


def _tensordot_subscripts(ra: int, rb: int, axes) -> tuple[str, str, str]:
    ax_a, ax_b = axes
    sa = list(_LETTERS[:ra])
    sb = list(_LETTERS[ra : ra + rb])
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in ax_a]
    out += [c for j, c in enumerate(sb) if j not in ax_b]
    return "".join(sa), "".join(sb), "".join(out)


def _tensordot_vjp_a(g, ans, a, b, axes):
    sa, sb, out = _tensordot_subscripts(a.ndim, b.ndim, axes)
    return einsum(f"{out},{sb}->{sa}", g, _conj(b))


def _tensordot_vjp_b(g, ans, a, b, axes):
    sa, sb, out = _tensordot_subscripts(a.ndim, b.ndim, axes)
    return einsum(f"{sa},{out}->{sb}", _conj(a), g)


_tensordot = Primitive("TensorDot", lambda xp, a, b, axes: xp.tensordot(a, b, axes=axes))
defvjp(_tensordot, _tensordot_vjp_a, _tensordot_vjp_b)


def _axis_list(v) -> list[int]:
    if isinstance(v, Tensor):
        v = v.numpy().tolist()
    return [int(v)] if isinstance(v, numbers.Integral) else [int(i) for i in v]


def tensordot(a, b, axes, name=None) -> Tensor:
    """Sum of products over the given axes of ``a`` and ``b`` (follows `tf.tensordot`).

    Args:
        a, b: tensors of the same dtype.
        axes: an int N (the last N axes of ``a`` with the first N of ``b``) or a pair
            ``[axes_a, axes_b]`` of equal-length int lists (or ints), negative allowed.

    Returns:
        ``a``'s free axes followed by ``b``'s free axes.

    Raises:
        ValueError: bad ``axes`` (checked in Python, as TensorFlow does).
        InvalidArgumentError: contracted dimensions that differ (shapes are named).
        TypeError: different dtypes.

    >>> ek.tensordot(ek.ones((2, 3)), ek.ones((3, 4)), axes=1).shape
    TensorShape([2, 4])
    """
    a = tensor(a, "tensordot")
    b = tensor(b, "tensordot", a._value.dtype)
    if a._value.dtype != b._value.dtype:
        raise dtype_error("tensordot", (a, b), ("a", "b"))
    sa, sb = tuple(a._value.shape), tuple(b._value.shape)
    ra, rb = len(sa), len(sb)
    if isinstance(axes, Tensor):
        axes = axes.numpy().tolist()
    if isinstance(axes, numbers.Integral):
        n = int(axes)
        if not 0 <= n <= min(ra, rb):
            raise ValueError(
                f"tensordot: axes={n} must be in [0, {min(ra, rb)}] for shapes a: {sa}, b: {sb}."
            )
        ax_a, ax_b = list(range(ra - n, ra)), list(range(n))
    else:
        try:
            pa, pb = axes
        except (TypeError, ValueError):
            raise ValueError(
                f"tensordot: axes must be an int or a pair of axis lists, got {axes!r}."
            ) from None
        ax_a, ax_b = _axis_list(pa), _axis_list(pb)
        if len(ax_a) != len(ax_b):
            raise ValueError(
                f"tensordot: axes lists differ in length: {ax_a} and {ax_b} (shapes a: {sa}, "
                f"b: {sb})."
            )
        for lst, r, s in ((ax_a, ra, sa), (ax_b, rb, sb)):
            for i in lst:
                if not -r <= i < r:
                    raise ValueError(f"tensordot: axis {i} is out of range for shape {s}.")
        ax_a = [i % ra for i in ax_a]
        ax_b = [i % rb for i in ax_b]
        if len(set(ax_a)) != len(ax_a) or len(set(ax_b)) != len(ax_b):
            raise ValueError(f"tensordot: repeated axis in {axes!r}.")
    for i, j in zip(ax_a, ax_b):
        if sa[i] != sb[j]:
            raise InvalidArgumentError(
                None,
                "TensorDot",
                f"tensordot: contracted dimensions differ: a{list(sa)} axis {i} has {sa[i]}, "
                f"b{list(sb)} axis {j} has {sb[j]}.",
            )
    return apply(_tensordot, (a, b), {"axes": (tuple(ax_a), tuple(ax_b))})


# -- solve --------------------------------------------------------------------------------------


def _solve_fwd(xp, matrix, rhs, adjoint):
    if adjoint:
        matrix = xp.swapaxes(matrix, -1, -2).conj()
    msg = "solve: Input matrix is not invertible."
    dtype = matrix.dtype
    if dtype == np.float16:  # LAPACK has no half precision: solve in float32, round back
        matrix, rhs = matrix.astype(np.float32), rhs.astype(np.float32)
    try:
        out = xp.linalg.solve(matrix, rhs).astype(dtype, copy=False)
    except np.linalg.LinAlgError:  # NumPy's (CuPy raises NumPy's class too, when it raises)
        raise InvalidArgumentError(None, "MatrixSolve", msg) from None
    if xp is not np and not bool(xp.isfinite(out).all()):  # CuPy returns NaN by default
        raise InvalidArgumentError(None, "MatrixSolve", msg)
    return out


def _solve_vjp_matrix(g, ans, matrix, rhs, adjoint):
    # TensorFlow's MatrixSolve gradient: with X = A^-1 B, dB = A^-H g and dA = -dB X^H
    # (adjoint=True: X = A^-H B, dB = A^-1 g and dA = -X dB^H).
    grad_rhs = solve(matrix, g, adjoint=not adjoint)
    if adjoint:
        return -matmul(ans, grad_rhs, adjoint_b=True)
    return -matmul(grad_rhs, ans, adjoint_b=True)


_solve = Primitive("MatrixSolve", _solve_fwd)
defvjp(
    _solve,
    _solve_vjp_matrix,
    lambda g, ans, matrix, rhs, adjoint: solve(matrix, g, adjoint=not adjoint),
)


def solve(matrix, rhs, adjoint=False, name=None) -> Tensor:
    """Solves ``matrix @ x = rhs`` for ``x`` (follows `tf.linalg.solve`).

    Args:
        matrix: shape ``[..., M, M]``, float16 (solved in float32), float32, float64,
            complex64 or complex128.
        rhs: shape ``[..., M, K]``, same dtype and the same batch dimensions as ``matrix``.
        adjoint: solve with the adjoint (conjugate transpose) of each matrix instead.

    Returns:
        ``x``, shape ``[..., M, K]``. Differentiable in both arguments (TensorFlow's
        MatrixSolve gradient).

    Raises:
        InvalidArgumentError: a matrix that is not square, shapes that do not match, or a
            singular matrix ("Input matrix is not invertible.").
        TypeError: an integer dtype, or dtypes that differ.

    >>> ek.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[2.0], [8.0]]).numpy().ravel()
    array([1., 2.], dtype=float32)
    """
    matrix = tensor(matrix, "solve")
    rhs = tensor(rhs, "solve", matrix._value.dtype)
    if matrix._value.dtype != rhs._value.dtype:
        raise dtype_error("solve", (matrix, rhs), ("matrix", "rhs"))
    if matrix._value.dtype.kind not in "fc":
        raise TypeError(
            f"solve: matrix must be a floating point tensor or a complex one, got "
            f"{matrix.dtype.name}."
        )
    sm, sr = tuple(matrix._value.shape), tuple(rhs._value.shape)
    if len(sm) < 2 or sm[-1] != sm[-2]:
        raise InvalidArgumentError(
            None, "MatrixSolve", f"solve: matrix must be square with rank >= 2, got shape {sm}."
        )
    if len(sr) != len(sm) or sr[:-2] != sm[:-2] or sr[-2] != sm[-1]:
        raise InvalidArgumentError(
            None,
            "MatrixSolve",
            f"solve: rhs must have shape {(*sm[:-1], 'K')} for matrix of shape {sm}, got "
            f"shape {sr}.",
        )
    return apply(_solve, (matrix, rhs), {"adjoint": bool(adjoint)})


# -- trace, transpose ---------------------------------------------------------------------------


def _matrix_check(x: Tensor, op: str, error=ValueError) -> None:
    if x.ndim < 2:
        msg = f"{op}: input must have rank >= 2, got shape {tuple(x._value.shape)}."
        raise InvalidArgumentError(None, op, msg) if error is InvalidArgumentError else error(msg)


def _trace_fwd(xp, x):
    dt = x.dtype if x.dtype.kind in "iu" else None
    return xp.trace(x, axis1=-2, axis2=-1, dtype=dt)


def _trace_vjp(g, ans, x):
    from .array_ops import reshape

    n, m = x._value.shape[-2:]
    eye = make(g._device.xp.eye(n, m, dtype=g._value.dtype), g._device)
    return reshape(g, (*g._value.shape, 1, 1)) * eye


_trace = Primitive("Trace", _trace_fwd)
defvjp(_trace, _trace_vjp)


def trace(x, name=None) -> Tensor:
    """Sum of the main diagonal of the last two axes (follows `tf.linalg.trace`).

    Args:
        x: shape ``[..., m, n]``.

    Returns:
        Shape ``[...]``.

    Raises:
        InvalidArgumentError: rank below 2.

    >>> ek.trace(ek.constant([[1.0, 2.0], [3.0, 4.0]])).numpy()
    np.float32(5.0)
    """
    x = tensor(x, "trace")
    _matrix_check(x, "trace", InvalidArgumentError)
    return apply(_trace, (x,))


_matrix_transpose = Primitive("MatrixTranspose", lambda xp, x: xp.swapaxes(x, -1, -2))
defvjp(_matrix_transpose, lambda g, ans, x: matrix_transpose(g))


def matrix_transpose(a, name="matrix_transpose", conjugate=False) -> Tensor:
    """Swaps the last two axes (follows `tf.linalg.matrix_transpose`).

    Raises:
        ValueError: rank below 2.

    >>> ek.matrix_transpose(ek.ones((5, 2, 3))).shape
    TensorShape([5, 3, 2])
    """
    a = tensor(a, "matrix_transpose")
    _matrix_check(a, "matrix_transpose")
    out = apply(_matrix_transpose, (a,))
    return _conj(out) if conjugate else out


# Norms and clipping, which build on the ops above.
from .norms import clip_by_global_norm, clip_by_norm, global_norm, norm  # noqa: E402
