"""The core op and gradient tests once more with every tensor on a virtual GPU.

Each case runs under ``with ek.device("/gpu:0")`` (two NumPy-backed virtual GPUs): the result
must live on /gpu:0, match the same op on the CPU, and its gradients (checked against finite
differences by `check_gradients`, whose tensors are created inside the scope) must match too.
"""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

rng = np.random.default_rng(0)


def anyv(*shape):
    return rng.uniform(-2.0, 2.0, size=shape)


def pos(*shape):
    return rng.uniform(0.5, 2.0, size=shape)


@pytest.fixture(autouse=True)
def virtual_gpus():
    ek.config.experimental.set_virtual_gpus(2)


# (name, function of tensors, argument makers); every argument is float64 for the checks.
CASES = [
    ("negative", ek.negative, (anyv(3, 4),)),
    ("abs", ek.abs, (anyv(3, 4),)),
    ("exp", ek.exp, (anyv(3, 4),)),
    ("log", ek.log, (pos(3, 4),)),
    ("sqrt", ek.sqrt, (pos(3, 4),)),
    ("tanh", ek.tanh, (anyv(3, 4),)),
    ("sigmoid", ek.sigmoid, (anyv(3, 4),)),
    ("sin", ek.sin, (anyv(3, 4),)),
    ("add", ek.add, (anyv(2, 3), anyv(3))),
    ("subtract", ek.subtract, (anyv(2, 3), anyv(3))),
    ("multiply", ek.multiply, (anyv(2, 3), anyv(1, 3))),
    ("divide", ek.divide, (anyv(2, 3), pos(3))),
    ("pow", ek.pow, (pos(2, 3), anyv(3))),
    ("maximum", ek.maximum, (anyv(2, 3), anyv(2, 3))),
    ("squared_difference", ek.squared_difference, (anyv(2, 3), anyv(3))),
    ("matmul", ek.matmul, (anyv(3, 4), anyv(4, 2))),
    ("reduce_sum", lambda x: ek.reduce_sum(x, axis=1), (anyv(3, 4),)),
    ("reduce_mean", lambda x: ek.reduce_mean(x), (anyv(3, 4),)),
    ("reduce_max", lambda x: ek.reduce_max(x, axis=0), (anyv(3, 4),)),
    ("reshape", lambda x: ek.reshape(x, (4, 3)) * 2.0, (anyv(3, 4),)),
    ("transpose", lambda x: ek.transpose(x) * 3.0, (anyv(3, 4),)),
    ("concat", lambda x, y: ek.concat([x, y], axis=0), (anyv(2, 3), anyv(1, 3))),
    ("gather", lambda x: ek.gather(x, [2, 0, 2]), (anyv(3, 4),)),
    ("cumsum", lambda x: ek.cumsum(x, axis=1), (anyv(3, 4),)),
    ("tile", lambda x: ek.tile(x, [2, 1]), (anyv(2, 3),)),
    ("einsum", lambda x, y: ek.einsum("ij,jk->ik", x, y), (anyv(2, 3), anyv(3, 2))),
    ("relu", ek.nn.relu, (anyv(3, 4),)),
    ("softmax", ek.nn.softmax, (anyv(3, 4),)),
    (
        "sparse_softmax_xent",
        lambda z: ek.nn.sparse_softmax_cross_entropy_with_logits(
            labels=ek.cast(ek.argmin(z, axis=1), ek.int32), logits=z
        ),
        (anyv(3, 4),),
    ),
    (
        "conv2d",
        lambda x, w: ek.nn.conv2d(x, w, strides=1, padding="SAME"),
        (anyv(2, 5, 5, 2), anyv(3, 3, 2, 3)),
    ),
    ("max_pool2d", lambda x: ek.nn.max_pool2d(x, 2, 2, "VALID"), (anyv(1, 4, 4, 2),)),
    ("avg_pool2d", lambda x: ek.nn.avg_pool2d(x, 2, 2, "VALID"), (anyv(1, 4, 4, 2),)),
]


@pytest.mark.parametrize(("name", "fn", "args"), CASES, ids=[c[0] for c in CASES])
def test_op_on_virtual_gpu_matches_cpu(name, fn, args):
    cpu = fn(*[ek.constant(a) for a in args])
    with ek.device("/gpu:0"):
        inputs = [ek.constant(a) for a in args]
        assert all(x.device == "/job:localhost/replica:0/task:0/device:GPU:0" for x in inputs)
        out = fn(*inputs)
    assert out.device == "/job:localhost/replica:0/task:0/device:GPU:0"
    np.testing.assert_allclose(out.numpy(), cpu.numpy(), rtol=1e-12, atol=1e-12)
    # Outside a scope the op follows its GPU inputs.
    assert fn(*inputs).device == "/job:localhost/replica:0/task:0/device:GPU:0"


@pytest.mark.parametrize(("name", "fn", "args"), CASES, ids=[c[0] for c in CASES])
def test_gradients_on_virtual_gpu(name, fn, args):
    with ek.device("/gpu:0"):
        check_gradients(fn, *args)
        xs = [ek.constant(a) for a in args]
        with ek.GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            y = ek.reduce_sum(fn(*xs))
        grads = tape.gradient(y, xs)
    assert all(
        g is None or g.device == "/job:localhost/replica:0/task:0/device:GPU:0" for g in grads
    )
    xs_cpu = [ek.constant(a) for a in args]
    with ek.GradientTape() as tape:
        for x in xs_cpu:
            tape.watch(x)
        y = ek.reduce_sum(fn(*xs_cpu))
    for g, gc in zip(grads, tape.gradient(y, xs_cpu)):
        if gc is not None:
            np.testing.assert_allclose(g.numpy(), gc.numpy(), rtol=1e-12, atol=1e-12)


def test_second_order_gradient_on_virtual_gpu():
    with ek.device("/gpu:0"):
        check_gradients(lambda x: ek.tanh(x) * ek.exp(x), anyv(3), order=2)


def test_all_ops_followed_by_copy_back_to_cpu_on_gpu1():
    x = anyv(2, 3)
    with ek.device("/gpu:1"):
        t = ek.constant(x)
        y = ek.nn.softmax(ek.matmul(t, ek.transpose(t)))
    assert (
        y.device == "/job:localhost/replica:0/task:0/device:GPU:1"
        and y.cpu().device == "/job:localhost/replica:0/task:0/device:CPU:0"
    )
    ref = ek.nn.softmax(ek.matmul(ek.constant(x), ek.transpose(ek.constant(x))))
    np.testing.assert_allclose(y.cpu().numpy(), ref.numpy())
