"""TensorFlow 1.x's session-run hook types (`tf.compat.v1.train.SessionRunHook`,
``SessionRunArgs``, ``SessionRunContext``, ``SessionRunValues``), as
``tensorflow/python/training/session_run_hook.py`` defines them.

There are no Sessions here, so nothing calls a hook: these exist so that TensorFlow 1.x code
that subclasses ``SessionRunHook`` (the migration guides' ``LoggerHook`` and
``InterruptHook``) can be defined and its methods called directly; the Keras callbacks
(``tf.keras.callbacks.Callback``) are what a training loop calls here.

>>> class Count(SessionRunHook):
...     def begin(self):
...         self.n = 0
>>> h = Count(); h.begin(); h.before_run(None) is None, h.n
(True, 0)
>>> SessionRunArgs(fetches=1)
SessionRunArgs(fetches=1, feed_dict=None, options=None)
"""

from __future__ import annotations

import collections

__all__ = ["SessionRunArgs", "SessionRunContext", "SessionRunHook", "SessionRunValues"]


class SessionRunHook:
    """Base class of the hooks of ``MonitoredSession.run`` (follows
    `tf.compat.v1.train.SessionRunHook`): every method does nothing by default."""

    def begin(self) -> None:
        """Called once before the session is used."""

    def after_create_session(self, session, coord) -> None:
        """Called when a session has been created."""

    def before_run(self, run_context):
        """Called before each ``run()``; returns None or a `SessionRunArgs` to add."""
        return None

    def after_run(self, run_context, run_values) -> None:
        """Called after each ``run()`` with the `SessionRunValues` of what it asked for."""

    def end(self, session) -> None:
        """Called at the end of the session."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a ``run()`` call: fetches, feeds, options (follows
    `tf.compat.v1.train.SessionRunArgs`; ``feed_dict`` and ``options`` default to None)."""

    __slots__ = ()

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


SessionRunValues = collections.namedtuple(
    "SessionRunValues", ["results", "options", "run_metadata"]
)
SessionRunValues.__doc__ = """The results of a hook's `SessionRunArgs` (follows
`tf.compat.v1.train.SessionRunValues`): ``results``, ``options``, ``run_metadata``."""


class SessionRunContext:
    """What a hook is told about a ``run()`` call (follows
    `tf.compat.v1.train.SessionRunContext`): ``original_args``, ``session``, and
    ``request_stop()``, which sets ``stop_requested``."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The `SessionRunArgs` of the ``run()`` call."""
        return self._original_args

    @property
    def session(self):
        """The session ``run()`` was called on."""
        return self._session

    @property
    def stop_requested(self) -> bool:
        """True after `request_stop`."""
        return self._stop_requested

    def request_stop(self) -> None:
        """Asks the loop to stop after this ``run()``."""
        self._stop_requested = True
