"""NumPy references for the convolution and pooling layer tests: direct loops over output
positions (tiny shapes only), TensorFlow's padding rules, and a finite-difference check of a
layer's gradients with respect to its input and its weights."""

import itertools

import numpy as np

import eagerkernel as ek


def sin_input(shape, a=0.37, b=0.1):
    """The deterministic inputs the TensorFlow reference values were computed with."""
    return np.sin(np.arange(np.prod(shape)) * a + b).reshape(shape).astype(np.float32)


def cos_weights(layer):
    """Sets weight ``i`` of ``layer`` to ``cos(arange * (0.23 + 0.1 i) + 0.2 + i)``, as the
    TensorFlow reference script did; returns the arrays."""
    values = [
        np.cos(np.arange(np.prod(w.shape)) * (0.23 + 0.1 * i) + 0.2 + i)
        .reshape(tuple(w.shape))
        .astype(w.dtype.as_numpy_dtype)
        for i, w in enumerate(layer.weights)
    ]
    layer.set_weights(values)
    return values


def same_pads(n, k, s, d=1):
    """TensorFlow's SAME padding ``(before, after)`` of one axis."""
    out = -(-n // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def np_conv(x, w, strides, padding, dilation=None):
    """N-D convolution, channels last: ``x`` ``(b, *spatial, c)``, ``w`` ``(*k, c, f)``."""
    nd = x.ndim - 2
    dilation = dilation or (1,) * nd
    ks = w.shape[:nd]
    if padding == "same":
        pads = [same_pads(n, k, s, d) for n, k, s, d in zip(x.shape[1:-1], ks, strides, dilation)]
    else:
        pads = [(0, 0)] * nd
    xp = np.pad(x.astype(np.float64), [(0, 0), *pads, (0, 0)])
    out_sp = [
        (n - (k - 1) * d - 1) // s + 1 for n, k, s, d in zip(xp.shape[1:-1], ks, strides, dilation)
    ]
    y = np.zeros((x.shape[0], *out_sp, w.shape[-1]))
    for o in itertools.product(*map(range, out_sp)):
        for t in itertools.product(*map(range, ks)):
            idx = tuple(oi * s + ti * d for oi, ti, s, d in zip(o, t, strides, dilation))
            y[(slice(None), *o)] += xp[(slice(None), *idx)] @ w[t]
    return y


def np_conv_transpose(x, w, out_spatial, strides, padding, dilation=None):
    """The transpose of `np_conv`: ``w`` ``(*k, f, c)``, ``x`` ``(b, *spatial, c)``, output
    ``(b, *out_spatial, f)``, scattered then cropped with TensorFlow's padding for that size."""
    nd = x.ndim - 2
    dilation = dilation or (1,) * nd
    ks = w.shape[:nd]
    full_sp = [
        (n - 1) * s + (k - 1) * d + 1 + max(o, 0)
        for n, k, s, d, o in zip(x.shape[1:-1], ks, strides, dilation, out_spatial)
    ]
    full = np.zeros((x.shape[0], *full_sp, w.shape[-2]))
    for i in itertools.product(*map(range, x.shape[1:-1])):
        for t in itertools.product(*map(range, ks)):
            idx = tuple(ii * s + ti * d for ii, ti, s, d in zip(i, t, strides, dilation))
            full[(slice(None), *idx)] += x[(slice(None), *i)].astype(np.float64) @ w[t].T
    starts = []
    for n, k, s, d, out in zip(x.shape[1:-1], ks, strides, dilation, out_spatial):
        total = max((n - 1) * s + (k - 1) * d + 1 - out, 0) if padding == "same" else 0
        starts.append(total // 2)
    sl = tuple(slice(a, a + out) for a, out in zip(starts, out_spatial))
    return full[(slice(None), *sl)]


def np_pool(x, pool, strides, padding, kind):
    """N-D max/mean pooling, channels last; SAME windows use only the elements inside."""
    nd = x.ndim - 2
    if padding == "same":
        pads = [same_pads(n, k, s) for n, k, s in zip(x.shape[1:-1], pool, strides)]
        out_sp = [-(-n // s) for n, s in zip(x.shape[1:-1], strides)]
    else:
        pads = [(0, 0)] * nd
        out_sp = [(n - k) // s + 1 for n, k, s in zip(x.shape[1:-1], pool, strides)]
    y = np.zeros((x.shape[0], *out_sp, x.shape[-1]))
    for o in itertools.product(*map(range, out_sp)):
        sl = []
        for oi, k, s, (p0, _), n in zip(o, pool, strides, pads, x.shape[1:-1]):
            start = oi * s - p0
            sl.append(slice(max(start, 0), min(start + k, n)))
        win = x[(slice(None), *sl)].reshape(x.shape[0], -1, x.shape[-1])
        y[(slice(None), *o)] = win.max(1) if kind == "max" else win.mean(1)
    return y


def check_layer_gradients(layer, x, eps=1e-6, rtol=1e-5, atol=1e-7, seed=0):
    """The tape's gradients of ``sum(layer(x) * p)`` (``p`` a fixed random projection) with
    respect to ``x`` and every trainable weight, against central finite differences. The
    layer must be float64."""
    x = np.asarray(x, np.float64)
    xt = ek.constant(x)
    proj = None

    def loss(inp):
        nonlocal proj
        y = layer(inp)
        if proj is None:
            proj = ek.constant(np.random.default_rng(seed).normal(size=tuple(y.shape)))
        return float(ek.reduce_sum(y * proj))

    loss(xt)
    with ek.GradientTape() as tape:
        tape.watch(xt)
        y = ek.reduce_sum(layer(xt) * proj)
    grads = tape.gradient(y, [xt, *layer.trainable_weights])
    numeric = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        numeric[i] = (loss(ek.constant(up)) - loss(ek.constant(down))) / (2 * eps)
    np.testing.assert_allclose(grads[0].numpy(), numeric, rtol=rtol, atol=atol, err_msg="input")
    for var, g in zip(layer.trainable_weights, grads[1:]):
        base = var.numpy().copy()
        numeric = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            for sign in (1, -1):
                moved = base.copy()
                moved[i] += sign * eps
                var.assign(moved)
                numeric[i] += sign * loss(xt) / (2 * eps)
        var.assign(base)
        np.testing.assert_allclose(g.numpy(), numeric, rtol=rtol, atol=atol, err_msg=var.name)


def rand(*shape, seed=0):
    """A float32 array of standard normal values, reproducible by ``seed``."""
    return np.random.default_rng(seed).normal(size=shape).astype(np.float32)


def roundtrip(layer):
    """A layer made again from its config, checked to give the same config."""
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    return clone
