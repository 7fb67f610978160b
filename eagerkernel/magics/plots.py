"""Small matplotlib pictures for ``%grad`` (Agg canvas, no pyplot): per-layer gradient norms as
one bar chart (`GradPlots`), and gradient norms over training steps (`GradHistory`).

Both are displays with a one-line text form (what nbval compares) and, in notebooks, the
picture as an ``<img>`` with alt text (HTML) or image/png where HTML is not shown.
"""

from __future__ import annotations

import base64
import html
import io
import math

import numpy as np

__all__ = ["GradHistory", "GradPlots", "layer_norms", "render_grad_png", "render_history_png"]


def layer_norms(names: list[str], grads: list) -> list[tuple[str, float, int]]:
    """``[(layer, norm, arrays)]``: the L2 norm of each layer's gradients together, layers in
    order of first appearance. ``names`` are the sources' names (a Variable's
    ``dense/kernel:0`` belongs to layer ``dense``; any other name is its own layer). None
    gradients are left out; a NaN anywhere makes the layer's norm NaN.

    >>> layer_norms(["d/kernel:0", "d/bias:0", "x"], [ek.constant([3.0]), ek.constant([4.0]), None])
    [('d', 5.0, 2)]
    """
    from ..runtime.keras.callbacks import layer_of

    out: dict[str, list] = {}
    for name, g in zip(names, grads):
        if g is None:
            continue
        a = np.asarray(g.numpy(), dtype=np.float64).ravel()
        slot = out.setdefault(layer_of(name), [0.0, 0])
        slot[0] += float(a.dot(a)) if a.size else 0.0
        slot[1] += 1
    return [(k, math.sqrt(sq), n) for k, (sq, n) in out.items()]


def _png(fig, dpi: int) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


def render_grad_png(norms: list[tuple[str, float, int]], dpi: int = 80) -> bytes:
    """One horizontal bar per layer: its gradient norm (log scale when the norms span more
    than three decades); a NaN or Inf norm is written as a word where its bar would be."""
    from matplotlib.figure import Figure

    n = max(len(norms), 1)
    fig = Figure(figsize=(6.0, 0.6 + 0.32 * n), dpi=dpi)
    ax = fig.add_subplot(1, 1, 1)
    labels = [name for name, _, _ in norms]
    values = [v if math.isfinite(v) else 0.0 for _, v, _ in norms]
    y = np.arange(len(norms))
    ax.barh(y, values, color="#4a7fb5")
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > 1e3:
        ax.set_xscale("log")
    for k, (_, v, _) in enumerate(norms):
        if not math.isfinite(v):
            ax.text(0, k, " NaN" if math.isnan(v) else " Inf", va="center", color="#c00")
    ax.set_xlabel("gradient L2 norm", fontsize=8)
    ax.tick_params(labelsize=7)
    fig.tight_layout()
    return _png(fig, dpi)


def render_history_png(norms: dict[str, list[float]], dpi: int = 80) -> bytes:
    """One line per layer: its gradient norm at each step (log scale)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 3.2), dpi=dpi)
    ax = fig.add_subplot(1, 1, 1)
    for name, series in norms.items():
        ax.plot(np.arange(len(series)), series, label=name, lw=1)
    if any(v > 0 for series in norms.values() for v in series if math.isfinite(v)):
        ax.set_yscale("log")
    ax.set_xlabel("step", fontsize=8)
    ax.set_ylabel("gradient L2 norm", fontsize=8)
    ax.tick_params(labelsize=7)
    if norms:
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return _png(fig, dpi)


class _Picture:
    """A picture display: text/plain always; HTML (an ``<img>`` with alt text) or image/png
    for the front ends that show them."""

    def png(self) -> bytes:
        raise NotImplementedError

    def alt(self) -> str:
        return repr(self)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        # The picture only when asked for by name; IPython's display() asks with
        # include=None, then calls _repr_html_ itself if the front end shows HTML.
        bundle = {"text/plain": repr(self)}
        if not include or not self.drawn:
            return bundle
        if "text/html" in include and not (exclude and "text/html" in exclude):
            bundle["text/html"] = self._repr_html_()
        elif "image/png" in include and not (exclude and "image/png" in exclude):
            bundle["image/png"] = self.png()
        return bundle

    def _repr_html_(self) -> str | None:
        if not self.drawn:
            return None
        data = base64.b64encode(self.png()).decode("ascii")
        alt = html.escape(self.alt(), quote=True)
        return f'<img src="data:image/png;base64,{data}" alt="{alt}" title="{alt}">'

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))


class GradPlots(_Picture):
    """The gradients of a `%grad` call as one bar chart of per-layer norms (`layer_norms`).

    Nothing is drawn when every gradient is a scalar (the report shows their values) or none
    is present.

    Attributes:
        norms: ``[(layer, norm, arrays)]``.
        drawn: whether there is a picture.
    """

    def __init__(self, names: list[str], grads: list):
        self.norms = layer_norms(names, grads)
        self.drawn = any(g is not None and g.shape.rank != 0 for g in grads)
        self._png: bytes | None = None

    def png(self) -> bytes:
        if self._png is None:
            self._png = render_grad_png(self.norms)
        return self._png

    def alt(self) -> str:
        parts = [f"{name} {v:.4g}" for name, v, _ in self.norms]
        return "Bar chart of gradient L2 norms per layer: " + ", ".join(parts)

    def __repr__(self) -> str:
        n = len(self.norms)
        if not self.drawn:
            return f"<no gradient plot: {n} scalar gradient{'' if n == 1 else 's'}>"
        return f"<bar chart of gradient norms: {n} layer{'' if n == 1 else 's'}>"


class GradHistory(_Picture):
    """Gradient norms per layer over training steps, from a `GradientNormLogger`
    (``%grad --history``): a line per layer, log scale.

    Attributes:
        norms: ``{layer: [norm per step]}`` (a copy of the logger's).
        steps: the number of steps.
        drawn: whether there is a picture (at least one step).
    """

    def __init__(self, logger):
        self.norms = {k: list(v) for k, v in logger.norms.items()}
        self.steps = logger.steps
        self.drawn = self.steps > 0
        self._png: bytes | None = None

    def png(self) -> bytes:
        if self._png is None:
            self._png = render_history_png(self.norms)
        return self._png

    def alt(self) -> str:
        last = ", ".join(
            f"{k} {v[-1]:.4g}" for k, v in self.norms.items() if v and math.isfinite(v[-1])
        )
        return (
            f"Line chart of gradient L2 norms of {len(self.norms)} layers over "
            f"{self.steps} steps; last step: {last}"
        )

    def __repr__(self) -> str:
        n = len(self.norms)
        return (
            f"<gradient norm history: {n} layer{'' if n == 1 else 's'}, "
            f"{self.steps} step{'' if self.steps == 1 else 's'}>"
        )
