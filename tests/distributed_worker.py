"""A training script that the multi-worker tests launch with ``mpiexec -n 2`` (and once
without a strategy, as the one-process reference). Not a test module: it only defines
functions when imported.

    python tests/distributed_worker.py MODE OUTDIR [--single] [--steps N] [--kill-at N]

MODE ``fit``: Keras ``compile``/``fit`` on the global batch under the strategy's scope.
MODE ``loop``: a custom loop: ``distribute_datasets_from_function``, ``strategy.run``, the
optimizer inside the replica function, ``strategy.reduce``.
MODE ``sync_on_read``: metrics and an ON_READ variable updated by every worker, read outside
the replicas (writes only ``log-<task_id>.json``).
MODE ``resume``: the custom loop with a CheckpointManager; restores the latest checkpoint
first. ``--kill-at N`` makes worker 1 kill itself (SIGKILL) at step N; ``--stall-at N``
makes it stop taking part (sleep) at step N, so that worker 0's all-reduce times out.
``--no-overlap`` all-reduces the gradients after the backward pass instead of during it;
``--bucket-bytes N`` sets the fused buffer size.

Each worker writes ``OUTDIR/weights-<task_id>.safetensors`` and ``OUTDIR/log-<task_id>.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time

import numpy as np

GLOBAL_BATCH = 16
FEATURES, CLASSES, EXAMPLES = 6, 3, 64


def data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(EXAMPLES, FEATURES)).astype(np.float32)
    y = rng.integers(0, CLASSES, size=EXAMPLES).astype(np.int64)
    return x, y


def build_model(ek):
    return ek.keras.Sequential(
        [
            ek.keras.layers.Dense(16, activation="relu", input_shape=(FEATURES,)),
            ek.keras.layers.Dense(CLASSES),
        ]
    )


def run_fit(ek, strategy, steps):
    x, y = data()
    with strategy.scope():
        ek.keras.utils.set_random_seed(7)
        model = build_model(ek)
        model.compile(
            optimizer=ek.keras.optimizers.Adam(0.01),
            loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
    epochs = max(1, steps // (EXAMPLES // GLOBAL_BATCH))
    seen = []
    count = ek.keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(epoch))
    history = model.fit(
        x, y, batch_size=GLOBAL_BATCH, epochs=epochs, shuffle=True, verbose=0, callbacks=[count]
    )
    return model, {
        "loss": history.history["loss"],
        "accuracy": history.history["accuracy"],
        "callback_epochs": seen,
    }


def make_loop(ek, strategy):
    x, y = data()
    with strategy.scope():
        ek.keras.utils.set_random_seed(7)
        model = build_model(ek)
        optimizer = ek.keras.optimizers.SGD(0.1, momentum=0.9)
    loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def dataset_fn(ctx):
        per_replica = ctx.get_per_replica_batch_size(GLOBAL_BATCH)
        ds = ek.data.Dataset.from_tensor_slices((x, y)).batch(per_replica, drop_remainder=True)
        return ds.shard(ctx.num_input_pipelines, ctx.input_pipeline_id).repeat()

    dist = strategy.distribute_datasets_from_function(dataset_fn)

    def step(inputs):
        xb, yb = inputs
        with ek.GradientTape() as tape:
            per_example = loss_fn(yb, model(xb, training=True))
            loss = ek.reduce_sum(per_example) / GLOBAL_BATCH
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return model, optimizer, iter(dist), step


def run_loop(ek, strategy, steps, manager=None, kill_at=None, stall_at=None):
    model, optimizer, it, step = make_loop(ek, strategy)
    start = 0
    if manager is not None:
        manager.checkpoint.model = model
        manager.checkpoint.optimizer = optimizer
        if manager.latest_checkpoint:
            manager.checkpoint.restore(manager.latest_checkpoint)
            start = int(optimizer.iterations.numpy())
            for _ in range(start):  # the data where the restored run stopped
                next(it)
    losses = []
    task_id = strategy.cluster_resolver.task_id if strategy.cluster_resolver else 0
    for i in range(start, steps):
        if kill_at is not None and i == kill_at and task_id == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        if stall_at is not None and i == stall_at and task_id == 1:
            time.sleep(600)
        per_replica = strategy.run(step, args=(next(it),))
        losses.append(float(strategy.reduce("SUM", per_replica, axis=None)))
        if manager is not None:
            manager.save()
    return model, {"loss": losses, "start": start}


def run_sync_on_read(ek, strategy):
    """Sync-on-read variables (metrics) updated by each worker's replica with different values,
    read outside the replicas: the sums over all workers."""
    import gc
    import weakref

    task_id = strategy.cluster_resolver.task_id if strategy.cluster_resolver else 0
    # A metric that lives on after this on worker 0 only (as garbage the collector has not
    # freed yet would): the workers' sets of live sync-on-read variables differ from here on.
    with strategy.scope():
        gone = ek.keras.metrics.Sum()
    strategy.run(gone.update_state, args=(1.0,))
    kept = [gone] if task_id == 0 else []
    gone_state = weakref.ref(gone.variables[0])
    del gone
    gc.collect()
    freed = gone_state() is None
    with strategy.scope():
        total = ek.keras.metrics.Sum()
        mean = ek.keras.metrics.Mean()
        counter = ek.Variable(
            0.0,
            trainable=False,
            synchronization=ek.VariableSynchronization.ON_READ,
            aggregation=ek.VariableAggregation.SUM,
        )

    def step(x):
        total.update_state(x)
        mean.update_state(x)
        counter.assign_add(float(task_id + 1))

    log = {}
    for k in range(2):
        strategy.run(step, args=(ek.constant([float(task_id + 1), 10.0 * (k + 1)]),))
    log["sum"] = float(total.result())
    log["mean"] = float(mean.result())
    log["counter"] = float(counter.numpy())
    log["counter_again"] = float(counter.read_value())  # a second read: no new collective
    mean.reset_state()
    log["mean_after_reset"] = float(mean.result())
    counter.assign(5.0)  # cross-replica: the value of the sum over all workers
    log["counter_assigned"] = float(counter.numpy())
    strategy.run(step, args=(ek.constant([0.0, 0.0]),))
    log["counter_after_step"] = float(counter.numpy())
    log["mean_after_step"] = float(mean.result())
    log["kept"] = [float(m.result()) for m in kept]
    log["freed"] = freed
    log["devices"] = {
        "worker_devices": list(strategy.extended.worker_devices),
        "variable": list(counter.devices),
        "tensor": ek.constant(1.0).device,
    }
    return log


class _Manager:
    def __init__(self, ek, directory):
        self.checkpoint = ek.train.Checkpoint()
        self.inner = ek.train.CheckpointManager(self.checkpoint, directory, max_to_keep=2)

    @property
    def latest_checkpoint(self):
        return self.inner.latest_checkpoint

    def save(self):
        return self.inner.save()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["fit", "loop", "resume", "sync_on_read"])
    parser.add_argument("outdir")
    parser.add_argument("--single", action="store_true", help="no strategy: the reference")
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--kill-at", type=int, default=None)
    parser.add_argument("--stall-at", type=int, default=None)
    parser.add_argument("--no-overlap", action="store_true", help="all-reduce after backward")
    parser.add_argument("--bucket-bytes", type=int, default=None, help="fused buffer size")
    args = parser.parse_args(argv)

    from safetensors.numpy import save_file

    import eagerkernel as ek

    if args.single:
        strategy = ek.distribute.get_strategy()
    else:
        strategy = ek.distribute.MultiWorkerMirroredStrategy()
        strategy.extended.overlap_gradients = not args.no_overlap
        if args.bucket_bytes:
            strategy.extended.bucket_bytes = args.bucket_bytes
    task_id = strategy.cluster_resolver.task_id if strategy.cluster_resolver else 0
    if args.mode == "sync_on_read":
        os.makedirs(args.outdir, exist_ok=True)
        with open(os.path.join(args.outdir, f"log-{task_id}.json"), "w") as f:
            json.dump(run_sync_on_read(ek, strategy), f)
        return 0
    if args.mode == "fit":
        model, log = run_fit(ek, strategy, args.steps)
    elif args.mode == "loop":
        model, log = run_loop(ek, strategy, args.steps)
    else:
        manager = _Manager(ek, os.path.join(args.outdir, "ckpt"))
        model, log = run_loop(ek, strategy, args.steps, manager, args.kill_at, args.stall_at)
    log["num_replicas_in_sync"] = strategy.num_replicas_in_sync
    log["collective_stats"] = dict(strategy.extended.collective_stats)
    log["task_id"] = task_id
    os.makedirs(args.outdir, exist_ok=True)
    weights = {f"w{i}": np.ascontiguousarray(w) for i, w in enumerate(model.get_weights())}
    save_file(weights, os.path.join(args.outdir, f"weights-{task_id}.safetensors"))
    with open(os.path.join(args.outdir, f"log-{task_id}.json"), "w") as f:
        json.dump(log, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
