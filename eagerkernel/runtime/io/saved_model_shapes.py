"""Saved programs for open dimensions: one program template that runs at any batch size (or
any size of another dimension an ``input_signature`` leaves open, ``None``).

A program here is traced on values, so it is made for concrete shapes; TensorFlow's saved
function for ``TensorSpec([None, 4])`` accepts any batch. `save` closes that gap by
*differential tracing*: it traces the function at a few sizes of the open dimensions and
compares the saved forms (the JSON of the ops, their parameters, slots and constants):

- trace 0 has every open dimension at `BASE`; trace ``i`` changes dimension ``i`` to
  `CHANGED`; a last trace has all of them at `CHECK`;
- the forms must be the same but for integers (shapes in parameters and slots, slice bounds)
  and for constants whose shape changes and whose elements are all one value (``zeros((batch,
  units))`` folded to a constant);
- an integer that changes is fitted from traces ``0..n`` as ``c + sum(a_i * d_i)`` (a slice
  bound ``batch - 1``) or, when it changes with several dimensions at once, as ``k * prod(d_i)``
  (a reshape to ``(batch * time, features)``); a changing uniform constant keeps its value and
  fits each axis so;
- the template is then made at the sizes of the last trace and must give its form exactly.

Anything else (another op sequence, a float or a constant's values that change with a size, a
trace that fails) means the function's program depends on the sizes in a way a template cannot
express: `polymorphic_entry` returns None with the reason, and `save` falls back to concrete
shapes. Open dimensions on axis 0 (the batch) of several inputs are one size, as a batch is;
the others are each their own.

At load, `instantiate` makes the concrete form of a template for one call's sizes.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .. import nest
from ..core import dtypes
from ..core.device import CPU
from ..core.tensor import make
from ..data.structure import TensorSpec

__all__ = [
    "BASE",
    "CHANGED",
    "CHECK",
    "instantiate",
    "open_dims",
    "pinned_signature",
    "polymorphic_entry",
]

BASE, CHANGED, CHECK = 3, 4, 5  # no size 1 or 2: broadcasting and pairs look alike there


class NotPolymorphic(Exception):
    """The traces differ in a way no template expresses (the message says where)."""


def open_dims(specs: list) -> list | None:
    """The open dimensions of flat ``specs`` grouped into symbols: ``[[(flat index, axis),
    ...], ...]``, axis 0 of every input one symbol (the batch), any other open dimension its
    own. None when a spec has an unknown rank (no template can stand for that)."""
    batch: list = []
    others: list = []
    for i, s in enumerate(specs):
        if not isinstance(s, TensorSpec):
            continue
        if s.shape.rank is None:
            return None
        for axis, d in enumerate(s.shape.as_list()):
            if d is None:
                (batch if axis == 0 else others).append([(i, axis)])
    symbols = ([[d for [d] in batch]] if batch else []) + others
    return symbols


def _values(specs: list, symbols: list, sizes: tuple) -> list:
    """Zeros for flat ``specs`` with each symbol's dimensions at ``sizes``; other leaves as
    they are."""
    at = {where: sizes[k] for k, dims in enumerate(symbols) for where in dims}
    out = []
    for i, s in enumerate(specs):
        if not isinstance(s, TensorSpec):
            out.append(s)
            continue
        shape = tuple(at.get((i, a), d) for a, d in enumerate(s.shape.as_list()))
        if s.dtype == dtypes.string:
            out.append(make(np.full(shape, b"", dtype=object), CPU))
        else:
            out.append(make(np.zeros(shape, dtype=s.dtype._np), CPU))
    return out


def polymorphic_entry(trace, specs_tree, writer_factory, main_writer) -> tuple:
    """``(template, symbols)`` of the function that ``trace(values)`` traces, or ``(None,
    reason)``.

    Args:
        trace: called with a structure like ``specs_tree`` of tensors, returns the saved form
            (JSON) of the program traced for them, written with the writer it is given
            second: ``trace(values, writer)``.
        specs_tree: the input signature (a nest of `TensorSpec`s).
        writer_factory: makes a scratch writer for one trace (arrays of its own, variables
            shared with ``main_writer``).
        main_writer: where the template's constant arrays are stored.
    """
    specs = nest.flatten(specs_tree)
    symbols = open_dims(specs)
    if not symbols:
        return None, "an unknown rank" if symbols is None else "no open dimension"
    n = len(symbols)
    plan = [(BASE,) * n]
    plan += [tuple(CHANGED if j == i else BASE for j in range(n)) for i in range(n)]
    plan.append((CHECK,) * n)
    forms = []
    for sizes in plan:
        writer = writer_factory()
        values = nest.pack_sequence_as(specs_tree, _values(specs, symbols, sizes))
        try:
            form = trace(values, writer)
        except Exception as exc:  # a trace that fails at these sizes: no template
            return None, f"tracing at sizes {sizes} failed ({type(exc).__name__}: {exc})"
        forms.append((form, writer.arrays))
    try:
        template = _unify(forms[:-1], plan[:-1], main_writer, "program")
        check_form, check_arrays = forms[-1]
        _verify(template, check_form, check_arrays, plan[-1], main_writer.arrays)
    except NotPolymorphic as exc:
        return None, str(exc)
    return template, [[list(d) for d in dims] for dims in symbols]


def pinned_signature(specs_tree, calls: list):
    """``specs_tree`` (an input signature) with each open dimension other than axis 0 set to
    the size every one of ``calls`` gave it, or None when no dimension can be pinned so.

    For a function whose program follows no size of a non-batch dimension (an export module's
    ``TensorSpec([None, None])`` whose features must match a model's weights): its template
    then keeps the batch open and the other dimensions at the sizes it was called with, where
    TensorFlow's symbolic trace would accept any size that its ops accept.

    Args:
        specs_tree: the input signature (a nest of `TensorSpec`s).
        calls: the positional input signatures (nests like ``specs_tree`` of `TensorSpec`s
            with known shapes) of the function's traced calls.
    """
    specs = nest.flatten(specs_tree)
    flat_calls = [nest.flatten(c) for c in calls]
    if not flat_calls or any(len(c) != len(specs) for c in flat_calls):
        return None
    out, pinned = [], False
    for i, s in enumerate(specs):
        if not isinstance(s, TensorSpec) or s.shape.rank is None:
            out.append(s)
            continue
        dims = s.shape.as_list()
        for axis in range(1, len(dims)):
            seen = {
                tuple(c[i].shape.as_list())[axis] if c[i].shape.rank == len(dims) else None
                for c in flat_calls
            }
            if dims[axis] is None and len(seen) == 1 and None not in seen:
                dims[axis] = seen.pop()
                pinned = True
        out.append(TensorSpec(dims, s.dtype, s.name))
    return nest.pack_sequence_as(specs_tree, out) if pinned else None


# -- fitting -----------------------------------------------------------------------------------


def _is_int(x) -> bool:
    return type(x) is int


def _fit(values: list, plan: list, where: str) -> dict:
    """The integer expression of ``values`` (one per trace of ``plan[:n + 1]``)."""
    base, v0 = plan[0], values[0]
    changed = [i for i in range(len(base)) if values[i + 1] != v0]
    if len(changed) >= 2:  # several sizes at once: a product (reshape to batch * time)
        k = Fraction(v0)
        for i in changed:
            k /= base[i]
        for i in changed:
            expected = k * plan[i + 1][i]
            for j in changed:
                if j != i:
                    expected *= base[j]
            if expected != values[i + 1]:
                raise NotPolymorphic(f"{where}: {values} is no product of the sizes")
        return {"$dim": {"k": [k.numerator, k.denominator], "prod": changed}}
    a = {i: Fraction(values[i + 1] - v0, plan[i + 1][i] - base[i]) for i in changed}
    c = Fraction(v0) - sum(a[i] * base[i] for i in changed)
    return {
        "$dim": {
            "c": [c.numerator, c.denominator],
            "a": [[i, a[i].numerator, a[i].denominator] for i in changed],
        }
    }


def _eval(expr: dict, sizes: tuple) -> Fraction:
    if "prod" in expr:
        value = Fraction(*expr["k"])
        for i in expr["prod"]:
            value *= sizes[i]
        return value
    return Fraction(*expr["c"]) + sum(Fraction(n, d) * sizes[i] for i, n, d in expr["a"])


def _uniform(a: np.ndarray):
    """The one value of every element of ``a`` (a NumPy scalar), or None."""
    if a.size == 0:
        return None
    flat = a.reshape(-1)
    first = flat[0]
    if a.dtype.kind in "fc" and np.isnan(first):
        return None
    return first if bool(np.all(flat == first)) else None


def _unify(forms: list, plan: list, main_writer, where: str):
    """The template of the saved forms ``[(form, arrays), ...]`` of the traces of ``plan``."""
    nodes = [f for f, _ in forms]
    first = nodes[0]
    if isinstance(first, dict) and "array" in first:
        if not all(isinstance(x, dict) and "array" in x for x in nodes):
            raise NotPolymorphic(f"{where}: an array in one trace only")
        arrays = [arrs[x["array"]] for x, (_, arrs) in zip(nodes, forms)]
        rest = _unify(
            [({k: v for k, v in x.items() if k != "array"}, a) for x, (_, a) in zip(nodes, forms)],
            plan,
            main_writer,
            where,
        )
        a0 = arrays[0]
        if all(a.shape == a0.shape and a.dtype == a0.dtype for a in arrays) and all(
            np.array_equal(a, a0, equal_nan=a0.dtype.kind in "fc") for a in arrays
        ):
            return {**rest, **main_writer.array("const", a0)}
        values = [_uniform(a) for a in arrays]
        if (
            all(a.ndim == a0.ndim and a.dtype == a0.dtype for a in arrays)
            and values[0] is not None
            and all(v is not None and v == values[0] for v in values)
        ):
            shape = _unify([(list(a.shape), {}) for a in arrays], plan, main_writer, where)
            value = values[0].item()
            if isinstance(value, complex):
                value = [value.real, value.imag]
            return {**rest, "$fill": {"value": value, "dtype": a0.dtype.str, "shape": shape}}
        raise NotPolymorphic(f"{where}: a constant's values change with the sizes")
    if isinstance(first, dict):
        if not all(isinstance(x, dict) and x.keys() == first.keys() for x in nodes):
            raise NotPolymorphic(f"{where}: the traces differ")
        return {
            k: _unify(
                [(x[k], a) for x, (_, a) in zip(nodes, forms)], plan, main_writer, f"{where}.{k}"
            )
            for k in first
        }
    if isinstance(first, list):
        if not all(isinstance(x, list) and len(x) == len(first) for x in nodes):
            raise NotPolymorphic(f"{where}: the traces run different ops")
        return [
            _unify(
                [(x[k], a) for x, (_, a) in zip(nodes, forms)], plan, main_writer, f"{where}[{k}]"
            )
            for k in range(len(first))
        ]
    if all(_is_int(x) for x in nodes):
        return first if all(x == first for x in nodes) else _fit(nodes, plan, where)
    if all(type(x) is type(first) and x == first for x in nodes):
        return first
    raise NotPolymorphic(f"{where}: {nodes[0]!r} becomes {nodes[1:]!r} as the sizes change")


# -- making a concrete form --------------------------------------------------------------------


def instantiate(template, sizes: tuple, arrays: dict, where: str = "program"):
    """The saved form of ``template`` at ``sizes`` (one int per symbol); the arrays of its
    ``$fill`` constants are added to ``arrays`` under keys of their own.

    Raises:
        ValueError: an expression that is no whole number (or a negative dimension) at these
            sizes.
    """
    if isinstance(template, list):
        return [instantiate(x, sizes, arrays, where) for x in template]
    if not isinstance(template, dict):
        return template
    if "$dim" in template:
        value = _eval(template["$dim"], sizes)
        if value.denominator != 1:
            raise ValueError(f"{where}: a size of {value} at sizes {sizes}")
        return int(value)
    if "$fill" in template:
        fill = template["$fill"]
        shape = instantiate(fill["shape"], sizes, arrays, where)
        if any(d < 0 for d in shape):
            raise ValueError(f"{where}: a negative dimension in {shape} at sizes {sizes}")
        value = fill["value"]
        dtype = np.dtype(fill["dtype"])
        if isinstance(value, list):
            value = complex(*value)
        key = f"$fill{len(arrays)}"
        arrays[key] = np.full(shape, value, dtype=dtype)
        rest = {k: instantiate(v, sizes, arrays, where) for k, v in template.items()}
        del rest["$fill"]
        return {**rest, "array": key}
    return {k: instantiate(v, sizes, arrays, where) for k, v in template.items()}


def _verify(template, form, arrays: dict, sizes: tuple, stored: dict) -> None:
    """Checks that ``template`` (its arrays in ``stored``) at ``sizes`` is ``form`` (its
    arrays in ``arrays``), arrays compared by value."""
    made: dict = {}
    try:
        concrete = instantiate(template, sizes, made)
    except ValueError as exc:
        raise NotPolymorphic(f"the template does not hold at sizes {sizes}: {exc}") from None

    def same(x, y) -> bool:
        if isinstance(x, dict) and "array" in x:
            if not (isinstance(y, dict) and "array" in y):
                return False
            a = made.get(x["array"])
            if a is None:
                a = stored.get(x["array"])
            b = arrays[y["array"]]
            rest_x = {k: v for k, v in x.items() if k != "array"}
            rest_y = {k: v for k, v in y.items() if k != "array"}
            return (
                a is not None
                and a.shape == b.shape
                and a.dtype == b.dtype
                and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
                and same(rest_x, rest_y)
            )
        if isinstance(x, dict):
            return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
        if isinstance(x, list):
            return isinstance(y, list) and len(x) == len(y) and all(map(same, x, y))
        return type(x) is type(y) and x == y

    if not same(concrete, form):
        raise NotPolymorphic(f"the template does not give the program traced at sizes {sizes}")
