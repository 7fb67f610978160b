"""The dense-label CTC loss of `ek.nn.ctc_loss`, as TensorFlow 2 computes it (its
``ctc_loss_dense``, the batched forward-backward of Sim et al., 2017), in NumPy.

TensorFlow's dense path differs from its CPU kernel (which sparse labels use, see `ctc`) in
ways its callers see, and which this module reproduces:

* the states are ``start, l1 .. lL, blank0 .. blankL`` (``L`` the padded label width), and
  every state that is not the start has an initial and final log-probability of
  ``log(1e-307)`` (about -706.9) instead of ``-inf``: labels that cannot be aligned to the
  frames (too long, counting a blank between repeats) get a large finite loss, about 707 plus
  the log-probability of the best unconstrained path, not ``inf``;
* the gradient's blank column sums the blank states only: a label equal to the blank class
  is emitted with the blank's probability, but its state's occupancy is counted for no class;
* the padding past ``label_length`` takes part in the transitions (a repeat there still needs
  a blank) and, with a negligible weight, in the posteriors.

The arithmetic is float64 here (TensorFlow's is float32); results are cast to the logits'
dtype.
"""

from __future__ import annotations

import numpy as np

# TensorFlow's "log 0": float32(log(1e-307)).
LOG_0 = float(np.float32(np.log(np.float64(1e-307))))


def _lse(x, axis, keepdims=False):
    """``reduce_logsumexp`` as TensorFlow computes it (a non-finite max is replaced by 0)."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = x - m
        return y - np.log(np.exp(y).sum(axis=-1, keepdims=True))


def _lse_n(*terms):
    """Elementwise logsumexp of a few arrays, as `_lse` (a non-finite max is replaced by 0)."""
    m = terms[0]
    for x in terms[1:]:
        m = np.maximum(m, x)
    m = np.where(np.isfinite(m), m, 0.0)
    return np.log(sum(np.exp(x - m) for x in terms)) + m


# TensorFlow builds a dense [S, S] transition matrix per example (``_ctc_state_trans``) and
# takes a logsumexp over all S predecessors; the few nonzero entries are taken here instead.
# States: 0 start, 1 .. L labels, L+1 .. 2L+1 blank k (after label k, the start for k = 0).
# Its weights are 1 except with L = 0, where "start to label 1" and "start to blank 0" are both
# entry [1, 0], which scatter_nd adds up to 2.


def _forward_step(a, allow, n_l, twice):
    """Unnormalized next forward state from ``a`` [B, S] (before the emissions)."""
    n_ls = n_l + 1
    lab = _lse_n(
        a[:, 1:n_ls],  # self
        np.where(allow, a[:, 0:n_l], -np.inf),  # label k - 1 (the start for label 1)
        a[:, n_ls : n_ls + n_l],  # blank k - 1
    )
    blank = _lse_n(a[:, n_ls:], a[:, 0:n_ls] + twice)  # self, label k (the start for blank 0)
    return np.concatenate([a[:, :1], lab, blank], axis=1)


def _backward_step(s, allow, n_l, twice):
    """Unnormalized previous backward state from ``s`` [B, S] (after the emissions)."""
    n_ls = n_l + 1
    pad = np.full((s.shape[0], 1), -np.inf)
    nxt = np.concatenate([s[:, 2:n_ls], pad], axis=1)  # label k + 1
    allow_next = np.concatenate([allow[:, 1:], np.zeros((s.shape[0], 1), bool)], axis=1)
    # The start's successors: itself, label 1, blank 0 (with L = 0 these last two are one).
    succ = (s[:, 1:2], s[:, n_ls : n_ls + 1]) if n_l else (s[:, 1:2] + twice,)
    start = _lse_n(s[:, :1], *succ)
    lab = _lse_n(s[:, 1:n_ls], s[:, n_ls + 1 :], np.where(allow_next, nxt, -np.inf))
    blank = _lse_n(s[:, n_ls:], np.concatenate([s[:, 1:n_ls], pad], axis=1))
    return np.concatenate([start, lab, blank], axis=1)


def dense_ctc_arrays(logits, labels, label_length, logit_length, blank, with_grad):
    """``(loss [B], grad [T, B, C] or None)`` of time-major ``logits`` and dense ``labels``
    ``[B, L]`` with ``blank`` anywhere, as ``tf.nn.ctc_loss`` computes them for dense labels."""
    dt = logits.dtype
    x = np.asarray(logits, np.float64)
    labels = np.asarray(labels, np.int64)
    n_t, n_b, n_c = x.shape
    n_l = labels.shape[1]
    n_ls = n_l + 1
    n_s = 2 * n_ls
    # The blank moves to class 0; lower classes move up by one.
    perm = np.concatenate([[blank], np.arange(blank), np.arange(blank + 1, n_c)]).astype(int)
    x = x[:, :, perm]
    if blank:  # as TensorFlow, only then (a -1 padding moves to 0 with it)
        labels = np.where(labels < blank, labels + 1, labels)
    lp = _log_softmax(x)
    # State emissions [T, B, S]: -inf for the start, sum(log_probs * one_hot(label)) for the
    # labels (0 for a label outside [0, C); NaN where another class's log-prob is not finite,
    # as 0 * inf), the blank's for the blank states.
    known = (labels >= 0) & (labels < n_c)  # [B, L]
    picked = np.take_along_axis(
        lp, np.broadcast_to(np.where(known, labels, 0), (n_t, n_b, n_l)), axis=2
    )
    bad = (~np.isfinite(lp)).sum(axis=2)[:, :, None] - (known & ~np.isfinite(picked)) > 0
    lab_obs = np.where(bad, np.nan, np.where(known, picked, 0.0))
    obs = np.concatenate(
        [
            np.full((n_t, n_b, 1), -np.inf),
            lab_obs,
            np.repeat(lp[:, :, :1], n_ls, axis=2),
        ],
        axis=2,
    )
    # Label k - 1 to label k: always for k = 1 (from the start), else unless they repeat.
    allow = np.concatenate([np.ones((n_b, 1), bool), labels[:, :-1] != labels[:, 1:]], axis=1)
    allow = allow[:, :n_l]
    twice = np.log(2.0) if n_l == 0 else 0.0
    init = np.full((n_b, n_s), LOG_0)
    init[:, 0] = 0.0
    final = np.full((n_b, n_s), LOG_0)
    rows = np.arange(n_b)
    ok = label_length < n_ls  # TensorFlow's one_hot drops an out-of-range length
    final[rows[ok], label_length[ok]] = 0.0
    final[rows[ok], n_ls + label_length[ok]] = 0.0
    mask = (np.arange(n_t)[:, None] < logit_length[None, :]).astype(np.float64)  # [T, B]

    fwd = np.empty((n_t + 1, n_b, n_s))
    fwd[0] = init
    state = init
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for t in range(n_t):
            state = _forward_step(state, allow, n_l, twice) + obs[t]
            state = state - _lse(state, axis=-1, keepdims=True)
            fwd[t + 1] = state
        bwd = np.empty((n_t + 1, n_b, n_s))
        bwd[n_t] = final
        state, cum = final, np.zeros(n_b)
        for t in range(n_t - 1, -1, -1):
            s = state + obs[t]
            s = _backward_step(s, allow, n_l, twice)
            norm = _lse(s, axis=-1, keepdims=True)
            s = s - norm
            cum = cum + norm[:, 0] * mask[t]
            m = mask[t][:, None]
            state = s * m + final * (1.0 - m)
            bwd[t] = state
    loss = -(bwd[0, :, 0] + cum)
    if not with_grad:
        return loss.astype(dt), None
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        fb = fwd[1:] + bwd[1:]
        fb = fb - _lse(fb, axis=2, keepdims=True)
        fb = fb + np.log(mask)[:, :, None]
        post = np.exp(fb)  # normalized: at most 1
        occ = np.zeros((n_t, n_b, n_c))
        occ[:, :, 0] = post[:, :, n_ls:].sum(axis=2)
        # A label state counts for its class 1 .. C-1; a label 0 (the blank) for none.
        for k in range(n_l):  # one state per example: no repeated index within one add
            counts = (labels[:, k] >= 1) & (labels[:, k] < n_c)
            occ[:, rows[counts], labels[counts, k]] += post[:, counts, 1 + k]
        # TensorFlow's logsumexp over every label state (one-hot masked) for each class: a NaN
        # state makes every label class NaN.
        occ[:, :, 1:] += np.where(np.isnan(post[:, :, 1:n_ls]).any(axis=2), np.nan, 0.0)[..., None]
        grad = (np.exp(lp) - occ) * mask[:, :, None]
    out = np.empty_like(grad)
    out[:, :, perm] = grad
    return loss.astype(dt), out.astype(dt)
