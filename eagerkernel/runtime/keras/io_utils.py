"""Where Keras's messages go (follows Keras 3's ``keras.utils.io_utils``): to stdout while
interactive logging is on (the default), else to Python's ``logging`` (logger
``"eagerkernel"``, level INFO), with no live progress bar."""

from __future__ import annotations

import logging

__all__ = [
    "disable_interactive_logging",
    "enable_interactive_logging",
    "is_interactive_logging_enabled",
    "print_msg",
]

_state = {"interactive": True}


def enable_interactive_logging() -> None:
    """Keras's messages and progress bars go to stdout (the default; follows
    `keras.config.enable_interactive_logging`)."""
    _state["interactive"] = True


def disable_interactive_logging() -> None:
    """Keras's messages go to Python's ``logging`` (logger ``"eagerkernel"``, INFO) and `fit`
    draws no live progress bar: each epoch's line is logged once it ends (follows
    `keras.config.disable_interactive_logging`)."""
    _state["interactive"] = False


def is_interactive_logging_enabled() -> bool:
    """Whether Keras's messages go to stdout (follows
    `keras.config.is_interactive_logging_enabled`).

    >>> ek.keras.config.is_interactive_logging_enabled()
    True
    """
    return _state["interactive"]


def print_msg(message) -> None:
    """Prints ``message`` to stdout, or logs it while interactive logging is off."""
    if _state["interactive"]:
        print(message, flush=True)
    else:
        logging.getLogger("eagerkernel").info(str(message))
