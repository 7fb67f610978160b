"""XLA's slicing primitives under ``tensorflow.compiler.tf2xla.python.xla``'s names, as plain
eager ops (keras-io's forward-forward example imports ``xla.dynamic_update_slice``).

Start indices follow XLA's DynamicSlice/DynamicUpdateSlice: each is clamped to
``[0, operand_dim - slice_dim]`` so the slice always lies inside the operand, never raising.
"""

from __future__ import annotations

from ....runtime.core.tensor import Tensor, to_tensor

__all__ = ["dynamic_slice", "dynamic_update_slice"]


def _starts(start_indices, operand_shape, slice_shape, op: str) -> list:
    import eagerkernel as ek

    rank = len(operand_shape)
    if isinstance(start_indices, Tensor):
        starts = ek.unstack(ek.reshape(start_indices, [-1])) if rank else []
    else:
        starts = list(start_indices)
    if len(starts) != rank or len(slice_shape) != rank:
        raise ValueError(
            f"{op}: need one start index per dimension of the operand (rank {rank}) and a "
            f"slice of the same rank. Received: {len(starts)} start indices, operand shape "
            f"{list(operand_shape)}, slice shape {list(slice_shape)}"
        )
    out = []
    for s, dim, size in zip(starts, operand_shape, slice_shape):
        if size > dim:
            raise ValueError(
                f"{op}: the slice is larger than the operand. Received: operand shape "
                f"{list(operand_shape)}, slice shape {list(slice_shape)}"
            )
        out.append(ek.clip_by_value(ek.cast(s, "int32"), 0, dim - size))
    return out


def dynamic_update_slice(operand, update, indices, name=None) -> Tensor:
    """``operand`` with the block starting at ``indices`` replaced by ``update`` (XLA's
    DynamicUpdateSlice; follows ``tensorflow.compiler.tf2xla.python.xla.dynamic_update_slice``).

    Args:
        operand: a tensor of rank R.
        update: a tensor of rank R and the operand's dtype, no dimension larger than the
            operand's.
        indices: R scalar start indices (a list of ints/scalar tensors or a 1-D int tensor);
            each is clamped to ``[0, operand_dim - update_dim]``.

    Returns:
        A tensor of the operand's shape and dtype. Differentiable in ``operand`` and
        ``update`` (built on `tensor_scatter_nd_update`).

    Raises:
        ValueError: ranks differ, or ``update`` is larger than ``operand``.
        InvalidArgumentError: dtypes differ.

    >>> dynamic_update_slice(ek.zeros([5]), ek.ones([2]), [4]).numpy()
    array([0., 0., 0., 1., 1.], dtype=float32)
    """
    import eagerkernel as ek

    operand, update = to_tensor(operand), to_tensor(update)
    starts = _starts(indices, operand.shape, update.shape, "dynamic_update_slice")
    if not starts:
        return ek.identity(update)
    grids = ek.meshgrid(*[ek.range(n) + s for n, s in zip(update.shape, starts)], indexing="ij")
    return ek.tensor_scatter_nd_update(operand, ek.stack(grids, axis=-1), update)


def dynamic_slice(operand, start_indices, size_indices, name=None) -> Tensor:
    """The block of shape ``size_indices`` starting at ``start_indices`` (XLA's DynamicSlice;
    follows ``tensorflow.compiler.tf2xla.python.xla.dynamic_slice``). Each start is clamped to
    ``[0, operand_dim - size]``.

    Raises:
        ValueError: ranks differ, or a size is larger than the operand's dimension.

    >>> dynamic_slice(ek.range(5), [4], [2]).numpy()
    array([3, 4], dtype=int32)
    """
    import eagerkernel as ek

    operand = to_tensor(operand)
    sizes = [int(s) for s in size_indices]
    starts = _starts(start_indices, operand.shape, sizes, "dynamic_slice")
    if not starts:
        return ek.identity(operand)
    return ek.slice(operand, ek.stack(starts), sizes)
