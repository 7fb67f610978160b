"""Fake quantization (`ek.quantization.fake_quant_*`, following TensorFlow's
`tf.quantization.fake_quant_with_min_max_args` / `_vars` / `_vars_per_channel`).

The forward is TensorFlow's FakeQuant kernels in float32: the range ``[min, max]`` is first
"nudged" so that 0.0 is exactly representable, then inputs are clamped to the nudged range and
rounded to one of ``2**num_bits`` (``2**num_bits - 1`` with ``narrow_range``) levels. The VJPs
are TensorFlow's straight-through estimator: the cotangent passes to the inputs inside the
nudged range; ``min`` gets the sum of the cotangents below it and ``max`` those above it.
"""

from __future__ import annotations

import numpy as np

from ..core.dispatch import Primitive, defjointvjp, defvjp
from ..core.errors import InvalidArgumentError
from ._core import apply, tensor

__all__ = [
    "fake_quant_with_min_max_args",
    "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars",
    "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient",
]

_F32 = np.float32


def _nudge(xp, lo, hi, num_bits: int, narrow_range: bool):
    """TensorFlow's Nudge (fake_quant_ops_functor.h), elementwise on float32 ``lo``/``hi``:
    the nudged ``(min, max, scale)`` and the integer level of ``min`` (``qmin - zero_point``)."""
    qmin = _F32(1 if narrow_range else 0)
    qmax = _F32((1 << num_bits) - 1)
    scale = ((hi - lo) / (qmax - qmin)).astype(_F32)
    zp_from_min = (qmin - lo / scale).astype(_F32)
    # StdRound: halves away from zero
    zp = xp.clip(xp.sign(zp_from_min) * xp.floor(xp.abs(zp_from_min) + _F32(0.5)), qmin, qmax)
    nmin, nmax = ((qmin - zp) * scale).astype(_F32), ((qmax - zp) * scale).astype(_F32)
    return nmin, nmax, scale, (qmin - zp).astype(_F32)


def _quantize(xp, x, nmin, nmax, scale, min_level):
    clamped = xp.maximum(xp.minimum(x, nmax), nmin)  # TF's order (matters if min > max)
    inv = (_F32(1) / scale).astype(_F32)
    levels = xp.floor((clamped - nmin) * inv + _F32(0.5))
    # (level + min's level) * scale: exact levels, one rounding (TF's outputs, e.g. 0.0 at 0)
    return ((levels + min_level) * scale).astype(_F32)


def _check_bits(num_bits, op: str) -> int:
    if not 2 <= int(num_bits) <= 16:
        raise InvalidArgumentError(None, op, "num_bits must be between 2 and 16, inclusive")
    return int(num_bits)


def _float32(x, op: str, arg: str):
    t = tensor(x, op, "float32")
    if t.dtype.name != "float32":
        raise ValueError(
            f"{op}: {arg} must be float32. Tensor conversion requested dtype float32 for "
            f"Tensor with dtype {t.dtype.name}: {t!r:.80}"
        )
    return t


# -- min/max as attributes ----------------------------------------------------------------
def _args_fwd(xp, x, *, min, max, num_bits, narrow_range):
    return _quantize(xp, x, *_nudge(xp, _F32(min), _F32(max), num_bits, narrow_range))


def _args_grad_fwd(xp, g, x, *, min, max, num_bits, narrow_range):
    nmin, nmax, _, _ = _nudge(xp, _F32(min), _F32(max), num_bits, narrow_range)
    return g * ((x >= nmin) & (x <= nmax)).astype(_F32)


_args_grad = Primitive("FakeQuantWithMinMaxArgsGradient", _args_grad_fwd)
_fake_quant_args = Primitive("FakeQuantWithMinMaxArgs", _args_fwd)
defvjp(_fake_quant_args, lambda g, ans, x, **p: apply(_args_grad, (g, x), p))


def fake_quant_with_min_max_args(
    inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None
):
    """Fake-quantizes float32 ``inputs`` to ``num_bits`` levels in ``[min, max]`` (follows
    `tf.quantization.fake_quant_with_min_max_args`).

    The range is nudged so 0.0 is a level; inputs are clamped to the nudged range and
    rounded to the nearest level (quantized to ``[0, 2**num_bits - 1]``, or
    ``[1, 2**num_bits - 1]`` with ``narrow_range``, and dequantized back).

    Args:
        inputs: a float32 tensor of any shape.
        min, max: Python floats, ``min < max`` (defaults -6.0 and 6.0).
        num_bits: 2 to 16 (default 8). narrow_range: default False.

    Returns:
        A float32 tensor of ``inputs``' shape. Its gradient is the straight-through
        estimator: the cotangent where ``inputs`` lies in the nudged range, else 0.

    Raises:
        InvalidArgumentError: ``min >= max``, or ``num_bits`` outside [2, 16].
        ValueError: ``inputs`` of another dtype than float32.

    >>> fake_quant_with_min_max_args([-7.0, 0.5, 2.7]).numpy()
    array([-6.0235295,  0.5176471,  2.682353 ], dtype=float32)
    """
    op = "FakeQuantWithMinMaxArgs"
    x = _float32(inputs, op, "inputs")
    bits = _check_bits(num_bits, op)
    if not float(min) < float(max):
        raise InvalidArgumentError(
            None, op, f"min has to be smaller than max, was: {float(min):g} >= {float(max):g}"
        )
    params = {"min": float(min), "max": float(max), "num_bits": bits}
    return apply(_fake_quant_args, (x,), {**params, "narrow_range": bool(narrow_range)})


def fake_quant_with_min_max_args_gradient(
    gradients, inputs, min=-6.0, max=6.0, num_bits=8, narrow_range=False, name=None
):
    """The gradient of `fake_quant_with_min_max_args` (follows
    `tf.quantization.fake_quant_with_min_max_args_gradient`): ``gradients`` where ``inputs``
    lies in the nudged range, else 0 (float32, ``inputs``' shape)."""
    op = "FakeQuantWithMinMaxArgsGradient"
    g, x = _float32(gradients, op, "gradients"), _float32(inputs, op, "inputs")
    params = {"min": float(min), "max": float(max), "num_bits": _check_bits(num_bits, op)}
    return apply(_args_grad, (g, x), {**params, "narrow_range": bool(narrow_range)})


# -- min/max as tensors (per tensor, or per channel along the last axis) --------------------
def _vars_fwd(xp, x, lo, hi, *, num_bits, narrow_range):
    return _quantize(xp, x, *_nudge(xp, lo, hi, num_bits, narrow_range))


def _vars_grad_fwd(xp, g, x, lo, hi, *, num_bits, narrow_range):
    """The three cotangents (inputs, min, max): ``min``/``max`` get sums over every axis but
    their own (none for scalars, all but the last per channel)."""
    nmin, nmax, _, _ = _nudge(xp, lo, hi, num_bits, narrow_range)
    axes = tuple(range(x.ndim - lo.ndim))
    inside = (x >= nmin) & (x <= nmax)
    dx = (g * inside).astype(_F32)
    dmin = xp.sum(g * (x < nmin), axis=axes).astype(_F32)
    dmax = xp.sum(g * (x > nmax), axis=axes).astype(_F32)
    return dx, dmin, dmax


_vars_grad = Primitive("FakeQuantWithMinMaxVarsGradient", _vars_grad_fwd, n_out=0)
_fake_quant_vars = Primitive("FakeQuantWithMinMaxVars", _vars_fwd)
defjointvjp(_fake_quant_vars, lambda g, ans, x, lo, hi, **p: apply(_vars_grad, (g, x, lo, hi), p))


def _vars_args(op, inputs, min, max, num_bits, narrow_range, per_channel: bool):
    x = _float32(inputs, op, "inputs")
    lo, hi = _float32(min, op, "min"), _float32(max, op, "max")
    if per_channel:
        depth = x.shape[-1] if x.shape.rank else None
        for arg, t in (("min", lo), ("max", hi)):
            if t.shape.rank != 1 or (depth is not None and t.shape[0] != depth):
                raise InvalidArgumentError(
                    None,
                    op,
                    f"`{arg}` must be a vector of the inputs' last dimension ({depth}). "
                    f"Received: {arg} of shape {t.shape}, inputs of shape {x.shape}.",
                )
    else:
        for arg, t in (("min", lo), ("max", hi)):
            if t.shape.rank != 0:
                raise InvalidArgumentError(
                    None, op, f"`{arg}` must be rank 0 but is rank {t.shape.rank}"
                )
    params = {"num_bits": _check_bits(num_bits, op), "narrow_range": bool(narrow_range)}
    return (x, lo, hi), params


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False, name=None):
    """Fake-quantizes float32 ``inputs`` with the range given by float32 scalar tensors
    ``min`` and ``max`` (follows `tf.quantization.fake_quant_with_min_max_vars`).

    As `fake_quant_with_min_max_args`, but ``min`` and ``max`` are tensors (Variables, to be
    trained) and are not checked (``min >= max`` gives TensorFlow's degenerate output).

    Returns:
        A float32 tensor of ``inputs``' shape. Gradients: to ``inputs``, the cotangent inside
        the nudged range; to ``min``, the sum of the cotangents of inputs below it; to
        ``max``, of those above it.

    Raises:
        InvalidArgumentError: ``min`` or ``max`` not scalars; ``num_bits`` outside [2, 16].
        ValueError: tensors of another dtype than float32.

    >>> x = ek.constant([[1.2, -0.3, 0.7], [2.1, 0.5, -1.0]])
    >>> fake_quant_with_min_max_vars(x, min=-0.5, max=0.8).numpy()
    array([[ 0.8003921, -0.3007843,  0.6984313],
           [ 0.8003921,  0.4996078, -0.4996078]], dtype=float32)
    """
    args, params = _vars_args(
        "FakeQuantWithMinMaxVars", inputs, min, max, num_bits, narrow_range, False
    )
    return apply(_fake_quant_vars, args, params)


def fake_quant_with_min_max_vars_per_channel(
    inputs, min, max, num_bits=8, narrow_range=False, name=None
):
    """As `fake_quant_with_min_max_vars`, with one range per channel: ``min`` and ``max`` are
    float32 vectors of ``inputs``' last dimension (follows
    `tf.quantization.fake_quant_with_min_max_vars_per_channel`).

    Raises:
        InvalidArgumentError: ``min`` or ``max`` not vectors of the last dimension's size.
    """
    args, params = _vars_args(
        "FakeQuantWithMinMaxVarsPerChannel", inputs, min, max, num_bits, narrow_range, True
    )
    return apply(_fake_quant_vars, args, params)


def fake_quant_with_min_max_vars_gradient(
    gradients, inputs, min, max, num_bits=8, narrow_range=False, name=None
):
    """The gradients of `fake_quant_with_min_max_vars`: ``(backprops_wrt_input,
    backprop_wrt_min, backprop_wrt_max)`` (follows
    `tf.quantization.fake_quant_with_min_max_vars_gradient`)."""
    op = "FakeQuantWithMinMaxVarsGradient"
    args, params = _vars_args(op, inputs, min, max, num_bits, narrow_range, False)
    return apply(_vars_grad, (_float32(gradients, op, "gradients"), *args), params)


def fake_quant_with_min_max_vars_per_channel_gradient(
    gradients, inputs, min, max, num_bits=8, narrow_range=False, name=None
):
    """The gradients of `fake_quant_with_min_max_vars_per_channel` (follows
    `tf.quantization.fake_quant_with_min_max_vars_per_channel_gradient`)."""
    op = "FakeQuantWithMinMaxVarsPerChannelGradient"
    args, params = _vars_args(op, inputs, min, max, num_bits, narrow_range, True)
    return apply(_vars_grad, (_float32(gradients, op, "gradients"), *args), params)
