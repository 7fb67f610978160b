"""BLAS threads for matrix products: small products run on one thread.

NumPy's OpenBLAS splits every product above some 260 000 multiply-adds over all cores, and its
threads wait for each other by spinning. Below a few million floating-point operations a
second thread saves little of a product's time, while on a machine shared with other busy
processes the partner thread can be descheduled and the product then waits for it a whole
scheduler time slice, far longer than the product itself. So products of fewer than
`SMALL_FLOPS` operations run with one BLAS thread (through threadpoolctl, which finds NumPy's
BLAS; the thread count in force before the call is restored after it), and larger ones keep
every thread: they gain from it on an idle machine, and can still stall on a busy one. CuPy
arrays, and machines where threadpoolctl finds no multi-threaded BLAS, are left alone.

After a product, OpenBLAS's idle threads keep spinning for ``2**OPENBLAS_THREAD_TIMEOUT`` CPU
cycles (2**28 by default, about 0.1 s) before they sleep, and meanwhile they share the cores
with whatever runs next: the runtime's own split kernels (`parallel`), whose second thread
then gets half a core, and other processes.
Importing eagerkernel before NumPy therefore sets ``OPENBLAS_THREAD_TIMEOUT=18`` (about
0.1 ms, long enough to bridge the products of one training step) unless the environment
already sets it; OpenBLAS reads it once, when NumPy loads it, so an earlier ``import numpy``
leaves OpenBLAS's default (the Eager kernel always imports eagerkernel first).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SMALL_FLOPS", "matmul"]

SMALL_FLOPS = 1 << 22  # 2 * m * n * k below this (4.2 M): one BLAS thread
_TINY_FLOPS = 1 << 19  # OpenBLAS already uses one thread below about this
_controllers: list = []  # [controller or None], looked up on first use
_HALF = np.dtype(np.float16)


def _controller():
    if not _controllers:
        try:
            from threadpoolctl import ThreadpoolController

            found = ThreadpoolController().select(user_api="blas").lib_controllers
        except Exception:  # no threadpoolctl, or a BLAS it cannot drive: leave BLAS alone
            found = []
        _controllers.append(found[0] if len(found) == 1 and found[0].num_threads > 1 else None)
    return _controllers[0]


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.matmul(a, b, out=out)``, on one BLAS thread when the product is small.

    Args:
        a, b: NumPy arrays with matmul's shapes, ``(..., m, k)`` and ``(..., k, n)`` (1-D
            operands as NumPy treats them).
        out: optional output array, as for `numpy.matmul`.

    Returns:
        The product, with the shape and dtype `numpy.matmul` gives (any dtype it accepts;
        only float32/float64/complex products go to BLAS). A float16 product that is not
        tiny is computed by float32 BLAS and rounded to float16 once (float32 accumulation,
        as GPUs' float16 products do): NumPy has no float16 BLAS, and its own float16 loop is
        two orders of magnitude slower.

    Raises:
        ValueError: as `numpy.matmul`, for shapes that do not match.
    """
    sa, sb = a.shape, b.shape
    if len(sa) == 2 and len(sb) == 2:  # the common case, without the batch arithmetic
        flops = 2 * sa[0] * sa[1] * sb[1]
    else:
        m = sa[-2] if a.ndim > 1 else 1
        n = sb[-1] if b.ndim > 1 else 1
        batch = max(math.prod(sa[:-2]), math.prod(sb[:-2]))
        flops = 2 * batch * m * n * sa[-1]
    if flops < _TINY_FLOPS:
        return np.matmul(a, b, out=out)
    if a.dtype == _HALF and b.dtype == _HALF and out is None:
        return _half_matmul(a, b)
    if flops < SMALL_FLOPS:
        blas = _controller()
        if blas is not None:
            threads = blas.num_threads
            blas.set_num_threads(1)
            try:
                return np.matmul(a, b, out=out)
            finally:
                blas.set_num_threads(threads)
    return np.matmul(a, b, out=out)


def _half_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A float16 product through float32 BLAS (see `matmul`)."""
    return matmul(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
