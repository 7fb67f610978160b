"""Learning-rate schedules against TensorFlow 2.21: each schedule's rate at a range of steps
(recorded with ``tensorflow-cpu`` 2.21.0), one step and several at once, the rate as a float32
tensor as TensorFlow returns it, and configs that round-trip."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

S = ek.keras.optimizers.schedules
STEPS = [0, 1, 3, 5, 10, 11, 15, 25, 31, 40]
CASES = [
    (
        "S.PolynomialDecay(1.0, 10, 0.1)",
        [1.0, 0.91, 0.73, 0.55, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1],
    ),
    (
        "S.PolynomialDecay(0.5, 10, end_learning_rate=0.01, power=0.5)",
        [0.5, 0.4748548, 0.4199634, 0.3564823, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01],
    ),
    (
        "S.PolynomialDecay(1.0, 10, 0.1, cycle=True)",
        [1.0, 0.91, 0.73, 0.55, 0.1, 0.505, 0.325, 0.25, 0.3025, 0.1],
    ),
    (
        "S.CosineDecay(1.0, 10)",
        [1.0, 0.9755282, 0.7938926, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    ),
    (
        "S.CosineDecay(0.5, 10, alpha=0.1)",
        [0.5, 0.4889877, 0.4072517, 0.275, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05],
    ),
    (
        "S.CosineDecay(0.0, 10, warmup_target=1.0, warmup_steps=4)",
        [0.0, 0.25, 0.75, 0.9755282, 0.3454914, 0.2061074, 0.0, 0.0, 0.0, 0.0],
    ),
    (
        "S.CosineDecayRestarts(1.0, 10)",
        [
            1.0,
            0.9755282,
            0.7938926,
            0.5,
            1.0,
            0.9938442,
            0.8535534,
            0.1464466,
            0.9984587,
            0.8535534,
        ],
    ),
    (
        "S.CosineDecayRestarts(1.0, 10, t_mul=1.0, m_mul=0.5, alpha=0.1)",
        [1.0, 0.9779754, 0.8145034, 0.55, 0.55, 0.5389877, 0.325, 0.2125, 0.2097469, 0.15625],
    ),
]


@pytest.mark.parametrize("make, rates", CASES, ids=[c[0] for c in CASES])
def test_schedule_rates_match_tensorflow(make, rates):
    schedule = eval(make, {"S": S})
    for step, want in zip(STEPS, rates):
        got = schedule(step)
        assert isinstance(got, ek.Tensor) and got.dtype == ek.float32 and got.shape == ()
        assert float(got) == pytest.approx(want, abs=2e-7), (step, float(got), want)
    # Several steps at once: the same rates, elementwise, in the steps' shape.
    many = schedule(np.array(STEPS).reshape(2, 5))
    assert many.shape == (2, 5)
    np.testing.assert_allclose(many.numpy().ravel(), rates, atol=2e-7)
    again = S.deserialize(S.serialize(schedule))
    assert type(again) is type(schedule) and again.get_config() == schedule.get_config()
    np.testing.assert_array_equal(again(np.array(STEPS)).numpy(), many.numpy().ravel())


def test_schedules_drive_an_optimizer():
    # SGD with a cosine decay: each step's update uses the rate of the steps taken before it.
    v = ek.Variable([0.0])
    opt = ek.keras.optimizers.SGD(learning_rate=S.CosineDecay(1.0, 4))
    for _ in range(3):
        opt.apply_gradients([(ek.constant([1.0]), v)])
    rates = [float(S.CosineDecay(1.0, 4)(k)) for k in range(3)]
    assert float(v.numpy()[0]) == pytest.approx(-sum(rates), rel=1e-6)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: S.CosineDecay(1.0, 0), "decay_steps must be > 0"),
        (lambda: S.CosineDecay(1.0, 10, warmup_steps=-1), "warmup_steps must be >= 0"),
        (lambda: S.PolynomialDecay(1.0, -5), "decay_steps must be > 0"),
        (lambda: S.CosineDecayRestarts(1.0, 10, t_mul=0.0), "t_mul must be > 0"),
    ],
)
def test_bad_schedule_arguments_raise(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_deserialize_refuses_an_unknown_schedule():
    with pytest.raises(ValueError, match="Unknown learning-rate schedule: 'Nope'"):
        S.deserialize({"class_name": "Nope", "config": {}})
