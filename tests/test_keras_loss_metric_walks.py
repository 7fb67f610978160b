"""`Layer.losses` and `Layer.metrics` skip the walk over the layer tree until some layer has
added a loss, a regularized weight or a metric (process-wide flags, set once): each is read
at every training step. The flags start unset only in a fresh interpreter, so the scenario
runs in one."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CODE = textwrap.dedent(
    """
    import numpy as np
    import eagerkernel as ek
    L = ek.keras.layers
    plain = ek.keras.Sequential([L.Dense(3, input_shape=(2,)), L.Dense(1)])
    plain.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((4, 2), np.float32), np.ones((4, 1), np.float32)
    plain.fit(x, y, epochs=1, verbose=0)
    print("start", plain.losses, plain.metrics_names)

    # A regularized weight made later: every model's losses see it from then on.
    reg = ek.keras.Sequential(
        [L.Dense(2, input_shape=(2,), kernel_regularizer=ek.keras.regularizers.L2(0.5))]
    )
    reg(x)
    kernel = reg.layers[0].kernel.numpy()
    print("regularized", round(float(reg.losses[0]), 5) == round(0.5 * float((kernel**2).sum()), 5))

    # A callable loss (add_loss(lambda: ...)) on a model that had none.
    plain.add_loss(lambda: ek.constant(2.0))
    print("callable", [float(v) for v in plain.losses])

    # add_metric inside call.
    class Probe(L.Layer):
        def call(self, inputs):
            self.add_metric(ek.reduce_sum(inputs), name="probe_sum", aggregation="mean")
            return inputs

    probe = ek.keras.Sequential([L.Dense(1, input_shape=(2,)), Probe()])
    probe(x)
    print("metric", [m.name for m in probe.metrics])
    """
)


def test_losses_and_metrics_appear_once_added_after_a_fit_without_any():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "start [] ['loss']"
    assert lines[1] == "regularized True"
    assert lines[2] == "callable [2.0]"
    assert lines[3] == "metric ['probe_sum']"
