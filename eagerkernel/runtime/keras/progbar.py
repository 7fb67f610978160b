"""`ek.keras.utils.Progbar`: the progress bar of custom training loops (follows
`tf.keras.utils.Progbar`), drawn the way `fit`'s `ProgbarLogger` draws its bar.

verbose=1 is a ``tqdm.auto`` bar, as `fit` shows (text on stderr in a terminal, the ipywidgets
bar in a notebook), with Keras's metric text as its postfix; verbose=2 prints one line to
stdout when the bar finishes, ``N/N - loss: 0.3281``, as `fit`'s verbose=2 does (no timing).
"""

from __future__ import annotations

import numpy as np

from .io_utils import is_interactive_logging_enabled, print_msg

__all__ = ["Progbar", "format_value"]


def format_value(value) -> str:
    """A metric as Keras's Progbar shows it: four decimals, scientific notation for
    magnitudes of 1e-3 or less. A value with more than one element (a per-sample loss a
    custom `train_step` returned) is shown as its mean, as Keras's Progbar does.

    >>> format_value(0.32814), format_value(1e-4), format_value([1.0, 2.0])
    ('0.3281', '1.0000e-04', '1.5000')
    """
    value = float(np.mean(np.asarray(value, dtype=np.float64)))
    return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"


class Progbar:
    """A progress bar for loops over steps (follows `tf.keras.utils.Progbar`).

    Args:
        target: total number of steps expected, or None if unknown (the bar then counts).
        width: width of the bar in characters (default 20).
        verbose: 0 silent, 1 a live bar (as `fit` shows), 2 one line when finished.
        interval: minimum seconds between redraws of the bar (default 0.05).
        stateful_metrics: names of values shown as given; the others are shown as their mean
            over the steps seen, each update weighted by the steps it advanced, except at the
            final update, whose values are shown as given (Keras 3: `fit`'s logs are already
            running means).
        unit_name: what a step is called in the bar (default ``"step"``).

    Raises:
        ValueError: ``verbose`` is not 0, 1 or 2, or ``width`` is not a positive integer.

    >>> bar = ek.keras.utils.Progbar(4, verbose=2)
    >>> bar.update(2, values=[("loss", 1.0)])
    >>> bar.add(1, values=[("loss", 0.5)])
    >>> bar.add(1, values=[("loss", 0.25)])  # the final update: shown as given
    4/4 - loss: 0.2500
    """

    def __init__(
        self,
        target,
        width=20,
        verbose=1,
        interval=0.05,
        stateful_metrics=None,
        unit_name="step",
    ):
        if verbose not in (0, 1, 2):
            raise ValueError(f"verbose must be 0, 1 or 2. Received: verbose={verbose!r}")
        if not isinstance(width, int) or width < 1:
            raise ValueError(f"width must be a positive integer. Received: width={width!r}")
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self.unit_name = unit_name
        self._seen_so_far = 0
        self._values: dict[str, list[float]] = {}
        self._values_order: list[str] = []
        self._bar = None

    def _text(self) -> str:
        parts = []
        for k in self._values_order:
            total, count = self._values[k]
            parts.append(f"{k}: {format_value(total / max(1, count))}")
        return " - ".join(parts)

    def update(self, current, values=None, finalize=None) -> None:
        """Move the bar to step ``current`` and record ``values``.

        Args:
            current: index of the current step (the count of steps done).
            values: list of ``(name, value)`` tuples; names in ``stateful_metrics`` are shown
                as given, the others averaged over the steps (see the class).
            finalize: whether this is the last update; by default, whether ``current`` reached
                ``target`` (never, when ``target`` is None).
        """
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            v = np.asarray(v, dtype=np.float64)  # arrays are kept; shown as their mean
            v = float(v) if v.ndim == 0 else v
            if k in self.stateful_metrics or finalize:
                # Keras 3: the last update's values are the final ones (fit's logs are
                # already running means), not folded into the average
                self._values[k] = [v, 1]
            else:
                steps = max(current - self._seen_so_far, 1)
                total, count = self._values.get(k, [0.0, 0])
                self._values[k] = [total + v * steps, count + steps]
        self._seen_so_far = current
        if self.verbose == 1 and is_interactive_logging_enabled():
            self._draw(current, finalize)
        elif self.verbose and finalize:  # verbose=2, or 1 with interactive logging off
            target = self.target if self.target is not None else current
            text = self._text()
            print_msg(f"{current}/{target}" + (f" - {text}" if text else ""))

    def _draw(self, current, finalize) -> None:
        if self._bar is None:
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=self.target,
                unit=self.unit_name,
                mininterval=self.interval,
                bar_format=f"{{l_bar}}{{bar:{self.width}}}{{r_bar}}",
                leave=True,
            )
        if current >= self._bar.n:
            self._bar.update(current - self._bar.n)
        else:  # a loop that restarts its count: move the bar back
            self._bar.n = current
        text = self._text()
        if text:
            self._bar.set_postfix_str(text, refresh=False)
        if finalize:  # close draws the final state once
            self._bar.close()
            self._bar = None

    def add(self, n, values=None) -> None:
        """Advance the bar by ``n`` steps: ``update(steps_so_far + n, values)``."""
        self.update(self._seen_so_far + n, values)
