"""A NumPy array or scalar beside a tensor, in an op function and in an operator, with NumPy
behavior off and in its legacy mode (`experimental_enable_numpy_behavior()`'s default).

TensorFlow treats the two differently once NumPy behavior is on: an op function (``tf.add``,
``tf.matmul``, ``tf.concat``, ...) converts the NumPy operand to the tensor's dtype, as it does
with the behavior off, while an operator (``+``, ``@``, ``&``, ...) and ``tf.divide`` (which
is ``x / y``) first promote both to NumPy's result type. Each row below is a call and what
TensorFlow 2.21 returned for it (dtype and value, or the error class), recorded with
``tensorflow-cpu`` 2.21.0; `test_rows_match_tensorflow` runs the same calls on TensorFlow when
it is installed.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import textwrap

import eagerkernel.experimental.numpy as tnp
import numpy as np
import pytest

import eagerkernel as tf
from eagerkernel.runtime.core.numpy_methods import STATE

ERROR = "error"

# (expression, dtype with NumPy behavior off, value, dtype in legacy mode, value); the names:
# b = tf.constant(1), f = tf.constant([1.0, 2.0]), m = tf.constant([[1.0, 2.0]]),
# a = np.array(1, np.int8), c = np.array(1, np.float16), A = np.array([[1.0], [2.0]]).
ROWS = [
    ("b + a", "int32", 2, "int32", 2),
    ("a + b", "int32", 2, "int32", 2),
    ("tf.add(b, a)", "int32", 2, "int32", 2),
    ("tf.add(a, b)", ERROR, None, ERROR, None),
    ("tf.add(tf.add(b, a), c)", "int32", 3, "int32", 3),
    ("b + c", "int32", 2, "float64", 2.0),
    ("tf.add(b, c)", "int32", 2, "int32", 2),
    ("f * np.array(2.0)", "float32", [2.0, 4.0], "float64", [2.0, 4.0]),
    ("tf.multiply(f, np.array(2.0))", "float32", [2.0, 4.0], "float32", [2.0, 4.0]),
    ("tf.add(f, np.array(2, np.int32))", "float32", [3.0, 4.0], "float32", [3.0, 4.0]),
    ("tf.maximum(b, np.int64(3))", "int32", 3, "int32", 3),
    ("tf.add(f, tf.constant(1, tf.int32))", ERROR, None, ERROR, None),
    ("tf.matmul(m, A)", "float32", [[5.0]], "float32", [[5.0]]),
    ("m @ A", "float32", [[5.0]], "float64", [[5.0]]),
    ("A @ m", "float32", [[1.0, 2.0], [2.0, 4.0]], "float64", [[1.0, 2.0], [2.0, 4.0]]),
    ("tf.less(b, np.array(2.5))", "bool", True, "bool", True),
    ("tf.equal(b, np.array(1.0))", "bool", True, "bool", True),
    ("tf.math.floordiv(b, np.array(2, np.int64))", "int32", 0, "int32", 0),
    ("b // np.array(2, np.int64)", "int32", 0, "int64", 0),
    ("tf.pow(b, np.int8(2))", "int32", 1, "int32", 1),
    ("tf.truediv(f, np.array(2.0))", "float32", [0.5, 1.0], "float32", [0.5, 1.0]),
    ("f / np.array(2.0)", "float32", [0.5, 1.0], "float64", [0.5, 1.0]),
    ("tf.divide(f, np.array(2.0))", "float32", [0.5, 1.0], "float64", [0.5, 1.0]),
    ("tf.divide(np.array([1.5]), tf.constant([2]))", "float64", [0.5], "float64", [0.5]),
    ("tf.divide(tf.constant(1.0), np.float64(2.0))", "float32", 0.5, "float64", 0.5),
    ("tf.concat([f, np.array([2.0])], 0)", "float32", [1.0, 2.0, 2.0], "float32", [1.0, 2.0, 2.0]),
    (
        "tf.stack([f, np.array([2.0, 3.0])])",
        "float32",
        [[1, 2], [2, 3]],
        "float32",
        [[1, 2], [2, 3]],
    ),
    ("tf.math.floormod(b, np.array(2, np.int8))", "int32", 1, "int32", 1),
    ("tf.subtract(b, np.int16(1))", "int32", 0, "int32", 0),
    ("tf.math.squared_difference(f, np.array(1.0))", "float32", [0.0, 1.0], "float32", [0.0, 1.0]),
    ("tf.bitwise.bitwise_and(b, np.int64(3))", "int32", 1, "int32", 1),
    ("b & np.int64(3)", "int32", 1, "int64", 1),
    ("np.float64(2.0) * f", "float32", [2.0, 4.0], "float64", [2.0, 4.0]),
    ("f * np.float64(2.0)", "float32", [2.0, 4.0], "float64", [2.0, 4.0]),
    ("f + np.float32(1)", "float32", [2.0, 3.0], "float32", [2.0, 3.0]),
    ("tf.constant([1, 2]) * np.array([2.5, 1.0])", "int32", [2, 2], "float64", [2.5, 2.0]),
    ("np.array([2.5, 1.0]) * tf.constant([1, 2])", "int32", [2, 2], "float64", [2.5, 2.0]),
    ("tf.constant(3) % np.int64(2)", "int32", 1, "int64", 1),
    ("tf.constant(2.0) ** np.float64(2.0)", "float32", 4.0, "float64", 4.0),
    ("tf.constant([3]) // np.array([2.0])", "int32", [1], "float64", [1.0]),
    ("np.int8(3) - tf.constant(1)", "int32", 2, "int32", 2),
    (
        "tf.where(tf.constant([True, False]), f, np.array([0.0, 0.0]))",
        "float32",
        [1, 0],
        "float32",
        [1, 0],
    ),
]

NAMES = """
b = tf.constant(1)
f = tf.constant([1.0, 2.0])
m = tf.constant([[1.0, 2.0]])
a = np.array(1, np.int8)
c = np.array(1, np.float16)
A = np.array([[1.0], [2.0]])
"""


@contextlib.contextmanager
def legacy(on: bool):
    """NumPy behavior in legacy mode for the block when ``on``, then back as it was (the
    switch is process-wide and the suite runs in random order)."""
    saved = (STATE.enabled, STATE.prefer_float32, STATE.promotion)
    try:
        if on:
            tnp.experimental_enable_numpy_behavior()  # dtype_conversion_mode="legacy"
        yield
    finally:
        STATE.enabled, STATE.prefer_float32, STATE.promotion = saved


@pytest.mark.parametrize("numpy_behavior", [False, True], ids=["off", "legacy"])
@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_numpy_operand_as_tensorflow_converts_it(row, numpy_behavior):
    expr = row[0]
    dtype, value = row[3:5] if numpy_behavior else row[1:3]
    names = {"tf": tf, "np": np}
    exec(NAMES, names)
    with legacy(numpy_behavior):
        if dtype == ERROR:
            # TensorFlow's InvalidArgumentError (eagerkernel's is also a TypeError).
            with pytest.raises(tf.errors.InvalidArgumentError, match="must have the same dtype"):
                eval(expr, names)
            return
        out = eval(expr, names)
    assert isinstance(out, tf.Tensor), expr
    assert out.dtype.name == dtype, (expr, out.dtype.name)
    np.testing.assert_array_equal(out.numpy(), np.asarray(value, dtype=dtype))


def test_op_functions_and_operators_are_distinct_objects():
    # The operators call each two-input op's `operator` variant; the public function stays
    # the op itself (its C fast path shared by both).
    from eagerkernel.runtime.core import tensor as tensor_module

    assert tf.add.operator is not tf.add
    assert tensor_module._add is tf.add.operator
    x = tf.constant([1.0, 2.0])
    assert tf.add.operator(x, x).numpy().tolist() == [2.0, 4.0]


ORACLE = r"""
import os, sys, json
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
rows = json.loads(sys.argv[1])
NAMES = sys.argv[2]
out = {}
for numpy_behavior in (False, True):
    if numpy_behavior:
        tnp.experimental_enable_numpy_behavior()
    names = {"tf": tf, "np": np}
    exec(NAMES, names)
    for expr in rows:
        try:
            r = eval(expr, names)
            out[f"{numpy_behavior}:{expr}"] = [r.dtype.name, np.asarray(r).tolist()]
        except Exception as e:
            out[f"{numpy_behavior}:{expr}"] = ["error", type(e).__name__]
print(json.dumps(out))
"""


def _tensorflow_python() -> str | None:
    """A Python that imports TensorFlow: EAGERKERNEL_TF_PYTHON, or this one."""
    python = os.environ.get("EAGERKERNEL_TF_PYTHON", sys.executable)
    try:
        ok = subprocess.run([python, "-c", "import tensorflow"], capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return python if ok.returncode == 0 else None


def test_rows_match_tensorflow():
    """The table against TensorFlow itself, run in a separate process (NumPy behavior is
    process-wide there too); skipped where TensorFlow is not installed (set
    EAGERKERNEL_TF_PYTHON to a Python that has it)."""
    import json

    python = _tensorflow_python()
    if python is None:
        pytest.skip("TensorFlow is not installed (set EAGERKERNEL_TF_PYTHON)")
    result = subprocess.run(
        [python, "-c", textwrap.dedent(ORACLE), json.dumps([r[0] for r in ROWS]), NAMES],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    got = json.loads(result.stdout.strip().splitlines()[-1])
    for expr, off_dtype, off_value, on_dtype, on_value in ROWS:
        for numpy_behavior, dtype, value in (
            (False, off_dtype, off_value),
            (True, on_dtype, on_value),
        ):
            tf_dtype, tf_value = got[f"{numpy_behavior}:{expr}"]
            assert tf_dtype == dtype, (expr, numpy_behavior, tf_dtype, tf_value)
            if dtype != ERROR:
                np.testing.assert_allclose(np.asarray(tf_value, float), np.asarray(value, float))
