"""Test accuracy on real data, eagerkernel beside PyTorch trained the same way.

- digits (scikit-learn's 8x8, split 80/20 stratified): an MLP 64-64-10 through
  `compile`/`fit`, Adam 1e-2, 40 epochs of batch 32. Target: >= 96% test accuracy.
- Fashion-MNIST (Debian's `dataset-fashion-mnist`): the TensorFlow eager guide's CNN (Conv2D 32
  5x5 same ReLU, MaxPool 2, Conv2D 64 5x5 same ReLU, MaxPool 2, Flatten, Dense 1024 ReLU,
  Dropout 0.5, Dense 10), Adam 1e-3, ONE epoch at batch 64 through `fit`. Target: >= 88%.
  Pixels are standardized with the training set's mean and standard deviation (the usual
  ``Normalize`` of Fashion-MNIST recipes; zero-mean inputs matter when there is one epoch).

PyTorch (when it imports) trains the same architectures with the same optimizer, batch size
and number of epochs; accuracies and wall-clock times go side by side in one table.

Usage::

    python benchmarks/real_data.py                 # both data sets
    python benchmarks/real_data.py --only digits   # the quick one
    python benchmarks/real_data.py --train 6000    # a Fashion-MNIST subset (smoke runs)
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from guide_cnn import eagerkernel_cnn, torch_cnn  # a sibling module

TARGETS = {"digits MLP": 0.96, "Fashion-MNIST CNN": 0.88}


def _digits():
    import eagerkernel as ek

    (xtr, ytr), (xte, yte) = ek.keras.datasets.digits.load_data()
    return (
        (xtr.reshape(-1, 64) / 16.0).astype(np.float32),
        ytr.astype(np.int32),
        (xte.reshape(-1, 64) / 16.0).astype(np.float32),
        yte.astype(np.int32),
    )


def _fashion(n_train: int | None):
    import eagerkernel as ek

    (xtr, ytr), (xte, yte) = ek.keras.datasets.fashion_mnist.load_data()
    if n_train:
        xtr, ytr = xtr[:n_train], ytr[:n_train]
    mean, std = xtr.mean() / 255.0, xtr.std() / 255.0  # of the training images only
    scale = lambda a: ((a[..., None] / 255.0 - mean) / std).astype(np.float32)
    return scale(xtr), ytr.astype(np.int32), scale(xte), yte.astype(np.int32)


def ek_digits(data):
    import eagerkernel as ek

    L = ek.keras.layers
    ek.keras.utils.set_random_seed(0)
    x, y, xt, yt = data
    model = ek.keras.Sequential([L.Dense(64, activation="relu", input_shape=(64,)), L.Dense(10)])
    model.compile(
        optimizer=ek.keras.optimizers.Adam(1e-2),
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(x, y, batch_size=32, epochs=40, verbose=0)
    return model.evaluate(xt, yt, verbose=0)[1]


def ek_fashion(data):
    import eagerkernel as ek

    ek.keras.utils.set_random_seed(0)
    x, y, xt, yt = data
    model = eagerkernel_cnn(ek)
    model.compile(
        optimizer=ek.keras.optimizers.Adam(1e-3),
        loss=ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    model.fit(x, y, batch_size=64, epochs=1, verbose=0)
    return model.evaluate(xt, yt, batch_size=500, verbose=0)[1]


def _torch_train(net, x, y, xt, yt, lr, epochs, batch):
    import torch

    opt = torch.optim.Adam(net.parameters(), lr=lr, eps=1e-7)
    x, y = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))
    g = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        net.train()
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x), batch):
            idx = perm[i : i + batch]
            opt.zero_grad(set_to_none=True)
            torch.nn.functional.cross_entropy(net(x[idx]), y[idx]).backward()
            opt.step()
    net.eval()
    with torch.no_grad():
        pred = torch.cat([net(torch.from_numpy(xt[i : i + 500])) for i in range(0, len(xt), 500)])
    return float((pred.argmax(1).numpy() == yt).mean())


def torch_digits(data):
    import torch

    torch.manual_seed(0)
    x, y, xt, yt = data
    nn = torch.nn
    net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    return _torch_train(net, x, y, xt, yt, 1e-2, 40, 32)


def torch_fashion(data):
    import torch

    torch.manual_seed(0)
    x, y, xt, yt = data
    net = torch_cnn(torch)
    nchw = lambda a: np.ascontiguousarray(a.transpose(0, 3, 1, 2))
    return _torch_train(net, nchw(x), y, nchw(xt), yt, 1e-3, 1, 64)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", choices=["digits", "fashion"])
    parser.add_argument("--train", type=int, default=None, help="Fashion-MNIST training subset")
    args = parser.parse_args()
    try:
        import torch  # noqa: F401

        have_torch = True
    except ImportError:
        have_torch = False
    tasks = []
    if args.only in (None, "digits"):
        tasks.append(("digits MLP", _digits(), ek_digits, torch_digits))
    if args.only in (None, "fashion"):
        tasks.append(("Fashion-MNIST CNN", _fashion(args.train), ek_fashion, torch_fashion))
    print(f"{'task':<20}{'eagerkernel':>12}{'time s':>9}{'PyTorch':>10}{'time s':>9}   target")
    for name, data, ek_fn, torch_fn in tasks:
        t0 = time.perf_counter()
        acc = ek_fn(data)
        t_ek = time.perf_counter() - t0
        if have_torch:
            t0 = time.perf_counter()
            tacc = torch_fn(data)
            t_torch = time.perf_counter() - t0
            peer = f"{tacc:>10.4f}{t_torch:>9.1f}"
        else:
            peer = f"{'-':>10}{'-':>9}"
        verdict = "PASS" if acc >= TARGETS[name] else "MISS"
        subset = f" (train subset {args.train})" if args.train and "Fashion" in name else ""
        print(f"{name:<20}{acc:>12.4f}{t_ek:>9.1f}{peer}   >= {TARGETS[name]} {verdict}{subset}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
