"""Keras losses and metrics against Keras 3.15 (differential fuzzing, fuzz9).

Every expected number was computed with the oracle (TensorFlow 2.21 + Keras 3.15.1, `import
keras`) on the same inputs, unless a comment gives its closed form.
"""

import numpy as np
import pytest

import eagerkernel as ek

L, M = ek.keras.losses, ek.keras.metrics
YT = np.array([[0.0, 1.0], [1.0, 0.0]], np.float32)
YP = np.array([[0.2, 0.7], [0.6, 0.1]], np.float32)


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), b, rtol=tol, atol=tol)


# -- reductions ---------------------------------------------------------------------------------


def test_mean_with_sample_weight_divides_by_the_weights():
    # per-sample MSE [0.065, 0.085]; (0.065 * 1 + 0.085 * 3) / (1 + 3) = 0.08 (Keras: 0.08)
    loss = L.MeanSquaredError(reduction="mean_with_sample_weight")
    close(loss(YT, YP, sample_weight=[1.0, 3.0]), 0.08)
    close(loss(YT, YP), 0.075)  # without weights: the mean
    # rank-3 weights of the losses' shape: sum(0.5 * w) / sum(w) = 0.5 (Keras: 0.5)
    mae = L.MeanAbsoluteError(reduction="mean_with_sample_weight")
    ones, halves = np.ones((2, 3, 1), "f4"), np.full((2, 3, 1), 0.5, "f4")
    close(mae(ones, halves, sample_weight=[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), 0.5)


@pytest.mark.parametrize("reduction", ["mean", "mean_with_sample_weight", None, "none", "sum"])
def test_reduction_is_kept_as_given_in_the_config(reduction):
    loss = L.MeanSquaredError(reduction=reduction)
    assert loss.get_config()["reduction"] == reduction  # Keras keeps the spelling
    assert L.MeanSquaredError.from_config(loss.get_config()).reduction == reduction


def test_unknown_reduction_names_the_argument():
    with pytest.raises(ValueError, match=r"reduction.*Received: reduction='bogus'"):
        L.MeanSquaredError(reduction="bogus")


def test_empty_batch_of_rank_1_losses_is_returned_unreduced():
    # Keras 3's reduce_values returns losses of shape (0,) as they are, for every reduction
    for reduction in ("sum", "sum_over_batch_size"):
        out = L.MeanSquaredError(reduction=reduction)(
            np.zeros((0, 2), "f4"), np.zeros((0, 2), "f4")
        )
        assert tuple(out.shape) == (0,)
    out = L.MeanSquaredError()(np.zeros((0, 2, 2), "f4"), np.zeros((0, 2, 2), "f4"))
    assert tuple(out.shape) == () and float(out) == 0.0  # divide_no_nan


def test_n_by_1_sample_weight_expands_rank_1_losses():
    # Keras 3 expands the (N,) losses to (N, 1) rather than squeezing the weights
    out = L.MeanSquaredError(reduction=None)(YT, YP, sample_weight=np.array([[1.0], [2.0]], "f4"))
    assert tuple(out.shape) == (2, 1)
    close(out, [[0.065], [0.17]])


# -- dtype argument ---------------------------------------------------------------------------


def test_every_loss_takes_dtype():
    out = L.Hinge(dtype="float64")(YT, YP)
    assert out.dtype == ek.float64
    close(out, 0.7499999981373549, 1e-12)
    out = L.BinaryCrossentropy(dtype="float16")(YT, YP)
    assert out.dtype == ek.float16
    close(out, 0.299, 1e-3)
    close(L.CosineSimilarity(dtype="float64")(YT, YP), -0.9739589349089446, 1e-12)
    for cls in (
        L.MeanSquaredError, L.MeanAbsoluteError, L.Huber, L.CategoricalCrossentropy,
        L.SparseCategoricalCrossentropy, L.KLDivergence, L.Poisson, L.LogCosh,
        L.MeanAbsolutePercentageError, L.MeanSquaredLogarithmicError, L.SquaredHinge,
        L.CategoricalHinge, L.BinaryFocalCrossentropy, L.CategoricalFocalCrossentropy,
    ):  # fmt: skip
        assert cls(dtype="float64").dtype == "float64", cls


# -- masks --------------------------------------------------------------------------------------


def _masked_logits():
    logits = ek.constant([[0.1, -0.3], [1.5, 1.6], [-0.6, 0.7], [1.4, 2.0]])
    logits._keras_mask = ek.constant([True, False, True, True])
    return logits


def test_ignore_class_and_a_keras_mask_merge_into_one_mask():
    # Keras 3: mask = in_mask & out_mask, applied once (kept entries weigh total / valid)
    labels = np.array([[-1], [0], [0], [1]])
    loss = L.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    w = np.array([0.5, 1.0, 2.0, 1.5], "f4")
    close(loss(labels, _masked_logits(), sample_weight=w), 1.8691244, 1e-6)
    loss = L.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1, reduction="sum")
    close(loss(labels, _masked_logits()), 1.9784963, 1e-6)


# -- shapes -------------------------------------------------------------------------------------


def test_shapes_broadcast_as_keras_ops_do():
    close(L.MeanSquaredError()([1.0, 2.0, 3.0], [[0.5, 1.0, 4.0]]), 0.75)  # (3,) vs (1, 3)
    close(L.Dice()([[1.0], [0.0]], [[[0.8]], [[0.4]]]), 0.27272725)
    # (4, 3) labels against (4, 3, 1) predictions: the trailing 1 is squeezed first
    pred = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]], "f4")[..., None]
    close(L.CategoricalCrossentropy()(np.eye(3, dtype="f4"), pred), 0.4987031)


def test_incompatible_shapes_raise_invalid_argument():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"mean_squared_error.*y_pred"):
        L.MeanSquaredError()(np.ones((3, 2), "f4"), np.ones((4, 2), "f4"))
    with pytest.raises(ek.errors.InvalidArgumentError, match="sample_weight of shape"):
        L.MeanSquaredError()(np.ones((3, 2), "f4"), np.ones((3, 2), "f4"), np.ones(4, "f4"))
    with pytest.raises(ek.errors.InvalidArgumentError, match="dice"):
        L.Dice()(np.ones((3, 2), "f4"), np.ones((4, 2), "f4"))


# -- metrics ------------------------------------------------------------------------------------


def test_mean_counts_samples_not_entries_without_weights():
    # Keras: total 2 + 5 (row means) + 3 * 1, count 2 samples + weight 3 -> 10 / 5 = 2
    m = M.Mean()
    m.update_state(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], "f4"))
    m.update_state(np.array([[1.0, 1.0, 1.0]], "f4"), sample_weight=[3.0])
    close(m.result(), 2.0)
    acc = M.Accuracy()  # (1 + 0.5 * 2) / (1 + 2) = 2 / 3
    acc.update_state([[1, 2]], [[1, 2]])
    acc.update_state([[2, 0]], [[1, 0]], sample_weight=[2.0])
    close(acc.result(), 0.6666667)


def test_metric_weights_that_do_not_broadcast_raise_invalid_argument():
    m = M.MeanSquaredError()
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"MeanSquaredError.*sample_weight"):
        m.update_state(np.ones(3, "f4"), np.zeros(3, "f4"), sample_weight=np.ones(3, "f4"))
    iou = M.MeanIoU(num_classes=2)
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"MeanIoU.*sample_weight"):
        iou.update_state(np.zeros((4, 3)), np.zeros((4, 3)), sample_weight=np.ones(4, "f4"))


def test_iou_weights_are_flattened_like_the_labels():
    m = M.BinaryIoU(target_class_ids=[0, 1])
    m.update_state([[0.0], [1.0]], [[0.2], [0.9]], sample_weight=[2.0, 3.0])  # (2,) vs (2, 1)
    close(m.result(), 1.0)


def test_r2_score_adjusted_counts_entries_and_names_keras_variables():
    m = M.R2Score(num_regressors=1)
    yt = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 5.0], [4.0, 3.0]], "f4")
    yp = np.array([[1.5, 2.0], [2.0, 1.5], [2.5, 4.0], [4.5, 3.5]], "f4")
    m.update_state(yt, yp)
    close(m.result(), 0.8125, 1e-6)  # Keras: n = 8 entries
    names = sorted(v.name.split("/")[-1].split(":")[0] for v in m.variables)
    assert names == ["count", "num_samples", "residual", "squared_sum", "sum"]


def test_crossentropy_metrics_take_axis_and_ignore_class():
    m = M.CategoricalCrossentropy(axis=0)
    m.update_state(np.eye(2, dtype="f4"), np.array([[0.7, 0.4], [0.3, 0.6]], "f4"))
    close(m.result(), 0.43375027)
    assert m.get_config()["axis"] == 0
    m = M.SparseCategoricalCrossentropy(from_logits=True, ignore_class=1)
    logits = np.array([[0.1, -0.3], [1.5, 1.6], [-0.6, 0.7], [1.4, 2.0]], "f4")
    m.update_state(np.array([0, 1, 0, 1]), logits)
    close(m.result(), 0.51350594)  # Keras: the ignored entries count, as 0, without weights
    assert m.get_config()["ignore_class"] == 1 and m.get_config()["axis"] == -1


def test_precision_and_recall_configs_list_top_k_and_class_id():
    for cls in (M.Precision, M.Recall):
        config = cls().get_config()
        assert config["top_k"] is None and config["class_id"] is None
        assert cls.from_config(config).get_config() == config
    assert "top_k" not in M.TruePositives().get_config()


def test_metric_shape_mismatches_raise_invalid_argument():
    a, b = np.ones((3, 2), "f4"), np.ones((4, 2), "f4")
    for metric in (M.Precision(), M.TruePositives(), M.F1Score(), M.R2Score()):
        with pytest.raises(ek.errors.InvalidArgumentError, match=type(metric).__name__):
            metric.update_state(a, b)
    with pytest.raises(ek.errors.InvalidArgumentError, match="MeanIoU"):
        M.MeanIoU(num_classes=2).update_state(np.zeros(6), np.zeros(8))


def test_f1_and_r2_weights_that_do_not_fit_raise_invalid_argument():
    a, w = np.ones((3, 2), "f4"), np.ones((5, 1), "f4")
    for metric in (M.F1Score(), M.R2Score()):
        with pytest.raises(ek.errors.InvalidArgumentError, match=r"update_state: sample_weight"):
            metric.update_state(a, a, sample_weight=w)
