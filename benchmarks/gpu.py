"""GPU benchmarks, for a machine with a CUDA GPU and CuPy (on CPU it says so and exits 0).

1. TensorFlow's eager guide benchmark: a 1000x1000 float32 matmul, 200 products, on /cpu:0 and
   /gpu:0 (the GPU is synchronized before the clock is read, and after a warm-up product).
2. Op overhead on the GPU: a small elementwise op through eagerkernel vs the same raw CuPy call.
3. The guide's Fashion-MNIST CNN training step (batch 50, Adam) on the GPU vs PyTorch CUDA.

Virtual GPUs (``EAGERKERNEL_VIRTUAL_GPUS``) are NumPy-backed and are never benchmarked as GPUs.

Usage::

    python benchmarks/gpu.py            # all three
    python benchmarks/gpu.py --quick    # fewer repetitions
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np
from guide_cnn import eagerkernel_cnn, torch_cnn  # a sibling module


def _real_gpu_reason() -> str:
    os.environ.pop("EAGERKERNEL_VIRTUAL_GPUS", None)
    from eagerkernel.runtime.core import device as device_mod

    device_mod.set_virtual_gpus(0)
    return device_mod.gpu_unavailable_reason()


def _timed(fn, repeat: int, sync) -> float:
    """Median seconds of ``fn`` over ``repeat`` runs, synchronizing before each clock read."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        sync()
        start = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def matmul_benchmark(ek, products: int) -> None:
    shape = (1000, 1000)
    print(f"1. {products} products of {shape} float32 matrices (ek.matmul)")
    for name in ("/cpu:0", "/gpu:0"):
        dev = ek.runtime.device.get_device(name)
        with ek.device(name):
            x = ek.random.normal(shape)

            def run(x=x):
                for _ in range(products):
                    ek.matmul(x, x)

            seconds = _timed(run, 1, dev.synchronize)
        print(f"   {name}: {seconds:8.3f} s   ({seconds / products * 1e3:7.3f} ms/product)")


def overhead_benchmark(ek, cupy, repeat: int) -> None:
    n = 10_000
    print(f"2. op overhead on the GPU: a + b on 10-element arrays, {n} times")
    dev = ek.runtime.device.get_device("/gpu:0")
    with ek.device("/gpu:0"):
        a = ek.ones((10,))
        b = ek.ones((10,))
    ca, cb = a._value, b._value

    def eager():
        for _ in range(n):
            a + b

    def raw():
        for _ in range(n):
            ca + cb

    te = _timed(eager, repeat, dev.synchronize)
    tr = _timed(raw, repeat, dev.synchronize)
    print(f"   eagerkernel: {te / n * 1e6:7.2f} us/op   raw CuPy: {tr / n * 1e6:7.2f} us/op")
    print(f"   overhead: {(te - tr) / n * 1e6:7.2f} us/op ({te / tr:.2f}x)")


def _ek_cnn_step(ek):
    model = eagerkernel_cnn(ek, input_shape=None)
    opt = ek.keras.optimizers.Adam(1e-3)
    loss_fn = ek.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    rng = np.random.default_rng(0)
    x = ek.constant(rng.normal(size=(50, 28, 28, 1)).astype(np.float32))
    y = ek.constant(rng.integers(0, 10, size=50).astype(np.int32))

    def step():
        with ek.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))

    return step


def _torch_cnn_step(torch):
    nn = torch.nn
    dev = torch.device("cuda:0")
    model = torch_cnn(torch).to(dev)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    x = torch.randn(50, 1, 28, 28, device=dev)
    y = torch.randint(0, 10, (50,), device=dev)
    loss_fn = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()

    return step


def cnn_benchmark(ek, repeat: int) -> None:
    print(f"3. Fashion-MNIST CNN training step, batch 50, Adam (median of {repeat})")
    dev = ek.runtime.device.get_device("/gpu:0")
    with ek.device("/gpu:0"):
        step = _ek_cnn_step(ek)
        te = _timed(step, repeat, dev.synchronize)
    print(f"   eagerkernel /gpu:0: {te * 1e3:8.2f} ms/step")
    try:
        import torch
    except ImportError:
        print("   PyTorch: not installed")
        return
    if not torch.cuda.is_available():
        print("   PyTorch: no CUDA build or device")
        return
    tt = _timed(_torch_cnn_step(torch), repeat, torch.cuda.synchronize)
    print(f"   PyTorch cuda:0:     {tt * 1e3:8.2f} ms/step   eagerkernel/PyTorch: {te / tt:.2f}x")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args(argv)
    reason = _real_gpu_reason()
    if reason:
        print(f"benchmarks/gpu.py cannot run without a CUDA GPU: {reason}.")
        return 0
    import cupy

    import eagerkernel as ek

    print(f"GPU: {ek.runtime.device.get_device('/gpu:0').describe()}, CuPy {cupy.__version__}")
    matmul_benchmark(ek, 20 if args.quick else 200)
    overhead_benchmark(ek, cupy, 2 if args.quick else 5)
    cnn_benchmark(ek, 3 if args.quick else 20)
    return 0


if __name__ == "__main__":
    sys.exit(main())
