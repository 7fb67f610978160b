"""Keras 3 names added to `ek.keras`: the generalized cross-entropy and Circle losses, the
correlation metrics, the Lamb optimizer and the SwapEMAWeights callback. Expected values were
checked against Keras 3 / TF 2.21 (the oracle venv); the tests do not need TF or Keras."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek

L = ek.keras.losses
M = ek.keras.metrics

YT = [0, 1, 0, 1]
YP = [[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]]
EMB = np.array(
    [[0.6, 0.8, 0.0], [0.8, 0.6, 0.0], [0.0, 0.6, 0.8], [0.36, 0.48, 0.8], [1.0, 0.0, 0.0]],
    "float32",
)
EMB = EMB / np.linalg.norm(EMB, axis=1, keepdims=True)
LAB = np.array([0, 0, 1, 1, 2])
A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], "float32")
B = np.array([[1.1, 2.2, 2.9], [4.0, 5.5, 6.0]], "float32")


def _close(got, want, tol=1e-6):
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol)


def _fd_check(f, x, eps=1e-3, tol=2e-3):
    """``f``'s tape gradient at ``x`` (float64) against central finite differences."""
    v = ek.Variable(np.asarray(x, np.float64))
    with ek.GradientTape() as tape:
        y = f(v)
    grad = tape.gradient(y, v).numpy()
    fd = np.zeros_like(grad)
    base = np.asarray(x, np.float64)
    for i in np.ndindex(base.shape):
        hi, lo = base.copy(), base.copy()
        hi[i] += eps
        lo[i] -= eps
        fd[i] = (float(f(ek.constant(hi))) - float(f(ek.constant(lo)))) / (2 * eps)
    np.testing.assert_allclose(grad, fd, rtol=tol, atol=tol)


# -- CategoricalGeneralizedCrossEntropy -------------------------------------------------------


def test_gce_values():  # checked against Keras 3 / TF 2.21
    _close(float(L.CategoricalGeneralizedCrossEntropy()(YT, YP)), 0.3598597049713135)
    _close(
        L.categorical_generalized_cross_entropy(YT, YP, q=0.3),
        [0.3382551670074463, 0.21583853662014008, 0.4736093580722809, 0.4736093580722809],
    )
    loss = L.CategoricalGeneralizedCrossEntropy(q=0.7)
    _close(float(loss(YT, YP, sample_weight=[1.0, 2.0, 0.0, 0.5])), 0.23588736355304718)


def test_gce_config_lookup_and_errors():
    loss = L.CategoricalGeneralizedCrossEntropy(q=0.2)
    config = loss.get_config()
    assert config == {
        "reduction": "sum_over_batch_size",
        "name": "categorical_generalized_cross_entropy",
        "q": 0.2,
    }
    again = L.CategoricalGeneralizedCrossEntropy.from_config(config)
    assert again.q == 0.2 and float(again(YT, YP)) == float(loss(YT, YP))
    assert L.get("categorical_generalized_cross_entropy") is L.categorical_generalized_cross_entropy
    assert isinstance(L.get("CategoricalGeneralizedCrossEntropy"), L.Loss)
    for q in (0, 1, -0.5, 1.5):
        with pytest.raises(ValueError, match=r"q must be in the interval \(0, 1\)"):
            L.CategoricalGeneralizedCrossEntropy(q=q)


def test_gce_gradient():
    probs = np.array(YP)
    _fd_check(lambda p: L.CategoricalGeneralizedCrossEntropy(q=0.4)(YT, p), probs)


# -- Circle ------------------------------------------------------------------------------------


def test_circle_function_values():  # checked against Keras 3 / TF 2.21
    _close(
        L.circle(LAB, EMB),
        [4.038938999176025, 25.72800064086914, 0.001166734960861504, 3.7382612228393555, 0.0],
        tol=2e-5,
    )
    got = L.circle(LAB, EMB, gamma=2.0, margin=0.25, remove_diagonal=False)
    _close(got, [2.2908689975738525, 2.45633864402771, 1.956838846206665, 2.228484869003296,
                 1.9725663661956787])  # fmt: skip
    ref = L.circle(
        LAB, EMB, ref_labels=LAB[::-1].copy(), ref_embeddings=EMB[::-1].copy(), gamma=2.0,
        remove_diagonal=False,
    )  # fmt: skip
    _close(ref, [1.9480007886886597, 2.1064248085021973, 1.6320641040802002, 1.888575792312622,
                 1.6468058824539185])  # fmt: skip


def test_circle_class_masked_reductions():  # checked against Keras 3 / TF 2.21
    # The 5th sample has no positive pair: its loss 0 is masked out of the mean reductions.
    _close(float(L.Circle()(LAB, EMB)), 8.376591682434082, tol=2e-6)
    _close(float(L.Circle(gamma=2.0, margin=0.25)(LAB, EMB)), 1.645938515663147)
    _close(float(L.Circle(gamma=2.0, reduction="sum")(LAB, EMB)), 5.379782676696777)
    weights = [1.0, 2.0, 3.0, 0.5, 1.0]
    _close(float(L.Circle(gamma=2.0)(LAB, EMB, sample_weight=weights)), 2.12026047706604)
    _close(
        L.Circle(gamma=2.0, reduction=None)(LAB, EMB),
        [1.3893239498138428, 1.5293502807617188, 1.1209850311279297, 1.3401234149932861, 0.0],
    )
    assert float(L.Circle()([0, 1], EMB[:2])) == 0.0  # no positive pair at all: 0, not NaN


def test_circle_config_and_lookup():
    loss = L.Circle(gamma=3.0)
    config = loss.get_config()
    assert config == {
        "reduction": "sum_over_batch_size",
        "name": "circle",
        "gamma": 3.0,
        "margin": 0.4,
        "remove_diagonal": True,
    }
    again = L.Circle.from_config(config)
    assert (again.gamma, again.margin, again.remove_diagonal) == (3.0, 0.4, True)
    assert L.get("circle") is L.circle and isinstance(L.get("Circle"), L.Circle)
    assert L.deserialize(L.serialize(loss)).get_config() == config


def test_circle_gradient():
    emb = EMB.astype(np.float64)
    _fd_check(lambda e: L.Circle(gamma=2.0, margin=0.25)(LAB, e), emb)


# -- correlation metrics -----------------------------------------------------------------------


def test_correlation_functions():  # checked against Keras 3 / TF 2.21
    _close(M.pearson_correlation(A, B), [0.9918697476387024, 0.9226128458976746])
    _close(M.concordance_correlation(A, B), [0.9836063981056213, 0.90625])
    _close(M.pearson_correlation(A, B, axis=0), [1.0, 1.0, 1.0])
    _close(
        M.concordance_correlation(A, B, axis=0),
        [0.9988518953323364, 0.9715407490730286, 0.9765976071357727],
    )


@pytest.mark.parametrize(
    ("cls", "want"),  # checked against Keras 3 / TF 2.21
    [(M.PearsonCorrelation, 0.9456984400749207), (M.ConcordanceCorrelation, 0.42342424392700195)],
)
def test_correlation_metrics(cls, want):
    m = cls()
    m.update_state(A, B)
    m.update_state(B, A * 2.0, sample_weight=[1.0, 3.0])
    _close(float(m.result()), want)
    snake = "pearson_correlation" if cls is M.PearsonCorrelation else "concordance_correlation"
    assert m.get_config() == {"name": snake, "dtype": "float32", "axis": -1}
    again = cls.from_config({**m.get_config(), "axis": 0})
    assert again.axis == 0 and type(M.get(snake)) is cls
    m.reset_state()
    m.update_state(A, B)
    _close(float(m.result()), float(np.mean(M.pearson_correlation(A, B) if snake[0] == "p"
                                            else M.concordance_correlation(A, B))))  # fmt: skip


# -- Lamb --------------------------------------------------------------------------------------

_GRADS = [
    ([0.1, -0.2, 0.3], [[0.5, 0.0], [-1.0, 2.0]]),
    ([-0.3, 0.1, 0.0], [[0.1, 0.2], [0.3, 0.4]]),
    ([0.2, 0.2, -0.5], [[-0.5, 0.1], [0.0, 1.0]]),
]
# (v1, v2) after each step, checked against Keras 3 / TF 2.21. v2 starts at 0: trust ratio 1.
_LAMB_DEFAULT = [
    ([0.9783975481987, -1.9783974885940552, 2.9783976078033447],
     [[-0.00999993085861206, 0.0], [0.009999931789934635, -0.00999993272125721]]),
    ([0.999354898929596, -1.9671027660369873, 2.949982166290283],
     [[-0.01009763590991497, -9.053828398464248e-05],
      [0.010051988065242767, -0.01009763777256012]]),
    ([0.9975914359092712, -1.9926987886428833, 2.976416826248169],
     [[-0.010096987709403038, -0.00020646629855036736], [0.010099899023771286,
                                                         -0.010219138115644455]]),
]  # fmt: skip
_LAMB_TUNED = [
    ([0.8879427909851074, -1.8824101686477661, 2.8772313594818115],
     [[-0.04990021511912346, 0.0], [0.04995005950331688, -0.04997502639889717]]),
    ([0.9928024411201477, -1.8293564319610596, 2.731085777282715],
     [[-0.052065953612327576, -0.0023322466295212507], [0.050878752022981644,
                                                        -0.052145540714263916]]),
    ([0.9728862047195435, -1.939327359199524, 2.838966131210327],
     [[-0.0514390654861927, -0.0053235627710819244], [0.0516803078353405, -0.05498205125331879]]),
]  # fmt: skip
_TUNED = {"learning_rate": 0.05, "beta_1": 0.8, "beta_2": 0.9, "epsilon": 1e-3, "weight_decay": 0.1}


@pytest.mark.parametrize(
    ("kwargs", "want"), [({"learning_rate": 0.01}, _LAMB_DEFAULT), (_TUNED, _LAMB_TUNED)]
)
def test_lamb_trajectory(kwargs, want):
    v1 = ek.Variable(np.array([1.0, -2.0, 3.0], "float32"))
    v2 = ek.Variable(np.zeros((2, 2), "float32"))
    opt = ek.keras.optimizers.Lamb(**kwargs)
    for (g1, g2), (w1, w2) in zip(_GRADS, want):
        opt.apply_gradients([(ek.constant(g1), v1), (ek.constant(g2), v2)])
        _close(v1.numpy(), w1)
        _close(v2.numpy(), w2)
        assert v1.dtype == ek.float32


def test_lamb_config_lookup_and_errors():
    opt = ek.keras.optimizers.Lamb(**_TUNED)
    config = opt.get_config()
    assert {k: config[k] for k in ("beta_1", "beta_2", "epsilon", "weight_decay")} == {
        "beta_1": 0.8,
        "beta_2": 0.9,
        "epsilon": 1e-3,
        "weight_decay": 0.1,
    }
    assert config["name"] == "lamb"
    again = ek.keras.optimizers.Lamb.from_config(config)
    assert again.get_config() == config
    assert type(ek.keras.optimizers.get("lamb")) is ek.keras.optimizers.Lamb
    assert ek.keras.optimizers.deserialize(ek.keras.optimizers.serialize(opt)).get_config() == (
        config
    )
    assert opt.get_slot_names() == ["m", "v"]
    for bad in ({"beta_1": 1.5}, {"beta_2": -0.1}, {"epsilon": -1.0}, {"beta_1": "x"}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            ek.keras.optimizers.Lamb(**bad)


# -- SwapEMAWeights ----------------------------------------------------------------------------


def _ema_model(use_ema=True):
    model = ek.keras.Sequential([ek.keras.Input((2,)), ek.keras.layers.Dense(1)])
    model.compile(ek.keras.optimizers.SGD(0.1, use_ema=use_ema, ema_momentum=0.5), "mse")
    return model


_X = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0], [-1.0, 1.0]], "float32")
_Y = np.array([[1.0], [0.0], [2.0], [-1.0]], "float32")


def test_swap_ema_weights_evaluate_and_predict():
    model = _ema_model()
    model.fit(_X, _Y, epochs=2, batch_size=2, verbose=0)  # leaves the averages in the model
    for v in model.trainable_variables:  # weights that differ from their averages
        v.assign(v + 1.0)
    trained = [v.numpy() for v in model.trainable_variables]
    averages = [model.optimizer.get_slot(v, "average").numpy() for v in model.trainable_variables]
    assert any(not np.allclose(t, a) for t, a in zip(trained, averages))
    swap = ek.keras.callbacks.SwapEMAWeights()
    seen = []

    class Spy(ek.keras.callbacks.Callback):
        def on_test_begin(self, logs=None):
            seen.append([v.numpy() for v in self.model.trainable_variables])

        on_predict_begin = on_test_begin

    model.evaluate(_X, _Y, verbose=0, callbacks=[swap, Spy()])
    model.predict(_X, verbose=0, callbacks=[swap, Spy()])
    for during in seen:  # the averages were in the model ...
        for d, a in zip(during, averages):
            np.testing.assert_array_equal(d, a)
    for v, t in zip(model.trainable_variables, trained):  # ... and the trained weights are back
        np.testing.assert_array_equal(v.numpy(), t)


def test_swap_ema_weights_on_epoch_leaves_averages_after_fit():
    model = _ema_model()
    seen = []

    class Spy(ek.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            opt = self.model.optimizer
            pairs = [(v.numpy(), opt.get_slot(v, "average").numpy())
                     for v in self.model.trainable_variables]  # fmt: skip
            seen.append(pairs)

    swap = ek.keras.callbacks.SwapEMAWeights(swap_on_epoch=True)
    model.fit(_X, _Y, epochs=2, batch_size=2, verbose=0, callbacks=[swap, Spy()])
    assert len(seen) == 2
    # At the end of the first epoch the slots hold the trained weights (swapped out) ...
    first = seen[0]
    assert any(not np.allclose(w, s) for w, s in first)
    # ... after the last one the slots hold the averages the model has, and fit's
    # finalize_variable_values leaves them in the model.
    for (w, s), v in zip(seen[1], model.trainable_variables):
        np.testing.assert_array_equal(w, s)
        np.testing.assert_array_equal(v.numpy(), w)


def test_swap_ema_weights_needs_use_ema():
    model = _ema_model(use_ema=False)
    model.fit(_X, _Y, epochs=1, verbose=0)
    swap = ek.keras.callbacks.SwapEMAWeights()
    with pytest.raises(ValueError, match=r"use_ema=True.*Received: use_ema=False"):
        model.evaluate(_X, _Y, verbose=0, callbacks=[swap])
