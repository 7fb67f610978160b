"""Small matplotlib pictures of gradient arrays for ``%grad`` (Agg canvas, no pyplot).

`GradPlots` is a display with image/png (a grid of subplots: a heatmap per 2-D array, a
histogram otherwise) and a one-line text form, no HTML, so nbval compares only the text.
"""

from __future__ import annotations

import io

import numpy as np

__all__ = ["MAX_PLOTS", "GradPlots", "render_grad_png"]

#: Most arrays drawn in one picture; the rest are named in the title as omitted.
MAX_PLOTS = 8


def render_grad_png(items: list[tuple[str, np.ndarray]], omitted: int = 0, dpi: int = 80) -> bytes:
    """A grid of small plots, one per ``(name, array)``: heatmap for 2-D, histogram else
    (a bar for a scalar). Non-finite values are left out of histograms."""
    from matplotlib.figure import Figure

    n = max(len(items), 1)
    cols = min(n, 4)
    rows = (n + cols - 1) // cols
    fig = Figure(figsize=(2.6 * cols, 2.1 * rows + 0.3), dpi=dpi)
    for k, (name, a) in enumerate(items):
        ax = fig.add_subplot(rows, cols, k + 1)
        a = np.asarray(a, dtype=np.float64)
        finite = a[np.isfinite(a)]
        if a.ndim == 2 and a.size:
            img = ax.imshow(np.where(np.isfinite(a), a, np.nan), aspect="auto", cmap="RdBu_r")
            fig.colorbar(img, ax=ax, shrink=0.8)
            kind = "heatmap"
        else:
            if finite.size:
                ax.hist(finite.ravel(), bins=min(30, max(5, finite.size)), color="#4a7fb5")
            kind = "histogram"
        ax.set_title(f"{name} {list(a.shape)} {kind}", fontsize=8)
        ax.tick_params(labelsize=6)
    if omitted:
        fig.suptitle(f"{omitted} more gradient{'' if omitted == 1 else 's'} not drawn", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()


class GradPlots:
    """The gradients of a `%grad` call as pictures (image/png, drawn when asked for).

    Attributes:
        items: ``[(name, array)]`` drawn (at most `MAX_PLOTS`).
        omitted: how many gradients were left out.
    """

    def __init__(self, names: list[str], grads: list):
        present = [(n, g.numpy()) for n, g in zip(names, grads) if g is not None]
        self.items = present[:MAX_PLOTS]
        self.omitted = len(present) - len(self.items)
        self._png: bytes | None = None

    def png(self) -> bytes:
        if self._png is None:
            self._png = render_grad_png(self.items, self.omitted)
        return self._png

    def _repr_png_(self) -> bytes:
        return self.png()

    def __repr__(self) -> str:
        n = len(self.items)
        text = f"<plots of {n} gradient{'' if n == 1 else 's'}"
        if self.omitted:
            text += f"; {self.omitted} more not drawn"
        return text + ">"

    def _repr_pretty_(self, p, cycle: bool) -> None:
        p.text(repr(self))
