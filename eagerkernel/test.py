"""`ek.test`, as `tf.test`: `TestCase` with TensorFlow's assertions, and the device queries.

``is_gpu_available`` and ``gpu_device_name`` report CUDA GPUs only (a virtual GPU made with
``EAGERKERNEL_VIRTUAL_GPUS`` is not a GPU); ``is_built_with_cuda`` says whether CuPy imports.

>>> class Square(ek.test.TestCase):
...     def test_square(self):
...         self.assertAllClose(ek.square([2.0, 3.0]), [4.0, 9.0])
>>> import unittest
>>> unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
...     unittest.defaultTestLoader.loadTestsFromTestCase(Square)).wasSuccessful()
True
"""

from __future__ import annotations

import contextlib
import re
import tempfile
import unittest

import numpy as np

from .runtime import nest
from .runtime.core.errors import OpError
from .runtime.core.tensor import Tensor

__all__ = [
    "TestCase",
    "gpu_device_name",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_gpu_available",
    "main",
]


def _cuda_gpus() -> list:
    from .runtime.core.device import list_devices

    return [d for d in list_devices() if d.device_type == "GPU" and not d.virtual]


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """Whether a CUDA GPU is present (follows `tf.test.is_gpu_available`; virtual GPUs do not
    count). ``min_cuda_compute_capability`` (major, minor) is checked against CuPy's device
    properties."""
    gpus = _cuda_gpus()
    if not gpus or min_cuda_compute_capability is None:
        return bool(gpus)
    import cupy

    want = tuple(min_cuda_compute_capability)
    for index in range(len(gpus)):
        cc = cupy.cuda.Device(index).compute_capability  # e.g. "86"
        if (int(cc[:-1]), int(cc[-1])) >= want:
            return True
    return False


def gpu_device_name() -> str:
    """The first CUDA GPU's name in TensorFlow's form (``"/device:GPU:0"``), or ``""``."""
    return "/device:GPU:0" if _cuda_gpus() else ""


def is_built_with_cuda() -> bool:
    """Whether the GPU backend (CuPy) imports (follows `tf.test.is_built_with_cuda`)."""
    try:
        import cupy  # noqa: F401
    except ImportError:
        return False
    return True


is_built_with_gpu_support = is_built_with_cuda


def main(argv=None):
    """Runs the test cases of ``__main__`` (follows `tf.test.main`)."""
    return unittest.main(argv=argv)


def _array(x):
    if isinstance(x, Tensor):
        return x.numpy()
    return np.asarray(x)


class TestCase(unittest.TestCase):
    """`unittest.TestCase` with TensorFlow's assertions (follows `tf.test.TestCase`); tensors,
    NumPy arrays, numbers and nested structures of them are compared by value.

    Graph-mode helpers (``session``, ``cached_session``) raise NotImplementedError: there is no
    graph here.
    """

    def evaluate(self, tensors):
        """The NumPy values of a tensor or nested structure of tensors."""
        return nest.map_structure(lambda t: t.numpy() if isinstance(t, Tensor) else t, tensors)

    def get_temp_dir(self) -> str:
        """A temporary directory, removed after the test."""
        if not hasattr(self, "_ek_tmp"):
            self._ek_tmp = tempfile.TemporaryDirectory()
            self.addCleanup(self._ek_tmp.cleanup)
        return self._ek_tmp.name

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Elementwise ``|a - b| <= atol + rtol * |b|`` over nested structures (dicts by key)."""
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertEqual(set(a), set(b), msg)
            for k in a:
                self.assertAllClose(a[k], b[k], rtol, atol, msg)
            return
        if (
            isinstance(a, (list, tuple))
            and isinstance(b, (list, tuple))
            and (any(isinstance(x, (Tensor, list, tuple, dict)) for x in (*a, *b)))
        ):
            self.assertEqual(len(a), len(b), msg)
            for x, y in zip(a, b):
                self.assertAllClose(x, y, rtol, atol, msg)
            return
        np.testing.assert_allclose(_array(a), _array(b), rtol=rtol, atol=atol, err_msg=msg or "")

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol, atol)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements.")

    def assertAllEqual(self, a, b, msg=None):
        x, y = _array(a), _array(b)
        self.assertEqual(x.shape, y.shape, msg or f"shapes differ: {x.shape} vs {y.shape}")
        np.testing.assert_array_equal(x, y, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):
        if np.array_equal(_array(a), _array(b)):
            raise AssertionError(msg or "The two values are equal at all elements.")

    def _compare(self, a, value, fn, what, msg):
        x = _array(a)
        if not np.all(fn(x, value)):
            raise AssertionError(msg or f"not all elements {what} {value}: {x}")

    def assertAllGreater(self, a, comparison_target):
        self._compare(a, comparison_target, np.greater, "greater than", None)

    def assertAllGreaterEqual(self, a, comparison_target):
        self._compare(a, comparison_target, np.greater_equal, ">=", None)

    def assertAllLess(self, a, comparison_target):
        self._compare(a, comparison_target, np.less, "less than", None)

    def assertAllLessEqual(self, a, comparison_target):
        self._compare(a, comparison_target, np.less_equal, "<=", None)

    def assertAllInRange(
        self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False
    ):
        x = _array(target)
        low = x > lower_bound if open_lower_bound else x >= lower_bound
        high = x < upper_bound if open_upper_bound else x <= upper_bound
        if not np.all(low & high):
            raise AssertionError(f"not all elements in range [{lower_bound}, {upper_bound}]: {x}")

    def assertNear(self, f1, f2, err, msg=None):
        if abs(float(f1) - float(f2)) > err:
            raise AssertionError(msg or f"{f1} != {f2} +/- {err}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(f1, f2, err, msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):
        self.assertEqual(tuple(np.shape(_array(input_a))), tuple(input_b.shape), msg)

    def assertDTypeEqual(self, target, expected_dtype):
        from .runtime.core import dtypes

        got = target.dtype if isinstance(target, Tensor) else np.asarray(target).dtype
        self.assertEqual(dtypes.as_dtype(got), dtypes.as_dtype(expected_dtype))

    @contextlib.contextmanager
    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """The block raises an `ek.errors.OpError` whose message matches the pattern."""
        with self.assertRaisesWithPredicateMatch(OpError, expected_err_re_or_predicate):
            yield

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        try:
            yield
        except exception_type as e:
            check = expected_err_re_or_predicate
            ok = check(e) if callable(check) else re.search(check, str(e)) is not None
            if not ok:
                raise AssertionError(
                    f"{type(e).__name__} {str(e)!r} does not match {check!r}"
                ) from e
            return
        raise AssertionError(f"{exception_type.__name__} not raised")

    def session(self, *args, **kwargs):
        raise NotImplementedError("tf.test.TestCase.session: there is no graph mode here.")

    cached_session = session
