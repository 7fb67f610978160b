"""Keras optimizers against Keras 3.15 (TensorFlow 2.21): the divergences a differential fuzz
found, fixed. Expected values were computed with the oracle (keras 3.15.1 on tensorflow-cpu 2.21)
unless a closed form is given. Keras rounds beta_2 to float32 before ``1 - beta_2**t``, so the
Adam-family expectations hold to about 1e-5 relative."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import eagerkernel as ek

opts = ek.keras.optimizers


def _run(opt, inits, steps):
    vs = [ek.Variable(np.array(x, "float32"), name=f"v{i}") for i, x in enumerate(inits)]
    for row in steps:
        pairs = [
            (None if g is None else ek.constant(np.array(g, "float32")), v) for g, v in zip(row, vs)
        ]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # None gradients; NaN arithmetic
            opt.apply_gradients(pairs)
    return [v.numpy() for v in vs]


def test_adadelta_updates_a_rank0_variable():
    # Used to raise TypeError "return arrays must be of ArrayType" (after changing a slot).
    opt = opts.Adadelta(learning_rate=0.05, epsilon=1e-3)
    (v,) = _run(opt, [-1.0], [[-0.27], [0.5]])
    np.testing.assert_allclose(v, -1.001845359802246, rtol=1e-6)  # oracle
    assert v.shape == () and int(opt.iterations) == 2


@pytest.mark.parametrize("arg", ["clipnorm", "clipvalue", "global_clipnorm"])
def test_a_clip_bound_of_zero_clips_nothing(arg):
    # Keras: `if self.clipnorm and self.clipnorm > 0` -- 0 turns clipping off.
    (v,) = _run(opts.SGD(1.0, **{arg: 0.0}), [[0.0, 0.0]], [[[3.0, 4.0]]])
    np.testing.assert_array_equal(v, [-3.0, -4.0])


@pytest.mark.parametrize("other", ["clipnorm", "global_clipnorm"])
def test_clipvalue_with_a_norm_clip_is_rejected(other):
    with pytest.raises(
        ValueError, match=r"SGD: only one of clipnorm, clipvalue and global_clipnorm"
    ):
        opts.SGD(clipvalue=1.0, **{other: 1.0})


def test_a_nan_norm_makes_the_clipped_gradient_nan():
    (v,) = _run(opts.SGD(0.1, clipnorm=1.0), [[1.0, 2.0]], [[[np.nan, 1.0]]])
    assert np.isnan(v).all()  # oracle: [nan, nan]
    # An infinite norm scales the finite entries to 0 (oracle: [nan, 2.0]).
    (v,) = _run(opts.SGD(0.1, clipnorm=1.0), [[1.0, 2.0]], [[[np.inf, 1.0]]])
    np.testing.assert_array_equal(v, [np.nan, 2.0])


def test_a_non_finite_global_norm_makes_every_gradient_nan():
    a, b = _run(opts.SGD(0.1, global_clipnorm=1.0), [[1.0, 2.0], [3.0]], [[[np.inf, 1.0], [1.0]]])
    assert np.isnan(a).all() and np.isnan(b).all()  # oracle: [[nan, nan], [nan]]


def test_ema_averages_every_variable_and_starts_late_ones_at_their_value():
    # v1 has no gradient at step 0 and v0 none at step 2: Keras still averages both every step.
    opt = opts.Adam(0.1, use_ema=True, ema_momentum=0.5)
    a, b = _run(opt, [[1.0, 2.0], [3.0]], [[[1.0, 1.0], None], [[1.0, -1.0], [2.0]], [None, [1.0]]])
    np.testing.assert_allclose(a, [0.8000022172927856, 1.905264139175415], rtol=1e-5)  # oracle
    np.testing.assert_allclose(b, [2.8455634117126465], rtol=1e-5)
    averages = [v.numpy() for v in opt.variables if "average" in v.name]
    np.testing.assert_allclose(averages[0], [0.8250018954277039, 1.9039483070373535], rtol=1e-5)
    np.testing.assert_allclose(averages[1], [2.9041786193847656], rtol=1e-5)


def test_ema_overwrite_covers_variables_without_a_gradient():
    opt = opts.Adam(0.1, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=2)
    a, b = _run(opt, [[1.0, 2.0], [3.0]], [[[1.0, 1.0], [1.0]], [[1.0, -1.0], None]])
    np.testing.assert_allclose(a, [0.8500015735626221, 1.9026325941085815], rtol=1e-5)  # oracle
    np.testing.assert_allclose(b, [2.900001049041748], rtol=1e-5)


@pytest.mark.parametrize(
    "make",
    [
        lambda: opts.Ftrl(learning_rate=0.0),
        lambda: opts.Ftrl(learning_rate=opts.schedules.PolynomialDecay(0.1, 1, 0.0)),  # 0 at step 1
        lambda: opts.Adam(0.1, beta_1=1.0),
        lambda: opts.Adamax(0.1, beta_1=1.0),
        lambda: opts.Nadam(0.1, beta_2=1.0),
    ],
)
def test_zero_denominators_give_nan_not_zero_division_error(make):
    # Keras divides by (2 * lr), (1 - beta_1**t), (1 - beta_2**t) as tensors: the weights become
    # NaN (oracle: [nan, nan]); these used to raise ZeroDivisionError.
    (v,) = _run(make(), [[1.0, 2.0]], [[[0.5, 0.5]], [[0.5, 0.5]]])
    assert np.isnan(v).all()


def test_adafactor_propagates_nan_through_its_scalars():
    # max(1.0, nan) is 1.0 in Python; Keras's ops.maximum gives NaN (oracle: all NaN).
    (v,) = _run(
        opts.Adafactor(0.01, relative_step=False),
        [[[1.0, 2.0], [3.0, 4.0]]],
        [[[[np.nan, 1.0], [1.0, 1.0]]]],
    )
    assert np.isnan(v).all()
    (v,) = _run(opts.Adafactor(0.01, relative_step=False), [[np.nan, 2.0]], [[[1.0, 1.0]]])
    assert np.isnan(v).all()


def test_a_gradient_of_another_shape_is_an_invalid_argument_error():
    v = ek.Variable([0.0, 0.0, 0.0], name="w")
    opt = opts.Adam(0.1)
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=r"Adam.apply_gradients: .*w:0.*\(4,\).*\(3,\)"
    ):
        opt.apply_gradients([(ek.constant([1.0, 1.0, 1.0, 1.0]), v)])
    assert issubclass(ek.errors.InvalidArgumentError, ValueError)
    np.testing.assert_array_equal(v.numpy(), [0.0, 0.0, 0.0])
    assert int(opt.iterations) == 0 and not opt.variables[1:]


def test_an_integer_variable_is_a_type_error_naming_it():
    v = ek.Variable(np.array([1, 2, 3], "int32"), name="counts")
    opt = opts.SGD(0.1)
    with pytest.raises(
        TypeError, match=r"SGD.apply_gradients: cannot update counts:0 of dtype int32"
    ):
        opt.apply_gradients([(ek.constant(np.array([1, 1, 1], "int32")), v)])
    np.testing.assert_array_equal(v.numpy(), [1, 2, 3])
    assert int(opt.iterations) == 0
