"""`Layer.add_metric` and `Layer.metrics` (follow tf.keras 2's ``Layer.add_metric``).

Inside ``call``, ``self.add_metric(value, name=..., aggregation="mean")`` feeds ``value`` into
a `metrics.Mean` named ``name`` that the layer keeps; ``self.add_metric(metric_obj(y, p))``
with the result of calling a `Metric` (``aggregation=None``) tracks that metric object. A
model's `metrics` list these after its compiled ones, so `fit` and `evaluate` log them and
reset them at each epoch, as tf.keras does.

Keras 3 removed ``add_metric``; TensorFlow's Keras 2 guides ("Training & evaluation with the
built-in methods") still use it.
"""

from __future__ import annotations

__all__ = ["AddedMetricsMixin"]


class AddedMetricsMixin:
    """Adds `add_metric` and `metrics` to `Layer`."""

    # Set once any layer calls add_metric or holds a Metric as a public attribute:
    # `metrics` walks the layers only then.
    _metrics_added = False

    def __setattr__(self, name: str, value) -> None:
        if not AddedMetricsMixin._metrics_added and name[:1] != "_" and _is_metric(value):
            AddedMetricsMixin._metrics_added = True
        super().__setattr__(name, value)

    def add_metric(self, value, name: str | None = None, aggregation: str | None = None):
        """Logs ``value`` as a metric of this layer (follows tf.keras 2's
        ``Layer.add_metric(value, name=None, aggregation=None)``; call it inside ``call``).

        Args:
            value: a scalar Tensor, a number, or the result of calling a `Metric` object.
            name: the metric's name (its log key); required unless ``value`` is the result
                of calling a `Metric`, whose own name is then used (as tf.keras does, also
                when ``name`` is given).
            aggregation: ``"mean"``: ``value`` is averaged over the batches of an epoch in a
                `metrics.Mean` named ``name``, created at the first call; ``None``: ``value``
                is already aggregated, so it must come from calling a `Metric`, which is then
                tracked.

        Raises:
            ValueError: ``aggregation`` is not None or ``"mean"``; no ``name`` for a value
                that does not come from a `Metric`; ``aggregation=None`` for such a value.
            TypeError: ``value`` is a symbolic KerasTensor (the functional API's
                ``model.add_metric(tensor)`` is not supported).

        Example:

        >>> import eagerkernel as ek
        >>> class Std(ek.keras.layers.Layer):
        ...     def call(self, x):
        ...         self.add_metric(ek.math.reduce_std(x), name="std", aggregation="mean")
        ...         return x
        >>> layer = Std()
        >>> _ = layer(ek.constant([1.0, 3.0]))
        >>> _ = layer(ek.constant([0.0, 0.0]))
        >>> [(m.name, float(m.result())) for m in layer.metrics]
        [('std', 0.5)]
        """
        from .. import metrics as metrics_module
        from ..keras_tensor import KerasTensor

        if aggregation is not None and aggregation != "mean":
            raise ValueError(
                f"{self.name}.add_metric: only aggregation='mean' (or None for the result of "
                f"a Metric) is supported. Received: aggregation={aggregation!r}"
            )
        if isinstance(value, KerasTensor):
            raise TypeError(
                f"{self.name}.add_metric: symbolic (KerasTensor) metrics are not supported; "
                "call add_metric inside a layer's call() instead."
            )
        source = metrics_module.metric_of_result(value)
        if name is None and source is None:
            raise ValueError(
                f"{self.name}.add_metric: give the metric a name, e.g. "
                "self.add_metric(tf.reduce_sum(inputs), name='mean_activation', "
                "aggregation='mean')."
            )
        if source is not None:
            name = source.name
        own = self.__dict__.setdefault("_added_metrics", [])
        AddedMetricsMixin._metrics_added = True
        match = list(
            {id(m): m for m in (*own, *_metric_attributes(self)) if m.name == name}.values()
        )
        if len(match) > 1:
            raise ValueError(
                f"{self.name}.add_metric: several metrics are named {name!r}; give the metrics "
                "you add different names."
            )
        metric = match[0] if match else source
        if metric is not None and not any(m is metric for m in own):
            own.append(metric)  # tf.keras tracks a layer's Metric attributes in its metrics
        if aggregation is None:
            if source is None and not match:
                raise ValueError(
                    f"{self.name}.add_metric: with aggregation=None the value must be the "
                    "result of calling a keras.metrics.Metric (its state is what is reset each "
                    f"epoch); pass aggregation='mean' to average a tensor. Received name={name!r}"
                )
            return  # the Metric's own call already updated it
        if metric is None:
            metric = metrics_module.Mean(name=name)
            own.append(metric)
        metric.update_state(value)

    @property
    def metrics(self) -> list:
        """The metrics of this layer and the layers inside it, each once: those `add_metric`
        added (tf.keras 2's ``Layer.metrics``) and the `Metric`s held as public attributes
        (``self.acc = keras.metrics.BinaryAccuracy()``, updated in ``call``: Keras 3 tracks
        them, so `fit` logs and resets them)."""
        if not AddedMetricsMixin._metrics_added:  # no layer ever had one: no walk
            return []
        out, seen = [], set()
        for layer in self._flatten_layers():
            public = [v for k, v in vars(layer).items() if k[:1] != "_" and _is_metric(v)]
            for m in (*layer.__dict__.get("_added_metrics", ()), *public):
                if id(m) not in seen:
                    seen.add(id(m))
                    out.append(m)
        return out


_METRIC: list = []  # the Metric class, imported on first use (metrics imports layers)


def _is_metric(value) -> bool:
    if not _METRIC:
        from ..metrics import Metric

        _METRIC.append(Metric)
    return isinstance(value, _METRIC[0])


def _metric_attributes(layer) -> list:
    return [v for v in vars(layer).values() if _is_metric(v)]
