"""Rich views (text and HTML) of runtime objects that have no display of their own: Keras
models, Datasets and checkpoint restore statuses.

They are registered as IPython formatters by `load_ipython_extension`; the runtime classes are
not touched. Every view reads cheap, already-known information only: a Dataset's view never
runs the pipeline (a mapped dataset whose element spec would need its first element says so).
"""

from __future__ import annotations

import html

from .formatting import html_table

__all__ = [
    "dataset_html",
    "dataset_text",
    "model_html",
    "model_text",
    "status_html",
    "status_text",
]


def _pretty(func):
    def pretty(obj, p, cycle: bool) -> None:
        p.text(func(obj))

    return pretty


# -- Model ----------------------------------------------------------------------------------


def _model_rows(model) -> tuple[list[list[str]], int, int]:
    import numpy as np

    from ..runtime.keras.models import batch_none

    rows = []
    for layer in model._summary_layers():
        shape = getattr(layer, "_output_shape", None)
        shape_text = "multiple" if shape is None else str(batch_none(shape))
        params = f"{layer.count_params():,}" if layer.built else "0 (unbuilt)"
        rows.append([f"{layer.name} ({type(layer).__name__})", shape_text, params])
    total = sum(int(np.prod(v.shape, dtype=np.int64)) for v in model.weights)
    trainable = sum(int(np.prod(v.shape, dtype=np.int64)) for v in model.trainable_variables)
    return rows, total, trainable


def model_text(model) -> str:
    """Keras's summary table, or ``Model "name": not built`` before the model has weights."""
    if not model.built:
        return f'Model "{model.name}" ({type(model).__name__}): not built yet'
    lines: list[str] = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def model_html(model) -> str:
    if not model.built:
        return f"<div>{html.escape(model_text(model))}</div>"
    rows, total, trainable = _model_rows(model)
    caption = f'Model "{model.name}" ({type(model).__name__})'
    foot = (
        f"Total params: {total:,} · Trainable params: {trainable:,} · "
        f"Non-trainable params: {total - trainable:,}"
    )
    table = html_table(["Layer (type)", "Output Shape", "Param #"], rows, caption=caption)
    return f'<div class="eagerkernel-model">{table}<div>{html.escape(foot)}</div></div>'


# -- Dataset --------------------------------------------------------------------------------


def _cardinality_text(ds) -> str:
    from ..runtime.data.dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY

    n = ds._cardinality()
    if n == INFINITE_CARDINALITY:
        return "infinite"
    if n == UNKNOWN_CARDINALITY:
        return "unknown"
    return f"{n:,} element{'' if n == 1 else 's'}"


def _spec_text(ds) -> str:
    spec = ds._static_spec()  # never runs the pipeline; None when only the first element tells
    if spec is None:
        return "not known until the first element is computed (ds.element_spec computes it)"
    return repr(spec)


def dataset_text(ds) -> str:
    """The element spec (when known without running the pipeline) and the cardinality."""
    return (
        f"{type(ds).__name__}\n  element_spec: {_spec_text(ds)}\n"
        f"  cardinality: {_cardinality_text(ds)}"
    )


def dataset_html(ds) -> str:
    rows = [["element_spec", _spec_text(ds)], ["cardinality", _cardinality_text(ds)]]
    return html_table(["", ""], rows, caption=type(ds).__name__)


# -- checkpoint restore status ----------------------------------------------------------------


def _status_rows(status) -> list[list[str]]:
    keys = set(status._keys)
    consumed = status._consumed
    return [
        ["file", str(status.file)],
        ["saved values", str(len(keys))],
        ["matched (assigned)", str(len(keys & consumed))],
        ["unmatched saved values", str(len(keys - consumed))],
        ["existing variables without a value", str(len(status._unmatched_existing()))],
    ]


def status_text(status) -> str:
    """Matched and unmatched counts of a `Checkpoint.restore` status."""
    rows = _status_rows(status)
    return "Checkpoint restore status\n" + "\n".join(f"  {k}: {v}" for k, v in rows)


def status_html(status) -> str:
    return html_table(["", ""], _status_rows(status), caption="Checkpoint restore status")


def formatters() -> tuple[tuple, tuple]:
    """``(html, plain)``: ``(class, function)`` pairs for IPython's formatters."""
    from ..runtime.data.dataset import Dataset
    from ..runtime.io.checkpoint import CheckpointLoadStatus
    from ..runtime.keras.models import Model

    html_pairs = ((Model, model_html), (Dataset, dataset_html), (CheckpointLoadStatus, status_html))
    plain_pairs = (
        (Model, _pretty(model_text)),
        (Dataset, _pretty(dataset_text)),
        (CheckpointLoadStatus, _pretty(status_text)),
    )
    return html_pairs, plain_pairs
