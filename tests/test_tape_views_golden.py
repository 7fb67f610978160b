"""The ``%%tape`` views' text and HTML forms stay as they were: `TapeRecord` (its text, its
HTML, its timing's text and its graph's text form) on a range of tapes, compared with the
strings in ``tests/data/tape_views_golden.json``.

The tapes are recorded for real (a loop of 2000 small ops, a Keras training step with
``tape.gradient`` and an optimizer update, ``ek.function`` calls, a cell that raised, a
multi-output op, views, a plain `GradientTape`), by code compiled as ``cell.py`` so that the
source lines do not depend on this file. Their times are then replaced by fixed ones, so the
forms are the same on every run.

The golden file records the output of the views as they were; regenerate it
(``python tests/test_tape_views_golden.py --write``) for a change of the displays that is
meant, or when the runtime records other ops (a gradient decomposed otherwise), which the
test reports as such.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

import eagerkernel as ek
from eagerkernel.magics import TapeRecord
from eagerkernel.runtime.core.tape import ProfilingTape

GOLDEN = Path(__file__).parent / "data" / "tape_views_golden.json"

CELLS = {
    "loop": """
y = x
for _ in range(1000):
    y = y * a + b
""",
    "keras": """
hidden = ek.keras.layers.Dense(4, activation="relu", name="hidden")
model = ek.keras.Sequential([hidden, ek.keras.layers.Dense(2, name="out")], name="model")
model(ek.ones((3, 5)))
opt = ek.keras.optimizers.SGD(0.1)
with tape:
    with ek.GradientTape() as g:
        loss = ek.reduce_mean(ek.square(model(ek.ones((3, 5)))))
    grads = g.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
""",
    "function": """
w = ek.Variable([[0.5], [-1.0]])

@ek.function
def train_step(x):
    with ek.GradientTape() as g:
        loss = ek.reduce_sum(ek.tanh(ek.matmul(x, w)))
    return loss, g.gradient(loss, w)

x = ek.constant([[1.0, 2.0]])
train_step(x)
with tape:
    loss, _ = train_step(x)
    train_step(x)
    y = loss * 2.0
    with ek.name_scope("outer"):
        z = ek.exp(y) + ek.ones(())
""",
    "mixed": """
with tape:
    m = ek.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    t = ek.transpose(m)
    r = ek.reshape(m, (4, 3))
    parts = ek.split(m, 2, axis=1)
    s = ek.concat([parts[0], parts[1]], axis=0)
    n = ek.cast(s, ek.int32) + 1
    c = ek.constant(3)
    for k in range(6):
        c = c * 2
        m = ek.concat([m, m[:1]], axis=0)
""",
    "plain": """
with tape:
    tape.watch(x)
    y = x
    for _ in range(30):
        y = ek.sin(y) * a
    m = ek.reshape(y, (2, 5))
    u, v = ek.unstack(m)
""",
}


def _timed(tape: ProfilingTape, none_every: int = 0) -> ProfilingTape:
    """Gives every record (and every scope mark) a fixed time; with ``none_every``, every
    such record has no time (as a `custom_gradient` call)."""
    for i, r in enumerate(tape.records):
        none = none_every and i % none_every == none_every - 1
        r.seconds = None if none else ((i * 7919) % 997 + 1) * 1.3e-7
    tape._scope_marks[:] = [(s, p, k * 2.5e-4) for k, (s, p, _) in enumerate(tape._scope_marks)]
    return tape


def _run(name: str, tape) -> ProfilingTape:
    ns = {"ek": ek, "np": np, "tape": tape}
    ns.update(
        x=ek.constant(np.ones(10, np.float32)),
        a=ek.constant(np.full(10, 0.999, np.float32)),
        b=ek.constant(np.full(10, 0.001, np.float32)),
    )
    code = CELLS[name]
    if name == "loop":  # the whole cell on the tape
        code = "with tape:\n" + "".join("    " + line + "\n" for line in code.splitlines())
    exec(compile(code, "cell.py", "exec"), ns)
    return tape


def _replay(tape) -> list:
    return [
        None if i % 11 == 3 else (r.seconds or 1e-6, 1.5 * (r.seconds or 1e-6))
        for i, r in enumerate(tape.records)
    ]


def cases() -> dict:
    """``{case: TapeRecord}``, on tapes recorded afresh."""
    loop = _timed(_run("loop", ProfilingTape()))
    keras = _timed(_run("keras", ProfilingTape()))
    function = _timed(_run("function", ProfilingTape()))
    mixed = _timed(_run("mixed", ProfilingTape()), none_every=4)
    plain = _run("plain", ek.GradientTape(persistent=True))
    out = {
        "loop": TapeRecord(loop, "_tape"),
        "loop-cell-file": TapeRecord(loop, "t", cell_file="cell.py", picture=False),
        "keras-all": TapeRecord(keras, None, max_rows=0, picture=False),
        "loop-3": TapeRecord(loop, "_tape", max_rows=3, sort="time"),
        "loop-1": TapeRecord(loop, "_tape", max_rows=1, sort="count", by="layer"),
        "loop-replay": TapeRecord(
            loop, "_tape", replay=_replay(loop), repeat=3, warmup=1, sort="name"
        ),
        "loop-retimed": TapeRecord(loop, "_tape", retimed=[1, 5, 9, 12, 40, 77]),
        "loop-retimed-1": TapeRecord(loop, "_tape", retimed=[3], max_rows=4),
        "keras": TapeRecord(keras, "_tape", cell_file="cell.py"),
        "keras-layer": TapeRecord(keras, "_tape", by="layer", sort="time", max_rows=8),
        "keras-replay": TapeRecord(
            keras, "_tape", replay=_replay(keras), by="layer", repeat=5, warmup=2
        ),
        "function": TapeRecord(function, "t"),
        "function-expand": TapeRecord(function, "t", expand=True, max_rows=6),
        "function-replay": TapeRecord(function, "t", replay=_replay(function), repeat=2),
        "function-small": TapeRecord(function, "t", max_rows=1, by="layer"),
        "mixed": TapeRecord(mixed, "_tape", cell_file="cell.py"),
        "mixed-all": TapeRecord(mixed, "_tape", max_rows=0),
        "mixed-partial": TapeRecord(mixed, "_tape", error=KeyError("boom"), max_rows=5, by="layer"),
        "plain": TapeRecord(plain, "g", max_rows=4),
        "plain-all": TapeRecord(plain, "g", max_rows=0, error=ValueError("x")),
    }
    one = _timed(ProfilingTape())
    with one:
        ek.constant(2.0) * ek.constant(3.0)
    out["one-op"] = TapeRecord(_timed(one), "one")
    return out


NAMES = [
    "loop",
    "loop-cell-file",
    "keras-all",
    "loop-3",
    "loop-1",
    "loop-replay",
    "loop-retimed",
    "loop-retimed-1",
    "keras",
    "keras-layer",
    "keras-replay",
    "function",
    "function-expand",
    "function-replay",
    "function-small",
    "mixed",
    "mixed-all",
    "mixed-partial",
    "plain",
    "plain-all",
    "one-op",
]


def forms(record: TapeRecord) -> dict:
    """The forms compared: the texts in full, the HTML by its SHA-256; ``ops`` (the op names,
    by their SHA-256) tells a change of the runtime (another decomposition of a gradient) from
    one of the views."""
    return {
        "ops": hashlib.sha256(" ".join(record.op_names).encode()).hexdigest(),
        "text": repr(record),
        "timing": repr(record.timing),
        "graph": repr(record.graph),
        "html": hashlib.sha256(record._repr_html_().encode()).hexdigest(),
        "timing_html": hashlib.sha256(record.timing._repr_html_().encode()).hexdigest(),
    }


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def made() -> dict:
    return {name: forms(record) for name, record in cases().items()}


def test_every_case_has_a_golden_form(golden, made):
    assert sorted(made) == sorted(golden) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_tape_views_match_golden(name, golden, made):
    assert made[name]["ops"] == golden[name]["ops"], (
        f"{name}: the runtime records other ops than when the golden file was made; check the "
        "new forms and regenerate it (python tests/test_tape_views_golden.py --write)"
    )
    for form, text in made[name].items():
        assert text == golden[name][form], f"{name}: {form}"


def test_text_and_html_made_twice_are_the_same():
    """The rows are made once per ``max_rows``; changing it makes them again."""
    record = cases()["keras"]
    first = repr(record), record._repr_html_()
    assert (repr(record), record._repr_html_()) == first
    record.max_rows = 3
    assert repr(record) != first[0]
    record.max_rows = 50
    assert repr(record) == first[0]


def write_golden() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    data = {name: forms(record) for name, record in cases().items()}
    GOLDEN.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    write_golden()
