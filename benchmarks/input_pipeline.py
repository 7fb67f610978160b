"""Input-pipeline throughput: one epoch of Fashion-MNIST through ek.data, NumPy and PyTorch.

The workload is one epoch of Fashion-MNIST's training set (60000 uint8 images of 28x28 and
their labels), shuffled and cut into batches of 64, through:

- NumPy floor: ``perm = rng.permutation(n)``, then ``x[idx], y[idx]`` for each slice of 64
  indices; the least work any shuffled batching can do in Python;
- eagerkernel: ``ek.data.Dataset.from_tensor_slices((x, y)).shuffle(10000).batch(64)
  .prefetch(ek.data.AUTOTUNE)``, as a TensorFlow user writes it;
- PyTorch: ``DataLoader(TensorDataset(x, y), batch_size=64, shuffle=True)``, when torch imports.

Each cell is the best of several epochs after a checked one; the pipelines take turns epoch by
epoch, so a change in the machine's load touches every row alike. The checked epoch verifies
that each pipeline yields every example exactly once, with its own label (the multiset of
(image, label) fingerprints equals the data set's) in batches of 64 and a last partial batch;
a wrong result makes the script exit with status 1. Missing a speed target does not.

Without the data set (``apt-get install dataset-fashion-mnist``), random arrays of the same
shapes stand in, and the output says so.

Usage::

    python benchmarks/input_pipeline.py            # 60000 examples, best of 5 epochs
    python benchmarks/input_pipeline.py --quick    # 6000 examples, best of 2: a smoke run
"""

from __future__ import annotations

import argparse
import platform
import sys
import timeit
from collections.abc import Callable, Iterable

import numpy as np

BATCH = 64
BUFFER = 10000
ROWS = ("NumPy floor", "eagerkernel", "PyTorch")
DESCRIPTIONS = {
    "NumPy floor": "permutation + x[idx], y[idx]",
    "eagerkernel": "Dataset shuffle/batch/prefetch",
    "PyTorch": "DataLoader(TensorDataset)",
}
# eagerkernel's examples/s over the peer's (the product's targets).
TARGETS = {"PyTorch": 1.0, "NumPy floor": 0.5}

# Each setup returns epoch(), which builds a fresh iterator and yields (images, labels) batches
# in whatever type the framework gives (the check converts them with np.asarray).
Epoch = Callable[[], Iterable]


def load(examples: int) -> tuple[np.ndarray, np.ndarray, str]:
    """Fashion-MNIST's first ``examples`` training examples, or random stand-ins."""
    import eagerkernel as ek

    try:
        (x, y), _ = ek.keras.datasets.fashion_mnist.load_data()
        source = "Fashion-MNIST training set"
    except FileNotFoundError:
        rng = np.random.default_rng(0)
        x = rng.integers(0, 256, (60000, 28, 28), dtype=np.uint8)
        y = rng.permutation(np.arange(60000) % 10).astype(np.uint8)
        source = (
            "RANDOM stand-in arrays of Fashion-MNIST's shapes (data set not installed:"
            " apt-get install dataset-fashion-mnist)"
        )
    return x[:examples], y[:examples], source


def numpy_epoch(x: np.ndarray, y: np.ndarray) -> Epoch:
    rng = np.random.default_rng(0)

    def epoch():
        n = len(x)
        perm = rng.permutation(n)
        for i in range(0, n, BATCH):
            idx = perm[i : i + BATCH]
            yield x[idx], y[idx]

    return epoch


def eagerkernel_epoch(x: np.ndarray, y: np.ndarray) -> Epoch:
    import eagerkernel as ek

    ek.random.set_seed(0)
    dataset = (
        ek.data.Dataset.from_tensor_slices((x, y))
        .shuffle(BUFFER)
        .batch(BATCH)
        .prefetch(ek.data.AUTOTUNE)
    )
    return lambda: iter(dataset)


def torch_epoch(x: np.ndarray, y: np.ndarray) -> Epoch | None:
    try:
        import torch
        from torch.utils.data import DataLoader, TensorDataset
    except ImportError:
        return None
    torch.manual_seed(0)
    loader = DataLoader(
        TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=BATCH, shuffle=True
    )
    return lambda: iter(loader)


def fingerprints(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """One int64 per example that changes with any pixel or the label (exact, no floats)."""
    weights = np.random.default_rng(1).integers(1, 2**20, x[0].size, dtype=np.int64)
    return np.sort(x.reshape(len(x), -1).astype(np.int64) @ weights * 16 + y)


def check(name: str, epoch: Epoch, x: np.ndarray, y: np.ndarray) -> str | None:
    """An error message unless one epoch yields each (image, label) pair exactly once."""
    try:
        batches = [(np.asarray(xb), np.asarray(yb)) for xb, yb in epoch()]
    except Exception as exc:  # a broken pipeline is a wrong result, not a crash of the table
        return f"{name}: {type(exc).__name__}: {exc}"
    n = len(x)
    sizes = [len(yb) for _, yb in batches]
    want = [BATCH] * (n // BATCH) + ([n % BATCH] if n % BATCH else [])
    if sizes != want:
        return f"{name}: batch sizes {sizes[:3]}...{sizes[-2:]}, expected {want[:3]}...{want[-2:]}"
    xs = np.concatenate([xb for xb, _ in batches])
    ys = np.concatenate([yb for _, yb in batches])
    if xs.shape != x.shape or xs.dtype != x.dtype or ys.dtype != y.dtype:
        return f"{name}: got {xs.dtype}{xs.shape} and {ys.dtype}, expected {x.dtype}{x.shape}"
    if not np.array_equal(fingerprints(xs, ys), fingerprints(x, y)):
        return f"{name}: the epoch is not a permutation of the {n} (image, label) pairs"
    if n > 2 * BATCH and np.array_equal(ys, y):
        return f"{name}: the epoch came out in the original order (not shuffled)"
    return None


def consume(epoch: Epoch) -> Callable[[], int]:
    """A run that iterates one epoch, touching each batch as a training loop would."""

    def run() -> int:
        count = 0
        for _, yb in epoch():
            count += len(yb)
        return count

    return run


def best_times(runs: dict[str, Callable[[], int]], repeats: int) -> dict[str, float]:
    """Best wall time of one epoch per pipeline over ``repeats`` rounds, in seconds.

    The rounds go through the pipelines in turn; each epoch is timed by timeit (GC off).
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeats):
        for name, run in runs.items():
            best[name] = min(best[name], timeit.timeit(run, number=1))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="6000 examples, best of 2 (smoke)")
    parser.add_argument("--examples", type=int, help="examples per epoch (default 60000)")
    parser.add_argument("--repeats", type=int, help="timed epochs per pipeline (default 5)")
    args = parser.parse_args(argv)
    examples = args.examples or (6000 if args.quick else 60000)
    repeats = args.repeats or (2 if args.quick else 5)

    x, y, source = load(examples)
    n = len(x)
    setups = {"NumPy floor": numpy_epoch, "eagerkernel": eagerkernel_epoch, "PyTorch": torch_epoch}
    versions = {"Python": platform.python_version(), "NumPy": np.__version__}
    runs: dict[str, Callable[[], int]] = {}
    errors: list[str] = []
    for name, setup in setups.items():
        try:
            epoch = setup(x, y)
        except Exception as exc:
            errors.append(f"{name}: setup failed: {type(exc).__name__}: {exc}")
            continue
        if epoch is None:
            versions[name] = "not installed"
            continue
        module = {"PyTorch": "torch", "NumPy floor": "numpy"}.get(name, name)
        versions[name] = getattr(sys.modules.get(module), "__version__", "?")
        error = check(name, epoch, x, y)  # also the warm-up epoch
        if error:
            errors.append(error)
        else:
            runs[name] = consume(epoch)
    times = best_times(runs, repeats)
    rate = {name: n / t for name, t in times.items()}

    print(
        f"Input pipeline: one epoch of {n} examples (uint8 28x28 + label), batches of {BATCH},"
        f" shuffle buffer {BUFFER}; best of {repeats} epochs after a checked one"
    )
    print(f"  data: {source}")
    versions.pop("NumPy floor", None)
    print("  " + ", ".join(f"{k} {v}" for k, v in versions.items()))
    print()
    header = (
        f"{'pipeline':<14}{'':<32}{'epoch ms':>10}{'M ex/s':>9}{'vs NumPy':>10}{'vs PyTorch':>12}"
    )
    print(header)
    print("-" * len(header))

    def ratio(name: str, peer: str) -> float | None:
        if name in rate and peer in rate:
            return rate[name] / rate[peer]
        return None

    def fmt(r: float | None) -> str:
        return "-" if r is None else f"{r:.2f}x"

    for name in ROWS:
        t = times.get(name)
        cells = "-" if t is None else f"{t * 1e3:.1f}"
        speed = "-" if t is None else f"{rate[name] / 1e6:.3f}"
        print(
            f"{name:<14}{DESCRIPTIONS[name]:<32}{cells:>10}{speed:>9}"
            f"{fmt(ratio(name, 'NumPy floor')):>10}{fmt(ratio(name, 'PyTorch')):>12}"
        )
    print()
    print("Targets (eagerkernel examples/s over the peer's):")
    for peer, limit in TARGETS.items():
        r = ratio("eagerkernel", peer)
        verdict = "n/a (not measured)" if r is None else ("PASS" if r >= limit else "MISS")
        got = "" if r is None else f" got {r:.2f}x"
        print(f"  vs {peer:<12} >= {limit:.1f}x{got:<13}  {verdict}")

    if errors:
        print("\nWrong results:", *errors, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
