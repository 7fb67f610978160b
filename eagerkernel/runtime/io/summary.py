"""TensorBoard summaries (follows `tf.summary` and TF 1.x's `tf.contrib.summary`).

Event files are written by tensorboardX (``pip install tensorboardX``, the ``tensorboard``
extra), so TensorBoard reads them. ``tensorboardX`` is imported when the first writer is
created, never at ``import eagerkernel``.

TF 2 style::

    writer = ek.summary.create_file_writer("logs")
    with writer.as_default(step=0):          # or writer.set_as_default()
        ek.summary.scalar("loss", 0.5, step=1)
        ek.summary.histogram("weights", w)   # step: as_default's, else the global step

TF 1.x style (``ek.contrib.summary``)::

    global_step = ek.train.get_or_create_global_step()
    writer = ek.contrib.summary.create_file_writer("logs")
    writer.set_as_default()
    with ek.contrib.summary.record_summaries_every_n_global_steps(10):
        ek.contrib.summary.scalar("loss", loss)   # written when global_step % 10 == 0

Graphs of `ek.function`s: ``trace_on(graph=True)``, call the functions, then
``trace_export(name, step)`` under a default writer (see `graph_summary`).

The step of a summary is, in order: the ``step`` argument, the step given to
`SummaryWriter.as_default`/`set_as_default` or `experimental.set_step`, and the global step
(``ek.train.get_or_create_global_step``). Without any, `scalar` raises ValueError, as TF does.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import threading
import time
import types
import weakref

import numpy as np

from .graph_summary import trace_export, trace_off, trace_on

__all__ = [
    "SummaryWriter",
    "audio",
    "contrib_summary",
    "create_file_writer",
    "experimental",
    "flush",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "trace_export",
    "trace_off",
    "trace_on",
    "write",
]

_writer_ids = itertools.count()
_state = threading.local()  # .writer, .step, .record (a bool or a zero-argument callable)


def _tensorboardx():
    try:
        import tensorboardX
    except ImportError as exc:
        raise ImportError(
            "ek.summary writes TensorBoard event files with tensorboardX, which is not "
            "installed: pip install tensorboardX (or pip install 'eagerkernel[tensorboard]')."
        ) from exc
    return tensorboardX


def _numpy(value) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def _text_summary(name: str, value):
    """TensorFlow 2's text summary: tag ``name``, a string tensor of the data's shape (UTF-8
    bytes), for TensorBoard's text plugin (which shows a non-scalar as a table)."""
    from tensorboardX.proto.plugin_text_pb2 import TextPluginData
    from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto

    array = _numpy(value)
    dims = [TensorShapeProto.Dim(size=n) for n in array.shape]
    flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in array.ravel().tolist()]
    shape = TensorShapeProto(dim=dims)
    tensor = TensorProto(dtype="DT_STRING", string_val=flat, tensor_shape=shape)
    plugin = SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()
    )
    metadata = SummaryMetadata(plugin_data=plugin)
    return Summary(value=[Summary.Value(tag=name, metadata=metadata, tensor=tensor)])


class SummaryWriter:
    """Writes summaries into event files under ``logdir`` (follows `tf.summary.SummaryWriter`).

    Create it with `create_file_writer`. It is the default writer inside ``as_default()``,
    or everywhere after ``set_as_default()``.

    Durability (TensorFlow's rule): events are buffered and written to the file (handed to the
    operating system, so a killed process keeps them) when more than ``max_queue`` are
    pending, when ``flush_millis`` have passed since the last flush (checked at each summary
    and by a background thread, so an idle writer flushes too), on `flush`, on `close`, on
    leaving ``as_default()`` and at interpreter exit. A process killed outright (SIGKILL)
    loses at most the events of the last ``flush_millis`` that did not fill the queue.
    """

    def __init__(self, logdir, max_queue=None, flush_millis=None, filename_suffix=None):
        import os

        _tensorboardx()
        from tensorboardX.event_file_writer import EventsWriter

        max_queue = 10 if max_queue is None else max_queue
        flush_millis = 120_000 if flush_millis is None else flush_millis
        for arg, value in (("max_queue", max_queue), ("flush_millis", flush_millis)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(
                    f"create_file_writer: {arg} must be a non-negative integer. Received: "
                    f"{arg}={value!r}"
                )
        self.logdir = os.fspath(logdir)
        os.makedirs(self.logdir, exist_ok=True)
        # tensorboardX's synchronous writer: its SummaryWriter queues events to a thread
        # whose flush() does not wait for them, so a read right after flush could miss some.
        # The pid and a counter keep two writers made in the same second apart.
        suffix = f".{os.getpid()}.{next(_writer_ids)}{filename_suffix or ''}"
        self._writer = EventsWriter(os.path.join(self.logdir, "events"), suffix)
        self._closed = False
        self._max_queue = int(max_queue)
        self._flush_seconds = int(flush_millis) / 1000.0
        self._lock = threading.Lock()
        self._pending = 0
        self._last_flush = time.monotonic()
        self._stop = threading.Event()
        _LIVE.add(self)
        if self._flush_seconds > 0:
            threading.Thread(
                target=_flush_periodically,
                args=(weakref.ref(self), self._stop, self._flush_seconds),
                name=f"summary-flush-{self.logdir}",
                daemon=True,
            ).start()

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Makes this the default writer (and ``step`` the default step) inside the block;
        flushes on exit."""
        outer = getattr(_state, "writer", None), getattr(_state, "step", None)
        _state.writer = self
        if step is not None:
            _state.step = step
        try:
            yield self
        finally:
            _state.writer, _state.step = outer
            self.flush()

    def set_as_default(self, step=None) -> None:
        """Makes this the default writer (and ``step`` the default step) from now on."""
        _state.writer = self
        if step is not None:
            _state.step = step

    def init(self) -> None:
        """Nothing to do: the event file is open from creation (TF 1.x API)."""

    def flush(self) -> None:
        """Writes buffered events to the file."""
        with self._lock:
            if not self._closed:
                self._writer.flush()
                self._pending = 0
                self._last_flush = time.monotonic()

    def close(self) -> None:
        """Flushes and closes the event file; later summaries to it are errors."""
        self._stop.set()
        with self._lock:
            if not self._closed:
                self._writer.close()
                self._closed = True
        _LIVE.discard(self)
        if getattr(_state, "writer", None) is self:
            _state.writer = None

    def _write(
        self, kind: str, name: str, value, step: int, buckets: int = 30, description=None
    ) -> None:
        if self._closed:
            raise ValueError(f"summary.{kind}({name!r}): the writer for {self.logdir} is closed.")
        from tensorboardX import summary as tbx
        from tensorboardX.proto.event_pb2 import Event

        if kind == "scalar":
            proto = tbx.scalar(name, float(_numpy(value)))
        elif kind == "histogram":
            proto = tbx.histogram(name, _numpy(value).astype(np.float64).ravel(), buckets)
        elif kind == "text":
            proto = _text_summary(name, value)
        else:  # image, audio, write: a Summary the caller built (`summary_media`)
            proto = value
        if description:
            proto.value[0].metadata.summary_description = str(description)
        event = Event(wall_time=time.time(), step=int(step), summary=proto)
        with self._lock:
            if self._closed:
                raise ValueError(
                    f"summary.{kind}({name!r}): the writer for {self.logdir} is closed."
                )
            self._writer.write_event(event)
            self._pending += 1
            due = self._pending > self._max_queue or (
                time.monotonic() - self._last_flush >= self._flush_seconds
            )
        if due:
            self.flush()

    def _write_graph(self, graph_def, step: int) -> None:
        """Writes a TensorFlow ``GraphDef`` event (TensorBoard's Graphs dashboard) and
        flushes (see `graph_summary.trace_export`)."""
        from tensorboardX.proto.event_pb2 import Event

        event = Event(
            wall_time=time.time(), step=int(step), graph_def=graph_def.SerializeToString()
        )
        with self._lock:
            if self._closed:
                raise ValueError(f"summary.trace_export: the writer for {self.logdir} is closed.")
            self._writer.write_event(event)
        self.flush()


# Every open writer, flushed at interpreter exit (weakly held: a dropped writer is not kept).
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _flush_periodically(ref, stop: threading.Event, seconds: float) -> None:
    """The background flush of one writer: every ``seconds`` until it is closed or gone."""
    while not stop.wait(seconds):
        writer = ref()
        if writer is None:
            return
        with contextlib.suppress(Exception):  # a flush error surfaces on the next write
            if writer._pending:
                writer.flush()
        del writer


@atexit.register
def _flush_all_at_exit() -> None:
    for writer in list(_LIVE):
        with contextlib.suppress(Exception):
            writer.flush()


def create_file_writer(
    logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None
) -> SummaryWriter:
    """A `SummaryWriter` for ``logdir`` (created if needed; follows
    `tf.summary.create_file_writer`).

    Args:
        max_queue: the most summaries kept in memory; more are flushed (default 10).
        flush_millis: the longest time between flushes, in milliseconds (default 120000);
            a background thread flushes an idle writer. See `SummaryWriter` for the bound.
        filename_suffix: appended to the event file's name.
        name: unused, as in eager TensorFlow.

    Raises:
        ImportError: tensorboardX is not installed (the message says how to install it).
        ValueError: a negative or non-integer ``max_queue`` or ``flush_millis``.
    """
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix)


def _global_step():
    from ..compat.v1 import get_global_step

    return get_global_step()


def resolve_step(step, what: str) -> int:
    """The step of a summary write by ``what``: ``step``, else the default writer's, else
    the global step. Raises ValueError when there is none, TypeError when it is not an
    integer scalar."""
    if step is None:
        step = getattr(_state, "step", None)
    if step is None:
        step = _global_step()
    if step is None:
        raise ValueError(
            f"{what}: no step given. Pass step=..., use writer.as_default(step=...) or "
            "ek.summary.experimental.set_step(...), or create the global step with "
            "ek.train.get_or_create_global_step()."
        )
    value = _numpy(step)
    if value.shape != () or value.dtype.kind not in "iu":
        # TensorFlow converts the step to an int64 tensor: 1.5 (or any float) cannot be.
        raise TypeError(
            f"{what}: step must be an integer scalar (it is converted to int64, as in "
            f"TensorFlow). Received: step={step!r:.60} (dtype {value.dtype.name}, shape "
            f"{value.shape})"
        )
    return int(value)


def current_writer():
    """This thread's default `SummaryWriter` (set by ``writer.as_default()``), or None."""
    return getattr(_state, "writer", None)


def should_record_summaries() -> bool:
    """Whether summaries are recorded here: a default writer exists and the `record_if`
    condition holds."""
    if getattr(_state, "writer", None) is None:
        return False
    record = getattr(_state, "record", True)
    return bool(record() if callable(record) else record)


@contextlib.contextmanager
def record_if(condition):
    """Records summaries inside the block only when ``condition`` (a bool or a
    zero-argument callable, evaluated at each summary) holds."""
    outer = getattr(_state, "record", True)
    _state.record = condition
    try:
        yield
    finally:
        _state.record = outer


def record_summary(kind: str, name: str, data, step, description=None, buckets: int = 30):
    """Writes one summary to the default writer, if summaries are recorded here: ``data``
    is the value (scalar, histogram, text) or a zero-argument callable building the
    ``Summary`` proto (image, audio, write: encoding is skipped when nothing records).

    Returns whether it was written as a scalar bool Tensor, as TensorFlow 2's summary ops do
    (``<tf.Tensor: shape=(), dtype=bool, numpy=True>``); ``if`` and ``not`` read it as a bool.
    """
    from ..core.tensor import constant

    if not should_record_summaries():
        return constant(False)
    what = f"summary.{kind}({name!r})"
    if callable(data):
        step = resolve_step(step, what)  # a missing step fails before any encoding
        data = data()
    if description is not None and not isinstance(description, str):
        raise TypeError(f"{what}: description must be a string, got {description!r:.60}.")
    _state.writer._write(kind, name, data, resolve_step(step, what), buckets, description)
    return constant(True)


def scalar(name: str, data, step=None, description=None):
    """Writes a scalar; returns a bool Tensor, True if it was written (False without a
    default writer or outside the recording condition). Follows `tf.summary.scalar`.

    Args:
        description: a longer description (Markdown), stored in the summary's metadata as
            TensorBoard shows it; default None.

    Raises:
        ValueError: no step (see the module docstring) or a non-scalar ``data``.
        TypeError: a ``description`` that is not a string.
    """
    if _numpy(data).size != 1:
        raise ValueError(
            f"summary.scalar({name!r}): data must be a scalar, got shape {_numpy(data).shape}."
        )
    return record_summary("scalar", name, data, step, description)


def histogram(name: str, data, step=None, buckets=None, description=None):
    """Writes the histogram of ``data``'s values; returns a bool Tensor, True if it was
    written. Follows `tf.summary.histogram`.

    Args:
        buckets: the number of equal-width buckets over the values' range (default None:
            30, TensorFlow's default); a positive integer.
        description: as in `scalar`.

    Raises:
        ValueError: no step, or ``buckets`` not a positive integer.
    """
    if buckets is None:
        buckets = 30
    elif isinstance(buckets, bool) or not isinstance(buckets, (int, np.integer)) or buckets < 1:
        raise ValueError(
            f"summary.histogram({name!r}): buckets must be a positive integer, got {buckets!r}."
        )
    return record_summary("histogram", name, data, step, description, int(buckets))


def text(name: str, data, step=None, description=None):
    """Writes a text summary; returns a bool Tensor, True if it was written. Follows
    `tf.summary.text`: the tag is ``name``; the value is a string tensor of ``data``'s shape
    (TensorBoard shows a vector or matrix of strings as a table).

    Args:
        data: a string Tensor or Python string(s), any shape, UTF-8 bytes or str.
        description: as in `scalar`.

    Raises:
        TypeError: ``data`` is not a string tensor (a number, a float Tensor).
    """
    array = _numpy(data)
    if array.dtype.kind not in "OSU" or any(
        not isinstance(v, (bytes, str)) for v in array.ravel().tolist()
    ):
        raise TypeError(
            f"summary.text({name!r}): data must be a string tensor, got {array.dtype} {data!r:.60}."
        )
    return record_summary("text", name, data, step, description)


def flush(writer=None, name=None) -> None:
    """Flushes ``writer`` (default: the default writer)."""
    writer = writer if writer is not None else getattr(_state, "writer", None)
    if writer is not None:
        writer.flush()


def _set_step(step) -> None:
    _state.step = step


def _get_step():
    return getattr(_state, "step", None)


experimental = types.SimpleNamespace(set_step=_set_step, get_step=_get_step)


# -- TF 1.x: tf.contrib.summary ---------------------------------------------------------------


@contextlib.contextmanager
def _record_every_n(n, global_step=None):
    """Records only when the global step is a multiple of ``n``."""
    if int(n) <= 0:
        raise ValueError(f"record_summaries_every_n_global_steps: n must be positive, got {n}.")

    def due() -> bool:
        step = global_step if global_step is not None else _global_step()
        if step is None:
            from ..compat.v1 import get_or_create_global_step

            step = get_or_create_global_step()
        return int(_numpy(step)) % int(n) == 0

    with record_if(due):
        yield


@contextlib.contextmanager
def _always():
    with record_if(True):
        yield


@contextlib.contextmanager
def _never():
    with record_if(False):
        yield


def _contrib_scalar(name, tensor, family=None, step=None):
    return scalar(f"{family}/{name}" if family else name, tensor, step=step)


def _contrib_histogram(name, tensor, family=None, step=None):
    return histogram(f"{family}/{name}" if family else name, tensor, step=step)


contrib_summary = types.SimpleNamespace(
    create_file_writer=create_file_writer,
    create_summary_file_writer=create_file_writer,
    record_summaries_every_n_global_steps=_record_every_n,
    always_record_summaries=_always,
    never_record_summaries=_never,
    should_record_summaries=should_record_summaries,
    scalar=_contrib_scalar,
    histogram=_contrib_histogram,
    flush=flush,
    all_summary_ops=lambda: None,
    SummaryWriter=SummaryWriter,
)
contrib_summary.__doc__ = "TF 1.x `tf.contrib.summary` (see `eagerkernel.runtime.io.summary`)."


from .summary_media import audio, image, write  # noqa: E402  (they write through _summary)
