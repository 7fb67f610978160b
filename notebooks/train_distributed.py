"""Trains a small classifier on scikit-learn's 8x8 digits with Keras ``compile``/``fit`` under
an ``ek.distribute`` strategy; the script of notebooks/11_distributed.ipynb.

    python train_distributed.py single OUTDIR        # one device, no strategy
    EAGERKERNEL_VIRTUAL_GPUS=2 python train_distributed.py mirrored OUTDIR
    mpiexec -n 2 python train_distributed.py multiworker OUTDIR

``batch_size`` is the global batch, split across the replicas (and workers). The chief
writes ``OUTDIR/<mode>.json`` (the per-epoch loss and accuracy) and
``OUTDIR/<mode>.safetensors`` (the weights), and a checkpoint under ``OUTDIR/ckpt-<mode>``;
the other workers write nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

GLOBAL_BATCH = 64
EPOCHS = 5


def load():
    import eagerkernel as ek

    (x, y), _ = ek.keras.datasets.digits.load_data()
    return x.reshape(len(x), -1).astype(np.float32) / 16.0, y.astype(np.int64)


def make_strategy(mode: str):
    import eagerkernel as ek

    if mode == "single":
        return ek.distribute.get_strategy()
    if mode == "mirrored":
        return ek.distribute.MirroredStrategy()
    if mode == "multiworker":
        return ek.distribute.MultiWorkerMirroredStrategy()
    raise SystemExit(f"unknown mode {mode!r}: single, mirrored or multiworker")


def train(strategy, epochs: int = EPOCHS):
    """Builds, compiles and fits the model under ``strategy``; returns (model, history)."""
    import eagerkernel as ek

    x, y = load()
    with strategy.scope():
        ek.keras.utils.set_random_seed(0)
        model = ek.keras.Sequential(
            [
                ek.keras.layers.Dense(64, activation="relu", input_shape=(64,)),
                ek.keras.layers.Dense(10),
            ]
        )
        model.compile(
            optimizer=ek.keras.optimizers.Adam(0.01),
            loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            metrics=["accuracy"],
        )
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=epochs, shuffle=True, verbose=0)
    return model, history.history


def main(argv=None) -> int:
    from safetensors.numpy import save_file

    import eagerkernel as ek

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["single", "mirrored", "multiworker"])
    parser.add_argument("outdir")
    args = parser.parse_args(argv)
    strategy = make_strategy(args.mode)
    model, history = train(strategy)
    # Every worker calls save; only the chief's files are real (the others' go to a
    # temporary directory that is removed).
    ek.train.Checkpoint(model=model).save(os.path.join(args.outdir, f"ckpt-{args.mode}", "ckpt"))
    chief = strategy.cluster_resolver is None or strategy.cluster_resolver.task_id == 0
    if chief:
        os.makedirs(args.outdir, exist_ok=True)
        log = {"replicas": strategy.num_replicas_in_sync, **history}
        with open(os.path.join(args.outdir, f"{args.mode}.json"), "w") as f:
            json.dump(log, f)
        weights = {f"w{i}": np.ascontiguousarray(w) for i, w in enumerate(model.get_weights())}
        save_file(weights, os.path.join(args.outdir, f"{args.mode}.safetensors"))
        print(
            f"{args.mode}: {strategy.num_replicas_in_sync} replicas, final loss "
            f"{history['loss'][-1]:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
