"""Collectives: summing arrays across the replicas of one process and across processes.

Within a process (`local_reducer`): NCCL (``cupy.cuda.nccl``) when every replica device is a
real CUDA GPU and CuPy has NCCL; otherwise a NumPy reduction (CPU, virtual GPUs), which sums
the replicas' arrays in replica order. Across processes (`MpiCommunicator`): MPI through
mpi4py on NumPy buffers (CuPy arrays are staged through host memory). Only buffer-based MPI
calls are used (``Iallreduce``, ``Ibcast``, ``Allgatherv``): mpi4py's object methods pickle.

`all_reduce_sum` fuses the gradients into buckets of at most `BUCKET_BYTES` per dtype, as
Horovod and PyTorch DDP do, so that a model with many small variables makes a few large
collectives instead of many small ones. `reduce_bucket` is one bucket's reduction; the
overlapped all-reduce (`overlap.py`) runs it on a `Worker`, the communication thread, while
the backward pass goes on. An `MpiCommunicator` owns that thread, and each of its blocking
collectives first waits until the thread is idle, so that every process starts its
collectives in the same order (MPI matches collectives by order).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import sys
import threading
import time

import numpy as np

from ..core import errors

__all__ = [
    "BUCKET_BYTES",
    "MpiCommunicator",
    "NcclReducer",
    "NumpyReducer",
    "Worker",
    "all_reduce_sum",
    "buckets",
    "local_reducer",
    "reduce_bucket",
]

BUCKET_BYTES = 25 * 2**20  # about 25 MB per fused buffer (PyTorch DDP's default bucket_cap_mb)


def _xp(array):
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    import cupy

    return cupy


def on_array_device(array):
    """CuPy's device context of ``array`` (a CuPy array), else nothing."""
    if isinstance(array, (np.ndarray, np.generic)):
        return contextlib.nullcontext()
    return array.device


def to_host(array) -> np.ndarray:
    """``array`` as a NumPy array (CuPy arrays copied to host memory)."""
    if isinstance(array, (np.ndarray, np.generic)):
        return np.asarray(array)
    return array.get()


class NumpyReducer:
    """Sums arrays of several replicas on NumPy-backed devices (the CPU, virtual GPUs), in
    replica order; each replica gets its own copy of the sum."""

    name = "NumPy"

    def all_reduce_sum(self, arrays: list) -> list:
        total = np.array(to_host(arrays[0]), copy=True)
        for a in arrays[1:]:
            total += to_host(a)
        return [total] + [total.copy() for _ in arrays[1:]]


_NCCL_TYPES = {
    "float16": "NCCL_FLOAT16",
    "float32": "NCCL_FLOAT32",
    "float64": "NCCL_FLOAT64",
    "int32": "NCCL_INT32",
    "int64": "NCCL_INT64",
}


class NcclReducer:
    """Sums CuPy arrays of several local GPUs with NCCL's all-reduce (``cupy.cuda.nccl``): one
    communicator per device (``ncclCommInitAll``), the calls grouped (``groupStart``/
    ``groupEnd``) and enqueued on each device's current stream."""

    name = "NCCL"

    def __init__(self, devices):
        from cupy.cuda import nccl

        self._nccl = nccl
        self._devices = tuple(devices)
        self._comms = nccl.NcclCommunicator.initAll([d.ordinal for d in self._devices])

    def all_reduce_sum(self, arrays: list, streams=None) -> list:
        """The sums, one per device; on ``streams`` (one CuPy stream per device, e.g. the
        communication thread's) instead of each device's current stream when given."""
        import cupy

        nccl = self._nccl
        dtype = np.dtype(arrays[0].dtype).name
        if dtype not in _NCCL_TYPES:
            raise TypeError(f"NCCL all-reduce: dtype {dtype} is not supported.")
        kind = getattr(nccl, _NCCL_TYPES[dtype])
        outs = []
        nccl.groupStart()
        try:
            for k, (comm, a, d) in enumerate(zip(self._comms, arrays, self._devices)):
                with cupy.cuda.Device(d.ordinal):
                    a = cupy.ascontiguousarray(a)
                    out = cupy.empty_like(a)
                    stream = cupy.cuda.get_current_stream() if streams is None else streams[k]
                    comm.allReduce(
                        a.data.ptr, out.data.ptr, a.size, kind, nccl.NCCL_SUM, stream.ptr
                    )
                    outs.append(out)
        finally:
            nccl.groupEnd()
        return outs


def nccl_available() -> bool:
    """Whether CuPy imports with NCCL support."""
    try:
        from cupy.cuda import nccl

        return bool(getattr(nccl, "available", True))
    except Exception:
        return False


def local_reducer(devices):
    """NCCL for real CUDA devices (when CuPy has NCCL), else the NumPy reduction."""
    cuda = all(d.device_type == "GPU" and not d.virtual for d in devices)
    if len(devices) > 1 and cuda and nccl_available():
        return NcclReducer(devices)
    return NumpyReducer()


class Job:
    """One piece of work handed to a `Worker`: ``wait()`` returns its result (or raises its
    error); ``seconds`` is how long it ran on the worker, ``finished`` when it ended
    (``time.perf_counter``)."""

    __slots__ = ("_done", "error", "finished", "fn", "result", "seconds")

    def __init__(self, fn):
        self.fn = fn
        self.result = self.error = None
        self.seconds = self.finished = 0.0
        self._done = threading.Event()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self):
        self._done.wait()
        if self.error is not None:
            raise self.error
        return self.result


class Worker:
    """A communication thread: runs submitted `Job` s one at a time, in submission order (so
    collectives start in the same order on every process). A daemon thread, started on first
    use."""

    def __init__(self, name: str = "ek.distribute communication"):
        self._name = name
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._pending = 0
        self._thread = None

    def submit(self, fn) -> Job:
        """Queues ``fn()``; returns its `Job`."""
        job = Job(fn)
        with self._idle:
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
        self._jobs.put(job)
        return job

    def on_thread(self) -> bool:
        """True when called from the worker's own thread."""
        return threading.current_thread() is self._thread

    def drain(self) -> None:
        """Waits until every submitted job has finished (their errors stay on the jobs)."""
        if self.on_thread():
            return
        with self._idle:
            while self._pending:
                self._idle.wait()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            start = time.perf_counter()
            try:
                job.result = job.fn()
            except BaseException as exc:  # kept for the waiter, who raises it
                job.error = exc
            job.finished = time.perf_counter()
            job.seconds = job.finished - start
            job.fn = None
            job._done.set()
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()


def collective_timeout() -> float:
    """Seconds a collective across workers may wait for its peers before it raises
    (``EAGERKERNEL_COLLECTIVE_TIMEOUT``, default 600)."""
    raw = os.environ.get("EAGERKERNEL_COLLECTIVE_TIMEOUT", "600").strip()
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(
            f"EAGERKERNEL_COLLECTIVE_TIMEOUT must be a number of seconds, got {raw!r}."
        ) from None
    if value <= 0:
        raise ValueError(f"EAGERKERNEL_COLLECTIVE_TIMEOUT must be positive, got {raw!r}.")
    return value


class MpiCommunicator:
    """Collectives across the processes of an MPI communicator, on NumPy buffers.

    Every wait is bounded by `collective_timeout`: a peer that died or stopped calling makes
    the others raise `ek.errors.DeadlineExceededError` naming the collective, not hang.
    """

    def __init__(self, comm=None):
        from mpi4py import MPI

        self.MPI = MPI
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.timeout = collective_timeout()
        self.broken = False
        self.worker = Worker("ek.distribute MPI communication")

    def submit(self, fn) -> Job:
        """Runs ``fn()`` on this communicator's communication thread (after what is queued);
        ``fn`` makes its collectives with the ``*_now`` methods."""
        return self.worker.submit(fn)

    def _wait(self, request, what: str, busy: int = 200) -> None:
        if self.broken:
            raise errors.UnavailableError(
                None,
                None,
                f"MultiWorkerMirroredStrategy: cannot run the {what}: an earlier collective "
                "timed out, so the workers are out of step; restart the job from the last "
                "checkpoint.",
            )
        deadline = time.monotonic() + self.timeout
        spins = 0
        while not request.Test():
            spins += 1
            if spins > busy:  # then poll gently: the GIL and the cores are shared
                time.sleep(5e-5 if spins < busy + 2000 else 1e-3)
            if time.monotonic() > deadline:
                self._mark_broken()
                raise errors.DeadlineExceededError(
                    None,
                    None,
                    f"MultiWorkerMirroredStrategy: the {what} across {self.size} workers did not "
                    f"complete within {self.timeout:g} s (worker {self.rank} waited); a worker "
                    "has failed or stopped taking part. Restart the job from the last "
                    "checkpoint (EAGERKERNEL_COLLECTIVE_TIMEOUT sets the limit).",
                )

    def _mark_broken(self) -> None:
        """After a timeout the request cannot be cancelled (MPI has no cancel for collectives)
        and ``MPI_Finalize`` would wait for it forever: this process ends through
        ``MPI_Abort`` at exit instead (after Python printed the error), which also ends the
        other workers of the job."""
        if not self.broken:
            self.broken = True
            atexit.register(self._abort_at_exit)

    def _abort_at_exit(self) -> None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        self.comm.Abort(1)

    def all_reduce_sum_(self, buffer: np.ndarray) -> np.ndarray:
        """Sums ``buffer`` (contiguous NumPy) over the workers, in place; returns it (after
        the communication thread's queued collectives)."""
        self.worker.drain()
        return self.all_reduce_sum_now(buffer)

    def all_reduce_sum_now(self, buffer: np.ndarray, busy: int = 200) -> np.ndarray:
        """`all_reduce_sum_` without waiting for the communication thread: for jobs on that
        thread (``busy=0`` polls gently while the backward pass computes)."""
        if self.size > 1:
            self._wait(
                self.comm.Iallreduce(self.MPI.IN_PLACE, buffer, op=self.MPI.SUM),
                "all-reduce",
                busy,
            )
        return buffer

    def broadcast_(self, buffer: np.ndarray, root: int = 0) -> np.ndarray:
        """Overwrites ``buffer`` with the ``root`` worker's, in place; returns it."""
        self.worker.drain()
        if self.size > 1:
            self._wait(self.comm.Ibcast(buffer, root=root), "broadcast")
        return buffer

    def barrier(self) -> None:
        self.worker.drain()
        if self.size > 1:
            self._wait(self.comm.Ibarrier(), "barrier")

    def allgather(self, array: np.ndarray) -> np.ndarray:
        """The workers' arrays concatenated along axis 0, in worker order (sizes along axis 0
        may differ; the other dimensions and the dtype must agree)."""
        array = np.ascontiguousarray(array)
        self.worker.drain()
        if self.size == 1:
            return array.copy()
        counts = np.zeros(self.size, np.int64)
        mine = np.array([array.shape[0] if array.ndim else 1], np.int64)
        self._wait(self.comm.Iallgather(mine, counts), "all-gather")
        row = int(np.prod(array.shape[1:])) if array.ndim else 1
        out = np.empty((int(counts.sum()), *array.shape[1:]), array.dtype)
        sizes = counts * row
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        self._wait(
            self.comm.Iallgatherv(
                array.reshape(-1), [out.reshape(-1), (sizes.tolist(), offsets.tolist())]
            ),
            "all-gather",
        )
        return out


def buckets(arrays: list, limit: int = BUCKET_BYTES) -> list:
    """Index lists of ``arrays`` fused together: consecutive arrays of one dtype, each list at
    most ``limit`` bytes (an array larger than ``limit`` is a bucket by itself)."""
    out: list = []
    open_: dict = {}  # dtype -> (index list, bytes)
    for i, a in enumerate(arrays):
        key = np.dtype(a.dtype).str
        group = open_.get(key)
        nbytes = int(a.size) * np.dtype(a.dtype).itemsize
        if group is None or group[1] + nbytes > limit:
            group = open_[key] = ([], 0)
            out.append(group[0])
        group[0].append(i)
        open_[key] = (group[0], group[1] + nbytes)
    return out


def all_reduce_sum(
    per_replica: list, reducer, communicator=None, devices=None, stats=None, limit=None
):
    """Sums arrays over replicas (``reducer``) and workers (``communicator``), bucketed.

    Args:
        per_replica: one list of arrays per local replica, the same shapes and dtypes in each.
        reducer: a `NumpyReducer` or `NcclReducer` for the local replicas.
        communicator: an `MpiCommunicator`, or None for one process.
        devices: the local replica devices (the sums are placed there).
        stats: optional dict; ``bytes``, ``seconds`` (the caller's wait) and
            ``collective_seconds`` (the collectives' own time: the same here) are added to it.
        limit: the bucket size in bytes (default `BUCKET_BYTES`).

    Returns:
        One list per local replica: the sums, on that replica's device.
    """
    n_rep = len(per_replica)
    first = per_replica[0]
    out = [[None] * len(first) for _ in range(n_rep)]
    start = time.perf_counter()
    nbytes = 0
    if communicator is not None:
        communicator.worker.drain()  # the overlapped all-reduces queued before this one
    for bucket in buckets(first, BUCKET_BYTES if limit is None else limit):
        flats = [fuse([per_replica[r][i] for i in bucket]) for r in range(n_rep)]
        nbytes += int(flats[0].size) * flats[0].dtype.itemsize
        sums = reduce_bucket(flats, reducer, communicator, devices)
        offset = 0
        for i in bucket:
            shape = first[i].shape
            size = int(np.prod(shape)) if shape else 1
            for r in range(n_rep):
                out[r][i] = sums[r][offset : offset + size].reshape(shape)
            offset += size
    if stats is not None:
        seconds = time.perf_counter() - start
        stats["bytes"] = stats.get("bytes", 0) + nbytes
        stats["seconds"] = stats.get("seconds", 0.0) + seconds
        stats["collective_seconds"] = stats.get("collective_seconds", 0.0) + seconds
    return out


def fuse(arrays: list):
    """``arrays`` (one replica's, one dtype, one device) raveled into one new flat buffer."""
    xp = _xp(arrays[0])
    with on_array_device(arrays[0]):
        return xp.concatenate([xp.ravel(a) for a in arrays])


def reduce_bucket(
    flats: list, reducer, communicator, devices, busy: int = 200, streams=None
) -> list:
    """One fused bucket summed over the local replicas (``reducer``, replica order) and the
    workers (``communicator``, through host memory); returns one flat sum per replica, on its
    device. Makes its MPI call at once (``*_now``): the caller keeps collectives in order.
    ``streams``: the CuPy streams (one per device) an `NcclReducer` runs on."""
    from .values import copy_array

    n_rep = len(flats)
    if n_rep == 1:
        sums = [flats[0]]
    elif streams is not None:
        sums = reducer.all_reduce_sum(flats, streams=streams)
    else:
        sums = reducer.all_reduce_sum(flats)
    if communicator is not None and communicator.size > 1:
        host = np.array(to_host(sums[0]), copy=True)
        communicator.all_reduce_sum_now(host, busy)
        sums = [host if devices[r].xp is np else copy_array(host, devices[r]) for r in range(n_rep)]
        if n_rep > 1 and devices[0].xp is np:
            sums = [host] + [host.copy() for _ in range(n_rep - 1)]
    return sums
