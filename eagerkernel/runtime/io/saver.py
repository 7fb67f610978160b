"""`Saver`: TensorFlow 1.x's name-based checkpoints, as `tf.compat.v1.train.Saver` writes and
reads them when eager execution is on (``sess`` is None; there are no Sessions here).

A name-based checkpoint stores each variable under a *name*: a ``var_list`` dict's key, or
the variable's name without ``:0`` (``"scoped/c"`` for ``tf.Variable(0., name="scoped/c")``
or one made in ``tf.name_scope("scoped")``). `tf.train.load_checkpoint` then lists those
names as they are, with no ``_CHECKPOINTABLE_OBJECT_GRAPH``, as TensorFlow's reader does for
a ``Saver`` checkpoint. The file is this runtime's checkpoint format (``prefix.safetensors``,
see `checkpoint_format`), not TensorFlow's ``.index``/``.data`` files.

>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> a = ek.Variable(1.0, name="a")
>>> with ek.name_scope("scoped"):
...     c = ek.Variable(3.0, name="c")
>>> path = Saver(var_list=[a, c]).save(None, os.path.join(d, "tf1-ckpt"))
>>> sorted(ek.train.load_checkpoint(path).get_variable_to_shape_map())
['a', 'scoped/c']
>>> x = ek.Variable(0.0)
>>> Saver({"scoped/c": x}).restore(None, path)
>>> float(x.numpy())
3.0
"""

from __future__ import annotations

import os

from ..core.errors import NotFoundError
from ..core.variable import Variable
from .checkpoint_format import atomic_write, data_file, encode, read_checkpoint
from .checkpoint_format import write_state as write_state_file

__all__ = ["Saver"]


def _names(var_list) -> dict:
    """``{name: Variable}`` of a ``var_list`` (a dict by name, or Variables named by their
    ``name`` without ``:0``)."""
    if var_list is None:
        raise RuntimeError(
            "When eager execution is enabled, `var_list` must specify a list or dict of "
            "variables to save"
        )
    if isinstance(var_list, dict):
        items = list(var_list.items())
    else:
        items = [(v.name.rsplit(":", 1)[0], v) for v in var_list]
    out: dict = {}
    for name, v in items:
        if not isinstance(v, Variable):
            raise TypeError(f"Saver: var_list must hold Variables; {name!r} is {type(v).__name__}.")
        if name in out and out[name] is not v:
            raise ValueError(f"At least two variables have the same name: {name}")
        out[name] = v
    return out


class Saver:
    """Saves and restores variables by name (follows `tf.compat.v1.train.Saver` in eager
    mode).

    Args:
        var_list: a list of Variables (each saved under its name without ``:0``) or a dict
            ``{name: Variable}``. Required: eagerly there is no graph to collect them from.
        max_to_keep: the newest checkpoints `save` keeps (older ones are deleted; None or 0
            keeps all). Default 5.
        Others of TensorFlow's arguments (``reshape``, ``sharded``,
        ``keep_checkpoint_every_n_hours``, ``name``, ``restore_sequentially``, ...) are
        accepted and have no effect here.

    Raises:
        RuntimeError: ``var_list`` is None (TensorFlow's error in eager mode).
        ValueError: two different variables with the same name.
        TypeError: an entry that is not a Variable.
    """

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5, **kwargs):
        self._var_list = _names(var_list)
        self._max_to_keep = max_to_keep
        self._last: list = []

    @property
    def last_checkpoints(self) -> list:
        """The prefixes of the checkpoints `save` wrote and has not deleted, oldest first."""
        return list(self._last)

    def save(
        self,
        sess,
        save_path,
        global_step=None,
        latest_filename=None,
        meta_graph_suffix="meta",
        write_meta_graph=True,
        write_state=True,
        strip_default_attrs=False,
        save_debug_info=False,
    ) -> str:
        """Writes the variables to ``save_path`` (``save_path-<global_step>`` when a step is
        given: an int, a Tensor or a Variable) and returns that prefix. With ``write_state``
        the directory's ``checkpoint`` file names it as the latest (read by
        `tf.train.latest_checkpoint`), or ``latest_filename`` when given. No meta graph is
        written, as TensorFlow writes none when executing eagerly (``meta_graph_suffix``,
        ``write_meta_graph``, ``strip_default_attrs`` and ``save_debug_info`` concern it).

        Raises:
            ValueError: ``sess`` is not None (there are no Sessions here).
        """
        if sess is not None:
            raise ValueError(
                "Saver.save: eagerkernel runs eagerly, so sess must be None (as TensorFlow "
                f"requires when executing eagerly). Received: sess={sess!r}"
            )
        prefix = os.fspath(save_path)
        if global_step is not None:
            step = global_step.numpy() if hasattr(global_step, "numpy") else global_step
            prefix = f"{prefix}-{int(step)}"
        directory = os.path.dirname(os.path.abspath(prefix))
        os.makedirs(directory, exist_ok=True)
        atomic_write(data_file(prefix), encode(self._var_list, {}, name_based=True))
        if prefix in self._last:
            self._last.remove(prefix)
        self._last.append(prefix)
        if self._max_to_keep:
            while len(self._last) > self._max_to_keep:
                old = self._last.pop(0)
                if os.path.exists(data_file(old)):
                    os.remove(data_file(old))
        if write_state:
            absolute = [os.path.abspath(p) for p in self._last]
            write_state_file(directory, absolute[-1], absolute, filename=latest_filename)
        return prefix

    def restore(self, sess, save_path) -> None:
        """Assigns each variable the value saved under its name in ``save_path``.

        Raises:
            ValueError: ``save_path`` is None or no checkpoint is there (TensorFlow's "The
                passed save_path is not a valid checkpoint"), or ``sess`` is not None.
            NotFoundError: a name the checkpoint does not hold (nothing is assigned then).
            ValueError: a saved value whose shape differs from its variable's.
        """
        if sess is not None:
            raise ValueError(
                "Saver.restore: eagerkernel runs eagerly, so sess must be None. Received: "
                f"sess={sess!r}"
            )
        if save_path is None or not os.path.exists(data_file(save_path)):
            raise ValueError(f"The passed save_path is not a valid checkpoint: {save_path}")
        file, _, arrays = read_checkpoint(save_path)
        values = {}
        for name, v in self._var_list.items():
            if name not in arrays:
                raise NotFoundError(
                    None,
                    "RestoreV2",
                    "Restoring from checkpoint failed. This is most likely due to a Variable "
                    "name or other graph key that is missing from the checkpoint. Key "
                    f"{name} not found in checkpoint {file} (it holds "
                    f"{sorted(arrays)[:20]}).",
                )
            value = arrays[name]
            if tuple(value.shape) != tuple(v.shape):
                raise ValueError(
                    f"Saver.restore: {name} has shape {tuple(v.shape)}, the checkpoint "
                    f"holds shape {tuple(value.shape)} ({file})."
                )
            values[name] = value
        for name, v in self._var_list.items():
            v.assign(values[name])


class NameBasedSaverStatus:
    """What `tf.train.Checkpoint.restore` returns for a `Saver` checkpoint (follows
    TensorFlow's ``NameBasedSaverStatus``): variables were matched by name, not by object
    path. The ``assert_*`` methods raise AssertionError naming each variable the checkpoint
    had no value for (TensorFlow's "Some objects had attributes which were not restored")."""

    def __init__(self, unrestored: list):
        self._unrestored = unrestored

    def assert_consumed(self) -> NameBasedSaverStatus:
        """Raises AssertionError if a variable got no value; returns self."""
        if self._unrestored:
            lines = "".join(f"\n    {v!r}: [{name!r}]" for name, v in self._unrestored)
            raise AssertionError(f"Some objects had attributes which were not restored: {lines}")
        return self

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed

    def expect_partial(self) -> NameBasedSaverStatus:
        """Silences nothing here (no warnings are given); returns self."""
        return self

    def run_restore_ops(self, session=None) -> None:
        """Nothing to run: the values were assigned eagerly."""

    def initialize_or_restore(self, session=None) -> None:
        """Nothing to run: the values were assigned eagerly."""


def restore_by_name(variables, file: str, arrays: dict) -> NameBasedSaverStatus:
    """Assigns each of ``variables`` the value a `Saver` checkpoint holds under its name
    (``name`` without ``:0``), as `tf.train.Checkpoint.restore` does for a name-based
    checkpoint; a variable whose name is absent keeps its value.

    Raises:
        ValueError: a saved shape that differs from its variable's (nothing assigned then).
    """
    found, unrestored = [], []
    for v in variables:
        name = v.name.rsplit(":", 1)[0]
        if name not in arrays:
            unrestored.append((name, v))
            continue
        if tuple(arrays[name].shape) != tuple(v.shape):
            raise ValueError(
                f"Checkpoint.restore: {name} has shape {tuple(v.shape)}, the checkpoint "
                f"{file} holds shape {tuple(arrays[name].shape)}."
            )
        found.append((v, arrays[name]))
    for v, value in found:
        v.assign(value)
    return NameBasedSaverStatus(unrestored)
