"""`ek.nn.sampled_softmax_loss`, `ek.nn.nce_loss` and the candidate samplers: the losses against
TensorFlow's formula computed by hand in NumPy (and values printed by TensorFlow 2.21), their
gradients against finite differences; the samplers' ranges, dtypes, expected counts, empirical
frequencies and seeding."""

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

FLT_MAX = float(np.finfo(np.float32).max)


def _data():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(10, 3)).astype(np.float32)
    b = rng.normal(size=10).astype(np.float32)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    labels = np.array([[1, 3], [2, 2], [0, 9], [5, 4]], np.int64)
    sampled = np.array([3, 7, 2, 8, 0], np.int64)
    true_count = rng.uniform(0.1, 1, size=(4, 2)).astype(np.float32)
    sampled_count = rng.uniform(0.1, 1, size=5).astype(np.float32)
    return w, b, x, labels, (sampled, true_count, sampled_count)


def _hand_logits(w, b, x, labels, sampled_values, remove_hits):
    """TensorFlow's ``_compute_sampled_logits``, in float64 NumPy."""
    sampled, true_count, sampled_count = (np.asarray(v, np.float64) for v in sampled_values)
    sampled = sampled.astype(np.int64)
    w, b, x = (np.asarray(a, np.float64) for a in (w, b, x))
    true_logits = np.einsum("bd,btd->bt", x, w[labels]) + b[labels]
    sampled_logits = x @ w[sampled].T + b[sampled]
    if remove_hits:
        hit = labels[:, :, None] == sampled[None, None, :]
        sampled_logits = sampled_logits + np.where(hit.any(axis=1), -FLT_MAX, 0.0)
    logits = np.concatenate(
        [true_logits - np.log(true_count), sampled_logits - np.log(sampled_count)], axis=1
    )
    targets = np.concatenate(
        [np.full(true_logits.shape, 1 / labels.shape[1]), np.zeros(sampled_logits.shape)], 1
    )
    return logits, targets


def _hand_softmax_loss(logits, targets):
    m = logits.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(logits - m).sum(axis=1))
    return -(targets * (logits - lse[:, None])).sum(axis=1)


def _hand_nce_loss(logits, targets):
    x, z = logits, targets
    return (np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))).sum(axis=1)


@pytest.mark.parametrize("remove_hits", [True, False])
def test_sampled_softmax_loss_equals_the_formula_by_hand(remove_hits):
    w, b, x, labels, sv = _data()
    got = ek.nn.sampled_softmax_loss(
        w, b, labels, x, 5, 10, num_true=2, sampled_values=sv, remove_accidental_hits=remove_hits
    )
    assert got.shape == (4,) and got.dtype == ek.float32
    want = _hand_softmax_loss(*_hand_logits(w, b, x, labels, sv, remove_hits))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


@pytest.mark.parametrize("remove_hits", [True, False])
def test_nce_loss_equals_the_formula_by_hand(remove_hits):
    w, b, x, labels, sv = _data()
    got = ek.nn.nce_loss(
        w, b, labels, x, 5, 10, num_true=2, sampled_values=sv, remove_accidental_hits=remove_hits
    )
    want = _hand_nce_loss(*_hand_logits(w, b, x, labels, sv, remove_hits))
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_tensorflow_values():
    # Printed by TensorFlow 2.21 for these inputs (default remove_accidental_hits of each).
    w, b, x, labels, sv = _data()
    softmax = ek.nn.sampled_softmax_loss(w, b, labels, x, 5, 10, num_true=2, sampled_values=sv)
    np.testing.assert_allclose(softmax.numpy(), [2.016907, 1.2659758, 4.025957, 4.2334356], 1e-5)
    nce = ek.nn.nce_loss(w, b, labels, x, 5, 10, num_true=2, sampled_values=sv)
    np.testing.assert_allclose(nce.numpy(), [7.0280476, 11.53242, 11.231722, 12.582867], 1e-5)
    xv = ek.Variable(x)
    with ek.GradientTape() as tape:
        loss = ek.nn.nce_loss(w, b, labels, xv, 5, 10, num_true=2, sampled_values=sv)
    np.testing.assert_allclose(
        tape.gradient(loss, xv).numpy().ravel()[:3], [-0.22200352, -0.41562301, -0.16857794], 1e-5
    )


@pytest.mark.parametrize("loss", [ek.nn.sampled_softmax_loss, ek.nn.nce_loss])
def test_gradients_match_central_differences(loss):
    w, b, x, labels, sv = _data()

    def f(w, b, x):
        return loss(
            w, b, labels, x, 5, 10, num_true=2, sampled_values=sv, remove_accidental_hits=True
        )

    check_gradients(f, w.astype(np.float64), b.astype(np.float64), x.astype(np.float64))


def test_gradients_reach_variables_and_sharded_weights_concatenate():
    w, b, x, labels, sv = _data()
    wv, bv = ek.Variable(w), ek.Variable(b)
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(ek.nn.sampled_softmax_loss(wv, bv, labels, x, 5, 10, 2, sv))
    gw, gb = tape.gradient(loss, [wv, bv])
    assert gw is not None and gb is not None
    rows = sorted(set(labels.ravel().tolist()) | set(sv[0].tolist()))
    touched = np.flatnonzero(np.abs(ek.convert_to_tensor(gw).numpy()).sum(axis=1))
    assert set(touched.tolist()) <= set(rows)
    whole = ek.nn.sampled_softmax_loss(w, b, labels, x, 5, 10, 2, sv).numpy()
    split = ek.nn.sampled_softmax_loss([w[:6], w[6:]], [b[:6], b[6:]], labels, x, 5, 10, 2, sv)
    np.testing.assert_allclose(split.numpy(), whole)


def test_default_sampler_is_seeded_and_finite():
    w, b, x, labels, _ = _data()
    a = ek.nn.sampled_softmax_loss(w, b, labels, x, 4, 10, num_true=2, seed=3).numpy()
    c = ek.nn.sampled_softmax_loss(w, b, labels, x, 4, 10, num_true=2, seed=3).numpy()
    np.testing.assert_array_equal(a, c)
    assert np.all(np.isfinite(a))
    assert np.all(np.isfinite(ek.nn.nce_loss(w, b, labels, x, 4, 10, num_true=2).numpy()))


def test_loss_errors_name_the_argument():
    w, b, x, labels, sv = _data()
    with pytest.raises(ek.errors.InvalidArgumentError, match="labels must be"):
        ek.nn.nce_loss(w, b, labels[:, :1], x, 5, 10, num_true=2, sampled_values=sv)
    with pytest.raises(ek.errors.InvalidArgumentError, match="weights must be"):
        ek.nn.nce_loss(w[:, :2], b, labels, x, 5, 10, num_true=2, sampled_values=sv)
    with pytest.raises(TypeError, match="labels must be int64"):
        ek.nn.nce_loss(w, b, labels.astype(np.float32), x, 5, 10, 2, sv)


# -- candidate samplers ---------------------------------------------------------------------------


def _log_uniform_p(k, r):
    return np.log((k + 2) / (k + 1)) / np.log(r + 1)


SAMPLERS = [
    ("log_uniform_candidate_sampler", {}, lambda k: _log_uniform_p(k, 20)),
    ("uniform_candidate_sampler", {}, lambda k: np.full(np.shape(k), 1 / 20)),
    (
        "fixed_unigram_candidate_sampler",
        {"unigrams": np.arange(1, 19), "num_reserved_ids": 2, "distortion": 0.5},
        lambda k: (
            np.where(np.asarray(k) < 2, 0, np.sqrt(np.asarray(k) - 1.0))
            / np.sqrt(np.arange(1, 19)).sum()
        ),
    ),
]


@pytest.mark.parametrize("name, kw, prob", SAMPLERS)
@pytest.mark.parametrize("unique", [False, True])
def test_samplers_range_dtypes_and_expected_counts(name, kw, prob, unique):
    sampler = getattr(ek.random, name)
    assert getattr(ek.nn, name) is sampler
    true = np.array([[2, 5], [7, 19]])
    s, t, e = sampler(true, 2, num_sampled=8, unique=unique, range_max=20, seed=1, **kw)
    assert (s.dtype, t.dtype, e.dtype) == (ek.int64, ek.float32, ek.float32)
    assert s.shape == (8,) and t.shape == (2, 2) and e.shape == (8,)
    sv = s.numpy()
    assert np.all((sv >= 0) & (sv < 20))
    assert np.all(prob(sv) > 0)
    if not unique:
        np.testing.assert_allclose(t.numpy(), prob(true) * 8, rtol=1e-6)
        np.testing.assert_allclose(e.numpy(), prob(sv) * 8, rtol=1e-6)
        return
    assert len(set(sv.tolist())) == 8
    # One number of tries explains every count: -expm1(tries * log1p(-p)).
    p = prob(sv)
    tries = np.log1p(-e.numpy().astype(np.float64)) / np.log1p(-p)
    n_tries = round(float(np.median(tries)))
    assert n_tries >= 8
    if n_tries == 8:  # no draw was repeated: TensorFlow's shortcut p * num_sampled
        np.testing.assert_allclose(e.numpy(), p * 8, rtol=1e-6)
    else:
        np.testing.assert_allclose(e.numpy(), -np.expm1(n_tries * np.log1p(-p)), rtol=1e-5)
        np.testing.assert_allclose(t.numpy(), -np.expm1(n_tries * np.log1p(-prob(true))), rtol=1e-5)


def test_log_uniform_empirical_frequencies():
    r, n = 10, 200_000
    s, _, _ = ek.random.log_uniform_candidate_sampler(
        [[0]], 1, num_sampled=n, unique=False, range_max=r, seed=7
    )
    freq = np.bincount(s.numpy(), minlength=r) / n
    p = _log_uniform_p(np.arange(r), r)
    np.testing.assert_allclose(freq, p, atol=4 * np.sqrt(p * (1 - p) / n).max())


def test_fixed_unigram_frequencies_and_reserved_ids():
    s, _, _ = ek.random.fixed_unigram_candidate_sampler(
        [[3]], 1, 100_000, False, 5, unigrams=[1, 3, 6], num_reserved_ids=2, seed=2
    )
    freq = np.bincount(s.numpy(), minlength=5) / 100_000
    np.testing.assert_allclose(freq, [0, 0, 0.1, 0.3, 0.6], atol=0.01)


@pytest.mark.parametrize("seed", range(12))
def test_unique_sampling_takes_every_class_when_asked_for_all(seed):
    s, _, e = ek.random.log_uniform_candidate_sampler([[0]], 1, 6, True, 6, seed=seed)
    s, e = s.numpy(), e.numpy().astype(np.float64)
    assert sorted(s.tolist()) == list(range(6))
    # Every expected count comes from the one number of draws it took (TensorFlow's
    # ExpectedCountHelper): p * 6 when the first 6 draws were distinct, else the chance of
    # being drawn at all, 1 - (1 - p) ** tries.
    p = (np.log(s + 2.0) - np.log(s + 1.0)) / np.log(7.0)
    if np.allclose(e, p * 6, rtol=1e-5):
        return
    informative = e < 0.999  # a count of 1.0 (float32) tells nothing of the tries
    tries = np.log1p(-e[informative]) / np.log1p(-p[informative])
    assert informative.any() and tries[0] > 6
    assert tries[0] == pytest.approx(round(tries[0]), rel=1e-3)
    np.testing.assert_allclose(tries, tries[0], rtol=1e-3)
    np.testing.assert_allclose(e[~informative], 1.0, atol=1e-3)


def test_seeding_is_reproducible():
    args = ([[1, 2]], 2, 16, False, 1000)
    ek.random.set_seed(5)
    a = ek.random.log_uniform_candidate_sampler(*args)[0].numpy()
    b = ek.random.log_uniform_candidate_sampler(*args)[0].numpy()
    ek.random.set_seed(5)
    np.testing.assert_array_equal(ek.random.log_uniform_candidate_sampler(*args)[0].numpy(), a)
    assert not np.array_equal(a, b)  # the global sequence moves on
    c = ek.random.uniform_candidate_sampler(*args, seed=9)[0].numpy()
    np.testing.assert_array_equal(ek.random.uniform_candidate_sampler(*args, seed=9)[0], c)
    ek.random.set_seed(None)


def test_results_are_namedtuples_as_in_tensorflow():
    out = ek.random.uniform_candidate_sampler([[1]], 1, 2, True, 4, seed=0)
    assert type(out).__name__ == "UniformCandidateSampler"
    assert out.sampled_expected_count is out[2]


def test_all_candidate_sampler():
    s, t, e = ek.random.all_candidate_sampler([[1, 2]], 2, num_sampled=4, unique=True)
    assert s.numpy().tolist() == [0, 1, 2, 3] and s.dtype == ek.int64
    np.testing.assert_array_equal(t.numpy(), [[1, 1]])
    np.testing.assert_array_equal(e.numpy(), [1, 1, 1, 1])


def test_compute_accidental_hits_follows_tensorflow():
    # TensorFlow 2.21: a repeated sampled class hits at its last position, a true class
    # repeated in a row hits once per repeat.
    labels = [[1, 3], [2, 2], [0, 9], [5, 4]]
    i, j, w = ek.nn.compute_accidental_hits(labels, [2, 1, 9, 2], num_true=2)
    assert i.numpy().tolist() == [0, 1, 1, 2] and i.dtype == ek.int32
    assert j.numpy().tolist() == [1, 3, 3, 2] and j.dtype == ek.int64
    np.testing.assert_array_equal(w.numpy(), np.full(4, -FLT_MAX, np.float32))


def test_sampler_errors_follow_tensorflow():
    with pytest.raises(ek.errors.InvalidArgumentError, match=r"range \[0, 10\), received 12"):
        ek.random.log_uniform_candidate_sampler([[12]], 1, 5, False, 10)
    with pytest.raises(ek.errors.InvalidArgumentError, match="range is too small"):
        ek.random.uniform_candidate_sampler([[1]], 1, 5, True, 4)
    with pytest.raises(ek.errors.InvalidArgumentError, match="num_true=2"):
        ek.random.uniform_candidate_sampler([[1]], 2, 5, False, 4)
    with pytest.raises(NotImplementedError, match="vocab_file"):
        ek.random.fixed_unigram_candidate_sampler([[1]], 1, 2, False, 4, vocab_file="v.txt")
    with pytest.raises(ek.errors.InvalidArgumentError, match="range_max"):
        ek.random.fixed_unigram_candidate_sampler([[1]], 1, 2, False, 4, unigrams=[1, 2])
    with pytest.raises(ek.errors.InvalidArgumentError, match="non-zero weight"):
        ek.random.fixed_unigram_candidate_sampler([[1]], 1, 2, True, 3, unigrams=[0, 0, 1])


def test_a_class_sampled_twice_is_removed_at_its_last_position_only():
    # As TensorFlow's compute_accidental_hits, which the loss adds as -FLT_MAX.
    w, b, x, labels, _ = _data()
    sampled = np.array([2, 1, 9, 2], np.int64)
    sv = (sampled, np.ones((4, 2), np.float32), np.ones(4, np.float32))
    logits, _ = _hand_logits(w, b, x, labels, sv, remove_hits=False)
    logits[[0, 1, 1, 2], 2 + np.array([1, 3, 3, 2])] = -FLT_MAX  # the hits TF reports
    targets = np.concatenate([np.full((4, 2), 0.5), np.zeros((4, 4))], 1)
    got = ek.nn.sampled_softmax_loss(w, b, labels, x, 4, 10, 2, sv)
    np.testing.assert_allclose(got.numpy(), _hand_softmax_loss(logits, targets), rtol=1e-5)
