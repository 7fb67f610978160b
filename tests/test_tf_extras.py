"""Small TensorFlow names: `ek.bitwise`, `ek.test` (TestCase and device queries),
`get_logger`, `timestamp`, `broadcast_static_shape`/`broadcast_dynamic_shape`."""

from __future__ import annotations

import time
import unittest

import numpy as np
import pytest

import eagerkernel as ek


def test_bitwise_ops_on_integers_only():
    x, y = ek.constant([12, -3], ek.int32), ek.constant([10, 6], ek.int32)
    np.testing.assert_array_equal(ek.bitwise.bitwise_and(x, y).numpy(), [12 & 10, -3 & 6])
    np.testing.assert_array_equal(ek.bitwise.bitwise_or(x, y).numpy(), [12 | 10, -3 | 6])
    np.testing.assert_array_equal(ek.bitwise.bitwise_xor(x, y).numpy(), [12 ^ 10, -3 ^ 6])
    np.testing.assert_array_equal(ek.bitwise.left_shift(x, 2).numpy(), [48, -12])
    np.testing.assert_array_equal(ek.bitwise.right_shift(x, 1).numpy(), [6, -2])  # arithmetic
    np.testing.assert_array_equal(ek.bitwise.invert(ek.constant([0], ek.uint8)).numpy(), [255])
    with pytest.raises(TypeError, match="bitwise_and: inputs must be integer tensors"):
        ek.bitwise.bitwise_and(ek.constant([1.0]), ek.constant([2.0]))
    with pytest.raises(TypeError, match="invert: inputs must be integer"):
        ek.bitwise.invert([1.5])


def test_test_case_assertions_compare_tensors_and_structures():
    class Case(ek.test.TestCase):
        def test_close(self):
            self.assertAllClose({"a": ek.constant([1.0, 2.0])}, {"a": [1.0, 2.0 + 1e-8]})
            self.assertAllClose([ek.constant(1.0), (2.0, 3.0)], [1.0, (2.0, 3.0)])
            self.assertNotAllClose(ek.constant([1.0]), [1.1])
            self.assertAllEqual(ek.constant([[1, 2]]), np.array([[1, 2]]))
            self.assertAllGreater(ek.constant([2, 3]), 1)
            self.assertAllInRange(ek.constant([0.0, 1.0]), 0.0, 1.0)
            self.assertDTypeEqual(ek.constant([1.0]), ek.float32)
            self.assertEqual(self.evaluate({"x": ek.constant(2.0)})["x"], 2.0)
            with self.assertRaisesOpError("inner dimensions differ"):
                ek.matmul(ek.ones((2, 3)), ek.ones((2, 3)))

        def test_fails_when_far(self):
            self.assertAllClose(ek.constant([1.0]), [2.0])

        def test_shape_mismatch_fails(self):
            self.assertAllEqual(ek.constant([1, 2]), [[1, 2]])

    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(Case).run(result)
    assert result.testsRun == 3
    failed = sorted(t.id().rsplit(".", 1)[1] for t, _ in result.failures)
    assert failed == ["test_fails_when_far", "test_shape_mismatch_fails"], result.errors
    assert not result.errors


def test_gpu_queries_count_cuda_gpus_only():
    ek.config.experimental.set_virtual_gpus(2)
    assert ek.num_gpus() == 2  # virtual ones are devices...
    cuda = [d for d in ek.config.list_physical_devices("GPU") if "virtual" not in repr(d)]
    assert ek.test.is_gpu_available() is bool(cuda)  # ...but not GPUs for tf.test
    assert ek.test.gpu_device_name() == ("/device:GPU:0" if cuda else "")


def test_logger_timestamp_and_broadcast_shapes():
    assert ek.get_logger().name == "eagerkernel"
    t = ek.timestamp()
    assert t.dtype == ek.float64 and abs(float(t) - time.time()) < 3600
    assert ek.broadcast_static_shape(ek.TensorShape([None, 1, 3]), [4, 1]).as_list() == [
        None,
        4,
        3,
    ]
    assert ek.broadcast_static_shape([2, 3], ek.TensorShape(None)).rank is None
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        ek.broadcast_static_shape([2, 3], [4])
    np.testing.assert_array_equal(ek.broadcast_dynamic_shape([2, 1], [1, 5]).numpy(), [2, 5])
    with pytest.raises(ek.errors.InvalidArgumentError, match="Incompatible shapes"):
        ek.broadcast_dynamic_shape([2], [3])


def test_broadcast_dynamic_shape_rejects_non_shapes_by_argument():
    with pytest.raises(TypeError, match=r"shape_x must be an integer shape.*string"):
        ek.broadcast_dynamic_shape("abc", [1])
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"shape_y must be a vector.*\(1, 1\)"):
        ek.broadcast_dynamic_shape([1], [[1]])


def test_strings_format_rejects_a_template_that_is_not_a_string():
    with pytest.raises(TypeError, match=r"format: template must be a Python string.*None"):
        ek.strings.format(None, [])
    with pytest.raises(TypeError, match="format: placeholder must be a Python string"):
        ek.strings.format("{}", [1], placeholder=0)


@pytest.mark.parametrize("name", ["nn", "random", "debugging", "math", "linalg", "image", "io"])
def test_public_namespaces_hold_public_names_only(name):
    """`dir(ek.nn)` lists TensorFlow's names, not the helpers the implementation imports."""
    import types

    namespace = getattr(ek, name)
    leaked = {"apply", "unary", "make", "defvjp", "dispatch", "Primitive", "np", "numbers", "sys"}
    public = {n for n in dir(namespace) if not n.startswith("_")}
    assert not public & leaked, sorted(public & leaked)
    submodules = {"io": {"gfile"}}.get(name, set())  # TensorFlow's own submodules
    modules = {n for n in public if isinstance(getattr(namespace, n), types.ModuleType)}
    assert modules == submodules
    assert __import__(f"eagerkernel.{name}", fromlist=["_"]).__name__ == f"eagerkernel.{name}"
