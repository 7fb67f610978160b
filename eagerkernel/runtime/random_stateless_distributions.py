"""The stateless samplers of parameterized distributions: `ek.random.stateless_gamma`,
`stateless_poisson` and `stateless_parameterized_truncated_normal` (follow TensorFlow 2.21's
`tf.random.stateless_*`).

Each turns its ``seed`` (two int32 or int64 numbers) into a Philox state as the other
stateless ops do (TensorFlow's ``StatelessRandomGetKeyCounter``, `random_generator.seed_state`)
and draws from NumPy's Philox generator on the stream of that state
(`random_generator.numpy_generator`), as `stateless_binomial` does. The same seed and
parameters give the same numbers on every call, device and replay of an `ek.function`, with
one NumPy version; the numbers are not TensorFlow's (its samplers run on other bits).

As in TensorFlow, ``shape`` is the whole output shape and must end with the broadcast shape of
the distribution's parameters: ``shape=[10, 2]`` with ``alpha=[0.5, 1.5]`` is ten samples of
each of two distributions (`ek.random.gamma` and `ek.random.poisson` prepend ``shape``
instead). The draws are primitives on the seed's Philox state and the parameters, so a graph
function recomputes them from each call's seed and parameters.
"""

from __future__ import annotations

import numpy as np

from . import random_samplers
from .core import dtypes
from .core.device import current_device
from .core.dispatch import Primitive, defjointvjp, defvjp, dispatch
from .core.errors import InternalError, InvalidArgumentError, UnsupportedDTypeError
from .core.tensor import Tensor, convert_to_tensor, make
from .random_generator import numpy_generator, seed_state

__all__ = [
    "stateless_gamma",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
]

_FLOATS = tuple(np.dtype(t) for t in (np.float16, np.float32, np.float64))
_POISSON_DTYPES = (*_FLOATS, np.dtype(np.int32), np.dtype(np.int64))


def _names(allowed) -> str:
    return ", ".join(dtypes.from_numpy(d).name for d in allowed)


def _check_dtype(dt, allowed, op: str, attr: str) -> np.dtype:
    """``dt`` (a dtype or anything `as_dtype` takes) if it is allowed, else
    UnsupportedDTypeError as TensorFlow's "Value for attr ... is not in the list"."""
    dt = dtypes.numpy_dtype(dt)
    if dt not in allowed:
        got = dtypes.from_numpy(dt).name if dt is not None else "None"
        raise UnsupportedDTypeError(
            None,
            op,
            f"{op}: Value for attr '{attr}' of {got} is not in the list of allowed values: "
            f"{_names(allowed)}",
        )
    return dt


def _convert(value, dt, op: str, arg: str) -> Tensor:
    """``value`` as a Tensor of ``dt`` (TensorFlow's ``convert_to_tensor(value, dtype)``): a
    Tensor of another dtype raises ValueError, a value that cannot be converted TypeError."""
    if isinstance(value, Tensor):
        if dtypes.numpy_dtype(value.dtype) != dt:
            raise ValueError(
                f"{op}: {arg}: Tensor conversion requested dtype {dtypes.from_numpy(dt).name} "
                f"for Tensor with dtype {value.dtype.name}"
            )
        return value
    try:
        return convert_to_tensor(value, dt)
    except (TypeError, ValueError):
        raise TypeError(
            f"{op}: cannot convert {arg}={value!r:.80} to a Tensor of dtype "
            f"{dtypes.from_numpy(dt).name}."
        ) from None


def _param(value, op: str, arg: str) -> Tensor:
    """A parameter converted without a requested dtype (Python floats are float32); Tensors
    and Variables as they are."""
    if isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: cannot convert {arg}={value!r:.80} to a Tensor.") from None


def _output_shape(shape, op: str, dt) -> tuple:
    """``shape`` (a vector of int32/int64: a list, tuple, TensorShape or Tensor) as a tuple,
    checked as TensorFlow checks it, and against the device's free memory."""
    from .random import checked_shape

    if isinstance(shape, Tensor):
        shape = shape.numpy()
    if hasattr(shape, "as_list"):  # a TensorShape
        shape = shape.as_list()
    arr = np.asarray(shape)
    if arr.ndim != 1:
        raise InvalidArgumentError(
            None, op, f"{op}: shape must be a vector of int32 or int64, got shape {list(arr.shape)}"
        )
    if arr.size and arr.dtype.kind not in "iu":
        raise UnsupportedDTypeError(
            None, op, f"{op}: shape must be int32 or int64 numbers, got {shape!r:.80}"
        )
    return checked_shape(tuple(int(d) for d in arr), op, dt, current_device())


def _broadcast(op: str, message: str, *params: Tensor) -> tuple:
    """The broadcast shape of ``params`` (InvalidArgumentError if they do not broadcast)."""
    shapes = [tuple(p.shape) for p in params]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        got = " vs. ".join(str(list(s)) for s in shapes)
        raise InvalidArgumentError(None, op, f"{op}: {message}: {got}") from None


def _check_suffix(shape: tuple, params_shape: tuple, op: str, what: str) -> None:
    """TensorFlow's rule: ``shape`` ends with the parameters' broadcast shape, exactly."""
    k = len(params_shape)
    if k > len(shape) or shape[len(shape) - k :] != tuple(params_shape):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Shape passed in must end with broadcasted shape: shape {list(shape)} does "
            f"not end with {list(params_shape)}, the broadcast shape of {what}.",
        )


def _host(a) -> np.ndarray:
    return np.asarray(getattr(a, "get", lambda: a)())


def _on(xp, arr: np.ndarray):
    return arr if xp is np else xp.asarray(arr)


# -- gamma -----------------------------------------------------------------------------------------


def _gamma_fwd(xp, state, alpha, shape, dtype, params_shape=None):
    dt = np.dtype(dtype)
    a = _host(alpha)  # TF's kernel samples alpha broadcast against beta
    a = np.broadcast_to(a, a.shape if params_shape is None else params_shape).astype(dt)
    w = [int(x) & (2**64 - 1) for x in _host(state).tolist()]
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return _on(xp, np.zeros(shape, dt))
    out = random_samplers.gamma(w[2], w[0] | (w[1] << 64), a, n // a.size)
    with np.errstate(over="ignore"):  # C's casts (to half through float)
        out = out.astype(np.float32).astype(dt) if dt.itemsize < 4 else out.astype(dt)
    return _on(xp, out.reshape(shape))


def _gamma_grad_fwd(xp, alpha, sample):
    from .random import gamma_sample_grad

    s = _host(sample)
    a = np.broadcast_to(_host(alpha).astype(np.float64), s.shape)
    return _on(xp, gamma_sample_grad(a, s.astype(np.float64)).astype(s.dtype))


# d sample / d alpha of standard Gamma samples (TensorFlow's RandomGammaGrad), as an op, so that
# a gradient taken inside a graph function is recomputed on every call.
_gamma_grad = Primitive("RandomGammaGrad", _gamma_grad_fwd)
defvjp(_gamma_grad, None, None)

# Standard Gamma(alpha, 1) samples from a Philox state; its VJP in alpha is the implicit
# reparameterization (Figurnov et al., 2018), the tape summing the sample dimensions.
_stateless_gamma = Primitive("StatelessRandomGammaV3", _gamma_fwd)
defvjp(
    _stateless_gamma,
    None,
    lambda g, ans, state, alpha, **params: g * dispatch(_gamma_grad, (alpha, ans)),
)


def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None) -> Tensor:
    """Samples from Gamma distributions determined by ``seed`` (follows
    `tf.random.stateless_gamma`): concentration ``alpha``, rate (inverse scale) ``beta``,
    density ``beta**alpha * x**(alpha - 1) * exp(-beta * x) / Gamma(alpha)``, mean
    ``alpha / beta``, variance ``alpha / beta**2``.

    Deterministic per seed (same seed and parameters, same numbers), though not TensorFlow's
    numbers: the standard Gamma draws are NumPy's sampler on the seed's Philox stream.

    Args:
        shape: the output shape, a 1-D list/tuple/TensorShape/Tensor of int32 or int64. It must
            end with the broadcast shape of ``alpha`` and ``beta`` (unlike `ek.random.gamma`,
            which prepends ``shape``): ``shape=[10, 2]`` with ``alpha=[0.5, 1.5]`` gives
            ``samples[:, i]``, ten draws with concentration ``alpha[i]``.
        seed: two int32 or int64 numbers (shape ``[2]``).
        alpha: the concentration(s), converted to ``dtype``.
        beta: the rate(s), converted to ``dtype``; None (the default) means 1.
        dtype: float16, float32 (the default) or float64: of ``alpha``, ``beta`` and the output.
        name: unused (TensorFlow's op name).

    Returns:
        A Tensor of ``shape`` and ``dtype``: ``max(tiny, x / beta)`` for standard Gamma draws
        ``x`` (``tiny`` the dtype's smallest normal number, as in TensorFlow). A negative or
        NaN ``alpha`` gives NaN, ``alpha=0`` and a negative ``beta`` give ``tiny``.
        Differentiable in ``alpha`` (implicit reparameterization, as TensorFlow's
        ``RandomGammaGrad``; needs SciPy) and ``beta``. TensorFlow has no float16 kernel for
        the ``alpha`` gradient and raises; here it is computed in float64 and rounded.

    Raises:
        UnsupportedDTypeError (an InvalidArgumentError and a TypeError): ``dtype`` is not
            float16/32/64; a seed not int32/int64; a shape not of integers.
        ValueError: ``alpha`` or ``beta`` is a Tensor of another dtype than ``dtype``.
        TypeError: ``alpha`` or ``beta`` cannot be converted to ``dtype``.
        InvalidArgumentError: ``alpha`` and ``beta`` do not broadcast; ``shape`` does not end
            with their broadcast shape, is not a vector or has a negative size; a seed not of
            shape ``[2]``.

    >>> x = ek.random.stateless_gamma([10, 2], seed=[12, 34], alpha=[0.5, 1.5])
    >>> x.shape, x.dtype
    (TensorShape([10, 2]), ek.float32)
    >>> y = ek.random.stateless_gamma([10, 2], seed=[12, 34], alpha=[0.5, 1.5])
    >>> bool(ek.reduce_all(x == y))
    True
    >>> ek.random.stateless_gamma([30, 3, 2], [1, 2], [[1.0], [3.0], [5.0]], [[3.0, 4.0]]).shape
    TensorShape([30, 3, 2])
    """
    from .ops.elementwise import divide, maximum

    op = "stateless_random_gamma"
    dt = _check_dtype(dtype, _FLOATS, op, "dtype")
    alpha = _convert(alpha, dt, op, "alpha")
    rate = _convert(1 if beta is None else beta, dt, op, "beta")
    params_shape = _broadcast(op, "Incompatible shapes of alpha and beta", alpha, rate)
    state = seed_state(seed, op)
    shape = _output_shape(shape, op, dt)
    _check_suffix(shape, params_shape, op, "alpha and beta")
    params = {"shape": shape, "dtype": dt, "params_shape": tuple(params_shape)}
    sample = dispatch(_stateless_gamma, (state, alpha), params)
    if beta is not None:  # TensorFlow divides by 1 too; that changes no number
        sample = divide(sample, rate)
    tiny = make(sample._device.xp.asarray(np.finfo(dt).tiny, dt), sample._device)
    return maximum(tiny, sample)


# -- Poisson ---------------------------------------------------------------------------------------


def _poisson_fwd(xp, state, lam, shape, dtype):
    op = "stateless_random_poisson"
    rate = _host(lam)
    if np.isnan(rate).any():  # TensorFlow's kernel never returns for one
        raise InvalidArgumentError(None, op, f"{op}: lam must not be NaN.")
    w = [int(x) & (2**64 - 1) for x in _host(state).tolist()]
    n = int(np.prod(shape, dtype=np.int64))
    num = n // rate.size if rate.size else 0
    dt = np.dtype(dtype)
    random_samplers.check_poisson_range(np.asarray(rate, np.float64), dt, op)
    out = random_samplers.poisson(w[2], w[0] | (w[1] << 64), rate, num, dt) if n else np.zeros(0)
    with np.errstate(over="ignore"):  # float16: counts past 65504 are inf
        return _on(xp, out.astype(dt).reshape(shape))


# Poisson counts from a Philox state; no gradient (TensorFlow's gives None for lam).
_stateless_poisson = Primitive("StatelessRandomPoisson", _poisson_fwd)
defvjp(_stateless_poisson, None, None)


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32, name=None) -> Tensor:
    """Samples from Poisson distributions determined by ``seed`` (follows
    `tf.random.stateless_poisson`): rate ``lam``, mean and variance ``lam``.

    Deterministic per seed (same seed and rates, same numbers), though not TensorFlow's
    numbers: the draws are NumPy's sampler on the seed's Philox stream.

    Args:
        shape: the output shape, a 1-D list/tuple/TensorShape/Tensor of int32 or int64. It must
            end with the shape of ``lam`` (unlike `ek.random.poisson`, which prepends
            ``shape``): ``shape=[10, 2]`` with ``lam=[5, 15]`` gives ``samples[:, i]``, ten
            draws with rate ``lam[i]``.
        seed: two int32 or int64 numbers (shape ``[2]``).
        lam: the rate(s): float16, float32, float64, int32 or int64 (Python floats are
            float32, ints int32). A negative rate draws 0, an infinite one ``inf`` (floating
            outputs).
        dtype: of the output: int32 (the default), int64, float16, float32 or float64.
        name: unused (TensorFlow's op name).

    Returns:
        A Tensor of ``shape`` and ``dtype``. Not differentiable: the gradient for ``lam`` is
        None, as in TensorFlow.

    Raises:
        UnsupportedDTypeError (an InvalidArgumentError and a TypeError): ``dtype`` or the
            dtype of ``lam`` is not one of the five; a seed not int32/int64; a shape not of
            integers.
        InvalidArgumentError: ``shape`` does not end with the shape of ``lam``, is not a
            vector or has a negative size; a seed not of shape ``[2]``; a NaN rate (on which
            TensorFlow's kernel never returns); a sample too large for an integer ``dtype``.
        TypeError: ``lam`` cannot be converted to a Tensor.

    >>> x = ek.random.stateless_poisson([10, 2], seed=[12, 34], lam=[5, 15])
    >>> x.shape, x.dtype
    (TensorShape([10, 2]), ek.int32)
    >>> ek.random.stateless_poisson([3], seed=[1, 2], lam=0.0, dtype=ek.float32).numpy()
    array([0., 0., 0.], dtype=float32)
    """
    op = "stateless_random_poisson"
    dt = _check_dtype(dtype, _POISSON_DTYPES, op, "dtype")
    lam = _param(lam, op, "lam")
    _check_dtype(lam.dtype, _POISSON_DTYPES, op, "Rtype")
    state = seed_state(seed, op)
    shape = _output_shape(shape, op, dt)
    _check_suffix(shape, tuple(lam.shape), op, "lam")
    return dispatch(_stateless_poisson, (state, lam), {"shape": shape, "dtype": dt})


# -- parameterized truncated normal ----------------------------------------------------------------

_RANDN_INSIDE = 1.3  # TensorFlow's kStdDevsInsideBoundsToUseRandnSampler
_MAX_ROUNDS = 1000  # TensorFlow's kMaxIterations


def _truncated_standard(rng, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Standard normal draws truncated to ``[a, b]`` (``a`` finite, ``a < b``, and ``b > 0``
    or ``a < 0``), by TensorFlow's three rejection samplers (its kernel's choice per element):
    normal proposals when the interval holds 1.3 standard deviations on one side of 0, uniform
    proposals on a narrow interval, else Robert's (1995) shifted exponential proposals. All
    pending elements propose once per round."""
    sq = np.sqrt(a * a + 4)
    randn = ((a < -_RANDN_INSIDE) & (b >= 0)) | ((b > _RANDN_INSIDE) & (a <= 0))
    with np.errstate(over="ignore"):
        cutoff = 2 * np.exp(0.5 + a * (a - sq) / 4) / (a + sq)
    uniform = ~randn & (b - a < cutoff)
    rate = (a + sq) / 2  # the exponential proposal's, maximizing the acceptance
    plus = np.where(a < 0, 0.0, a * a)
    z = np.empty_like(a)
    pending = np.arange(a.size)
    for _ in range(_MAX_ROUNDS):
        if not pending.size:
            return z
        cand = np.empty(pending.size)
        ok = np.zeros(pending.size, bool)
        lo, hi = a[pending], b[pending]
        m = randn[pending]
        if m.any():
            cand[m] = rng.standard_normal(int(m.sum()))
            ok[m] = (cand[m] >= lo[m]) & (cand[m] <= hi[m])
        m = uniform[pending]
        if m.any():
            u = rng.random((2, int(m.sum())))
            cand[m] = lo[m] + (hi[m] - lo[m]) * u[0]
            ok[m] = u[1] <= np.exp((plus[pending][m] - cand[m] ** 2) / 2)
        m = ~randn[pending] & ~uniform[pending]
        if m.any():
            u = 1.0 - rng.random((2, int(m.sum())))  # (0, 1]: no log(0)
            r = rate[pending][m]
            cand[m] = lo[m] - np.log(u[0]) / r
            ok[m] = (u[1] <= np.exp(-((r - cand[m]) ** 2) / 2)) & (cand[m] < hi[m])
        z[pending[ok]] = cand[ok]
        pending = pending[~ok]
    if not pending.size:
        return z
    raise InternalError(
        None,
        "StatelessParameterizedTruncatedNormal",
        "stateless_parameterized_truncated_normal: the rejection sampler failed to accept a "
        f"sample in {_MAX_ROUNDS} proposals.",
    )


def _tn_fwd(xp, state, means, stddevs, minvals, maxvals, shape, dtype):
    op = "stateless_parameterized_truncated_normal"
    out = np.empty(shape, dtype)
    if not out.size:
        return _on(xp, out)
    mean, std, lo, hi = (
        np.broadcast_to(_host(p).astype(np.float64), shape).ravel()
        for p in (means, stddevs, minvals, maxvals)
    )
    bad = ~((std > 0) & (lo < hi) & (np.isfinite(lo) | np.isfinite(hi)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Invalid parameters: need stddevs > 0, minvals < maxvals and one finite "
            f"bound; got means={mean[i]}, stddevs={std[i]}, minvals={lo[i]}, maxvals={hi[i]} "
            f"at flat index {i}.",
        )
    if not np.isfinite(mean).all():  # TensorFlow's sampler fails on these (InternalError)
        raise InternalError(None, op, f"{op}: the rejection sampler failed: a mean is not finite.")
    # Make the one-sided bound the lower one, or both bounds lie above the mean (as TF).
    flip = np.isneginf(lo) | (hi < mean)
    sign = np.where(flip, -1.0, 1.0)
    a = np.where(flip, hi - mean, lo - mean) * sign / std
    b = np.where(flip, lo - mean, hi - mean) * sign / std
    z = _truncated_standard(numpy_generator(state), a, b)
    x = np.clip(mean + sign * std * z, lo, hi)  # rounding may step past a bound
    return _on(xp, x.reshape(shape).astype(dtype))


def _ndtr(x: Tensor) -> Tensor:
    """The standard normal CDF as TensorFlow's gradient computes it (erf near 0, erfc in the
    tails)."""
    from .ops.elementwise import abs as abs_
    from .ops.elementwise import where
    from .ops.math_ops import erf, erfc

    half_sqrt_2 = 0.5 * np.sqrt(2.0)
    w = x * half_sqrt_2
    z = abs_(w)
    y = where(z < half_sqrt_2, 1.0 + erf(w), where(w > 0.0, 2.0 - erfc(z), erfc(z)))
    return 0.5 * y


def _tn_vjp(g, ans, state, means, stddevs, minvals, maxvals, shape, dtype):
    """TensorFlow's gradient of StatelessParameterizedTruncatedNormal (implicit
    reparameterization): d/dmeans 1 and d/dstddevs the standardized sample (both with the
    standardized bounds held), d/dminvals and d/dmaxvals through the truncated CDF. Computed in
    float32 for float16 (`erf` has no float16 kernel here)."""
    from .ops.elementwise import cast, clip_by_value, exp, log, log1p

    dt = np.dtype(dtype)
    work = np.dtype(np.float32) if dt == np.float16 else dt
    mean, std, lo, hi, sample = (cast(t, work) for t in (means, stddevs, minvals, maxvals, ans))
    lo_std = (lo - mean) / std
    hi_std = (hi - mean) / std
    x_std = (sample - mean) / std
    cdf = (_ndtr(x_std) - _ndtr(lo_std)) / (_ndtr(hi_std) - _ndtr(lo_std))
    info = np.finfo(dt)
    cdf = clip_by_value(cdf, float(info.tiny), float(1 - info.eps))
    d_max = exp(0.5 * (x_std * x_std - hi_std * hi_std) + log(cdf))
    d_min = exp(0.5 * (x_std * x_std - lo_std * lo_std) + log1p(-cdf))
    g = cast(g, work)
    grads = (g, g * x_std, g * d_min, g * d_max)
    return (None, *(cast(t, dt) for t in grads))


# Truncated normal samples from a Philox state and per-element parameters.
_stateless_tn = Primitive("StatelessParameterizedTruncatedNormal", _tn_fwd)
defjointvjp(_stateless_tn, _tn_vjp)


def stateless_parameterized_truncated_normal(
    shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0, name=None
) -> Tensor:
    """Samples from normal distributions truncated to ``[minvals, maxvals]``, determined by
    ``seed`` (follows `tf.random.stateless_parameterized_truncated_normal`): N(means,
    stddevs²) conditioned on lying within the bounds; one bound may be infinite.

    Deterministic per seed (same seed and parameters, same numbers), though not TensorFlow's
    numbers: TensorFlow's rejection samplers (normal, uniform or exponential proposals, chosen
    per element as its kernel does) run on NumPy's Philox stream of the seed.

    Args:
        shape: the output shape, a 1-D list/tuple/TensorShape/Tensor of int32 or int64. It must
            end with the broadcast shape of the four parameters.
        seed: two int32 or int64 numbers (shape ``[2]``).
        means, stddevs, minvals, maxvals: the parameters (defaults 0, 1, -2 and 2), each a
            number or tensor, all of one dtype, float16, float32 or float64 (Python floats are
            float32); it is the output's dtype.
        name: unused (TensorFlow's op name).

    Returns:
        A Tensor of ``shape`` and the parameters' dtype. Differentiable in the four
        parameters by TensorFlow's formulas (implicit reparameterization: for ``means`` 1 and
        for ``stddevs`` the standardized sample, the standardized bounds held fixed).

    Raises:
        UnsupportedDTypeError (an InvalidArgumentError and a TypeError): ``means`` is not
            float16/32/64 (e.g. a Python int); a seed not int32/int64; a shape not of integers.
        DTypeMismatchError (an InvalidArgumentError and a TypeError): the parameters have
            different dtypes.
        InvalidArgumentError: parameters that do not broadcast; ``shape`` does not end with
            their broadcast shape, is not a vector or has a negative size; a seed not of shape
            ``[2]``; "Invalid parameters": some ``stddevs <= 0``, ``minvals >= maxvals`` or both
            bounds infinite (checked only when ``shape`` has elements).
        InternalError: a mean that is not finite (TensorFlow's sampler fails on it too).
        TypeError: a parameter cannot be converted to a Tensor.

    >>> y = ek.random.stateless_parameterized_truncated_normal(
    ...     shape=[10, 2, 3], seed=[7, 17], means=0.0, stddevs=[1.0, 2.0, 3.0],
    ...     minvals=[-1.0, -2.0, -1000.0], maxvals=[[10000.0], [1.0]])
    >>> y.shape, y.dtype
    (TensorShape([10, 2, 3]), ek.float32)
    >>> bool(ek.reduce_all((y[:, 1] >= [-1.0, -2.0, -1000.0]) & (y[:, 1] <= 1.0)))
    True
    """
    from .core.errors import DTypeMismatchError

    op = "stateless_parameterized_truncated_normal"
    names = ("means", "stddevs", "minvals", "maxvals")
    params = [_param(v, op, n) for v, n in zip((means, stddevs, minvals, maxvals), names)]
    dt = _check_dtype(params[0].dtype, _FLOATS, op, "dtype")
    for k, (p, n) in enumerate(zip(params, names)):
        if dtypes.numpy_dtype(p.dtype) != dt:
            raise DTypeMismatchError(
                None,
                op,
                f"{op}: cannot compute StatelessParameterizedTruncatedNormal as input "
                f"#{k + 2}(zero-based) ({n}) was expected to be a {params[0].dtype.name} tensor "
                f"but is a {p.dtype.name} tensor",
            )
    message = "means, stddevs, minvals, maxvals must have compatible batch dimensions"
    params_shape = _broadcast(op, message, *params)
    state = seed_state(seed, op)
    shape = _output_shape(shape, op, dt)
    _check_suffix(shape, params_shape, op, "means, stddevs, minvals and maxvals")
    return dispatch(_stateless_tn, (state, *params), {"shape": shape, "dtype": dt})
