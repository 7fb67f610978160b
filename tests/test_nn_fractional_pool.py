"""ek.nn.fractional_max_pool and fractional_avg_pool (TensorFlow 2's signatures): the pooling
sequences' constraints (Graham's fractional pooling, random and pseudo-random), pooling over
the returned sequences, seeds, gradients (TensorFlow's routing, finite differences), errors,
and graph functions. TensorFlow's random sequences cannot be reproduced; where the sequences
are forced (a ratio dividing the size), expected literals were checked against TensorFlow
2.21."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.ops.pooling_fractional import pooling_sequence
from eagerkernel.testing import check_gradients

fmp = ek.nn.fractional_max_pool
fap = ek.nn.fractional_avg_pool


def regions(seq, size, overlapping):
    """TensorFlow's regions: [seq[i], seq[i + 1] - 1], or to seq[i + 1] (within the input)."""
    seq = np.asarray(seq)
    return [
        (int(a), min(int(b) if overlapping else int(b) - 1, size - 1))
        for a, b in itertools.pairwise(seq)
    ]


def reference(x, rows, cols, overlapping, kind):
    """Pooling by loops over the regions; for max also the routing of TF's gradient (the
    first maximum in row-major order) as flat input positions."""
    n, h, w, c = x.shape
    rr, cc = regions(rows, h, overlapping), regions(cols, w, overlapping)
    out = np.zeros((n, len(rr), len(cc), c), x.dtype)
    argmax = np.zeros(out.shape, np.int64)
    for (i, (r0, r1)), (j, (c0, c1)) in itertools.product(enumerate(rr), enumerate(cc)):
        block = x[:, r0 : r1 + 1, c0 : c1 + 1]
        if kind == "max":
            out[:, i, j] = block.max(axis=(1, 2))
            flat = block.reshape(n, -1, c).argmax(axis=1)  # first maximum, row-major
            rows_at, cols_at = r0 + flat // (c1 - c0 + 1), c0 + flat % (c1 - c0 + 1)
            argmax[:, i, j] = ((np.arange(n)[:, None] * h + rows_at) * w + cols_at) * c + np.arange(
                c
            )
        elif x.dtype.kind == "f":
            out[:, i, j] = block.mean(axis=(1, 2))
        else:  # C++ integer division, toward zero
            total, count = block.sum(axis=(1, 2)), block[0, :, :, 0].size
            out[:, i, j] = np.sign(total) * (np.abs(total) // count)
    return out, argmax


def check_sequence(seq, n_in, n_out):
    seq = np.asarray(seq)
    k = n_in // n_out
    assert seq.dtype == np.int64 and seq.shape == (n_out + 1,)
    assert seq[0] == 0 and seq[-1] == n_in
    steps = np.diff(seq)
    assert set(steps.tolist()) <= {k, k + 1}
    assert np.count_nonzero(steps == k + 1) == n_in % n_out


# -- sequences -------------------------------------------------------------------------------


@pytest.mark.parametrize("pseudo_random", [False, True])
def test_every_sequence_meets_grahams_constraints(pseudo_random):
    gen = np.random.default_rng(0)
    for n_in in range(1, 40):
        for n_out in range(1, n_in + 1):
            for _ in range(3):
                check_sequence(pooling_sequence(gen, n_in, n_out, pseudo_random), n_in, n_out)


@pytest.mark.parametrize("op", [fmp, fap])
@pytest.mark.parametrize("pseudo_random, overlapping", list(itertools.product([0, 1], [0, 1])))
def test_outputs_and_sequences(op, pseudo_random, overlapping):
    x = ek.zeros([2, 23, 10, 3])
    out, rows, cols = op(x, [1.0, 2.3, 1.44, 1.0], bool(pseudo_random), bool(overlapping), seed=5)
    # floor(23 / 2.3) and floor(10 / 1.44) in float32, as TensorFlow's kernel
    assert out.shape == (2, 10, 6, 3) and out.dtype == ek.float32
    assert rows.dtype == ek.int64 and cols.dtype == ek.int64
    check_sequence(rows.numpy(), 23, 10)
    check_sequence(cols.numpy(), 10, 6)


def test_ratios_that_divide_the_size_pool_regularly_as_tensorflow():
    # checked against TF 2.21: the sequences are forced, so the values are TensorFlow's
    x = ek.reshape(ek.range(16.0), [1, 4, 4, 1])
    out, rows, cols = fmp(x, [1.0, 2.0, 2.0, 1.0])
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[5, 7], [13, 15]])
    np.testing.assert_array_equal(rows.numpy(), [0, 2, 4])
    np.testing.assert_array_equal(cols.numpy(), [0, 2, 4])
    ints = ek.reshape(ek.range(16), [1, 4, 4, 1])
    out = fap(ints, [1.0, 1.5, 1.5, 1.0], seed=7).output  # floor(4 / 1.5) = 2: regions of 2
    assert out.dtype == ek.int32
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[2, 4], [10, 12]])  # 10 / 4 -> 2
    out = fap(-ints, [1.0, 1.5, 1.5, 1.0], seed=7).output
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[-2, -4], [-10, -12]])  # toward 0
    _, rows, cols = fmp(ek.zeros([1, 3, 3, 1]), [1, 1, 1, 1])
    np.testing.assert_array_equal(rows.numpy(), [0, 1, 2, 3])


def test_the_reference_regions_are_tensorflows():
    # checked against TF 2.21 (its kernels with the sequence [0, 2, 3, 5], overlapping)
    x = np.arange(25.0).reshape(1, 5, 5, 1)
    seq = [0, 2, 3, 5]
    out, _ = reference(x, seq, seq, True, "max")
    np.testing.assert_array_equal(out[0, :, :, 0], [[12, 13, 14], [17, 18, 19], [22, 23, 24]])
    out, _ = reference(x, seq, seq, True, "avg")
    np.testing.assert_array_equal(out[0, :, :, 0], [[6, 7.5, 8.5], [13.5, 15, 16], [18.5, 20, 21]])


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_pooling_over_the_returned_sequences(kind, overlapping, dtype):
    rng = np.random.default_rng(1)
    x = rng.integers(-20, 20, size=(2, 9, 11, 3)).astype(dtype)
    op = fmp if kind == "max" else fap
    for seed, pseudo in ((0, False), (3, True), (4, False)):
        out, rows, cols = op(x, [1.0, 1.7, 1.3, 1.0], pseudo, overlapping, seed)
        want, _ = reference(x, rows.numpy(), cols.numpy(), overlapping, kind)
        assert out.dtype.name == dtype
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)


def test_a_maximum_starts_at_the_lowest_float_as_tensorflows_kernel():
    x = ek.fill([1, 4, 4, 1], -np.inf)
    out = fmp(x, [1.0, 2.0, 2.0, 1.0]).output
    assert np.all(out.numpy() == np.finfo(np.float32).min)


# -- seeds -----------------------------------------------------------------------------------


def test_a_nonzero_seed_repeats_and_seed_zero_draws_anew():
    x = ek.zeros([1, 30, 30, 1])
    seqs = [tuple(fmp(x, 1.44, seed=9)[1].numpy()) for _ in range(3)]
    assert len(set(seqs)) == 1
    assert tuple(fap(x, [1.0, 1.44, 1.44, 1.0], seed=9)[1].numpy()) == seqs[0]
    drawn = {tuple(fmp(x, 1.44)[1].numpy()) for _ in range(20)}
    assert len(drawn) > 1  # C(20, 9) possible row sequences
    drawn = {tuple(fmp(x, 1.44, seed=None)[1].numpy()) for _ in range(20)}
    assert len(drawn) > 1
    ek.random.set_seed(11)
    first = [tuple(fmp(x, 1.44)[1].numpy()) for _ in range(2)]
    ek.random.set_seed(11)
    again = [tuple(fmp(x, 1.44)[1].numpy()) for _ in range(2)]
    ek.random.set_seed(None)
    assert first == again


# -- gradients -------------------------------------------------------------------------------


@pytest.mark.parametrize("overlapping", [False, True])
def test_max_gradient_goes_to_each_regions_first_maximum(overlapping):
    rng = np.random.default_rng(2)
    x = ek.constant(rng.integers(0, 3, size=(2, 8, 7, 2)).astype(np.float64))  # many ties
    g = rng.normal(size=(2, 5, 4, 2))
    with ek.GradientTape() as tape:
        tape.watch(x)
        out, rows, cols = fmp(x, [1.0, 1.6, 1.75, 1.0], overlapping=overlapping, seed=2)
        loss = ek.reduce_sum(out * g)
    _, argmax = reference(x.numpy(), rows.numpy(), cols.numpy(), overlapping, "max")
    want = np.bincount(argmax.reshape(-1), g.reshape(-1), minlength=x.shape.num_elements())
    np.testing.assert_allclose(tape.gradient(loss, x).numpy().reshape(-1), want, rtol=1e-12)


@pytest.mark.parametrize("overlapping", [False, True])
def test_avg_gradient_spreads_evenly_over_each_region(overlapping):
    rng = np.random.default_rng(3)
    x = ek.constant(rng.normal(size=(1, 8, 7, 2)))
    g = rng.normal(size=(1, 5, 4, 2))
    with ek.GradientTape() as tape:
        tape.watch(x)
        out, rows, cols = fap(x, [1.0, 1.6, 1.75, 1.0], overlapping=overlapping, seed=2)
        loss = ek.reduce_sum(out * g)
    want = np.zeros(x.shape)
    rr = regions(rows.numpy(), 8, overlapping)
    cc = regions(cols.numpy(), 7, overlapping)
    for (i, (r0, r1)), (j, (c0, c1)) in itertools.product(enumerate(rr), enumerate(cc)):
        want[:, r0 : r1 + 1, c0 : c1 + 1] += g[:, i, j][:, None, None] / (
            (r1 - r0 + 1) * (c1 - c0 + 1)
        )
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("op", [fmp, fap])
@pytest.mark.parametrize(
    "pseudo_random, overlapping", list(itertools.product([False, True], [False, True]))
)
def test_gradients_match_finite_differences_to_second_order(op, pseudo_random, overlapping):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(2, 7, 6, 2))  # distinct values: the maxima hold near the point

    def pool(t):  # a nonzero seed: the same regions on every evaluation
        return op(t, [1.0, 1.4, 1.5, 1.0], pseudo_random, overlapping, seed=6).output

    check_gradients(pool, x, rtol=1e-6, atol=1e-8)
    check_gradients(lambda t: pool(t) ** 2, x, order=2, rtol=1e-5, atol=1e-7)


def test_integer_inputs_have_no_gradient():
    x = ek.ones([1, 4, 4, 1], ek.int32)
    for op in (fmp, fap):
        with ek.GradientTape() as tape:
            tape.watch(x)
            out = op(x, [1.0, 2.0, 2.0, 1.0]).output
        assert tape.gradient(out, x) is None


# -- errors ----------------------------------------------------------------------------------


def test_max_pool_ratio_errors_follow_tensorflows_python_checks():
    x = ek.zeros([1, 10, 10, 1])
    name = "fractional_max_pool"
    with pytest.raises(ValueError, match=rf"{name}: pooling_ratio should have first and last"):
        fmp(x, [1.44, 1.73])
    with pytest.raises(ValueError, match=rf"{name}: pooling_ratio should have first and last"):
        fmp(x, [2.0, 1.5, 1.5, 1.0])
    with pytest.raises(ValueError, match=rf"{name}: pooling_ratio elements should be >= 1.0"):
        fmp(x, [1.0, 0.5, 1.5, 1.0])
    with pytest.raises(ValueError, match=rf"{name}: pooling_ratio should be >= 1.0"):
        fmp(x, 0.5)
    with pytest.raises(ValueError, match=rf"{name}: pooling_ratio should be an int or a list"):
        fmp(x, "2")
    with pytest.raises(ValueError, match=rf"{name}: pooling_ratio should be of length 1, 2 or 4"):
        fmp(x, [1.0, 1.44, 1.0])
    assert fmp(x, [1.0, 1.0]).output.shape == (1, 10, 10, 1)  # TF's [1, 1, 1, 1]


def test_avg_pool_ratio_errors_follow_tensorflows_op():
    x = ek.zeros([1, 10, 10, 1])
    name = "fractional_avg_pool"
    with pytest.raises(TypeError, match=rf"{name}: pooling_ratio must be a list of 4"):
        fap(x, 1.5)
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: pooling_ratio must have 4"):
        fap(x, [1.5, 1.5])
    with pytest.raises(ek.errors.InvalidArgumentError, match=rf"{name}: pooling_ratio cannot be"):
        fap(x, [1.0, 0.5, 1.5, 1.0])
    with pytest.raises(ek.errors.UnimplementedError, match=rf"{name}: pooling on the batch"):
        fap(x, [2.0, 1.5, 1.5, 1.0])


@pytest.mark.parametrize("op, name", [(fmp, "fractional_max_pool"), (fap, "fractional_avg_pool")])
def test_shared_errors(op, name):
    ratio = [1.0, 1.5, 1.5, 1.0]
    with pytest.raises(
        ek.errors.InvalidArgumentError, match=rf"{name}: value must be 4-dimensional"
    ):
        op(ek.zeros([3, 3, 1]), ratio)
    with pytest.raises(
        ek.errors.InvalidArgumentError,
        match=rf"{name}: pooling ratio is higher than input dimension size for dimension 1. "
        "Input dim size: 3 pooling ratio: 4",
    ):
        op(ek.zeros([1, 3, 3, 1]), [1.0, 4.0, 1.5, 1.0])
    with pytest.raises(ek.errors.InvalidArgumentError, match="for dimension 0"):
        op(ek.zeros([0, 4, 4, 1]), ratio)
    for dtype in (ek.float16, ek.int8, ek.uint8, ek.bool):
        with pytest.raises(
            ek.errors.UnsupportedDTypeError, match=rf"{name}: value must be float32"
        ):
            op(ek.zeros([1, 4, 4, 1], dtype), ratio)
    with pytest.raises(TypeError, match=rf"{name}: pseudo_random must be a bool"):
        op(ek.zeros([1, 4, 4, 1]), ratio, pseudo_random=1)
    with pytest.raises(TypeError, match=rf"{name}: overlapping must be a bool"):
        op(ek.zeros([1, 4, 4, 1]), ratio, overlapping="yes")
    with pytest.raises(TypeError, match=rf"{name}: seed must be an int"):
        op(ek.zeros([1, 4, 4, 1]), ratio, seed=1.5)


# -- graph functions ---------------------------------------------------------------------------


def test_graph_functions_pool_each_input_and_draw_new_regions_per_call():
    rng = np.random.default_rng(5)
    xs = [ek.constant(rng.normal(size=(1, 9, 9, 2)).astype(np.float32)) for _ in range(2)]

    def seeded(x):
        with ek.GradientTape() as tape:
            tape.watch(x)
            out, rows, cols = fmp(x, 1.5, seed=4)
            avg = fap(x, [1.0, 1.5, 1.5, 1.0], overlapping=True, seed=4).output
            loss = ek.reduce_sum(out**2) + ek.reduce_sum(avg**2)
        return out, avg, rows, cols, tape.gradient(loss, x)

    traced = ek.function(seeded)
    for x in (*xs, xs[0]):
        for got, want in zip(traced(x), seeded(x)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())

    drawing = ek.function(lambda x: tuple(fmp(x, 1.5)))
    seen = set()
    for _ in range(12):
        out, rows, cols = drawing(xs[0])
        want, _ = reference(xs[0].numpy(), rows.numpy(), cols.numpy(), False, "max")
        np.testing.assert_array_equal(out.numpy(), want)  # pooled over this call's regions
        seen.add((tuple(rows.numpy()), tuple(cols.numpy())))
    assert len(seen) > 1
