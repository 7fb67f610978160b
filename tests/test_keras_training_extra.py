"""Keras training surface: AdamW, Nadam, Adamax, Adadelta, Ftrl, Lion; callbacks; losses;
metrics; `ek.keras.backend`. Values against NumPy re-implementations of Keras's formulas."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras import optimizers

X0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
GRADS = [
    np.array([[0.1, -0.2, 0.3], [0.4, -0.5, 0.6]], dtype=np.float32),
    np.array([[-0.3, 0.1, 0.2], [0.05, 0.7, -0.4]], dtype=np.float32),
    np.array([[0.2, 0.2, -0.1], [-0.6, 0.3, 0.9]], dtype=np.float32),
    np.array([[0.0, -0.1, 0.4], [0.3, -0.2, 0.1]], dtype=np.float32),
]


def run(opt, grads=GRADS, x0=X0, var=None):
    v = var if var is not None else ek.Variable(x0, name="dense/kernel")
    out = []
    for g in grads:
        opt.apply_gradients([(ek.constant(g), v)])
        out.append(v.numpy().copy())
    return v, out


# -- float64 NumPy re-implementations of Keras 3's update_step ------------------------------------


def adamw_ref(lr=0.01, wd=0.004, b1=0.9, b2=0.999, eps=1e-7):
    x, m, v, out = X0.astype(np.float64), 0.0, 0.0, []
    for t, g in enumerate(GRADS, 1):
        x = x - x * wd * lr
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        alpha = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        x = x - alpha * m / (np.sqrt(v) + eps)
        out.append(x)
    return out


def nadam_ref(lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    x, m, v, u_product, out = X0.astype(np.float64), 0.0, 0.0, 1.0, []
    for t, g in enumerate(GRADS, 1):
        u_t = b1 * (1 - 0.5 * 0.96**t)
        u_t1 = b1 * (1 - 0.5 * 0.96 ** (t + 1))
        u_product = u_product * u_t  # Keras's _backend_update_step, before update_step
        m = m + (g - m) * (1 - b1)
        v = v + (g * g - v) * (1 - b2)
        m_hat = u_t1 * m / (1 - u_product * u_t1) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - b2**t)
        x = x - m_hat * lr / (np.sqrt(v_hat) + eps)
        out.append(x)
    return out


def adamax_ref(lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    x, m, u, out = X0.astype(np.float64), 0.0, 0.0, []
    for t, g in enumerate(GRADS, 1):
        m = m + (g - m) * (1 - b1)
        u = np.maximum(b2 * u, np.abs(g))
        x = x - lr * m / ((1 - b1**t) * (u + eps))
        out.append(x)
    return out


def adadelta_ref(lr=1.0, rho=0.95, eps=1e-7):
    x, ag, ad, out = X0.astype(np.float64), 0.0, 0.0, []
    for g in GRADS:
        ag = rho * ag + (1 - rho) * g * g
        delta = -np.sqrt(ad + eps) * g / np.sqrt(ag + eps)
        ad = rho * ad + (1 - rho) * delta * delta
        x = x + lr * delta
        out.append(x)
    return out


def ftrl_ref(lr=0.1, power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0):
    x, acc, lin, out = X0.astype(np.float64), np.full(X0.shape, init), 0.0, []
    for g in GRADS:
        l2_reg = l2 + beta / (2.0 * lr)
        grad_to_use = g + 2 * shrink * x
        new_acc = acc + g * g
        lin = lin + grad_to_use - (new_acc**-power - acc**-power) / lr * x
        quadratic = new_acc**-power / lr + 2 * l2_reg
        x = (np.clip(lin, -l1, l1) - lin) / quadratic
        acc = new_acc
        out.append(x)
    return out


def lion_ref(lr=0.01, b1=0.9, b2=0.99):
    x, m, out = X0.astype(np.float64), 0.0, []
    for g in GRADS:
        x = x - lr * np.sign(m * b1 + g * (1 - b1))
        m = m * b2 + g * (1 - b2)
        out.append(x)
    return out


CASES = [
    ("AdamW default wd", lambda: optimizers.AdamW(0.01), lambda: adamw_ref()),
    ("AdamW wd=0.1", lambda: optimizers.AdamW(0.01, weight_decay=0.1), lambda: adamw_ref(wd=0.1)),
    ("Nadam", lambda: optimizers.Nadam(0.01), lambda: nadam_ref()),
    ("Nadam betas", lambda: optimizers.Nadam(0.02, 0.8, 0.9), lambda: nadam_ref(0.02, 0.8, 0.9)),
    ("Adamax", lambda: optimizers.Adamax(0.01), lambda: adamax_ref()),
    ("Adamax betas", lambda: optimizers.Adamax(0.05, 0.5, 0.7), lambda: adamax_ref(0.05, 0.5, 0.7)),
    ("Adadelta", lambda: optimizers.Adadelta(1.0), lambda: adadelta_ref()),
    (
        "Adadelta rho eps",
        lambda: optimizers.Adadelta(0.5, rho=0.8, epsilon=1e-3),
        lambda: adadelta_ref(0.5, 0.8, 1e-3),
    ),
    ("Ftrl", lambda: optimizers.Ftrl(0.1), lambda: ftrl_ref()),
    (
        "Ftrl regularized",
        lambda: optimizers.Ftrl(
            0.1,
            learning_rate_power=-0.7,
            initial_accumulator_value=0.3,
            l1_regularization_strength=0.05,
            l2_regularization_strength=0.2,
            l2_shrinkage_regularization_strength=0.1,
            beta=0.5,
        ),
        lambda: ftrl_ref(0.1, -0.7, 0.3, 0.05, 0.2, 0.1, 0.5),
    ),
    ("Lion", lambda: optimizers.Lion(0.01), lambda: lion_ref()),
    ("Lion betas", lambda: optimizers.Lion(0.03, 0.5, 0.8), lambda: lion_ref(0.03, 0.5, 0.8)),
]


@pytest.mark.parametrize("make, ref", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_update_matches_keras_formula(make, ref):
    _, got = run(make())
    for step, (a, b) in enumerate(zip(got, ref())):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=f"step {step + 1}")


def test_large_variable_split_over_cores_matches_the_formula():
    # Past PARALLEL_MIN elements the update runs in chunks over the cores: same arithmetic.
    rng = np.random.default_rng(0)
    x0 = rng.normal(size=(1 << 19) + 7).astype(np.float32)
    grads = [rng.normal(size=x0.shape).astype(np.float32) for _ in range(2)]
    for cls in (optimizers.Nadam, optimizers.Ftrl, optimizers.Adadelta, optimizers.Lion):
        v_big, _ = run(cls(0.1), grads=grads, x0=x0)
        v_small = [ek.Variable(x0[i : i + 64]) for i in range(0, 256, 64)]
        opt = cls(0.1)
        for g in grads:
            opt.apply_gradients(
                [(ek.constant(g[i * 64 : i * 64 + 64]), v) for i, v in enumerate(v_small)]
            )
        np.testing.assert_allclose(
            v_big.numpy()[:256], np.concatenate([v.numpy() for v in v_small]), rtol=1e-6, atol=1e-7
        )


SLOTS = {
    optimizers.AdamW: ["m", "v"],
    optimizers.Nadam: ["m", "v"],
    optimizers.Adamax: ["m", "u"],
    optimizers.Adadelta: ["accumulated_grad", "accumulated_delta_var"],
    optimizers.Ftrl: ["accumulator", "linear"],
    optimizers.Lion: ["m"],
}


@pytest.mark.parametrize("cls", list(SLOTS), ids=lambda c: c.__name__)
def test_slot_names_config_round_trip_and_get(cls):
    opt = cls(0.01)
    run(opt, grads=GRADS[:1])
    assert opt.get_slot_names() == SLOTS[cls]
    assert [s.name for s in opt.variables[1:]] == [f"dense/kernel/{n}:0" for n in SLOTS[cls]]
    config = opt.get_config()
    again = cls.from_config(config)
    assert type(again) is cls and again.get_config() == config
    by_name = optimizers.get(cls.__name__.lower())
    assert type(by_name) is cls
    assert type(optimizers.get({"class_name": cls.__name__, "config": config})) is cls


@pytest.mark.parametrize("cls", list(SLOTS), ids=lambda c: c.__name__)
def test_checkpoint_round_trip_restores_slots_and_the_next_steps(cls, tmp_path):
    opt = cls(0.05)
    v, _ = run(opt, grads=GRADS[:2])
    path = ek.train.Checkpoint(v=v, optimizer=opt).save(str(tmp_path / "ckpt"))
    saved_slots = [s.numpy().copy() for s in opt.variables[1:]]
    _, expected = run(opt, grads=GRADS[2:], var=v)

    v2 = ek.Variable(np.zeros_like(X0), name="dense/kernel")
    opt2 = cls(0.05)
    ek.train.Checkpoint(v=v2, optimizer=opt2).restore(path)
    assert int(opt2.iterations.numpy()) == 2
    _, got = run(opt2, grads=GRADS[2:3], var=v2)  # creates the slots: the saved values land
    for a, b in zip(got, expected[:1]):
        np.testing.assert_array_equal(a, b)
    opt3 = cls(0.05)
    v3 = ek.Variable(np.zeros_like(X0), name="dense/kernel")
    opt3.build([v3])
    ek.train.Checkpoint(v=v3, optimizer=opt3).restore(path).assert_consumed()
    for a, b in zip(saved_slots, [s.numpy() for s in opt3.variables[1:]]):
        np.testing.assert_array_equal(a, b)


def test_adamw_defaults_and_errors():
    opt = optimizers.AdamW()
    assert opt.weight_decay == 0.004 and opt.get_config()["weight_decay"] == 0.004
    with pytest.raises(ValueError, match="weight_decay"):
        optimizers.AdamW(weight_decay=None)
    with pytest.raises(ValueError, match=r"Lion.*beta_1"):
        optimizers.Lion(beta_1=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        optimizers.Ftrl(learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        optimizers.Ftrl(l1_regularization_strength=-1.0)


def test_a_failed_step_changes_nothing():
    v = ek.Variable(X0)
    opt = optimizers.Nadam(0.1)
    run(opt, grads=GRADS[:1], var=v)
    before = [v.numpy().copy(), *[s.numpy().copy() for s in opt.variables]]
    with pytest.raises(ValueError, match="shape"):
        opt.apply_gradients([(ek.constant([1.0]), v)])
    after = [v.numpy(), *[s.numpy() for s in opt.variables]]
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)
