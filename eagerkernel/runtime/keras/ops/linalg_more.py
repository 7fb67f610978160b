"""`keras.ops` linear algebra, FFT and complex-number functions missing from the first parts
(follows ``keras/src/ops/linalg.py`` and ``keras/src/ops/math.py``). Decompositions map onto
`ek.linalg` and the FFT family onto `ek.signal`, so gradients flow where those ops define
them. As in Keras, an FFT takes and returns a ``(real, imag)`` pair of float tensors."""

from __future__ import annotations

import numpy as np

from ... import nest
from ...core.tensor import Tensor
from ...ops import complex_ops, matrix_decompositions, matrix_eig, matrix_ops, signal_ops
from ._base import float_like, keras_op, to_tensor
from ._tf import tf

# fmt: off
__all__ = [
    "angle",
    "cdist",
    "cholesky_inverse",
    "conj",
    "conjugate",
    "eig",
    "eigh",
    "erfc",
    "extract_sequences",
    "fft",
    "fft2",
    "gammainc",
    "i0",
    "ifft2",
    "imag",
    "irfft",
    "istft",
    "jvp",
    "logdet",
    "lstsq",
    "lu_factor",
    "matrix_power",
    "matrix_rank",
    "pinv",
    "polar",
    "qr",
    "real",
    "rfft",
    "slogdet",
    "solve_triangular",
    "stft",
    "svd",
    "view_as_complex",
    "view_as_real",
]
# fmt: on


def matrix_arg(x, op, square=False):
    x = float_like(x)
    if x.shape.rank < 2 or (square and x.shape[-1] != x.shape[-2]):
        kind = "square matrices" if square else "matrices"
        raise ValueError(
            f"keras.ops.{op}: expected a tensor of {kind} (rank >= 2). Received: shape={x.shape}"
        )
    return x


def adjoint(x):
    perm = [*range(x.shape.rank - 2), x.shape.rank - 1, x.shape.rank - 2]
    x = tf.transpose(x, perm)
    return complex_ops.conj(x) if x.dtype.is_complex else x


@keras_op
def eig(x):
    """``(eigenvalues, eigenvectors)`` of square ``x`` (follows `keras.ops.eig`); complex."""
    return matrix_eig.eig(matrix_arg(x, "eig", square=True))


@keras_op
def eigh(x):
    """``(eigenvalues, eigenvectors)`` of Hermitian ``x``, eigenvalues ascending (follows
    `keras.ops.eigh`)."""
    return matrix_decompositions.eigh(matrix_arg(x, "eigh", square=True))


@keras_op
def qr(x, mode="reduced"):
    """``(q, r)`` with ``x = q @ r`` (follows `keras.ops.qr`); ``mode`` "reduced" or
    "complete"."""
    if mode not in ("reduced", "complete"):
        raise ValueError(
            f"keras.ops.qr: mode must be 'reduced' or 'complete'. Received: mode={mode!r}"
        )
    return matrix_decompositions.qr(matrix_arg(x, "qr"), full_matrices=mode == "complete")


@keras_op
def svd(x, full_matrices=True, compute_uv=True):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` (follows `keras.ops.svd`, NumPy's order);
    ``s`` alone when ``compute_uv`` is False."""
    x = matrix_arg(x, "svd")
    if not compute_uv:
        return matrix_decompositions.svd(x, compute_uv=False)
    s, u, v = matrix_decompositions.svd(x, full_matrices=full_matrices)
    return u, s, adjoint(v)


@keras_op
def slogdet(x):
    """``(sign, log|det x|)`` (follows `keras.ops.slogdet`)."""
    return matrix_ops.slogdet(matrix_arg(x, "slogdet", square=True))


@keras_op
def logdet(x):
    """``log det x`` of Hermitian positive-definite ``x`` (follows `keras.ops.logdet`)."""
    return matrix_ops.logdet(matrix_arg(x, "logdet", square=True))


@keras_op
def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse of each matrix, ``(..., M, N)`` to ``(..., N, M)``
    (follows `keras.ops.pinv`, `tf.linalg.pinv`): singular values at most ``rcond`` times
    the largest are dropped; default ``rcond`` TensorFlow's ``10 * max(M, N) * eps``.
    Differentiable through the SVD.

    Raises:
        ValueError: rank below 2.

    >>> a = ek.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> np.allclose(ek.keras.ops.pinv(a) @ a, np.eye(2), atol=1e-5)
    True
    """
    return matrix_decompositions.pinv(matrix_arg(x, "pinv"), rcond=rcond)


@keras_op
def matrix_rank(x, tol=None):
    """The number of singular values of each matrix above ``tol`` (follows
    `keras.ops.matrix_rank`, `tf.linalg.matrix_rank`): ``(..., M, N)`` to int32 ``(...)``;
    default ``tol`` ``eps * max(M, N) * max(s)``.

    Raises:
        ValueError: rank below 2.

    >>> int(ek.keras.ops.matrix_rank([[1.0, 2.0], [2.0, 4.0]]))
    1
    """
    x = matrix_arg(x, "matrix_rank")
    return tf.cast(matrix_eig.matrix_rank(x, tol=tol), "int32")


@keras_op
def matrix_power(x, n):
    """``x`` to the integer power ``n`` (follows `keras.ops.matrix_power`); a negative ``n``
    inverts first."""
    x = matrix_arg(x, "matrix_power", square=True)
    if int(n) != n:
        raise TypeError(f"keras.ops.matrix_power: n must be an integer. Received: n={n!r}")
    n = int(n)
    if n < 0:
        x, n = matrix_ops.inv(x), -n
    result = None
    base = x
    while n:  # square-and-multiply: log2(n) products
        if n & 1:
            result = base if result is None else tf.matmul(result, base)
        n >>= 1
        if n:
            base = tf.matmul(base, base)
    if result is None:
        eye = tf.eye(int(x.shape[-1]), dtype=x.dtype)
        return eye + tf.zeros_like(x)
    return result


def _solve_shape(a, b):
    vector = b.shape.rank == a.shape.rank - 1
    return (tf.expand_dims(b, -1) if vector else b), vector


@keras_op
def solve_triangular(a, b, lower=False):
    """``x`` with ``a @ x = b`` for triangular ``a`` (follows `keras.ops.solve_triangular`);
    ``b`` may be a vector."""
    a = matrix_arg(a, "solve_triangular", square=True)
    b, vector = _solve_shape(a, to_tensor(b, a.dtype))
    x = matrix_ops.triangular_solve(a, b, lower=lower)
    return tf.squeeze(x, -1) if vector else x


@keras_op
def lstsq(a, b, rcond=None):
    """The least-squares solution of ``a @ x = b`` with the smallest norm (follows
    `keras.ops.lstsq`, its TensorFlow backend): from the SVD of ``a``, singular values below
    ``rcond`` times the largest dropped (default ``eps * max(M, N)``; a negative ``rcond``
    means ``eps``). Differentiable through the SVD.

    Args:
        a: ``(M, N)``. b: ``(M,)`` or ``(M, K)``; cast to ``a``'s dtype.

    Returns:
        ``(N,)`` or ``(N, K)``.

    Raises:
        ValueError: leading dimensions of ``a`` and ``b`` that differ.
        TypeError: ``a`` not 2-D, or ``b`` not 1-D or 2-D (Keras's types).

    >>> a = ek.constant([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> ek.keras.ops.lstsq(a, [1.0, 1.0, 3.0]).numpy().round(4)
    array([1.3333, 1.3333], dtype=float32)
    """
    a = float_like(a)
    b = to_tensor(b, a.dtype)
    if a.shape.rank < 1 or b.shape.rank < 1 or a.shape[0] != b.shape[0]:
        raise ValueError(
            "keras.ops.lstsq: leading dimensions of input arrays must match. "
            f"Received: a.shape={tuple(a.shape)}, b.shape={tuple(b.shape)}"
        )
    vector = b.shape.rank == 1
    b = tf.expand_dims(b, -1) if vector else b
    if a.shape.rank != 2:
        raise TypeError(
            f"keras.ops.lstsq: {a.shape.rank}-dimensional array given for a; it must be "
            "two-dimensional."
        )
    if b.shape.rank != 2:
        raise TypeError(
            f"keras.ops.lstsq: {b.shape.rank}-dimensional array given for b; it must be one "
            "or two-dimensional."
        )
    eps = float(np.finfo(a.dtype.as_numpy_dtype).eps)
    if rcond is None:
        rcond = eps * max(int(a.shape[0]), int(a.shape[1]))
    elif not isinstance(rcond, Tensor):
        rcond = eps if rcond < 0 else rcond
    s, u, v = matrix_decompositions.svd(a, full_matrices=False)
    keep = s >= tf.cast(rcond, s.dtype) * s[0]
    s_inv = tf.where(keep, 1.0 / tf.where(keep, s, tf.ones_like(s)), tf.zeros_like(s))
    x = tf.matmul(v, tf.expand_dims(s_inv, -1) * tf.matmul(adjoint(u), b))
    return tf.reshape(x, [-1]) if vector else x


@keras_op
def lu_factor(x):
    """``(lu, pivots)`` of square ``x`` (follows `keras.ops.lu_factor` with its TensorFlow
    backend): ``lu`` holds L below the diagonal (unit diagonal implied) and U on and above
    it, with ``x[perm] = L @ U``; ``pivots`` is the inverse of ``perm`` (row ``i`` of ``x``
    is row ``pivots[i]`` of ``L @ U``), int32 ``(..., M)``. (Keras's JAX and NumPy backends
    return LAPACK's row swaps instead.)

    Raises:
        ValueError: rank below 2 or non-square matrices.

    >>> lu, pivots = ek.keras.ops.lu_factor([[1.0, 2.0], [3.0, 4.0]])
    >>> pivots.numpy()
    array([1, 0], dtype=int32)
    """
    x = matrix_arg(x, "lu_factor", square=True)
    lu, perm = matrix_decompositions.lu(x)
    return lu, tf.cast(tf.argsort(perm, axis=-1, stable=True), "int32")


@keras_op
def cholesky_inverse(x, upper=False):
    """``inv(x @ x^H)`` (``inv(x^H @ x)`` when ``upper``) of a Cholesky factor ``x`` (follows
    `keras.ops.cholesky_inverse`): the inverse of the matrix ``x`` factors, by two
    triangular solves.

    Raises:
        ValueError: rank below 2, non-square matrices, or a singular factor ("Cholesky
            inverse failed", as Keras).

    >>> ek.keras.ops.cholesky_inverse([[2.0, 0.0], [1.0, 3.0]]).numpy().round(4)
    array([[ 0.2778, -0.0556],
           [-0.0556,  0.1111]], dtype=float32)
    """
    x = matrix_arg(x, "cholesky_inverse", square=True)
    eye = tf.eye(int(x.shape[-1]), dtype=x.dtype) + tf.zeros_like(x)
    try:
        inv = matrix_ops.triangular_solve(x, eye, lower=not upper)
    except ValueError as e:
        raise ValueError(f"keras.ops.cholesky_inverse: Cholesky inverse failed: {e}") from e
    return tf.matmul(inv, adjoint(inv)) if upper else tf.matmul(adjoint(inv), inv)


@keras_op
def cdist(x, y):
    """Euclidean distances between the rows of ``x`` ``(..., m, d)`` and ``y`` ``(..., n, d)``:
    ``(..., m, n)`` (follows `keras.ops.cdist`)."""
    x, y = float_like(x), float_like(y)
    x, y = tf.cast(x, x.dtype), tf.cast(y, x.dtype)
    diff = tf.expand_dims(x, -2) - tf.expand_dims(y, -3)
    sq = tf.reduce_sum(tf.square(diff), axis=-1)
    # sqrt has an infinite slope at 0: the zero distances get a zero gradient instead of NaN.
    safe = tf.where(sq > 0, sq, tf.ones_like(sq))
    return tf.where(sq > 0, tf.sqrt(safe), tf.zeros_like(sq))


def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), J @ tangents)`` (follows `keras.ops.jvp`), plus ``aux`` when
    ``has_aux`` (``fun`` then returns ``(output, aux)``). ``primals`` is the tuple of
    ``fun``'s arguments, each a tensor or a nest of them; ``tangents`` has the same structure
    (cast to the primals' dtypes); the output tangents have the output's structure.
    Computed in reverse mode by the double-VJP identity: ``u -> J^T u`` is linear, so its own
    VJP at any ``u`` applied to ``tangents`` is ``J @ tangents``.

    Raises:
        ValueError: ``tangents`` with another structure than ``primals``.

    >>> out, tangent = ek.keras.ops.jvp(lambda x: x * x, (ek.constant(3.0),), (ek.constant(1.0),))
    >>> float(out), float(tangent)
    (9.0, 6.0)
    """
    from ...autodiff import GradientTape

    try:
        nest.assert_same_structure(tuple(primals), tuple(tangents))
    except (TypeError, ValueError) as e:
        raise ValueError(
            "keras.ops.jvp: primals and tangents must have the same structure. "
            f"Received: primals={primals!r}, tangents={tangents!r}"
        ) from e
    structure = tuple(primals)
    primals = [to_tensor(p) for p in nest.flatten(structure)]
    tangents = [to_tensor(t, p.dtype) for t, p in zip(nest.flatten(tuple(tangents)), primals)]
    with GradientTape(persistent=True) as outer:
        with GradientTape(persistent=True) as inner:
            for p in primals:
                inner.watch(p)
            result = fun(*nest.pack_sequence_as(structure, primals))
            out, aux = result if has_aux else (result, None)
        outs = nest.flatten(out)
        dummies = [tf.zeros_like(o) for o in outs]
        for d in dummies:
            outer.watch(d)
        vjp = inner.gradient(outs, primals, output_gradients=dummies)
        vjp = [tf.zeros_like(p) if g is None else g for g, p in zip(vjp, primals)]
    jv = outer.gradient(vjp, dummies, output_gradients=tangents)
    jv = [tf.zeros_like(o) if g is None else g for g, o in zip(jv, outs)]
    tangents_out = nest.pack_sequence_as(out, jv)
    return (out, tangents_out, aux) if has_aux else (out, tangents_out)


# -- complex numbers ----------------------------------------------------------------------------


@keras_op
def real(x):
    """The real part (follows `keras.ops.real`); real inputs are returned as they are."""
    x = to_tensor(x)
    return complex_ops.real(x) if x.dtype.is_complex else x


@keras_op
def imag(x):
    """The imaginary part (follows `keras.ops.imag`); zeros for real inputs."""
    x = to_tensor(x)
    return complex_ops.imag(x) if x.dtype.is_complex else tf.zeros_like(x)


@keras_op
def conjugate(x):
    """The complex conjugate (follows `keras.ops.conjugate`); real inputs unchanged."""
    x = to_tensor(x)
    return complex_ops.conj(x) if x.dtype.is_complex else x


@keras_op
def conj(x):
    """Shorthand for `conjugate` (follows `keras.ops.conj`)."""
    return conjugate(x)


@keras_op
def angle(x):
    """The argument of ``x`` in radians (follows `keras.ops.angle`); floats."""
    x = to_tensor(x)
    if x.dtype.is_complex:
        return complex_ops.angle(x)
    x = float_like(x)
    return tf.atan2(tf.zeros_like(x), x)


@keras_op
def polar(abs_, angle):
    """``abs_ * exp(i * angle)`` (follows `keras.ops.polar`); complex64 for float32."""
    r, t = float_like(abs_), float_like(angle)
    return complex_ops.complex(r * tf.cos(t), r * tf.sin(t))


@keras_op
def view_as_real(x):
    """A complex tensor as a real one with a last axis of 2 (follows
    `keras.ops.view_as_real`)."""
    x = to_tensor(x)
    if not x.dtype.is_complex:
        raise ValueError(
            f"keras.ops.view_as_real: x must be complex. Received: dtype={x.dtype.name}"
        )
    return tf.stack([complex_ops.real(x), complex_ops.imag(x)], axis=-1)


@keras_op
def view_as_complex(x):
    """A real tensor with a last axis of 2 as a complex one (follows
    `keras.ops.view_as_complex`)."""
    x = float_like(x)
    if x.shape.rank < 1 or x.shape[-1] != 2:
        raise ValueError(
            f"keras.ops.view_as_complex: the last axis must be 2. Received: shape={x.shape}"
        )
    re, im = tf.unstack(x, axis=-1)
    return complex_ops.complex(re, im)


# -- special functions --------------------------------------------------------------------------


@keras_op
def erfc(x):
    """``1 - erf(x)`` (follows `keras.ops.erfc`); integer inputs give floatx."""
    return tf.erfc(float_like(x))


@keras_op
def i0(x):
    """The modified Bessel function of the first kind, order 0 (follows `keras.ops.i0`)."""
    return tf.bessel_i0(float_like(x))


@keras_op
def gammainc(x1, x2):
    """The regularized lower incomplete gamma ``P(x1, x2)`` (follows `keras.ops.gammainc`)."""
    a, x = float_like(x1), float_like(x2)
    return tf.igamma(a, tf.cast(x, a.dtype))


# -- FFT ----------------------------------------------------------------------------------------


def _complex_pair(x, op):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(
            f"keras.ops.{op}: x must be a (real, imag) pair of tensors. Received: x={x!r}"
        )
    re, im = to_tensor(x[0]), to_tensor(x[1])
    if re.shape != im.shape:
        raise ValueError(
            f"keras.ops.{op}: the real and imaginary parts must have the same shape. "
            f"Received: {re.shape} and {im.shape}"
        )
    if not (re.dtype.is_floating and im.dtype.is_floating):
        raise ValueError(
            f"keras.ops.{op}: the parts must be floats. Received: {re.dtype.name}, {im.dtype.name}"
        )
    return complex_ops.complex(re, tf.cast(im, re.dtype))


def _split(z):
    return complex_ops.real(z), complex_ops.imag(z)


@keras_op
def fft(x):
    """The FFT along the last axis of ``x = (real, imag)`` (follows `keras.ops.fft`).

    >>> real, imag = ek.keras.ops.fft(([1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]))
    >>> real.numpy()
    array([1., 1., 1., 1.], dtype=float32)
    """
    return _split(signal_ops.fft(_complex_pair(x, "fft")))


@keras_op
def fft2(x):
    """The 2-D FFT over the last two axes of ``x = (real, imag)`` (follows `keras.ops.fft2`)."""
    return _split(signal_ops.fft2d(_complex_pair(x, "fft2")))


@keras_op
def ifft2(x):
    """The 2-D inverse FFT over the last two axes (follows `keras.ops.ifft2`)."""
    return _split(signal_ops.ifft2d(_complex_pair(x, "ifft2")))


@keras_op
def rfft(x, fft_length=None):
    """The real FFT along the last axis, as ``(real, imag)`` (follows `keras.ops.rfft`)."""
    x = float_like(x)
    length = None if fft_length is None else [int(fft_length)]
    return _split(signal_ops.rfft(x, length))


@keras_op
def irfft(x, fft_length=None):
    """The inverse of `rfft` on ``x = (real, imag)`` (follows `keras.ops.irfft`); real."""
    length = None if fft_length is None else [int(fft_length)]
    return signal_ops.irfft(_complex_pair(x, "irfft"), length)


@keras_op
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` every ``sequence_stride`` along the last axis (follows
    `keras.ops.extract_sequences`): ``(..., num_sequences, sequence_length)``."""
    x = to_tensor(x)
    return signal_ops.frame(x, int(sequence_length), int(sequence_stride))


def _window(window, sequence_length, fft_length, dtype):
    """The analysis window padded (centered) to ``fft_length``, as Keras builds it."""
    if window is None:
        win = np.ones(sequence_length)
    elif isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(
                f"keras.ops.stft: window must be 'hann', 'hamming', a tensor or None. "
                f"Received: window={window!r}"
            )
        n = np.arange(sequence_length)
        a0 = 0.5 if window == "hann" else 0.54
        win = a0 - (1 - a0) * np.cos(2 * np.pi * n / sequence_length)  # periodic, as scipy
    else:
        win = to_tensor(window, dtype)
        if win.shape.rank != 1 or int(win.shape[0]) != sequence_length:
            raise ValueError(
                "keras.ops.stft: window must be 1-D of length sequence_length. "
                f"Received: shape={win.shape}, sequence_length={sequence_length}"
            )
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    if isinstance(win, np.ndarray):
        return to_tensor(np.pad(win, (left, right)).astype(dtype.as_numpy_dtype))
    return tf.pad(win, [[left, right]])


@keras_op
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform along the last axis (follows `keras.ops.stft`):
    ``(real, imag)`` of shape ``(..., num_frames, fft_length // 2 + 1)``. ``center`` pads
    ``fft_length // 2`` on both sides by reflection."""
    x = float_like(x)
    if sequence_length > fft_length:
        raise ValueError(
            "keras.ops.stft: sequence_length must be <= fft_length. Received: "
            f"sequence_length={sequence_length}, fft_length={fft_length}"
        )
    if center:
        pad = [[0, 0]] * (x.shape.rank - 1) + [[fft_length // 2, fft_length // 2]]
        x = tf.pad(x, pad, mode="REFLECT")
    frames = signal_ops.frame(x, int(fft_length), int(sequence_stride))
    frames = frames * _window(window, sequence_length, fft_length, x.dtype)
    return _split(signal_ops.rfft(frames, [int(fft_length)]))


@keras_op
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """The inverse of `stft` by windowed overlap-add (follows `keras.ops.istft`); ``length``
    trims or zero-pads the output."""
    frames = signal_ops.irfft(_complex_pair(x, "istft"), [int(fft_length)])
    dtype = frames.dtype
    win = _window(window, sequence_length, fft_length, dtype)
    frames = frames * win
    num = int(frames.shape[-2])
    total = fft_length + sequence_stride * (num - 1)
    batch = list(frames.shape[:-2])
    out = tf.zeros([*batch, total], dtype)
    norm = np.zeros(total)
    win_sq = np.square(np.asarray(win.numpy(), dtype=np.float64))
    pieces = tf.unstack(frames, axis=-2)
    for i, piece in enumerate(pieces):  # overlap-add: each frame padded into place
        start = i * sequence_stride
        pad = [[0, 0]] * len(batch) + [[start, total - start - fft_length]]
        out = out + tf.pad(piece, pad)
        norm[start : start + fft_length] += win_sq
    out = out / to_tensor(np.where(norm > 1e-10, norm, 1.0).astype(dtype.as_numpy_dtype))
    if center:
        half = fft_length // 2
        out = tf.gather(out, list(range(half, total - half)), axis=-1)
    if length is not None:
        have = int(out.shape[-1])
        if have >= length:
            out = tf.gather(out, list(range(length)), axis=-1)
        else:
            out = tf.pad(out, [[0, 0]] * len(batch) + [[0, length - have]])
    return out
