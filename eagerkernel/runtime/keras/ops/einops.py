"""`rearrange`: einops-style axis reordering, merging and splitting (follows
``keras.ops.rearrange``)."""

from __future__ import annotations

import re

from ...ops import array_ops
from ._base import keras_op, to_tensor

__all__ = ["rearrange"]

_TERM = re.compile(r"\(([^()]*)\)|([A-Za-z_]\w*)|(\S)")


def _parse(side: str, pattern: str) -> list[list[str]]:
    """One side of ``pattern`` as its axes, each a list of names (a group ``(h w)`` has
    several).

    Raises:
        ValueError: an ellipsis, a nested or unclosed group, a number, a repeated name.
    """
    groups: list[list[str]] = []
    for group, name, other in _TERM.findall(side):
        if other:
            raise ValueError(
                f"rearrange: unsupported {other!r} in pattern {pattern!r} (named axes and "
                "groups `(a b)` only; no ellipsis or numbers)."
            )
        names = group.split() if not name else [name]
        if any(not re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
            raise ValueError(f"rearrange: invalid axis names {names} in pattern {pattern!r}.")
        groups.append(names)
    flat = [n for g in groups for n in g]
    if len(set(flat)) != len(flat):
        raise ValueError(f"rearrange: an axis is named twice in {side.strip()!r} ({pattern!r}).")
    return groups


@keras_op
def rearrange(tensor, pattern: str, **axes_lengths):
    """``tensor``'s axes reordered, merged and split as ``pattern`` says, in einops notation:
    ``"b h w c -> b c h w"`` transposes, ``"b h w c -> b (h w) c"`` merges, and
    ``"b (h1 h) w c -> (b h1) h w c"`` splits ``h1 * h``, the sizes of the parts coming from
    ``axes_lengths`` (``h1=2``; one part per group may be left to infer).

    Args:
        tensor: a tensor (or array) whose rank is the number of axes left of ``->``.
        pattern: ``"<input axes> -> <output axes>"``, the same names on both sides.
        **axes_lengths: sizes of the axes of split groups.

    Returns:
        A tensor of ``tensor``'s dtype: a reshape, a transpose and a reshape of it.

    Raises:
        ValueError: a malformed pattern, names that differ between the sides, a rank other
            than the pattern's, or sizes that do not divide.

    >>> x = np.arange(24).reshape(2, 3, 4)
    >>> rearrange(x, "b h w -> b w h").shape
    TensorShape([2, 4, 3])
    >>> rearrange(x, "b (h1 h) w -> (b h1) h w", h1=3).shape
    TensorShape([6, 1, 4])
    >>> rearrange(x, "b h w -> b (h w)").numpy()[1, :5]
    array([12, 13, 14, 15, 16])
    """
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"rearrange: pattern must be 'inputs -> outputs'. Received: {pattern!r}")
    left, right = pattern.split("->")
    inputs, outputs = _parse(left, pattern), _parse(right, pattern)
    in_names = [n for g in inputs for n in g]
    out_names = [n for g in outputs for n in g]
    if sorted(in_names) != sorted(out_names):
        raise ValueError(
            f"rearrange: both sides of {pattern!r} must name the same axes. Received: "
            f"{sorted(in_names)} and {sorted(out_names)}."
        )
    x = to_tensor(tensor)
    shape = tuple(x.shape)
    if len(shape) != len(inputs):
        raise ValueError(
            f"rearrange: pattern {pattern!r} has {len(inputs)} input axes, but the tensor has "
            f"shape {shape}."
        )
    sizes: dict = {}
    for group, dim in zip(inputs, shape):
        known = [n for n in group if n in axes_lengths]
        unknown = [n for n in group if n not in axes_lengths]
        product = 1
        for n in known:
            product *= int(axes_lengths[n])
            sizes[n] = int(axes_lengths[n])
        if len(unknown) > 1:
            raise ValueError(
                f"rearrange: give the lengths of all but one of {group} in {pattern!r}."
            )
        if unknown:
            if product == 0 or dim % product:
                raise ValueError(
                    f"rearrange: axis of size {dim} does not split into {group} with "
                    f"{dict((n, sizes[n]) for n in known)}."
                )
            sizes[unknown[0]] = dim // product
        elif product != dim:
            raise ValueError(
                f"rearrange: axis {group} has size {dim}, but the lengths given multiply to "
                f"{product}."
            )
    split = [sizes[n] for n in in_names]
    if tuple(split) != shape:
        x = array_ops.reshape(x, split)
    order = [in_names.index(n) for n in out_names]
    if order != list(range(len(order))):
        x = array_ops.transpose(x, order)
    merged = []
    for group in outputs:
        size = 1
        for n in group:
            size *= sizes[n]
        merged.append(size)
    return x if tuple(merged) == tuple(x.shape) else array_ops.reshape(x, merged)
