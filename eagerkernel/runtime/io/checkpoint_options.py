"""`CheckpointOptions` and `load_variable` (follow `tf.train.CheckpointOptions` and
`tf.train.load_variable`).

One process writes checkpoints here, synchronously, so the options that pick an I/O device or
ask for an asynchronous write are accepted and change nothing the caller can observe (an
asynchronous TF save is finished by `Checkpoint.sync`; here every save is finished already).
The options that change what is written or restored are refused with NotImplementedError.
"""

from __future__ import annotations

import numpy as np

from .checkpoint_format import load_checkpoint

__all__ = ["CheckpointOptions", "check_options", "load_variable"]


class CheckpointOptions:
    """Options for `Checkpoint.save`/`write`/`read`/`restore` and `CheckpointManager.save`.

    Args:
        experimental_io_device: the device that would do the I/O (accepted; one host).
        experimental_enable_async_checkpoint: deprecated name of ``enable_async``.
        experimental_write_callbacks: refused (NotImplementedError) unless None.
        enable_async: accepted; the save is synchronous, so it is finished on return.
        experimental_sharding_callback: refused (NotImplementedError) unless None.
        experimental_skip_slot_variables: refused (NotImplementedError) unless False.

    >>> CheckpointOptions(experimental_io_device="/job:localhost").experimental_io_device
    '/job:localhost'
    """

    __slots__ = (
        "enable_async",
        "experimental_enable_async_checkpoint",
        "experimental_io_device",
        "experimental_sharding_callback",
        "experimental_skip_slot_variables",
        "experimental_write_callbacks",
    )

    def __init__(
        self,
        experimental_io_device=None,
        experimental_enable_async_checkpoint: bool = False,
        experimental_write_callbacks=None,
        enable_async: bool = False,
        experimental_sharding_callback=None,
        experimental_skip_slot_variables: bool = False,
    ):
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(experimental_enable_async_checkpoint or enable_async)
        self.experimental_enable_async_checkpoint = self.enable_async
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables

    def __repr__(self) -> str:
        return f"CheckpointOptions(experimental_io_device={self.experimental_io_device!r})"


def check_options(options, op: str) -> None:
    """Raises unless ``options`` is None or a `CheckpointOptions` that asks nothing this
    runtime cannot do (``op`` names the caller in the message).

    Raises:
        TypeError: ``options`` is not a CheckpointOptions.
        NotImplementedError: write callbacks, a sharding callback or skipped slot variables.
    """
    if options is None:
        return
    if not isinstance(options, CheckpointOptions):
        raise TypeError(
            f"{op}: options must be a tf.train.CheckpointOptions or None. "
            f"Received: options={options!r:.60}"
        )
    for name, default in (
        ("experimental_write_callbacks", None),
        ("experimental_sharding_callback", None),
        ("experimental_skip_slot_variables", False),
    ):
        value = getattr(options, name)
        if value is not default and value != default:
            raise NotImplementedError(
                f"{op}: CheckpointOptions({name}=...) is not supported. Received: "
                f"{name}={value!r:.60}"
            )


def load_variable(ckpt_dir_or_file, name: str) -> np.ndarray:
    """The NumPy value stored under ``name`` (``"dense/kernel/.ATTRIBUTES/VARIABLE_VALUE"``)
    in a checkpoint prefix or a directory's latest checkpoint (follows
    `tf.train.load_variable`; a trailing ``":0"`` is dropped, as TF drops it).

    Raises:
        NotFoundError: no tensor named ``name`` in the checkpoint.
        ValueError: a directory without a checkpoint. CheckpointError: an unreadable file.
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
