"""`Model.summary`'s Keras 3 arguments: ``show_trainable``, ``expand_nested``, ``layer_range``,
``line_length`` and ``positions``, checked against what Keras 3.15 prints for the same models
(its rows, columns and numbers; the table is drawn in this package's plain style)."""

from __future__ import annotations

import re

import pytest

from eagerkernel import keras

layers = keras.layers


def outer_model():
    """Keras's transfer-learning shape: a frozen Sequential base inside a functional model."""
    base = keras.Sequential(
        [keras.Input((4,)), layers.Dense(3, name="d1"), layers.Dense(2, name="d2")], name="base"
    )
    base.trainable = False
    inputs = keras.Input((4,), name="inp")
    x = layers.Dropout(0.1, name="drop")(base(inputs))
    return keras.Model(inputs, layers.Dense(1, name="head")(x), name="outer")


def summary_lines(model, **kwargs) -> list:
    lines = []
    model.summary(print_fn=lines.append, **kwargs)
    return lines


def rows(lines) -> list:
    """The table's rows (between the ``=`` line under the header and the closing one), each
    split on runs of two or more spaces."""
    first = lines.index("=" * len(lines[1])) + 1
    last = len(lines) - 1 - lines[::-1].index("=" * len(lines[1]))
    return [re.split(r"\s{2,}", line.strip()) for line in lines[first:last] if line[0] != "_"]


def test_show_trainable_adds_keras_3s_trainable_column():
    lines = summary_lines(outer_model(), show_trainable=True)
    # Keras 3.15: inp -, base N, drop -, head Y ("-" for a layer without weights)
    assert rows(lines) == [
        ["inp (InputLayer)", "[(None, 4)]", "0", "-"],
        ["base (Sequential)", "(None, 2)", "23", "N"],
        ["drop (Dropout)", "(None, 2)", "0", "-"],
        ["head (Dense)", "(None, 1)", "3", "Y"],
    ]
    assert lines[2].split() == ["Layer", "(type)", "Output", "Shape", "Param", "#", "Trainable"]
    assert len(lines[1]) == 92  # 80 + 12, as Keras 3 widens the table
    # the other columns end at 90% of where they did: [0.45, 0.8, 1.0] * 0.9, then 1.0
    assert lines[2].index("Param #") == int(92 * 0.8 * 0.9)
    assert lines[2].index("Trainable") == int(92 * 1.0 * 0.9)
    assert lines[-4:] == [
        "Total params: 26",
        "Trainable params: 3",
        "Non-trainable params: 23",
        "_" * 92,
    ]


def test_show_trainable_on_a_sequential_model():
    model = keras.Sequential(
        [keras.Input((3,)), layers.Dense(2, name="a"), layers.BatchNormalization(name="bn")],
        name="seq",
    )
    model.layers[0].trainable = False
    lines = summary_lines(model, show_trainable=True)
    assert lines[0] == 'Model: "seq"'
    assert rows(lines) == [  # Keras 3.15: a N, bn Y; 16 params, 4 trainable
        ["a (Dense)", "(None, 2)", "8", "N"],
        ["bn (BatchNormalization)", "(None, 2)", "8", "Y"],
    ]
    assert "Trainable params: 4" in lines and "Non-trainable params: 12" in lines


def test_expand_nested_lists_the_nested_models_layers_indented():
    lines = summary_lines(outer_model(), expand_nested=True)
    assert rows(lines) == [
        ["inp (InputLayer)", "[(None, 4)]", "0"],
        ["base (Sequential)", "(None, 2)", "23"],
        ["└ d1 (Dense)", "(None, 3)", "15"],
        ["└ d2 (Dense)", "(None, 2)", "8"],
        ["drop (Dropout)", "(None, 2)", "0"],
        ["head (Dense)", "(None, 1)", "3"],
    ]
    assert any(line.startswith("   └ d1 (Dense)") for line in lines)  # Keras's indent
    assert "Total params: 26" in lines  # the totals are the model's, counted once


def test_expand_nested_with_show_trainable_marks_the_frozen_sublayers():
    got = rows(summary_lines(outer_model(), expand_nested=True, show_trainable=True))
    assert [r[0] for r in got][2:4] == ["└ d1 (Dense)", "└ d2 (Dense)"]
    assert [r[-1] for r in got] == ["-", "N", "N", "N", "-", "Y"]


def test_expand_nested_under_a_connected_to_column():
    a = keras.Input((4,), name="a")
    inner = keras.Model(a, layers.Dense(2, name="o")(layers.Dense(3, name="h")(a)), name="inner")
    x1, x2 = keras.Input((4,), name="x1"), keras.Input((4,), name="x2")
    y = layers.Concatenate(name="cat")([inner(x1), inner(x2)])
    model = keras.Model([x1, x2], layers.Dense(1, name="top")(y), name="two")
    lines = summary_lines(model, expand_nested=True, show_trainable=True)
    assert len(lines[1]) == 110 and "Connected to" in lines[2] and "Trainable" in lines[2]
    names = [line.split(" (")[0].strip() for line in lines[4:-5] if line[:1] not in "_ "]
    # Keras 3.15 lists the nested functional model's input layer too
    assert names == ["x1", "x2", "inner", "cat", "top"]
    nested = [line for line in lines if line.startswith("   └ ")]
    assert [line.split()[1] for line in nested] == ["a", "h", "o"]
    h_row = next(line for line in nested if " h (Dense)" in line)
    assert "(None, 3)" in h_row and " 15 " in h_row
    assert h_row.rstrip().endswith("Y") and "[0][0]" not in h_row  # no connections (Keras "-")
    inner_at = next(i for i, line in enumerate(lines) if line.startswith("inner (Functional)"))
    assert lines[inner_at].split()[-2:] == ["x1[0][0]", "Y"]
    assert lines[inner_at + 1].strip() == "x2[0][0]"
    assert lines[inner_at + 2][0] == "_" and lines[inner_at + 3].startswith("   └ a (InputLayer)")


def test_layer_range_selects_rows_by_name_or_regex():
    model = outer_model()
    assert [r[0] for r in rows(summary_lines(model, layer_range=["base", "drop"]))] == [
        "base (Sequential)",
        "drop (Dropout)",
    ]
    # re.match: "d.*" first matches "drop" (d1 and d2 are not the model's own layers)
    assert [r[0] for r in rows(summary_lines(model, layer_range=("d.*", "head")))] == [
        "drop (Dropout)",
        "head (Dense)",
    ]
    # given the wrong way round, Keras takes the span between them
    assert len(rows(summary_lines(model, layer_range=["head", "inp"]))) == 4
    lines = summary_lines(model, layer_range=["base", "base"])
    assert "Total params: 26" in lines  # the totals stay the whole model's


def test_layer_range_on_a_sequential_model():
    model = keras.Sequential(
        [keras.Input((3,)), layers.Dense(2, name="a"), layers.Dense(2, name="b")], name="s"
    )
    assert [r[0] for r in rows(summary_lines(model, layer_range=["b", "b"]))] == ["b (Dense)"]


@pytest.mark.parametrize(
    ("layer_range", "message"),
    [
        (
            ["a"],
            "layer_range must be a list or tuple of length 2. Received: layer_range = ['a'] "
            "of length 1",
        ),
        ([1, 2], "layer_range should contain string type only. Received: [1, 2]"),
        (
            ["zzz", "head"],
            "Passed layer_names do not match the layer names in the model. Received: "
            "['zzz', 'head']",
        ),
    ],
)
def test_bad_layer_range_raises_keras_3s_errors(layer_range, message):
    with pytest.raises(ValueError) as info:
        outer_model().summary(print_fn=lambda line: None, layer_range=layer_range)
    assert str(info.value) == message


def test_line_length_and_positions():
    lines = summary_lines(outer_model(), line_length=60, positions=[0.5, 0.8, 1.0])
    assert len(lines[1]) == 60
    assert lines[2].index("Output Shape") == 30 and lines[2].index("Param #") == 48
    absolute = summary_lines(outer_model(), positions=[20, 40, 60], show_trainable=True)
    assert absolute[2].index("Trainable") == 60 and len(absolute[1]) == 92


def test_bad_positions_and_widths_raise():
    with pytest.raises(ValueError, match=r"`positions` must give 3 column ends"):
        outer_model().summary(print_fn=print, positions=[0.5, 1.0])
    with pytest.raises(ValueError, match=r"^Insufficient console width to print summary\.$"):
        outer_model().summary(print_fn=print, line_length=10)


def test_summary_prints_to_stdout_by_default(capsys):
    outer_model().summary(show_trainable=True, layer_range=["head", "head"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == 'Model: "outer"'
    assert rows(out) == [["head (Dense)", "(None, 1)", "3", "Y"]]


def test_subclassed_model_not_built_with_the_new_arguments():
    class MLP(keras.Model):
        def __init__(self):
            super().__init__(name="mlp")
            self.hidden = layers.Dense(4, name="hidden")
            self.out = layers.Dense(1, name="out")

        def call(self, inputs):
            return self.out(self.hidden(inputs))

    lines = summary_lines(MLP(), show_trainable=True, expand_nested=True)
    # Keras 3.15: "?" shapes, "0 (unbuilt)" and "-" (no weights yet)
    assert rows(lines) == [
        ["hidden (Dense)", "?", "0 (unbuilt)", "-"],
        ["out (Dense)", "?", "0 (unbuilt)", "-"],
    ]
