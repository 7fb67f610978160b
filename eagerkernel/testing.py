"""Gradient checking against central finite differences (like autograd's `check_grads`).

`check_gradients(f, *args)` compares the tape's VJPs of ``f`` at ``args`` with central
differences of a random projection of ``f``'s output, in float64. With ``order=2`` it also
checks the derivative of the gradient (a nested tape), and so on for higher orders.
"""

from __future__ import annotations

import numpy as np

from .runtime import nest
from .runtime.core.tape import GradientTape
from .runtime.core.tensor import Tensor, constant, make

__all__ = ["check_gradients", "numerical_gradient"]


def _projected(f, args, seed):
    """``h(*args) = sum(f(*args) * u)`` for a fixed random cotangent ``u`` per output."""
    rng = np.random.default_rng(seed)
    cache: list = []

    def h(*xs):
        outs = nest.flatten(f(*xs))
        if not cache:
            cache.extend(rng.standard_normal(np.shape(o.numpy())) for o in outs)
        total = None
        for o, u in zip(outs, cache):
            s = _reduce_sum(o * make(u.astype(np.asarray(o.numpy()).dtype), o._device))
            total = s if total is None else total + s
        return total

    return h


def _reduce_sum(x):
    from .runtime.ops.reduction import reduce_sum

    return reduce_sum(x)


def numerical_gradient(h, args, index: int, eps: float = 1e-6) -> np.ndarray:
    """Central-difference gradient of the scalar function ``h`` w.r.t. ``args[index]``."""
    x0 = np.array(args[index].numpy(), dtype=np.float64)
    grad = np.zeros_like(x0)
    flat = x0.reshape(-1)
    for i in range(flat.size):
        orig = flat[i]
        vals = []
        for delta in (eps, -eps):
            flat[i] = orig + delta
            xs = list(args)
            xs[index] = constant(x0.copy())
            vals.append(float(h(*xs).numpy()))
        flat[i] = orig
        grad.reshape(-1)[i] = (vals[0] - vals[1]) / (2 * eps)
    return grad


def _tape_gradients(h, args, wrt):
    with GradientTape() as tape:
        for i in wrt:
            tape.watch(args[i])
        y = h(*args)
    return tape.gradient(y, [args[i] for i in wrt])


def check_gradients(f, *args, order: int = 1, wrt=None, rtol=1e-5, atol=1e-6, eps=1e-6, seed=0):
    """Asserts that the tape's gradients of ``f`` match central finite differences.

    Args:
        f: a function of Tensors returning a Tensor or nested structure of Tensors.
        *args: NumPy arrays or Python numbers; float arguments are converted to float64.
        order: how many times to differentiate (2 checks the gradient's own gradient).
        wrt: indices of the arguments to check, default all floating ones.
        rtol, atol: tolerances of `numpy.testing.assert_allclose`.
        eps: finite-difference step.

    Raises:
        AssertionError: naming the argument, the order, and both gradients, on a mismatch or
            when the tape returns None for an argument the numerical gradient depends on.

    >>> ek.testing.check_gradients(lambda x, y: ek.sin(x) * y, np.ones((2, 3)), np.ones(3))
    """
    xs = [
        constant(np.asarray(a, dtype=np.float64))
        if np.asarray(a).dtype.kind == "f" or isinstance(a, float)
        else (a if isinstance(a, Tensor) else constant(a))
        for a in args
    ]
    if wrt is None:
        wrt = [i for i, x in enumerate(xs) if x.dtype.is_floating]
    h = _projected(f, xs, seed)
    _check(h, xs, list(wrt), order, rtol, atol, eps, seed)


def _check(h, xs, wrt, order, rtol, atol, eps, seed):
    analytic = _tape_gradients(h, xs, wrt)
    for i, g in zip(wrt, analytic):
        numeric = numerical_gradient(h, xs, i, eps)
        if g is None:
            if np.any(np.abs(numeric) > atol):
                raise AssertionError(
                    f"check_gradients (order {order}): the tape gave None for argument {i}, "
                    f"finite differences give {numeric}."
                )
            continue
        np.testing.assert_allclose(
            np.asarray(g.numpy(), dtype=np.float64),
            numeric,
            rtol=rtol,
            atol=atol,
            err_msg=f"check_gradients (order {order}): argument {i}, tape vs finite differences",
        )
    if order > 1:
        rng = np.random.default_rng(seed + order)
        vs = [rng.standard_normal(np.shape(xs[i].numpy())) for i in wrt]

        def h2(*ys):
            gs = _tape_gradients(h, list(ys), wrt)
            total = None
            for g, v in zip(gs, vs):
                if g is None:
                    continue
                s = _reduce_sum(g * constant(v))
                total = s if total is None else total + s
            return total if total is not None else constant(0.0, dtype="float64")

        _check(h2, xs, wrt, order - 1, rtol, atol, eps, seed + 1)
