"""Small TensorFlow API gaps from the guides: tensor_scatter_nd_*, regularizers, RNN cells,
ek.version, cross-device ops. Values are TensorFlow's documented outputs or closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.testing import check_gradients

IAE = ek.errors.InvalidArgumentError

# -- tensor_scatter_nd_* (TF's tensor slicing guide, cells 18-21) ---------------------------------

T11 = [[2, 7, 0], [9, 0, 1], [0, 3, 8]]
T14 = [[-2, -7, 0], [-9, 0, 1], [0, -3, -8]]
DIAG_ANTI = [[0, 2], [1, 1], [2, 0]]


def test_tensor_scatter_nd_guide_values():
    t12 = ek.tensor_scatter_nd_add(ek.constant(T11), indices=DIAG_ANTI, updates=[6, 5, 4])
    np.testing.assert_array_equal(t12.numpy(), [[2, 7, 6], [9, 5, 1], [4, 3, 8]])
    assert t12.dtype == ek.int32
    t13 = ek.tensor_scatter_nd_sub(
        ek.constant(T11),
        indices=[[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]],
        updates=[1, 7, 9, -1, 1, 3, 7],
    )
    np.testing.assert_array_equal(t13.numpy(), np.eye(3, dtype=np.int32))
    t15 = ek.tensor_scatter_nd_min(ek.constant(T14), indices=DIAG_ANTI, updates=[-6, -5, -4])
    np.testing.assert_array_equal(t15.numpy(), [[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]])
    t16 = ek.tensor_scatter_nd_max(ek.constant(T14), indices=DIAG_ANTI, updates=[6, 5, 4])
    np.testing.assert_array_equal(t16.numpy(), [[-2, -7, 6], [-9, 5, 1], [4, -3, -8]])


def test_tensor_scatter_nd_api_doc_examples():
    # tf.tensor_scatter_nd_update's and _add's API docs: element and slice updates.
    t = ek.tensor_scatter_nd_update(
        ek.constant([0, 0, 0, 0, 0, 0, 0, 0]), [[1], [3], [4], [7]], [9, 10, 11, 12]
    )
    np.testing.assert_array_equal(t.numpy(), [0, 9, 0, 10, 11, 0, 0, 12])
    t = ek.tensor_scatter_nd_add(
        ek.constant([1, 2, 3, 4, 5, 6, 7, 8]), [[4], [3], [1], [7]], [9, 10, 11, 12]
    )
    np.testing.assert_array_equal(t.numpy(), [1, 13, 3, 14, 14, 6, 7, 20])
    base = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    rows = np.ones((2, 4), np.float32)
    out = ek.tensor_scatter_nd_update(base, [[1, 2], [0, 0]], rows * 5)
    want = base.copy()
    want[1, 2] = 5
    want[0, 0] = 5
    np.testing.assert_array_equal(out.numpy(), want)
    # Repeated indices accumulate for add/sub and combine for min/max.
    np.testing.assert_array_equal(
        ek.tensor_scatter_nd_sub(ek.constant([5, 5]), [[1], [1]], [1, 2]).numpy(), [5, 2]
    )
    np.testing.assert_array_equal(
        ek.tensor_scatter_nd_max(ek.constant([0, 0]), [[0], [0]], [3, 7]).numpy(), [7, 0]
    )


@pytest.mark.parametrize(
    "fn",
    [
        ek.tensor_scatter_nd_update,
        ek.tensor_scatter_nd_add,
        ek.tensor_scatter_nd_sub,
        ek.tensor_scatter_nd_min,
        ek.tensor_scatter_nd_max,
    ],
)
def test_tensor_scatter_nd_gradients(fn):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3))
    u = rng.standard_normal((2, 3))  # slices: distinct values, so no min/max ties
    check_gradients(lambda a, b: fn(a, [[3], [1]], b) ** 2, x, u)
    xe = rng.standard_normal((3, 3))
    ue = rng.standard_normal(3)
    check_gradients(lambda a, b: fn(a, DIAG_ANTI, b) ** 3, xe, ue, order=2)


def test_tensor_scatter_nd_closed_form_gradients():
    x = ek.Variable([1.0, 2.0, 3.0])
    u = ek.Variable([2.0, 0.5])
    w = ek.constant([1.0, 10.0, 100.0])
    want = {
        ek.tensor_scatter_nd_update: ([0, 10, 0], [1, 100]),
        ek.tensor_scatter_nd_add: ([1, 10, 100], [1, 100]),
        ek.tensor_scatter_nd_sub: ([1, 10, 100], [-1, -100]),
        ek.tensor_scatter_nd_min: ([1, 10, 0], [0, 100]),
        ek.tensor_scatter_nd_max: ([0, 10, 100], [1, 0]),
    }
    for fn, (gx, gu) in want.items():
        with ek.GradientTape() as tape:
            loss = ek.reduce_sum(fn(x, [[0], [2]], u) * w)
        dx, du = tape.gradient(loss, [x, u])
        np.testing.assert_allclose(dx.numpy(), gx, err_msg=fn.__name__)
        np.testing.assert_allclose(du.numpy(), gu, err_msg=fn.__name__)
    # Ties split the cotangent evenly between the tensor's element and the equal update.
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(ek.tensor_scatter_nd_max(x, [[1]], [2.0]) * w)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [1, 5, 100])


def test_tensor_scatter_nd_errors():
    t = ek.constant(T11)
    with pytest.raises(IAE, match=r"tensor_scatter_nd_add: index 3 is out of range \[0, 3\)"):
        ek.tensor_scatter_nd_add(t, [[3, 0]], [1])
    with pytest.raises(IAE, match=r"tensor_scatter_nd_min: index -1 is out of range"):
        ek.tensor_scatter_nd_min(t, [[0, -1]], [1])
    with pytest.raises(IAE, match=r"tensor_scatter_nd_sub: updates must have shape \(1,\)"):
        ek.tensor_scatter_nd_sub(t, [[0, 0]], [1, 2])
    with pytest.raises(IAE, match=r"tensor_scatter_nd_update: indices must have shape"):
        ek.tensor_scatter_nd_update(t, [[0, 0, 0]], [1])
    with pytest.raises(IAE, match=r"updates must have the dtype of tensor \(int32\), got float32"):
        ek.tensor_scatter_nd_max(t, [[0, 0]], ek.constant([1.0]))
    with pytest.raises(TypeError, match=r"tensor_scatter_nd_add: indices must be an integer"):
        ek.tensor_scatter_nd_add(t, ek.constant([[0.0, 0.0]]), [1])


# -- keras.regularizers -------------------------------------------------------------------------

R = ek.keras.regularizers
W = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]], np.float32)


def test_regularizer_values_and_defaults():
    x = ek.constant([1.0, -2.0, 3.0])
    assert float(R.l1(0.1)(x)) == pytest.approx(0.6)
    assert float(R.l2(0.1)(x)) == pytest.approx(1.4)  # no factor 1/2, as Keras
    assert float(R.L1L2(l1=0.5, l2=0.25)(x)) == pytest.approx(3.0 + 3.5)
    assert R.L1().get_config() == {"l1": 0.01}
    assert R.L2().get_config() == {"l2": 0.01}
    assert R.l1_l2().get_config() == {"l1": 0.0, "l2": 0.0}
    assert R.L1L2(l2=0.1).get_config() == {"l1": 0.0, "l2": 0.1}
    assert R.get("l2").get_config() == {"l2": 0.01}
    assert isinstance(R.get("L1L2"), R.L1L2)
    assert R.get(None) is None
    assert R.l1(0.1)(x).dtype == ek.float32
    assert R.l2(0.1)(ek.constant([1.0], dtype=ek.float64)).dtype == ek.float64


def test_orthogonal_regularizer_closed_form():
    # Rows of W normalized: (1,0), (1,1)/sqrt2, (0,1); off-diagonal |dots| sum to 4/sqrt2 over
    # 3 pairs. Columns: (1,1,0)/sqrt2 and (0,1,2)/sqrt5, one pair with dot 1/sqrt10.
    rows = R.OrthogonalRegularizer(factor=0.1)(ek.constant(W))
    assert float(rows) == pytest.approx(0.1 * 0.5 * (4 / np.sqrt(2)) / 3, rel=1e-6)
    cols = R.OrthogonalRegularizer(factor=0.1, mode="columns")(ek.constant(W))
    assert float(cols) == pytest.approx(0.1 * 0.5 * (2 / np.sqrt(10)) / 1, rel=1e-6)
    assert R.orthogonal_regularizer(0.2).get_config() == {"factor": 0.2, "mode": "rows"}
    with pytest.raises(ValueError, match="must have rank 2"):
        R.OrthogonalRegularizer()(ek.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="Received: mode='diag'"):
        R.OrthogonalRegularizer(mode="diag")


def test_regularizer_errors_and_serialization():
    with pytest.raises(ValueError, match=r"Invalid value for argument l2.*Received: l2=-1"):
        R.L2(-1)
    with pytest.raises(ValueError, match=r"Invalid value for argument l1.*Received: l1=nan"):
        R.L1(float("nan"))
    with pytest.raises(ValueError, match="Unknown regularizer: 'l3'"):
        R.get("l3")
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier"):
        R.get(3)
    config = R.serialize(R.L1L2(l1=0.1, l2=0.2))
    assert config["class_name"] == "L1L2" and config["config"] == {"l1": 0.1, "l2": 0.2}
    back = R.deserialize(config)
    assert isinstance(back, R.L1L2) and back.get_config() == {"l1": 0.1, "l2": 0.2}
    assert R.get(config).get_config() == back.get_config()
    assert R.serialize(None) is None


def test_layer_regularizers_and_add_loss():
    layer = ek.keras.layers.Dense(
        2,
        kernel_initializer="ones",
        bias_initializer="ones",
        kernel_regularizer="l2",
        bias_regularizer=R.l1(0.5),
        activity_regularizer=R.l2(0.1),
    )
    y = layer(ek.ones((1, 3)))  # outputs [[4, 4]]
    np.testing.assert_allclose(y.numpy(), [[4.0, 4.0]])
    # The activity loss (from the call) first, then the kernel's and the bias's.
    np.testing.assert_allclose(
        [float(v) for v in layer.losses], [0.1 * 32, 0.01 * 6, 0.5 * 2], rtol=1e-6
    )
    layer(ek.zeros((1, 3)))  # a new call replaces the activity loss: outputs [[1, 1]]
    np.testing.assert_allclose(float(layer.losses[0]), 0.2, rtol=1e-6)
    assert len(layer.losses) == 3


def test_add_loss_in_call_is_reset_per_outer_call():
    class Penalized(ek.keras.layers.Layer):
        def call(self, x):
            self.add_loss(ek.reduce_sum(x))
            return x

    inner = Penalized()
    model = ek.keras.Sequential([inner, ek.keras.layers.Dense(1, kernel_initializer="zeros")])
    model(ek.ones((2, 2)))
    model(ek.ones((2, 2)) * 3)
    assert [float(v) for v in model.losses] == [12.0]
    assert [float(v) for v in inner.losses] == [12.0]
    model.add_loss(lambda: ek.constant(1.5))  # a Keras 2 callable loss: kept, evaluated on read
    assert sorted(float(v) for v in model.losses) == [1.5, 12.0]
    with pytest.raises(TypeError, match=r"add_loss: expected a scalar Tensor.*got str"):
        inner.add_loss("x")


def test_fit_adds_model_losses():
    ek.random.set_seed(0)
    x = np.ones((4, 3), np.float32)
    y = np.zeros((4, 1), np.float32)
    model = ek.keras.Sequential(
        [ek.keras.layers.Dense(1, kernel_initializer="ones", kernel_regularizer=R.l2(0.5))]
    )
    model.compile(optimizer=ek.keras.optimizers.SGD(0.0), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    # mse of predictions 3 against 0 is 9; the kernel's penalty 0.5 * 3.
    assert history.history["loss"][0] == pytest.approx(9.0 + 1.5)
    # With a learning rate the penalty's gradient shrinks the kernel (d/dw 0.5 w^2 = w).
    model.compile(optimizer=ek.keras.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, batch_size=4, epochs=1, verbose=0)
    # d mse / dw = 2 * 3 * 1 = 6, plus 1 from the penalty: w = 1 - 0.1 * 7.
    np.testing.assert_allclose(model.layers[0].kernel.numpy(), np.full((3, 1), 0.3), rtol=1e-6)


def test_keras_file_round_trips_regularizers(tmp_path):
    model = ek.keras.Sequential(
        [
            ek.keras.Input((3,)),
            ek.keras.layers.Dense(
                2,
                kernel_regularizer=R.L1L2(l1=0.1, l2=0.2),
                bias_regularizer="l2",
                activity_regularizer=R.l1(0.3),
            ),
            ek.keras.layers.Dense(
                2, kernel_regularizer=R.OrthogonalRegularizer(0.05, mode="columns")
            ),
        ]
    )
    model(ek.ones((1, 3)))
    path = tmp_path / "reg.keras"
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    d0, d1 = loaded.layers
    assert isinstance(d0.kernel_regularizer, R.L1L2)
    assert d0.kernel_regularizer.get_config() == {"l1": 0.1, "l2": 0.2}
    assert d0.bias_regularizer.get_config() == {"l2": 0.01}
    assert d0.activity_regularizer.get_config() == {"l1": 0.3}
    assert d1.kernel_regularizer.get_config() == {"factor": 0.05, "mode": "columns"}
    loaded(ek.ones((1, 3)))
    model(ek.ones((1, 3)))
    np.testing.assert_allclose(
        [float(v) for v in loaded.losses], [float(v) for v in model.losses], rtol=1e-6
    )


# -- recurrent cells and RNN(cell) ----------------------------------------------------------------

L = ek.keras.layers
SEQ = np.random.default_rng(3).standard_normal((2, 5, 3)).astype(np.float32)


@pytest.mark.parametrize(
    "layer_cls, cell_cls",
    [(L.SimpleRNN, L.SimpleRNNCell), (L.LSTM, L.LSTMCell), (L.GRU, L.GRUCell)],
)
def test_cells_step_like_their_layers(layer_cls, cell_cls):
    layer = layer_cls(4, return_sequences=True, return_state=True)
    out_layer, *states_layer = layer(SEQ)
    cell = cell_cls(4)
    cell(SEQ[:, 0], cell.get_initial_state(batch_size=2))  # builds the cell
    cell.set_weights(layer.get_weights())
    assert [v.name.split("/")[-1] for v in cell.weights] == [
        "kernel:0",
        "recurrent_kernel:0",
        "bias:0",
    ]
    states = cell.get_initial_state(batch_size=2)
    outs = []
    for t in range(5):
        out, states = cell(SEQ[:, t], states)
        outs.append(out.numpy())
    np.testing.assert_allclose(np.stack(outs, 1), out_layer.numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(states, states_layer):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    # RNN(cell) runs the same recurrence with the cell's weights.
    rnn = L.RNN(cell, return_sequences=True)
    np.testing.assert_allclose(rnn(SEQ).numpy(), out_layer.numpy(), rtol=1e-5, atol=1e-6)
    assert len(rnn.trainable_variables) == 3


def test_lstm_cell_closed_form_one_step():
    # Kernel and recurrent kernel zero, bias b: every gate is sigmoid(b_gate), c = i * tanh(b_c)
    # from c0 = 0, h = o * tanh(c).
    cell = L.LSTMCell(2, kernel_initializer="zeros", recurrent_initializer="zeros")
    cell(np.ones((1, 3), np.float32), cell.get_initial_state(batch_size=1))
    b = np.array([0.5, -0.5, 1.0, 2.0, 0.3, -0.3, 0.1, 0.2], np.float32)
    cell.bias.assign(b)
    h, (h2, c) = cell(np.ones((1, 3), np.float32), cell.get_initial_state(batch_size=1))
    sig = lambda z: 1 / (1 + np.exp(-z))
    c_want = sig(b[0:2]) * np.tanh(b[4:6])
    np.testing.assert_allclose(c.numpy()[0], c_want, rtol=1e-6)
    np.testing.assert_allclose(h.numpy()[0], sig(b[6:8]) * np.tanh(c_want), rtol=1e-6)
    assert h2 is h or np.array_equal(h2.numpy(), h.numpy())
    assert cell.state_size == [2, 2] and cell.output_size == 2
    assert L.GRUCell(3).state_size == 3


def test_rnn_with_a_custom_cell_and_gradients():
    class MinimalRNNCell(L.Layer):  # Keras's documented example cell
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units

        def build(self, input_shape):
            self.kernel = self.add_weight("kernel", (input_shape[-1], self.units))
            self.recurrent_kernel = self.add_weight("recurrent_kernel", (self.units, self.units))

        def call(self, inputs, states):
            prev = states[0]
            out = ek.matmul(inputs, self.kernel) + ek.matmul(prev, self.recurrent_kernel)
            return out, [out]

    rnn = L.RNN(MinimalRNNCell(3), return_state=True)
    out, state = rnn(SEQ)
    k, r = (v.numpy() for v in rnn.cell.weights)
    h = np.zeros((2, 3), np.float32)
    for t in range(5):
        h = SEQ[:, t] @ k + h @ r
    np.testing.assert_allclose(out.numpy(), h, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(state.numpy(), h, rtol=1e-5, atol=1e-5)
    rnn64 = L.RNN(L.GRUCell(2, dtype="float64"), dtype="float64")
    check_gradients(lambda x: rnn64(x), SEQ.astype(np.float64)[:, :3], rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="should have a `call` method and a `state_size`"):
        L.RNN(L.Dense(3))
    stacked = L.RNN([L.LSTMCell(2), L.LSTMCell(2)])  # Keras wraps a list in StackedRNNCells
    assert isinstance(stacked.cell, L.StackedRNNCells) and stacked(SEQ).shape == (2, 2)


def test_rnn_cell_config_round_trip(tmp_path):
    model = ek.keras.Sequential(
        [
            ek.keras.Input((5, 3)),
            L.RNN(L.LSTMCell(4, kernel_regularizer=R.l2(0.1)), go_backwards=True),
        ]
    )
    path = tmp_path / "rnn.keras"
    model.save(path)
    loaded = ek.keras.models.load_model(path)
    rnn = loaded.layers[0]
    assert isinstance(rnn.cell, L.LSTMCell) and rnn.go_backwards
    assert rnn.cell.kernel_regularizer.get_config() == {"l2": 0.1}
    np.testing.assert_allclose(loaded(SEQ).numpy(), model(SEQ).numpy(), rtol=1e-6)
    np.testing.assert_allclose(
        [float(v) for v in loaded.losses], [float(v) for v in model.losses], rtol=1e-6
    )


# -- ek.version ---------------------------------------------------------------------------------


def test_version_module():
    from pathlib import Path

    import tomllib

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert ek.version.VERSION == ek.__version__ == project["project"]["version"]
    assert ek.version.GIT_VERSION == "unknown"
    assert isinstance(ek.version.COMPILER_VERSION, str) and ek.version.COMPILER_VERSION


# -- ek.distribute: cross-device ops and communication options -----------------------------------

D = ek.distribute


@pytest.mark.parametrize("ops", [D.HierarchicalCopyAllReduce(), D.ReductionToOneDevice(), None])
def test_mirrored_cross_device_ops_all_reduce(ops):
    ek.config.experimental.set_virtual_gpus(2)
    strategy = D.MirroredStrategy(["/gpu:0", "/gpu:1"], cross_device_ops=ops)

    def step():
        ctx = D.get_replica_context()
        value = ek.constant([1.0, 2.0]) * ek.cast(ctx.replica_id_in_sync_group + 1, ek.float32)
        return ctx.all_reduce(D.ReduceOp.SUM, value)

    results = strategy.experimental_local_results(strategy.run(step))
    for r in results:  # replica 0 contributes [1, 2], replica 1 [2, 4]
        np.testing.assert_allclose(r.numpy(), [3.0, 6.0])


def test_cross_device_ops_arguments():
    ek.config.experimental.set_virtual_gpus(2)
    with pytest.raises(ValueError, match="HierarchicalCopy requires num_packs >= 0, but -1"):
        D.HierarchicalCopyAllReduce(num_packs=-1)
    with pytest.raises(NotImplementedError, match="only num_packs=1"):
        D.HierarchicalCopyAllReduce(num_packs=2)
    with pytest.raises(ValueError, match="NcclAllReduce needs CUDA GPUs"):
        D.MirroredStrategy(["/gpu:0", "/gpu:1"], cross_device_ops=D.NcclAllReduce())
    with pytest.raises(NotImplementedError, match="HierarchicalCopyAllReduce\\(\\)"):
        D.MirroredStrategy(["/gpu:0", "/gpu:1"], cross_device_ops=object())
    assert D.experimental.CentralStorageStrategy().num_replicas_in_sync == 2  # implemented


def test_communication_options():
    impl = D.experimental.CommunicationImplementation
    assert [m.name for m in impl] == ["AUTO", "RING", "NCCL"]
    options = D.experimental.CommunicationOptions(implementation=impl.NCCL)
    assert options.implementation is impl.NCCL
    assert D.experimental.CommunicationOptions().implementation is impl.AUTO
    assert D.experimental.CommunicationOptions(implementation="ring").implementation is impl.RING
    with pytest.raises(ValueError, match="implementation must be a CommunicationImplementation"):
        D.experimental.CommunicationOptions(implementation="MPI")
    with pytest.raises(ValueError, match="bytes_per_pack must be >= 0"):
        D.experimental.CommunicationOptions(bytes_per_pack=-1)
    pytest.importorskip("mpi4py")
    # One worker on the CPU: NCCL falls back to RING, as TensorFlow documents. In a child
    # process, so that MPI is not initialized in the test process.
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import eagerkernel as ek\n"
        "impl = ek.distribute.experimental.CommunicationImplementation.NCCL\n"
        "o = ek.distribute.experimental.CommunicationOptions(implementation=impl)\n"
        "s = ek.distribute.MultiWorkerMirroredStrategy(communication_options=o)\n"
        "print('replicas', s.num_replicas_in_sync)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}
    env.pop("EAGERKERNEL_VIRTUAL_GPUS", None)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "replicas 1" in done.stdout


def test_embedding_and_conv_activity_regularizers():
    emb = ek.keras.layers.Embedding(4, 2, embeddings_initializer="ones", activity_regularizer="l1")
    emb(np.array([[0, 3, 1]]))
    assert [float(v) for v in emb.losses] == pytest.approx([0.01 * 6])
    conv = ek.keras.layers.Conv2D(
        1, 1, kernel_initializer="ones", use_bias=False, activity_regularizer=R.l2(0.5)
    )
    conv(np.full((1, 2, 2, 3), 2.0, np.float32))  # every output is 6
    assert [float(v) for v in conv.losses] == pytest.approx([0.5 * 4 * 36])
    assert conv.get_config()["activity_regularizer"]["config"] == {"l2": 0.5}
    with pytest.raises(NotImplementedError, match="Embedding: sparse=True is not supported"):
        ek.keras.layers.Embedding(4, 2, sparse=True)
