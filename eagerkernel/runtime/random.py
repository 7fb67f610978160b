"""Random tensors (`ek.random`), reproducible with `set_seed` (follows `tf.random`).

One process-wide NumPy `Generator` backs every unseeded call; `set_seed(s)` replaces it with a
fresh one seeded by ``s``, so the same seed gives the same sequence of numbers. A call with an
op-level ``seed`` draws from a generator seeded by ``(global seed, seed)``, and so gives the
same numbers every time it is called with the same seeds, as in TensorFlow.

On a real (CuPy) GPU the numbers are drawn on the device by CuPy's generator (one per GPU,
reseeded by `set_seed`), so they differ from the CPU's numbers for the same seed, as they do
between TensorFlow's CPU and GPU kernels. Virtual GPUs are NumPy-backed and draw the CPU's.
"""

from __future__ import annotations

import math
import threading
import types

import numpy as np

from . import random_samplers
from .core import dtypes
from .core.allocation import check_allocation, is_oom, out_of_memory
from .core.device import current_device
from .core.dispatch import Primitive, defvjp, dispatch, stateful
from .core.errors import InvalidArgumentError
from .core.tensor import Tensor, make, to_tensor
from .random_stateful import categorical_draw, shuffle_permutation
from .random_stateful import fill as _philox_fill
from .random_stateful import reserve as _reserve
from .random_stateful import reset as _reset_stateful

__all__ = [
    "Algorithm",
    "Generator",
    "categorical",
    "create_rng_state",
    "experimental",
    "fold_in",
    "gamma",
    "get_global_generator",
    "normal",
    "poisson",
    "set_global_generator",
    "set_seed",
    "shuffle",
    "split",
    "stateless_binomial",
    "stateless_categorical",
    "stateless_gamma",
    "stateless_normal",
    "stateless_parameterized_truncated_normal",
    "stateless_poisson",
    "stateless_truncated_normal",
    "stateless_uniform",
    "truncated_normal",
    "uniform",
]

_global_seed: int | None = None
_generator = np.random.default_rng()


def set_seed(seed: int | None) -> None:
    """Sets the global seed; subsequent random ops repeat the same sequence (follows
    `tf.random.set_seed`). ``None`` returns to fresh, unseeded randomness."""
    global _global_seed, _generator
    _global_seed = None if seed is None else int(seed)
    _generator = np.random.default_rng(_global_seed)
    _gpu_generators.clear()
    _reset_stateful(_global_seed)


def get_seed() -> int | None:
    """The global seed, or None."""
    return _global_seed


def generator(seed: int | None = None) -> np.random.Generator:
    """The NumPy Generator an op with op-level ``seed`` draws from (used by layers, Dataset);
    inside `FunctionDraws.call`, that pass's."""
    draws = getattr(_function_draws, "current", None)
    if draws is not None:
        return draws.generator(seed)
    if seed is None:
        return _generator
    return np.random.default_rng([0 if _global_seed is None else _global_seed, int(seed)])


_function_draws = threading.local()


def _tf_stream(device) -> bool:
    """Whether a stateful op draws TensorFlow's Philox numbers (`random_stateful`): on the
    CPU and virtual GPUs, outside a dataset function's pass."""
    return device.xp is np and getattr(_function_draws, "current", None) is None


class FunctionDraws:
    """The random draws of one pass of a dataset's function (``Dataset.map``), as the random
    ops of TF's traced function draw: with a global or op-level seed (the global one as it was
    when the dataset was made, ``global_seed``), each op's numbers start over with each
    iterator, so every epoch repeats them, and successive elements get successive numbers
    (even with an op-level seed, which in eager code repeats its numbers on every call);
    without any seed, fresh numbers from the global generator.

    >>> ek.random.set_seed(7)
    >>> ds = ek.data.Dataset.range(3).map(lambda x: ek.random.uniform([]))
    >>> [float(v) for v in ds] == [float(v) for v in ds]
    True
    >>> ek.random.set_seed(None)
    """

    __slots__ = ("_generators", "_global_seed")

    def __init__(self, global_seed: int | None):
        self._global_seed = global_seed
        self._generators: dict = {}

    def generator(self, seed: int | None) -> np.random.Generator:
        """The NumPy Generator of an op with op-level ``seed`` (None: unseeded) in this
        pass: one per seed, made on first use from the global seed, the op seed and a salt;
        the process-wide generator when neither seed is set."""
        if seed is None and self._global_seed is None:
            return _generator
        gen = self._generators.get(seed)
        if gen is None:
            parts = [
                _DEFAULT_GLOBAL_SEED if self._global_seed is None else self._global_seed,
                _NO_OP_SEED if seed is None else int(seed),
                _FUNCTION_SALT,
            ]
            gen = np.random.default_rng([p % 2**63 for p in parts])
            self._generators[seed] = gen
        return gen

    def call(self, fn, *args):
        """``fn(*args)`` with this pass's generators serving the random ops."""
        previous = getattr(_function_draws, "current", None)
        _function_draws.current = self
        try:
            return fn(*args)
        finally:
            _function_draws.current = previous


_DEFAULT_GLOBAL_SEED, _NO_OP_SEED, _FUNCTION_SALT = 87654321, 2**40, 0x64617461

# CuPy RandomState per GPU index, created on first use after each `set_seed`.
_gpu_generators: dict = {}


class _CupyDraws:
    """CuPy's generator behind the NumPy Generator methods this module calls."""

    def __init__(self, device, seed: int | None):
        self._device = device
        with device.cuda_device():
            self._rs = device.xp.random.RandomState(seed)

    def standard_normal(self, size):
        with self._device.cuda_device():
            return self._rs.standard_normal(size, dtype=np.float64)

    def uniform(self, low, high, size):
        with self._device.cuda_device():
            return self._rs.uniform(low, high, size)

    def integers(self, low, high, size):
        with self._device.cuda_device():
            return self._rs.randint(low, high, size=size, dtype=np.int64)

    def standard_gamma(self, shape, size):
        with self._device.cuda_device():
            return self._rs.standard_gamma(shape, size=size, dtype=np.float64)

    def poisson(self, lam, size):
        with self._device.cuda_device():
            return self._rs.poisson(lam, size=size)

    def permutation(self, n):
        with self._device.cuda_device():
            return self._rs.permutation(n)


def _gpu_seed(seed: int | None, index: int) -> int | None:
    """A 63-bit seed for GPU ``index`` from the global and op-level seeds (None: unseeded)."""
    if seed is None and _global_seed is None:
        return None
    parts = [0 if _global_seed is None else _global_seed, index]
    if seed is not None:
        parts.append(int(seed))
    return int(np.random.SeedSequence(parts).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _generator_for(device, seed):
    """(generator, array module) for a draw on ``device``: NumPy's on CPU and virtual GPUs."""
    if device.xp is np:
        return generator(seed), np
    if seed is not None:
        return _CupyDraws(device, _gpu_seed(seed, device.index)), device.xp
    gen = _gpu_generators.get(device.index)
    if gen is None:
        gen = _gpu_generators[device.index] = _CupyDraws(device, _gpu_seed(None, device.index))
    return gen, device.xp


def _param(value, xp):
    """``mean``/``stddev``/bounds as an array of ``xp`` (NumPy's `asarray` on the CPU path)."""
    if xp is np:
        return np.asarray(value)
    if isinstance(value, Tensor):
        value = value._value if value._device.xp is xp else value.numpy()
    return xp.asarray(value)


def checked_shape(shape, op: str, dtype, device) -> tuple:
    """``shape`` as a tuple of ints, checked: negative sizes raise InvalidArgumentError, sizes
    the device cannot hold ResourceExhaustedError (before anything is drawn)."""
    if isinstance(shape, Tensor):
        shape = shape.numpy().tolist()
    try:
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(map(int, shape))
    except (TypeError, ValueError):
        raise TypeError(f"{op}: shape must be a sequence of ints, got {shape!r:.80}.") from None
    if shape and min(shape) < 0:
        raise InvalidArgumentError(None, op, f"{op}: shape must be non-negative, got {shape}.")
    # The draws are float64 (or int64) arrays, then cast to ``dtype``.
    check_allocation(op, shape, dtype, device, scratch_itemsize=8)
    return shape


def _float_dtype(dtype, op: str) -> np.dtype:
    dt = dtypes.numpy_dtype(dtype)
    if dt is None or dt.kind != "f":
        raise TypeError(f"{op}: dtype must be floating, got {dtype!r}.")
    return dt


@stateful  # a fresh draw on every call of a graph function
def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples from N(mean, stddev²) (follows `tf.random.normal`).

    Args:
        shape: output shape. mean, stddev: Python numbers or broadcastable tensors.
        dtype: a floating dtype, default float32. seed: op-level seed.

    Raises:
        TypeError: non-floating dtype. InvalidArgumentError: a negative dimension.
        ResourceExhaustedError: a shape too large for the device's free memory (raised
            before anything is drawn).

    >>> ek.random.set_seed(0); a = ek.random.normal([2])
    >>> ek.random.set_seed(0); b = ek.random.normal([2])
    >>> bool(ek.reduce_all(a == b))
    True
    """
    op = "random.normal"
    dt = _float_dtype(dtype, op)
    device = current_device()
    shape = checked_shape(shape, op, dt, device)
    if _tf_stream(device):
        z = _draw(
            op,
            shape,
            dt,
            device,
            lambda: _philox_fill(
                "RandomStandardNormal", "normal", dt, shape, seed, device=device.name
            ),
        )
        return make(_scaled(z, mean, stddev, dt), device)
    gen, xp = _generator_for(device, seed)
    try:
        z = gen.standard_normal(shape)
        return make((_param(mean, xp) + _param(stddev, xp) * z).astype(dt), device)
    except (MemoryError, ValueError) as exc:
        if is_oom(exc):
            raise out_of_memory(op, shape, dt, device) from None
        raise


@stateful  # a fresh draw on every call of a graph function
def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples uniformly from ``[minval, maxval)`` (follows `tf.random.uniform`).

    ``maxval`` defaults to 1 for floating dtypes; integer dtypes need it.

    Raises:
        ValueError: integer dtype without ``maxval``.
        InvalidArgumentError: a negative dimension, or integer bounds with
            ``minval >= maxval``.
        ResourceExhaustedError: a shape too large for the device's free memory.

    >>> ek.random.uniform([2], maxval=10, dtype=ek.int32, seed=1).dtype
    ek.int32
    """
    op = "random.uniform"
    dt = dtypes.numpy_dtype(dtype)
    device = current_device()
    shape = checked_shape(shape, op, dt, device)
    if dt.kind in "iu":
        if maxval is None:
            raise ValueError("random.uniform: maxval must be given for integer dtypes.")
        lo, hi = int(minval), int(maxval)
        if lo >= hi:
            raise InvalidArgumentError(
                None, op, f"{op}: need minval < maxval, got minval={lo}, maxval={hi}."
            )
    if _tf_stream(device):
        if dt.kind in "iu":
            kind = "RandomUniformInt"
            arr = _draw(
                op,
                shape,
                dt,
                device,
                lambda: _philox_fill(kind, "uniform", dt, shape, seed, lo, hi, device.name),
            )
            return make(arr, device)
        u = _draw(
            op,
            shape,
            dt,
            device,
            lambda: _philox_fill("RandomUniform", "uniform", dt, shape, seed, device=device.name),
        )
        if isinstance(minval, int) and minval == 0:  # TF skips the affine map's terms
            if (isinstance(maxval, int) and maxval == 1) or maxval is None:
                return make(u, device)
            return make((u * np.asarray(_param(maxval, np), dt)).astype(dt), device)
        lo, hi = (np.asarray(_param(v, np), dt) for v in (minval, 1 if maxval is None else maxval))
        return make((u * (hi - lo) + lo).astype(dt), device)
    gen, xp = _generator_for(device, seed)
    try:
        if dt.kind in "iu":
            arr = gen.integers(lo, hi, size=shape).astype(dt)
        else:
            u = gen.uniform(0.0, 1.0, size=shape)
            lo = _param(minval, xp)
            arr = (lo + (_param(1.0 if maxval is None else maxval, xp) - lo) * u).astype(dt)
    except (MemoryError, ValueError) as exc:
        if is_oom(exc):
            raise out_of_memory(op, shape, dt, device) from None
        raise
    return make(arr, device)


@stateful  # a fresh draw on every call of a graph function
def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples redrawn until within two standard deviations (follows TF's).

    Raises the errors of `normal`.
    """
    op = "random.truncated_normal"
    dt = _float_dtype(dtype, op)
    device = current_device()
    shape = checked_shape(shape, op, dt, device)
    if _tf_stream(device):
        kind = "truncated_normal"
        z = _draw(
            op,
            shape,
            dt,
            device,
            lambda: _philox_fill("TruncatedNormal", kind, dt, shape, seed, device=device.name),
        )
        return make(_scaled(z, mean, stddev, dt), device)
    gen, xp = _generator_for(device, seed)
    try:
        z = gen.standard_normal(shape)
    except (MemoryError, ValueError) as exc:
        if is_oom(exc):
            raise out_of_memory(op, shape, dt, device) from None
        raise
    bad = xp.abs(z) > 2
    while bad.any():
        z[bad] = gen.standard_normal(int(bad.sum()))
        bad = xp.abs(z) > 2
    return make((_param(mean, xp) + _param(stddev, xp) * z).astype(dt), device)


@stateful  # a fresh draw on every call of a graph function
def shuffle(value, seed=None, name=None) -> Tensor:
    """A random permutation of ``value`` along axis 0 (follows `tf.random.shuffle`)."""
    x = to_tensor(value, None, "random.shuffle")
    if _tf_stream(x._device):
        if x.ndim == 0:
            return x
        perm = shuffle_permutation(x.shape[0], x._value.dtype, seed, x._device.name)
        return make(x._value[np.asarray(perm, np.int64)], x._device)
    perm = _generator_for(x._device, seed)[0].permutation(x.shape[0] if x.ndim else 1)
    xp = x._device.xp
    return make(x._value[xp.asarray(perm)] if x.ndim else x._value, x._device)


def _scaled(z: np.ndarray, mean, stddev, dt) -> np.ndarray:
    """``z * stddev + mean`` in ``dt``, as TF's ops compute it."""
    return (z * np.asarray(_param(stddev, np), dt) + np.asarray(_param(mean, np), dt)).astype(dt)


def _draw(op, shape, dt, device, draw):
    """Runs ``draw()``, turning an out-of-memory failure into ResourceExhaustedError."""
    try:
        return draw()
    except (MemoryError, ValueError) as exc:
        if is_oom(exc):
            raise out_of_memory(op, shape, dt, device) from None
        raise


@stateful  # a fresh draw on every call of a graph function
def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> Tensor:
    """Draws ``num_samples`` class indices per row of unnormalized log-probabilities (follows
    `tf.random.categorical`).

    Args:
        logits: shape ``[batch_size, num_classes]``, floating: ``logits[i, :]`` are the
            unnormalized log-probabilities of row ``i`` (``-inf`` gives a class probability 0).
        num_samples: a non-negative int.
        dtype: int64 (the default) or int32.
        seed: op-level seed, combined with the global seed as in `normal`.

    Returns:
        Shape ``[batch_size, num_samples]`` of ``dtype``.

    Raises:
        InvalidArgumentError: logits not 2-D, no classes, a negative ``num_samples``.
        TypeError: non-floating logits or an output dtype other than int32/int64.

    >>> ek.random.categorical([[float("-inf"), 0.0]], 3, seed=1).numpy()
    array([[1, 1, 1]])
    """
    op = "random.categorical"
    dt = np.dtype(np.int64) if dtype is None else dtypes.numpy_dtype(dtype)
    if dt not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"{op}: dtype must be int32 or int64, got {dtype!r}.")
    x = to_tensor(logits, np.float32, op)
    if x._value.dtype.kind != "f":
        raise TypeError(f"{op}: logits must be floating, got {x.dtype.name}.")
    if x.ndim != 2 or x.shape[1] == 0:
        raise InvalidArgumentError(
            None, op, f"{op}: logits must be 2-D with at least one class, got {list(x.shape)}."
        )
    n = int(num_samples.numpy() if isinstance(num_samples, Tensor) else num_samples)
    if n < 0:
        raise InvalidArgumentError(None, op, f"{op}: num_samples must be >= 0, got {n}.")
    device = x._device
    batch, classes = x.shape
    shape = checked_shape((batch, n), op, dt, device)
    if _tf_stream(device):
        return make(categorical_draw(x._value, n, dt, seed, device.name).astype(dt), device)
    gen, xp = _generator_for(device, seed)
    u = _draw(op, shape, dt, device, lambda: gen.uniform(0.0, 1.0, size=shape))
    # Inverse CDF: the rows' CDFs, offset by the row number, searched in one call.
    z = x._value.astype(np.float64)
    z = xp.exp(z - z.max(axis=1, keepdims=True))
    cdf = xp.cumsum(z, axis=1)
    cdf /= cdf[:, -1:]
    rows = xp.arange(batch, dtype=np.float64)[:, None]
    idx = xp.searchsorted((cdf + rows).ravel(), (u + rows).ravel(), side="right")
    idx = idx.reshape(shape) - (rows.astype(np.int64) * classes)
    return make(xp.minimum(idx, classes - 1).astype(dt), device)


def _dist_param(value, op: str, arg: str, dt) -> np.ndarray:
    """A distribution parameter (``alpha``, ``beta``, ``lam``) as a float64 NumPy array."""
    if isinstance(value, Tensor):
        value = value.numpy()
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{op}: {arg} must be a number or a tensor, got {value!r:.80}.") from None


def gamma_sample_grad(alpha: np.ndarray, sample: np.ndarray) -> np.ndarray:
    """``d sample / d alpha`` of standard Gamma samples (implicit reparameterization, as
    TensorFlow's ``RandomGammaGrad``): ``-(dP(alpha, x) / d alpha) / p(x; alpha)``, P the
    regularized lower incomplete gamma function (the CDF), differentiated in alpha by a central
    difference (float64; needs SciPy). Samples that underflowed to 0 get 0."""
    from scipy import special

    h = 1e-5 * np.maximum(alpha, 1.0)
    dcdf = (special.gammainc(alpha + h, sample) - special.gammainc(alpha - h, sample)) / (2 * h)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_pdf = (alpha - 1) * np.log(sample) - sample - special.gammaln(alpha)
        grad = -dcdf / np.exp(log_pdf)
    return np.where((sample > 0) & np.isfinite(grad), grad, 0.0)


def _gamma_vjp(g, ans, alpha, sample):
    a = np.broadcast_to(alpha.numpy().astype(np.float64), ans.shape)
    grad = gamma_sample_grad(a, sample.numpy().astype(np.float64)).astype(ans._value.dtype)
    xp = g._device.xp
    return g * make(grad if xp is np else xp.asarray(grad), g._device)


# Forwards the standard Gamma ``sample`` drawn for ``alpha``; its VJP in alpha is the
# sample's implicit-reparameterization derivative (the sample itself gets none).
_random_gamma = Primitive("RandomGamma", lambda xp, alpha, sample: sample)
defvjp(_random_gamma, _gamma_vjp, None)


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples from Gamma distributions with concentration ``alpha`` and rate ``beta`` (follows
    `tf.random.gamma`): density ``beta**alpha * x**(alpha - 1) * exp(-beta * x) / Gamma(alpha)``,
    mean ``alpha / beta``, variance ``alpha / beta**2``.

    Args:
        shape: the number of samples per distribution (a list of ints).
        alpha: concentration(s), a number or tensor; ``beta``: rate(s) (default 1), broadcast
            against ``alpha``.
        dtype: float16, float32 (default) or float64. seed: op-level seed.

    Returns:
        Shape ``shape + broadcast(alpha, beta).shape``. Differentiable in ``alpha`` and
        ``beta`` (as in TensorFlow: implicit reparameterization for ``alpha``, which needs
        SciPy).

    Raises:
        TypeError: a non-floating dtype. InvalidArgumentError: a negative dimension, or
        ``alpha``/``beta`` that do not broadcast.

    >>> ek.random.gamma([2, 3], [0.5, 1.5], seed=1).shape
    TensorShape([2, 3, 2])
    """
    op = "random.gamma"
    dt = _float_dtype(dtype, op)
    a = _dist_param(alpha, op, "alpha", dt)
    b = _dist_param(1.0 if beta is None else beta, op, "beta", dt)
    try:
        param_shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: alpha of shape {a.shape} and beta of shape {b.shape} do not broadcast.",
        ) from None
    device = current_device()
    shape = checked_shape(shape, op, dt, device)
    full = shape + tuple(param_shape)
    # The draw is the stateful step; what follows are ops, so that tapes (also in a graph
    # function) see alpha and beta.
    from .ops.elementwise import cast, divide, maximum

    a_full = np.broadcast_to(a, param_shape)
    draw_alpha = alpha if isinstance(alpha, Tensor) else a_full
    sample = _standard_gamma(full, draw_alpha, dt, device, seed, param_shape)
    if isinstance(alpha, Tensor):
        sample = dispatch(_random_gamma, (cast(alpha, dt), sample), {})
    if beta is not None:
        rate = (
            cast(beta, dt)
            if isinstance(beta, Tensor)
            else make(device.xp.asarray(b.astype(dt)), device)
        )
        sample = divide(sample, rate)
    # TF's maximum(tiny, sample / beta): an underflow gives the smallest normal number
    return maximum(sample, make(device.xp.asarray(np.finfo(dt).tiny, dt), device))


@stateful  # a fresh draw on every call of a graph function
def _standard_gamma(full: tuple, alpha, dt, device, seed, param_shape=()) -> Tensor:
    """Gamma(alpha, 1) samples of shape ``full`` (alpha broadcast to it, its trailing
    ``param_shape``), as ``dt``."""
    a = alpha.numpy().astype(np.float64) if isinstance(alpha, Tensor) else alpha
    if _tf_stream(device):  # TF's kernel: float64 samples for alpha in dt, then cast
        n = math.prod(full)
        key, counter = _reserve("RandomGamma", dt, seed, 256 * n, device.name)
        a = np.broadcast_to(a, param_shape).astype(dt)
        num = math.prod(full[: len(full) - a.ndim])
        out = random_samplers.gamma(key, counter, a, num) if n else np.zeros(0)
        with np.errstate(over="ignore"):  # as C's casts (to half through float)
            out = out.astype(np.float32).astype(dt) if dt.itemsize < 4 else out.astype(dt)
        return make(out.reshape(full), device)
    gen, xp = _generator_for(device, seed)
    a_full = xp.asarray(np.broadcast_to(a, full))
    out = _draw("random.gamma", full, dt, device, lambda: gen.standard_gamma(a_full, size=full))
    return make(out.astype(dt), device)


@stateful  # a fresh draw on every call of a graph function
def poisson(shape, lam, dtype=dtypes.float32, seed=None, name=None) -> Tensor:
    """Samples from Poisson distributions with rate(s) ``lam`` (follows `tf.random.poisson`):
    mean and variance ``lam``.

    Args:
        shape: the number of samples per distribution (a list of ints).
        lam: rate(s), a non-negative number or tensor.
        dtype: float16, float32 (default), float64, int32 or int64.
        seed: op-level seed.

    Returns:
        Shape ``shape + lam.shape``, of ``dtype``.

    Raises:
        TypeError: another dtype. InvalidArgumentError: a negative dimension or rate.

    >>> ek.random.poisson([10], [0.0, 2.0], seed=1).numpy()[:, 0]
    array([0., 0., 0., 0., 0., 0., 0., 0., 0., 0.], dtype=float32)
    """
    op = "random.poisson"
    dt = dtypes.numpy_dtype(dtype)
    if dt is None or (dt.kind != "f" and dt not in (np.dtype(np.int32), np.dtype(np.int64))):
        raise TypeError(f"{op}: dtype must be floating, int32 or int64, got {dtype!r}.")
    lam_arr = _dist_param(lam, op, "lam", dt)
    if np.isnan(lam_arr).any():  # TF's kernel never returns for one; a negative rate draws 0
        raise InvalidArgumentError(None, op, f"{op}: lam must not be NaN, got {lam!r:.80}.")
    device = current_device()
    shape = checked_shape(shape, op, dt, device)
    full = shape + lam_arr.shape
    if _tf_stream(device):  # TF's kernel (float64 on lam as its dtype holds it)
        n = math.prod(full)
        key, counter = _reserve("RandomPoissonV2", dt, seed, 256 * n, device.name)
        rate = lam_arr if isinstance(lam, (Tensor, np.ndarray)) else lam_arr.astype(np.float32)
        num = math.prod(shape)
        random_samplers.check_poisson_range(np.asarray(rate, np.float64), dt, op)
        out = random_samplers.poisson(key, counter, rate, num, dt) if n else np.zeros(0)
        with np.errstate(over="ignore"):
            return make(out.astype(dt).reshape(full), device)
    gen, xp = _generator_for(device, seed)
    lam_full = xp.asarray(np.broadcast_to(lam_arr, full))
    out = _draw(op, full, dt, device, lambda: gen.poisson(lam_full, size=full))
    return make(out.astype(dt), device)


# `tf.random.Generator` and the stateless ops (see `random_generator`), and
# `tf.random.experimental`'s names for them.
from .random_generator import (  # noqa: E402
    Algorithm,
    Generator,
    create_rng_state,
    get_global_generator,
    set_global_generator,
    stateless_binomial,
    stateless_categorical,
    stateless_fold_in,
    stateless_normal,
    stateless_split,
    stateless_truncated_normal,
    stateless_uniform,
)
from .random_stateless_distributions import (  # noqa: E402
    stateless_gamma,
    stateless_parameterized_truncated_normal,
    stateless_poisson,
)

# TensorFlow's main names for the seed utilities (`tf.random.split`, `tf.random.fold_in`).
split = stateless_split
fold_in = stateless_fold_in

experimental = types.SimpleNamespace(
    Algorithm=Algorithm,
    Generator=Generator,
    create_rng_state=create_rng_state,
    get_global_generator=get_global_generator,
    set_global_generator=set_global_generator,
    stateless_fold_in=stateless_fold_in,
    stateless_split=stateless_split,
)
