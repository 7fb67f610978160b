"""Gradient all-reduce overlapped with the backward pass.

A strategy with more than one replica in sync installs a `GradientOverlap` as the gradient
listener (`core/context.GradientListener`) of every thread that runs a replica step. When a
replica calls ``tape.gradient`` with the strategy's mirrored variables among the sources, the
backward sweep hands over each variable's gradient as soon as it is final, newest layer
first. The gradients are fused into buckets in that order, as PyTorch DDP does: the first
bucket of a call closes once it holds `FIRST_BUCKET_BYTES` (1 MiB, DDP's first bucket, so
that the all-reduce starts early), the next ones at ``extended.bucket_bytes`` (25 MB); a
bucket closed on every local replica goes to the communication thread (`collectives.Worker`:
the local NumPy/NCCL reduction, then the MPI all-reduce across workers) while the sweep
computes the earlier layers' gradients. What is still open when the sweep ends goes then.

The optimizer's ``apply_gradients`` (and Keras ``fit``) then asks `take` for the reduced
gradients: when every gradient it was given is one of the Tensors handed over (the same
objects, on the same replicas), it waits for their buckets and uses the sums; otherwise
(gradients clipped or scaled in between, a different list) it waits for what is in flight and
all-reduces what it was given, as without overlap. Either way the sums are the sequential
ones: the same replica order, and the element-wise sums do not depend on how the buffers are
cut (two workers: bitwise; more: MPI may pick another algorithm for another buffer size).

Every process makes the same calls in the same order (the same program runs everywhere), so
the buckets, hence the MPI collectives, agree across workers; the communicator's blocking
collectives wait for the communication thread first, which keeps the order.
``extended.overlap_gradients = False`` turns the overlap off (the benchmark measures both).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from ..core.context import GradientListener
from ..core.tensor import make
from .collectives import Worker, fuse, reduce_bucket

__all__ = ["FIRST_BUCKET_BYTES", "GradientOverlap"]

FIRST_BUCKET_BYTES = 2**20  # PyTorch DDP's first bucket: small, so communication starts early


class _Bucket:
    __slots__ = ("backward_end", "cap", "closed", "dtype", "early", "job", "nbytes", "uids")

    def __init__(self, dtype, cap: int):
        self.dtype = dtype
        self.cap = cap
        self.uids: list = []
        self.nbytes = 0
        self.closed = False
        self.job = None
        self.early = False  # launched before the last replica's backward sweep ended
        self.backward_end = 0.0  # when that sweep ended (time.perf_counter)


class _Call:
    """One ``tape.gradient`` call, made by each local replica: its buckets (cut on replica
    0's order) and the gradients handed over per replica."""

    def __init__(self, n: int):
        self.buckets: list = []
        self.open: dict = {}  # dtype -> the bucket filling up
        self.of: dict = {}  # variable uid -> its bucket
        self.grads: list = [{} for _ in range(n)]  # per replica: uid -> gradient Tensor


class _Session:
    """What one replica's ``tape.gradient`` call talks to (see `GradientListener.begin`)."""

    __slots__ = ("call", "engine", "replica", "variables", "wanted")

    def __init__(self, engine, call, replica: int, wanted: list, sources: list):
        self.engine = engine
        self.call = call
        self.replica = replica
        self.wanted = wanted
        self.variables = {i: sources[i] for i in wanted}

    def ready(self, index: int, gradient) -> None:
        self.engine._ready(self.call, self.replica, self.variables[index], gradient)

    def end(self, gradients) -> None:
        self.engine._end(self.call, self.replica)


class GradientOverlap(GradientListener):
    """The overlapped gradient all-reduce of one strategy (see the module docstring).

    Attributes:
        enabled: overlap on (default) or off (``extended.overlap_gradients``).
    """

    def __init__(self, extended):
        self.extended = extended
        self.enabled = True
        self._lock = threading.Lock()
        self._worker = None
        self._cuda_streams = None
        self._reset()

    def _streams(self) -> list:
        """The communication thread's CUDA streams, one per replica GPU (made once; NCCL
        runs only when every replica device is a CUDA GPU)."""
        if self._cuda_streams is None:
            import cupy

            streams = []
            for d in self.extended.devices:
                with cupy.cuda.Device(d.ordinal):
                    streams.append(cupy.cuda.Stream(non_blocking=True))
            self._cuda_streams = streams
        return self._cuda_streams

    def _reset(self) -> None:
        self._calls: list = []
        self._seen = [0] * self.extended.num_local_replicas
        self._entries: dict = {}  # id(gradient) -> (gradient, bucket, replica, offset)
        self._jobs: list = []

    @property
    def worker(self) -> Worker:
        comm = self.extended.communicator
        if comm is not None:
            return comm.worker
        if self._worker is None:
            self._worker = Worker()
        return self._worker

    # -- the step -------------------------------------------------------------------------------
    def new_step(self) -> None:
        """Forgets the previous step's buckets, after their collectives finished (a failed one
        raises here: the workers are out of step)."""
        jobs, self._jobs = self._jobs, []
        self._reset()
        for job in jobs:
            job.wait()

    # -- the listener ---------------------------------------------------------------------------
    def begin(self, sources: list):
        from . import context as dctx
        from .values import MirroredVariable

        ext = self.extended
        if not self.enabled or not ext.replicated:
            return None
        strategy = ext.strategy
        wanted = [
            i
            for i, s in enumerate(sources)
            if type(s) is MirroredVariable
            and s._strategy is strategy
            and s._value.dtype.kind in "fc"
        ]
        if not wanted:
            return None
        replica = dctx.current_replica()
        if replica is not None and replica.strategy is strategy:
            r = replica._local_id
        else:
            r = ext._active or 0
        with self._lock:
            k = self._seen[r]
            self._seen[r] += 1
            if r == 0:
                call = _Call(ext.num_local_replicas)
                self._calls.append(call)
            elif k < len(self._calls):
                call = self._calls[k]
            else:
                return None  # the replicas disagree: `take` falls back to the sequential path
        return _Session(self, call, r, wanted, sources)

    def _ready(self, call: _Call, r: int, variable, g) -> None:
        uid = variable._uid
        if uid in call.grads[r]:
            return
        call.grads[r][uid] = g
        last = self.extended.num_local_replicas - 1
        if r == 0:
            value = g._value
            dtype = np.dtype(value.dtype)
            bucket = call.open.get(dtype)
            if bucket is None:
                cap = FIRST_BUCKET_BYTES if not call.buckets else self.extended.bucket_bytes
                bucket = call.open[dtype] = _Bucket(dtype, min(cap, self.extended.bucket_bytes))
                call.buckets.append(bucket)
            bucket.uids.append(uid)
            bucket.nbytes += int(value.size) * dtype.itemsize
            call.of[uid] = bucket
            if bucket.nbytes >= bucket.cap:
                bucket.closed = True
                del call.open[dtype]
        if r == last:
            bucket = call.of.get(uid)
            if bucket is not None and bucket.closed and bucket.job is None:
                self._launch_if_complete(call, bucket)

    def _end(self, call: _Call, r: int) -> None:
        if r == 0:
            for bucket in call.open.values():
                bucket.closed = True
            call.open.clear()
        if r == self.extended.num_local_replicas - 1:
            now = time.perf_counter()
            for bucket in call.buckets:
                bucket.early = bucket.job is not None
                bucket.backward_end = now
            for bucket in call.buckets:
                if bucket.job is None:
                    self._launch_if_complete(call, bucket)

    def _launch_if_complete(self, call: _Call, bucket: _Bucket) -> None:
        for grads in call.grads:
            for uid in bucket.uids:
                if uid not in grads:
                    return
        ext = self.extended
        flats = []
        for r, grads in enumerate(call.grads):
            parts = [grads[uid] for uid in bucket.uids]
            flats.append(fuse([g._value for g in parts]))
            offset = 0
            for g in parts:
                self._entries[id(g)] = (g, bucket, r, offset)
                offset += int(g._value.size)
        events = _record_events(flats)
        reducer, comm, devices = ext.reducer, ext.communicator, ext.devices

        def job():
            if getattr(reducer, "name", "") != "NCCL":
                for event in events:  # CuPy buffers: written before they are read here
                    if event is not None:
                        event.synchronize()
                sums = reduce_bucket(flats, reducer, comm, devices, busy=0)
                for d in devices:
                    d.synchronize()
                return sums
            # NCCL: the reduction runs on this thread's own stream per GPU, which first waits
            # (on the GPU, not here) until the backward pass's stream has written the buffers.
            streams = self._streams()
            for stream, event in zip(streams, events):
                stream.wait_event(event)
            sums = reduce_bucket(flats, reducer, comm, devices, busy=0, streams=streams)
            for stream in streams:
                stream.synchronize()
            return sums

        bucket.job = self.worker.submit(job)
        self._jobs.append(bucket.job)

    # -- the optimizer's side -------------------------------------------------------------------
    def take(self, per_replica: list, stats: dict):
        """The reduced gradients for ``per_replica`` (one list of gradient Tensors per local
        replica), or None when they are not all ones handed over during backward passes.
        Adds ``bytes``, ``seconds`` (the all-reduce time not hidden behind the backward
        pass: from the end of the sweep until the last of these buckets was summed, which
        the step waits for, here or in another collective that waits for the communication
        thread), ``collective_seconds`` (the buckets' own time) and ``overlapped_bytes``
        (the bytes whose all-reduce started before the backward pass ended) to ``stats``."""
        from .strategy import device_of

        entries = self._entries
        if not entries:
            return None
        found = []
        for r, row in enumerate(per_replica):
            for g in row:
                e = entries.get(id(g))
                if e is None or e[0] is not g or e[2] != r:
                    return None
                found.append(e)
        buckets = {}
        for _, bucket, _, _ in found:
            buckets[id(bucket)] = bucket
        sums = {k: b.job.wait() for k, b in buckets.items()}
        exposed = max(b.job.finished - b.backward_end for b in buckets.values())
        stats["seconds"] = stats.get("seconds", 0.0) + max(0.0, exposed)
        stats["bytes"] = stats.get("bytes", 0) + sum(b.nbytes for b in buckets.values())
        stats["overlapped_bytes"] = stats.get("overlapped_bytes", 0) + sum(
            b.nbytes for b in buckets.values() if b.early
        )
        stats["collective_seconds"] = stats.get("collective_seconds", 0.0) + sum(
            b.job.seconds for b in buckets.values()
        )
        out = []
        k = 0
        for r, row in enumerate(per_replica):
            dev = self.extended.devices[r]
            reduced = []
            for g in row:
                _, bucket, _, offset = found[k]
                k += 1
                shape = g._value.shape
                size = int(g._value.size)
                a = sums[id(bucket)][r][offset : offset + size].reshape(shape)
                t = make(a, device_of(a, dev))
                if t._device is not dev:
                    from ..core.dispatch import copy_to_device

                    t = copy_to_device(t, dev)
                reduced.append(t)
            out.append(reduced)
        return out


def _record_events(flats: list) -> list:
    """Per replica, a CUDA event recorded on the current stream after its fused buffer was
    written (None for a NumPy buffer)."""
    events = []
    for a in flats:
        if isinstance(a, np.ndarray):
            events.append(None)
            continue
        import cupy

        with a.device:
            event = cupy.cuda.Event()
            event.record()
        events.append(event)
    return events
