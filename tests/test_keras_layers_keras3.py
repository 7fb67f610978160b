"""Keras 3 layers: AdaptiveAveragePooling1D/2D/3D, AdaptiveMaxPooling1D/2D/3D
(keras/layers/pooling_adaptive.py) and ReversibleEmbedding (keras/layers/embedding_reversible.py):
outputs against Keras 3 / TF 2.21 (literals below), both data formats, a NumPy loop over
PyTorch's adaptive regions, gradients against finite differences, fresh results from an
`ek.function` called twice, get_config round trips and Keras's errors."""

from __future__ import annotations

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.runtime.keras.layers.pooling_adaptive import adaptive_regions
from eagerkernel.testing import check_gradients

L = ek.keras.layers


def _sines(shape) -> np.ndarray:
    """``sin(1.7 k)`` for k = 0, 1, ... as float32 of ``shape`` (no ties within a window)."""
    return np.sin(np.arange(int(np.prod(shape))) * 1.7).astype(np.float32).reshape(shape)


def _values(text: str) -> np.ndarray:
    return np.array(text.split(), np.float64)


# keras.layers.Adaptive{kind}Pooling{dim}(output_size)(_sines(shape)), raveled, channels_last;
# checked against Keras 3 / TF 2.21 (channels_first gave the same values, transposed).
ORACLE = [
    ("Average", "1D", (1, 7, 2), 3, "0.0795241 0.288112 0.2178 0.192364 0.299186 0.0463683"),
    ("Max", "1D", (1, 7, 2), 3, "0.494113 0.991665 0.859162 0.798487 0.999793 0.396741"),
    (
        "Average",
        "1D",
        (1, 3, 2),
        5,
        "0 0.991665 -0.127771 0.0329251 -0.255541 -0.925815 0.119286 -0.0636638 0.494113 0.798487",
    ),
    (
        "Max",
        "1D",
        (1, 3, 2),
        5,
        "0 0.991665 0 0.991665 -0.255541 -0.925815 0.494113 0.798487 0.494113 0.798487",
    ),
    (
        "Average",
        "2D",
        (1, 5, 7, 2),
        (3, 4),
        "-0.0870166 -0.0401822 0.0364488 -0.244573 -0.0878343 -0.215091 0.073769 -0.0783233 "
        "0.0519739 -0.0423609 0.127869 0.066217 0.152372 -0.010395 0.0202745 0.0567523 "
        "0.0178331 0.0965698 -0.206658 0.156431 -0.114991 0.228928 -0.100757 0.00277901",
    ),
    (
        "Max",
        "2D",
        (1, 5, 7, 2),
        (3, 4),
        "0.879273 0.991665 0.879273 0.798487 0.859162 0.9856 0.999793 0.940429 0.879273 "
        "0.892012 0.949404 0.998858 0.98059 0.998858 0.98059 0.940429 0.814705 0.892012 "
        "0.994827 0.998858 0.915095 0.998858 0.596335 0.844798",
    ),
    (
        "Average",
        "3D",
        (1, 4, 5, 3, 1),
        (3, 2, 2),
        "-0.0565907 0.379727 -0.222428 -0.276636 0.0820332 0.35718 -0.318136 -0.164747 "
        "0.209716 0.286996 -0.371413 -0.0308854",
    ),
    (
        "Max",
        "3D",
        (1, 4, 5, 3, 1),
        (3, 2, 2),
        "0.991665 0.991665 0.999793 0.9856 0.949404 0.9856 0.940429 0.9856 0.998858 0.998858 "
        "0.75564 0.98059",
    ),
]


@pytest.mark.parametrize("kind, dim, shape, output_size, expected", ORACLE)
def test_adaptive_pooling_matches_keras(kind, dim, shape, output_size, expected):
    cls = getattr(L, f"Adaptive{kind}Pooling{dim}")
    x = _sines(shape)
    y = cls(output_size)(x)
    assert y.dtype == ek.float32
    np.testing.assert_allclose(y.numpy().ravel(), _values(expected), rtol=1e-5, atol=1e-6)
    first = cls(output_size, data_format="channels_first")(np.moveaxis(x, -1, 1))
    np.testing.assert_allclose(np.moveaxis(first.numpy(), 1, -1), y.numpy(), rtol=1e-6)


def _reference(x: np.ndarray, output_size: tuple, reduce) -> np.ndarray:
    """A NumPy loop over PyTorch's regions (channels_last)."""
    spatial = x.shape[1:-1]
    out = np.empty((x.shape[0], *output_size, x.shape[-1]))
    for index in np.ndindex(*output_size):
        window = tuple(
            slice(*adaptive_regions(n, m)[i]) for n, m, i in zip(spatial, output_size, index)
        )
        out[(slice(None), *index)] = reduce(
            x[(slice(None), *window)], axis=tuple(range(1, 1 + len(spatial)))
        )
    return out


@pytest.mark.parametrize(
    "dim, shape, output_size",
    [("1D", (2, 9, 3), (4,)), ("2D", (2, 6, 4, 3), (4, 6)), ("3D", (1, 5, 3, 7, 2), (2, 3, 3))],
)
def test_adaptive_pooling_matches_the_region_loop(dim, shape, output_size):
    x = np.random.default_rng(1).normal(size=shape)
    for kind, reduce in (("Average", np.mean), ("Max", np.max)):
        y = getattr(L, f"Adaptive{kind}Pooling{dim}")(output_size, dtype="float64")(x)
        assert y.dtype == ek.float64
        np.testing.assert_allclose(y.numpy(), _reference(x, output_size, reduce), rtol=1e-12)


def test_adaptive_regions_are_pytorchs():
    assert adaptive_regions(7, 3) == [(0, 3), (2, 5), (4, 7)]
    assert adaptive_regions(6, 6) == [(i, i + 1) for i in range(6)]
    assert adaptive_regions(10, 1) == [(0, 10)]


@pytest.mark.parametrize("kind", ["Average", "Max"])
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_adaptive_pooling_gradients(kind, data_format):
    x = np.random.default_rng(2).normal(size=(1, 5, 4, 2))
    layer = getattr(L, f"Adaptive{kind}Pooling2D")((3, 3), data_format, dtype="float64")
    check_gradients(lambda t: layer(t) ** 2, x)
    layer1 = getattr(L, f"Adaptive{kind}Pooling1D")(4, data_format, dtype="float64")
    check_gradients(lambda t: layer1(t) ** 2, x[:, :, 0])
    layer3 = getattr(L, f"Adaptive{kind}Pooling3D")((2, 3, 1), data_format, dtype="float64")
    check_gradients(lambda t: layer3(t) ** 2, x[..., None])


@pytest.mark.parametrize("kind", ["Average", "Max"])
def test_adaptive_pooling_in_function_is_not_stale(kind):
    layer = getattr(L, f"Adaptive{kind}Pooling2D")(2)
    f = ek.function(lambda t: layer(t))
    a, b = _sines((2, 5, 5, 3)), -_sines((2, 5, 5, 3)) + 1.0
    np.testing.assert_allclose(f(a).numpy(), layer(a).numpy(), rtol=1e-6)
    np.testing.assert_allclose(f(b).numpy(), layer(b).numpy(), rtol=1e-6)
    assert not np.allclose(f(a).numpy(), f(b).numpy())


def test_adaptive_pooling_config_and_shapes():
    layer = L.AdaptiveAveragePooling2D([3, 4], data_format="channels_first", name="p")
    config = layer.get_config()
    assert config["output_size"] == (3, 4)
    assert config["data_format"] == "channels_first"
    again = L.AdaptiveAveragePooling2D.from_config(config)
    assert (again.name, again.output_size, again.data_format) == ("p", (3, 4), "channels_first")
    assert L.AdaptiveMaxPooling3D(2).output_size == (2, 2, 2)
    assert L.AdaptiveMaxPooling1D(5).get_config()["data_format"] == "channels_last"
    assert layer.compute_output_shape((None, 3, 9, 9)) == (None, 3, 3, 4)
    assert L.AdaptiveMaxPooling1D(2).compute_output_shape((4, 9, 3)) == (4, 2, 3)
    model = ek.keras.Sequential([ek.keras.Input((8, 8, 3)), L.AdaptiveMaxPooling2D(2)])
    assert tuple(model(np.ones((1, 8, 8, 3), np.float32)).shape) == (1, 2, 2, 3)


def test_adaptive_pooling_errors():
    # Keras 3's types and messages.
    with pytest.raises(
        TypeError, match=r"integer or \(height, width\) tuple. Received: \(1, 2, 3\)"
    ):
        L.AdaptiveAveragePooling2D((1, 2, 3))
    with pytest.raises(TypeError, match=r"Received: 2\.5 of type"):
        L.AdaptiveMaxPooling2D(2.5)
    with pytest.raises(TypeError, match=r"\(depth, height, width\) tuple"):
        L.AdaptiveMaxPooling3D((2, 2))
    with pytest.raises(ValueError, match="For 1D input, `output_size` tuple must have length 1"):
        L.AdaptiveMaxPooling1D((1, 2))
    with pytest.raises(TypeError, match=r"tuple of 1 integer\. Received: a"):
        L.AdaptiveAveragePooling1D("a")
    with pytest.raises(ValueError, match="Invalid data_format: nhwc"):
        L.AdaptiveMaxPooling1D(2, data_format="nhwc")
    # Keras divides by zero at call time; refused here when made.
    with pytest.raises(ValueError, match="output_size=0"):
        L.AdaptiveMaxPooling1D(0)
    with pytest.raises(ValueError, match="expected an input of rank 4"):
        L.AdaptiveAveragePooling2D(2)(np.ones((1, 4, 2), np.float32))


# ReversibleEmbedding(5, 3) with embeddings E (and reverse_embeddings R), on ids [[1, 0, 4]]
# and hidden states H; checked against Keras 3 / TF 2.21.
E = np.round(np.sin(np.arange(15) * 0.9).reshape(5, 3), 3).astype(np.float32)
R = np.round(np.cos(np.arange(15) * 0.7).reshape(3, 5), 3).astype(np.float32)
H = np.round(np.sin(np.arange(6) * 1.3).reshape(1, 2, 3), 3).astype(np.float32)
TIED = _values(
    "1.2573959827 -0.9316999316 0.4260919988 0.1608399898 -0.7170240283 -0.4819790125 "
    "-0.1128770113 0.6875230074 -1.1296260357 1.3550840616"
)
UNTIED_CAPPED = _values(
    "-0.3862463832 -0.3283030689 -0.0866524801 0.2379970849 0.3739649653 0.2689500451 "
    "-0.0604577065 -0.3284474611 -0.3971869648 -0.3506128788"
)


def test_reversible_embedding_matches_keras():
    layer = L.ReversibleEmbedding(5, 3, mask_zero=True, name="reversible_embedding")
    layer(np.zeros((1, 1), np.int32))  # builds inside the layer's name scope
    layer.embeddings.assign(E)
    out = layer(np.array([[1, 0, 4]]))
    np.testing.assert_allclose(out.numpy()[0], E[[1, 0, 4]])
    np.testing.assert_array_equal(layer.compute_mask(ek.constant([[1, 0, 4]])), [[1, 0, 1]])
    logits = layer(H, reverse=True)
    assert tuple(logits.shape) == (1, 2, 5)
    np.testing.assert_allclose(logits.numpy().ravel(), TIED, rtol=1e-6)
    assert layer.compute_mask(ek.constant(H)) is None
    assert [v.name for v in layer.variables] == ["reversible_embedding/embeddings:0"]

    untied = L.ReversibleEmbedding(5, 3, tie_weights=False, logit_soft_cap=0.5, name="r")
    untied(np.zeros((1, 1), np.int32))
    untied.embeddings.assign(E)
    untied.reverse_embeddings.assign(R)
    assert [(v.name, tuple(v.shape)) for v in untied.variables] == [
        ("r/embeddings:0", (5, 3)),
        ("r/reverse_embeddings:0", (3, 5)),
    ]
    np.testing.assert_allclose(untied(H, reverse=True).numpy().ravel(), UNTIED_CAPPED, rtol=1e-6)
    assert untied.compute_output_shape((2, 7, 3), reverse=True) == (2, 7, 5)
    assert untied.compute_output_shape((2, 7)) == (2, 7, 3)


def test_reversible_embedding_reverse_dtype_gradients_and_function():
    layer = L.ReversibleEmbedding(5, 3, reverse_dtype="float64")
    layer.build()
    layer.embeddings.assign(E)
    logits = layer(H, reverse=True)
    assert logits.dtype == ek.float64
    np.testing.assert_allclose(logits.numpy().ravel(), TIED, rtol=1e-6)

    tied = L.ReversibleEmbedding(5, 3, logit_soft_cap=2.0)
    tied.build()
    with ek.GradientTape() as tape:
        loss = ek.reduce_sum(tied(tied(ek.constant([[1, 2]])), reverse=True) ** 2)
    (grad,) = tape.gradient(loss, tied.trainable_variables)
    emb = tied.embeddings.numpy().astype(np.float64)

    def numeric_loss(w):
        z = w[[1, 2]] @ w.T
        return np.sum((np.tanh(z / 2.0) * 2.0) ** 2)

    numeric = np.zeros_like(emb)
    for i in np.ndindex(*emb.shape):
        step = np.zeros_like(emb)
        step[i] = 1e-4
        numeric[i] = (numeric_loss(emb + step) - numeric_loss(emb - step)) / 2e-4
    np.testing.assert_allclose(ek.convert_to_tensor(grad).numpy(), numeric, rtol=1e-3, atol=1e-4)

    f = ek.function(lambda h: tied(h, reverse=True))
    a, b = ek.constant(H), ek.constant(-2.0 * H)
    np.testing.assert_allclose(f(a).numpy(), tied(a, reverse=True).numpy(), rtol=1e-6)
    np.testing.assert_allclose(f(b).numpy(), tied(b, reverse=True).numpy(), rtol=1e-6)


def test_reversible_embedding_config_and_errors():
    layer = L.ReversibleEmbedding(5, 3, tie_weights=False, logit_soft_cap=0.5, name="r")
    config = layer.get_config()
    assert (config["tie_weights"], config["reverse_dtype"], config["logit_soft_cap"]) == (
        False,
        None,
        0.5,
    )
    again = L.ReversibleEmbedding.from_config(config)
    assert (again.input_dim, again.output_dim, again.tie_weights, again.logit_soft_cap) == (
        5,
        3,
        False,
        0.5,
    )
    with pytest.raises(ValueError, match="positive"):
        L.ReversibleEmbedding(0, 3)
    with pytest.raises(ValueError, match="logit_soft_cap=0"):
        L.ReversibleEmbedding(5, 3, logit_soft_cap=0)
