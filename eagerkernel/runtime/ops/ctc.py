"""Connectionist temporal classification (`ek.nn.ctc_loss`, ``ctc_greedy_decoder``,
``ctc_beam_search_decoder``), following TensorFlow 2's ``tf.nn`` functions of those names.

The loss is the negative log-likelihood of a label sequence summed over every alignment of it
to the frames (Graves et al., 2006), computed by the forward (alpha) recursion in log space over
the extended label sequence ``blank, l1, blank, l2, ..., blank``, vectorized over the batch. Its
VJP is the alpha-beta one: ``softmax(logits) - posterior occupancy`` of each class at each
frame, times the cotangent of the example's loss. The forward computes it while a tape records
(as TensorFlow's CTC kernels return it beside the loss) and hands it to the VJP as ``saved``.
That is TensorFlow's CPU kernel, which sparse labels take; dense labels take a port of
TensorFlow's ``ctc_loss_dense`` (`ctc_dense`), which differs on infeasible labels and on labels
equal to the blank.

Internally the arithmetic is float64 whatever the logits' dtype; the loss and gradient are
returned in the logits' dtype.
"""

from __future__ import annotations

import numpy as np

from ..core.context import ACTIVE
from ..core.dispatch import Primitive, defvjp
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, make
from ._core import apply, float_check, tensor
from .array_ops import reshape, transpose
from .ctc_dense import dense_ctc_arrays

__all__ = [
    "ctc_beam_search_decoder",
    "ctc_greedy_decoder",
    "ctc_label_dense_to_sparse",
    "ctc_loss",
]

_NEG = -np.inf


def _lse(*terms):
    """Elementwise log(sum(exp(terms))), -inf where every term is -inf (no NaN)."""
    m = terms[0]
    for x in terms[1:]:
        m = np.maximum(m, x)
    safe = np.where(np.isfinite(m), m, 0.0)
    total = sum(np.exp(x - safe) for x in terms)
    with np.errstate(divide="ignore"):
        return safe + np.log(total)


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def _ctc_arrays(logits, labels, label_length, logit_length, blank, with_grad):
    """``(loss [B], grad [T, B, C] or None)`` of time-major ``logits`` (NumPy, float64 inside).

    Frames at or beyond an example's ``logit_length`` take no part (alpha is carried through
    them unchanged, and their gradient is 0); an example whose labels cannot be aligned to its
    frames has an infinite loss and ``softmax(logits)`` as gradient (no state is occupied).
    """
    dt = logits.dtype
    lp = _log_softmax(np.asarray(logits, np.float64))
    n_t, n_b, _ = lp.shape
    n_s = 2 * labels.shape[1] + 1
    s = np.arange(n_s)
    valid = s[None, :] < 2 * label_length[:, None] + 1
    ext = np.full((n_b, n_s), blank, np.int64)
    ext[:, 1::2] = labels
    ext = np.where(valid, ext, blank)  # padding may hold anything, -1 included
    # A label state may be entered from two states back when it differs from that label.
    skip = np.zeros((n_b, n_s), bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    emit = np.take_along_axis(lp, np.broadcast_to(ext, (n_t, n_b, n_s)), axis=2)
    emit = np.where(valid[None], emit, _NEG)
    live = np.arange(n_t)[:, None] < logit_length[None, :]  # [T, B]
    pad1 = np.full((n_b, 1), _NEG)
    pad2 = np.full((n_b, 2), _NEG)
    # A virtual state before the first frame, in state 0 with probability 1, makes the first
    # frame's transitions (into states 0 and 1) the same recursion as every other frame's.
    alpha = np.full((n_b, n_s), _NEG)
    alpha[:, 0] = 0.0
    alphas = np.empty((n_t, n_b, n_s)) if with_grad else None
    for t in range(n_t):
        a1 = np.concatenate([pad1, alpha[:, :-1]], axis=1)
        a2 = np.where(skip, np.concatenate([pad2, alpha[:, :-2]], axis=1), _NEG)
        alpha = np.where(live[t][:, None], _lse(alpha, a1, a2) + emit[t], alpha)
        if with_grad:
            alphas[t] = alpha
    last = 2 * label_length
    rows = np.arange(n_b)
    final = np.full((n_b, n_s), _NEG)
    final[rows, last] = 0.0
    has_label = label_length > 0
    final[rows[has_label], last[has_label] - 1] = 0.0
    prev = np.where(has_label, alpha[rows, np.maximum(last - 1, 0)], _NEG)
    ll = _lse(alpha[rows, last], prev)
    loss = (-ll).astype(dt)
    if not with_grad:
        return loss, None
    # beta[t, b, s]: log-probability of the frames after t given state s at frame t.
    skip_next = np.concatenate([skip[:, 2:], np.zeros((n_b, 2), bool)], axis=1)
    betas = np.empty((n_t, n_b, n_s))
    beta = final
    for t in range(n_t - 1, -1, -1):
        if t < n_t - 1:
            nb = beta + emit[t + 1]
            b1 = np.concatenate([nb[:, 1:], pad1], axis=1)
            b2 = np.where(skip_next, np.concatenate([nb[:, 2:], pad2], axis=1), _NEG)
            beta = np.where((t < logit_length - 1)[:, None], _lse(nb, b1, b2), final)
        betas[t] = beta
    finite = np.isfinite(ll)
    with np.errstate(invalid="ignore"):
        post = np.exp(alphas + betas - np.where(finite, ll, 0.0)[None, :, None])
    occ = np.zeros(lp.shape)
    for j in range(n_s):  # each example once per state: no repeated index within one add
        occ[:, rows, ext[:, j]] += post[:, :, j]
    grad = np.exp(lp) - occ
    grad = np.where(live[:, :, None], grad, 0.0)
    return loss, grad.astype(dt)


def _host(xp, a):
    return a if xp is np else xp.asnumpy(a)


def _ctc_fwd(xp, logits, labels, label_length, logit_length, blank, dense=False):
    lens = [_host(xp, a).astype(np.int64) for a in (label_length, logit_length)]
    arrays = dense_ctc_arrays if dense else _ctc_arrays
    loss, grad = arrays(_host(xp, logits), _host(xp, labels), *lens, blank, ACTIVE)
    if xp is not np:
        loss = xp.asarray(loss)
        grad = None if grad is None else xp.asarray(grad)
    return loss, grad


def _ctc_grad_fwd(xp, logits, labels, label_length, logit_length, blank, dense=False):
    lens = [_host(xp, a).astype(np.int64) for a in (label_length, logit_length)]
    arrays = dense_ctc_arrays if dense else _ctc_arrays
    grad = arrays(_host(xp, logits), _host(xp, labels), *lens, blank, True)[1]
    return grad if xp is np else xp.asarray(grad)


# The gradient as an op of its own, for a VJP that is itself recorded (a graph function's
# trace replays it; no VJP: a second derivative raises LookupError naming it).
_ctc_grad = Primitive("CTCLossGrad", _ctc_grad_fwd)


def _ctc_vjp(g, ans, logits, labels, label_length, logit_length, blank, dense=False, saved=None):
    if saved is None or ACTIVE:
        attrs = {"blank": blank, "dense": dense}
        saved = apply(_ctc_grad, (logits, labels, label_length, logit_length), attrs)
    else:  # nothing records this VJP: the forward's gradient serves as a constant
        saved = make(saved, logits._device)
    return reshape(g, [1, -1, 1]) * saved


_ctc = Primitive("CTCLoss", _ctc_fwd, saves=True)
defvjp(_ctc, _ctc_vjp, None, None, None)


# -- argument checks ---------------------------------------------------------------------------


def _ints(x, op: str, arg: str, ndim: int) -> np.ndarray:
    """``x`` as a host int64 array of rank ``ndim`` (TypeError for non-integers)."""
    t = tensor(x, op)
    if t._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: {arg} must be int32 or int64, got {t.dtype.name}.")
    v = t.numpy().astype(np.int64)
    if v.ndim != ndim:
        raise InvalidArgumentError(
            None, op, f"{op}: {arg} must be {ndim}-D, got shape {tuple(v.shape)}."
        )
    return v


def _lengths(x, op: str, arg: str, n_b: int, hi: int, what: str) -> np.ndarray:
    v = _ints(x, op, arg, 1)
    if v.shape[0] != n_b:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: {arg} must have one entry per example ({n_b}), got shape {tuple(v.shape)}.",
        )
    bad = (v < 0) | (v > hi)
    if bad.any():
        i = int(np.argmax(bad))
        raise InvalidArgumentError(
            None, op, f"{op}: {arg}[{i}] = {int(v[i])} is outside [0, {hi}] ({what})."
        )
    return v


def _logits3(x, op: str, arg: str, nonempty: bool = False) -> Tensor:
    z = tensor(x, op, np.float32)
    float_check(op, z, arg, real=True)
    if z._value.ndim != 3:
        raise InvalidArgumentError(
            None, op, f"{op}: {arg} must be 3-D, got shape {tuple(z._value.shape)}."
        )
    if nonempty and z._value.size == 0:  # TensorFlow's decoder kernels
        raise InvalidArgumentError(
            None, op, f"{op}: {arg} must not be empty, got shape {tuple(z._value.shape)}."
        )
    return z


def _blank(blank_index, n_c: int, op: str) -> int:
    b = int(blank_index)
    if b < 0:
        b += n_c
    if not 0 <= b < n_c:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: blank_index must be in [-{n_c}, {n_c}) for {n_c} classes, got {blank_index}.",
        )
    return b


def _sparse_rows(labels, n_b: int, op: str) -> tuple[np.ndarray, np.ndarray]:
    """A SparseTensor's rows as dense padded labels ``[batch, max_len]`` and their lengths
    (each row's values in the order of their column index, as TensorFlow's kernel reads them)."""
    idx = labels.indices.numpy()
    vals = labels.values
    if vals._value.dtype.kind not in "iu":
        raise TypeError(f"{op}: labels must hold int32 or int64 values, got {vals.dtype.name}.")
    vals = vals.numpy().astype(np.int64)
    if idx.shape[1] != 2:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: sparse labels must be 2-D ([batch, max_label_len]), got indices "
            f"with {idx.shape[1]} columns.",
        )
    rows = idx[:, 0]
    if len(rows) and (rows.min() < 0 or rows.max() >= n_b):
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: a sparse label's batch index is outside [0, {n_b}): "
            f"{int(rows.max() if rows.max() >= n_b else rows.min())}.",
        )
    order = np.lexsort((idx[:, 1], rows))
    rows, vals = rows[order], vals[order]
    lengths = np.bincount(rows, minlength=n_b).astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    dense = np.zeros((n_b, int(lengths.max()) if n_b else 0), np.int64)
    dense[rows, np.arange(len(rows)) - starts[rows]] = vals
    return dense, lengths


def _sparse_checks(dense, lengths, frames, blank: int, op: str, check_time, shift) -> tuple:
    """TensorFlow's CPU kernel (sparse labels): every row needs a label and no more labels
    than frames (a repeat needing a blank between does not count: that gives ``inf``); a label
    equal to the blank is read as class ``blank - 1`` (TensorFlow shifts the labels above the
    blank down by one as it moves the blank last), an error for ``blank`` 0. Without ``shift``
    (TensorFlow 1, the blank already last) labels are kept, but blank labels may only end a row
    and are dropped; without ``check_time`` an example with too many labels is left to its
    ``inf``. Returns the labels and their lengths."""
    empty = np.flatnonzero(lengths == 0)
    if len(empty):
        raise InvalidArgumentError(
            None, op, f"{op}: Labels length is zero in batch {int(empty[0])} (sparse labels)."
        )
    short = np.flatnonzero(lengths > frames)
    if len(short) and check_time:
        b = int(short[0])
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: Not enough time for target transition sequence in batch {b} "
            f"(required: {int(lengths[b])}, available: {int(frames[b])}): logit_length is "
            "shorter than the labels.",
        )
    used = np.arange(dense.shape[1])[None, :] < lengths[:, None]
    if not shift:  # TensorFlow 1's kernel: a label blank may only be followed by blanks
        null = used & (dense == blank)
        after = np.cumsum(null, axis=1) > 0
        late = used & after & ~null
        if late.any():
            b, j = np.argwhere(late)[0]
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: Saw a non-null label (index >= num_classes - 1) following a null "
                f"label: labels[{b}, {j}] = {int(dense[b, j])} after a blank {blank}.",
            )
        return dense, lengths - null.sum(axis=1)  # trailing blank labels are dropped
    hit = used & (dense == blank) & shift
    if hit.any() and blank == 0:
        b, j = np.argwhere(hit)[0]
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: All labels must be nonnegative integers: labels[{b}, {j}] equals "
            "blank_index 0 (TensorFlow moves the blank last and shifts the labels down).",
        )
    return np.where(hit, blank - 1, dense), lengths


# -- the loss ----------------------------------------------------------------------------------


def ctc_loss(
    labels,
    logits,
    label_length,
    logit_length,
    logits_time_major=True,
    unique=None,
    blank_index=None,
    name=None,
) -> Tensor:
    """Connectionist temporal classification loss: the negative log-probability of each
    example's label sequence, summed over all its alignments to the frames (follows
    `tf.nn.ctc_loss`, TensorFlow 2's ``ctc_loss_v3``; classic CTC, repeated labels merged).

    The logits are normalized with a softmax over the classes inside the op.

    Args:
        labels: int32/int64 ``[batch, max_label_len]`` padded labels (with ``label_length``),
            or a `ek.sparse.SparseTensor` of dense shape ``[batch, max_label_len]`` (then
            ``label_length`` may be None).
        logits: float ``[frames, batch, num_classes]``, or ``[batch, frames, num_classes]``
            with ``logits_time_major=False``.
        label_length: int ``[batch]``, each in ``[0, max_label_len]``; None for sparse labels
            (if given, it must match the sparse rows' lengths).
        logit_length: int ``[batch]``: the frames of each example, each in ``[0, frames]``;
            later frames are ignored (and get a zero gradient).
        logits_time_major: whether the frames are the first axis of ``logits``.
        unique: TensorFlow's TPU speed-up (``ctc_unique_labels``): not supported.
        blank_index: the blank class; negative values count from ``num_classes`` (-1 is the
            last class). Default 0 for dense labels; required for sparse labels, as in
            TensorFlow.

    Returns:
        float ``[batch]`` in the logits' dtype. The gradient w.r.t. logits is
        ``softmax(logits) - posterior class occupancy`` on each example's frames, 0 on the
        frames past ``logit_length``; labels and lengths have none. As in TensorFlow, the two
        label forms take two algorithms (`ctc_dense` has the details): dense labels that cannot
        be aligned to their frames (too long, counting a blank between repeats) get a large
        finite loss (about 707 more than a feasible one: TensorFlow's "log 0" is
        ``log(1e-307)``), and a label equal to the blank counts for no class in the gradient;
        sparse labels (TensorFlow's CPU kernel) get ``inf`` there and ``softmax(logits)`` as
        gradient, and a sparse label equal to the blank is read as class ``blank - 1``.

    Raises:
        InvalidArgumentError: shapes that do not fit together, a length or label out of range
            (the argument and value are named); for sparse labels also (as TensorFlow's CPU
            kernel) non-int32 values, a row without labels, more labels than frames, a label
            equal to blank 0.
        ValueError: ``label_length`` missing with dense labels, ``blank_index`` missing with
            sparse labels. TypeError: non-floating logits, non-integer labels or lengths.
        NotImplementedError: ``unique`` given.

    >>> logits = ek.zeros([2, 1, 3])  # 2 frames, 1 example, 3 classes (blank 0)
    >>> loss = ek.nn.ctc_loss([[1]], logits, label_length=[1], logit_length=[2])
    >>> round(float(np.exp(-loss.numpy()[0])), 4)  # "1-", "-1", "11" of 9 paths
    0.3333
    """
    op = "ctc_loss"
    if unique is not None:
        raise NotImplementedError(
            f"{op}: unique (the TPU speed-up of TensorFlow's ctc_unique_labels) is not "
            "supported; call ctc_loss with unique=None."
        )
    return _loss(labels, logits, label_length, logit_length, logits_time_major, blank_index)


def ctc_loss_v1_kernel(labels, logits, sequence_length, time_major, check_time: bool) -> Tensor:
    """TensorFlow 1's ``ctc_loss`` (its CPU kernel called directly): sparse labels, the blank
    last and labels not shifted (a label ``num_classes - 1`` is a blank-emitting label); with
    ``check_time`` False, an example with more labels than frames gets ``inf`` instead of the
    error (``ignore_longer_outputs_than_inputs``: the caller zeros it)."""
    return _loss(labels, logits, None, sequence_length, time_major, -1, v1=(check_time,))


def _loss(labels, logits, label_length, logit_length, logits_time_major, blank_index, v1=()):
    """`ctc_loss`; ``v1 = (check_time,)`` for `ctc_loss_v1_kernel`."""
    op = "ctc_loss"
    z = _logits3(logits, op, "logits")
    if not logits_time_major:
        z = transpose(z, [1, 0, 2])
    n_t, n_b, n_c = z._value.shape
    from ..sparse.sparse_tensor import SparseTensor

    sparse = isinstance(labels, SparseTensor)
    if sparse:
        if blank_index is None:
            raise ValueError(
                f"{op}: Argument `blank_index` must be provided when labels is a SparseTensor."
            )
        dense, lengths = _sparse_rows(labels, n_b, op)
        if labels.values._value.dtype != np.int32:  # TensorFlow's CTCLoss kernel: int32 only
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: sparse labels must hold int32 values (TensorFlow's CTCLoss kernel), "
                f"got {labels.values._value.dtype.name}.",
            )
        if label_length is not None:
            given = _lengths(label_length, op, "label_length", n_b, dense.shape[1], "labels")
            if not np.array_equal(given, lengths):
                raise InvalidArgumentError(
                    None,
                    op,
                    f"{op}: label_length {given.tolist()} does not match the sparse "
                    f"labels' row lengths {lengths.tolist()} (pass label_length=None).",
                )
    else:
        if label_length is None:
            raise ValueError(f"{op}: label_length must be given with dense labels.")
        dense = _ints(labels, op, "labels", 2)
        if dense.shape[0] != n_b:
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: labels of shape {tuple(dense.shape)} and logits of shape "
                f"{tuple(z._value.shape)} (time-major) differ in batch size.",
            )
        lengths = _lengths(label_length, op, "label_length", n_b, dense.shape[1], "labels")
    blank = _blank(0 if blank_index is None else blank_index, n_c, op)
    frames = _lengths(logit_length, op, "logit_length", n_b, n_t, "frames")
    used = np.arange(dense.shape[1])[None, :] < lengths[:, None]
    bad = used & ((dense < 0) | (dense >= n_c))
    if bad.any():
        b, j = np.argwhere(bad)[0]
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: labels[{b}, {j}] = {int(dense[b, j])} is outside the valid range "
            f"[0, {n_c}) of {n_c} classes.",
        )
    if sparse:
        check_time = v1[0] if v1 else True
        dense, lengths = _sparse_checks(dense, lengths, frames, blank, op, check_time, not v1)
    dev = z._device

    def put(a):
        return make(a if dev.xp is np else dev.xp.asarray(a), dev)

    attrs = {"blank": blank, "dense": not sparse}
    return apply(_ctc, (z, put(dense), put(lengths), put(frames)), attrs)


def ctc_label_dense_to_sparse(labels, label_length):
    """Padded labels ``[batch, max_len]`` as a SparseTensor of the first ``label_length[b]``
    entries of each row, with the dense shape of ``labels`` (follows Keras 2's
    ``ctc_label_dense_to_sparse``). Values keep the labels' dtype.

    >>> st = ek.keras.backend.ctc_label_dense_to_sparse([[1, 2, 0], [3, 0, 0]], [2, 1])
    >>> st.values.numpy(), st.indices.numpy().tolist()
    (array([1, 2, 3], dtype=int32), [[0, 0], [0, 1], [1, 0]])
    """
    from ..sparse.sparse_tensor import SparseTensor

    op = "ctc_label_dense_to_sparse"
    y = tensor(labels, op)
    dense = _ints(y, op, "labels", 2)
    lengths = _lengths(label_length, op, "label_length", dense.shape[0], dense.shape[1], "labels")
    idx = np.argwhere(np.arange(dense.shape[1])[None, :] < lengths[:, None]).astype(np.int64)
    values = y.numpy()[idx[:, 0], idx[:, 1]]
    return SparseTensor(idx, values, np.asarray(dense.shape, np.int64))


# -- decoders ----------------------------------------------------------------------------------


def _decoded(sequences: list, n_b: int):
    """One SparseTensor ``[batch, max_len]`` (int64 indices and values) of per-row sequences."""
    from ..sparse.sparse_tensor import SparseTensor

    idx = [(b, j) for b, seq in enumerate(sequences) for j in range(len(seq))]
    values = np.asarray([v for seq in sequences for v in seq], np.int64)
    width = max((len(seq) for seq in sequences), default=0)
    return SparseTensor(
        np.asarray(idx, np.int64).reshape(-1, 2), values, np.asarray([n_b, width], np.int64)
    )


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding: the most likely class of each frame, repeats merged, blanks removed
    (follows `tf.nn.ctc_greedy_decoder`).

    Args:
        inputs: float ``[max_time, batch, num_classes]`` logits.
        sequence_length: int ``[batch]``, each in ``[0, max_time]``.
        merge_repeated: whether consecutive equal classes count once (``A B B * B * B``
            gives ``A B B B``; without merging ``A B B B B``; ``*`` is the blank).
        blank_index: the blank class, default ``num_classes - 1``; negative values count
            from ``num_classes``.

    Returns:
        ``(decoded, neg_sum_logits)``: ``decoded`` is a one-element list holding a
        SparseTensor (int64 ``[n, 2]`` indices ``[batch, position]``, int64 values, dense
        shape ``[batch, max_decoded_length]``); ``neg_sum_logits`` is ``[batch, 1]`` in the
        inputs' dtype, minus the sum over frames of each frame's greatest logit.

    Raises:
        InvalidArgumentError: inputs not 3-D, a length outside ``[0, max_time]``, a bad
            ``blank_index``. TypeError: non-floating inputs or non-integer lengths.

    >>> logits = np.log([[[0.1, 0.6, 0.3]], [[0.1, 0.6, 0.3]], [[0.2, 0.1, 0.7]],
    ...                  [[0.8, 0.1, 0.1]]]).astype(np.float32)
    >>> (decoded,), _ = ek.nn.ctc_greedy_decoder(logits, [4])
    >>> decoded.values.numpy()
    array([1, 0])
    """
    op = "ctc_greedy_decoder"
    x = _logits3(inputs, op, "inputs", nonempty=True)
    n_t, n_b, n_c = x._value.shape
    lens = _lengths(sequence_length, op, "sequence_length", n_b, n_t, "max_time")
    blank = _blank(n_c - 1 if blank_index is None else blank_index, n_c, op)
    v = x.numpy()
    best = v.argmax(axis=2) if n_c else np.zeros((n_t, n_b), np.int64)
    top = np.take_along_axis(v, best[..., None], axis=2)[..., 0]
    live = np.arange(n_t)[:, None] < lens[None, :]
    neg = -np.where(live, top, 0).sum(axis=0, dtype=v.dtype)[:, None]
    sequences = []
    for b in range(n_b):
        seq, prev = [], -1
        for c in best[: lens[b], b].tolist():
            if c != blank and not (merge_repeated and c == prev):
                seq.append(c)
            prev = c
        sequences.append(seq)
    return [_decoded(sequences, n_b)], make(
        neg if x._device.xp is np else x._device.xp.asarray(neg), x._device
    )


def _beam_search(lp: np.ndarray, blank: int, beam_width: int) -> list:
    """Prefix beam search over the log-probabilities ``lp`` ``[frames, classes]`` of one
    example: ``[(log_prob, labels), ...]`` for the final beam, best first.

    A prefix's probability is split into the alignments ending in a blank (``pb``) and those
    ending in its last label (``pl``), so that a repeated label needs a blank between its two
    copies. Each frame, every prefix in the beam either stays (a blank, or its last label
    again) or grows by one label; a grown prefix already in the beam merges into it. The
    candidates are scored as arrays (``[beam, classes]``), ties kept in a stable order."""
    n_c = lp.shape[1]
    prefixes = [()]
    pb = np.array([0.0])
    pl = np.array([_NEG])
    grow = np.ones(n_c, bool)
    grow[blank] = False
    for row in lp:
        total = np.logaddexp(pb, pl)
        last = np.array([p[-1] if p else -1 for p in prefixes])
        stay_b = total + row[blank]
        stay_l = np.where(last >= 0, pl + row[np.maximum(last, 0)], _NEG)
        # [beam, classes]: growing by class c; after the same label only from a blank.
        ext = np.where(last[:, None] == np.arange(n_c), pb[:, None], total[:, None]) + row
        ext[:, ~grow] = _NEG
        index = {p: k for k, p in enumerate(prefixes)}
        for k, p in enumerate(prefixes):  # a grown prefix already in the beam: merge
            parent = index.get(p[:-1]) if p else None
            if parent is not None:
                stay_l[k] = np.logaddexp(stay_l[k], ext[parent, p[-1]])
                ext[parent, p[-1]] = _NEG
        scores = np.concatenate([np.logaddexp(stay_b, stay_l), ext.ravel()])
        order = np.argsort(-scores, kind="stable")[:beam_width]
        order = order[scores[order] > _NEG]
        n_k = len(prefixes)
        new_prefixes, new_b, new_l = [], [], []
        for i in order.tolist():
            if i < n_k:
                new_prefixes.append(prefixes[i])
                new_b.append(stay_b[i])
                new_l.append(stay_l[i])
            else:
                k, c = divmod(i - n_k, n_c)
                new_prefixes.append((*prefixes[k], c))
                new_b.append(_NEG)
                new_l.append(ext[k, c])
        prefixes, pb, pl = new_prefixes, np.array(new_b), np.array(new_l)
    totals = np.logaddexp(pb, pl)
    return sorted(zip(totals.tolist(), prefixes, strict=True), key=lambda e: -e[0])


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1):
    """Prefix beam search for the most probable label sequences, each scored by the sum of
    the probabilities of its alignments kept in the beam (follows
    `tf.nn.ctc_beam_search_decoder`, TensorFlow 2's: repeated labels are not merged after
    decoding, the blank is the last class, the logits are normalized by a softmax).

    Args:
        inputs: float ``[max_time, batch, num_classes]`` logits.
        sequence_length: int ``[batch]``, each in ``[0, max_time]``.
        beam_width: how many prefixes are kept after each frame (>= 1).
        top_paths: how many sequences are returned per example, ``1 <= top_paths <=
            beam_width``.

    Returns:
        ``(decoded, log_probability)``: ``decoded`` is a list of ``top_paths`` SparseTensors
        (int64 indices ``[batch, position]`` and values, dense shape ``[batch,
        max_decoded_length_j]``), best first; ``log_probability`` is ``[batch, top_paths]`` in
        the inputs' dtype.

    Raises:
        InvalidArgumentError: bad shapes or lengths, ``top_paths`` outside ``[1,
            beam_width]``, or fewer distinct sequences in the final beam than ``top_paths``.

    >>> logits = np.log([[[0.1, 0.6, 0.3]], [[0.1, 0.6, 0.3]], [[0.2, 0.1, 0.7]],
    ...                  [[0.8, 0.1, 0.1]]]).astype(np.float32)
    >>> (decoded,), log_prob = ek.nn.ctc_beam_search_decoder(logits, [4], beam_width=10)
    >>> decoded.values.numpy(), log_prob.numpy().round(3)
    (array([1, 0]), array([[-0.514]], dtype=float32))
    """
    return _beam_decode(inputs, sequence_length, beam_width, top_paths, False)


def _beam_decode(inputs, sequence_length, beam_width, top_paths, merge_repeated: bool):
    """`ctc_beam_search_decoder`; with ``merge_repeated`` (TensorFlow 1's default, which Keras
    2's ``ctc_decode`` keeps), equal neighbours of a decoded sequence are merged after the
    search (``a - a`` is decoded ``a``)."""
    op = "ctc_beam_search_decoder"
    x = _logits3(inputs, op, "inputs", nonempty=True)
    n_t, n_b, n_c = x._value.shape
    lens = _lengths(sequence_length, op, "sequence_length", n_b, n_t, "max_time")
    beam_width, top_paths = int(beam_width), int(top_paths)
    if beam_width < 1 or not 1 <= top_paths <= beam_width:
        raise InvalidArgumentError(
            None,
            op,
            f"{op}: need 1 <= top_paths <= beam_width, got beam_width={beam_width}, "
            f"top_paths={top_paths}.",
        )
    lp = _log_softmax(x.numpy().astype(np.float64))
    paths = [[] for _ in range(top_paths)]
    scores = np.empty((n_b, top_paths))
    for b in range(n_b):
        found = _beam_search(lp[: lens[b], b], n_c - 1, beam_width)
        if len(found) < top_paths:
            raise InvalidArgumentError(
                None,
                op,
                f"{op}: example {b} has {len(found)} sequences in its final beam, "
                f"fewer than top_paths={top_paths}.",
            )
        for j, (score, seq) in enumerate(found[:top_paths]):
            if merge_repeated:
                seq = [c for i, c in enumerate(seq) if i == 0 or c != seq[i - 1]]
            paths[j].append(list(seq))
            scores[b, j] = score
    scores = scores.astype(x._value.dtype)
    xp = x._device.xp
    return [_decoded(p, n_b) for p in paths], make(
        scores if xp is np else xp.asarray(scores), x._device
    )


# -- Keras 2's backend functions (`ek.keras.backend.ctc_batch_cost`, `ctc_decode`) --------------


def keras_batch_cost(y_true, y_pred, input_length, label_length, epsilon: float) -> Tensor:
    """Keras 2's ``ctc_batch_cost`` with its ``epsilon``: the CTC loss ``[batch, 1]`` of
    batch-major softmax outputs ``y_pred`` ``[batch, frames, classes]`` (blank: the last
    class), read as logits ``log(y_pred + epsilon)``; ``input_length`` and ``label_length``
    are ``[batch, 1]``."""
    from .array_ops import expand_dims, squeeze
    from .elementwise import cast, log

    op = "ctc_batch_cost"
    p = _logits3(y_pred, op, "y_pred")

    def as_int(x):  # Keras casts labels and lengths to int32, so float ones are accepted
        return cast(tensor(x, op), np.int32)

    sparse = ctc_label_dense_to_sparse(as_int(y_true), squeeze(as_int(label_length), -1))
    logits = log(transpose(p, [1, 0, 2]) + np.asarray(epsilon, p._value.dtype))
    frames = squeeze(as_int(input_length), -1)
    loss = ctc_loss_v1_kernel(sparse, logits, frames, True, check_time=True)
    return expand_dims(loss, 1)


def keras_decode(y_pred, input_length, greedy, beam_width, top_paths, epsilon: float):
    """Keras 2's ``ctc_decode``: ``([dense [batch, frames] int64, -1 padded] * top_paths,
    log_prob)`` of batch-major softmax outputs, decoded from ``log(y_pred + epsilon)``."""
    from ..sparse.sparse_ops import to_dense
    from ..sparse.sparse_tensor import SparseTensor

    op = "ctc_decode"
    p = _logits3(y_pred, op, "y_pred")
    n_b, n_t = p._value.shape[:2]
    logits = np.log(np.transpose(p.numpy(), (1, 0, 2)) + np.asarray(epsilon, p._value.dtype))
    # Keras 2 casts the lengths to int32 first: the keras-io ASR examples pass float64 ones
    # (``np.ones(batch) * frames``).
    lengths = input_length.numpy() if hasattr(input_length, "numpy") else input_length
    input_length = np.asarray(lengths).astype(np.int32)
    if greedy:
        decoded, log_prob = ctc_greedy_decoder(logits, input_length)
    else:
        decoded, log_prob = _beam_decode(logits, input_length, beam_width, top_paths, True)
    dense = [
        to_dense(SparseTensor(st.indices, st.values, [n_b, n_t]), default_value=-1)
        for st in decoded
    ]
    return dense, log_prob
