"""Checking every op for Inf and NaN (`ek.debugging.enable_check_numerics`, follows
`tf.debugging.enable_check_numerics`): while on, an op whose floating output holds an Inf or
a NaN raises `InvalidArgumentError` at once, naming the op, the output and its inputs, with
TensorFlow's message::

    !!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!
      dtype: <dtype: 'float32'>
      shape: (3,)
      # of -Inf elements: 1
      # of +NaN elements: 1

      Input tensor: Tensor([-1.  1.  0.], shape=(3,), dtype=float32)

     : Tensor had -Inf and NaN values

It is a `Recorder` pushed on the thread that turns it on, so it checks that thread's ops, the
backward pass's included (a gradient that turns NaN is caught where it does); Dataset worker
threads are not checked. Every op then takes the dispatcher's observed path and one
``isfinite`` pass over its output: a debugging mode, off by default.

>>> ek.debugging.enable_check_numerics()
>>> try:
...     ek.math.log(ek.constant([1.0, -1.0]))
... except ek.errors.InvalidArgumentError as exc:
...     print(str(exc).splitlines()[1])
!!! Detected Infinity or NaN in output 0 of eagerly-executing op "Log" (# of outputs: 1) !!!
>>> ek.debugging.disable_check_numerics()
"""

from __future__ import annotations

import threading

import numpy as np

from .core.context import Recorder, pop_recorder, push_recorder
from .core.errors import InvalidArgumentError

__all__ = ["disable_check_numerics", "enable_check_numerics"]

_state = threading.local()  # .checker: this thread's NumericsChecker while checking is on


class NumericsChecker(Recorder):
    """The recorder behind `enable_check_numerics`: raises on an Inf or NaN output."""

    def record(self, prim, inputs, output, params, saved, seconds) -> None:
        outputs = output if type(output) is tuple else (output,)
        for i, out in enumerate(outputs):
            value = getattr(out, "_value", None)
            if value is None or getattr(value, "dtype", None) is None:
                continue
            if value.dtype.kind not in "fc":
                continue
            xp = out._device.xp
            if bool(xp.isfinite(value).all()):
                continue
            raise InvalidArgumentError(
                None, prim.name, _message(prim.name, i, len(outputs), out, inputs)
            )


def _message(op: str, index: int, n_outputs: int, out, inputs) -> str:
    value = out._value
    host = np.asarray(value.get() if hasattr(value, "get") else value)
    counts = {  # TensorFlow's labels (it counts every NaN as "+NaN", whatever its sign bit)
        "-Inf": int(np.count_nonzero(np.isneginf(host.real))),
        "+Inf": int(np.count_nonzero(np.isposinf(host.real))),
        "+NaN": int(np.count_nonzero(np.isnan(host))),
    }
    lines = [
        "",
        f'!!! Detected Infinity or NaN in output {index} of eagerly-executing op "{op}" '
        f"(# of outputs: {n_outputs}) !!!",
        f"  dtype: {out.dtype}",
        f"  shape: {tuple(value.shape)}",
    ]
    lines += [f"  # of {kind} elements: {n}" for kind, n in counts.items() if n]
    lines.append("")
    # str(), not an f-string's format(): a Tensor formats as its bare array
    if len(inputs) == 1:
        lines.append("  Input tensor: " + str(inputs[0]))
    elif inputs:
        lines.append(f"  Input tensors ({len(inputs)}):")
        lines += [f"    {k}: " + str(t) for k, t in enumerate(inputs)]
    kinds = [k for k in ("-Inf", "+Inf") if counts[k]] + (["NaN"] if counts["+NaN"] else [])
    lines += ["", f" : Tensor had {' and '.join(kinds)} values"]
    return "\n".join(lines)


def enable_check_numerics(stack_height_limit=30, path_length_limit=50) -> None:
    """Checks every op the calling thread runs for Inf and NaN outputs, until
    `disable_check_numerics` (see the module). Calling it again changes nothing.

    Args:
        stack_height_limit, path_length_limit: positive ints; TensorFlow uses them for the
            stack trace it prints for ops inside graphs. An eager op's error carries its
            Python traceback instead, here as in TensorFlow, so they bound nothing.

    Raises:
        ValueError: a limit that is not a positive int.
    """
    for name, value in (
        ("stack_height_limit", stack_height_limit),
        ("path_length_limit", path_length_limit),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(
                f"enable_check_numerics: {name} must be a positive int, got {value!r:.60}."
            )
    if getattr(_state, "checker", None) is None:
        _state.checker = NumericsChecker()
        push_recorder(_state.checker)


def disable_check_numerics() -> None:
    """Stops the checks `enable_check_numerics` started on the calling thread (nothing if
    they are off)."""
    checker = getattr(_state, "checker", None)
    if checker is not None:
        pop_recorder(checker)
        _state.checker = None
