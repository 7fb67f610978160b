"""Optimizers: Keras's and TF 1.x's update formulas, slots, all-or-nothing, copy-on-write."""

from __future__ import annotations

import math
import threading
import warnings

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.compat import v1 as compat_v1
from eagerkernel.runtime.core.device import Device
from eagerkernel.runtime.keras import optimizers
from eagerkernel.runtime.keras.optimizers import base as opt_base
from eagerkernel.runtime.keras.optimizers import inplace, schedules
from eagerkernel.runtime.native import kernels, parallel

train = compat_v1.train

try:
    import torch
except ImportError:  # torch is an optional oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

X0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
GRADS = [
    np.array([[0.1, -0.2, 0.3], [0.4, -0.5, 0.6]], dtype=np.float32),
    np.array([[-0.3, 0.1, 0.2], [0.05, 0.7, -0.4]], dtype=np.float32),
    np.array([[0.2, 0.2, -0.1], [-0.6, 0.3, 0.9]], dtype=np.float32),
]


def run(opt, steps=3, x0=X0, grads=GRADS):
    """Applies ``grads`` one step each to a variable starting at ``x0``; returns its values."""
    v = ek.Variable(x0, name="dense/kernel")
    out = []
    for g in grads[:steps]:
        opt.apply_gradients([(ek.constant(g), v)])
        out.append(v.numpy().copy())
    return v, out


# -- closed forms, written out in float64 NumPy from Keras's and TF 1.x's formulas -----------------


def sgd_ref(lr, momentum=0.0, nesterov=False):
    x, vel, out = X0.astype(np.float64), np.zeros_like(X0, np.float64), []
    for g in GRADS:
        if momentum == 0:
            x = x - lr * g
        else:
            vel = momentum * vel - lr * g
            x = x + (momentum * vel - lr * g if nesterov else vel)
        out.append(x)
    return out


def adam_ref(lr, b1=0.9, b2=0.999, eps=1e-7, amsgrad=False):
    x = X0.astype(np.float64)
    m, v, vhat, out = 0.0, 0.0, 0.0, []
    for t, g in enumerate(GRADS, start=1):
        lr_t = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vhat = np.maximum(vhat, v)
        x = x - lr_t * m / (np.sqrt(vhat if amsgrad else v) + eps)
        out.append(x)
    return out


def rmsprop_ref(lr, rho=0.9, momentum=0.0, eps=1e-7, centered=False, rms0=0.0):
    x = X0.astype(np.float64)
    rms, mg, mom, out = rms0, 0.0, 0.0, []
    for g in GRADS:
        rms = rho * rms + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            den = rms - mg * mg + eps
        else:
            den = rms + eps
        inc = lr * g / np.sqrt(den)
        mom = momentum * mom + inc
        x = x - mom
        out.append(x)
    return out


def adagrad_ref(lr, init=0.1, eps=1e-7):
    x, acc, out = X0.astype(np.float64), init, []
    for g in GRADS:
        acc = acc + g * g
        x = x - lr * g / np.sqrt(acc + eps)
        out.append(x)
    return out


def tf1_momentum_ref(lr, momentum, nesterov=False):
    x, acc, out = X0.astype(np.float64), 0.0, []
    for g in GRADS:
        acc = momentum * acc + g
        x = x - lr * (g + momentum * acc if nesterov else acc)
        out.append(x)
    return out


CASES = [
    (lambda: optimizers.SGD(0.1), sgd_ref(0.1)),
    (lambda: optimizers.SGD(0.1, momentum=0.9), sgd_ref(0.1, 0.9)),
    (lambda: optimizers.SGD(0.1, momentum=0.9, nesterov=True), sgd_ref(0.1, 0.9, True)),
    (lambda: optimizers.Adam(0.01), adam_ref(0.01)),
    (lambda: optimizers.Adam(0.01, beta_1=0.5, beta_2=0.9), adam_ref(0.01, 0.5, 0.9)),
    (lambda: optimizers.Adam(0.01, amsgrad=True), adam_ref(0.01, amsgrad=True)),
    (lambda: optimizers.RMSprop(0.01), rmsprop_ref(0.01)),
    (lambda: optimizers.RMSprop(0.01, momentum=0.8), rmsprop_ref(0.01, momentum=0.8)),
    (lambda: optimizers.RMSprop(0.01, centered=True), rmsprop_ref(0.01, centered=True)),
    (
        lambda: optimizers.RMSprop(0.01, rho=0.8, momentum=0.5, centered=True),
        rmsprop_ref(0.01, rho=0.8, momentum=0.5, centered=True),
    ),
    (lambda: optimizers.Adagrad(0.1), adagrad_ref(0.1)),
    (lambda: optimizers.Adagrad(0.1, initial_accumulator_value=0.5), adagrad_ref(0.1, 0.5)),
    (lambda: train.GradientDescentOptimizer(0.1), sgd_ref(0.1)),
    (lambda: train.MomentumOptimizer(0.1, 0.9), tf1_momentum_ref(0.1, 0.9)),
    (
        lambda: train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        tf1_momentum_ref(0.1, 0.9, True),
    ),
    (lambda: train.AdamOptimizer(0.01), adam_ref(0.01, eps=1e-8)),
    (lambda: train.RMSPropOptimizer(0.01), rmsprop_ref(0.01, eps=1e-10, rms0=1.0)),
    (
        lambda: train.RMSPropOptimizer(0.01, momentum=0.9, centered=True),
        rmsprop_ref(0.01, momentum=0.9, eps=1e-10, centered=True, rms0=1.0),
    ),
    (lambda: train.AdagradOptimizer(0.1), adagrad_ref(0.1, eps=0.0)),
]


@pytest.mark.parametrize("make, expected", CASES)
def test_first_three_steps_match_the_closed_form(make, expected):
    opt = make()
    v, got = run(opt)
    for step, (g, e) in enumerate(zip(got, expected), start=1):
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=2e-7, err_msg=f"step {step}")
    assert v.dtype == ek.float32
    assert all(s.dtype == ek.float32 for s in opt.variables[1:])
    assert int(opt.iterations) == 3


@pytest.mark.parametrize("make, expected", CASES)
def test_split_updates_match_the_closed_form(monkeypatch, make, expected):
    # Every variable takes the deferred, split path, in three parts of unequal length (Adam's
    # NumPy kernel too: its C kernel, which runs whole, is switched off).
    monkeypatch.setattr(kernels, "_kernels", None)
    monkeypatch.setattr(opt_base, "PARALLEL_MIN", 1)
    monkeypatch.setattr(parallel, "cores", lambda: 3)
    _, got = run(make())
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda: optimizers.Adam(1e-3, amsgrad=True), optimizers.SGD])
def test_large_variables_split_over_threads_match_the_unsplit_update(monkeypatch, make):
    rng = np.random.default_rng(0)
    monkeypatch.setattr(opt_base, "PARALLEL_MIN", 1 << 15)
    x0 = rng.standard_normal((300, 257)).astype(np.float32)  # above PARALLEL_MIN, not CHUNK
    grads = [rng.standard_normal(x0.shape).astype(np.float32) for _ in range(3)]
    threads = set()
    kernel_runner = inplace._run_parts

    def spy(*args):
        threads.add(threading.current_thread().name)
        kernel_runner(*args)

    monkeypatch.setattr(inplace, "_run_parts", spy)
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    _, split = run(make(), x0=x0, grads=grads)
    assert "MainThread" in threads
    assert any(t.startswith("eagerkernel-worker") for t in threads)
    monkeypatch.setattr(opt_base, "PARALLEL_MIN", x0.size + 1)
    threads.clear()
    _, whole = run(make(), x0=x0, grads=grads)
    assert not threads
    for a, b in zip(split, whole):
        np.testing.assert_array_equal(a, b)  # the same arithmetic per element


def test_a_worker_error_rolls_back_a_split_update(monkeypatch):
    monkeypatch.setattr(kernels, "_kernels", None)  # Adam's NumPy kernel, split over threads
    monkeypatch.setattr(parallel, "cores", lambda: 2)
    monkeypatch.setattr(opt_base, "PARALLEL_MIN", 1 << 15)
    v = ek.Variable(np.ones(1 << 16, np.float32))
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(np.ones(v.shape, np.float32), v)])
    before = snapshot(opt, [v])
    huge = np.ones(v.shape, np.float32)
    huge[-1] = 1e30  # in the worker's half: g * g overflows there only
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        opt.apply_gradients([(huge, v)])
    for x, y in zip(before, snapshot(opt, [v])):
        np.testing.assert_array_equal(x, y)


def test_slots_never_decay_into_subnormal_floats():
    # A weight whose gradient stops (a dead ReLU's) has Adam's m shrink by 0.9 a step: it would
    # be subnormal after ~650 steps, where x86 arithmetic is several times slower.
    v = ek.Variable([1.0, 1.0])
    opt = optimizers.Adam(1e-3)
    opt.apply_gradients([(np.array([1.0, 1.0], np.float32), v)])
    for _ in range(899):
        opt.apply_gradients([(np.array([0.0, 0.5], np.float32), v)])
    m = opt.get_slot(v, "m").numpy()
    assert m[0] == 0.0  # flushed; unflushed it would be 0.1 * 0.9**899 = 6e-43, subnormal
    np.testing.assert_allclose(m[1], 0.5, rtol=1e-5)  # a live slot is untouched
    assert opt.get_slot_names() == ["m", "v"]
    for name in opt.get_slot_names():
        values = np.abs(opt.get_slot(v, name).numpy())
        assert not np.any((values > 0) & (values < np.finfo(np.float32).tiny))


def test_defaults_follow_keras_and_tf1():
    sgd, adam = optimizers.SGD(), optimizers.Adam()
    rms, ada = optimizers.RMSprop(), optimizers.Adagrad()
    assert (float(sgd.learning_rate), sgd.momentum, sgd.nesterov) == (pytest.approx(0.01), 0, False)
    assert (adam.beta_1, adam.beta_2, adam.epsilon, adam.amsgrad) == (0.9, 0.999, 1e-7, False)
    assert float(adam.learning_rate) == pytest.approx(0.001)
    assert (rms.rho, rms.momentum, rms.epsilon, rms.centered) == (0.9, 0.0, 1e-7, False)
    assert (ada.initial_accumulator_value, ada.epsilon) == (0.1, 1e-7)
    tf1_adam, tf1_rms = train.AdamOptimizer(), train.RMSPropOptimizer(0.1)
    assert tf1_adam.epsilon == 1e-8
    assert (tf1_rms.rho, tf1_rms.momentum, tf1_rms.epsilon) == (0.9, 0.0, 1e-10)


# -- PyTorch as an independent oracle, where its formulas coincide with Keras's --------------------


def torch_run(make_opt, steps=3):
    p = torch.nn.Parameter(torch.tensor(X0, dtype=torch.float64))
    opt = make_opt([p])
    out = []
    for g in GRADS[:steps]:
        p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        out.append(p.detach().numpy().copy())
    return out


def assert_close_runs(ours, theirs, **tol):
    for step, (a, b) in enumerate(zip(ours, theirs), start=1):
        np.testing.assert_allclose(a, b, err_msg=f"step {step}", **tol)


@needs_torch
@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_momentum_matches_torch(nesterov):
    # torch keeps buf = momentum * buf + g and steps by -lr * buf; Keras's velocity is
    # -lr * buf, so with a constant learning rate the trajectories are the same.
    _, ours = run(optimizers.SGD(0.1, momentum=0.9, nesterov=nesterov))
    theirs = torch_run(lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=nesterov))
    assert_close_runs(ours, theirs, rtol=1e-6, atol=1e-7)
    _, tf1 = run(train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov))
    assert_close_runs(tf1, theirs, rtol=1e-6, atol=1e-7)


@needs_torch
@pytest.mark.parametrize("amsgrad", [False, True])
def test_adam_matches_torch(amsgrad):
    # torch: p -= lr/bc1 * m / (sqrt(v)/sqrt(bc2) + eps); Keras: p -= lr*sqrt(bc2)/bc1 * m /
    # (sqrt(v) + eps). With eps = 0 they are the same formula.
    _, ours = run(optimizers.Adam(0.01, epsilon=0.0, amsgrad=amsgrad))
    theirs = torch_run(lambda ps: torch.optim.Adam(ps, lr=0.01, eps=0.0, amsgrad=amsgrad))
    assert_close_runs(ours, theirs, rtol=1e-6, atol=1e-7)
    # With the defaults, the epsilons differ by a factor sqrt(bc2) <= 1 and both are tiny
    # next to sqrt(v) ~ |g|: the results agree to about eps / |g| relative to the step.
    _, ours = run(optimizers.Adam(0.01, amsgrad=amsgrad))
    theirs = torch_run(lambda ps: torch.optim.Adam(ps, lr=0.01, eps=1e-7, amsgrad=amsgrad))
    assert_close_runs(ours, theirs, rtol=0, atol=1e-5)


@needs_torch
@pytest.mark.parametrize("momentum, centered", [(0.0, False), (0.9, False), (0.5, True)])
def test_rmsprop_matches_torch(momentum, centered):
    # torch adds eps outside the square root, Keras inside: compare with eps = 0.
    opt = optimizers.RMSprop(0.01, rho=0.9, momentum=momentum, epsilon=0.0, centered=centered)
    _, ours = run(opt)
    theirs = torch_run(
        lambda ps: torch.optim.RMSprop(
            ps, lr=0.01, alpha=0.9, eps=0.0, momentum=momentum, centered=centered
        )
    )
    assert_close_runs(ours, theirs, rtol=2e-6, atol=1e-7)


@needs_torch
def test_adagrad_matches_torch():
    _, ours = run(optimizers.Adagrad(0.1, initial_accumulator_value=0.1, epsilon=0.0))
    theirs = torch_run(
        lambda ps: torch.optim.Adagrad(ps, lr=0.1, initial_accumulator_value=0.1, eps=0.0)
    )
    assert_close_runs(ours, theirs, rtol=1e-6, atol=1e-7)
    _, tf1 = run(train.AdagradOptimizer(0.1))
    assert_close_runs(tf1, theirs, rtol=1e-6, atol=1e-7)


# -- slots, iterations, variables ----------------------------------------------------------------


def test_slot_names_and_variables():
    opt = optimizers.Adam(amsgrad=True)
    v, _ = run(opt, steps=1)
    assert [s.name for s in opt.variables[1:]] == [
        "dense/kernel/m:0",
        "dense/kernel/v:0",
        "dense/kernel/vhat:0",
    ]
    assert opt.get_slot(v, "m") is opt.variables[1]
    assert opt.get_slot_names() == ["m", "v", "vhat"]
    assert opt.variables() == opt.variables  # Keras 2's method and TF 2.11's property
    assert all(not s.trainable for s in opt.variables)
    with pytest.raises(KeyError, match="no slot 'rms'"):
        opt.get_slot(v, "rms")
    assert optimizers.SGD().get_slot_names() == []
    assert optimizers.SGD(momentum=0.5).get_slot_names() == ["momentum"]
    rms = optimizers.RMSprop(momentum=0.5, centered=True)
    assert rms.get_slot_names() == ["rms", "mg", "momentum"]
    assert train.RMSPropOptimizer(0.1).get_slot_names() == ["rms", "momentum"]


def test_build_creates_slots_once_and_keeps_them():
    v = ek.Variable(X0)
    opt = optimizers.Adam()
    opt.build([v])
    m = opt.get_slot(v, "m")
    opt.build([v])
    opt.apply_gradients([(GRADS[0], v)])
    assert opt.get_slot(v, "m") is m and len(opt.variables) == 3


def test_iterations_is_a_non_trainable_int64_variable():
    opt = optimizers.SGD(0.1)
    it = opt.iterations
    assert isinstance(it, ek.Variable) and it.dtype == ek.int64 and not it.trainable
    v = ek.Variable(1.0)
    for _ in range(3):
        assert opt.apply_gradients([(1.0, v)]) is it
    assert int(it) == 3 and it.dtype == ek.int64
    assert float(v) == pytest.approx(0.7)
    assert isinstance(v.numpy(), np.float32)  # rank 0 stays a NumPy scalar


def test_slots_live_on_the_variables_device():
    gpu = Device("GPU", 7, np, virtual=True)
    with ek.device(gpu):
        v = ek.Variable(X0)
    opt = optimizers.Adam(0.01)
    opt.apply_gradients([(ek.constant(GRADS[0]), v)])  # the gradient is on the CPU
    assert (
        opt.get_slot(v, "m").device == "/job:localhost/replica:0/task:0/device:GPU:7"
        and opt.get_slot(v, "v").device == "/job:localhost/replica:0/task:0/device:GPU:7"
    )
    assert v.device == "/job:localhost/replica:0/task:0/device:GPU:7"
    np.testing.assert_allclose(v.numpy(), adam_ref(0.01)[0], rtol=2e-6)


def test_float64_and_float16_variables_keep_their_dtype():
    for dt, atol in ((np.float64, 1e-6), (np.float16, 1e-3)):
        v = ek.Variable(X0.astype(dt))
        opt = optimizers.Adam(0.01)
        opt.apply_gradients([(GRADS[0].astype(dt), v)])
        assert v.dtype == ek.as_dtype(dt) and v.numpy().dtype == dt
        for name in ("m", "v"):
            slot = opt.get_slot(v, name)
            assert slot.dtype == ek.as_dtype(dt) and slot.numpy().dtype == dt
        # Adam's first step moves each weight by about lr = 0.01 against its gradient's sign.
        expected = X0.astype(np.float64) - 0.01 * np.sign(GRADS[0])
        np.testing.assert_allclose(v.numpy(), expected, rtol=0, atol=atol)


# -- None gradients, bad gradients and the all-or-nothing rule -------------------------------------


def test_none_gradients_are_skipped_with_a_warning():
    a, b = ek.Variable(1.0, name="a"), ek.Variable(2.0, name="b")
    opt = optimizers.SGD(0.5)
    with pytest.warns(UserWarning, match=r"\['b:0'\]"):
        opt.apply_gradients([(ek.constant(1.0), a), (None, b)])
    assert float(a) == 0.5 and float(b) == 2.0


def test_all_none_gradients_raise():
    a, b = ek.Variable(1.0, name="a"), ek.Variable(2.0, name="b")
    opt = optimizers.Adam()
    with pytest.raises(
        ValueError, match=r"No gradients provided for any variable: \['a:0', 'b:0'\]"
    ):
        opt.apply_gradients([(None, a), (None, b)])
    assert int(opt.iterations) == 0 and opt.variables == [opt.iterations]


def test_tf1_skips_none_gradients_silently():
    a, b = ek.Variable(1.0), ek.Variable(2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # silently: a warning would raise here
        train.GradientDescentOptimizer(0.5).apply_gradients([(1.0, a), (None, b)])
    assert float(a) == 0.5
    assert float(b) == 2.0  # skipped: not updated


def snapshot(opt, variables):
    state = [v.numpy().copy() for v in variables]
    state += [v.numpy().copy() for v in opt.variables]
    return state


@pytest.mark.parametrize(
    "make",
    [
        lambda: optimizers.SGD(0.1, momentum=0.9),
        lambda: optimizers.Adam(0.1),
        lambda: optimizers.RMSprop(0.1, momentum=0.5, centered=True),
        lambda: optimizers.Adagrad(0.1),
        lambda: train.MomentumOptimizer(0.1, 0.9),
    ],
)
def test_a_failed_step_changes_nothing(make):
    opt = make()
    a = ek.Variable(X0, name="a")
    b = ek.Variable(np.ones(3, np.float32), name="b")
    opt.apply_gradients([(GRADS[0], a), (np.ones(3, np.float32), b)])  # slots now exist
    before = snapshot(opt, [a, b])
    bad_shape = [(GRADS[1], a), (np.ones(4, np.float32), b)]
    with pytest.raises(ValueError, match=r"b:0 has shape \(4,\), the variable has shape \(3,\)"):
        opt.apply_gradients(bad_shape)
    bad_dtype = [(GRADS[1], a), (np.ones(3, np.float64), b)]
    with pytest.raises(ValueError, match="b:0 has dtype float64, the variable has dtype float32"):
        opt.apply_gradients(bad_dtype)
    with pytest.raises(ValueError, match="appears more than once"):
        opt.apply_gradients([(GRADS[1], a), (GRADS[2], a)])
    after = snapshot(opt, [a, b])
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)
    assert int(opt.iterations) == 1


def test_a_failed_first_step_creates_no_slots():
    a, b = ek.Variable(X0), ek.Variable(np.ones(3, np.float32))
    opt = optimizers.Adam()
    with pytest.raises(ValueError):
        opt.apply_gradients([(GRADS[0], a), (np.ones(2, np.float32), b)])
    assert opt.variables == [opt.iterations]


def test_a_failing_constraint_rolls_back_every_update():
    def bad(_):
        raise RuntimeError("constraint failed")

    a = ek.Variable(X0, name="a")
    b = ek.Variable(np.ones(3, np.float32), name="b", constraint=bad)
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(GRADS[0], a)])
    before = snapshot(opt, [a, b])
    with pytest.raises(RuntimeError, match="constraint failed"):
        opt.apply_gradients([(GRADS[1], a), (np.ones(3, np.float32), b)])
    after = snapshot(opt, [a, b])
    # a, b, iterations, a's m and v are as they were; b's slots exist, still at zero.
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)
    assert [s.name for s in opt.variables[3:]] == ["b/m:0", "b/v:0"]
    assert not opt.get_slot(b, "m").numpy().any() and not opt.get_slot(b, "v").numpy().any()


def test_constraints_apply_after_the_update():
    v = ek.Variable([1.0, -1.0], constraint=lambda w: ek.maximum(w, 0.0))
    optimizers.SGD(0.5).apply_gradients([(ek.constant([1.0, 1.0]), v)])
    np.testing.assert_array_equal(v.numpy(), [0.5, 0.0])


def test_floating_point_errors_set_to_raise_roll_back():
    v = ek.Variable(np.ones(3, np.float32))
    opt = optimizers.Adam(0.1)
    opt.apply_gradients([(np.ones(3, np.float32), v)])
    before = snapshot(opt, [v])
    huge = np.full(3, 1e30, np.float32)  # g * g overflows float32
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        opt.apply_gradients([(huge, v)])
    for x, y in zip(before, snapshot(opt, [v])):
        np.testing.assert_array_equal(x, y)


def test_wrong_items_raise_type_errors():
    opt = optimizers.SGD()
    with pytest.raises(TypeError, match="expected a Variable"):
        opt.apply_gradients([(1.0, ek.constant(1.0))])
    with pytest.raises(TypeError, match="pairs"):
        opt.apply_gradients([1.0])


# -- copy-on-write: in place when unshared, snapshots kept ----------------------------------------


def owned(holder) -> bool:
    # The call shape the optimizer uses; an `assert` would keep `holder._value` referenced
    # in pytest's rewritten temporaries.
    return inplace._owned(holder._value)


def test_owned_detects_other_references():
    v = ek.Variable(np.ones(4, np.float32))
    assert owned(v)
    kept = np.asarray(v)  # a read-only view: its base is the variable's array
    assert not owned(v)
    del kept
    view = ek.Variable(np.ones(4, np.float32))
    view._value = v._value[1:]
    assert not owned(v)  # the view's base references the array
    assert not owned(view)  # and a view is never written in place
    del view
    assert owned(v)
    scalar = ek.Variable(1.0)
    scalar._value = np.float32(1.0)
    assert not owned(scalar)  # NumPy scalars are immutable


def test_a_plain_training_step_updates_in_place():
    layer_w = ek.Variable(X0)
    opt = optimizers.Adam(0.01)
    ids = None
    for _ in range(3):
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(layer_w * layer_w)
        grads = tape.gradient(loss, [layer_w])
        opt.apply_gradients(zip(grads, [layer_w]))
        now = (id(layer_w._value), id(opt.get_slot(layer_w, "m")._value))
        assert ids is None or now == ids
        ids = now


def test_a_tape_snapshot_taken_before_the_step_keeps_the_old_value():
    v = ek.Variable(X0)
    opt = optimizers.SGD(0.1, momentum=0.9)
    opt.apply_gradients([(GRADS[0], v)])
    with ek.GradientTape(persistent=True) as tape:
        y = ek.reduce_sum(v * v)
    old = v.numpy().copy()
    held = v.numpy()  # an array handed to the user must not change either
    opt.apply_gradients([(GRADS[1], v)])
    assert not np.array_equal(v.numpy(), old)
    np.testing.assert_array_equal(held, old)
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), 2 * old)  # the snapshot's value
    del tape, held
    before = id(v._value)
    opt.apply_gradients([(GRADS[2], v)])
    assert id(v._value) == before  # nothing shares it any more: back to in place


def test_read_value_tensors_are_not_modified():
    v = ek.Variable(X0)
    r = v.read_value()
    optimizers.SGD(1.0).apply_gradients([(GRADS[0], v)])
    np.testing.assert_array_equal(r.numpy(), X0)


# -- learning rates ------------------------------------------------------------------------------


def test_learning_rate_schedule_callable_of_the_step():
    seen = []

    def schedule(step):
        seen.append(step)
        return 0.1 if step < 1 else 0.01

    opt = optimizers.SGD(learning_rate=schedule)
    _, got = run(opt, steps=2, x0=np.zeros((2, 3), np.float32))
    assert seen == [0, 1]
    np.testing.assert_allclose(got[1], -0.1 * GRADS[0] - 0.01 * GRADS[1], rtol=1e-6)


def test_keras_schedules_and_zero_argument_callables():
    s = schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)
    opt = optimizers.SGD(learning_rate=s)
    _, got = run(opt, steps=3, x0=np.zeros((2, 3), np.float32))
    np.testing.assert_allclose(
        got[2], -(0.1 * GRADS[0] + 0.05 * GRADS[1] + 0.025 * GRADS[2]), rtol=1e-6
    )
    _, got = run(
        optimizers.SGD(learning_rate=lambda: 0.5), steps=1, x0=np.zeros((2, 3), np.float32)
    )
    np.testing.assert_allclose(got[0], -0.5 * GRADS[0], rtol=1e-6)
    cfg = optimizers.SGD(learning_rate=s).get_config()
    assert cfg["learning_rate"]["class_name"] == "ExponentialDecay"
    again = optimizers.SGD.from_config(cfg)
    assert again.get_config()["learning_rate"] == cfg["learning_rate"]


def test_learning_rate_of_a_schedule_is_its_current_value_as_keras_3():
    # Keras 3: ``optimizer.learning_rate`` is the schedule's value at `iterations` (a float32
    # tensor), and a number cannot be set over a schedule (TypeError).
    opt = optimizers.SGD(learning_rate=schedules.ExponentialDecay(0.1, 1, 0.5))
    assert opt.learning_rate.dtype == ek.float32
    assert float(opt.learning_rate) == pytest.approx(0.1)
    v = ek.Variable(1.0)
    opt.apply_gradients([(1.0, v)])
    assert float(opt.learning_rate) == float(opt.lr) == pytest.approx(0.05)
    with pytest.raises(TypeError, match="hence its learning rate is not settable"):
        opt.learning_rate = 0.01
    assert float(optimizers.SGD(learning_rate=lambda: 0.25).learning_rate) == 0.25
    opt.learning_rate = schedules.ExponentialDecay(1.0, 1, 0.5)  # a new schedule replaces it
    assert float(opt.learning_rate) == pytest.approx(0.5)


def test_learning_rate_can_be_changed():
    opt = optimizers.SGD(0.1)
    opt.learning_rate = 0.5
    assert float(opt.lr) == 0.5
    opt.learning_rate.assign(0.25)
    v = ek.Variable(1.0)
    opt.apply_gradients([(1.0, v)])
    assert float(v) == 0.75
    with pytest.raises(ValueError, match="learning_rate"):
        optimizers.SGD("fast")


def test_tf1_learning_rate_may_be_a_zero_argument_callable():
    step = ek.Variable(0, dtype=ek.int64, trainable=False)
    lr = train.exponential_decay(0.1, step, decay_steps=1, decay_rate=0.5)
    opt = train.GradientDescentOptimizer(lr)
    v = ek.Variable(0.0)
    for _ in range(2):
        opt.apply_gradients([(1.0, v)], global_step=step)
    assert float(v) == pytest.approx(-0.15) and int(step) == 2


# -- minimize --------------------------------------------------------------------------------------


def test_minimize_with_a_callable_loss():
    w = ek.Variable([1.0, -2.0])
    b = ek.Variable(0.5)
    opt = optimizers.SGD(0.1)
    opt.minimize(lambda: ek.reduce_sum(w * w) + b * b, var_list=[w, b])
    np.testing.assert_allclose(w.numpy(), [0.8, -1.6], rtol=1e-6)
    assert float(b) == pytest.approx(0.4)
    opt.minimize(lambda: ek.reduce_sum(w * w))  # var_list: the variables it read
    np.testing.assert_allclose(w.numpy(), [0.64, -1.28], rtol=1e-6)
    opt.minimize(lambda: w[0] * 3.0, var_list=lambda: [w])
    np.testing.assert_allclose(w.numpy(), [0.34, -1.28], rtol=1e-5)


def test_minimize_with_a_tensor_loss_needs_the_tape():
    w = ek.Variable(2.0)
    opt = optimizers.SGD(0.25)
    with ek.GradientTape() as tape:
        loss = w * w
    with pytest.raises(ValueError, match="tape"):
        opt.minimize(loss, var_list=[w])
    opt.minimize(loss, var_list=[w], tape=tape)
    assert float(w) == 1.0


def test_minimize_raises_when_nothing_is_connected():
    w, u = ek.Variable(1.0, name="w"), ek.Variable(1.0, name="u")
    with pytest.raises(ValueError, match="No gradients provided"):
        optimizers.Adam().minimize(lambda: u * 2.0, var_list=[w])
    assert float(w) == 1.0


def test_a_failing_forward_pass_changes_nothing():
    w = ek.Variable(X0)
    opt = optimizers.Adam()

    def loss():
        ek.reduce_sum(w * w)  # the tape records, then the forward pass fails
        raise RuntimeError("forward failed")

    with pytest.raises(RuntimeError, match="forward failed"):
        opt.minimize(loss, var_list=[w])
    np.testing.assert_array_equal(w.numpy(), X0)
    assert int(opt.iterations) == 0


# -- clipping, weight decay, configuration ---------------------------------------------------------


def test_gradient_clipping():
    g = np.array([3.0, 4.0], np.float32)  # norm 5
    for kwargs, expected in [
        ({"clipnorm": 1.0}, [-0.6, -0.8]),
        ({"global_clipnorm": 2.5}, [-1.5, -2.0]),
        ({"clipvalue": 3.5}, [-3.0, -3.5]),
    ]:
        v = ek.Variable([0.0, 0.0])
        optimizers.SGD(1.0, **kwargs).apply_gradients([(g, v)])
        np.testing.assert_allclose(v.numpy(), expected, rtol=1e-6)
    np.testing.assert_array_equal(g, [3.0, 4.0])  # the caller's gradient is untouched
    with pytest.raises(ValueError, match="only one of clipnorm, clipvalue and global_clipnorm"):
        optimizers.SGD(clipnorm=1.0, global_clipnorm=1.0)


def test_weight_decay_is_decoupled():
    v = ek.Variable([1.0])
    optimizers.SGD(0.1, weight_decay=0.5).apply_gradients([(np.zeros(1, np.float32), v)])
    np.testing.assert_allclose(v.numpy(), [0.95], rtol=1e-6)


def test_bad_hyperparameters_and_arguments():
    with pytest.raises(ValueError, match="momentum"):
        optimizers.SGD(momentum=1.5)
    with pytest.raises(ValueError, match="beta_1"):
        optimizers.Adam(beta_1=-0.1)
    with pytest.raises(TypeError, match="Unrecognized keyword arguments passed to Adam"):
        optimizers.Adam(betas=(0.9, 0.99))
    assert float(optimizers.Adam(lr=0.5).learning_rate) == 0.5  # old Keras spelling


def test_get_and_config_round_trip():
    for name, cls in [
        ("adam", optimizers.Adam),
        ("SGD", optimizers.SGD),
        ("rmsprop", optimizers.RMSprop),
        ("Adagrad", optimizers.Adagrad),
    ]:
        assert type(optimizers.get(name)) is cls
    opt = optimizers.Adam(0.01, amsgrad=True)
    assert optimizers.get(opt) is opt
    tf1 = train.AdamOptimizer()
    assert optimizers.get(tf1) is tf1
    assert isinstance(optimizers.get(optimizers.RMSprop), optimizers.RMSprop)
    again = optimizers.get({"class_name": "Adam", "config": opt.get_config()})
    assert again.get_config() == opt.get_config()
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        optimizers.get("adamz")  # AdamW exists now


def test_get_and_set_weights():
    opt = optimizers.Adam()
    v, _ = run(opt, steps=1)
    weights = opt.get_weights()
    other = optimizers.Adam()
    other.build([v])
    assert int(other.iterations) == 0
    other.set_weights(weights)
    # [iterations, m, v] after one step from zero slots: 1, (1 - beta_1) g, (1 - beta_2) g^2.
    g = GRADS[0].astype(np.float64)
    expected = [1, 0.1 * g, 0.001 * g * g]
    got = other.get_weights()
    assert len(weights) == len(got) == 3 and int(other.iterations) == 1
    for a, b, e in zip(got, weights, expected):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_allclose(a, e, rtol=1e-5)
    np.testing.assert_allclose(other.get_slot(v, "m").numpy(), 0.1 * g, rtol=1e-5)


# -- TF 1.x --------------------------------------------------------------------------------------


def test_global_step_is_process_wide():
    step = train.get_or_create_global_step()
    assert train.get_or_create_global_step() is step
    assert train.get_global_step() is step
    assert step.name == "global_step:0" and step.dtype == ek.int64 and not step.trainable
    with pytest.raises(ValueError, match="already exists"):
        train.create_global_step()


def test_tf1_apply_gradients_increments_global_step():
    step = ek.Variable(0, dtype=ek.int64, trainable=False, name="global_step")
    v = ek.Variable(X0)
    opt = train.AdamOptimizer(0.01)
    for _ in range(2):
        opt.apply_gradients([(GRADS[0], v)], global_step=step)
    assert int(step) == 2
    opt.apply_gradients([(GRADS[0], v)])
    assert int(step) == 2 and int(opt.iterations) == 3
    with pytest.raises(ValueError):
        opt.apply_gradients([(np.ones(2, np.float32), v)], global_step=step)
    assert int(step) == 2  # a failed step does not count


def test_tf1_minimize_and_compute_gradients():
    w = ek.Variable([1.0, 2.0], name="w")
    frozen = ek.Variable(3.0, trainable=False)
    step = ek.Variable(0, dtype=ek.int64, trainable=False)
    opt = train.GradientDescentOptimizer(0.5)
    pairs = opt.compute_gradients(lambda: ek.reduce_sum(w * w) * frozen)
    assert [v for _, v in pairs] == [w]
    np.testing.assert_allclose(pairs[0][0].numpy(), [6.0, 12.0])
    opt.minimize(lambda: ek.reduce_sum(w * w), global_step=step)
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])
    assert int(step) == 1
    with pytest.raises(RuntimeError, match="should be a function"):
        opt.compute_gradients(ek.reduce_sum(w))
    u = ek.Variable(1.0)
    with pytest.raises(ValueError, match="No gradients provided"):
        opt.minimize(lambda: ek.constant(1.0) * 2.0, var_list=[u])
    assert opt.variables() == [opt.iterations]


def test_tf1_rmsprop_starts_rms_at_one():
    v = ek.Variable(X0)
    opt = train.RMSPropOptimizer(0.01)
    opt.apply_gradients([(GRADS[0], v)])
    np.testing.assert_allclose(opt.get_slot(v, "rms").numpy(), 0.9 + 0.1 * GRADS[0] ** 2, rtol=1e-6)
    assert opt.get_slot(v, "momentum") is not None


def test_tf1_learning_rate_may_be_a_variable():
    lr = ek.Variable(0.5, trainable=False)
    opt = train.MomentumOptimizer(lr, momentum=0.0)
    v = ek.Variable(0.0)
    opt.apply_gradients([(1.0, v)])
    lr.assign(0.25)
    opt.apply_gradients([(1.0, v)])
    assert float(v) == pytest.approx(-0.75)


# `tf.keras.optimizers.serialize(Adam(0.01))` and of SGD(0.1, momentum=0.9, nesterov=True), as
# TensorFlow 2.21 (Keras 3) writes them.
KERAS_ADAM = {
    "module": "keras.optimizers",
    "class_name": "Adam",
    "config": {
        "name": "adam",
        "learning_rate": 0.009999999776482582,
        "weight_decay": None,
        "clipnorm": None,
        "global_clipnorm": None,
        "clipvalue": None,
        "use_ema": False,
        "ema_momentum": 0.99,
        "ema_overwrite_frequency": None,
        "loss_scale_factor": None,
        "gradient_accumulation_steps": None,
        "beta_1": 0.9,
        "beta_2": 0.999,
        "epsilon": 1e-07,
        "amsgrad": False,
    },
    "registered_name": None,
}


def test_configs_keras_wrote_load_and_unsupported_features_raise():
    opt = ek.keras.optimizers.deserialize(KERAS_ADAM)
    assert type(opt).__name__ == "Adam"
    config = opt.get_config()
    assert config["learning_rate"] == pytest.approx(0.01) and config["beta_2"] == 0.999
    sgd = dict(KERAS_ADAM, class_name="SGD")
    sgd["config"] = {
        k: v for k, v in KERAS_ADAM["config"].items() if k not in ("beta_1", "beta_2", "epsilon")
    }
    sgd["config"].pop("amsgrad")
    sgd["config"].update(momentum=0.9, nesterov=True)
    assert ek.keras.optimizers.deserialize(sgd).get_config()["nesterov"] is True
    # A Keras feature eagerkernel does not implement is refused, not ignored.
    with pytest.raises(NotImplementedError, match="Adam: is_legacy_optimizer=True is not"):
        ek.keras.optimizers.Adam(is_legacy_optimizer=True)
    assert ek.keras.optimizers.Adam(is_legacy_optimizer=False).get_config()["name"] == "Adam"


ADAFACTOR_GRADS = [
    [[0.5, -1.0, 2.0], [1.0, 0.2, 0.1]],
    [[0.1, 0.3, -0.2], [-2.0, 0.5, 0.0]],
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
]


@pytest.mark.parametrize(
    "make, want",
    [
        # TensorFlow 2.21's tf.keras.optimizers.Adafactor after the three steps above.
        (
            lambda: optimizers.Adafactor(0.1),
            [[0.7872608, -2.1192517, 2.7281196], [0.306348, -0.1199318, -1.1595583]],
        ),
        (
            lambda: optimizers.Adafactor(optimizers.schedules.ExponentialDecay(0.1, 1, 0.5)),
            [[0.8918269, -1.9362915, 2.8248155], [0.2790038, 0.075523, -1.0524688]],
        ),
    ],
)
def test_adafactor_steps_match_tensorflow(make, want):
    w = ek.Variable([[1.0, -2.0, 3.0], [0.5, 0.25, -1.0]])
    opt = make()
    for g in ADAFACTOR_GRADS:
        opt.apply_gradients([(ek.constant(g), w)])
    np.testing.assert_allclose(w.numpy(), want, rtol=2e-6, atol=2e-7)
    # The second moment is factored: one value per row and one per column.
    assert opt.get_slot(w, "r").shape == [2] and opt.get_slot(w, "c").shape == [3]
    assert optimizers.get("adafactor").__class__ is optimizers.Adafactor


def test_adafactor_on_a_vector_keeps_an_unfactored_moment():
    v = ek.Variable([1.0, -2.0, 3.0])
    opt = optimizers.Adafactor(0.1)
    for g in ([0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [1.0, 1.0, 1.0]):
        opt.apply_gradients([(ek.constant(g), v)])
    # TensorFlow 2.21's values for the same steps.
    np.testing.assert_allclose(v.numpy(), [0.4828947, -2.0709589, 2.6729491], rtol=2e-6)
    assert opt.get_slot(v, "v").shape == [3]
    with pytest.raises(KeyError):
        opt.get_slot(v, "r")
    again = optimizers.Adafactor.from_config(opt.get_config())
    assert again.get_config() == opt.get_config()


EMA_GRADS = [[0.5, -1.0, 2.0], [0.1, 0.3, -0.2], [1.0, 1.0, 1.0], [0.2, -0.1, 0.4]]


def test_use_ema_keeps_tensorflows_moving_average_of_the_weights():
    # TensorFlow 2.21: SGD(0.1, momentum=0.5, use_ema=True, ema_momentum=0.7,
    # ema_overwrite_frequency=3); the weights after each of four steps, then after
    # finalize_variable_values (the third step's weights are the average: overwritten).
    opt = optimizers.SGD(
        0.1, momentum=0.5, use_ema=True, ema_momentum=0.7, ema_overwrite_frequency=3
    )
    v = ek.Variable([1.0, -2.0, 3.0])
    seen = []
    for g in EMA_GRADS:
        opt.apply_gradients([(ek.constant(g), v)])
        seen.append(v.numpy().tolist())
    opt.finalize_variable_values([v])
    seen.append(v.numpy().tolist())
    want = [
        [0.95, -1.9, 2.8],
        [0.915, -1.88, 2.72],
        [0.8969, -1.9168, 2.7172],
        [0.81815, -1.9518, 2.6072],
        [0.873275, -1.9273, 2.6842],
    ]
    np.testing.assert_allclose(seen, want, rtol=1e-5)
    assert opt.get_slot(v, "average").shape == [3]
    config = opt.get_config()
    assert config["use_ema"] is True and config["ema_momentum"] == 0.7
    assert optimizers.SGD.from_config(config).ema_overwrite_frequency == 3


def test_fit_ends_with_the_moving_average_of_the_weights():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], np.float32)
    model = ek.keras.Sequential([ek.keras.layers.Dense(1, input_shape=(3,))])
    model.compile(optimizer=optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5), loss="mse")
    seen = []
    track = ek.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda b, logs: seen.append(model.get_weights()[0].copy())
    )
    model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False, callbacks=[track])
    # The average of the weights after each step: the first, then 0.5 * average + 0.5 * new.
    average = seen[0]
    for w in seen[1:]:
        average = 0.5 * average + 0.5 * w
    assert len(seen) == 3 and not np.allclose(average, seen[-1])
    np.testing.assert_allclose(model.get_weights()[0], average, rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"use_ema": True, "ema_momentum": 1.5}, "ema_momentum` must be in the range"),
        ({"use_ema": True, "ema_overwrite_frequency": 0}, "ema_overwrite_frequency` must be"),
    ],
)
def test_bad_ema_arguments_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        optimizers.Adam(**kwargs)
