"""GradientTape semantics, case by case against TensorFlow's documented behaviour."""

import gc
import weakref

import numpy as np
import pytest

import eagerkernel as ek


def test_watch_and_gradient_scalar():
    x = ek.constant(3.0)
    with ek.GradientTape() as g:
        g.watch(x)
        y = x * x
    assert float(g.gradient(y, x)) == 6.0


def test_unwatched_constant_gives_none():
    x = ek.constant(3.0)
    with ek.GradientTape() as g:
        y = x * x
    assert g.gradient(y, x) is None


def test_second_call_on_non_persistent_tape_raises():
    x = ek.constant(3.0)
    with ek.GradientTape() as g:
        g.watch(x)
        y = x * x
    g.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        g.gradient(y, x)


def test_persistent_tape_allows_several_calls():
    # The example of tf.GradientTape's docstring.
    x = ek.constant(3.0)
    with ek.GradientTape(persistent=True) as g:
        g.watch(x)
        y = x * x
        z = y * y
    assert float(g.gradient(z, x)) == 108.0  # 4 x^3
    assert float(g.gradient(y, x)) == 6.0


def test_nested_tapes_give_second_derivative():
    x = ek.constant(3.0)
    with ek.GradientTape() as g:
        g.watch(x)
        with ek.GradientTape() as gg:
            gg.watch(x)
            y = x * x * x
        dy_dx = gg.gradient(y, x)
    d2y_dx2 = g.gradient(dy_dx, x)
    assert float(dy_dx) == 27.0
    assert float(d2y_dx2) == 18.0


def test_third_order_through_three_tapes():
    x = ek.constant(0.7, dtype=ek.float64)
    with ek.GradientTape() as t3:
        t3.watch(x)
        with ek.GradientTape() as t2:
            t2.watch(x)
            with ek.GradientTape() as t1:
                t1.watch(x)
                y = ek.sin(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    np.testing.assert_allclose(
        [float(d1), float(d2), float(d3)], [np.cos(0.7), -np.sin(0.7), -np.cos(0.7)]
    )


def test_gradient_penalty_reaches_variables_read_in_the_forward_pass():
    # WGAN-GP's pattern: the gradient with respect to the input depends on the weights through
    # the VJPs (g @ W^T); the outer tape must see those reads of W. d/dW sum((1 @ W^T)^2) = 2W.
    x = ek.constant([[1.0, 2.0]])
    w = ek.Variable([[0.5], [-1.0]])
    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            inner.watch(x)
            y = ek.reduce_sum(ek.matmul(x, w))
        gx = inner.gradient(y, x)
        penalty = ek.reduce_sum(gx * gx)
    np.testing.assert_allclose(outer.gradient(penalty, w).numpy(), 2 * w.numpy())


def test_gradient_penalty_of_a_dense_layer_matches_finite_differences():
    ek.random.set_seed(1)
    layer = ek.keras.layers.Dense(3, activation="tanh")
    x = ek.constant(np.random.default_rng(0).normal(size=(4, 2)).astype(np.float64))
    layer.build((None, 2))

    def penalty(kernel: np.ndarray) -> float:
        h = np.tanh(x.numpy() @ kernel + layer.bias.numpy())
        gx = (1 - h**2) @ kernel.T  # d sum(h) / dx
        return float(((np.sqrt((gx**2).sum(axis=1)) - 1) ** 2).mean())

    with ek.GradientTape() as outer:
        with ek.GradientTape() as inner:
            inner.watch(x)
            out = ek.reduce_sum(layer(ek.cast(x, ek.float32)))
        gx = inner.gradient(out, x)
        norm = ek.sqrt(ek.reduce_sum(gx * gx, axis=1))
        gp = ek.reduce_mean((norm - 1.0) ** 2)
    got = outer.gradient(gp, layer.kernel)
    assert got is not None
    k0 = layer.kernel.numpy().astype(np.float64)
    eps = 1e-4
    numeric = np.zeros_like(k0)
    for idx in np.ndindex(k0.shape):
        up, down = k0.copy(), k0.copy()
        up[idx] += eps
        down[idx] -= eps
        numeric[idx] = (penalty(up) - penalty(down)) / (2 * eps)
    np.testing.assert_allclose(got.numpy(), numeric, rtol=2e-3, atol=1e-4)
    assert abs(float(gp) - penalty(k0)) < 1e-4


def test_persistent_tape_records_its_own_gradient_inside_context():
    x = ek.constant(2.0)
    with ek.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x * x
        dy = t.gradient(y, x)
    assert float(dy) == 12.0
    assert float(t.gradient(dy, x)) == 12.0  # 6x


def test_variables_are_watched_on_access():
    v = ek.Variable(2.0)
    with ek.GradientTape() as t:
        y = v * v
    assert t.watched_variables() == (v,)
    assert float(t.gradient(y, v)) == 4.0


def test_watch_accessed_variables_false():
    a = ek.Variable(2.0)
    b = ek.Variable(3.0)
    with ek.GradientTape(watch_accessed_variables=False) as t:
        t.watch(a)
        y = a * b
    assert t.watched_variables() == (a,)
    ga, gb = t.gradient(y, [a, b])
    assert float(ga) == 3.0
    assert gb is None


def test_non_trainable_variable_not_watched():
    v = ek.Variable(2.0, trainable=False)
    with ek.GradientTape() as t:
        y = v * v
    assert t.watched_variables() == ()
    assert t.gradient(y, v) is None


def test_variable_read_in_several_ops_sums_gradients():
    v = ek.Variable([1.0, 2.0])
    with ek.GradientTape() as t:
        y = ek.reduce_sum(v * 3.0) + ek.reduce_sum(v * v)
    np.testing.assert_allclose(t.gradient(y, v).numpy(), [5.0, 7.0])


def test_variable_assigned_after_recording_keeps_recorded_value():
    v = ek.Variable(2.0)
    with ek.GradientTape() as t:
        y = v * v
    v.assign(100.0)
    assert float(t.gradient(y, v)) == 4.0


def test_stop_recording():
    x = ek.constant(3.0)
    with ek.GradientTape() as t:
        t.watch(x)
        with t.stop_recording():
            y = x * x
        z = x * 2.0
    assert t.gradient(y, x) is None
    assert z.numpy() == 6.0


def test_stop_recording_outside_context_raises():
    t = ek.GradientTape()
    with pytest.raises(RuntimeError, match="not recording"):
        t.stop_recording()


def test_reset():
    x = ek.constant(3.0)
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * x
        t.reset()
        t.watch(x)
        z = x * 5.0
    assert float(t.gradient(z, x)) == 5.0
    assert y is not None


def test_nested_structures_in_and_out():
    a = ek.constant(1.0)
    b = ek.constant(2.0)
    with ek.GradientTape() as t:
        t.watch([a, b])
        out = {"s": a * b, "t": [a + b]}
    grads = t.gradient(out, {"a": a, "pair": (b, a)})
    assert float(grads["a"]) == 3.0  # d(ab + a + b)/da = b + 1
    assert float(grads["pair"][0]) == 2.0
    assert float(grads["pair"][1]) == 3.0


def test_non_scalar_target_is_summed():
    x = ek.constant([1.0, 2.0, 3.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * x
    np.testing.assert_allclose(t.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_output_gradients_weight_the_target():
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * x
    g = t.gradient(y, x, output_gradients=ek.constant([10.0, -1.0]))
    np.testing.assert_allclose(g.numpy(), [20.0, -4.0])


def test_output_gradients_shape_mismatch():
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * x
    with pytest.raises(ValueError, match=r"output_gradients shape \(3,\).*\(2,\)"):
        t.gradient(y, x, output_gradients=ek.constant([1.0, 1.0, 1.0]))


def test_unconnected_gradients_zero():
    x = ek.constant([1.0, 2.0])
    z = ek.constant([5.0])
    with ek.GradientTape(persistent=True) as t:
        t.watch([x, z])
        y = x * 2.0
    assert t.gradient(y, z) is None
    g = t.gradient(y, z, unconnected_gradients=ek.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(g.numpy(), [0.0])
    assert g.dtype == ek.float32


def test_integer_sources_give_none():
    i = ek.constant(3)
    with ek.GradientTape() as t:
        t.watch(i)
        y = i * i
    assert t.gradient(y, i) is None


def test_gradient_through_cast_to_int_is_none():
    x = ek.constant(2.5)
    with ek.GradientTape() as t:
        t.watch(x)
        y = ek.cast(ek.cast(x, ek.int32), ek.float32) * x
    assert float(t.gradient(y, x)) == 2.0  # only the direct path


def test_source_that_is_computed_gets_total_derivative_through_consumers():
    x = ek.constant(2.0)
    with ek.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
        z = y * 3.0
    assert float(t.gradient(z, y)) == 3.0
    assert float(t.gradient(z, x)) == 12.0
    gy, gx = t.gradient(z, [y, x])
    assert (float(gy), float(gx)) == (3.0, 12.0)


def test_target_is_source():
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as t:
        t.watch(x)
    np.testing.assert_array_equal(t.gradient(x, x).numpy(), [1.0, 1.0])


def test_control_flow_is_recorded_as_executed():
    def f(x):
        out = x
        for _ in range(4):
            out = out * x if float(out) < 10 else out + 1.0
        return out

    x = ek.constant(2.0)
    with ek.GradientTape() as t:
        t.watch(x)
        y = f(x)  # x^2 = 4, x^3 = 8, x^4 = 16, then the other branch: x^4 + 1
    assert float(y) == 17.0
    assert float(t.gradient(y, x)) == 32.0  # d/dx (x^4 + 1)


def test_jacobian():
    x = ek.constant([1.0, 2.0])
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * x * 3.0
    j = t.jacobian(y, x)
    np.testing.assert_allclose(j.numpy(), [[6.0, 0.0], [0.0, 12.0]])


def test_jacobian_matrix_shapes():
    w = ek.Variable(np.arange(6.0).reshape(2, 3))
    x = ek.constant(np.ones((1, 2)))
    with ek.GradientTape() as t:
        y = ek.matmul(x, w)
    j = t.jacobian(y, w)
    assert j.shape == (1, 3, 2, 3)
    expected = np.zeros((1, 3, 2, 3))
    for k in range(3):
        expected[0, k, :, k] = 1.0
    np.testing.assert_allclose(j.numpy(), expected)


def test_batch_jacobian():
    x = ek.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    with ek.GradientTape() as t:
        t.watch(x)
        y = x * x
    bj = t.batch_jacobian(y, x)
    assert bj.shape == (2, 2, 2)
    np.testing.assert_allclose(bj.numpy()[0], np.diag([2.0, 4.0]))
    np.testing.assert_allclose(bj.numpy()[1], np.diag([6.0, 8.0]))


def test_batch_jacobian_batch_mismatch():
    x = ek.constant(np.ones((2, 2)))
    with ek.GradientTape() as t:
        t.watch(x)
        y = ek.reduce_sum(x, axis=0, keepdims=True)
    with pytest.raises(
        ValueError,
        match=r"Need first dimension of target shape \(\(1, 2\)\) and source shape "
        r"\(\(2, 2\)\) to match",
    ):
        t.batch_jacobian(y, x)


def test_batch_jacobian_needs_rank_two_target_and_source():
    # TensorFlow's messages (TensorShape.with_rank_at_least), checked with TF 2.21.
    x = ek.constant([[1.0, 2.0], [3.0, 4.0]])
    s = ek.constant(1.0)
    with ek.GradientTape(persistent=True) as t:
        t.watch([x, s])
        y, z = x * 2.0, s * x
    with pytest.raises(ValueError, match=r"Shape \(2,\) must have rank at least 2"):
        t.batch_jacobian(y[0], x)
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 2"):
        t.batch_jacobian(z, s)


def test_watch_rejects_non_tensors():
    with ek.GradientTape() as t, pytest.raises(ValueError, match="expected Tensors"):
        t.watch("x")


def test_tape_records_nothing_when_not_watching():
    x = ek.constant(1.0)
    with ek.GradientTape() as t:
        _ = x * 2.0
    assert t.entries == []


def test_broadcast_gradients_are_reduced_to_input_shapes():
    x = ek.constant(np.ones((3, 1)))
    b = ek.constant(np.ones(4))
    with ek.GradientTape() as t:
        t.watch([x, b])
        y = x * b + b
    gx, gb = t.gradient(y, [x, b])
    assert gx.shape == (3, 1) and gb.shape == (4,)
    np.testing.assert_allclose(gx.numpy(), np.full((3, 1), 4.0))
    np.testing.assert_allclose(gb.numpy(), np.full(4, 6.0))


def test_non_persistent_tape_releases_saved_tensors():
    x = ek.constant(np.ones(5))
    with ek.GradientTape() as t:
        t.watch(x)
        h = ek.exp(x)  # saved by Exp's VJP (it reuses the output)
        y = ek.reduce_sum(h * h)
    ref = weakref.ref(h)
    del h
    gc.collect()
    assert ref() is not None  # the tape still holds it
    t.gradient(y, x)
    gc.collect()
    assert ref() is None
    assert t.entries == []


def test_tensor_is_freed_without_tape():
    x = ek.constant(np.ones(5))
    y = x * 2.0
    ref = weakref.ref(y)
    del y
    assert ref() is None  # freed by reference counting alone: no cycles, no global tape


def test_tensor_is_freed_after_tape_is_dropped():
    x = ek.constant(np.ones(5))
    with ek.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * 2.0
    ref = weakref.ref(y)
    del y, t
    assert ref() is None


def test_ops_after_exit_are_not_recorded():
    x = ek.constant(2.0)
    with ek.GradientTape(persistent=True) as t:
        t.watch(x)
        y = x * x
    z = y * 10.0  # after exit: not on the tape, so z is not connected to x through it
    w = ek.exp(x)  # nor is an op on the watched x itself
    assert float(z) == 40.0 and float(w) == pytest.approx(np.exp(2.0))
    assert t.gradient(z, x) is None
    assert t.gradient(w, x) is None
    assert float(t.gradient(y, x)) == 4.0  # what was recorded inside is intact
    assert [e.prim.name for e in t.entries] == ["Mul"]  # x * x only


def test_op_recorded_on_several_tapes():
    x = ek.constant(1.5)
    with ek.GradientTape() as a, ek.GradientTape() as b:
        a.watch(x)
        b.watch(x)
        y = x * x
    assert float(a.gradient(y, x)) == 3.0
    assert float(b.gradient(y, x)) == 3.0


def test_other_thread_does_not_record():
    import threading

    x = ek.constant(2.0)
    results = {}
    with ek.GradientTape() as t:
        t.watch(x)

        def worker():
            results["y"] = x * x

        th = threading.Thread(target=worker)
        th.start()
        th.join()
    assert t.entries == []
    assert float(results["y"]) == 4.0


def test_op_without_gradient_raises_lookup_error_naming_it():
    from eagerkernel.runtime.core.dispatch import Primitive, dispatch

    cube = Primitive("MyCube", lambda xp, x: x**3)  # no defvjp
    x = ek.constant(2.0)
    with ek.GradientTape() as t:
        t.watch(x)
        y = dispatch(cube, (x,))
    assert float(y) == 8.0
    with pytest.raises(LookupError, match="No gradient defined for op 'MyCube'"):
        t.gradient(y, x)


def test_device_scope_is_per_thread():
    import contextlib
    import threading

    # The count tests/test_devices.py uses; any earlier count with a GPU does too.
    with contextlib.suppress(RuntimeError):
        ek.config.experimental.set_virtual_gpus(2)
    if ek.num_gpus() == 0:
        pytest.skip("no GPU device (real or virtual) in this process")
    seen = {}
    with ek.device("/gpu:0"):
        th = threading.Thread(target=lambda: seen.update(worker=ek.constant(1.0).device))
        th.start()
        th.join()
        seen["main"] = ek.constant(1.0).device
    assert seen == {
        "worker": "/job:localhost/replica:0/task:0/device:CPU:0",
        "main": "/job:localhost/replica:0/task:0/device:GPU:0",
    }
    # The scope ended with the block, on this thread too.
    assert ek.constant(1.0).device == "/job:localhost/replica:0/task:0/device:CPU:0"


def test_reset_outside_recording_raises_as_tensorflow():
    # TF 2.21: GradientTape().reset() and reset() after the `with` raise
    # ValueError("Tape is not recording."); so does reset() inside stop_recording().
    t = ek.GradientTape()
    with pytest.raises(ValueError, match="Tape is not recording"):
        t.reset()
    x = ek.constant(3.0)
    with t:
        t.watch(x)
        with t.stop_recording(), pytest.raises(ValueError, match="Tape is not recording"):
            t.reset()
        y = x * x
    with pytest.raises(ValueError, match="Tape is not recording"):
        t.reset()
    assert float(t.gradient(y, x)) == 6.0  # the failed resets kept the record


def test_watching_an_integer_tensor_logs_tensorflows_warning(caplog, monkeypatch):
    from eagerkernel.runtime.core import tape as tape_module

    monkeypatch.setattr(tape_module, "_not_float_warnings", [0])
    with caplog.at_level("WARNING", logger="eagerkernel"):
        for _ in range(7):
            with ek.GradientTape() as t:
                t.watch(ek.constant(1))
                t.watch(ek.constant(1.0))
    messages = [r.getMessage() for r in caplog.records]
    assert (
        messages
        == ["The dtype of the watched tensor must be floating (e.g. float32), got int32"] * 5
    )
    assert t.watched_variables() == ()


@pytest.mark.parametrize("activation", [ek.nn.relu, ek.nn.relu6])
def test_third_order_through_relu_is_zero_not_none(activation):
    # TF's Relu/Relu6 gradients read the op's output, so the second-order gradient (zeros,
    # from ReluGradGrad) stays connected to x through the Relu: TF 2.21 gives [0, 0] here.
    x = ek.constant([1.0, -2.0])
    with ek.GradientTape() as t3:
        t3.watch(x)
        with ek.GradientTape() as t2:
            t2.watch(x)
            with ek.GradientTape() as t1:
                t1.watch(x)
                y = ek.reduce_sum(activation(x) * ek.constant([2.0, 3.0]))
            g1 = ek.reduce_sum(t1.gradient(y, x))
        g2 = t2.gradient(g1, x)
        s = ek.reduce_sum(g2)
    np.testing.assert_array_equal(g2.numpy(), [0.0, 0.0])
    g3 = t3.gradient(s, x)
    assert g3 is not None
    np.testing.assert_array_equal(g3.numpy(), [0.0, 0.0])
