"""`sobol_sample` (``tf.math.sobol_sample``): points of the Sobol' low-discrepancy sequence.

The points are SciPy's unscrambled Sobol' sequence (`scipy.stats.qmc.Sobol`, Joe and Kuo's
direction numbers), the same numbers TensorFlow's ``SobolSample`` kernel gives: TensorFlow
leaves out the sequence's first point (the origin), so ``skip=0`` starts at the second.
SciPy is imported on the first call only (the ``images`` extra; scikit-learn brings it too).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, constant

__all__ = ["sobol_sample"]

MAX_DIM = 21200  # TensorFlow's limit (the direction numbers it ships)


def sobol_sample(dim, num_results, skip=0, dtype=dtypes.float32, name=None) -> Tensor:
    """``num_results`` points of the ``dim``-dimensional Sobol' sequence in ``[0, 1)^dim``,
    after skipping ``skip`` of them (follows `tf.math.sobol_sample`).

    Args:
        dim: the dimension, 1 to 21200.
        num_results: the number of points, at least 1.
        skip: the number of points to skip first (default 0).
        dtype: float32 (default) or float64.

    Returns:
        ``[num_results, dim]`` of ``dtype``.

    Raises:
        TypeError: a non-integer ``dim``, ``num_results`` or ``skip``.
        InvalidArgumentError: an argument out of range, or another dtype (TensorFlow's
            messages).
        ImportError: SciPy is not installed.

    >>> ek.math.sobol_sample(2, 3).numpy()
    array([[0.5 , 0.5 ],
           [0.75, 0.25],
           [0.25, 0.75]], dtype=float32)
    """
    op = "sobol_sample"
    dim, num, skip = (
        _integer(v, arg) for v, arg in ((dim, "dim"), (num_results, "num_results"), (skip, "skip"))
    )
    for bad, message in (
        (dim < 1, "dim must be at least one"),
        (dim > MAX_DIM, f"dim must be at most {MAX_DIM}"),
        (num < 1, "num_results must be at least one"),
        (skip < 0, "skip must be non-negative"),
    ):
        if bad:
            raise InvalidArgumentError(
                None, op, f"{op}: {message}, got dim={dim}, num_results={num}, skip={skip}."
            )
    dt = dtypes.as_dtype(dtype)
    if dt not in (dtypes.float32, dtypes.float64):
        raise InvalidArgumentError(
            None, op, f"{op}: dtype must be float32 or float64, got {dt.name}."
        )
    try:
        from scipy.stats import qmc
    except ImportError as exc:
        raise ImportError(
            f"{op} needs SciPy (its Sobol' engine): pip install scipy, or the eagerkernel "
            "'images' extra."
        ) from exc
    engine = qmc.Sobol(dim, scramble=False)
    engine.fast_forward(skip + 1)  # TensorFlow's sequence starts after the origin
    with warnings.catch_warnings():  # SciPy's advice to draw powers of 2
        warnings.simplefilter("ignore", UserWarning)
        points = engine.random(num)
    return constant(np.asarray(points, dt.as_numpy_dtype))


def _integer(value, arg: str) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"sobol_sample: {arg} must be an integer, got {type(value).__name__} {value!r}."
        ) from None
