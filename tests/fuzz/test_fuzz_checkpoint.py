"""Checkpoint fuzzer: a saved checkpoint mutated byte by byte (flips, overwrites, truncation,
insertion, deletion) either restores exactly the saved values or raises `CheckpointError`
naming the file, and then no variable has changed (all-or-nothing). Never another exception.

Brief in the unit suite; ``make fuzz`` runs it long (see `test_fuzz_ops`).
"""

import os
import tempfile

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import eagerkernel as ek  # noqa: E402
from eagerkernel.runtime.io.checkpoint_format import CheckpointError  # noqa: E402

LONG = os.environ.get("EAGERKERNEL_FUZZ") == "long"
FUZZ = settings(
    max_examples=int(os.environ.get("EAGERKERNEL_FUZZ_EXAMPLES", "20000")) if LONG else 80,
    deadline=None,
    derandomize=not LONG,
    suppress_health_check=list(HealthCheck),
)


def objects():
    model = ek.keras.Sequential([ek.keras.layers.Dense(3, input_shape=(2,))])
    model(np.ones((1, 2), np.float32))
    opt = ek.keras.optimizers.Adam(0.1)
    step = ek.Variable(0, dtype="int64", trainable=False)
    return model, opt, step


def _saved():
    model, opt, step = objects()
    x = np.ones((4, 2), np.float32)
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(model(x) ** 2)
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.variables))
    step.assign(np.int64(7))
    with tempfile.TemporaryDirectory(prefix="ek-fuzz-ckpt-") as directory:
        path = ek.train.Checkpoint(model=model, optimizer=opt, step=step).write(
            os.path.join(directory, "saved")
        )
        with open(path + ".safetensors", "rb") as f:
            data = f.read()
    return data, [v.numpy() for v in [*model.variables, opt.iterations, step]]


DATA, SAVED_VALUES = _saved()


@st.composite
def mutations(draw):
    data = bytearray(DATA)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "byte", "truncate", "insert", "delete"]))
        # Half the mutations land in the header (JSON + graph), where parsing is hardest.
        header = int.from_bytes(DATA[:8], "little") + 8
        hi = len(data) - 1 if draw(st.booleans()) else min(header, len(data) - 1)
        if hi < 0:
            break
        pos = draw(st.integers(0, hi))
        if kind == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte":
            data[pos] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=8))
        else:
            del data[pos : pos + draw(st.integers(1, 8))]
    return bytes(data)


@FUZZ
@given(data=mutations())
def test_mutated_checkpoint_restores_exactly_or_raises_checkpoint_error(data):
    with tempfile.TemporaryDirectory(prefix="ek-fuzz-mut-") as directory:
        _check_mutated(os.path.join(directory, "mutated"), data)


def _check_mutated(prefix, data):
    with open(prefix + ".safetensors", "wb") as f:
        f.write(data)
    model, opt, step = objects()
    # Slots exist before the restore, so every value is assigned at once (or none is).
    opt.apply_gradients([(np.zeros(v.shape, np.float32), v) for v in model.variables])
    variables = [*model.variables, *opt.variables]
    before = [v.numpy() for v in [*variables, step]]
    ckpt = ek.train.Checkpoint(model=model, optimizer=opt, step=step)
    try:
        ckpt.restore(prefix)
    except CheckpointError as exc:
        assert "mutated.safetensors" in str(exc)
        for v, b in zip([*variables, step], before):
            np.testing.assert_array_equal(v.numpy(), b)
        return
    # The restore succeeded: only a mutation that kept the meaning (e.g. JSON whitespace).
    after = [*model.variables, opt.iterations, step]
    for v, saved in zip(after, SAVED_VALUES):
        np.testing.assert_array_equal(v.numpy(), saved)
