"""`ek.summary.trace_on` / `trace_export` (the traced graphs of `ek.function`s, written as a
TensorFlow GraphDef event that TensorBoard reads) and `ek.profiler.experimental`."""

import glob
import gzip
import json
import struct

import numpy as np
import pytest

import eagerkernel as ek

pytest.importorskip("tensorboardX")


def graph_events(logdir):
    """``[(step, GraphDef)]`` of the event files under ``logdir`` (TFRecord framing)."""
    from tensorboardX.proto.event_pb2 import Event
    from tensorboardX.proto.graph_pb2 import GraphDef

    out = []
    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        data = open(path, "rb").read()  # noqa: SIM115
        pos = 0
        while pos < len(data):
            (n,) = struct.unpack("<Q", data[pos : pos + 8])
            event = Event.FromString(data[pos + 12 : pos + 12 + n])
            pos += 12 + n + 4
            if event.HasField("graph_def"):
                out.append((event.step, GraphDef.FromString(event.graph_def)))
    return out


class Dense(ek.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = ek.Variable(np.ones((in_features, out_features), np.float32), name="w")
        self.b = ek.Variable(np.zeros(out_features, np.float32), name="b")

    def __call__(self, x):
        return ek.nn.relu(ek.matmul(x, self.w) + self.b)


class Sequential(ek.Module):
    def __init__(self):
        super().__init__()
        self.dense_1 = Dense(3, 3)
        self.dense_2 = Dense(3, 2)

    @ek.function
    def __call__(self, x):
        return self.dense_2(self.dense_1(x))


def test_the_guides_trace_writes_the_functions_graph(tmp_path):
    writer = ek.summary.create_file_writer(str(tmp_path))
    model = Sequential()
    ek.summary.trace_on(graph=True)
    z = model(ek.constant([[2.0, 2.0, 2.0]]))
    with writer.as_default():
        assert ek.summary.trace_export(name="my_func_trace", step=0, profiler_outdir=str(tmp_path))
    np.testing.assert_array_equal(z.numpy(), [[18.0, 18.0]])  # relu(relu(2*3)*3)
    [(step, graph)] = graph_events(tmp_path)
    assert step == 0
    nodes = {n.name: n for n in graph.node}
    ops = [n.op for n in graph.node]
    assert ops.count("MatMul") == 2 and ops.count("Relu") == 2 and ops.count("Placeholder") == 1
    assert ops.count("ReadVariableOp") == 4 and ops.count("Identity") == 1
    assert all(name.startswith("my_func_trace/__call__/") for name in nodes)
    identity = next(n for n in graph.node if n.op == "Identity")
    shape = identity.attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [1, 2] and identity.attr["T"].type == 1  # DT_FLOAT
    relu = nodes[identity.input[0]]  # each node's inputs name the nodes that produced them
    assert relu.op == "Relu" and nodes[relu.input[0]].op in ("Add", "AddV2")
    # The trace is over: a second export has nothing to export.
    with pytest.raises(ValueError, match="Must enable trace before export"):
        ek.summary.trace_export(name="again", step=1)


def test_tensorboard_reads_the_graph(tmp_path):
    event_accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    )
    writer = ek.summary.create_file_writer(str(tmp_path))
    f = ek.function(lambda x: ek.reduce_sum(x * x))
    ek.summary.trace_on()
    f(ek.constant([1.0, 2.0]))
    with writer.as_default(step=3):
        ek.summary.trace_export("trace")
    acc = event_accumulator.EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["graph"]
    assert {n.op for n in acc.Graph().node} >= {"Placeholder", "Mul", "Sum", "Identity"}


def test_only_functions_traced_while_on_are_exported(tmp_path):
    f = ek.function(lambda x: x + 1.0)
    f(ek.constant(1.0))  # traced before trace_on: not collected
    writer = ek.summary.create_file_writer(str(tmp_path))
    ek.summary.trace_on()
    f(ek.constant(1.0))  # a replay, no new graph
    g = ek.function(lambda x: x * 2.0)
    g(ek.constant(1.0))
    with writer.as_default():
        ek.summary.trace_export("t", step=5)
    [(step, graph)] = graph_events(tmp_path)
    assert step == 5
    assert {n.name.split("/")[1] for n in graph.node} == {"<lambda>"}
    assert "Mul" in {n.op for n in graph.node} and "AddV2" not in {n.op for n in graph.node}


def test_export_without_a_writer_writes_nothing_and_ends_the_trace(tmp_path):
    ek.summary.trace_on()
    assert ek.summary.trace_export("t", step=0) is False
    with pytest.raises(ValueError, match="Must enable trace"):
        ek.summary.trace_export("t", step=0)


def test_trace_arguments_are_checked():
    with pytest.raises(NotImplementedError, match="profiler=True"):
        ek.summary.trace_on(graph=True, profiler=True)
    with pytest.raises(TypeError, match="graph must be a bool"):
        ek.summary.trace_on(graph="yes")
    ek.summary.trace_on()
    with pytest.warns(UserWarning, match="trace already enabled"):
        ek.summary.trace_on()
    ek.summary.trace_off()
    with pytest.raises(ValueError, match="Must enable trace"):
        ek.summary.trace_export("t", step=0)


def test_a_trace_without_graph_exports_nothing(tmp_path):
    writer = ek.summary.create_file_writer(str(tmp_path))
    ek.summary.trace_on(graph=False)
    ek.function(lambda x: x * 2.0)(ek.constant(1.0))
    with writer.as_default():
        assert ek.summary.trace_export("t", step=0) is False
    assert graph_events(tmp_path) == []


def test_export_needs_a_step_under_a_writer(tmp_path, monkeypatch):
    from eagerkernel.runtime.io import summary

    monkeypatch.setattr(summary, "_global_step", lambda: None)  # other tests may make one
    writer = ek.summary.create_file_writer(str(tmp_path))
    ek.summary.trace_on()
    with writer.as_default(), pytest.raises(ValueError, match="no step given"):
        ek.summary.trace_export("t")
    assert graph_events(tmp_path) == []


def read_profile(logdir):
    [path] = glob.glob(f"{logdir}/plugins/profile/*/*.trace.json.gz")
    with gzip.open(path, "rt") as f:
        return json.load(f)["traceEvents"]


def test_profiler_writes_each_op_of_the_thread(tmp_path):
    layer = ek.keras.layers.Dense(2)
    ek.profiler.experimental.start(str(tmp_path))
    with ek.profiler.experimental.Trace("train", step_num=1):
        layer(ek.ones((1, 3)))
    ek.profiler.experimental.stop()
    events = read_profile(tmp_path)
    names = [e["name"] for e in events]
    assert "MatMul" in names and names[-1] == "train"
    matmul = next(e for e in events if e["name"] == "MatMul")
    assert matmul["ph"] == "X" and matmul["dur"] >= 0 and layer.name in matmul["args"]["scope"]
    train = events[-1]
    assert train["args"] == {"step_num": "1"}
    assert (
        train["ts"] <= matmul["ts"] and matmul["ts"] + matmul["dur"] <= train["ts"] + train["dur"]
    )


def test_profiler_errors_are_tensorflows(tmp_path):
    with pytest.raises(ek.errors.UnavailableError, match="No profiler is running"):
        ek.profiler.experimental.stop()
    with pytest.raises(NotImplementedError, match="options"):
        ek.profiler.experimental.start(str(tmp_path), options=object())
    running = pytest.raises(ek.errors.AlreadyExistsError, match="Another profiler is running")
    with ek.profiler.experimental.Profile(str(tmp_path)), running:
        ek.profiler.experimental.start(str(tmp_path))
    assert read_profile(tmp_path) == []


def test_a_stateful_call_is_a_node_fed_by_its_tensor_arguments(tmp_path):
    # A traced stateful call (here Variable.assign_add) becomes one node named after the
    # callable, whose inputs are the nodes of its tensor arguments.
    v = ek.Variable(0.0, name="total")

    @ek.function
    def accumulate(x):
        v.assign_add(x * 2.0)
        return v.read_value()

    writer = ek.summary.create_file_writer(str(tmp_path))
    ek.summary.trace_on(graph=True)
    out = accumulate(ek.constant(1.5))
    with writer.as_default():
        assert ek.summary.trace_export(name="acc", step=0)
    assert float(out) == 3.0 and float(v) == 3.0
    [(_, graph)] = graph_events(tmp_path)
    nodes = {n.name: n for n in graph.node}
    [call] = [n for n in graph.node if n.op == "assign_add"]
    [feed] = list(call.input)
    assert nodes[feed.split(":")[0]].op == "Mul"
