"""Keras's SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall and
RecallAtPrecision, and the bucketed counting of evenly spaced thresholds that they share with
AUC and the confusion counts. The expected numbers are TensorFlow 2.21's (tf.keras.metrics on
the same inputs), where they are not Keras's documented examples."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras.metrics_confusion import evenly_spaced

M = ek.keras.metrics

# The inputs of the comparison with TensorFlow: labels, scores on a 0.05 grid (every score is
# exactly a threshold of num_thresholds=21, where bucketing and comparison could part), weights.
_rng = np.random.default_rng(0)
Y = _rng.integers(0, 2, (40,)).astype(np.float32)
P_GRID = (_rng.integers(0, 21, (40,)) / 20).astype(np.float32)
P_RAND = _rng.random((40,)).astype(np.float32)
W = _rng.random((40,)).astype(np.float32)
Y3 = _rng.integers(0, 2, (30, 3)).astype(np.float32)
P3 = (_rng.integers(0, 11, (30, 3)) / 10).astype(np.float32)
# scores outside [0, 1]: Keras clips them before bucketing
P_OUT = np.array([-0.5, 0, 0.2, 1.0, 1.5, 0.7, 0.3, 1.2], np.float32)
Y_OUT = np.array([0, 1, 1, 1, 0, 0, 1, 1], np.float32)


def result(metric, *batches):
    for batch in batches:
        metric.update_state(*batch)
    return np.asarray(metric.result())


DOC = ([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])


@pytest.mark.parametrize(
    "make, weights, expected",
    [  # Keras's docstring examples
        (lambda: M.SensitivityAtSpecificity(0.5), None, 0.5),
        (lambda: M.SensitivityAtSpecificity(0.5), [1, 1, 2, 2, 1], 0.333333),
        (lambda: M.SpecificityAtSensitivity(0.5), None, 0.666667),
        (lambda: M.SpecificityAtSensitivity(0.5), [1, 1, 2, 2, 2], 0.5),
        (lambda: M.PrecisionAtRecall(0.5), None, 0.5),
        (lambda: M.PrecisionAtRecall(0.5), [2, 2, 2, 1, 1], 0.333333),
    ],
)
def test_keras_documented_values(make, weights, expected):
    batch = DOC if weights is None else (*DOC, weights)
    assert float(result(make(), batch)) == pytest.approx(expected, abs=1e-6)


def test_recall_at_precision_documented_values_and_unreachable_precision():
    m = M.RecallAtPrecision(0.8)
    assert float(result(m, ([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]))) == 0.5
    m.reset_state()
    w = [1, 0, 0, 1]
    assert float(result(m, ([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], w))) == 1.0
    # no threshold reaches precision 0.8 on these scores: 0, not an error
    assert float(result(M.RecallAtPrecision(0.8), DOC)) == 0.0


TF_VALUES = [  # (class, value, num_thresholds, scores, TensorFlow 2.21's result)
    ("SensitivityAtSpecificity", 0.3, 1, "grid", 0.7080123424530029),
    ("SensitivityAtSpecificity", 0.3, 21, "grid", 0.7102065682411194),
    ("SensitivityAtSpecificity", 1.0, 200, "grid", 0.13014566898345947),
    ("SpecificityAtSensitivity", 0.3, 1, "grid", 0.4104407727718353),
    ("SpecificityAtSensitivity", 0.3, 21, "grid", 0.9162891507148743),
    ("SpecificityAtSensitivity", 1.0, 21, "grid", 0.0),
    ("PrecisionAtRecall", 0.3, 21, "grid", 0.8642911314964294),
    ("PrecisionAtRecall", 0.3, 200, "grid", 0.8642911314964294),
    ("RecallAtPrecision", 0.3, 21, "grid", 0.9266139268875122),
    ("RecallAtPrecision", 1.0, 200, "grid", 0.13014566898345947),
]


@pytest.mark.parametrize("cls, value, n, scores, expected", TF_VALUES)
def test_weighted_scores_on_the_threshold_grid_match_tensorflow(cls, value, n, scores, expected):
    metric = getattr(M, cls)(value, num_thresholds=n)
    assert float(result(metric, (Y, P_GRID, W))) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(
    "cls, arg, class_id_value, outside_value",
    [
        ("SensitivityAtSpecificity", 0.5, 0.4375, 0.4000000059604645),
        ("SpecificityAtSensitivity", 0.5, 0.2857142984867096, 0.3333333432674408),
        ("PrecisionAtRecall", 0.5, 0.5714285969734192, 0.6666666865348816),
        ("RecallAtPrecision", 0.8, 0.25, 0.0),
    ],
)
def test_class_id_and_scores_outside_zero_one_match_tensorflow(
    cls, arg, class_id_value, outside_value
):
    C = getattr(M, cls)
    got = float(result(C(arg, num_thresholds=11, class_id=1), (Y3, P3)))
    assert got == pytest.approx(class_id_value, rel=1e-5)
    got = float(result(C(arg, num_thresholds=5), (Y_OUT, P_OUT)))
    assert got == pytest.approx(outside_value, rel=1e-5)


def test_batches_accumulate_and_reset_state_clears():
    m = M.SensitivityAtSpecificity(0.5, num_thresholds=50)
    one = float(result(m, (Y, P_RAND), (Y[::-1], P_RAND * 0.5)))
    together = float(
        result(
            M.SensitivityAtSpecificity(0.5, num_thresholds=50),
            (np.concatenate([Y, Y[::-1]]), np.concatenate([P_RAND, P_RAND * 0.5])),
        )
    )
    assert one == pytest.approx(together)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert all(float(ek.reduce_sum(v)) == 0.0 for v in m.variables)


def test_result_against_the_definition_on_random_scores():
    # 101 thresholds i/100 and scores away from them: the best sensitivity among thresholds
    # with specificity >= 0.6, from the counts written out
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    p = (rng.integers(0, 1000, 500) + 0.5) / 1000
    m = M.SensitivityAtSpecificity(0.6, num_thresholds=101)
    m.update_state(y, p)
    best = 0.0
    for t in np.arange(101) / 100:
        pred = p > t
        tp, fn = np.sum(pred & (y == 1)), np.sum(~pred & (y == 1))
        tn, fp = np.sum(~pred & (y == 0)), np.sum(pred & (y == 0))
        if tn / (tn + fp) >= 0.6:
            best = max(best, tp / (tp + fn))
    assert float(m.result()) == pytest.approx(best, rel=1e-6)


def test_config_round_trip_names_and_compile_string():
    m = M.PrecisionAtRecall(0.7, num_thresholds=20, class_id=2, name="p_at_r")
    config = m.get_config()
    assert config["recall"] == 0.7
    assert config["num_thresholds"] == 20 and config["class_id"] == 2
    again = M.PrecisionAtRecall.from_config(config)
    assert again.name == "p_at_r" and again.recall == 0.7 and len(again.thresholds) == 20
    assert m.thresholds[0] == 0.0 and m.thresholds[-1] == 1.0
    assert M.SensitivityAtSpecificity(0.5).name == "sensitivity_at_specificity"
    assert isinstance(M.get(M.serialize(M.RecallAtPrecision(0.9))), M.RecallAtPrecision)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: M.SensitivityAtSpecificity(1.5), "`specificity` must be in the range [0, 1]"),
        (lambda: M.SpecificityAtSensitivity(-0.1), "`sensitivity` must be in the range [0, 1]"),
        (lambda: M.PrecisionAtRecall("high"), "`recall` must be a number in [0, 1]"),
        (lambda: M.RecallAtPrecision(0.5, num_thresholds=0), "`num_thresholds` must be an"),
        (lambda: M.RecallAtPrecision(0.5, num_thresholds=2.5), "`num_thresholds` must be an"),
        (lambda: M.RecallAtPrecision(0.5, class_id="a"), "class_id must be an int"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(make, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        make()


def test_class_id_out_of_range_names_it():
    m = M.PrecisionAtRecall(0.5, class_id=5)
    with pytest.raises(ValueError, match="class_id=5 is out of range"):
        m.update_state(Y3, P3)


# -- the bucketed counting shared with AUC and the confusion counts ------------------------------


def test_evenly_spaced_follows_keras():
    assert evenly_spaced([0.0, 0.5, 1.0]) and evenly_spaced(list(np.arange(11) / 10))
    assert not evenly_spaced([0.0, 1.0]) and not evenly_spaced([0.1, 0.5, 0.9])


@pytest.mark.parametrize(
    "make, batch, expected",
    [  # TensorFlow 2.21; the scores outside [0, 1] are clipped before bucketing
        (lambda: M.AUC(num_thresholds=3), (Y_OUT, P_OUT), 0.36666667461395264),
        (lambda: M.AUC(num_thresholds=5), (Y_OUT, P_OUT), 0.46666663885116577),
        (lambda: M.AUC(num_thresholds=21), (Y, P_GRID, W), 0.6340093612670898),
        (lambda: M.AUC(num_thresholds=21, curve="PR"), (Y, P_GRID, W), 0.7518360018730164),
        (lambda: M.AUC(num_thresholds=21, multi_label=True), (Y3, P3), 0.4505326449871063),
        (lambda: M.AUC(thresholds=[0.25, 0.5, 0.75]), (Y, P_GRID, W), 0.6493851542472839),
        (lambda: M.AUC(thresholds=[0.3, 0.5, 0.75]), (Y, P_GRID, W), 0.649811863899231),
        (lambda: M.TruePositives(thresholds=[0.0, 0.5, 1.0]), (Y_OUT, P_OUT), [4, 2, 0]),
        (lambda: M.FalsePositives(thresholds=[0.0, 0.5, 1.0]), (Y_OUT, P_OUT), [2, 2, 0]),
        (
            lambda: M.Precision(thresholds=[0.0, 0.5, 1.0]),
            (Y, P_GRID, W),
            [0.5826069712638855, 0.6339294910430908, 0.0],
        ),
        (  # top_k keeps the lower index of tied scores, as top_k's indices do
            lambda: M.Precision(thresholds=[0.0, 0.5, 1.0], top_k=2),
            (Y3, P3),
            [0.4576271176338196, 0.4545454680919647, 0.0],
        ),
    ],
)
def test_evenly_spaced_thresholds_count_as_tensorflow(make, batch, expected):
    np.testing.assert_allclose(result(make(), batch), expected, rtol=1e-5)
