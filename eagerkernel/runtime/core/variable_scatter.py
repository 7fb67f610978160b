"""Sparse updates of a `Variable`: ``scatter_update``, ``scatter_add``, ... (follows
`tf.Variable.scatter_update` and its siblings), and TensorFlow 1.x's function forms
(``tf.compat.v1.scatter_update(ref, indices, updates)``).

`ScatterMethods` is a mixin of `Variable`. Every update takes the Variable's write path:
the new value is computed in a copy of the array, then handed to `Variable.assign`, so

* a failing update (an index out of range, updates of the wrong shape or dtype) raises before
  anything is written: the variable keeps its value;
* a tape that recorded an earlier read keeps the value it read, and a mirrored variable's
  replicas all receive the update (their ``assign`` does that);
* under `ek.function` the update is one stateful step, performed again by every replay.

Gradients do not flow through these updates (as in TensorFlow): the new value is a constant
to later reads.

>>> v = ek.Variable([1.0, 2.0, 3.0])
>>> v.scatter_add(ek.IndexedSlices(ek.constant([10.0, 20.0]), [2, 2])).numpy()
array([ 1.,  2., 33.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .device import CPU
from .dispatch import copy_to_device, stateful
from .errors import InvalidArgumentError, UnsupportedDTypeError
from .indexed_slices import IndexedSlices
from .numpy_methods import STATE as _NUMPY_STATE
from .tensor import Tensor, make, to_tensor

__all__ = [
    "ScatterMethods",
    "batch_scatter_update",
    "count_up_to",
    "scatter_add",
    "scatter_div",
    "scatter_max",
    "scatter_min",
    "scatter_mul",
    "scatter_nd_add",
    "scatter_nd_sub",
    "scatter_nd_update",
    "scatter_sub",
    "scatter_update",
]

# method -> (TensorFlow's kernel name, the NumPy ufunc that combines; None: last write wins)
_KINDS = {
    "update": ("ResourceScatterUpdate", None),
    "add": ("ResourceScatterAdd", np.add),
    "sub": ("ResourceScatterSub", np.subtract),
    "mul": ("ResourceScatterMul", np.multiply),
    "div": ("ResourceScatterDiv", np.divide),
    "max": ("ResourceScatterMax", np.maximum),
    "min": ("ResourceScatterMin", np.minimum),
    "nd_update": ("ResourceScatterNdUpdate", None),
    "nd_add": ("ResourceScatterNdAdd", np.add),
    "nd_sub": ("ResourceScatterNdSub", np.subtract),
    "nd_max": ("ResourceScatterNdMax", np.maximum),
    "nd_min": ("ResourceScatterNdMin", np.minimum),
}


def _host(t: Tensor) -> np.ndarray:
    return t._value if t._device.xp is np else np.asarray(t.numpy())


def _indices(indices, op: str) -> np.ndarray:
    if isinstance(indices, Tensor):
        idx = _host(indices)
    else:
        idx = np.asarray(indices)
        if idx.size == 0 and idx.dtype.kind == "f":  # `[]`
            idx = idx.astype(np.int64)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{op}: indices must be int32 or int64, got dtype {idx.dtype}.")
    return idx.astype(np.int64, copy=False)


def _updates(var, updates, op: str) -> np.ndarray:
    if _NUMPY_STATE.promotion is not None:  # the new type promotion: as `assign` converts
        from .type_promotion import variable_value

        updates = variable_value(var, updates, op)
    t = to_tensor(updates, var._value.dtype, op)
    if t._value.dtype != var._value.dtype:
        raise ValueError(
            f"{op}: {var.name} has dtype {var.dtype.name}, the updates have dtype {t.dtype.name}."
        )
    return _host(t)


def _position(idx: np.ndarray, flat: int) -> str:
    """``"1"`` or ``"1,0"``: where the ``flat``-th index sits in ``idx`` (TF's message)."""
    return ",".join(str(int(p)) for p in np.unravel_index(flat, idx.shape))


def _rows(var, idx: np.ndarray, nd: bool, tf_op: str, op: str) -> tuple[np.ndarray, tuple, int]:
    """The flat row ids the indices address, the shape of one row, and the number of rows.

    Without ``nd`` the rows are ``var[i]``; with it, ``indices[..., :k]`` address
    ``var[i0, ..., ik-1]``, a row of the variable reshaped to ``(prod(shape[:k]),
    *shape[k:])``. Raises InvalidArgumentError, naming the op and the index, for one out of
    range."""
    shape = tuple(var._value.shape)
    if not nd:
        if not shape:
            raise InvalidArgumentError(
                None, tf_op, f"{op}: {var.name} is a scalar; scatter needs rank >= 1."
            )
        flat = idx.reshape(-1)
        bad = np.nonzero((flat < 0) | (flat >= shape[0]))[0]
        if bad.size:
            i = int(bad[0])
            raise InvalidArgumentError(
                None,
                tf_op,
                f"{op}: indices[{_position(idx, i)}] = {int(flat[i])} is not in "
                f"[0, {shape[0]}) (the first dimension of {var.name}, shape {list(shape)}).",
            )
        return flat, shape[1:], shape[0]
    if not shape:
        raise InvalidArgumentError(
            None, tf_op, f"{op}: {var.name} is a scalar; the output must be at least 1-D."
        )
    if idx.ndim < 1 or idx.shape[-1] > len(shape):
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: indices must have shape [..., k] with k <= rank of {var.name} "
            f"({len(shape)}), got indices shape {list(idx.shape)}.",
        )
    k = idx.shape[-1]
    lead = idx.reshape(int(np.prod(idx.shape[:-1], dtype=np.int64)), k)
    if len(lead) and (k == 0 or var._value.size == 0):  # TF's ScatterNd kernels refuse these
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: indices and updates specified for empty output (indices shape "
            f"{list(idx.shape)}, {var.name} shape {list(shape)}).",
        )
    bad = np.nonzero(np.any((lead < 0) | (lead >= np.asarray(shape[:k], np.int64)), axis=1))[0]
    if bad.size:
        i = int(bad[0])
        where = _position(idx[..., 0], i) if idx.ndim > 1 else str(i)
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: indices[{where}] = [{', '.join(map(str, lead[i]))}] does not index into "
            f"param shape {list(shape)} of {var.name}.",
        )
    n = int(np.prod(shape[:k], dtype=np.int64))
    flat = np.ravel_multi_index(lead.T, shape[:k]) if k else np.zeros(len(lead), np.int64)
    return flat.astype(np.int64), shape[k:], n


def _trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero (TensorFlow's integer ``Div``)."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q).astype(a.dtype)


def _scatter(var, idx, updates, kind: str, method: str):
    """The sparse update ``kind`` of ``var``; returns ``var``."""
    tf_op, ufunc = _KINDS[kind]
    op = f"Variable.{method}"
    idx = _indices(idx, op)
    nd = kind.startswith("nd_")
    upd = _updates(var, updates, op)
    dt = var._value.dtype
    if ufunc is not None and dt.kind not in "iufc":
        raise TypeError(f"{op}: {var.name} has dtype {var.dtype.name}, not a numeric dtype.")
    if ufunc in (np.maximum, np.minimum) and dt.kind == "c":  # no TF kernel: not ordered
        raise UnsupportedDTypeError(
            f"{op}: {var.name} has dtype {var.dtype.name}; complex numbers are not ordered."
        )
    if ufunc is np.divide and np.any(upd == 0):  # TF's ScatterDiv checks every dtype
        raise InvalidArgumentError(
            None, tf_op, f"{op}: updates must not contain 0 (division by zero)."
        )
    flat, row, n = _rows(var, idx, nd, tf_op, op)
    lead = idx.shape[:-1] if nd else idx.shape
    expected = tuple(lead) + tuple(row)
    if upd.shape != expected and not (upd.ndim == 0 and not nd):
        raise InvalidArgumentError(
            None,
            tf_op,
            f"{op}: updates must have shape indices.shape{'[:-1]' if nd else ''} + "
            f"{var.name}.shape[{idx.shape[-1] if nd else 1}:] = {list(expected)}"
            f"{'' if nd else ' or be a scalar'}, got updates shape {list(upd.shape)} for "
            f"indices shape {list(idx.shape)} and variable shape {list(var._value.shape)}.",
        )
    upd = np.broadcast_to(upd, expected).reshape((len(flat), *row))
    new = (var._value if var._device.xp is np else np.asarray(var.numpy())).copy()
    view = new.reshape((n, *row))
    if ufunc is None:  # repeated indices: the last update wins
        _, last = np.unique(flat[::-1], return_index=True)
        keep = len(flat) - 1 - last
        view[flat[keep]] = upd[keep]
    elif ufunc is np.divide and dt.kind in "iu":
        _divide_in_rounds(view, flat, upd)
    else:
        ufunc.at(view, flat, upd)
    value = (
        make(new, var._device)
        if var._device.xp is np
        else copy_to_device(make(new, CPU), var._device)
    )
    var.assign(value, read_value=False)
    return var


def _divide_in_rounds(view: np.ndarray, flat: np.ndarray, upd: np.ndarray) -> None:
    """Integer ``view[flat[i]] /= upd[i]`` in the order given, repeated rows included: round
    r divides by every row's r-th update at once (rows in a round are distinct)."""
    order = np.argsort(flat, kind="stable")
    sorted_rows = flat[order]
    starts = np.r_[0, np.nonzero(np.diff(sorted_rows))[0] + 1]
    rank = np.arange(len(flat)) - np.repeat(starts, np.diff(np.r_[starts, len(flat)]))
    occurrence = np.empty(len(flat), np.int64)
    occurrence[order] = rank
    for r in range(int(occurrence.max(initial=-1)) + 1):
        sel = np.nonzero(occurrence == r)[0]
        view[flat[sel]] = _trunc_divide(view[flat[sel]], upd[sel])


def _delta(sparse_delta, op: str) -> IndexedSlices:
    if not isinstance(sparse_delta, IndexedSlices):
        raise TypeError(
            f"{op}: sparse_delta must be an ek.IndexedSlices, got "
            f"{type(sparse_delta).__name__}: {sparse_delta!r:.80}"
        )
    return sparse_delta


class ScatterMethods:
    """`Variable`'s sparse updates (follows `tf.Variable.scatter_update` and its siblings).

    ``scatter_*`` take ``sparse_delta``, an `IndexedSlices` whose ``values`` (shape
    ``indices.shape + variable.shape[1:]``, or a scalar) go to rows ``indices`` of the
    variable; ``dense_shape`` is not used. ``scatter_nd_*`` take ``indices`` of shape
    ``[..., k]`` (each a position in the first k dimensions) and ``updates`` of shape
    ``indices.shape[:-1] + variable.shape[k:]``. Repeated indices combine: ``scatter_add``
    and the other arithmetic updates apply each in turn (``np.add.at``); with
    ``scatter_update`` / ``scatter_nd_update`` the last one wins. Integer ``scatter_div``
    rounds toward zero. ``use_locking`` and ``name`` are accepted for TensorFlow's signature
    (updates of one Variable are atomic here: the new value replaces the old one at once).

    Returns:
        The variable, updated.

    Raises:
        InvalidArgumentError: an index out of range (the op and the index are named), updates
            of the wrong shape, a 0 in ``scatter_div``'s updates (any dtype, as TF), an nd
            update of a scalar or empty variable. The variable is unchanged.
        ValueError: updates of another dtype (as `Variable.assign`).
        TypeError: ``sparse_delta`` not an IndexedSlices, non-integer indices, arithmetic on
            a non-numeric variable.
    """

    __slots__ = ()

    @stateful
    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Writes ``sparse_delta.values`` into rows ``sparse_delta.indices`` (follows
        `tf.Variable.scatter_update`; the last of repeated indices wins).

        >>> v = ek.Variable([[1, 2], [3, 4], [5, 6]])
        >>> v.scatter_update(ek.IndexedSlices(ek.constant([[0, 0]]), [1])).numpy()
        array([[1, 2],
               [0, 0],
               [5, 6]], dtype=int32)
        """
        d = _delta(sparse_delta, "Variable.scatter_update")
        return _scatter(self, d.indices, d.values, "update", "scatter_update")

    @stateful
    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Adds ``sparse_delta.values`` to rows ``sparse_delta.indices`` (follows
        `tf.Variable.scatter_add`; repeated indices add up)."""
        d = _delta(sparse_delta, "Variable.scatter_add")
        return _scatter(self, d.indices, d.values, "add", "scatter_add")

    @stateful
    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtracts ``sparse_delta.values`` from rows ``sparse_delta.indices`` (follows
        `tf.Variable.scatter_sub`)."""
        d = _delta(sparse_delta, "Variable.scatter_sub")
        return _scatter(self, d.indices, d.values, "sub", "scatter_sub")

    @stateful
    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiplies rows ``sparse_delta.indices`` by ``sparse_delta.values`` (follows
        `tf.Variable.scatter_mul`)."""
        d = _delta(sparse_delta, "Variable.scatter_mul")
        return _scatter(self, d.indices, d.values, "mul", "scatter_mul")

    @stateful
    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divides rows ``sparse_delta.indices`` by ``sparse_delta.values`` (follows
        `tf.Variable.scatter_div`; integers round toward zero)."""
        d = _delta(sparse_delta, "Variable.scatter_div")
        return _scatter(self, d.indices, d.values, "div", "scatter_div")

    @stateful
    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Rows ``sparse_delta.indices`` become the maximum of themselves and
        ``sparse_delta.values`` (follows `tf.Variable.scatter_max`)."""
        d = _delta(sparse_delta, "Variable.scatter_max")
        return _scatter(self, d.indices, d.values, "max", "scatter_max")

    @stateful
    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Rows ``sparse_delta.indices`` become the minimum of themselves and
        ``sparse_delta.values`` (follows `tf.Variable.scatter_min`)."""
        d = _delta(sparse_delta, "Variable.scatter_min")
        return _scatter(self, d.indices, d.values, "min", "scatter_min")

    @stateful
    def batch_scatter_update(self, sparse_delta, use_locking=False, name=None):
        """For each batch position ``b`` (the leading ``indices.ndim - 1`` dimensions, shared
        with the variable), writes ``values[b, j]`` into ``variable[b, indices[b, j]]``
        (follows `tf.Variable.batch_scatter_update`; 1-D indices: `scatter_update`).

        >>> v = ek.Variable([[1, 2, 3], [4, 5, 6]])
        >>> d = ek.IndexedSlices(ek.constant([[10], [20]]), ek.constant([[2], [0]]))
        >>> v.batch_scatter_update(d).numpy()
        array([[ 1,  2, 10],
               [20,  5,  6]], dtype=int32)
        """
        op = "Variable.batch_scatter_update"
        d = _delta(sparse_delta, op)
        idx = _indices(d.indices, op)
        b = idx.ndim - 1
        shape = tuple(self._value.shape)
        if b < 0 or len(shape) <= b or shape[:b] != idx.shape[:b]:
            raise InvalidArgumentError(
                None,
                "ResourceScatterNdUpdate",
                f"{op}: the batch dimensions of indices (shape {list(idx.shape)}) must be the "
                f"leading dimensions of {self.name} (shape {list(shape)}).",
            )
        if b == 0:
            return _scatter(self, idx, d.values, "update", "batch_scatter_update")
        grid = np.indices(idx.shape, dtype=np.int64)[:b]
        nd = np.stack([*grid, idx], axis=-1)
        return _scatter(self, nd, d.values, "nd_update", "batch_scatter_update")

    @stateful
    def scatter_nd_update(self, indices, updates, name=None):
        """Writes ``updates`` at the positions ``indices[..., :]`` (follows
        `tf.Variable.scatter_nd_update`; the last of repeated indices wins).

        >>> v = ek.Variable([1, 2, 3, 4])
        >>> v.scatter_nd_update([[3], [1]], [9, 10]).numpy()
        array([ 1, 10,  3,  9], dtype=int32)
        """
        return _scatter(self, indices, updates, "nd_update", "scatter_nd_update")

    @stateful
    def scatter_nd_add(self, indices, updates, name=None):
        """Adds ``updates`` at the positions ``indices[..., :]`` (follows
        `tf.Variable.scatter_nd_add`; repeated indices add up)."""
        return _scatter(self, indices, updates, "nd_add", "scatter_nd_add")

    @stateful
    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtracts ``updates`` at the positions ``indices[..., :]`` (follows
        `tf.Variable.scatter_nd_sub`)."""
        return _scatter(self, indices, updates, "nd_sub", "scatter_nd_sub")

    @stateful
    def scatter_nd_max(self, indices, updates, name=None):
        """The maximum of the entries and ``updates`` at ``indices[..., :]`` (follows
        `tf.Variable.scatter_nd_max`)."""
        return _scatter(self, indices, updates, "nd_max", "scatter_nd_max")

    @stateful
    def scatter_nd_min(self, indices, updates, name=None):
        """The minimum of the entries and ``updates`` at ``indices[..., :]`` (follows
        `tf.Variable.scatter_nd_min`)."""
        return _scatter(self, indices, updates, "nd_min", "scatter_nd_min")

    def sparse_read(self, indices, name=None) -> Tensor:
        """Rows ``indices`` of the value (follows `tf.Variable.sparse_read`: a `gather` of the
        read, recorded on tapes)."""
        from ..ops.indexing import gather

        return gather(self, indices)

    def gather_nd(self, indices, name=None) -> Tensor:
        """``ek.gather_nd`` of the value (follows `tf.Variable.gather_nd`)."""
        from ..ops.indexing import gather_nd

        return gather_nd(self, indices)

    @stateful
    def count_up_to(self, limit: int) -> Tensor:
        """Adds 1 and returns the value from before (follows the deprecated
        `tf.Variable.count_up_to`, kernel ResourceCountUpTo).

        Raises:
            UnsupportedDTypeError: the variable is not an int32 or int64.
            OutOfRangeError: the value has already reached ``limit`` (it is left unchanged).
        """
        from .errors import OutOfRangeError

        if self._value.dtype not in (np.int32, np.int64):
            raise UnsupportedDTypeError(
                f"count_up_to: {self.name} has dtype {self.dtype.name}; it needs int32 or int64."
            )
        before = self.read_value()  # a snapshot: assignments replace the array
        if np.any(_host(before) >= limit):
            raise OutOfRangeError(f"count_up_to: {self.name} reached limit of {limit}.")
        self.assign_add(np.ones_like(_host(before)))
        return before


# -- TensorFlow 1.x's functions (`tf.compat.v1.scatter_update(ref, indices, updates)`) ------------


def _ref(ref, op: str):
    if not isinstance(ref, ScatterMethods):
        raise TypeError(f"{op}: ref must be a Variable, got {type(ref).__name__}.")
    return ref


def _slices(ref, indices, updates, op: str) -> IndexedSlices:
    """``IndexedSlices(updates, indices)``; a scalar ``updates`` goes to every index and a
    scalar index is a list of one, as TF 1.x's scatter functions allow."""
    from ..ops.array_ops import broadcast_to, expand_dims, reshape

    u = to_tensor(updates, ref._value.dtype, op)
    idx = indices if isinstance(indices, Tensor) else to_tensor(_indices(indices, op))
    if idx._value.ndim == 0:  # one index: a batch of one
        idx = reshape(idx, [1])
        u = expand_dims(u, 0)
    elif u._value.ndim == 0:
        u = broadcast_to(u, tuple(idx._value.shape) + tuple(ref._value.shape[1:]))
    return IndexedSlices(u, idx)


def _v1(method: str):
    def fn(ref, indices, updates, use_locking=True, name=None):
        op = f"scatter_{method}"
        return getattr(_ref(ref, op), op)(_slices(ref, indices, updates, op))

    fn.__name__ = fn.__qualname__ = f"scatter_{method}"
    fn.__doc__ = (
        f"``ref.scatter_{method}(ek.IndexedSlices(updates, indices))`` (follows "
        f"`tf.compat.v1.scatter_{method}`); returns ``ref``. See `Variable.scatter_{method}`."
    )
    return fn


def _v1_nd(method: str):
    def fn(ref, indices, updates, use_locking=True, name=None):
        op = f"scatter_nd_{method}"
        return getattr(_ref(ref, op), op)(indices, updates)

    fn.__name__ = fn.__qualname__ = f"scatter_nd_{method}"
    fn.__doc__ = (
        f"``ref.scatter_nd_{method}(indices, updates)`` (follows "
        f"`tf.compat.v1.scatter_nd_{method}`); returns ``ref``."
    )
    return fn


scatter_update = _v1("update")
scatter_add = _v1("add")
scatter_sub = _v1("sub")
scatter_mul = _v1("mul")
scatter_div = _v1("div")
scatter_max = _v1("max")
scatter_min = _v1("min")
scatter_nd_update = _v1_nd("update")
scatter_nd_add = _v1_nd("add")
scatter_nd_sub = _v1_nd("sub")


def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref.batch_scatter_update(ek.IndexedSlices(updates, indices))`` (follows
    `tf.compat.v1.batch_scatter_update`); returns ``ref``."""
    op = "batch_scatter_update"
    return _ref(ref, op).batch_scatter_update(_slices(ref, indices, updates, op))


def count_up_to(ref, limit: int, name=None) -> Tensor:
    """``ref.count_up_to(limit)`` (follows `tf.compat.v1.count_up_to`)."""
    return _ref(ref, "count_up_to").count_up_to(limit)
