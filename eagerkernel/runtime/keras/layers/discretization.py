"""The `Discretization` layer (follows Keras 3's): continuous values to buckets, with
boundaries given or learned by `adapt` as Keras 3's approximate quantiles."""

from __future__ import annotations

import numpy as np

from .base import Layer
from .categorical import encode_categorical, encoded_shape, host_array, host_tensor, iter_batches

__all__ = ["Discretization"]


class Discretization(Layer):
    """Buckets continuous values by boundaries (follows `tf.keras.layers.Discretization`):
    value ``x`` goes to bucket ``i`` where ``bin_boundaries[i-1] <= x < bin_boundaries[i]``.

    Args:
        bin_boundaries: sorted boundaries, or None to learn ``num_bins - 1`` of them with
            `adapt` (quantiles of the data).
        num_bins: the number of buckets `adapt` makes.
        epsilon: the precision of `adapt`'s approximate quantiles (default 0.01).
        output_mode: ``"int"`` (default), ``"one_hot"``, ``"multi_hot"``, ``"count"``.

    >>> ek.keras.layers.Discretization([0.0, 1.0])(ek.constant([-0.5, 0.0, 0.5, 2.0])).numpy()
    array([0, 1, 1, 2], dtype=int32)
    """

    def __init__(
        self,
        bin_boundaries=None,
        num_bins=None,
        epsilon=0.01,
        output_mode="int",
        sparse=False,
        **kwargs,
    ):
        if bin_boundaries is None and num_bins is None:
            raise ValueError("Discretization: give bin_boundaries, or num_bins to adapt().")
        if bin_boundaries is not None and num_bins is not None:
            raise ValueError("Discretization: give bin_boundaries or num_bins, not both.")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Discretization: unknown output_mode={output_mode!r}.")
        if sparse:
            raise NotImplementedError("Discretization: sparse=True is not supported.")
        super().__init__(**kwargs)
        self.bin_boundaries = None if bin_boundaries is None else [float(b) for b in bin_boundaries]
        if self.bin_boundaries is not None and self.bin_boundaries != sorted(self.bin_boundaries):
            raise ValueError(f"Discretization: bin_boundaries must be sorted: {bin_boundaries}.")
        self.num_bins = None if num_bins is None else int(num_bins)
        self.epsilon = epsilon
        self.output_mode = output_mode

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learns ``num_bins - 1`` boundaries: approximate quantiles of the data, computed as
        Keras 3 does (each batch summarized to about ``1 / epsilon`` weighted points, the
        summaries merged, the boundaries interpolated from the cumulative weights), so the
        boundaries are Keras's.

        Raises:
            ValueError: the layer was given ``bin_boundaries``, or ``data`` is empty.
        """
        if self.num_bins is None:
            raise ValueError(
                "Discretization: cannot adapt a layer initialized with `bin_boundaries`; use "
                "`num_bins` instead."
            )
        summary = np.zeros((2, 0), np.float32)
        seen = 0
        for batch in iter_batches(data, steps):
            values = np.sort(np.asarray(batch, np.float32).reshape(-1))
            seen += values.size
            step = max(values.size * self.epsilon, 1)
            points = values[int(step - 1) :: int(step)]
            merged = np.concatenate((summary, np.stack([points, np.full_like(points, step)])), 1)
            summary = _compress(merged[:, np.argsort(merged[0], kind="stable")], self.epsilon)
        if seen == 0:
            raise ValueError("Discretization: adapt() got no data.")
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()
        self.built = True

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("Discretization: call adapt() first (or give bin_boundaries).")
        x = np.asarray(host_array(inputs), np.float64)
        out = np.searchsorted(np.asarray(self.bin_boundaries), x, side="right").astype(np.int64)
        if self.output_mode == "int":  # int32, as Keras 3's Discretization
            return host_tensor(out.astype(np.int32))
        return host_tensor(encode_categorical(out, len(self.bin_boundaries) + 1, self.output_mode))

    def compute_output_shape(self, input_shape) -> tuple:
        depth = self.num_bins if self.bin_boundaries is None else len(self.bin_boundaries) + 1
        return encoded_shape(input_shape, depth, self.output_mode)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "bin_boundaries": self.bin_boundaries,
            "num_bins": self.num_bins,
            "epsilon": self.epsilon,
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        """An adapted layer's config has both ``bin_boundaries`` and ``num_bins``, which
        ``__init__`` refuses together: the boundaries are set after creation (as Keras 3)."""
        config = dict(config)
        boundaries = config.pop("bin_boundaries", None)
        if config.get("num_bins") is None:
            return cls(bin_boundaries=boundaries, **config)
        layer = cls(**config)
        layer.bin_boundaries = boundaries
        return layer


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """A quantile summary (``[values, weights]``) reduced to about ``1 / epsilon`` points at
    the cumulative-weight fractions ``epsilon, 2 epsilon, ..., 1`` (Keras 3's
    ``compress_summary``)."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    fractions = cum_weights / cum_weights[-1]
    values = np.interp(percents, fractions, summary[0])
    cum_weights = np.interp(percents, fractions, cum_weights)
    weights = np.diff(cum_weights, prepend=0.0)
    return np.stack((values, weights)).astype(np.float32)
