"""The element spec of a user function's output (``Dataset.map``), as TensorFlow's trace types it.

TensorFlow traces ``map_func`` once on placeholders of the input's element spec, so a dimension
that is unknown in the input (a batch's first) or that depends on the values (``tf.range(x)``,
``tf.strings.split(s)``) is None in the output's spec. Eager code has no trace: the function is
run on the first two input elements instead, and a dimension of an output TensorSpec is None when

- the two outputs differ in it (a shape made from the values), or
- it sits at an axis where an input component is unknown in the input's spec, and has that
  component's size in the first element (``batch(3).map(lambda x: x * 2)``: ``(None,)``).

A dimension of fixed size stays known. The second rule types an output's axis by position, as
the shapes of elementwise, reducing and reshaping functions carry it; a function that moves the
batch axis elsewhere (a transpose) keeps it known there.
"""

from __future__ import annotations

from .dataset import Context
from .sources import spec_or_none
from .structure import TensorSpec, flatten, map_structure, spec_of

__all__ = ["common_spec", "mapped_spec"]


def mapped_spec(dataset, fn, op: str = "Map"):
    """The spec of ``fn``'s outputs over ``dataset``'s elements (see the module docstring).

    An empty ``dataset`` is typed by running ``fn`` on stand-in values of its spec
    (`traced_spec`).
    """
    from .traced_spec import relaxed_by_trace, trace_or_raise

    def trace(xs):
        return [spec_of(fn(x)) for x in xs]

    in_spec = spec_or_none(dataset)
    it = dataset._iter(Context(peek=True))
    try:
        inputs = [x for x, _ in zip(it, range(2))]
        outputs = [fn(x) for x in inputs]
    except Exception as e:  # an error TF raises when iterating: stand-ins of the input's spec
        return trace_or_raise(dataset, trace, op, e)
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            close()
    if not inputs:  # nothing to run the function on: stand-in values of the input's spec
        return trace_or_raise(dataset, trace, op, None)
    spec = spec_of(outputs[0])
    if len(outputs) > 1:
        spec = common_spec(spec, spec_of(outputs[1]))
    sizes = _unknown_axis_sizes(in_spec, inputs[0])
    if sizes:
        spec = map_structure(lambda s: _relax(s, sizes), spec)
    return relaxed_by_trace(spec, dataset, trace, op)


def common_spec(a, b):
    """``a`` with the dims where ``b``'s TensorSpec differs set to None; ``a`` when the two
    structures differ (the function's output structure is then not fixed: TF would refuse)."""
    try:
        return map_structure(
            lambda x, y: (
                x.most_specific_compatible_type(y)
                if isinstance(x, TensorSpec) and isinstance(y, TensorSpec) and x.dtype == y.dtype
                else x
            ),
            a,
            b,
        )
    except (TypeError, ValueError):
        return a


def _unknown_axis_sizes(in_spec, element) -> dict:
    """``{axis: {sizes}}``: for each axis at which an input component is unknown in
    ``in_spec``, that component's size there in ``element``."""
    if in_spec is None:
        return {}
    sizes: dict = {}
    try:
        pairs = zip(flatten(in_spec), flatten(element), strict=True)
        for spec, value in pairs:
            if not isinstance(spec, TensorSpec) or spec.shape.rank is None:
                continue
            shape = getattr(value, "shape", None)
            if shape is None:
                continue
            for axis, (dim, size) in enumerate(zip(spec.shape.as_list(), tuple(shape))):
                if dim is None and size is not None:
                    sizes.setdefault(axis, set()).add(int(size))
    except (TypeError, ValueError):
        return {}
    return sizes


def _relax(spec, sizes: dict):
    if not isinstance(spec, TensorSpec) or spec.shape.rank is None:
        return spec
    dims = spec.shape.as_list()
    relaxed = [None if d is not None and d in sizes.get(axis, ()) else d for axis, d in
               enumerate(dims)]  # fmt: skip
    if relaxed == dims:
        return spec
    return TensorSpec(relaxed, spec.dtype, spec.name)
