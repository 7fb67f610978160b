"""`ek.keras.utils.plot_model` / `model_to_dot` (Keras's): the graph's nodes and edges, the
file written, the errors."""

from __future__ import annotations

import re
import shutil

import pytest

from eagerkernel import keras

needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot missing")


def _model():
    inputs = keras.Input(shape=(8,), name="img")
    x = keras.layers.Dense(4, activation="relu", name="a")(inputs)
    y = keras.layers.Dense(4, name="b")(x)
    out = keras.layers.Dense(2, name="out")(keras.layers.add([x, y], name="sum"))
    return keras.Model(inputs, out, name="net")


def _edges(dot) -> set:
    names = dict(re.findall(r"\t(\d+) \[label=<.*?<b>(\w+)</b>", dot.source))
    return {(names[a], names[b]) for a, b in re.findall(r"\t(\d+) -> (\d+)", dot.source)}


def test_model_to_dot_has_a_node_per_layer_and_an_edge_per_tensor():
    dot = keras.utils.model_to_dot(_model(), show_shapes=True, show_dtype=True)
    assert _edges(dot) == {("img", "a"), ("a", "b"), ("a", "sum"), ("b", "sum"), ("sum", "out")}
    assert "Input shape: <b>[(None, 4), (None, 4)]</b>" in dot.source
    assert "Output dtype: <b>float32</b>" in dot.source
    seq = keras.Sequential(
        [keras.Input((3,)), keras.layers.Dense(2, name="d1"), keras.layers.Dense(1, name="d2")]
    )
    assert ("d1", "d2") in _edges(keras.utils.model_to_dot(seq))


def test_nested_models_are_clusters_when_expanded():
    inner = _model()
    x = keras.Input(shape=(8,), name="x")
    outer = keras.Model(x, keras.layers.Dense(1, name="head")(inner(x)))
    flat = keras.utils.model_to_dot(outer).source
    assert "cluster" not in flat and "(Functional)" in flat
    nested = keras.utils.model_to_dot(outer, expand_nested=True).source
    assert "subgraph cluster_net" in nested and "<b>sum</b>" in nested


@needs_dot
def test_plot_model_writes_the_picture(tmp_path):
    img = keras.utils.plot_model(_model(), to_file=tmp_path / "m.png", show_shapes=True)
    data = (tmp_path / "m.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and img._repr_png_() == data
    svg = keras.utils.plot_model(_model(), to_file=str(tmp_path / "m.svg"))
    assert svg._repr_svg_().lstrip().startswith("<?xml") and svg._repr_png_() is None


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="rankdir must be 'TB' or 'LR'"):
        keras.utils.model_to_dot(_model(), rankdir="BT")
    with pytest.raises(ValueError, match="unrecognized keyword arguments"):
        keras.utils.model_to_dot(_model(), layer_range=["a", "b"])
    with pytest.raises(ValueError, match="has not been built yet"):
        keras.utils.model_to_dot(keras.Sequential([keras.layers.Dense(2)]))
