"""`ek.keras.ops.image` warps (affine_transform, perspective_transform, map_coordinates,
elastic_transform, scale_and_translate): values on small hand-made inputs (literals checked
against Keras 3.15 / TensorFlow 2.21, the TensorFlow backend), closed forms, gradients against
finite differences, graph functions against eager calls, and the errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
from eagerkernel.keras import ops

import eagerkernel as ek

IMG = np.arange(1, 13, dtype=np.float32).reshape(3, 4, 1)
IMG45 = np.arange(1, 21, dtype=np.float32).reshape(4, 5, 1)
T = np.array([0.9, 0.15, 0.37, -0.1, 1.05, -0.42, 0, 0], np.float32)


def close(got, want, atol=1e-5, rtol=1e-5):
    got = got.numpy() if hasattr(got, "numpy") else got
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), atol=atol, rtol=rtol)


def numeric_grad(f, x, eps=1e-4):
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(ek.constant(x + d))) - float(f(ek.constant(x - d)))) / (2 * eps)
    return g


def tape_grad(f, x):
    x = ek.constant(np.asarray(x, np.float64))
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


# -- affine_transform ---------------------------------------------------------------------------

AFFINE = {  # checked against Keras 3 / TF 2.21, fill_value=-1
    ("constant", "bilinear"): [
        [0.3746001, 0.5696001, 0.5846, 0.4195998, 0.0746],
        [4.6699996, 5.0699997, 5.47, 5.87, 5.292001],
        [10.07, 10.469999, 10.869999, 11.27, 8.052],
        [15.469998, 15.870001, 16.269997, 16.669998, 9.237006],
    ],
    ("constant", "nearest"): [
        [1, -1, -1, -1, -1],
        [7, 7, 3, 4, 5],
        [12, 13, 8, 9, 10],
        [17, 18, 19, 15, 15],
    ],
    ("nearest", "bilinear"): [
        [1.37, 2.27, 3.17, 4.0699997, 4.97],
        [4.6699996, 5.0699997, 5.47, 5.87, 6.1499996],
        [10.07, 10.469999, 10.869999, 11.27, 11.4],
        [15.469998, 15.870001, 16.269997, 16.669998, 16.649998],
    ],
    ("nearest", "nearest"): [
        [1, 2, 3, 4, 5],
        [7, 7, 3, 4, 5],
        [12, 13, 8, 9, 10],
        [17, 18, 19, 15, 15],
    ],
}
AFFINE[("reflect", "bilinear")] = AFFINE[("nearest", "bilinear")]
AFFINE[("reflect", "nearest")] = AFFINE[("nearest", "nearest")]


@pytest.mark.parametrize("fill_mode, interpolation", sorted(AFFINE))
def test_affine_transform_matches_keras(fill_mode, interpolation):
    got = ops.image.affine_transform(
        IMG45, T, interpolation=interpolation, fill_mode=fill_mode, fill_value=-1.0
    )
    assert got.shape == IMG45.shape and got.dtype == ek.float32
    close(got[..., 0], AFFINE[(fill_mode, interpolation)])


def test_affine_transform_integer_shifts_wrap_and_reflect():
    shift = [1, 0, 2, 0, 1, 0, 0, 0]  # read two columns to the right
    close(
        ops.image.affine_transform(IMG45, shift, fill_mode="wrap"),
        np.roll(IMG45, -2, axis=1),
    )
    want = np.pad(IMG45, [[0, 0], [0, 2], [0, 0]], mode="symmetric")[:, 2:]
    close(ops.image.affine_transform(IMG45, shift, fill_mode="reflect"), want)


def test_affine_transform_projective_dtypes_batches_and_formats():
    proj = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.1, 0.05], np.float32)
    close(  # checked against Keras 3 / TF 2.21
        ops.image.affine_transform(IMG, proj)[..., 0],
        [
            [1.0, 1.9090909, 2.6666665, 3.3076923],
            [4.809524, 5.347826, 5.8, 6.185185],
            [8.272727, 8.5, 8.692308, 8.857142],
        ],
    )
    u8 = ops.image.affine_transform(
        IMG45.astype(np.uint8) * 10, np.array([1, 0, 0.25, 0, 1, 0.5, 0, 0], np.float32)
    )
    assert u8.dtype == ek.uint8  # sampled in float32, truncated back as TensorFlow does
    close(
        u8[..., 0],
        [
            [37, 47, 57, 67, 56],
            [87, 97, 107, 117, 93],
            [137, 147, 157, 167, 131],
            [81, 86, 91, 96, 75],
        ],
    )
    batch = np.stack([IMG45, 2 * IMG45])
    one_row = ops.image.affine_transform(batch, T[None])
    close(one_row[1], 2 * ops.image.affine_transform(IMG45, T).numpy(), atol=1e-4)
    rows = ops.image.affine_transform(batch, np.stack([T, [1, 0, 0, 0, 1, 0, 0, 0]]))
    close(rows[1], 2 * IMG45)
    cf = ops.image.affine_transform(np.transpose(IMG45, (2, 0, 1)), T, data_format="channels_first")
    close(cf[0], ops.image.affine_transform(IMG45, T)[..., 0])


def test_affine_transform_gradient_reaches_images_only():
    weights = np.random.default_rng(2).normal(size=(1, 4, 5, 1))
    t = np.array([1.1, 0.3, -0.6, -0.2, 0.8, 0.7, 0, 0])

    def f(x):
        return ek.reduce_sum(ops.image.affine_transform(x, t) * weights)

    x = IMG45[None].astype(np.float64)
    close(tape_grad(f, x), numeric_grad(f, x), atol=1e-6)
    tr = ek.constant(t, ek.float32)
    with ek.GradientTape() as tape:
        tape.watch(tr)
        y = ek.reduce_sum(ops.image.affine_transform(IMG45, tr))
    assert tape.gradient(y, tr) is None  # as Keras documents


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"interpolation": "bicubic"}, r"interpolation"),
        ({"fill_mode": "mirror"}, r"fill_mode"),
        ({"data_format": "NHWC"}, r"data_format"),
    ],
)
def test_affine_transform_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=r"affine_transform.*" + match):
        ops.image.affine_transform(IMG, T, **kwargs)


def test_affine_transform_shape_errors():
    with pytest.raises(ValueError, match=r"affine_transform.*images rank"):
        ops.image.affine_transform(IMG[..., 0], T)
    with pytest.raises(ValueError, match=r"affine_transform.*transform rank"):
        ops.image.affine_transform(IMG, T[None, None])
    with pytest.raises(ValueError, match=r"affine_transform.*\(8,\)"):
        ops.image.affine_transform(IMG, T[:6])
    with pytest.raises(ValueError, match=r"affine_transform.*batch=1"):
        ops.image.affine_transform(IMG, np.stack([T, T]))


# -- perspective_transform ----------------------------------------------------------------------

START = np.array([[0, 0], [0, 3], [4, 0], [4, 3]], np.float32)
END = np.array([[0.3, 0.2], [0.1, 2.7], [3.6, -0.4], [4.2, 3.1]], np.float32)
PERSPECTIVE = [  # checked against Keras 3 / TF 2.21
    [0.2681057, 1.8695612, 3.8879583, 3.1274247],
    [3.1840944, 6.7417126, 8.306069, 6.5168333],
    [5.0798907, 7.6771045, 8.698941, 7.503213],
]


def test_perspective_transform():
    close(ops.image.perspective_transform(IMG, START, END)[..., 0], PERSPECTIVE)
    near = ops.image.perspective_transform(IMG, START, END, interpolation="nearest", fill_value=-1)
    close(near[..., 0], [[-1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    batch = ops.image.perspective_transform(
        np.stack([IMG, IMG]), np.stack([START, START]), np.stack([END, START])
    )
    close(batch[0, ..., 0], PERSPECTIVE)
    close(batch[1], IMG)  # the same corners: the identity
    cf = ops.image.perspective_transform(
        np.moveaxis(IMG, -1, 0), START, END, data_format="channels_first"
    )
    close(cf[0], PERSPECTIVE)
    ints = ops.image.perspective_transform(IMG.astype(np.int32), START, START + 0.5)
    close(ints[..., 0], [[0, 0, 1, 1], [1, 3, 4, 5], [3, 7, 8, 9]])


def test_perspective_transform_errors():
    op = ops.image.perspective_transform
    with pytest.raises(ValueError, match=r"perspective_transform.*start_points shape"):
        op(IMG, START[:3], END[:3])
    with pytest.raises(ValueError, match=r"perspective_transform.*end_points shape"):
        op(IMG, START, END[:3])
    with pytest.raises(ValueError, match=r"perspective_transform.*same shape"):
        op(IMG, START, np.stack([END, END]))
    with pytest.raises(ValueError, match=r"perspective_transform.*interpolation"):
        op(IMG, START, END, interpolation="bicubic")
    with pytest.raises(ValueError, match=r"perspective_transform.*rank"):
        op(IMG[..., 0], START, END)


# -- map_coordinates ----------------------------------------------------------------------------

INP = np.arange(12, dtype=np.float32).reshape(3, 4)
COORDS = np.array([[[-0.7, 0.3, 1.5, 2.6, 3.2]], [[0.4, -1.2, 2.5, 3.7, 4.5]]], np.float32)
MAPPED = {  # checked against Keras 3 / TF 2.21, fill_value=-2
    ("constant", 0): [[-2, -2, 10, -2, -2]],
    ("constant", 1): [[-1.2800001, -2.0, 8.5, -0.4399998, -2.0]],
    ("nearest", 0): [[0, 0, 10, 11, 11]],
    ("nearest", 1): [[0.4, 1.2, 8.5, 11.0, 11.0]],
    ("wrap", 0): [[8, 3, 10, 0, 0]],
    ("wrap", 1): [[6.0, 4.0, 8.5, 4.100001, 1.3000002]],
    ("reflect", 0): [[4, 1, 10, 11, 11]],
    ("reflect", 1): [[3.1999998, 2.4, 8.5, 11.0, 9.7]],
    # mirror: (c d c b | a b c d | c b a b) by hand (Keras's TF backend indexes past the edge)
    ("mirror", 0): [[4, 1, 10, 6, 6]],
}


@pytest.mark.parametrize("fill_mode, order", sorted(MAPPED))
def test_map_coordinates_matches_keras(fill_mode, order):
    got = ops.image.map_coordinates(INP, COORDS, order, fill_mode=fill_mode, fill_value=-2)
    assert got.shape == (1, 5) and got.dtype == ek.float32
    close(got, MAPPED[(fill_mode, order)])


def test_map_coordinates_dtypes_and_forms():
    ints = ops.image.map_coordinates(INP.astype(np.int32), COORDS, 1)
    assert ints.dtype == ek.int32
    close(ints, [[0, 0, 8, 1, 0]])  # checked against Keras 3 / TF 2.21
    f64 = ops.image.map_coordinates(INP, COORDS.astype(np.float64), 1)
    assert f64.dtype == ek.float32
    close(f64, [[0.12, 0.0, 8.5, 1.32, 0.0]])
    close(ops.image.map_coordinates(INP, np.array([[0, 2], [1, 3]]), 0), [1, 11])
    close(ops.image.map_coordinates(INP, np.array([[0, 2], [1, 3]]), 1), [1, 11])
    pair = [np.array([0.5, 1.5], np.float32), np.array([1.0, 2.25], np.float32)]
    close(ops.image.map_coordinates(INP, pair, 1), [3.0, 8.25])
    cube = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    close(ops.image.map_coordinates(cube, np.array([[0.5], [1.5], [2.5]], np.float32), 1), [14.5])


def test_map_coordinates_gradients():
    inputs = (np.arange(12.0).reshape(3, 4) ** 1.5).astype(np.float64)
    coords = np.array([[[0.3, 1.2, 1.7]], [[0.4, 2.2, 1.6]]])
    weights = np.array([[1.0, -2.0, 3.0]])
    for mode in ("constant", "nearest", "reflect", "wrap", "mirror"):

        def of_inputs(x, mode=mode):
            return ek.reduce_sum(ops.image.map_coordinates(x, coords, 1, fill_mode=mode) * weights)

        def of_coords(c, mode=mode):
            return ek.reduce_sum(ops.image.map_coordinates(inputs, c, 1, fill_mode=mode) * weights)

        close(tape_grad(of_inputs, inputs), numeric_grad(of_inputs, inputs), atol=1e-6)
        close(tape_grad(of_coords, coords), numeric_grad(of_coords, coords), atol=1e-5)


def test_map_coordinates_errors():
    with pytest.raises(NotImplementedError, match=r"map_coordinates.*order"):
        ops.image.map_coordinates(INP, COORDS, 2)
    with pytest.raises(ValueError, match=r"map_coordinates.*fill_mode"):
        ops.image.map_coordinates(INP, COORDS, 1, fill_mode="foo")
    with pytest.raises(ValueError, match=r"map_coordinates.*rank of `inputs`"):
        ops.image.map_coordinates(INP, COORDS[:1], 1)
    with pytest.raises(ValueError, match=r"map_coordinates.*at least rank 2"):
        ops.image.map_coordinates(np.arange(5.0), np.array([1.5]), 1)


# -- elastic_transform --------------------------------------------------------------------------

X56 = np.arange(1, 31, dtype=np.float32).reshape(5, 6, 1)
ELASTIC_SEED_7 = [  # checked against Keras 3 / TF 2.21 (TensorFlow's stateless normals)
    [5.2291903, 6.2528768, 9.2006, 11.32452, 12.0246315, 10.9061575],
    [3.7718675, 3.5803633, 3.6429546, 3.12711, 4.7177167, 6.641001],
    [11.595745, 13.217718, 15.327124, 13.886068, 11.875612, 15.112875],
    [20.51548, 20.695864, 22.039877, 20.58153, 18.216097, 20.770956],
    [25.43232, 26.108793, 26.738281, 26.068626, 25.188889, 26.99673],
]


def test_elastic_transform_int_seed_matches_keras():
    got = ops.image.elastic_transform(X56, alpha=2.0, sigma=1.0, seed=7)
    close(got[..., 0], ELASTIC_SEED_7)
    cf = ops.image.elastic_transform(
        np.moveaxis(X56, -1, 0), alpha=2.0, sigma=1.0, seed=7, data_format="channels_first"
    )
    close(cf[0], ELASTIC_SEED_7)
    got = ops.image.elastic_transform(
        np.stack([X56, 2 * X56]),
        alpha=3.0,
        sigma=1.5,
        seed=3,
        fill_mode="constant",
        fill_value=-1.0,
        interpolation="nearest",
    )
    close(
        got[..., 0],
        [
            [
                [8, 9, 10, 11, 12, 6],
                [14, 15, 16, 10, 11, 12],
                [20, 21, 22, 16, 17, 18],
                [19, 20, 21, 22, 23, 24],
                [25, 26, 27, 28, 29, 30],
            ],
            [
                [2, 4, 6, 8, 10, 12],
                [14, 30, 32, 34, 22, 24],
                [40, 42, 44, 46, 48, -1],
                [52, 54, 56, 58, -1, -1],
                [50, -1, -1, -1, -1, -1],
            ],
        ],
    )
    again = ops.image.elastic_transform(X56, seed=7)
    close(again, ops.image.elastic_transform(X56, seed=7))


def test_elastic_transform_fresh_draws_and_seed_generators():
    a, b = ops.image.elastic_transform(X56), ops.image.elastic_transform(X56)
    assert not np.array_equal(a.numpy(), b.numpy())
    gen1, gen2 = ek.keras.random.SeedGenerator(5), ek.keras.random.SeedGenerator(5)
    first = ops.image.elastic_transform(X56, seed=gen1)
    second = ops.image.elastic_transform(X56, seed=gen1)
    assert not np.array_equal(first.numpy(), second.numpy())
    close(ops.image.elastic_transform(X56, seed=gen2), first)  # the same sequence
    x = ek.constant(X56)
    with ek.GradientTape() as tape:
        tape.watch(x)
        y = ek.reduce_sum(ops.image.elastic_transform(x, seed=1))
    assert tape.gradient(y, x).shape == X56.shape


def test_elastic_transform_errors():
    with pytest.raises(ValueError, match=r"elastic_transform.*fill_mode"):
        ops.image.elastic_transform(X56, fill_mode="mirror")
    with pytest.raises(ValueError, match=r"elastic_transform.*interpolation"):
        ops.image.elastic_transform(X56, interpolation="bicubic")
    with pytest.raises(ValueError, match=r"elastic_transform.*seed"):
        ops.image.elastic_transform(X56, seed="a")
    with pytest.raises(TypeError, match=r"elastic_transform.*float"):
        ops.image.elastic_transform(X56.astype(np.int32), seed=1)
    with pytest.raises(ValueError, match=r"elastic_transform.*rank"):
        ops.image.elastic_transform(X56[..., 0])


# -- scale_and_translate ------------------------------------------------------------------------

IM20 = np.arange(20, dtype=np.float32).reshape(4, 5)
IM20_64 = IM20.astype(np.float64)
SCALE = np.array([0.7, 0.45], np.float32)
SHIFT = np.array([0.3, -0.2], np.float32)
SCALED = {  # checked against Keras 3 / TF 2.21
    ("linear", True): [[1.8863639, 3.8765826], [7.1708455, 9.161064], [14.020981, 16.011198]],
    ("linear", False): [[1.0555556, 3.277778], [7.1269836, 9.349206], [14.269842, 16.492064]],
    ("cubic", True): [[1.0292763, 3.2750955], [6.8111696, 9.056989], [14.291182, 16.536999]],
    ("cubic", False): [[0.6589198, 2.9278288], [7.126983, 9.395893], [14.736193, 17.005102]],
    ("lanczos3", True): [[0.8889183, 3.3056052], [6.3605037, 8.77719], [14.664576, 17.08126]],
    ("lanczos3", False): [[0.6671711, 2.9590504], [7.283943, 9.575824], [14.919457, 17.211336]],
    ("lanczos5", True): [[1.0386344, 3.5597744], [6.1487136, 8.669852], [14.932215, 17.453354]],
    ("lanczos5", False): [[0.4498349, 2.7748635], [7.2318635, 9.556892], [14.616778, 16.941807]],
}


@pytest.mark.parametrize("method, antialias", sorted(SCALED))
def test_scale_and_translate_matches_keras(method, antialias):
    got = ops.image.scale_and_translate(
        IM20, (3, 2), SCALE, SHIFT, (0, 1), method, antialias=antialias
    )
    close(got, SCALED[(method, antialias)], atol=2e-6, rtol=1e-6)


def test_scale_and_translate_forms():
    im = np.arange(9, dtype=np.float32).reshape(3, 3)
    scale = np.array([2.0, 2.0], np.float32)
    got = ops.image.scale_and_translate(im, (5, 5), scale, -(scale / 2 - 0.5), (0, 1), "linear")
    close(got, 1.5 * np.arange(5)[:, None] + 0.5 * np.arange(5)[None, :])
    close(
        ops.image.scale_and_translate(IM20, (4, 3), [0.5], [0.0], (-1,), "trilinear")[0],
        [0.7142857, 2.5, 3.75],
    )
    batch = ops.image.scale_and_translate(
        np.stack([IM20, -IM20])[..., None], (2, 6, 4, 1), [1.3, 0.8], [0.1, 0.2], (1, 2), "bicubic"
    )
    close(batch[0, 0, :, 0], [-0.3611938, 0.7088511, 2.002574, 3.3148665])
    close(batch[0, 5], np.zeros((4, 1)))  # sampled outside the input
    close(batch[1], -batch[0].numpy())
    ints = ops.image.scale_and_translate(
        IM20.astype(np.int32), (3, 2), SCALE, SHIFT, (0, 1), "linear"
    )
    assert ints.dtype == ek.int32
    close(ints, np.round(SCALED[("linear", True)]))
    with pytest.raises(ValueError, match=r"scale_and_translate.*method"):
        ops.image.scale_and_translate(IM20, (4, 3), [0.5], [0.0], (-1,), "nearest")


def test_scale_and_translate_gradients():
    weights = np.random.default_rng(3).normal(size=(3, 2))

    def of_image(x):
        return ek.reduce_sum(
            ops.image.scale_and_translate(x, (3, 2), SCALE, SHIFT, (0, 1), "cubic") * weights
        )

    def of_scale(s):
        return ek.reduce_sum(
            ops.image.scale_and_translate(IM20_64, (3, 2), s, SHIFT, (0, 1), "linear") * weights
        )

    close(tape_grad(of_image, IM20), numeric_grad(of_image, IM20), atol=1e-6)
    scale = SCALE.astype(np.float64)
    close(tape_grad(of_scale, scale), numeric_grad(of_scale, scale), atol=1e-6)


# -- graph functions and functional models ------------------------------------------------------


def test_graph_function_recomputes_value_dependent_ops():
    transform = ek.constant(T)

    def step(image, coords, a, b):
        return (
            ops.image.map_coordinates(image[..., 0], coords, 1, fill_mode="reflect"),
            ops.image.affine_transform(image, transform),
            ops.lstsq(a, b),
            ops.image.elastic_transform(image, alpha=2.0, sigma=1.0, seed=7),
        )

    traced = ek.function(step)
    rng = np.random.default_rng(4)
    for _ in range(2):
        args = (
            rng.normal(size=(4, 5, 1)).astype(np.float32),
            rng.uniform(-1, 5, size=(2, 3, 2)).astype(np.float32),
            rng.normal(size=(5, 2)).astype(np.float32),
            rng.normal(size=(5,)).astype(np.float32),
        )
        for got, want in zip(traced(*map(ek.constant, args)), step(*map(ek.constant, args))):
            close(got, want, atol=1e-5)


def test_graph_function_draws_fresh_noise():
    traced = ek.function(lambda x: ops.image.elastic_transform(x, alpha=2.0, sigma=1.0))
    first, second = traced(ek.constant(X56)), traced(ek.constant(X56))
    assert not np.array_equal(first.numpy(), second.numpy())
    gen1, gen2 = ek.keras.random.SeedGenerator(9), ek.keras.random.SeedGenerator(9)
    seeded = ek.function(lambda x: ops.image.elastic_transform(x, seed=gen1))
    for _ in range(2):  # the generator advances on every replay, as in eager calls
        close(seeded(ek.constant(X56)), ops.image.elastic_transform(X56, seed=gen2))


def test_functional_model_with_image_ops():
    x = ek.keras.Input((4, 5, 3))
    y = ops.image.affine_transform(ops.image.rgb_to_hsv(x), [1.0, 0, 1, 0, 1, 0, 0, 0])
    z = ops.image.extract_patches(ops.image.gaussian_blur(y), 2)
    assert tuple(z.shape) == (None, 2, 2, 12)
    model = ek.keras.Model(x, z)
    data = np.random.default_rng(5).uniform(size=(2, 4, 5, 3)).astype(np.float32)
    want = ops.image.extract_patches(
        ops.image.gaussian_blur(
            ops.image.affine_transform(ops.image.rgb_to_hsv(data), [1.0, 0, 1, 0, 1, 0, 0, 0])
        ),
        2,
    )
    close(model(data), want)
